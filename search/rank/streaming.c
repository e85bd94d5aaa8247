/* streaming.c - the streaming engine: one pass over a rank's events that
 * feeds every registered hint kind (search/rank/kind.h; overlap windows and
 * message aggregation are kinds/overlap*.c and kinds/aggregate*.c).
 * docs/dependence.md defines what they compute; search/rank/reference.c
 * computes the same literally.
 *
 * What the engine keeps for the kinds, instead of the trace:
 *   - shadow memory and the ordering-key table: the last event each byte
 *     and each key saw, which give what a new event depends on (the end of
 *     a backward window, the anchor of a send: search_stream_deps);
 *   - a ring of the last H + 2*BATCH events (site, iteration vector,
 *     gap), because what a kind learns about an event (that it is in a
 *     backward window) may come H events later;
 *   - the gaps (runs of computation between MPI calls) still referred to,
 *     which give the estimated time of any stretch of events;
 *   - the computation events per site.
 * The kinds keep their own state and watches; each BATCH events the
 * engine tells them which events are about to leave the ring.  So memory
 * depends on the touched footprint, the horizon and what the kinds keep
 * open, never on the length of the trace.
 *
 * Runs (docs/dependence.md, "Runs") are cut into stretches that no kind
 * needs to see event by event (search_stream_methods.run_stop and run_alone);
 * the engine takes each stretch at once.
 */
#include <stdlib.h>
#include <string.h>

#include "rank/kind.h"

#define BATCH 4096u   /* events between flushes of the ring */

struct search_stream {
    int rank;
    uint64_t H;
    unsigned max_boxes;
    uint64_t next;       /* index expected next */

    /* the kinds and their states */
    unsigned nk;
    const struct search_stream_methods *kind[SEARCH_KINDS_MAX];
    void *kstate[SEARCH_KINDS_MAX];
    bool runs_whole;     /* every kind can take runs in stretches */

    struct dg_shadow *shadow;
    struct dg_keytab *keys;
    uint64_t last_fence; /* index + 1, 0 = none */
    uint64_t last_block; /* index + 1 of the last call that blocks groups */
    struct search_deps deps; /* of event deps_for - 1 */
    uint64_t deps_for;

    /* ring */
    struct search_ring_ev *ring;
    uint64_t rcap, rmax;
    struct search_ctx *ctxs;
    uint64_t ccap, cmax, nctx; /* nctx: contexts made so far */
    uint64_t (*ctx_d)[SEARCH_BOX_DEPTH]; /* slopes of run contexts, beside ctxs (ccap) */
    uint64_t ctx_d_cap;

    /* gaps: a deque of ids first_gap .. first_gap+ngaps-1 */
    struct search_gap *gaps;
    uint64_t gcap, ghead, ngaps, first_gap;
    bool gap_open;         /* the newest gap is still growing */
    uint64_t cum_d;        /* sum of d of closed gaps */
    uint64_t cum_n;        /* sum of n of closed gaps */
    uint64_t cum_w;        /* weight of the computation events so far */
    uint64_t prev_exit;    /* t_exit of the last MPI event, 0 = none */
    uint64_t flushed;      /* the kinds were told about the events below this */

    uint64_t *site_total;      /* computation events per site id (dense ids) */
    size_t nsite_total;
    struct dg_map site_total_big; /* the same for ids beyond SITE_DENSE */

    /* facts */
    uint64_t comp_events, mpi_events, t_first, t_last, peak;
};

/* ---- services: options and dependences ------------------------------------------------- */

uint64_t search_stream_horizon(const struct search_stream *s)
{
    return s->H;
}

unsigned search_stream_max_boxes(const struct search_stream *s)
{
    return s->max_boxes;
}

uint64_t search_stream_next(const struct search_stream *s)
{
    return s->next;
}

const struct search_deps *search_stream_deps(struct search_stream *s, const struct dg_event *e)
{
    uint64_t i = e->index;
    if (s->deps_for == i + 1)
        return &s->deps;
    bool fence = e->kind == DG_MPI && e->role == DG_ROLE_FENCE;
    uint64_t last = fence ? i : s->last_fence;
    uint64_t anchor = search_max64(s->last_fence, s->last_block);
    for (uint32_t k = 0; k < e->nranges; k++) {
        uint64_t w = dg_shadow_last_conflict(s->shadow, &e->ranges[k]);
        last = search_max64(last, w);
        anchor = search_max64(anchor, w);
    }
    for (uint32_t k = 0; k < e->nkeys; k++) {
        uint64_t l, v;
        dg_keytab_query(s->keys, &e->keys[k], &l, &v);
        last = search_max64(last, l);
        anchor = search_max64(anchor, v ? v - 1 : 0);
    }
    /* register and control dependences: computation events (never movable
     * sends), so the anchor is the event itself */
    for (uint32_t k = 0; k < e->nvdeps; k++)
        if (e->vdeps[k] < i) {
            last = search_max64(last, e->vdeps[k] + 1);
            anchor = search_max64(anchor, e->vdeps[k] + 1);
        }
    /* what its companions read: the last writer (they never write) */
    for (uint32_t k = 0; k < e->ncranges; k++) {
        uint64_t w = dg_shadow_last_conflict(s->shadow, &e->cranges[k]);
        last = search_max64(last, w);
        anchor = search_max64(anchor, w);
    }
    s->deps = (struct search_deps){last, anchor};
    s->deps_for = i + 1;
    return &s->deps;
}

/* ---- contexts and the ring ------------------------------------------------------------- */

/* Whether e's iteration vector (innermost levels) is c; innermost first,
 * since that is the level that changes. */
static bool ctx_is(const struct search_ctx *c, const struct dg_event *e)
{
    uint32_t keep = e->depth < SEARCH_BOX_DEPTH ? e->depth : SEARCH_BOX_DEPTH;
    if (keep != c->depth)
        return false;
    const struct trace_iter *it = e->iters + (e->depth - keep);
    for (uint32_t i = keep; i-- > 0;)
        if (it[i].iter != c->it[i].iter || it[i].loop != c->it[i].loop)
            return false;
    return true;
}

/* Grows a ring that has not wrapped yet, up to max entries. */
static int ring_reserve(void **buf, uint64_t *cap, uint64_t max, uint64_t need, size_t size)
{
    if (need < *cap || *cap >= max)
        return 0;
    uint64_t nc = *cap ? *cap * 2 : 1024;
    if (nc > max)
        nc = max;
    void *p = realloc(*buf, nc * size);
    if (!p)
        return TRACE_ERR_NOMEM;
    *buf = p;
    *cap = nc;
    return 0;
}

static const struct search_ctx *ctx_get(const struct search_stream *s, uint64_t seq)
{
    return &s->ctxs[seq % s->ccap];
}

static struct search_ring_ev *ring_get(const struct search_stream *s, uint64_t index)
{
    return &s->ring[index % s->rcap];
}

const struct search_ring_ev *search_stream_ring(const struct search_stream *s, uint64_t index)
{
    return ring_get(s, index);
}

const struct trace_iter *search_stream_iters(const struct search_stream *s, const struct search_ring_ev *r,
                                             struct trace_iter *moved, uint32_t *depth)
{
    const struct search_ctx *x = ctx_get(s, r->ctx);
    *depth = x->depth;
    if (!r->rep)
        return x->it;
    /* a run's event: its context moved by rep slopes */
    const uint64_t *d = s->ctx_d[r->ctx % s->ccap];
    for (uint32_t l = 0; l < x->depth; l++) {
        moved[l] = x->it[l];
        moved[l].iter += r->rep * d[l];
    }
    return moved;
}

/* ---- gaps ---------------------------------------------------------------------------- */

static struct search_gap *gap_get(const struct search_stream *s, uint64_t id)
{
    return &s->gaps[(s->ghead + (id - s->first_gap)) % s->gcap];
}

const struct search_gap *search_stream_gap(const struct search_stream *s, uint64_t id)
{
    return gap_get(s, id);
}

bool search_stream_gap_open_meets(const struct search_stream *s, uint64_t lo, uint64_t hi)
{
    return s->gap_open && s->ngaps && gap_get(s, s->first_gap + s->ngaps - 1)->start <= hi && lo <= hi;
}

static int gap_push(struct search_stream *s, uint64_t start)
{
    if (s->ngaps == s->gcap) {
        uint64_t nc = s->gcap ? s->gcap * 2 : 64;
        struct search_gap *p = malloc(nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        for (uint64_t i = 0; i < s->ngaps; i++)
            p[i] = s->gaps[(s->ghead + i) % s->gcap];
        free(s->gaps);
        s->gaps = p;
        s->gcap = nc;
        s->ghead = 0;
    }
    struct search_gap *g = &s->gaps[(s->ghead + s->ngaps) % s->gcap];
    *g = (struct search_gap){start, 0, 0, s->cum_d, s->cum_n, s->prev_exit, s->cum_w, 0, false};
    s->ngaps++;
    s->gap_open = true;
    return 0;
}

/* Gap id of the first gap whose events reach index i or later (ngaps if
 * none). */
static uint64_t gap_find(const struct search_stream *s, uint64_t i)
{
    uint64_t lo = 0, hi = s->ngaps;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        const struct search_gap *g = gap_get(s, s->first_gap + mid);
        if (g->start + g->n <= i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return s->first_gap + lo;
}

uint64_t search_stream_wpos(const struct search_stream *s, uint64_t index, bool after)
{
    const struct search_ring_ev *r = ring_get(s, index);
    return r->wpos + (after ? r->w : 0);
}

/* The weight of a gap's events between the positions wlo and whi. */
static uint64_t gap_weight_in(const struct search_gap *g, uint64_t wlo, uint64_t whi)
{
    uint64_t a = search_max64(g->w0, wlo), b = search_min64(g->w0 + g->w, whi);
    return b > a ? b - a : 0;
}

void search_stream_range_time(const struct search_stream *s, uint64_t lo, uint64_t hi, uint64_t wlo,
                              uint64_t whi, uint64_t *time, uint64_t *comp)
{
    *time = *comp = 0;
    if (lo > hi)
        return;
    uint64_t end = s->first_gap + s->ngaps;
    for (uint64_t id = gap_find(s, lo); id < end; id++) {
        const struct search_gap *g = gap_get(s, id);
        if (g->start > hi)
            break;
        uint64_t a = search_max64(g->start, lo), b = search_min64(g->start + g->n - 1, hi);
        uint64_t k = b - a + 1;
        if (k == g->n && id + 1 < end) {
            /* whole gaps from here: jump with the cumulative sums */
            uint64_t last = id;
            uint64_t l = id + 1, r = end;
            while (l < r) { /* last gap that ends at or before hi */
                uint64_t mid = (l + r) / 2;
                const struct search_gap *m = gap_get(s, mid);
                if (m->start + m->n - 1 <= hi)
                    l = mid + 1, last = mid;
                else
                    r = mid;
            }
            const struct search_gap *gl = gap_get(s, last);
            *time += gl->cum + gl->d - g->cum;
            *comp += gl->cumn + gl->n - g->cumn;
            id = last;
            continue;
        }
        *comp += k;
        *time += search_share(g->d, gap_weight_in(g, wlo, whi), g->w);
    }
}

uint64_t search_stream_time_at(const struct search_stream *s, uint64_t index, uint64_t w, bool end)
{
    uint64_t id = gap_find(s, index), last = s->first_gap + s->ngaps;
    if (id < last) {
        const struct search_gap *g = gap_get(s, id);
        if (g->start <= index && g->closed && g->t0)
            return g->t0 + search_share(g->d, w - g->w0, g->w);
        if (!end)
            return g->t0;
    }
    if (end && id > s->first_gap) {
        const struct search_gap *p = gap_get(s, id - 1);
        return p->t0 ? p->t0 + p->d : 0;
    }
    return 0;
}

/* reference.c's search_ref_start_time is the same rule. */
uint64_t search_stream_start_time(const struct search_stream *s, uint64_t index)
{
    const struct search_ring_ev *r = ring_get(s, index);
    if (r->kind != DG_COMP)
        return r->gap;
    if (r->gap < s->first_gap || r->gap >= s->first_gap + s->ngaps)
        return 0;
    const struct search_gap *g = gap_get(s, r->gap);
    if (!g->t0)
        return 0;
    return g->t0 + search_share(g->d, r->wpos - g->w0, g->w);
}

/* Closes the open gap with the MPI event that ends it (t_enter 0 at the
 * end), and tells the kinds. */
static int gap_close(struct search_stream *s, uint64_t t_enter)
{
    if (!s->gap_open)
        return 0;
    struct search_gap *g = gap_get(s, s->first_gap + s->ngaps - 1);
    g->d = s->prev_exit && t_enter > s->prev_exit ? t_enter - s->prev_exit : 0;
    g->closed = true;
    s->cum_d += g->d;
    s->cum_n += g->n;
    s->gap_open = false;
    for (unsigned k = 0; k < s->nk; k++) {
        int rc = s->kind[k]->gap_closed ? s->kind[k]->gap_closed(s->kstate[k], s) : 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- per-site totals ---------------------------------------------------------------- */

#define SITE_DENSE (1u << 22)

static int site_count_n(struct search_stream *s, uint32_t site, uint64_t n)
{
    if (site < s->nsite_total) {
        s->site_total[site] += n;
        return 0;
    }
    if (site < SITE_DENSE) {
        size_t nc = s->nsite_total ? s->nsite_total : 256;
        while (nc <= site)
            nc *= 2;
        uint64_t *p = realloc(s->site_total, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        memset(p + s->nsite_total, 0, (nc - s->nsite_total) * sizeof *p);
        s->site_total = p;
        s->nsite_total = nc;
        s->site_total[site] += n;
        return 0;
    }
    uint64_t *t = dg_map_put(&s->site_total_big, site, 0);
    if (!t)
        return TRACE_ERR_NOMEM;
    *t += n;
    return 0;
}

uint64_t search_stream_site_events(const struct search_stream *s, uint32_t site)
{
    if (site < s->nsite_total)
        return s->site_total[site];
    const uint64_t *t = dg_map_get(&s->site_total_big, site);
    return t ? *t : 0;
}

/* ---- the pass ----------------------------------------------------------------------------- */

/* Tells the kinds that the events below f leave the ring, then drops the
 * gaps nothing refers to any more: before f, before what a kind keeps and
 * before the horizon. */
static int stream_flush(struct search_stream *s, uint64_t f)
{
    if (f <= s->flushed)
        return 0;
    uint64_t keep = f;
    for (unsigned k = 0; k < s->nk; k++) {
        int rc = s->kind[k]->behind ? s->kind[k]->behind(s->kstate[k], s, f) : 0;
        if (rc < 0)
            return rc;
    }
    s->flushed = f;
    for (unsigned k = 0; k < s->nk; k++)
        if (s->kind[k]->keep)
            keep = search_min64(keep, s->kind[k]->keep(s->kstate[k], s));
    uint64_t now = s->next;
    if (now > s->H + 1)
        keep = search_min64(keep, now - s->H - 1);
    else
        keep = 0;
    while (s->ngaps > 1) {
        const struct search_gap *g = gap_get(s, s->first_gap);
        if (g->start + g->n >= keep || !g->closed)
            break;
        s->ghead = (s->ghead + 1) % s->gcap;
        s->first_gap++;
        s->ngaps--;
    }
    size_t bytes = dg_shadow_footprint(s->shadow) + s->rcap * sizeof *s->ring +
                   s->ccap * sizeof *s->ctxs + s->gcap * sizeof *s->gaps;
    s->peak = search_max64(s->peak, bytes);
    return 0;
}

static int kinds_advance(struct search_stream *s, uint64_t i)
{
    for (unsigned k = 0; k < s->nk; k++) {
        int rc = s->kind[k]->advance ? s->kind[k]->advance(s->kstate[k], s, i) : 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Records the event's accesses and keys, once every kind has seen it: a
 * key keeps the index + 1 of its last event, or for a movable send its
 * anchor, so that a later send depending on it moves with it. */
static int remember(struct search_stream *s, const struct dg_event *e)
{
    uint64_t i = e->index;
    bool mov = dg_is_movable_send(e);
    uint64_t anchor = mov ? search_stream_deps(s, e)->anchor : 0;
    int rc;
    for (uint32_t k = 0; k < e->nranges; k++)
        if ((rc = dg_shadow_update(s->shadow, &e->ranges[k], i)) < 0)
            return rc;
    for (uint32_t k = 0; k < e->nkeys; k++)
        if ((rc = dg_keytab_update(s->keys, &e->keys[k], i, mov ? anchor : i + 1)) < 0)
            return rc;
    if (e->kind == DG_MPI && e->role == DG_ROLE_COMPLETE)
        for (uint32_t k = 0; k < e->nkeys; k++)
            if (e->keys[k].cls == DG_KEY_REQ)
                dg_keytab_forget(s->keys, &e->keys[k]);
    if (e->kind == DG_MPI && e->role == DG_ROLE_FENCE)
        s->last_fence = i + 1;
    if (search_blocks_groups(e))
        s->last_block = i + 1;
    return 0;
}

/* Puts the event into the ring (and a computation event into the open
 * gap). */
static int ring_push(struct search_stream *s, const struct dg_event *e)
{
    uint64_t i = e->index;
    int rc;
    if (!s->nctx || !ctx_is(ctx_get(s, s->nctx - 1), e)) {
        if ((rc = ring_reserve((void **)&s->ctxs, &s->ccap, s->cmax, s->nctx, sizeof *s->ctxs)) < 0)
            return rc;
        search_ctx_of(e, &s->ctxs[s->nctx % s->ccap]);
        s->nctx++;
    }
    if ((rc = ring_reserve((void **)&s->ring, &s->rcap, s->rmax, i, sizeof *s->ring)) < 0)
        return rc;
    struct search_ring_ev *r = ring_get(s, i);
    r->site = e->site;
    r->site_flags = e->site_flags;
    r->kind = e->kind;
    r->ctx = s->nctx - 1;
    r->rep = 0;
    r->wpos = s->cum_w;
    if (e->kind == DG_COMP) {
        if (!s->gap_open && (rc = gap_push(s, i)) < 0)
            return rc;
        struct search_gap *g = gap_get(s, s->first_gap + s->ngaps - 1);
        g->n++;
        r->w = (uint32_t)search_weight(e);
        g->w += r->w;
        s->cum_w += r->w;
        r->gap = s->first_gap + s->ngaps - 1;
        return site_count_n(s, e->site, 1);
    }
    r->w = 0;
    r->gap = e->t_enter;
    s->prev_exit = e->t_exit;
    return 0;
}

static int stream_feed(void *state, const struct dg_event *e)
{
    struct search_stream *s = state;
    uint64_t i = e->index;
    int rc;
    if (i != s->next)
        return TRACE_ERR_ARG;
    s->next = i + 1;

    /* what ends before this event (e.g. windows at the horizon) */
    if ((rc = kinds_advance(s, i)) < 0)
        return rc;
    /* an MPI event ends the gap before it */
    if (e->kind == DG_MPI) {
        s->mpi_events++;
        if ((rc = gap_close(s, e->t_enter)) < 0)
            return rc;
        if (e->t_enter && (!s->t_first || e->t_enter < s->t_first))
            s->t_first = e->t_enter;
        s->t_last = search_max64(s->t_last, e->t_exit);
    } else {
        s->comp_events++;
    }
    for (unsigned k = 0; k < s->nk; k++)
        if ((rc = s->kind[k]->event(s->kstate[k], s, e)) < 0)
            return rc;
    if ((rc = remember(s, e)) < 0 || (rc = ring_push(s, e)) < 0)
        return rc;
    /* what fell behind the horizon */
    if (s->next % BATCH == 0 && s->next > s->H)
        return stream_flush(s, s->next - s->H);
    return 0;
}

/* ---- runs ----------------------------------------------------------------------------------- */

/* The context (innermost levels of the iteration vector) of event t of a run. */
static void run_ctx(const struct dg_run *r, uint64_t t, struct search_ctx *c)
{
    const struct dg_run_phase *ph = &r->ph[t % r->period];
    uint64_t j = t / r->period;
    uint32_t d = ph->ev.depth, keep = d < SEARCH_BOX_DEPTH ? d : SEARCH_BOX_DEPTH;
    c->depth = keep;
    for (uint32_t l = 0; l < keep; l++) {
        c->it[l] = ph->ev.iters[d - keep + l];
        c->it[l].iter += j * ph->diter[d - keep + l];
    }
}

/* Whether phase p's context equals that of the event before it in every
 * repetition (p > 0: phase p - 1 of the same repetition; p = 0: the last
 * phase of the repetition before). */
static bool run_ctx_as_before(const struct dg_run *r, uint32_t p)
{
    const struct dg_run_phase *a = &r->ph[p], *b = &r->ph[p ? p - 1 : r->period - 1];
    uint32_t da = a->ev.depth, db = b->ev.depth;
    uint32_t ka = da < SEARCH_BOX_DEPTH ? da : SEARCH_BOX_DEPTH;
    uint32_t kb = db < SEARCH_BOX_DEPTH ? db : SEARCH_BOX_DEPTH;
    if (ka != kb)
        return false;
    for (uint32_t l = 0; l < ka; l++) {
        const struct trace_iter *x = &a->ev.iters[da - ka + l], *y = &b->ev.iters[db - kb + l];
        uint64_t dx = a->diter[da - ka + l], dy = b->diter[db - kb + l];
        /* p > 0: x + j dx = y + j dy for all j; p = 0: x + j dx = y + (j-1) dy for j >= 1 */
        if (x->loop != y->loop || dx != dy || x->iter != (p ? y->iter : y->iter - dy))
            return false;
    }
    return true;
}

/* Room for the next run context and its slopes. */
static int ctx_room(struct search_stream *s)
{
    int rc = ring_reserve((void **)&s->ctxs, &s->ccap, s->cmax, s->nctx, sizeof *s->ctxs);
    if (rc < 0)
        return rc;
    if (s->ctx_d_cap != s->ccap) {
        void *q = realloc(s->ctx_d, s->ccap * sizeof *s->ctx_d);
        if (!q)
            return TRACE_ERR_NOMEM;
        s->ctx_d = q;
        s->ctx_d_cap = s->ccap;
    }
    return 0;
}

/* One context per phase of run events [t0, t1), from repetition t0 / P on,
 * with its slope: event t of phase p has context seq[p] moved by (t / P -
 * t0 / P) slopes. */
static int run_contexts(struct search_stream *s, const struct dg_run *r, uint64_t t0, uint64_t t1,
                        const bool *as_before, uint64_t *seq)
{
    const uint32_t P = r->period;
    uint64_t j0 = t0 / P;
    bool made[DG_RUN_PERIOD_MAX];
    int rc;
    for (uint32_t p = 0; p < P; p++) {
        /* only for phases with events here: at most one context per event */
        made[p] = (t1 + P - 1 - p) / P > (t0 + P - 1 - p) / P;
        if (!made[p])
            continue;
        if (p && made[p - 1] && as_before[p]) {
            seq[p] = seq[p - 1]; /* the same context in every repetition */
            continue;
        }
        if ((rc = ctx_room(s)) < 0)
            return rc;
        struct search_ctx *c = &s->ctxs[s->nctx % s->ccap];
        const struct dg_run_phase *ph = &r->ph[p];
        run_ctx(r, j0 * P + p, c);
        for (uint32_t l = 0; l < c->depth; l++)
            s->ctx_d[s->nctx % s->ccap][l] = ph->diter[ph->ev.depth - c->depth + l];
        seq[p] = s->nctx++;
    }
    return 0;
}

/* What every stretch of a run starts with: its events counted, their
 * accesses into the shadow, the open gap (its id into *gid, after its
 * events are added) and room in the ring. */
static int bulk_begin(struct search_stream *s, const struct dg_run *r, uint64_t t0, uint64_t t1, uint64_t *gid)
{
    uint64_t n = t1 - t0, last = r->first + t1 - 1;
    int rc;
    s->comp_events += n;
    if ((rc = dg_shadow_update_run(s->shadow, r, t0, t1, false)) < 0)
        return rc;
    if (!s->gap_open && (rc = gap_push(s, r->first + t0)) < 0)
        return rc;
    *gid = s->first_gap + s->ngaps - 1;
    gap_get(s, *gid)->n += n;
    while (s->rcap <= last && s->rcap < s->rmax)
        if ((rc = ring_reserve((void **)&s->ring, &s->rcap, s->rmax, last, sizeof *s->ring)) < 0)
            return rc;
    return 0;
}

/* Events t0 .. t1-1 of a run, none of which a kind needs to see alone,
 * and none at which a kind must act or a batch ends: what stream_feed
 * does for each of them, at once. */
static int run_bulk(struct search_stream *s, const struct dg_run *r, uint64_t t0, uint64_t t1,
                    const bool *as_before)
{
    const uint32_t P = r->period;
    uint64_t last = r->first + t1 - 1, gid;
    int rc;
    if ((rc = bulk_begin(s, r, t0, t1, &gid)) < 0)
        return rc;
    for (uint32_t p = 0; p < P; p++) {
        /* events of phase p in [t0, t1) */
        uint64_t k = (t1 + P - 1 - p) / P - (t0 + P - 1 - p) / P;
        if (k && (rc = site_count_n(s, r->ph[p].ev.site, k)) < 0)
            return rc;
    }
    uint64_t seq[DG_RUN_PERIOD_MAX];
    if ((rc = run_contexts(s, r, t0, t1, as_before, seq)) < 0)
        return rc;
    uint32_t p = (uint32_t)(t0 % P);
    uint64_t rep = 0, w0 = s->cum_w;
    for (uint64_t t = t0; t < t1; t++) {
        const struct dg_event *e = &r->ph[p].ev;
        struct search_ring_ev *x = ring_get(s, r->first + t);
        x->site = e->site;
        x->site_flags = e->site_flags;
        x->kind = DG_COMP;
        x->ctx = seq[p];
        x->rep = (uint32_t)rep;
        x->gap = gid;
        x->w = (uint32_t)search_weight(e);
        x->wpos = s->cum_w;
        s->cum_w += x->w;
        if (++p == P)
            p = 0, rep++;
    }
    gap_get(s, gid)->w += s->cum_w - w0;
    s->next = last + 1;
    return 0;
}

/* A new context: event x's of a run of rows (iteration 0 of its row, for
 * an inner phase), with the slope of its phase (per iteration, or per row
 * for a between phase); its sequence number. */
static int rows_ctx(struct search_stream *s, const struct dg_run *r, const struct dg_rows_pos *x, uint64_t *seq)
{
    int rc;
    if ((rc = ctx_room(s)) < 0)
        return rc;
    const struct dg_run_phase *ph = &r->ph[x->p];
    struct search_ctx *c = &s->ctxs[s->nctx % s->ccap];
    uint32_t d = ph->ev.depth, keep = d < SEARCH_BOX_DEPTH ? d : SEARCH_BOX_DEPTH;
    bool inner = x->p >= r->rows->nb;
    c->depth = keep;
    for (uint32_t l = 0; l < keep; l++) {
        uint32_t at = d - keep + l;
        c->it[l] = ph->ev.iters[at];
        c->it[l].iter += x->i * (inner ? ph->row_diter[at] : ph->diter[at]);
        s->ctx_d[s->nctx % s->ccap][l] = ph->diter[at];
    }
    *seq = s->nctx++;
    return 0;
}

/* run_bulk of events t0 .. t1-1 of a run of rows: a context per between
 * phase (moving by rows) and per inner phase and row (moving by
 * iterations), each made at its phase's first event here (at most one per
 * event, as the ring of contexts needs). */
static int rows_bulk(struct search_stream *s, const struct dg_run *r, uint64_t t0, uint64_t t1)
{
    const struct trace_rows *w = r->rows;
    const uint32_t nb = w->nb, P = r->period;
    uint64_t last = r->first + t1 - 1, gid, w0 = s->cum_w;
    uint64_t count[DG_RUN_PERIOD_MAX] = {0}, seq[DG_RUN_PERIOD_MAX], from[DG_RUN_PERIOD_MAX];
    struct search_ring_ev tpl[DG_RUN_PERIOD_MAX]; /* each phase's entry but for ctx, rep and wpos */
    bool made[DG_RUN_PERIOD_MAX] = {false};
    int rc;
    if ((rc = bulk_begin(s, r, t0, t1, &gid)) < 0)
        return rc;
    for (uint32_t p = 0; p < P; p++) {
        const struct dg_event *e = &r->ph[p].ev;
        tpl[p] = (struct search_ring_ev){.site = e->site, .site_flags = e->site_flags, .kind = DG_COMP,
                                         .gap = gid, .w = (uint32_t)search_weight(e)};
    }
    struct dg_rows_pos x = dg_rows_at(r, t0);
    uint64_t t = t0;
#define ROWS_PUT(q, repv)                                                                  \
    do {                                                                                   \
        struct search_ring_ev *e = ring_get(s, r->first + t);                              \
        *e = tpl[q];                                                                       \
        e->ctx = seq[q];                                                                   \
        e->rep = (uint32_t)(repv);                                                         \
        e->wpos = s->cum_w;                                                                \
        s->cum_w += e->w;                                                                  \
        count[q]++;                                                                        \
    } while (0)
    while (t < t1) {
        const uint64_t i = x.i;
        if (x.p >= nb) { /* row i's inner part, from iteration x.m, phase x.p: new contexts */
            const uint64_t trips = w->trips[i];
            uint64_t m = x.m;
            uint32_t q = x.p;
            for (uint32_t k = nb; k < P; k++)
                made[k] = false;
            for (;;) {
                if (!made[q]) {
                    struct dg_rows_pos at = {i, 0, q};
                    if ((rc = rows_ctx(s, r, &at, &seq[q])) < 0)
                        return rc;
                    made[q] = true;
                }
                ROWS_PUT(q, m);
                t++;
                if (dg_rows_inner_next(&q, &m, nb, P, trips) || t == t1)
                    break;
            }
            if (t == t1)
                break;
            if (!nb || (i + 1 == w->nrows && !w->between_last)) {
                x.i++, x.p = nb, x.m = 0;
                continue;
            }
            x.p = 0;
        }
        for (uint32_t q = x.p; q < nb && t < t1; q++, t++) { /* row i's between part */
            if (!made[q]) {
                struct dg_rows_pos at = {i, 0, q};
                if ((rc = rows_ctx(s, r, &at, &seq[q])) < 0)
                    return rc;
                from[q] = i;
                made[q] = true;
            }
            ROWS_PUT(q, i - from[q]);
        }
        x.i++, x.p = nb, x.m = 0;
    }
#undef ROWS_PUT
    for (uint32_t p = 0; p < P; p++)
        if (count[p] && (rc = site_count_n(s, r->ph[p].ev.site, count[p])) < 0)
            return rc;
    gap_get(s, gid)->w += s->cum_w - w0;
    s->next = last + 1;
    return 0;
}

/* Feeds a run event by event. */
static int run_events(struct search_stream *s, const struct dg_run *r)
{
    struct dg_event ev;
    struct dg_range ranges[DG_RUN_MAX_ADDRS];
    static _Thread_local struct trace_iter iters[TRACE_MAX_LOOP_DEPTH];
    for (uint64_t t = 0, n = dg_run_events(r); t < n; t++) {
        dg_run_event(r, t, &ev, ranges, iters);
        int rc = stream_feed(s, &ev);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int stream_feed_run(void *state, const struct dg_run *r)
{
    struct search_stream *s = state;
    const uint64_t n = dg_run_events(r);
    bool as_before[DG_RUN_PERIOD_MAX];
    struct dg_event ev;
    struct dg_range ranges[DG_RUN_MAX_ADDRS];
    static _Thread_local struct trace_iter iters[TRACE_MAX_LOOP_DEPTH];
    int rc;
    if (r->first != s->next)
        return TRACE_ERR_ARG;
    if (!s->runs_whole)
        return run_events(s, r);
    for (uint32_t p = 0; p < r->period && !r->rows; p++)
        as_before[p] = run_ctx_as_before(r, p);
    for (uint64_t t = 0; t < n;) {
        uint64_t i = r->first + t;
        if ((rc = kinds_advance(s, i)) < 0)
            return rc;
        /* the stretch ends at the end of the run, of the batch, or where a
         * kind must act */
        uint64_t end = search_min64(n, (i / BATCH + 1) * BATCH - r->first);
        for (unsigned k = 0; k < s->nk; k++)
            if (s->kind[k]->run_stop)
                end = search_min64(end, s->kind[k]->run_stop(s->kstate[k], s, r, t));
        /* or before the first event a kind must see alone */
        uint64_t x = end;
        for (unsigned k = 0; k < s->nk; k++)
            x = s->kind[k]->run_alone(s->kstate[k], s, r, t, x);
        if (x > t) {
            if ((rc = r->rows ? rows_bulk(s, r, t, x) : run_bulk(s, r, t, x, as_before)) < 0)
                return rc;
            if (s->next % BATCH == 0 && s->next > s->H && (rc = stream_flush(s, s->next - s->H)) < 0)
                return rc;
            t = x;
        }
        if (x < end) {
            dg_run_event(r, x, &ev, ranges, iters);
            if ((rc = stream_feed(s, &ev)) < 0)
                return rc;
            t = x + 1;
        }
    }
    return 0;
}

/* ---- results ------------------------------------------------------------------------------- */

static void stream_destroy(void *state)
{
    struct search_stream *s = state;
    if (!s)
        return;
    for (unsigned k = 0; k < s->nk; k++)
        if (s->kind[k]->destroy)
            s->kind[k]->destroy(s->kstate[k]);
    dg_shadow_destroy(s->shadow);
    dg_keytab_destroy(s->keys);
    free(s->ring);
    free(s->ctxs);
    free(s->ctx_d);
    free(s->gaps);
    free(s->site_total);
    dg_map_free(&s->site_total_big);
    free(s);
}

static int stream_finish(void *state, struct search_rank_result **out)
{
    struct search_stream *s = state;
    struct search_rank_result *r = NULL;
    int rc;
    *out = NULL;
    /* close the last gap (nothing after it: 0 ns), then what the kinds
     * keep open, and tell them about the events still in the ring */
    if ((rc = gap_close(s, 0)) < 0)
        goto out;
    for (unsigned k = 0; k < s->nk; k++)
        if (s->kind[k]->end && (rc = s->kind[k]->end(s->kstate[k], s)) < 0)
            goto out;
    if ((rc = stream_flush(s, s->next)) < 0)
        goto out;

    rc = TRACE_ERR_NOMEM;
    r = calloc(1, sizeof *r);
    if (!r)
        goto out;
    r->rank = s->rank;
    r->events = s->next;
    r->comp_events = s->comp_events;
    r->mpi_events = s->mpi_events;
    r->t_first = s->t_first;
    r->t_last = s->t_last;
    r->peak_bytes = s->peak;
    for (unsigned k = 0; k < s->nk; k++)
        if ((rc = s->kind[k]->finish(s->kstate[k], s, r)) < 0)
            goto out;
    *out = r;
    r = NULL;
    rc = 0;
out:
    search_rank_result_free(r);
    stream_destroy(s);
    return rc;
}

static const struct search_engine_ops stream_ops = {stream_feed, stream_feed_run, stream_finish,
                                                    stream_destroy};

int search_stream_create(const struct search_opts *o, int rank, void **state,
                         const struct search_engine_ops **ops)
{
    struct search_stream *s = calloc(1, sizeof *s);
    if (!s)
        return TRACE_ERR_NOMEM;
    s->rank = rank;
    s->H = search_horizon(o);
    s->max_boxes = search_max_boxes(o);
    s->rmax = s->H + 2 * BATCH + 2;
    s->cmax = s->rmax;
    s->runs_whole = true;
    if (dg_shadow_create(&s->shadow) < 0 || dg_keytab_create(&s->keys) < 0) {
        stream_destroy(s);
        return TRACE_ERR_NOMEM;
    }
    for (unsigned k = 0; k < search_kinds_count(); k++) {
        s->kind[k] = search_kinds_get(k)->stream;
        int rc = s->kind[k]->create(s, &s->kstate[k]);
        if (rc < 0) {
            stream_destroy(s);
            return rc;
        }
        s->nk++;
        s->runs_whole &= s->kind[k]->run_alone != NULL;
    }
    *state = s;
    *ops = &stream_ops;
    return 0;
}
