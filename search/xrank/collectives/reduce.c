/* reduce.c - MPI_Reduce: a root that receives a value from every other
 * rank of the communicator in one round and combines them into one
 * accumulator (a statement op(load of the accumulator, x) with an op MPI
 * has), or reads each into a variable the pass does not trace (local),
 * and uses the value for nothing else: a value that becomes a count, an
 * offset or a loop bound is not combined, and such a candidate is kept
 * for --explain instead (coll_rejects_hints).  The test of the round and
 * the message are shared with allreduce.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
/* Why a received value is used rather than combined (enum coll_why), 0 if
 * nothing says so; *use: the site of the use (the MPI call, or the
 * consumer itself). */
static int used_not_combined(const struct dg_msgrec *x, const struct dg_consumer *cs, uint32_t *use)
{
    if (x->flags & DG_MSGF_ARG) {
        *use = x->use_site;
        return WHY_MPI_ARG;
    }
    *use = cs->site;
    if (cs->flags & CHT_SITEF_ARGS_ONLY)
        return WHY_CALL_ARG;
    if (cs->flags & CHT_SITEF_LOOP_TEST)
        return WHY_LOOP_BOUND;
    return 0;
}

bool coll_round_reduce(const struct cx *c, const struct rounds *rs, const struct round *ro, struct inst *in,
                       uint64_t *last_use, uint64_t *acc, uint64_t *acc_len)
{
    const struct dg_msgrec *x0 = coll_rec(c, ro->rank, rs->pos[ro->first]);
    const struct dg_consumer *c0 = coll_consumer(c, ro->rank, rs->pos[ro->first]);
    bool strong = true, local = ro->n >= 2;
    *last_use = 0;
    for (uint32_t k = 0; k < ro->n; k++) {
        const struct dg_msgrec *x = coll_rec(c, ro->rank, rs->pos[ro->first + k]);
        const struct dg_consumer *cs = coll_consumer(c, ro->rank, rs->pos[ro->first + k]);
        if (!(x->flags & DG_MSGF_CONSUMED) || cs->kind != DG_COMP || cs->site != c0->site) {
            strong = local = false;
            break;
        }
        if (!(cs->flags & CHT_SITEF_ACCUMULATE) || !mpi_op(cs->op) || cs->op != c0->op || !cs->len ||
            cs->addr != c0->addr || cs->len != c0->len)
            strong = false;
        /* MPI_Reduce combines buffers of one size; a message larger than
         * the accumulator is a vector only if every one lands in the same
         * buffer (blocks gathered into slices, then summed into a scalar,
         * are a gather) */
        if (x->bytes != x0->bytes || (x->bytes != cs->len && x->buf != x0->buf))
            strong = false;
        uint32_t use;
        if (cs->len || x->buf != x0->buf || x->bytes != x0->bytes || used_not_combined(x, cs, &use))
            local = false;
        if (cs->index > *last_use)
            *last_use = cs->index;
    }
    if (!strong && !local)
        return false;
    in->op = strong ? c0->op : CHT_SOP_NONE;
    if (!strong)
        in->var |= VAR_LOCAL;
    coll_loc_of(c, ro->rank, c0->site, &in->consumer);
    in->has_consumer = true;
    *acc = strong ? c0->addr : 0;
    *acc_len = strong ? c0->len : 0;
    return true;
}

/* A complete, matched receive round that only the use of its values keeps
 * from being a local reduce (one range, one consumer writing nothing
 * traced, and a value used as a count, an offset or a loop bound): kept
 * for --explain.  Records are not claimed: the values may be part of
 * another pattern (the offset, length, block protocol, gatherv.c). */
static int reject(struct cx *c, const struct rounds *rs, const struct round *ro)
{
    const struct dg_msgrec *x0 = coll_rec(c, ro->rank, rs->pos[ro->first]);
    const struct dg_consumer *c0 = coll_consumer(c, ro->rank, rs->pos[ro->first]);
    uint32_t use = 0;
    int why = 0;
    if (ro->n < 2)
        return 0;
    for (uint32_t k = 0; k < ro->n; k++) {
        const struct dg_msgrec *x = coll_rec(c, ro->rank, rs->pos[ro->first + k]);
        const struct dg_consumer *cs = coll_consumer(c, ro->rank, rs->pos[ro->first + k]);
        uint32_t u;
        int w;
        if (!(x->flags & DG_MSGF_CONSUMED) || cs->kind != DG_COMP || cs->site != c0->site || cs->len ||
            x->buf != x0->buf || x->bytes != x0->bytes)
            return 0;
        if ((w = used_not_combined(x, cs, &u)) && !why) {
            why = w;
            use = u;
        }
    }
    if (!why)
        return 0;
    /* the same round again in the rounds by call site */
    uint64_t *seen = dg_map_put(&c->rej_seen, (uint64_t)ro->rank << 32 | rs->pos[ro->first], 0);
    if (!seen)
        return TRACE_ERR_NOMEM;
    if ((*seen)++)
        return 0;
    struct rej key = {.call = x0->call, .why = (uint8_t)why, .root = ro->rank};
    coll_loc_of(c, ro->rank, x0->site, &key.recv);
    coll_loc_of(c, ro->rank, use, &key.use);
    struct rej *rj = NULL;
    for (uint32_t i = 0; i < c->nrej && !rj; i++)
        if (c->rej[i].why == key.why && !coll_loc_cmp(&c->rej[i].recv, &key.recv) &&
            !coll_loc_cmp(&c->rej[i].use, &key.use))
            rj = &c->rej[i];
    if (!rj) {
        if (coll_grow(&c->rej, &c->caprej, (uint64_t)c->nrej + 1, sizeof *c->rej) < 0 ||
            !(key.ranks = calloc((size_t)c->P, 1)))
            return TRACE_ERR_NOMEM;
        key.root = ro->rank;
        rj = &c->rej[c->nrej++];
        *rj = key;
    } else if (rj->root != ro->rank) {
        rj->root = -1;
    }
    rj->rounds++;
    rj->ranks[ro->rank] = 1;
    for (uint32_t k = 0; k < ro->n; k++) {
        const struct dg_msgrec *x = coll_rec(c, ro->rank, rs->pos[ro->first + k]);
        if (x->peer >= 0 && x->peer < c->P)
            rj->ranks[x->peer] = 1;
    }
    return 0;
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
        return reject(c, src->rs, ro);
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

/* ", with the statement at line 159 that combines the values" */
static void consumer_extra(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    search_text_printf(b, ", with the statement at ");
    coll_text_consumer(b, h, sh);
    search_text_printf(b, " that combines the values");
}

void coll_reduce_fix(struct search_text *b, const struct hacc *h, const struct search_hint *sh, bool all)
{
    coll_fix_replace(b, h, sh, consumer_extra);
    if (!all)
        coll_fix_root(b, h, sh);
    if (h->var & VAR_LOCAL)
        search_text_printf(b, "; op = the MPI op of that statement's operation");
    else
        search_text_printf(b, "; op = %s", mpi_op(h->op));
    search_text_printf(b, "; sendbuf = the value sent, and at the root the value its accumulator holds before "
                          "the first receive (its own contribution: the collective combines it, so it is not "
                          "added again); recvbuf = ");
    if (all)
        search_text_printf(b, "where the result is now: the accumulator at the root, the buffer the result is "
                              "received into elsewhere");
    else
        search_text_printf(b, "the accumulator (or a variable it takes after the call), at the root only");
    search_text_printf(b, "; count and datatype ");
    coll_fix_bytes(b, h);
}

static void reduce_fix(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    coll_reduce_fix(b, h, sh, false);
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
    .fix = reduce_fix,
};

/* "the received value is used as an offset or count of the MPI_Recv call at
 * file.c:52, not combined". */
static char *reject_explain(const struct rej *rj)
{
    struct search_text b = {0};
    const char *f = strrchr(rj->use.file, '/');
    f = f ? f + 1 : rj->use.file;
    switch (rj->why) {
    case WHY_MPI_ARG:
        search_text_printf(&b, "the received value is used as an offset/count at %s:%u (an argument of a later "
                               "MPI call), not combined",
                           *f ? f : "??", rj->use.line);
        break;
    case WHY_CALL_ARG:
        search_text_printf(&b, "the received value is used as an offset/count at %s:%u (only passed to a call), "
                               "not combined",
                           *f ? f : "??", rj->use.line);
        break;
    default:
        search_text_printf(&b, "the received value is used as a loop bound at %s:%u, not combined", *f ? f : "??",
                           rj->use.line);
        break;
    }
    return search_text_take(&b);
}

int coll_rejects_hints(const struct cx *c, struct search_hint **out, uint32_t *nout)
{
    for (uint32_t i = 0; i < c->nrej; i++) {
        const struct rej *rj = &c->rej[i];
        struct search_text b = {0};
        search_text_printf(&b, "the %s calls at line %u receive a value from every rank into one variable: not "
                               "a reduction, no %s (%" PRIu64 " round%s)",
                           trace_mpi_call_name(rj->call), rj->recv.line, coll_reduce.mpi, rj->rounds,
                           rj->rounds == 1 ? "" : "s");
        int rc = coll_dropped_add(c, out, nout, &rj->recv, rj->call, coll_reduce.mpi, rj->root, rj->rounds,
                                  rj->ranks, search_text_take(&b), reject_explain(rj));
        if (rc < 0)
            return rc;
    }
    return 0;
}
