/* reference.c - the reference engine: the paper's algorithms taken
 * literally on a whole rank held in memory (docs/dependence.md).
 *
 * feed() copies every event; finish() then estimates computation times
 * with the gap rule, gives every statement (computation site) a dense id
 * and its count, and hands the whole rank to each registered hint kind
 * (search/rank/kind.h; overlap: kinds/overlap-reference.c, the scans of
 * Fig. 3; aggregation: kinds/aggregate-reference.c, Fig. 5 with the fixes
 * of the doc).  The kinds are quadratic on purpose: this engine exists to
 * check the streaming one (tests/unit/test-search-property.c), so it is
 * written to be obviously right rather than fast.  The scans stop at the
 * first dependence, so ordinary traces of a few hundred thousand events
 * take seconds.
 */
#include <stdlib.h>
#include <string.h>

#include "rank/kind.h"

struct ref_state {
    int rank;
    uint64_t horizon;
    unsigned max_boxes;
    /* the events; their ranges, keys and iteration vectors live in the
     * pools below (pointers are set at finish, as the pools move while
     * growing) */
    struct dg_event *ev;
    size_t n, cap;
    struct ref_off {
        size_t range, key, iter, vdep, crange;
    } *off;
    size_t capoff;
    struct dg_range *ranges;
    size_t nranges, capranges;
    struct dg_key *keys;
    size_t nkeys, capkeys;
    struct trace_iter *iters;
    size_t niters, capiters;
    uint64_t *vdeps;
    size_t nvdeps, capvdeps;
    struct dg_range *cranges;
    size_t ncranges, capcranges;
    /* memory accounting: bytes held now and at most */
    size_t bytes, peak;
};

/* ---- memory accounting ------------------------------------------------------ */

static void *ref_alloc(struct ref_state *r, size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size);

    if (p) {
        r->bytes += nmemb * size;
        if (r->bytes > r->peak)
            r->peak = r->bytes;
    }
    return p;
}

/* Grows *p (of *cap elements) to hold need elements. */
static int ref_grow(struct ref_state *r, void **p, size_t *cap, size_t need, size_t size)
{
    size_t ncap;
    void *np;

    if (need <= *cap)
        return 0;
    ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    np = realloc(*p, ncap * size);
    if (!np)
        return TRACE_ERR_NOMEM;
    r->bytes += (ncap - *cap) * size;
    if (r->bytes > r->peak)
        r->peak = r->bytes;
    *p = np;
    *cap = ncap;
    return 0;
}

void *search_ref_alloc(struct search_ref *x, size_t n, size_t size)
{
    return ref_alloc(x->state, n, size);
}

void search_ref_free(struct search_ref *x, void *p, size_t n, size_t size)
{
    if (!p)
        return;
    free(p);
    x->state->bytes -= n * size;
}

int search_ref_grow(struct search_ref *x, void **p, size_t *cap, size_t need, size_t size)
{
    return ref_grow(x->state, p, cap, need, size);
}

void search_ref_count(struct search_ref *x, size_t bytes)
{
    struct ref_state *r = x->state;
    r->bytes += bytes;
    if (r->bytes > r->peak)
        r->peak = r->bytes;
}

/* ---- feeding ----------------------------------------------------------------- */

static int ref_feed(void *state, const struct dg_event *e)
{
    struct ref_state *r = state;
    struct dg_event *c;
    int rc;

    if (e->index != r->n)
        return TRACE_ERR_ARG;
    if ((rc = ref_grow(r, (void **)&r->ev, &r->cap, r->n + 1, sizeof(*r->ev))) < 0)
        return rc;
    if ((rc = ref_grow(r, (void **)&r->off, &r->capoff, r->n + 1, sizeof(*r->off))) < 0)
        return rc;
    if ((rc = ref_grow(r, (void **)&r->ranges, &r->capranges, r->nranges + e->nranges,
                       sizeof(*r->ranges))) < 0 ||
        (rc = ref_grow(r, (void **)&r->keys, &r->capkeys, r->nkeys + e->nkeys,
                       sizeof(*r->keys))) < 0 ||
        (rc = ref_grow(r, (void **)&r->iters, &r->capiters, r->niters + e->depth,
                       sizeof(*r->iters))) < 0 ||
        (rc = ref_grow(r, (void **)&r->vdeps, &r->capvdeps, r->nvdeps + e->nvdeps,
                       sizeof(*r->vdeps))) < 0 ||
        (rc = ref_grow(r, (void **)&r->cranges, &r->capcranges, r->ncranges + e->ncranges,
                       sizeof(*r->cranges))) < 0)
        return rc;

    c = &r->ev[r->n];
    *c = *e;
    c->ranges = NULL;
    c->keys = NULL;
    c->iters = NULL;
    c->vdeps = NULL;
    r->off[r->n].vdep = r->nvdeps;
    if (e->nvdeps)
        memcpy(r->vdeps + r->nvdeps, e->vdeps, e->nvdeps * sizeof(*r->vdeps));
    r->nvdeps += e->nvdeps;
    c->cranges = NULL;
    r->off[r->n].crange = r->ncranges;
    if (e->ncranges)
        memcpy(r->cranges + r->ncranges, e->cranges, e->ncranges * sizeof(*r->cranges));
    r->ncranges += e->ncranges;
    r->off[r->n].range = r->nranges;
    r->off[r->n].key = r->nkeys;
    r->off[r->n].iter = r->niters;
    if (e->nranges)
        memcpy(r->ranges + r->nranges, e->ranges, e->nranges * sizeof(*r->ranges));
    if (e->nkeys)
        memcpy(r->keys + r->nkeys, e->keys, e->nkeys * sizeof(*r->keys));
    if (e->depth)
        memcpy(r->iters + r->niters, e->iters, e->depth * sizeof(*r->iters));
    r->nranges += e->nranges;
    r->nkeys += e->nkeys;
    r->niters += e->depth;
    r->n++;
    return 0;
}

static void ref_destroy(void *state)
{
    struct ref_state *r = state;

    if (!r)
        return;
    free(r->ev);
    free(r->off);
    free(r->ranges);
    free(r->keys);
    free(r->iters);
    free(r->vdeps);
    free(r->cranges);
    free(r);
}

/* ---- computation times: the gap rule -------------------------------------------- */

/* The gaps: gap[k] is the gap of computation event k (an index into gd and
 * gn; UINT64_MAX for MPI events).  A gap is a maximal run of
 * computation events between two MPI events; its duration d is t_enter of
 * the MPI event after it minus t_exit of the one before, 0 before the first
 * and after the last MPI event, when either time is unknown (0), and when
 * it would be negative.  gs is a gap's first event and gt the t_exit of the
 * MPI event before it (0 if none or unknown); gw the weight of its events,
 * and wpre[k] that of the events of k's gap before k.  Returns the number
 * of gaps. */
static size_t find_gaps(const struct dg_event *ev, size_t n, uint64_t *gap, uint64_t *gd,
                        uint64_t *gn, uint64_t *gs, uint64_t *gt, uint64_t *gw, uint64_t *wpre)
{
    size_t i = 0, ngaps = 0;
    size_t prev_mpi = SIZE_MAX;

    while (i < n) {
        size_t j;
        uint64_t d = 0;

        if (ev[i].kind != DG_COMP) {
            gap[i] = UINT64_MAX;
            prev_mpi = i++;
            continue;
        }
        uint64_t w = 0;
        for (j = i; j < n && ev[j].kind == DG_COMP; j++) {
            gap[j] = ngaps;
            wpre[j] = w;
            w += search_weight(&ev[j]);
        }
        gw[ngaps] = w;
        if (prev_mpi != SIZE_MAX && j < n) {
            uint64_t exit = ev[prev_mpi].t_exit, enter = ev[j].t_enter;
            if (exit && enter && enter > exit)
                d = enter - exit;
        }
        gd[ngaps] = d;
        gn[ngaps] = j - i;
        gs[ngaps] = i;
        gt[ngaps] = prev_mpi != SIZE_MAX ? ev[prev_mpi].t_exit : 0;
        ngaps++;
        i = j;
    }
    return ngaps;
}

/* streaming.c's search_stream_start_time is the same rule. */
uint64_t search_ref_start_time(const struct search_ref *x, size_t k)
{
    if (x->ev[k].kind != DG_COMP)
        return x->ev[k].t_enter;
    uint64_t g = x->gap[k];
    if (!x->gt[g])
        return 0;
    return x->gt[g] + search_share(x->gd[g], x->wpre[k], x->gw[g]);
}

/* ---- statements ------------------------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Dense statement ids: the distinct sites of computation events, sorted. */
static int build_statements(struct search_ref *x)
{
    struct ref_state *r = x->state;
    size_t ncomp = 0, m = 0;
    uint32_t *all;

    for (size_t k = 0; k < x->n; k++)
        ncomp += x->ev[k].kind == DG_COMP;
    all = ref_alloc(r, ncomp, sizeof(*all));
    if (!all)
        return TRACE_ERR_NOMEM;
    for (size_t k = 0; k < x->n; k++)
        if (x->ev[k].kind == DG_COMP)
            all[m++] = x->ev[k].site;
    qsort(all, ncomp, sizeof(*all), cmp_u32);
    m = 0;
    for (size_t k = 0; k < ncomp; k++)
        if (k == 0 || all[k] != all[m - 1])
            all[m++] = all[k];
    x->csite = all; /* shrunk in place: ncomp entries allocated, m used */
    x->ncsite = m;
    x->ctotal = ref_alloc(r, m, sizeof(*x->ctotal));
    if (!x->ctotal)
        return TRACE_ERR_NOMEM;
    for (size_t k = 0; k < x->n; k++) {
        const uint32_t *p;
        if (x->ev[k].kind != DG_COMP)
            continue;
        p = bsearch(&x->ev[k].site, x->csite, m, sizeof(*x->csite), cmp_u32);
        x->cid[k] = (uint32_t)(p - x->csite);
        x->ctotal[x->cid[k]]++;
    }
    return 0;
}

/* ---- finishing ------------------------------------------------------------------------ */

/* The facts of the rank every engine gives. */
static void rank_facts(const struct ref_state *r, struct search_rank_result *res)
{
    res->rank = r->rank;
    res->events = r->n;
    for (size_t i = 0; i < r->n; i++) {
        const struct dg_event *e = &r->ev[i];
        if (e->kind == DG_COMP) {
            res->comp_events++;
            continue;
        }
        res->mpi_events++;
        if (e->t_enter && (!res->t_first || e->t_enter < res->t_first))
            res->t_first = e->t_enter;
        if (e->t_exit > res->t_last)
            res->t_last = e->t_exit;
    }
}

static int ref_finish(void *state, struct search_rank_result **out)
{
    struct ref_state *r = state;
    struct search_rank_result *res = NULL;
    struct search_ref x;
    int rc = 0;

    *out = NULL;
    memset(&x, 0, sizeof(x));
    for (size_t i = 0; i < r->n; i++) {
        r->ev[i].ranges = r->ev[i].nranges ? r->ranges + r->off[i].range : NULL;
        r->ev[i].keys = r->ev[i].nkeys ? r->keys + r->off[i].key : NULL;
        r->ev[i].iters = r->ev[i].depth ? r->iters + r->off[i].iter : NULL;
        r->ev[i].vdeps = r->ev[i].nvdeps ? r->vdeps + r->off[i].vdep : NULL;
        r->ev[i].cranges = r->ev[i].ncranges ? r->cranges + r->off[i].crange : NULL;
    }
    x.state = r;
    x.ev = r->ev;
    x.n = r->n;
    x.horizon = r->horizon;
    x.max_boxes = r->max_boxes;

    res = calloc(1, sizeof(*res));
    if (!res) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    rank_facts(r, res);
    x.gap = ref_alloc(r, r->n, sizeof(*x.gap));
    x.gd = ref_alloc(r, r->n, sizeof(*x.gd));
    x.gn = ref_alloc(r, r->n, sizeof(*x.gn));
    x.gs = ref_alloc(r, r->n, sizeof(*x.gs));
    x.gt = ref_alloc(r, r->n, sizeof(*x.gt));
    x.gw = ref_alloc(r, r->n, sizeof(*x.gw));
    x.wpre = ref_alloc(r, r->n, sizeof(*x.wpre));
    x.cid = ref_alloc(r, r->n, sizeof(*x.cid));
    if (!x.gap || !x.gd || !x.gn || !x.gs || !x.gt || !x.gw || !x.wpre || !x.cid) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    find_gaps(r->ev, r->n, x.gap, x.gd, x.gn, x.gs, x.gt, x.gw, x.wpre);
    if ((rc = build_statements(&x)) < 0)
        goto out;
    for (unsigned k = 0; k < search_kinds_count(); k++)
        if ((rc = search_kinds_get(k)->reference(&x, res)) < 0)
            goto out;
    res->peak_bytes = r->peak;

out:
    free(x.ctotal);
    free(x.csite);
    free(x.cid);
    free(x.wpre);
    free(x.gw);
    free(x.gt);
    free(x.gs);
    free(x.gn);
    free(x.gd);
    free(x.gap);
    if (rc < 0) {
        search_rank_result_free(res);
        res = NULL;
    }
    *out = res;
    ref_destroy(r);
    return rc;
}

static const struct search_engine_ops ref_ops = {
    .feed = ref_feed,
    .finish = ref_finish,
    .destroy = ref_destroy,
};

int search_reference_create(const struct search_opts *o, int rank, void **state,
                            const struct search_engine_ops **ops)
{
    struct ref_state *r = calloc(1, sizeof(*r));

    *state = NULL;
    if (!r)
        return TRACE_ERR_NOMEM;
    r->rank = rank;
    r->horizon = search_horizon(o);
    r->max_boxes = search_max_boxes(o);
    r->bytes = r->peak = sizeof(*r);
    *state = r;
    *ops = &ref_ops;
    return 0;
}
