/* reduce.c - MPI_Reduce: a root that receives a value from every other
 * rank of the communicator in one round and combines them into one
 * accumulator (a statement op(load of the accumulator, x) with an op MPI
 * has), or reads each into a variable the pass does not trace (local).
 * The test of the round and the message are shared with allreduce.c.
 */
#include "collectives-private.h"

/* MPI op of a statement's arithmetic, or NULL if no predefined op fits. */
static const char *mpi_op(int op)
{
    switch (op) {
    case CHT_SOP_ADD:
    case CHT_SOP_FADD: return "MPI_SUM";
    case CHT_SOP_MUL:
    case CHT_SOP_FMUL: return "MPI_PROD";
    case CHT_SOP_MIN:
    case CHT_SOP_FMIN: return "MPI_MIN";
    case CHT_SOP_MAX:
    case CHT_SOP_FMAX: return "MPI_MAX";
    case CHT_SOP_AND: return "MPI_BAND";
    case CHT_SOP_OR: return "MPI_BOR";
    case CHT_SOP_XOR: return "MPI_BXOR";
    }
    return NULL;
}

/* Whether a complete receive round combines every value into one
 * accumulator: every receive consumed by the same statement, which stores
 * op(load of the same address, x) with an op MPI has, into the same
 * range (strong); or, values received into one range and each read by the
 * same statement that writes nothing traced before the next arrives
 * (local: the accumulator is a variable the pass does not trace). */
bool coll_round_reduce(const struct cx *c, const struct rounds *rs, const struct round *ro, struct inst *in,
                       uint64_t *last_use, uint64_t *acc, uint64_t *acc_len)
{
    const struct dg_msgrec *x0 = coll_rec(c, ro->rank, rs->pos[ro->first]);
    bool strong = true, local = ro->n >= 2;
    *last_use = 0;
    for (uint32_t k = 0; k < ro->n; k++) {
        const struct dg_msgrec *x = coll_rec(c, ro->rank, rs->pos[ro->first + k]);
        if (!(x->flags & DG_MSGF_CONSUMED) || x->consumer_kind != DG_COMP ||
            x->consumer_site != x0->consumer_site) {
            strong = local = false;
            break;
        }
        if (!(x->consumer_flags & CHT_SITEF_ACCUMULATE) || !mpi_op(x->consumer_op) ||
            x->consumer_op != x0->consumer_op || !x->consumer_len || x->consumer_addr != x0->consumer_addr ||
            x->consumer_len != x0->consumer_len)
            strong = false;
        if (x->consumer_len || x->buf != x0->buf || x->bytes != x0->bytes)
            local = false;
        if (x->consumer_index > *last_use)
            *last_use = x->consumer_index;
    }
    if (!strong && !local)
        return false;
    in->op = strong ? x0->consumer_op : CHT_SOP_NONE;
    if (!strong)
        in->var |= VAR_LOCAL;
    coll_loc_of(c, ro->rank, x0->consumer_site, &in->consumer);
    in->has_consumer = true;
    *acc = strong ? x0->consumer_addr : 0;
    *acc_len = strong ? x0->consumer_len : 0;
    return true;
}

static int find_reduce(struct cx *c, struct coll_in *src)
{
    const struct round *ro = src->ro;
    const unsigned cm = RC_COMPLETE | RC_MATCHED;
    if (ro->kind != DG_MSG_RECV || (ro->cls & cm) != cm)
        return 0;
    struct inst *in = &c->in;
    coll_inst_reset(in, &coll_reduce, ro->rank, ro->p);
    uint64_t last_use, acc, acc_len;
    if (!coll_round_reduce(c, src->rs, ro, in, &last_use, &acc, &acc_len))
        return 0;
    int rc = coll_round_parts(c, src->rs, ro, in);
    if (rc < 0)
        return rc;
    return coll_inst_unclaimed(c, in) ? coll_emit(c, in) : 0;
}

void coll_reduce_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh,
                      const char *then)
{
    coll_text_calls(b, h, sh);
    search_text_printf(b, " combine a value from every rank %s at the root with ",
                       h->var & VAR_LOCAL ? "in a local variable" : "into one accumulator");
    coll_text_consumer(b, h, sh);
    search_text_printf(b, "%s", then);
    if (h->var & VAR_LOCAL)
        search_text_printf(b, ": use %s with the MPI op of that statement (", sh->collective);
    else
        search_text_printf(b, ": use %s with %s (", sh->collective, mpi_op(h->op));
}

static void reduce_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_reduce_text(b, h, sh, "");
}

const struct coll_pattern coll_reduce = {
    .name = "reduce",
    .input = COLL_IN_EACH_ROUND,
    .find = find_reduce,
    .main_call = LM_RECV,
    .mpi = "MPI_Reduce",
    .text = reduce_text,
};
