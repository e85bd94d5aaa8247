/* sparse.c - the logs the collective search reads (docs/collectives.md,
 * "Candidates"): per rank, only its candidate point-to-point records and
 * its collective records, in log order, matched again among themselves.
 * This is what the process that searches needs of a rank's log, and all
 * the patterns read; what they ask of the records left out is beside the
 * kept ones:
 *
 *  - gap[r][k]: the kinds of the records left out right before kept record
 *    k (GAP_SEND, GAP_OTHER_KIND), for the patterns that ask what lies
 *    between two records (repeat.c: nothing but OTHER records; allreduce.c:
 *    no send of the root; rounds.c: control messages right before a
 *    block);
 *  - orig[r][k]: its position in the whole log, for what leaves the search
 *    (the predictions' changes, the records claimed for the hints' counts).
 *
 * Both ends of a candidate's message are candidates (rule 5) and every
 * collective record is kept, so the messages and instances matched among
 * the kept records are those of the whole run restricted to them.  A
 * forwarding send's receive is kept with it (rule 3); a position field
 * that points at a record left out (a nonblocking collective's start)
 * points past the end.
 *
 * Spread (search_coll_sparse_dist), each process marks and copies its
 * ranks' records and sends them to process 0, which reads them (as input
 * it distrusts) and matches them; with one process the same code runs.
 * What the search takes from the whole logs comes with them: the fastest
 * call of each class (emit.c: each process's, reduced by MIN) and each
 * rank's records per call site (the hints' counts, collectives.c).
 * The search of a context built by hand builds them itself
 * (coll_sparse_build).
 */
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

static int coll_sparse_alloc(struct coll_sparse *sp, int P);

static bool kept(const struct dg_msgrec *x, const uint8_t *mark, uint32_t i)
{
    return x->kind == DG_MSG_COLL || mark[i];
}

static uint8_t gap_kind(const struct dg_msgrec *x)
{
    return x->kind == DG_MSG_SEND ? GAP_SEND : x->kind == DG_MSG_OTHER ? 0 : GAP_OTHER_KIND;
}

/* One rank's sparse log; the whole log's positions mapped in pos_of
 * (scratch of g->n entries). */
static int build_rank(const struct dg_mpilog *g, const uint8_t *mark, uint32_t *pos_of, struct dg_mpilog *o,
                      uint32_t **orig, uint8_t **gap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n; i++)
        n += kept(&g->rec[i], mark, i);
    memset(o, 0, sizeof *o);
    o->rank = g->rank;
    memcpy(o->clock, g->clock, sizeof o->clock);
    o->host = g->host;
    o->cut_short = g->cut_short;
    o->rec = malloc((n ? n : 1) * sizeof *o->rec);
    *orig = malloc((n ? n : 1) * sizeof **orig);
    *gap = calloc(n ? n : 1, 1);
    if (!o->rec || !*orig || !*gap)
        return TRACE_ERR_NOMEM;
    o->cap = n;
    uint8_t left = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const struct dg_msgrec *x = &g->rec[i];
        if (!kept(x, mark, i)) {
            pos_of[i] = UINT32_MAX;
            left |= gap_kind(x);
            continue;
        }
        pos_of[i] = o->n;
        (*orig)[o->n] = i;
        (*gap)[o->n] = left;
        left = 0;
        o->rec[o->n++] = *x;
    }
    for (uint32_t k = 0; k < o->n; k++) {
        struct dg_msgrec *x = &o->rec[k];
        if ((x->flags & DG_MSGF_FORWARD) || (x->kind == DG_MSG_COLL && (x->flags & DG_MSGF_NONBLOCKING)))
            x->fwd_pos = x->fwd_pos < g->n ? pos_of[x->fwd_pos] : UINT32_MAX;
    }
    for (uint32_t j = 0; j < g->ncons; j++) {
        struct dg_consumer cs = g->cons[j];
        if (cs.pos >= g->n || pos_of[cs.pos] == UINT32_MAX)
            continue;
        cs.pos = pos_of[cs.pos];
        if (dg_mpilog_set_consumer(o, &cs) < 0)
            return TRACE_ERR_NOMEM;
    }
    return 0;
}

int coll_sparse_build(const struct dg_mpilog *const *logs, int P, uint8_t *const *mark, struct coll_sparse *sp)
{
    if (coll_sparse_alloc(sp, P) < 0)
        return TRACE_ERR_NOMEM;
    uint32_t most = 0;
    for (int r = 0; r < P; r++)
        if (logs[r] && logs[r]->n > most)
            most = logs[r]->n;
    uint32_t *pos_of = malloc((most ? most : 1) * sizeof *pos_of);
    if (!pos_of)
        return TRACE_ERR_NOMEM;
    int rc = 0;
    for (int r = 0; r < P && rc >= 0; r++) {
        if (!logs[r])
            continue;
        rc = build_rank(logs[r], mark[r], pos_of, &sp->log[r], &sp->orig[r], &sp->gap[r]);
        sp->logs[r] = &sp->log[r];
    }
    free(pos_of);
    if (rc >= 0)
        rc = dg_match_build(sp->logs, P, &sp->m);
    return rc;
}

void coll_sparse_free(struct coll_sparse *sp)
{
    dg_match_destroy(sp->m);
    for (int r = 0; r < sp->P; r++) {
        if (sp->log)
            dg_mpilog_free(&sp->log[r]);
        if (sp->orig)
            free(sp->orig[r]);
        if (sp->gap)
            free(sp->gap[r]);
        if (sp->sites)
            free(sp->sites[r]);
    }
    free(sp->log);
    free((void *)sp->logs);
    free(sp->orig);
    free(sp->gap);
    free(sp->sites);
    free(sp->nsites);
    memset(sp, 0, sizeof *sp);
}

uint8_t coll_gap_between(const struct cx *c, int rank, uint32_t a, uint32_t b)
{
    uint8_t g = 0;
    for (uint32_t q = a + 1; c->gap && q <= b; q++)
        g |= c->gap[rank][q];
    for (uint32_t q = a + 1; q < b; q++)
        g |= gap_kind(coll_rec(c, rank, q));
    return g;
}

static int sitecount_cmp(const void *pa, const void *pb)
{
    const struct coll_sitecount *a = pa, *b = pb;
    return (a->site > b->site) - (a->site < b->site);
}

int coll_site_counts(const struct dg_mpilog *g, struct coll_sitecount **out, uint32_t *n)
{
    struct dg_map m = {0};
    *out = NULL;
    *n = 0;
    for (uint32_t i = 0; i < g->n; i++) {
        const struct dg_msgrec *x = &g->rec[i];
        if (i && g->rec[i - 1].index == x->index && g->rec[i - 1].site == x->site)
            continue;
        uint64_t *v = dg_map_put(&m, x->site, 0);
        if (!v) {
            dg_map_free(&m);
            return TRACE_ERR_NOMEM;
        }
        ++*v;
    }
    *out = malloc((m.n ? m.n : 1) * sizeof **out);
    for (size_t s = 0; *out && s < m.cap; s++)
        if (dg_map_used(&m, s))
            (*out)[(*n)++] = (struct coll_sitecount){(uint32_t)m.keys[s], (uint32_t)m.vals[s]};
    dg_map_free(&m);
    if (!*out)
        return TRACE_ERR_NOMEM;
    qsort(*out, *n, sizeof **out, sitecount_cmp);
    return 0;
}

/* ---- spread: each process its ranks', gathered on process 0 ------------------------------- */

/* One rank's sparse log, packed: the world rank, n, the consumers' count,
 * whether it was cut short, its clocks and host, then n records, n whole
 * positions, n gaps, the consumers, and the whole log's records per call
 * site (their count, then the pairs). */
static int pack_rank(struct dg_bytes *b, int32_t r, const struct dg_mpilog *o, const uint32_t *orig,
                     const uint8_t *gap, const struct coll_sitecount *sc, uint32_t nsc)
{
    uint32_t n = o->n, nc = o->ncons;
    uint8_t cut = o->cut_short;
    bool ok = dg_bytes_put(b, &r, sizeof r) && dg_bytes_put(b, &n, sizeof n) && dg_bytes_put(b, &nc, sizeof nc) &&
              dg_bytes_put(b, &cut, 1) && dg_bytes_put(b, o->clock, sizeof o->clock) &&
              dg_bytes_put(b, &o->host, sizeof o->host) && (!n || dg_bytes_put(b, o->rec, n * sizeof *o->rec)) &&
              (!n || dg_bytes_put(b, orig, n * sizeof *orig)) && (!n || dg_bytes_put(b, gap, n)) &&
              (!nc || dg_bytes_put(b, o->cons, nc * sizeof *o->cons)) && dg_bytes_put(b, &nsc, sizeof nsc) &&
              (!nsc || dg_bytes_put(b, sc, nsc * sizeof *sc));
    return ok ? 0 : TRACE_ERR_NOMEM;
}

struct rd {
    const uint8_t *p;
    size_t len, off;
};

static bool take(struct rd *d, void *dst, size_t n)
{
    if (d->len - d->off < n)
        return false;
    if (!n)
        return true;
    memcpy(dst, d->p + d->off, n);
    d->off += n;
    return true;
}

/* Whether a record's position fields and a log's consumers name records
 * of the log, and the whole positions rise. */
static bool rank_valid(const struct dg_mpilog *o, const uint32_t *orig)
{
    for (uint32_t k = 0; k < o->n; k++) {
        const struct dg_msgrec *x = &o->rec[k];
        bool has_pos = (x->flags & DG_MSGF_FORWARD) || (x->kind == DG_MSG_COLL && (x->flags & DG_MSGF_NONBLOCKING));
        if ((k && orig[k] <= orig[k - 1]) || (has_pos && x->fwd_pos >= o->n && x->fwd_pos != UINT32_MAX))
            return false;
    }
    for (uint32_t j = 0; j < o->ncons; j++)
        if (o->cons[j].pos >= o->n || (j && o->cons[j].pos <= o->cons[j - 1].pos))
            return false;
    return true;
}

/* Reads one process's ranks into sp: 0, TRACE_ERR_FORMAT or TRACE_ERR_NOMEM. */
static int unpack(const struct dg_bytes *b, struct coll_sparse *sp)
{
    struct rd d = {b->p, b->len, 0};
    while (d.off < d.len) {
        int32_t r;
        uint32_t n, nc;
        uint8_t cut;
        struct dg_mpilog o = {0};
        if (!take(&d, &r, sizeof r) || !take(&d, &n, sizeof n) || !take(&d, &nc, sizeof nc) || !take(&d, &cut, 1) ||
            !take(&d, o.clock, sizeof o.clock) || !take(&d, &o.host, sizeof o.host) || r < 0 || r >= sp->P ||
            sp->logs[r] || cut > 1 ||
            (d.len - d.off) / (sizeof *o.rec + sizeof **sp->orig + 1) < n ||
            (d.len - d.off - (size_t)n * (sizeof *o.rec + sizeof **sp->orig + 1)) / sizeof *o.cons < nc)
            return TRACE_ERR_FORMAT;
        o.rank = r;
        o.cut_short = cut;
        o.n = o.cap = n;
        o.ncons = o.capcons = nc;
        o.rec = malloc((n ? n : 1) * sizeof *o.rec);
        o.cons = nc ? malloc(nc * sizeof *o.cons) : NULL;
        sp->orig[r] = malloc((n ? n : 1) * sizeof **sp->orig);
        sp->gap[r] = malloc(n ? n : 1);
        sp->log[r] = o;
        sp->logs[r] = &sp->log[r];
        if (!o.rec || (nc && !o.cons) || !sp->orig[r] || !sp->gap[r])
            return TRACE_ERR_NOMEM;
        (void)take(&d, o.rec, n * sizeof *o.rec);
        (void)take(&d, sp->orig[r], n * sizeof **sp->orig);
        (void)take(&d, sp->gap[r], n);
        (void)take(&d, o.cons, nc * sizeof *o.cons);
        uint32_t nsc;
        if (!rank_valid(&o, sp->orig[r]) || !take(&d, &nsc, sizeof nsc) ||
            (d.len - d.off) / sizeof **sp->sites < nsc)
            return TRACE_ERR_FORMAT;
        if (!(sp->sites[r] = malloc((nsc ? nsc : 1) * sizeof **sp->sites)))
            return TRACE_ERR_NOMEM;
        sp->nsites[r] = nsc;
        (void)take(&d, sp->sites[r], nsc * sizeof **sp->sites);
        for (uint32_t k = 1; k < nsc; k++)
            if (sp->sites[r][k].site <= sp->sites[r][k - 1].site)
                return TRACE_ERR_FORMAT;
    }
    return 0;
}

static int coll_sparse_alloc(struct coll_sparse *sp, int P)
{
    memset(sp, 0, sizeof *sp);
    sp->P = P;
    sp->log = calloc((size_t)P, sizeof *sp->log);
    sp->logs = calloc((size_t)P, sizeof *sp->logs);
    sp->orig = calloc((size_t)P, sizeof *sp->orig);
    sp->gap = calloc((size_t)P, sizeof *sp->gap);
    sp->sites = calloc((size_t)P, sizeof *sp->sites);
    sp->nsites = calloc((size_t)P, sizeof *sp->nsites);
    return sp->log && sp->logs && sp->orig && sp->gap && sp->sites && sp->nsites ? 0 : TRACE_ERR_NOMEM;
}

/* This process's ranks, marked, copied and packed for process 0. */
static int pack_mine(const struct search_xrank *x, uint8_t **mk, struct dg_bytes *out)
{
    uint32_t most = 0;
    for (int r = 0; r < x->world_size; r++)
        if (x->logs[r] && x->logs[r]->n > most)
            most = x->logs[r]->n;
    uint32_t *pos_of = malloc((most ? most : 1) * sizeof *pos_of);
    int rc = pos_of ? 0 : TRACE_ERR_NOMEM;
    for (int r = 0; r < x->world_size && rc >= 0; r++) {
        if (!x->logs[r])
            continue;
        struct dg_mpilog o;
        uint32_t *orig = NULL, nsc = 0;
        uint8_t *gap = NULL;
        struct coll_sitecount *sc = NULL;
        if ((rc = build_rank(x->logs[r], mk[r], pos_of, &o, &orig, &gap)) >= 0 &&
            (rc = coll_site_counts(x->logs[r], &sc, &nsc)) >= 0)
            rc = pack_rank(out, r, &o, orig, gap, sc, nsc);
        dg_mpilog_free(&o);
        free(orig);
        free(gap);
        free(sc);
    }
    free(pos_of);
    return rc;
}

int search_coll_sparse_dist(struct search_xrank *x)
{
    const struct dg_xchg *xc = x->xchg;
    int P = x->world_size, K = xc->nprocs;
    const char *every = getenv("COMMHINT_COLL_EVERY_RECORD");
    int64_t off = every && *every && strcmp(every, "0");
    int rc = K > 1 ? xc->allreduce(xc->ctx, &off, 1, DG_XCHG_MAX) : 0;
    if (rc < 0 || off)
        return rc;
    uint8_t **mk = calloc((size_t)P, sizeof *mk);
    struct dg_bytes *out = dg_bytes_per_proc(K), *in = dg_bytes_per_proc(K);
    struct coll_sparse *sp = xc->proc == 0 ? calloc(1, sizeof *sp) : NULL;
    int st = mk && out && in && (xc->proc || sp) ? 0 : TRACE_ERR_NOMEM;
    for (int r = 0; r < P && st >= 0; r++)
        if (x->logs[r] && !(mk[r] = calloc(x->logs[r]->n ? x->logs[r]->n : 1, 1)))
            st = TRACE_ERR_NOMEM;
    /* the fastest call of each class over every process's ranks */
    int64_t fastest[COLL_NCLASS];
    coll_fastest_of(x->logs, P, fastest);
    if ((rc = dg_xchg_agree(xc, st)) >= 0 && K > 1)
        rc = xc->allreduce(xc->ctx, fastest, COLL_NCLASS, DG_XCHG_MIN);
    if (rc >= 0)
        rc = search_coll_candidates(x->logs, P, x->owner, xc, x->match, mk);
    if (rc >= 0) {
        st = pack_mine(x, mk, &out[0]);
        rc = xc->alltoall(xc->ctx, st, out, in);
    }
    st = rc < 0 ? rc : 0;
    if (rc >= 0 && sp) {
        st = coll_sparse_alloc(sp, P);
        for (int q = 0; q < K && st >= 0; q++)
            st = unpack(&in[q], sp);
        if (st >= 0)
            st = dg_match_build(sp->logs, P, &sp->m);
        memcpy(sp->fastest, fastest, sizeof fastest);
        sp->has_fastest = true;
    }
    if (rc >= 0)
        rc = dg_xchg_agree(xc, st);
    for (int r = 0; mk && r < P; r++)
        free(mk[r]);
    free(mk);
    dg_bytes_per_proc_free(out, K);
    dg_bytes_per_proc_free(in, K);
    if (rc < 0 || !sp) {
        search_coll_sparse_destroy(sp);
        return rc;
    }
    x->csparse = sp;
    return 0;
}

void search_coll_sparse_destroy(struct coll_sparse *sp)
{
    if (!sp)
        return;
    coll_sparse_free(sp);
    free(sp);
}
