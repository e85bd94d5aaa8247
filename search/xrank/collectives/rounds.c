/* rounds.c - the rounds most patterns are found in: per rank and stream
 * (kind, communicator, tag, and on a second pass the call site), the
 * unclaimed sends or receives between two repetitions of a peer, each
 * classified (complete, matched, slices of one buffer, regular, all the
 * same bytes); and the parts of a rooted round, shared by reduce, allreduce,
 * scatter and gather, with the control messages of the offset, length,
 * block protocol for the last two.
 */
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

/* ---- streams -------------------------------------------------------------------------------- */

/* Key of a stream: kind, communicator, tag, and (second pass) call site. */
struct skey {
    uint64_t comm;
    int32_t tag;
    uint32_t site;
    uint8_t kind;
};

struct sent {
    struct skey k;
    uint32_t round;
    bool used;
};

struct stab {
    struct sent *e;
    size_t cap, n;
};

static uint64_t skey_hash(const struct skey *k)
{
    uint64_t h = 1469598103934665603ull;
    uint64_t w[4] = {k->comm, (uint32_t)k->tag, k->site, k->kind};
    for (int i = 0; i < 4; i++) {
        h ^= w[i];
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

static bool skey_eq(const struct skey *a, const struct skey *b)
{
    return a->comm == b->comm && a->tag == b->tag && a->site == b->site && a->kind == b->kind;
}

/* Pointer to the entry of k (inserted with round NO_ROUND), or NULL. */
static struct sent *stab_get(struct stab *t, const struct skey *k)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        struct sent *e = calloc(nc, sizeof *e);
        if (!e)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->e[i].used)
                continue;
            size_t j = skey_hash(&t->e[i].k) & (nc - 1);
            while (e[j].used)
                j = (j + 1) & (nc - 1);
            e[j] = t->e[i];
        }
        free(t->e);
        t->e = e;
        t->cap = nc;
    }
    size_t j = skey_hash(k) & (t->cap - 1);
    while (t->e[j].used) {
        if (skey_eq(&t->e[j].k, k))
            return &t->e[j];
        j = (j + 1) & (t->cap - 1);
    }
    t->e[j].used = true;
    t->e[j].k = *k;
    t->e[j].round = NO_ROUND;
    t->n++;
    return &t->e[j];
}

/* ---- building ------------------------------------------------------------------------------- */

void coll_rounds_free(struct rounds *rs, int P)
{
    if (rs->round_of)
        for (int r = 0; r < P; r++)
            free(rs->round_of[r]);
    free(rs->round_of);
    free(rs->v);
    free(rs->pos);
    memset(rs, 0, sizeof *rs);
}

/* Assigns one rank's unclaimed SEND and RECV records to rounds (round_of
 * and the rounds' counts); t and peers are scratch. */
static int rank_rounds(struct cx *c, bool by_site, int r, struct rounds *rs, struct stab *t,
                       struct dg_map *peers)
{
    const struct dg_mpilog *g = c->logs[r];
    for (uint32_t i = 0; i < g->n; i++) {
        const struct dg_msgrec *x = &g->rec[i];
        rs->round_of[r][i] = NO_ROUND;
        if ((x->kind != DG_MSG_SEND && x->kind != DG_MSG_RECV) || c->claimed[r][i] || x->peer < 0 ||
            x->peer >= c->P)
            continue;
        struct skey k = {x->comm, x->tag, by_site ? x->site : 0, x->kind};
        struct sent *e = stab_get(t, &k);
        if (!e)
            return TRACE_ERR_NOMEM;
        uint64_t pk = 0;
        if (e->round != NO_ROUND) {
            pk = (uint64_t)e->round * ((uint64_t)c->P + 1) + (uint64_t)x->peer;
            if (dg_map_get(peers, pk))
                e->round = NO_ROUND;
        }
        if (e->round == NO_ROUND) {
            if (coll_grow(&rs->v, &rs->cap, (uint64_t)rs->n + 1, sizeof *rs->v) < 0)
                return TRACE_ERR_NOMEM;
            e->round = rs->n;
            rs->v[rs->n++] = (struct round){r, x->kind, x->comm, x->comm_size, 0, 0, 0, -1};
            pk = (uint64_t)e->round * ((uint64_t)c->P + 1) + (uint64_t)x->peer;
        }
        if (!dg_map_put(peers, pk, 1))
            return TRACE_ERR_NOMEM;
        rs->round_of[r][i] = e->round;
        rs->v[e->round].n++;
    }
    return 0;
}

/* Lays out the rounds' log positions, round after round. */
static int rounds_positions(const struct cx *c, struct rounds *rs)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < rs->n; i++) {
        rs->v[i].first = (uint32_t)total;
        total += rs->v[i].n;
    }
    if (total > UINT32_MAX)
        return TRACE_ERR_NOMEM;
    rs->pos = malloc((total ? total : 1) * sizeof *rs->pos);
    uint32_t *count = calloc(rs->n ? rs->n : 1, sizeof *count);
    if (!rs->pos || !count) {
        free(count);
        return TRACE_ERR_NOMEM;
    }
    rs->npos = rs->cappos = (uint32_t)total;
    for (int r = 0; r < c->P; r++) {
        const struct dg_mpilog *g = c->logs[r];
        for (uint32_t i = 0; g && i < g->n; i++) {
            uint32_t ro = rs->round_of[r][i];
            if (ro != NO_ROUND)
                rs->pos[rs->v[ro].first + count[ro]++] = i;
        }
    }
    free(count);
    return 0;
}

/* Splits every rank's unclaimed SEND and RECV records into rounds: per
 * stream (kind, communicator, tag, and with by_site the call site), a
 * round ends where a peer comes again.  0 or TRACE_ERR_NOMEM (rs freed). */
int coll_rounds_build(struct cx *c, bool by_site, struct rounds *rs)
{
    struct stab t = {0};
    struct dg_map peers = {0}; /* round * (P + 1) + peer -> 1 */
    int rc = TRACE_ERR_NOMEM;
    memset(rs, 0, sizeof *rs);
    rs->round_of = calloc((size_t)c->P, sizeof *rs->round_of);
    if (!rs->round_of)
        goto out;
    for (int r = 0; r < c->P; r++) {
        const struct dg_mpilog *g = c->logs[r];
        if (!g)
            continue;
        rs->round_of[r] = malloc((g->n ? g->n : 1) * sizeof **rs->round_of);
        if (!rs->round_of[r])
            goto out;
        free(t.e);
        memset(&t, 0, sizeof t);
        /* the rank's rounds are its own: the peers seen in them too */
        dg_map_free(&peers);
        if ((rc = rank_rounds(c, by_site, r, rs, &t, &peers)) < 0)
            goto out;
    }
    rc = rounds_positions(c, rs);
out:
    free(t.e);
    dg_map_free(&peers);
    if (rc < 0)
        coll_rounds_free(rs, c->P);
    return rc;
}

/* ---- classes -------------------------------------------------------------------------------- */

/* Sorted members of a round's communicator: its peers and its rank. */
static int round_members(const struct cx *c, const struct rounds *rs, const struct round *ro, int32_t **out,
                         uint32_t *n)
{
    int32_t *v = malloc(((size_t)ro->n + 1) * sizeof *v);
    if (!v)
        return TRACE_ERR_NOMEM;
    uint32_t k = 0;
    v[k++] = ro->rank;
    for (uint32_t i = 0; i < ro->n; i++) {
        const struct dg_msgrec *x = coll_rec(c, ro->rank, rs->pos[ro->first + i]);
        if (x->peer != ro->rank)
            v[k++] = x->peer;
    }
    qsort(v, k, sizeof *v, coll_i32_cmp);
    *out = v;
    *n = k;
    return 0;
}

/* The RC_* class of one round; sl: scratch of ro->n slices. */
static int round_classify(const struct cx *c, const struct rounds *rs, struct round *ro, struct slice *sl)
{
    unsigned cls = 0;
    uint32_t others = 0;
    bool matched = true, same = true;
    const struct dg_msgrec *x0 = coll_rec(c, ro->rank, rs->pos[ro->first]);
    for (uint32_t k = 0; k < ro->n; k++) {
        uint32_t pos = rs->pos[ro->first + k];
        const struct dg_msgrec *x = coll_rec(c, ro->rank, pos);
        others += x->peer != ro->rank;
        struct dg_pos pp = dg_match_peer(c->m, (struct dg_pos){ro->rank, pos});
        if (!coll_valid(c, pp) || c->claimed[pp.rank][pp.pos])
            matched = false;
        if (x->buf != x0->buf || x->bytes != x0->bytes || x->version != x0->version)
            same = false;
        sl[k] = (struct slice){x->buf, x->bytes, x->peer};
    }
    if (ro->p >= 3 && others == ro->p - 1)
        cls |= RC_COMPLETE;
    if (matched)
        cls |= RC_MATCHED;
    if (same && ro->n > 1)
        cls |= RC_SAME;
    if (ro->n > 1 && coll_slices_disjoint(sl, ro->n)) {
        cls |= RC_SLICES;
        int32_t *mem;
        uint32_t nmem;
        int rc = round_members(c, rs, ro, &mem, &nmem);
        if (rc < 0)
            return rc;
        if (coll_slices_regular(sl, ro->n, mem, nmem))
            cls |= RC_REGULAR;
        free(mem);
    }
    ro->cls = cls;
    return 0;
}

/* Sets each round's RC_* class. */
int coll_rounds_classify(const struct cx *c, struct rounds *rs)
{
    struct slice *sl = NULL;
    uint32_t cap = 0;
    int rc = 0;
    for (uint32_t i = 0; i < rs->n; i++)
        if ((rc = coll_grow(&sl, &cap, rs->v[i].n, sizeof *sl)) < 0 ||
            (rc = round_classify(c, rs, &rs->v[i], sl)) < 0)
            break;
    free(sl);
    return rc;
}

/* ---- rooted rounds ---------------------------------------------------------------------------- */

int coll_round_parts(struct cx *c, const struct rounds *rs, const struct round *ro, struct inst *in)
{
    int rc;
    for (uint32_t k = 0; k < ro->n; k++) {
        uint32_t pos = rs->pos[ro->first + k];
        struct dg_pos pp = dg_match_peer(c->m, (struct dg_pos){ro->rank, pos});
        if ((rc = coll_inst_add(in, ro->rank, pos, true)) < 0 ||
            (coll_valid(c, pp) && (rc = coll_inst_add(in, pp.rank, pp.pos, pp.rank == ro->rank)) < 0))
            return rc;
    }
    return 0;
}

/* Adds the control messages of the block at pos (rank r, a SEND or RECV
 * record): the messages right before it, of its kind, to or from the same
 * peer, that carried a value its call used (DG_MSGF_ARG with the block's
 * call site), and their other ends.  Returns how many it added, or < 0. */
static int control_parts(struct cx *c, int r, uint32_t pos, struct inst *in)
{
    const struct dg_msgrec *blk = coll_rec(c, r, pos);
    int added = 0;
    for (uint32_t i = pos; i-- > 0;) {
        if (c->gap && c->gap[r][i + 1]) /* a record left out lies between */
            break;
        const struct dg_msgrec *x = coll_rec(c, r, i);
        if (x->kind != blk->kind || x->peer != blk->peer || x->comm != blk->comm || !(x->flags & DG_MSGF_ARG) ||
            x->use_site != blk->site || c->claimed[r][i])
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

/* The offset, length, block protocol: when every block of the round
 * follows control messages its call used, they join the instance
 * (VAR_PROTOCOL, and the v-variant: the lengths are per rank); else the
 * instance is left as it was. */
static int add_protocol(struct cx *c, const struct rounds *rs, const struct round *ro, struct inst *in)
{
    uint32_t base = in->n, with = 0, others = 0;
    for (uint32_t k = 0; k < ro->n; k++) {
        uint32_t pos = rs->pos[ro->first + k];
        if (coll_rec(c, ro->rank, pos)->peer == ro->rank)
            continue;
        others++;
        int rc = control_parts(c, ro->rank, pos, in);
        if (rc < 0)
            return rc;
        with += rc > 0;
    }
    if (with && with == others)
        in->var |= VAR_PROTOCOL | VAR_V;
    else
        in->n = base;
    return 0;
}

/* Scatter and gather: the root's records and their other ends, with the
 * control messages of the offset, length, block protocol; the v-variant
 * unless equal slices in rank order. */
int coll_find_slices(struct cx *c, const struct coll_in *src, int kind, const struct coll_pattern *pat)
{
    const struct round *ro = src->ro;
    const unsigned need = RC_COMPLETE | RC_MATCHED | RC_SLICES;
    if (ro->kind != kind || (ro->cls & need) != need)
        return 0;
    struct inst *in = &c->in;
    coll_inst_reset(in, pat, ro->rank, ro->p);
    if (!(ro->cls & RC_REGULAR))
        in->var |= VAR_V;
    int rc = coll_round_parts(c, src->rs, ro, in);
    if (rc < 0 || (rc = add_protocol(c, src->rs, ro, in)) < 0)
        return rc;
    return coll_inst_unclaimed(c, in) ? coll_emit(c, in) : 0;
}
