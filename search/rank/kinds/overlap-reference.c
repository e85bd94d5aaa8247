/* overlap-reference.c - the overlap kind in the reference engine: the
 * paper's Fig. 3 literally (docs/dependence.md, "Communication-computation
 * overlap").  For every candidate it scans backward and forward event by
 * event with dg_depends() until the first dependence or the horizon, then
 * sums the windows of each call site and the statements they hold.
 */
#include "rank/kinds/overlap.h"

enum { MARK_BEFORE = 1, MARK_AFTER = 2 };

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

/* What bounded one instance's windows (the fix): keys of the counts,
 * UINT64_MAX where nothing is counted. */
struct search_overlap_fixn {
    uint64_t dep, use;
    uint8_t bw_empty, fw_empty; /* SEARCH_OV_ROOM, _EMPTY or _EMPTY_OUTSIDE: a search found no room */
    uint64_t bw_key, fw_key;    /* _EMPTY: what bounds it (site | SEARCH_OV_OTHER_ITER) */
    uint32_t dep_loops;         /* the loops around dep that are not around the call */
};

/* The windows of candidate i: backward [*blo, i) and forward (i, *fhi]
 * (empty when blo == i or fhi == i); returns whether either was cut at the
 * horizon.  With nb, the needs-buffer variant's: the forward window ends
 * at the first event that depends on search_ov_nb_event(c), and *over is
 * the first event in it that depends on c itself (it only overwrites the
 * send buffer; SIZE_MAX if none). */
static bool windows(const struct search_ref *x, size_t i, bool nb, size_t *blo, size_t *fhi, size_t *over,
                    struct search_overlap_fixn *fx)
{
    const struct dg_event *ev = x->ev;
    const struct dg_event *c = &ev[i];
    struct dg_event fc = nb ? search_ov_nb_event(c) : *c;
    uint64_t h = x->horizon;
    bool truncated = false;

    *blo = i;
    if (search_has_backward(c)) {
        uint64_t reach = h < i ? h : i; /* events scanned: i-1 down to i-reach */
        size_t top = i - (c->ncompanions < i ? c->ncompanions : i); /* companions move with it */
        size_t k;
        bool found = false;
        for (k = top; k > i - reach; k--)
            if (dg_depends(&ev[k - 1], c, true)) {
                found = true;
                break;
            }
        /* k is the first event of the window: right after the dependence,
         * or i - reach when there is none */
        *blo = k < top ? k : top;
        if (*blo >= top && found) { /* no room: by where its bound is */
            const struct dg_event *d = &ev[k - 1];
            fx->bw_empty = search_ov_shares_loop(d->iters, d->depth, c->iters, c->depth) ? SEARCH_OV_EMPTY
                                                                                         : SEARCH_OV_EMPTY_OUTSIDE;
            fx->bw_key = search_ov_key(d->site, search_ov_iter_order(d->iters, d->depth, c->iters, c->depth), true);
        } else if (*blo >= top) {
            fx->bw_empty = SEARCH_OV_EMPTY;
        }
        if (*blo < top) { /* the fix's start: after the dependence */
            fx->dep = found ? search_ov_key(ev[k - 1].site,
                                            search_ov_iter_order(ev[k - 1].iters, ev[k - 1].depth, c->iters, c->depth),
                                            true)
                            : CHT_NONE;
            if (found)
                fx->dep_loops = search_ov_loops_outside(ev[k - 1].iters, ev[k - 1].depth, c->iters, c->depth);
        }
        if (!found && h < i)
            truncated = true;
    }
    *fhi = i;
    if (search_has_forward(c)) {
        uint64_t rem = x->n - 1 - i; /* events after i */
        uint64_t reach = h < rem ? h : rem;
        size_t j;
        bool found = false;
        *over = SIZE_MAX;
        for (j = i + 1; j <= i + reach; j++) {
            if (dg_depends(&fc, &ev[j], true)) {
                found = true;
                break;
            }
            if (nb && *over == SIZE_MAX && dg_depends(c, &ev[j], true))
                *over = j;
        }
        *fhi = j - 1;
        if (found && j > i + 1) /* the fix's wait: before the first dependent event */
            fx->use = search_ov_key(ev[j].site, search_ov_iter_order(ev[j].iters, ev[j].depth, c->iters, c->depth),
                                    false);
        else if (found) { /* no window: the wait stays right after the call */
            fx->use = CHT_NONE;
            fx->fw_empty = search_ov_shares_loop(ev[j].iters, ev[j].depth, c->iters, c->depth)
                               ? SEARCH_OV_EMPTY
                               : SEARCH_OV_EMPTY_OUTSIDE;
            fx->fw_key = search_ov_key(ev[j].site, search_ov_iter_order(ev[j].iters, ev[j].depth, c->iters, c->depth),
                                       false);
        }
        if (!found && h < rem)
            truncated = true;
    }
    return truncated;
}

/* The computation events of one call site's windows: marks (n entries,
 * MARK_*) and the events marked, in the order first marked; mark and
 * stmt_of (ncsite entries, all UINT32_MAX) are left as they were found. */
struct site_scratch {
    uint8_t *mark;
    uint32_t *stmt_of;
    uint64_t *touched;
    size_t ntouched, captouched;
    uint64_t extended; /* needs-buffer variant: instances whose forward window grew */
    struct dg_map dep_n, use_n; /* the fix's counts */
    struct dg_map dep_empty_n, use_empty_n; /* the same for empty windows of instances with a window */
};

/* Appends a lead to o (full at 8, 16, 32...: doubled). */
static int lead_add(struct search_overlap *o, struct search_lead l)
{
    uint32_t m = o->nleads;
    if (m >= 8 && !(m & (m - 1))) {
        struct search_lead *p = realloc(o->leads, 2 * (size_t)m * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        o->leads = p;
    } else if (!m && !(o->leads = malloc(8 * sizeof *o->leads))) {
        return TRACE_ERR_NOMEM;
    }
    o->leads[o->nleads++] = l;
    return 0;
}

/* Instance i of a call site: its windows (nb: the needs-buffer
 * variant's), counted into o and marked. */
static int instance(struct search_ref *x, size_t i, struct site_scratch *sc, struct search_overlap *o)
{
    const struct dg_event *ev = x->ev, *c = &ev[i];
    size_t blo, fhi, over = SIZE_MAX;
    uint64_t wcount = 0, cns = search_call_ns(c);
    struct search_set_time wt = {0}, at = {0};
    struct search_overlap_fixn fx = {UINT64_MAX,       UINT64_MAX,       SEARCH_OV_ROOM, SEARCH_OV_ROOM,
                                     SEARCH_OV_NO_KEY, SEARCH_OV_NO_KEY, 0};
    bool trunc = windows(x, i, o->needs_buffer, &blo, &fhi, &over, &fx);
    int rc;

    o->dep_loops |= fx.dep_loops;
    if ((fx.dep != UINT64_MAX && (rc = search_ov_count(&sc->dep_n, fx.dep)) < 0) ||
        (fx.use != UINT64_MAX && (rc = search_ov_count(&sc->use_n, fx.use)) < 0))
        return rc;

    /* the variant's window grew if it holds computation from the first
     * overwrite on (the plain window ends right before it) */
    for (size_t k = over; over != SIZE_MAX && k <= fhi; k++)
        if (ev[k].kind == DG_COMP) {
            if (!sc->extended++)
                o->over_site = ev[over].site;
            break;
        }

    size_t top = i - (c->ncompanions < i ? c->ncompanions : i); /* the window ends before them */
    for (size_t k = blo; k <= fhi; k++) {
        if ((k >= top && k <= i) || ev[k].kind != DG_COMP)
            continue;
        wcount++;
        search_set_time_add(&wt, k, x);
        if (k > i)
            search_set_time_add(&at, k, x);
        if (!sc->mark[k]) {
            if ((rc = search_ref_grow(x, (void **)&sc->touched, &sc->captouched, sc->ntouched + 1,
                                      sizeof(*sc->touched))) < 0)
                return rc;
            sc->touched[sc->ntouched++] = k;
        }
        sc->mark[k] |= k < i ? MARK_BEFORE : MARK_AFTER;
    }
    search_set_time_flush(&wt, x);
    search_set_time_flush(&at, x);
    uint64_t lead = 0;
    if (blo < top) {
        uint64_t t0 = search_ref_start_time(x, blo);
        if (t0 && c->t_enter > t0)
            lead = c->t_enter - t0;
    }
    struct search_lead ld = {.index = i, .span_ns = lead, .after_ns = at.ns, .fw_end = fhi};
    if ((lead || at.ns) && (rc = lead_add(o, ld)) < 0)
        return rc;
    o->instances++;
    o->truncated += trunc;
    o->comm_ns += cns;
    o->comp_ns += wt.ns;
    o->saving_ns += cns < wt.ns ? cns : wt.ns;
    if (wcount) {
        o->with_window++;
        o->back_empty_outside += fx.bw_empty == SEARCH_OV_EMPTY_OUTSIDE;
        o->fwd_empty_outside += fx.fw_empty == SEARCH_OV_EMPTY_OUTSIDE;
        if ((fx.bw_empty == SEARCH_OV_EMPTY && (rc = search_ov_count(&sc->dep_empty_n, fx.bw_key)) < 0) ||
            (fx.fw_empty == SEARCH_OV_EMPTY && (rc = search_ov_count(&sc->use_empty_n, fx.fw_key)) < 0))
            return rc;
        if ((rc = search_boxes_add(&o->iters, c->depth, c->iters, x->max_boxes)) < 0)
            return rc;
    }
    return 0;
}

/* The statements of U_C, the union of the call site's windows: ids sorted
 * by site give the order of o->stmts. */
static int statements(struct search_ref *x, struct site_scratch *sc, struct search_overlap *o)
{
    const struct dg_event *ev = x->ev;
    uint32_t *ids = NULL;
    struct search_set_time *stt = NULL;
    size_t nids = 0;
    int rc = TRACE_ERR_NOMEM;

    if (sc->ntouched > 1)
        qsort(sc->touched, sc->ntouched, sizeof(*sc->touched), cmp_u64);
    if (!(ids = search_ref_alloc(x, sc->ntouched, sizeof(*ids))))
        goto out;
    for (size_t t = 0; t < sc->ntouched; t++) {
        uint32_t d = x->cid[sc->touched[t]];
        if (sc->stmt_of[d] == UINT32_MAX) {
            sc->stmt_of[d] = 0;
            ids[nids++] = d;
        }
    }
    qsort(ids, nids, sizeof(*ids), cmp_u32);
    if (nids) {
        if (!(o->stmts = calloc(nids, sizeof(*o->stmts))))
            goto out;
        search_ref_count(x, nids * sizeof(*o->stmts));
    }
    o->nstmts = (uint32_t)nids;
    if (!(stt = search_ref_alloc(x, nids, sizeof(*stt))))
        goto out;
    for (size_t s = 0; s < nids; s++) {
        sc->stmt_of[ids[s]] = (uint32_t)s;
        o->stmts[s].site = x->csite[ids[s]];
        o->stmts[s].total = x->ctotal[ids[s]];
    }
    for (size_t t = 0; t < sc->ntouched; t++) {
        size_t k = sc->touched[t];
        uint32_t si = sc->stmt_of[x->cid[k]];
        struct search_stmt *st = &o->stmts[si];
        if (st->events == 0)
            st->site_flags = ev[k].site_flags;
        st->events++;
        search_set_time_add(&stt[si], k, x);
        if (sc->mark[k] & MARK_BEFORE)
            st->flags |= SEARCH_STMT_BEFORE;
        if (sc->mark[k] & MARK_AFTER)
            st->flags |= SEARCH_STMT_AFTER;
        if ((rc = search_boxes_add(&st->iters, ev[k].depth, ev[k].iters, x->max_boxes)) < 0)
            goto out;
    }
    for (size_t si = 0; si < nids; si++) {
        search_set_time_flush(&stt[si], x);
        o->stmts[si].time_ns = stt[si].ns;
    }
    rc = 0;
out:
    search_ref_free(x, stt, nids, sizeof(*stt));
    search_ref_free(x, ids, sc->ntouched, sizeof(*ids));
    return rc;
}

/* Results of one call site (nb: its needs-buffer variant): cand[0..ncand)
 * are its instances in trace order. */
static int overlap_site(struct search_ref *x, const struct cand *cand, size_t ncand, bool nb,
                        struct site_scratch *sc, struct search_overlap *o)
{
    const struct dg_event *first = &x->ev[cand[0].index];
    int rc = 0;

    memset(o, 0, sizeof(*o));
    o->site = first->site;
    o->call = first->call;
    o->role = first->role;
    o->needs_buffer = nb;
    o->over_site = CHT_NONE;
    sc->extended = 0;
    memset(&sc->dep_n, 0, sizeof sc->dep_n);
    memset(&sc->use_n, 0, sizeof sc->use_n);
    memset(&sc->dep_empty_n, 0, sizeof sc->dep_empty_n);
    memset(&sc->use_empty_n, 0, sizeof sc->use_empty_n);
    sc->ntouched = sc->captouched = 0;
    sc->touched = NULL;
    for (size_t ci = 0; ci < ncand && rc == 0; ci++)
        rc = instance(x, cand[ci].index, sc, o);
    search_ov_set_fix(o, &sc->dep_n, &sc->use_n, &sc->dep_empty_n, &sc->use_empty_n);
    dg_map_free(&sc->dep_n);
    dg_map_free(&sc->use_n);
    dg_map_free(&sc->dep_empty_n);
    dg_map_free(&sc->use_empty_n);
    if (rc == 0)
        rc = statements(x, sc, o);
    for (size_t t = 0; t < sc->ntouched; t++) {
        sc->mark[sc->touched[t]] = 0;
        sc->stmt_of[x->cid[sc->touched[t]]] = UINT32_MAX;
    }
    search_ref_free(x, sc->touched, sc->captouched, sizeof(*sc->touched));
    return rc;
}

int search_overlap_reference(struct search_ref *x, struct search_rank_result *res)
{
    struct cand *cand = NULL;
    size_t ncand = 0, nsites = 0;
    struct site_scratch sc = {0};
    int rc = 0;

    for (size_t i = 0; i < x->n; i++)
        ncand += search_has_forward(&x->ev[i]);
    cand = search_ref_alloc(x, ncand, sizeof(*cand));
    sc.mark = search_ref_alloc(x, x->n, sizeof(*sc.mark));
    sc.stmt_of = search_ref_alloc(x, x->ncsite, sizeof(*sc.stmt_of));
    if (!cand || !sc.mark || !sc.stmt_of) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (size_t d = 0; d < x->ncsite; d++)
        sc.stmt_of[d] = UINT32_MAX;
    ncand = 0;
    for (size_t i = 0; i < x->n; i++)
        if (search_has_forward(&x->ev[i])) {
            cand[ncand].site = x->ev[i].site;
            cand[ncand++].index = i;
        }
    qsort(cand, ncand, sizeof(*cand), cmp_cand);
    for (size_t a = 0; a < ncand; a++)
        if (a == 0 || cand[a].site != cand[a - 1].site)
            nsites += 1 + search_ov_has_nb(&x->ev[cand[a].index]);
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
        rc = overlap_site(x, cand + a, b - a, false, &sc, &res->overlaps[res->noverlaps]);
        res->noverlaps++; /* freed with the result even when half built */
        if (rc < 0)
            goto out;
        if (search_ov_has_nb(&x->ev[cand[a].index])) {
            rc = overlap_site(x, cand + a, b - a, true, &sc, &res->overlaps[res->noverlaps]);
            res->noverlaps++;
            if (rc < 0)
                goto out;
            if (!sc.extended) /* no window grew: the variant adds nothing */
                search_overlap_drop_last(res);
        }
        a = b;
    }
out:
    search_ref_free(x, sc.stmt_of, x->ncsite, sizeof(*sc.stmt_of));
    search_ref_free(x, sc.mark, x->n, sizeof(*sc.mark));
    search_ref_free(x, cand, ncand, sizeof(*cand));
    return rc;
}
