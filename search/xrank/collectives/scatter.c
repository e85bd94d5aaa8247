/* scatter.c - MPI_Scatter(v): a root that sends distinct slices of one
 * buffer to every other rank of the communicator in one round (the
 * v-variant unless equal slices in rank order; rounds.c finds them).
 */
#include "collectives-private.h"

static int find_scatter(struct cx *c, struct coll_in *src)
{
    return coll_find_slices(c, src, DG_MSG_SEND, &coll_scatter);
}

static void scatter_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_text_calls(b, h, sh);
    search_text_printf(b, " send distinct slices of one buffer%s from the root to every rank: use %s (",
                       h->var & VAR_V ? " (of different sizes or out of rank order)" : "", sh->collective);
}

const struct coll_pattern coll_scatter = {
    .name = "scatter",
    .input = COLL_IN_EACH_ROUND,
    .find = find_scatter,
    .main_call = LM_SEND,
    .mpi = "MPI_Scatter",
    .mpi_v = "MPI_Scatterv",
    .text = scatter_text,
};
