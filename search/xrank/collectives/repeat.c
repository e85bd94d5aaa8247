/* repeat.c - repeated collectives: consecutive independent calls of the
 * same collective on the same communicator are one call of their
 * concatenated buffers, when on every member:
 *   - the call and root are the same, with nothing but other records between;
 *   - a reduction has the same operator (a predefined one) and the same
 *     predefined datatype: one MPI_Reduce combines one type with one op;
 *   - every call moves data (a merge that holds only because a count was 0
 *     is no hint);
 *   - the later call's send buffer was last written before the chain's first
 *     call, and no buffer of one overlaps an output of another;
 *   - no chain member's result is used before the later call (its first
 *     consumer, as the logger records it, comes after): a count, a peer or
 *     a buffer computed from a broadcast result cannot move up to the first
 *     call.
 * Calls without an operator whose datatypes differ (or are derived) are
 * still one call, with a derived datatype covering their buffers
 * (VAR_MIXED_TYPES, said in the hint).  The saving of a chain of n calls:
 * n - 1 times the fastest call, on the rank where that is largest.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

struct cinst {
    uint64_t comm, seq;
    uint32_t i;
};

static int cinst_cmp(const void *pa, const void *pb)
{
    const struct cinst *a = pa, *b = pb;
    int c = coll_cmp_u64(a->comm, b->comm);
    return c ? c : coll_cmp_u64(a->seq, b->seq);
}

static bool data_collective(int call)
{
    return call >= CHT_MPI_BCAST && call <= CHT_MPI_EXSCAN;
}

static bool reduction(int call)
{
    switch (call) {
    case CHT_MPI_REDUCE: case CHT_MPI_ALLREDUCE: case CHT_MPI_REDUCE_SCATTER:
    case CHT_MPI_REDUCE_SCATTER_BLOCK: case CHT_MPI_SCAN: case CHT_MPI_EXSCAN:
        return true;
    default:
        return false;
    }
}

/* Whether the record moves data on its rank (a send or a receive side). */
static bool moves_data(const struct dg_msgrec *x)
{
    return x->bytes || x->rbytes;
}

/* Whether a and b (same call, one rank) can be one call as far as their
 * operator and datatype go: 0, or the enum rep_why that forbids it; sets
 * *mixed when they need a derived datatype. */
static int same_op_and_type(const struct dg_msgrec *a, const struct dg_msgrec *b, bool *mixed)
{
    if (reduction(b->call)) {
        if (b->mpi_op != a->mpi_op || b->mpi_op == CHT_OP_NONE || b->mpi_op == CHT_OP_USER)
            return REP_OPERATOR;
        return b->dtype != CHT_DT_UNKNOWN && b->dtype == a->dtype ? 0 : REP_DATATYPE;
    }
    if (b->dtype == CHT_DT_UNKNOWN || b->dtype != a->dtype)
        *mixed = true;
    return 0;
}

/* Why instance b does not join the chain, for --explain: the reason, the
 * rank it was seen on and its records there. */
struct why_not {
    int why; /* enum rep_why, 0: a reason not reported (the calls are simply not a pair) */
    int rank;
    const struct dg_msgrec *a, *b;
    uint32_t use; /* REP_RESULT_USED: the site of a's result's first use */
};

/* The record of rank r in collective instance i (pos set), or NULL. */
static const struct dg_msgrec *coll_member(const struct cx *c, uint32_t i, int r, uint32_t *pos)
{
    uint32_t n;
    const struct dg_pos *v = dg_match_coll(c->m, i, &n);
    /* members come sorted by rank from dg_match; search, then scan in case */
    uint32_t lo = dg_match_coll_place(c->m, i, r);
    if (lo < n && v[lo].rank == r && coll_valid(c, v[lo])) {
        *pos = v[lo].pos;
        return coll_rec(c, r, v[lo].pos);
    }
    for (uint32_t k = 0; k < n; k++)
        if (v[k].rank == r && coll_valid(c, v[k])) {
            *pos = v[k].pos;
            return coll_rec(c, r, v[k].pos);
        }
    return NULL;
}

/* Whether instance b can join the chain first..a (b right after a on
 * every member: same call and root, nothing but OTHER records between,
 * b's send buffer last written before the chain's first call, no buffer
 * of b overlapping an output of the chain or the other way round). */
static bool coll_joins(const struct cx *c, const uint32_t *chain, uint32_t nchain, uint32_t b,
                       bool *mixed, struct why_not *wn)
{
    int why;
    uint32_t n;
    const struct dg_pos *mem = dg_match_coll(c->m, b, &n);
    const struct dg_msgrec *r0 = coll_valid(c, mem[0]) ? coll_rec(c, mem[0].rank, mem[0].pos) : NULL;
    if (!r0 || n != r0->comm_size)
        return false;
    uint32_t na;
    (void)dg_match_coll(c->m, chain[0], &na);
    if (na != n)
        return false;
    for (uint32_t k = 0; k < n; k++) {
        if (!coll_valid(c, mem[k]))
            return false;
        int r = mem[k].rank;
        const struct dg_msgrec *rb = coll_rec(c, r, mem[k].pos);
        uint32_t pa, pfirst;
        const struct dg_msgrec *ra = coll_member(c, chain[nchain - 1], r, &pa);
        const struct dg_msgrec *rf = coll_member(c, chain[0], r, &pfirst);
        if (!ra || !rf || ra->call != rb->call || ra->peer != rb->peer || pa >= mem[k].pos)
            return false;
        if ((why = same_op_and_type(rf, rb, mixed)) || (!moves_data(rb) || !moves_data(rf))) {
            *wn = (struct why_not){why ? why : REP_NO_DATA, r, ra, rb, 0};
            return false;
        }
        if (coll_gap_between(c, r, pa, mem[k].pos))
            return false;
        if (rb->version > rf->index) {
            *wn = (struct why_not){REP_INPUT_LATE, r, ra, rb, 0};
            return false;
        }
        for (uint32_t j = 0; j < nchain; j++) {
            uint32_t pj;
            const struct dg_msgrec *rj = coll_member(c, chain[j], r, &pj);
            const struct dg_consumer *cj = rj ? coll_consumer(c, r, pj) : NULL;
            if (rj && (rj->flags & DG_MSGF_CONSUMED) && cj->index < rb->index) {
                *wn = (struct why_not){REP_RESULT_USED, r, rj, rb, cj->site};
                return false;
            }
            if (!rj)
                return false;
            if (coll_overlap(rb->buf, rb->bytes, rj->rbuf, rj->rbytes) ||
                coll_overlap(rb->rbuf, rb->rbytes, rj->rbuf, rj->rbytes) ||
                coll_overlap(rb->rbuf, rb->rbytes, rj->buf, rj->bytes)) {
                *wn = (struct why_not){REP_OVERLAP, r, rj, rb, 0};
                return false;
            }
        }
    }
    return true;
}

static int emit_chain(struct cx *c, const uint32_t *chain, uint32_t nchain, bool mixed)
{
    struct inst *in = &c->in;
    uint32_t n;
    const struct dg_pos *mem = dg_match_coll(c->m, chain[0], &n);
    const struct dg_msgrec *r0 = coll_rec(c, mem[0].rank, mem[0].pos);
    coll_inst_reset(in, &coll_repeat, r0->peer >= 0 ? r0->peer : -1, r0->comm_size);
    in->ngroup = nchain;
    if (mixed)
        in->var |= VAR_MIXED_TYPES;
    uint64_t saving = 0;
    int rc;
    for (uint32_t k = 0; k < n; k++) {
        int r = mem[k].rank;
        uint64_t fastest = 0;
        for (uint32_t j = 0; j < nchain; j++) {
            uint32_t pj;
            const struct dg_msgrec *rj = coll_member(c, chain[j], r, &pj);
            if (!rj)
                continue;
            if ((rc = coll_inst_add(in, r, pj, r == in->root)) < 0)
                return rc;
            uint64_t ns = coll_rec_ns(rj);
            if (ns && (!fastest || ns < fastest))
                fastest = ns;
        }
        uint64_t s = (uint64_t)(nchain - 1) * fastest;
        if (s > saving)
            saving = s;
    }
    in->saving_ns = saving;
    return coll_emit(c, in);
}

/* Keeps a pair that is not one call (why set), merged with the same pair
 * and reason seen before. */
static int note_rejected(struct cx *c, const struct why_not *wn, uint32_t inst_b)
{
    struct reprej key = {.call = wn->b->call, .why = (uint8_t)wn->why, .op_a = wn->a->mpi_op,
                         .op_b = wn->b->mpi_op};
    coll_loc_of(c, wn->rank, wn->a->site, &key.a);
    coll_loc_of(c, wn->rank, wn->b->site, &key.b);
    if (wn->why == REP_RESULT_USED)
        coll_loc_of(c, wn->rank, wn->use, &key.use);
    struct reprej *rj = NULL;
    for (uint32_t i = 0; i < c->nreprej && !rj; i++)
        if (c->reprej[i].why == key.why && !coll_loc_cmp(&c->reprej[i].a, &key.a) &&
            !coll_loc_cmp(&c->reprej[i].b, &key.b))
            rj = &c->reprej[i];
    if (!rj) {
        if (coll_grow(&c->reprej, &c->capreprej, (uint64_t)c->nreprej + 1, sizeof *c->reprej) < 0 ||
            !(key.ranks = calloc((size_t)c->P, 1)))
            return TRACE_ERR_NOMEM;
        rj = &c->reprej[c->nreprej++];
        *rj = key;
    }
    rj->instances++;
    uint32_t n;
    const struct dg_pos *mem = dg_match_coll(c->m, inst_b, &n);
    for (uint32_t k = 0; k < n; k++)
        if (mem[k].rank >= 0 && mem[k].rank < c->P)
            rj->ranks[mem[k].rank] = 1;
    return 0;
}

static int find_repeats(struct cx *c, struct coll_in *src)
{
    uint32_t nc = dg_match_ncoll(c->m);
    struct cinst *v = malloc((nc ? nc : 1) * sizeof *v);
    uint32_t *chain = malloc((nc ? nc : 1) * sizeof *chain);
    uint32_t nv = 0;
    int rc = 0;
    if (!v || !chain) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t n;
        const struct dg_pos *mem = dg_match_coll(c->m, i, &n);
        if (!n || !coll_valid(c, mem[0]))
            continue;
        const struct dg_msgrec *r = coll_rec(c, mem[0].rank, mem[0].pos);
        if (!data_collective(r->call) || n != r->comm_size || r->comm_size < 2)
            continue;
        v[nv++] = (struct cinst){r->comm, r->seq, i};
    }
    qsort(v, nv, sizeof *v, cinst_cmp);
    for (uint32_t a = 0; a < nv;) {
        uint32_t nchain = 1;
        chain[0] = v[a].i;
        uint32_t b = a + 1;
        bool mixed = false, m = false;
        struct why_not wn = {0};
        while (b < nv && v[b].comm == v[a].comm && v[b].seq == v[b - 1].seq + 1 &&
               coll_joins(c, chain, nchain, v[b].i, &m, &wn)) {
            chain[nchain++] = v[b++].i;
            mixed |= m;
            m = false;
        }
        if (wn.why && (rc = note_rejected(c, &wn, v[b].i)) < 0)
            goto out;
        if (nchain >= 2 && (rc = emit_chain(c, chain, nchain, mixed)) < 0)
            goto out;
        a = b;
    }
out:
    free(v);
    free(chain);
    return rc;
}

/* "the 3 MPI_Bcast calls at line 40 can be one MPI_Bcast of their concatenated buffers (" */
static void repeat_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    const char *coll = sh->collective;
    bool one_size = h->group_min == h->group_max;
    if (one_size)
        search_text_printf(b, "the %" PRIu64 " %s calls at ", h->group_min, coll);
    else
        search_text_printf(b, "consecutive %s calls at ", coll);
    coll_text_lines(b, h, sh, sh->call, LM_COLL);
    if (!one_size)
        search_text_printf(b, ", %.1f per group on average,", (double)h->group_sum / (double)h->matched);
    if (h->var & VAR_MIXED_TYPES)
        search_text_printf(b, " can be one %s with a derived datatype (or a struct) covering their "
                           "buffers, whose datatypes differ (", coll);
    else
        search_text_printf(b, " can be one %s of their concatenated buffers (", coll);
}

/* Where the one call goes, how its buffer is packed and how the parts
 * are taken out: the data of a call for one rank comes rank by rank, so
 * the parts of the calls are interleaved for the collectives that move
 * data per rank. */
static void repeat_fix(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    const char *coll = sh->collective;
    search_text_printf(b, "make one %s where the first of the calls at ", coll);
    coll_text_lines(b, h, sh, sh->call, LM_COLL);
    search_text_printf(b, " is now, in place of all of them");
    if (h->var & VAR_MIXED_TYPES) {
        search_text_printf(b, ", with a derived datatype (MPI_Type_create_struct) covering their buffers at "
                              "their distances from the first one, on every rank");
        return;
    }
    int base = trace_mpi_call_base(sh->call);
    bool v = base == CHT_MPI_GATHERV || base == CHT_MPI_SCATTERV || base == CHT_MPI_ALLGATHERV ||
             base == CHT_MPI_ALLTOALLV;
    switch (base) {
    case CHT_MPI_BCAST:
        search_text_printf(b, ": the root packs their buffers one after the other into one buffer, the count "
                              "summed, and every other rank copies the parts out into them after the call");
        break;
    case CHT_MPI_REDUCE:
    case CHT_MPI_ALLREDUCE:
    case CHT_MPI_SCAN:
    case CHT_MPI_EXSCAN:
        search_text_printf(b, ": every rank packs their send buffers one after the other into one buffer, the "
                              "count summed (same op and datatype), and copies the result's parts out into their "
                              "receive buffers after the call%s",
                           trace_mpi_call_base(sh->call) == CHT_MPI_REDUCE ? " (the root only)" : "");
        break;
    case CHT_MPI_GATHER:
    case CHT_MPI_GATHERV:
    case CHT_MPI_ALLGATHER:
    case CHT_MPI_ALLGATHERV:
        search_text_printf(b, ": every rank packs its send buffers one after the other into one buffer, the "
                              "count summed%s; the result comes rank by rank, each rank's parts together, not "
                              "call by call: copy each part out into its call's receive buffer after the "
                              "call%s",
                           v ? ", and recvcounts gets each rank's counts summed, displs computed from those sums"
                             : "",
                           base <= CHT_MPI_GATHERV ? " (the root only)" : "");
        break;
    case CHT_MPI_SCATTER:
    case CHT_MPI_SCATTERV:
        search_text_printf(b, ": the root packs, rank by rank, each rank's slices of all the calls together, "
                              "the count summed%s, and every rank copies its parts out into the calls' receive "
                              "buffers after the call",
                           v ? " (sendcounts: each rank's counts summed, displs computed from those sums)" : "");
        break;
    default:
        search_text_printf(b, ": every rank packs, rank by rank, the blocks of all the calls for each rank "
                              "together, the counts summed, and copies each part of the result (which comes "
                              "rank by rank too) out into its call's receive buffer after the call");
    }
}

const struct coll_pattern coll_repeat = {
    .name = "repeat",
    .input = COLL_IN_CALLS,
    .find = find_repeats,
    .main_call = LM_COLL,
    .mpi = NULL, /* the call repeated */
    .text = repeat_text,
    .fix = repeat_fix,
};

static const char *file_name(const struct loc *l)
{
    const char *f = l->file ? strrchr(l->file, '/') : NULL;
    return f ? f + 1 : l->file && *l->file ? l->file : "??";
}

/* Why: "different operators (MPI_MIN at line 28, MPI_MAX at line 29)". */
static char *reprej_explain(const struct reprej *rj)
{
    struct search_text b = {0};
    switch (rj->why) {
    case REP_OPERATOR:
        search_text_printf(&b, "different reduction operators (%s at %s:%u, %s at %s:%u): one call "
                               "applies one operator",
                           trace_mpi_op_name(rj->op_a), file_name(&rj->a), rj->a.line,
                           trace_mpi_op_name(rj->op_b), file_name(&rj->b), rj->b.line);
        break;
    case REP_DATATYPE:
        search_text_printf(&b, "different or derived datatypes (%s:%u, %s:%u): one reduction combines "
                               "one predefined datatype",
                           file_name(&rj->a), rj->a.line, file_name(&rj->b), rj->b.line);
        break;
    case REP_RESULT_USED:
        search_text_printf(&b, "the result of the call at %s:%u is used at %s:%u before the call at "
                               "%s:%u (its count, peer or buffer may depend on it)",
                           file_name(&rj->a), rj->a.line, file_name(&rj->use), rj->use.line,
                           file_name(&rj->b), rj->b.line);
        break;
    case REP_INPUT_LATE:
        search_text_printf(&b, "what the call at %s:%u sends is written after the call at %s:%u: "
                               "it cannot move up to it",
                           file_name(&rj->b), rj->b.line, file_name(&rj->a), rj->a.line);
        break;
    case REP_OVERLAP:
        search_text_printf(&b, "a buffer of the call at %s:%u overlaps what the call at %s:%u writes",
                           file_name(&rj->b), rj->b.line, file_name(&rj->a), rj->a.line);
        break;
    default:
        search_text_printf(&b, "a call moves nothing (count 0) at %s:%u or %s:%u", file_name(&rj->a),
                           rj->a.line, file_name(&rj->b), rj->b.line);
        break;
    }
    return search_text_take(&b);
}

int coll_repeat_rejects_hints(const struct cx *c, struct search_hint **out, uint32_t *nout)
{
    for (uint32_t i = 0; i < c->nreprej; i++) {
        const struct reprej *rj = &c->reprej[i];
        struct search_text b = {0};
        search_text_printf(&b, "the %s calls at lines %u, %u are not one %s (%" PRIu64 " instance%s)",
                           trace_mpi_call_name(rj->call), rj->a.line, rj->b.line,
                           trace_mpi_call_name(rj->call), rj->instances, rj->instances == 1 ? "" : "s");
        int rc = coll_dropped_add(c, out, nout, &rj->b, rj->call, trace_mpi_call_name(rj->call), -1,
                                  rj->instances, rj->ranks, search_text_take(&b), reprej_explain(rj));
        if (rc < 0)
            return rc;
    }
    return 0;
}
