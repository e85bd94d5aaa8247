/* gather.c - MPI_Gather(v): a root that receives a block from every other
 * rank of the communicator into distinct slices of one buffer in one round
 * (the v-variant unless equal slices in rank order; rounds.c finds them).
 * The master/worker "offset, length, block" protocol is part of it: the
 * values a root receives from the same rank right before its block, and
 * that become the block's address or count (DG_MSGF_ARG with the block's
 * call site), are the displs and recvcounts arrays of an MPI_Gatherv; their
 * messages join the instance (rounds.c).
 */
#include "collectives-private.h"

static int find_gather(struct cx *c, struct coll_in *src)
{
    return coll_find_slices(c, src, DG_MSG_RECV, &coll_gather);
}

static void gather_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_text_calls(b, h, sh);
    if (h->var & VAR_PROTOCOL) {
        search_text_printf(b, " receive from every rank the offset and length of its block, then the block "
                              "at that offset: use %s, the offsets and lengths become its displs and "
                              "recvcounts arrays, needed on the root only (one MPI_Gather of the lengths "
                              "if the root cannot compute them) (",
                           sh->collective);
        return;
    }
    search_text_printf(
        b, " receive a block from every rank into distinct slices of one buffer%s at the root: use %s (",
        h->var & VAR_V ? " (of different sizes or out of rank order)" : "", sh->collective);
}

/* The root's receive buffer, counts and displacements, and the others'
 * send buffer (MPI_IN_PLACE at the root: its own slot was never received
 * into). */
static void gather_fix(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_fix_replace(b, h, sh, NULL);
    coll_fix_root(b, h, sh);
    if (h->var & VAR_PROTOCOL) {
        search_text_printf(b, "; recvcounts and displs (at the root only) = each block's count and its offset "
                              "from the start of the buffer the blocks are received into, in elements of the "
                              "datatype, as its calls compute them now from the lengths and offsets it receives "
                              "before each block (a row count times a row's length), 0 for itself (it needs them "
                              "before the call: one MPI_Gather of the lengths if it cannot compute them, the "
                              "offsets summed from them); recvbuf = that buffer");
    } else if (h->var & VAR_V) {
        search_text_printf(b, "; recvcounts and displs (at the root only) = each rank's slice's count and offset "
                              "from the start of the buffer the receives fill, as in the calls, 0 for the root "
                              "itself; recvbuf = that buffer");
    } else {
        coll_fix_slices(b, h, "recvbuf (written at the root only) = the buffer the receives fill");
    }
    search_text_printf(b, "; sendbuf = the one sent, MPI_IN_PLACE at the root (its own slot was never received "
                          "into: it stays as it is)");
}

const struct coll_pattern coll_gather = {
    .name = "gather",
    .input = COLL_IN_EACH_ROUND,
    .find = find_gather,
    .main_call = LM_RECV,
    .mpi = "MPI_Gather",
    .mpi_v = "MPI_Gatherv",
    .text = gather_text,
    .fix = gather_fix,
};
