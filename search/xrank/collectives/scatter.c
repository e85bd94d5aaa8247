/* scatter.c - MPI_Scatter(v): a root that sends distinct slices of one
 * buffer to every other rank of the communicator in one round (the
 * v-variant unless equal slices in rank order; rounds.c finds them).
 * With the "offset, length, block" protocol: the values the root sends a
 * rank right before its block, and that its call reads for the block's
 * address or count (DG_MSGF_ARG), are the displs and sendcounts arrays of
 * an MPI_Scatterv; their messages join the instance (rounds.c).
 */
#include "collectives-private.h"

static int find_scatter(struct cx *c, struct coll_in *src)
{
    return coll_find_slices(c, src, DG_MSG_SEND, &coll_scatter);
}

static void scatter_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_text_calls(b, h, sh);
    if (h->var & VAR_PROTOCOL) {
        search_text_printf(b, " send every rank the offset and length of its block, then the block at that "
                              "offset: use %s, the offsets and lengths become its displs and sendcounts "
                              "arrays, needed on the root only (a rank that uses its offset or length, "
                              "as its recvcount or otherwise, gets them with one MPI_Scatter if it cannot "
                              "compute them) (",
                           sh->collective);
        return;
    }
    search_text_printf(b, " send distinct slices of one buffer%s from the root to every rank: use %s (",
                       h->var & VAR_V ? " (of different sizes or out of rank order)" : "", sh->collective);
}

/* The root's send buffer, counts and displacements, and the others'
 * receive buffer (MPI_IN_PLACE at the root: its own slice was never sent). */
static void scatter_fix(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_fix_replace(b, h, sh, NULL);
    coll_fix_root(b, h, sh);
    if (h->var & VAR_PROTOCOL) {
        search_text_printf(b, "; sendcounts and displs (at the root only) = each block's count and its offset "
                              "from the start of the buffer the blocks are sent from, in elements of the "
                              "datatype, as its calls compute them now from the lengths and offsets it sends "
                              "before each block (a row count times a row's length), 0 for itself; sendbuf = "
                              "that buffer");
    } else if (h->var & VAR_V) {
        search_text_printf(b, "; sendcounts and displs (at the root only) = each rank's slice's count and offset "
                              "from the start of the buffer the sends take them from, as in the calls, 0 for "
                              "the root itself; sendbuf = that buffer");
    } else {
        coll_fix_slices(b, h, "sendbuf (read at the root only) = the buffer the sends take the slices from");
    }
    search_text_printf(b, "; recvbuf = the one received into, MPI_IN_PLACE at the root (its own slice was never "
                          "sent: it stays where it is)");
}

const struct coll_pattern coll_scatter = {
    .name = "scatter",
    .input = COLL_IN_EACH_ROUND,
    .find = find_scatter,
    .main_call = LM_SEND,
    .mpi = "MPI_Scatter",
    .mpi_v = "MPI_Scatterv",
    .text = scatter_text,
    .fix = scatter_fix,
};
