/* overlap-stream.c - the overlap kind in the streaming engine
 * (docs/dependence.md, "Communication-computation overlap").
 *
 * A candidate's backward window is known when it arrives: it starts after
 * the last event the candidate depends on (search_stream_deps), at most H
 * events back.  Its forward window stays open, watched (struct dg_watch),
 * until an event depends on the candidate or the window reaches the
 * horizon.  Each call site keeps the intervals its windows cover; they
 * are attributed to statements (events, times, iteration boxes) from the
 * engine's ring when they fall behind the horizon, in event order, so that
 * an event in the windows of several instances counts once.  A window's
 * time waits until the gaps it meets are closed.
 *
 * A blocking send also has an instance in the needs-buffer variant of
 * its call site (docs/dependence.md, "Needs a buffer per message"): the
 * same backward window, and a forward one watched in a second lane
 * without the send buffer, so that events that only overwrite it do not
 * end it.  The plain instance, when such an event ends its window, tells
 * its variant twin where (struct inst, over).
 */
#include "rank/kinds/overlap.h"

struct stmt_acc {
    struct search_stmt s;
    uint64_t pend_gap, pend_w; /* weight of the events attributed in a gap whose time is not
                                  added yet */
};

struct interval {
    uint64_t lo, hi; /* inclusive */
};

struct inst;

struct csite {
    struct search_overlap o;
    struct stmt_acc *stmts;
    size_t nstmts, cstmts;
    struct dg_map stmt_of;    /* site -> index in stmts */
    size_t last_stmt;         /* the one found last */
    struct interval *bw, *fw; /* covered, not yet attributed, sorted, disjoint */
    size_t cwindows, cleads;
    size_t nbw, cbw, nfw, cfw;
    struct inst **queue;      /* instances in order, until accounted */
    size_t qhead, qn, qcap;
    uint64_t extended;        /* needs-buffer variant: instances whose forward window grew */
    struct dg_map dep_n, use_n; /* site -> instances whose windows it bounds (the fix) */
    struct dg_map dep_empty_n, use_empty_n; /* the same for empty windows of instances with a window */
};

struct inst {
    uint64_t c;            /* index */
    uint32_t cs;           /* call site slot */
    uint64_t comm_ns;
    uint64_t time, comp;   /* window computation time and events so far */
    uint64_t lead, after;  /* how much earlier it can start; its forward window's time */
    uint64_t fw_lo, fw_hi; /* forward window [lo, hi] once closed (lo > hi: empty) */
    uint64_t w_lo, w_hi;   /* their search_stream_wpos, taken while they are in the ring */
    uint64_t w_over;       /* nb: search_stream_wpos(over, false) */
    uint64_t t_call, t_lo, t_hi; /* for display: when the call and its windows were */
    bool fw_open, fw_pending, truncated, done;
    uint8_t bw_empty, fw_empty; /* SEARCH_OV_ROOM, _EMPTY or _EMPTY_OUTSIDE: no room before it, after it */
    uint64_t bw_key, fw_key;    /* _EMPTY: what bounds it (site | SEARCH_OV_OTHER_ITER) */
    bool nb, extended;     /* a needs-buffer variant instance; its window grew */
    struct inst *twin;     /* the other instance of the call while both are open */
    uint64_t over;         /* nb: the event that ended the plain window by only
                              overwriting the send buffer (NONE64: none) */
    uint32_t over_site;
    struct search_ctx iters;
};

/* The open forward windows of plain instances (lane 0) or of needs-buffer
 * variant ones (lane 1). */
struct lane {
    struct dg_watch *watch;    /* by instance index */
    struct dg_map open;        /* instance index -> struct inst * */
    uint64_t *fifo;            /* indices of instances with a forward window, in order */
    size_t head, n, cap;
};

struct ov_stream {
    struct lane lane[2];
    struct csite *cs;
    size_t ncs, ccs;
    struct dg_map cs_of;       /* site (| 1 << 32 for the variant) -> slot */
    struct inst **deferred;    /* windows whose time waits for the open gap */
    size_t ndef, cdef;
};

#define NONE64 UINT64_MAX

/* ---- call sites and statements ----------------------------------------------------------- */

static struct csite *csite_get(struct ov_stream *v, const struct dg_event *e, bool nb)
{
    uint64_t key = e->site | (uint64_t)nb << 32;
    uint64_t *slot = dg_map_get(&v->cs_of, key);
    if (slot)
        return &v->cs[*slot];
    if (v->ncs == v->ccs) {
        size_t nc = v->ccs ? v->ccs * 2 : 16;
        struct csite *p = realloc(v->cs, nc * sizeof *p);
        if (!p)
            return NULL;
        v->cs = p;
        v->ccs = nc;
    }
    if (!dg_map_put(&v->cs_of, key, v->ncs))
        return NULL;
    struct csite *c = &v->cs[v->ncs++];
    memset(c, 0, sizeof *c);
    c->o.site = e->site;
    c->o.call = e->call;
    c->o.role = e->role;
    c->o.needs_buffer = nb;
    c->o.over_site = CHT_NONE;
    c->o.dep_site = c->o.use_site = CHT_NONE;
    return c;
}

static struct stmt_acc *stmt_get(struct csite *c, uint32_t site, uint32_t site_flags)
{
    if (c->nstmts && c->stmts[c->last_stmt].s.site == site)
        return &c->stmts[c->last_stmt];
    uint64_t *slot = dg_map_get(&c->stmt_of, site);
    if (slot) {
        c->last_stmt = (size_t)*slot;
        return &c->stmts[*slot];
    }
    if (c->nstmts == c->cstmts) {
        size_t nc = c->cstmts ? c->cstmts * 2 : 8;
        struct stmt_acc *p = realloc(c->stmts, nc * sizeof *p);
        if (!p)
            return NULL;
        c->stmts = p;
        c->cstmts = nc;
    }
    if (!dg_map_put(&c->stmt_of, site, c->nstmts))
        return NULL;
    c->last_stmt = c->nstmts;
    struct stmt_acc *a = &c->stmts[c->nstmts++];
    memset(a, 0, sizeof *a);
    a->s.site = site;
    a->s.site_flags = site_flags;
    a->pend_gap = NONE64;
    return a;
}

/* Adds the pending events' time once no more events of their gap can be
 * attributed: the gap is closed and wholly below the flushed frontier f (a
 * gap's events must be weighed together: ⌊d·k/n⌋ is not additive). */
static void stmt_settle(const struct search_stream *s, struct stmt_acc *a, uint64_t f)
{
    if (a->pend_gap == NONE64)
        return;
    const struct search_gap *g = search_stream_gap(s, a->pend_gap);
    if (!g->closed || g->start + g->n > f)
        return;
    a->s.time_ns += search_share(g->d, a->pend_w, g->w);
    a->pend_gap = NONE64;
    a->pend_w = 0;
}

/* Inserts [lo, hi] into a sorted list of disjoint intervals, merging
 * those it overlaps or touches.  New intervals are near the end. */
static int interval_add(struct interval **v, size_t *n, size_t *cap, uint64_t lo, uint64_t hi)
{
    if (lo > hi)
        return 0;
    size_t i = *n;
    while (i > 0 && (*v)[i - 1].hi + 1 >= lo)
        i--;
    size_t j = i;
    while (j < *n && (*v)[j].lo <= hi + 1) {
        lo = search_min64(lo, (*v)[j].lo);
        hi = search_max64(hi, (*v)[j].hi);
        j++;
    }
    if (j == i) {
        struct interval x = {lo, hi};
        SEARCH_VEC_PUSH(*v, *n, *cap, x, nomem);
        memmove(&(*v)[i + 1], &(*v)[i], (*n - 1 - i) * sizeof **v);
        (*v)[i] = x;
        return 0;
    }
    (*v)[i] = (struct interval){lo, hi};
    memmove(&(*v)[i + 1], &(*v)[j], (*n - j) * sizeof **v);
    *n -= j - (i + 1);
    return 0;
nomem:
    return TRACE_ERR_NOMEM;
}

/* Attributes the events [lo, hi] of call site c to their statements. */
static int attribute(const struct search_stream *s, struct csite *c, uint64_t lo, uint64_t hi,
                     uint32_t flags)
{
    unsigned max_boxes = search_stream_max_boxes(s);
    for (uint64_t t = lo; t <= hi; t++) {
        const struct search_ring_ev *r = search_stream_ring(s, t);
        if (r->kind != DG_COMP)
            continue;
        struct stmt_acc *a = stmt_get(c, r->site, r->site_flags);
        if (!a)
            return TRACE_ERR_NOMEM;
        a->s.events++;
        a->s.flags |= flags;
        struct trace_iter moved[SEARCH_BOX_DEPTH];
        uint32_t depth;
        const struct trace_iter *it = search_stream_iters(s, r, moved, &depth);
        if (search_boxes_add(&a->s.iters, depth, it, max_boxes) < 0)
            return TRACE_ERR_NOMEM;
        if (a->pend_gap != r->gap) {
            /* a later gap: the pending one is complete (attribution runs in
             * event order), so add its time now */
            if (a->pend_gap != NONE64) {
                const struct search_gap *g = search_stream_gap(s, a->pend_gap);
                if (!g->closed)
                    return TRACE_ERR_ARG; /* cannot happen: only the last gap is open */
                a->s.time_ns += search_share(g->d, a->pend_w, g->w);
            }
            a->pend_gap = r->gap;
            a->pend_w = 0;
        }
        a->pend_w += r->w;
    }
    return 0;
}

/* Drops what is below f from a list of intervals. */
static void intervals_cut(struct interval *v, size_t *n, uint64_t f)
{
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        if (v[i].hi < f)
            continue;
        v[k] = v[i];
        if (v[k].lo < f)
            v[k].lo = f;
        k++;
    }
    *n = k;
}

/* Attributes everything call site c has covered below index f. */
static int flush_site(const struct search_stream *s, struct csite *c, uint64_t f)
{
    size_t ib = 0, jf = 0;
    uint64_t j = 0;
    int rc = 0;
    for (;;) {
        while (ib < c->nbw && c->bw[ib].hi < j)
            ib++;
        while (jf < c->nfw && c->fw[jf].hi < j)
            jf++;
        uint64_t nb = ib < c->nbw ? search_max64(c->bw[ib].lo, j) : NONE64;
        uint64_t nf = jf < c->nfw ? search_max64(c->fw[jf].lo, j) : NONE64;
        uint64_t start = search_min64(nb, nf);
        if (start == NONE64 || start >= f)
            break;
        bool in_b = nb == start, in_f = nf == start;
        uint64_t end = f - 1;
        if (in_b)
            end = search_min64(end, c->bw[ib].hi);
        else if (ib < c->nbw)
            end = search_min64(end, c->bw[ib].lo - 1);
        if (in_f)
            end = search_min64(end, c->fw[jf].hi);
        else if (jf < c->nfw)
            end = search_min64(end, c->fw[jf].lo - 1);
        rc = attribute(s, c, start, end, (in_b ? SEARCH_STMT_BEFORE : 0) | (in_f ? SEARCH_STMT_AFTER : 0));
        if (rc < 0)
            return rc;
        j = end + 1;
    }
    intervals_cut(c->bw, &c->nbw, f);
    intervals_cut(c->fw, &c->nfw, f);
    return 0;
}

/* ---- instances --------------------------------------------------------------------------- */

/* Accounts the finished instances at the head of a call site's queue, in
 * instance order. */
static int account(const struct search_stream *s, struct csite *c)
{
    while (c->qn && c->queue[c->qhead]->done) {
        struct inst *in = c->queue[c->qhead];
        c->qhead = (c->qhead + 1) % c->qcap;
        c->qn--;
        if (in->truncated)
            c->o.truncated++;
        if (in->extended && !c->extended++)
            c->o.over_site = in->over_site;
        if (in->comp && c->o.nwindows < SEARCH_MAX_WINDOWS) {
            struct search_window w = {in->t_call, in->t_lo ? in->t_lo : in->t_call,
                                      in->t_hi > in->t_call ? in->t_hi : in->t_call};
            SEARCH_VEC_PUSH(c->o.windows, c->o.nwindows, c->cwindows, w, nomem);
        }
        if (in->lead || in->after) {
            struct search_lead ld = {.index = in->c, .span_ns = in->lead, .after_ns = in->after,
                                     .fw_end = in->fw_lo <= in->fw_hi ? in->fw_hi : in->c};
            SEARCH_VEC_PUSH(c->o.leads, c->o.nleads, c->cleads, ld, nomem);
        }
        if (in->comp) {
            c->o.with_window++;
            c->o.back_empty_outside += in->bw_empty == SEARCH_OV_EMPTY_OUTSIDE;
            c->o.fwd_empty_outside += in->fw_empty == SEARCH_OV_EMPTY_OUTSIDE;
            if ((in->bw_empty == SEARCH_OV_EMPTY && search_ov_count(&c->dep_empty_n, in->bw_key) < 0) ||
                (in->fw_empty == SEARCH_OV_EMPTY && search_ov_count(&c->use_empty_n, in->fw_key) < 0))
                goto nomem;
            c->o.comp_ns += in->time;
            c->o.saving_ns += search_min64(in->comm_ns, in->time);
            if (search_boxes_add(&c->o.iters, in->iters.depth, in->iters.it, search_stream_max_boxes(s)) < 0)
                return TRACE_ERR_NOMEM;
        }
        free(in);
    }
    return 0;
nomem:
    return TRACE_ERR_NOMEM;
}

/* Appends to a circular queue of elements of `size` bytes. */
static int deque_push(void **buf, size_t *head, size_t *n, size_t *cap, const void *item, size_t size)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        char *p = malloc(nc * size);
        if (!p)
            return TRACE_ERR_NOMEM;
        for (size_t i = 0; i < *n; i++)
            memcpy(p + i * size, (char *)*buf + ((*head + i) % *cap) * size, size);
        free(*buf);
        *buf = p;
        *cap = nc;
        *head = 0;
    }
    memcpy((char *)*buf + ((*head + *n) % *cap) * size, item, size);
    ++*n;
    return 0;
}

/* The forward window of `in` is complete and its gaps closed: its time. */
static int fw_time(const struct search_stream *s, struct ov_stream *v, struct inst *in)
{
    uint64_t t, k;
    search_stream_range_time(s, in->fw_lo, in->fw_hi, in->w_lo, in->w_hi, &t, &k);
    in->time += t;
    in->after = t;
    in->comp += k;
    if (k)
        in->t_hi = search_stream_time_at(s, in->fw_hi, in->w_hi, true);
    if (in->over != NONE64 && in->over <= in->fw_hi) {
        /* computation from the first overwrite on: the window grew */
        search_stream_range_time(s, in->over, in->fw_hi, in->w_over, in->w_hi, &t, &k);
        in->extended = k > 0;
    }
    in->fw_pending = false;
    in->done = true;
    return account(s, &v->cs[in->cs]);
}

/* The forward window of `in` is [lo, hi]: record it, and its time once
 * the gaps it meets are closed. */
static int fw_close(const struct search_stream *s, struct ov_stream *v, struct inst *in, uint64_t hi,
                    bool truncated)
{
    struct lane *l = &v->lane[in->nb];
    in->fw_open = false;
    in->fw_lo = in->c + 1;
    in->fw_hi = hi;
    if (in->fw_lo <= hi) {
        /* the window's events are in the ring now, maybe not when its gaps close */
        in->w_lo = search_stream_wpos(s, in->fw_lo, false);
        in->w_hi = search_stream_wpos(s, hi, true);
        if (in->over != NONE64 && in->over <= hi)
            in->w_over = search_stream_wpos(s, in->over, false);
    }
    in->truncated |= truncated;
    if (in->twin) /* the other one ends here too or has its own end */
        in->twin->twin = NULL;
    in->twin = NULL;
    dg_watch_remove(l->watch, in->c);
    dg_map_del(&l->open, in->c);
    struct csite *c = &v->cs[in->cs];
    if (interval_add(&c->fw, &c->nfw, &c->cfw, in->fw_lo, in->fw_hi) < 0)
        return TRACE_ERR_NOMEM;
    if (search_stream_gap_open_meets(s, in->fw_lo, hi)) {
        in->fw_pending = true;
        SEARCH_VEC_PUSH(v->deferred, v->ndef, v->cdef, in, nomem);
        return 0;
    }
    return fw_time(s, v, in);
nomem:
    return TRACE_ERR_NOMEM;
}

/* The open gap closed: the windows that waited for it. */
static int ov_gap_closed(void *state, struct search_stream *s)
{
    struct ov_stream *v = state;
    size_t n = v->ndef;
    v->ndef = 0;
    for (size_t i = 0; i < n; i++) {
        int rc = fw_time(s, v, v->deferred[i]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Closes the forward windows of a lane that reach the horizon before
 * event i (all of them with i NONE64, at end, the last event, not
 * truncated); then the oldest window in its FIFO, if any, is open and
 * reaches i. */
static int lane_advance(struct search_stream *s, struct ov_stream *v, struct lane *l, uint64_t i, uint64_t end)
{
    uint64_t H = search_stream_horizon(s);
    while (l->n) {
        uint64_t c = l->fifo[l->head];
        uint64_t *p = dg_map_get(&l->open, c);
        if (p && i != NONE64 && c + H + 1 > i)
            break;
        l->head = (l->head + 1) % l->cap;
        l->n--;
        int rc;
        if (p && (rc = fw_close(s, v, (struct inst *)(uintptr_t)*p, i == NONE64 ? end : c + H, i != NONE64)) < 0)
            return rc;
    }
    return 0;
}

static int ov_advance(void *state, struct search_stream *s, uint64_t i)
{
    struct ov_stream *v = state;
    int rc = lane_advance(s, v, &v->lane[0], i, 0);
    return rc < 0 ? rc : lane_advance(s, v, &v->lane[1], i, 0);
}

/* ---- candidates --------------------------------------------------------------------------- */


/* The backward window of candidate `in` (event e): from after the last
 * event it depends on, at most H events back.  Sets *lead to how much
 * earlier the call could start (0: none or unknown). */
static int backward(struct search_stream *s, struct csite *c, struct inst *in, const struct dg_event *e,
                    uint64_t *lead)
{
    uint64_t i = e->index, H = search_stream_horizon(s);
    uint64_t last = search_stream_deps(s, e)->last; /* last conflicting index is last - 1 */
    uint64_t lo;
    bool found = last && last - 1 + H >= i;
    *lead = 0;
    if (found)
        lo = last; /* window starts after it */
    else if (i > H) {
        lo = i - H;
        in->truncated = true;
    } else {
        lo = 0;
    }
    /* the companions right before the call move with it */
    uint64_t hi = i - 1 - (e->ncompanions < i ? e->ncompanions : i);
    if (e->ncompanions >= i || lo > hi) {
        /* no room: by where its bound is */
        const struct search_ring_ev *d = found ? search_stream_ring(s, last - 1) : NULL;
        if (d) {
            struct trace_iter moved[SEARCH_BOX_DEPTH];
            uint32_t nd = 0;
            const struct trace_iter *it = search_stream_iters(s, d, moved, &nd);
            if (!search_ov_shares_loop(it, nd, e->iters, e->depth))
                in->bw_empty = SEARCH_OV_EMPTY_OUTSIDE;
            else
                in->bw_key = search_ov_key(d->site, search_ov_iter_order(it, nd, e->iters, e->depth), true);
        }
        return 0;
    }
    in->bw_empty = SEARCH_OV_ROOM;
    if (found) { /* where the call can start: after event last - 1 */
        const struct search_ring_ev *d = search_stream_ring(s, last - 1);
        if (d) {
            struct trace_iter moved[SEARCH_BOX_DEPTH];
            uint32_t nd = 0;
            const struct trace_iter *it = search_stream_iters(s, d, moved, &nd);
            uint64_t key = search_ov_key(d->site, search_ov_iter_order(it, nd, e->iters, e->depth), true);
            c->o.dep_loops |= search_ov_loops_outside(it, nd, e->iters, e->depth);
            int rc = search_ov_count(&c->dep_n, key);
            if (rc < 0)
                return rc;
        }
    } else { /* the window reaches the horizon or the trace's start: no statement bounds it */
        int rc = search_ov_count(&c->dep_n, CHT_NONE);
        if (rc < 0)
            return rc;
    }
    uint64_t t, k, wlo = search_stream_wpos(s, lo, false);
    search_stream_range_time(s, lo, hi, wlo, search_stream_wpos(s, hi, true), &t, &k);
    in->time += t;
    in->comp += k;
    if (k)
        in->t_lo = search_stream_time_at(s, lo, wlo, false);
    if (interval_add(&c->bw, &c->nbw, &c->cbw, lo, hi) < 0)
        return TRACE_ERR_NOMEM;
    uint64_t t0 = search_stream_start_time(s, lo);
    if (t0 && e->t_enter > t0)
        *lead = e->t_enter - t0;
    return 0;
}

/* An instance of candidate e (nb: in the needs-buffer variant of its
 * site): its backward window now, its forward one opened; *out is set
 * once the instance belongs to its call site. */
static int instance(struct ov_stream *v, struct search_stream *s, const struct dg_event *e, bool nb,
                    struct inst **out)
{
    uint64_t i = e->index, lead = 0;
    struct csite *c = csite_get(v, e, nb);
    struct inst *in = calloc(1, sizeof *in);
    struct lane *l = &v->lane[nb];
    struct dg_event w = nb ? search_ov_nb_event(e) : *e;
    int rc;
    if (!c || !in) {
        free(in);
        return TRACE_ERR_NOMEM;
    }
    in->c = i;
    in->nb = nb;
    in->over = NONE64;
    in->cs = (uint32_t)(c - v->cs);
    in->comm_ns = search_call_ns(e);
    in->t_call = e->t_enter;
    search_ctx_of(e, &in->iters);
    c->o.instances++;
    c->o.comm_ns += in->comm_ns;
    in->bw_empty = search_has_backward(e) ? SEARCH_OV_EMPTY : SEARCH_OV_ROOM; /* backward() says better */
    in->bw_key = in->fw_key = SEARCH_OV_NO_KEY;
    if (search_has_backward(e) && i > 0 && (rc = backward(s, c, in, e, &lead)) < 0) {
        free(in);
        return rc;
    }
    in->fw_open = true;
    if ((rc = deque_push((void **)&c->queue, &c->qhead, &c->qn, &c->qcap, &in, sizeof in)) < 0) {
        free(in);
        return rc;
    }
    *out = in;
    in->lead = lead;
    if (!dg_map_put(&l->open, i, (uint64_t)(uintptr_t)in))
        return TRACE_ERR_NOMEM;
    if ((rc = dg_watch_add(l->watch, i, &w, false)) < 0)
        return rc;
    return deque_push((void **)&l->fifo, &l->head, &l->n, &l->cap, &i, sizeof i);
}

/* A candidate: its instance, and a blocking send's in the variant. */
static int candidate(struct ov_stream *v, struct search_stream *s, const struct dg_event *e)
{
    struct inst *in = NULL, *nb = NULL;
    int rc = instance(v, s, e, false, &in);
    if (rc < 0 || !search_ov_has_nb(e))
        return rc;
    if ((rc = instance(v, s, e, true, &nb)) < 0)
        return rc;
    in->twin = nb;
    nb->twin = in;
    return 0;
}

static int ov_event(void *state, struct search_stream *s, const struct dg_event *e)
{
    struct ov_stream *v = state;
    const uint64_t *owners;
    int rc;
    /* the windows this event depends on end before it: first the
     * variant's, so that a plain window still twinned then ends at an
     * event that only overwrites the send buffer */
    for (int k = 1; k >= 0; k--) {
        struct lane *l = &v->lane[k];
        size_t n = dg_watch_conflicts(l->watch, e, &owners);
        for (size_t j = 0; j < n; j++) {
            uint64_t *p = dg_map_get(&l->open, owners[j]);
            if (!p)
                continue;
            struct inst *in = (struct inst *)(uintptr_t)*p;
            if (k == 0 && in->twin) {
                in->twin->over = e->index;
                in->twin->over_site = e->site;
            }
            struct csite *cs = &v->cs[in->cs];
            if (e->index == in->c + 1) { /* no window: the wait stays right after the call */
                in->fw_empty = search_ov_shares_loop(e->iters, e->depth, in->iters.it, in->iters.depth)
                                   ? SEARCH_OV_EMPTY
                                   : SEARCH_OV_EMPTY_OUTSIDE;
                in->fw_key = search_ov_key(e->site, search_ov_iter_order(e->iters, e->depth, in->iters.it, in->iters.depth),
                                           false);
                if ((rc = search_ov_count(&cs->use_n, CHT_NONE)) < 0)
                    return rc;
            } else { /* where the wait goes: before e */
                uint64_t key = search_ov_key(e->site, search_ov_iter_order(e->iters, e->depth, in->iters.it, in->iters.depth),
                                             false);
                if ((rc = search_ov_count(&cs->use_n, key)) < 0)
                    return rc;
            }
            if ((rc = fw_close(s, v, in, e->index - 1, false)) < 0)
                return rc;
        }
    }
    return search_has_forward(e) ? candidate(v, s, e) : 0;
}

/* ---- runs, the ring, the end ------------------------------------------------------------------ */

/* Where the oldest open window reaches the horizon. */
static uint64_t ov_run_stop(void *state, struct search_stream *s, const struct dg_run *r, uint64_t t)
{
    struct ov_stream *v = state;
    uint64_t stop = UINT64_MAX;
    for (int k = 0; k < 2; k++)
        if (v->lane[k].n)
            stop = search_min64(stop, v->lane[k].fifo[v->lane[k].head] + search_stream_horizon(s) + 1 - r->first);
    return stop;
}

/* The first event that closes a window. */
static uint64_t ov_run_alone(void *state, struct search_stream *s, const struct dg_run *r, uint64_t t,
                             uint64_t x)
{
    struct ov_stream *v = state;
    x = dg_watch_first_conflict_run(v->lane[0].watch, r, t, x);
    return dg_watch_first_conflict_run(v->lane[1].watch, r, t, x);
}

static int ov_behind(void *state, struct search_stream *s, uint64_t f)
{
    struct ov_stream *v = state;
    for (size_t i = 0; i < v->ncs; i++) {
        int rc = flush_site(s, &v->cs[i], f);
        if (rc < 0)
            return rc;
    }
    for (size_t i = 0; i < v->ncs; i++)
        for (size_t j = 0; j < v->cs[i].nstmts; j++)
            stmt_settle(s, &v->cs[i].stmts[j], f);
    return 0;
}

/* Gaps are needed from the oldest open window and the windows waiting
 * for the open gap on. */
static uint64_t ov_keep(void *state, const struct search_stream *s)
{
    struct ov_stream *v = state;
    uint64_t keep = UINT64_MAX;
    for (int k = 0; k < 2; k++)
        if (v->lane[k].n)
            keep = search_min64(keep, v->lane[k].fifo[v->lane[k].head]);
    for (size_t k = 0; k < v->ndef; k++)
        keep = search_min64(keep, v->deferred[k]->fw_lo);
    return keep;
}

/* The open windows run to the end, not truncated. */
static int ov_end(void *state, struct search_stream *s)
{
    struct ov_stream *v = state;
    int rc = lane_advance(s, v, &v->lane[0], NONE64, search_stream_next(s) - 1);
    return rc < 0 ? rc : lane_advance(s, v, &v->lane[1], NONE64, search_stream_next(s) - 1);
}

static int cmp_overlap(const void *a, const void *b)
{
    const struct search_overlap *x = a, *y = b;
    if (x->site != y->site)
        return x->site < y->site ? -1 : 1;
    return (int)x->needs_buffer - (int)y->needs_buffer;
}
static int cmp_stmt(const void *a, const void *b)
{
    uint32_t x = ((const struct search_stmt *)a)->site, y = ((const struct search_stmt *)b)->site;
    return x < y ? -1 : x > y;
}

/* Moves call site c's results into o. */
static int site_result(const struct search_stream *s, struct csite *c, struct search_overlap *o)
{
    *o = c->o;
    memset(&c->o.iters, 0, sizeof c->o.iters); /* moved */
    c->o.windows = NULL;
    c->o.nwindows = 0;
    c->o.leads = NULL;
    c->o.nleads = 0;
    if (c->nstmts) {
        o->stmts = calloc(c->nstmts, sizeof *o->stmts);
        if (!o->stmts)
            return TRACE_ERR_NOMEM;
    }
    for (size_t j = 0; j < c->nstmts; j++) {
        struct search_stmt *st = &o->stmts[o->nstmts++];
        *st = c->stmts[j].s;
        memset(&c->stmts[j].s.iters, 0, sizeof c->stmts[j].s.iters);
        st->total = search_stream_site_events(s, st->site);
    }
    if (o->nstmts)
        qsort(o->stmts, o->nstmts, sizeof *o->stmts, cmp_stmt);
    return 0;
}

static int ov_finish(void *state, struct search_stream *s, struct search_rank_result *r)
{
    struct ov_stream *v = state;
    if (v->ncs) {
        r->overlaps = calloc(v->ncs, sizeof *r->overlaps);
        if (!r->overlaps)
            return TRACE_ERR_NOMEM;
    }
    for (size_t i = 0; i < v->ncs; i++) {
        if (v->cs[i].o.needs_buffer && !v->cs[i].extended)
            continue; /* no window grew: the variant adds nothing */
        search_ov_set_fix(&v->cs[i].o, &v->cs[i].dep_n, &v->cs[i].use_n, &v->cs[i].dep_empty_n,
                          &v->cs[i].use_empty_n);
        int rc = site_result(s, &v->cs[i], &r->overlaps[r->noverlaps++]);
        if (rc < 0)
            return rc;
    }
    if (r->noverlaps)
        qsort(r->overlaps, r->noverlaps, sizeof *r->overlaps, cmp_overlap);
    return 0;
}

static void ov_destroy(void *state)
{
    struct ov_stream *v = state;
    if (!v)
        return;
    for (int k = 0; k < 2; k++) {
        dg_watch_destroy(v->lane[k].watch);
        dg_map_free(&v->lane[k].open);
        free(v->lane[k].fifo);
    }
    for (size_t i = 0; i < v->ncs; i++) {
        struct csite *c = &v->cs[i];
        for (size_t j = 0; j < c->nstmts; j++)
            search_boxes_free(&c->stmts[j].s.iters);
        free(c->stmts);
        dg_map_free(&c->stmt_of);
        dg_map_free(&c->dep_n);
        dg_map_free(&c->use_n);
        dg_map_free(&c->dep_empty_n);
        dg_map_free(&c->use_empty_n);
        free(c->bw);
        free(c->fw);
        for (size_t j = 0; j < c->qn; j++)
            free(c->queue[(c->qhead + j) % c->qcap]);
        free(c->queue);
        search_boxes_free(&c->o.iters);
        free(c->o.windows);
        free(c->o.leads);
    }
    free(v->cs);
    dg_map_free(&v->cs_of);
    free(v->deferred);
    free(v);
}

static int ov_create(struct search_stream *s, void **state)
{
    struct ov_stream *v = calloc(1, sizeof *v);
    if (!v)
        return TRACE_ERR_NOMEM;
    for (int k = 0; k < 2; k++)
        if (dg_watch_create(&v->lane[k].watch) < 0) {
            ov_destroy(v);
            return TRACE_ERR_NOMEM;
        }
    *state = v;
    return 0;
}

const struct search_stream_methods search_overlap_stream = {
    .create = ov_create,
    .destroy = ov_destroy,
    .advance = ov_advance,
    .gap_closed = ov_gap_closed,
    .event = ov_event,
    .run_stop = ov_run_stop,
    .run_alone = ov_run_alone,
    .behind = ov_behind,
    .keep = ov_keep,
    .end = ov_end,
    .finish = ov_finish,
};
