/* reference.c - the reference engine: the paper's algorithms taken
 * literally on a whole rank held in memory (docs/dependence.md).
 *
 * feed() copies every event; finish() then
 *   - estimates computation times with the gap rule;
 *   - for every overlap candidate scans backward and forward event by event
 *     with dg_depends() until the first dependence or the horizon (Fig. 3);
 *   - computes every movable send's anchor by scanning backward, builds the
 *     pre-processed order by a stable sort on the anchors, and walks it to
 *     classify sends into groups (Fig. 5 with the fixes of the doc, and no
 *     send moved across a call that may wait for another rank).
 * It is quadratic on purpose: it exists to check the streaming engine
 * (tests/unit/test-search-property.c), so it is written to be obviously
 * right rather than fast.  The scans stop at the first dependence, so
 * ordinary traces of a few hundred thousand events take seconds.
 */
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

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
        size_t range, key, iter;
    } *off;
    size_t capoff;
    struct dg_range *ranges;
    size_t nranges, capranges;
    struct dg_key *keys;
    size_t nkeys, capkeys;
    struct trace_iter *iters;
    size_t niters, capiters;
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

static void ref_free(struct ref_state *r, void *p, size_t nmemb, size_t size)
{
    if (!p)
        return;
    free(p);
    r->bytes -= nmemb * size;
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
                       sizeof(*r->iters))) < 0)
        return rc;

    c = &r->ev[r->n];
    *c = *e;
    c->ranges = NULL;
    c->keys = NULL;
    c->iters = NULL;
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
    free(r);
}

/* ---- computation times: the gap rule -------------------------------------------- */

/* The gaps: gap[k] is the gap of computation event k (an index into gd and
 * gn; UINT64_MAX for MPI events).  A gap is a maximal run of
 * computation events between two MPI events; its duration d is t_enter of
 * the MPI event after it minus t_exit of the one before, 0 before the first
 * and after the last MPI event, when either time is unknown (0), and when
 * it would be negative.  gs is a gap's first event and gt the t_exit of the
 * MPI event before it (0 if none or unknown).  Returns the number of gaps. */
static size_t find_gaps(const struct dg_event *ev, size_t n, uint64_t *gap, uint64_t *gd,
                        uint64_t *gn, uint64_t *gs, uint64_t *gt)
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
        for (j = i; j < n && ev[j].kind == DG_COMP; j++)
            gap[j] = ngaps;
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

/* The time of a set of computation events: k events of a gap of n events
 * and duration d are worth floor(d*k/n), summed over the gaps the set
 * meets.  Events are added in increasing index order, so those of one gap
 * arrive together. */
struct set_time {
    uint64_t gap, k, ns;
};

static void set_time_flush(struct set_time *t, const uint64_t *gd, const uint64_t *gn)
{
    if (t->k)
        t->ns += (uint64_t)((unsigned __int128)gd[t->gap] * t->k / gn[t->gap]);
    t->k = 0;
}

static void set_time_add(struct set_time *t, uint64_t gap, const uint64_t *gd,
                         const uint64_t *gn)
{
    if (t->k && t->gap != gap)
        set_time_flush(t, gd, gn);
    t->gap = gap;
    t->k++;
}

/* ---- overlap --------------------------------------------------------------------- */

enum { MARK_BEFORE = 1, MARK_AFTER = 2 };

struct ref_ctx {
    struct ref_state *r;
    const struct dg_event *ev;
    size_t n;
    uint64_t *gap;       /* gap of each computation event */
    uint64_t *gd, *gn;   /* duration (ns) and events of each gap */
    uint64_t *gs, *gt;   /* first event of each gap, t_exit (ns) of the MPI event before it */
    uint32_t *cid;       /* dense statement id of computation events */
    uint32_t *csite;     /* site of each dense statement id, increasing */
    size_t ncsite;
    uint64_t *ctotal;    /* events of each statement on the rank */
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* An overlap candidate; sorted by (site, index). */
struct cand {
    uint32_t site;
    uint64_t index;
};

static int cmp_cand(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;

    if (x->site != y->site)
        return x->site < y->site ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Dense statement ids: the distinct sites of computation events, sorted. */
static int build_statements(struct ref_ctx *x)
{
    struct ref_state *r = x->r;
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

/* The windows of candidate i: backward [*blo, i) and forward (i, *fhi]
 * (empty when blo == i or fhi == i); returns whether either was cut at the
 * horizon. */
static bool windows(const struct ref_ctx *x, size_t i, size_t *blo, size_t *fhi)
{
    const struct dg_event *ev = x->ev;
    const struct dg_event *c = &ev[i];
    uint64_t h = x->r->horizon;
    bool truncated = false;

    *blo = i;
    if (search_has_backward(c)) {
        uint64_t reach = h < i ? h : i; /* events scanned: i-1 down to i-reach */
        size_t k;
        bool found = false;
        for (k = i; k > i - reach; k--)
            if (dg_depends(&ev[k - 1], c, true)) {
                found = true;
                break;
            }
        /* k is the first event of the window: right after the dependence,
         * or i - reach when there is none */
        *blo = k;
        if (!found && h < i)
            truncated = true;
    }
    *fhi = i;
    if (search_has_forward(c)) {
        uint64_t rem = x->n - 1 - i; /* events after i */
        uint64_t reach = h < rem ? h : rem;
        size_t j;
        bool found = false;
        for (j = i + 1; j <= i + reach; j++)
            if (dg_depends(c, &ev[j], true)) {
                found = true;
                break;
            }
        *fhi = j - 1;
        if (!found && h < rem)
            truncated = true;
    }
    return truncated;
}

/* Estimated time at which event k started: t_enter of an MPI event; for a
 * computation event, the t_exit of the MPI event before its gap plus its
 * share of the gap's duration; 0 if unknown (stream.c's start_time). */
static uint64_t start_time(const struct ref_ctx *x, size_t k)
{
    if (x->ev[k].kind != DG_COMP)
        return x->ev[k].t_enter;
    uint64_t g = x->gap[k];
    if (!x->gt[g])
        return 0;
    return x->gt[g] + (x->gn[g] ? (uint64_t)((unsigned __int128)x->gd[g] * (k - x->gs[g]) / x->gn[g]) : 0);
}

/* Results of one call site: cand[0..ncand) are its instances in trace
 * order.  mark (n entries) and stmt_of (ncsite entries, all UINT32_MAX) are
 * scratch, left as they were found. */
static int overlap_site(struct ref_ctx *x, const struct cand *cand, size_t ncand, uint8_t *mark,
                        uint32_t *stmt_of, struct search_overlap *o)
{
    struct ref_state *r = x->r;
    const struct dg_event *ev = x->ev;
    uint64_t *touched = NULL;
    size_t ntouched = 0, captouched = 0;
    uint32_t *ids = NULL;
    struct set_time *stt = NULL;
    size_t nids = 0;
    int rc = 0;

    memset(o, 0, sizeof(*o));
    o->site = ev[cand[0].index].site;
    o->call = ev[cand[0].index].call;
    o->role = ev[cand[0].index].role;

    for (size_t ci = 0; ci < ncand; ci++) {
        size_t i = cand[ci].index, blo, fhi;
        const struct dg_event *c = &ev[i];
        uint64_t wcount = 0, wtime, cns = search_call_ns(c);
        struct set_time wt = { 0 };
        bool trunc = windows(x, i, &blo, &fhi);

        for (size_t k = blo; k <= fhi; k++) {
            if (k == i || ev[k].kind != DG_COMP)
                continue;
            wcount++;
            set_time_add(&wt, x->gap[k], x->gd, x->gn);
            if (!mark[k]) {
                if ((rc = ref_grow(r, (void **)&touched, &captouched, ntouched + 1,
                                   sizeof(*touched))) < 0)
                    goto out;
                touched[ntouched++] = k;
            }
            mark[k] |= k < i ? MARK_BEFORE : MARK_AFTER;
        }
        set_time_flush(&wt, x->gd, x->gn);
        wtime = wt.ns;
        if (blo < i) {
            uint64_t t0 = start_time(x, blo);
            if (t0 && c->t_enter > t0) {
                uint32_t m = o->nleads;
                if (m >= 8 && !(m & (m - 1))) { /* full at 8, 16, 32...: double */
                    struct search_lead *l = realloc(o->leads, 2 * (size_t)m * sizeof *l);
                    if (!l) {
                        rc = TRACE_ERR_NOMEM;
                        goto out;
                    }
                    o->leads = l;
                } else if (!m && !(o->leads = malloc(8 * sizeof *o->leads))) {
                    rc = TRACE_ERR_NOMEM;
                    goto out;
                }
                o->leads[o->nleads++] = (struct search_lead){i, c->t_enter - t0};
            }
        }
        o->instances++;
        o->truncated += trunc;
        o->comm_ns += cns;
        o->comp_ns += wtime;
        o->saving_ns += cns < wtime ? cns : wtime;
        if (wcount) {
            o->with_window++;
            if ((rc = search_boxes_add(&o->iters, c->depth, c->iters, r->max_boxes)) < 0)
                goto out;
        }
    }

    /* statements of U_C: ids sorted by site give the order of stmts */
    if (ntouched > 1)
        qsort(touched, ntouched, sizeof(*touched), cmp_u64);
    ids = ref_alloc(r, ntouched, sizeof(*ids));
    if (!ids) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (size_t t = 0; t < ntouched; t++) {
        uint32_t d = x->cid[touched[t]];
        if (stmt_of[d] == UINT32_MAX) {
            stmt_of[d] = 0;
            ids[nids++] = d;
        }
    }
    qsort(ids, nids, sizeof(*ids), cmp_u32);
    if (nids) {
        o->stmts = calloc(nids, sizeof(*o->stmts));
        if (!o->stmts) {
            rc = TRACE_ERR_NOMEM;
            goto out;
        }
        r->bytes += nids * sizeof(*o->stmts);
        if (r->bytes > r->peak)
            r->peak = r->bytes;
    }
    o->nstmts = (uint32_t)nids;
    stt = ref_alloc(r, nids, sizeof(*stt));
    if (!stt) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (size_t s = 0; s < nids; s++) {
        stmt_of[ids[s]] = (uint32_t)s;
        o->stmts[s].site = x->csite[ids[s]];
        o->stmts[s].total = x->ctotal[ids[s]];
    }
    for (size_t t = 0; t < ntouched; t++) {
        size_t k = touched[t];
        uint32_t si = stmt_of[x->cid[k]];
        struct search_stmt *st = &o->stmts[si];
        if (st->events == 0)
            st->site_flags = ev[k].site_flags;
        st->events++;
        set_time_add(&stt[si], x->gap[k], x->gd, x->gn);
        if (mark[k] & MARK_BEFORE)
            st->flags |= SEARCH_STMT_BEFORE;
        if (mark[k] & MARK_AFTER)
            st->flags |= SEARCH_STMT_AFTER;
        if ((rc = search_boxes_add(&st->iters, ev[k].depth, ev[k].iters, r->max_boxes)) < 0)
            goto out;
    }
    for (size_t si = 0; si < nids; si++) {
        set_time_flush(&stt[si], x->gd, x->gn);
        o->stmts[si].time_ns = stt[si].ns;
    }

out:
    for (size_t t = 0; t < ntouched; t++) {
        mark[touched[t]] = 0;
        stmt_of[x->cid[touched[t]]] = UINT32_MAX;
    }
    ref_free(r, stt, nids, sizeof(*stt));
    ref_free(r, ids, ntouched, sizeof(*ids));
    ref_free(r, touched, captouched, sizeof(*touched));
    return rc;
}

static int overlap_all(struct ref_ctx *x, struct search_rank_result *res)
{
    struct ref_state *r = x->r;
    struct cand *cand = NULL;
    size_t ncand = 0, nsites = 0;
    uint8_t *mark = NULL;
    uint32_t *stmt_of = NULL;
    int rc = 0;

    for (size_t i = 0; i < x->n; i++)
        ncand += search_has_forward(&x->ev[i]);
    cand = ref_alloc(r, ncand, sizeof(*cand));
    mark = ref_alloc(r, x->n, sizeof(*mark));
    stmt_of = ref_alloc(r, x->ncsite, sizeof(*stmt_of));
    if (!cand || !mark || !stmt_of) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (size_t d = 0; d < x->ncsite; d++)
        stmt_of[d] = UINT32_MAX;
    ncand = 0;
    for (size_t i = 0; i < x->n; i++)
        if (search_has_forward(&x->ev[i])) {
            cand[ncand].site = x->ev[i].site;
            cand[ncand++].index = i;
        }
    qsort(cand, ncand, sizeof(*cand), cmp_cand);
    for (size_t a = 0; a < ncand; a++)
        nsites += a == 0 || cand[a].site != cand[a - 1].site;
    if (nsites) {
        res->overlaps = calloc(nsites, sizeof(*res->overlaps));
        if (!res->overlaps) {
            rc = TRACE_ERR_NOMEM;
            goto out;
        }
    }
    for (size_t a = 0; a < ncand;) {
        size_t b = a;
        while (b < ncand && cand[b].site == cand[a].site)
            b++;
        rc = overlap_site(x, cand + a, b - a, mark, stmt_of, &res->overlaps[res->noverlaps]);
        res->noverlaps++; /* freed with the result even when half built */
        if (rc < 0)
            goto out;
        a = b;
    }
out:
    ref_free(r, stmt_of, x->ncsite, sizeof(*stmt_of));
    ref_free(r, mark, x->n, sizeof(*mark));
    ref_free(r, cand, ncand, sizeof(*cand));
    return rc;
}

/* ---- message aggregation ------------------------------------------------------------- */

/* Pre-processed order sort key: non-movable event i -> (i, 0, i), movable
 * send s -> (ea(s), 1, s). */
struct order_key {
    int64_t anchor;
    int kind;
    uint64_t index;
};

static int cmp_order(const void *a, const void *b)
{
    const struct order_key *x = a, *y = b;

    if (x->anchor != y->anchor)
        return x->anchor < y->anchor ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* One dynamic group of two or more sends, before summarising. */
struct ref_group {
    uint64_t comm;
    int32_t peer;
    uint32_t nsites;
    uint32_t *sites;
    uint32_t size;
    uint64_t bytes, ns;
    /* the blocking calls a member is delayed past (docs/dependence.md,
     * "Deadlock safety"): the first SEARCH_CHECK_MAX members and crossings */
    uint64_t *cmembers, *cross;
    uint32_t ncm, ncross;
};

static int cmp_group(const void *a, const void *b)
{
    const struct ref_group *x = a, *y = b;

    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->peer != y->peer)
        return x->peer < y->peer ? -1 : 1;
    if (x->nsites != y->nsites)
        return x->nsites < y->nsites ? -1 : 1;
    for (uint32_t i = 0; i < x->nsites; i++)
        if (x->sites[i] != y->sites[i])
            return x->sites[i] < y->sites[i] ? -1 : 1;
    return 0;
}

/* ea(s) for every movable send s (other entries unused): the largest of,
 * over the events e_j before s with e_j -> s, j when e_j is not a movable
 * send and ea(e_j) when it is; -1 if none.  A send also depends on every
 * earlier blocking call that may wait for another rank
 * (search_blocks_groups).  Every term is at most j, so the scan can stop
 * once j is not above the best term found. */
static void anchors(const struct dg_event *ev, size_t n, int64_t *ea)
{
    for (size_t s = 0; s < n; s++) {
        int64_t best = -1;

        if (!dg_is_movable_send(&ev[s]))
            continue;
        for (int64_t j = (int64_t)s - 1; j > best; j--) {
            int64_t term;
            if (!search_blocks_groups(&ev[j]) && !dg_depends(&ev[j], &ev[s], true))
                continue;
            term = dg_is_movable_send(&ev[j]) ? ea[j] : j;
            if (term > best)
                best = term;
        }
        ea[s] = best;
    }
}

static int aggregate(struct ref_ctx *x, struct search_rank_result *res)
{
    struct ref_state *r = x->r;
    const struct dg_event *ev = x->ev;
    size_t n = x->n;
    int64_t *ea = NULL;
    struct order_key *ord = NULL;
    uint8_t *grouped = NULL;
    uint64_t *members = NULL;
    struct ref_group *grp = NULL;
    size_t ngrp = 0, capgrp = 0;
    int rc = 0;

    ea = ref_alloc(r, n, sizeof(*ea));
    ord = ref_alloc(r, n, sizeof(*ord));
    grouped = ref_alloc(r, n, sizeof(*grouped));
    members = ref_alloc(r, n, sizeof(*members));
    if (!ea || !ord || !grouped || !members) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }

    anchors(ev, n, ea);
    for (size_t i = 0; i < n; i++) {
        bool mv = dg_is_movable_send(&ev[i]);
        ord[i].anchor = mv ? ea[i] : (int64_t)i;
        ord[i].kind = mv ? 1 : 0;
        ord[i].index = i;
    }
    qsort(ord, n, sizeof(*ord), cmp_order);

    /* classification: every ungrouped movable send seeds a group, which
     * the first event that depends on a member closes */
    for (size_t p = 0; p < n; p++) {
        size_t seed = ord[p].index, nm = 0;
        struct ref_group *g;

        if (!dg_is_movable_send(&ev[seed]) || grouped[seed])
            continue;
        members[nm++] = seed;
        grouped[seed] = 1;
        for (size_t q = p + 1; q < n; q++) {
            size_t y = ord[q].index;
            bool closes = false;
            for (size_t m = 0; m < nm && !closes; m++)
                closes = dg_depends(&ev[members[m]], &ev[y], false);
            if (closes)
                break;
            if (dg_is_movable_send(&ev[y]) && !grouped[y] && ev[y].comm == ev[seed].comm &&
                ev[y].peer == ev[seed].peer) {
                members[nm++] = y;
                grouped[y] = 1;
            }
        }
        if (nm < 2)
            continue;

        if ((rc = ref_grow(r, (void **)&grp, &capgrp, ngrp + 1, sizeof(*grp))) < 0)
            goto out;
        g = &grp[ngrp++];
        memset(g, 0, sizeof(*g));
        g->comm = ev[seed].comm;
        g->peer = ev[seed].peer;
        g->size = (uint32_t)nm;
        g->sites = ref_alloc(r, nm, sizeof(*g->sites));
        if (!g->sites) {
            rc = TRACE_ERR_NOMEM;
            goto out;
        }
        for (size_t m = 0; m < nm; m++) {
            const struct dg_event *e = &ev[members[m]];
            bool seen = false;
            for (uint32_t k = 0; k < g->nsites && !seen; k++)
                seen = g->sites[k] == e->site;
            if (!seen)
                g->sites[g->nsites++] = e->site;
            g->bytes += e->bytes;
            g->ns += search_call_ns(e);
        }
        /* sent together right after event ea(last member): the members are
         * delayed past the blocking calls between the first of them and
         * that point (the sends of one channel keep their trace order, so
         * members[0] is the first) */
        for (int64_t w = (int64_t)members[0] + 1; w <= ea[members[nm - 1]]; w++) {
            if (!search_blocks_groups(&ev[w]))
                continue;
            if (!g->cross) {
                g->cross = ref_alloc(r, SEARCH_CHECK_MAX, sizeof(*g->cross));
                g->cmembers = ref_alloc(r, SEARCH_CHECK_MAX, sizeof(*g->cmembers));
                if (!g->cross || !g->cmembers) {
                    rc = TRACE_ERR_NOMEM;
                    goto out;
                }
                for (size_t m = 0; m < nm && m < SEARCH_CHECK_MAX; m++)
                    g->cmembers[g->ncm++] = ev[members[m]].index;
            }
            if (g->ncross < SEARCH_CHECK_MAX)
                g->cross[g->ncross++] = ev[w].index;
        }
    }

    /* summaries per (comm, peer, sites) */
    if (ngrp > 1)
        qsort(grp, ngrp, sizeof(*grp), cmp_group);
    for (size_t a = 0; a < ngrp;) {
        size_t b = a;
        struct search_group *s;
        struct search_group *ng;

        while (b < ngrp && cmp_group(&grp[a], &grp[b]) == 0)
            b++;
        ng = realloc(res->groups, (res->ngroups + 1) * sizeof(*ng));
        if (!ng) {
            rc = TRACE_ERR_NOMEM;
            goto out;
        }
        res->groups = ng;
        s = &res->groups[res->ngroups];
        memset(s, 0, sizeof(*s));
        s->sites = malloc(grp[a].nsites * sizeof(*s->sites));
        if (!s->sites) {
            rc = TRACE_ERR_NOMEM;
            goto out;
        }
        res->ngroups++;
        memcpy(s->sites, grp[a].sites, grp[a].nsites * sizeof(*s->sites));
        s->nsites = grp[a].nsites;
        s->comm = grp[a].comm;
        s->peer = grp[a].peer;
        s->min_size = UINT32_MAX;
        for (size_t k = a; k < b; k++) {
            if (grp[k].ncross) {
                struct search_group_check *nc =
                    realloc(res->checks, (res->nchecks + 1) * sizeof(*nc));
                if (!nc) {
                    rc = TRACE_ERR_NOMEM;
                    goto out;
                }
                res->checks = nc;
                struct search_group_check *c = &res->checks[res->nchecks];
                memset(c, 0, sizeof(*c));
                c->members = malloc(grp[k].ncm * sizeof(*c->members));
                c->cross = malloc(grp[k].ncross * sizeof(*c->cross));
                if (!c->members || !c->cross) {
                    free(c->members);
                    free(c->cross);
                    rc = TRACE_ERR_NOMEM;
                    goto out;
                }
                res->nchecks++;
                c->group = res->ngroups - 1;
                c->nmembers = grp[k].ncm;
                c->ncross = grp[k].ncross;
                memcpy(c->members, grp[k].cmembers, grp[k].ncm * sizeof(*c->members));
                memcpy(c->cross, grp[k].cross, grp[k].ncross * sizeof(*c->cross));
            }
            s->groups++;
            s->members += grp[k].size;
            s->bytes += grp[k].bytes;
            s->send_ns += grp[k].ns;
            if (grp[k].size < s->min_size)
                s->min_size = grp[k].size;
            if (grp[k].size > s->max_size)
                s->max_size = grp[k].size;
        }
        a = b;
    }

out:
    for (size_t k = 0; k < ngrp; k++) {
        ref_free(r, grp[k].sites, grp[k].size, sizeof(*grp[k].sites));
        ref_free(r, grp[k].cross, SEARCH_CHECK_MAX, sizeof(*grp[k].cross));
        ref_free(r, grp[k].cmembers, SEARCH_CHECK_MAX, sizeof(*grp[k].cmembers));
    }
    if (res->nchecks > 1)
        qsort(res->checks, res->nchecks, sizeof(*res->checks), search_check_cmp);
    ref_free(r, grp, capgrp, sizeof(*grp));
    ref_free(r, members, n, sizeof(*members));
    ref_free(r, grouped, n, sizeof(*grouped));
    ref_free(r, ord, n, sizeof(*ord));
    ref_free(r, ea, n, sizeof(*ea));
    return rc;
}

/* ---- finishing ------------------------------------------------------------------------ */

static int ref_finish(void *state, struct search_rank_result **out)
{
    struct ref_state *r = state;
    struct search_rank_result *res = NULL;
    struct ref_ctx x;
    struct search_msgcost mc;
    int rc = 0;

    *out = NULL;
    memset(&x, 0, sizeof(x));
    memset(&mc, 0, sizeof(mc));
    for (size_t i = 0; i < r->n; i++) {
        r->ev[i].ranges = r->ev[i].nranges ? r->ranges + r->off[i].range : NULL;
        r->ev[i].keys = r->ev[i].nkeys ? r->keys + r->off[i].key : NULL;
        r->ev[i].iters = r->ev[i].depth ? r->iters + r->off[i].iter : NULL;
    }
    x.r = r;
    x.ev = r->ev;
    x.n = r->n;

    res = calloc(1, sizeof(*res));
    if (!res) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
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
        if (dg_is_movable_send(e))
            search_msgcost_add(&mc, e->bytes, search_call_ns(e));
    }
    res->msg_latency_ns = search_msgcost_latency(&mc);

    x.gap = ref_alloc(r, r->n, sizeof(*x.gap));
    x.gd = ref_alloc(r, r->n, sizeof(*x.gd));
    x.gn = ref_alloc(r, r->n, sizeof(*x.gn));
    x.gs = ref_alloc(r, r->n, sizeof(*x.gs));
    x.gt = ref_alloc(r, r->n, sizeof(*x.gt));
    x.cid = ref_alloc(r, r->n, sizeof(*x.cid));
    if (!x.gap || !x.gd || !x.gn || !x.gs || !x.gt || !x.cid) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    find_gaps(r->ev, r->n, x.gap, x.gd, x.gn, x.gs, x.gt);
    if ((rc = build_statements(&x)) < 0)
        goto out;
    if ((rc = overlap_all(&x, res)) < 0)
        goto out;
    if ((rc = aggregate(&x, res)) < 0)
        goto out;
    res->peak_bytes = r->peak;

out:
    free(x.ctotal);
    free(x.csite);
    free(x.cid);
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
