/* gather.c - MPI_Gather(v): a root that receives a block from every other
 * rank of the communicator into distinct slices of one buffer in one round
 * (the v-variant unless equal slices in rank order; rounds.c finds them).
 * The master/worker "offset, length, block" protocol is part of it: the
 * values a root receives from the same rank right before its block, and
 * that become the block's address or count (DG_MSGF_ARG with the block's
 * call site), are the displs and recvcounts arrays of an MPI_Gatherv; their
 * messages join the instance.
 */
#include "collectives-private.h"

/* Adds the control messages of the block received at pos (rank r): the
 * receives right before it from the same peer whose value the block's call
 * used, and their other ends.  Returns how many it added, or < 0. */
static int control_parts(struct cx *c, int r, uint32_t pos, struct inst *in)
{
    const struct dg_msgrec *blk = coll_rec(c, r, pos);
    int added = 0;
    for (uint32_t i = pos; i-- > 0;) {
        const struct dg_msgrec *x = coll_rec(c, r, i);
        if (x->kind != DG_MSG_RECV || x->peer != blk->peer || x->comm != blk->comm ||
            !(x->flags & DG_MSGF_ARG) || x->use_site != blk->site || c->claimed[r][i])
            break;
        struct dg_pos pp = dg_match_peer(c->m, (struct dg_pos){r, i});
        if (!coll_valid(c, pp) || c->claimed[pp.rank][pp.pos])
            break;
        int rc;
        if ((rc = coll_inst_add(in, r, i, true)) < 0 || (rc = coll_inst_add(in, pp.rank, pp.pos, false)) < 0)
            return rc;
        added++;
    }
    return added;
}

static int find_gather(struct cx *c, struct coll_in *src)
{
    const struct round *ro = src->ro;
    const unsigned need = RC_COMPLETE | RC_MATCHED | RC_SLICES;
    if (ro->kind != DG_MSG_RECV || (ro->cls & need) != need)
        return 0;
    struct inst *in = &c->in;
    coll_inst_reset(in, &coll_gather, ro->rank, ro->p);
    if (!(ro->cls & RC_REGULAR))
        in->var |= VAR_V;
    int rc = coll_round_parts(c, src->rs, ro, in);
    if (rc < 0)
        return rc;
    /* the protocol only when every block follows its control messages */
    uint32_t base = in->n, with = 0;
    for (uint32_t k = 0; k < ro->n; k++) {
        uint32_t pos = src->rs->pos[ro->first + k];
        if (coll_rec(c, ro->rank, pos)->peer == ro->rank)
            continue;
        if ((rc = control_parts(c, ro->rank, pos, in)) < 0)
            return rc;
        with += rc > 0;
    }
    uint32_t others = 0;
    for (uint32_t k = 0; k < ro->n; k++)
        others += coll_rec(c, ro->rank, src->rs->pos[ro->first + k])->peer != ro->rank;
    if (with && with == others)
        in->var |= VAR_PROTOCOL | VAR_V;
    else
        in->n = base;
    return coll_inst_unclaimed(c, in) ? coll_emit(c, in) : 0;
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

const struct coll_pattern coll_gather = {
    .name = "gather",
    .input = COLL_IN_EACH_ROUND,
    .find = find_gather,
    .main_call = LM_RECV,
    .mpi = "MPI_Gather",
    .mpi_v = "MPI_Gatherv",
    .text = gather_text,
};
