/* allreduce.c - MPI_Allreduce: a reduce into one accumulator (reduce.c)
 * whose root then broadcasts the result: the first broadcast it starts
 * after the round's last receive, on the same communicator, of bytes that
 * overlap the accumulator and were written after the last accumulation,
 * with no other send of the root in between.  Its cost: two trees.
 */
#include "collectives-private.h"

/* The first broadcast of root after its record at pos (bc->by_root is
 * sorted by root and first send), or NULL. */
static struct binst *bcast_after(struct bcasts *bc, int32_t root, uint32_t pos)
{
    uint32_t lo = 0, hi = bc->nb;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const struct binst *b = &bc->b[bc->by_root[mid]];
        if (b->root < root || (b->root == root && b->first_pos <= pos))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < bc->nb && bc->b[bc->by_root[lo]].root == root ? &bc->b[bc->by_root[lo]] : NULL;
}

/* Whether next broadcasts the accumulator of the reduce round ro. */
static bool sends_result(const struct cx *c, const struct round *ro, uint32_t last_pos, uint64_t last_use,
                         uint64_t acc, uint64_t acc_len, const struct binst *next)
{
    if (!next || next->used || next->comm != ro->comm ||
        !coll_overlap(next->buf, next->bytes, acc, acc_len) || next->version <= last_use)
        return false;
    /* no other send of the root between the reduce and the broadcast */
    return !(coll_gap_between(c, ro->rank, last_pos, next->first_pos) & GAP_SEND);
}

static int find_allreduces(struct cx *c, struct coll_in *src)
{
    struct rounds *rs = src->rs;
    int rc;
    for (uint32_t i = 0; i < rs->n; i++) {
        struct round *ro = &rs->v[i];
        if (ro->kind != DG_MSG_RECV || (ro->cls & (RC_COMPLETE | RC_MATCHED)) != (RC_COMPLETE | RC_MATCHED))
            continue;
        struct inst *in = &c->in;
        coll_inst_reset(in, &coll_allreduce, ro->rank, ro->p);
        in->steps = 2 * (uint64_t)coll_ceil_log2(ro->p); /* a reduce, then a broadcast */
        uint64_t last_use, acc, acc_len;
        if (!coll_round_reduce(c, rs, ro, in, &last_use, &acc, &acc_len) || (in->var & VAR_LOCAL))
            continue;
        uint32_t last_pos = rs->pos[ro->first + ro->n - 1];
        struct binst *next = bcast_after(src->bc, ro->rank, last_pos);
        if (!sends_result(c, ro, last_pos, last_use, acc, acc_len, next))
            continue;
        if ((rc = coll_round_parts(c, rs, ro, in)) < 0 || (rc = coll_binst_parts(c, src->bc, next, in)) < 0)
            return rc;
        if (next->forwarded)
            in->var |= VAR_FORWARD;
        if (!coll_inst_unclaimed(c, in))
            continue;
        next->used = true;
        if ((rc = coll_emit(c, in)) < 0)
            return rc;
    }
    return 0;
}

static void allreduce_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_reduce_text(b, h, sh, " and send the result back to every rank");
}

static void allreduce_fix(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_reduce_fix(b, h, sh, true);
}

const struct coll_pattern coll_allreduce = {
    .name = "allreduce",
    .input = COLL_IN_BCASTS,
    .find = find_allreduces,
    .main_call = LM_RECV,
    .mpi = "MPI_Allreduce",
    .text = allreduce_text,
    .fix = allreduce_fix,
};
