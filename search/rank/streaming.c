/* streaming.c - the streaming engine: overlap windows and message aggregation
 * in one pass over a rank's events (docs/dependence.md defines what it
 * computes; search/rank/reference.c computes the same literally).
 *
 * What it keeps, instead of the trace:
 *   - shadow memory and the ordering-key table: the last event each byte
 *     and each key saw, which gives the end of a backward window and the
 *     anchor of a send at once;
 *   - a watch set of the open forward windows (and of the open aggregation
 *     groups), which says which of them a new event closes;
 *   - a ring of the last H + 2*BATCH events (site, iteration vector,
 *     gap), because a backward window is only known once its call arrives;
 *     each call site's covered intervals are attributed to statements
 *     when they fall behind the horizon, in event order;
 *   - the gaps (runs of computation between MPI calls) still referred to.
 * So memory depends on the touched footprint, the horizon and the open
 * windows, never on the length of the trace.
 */
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

#define BATCH 4096u   /* events between flushes of covered intervals */
#define NONE64 UINT64_MAX

/* ---- small vectors ------------------------------------------------------------ */

#define VEC_PUSH(v, n, cap, item, fail)                                                 \
    do {                                                                                \
        if ((n) == (cap)) {                                                             \
            size_t nc_ = (cap) ? (cap) * 2 : 8;                                         \
            void *p_ = realloc((v), nc_ * sizeof *(v));                                 \
            if (!p_)                                                                    \
                goto fail;                                                              \
            (v) = p_;                                                                   \
            (cap) = nc_;                                                                \
        }                                                                               \
        (v)[(n)++] = (item);                                                            \
    } while (0)

/* ---- iteration contexts and the event ring ---------------------------------------- */

struct ctx {
    uint32_t depth; /* levels kept (innermost SEARCH_BOX_DEPTH) */
    struct trace_iter it[SEARCH_BOX_DEPTH];
};

struct ring_ev {
    uint32_t site;
    uint32_t site_flags;
    uint64_t ctx;   /* context sequence number */
    uint64_t gap;   /* computation events: gap id; MPI events: t_enter (ns) */
    uint8_t kind;
    uint32_t rep;   /* run events: the context plus rep times its slope (ctx_d) */
};

struct gap {
    uint64_t start, n; /* event indices start .. start+n-1 */
    uint64_t d;        /* ns */
    uint64_t cum;      /* sum of d of the gaps before it */
    uint64_t cumn;     /* sum of n of the gaps before it */
    uint64_t t0;       /* ns: t_exit of the MPI call before it (0 = unknown) */
    bool closed;
};

/* ---- results being built ------------------------------------------------------------ */

struct stmt_acc {
    struct search_stmt s;
    uint64_t pend_gap, pend_k; /* events attributed in a gap whose time is not added yet */
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
};

struct inst {
    uint64_t c;            /* index */
    uint32_t cs;           /* call site slot */
    uint64_t comm_ns;
    uint64_t time, comp;   /* window computation time and events so far */
    uint64_t fw_lo, fw_hi; /* forward window [lo, hi] once closed (lo > hi: empty) */
    uint64_t t_call, t_lo, t_hi; /* for display: when the call and its windows were */
    bool fw_open, fw_pending, truncated, done;
    struct ctx iters;
};

struct chan {
    uint64_t comm;
    int32_t peer;
    bool active;         /* a group exists */
    bool closed;         /* an event depended on a member */
    uint64_t closed_x;   /* index of that event */
    uint64_t owner;      /* watch owner of the members */
    uint32_t *sites;
    uint32_t nsites, csites;
    uint64_t members, bytes, send_ns;
    uint64_t anchor;     /* anchor (ea + 1) of the last member */
    /* for the deadlock check: the first members and the blocking calls
     * after the first member (filtered to those before the send point when
     * the group ends) */
    uint64_t cmembers[SEARCH_CHECK_MAX], cross[SEARCH_CHECK_MAX];
    uint32_t ncm, ncross;
};

struct stream {
    int rank;
    uint64_t H;
    unsigned max_boxes;
    uint64_t next;       /* index expected next */

    struct dg_shadow *shadow;
    struct dg_keytab *keys;
    struct dg_watch *fw_watch, *agg_watch;
    uint64_t last_fence; /* index + 1, 0 = none */
    uint64_t last_block; /* index + 1 of the last call that blocks groups */

    /* ring */
    struct ring_ev *ring;
    uint64_t rcap, rmax;
    struct ctx *ctxs;
    uint64_t ccap, cmax, nctx; /* nctx: contexts made so far */
    uint64_t (*ctx_d)[SEARCH_BOX_DEPTH]; /* slopes of run contexts, beside ctxs (ccap) */
    uint64_t ctx_d_cap;

    /* gaps: a deque of ids first_gap .. first_gap+ngaps-1 */
    struct gap *gaps;
    uint64_t gcap, ghead, ngaps, first_gap;
    bool gap_open;         /* the newest gap is still growing */
    uint64_t cum_d;        /* sum of d of closed gaps */
    uint64_t cum_n;        /* sum of n of closed gaps */
    uint64_t prev_exit;    /* t_exit of the last MPI event, 0 = none */

    /* overlap */
    struct csite *cs;
    size_t ncs, ccs;
    struct dg_map cs_of;       /* site -> slot */
    struct dg_map open_fw;     /* instance index -> struct inst * */
    uint64_t *fw_fifo;         /* indices of instances with a forward window, in order */
    size_t fw_head, fw_n, fw_cap;
    struct inst **deferred;    /* windows whose time waits for the open gap */
    size_t ndef, cdef;
    uint64_t flushed;          /* events below this are attributed */
    uint64_t *site_total;      /* computation events per site id (dense ids) */
    size_t nsite_total;
    struct dg_map site_total_big; /* the same for ids beyond SITE_DENSE */

    /* aggregation */
    struct chan *ch;
    size_t nch, cch;
    struct dg_map chan_of;     /* hash(comm, peer) -> slot + 1 chain head */
    uint32_t *chan_next;       /* collision chains */
    struct dg_map chan_owner;  /* watch owner -> slot */
    uint64_t next_owner;
    struct search_group *groups;
    size_t ngroups, cgroups;
    struct search_group_check *checks;
    size_t nchecks, cchecks;
    struct search_msgcost cost;

    /* facts */
    uint64_t comp_events, mpi_events, t_first, t_last, peak;
};

static inline uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}
static inline uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* ---- contexts ----------------------------------------------------------------------- */

static void ctx_of(const struct dg_event *e, struct ctx *c)
{
    uint32_t keep = e->depth < SEARCH_BOX_DEPTH ? e->depth : SEARCH_BOX_DEPTH;
    c->depth = keep;
    if (keep)
        memcpy(c->it, e->iters + (e->depth - keep), keep * sizeof c->it[0]);
}

/* Whether e's iteration vector (innermost levels) is c; innermost first,
 * since that is the level that changes. */
static bool ctx_is(const struct ctx *c, const struct dg_event *e)
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

static const struct ctx *ctx_get(const struct stream *s, uint64_t seq)
{
    return &s->ctxs[seq % s->ccap];
}

static struct ring_ev *ring_get(const struct stream *s, uint64_t index)
{
    return &s->ring[index % s->rcap];
}

/* ---- gaps ---------------------------------------------------------------------------- */

static struct gap *gap_get(const struct stream *s, uint64_t id)
{
    return &s->gaps[(s->ghead + (id - s->first_gap)) % s->gcap];
}

static int gap_push(struct stream *s, uint64_t start)
{
    if (s->ngaps == s->gcap) {
        uint64_t nc = s->gcap ? s->gcap * 2 : 64;
        struct gap *p = malloc(nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        for (uint64_t i = 0; i < s->ngaps; i++)
            p[i] = s->gaps[(s->ghead + i) % s->gcap];
        free(s->gaps);
        s->gaps = p;
        s->gcap = nc;
        s->ghead = 0;
    }
    struct gap *g = &s->gaps[(s->ghead + s->ngaps) % s->gcap];
    *g = (struct gap){start, 0, 0, s->cum_d, s->cum_n, s->prev_exit, false};
    s->ngaps++;
    s->gap_open = true;
    return 0;
}

/* Gap id of the first gap whose events reach index i or later (ngaps if
 * none). */
static uint64_t gap_find(const struct stream *s, uint64_t i)
{
    uint64_t lo = 0, hi = s->ngaps;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        const struct gap *g = gap_get(s, s->first_gap + mid);
        if (g->start + g->n <= i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return s->first_gap + lo;
}

static uint64_t share(uint64_t d, uint64_t k, uint64_t n)
{
    return n ? (uint64_t)((unsigned __int128)d * k / n) : 0;
}

/* Time and number of computation events in [lo, hi]; every gap it meets
 * must be closed. */
static void range_time(const struct stream *s, uint64_t lo, uint64_t hi, uint64_t *time,
                       uint64_t *comp)
{
    *time = *comp = 0;
    if (lo > hi)
        return;
    uint64_t end = s->first_gap + s->ngaps;
    for (uint64_t id = gap_find(s, lo); id < end; id++) {
        const struct gap *g = gap_get(s, id);
        if (g->start > hi)
            break;
        uint64_t a = max64(g->start, lo), b = min64(g->start + g->n - 1, hi);
        uint64_t k = b - a + 1;
        if (k == g->n && id + 1 < end) {
            /* whole gaps from here: jump with the cumulative sums */
            uint64_t last = id;
            uint64_t l = id + 1, r = end;
            while (l < r) { /* last gap that ends at or before hi */
                uint64_t mid = (l + r) / 2;
                const struct gap *m = gap_get(s, mid);
                if (m->start + m->n - 1 <= hi)
                    l = mid + 1, last = mid;
                else
                    r = mid;
            }
            const struct gap *gl = gap_get(s, last);
            *time += gl->cum + gl->d - g->cum;
            *comp += gl->cumn + gl->n - g->cumn;
            id = last;
            continue;
        }
        *comp += k;
        *time += share(g->d, k, g->n);
    }
}

/* Estimated time at which event `index` started (end false) or ended (end
 * true), from the gaps; for display only. */
static uint64_t time_at(const struct stream *s, uint64_t index, bool end)
{
    uint64_t id = gap_find(s, index), last = s->first_gap + s->ngaps;
    if (id < last) {
        const struct gap *g = gap_get(s, id);
        if (g->start <= index && g->closed && g->t0)
            return g->t0 + share(g->d, index - g->start + (end ? 1 : 0), g->n);
        if (!end)
            return g->t0;
    }
    if (end && id > s->first_gap) {
        const struct gap *p = gap_get(s, id - 1);
        return p->t0 ? p->t0 + p->d : 0;
    }
    return 0;
}

/* Estimated time at which event `index` (in the ring) started: t_enter of
 * an MPI event; for a computation event, the t_exit of the MPI event before
 * its gap plus its share of the gap's duration; 0 if unknown.
 * reference.c's start_time is the same rule. */
static uint64_t start_time(const struct stream *s, uint64_t index)
{
    const struct ring_ev *r = ring_get(s, index);
    if (r->kind != DG_COMP)
        return r->gap;
    if (r->gap < s->first_gap || r->gap >= s->first_gap + s->ngaps)
        return 0;
    const struct gap *g = gap_get(s, r->gap);
    if (!g->t0)
        return 0;
    return g->t0 + share(g->d, index - g->start, g->n);
}

/* ---- call sites and statements ----------------------------------------------------------- */

static struct csite *csite_get(struct stream *s, const struct dg_event *e)
{
    uint64_t *slot = dg_map_get(&s->cs_of, e->site);
    if (slot)
        return &s->cs[*slot];
    if (s->ncs == s->ccs) {
        size_t nc = s->ccs ? s->ccs * 2 : 16;
        struct csite *p = realloc(s->cs, nc * sizeof *p);
        if (!p)
            return NULL;
        s->cs = p;
        s->ccs = nc;
    }
    if (!dg_map_put(&s->cs_of, e->site, s->ncs))
        return NULL;
    struct csite *c = &s->cs[s->ncs++];
    memset(c, 0, sizeof *c);
    c->o.site = e->site;
    c->o.call = e->call;
    c->o.role = e->role;
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
 * attributed: the gap is closed and wholly below the flushed frontier (a
 * gap's events must be counted together: ⌊d·k/n⌋ is not additive). */
static void stmt_settle(struct stream *s, struct stmt_acc *a)
{
    if (a->pend_gap == NONE64)
        return;
    const struct gap *g = gap_get(s, a->pend_gap);
    if (!g->closed || g->start + g->n > s->flushed)
        return;
    a->s.time_ns += share(g->d, a->pend_k, g->n);
    a->pend_gap = NONE64;
    a->pend_k = 0;
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
        lo = min64(lo, (*v)[j].lo);
        hi = max64(hi, (*v)[j].hi);
        j++;
    }
    if (j == i) {
        struct interval x = {lo, hi};
        VEC_PUSH(*v, *n, *cap, x, nomem);
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
static int attribute(struct stream *s, struct csite *c, uint64_t lo, uint64_t hi, uint32_t flags)
{
    for (uint64_t t = lo; t <= hi; t++) {
        const struct ring_ev *r = ring_get(s, t);
        if (r->kind != DG_COMP)
            continue;
        struct stmt_acc *a = stmt_get(c, r->site, r->site_flags);
        if (!a)
            return TRACE_ERR_NOMEM;
        a->s.events++;
        a->s.flags |= flags;
        const struct ctx *x = ctx_get(s, r->ctx);
        const struct trace_iter *it = x->it;
        struct trace_iter moved[SEARCH_BOX_DEPTH];
        if (r->rep) { /* a run's event: its context moved by rep slopes */
            const uint64_t *d = s->ctx_d[r->ctx % s->ccap];
            for (uint32_t l = 0; l < x->depth; l++) {
                moved[l] = x->it[l];
                moved[l].iter += r->rep * d[l];
            }
            it = moved;
        }
        if (search_boxes_add(&a->s.iters, x->depth, it, s->max_boxes) < 0)
            return TRACE_ERR_NOMEM;
        if (a->pend_gap != r->gap) {
            /* a later gap: the pending one is complete (attribution runs in
             * event order), so add its time now */
            if (a->pend_gap != NONE64) {
                const struct gap *g = gap_get(s, a->pend_gap);
                if (!g->closed)
                    return TRACE_ERR_ARG; /* cannot happen: only the last gap is open */
                a->s.time_ns += share(g->d, a->pend_k, g->n);
            }
            a->pend_gap = r->gap;
            a->pend_k = 0;
        }
        a->pend_k++;
    }
    return 0;
}

/* Attributes everything call site c has covered below index f. */
static int flush_site(struct stream *s, struct csite *c, uint64_t f)
{
    size_t ib = 0, jf = 0;
    uint64_t j = 0;
    int rc = 0;
    for (;;) {
        while (ib < c->nbw && c->bw[ib].hi < j)
            ib++;
        while (jf < c->nfw && c->fw[jf].hi < j)
            jf++;
        uint64_t nb = ib < c->nbw ? max64(c->bw[ib].lo, j) : NONE64;
        uint64_t nf = jf < c->nfw ? max64(c->fw[jf].lo, j) : NONE64;
        uint64_t start = min64(nb, nf);
        if (start == NONE64 || start >= f)
            break;
        bool in_b = nb == start, in_f = nf == start;
        uint64_t end = f - 1;
        if (in_b)
            end = min64(end, c->bw[ib].hi);
        else if (ib < c->nbw)
            end = min64(end, c->bw[ib].lo - 1);
        if (in_f)
            end = min64(end, c->fw[jf].hi);
        else if (jf < c->nfw)
            end = min64(end, c->fw[jf].lo - 1);
        rc = attribute(s, c, start, end,
                       (in_b ? SEARCH_STMT_BEFORE : 0) | (in_f ? SEARCH_STMT_AFTER : 0));
        if (rc < 0)
            return rc;
        j = end + 1;
    }
    /* drop what is below f */
    struct interval **lists[2] = {&c->bw, &c->fw};
    size_t *ns[2] = {&c->nbw, &c->nfw};
    for (int l = 0; l < 2; l++) {
        struct interval *v = *lists[l];
        size_t n = *ns[l], k = 0;
        for (size_t i = 0; i < n; i++) {
            if (v[i].hi < f)
                continue;
            v[k] = v[i];
            if (v[k].lo < f)
                v[k].lo = f;
            k++;
        }
        *ns[l] = k;
    }
    return 0;
}

/* ---- instances --------------------------------------------------------------------------- */

/* Accounts the finished instances at the head of a call site's queue, in
 * instance order. */
static int account(struct stream *s, struct csite *c)
{
    while (c->qn && c->queue[c->qhead]->done) {
        struct inst *in = c->queue[c->qhead];
        c->qhead = (c->qhead + 1) % c->qcap;
        c->qn--;
        if (in->truncated)
            c->o.truncated++;
        if (in->comp && c->o.nwindows < SEARCH_MAX_WINDOWS) {
            struct search_window w = {in->t_call, in->t_lo ? in->t_lo : in->t_call,
                                      in->t_hi > in->t_call ? in->t_hi : in->t_call};
            VEC_PUSH(c->o.windows, c->o.nwindows, c->cwindows, w, nomem);
        }
        if (in->comp) {
            c->o.with_window++;
            c->o.comp_ns += in->time;
            c->o.saving_ns += min64(in->comm_ns, in->time);
            if (search_boxes_add(&c->o.iters, in->iters.depth, in->iters.it, s->max_boxes) < 0)
                return TRACE_ERR_NOMEM;
        }
        free(in);
    }
    return 0;
nomem:
    return TRACE_ERR_NOMEM;
}

/* Appends to a circular queue of elements of `size` bytes. */
static int deque_push(void **buf, size_t *head, size_t *n, size_t *cap, const void *item,
                      size_t size)
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

static int queue_push(struct csite *c, struct inst *in)
{
    return deque_push((void **)&c->queue, &c->qhead, &c->qn, &c->qcap, &in, sizeof in);
}

/* The forward window of `in` is [lo, hi]: record it, and its time once
 * the gaps it meets are closed. */
static int fw_close(struct stream *s, struct inst *in, uint64_t hi, bool truncated)
{
    in->fw_open = false;
    in->fw_lo = in->c + 1;
    in->fw_hi = hi;
    in->truncated |= truncated;
    dg_watch_remove(s->fw_watch, in->c);
    dg_map_del(&s->open_fw, in->c);
    struct csite *c = &s->cs[in->cs];
    if (interval_add(&c->fw, &c->nfw, &c->cfw, in->fw_lo, in->fw_hi) < 0)
        return TRACE_ERR_NOMEM;
    bool waits = s->gap_open && s->ngaps &&
                 gap_get(s, s->first_gap + s->ngaps - 1)->start <= hi && in->fw_lo <= hi;
    if (waits) {
        in->fw_pending = true;
        VEC_PUSH(s->deferred, s->ndef, s->cdef, in, nomem);
        return 0;
    }
    uint64_t t, k;
    range_time(s, in->fw_lo, in->fw_hi, &t, &k);
    in->time += t;
    in->comp += k;
    if (k)
        in->t_hi = time_at(s, in->fw_hi, true);
    in->done = true;
    return account(s, c);
nomem:
    return TRACE_ERR_NOMEM;
}

/* Closes the open gap with the MPI event that ends it (t_enter 0 at the end). */
static int gap_close(struct stream *s, uint64_t t_enter)
{
    if (!s->gap_open)
        return 0;
    struct gap *g = gap_get(s, s->first_gap + s->ngaps - 1);
    g->d = s->prev_exit && t_enter > s->prev_exit ? t_enter - s->prev_exit : 0;
    g->closed = true;
    s->cum_d += g->d;
    s->cum_n += g->n;
    s->gap_open = false;
    /* windows that waited for this gap */
    size_t n = s->ndef;
    s->ndef = 0;
    for (size_t i = 0; i < n; i++) {
        struct inst *in = s->deferred[i];
        uint64_t t, k;
        range_time(s, in->fw_lo, in->fw_hi, &t, &k);
        in->time += t;
        in->comp += k;
        if (k)
            in->t_hi = time_at(s, in->fw_hi, true);
        in->fw_pending = false;
        in->done = true;
        int rc = account(s, &s->cs[in->cs]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* ---- aggregation channels ------------------------------------------------------------------ */

static uint64_t chan_hash(uint64_t comm, int32_t peer)
{
    uint64_t h = comm * 0x9e3779b97f4a7c15ull ^ (uint32_t)peer;
    return h == UINT64_MAX ? 0 : h;
}

static struct chan *chan_get(struct stream *s, uint64_t comm, int32_t peer)
{
    uint64_t h = chan_hash(comm, peer);
    uint64_t *head = dg_map_get(&s->chan_of, h);
    for (uint64_t i = head ? *head : 0; i; i = s->chan_next[i - 1])
        if (s->ch[i - 1].comm == comm && s->ch[i - 1].peer == peer)
            return &s->ch[i - 1];
    if (s->nch == s->cch) {
        size_t nc = s->cch ? s->cch * 2 : 16;
        struct chan *p = realloc(s->ch, nc * sizeof *p);
        uint32_t *q = realloc(s->chan_next, nc * sizeof *q);
        if (p)
            s->ch = p;
        if (q)
            s->chan_next = q;
        if (!p || !q)
            return NULL;
        s->cch = nc;
    }
    head = dg_map_put(&s->chan_of, h, 0);
    if (!head)
        return NULL;
    struct chan *c = &s->ch[s->nch];
    memset(c, 0, sizeof *c);
    c->comm = comm;
    c->peer = peer;
    s->chan_next[s->nch] = (uint32_t)*head;
    *head = ++s->nch;
    return c;
}

static int group_cmp(const struct search_group *a, const struct search_group *b)
{
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    if (a->peer != b->peer)
        return a->peer < b->peer ? -1 : 1;
    if (a->nsites != b->nsites)
        return a->nsites < b->nsites ? -1 : 1;
    for (uint32_t i = 0; i < a->nsites; i++)
        if (a->sites[i] != b->sites[i])
            return a->sites[i] < b->sites[i] ? -1 : 1;
    return 0;
}

/* Ends the channel's group: reported if it has two sends or more. */
static int chan_finish(struct stream *s, struct chan *c)
{
    if (!c->active)
        return 0;
    if (!c->closed)
        dg_watch_remove(s->agg_watch, c->owner);
    dg_map_del(&s->chan_owner, c->owner);
    c->active = false;
    if (c->members >= 2) {
        struct search_group key = {.comm = c->comm, .peer = c->peer, .nsites = c->nsites,
                                   .sites = c->sites};
        struct search_group *g = NULL;
        for (size_t i = s->ngroups; i-- > 0;) { /* few signatures per rank */
            if (group_cmp(&s->groups[i], &key) == 0) {
                g = &s->groups[i];
                break;
            }
        }
        if (!g) {
            uint32_t *sites = malloc(c->nsites * sizeof *sites);
            if (!sites)
                return TRACE_ERR_NOMEM;
            memcpy(sites, c->sites, c->nsites * sizeof *sites);
            key.sites = sites;
            key.min_size = UINT32_MAX;
            VEC_PUSH(s->groups, s->ngroups, s->cgroups, key, nomem);
            g = &s->groups[s->ngroups - 1];
        }
        /* the blocking calls a member is delayed past: up to the send point,
         * right after the last member's anchor */
        uint32_t nx = 0;
        while (nx < c->ncross && c->cross[nx] < c->anchor)
            nx++;
        if (nx) {
            struct search_group_check chk = {.group = (uint32_t)(g - s->groups),
                                             .nmembers = c->ncm, .ncross = nx};
            chk.members = malloc(c->ncm * sizeof *chk.members);
            chk.cross = malloc(nx * sizeof *chk.cross);
            if (!chk.members || !chk.cross) {
                free(chk.members);
                free(chk.cross);
                goto nomem;
            }
            memcpy(chk.members, c->cmembers, c->ncm * sizeof *chk.members);
            memcpy(chk.cross, c->cross, nx * sizeof *chk.cross);
            VEC_PUSH(s->checks, s->nchecks, s->cchecks, chk, nomem);
        }
        g->groups++;
        g->members += c->members;
        g->bytes += c->bytes;
        g->send_ns += c->send_ns;
        uint32_t size = c->members > UINT32_MAX ? UINT32_MAX : (uint32_t)c->members;
        if (size < g->min_size)
            g->min_size = size;
        if (size > g->max_size)
            g->max_size = size;
    }
    c->nsites = 0;
    c->members = c->bytes = c->send_ns = 0;
    c->ncm = c->ncross = 0;
    return 0;
nomem:
    return TRACE_ERR_NOMEM;
}

static int chan_join(struct stream *s, struct chan *c, const struct dg_event *e, uint64_t a)
{
    c->anchor = a;
    if (c->ncm < SEARCH_CHECK_MAX)
        c->cmembers[c->ncm++] = e->index;
    bool known = false;
    for (uint32_t i = 0; i < c->nsites && !known; i++)
        known = c->sites[i] == e->site;
    if (!known)
        VEC_PUSH(c->sites, c->nsites, c->csites, e->site, nomem);
    c->members++;
    c->bytes += e->bytes;
    c->send_ns += search_call_ns(e);
    if (!c->closed)
        return dg_watch_add(s->agg_watch, c->owner, e, true);
    return 0;
nomem:
    return TRACE_ERR_NOMEM;
}

/* A movable send with anchor a (index + 1 of the last non-movable event it
 * depends on, 0 = none). */
static int aggregate_send(struct stream *s, const struct dg_event *e, uint64_t a)
{
    struct chan *c = chan_get(s, e->comm, e->peer);
    if (!c)
        return TRACE_ERR_NOMEM;
    /* It joins the channel's group if it lands before the event that
     * closed it: anchor (ea + 1) <= closing index. */
    if (c->active && (!c->closed || a <= c->closed_x))
        return chan_join(s, c, e, a);
    int rc = chan_finish(s, c);
    if (rc < 0)
        return rc;
    c->active = true;
    c->closed = false;
    c->owner = s->next_owner++;
    if (!dg_map_put(&s->chan_owner, c->owner, (uint64_t)(c - s->ch)))
        return TRACE_ERR_NOMEM;
    return chan_join(s, c, e, a);
}

/* ---- per-site totals ---------------------------------------------------------------- */

#define SITE_DENSE (1u << 22)

static int site_count_n(struct stream *s, uint32_t site, uint64_t n)
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

static int site_count(struct stream *s, uint32_t site)
{
    return site_count_n(s, site, 1);
}

static uint64_t site_total(const struct stream *s, uint32_t site)
{
    if (site < s->nsite_total)
        return s->site_total[site];
    const uint64_t *t = dg_map_get(&s->site_total_big, site);
    return t ? *t : 0;
}

/* ---- the pass ----------------------------------------------------------------------------- */

static int stream_flush(struct stream *s, uint64_t f)
{
    if (f <= s->flushed)
        return 0;
    for (size_t i = 0; i < s->ncs; i++) {
        int rc = flush_site(s, &s->cs[i], f);
        if (rc < 0)
            return rc;
    }
    s->flushed = f;
    for (size_t i = 0; i < s->ncs; i++)
        for (size_t j = 0; j < s->cs[i].nstmts; j++)
            stmt_settle(s, &s->cs[i].stmts[j]);
    /* gaps nothing refers to any more: before the flushed events, before
     * the oldest forward window and before the horizon */
    uint64_t keep = f;
    if (s->fw_n)
        keep = min64(keep, s->fw_fifo[s->fw_head]);
    for (size_t k = 0; k < s->ndef; k++) /* windows waiting for the open gap */
        keep = min64(keep, s->deferred[k]->fw_lo);
    uint64_t now = s->next;
    if (now > s->H + 1)
        keep = min64(keep, now - s->H - 1);
    else
        keep = 0;
    while (s->ngaps > 1) {
        const struct gap *g = gap_get(s, s->first_gap);
        if (g->start + g->n >= keep || !g->closed)
            break;
        s->ghead = (s->ghead + 1) % s->gcap;
        s->first_gap++;
        s->ngaps--;
    }
    size_t bytes = dg_shadow_footprint(s->shadow) + s->rcap * sizeof *s->ring +
                   s->ccap * sizeof *s->ctxs + s->gcap * sizeof *s->gaps;
    s->peak = max64(s->peak, bytes);
    return 0;
}

/* Closes the forward windows that reach the horizon before event i; then
 * the oldest window in the FIFO, if any, is open and reaches i. */
static int close_horizon(struct stream *s, uint64_t i)
{
    while (s->fw_n) {
        uint64_t c = s->fw_fifo[s->fw_head];
        uint64_t *p = dg_map_get(&s->open_fw, c);
        if (p && c + s->H + 1 > i)
            break;
        s->fw_head = (s->fw_head + 1) % s->fw_cap;
        s->fw_n--;
        int rc;
        if (p && (rc = fw_close(s, (struct inst *)(uintptr_t)*p, c + s->H, true)) < 0)
            return rc;
    }
    return 0;
}

static int stream_feed(void *state, const struct dg_event *e)
{
    struct stream *s = state;
    uint64_t i = e->index;
    int rc;
    if (i != s->next)
        return TRACE_ERR_ARG;
    s->next = i + 1;

    /* 1. forward windows that reach the horizon end before this event */
    if ((rc = close_horizon(s, i)) < 0)
        return rc;

    /* 2. an MPI event ends the gap before it */
    if (e->kind == DG_MPI) {
        s->mpi_events++;
        if ((rc = gap_close(s, e->t_enter)) < 0)
            return rc;
        if (e->t_enter && (!s->t_first || e->t_enter < s->t_first))
            s->t_first = e->t_enter;
        s->t_last = max64(s->t_last, e->t_exit);
    } else {
        s->comp_events++;
    }

    /* 3. windows and groups this event depends on */
    const uint64_t *owners;
    size_t n = dg_watch_conflicts(s->fw_watch, e, &owners);
    for (size_t k = 0; k < n; k++) {
        uint64_t *p = dg_map_get(&s->open_fw, owners[k]);
        if (p && (rc = fw_close(s, (struct inst *)(uintptr_t)*p, i - 1, false)) < 0)
            return rc;
    }
    if (search_blocks_groups(e)) {
        /* no send moves earlier across it (its anchor), but a group may
         * delay its sends past it: remember it for the deadlock check */
        for (size_t k = 0; k < s->nch; k++) {
            struct chan *c = &s->ch[k];
            if (c->active && c->ncross < SEARCH_CHECK_MAX)
                c->cross[c->ncross++] = i;
        }
    }
    if (!dg_is_movable_send(e)) {
        n = dg_watch_conflicts(s->agg_watch, e, &owners);
        for (size_t k = 0; k < n; k++) {
            uint64_t *p = dg_map_get(&s->chan_owner, owners[k]);
            if (!p)
                continue;
            struct chan *c = &s->ch[*p];
            c->closed = true;
            c->closed_x = i;
            dg_watch_remove(s->agg_watch, c->owner);
        }
    }

    /* 4. the last event this one depends on (+1, 0 = none), and the anchor */
    bool fence = e->kind == DG_MPI && e->role == DG_ROLE_FENCE;
    bool cand_b = search_has_backward(e), cand_f = search_has_forward(e);
    bool mov = dg_is_movable_send(e);
    uint64_t last = 0, anchor = 0;
    if (cand_b || mov) {
        last = fence ? i : s->last_fence;
        anchor = max64(s->last_fence, s->last_block);
        for (uint32_t k = 0; k < e->nranges; k++) {
            uint64_t w = dg_shadow_last_conflict(s->shadow, &e->ranges[k]);
            last = max64(last, w);
            anchor = max64(anchor, w);
        }
        for (uint32_t k = 0; k < e->nkeys; k++) {
            uint64_t l, v;
            dg_keytab_query(s->keys, &e->keys[k], &l, &v);
            last = max64(last, l);
            anchor = max64(anchor, v ? v - 1 : 0);
        }
    }

    /* 5. overlap candidates */
    if (cand_f) {
        struct csite *c = csite_get(s, e);
        struct inst *in = calloc(1, sizeof *in);
        if (!c || !in) {
            free(in);
            return TRACE_ERR_NOMEM;
        }
        in->c = i;
        in->cs = (uint32_t)(c - s->cs);
        in->comm_ns = search_call_ns(e);
        in->t_call = e->t_enter;
        ctx_of(e, &in->iters);
        c->o.instances++;
        c->o.comm_ns += in->comm_ns;
        uint64_t lead = 0; /* ns its start can move earlier, 0 = none or unknown */
        if (cand_b && i > 0) {
            /* last conflicting index is last - 1 */
            uint64_t lo;
            if (last && last - 1 + s->H >= i)
                lo = last; /* window starts after it */
            else if (i > s->H) {
                lo = i - s->H;
                in->truncated = true;
            } else {
                lo = 0;
            }
            if (lo <= i - 1) {
                uint64_t t, k;
                range_time(s, lo, i - 1, &t, &k);
                in->time += t;
                in->comp += k;
                if (k)
                    in->t_lo = time_at(s, lo, false);
                if (interval_add(&c->bw, &c->nbw, &c->cbw, lo, i - 1) < 0)
                    return TRACE_ERR_NOMEM;
                uint64_t t0 = start_time(s, lo);
                if (t0 && e->t_enter > t0)
                    lead = e->t_enter - t0;
            }
        }
        in->fw_open = true;
        if ((rc = queue_push(c, in)) < 0)
            return rc;
        if (lead) {
            struct search_lead l = {i, lead};
            VEC_PUSH(c->o.leads, c->o.nleads, c->cleads, l, lead_nomem);
        }
        if (!dg_map_put(&s->open_fw, i, (uint64_t)(uintptr_t)in))
            return TRACE_ERR_NOMEM;
        if ((rc = dg_watch_add(s->fw_watch, i, e, false)) < 0)
            return rc;
        if ((rc = deque_push((void **)&s->fw_fifo, &s->fw_head, &s->fw_n, &s->fw_cap, &i,
                             sizeof i)) < 0)
            return rc;
    }

    /* 6. aggregation */
    if (mov) {
        search_msgcost_add(&s->cost, e->bytes, search_call_ns(e));
        if ((rc = aggregate_send(s, e, anchor)) < 0)
            return rc;
    }
    if (fence) {
        for (size_t k = 0; k < s->nch; k++)
            if ((rc = chan_finish(s, &s->ch[k])) < 0)
                return rc;
    }

    /* 7. remember this event's accesses and keys */
    for (uint32_t k = 0; k < e->nranges; k++)
        if ((rc = dg_shadow_update(s->shadow, &e->ranges[k], i)) < 0)
            return rc;
    for (uint32_t k = 0; k < e->nkeys; k++) {
        uint64_t value = mov ? anchor : i + 1;
        if ((rc = dg_keytab_update(s->keys, &e->keys[k], i, value)) < 0)
            return rc;
    }
    if (e->kind == DG_MPI && e->role == DG_ROLE_COMPLETE)
        for (uint32_t k = 0; k < e->nkeys; k++)
            if (e->keys[k].cls == DG_KEY_REQ)
                dg_keytab_forget(s->keys, &e->keys[k]);
    if (fence)
        s->last_fence = i + 1;
    if (search_blocks_groups(e))
        s->last_block = i + 1;

    /* 8. the ring */
    if (!s->nctx || !ctx_is(ctx_get(s, s->nctx - 1), e)) {
        if ((rc = ring_reserve((void **)&s->ctxs, &s->ccap, s->cmax, s->nctx, sizeof *s->ctxs)) < 0)
            return rc;
        ctx_of(e, &s->ctxs[s->nctx % s->ccap]);
        s->nctx++;
    }
    if ((rc = ring_reserve((void **)&s->ring, &s->rcap, s->rmax, i, sizeof *s->ring)) < 0)
        return rc;
    struct ring_ev *r = ring_get(s, i);
    r->site = e->site;
    r->site_flags = e->site_flags;
    r->kind = e->kind;
    r->ctx = s->nctx - 1;
    r->rep = 0;
    if (e->kind == DG_COMP) {
        if (!s->gap_open && (rc = gap_push(s, i)) < 0)
            return rc;
        struct gap *g = gap_get(s, s->first_gap + s->ngaps - 1);
        g->n++;
        r->gap = s->first_gap + s->ngaps - 1;
        if ((rc = site_count(s, e->site)) < 0)
            return rc;
    } else {
        r->gap = e->t_enter;
        s->prev_exit = e->t_exit;
    }

    /* 9. attribute what fell behind the horizon */
    if (s->next % BATCH == 0 && s->next > s->H)
        return stream_flush(s, s->next - s->H);
    return 0;
lead_nomem:
    return TRACE_ERR_NOMEM;
}


/* ---- runs ----------------------------------------------------------------------------------- */

/* The context (innermost levels of the iteration vector) of event t of a run. */
static void run_ctx(const struct dg_run *r, uint64_t t, struct ctx *c)
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

/* Events t0 .. t1-1 of a run, none of which conflicts with a watched
 * window or group, and none at which a window reaches its horizon or a
 * batch ends: what stream_feed does for each of them, at once. */
static int run_bulk(struct stream *s, const struct dg_run *r, uint64_t t0, uint64_t t1,
                    const bool *as_before)
{
    const uint32_t P = r->period;
    uint64_t n = t1 - t0, i0 = r->first + t0, last = r->first + t1 - 1;
    int rc;
    s->comp_events += n;
    if ((rc = dg_shadow_update_run(s->shadow, r, t0, t1, false)) < 0)
        return rc;
    if (!s->gap_open && (rc = gap_push(s, i0)) < 0)
        return rc;
    uint64_t gid = s->first_gap + s->ngaps - 1;
    gap_get(s, gid)->n += n;
    for (uint32_t p = 0; p < P; p++) {
        /* events of phase p in [t0, t1) */
        uint64_t k = (t1 + P - 1 - p) / P - (t0 + P - 1 - p) / P;
        if (k && (rc = site_count_n(s, r->ph[p].ev.site, k)) < 0)
            return rc;
    }
    while (s->rcap <= last && s->rcap < s->rmax)
        if ((rc = ring_reserve((void **)&s->ring, &s->rcap, s->rmax, last, sizeof *s->ring)) < 0)
            return rc;
    /* one context per phase, from repetition j0 on, with its slope: event
     * t of phase p has context seq[p] moved by (t / P - j0) slopes */
    uint64_t j0 = t0 / P, seq[DG_RUN_PERIOD_MAX];
    bool made[DG_RUN_PERIOD_MAX];
    for (uint32_t p = 0; p < P; p++) {
        /* only for phases with events here: at most one context per event */
        made[p] = (t1 + P - 1 - p) / P > (t0 + P - 1 - p) / P;
        if (!made[p])
            continue;
        if (p && made[p - 1] && as_before[p]) {
            seq[p] = seq[p - 1]; /* the same context in every repetition */
            continue;
        }
        if ((rc = ring_reserve((void **)&s->ctxs, &s->ccap, s->cmax, s->nctx, sizeof *s->ctxs)) < 0)
            return rc;
        if (s->ctx_d_cap != s->ccap) {
            void *q = realloc(s->ctx_d, s->ccap * sizeof *s->ctx_d);
            if (!q)
                return TRACE_ERR_NOMEM;
            s->ctx_d = q;
            s->ctx_d_cap = s->ccap;
        }
        struct ctx *c = &s->ctxs[s->nctx % s->ccap];
        const struct dg_run_phase *ph = &r->ph[p];
        run_ctx(r, j0 * P + p, c);
        for (uint32_t l = 0; l < c->depth; l++)
            s->ctx_d[s->nctx % s->ccap][l] = ph->diter[ph->ev.depth - c->depth + l];
        seq[p] = s->nctx++;
    }
    uint32_t p = (uint32_t)(t0 % P);
    uint64_t rep = 0;
    for (uint64_t t = t0; t < t1; t++) {
        const struct dg_event *e = &r->ph[p].ev;
        struct ring_ev *x = ring_get(s, r->first + t);
        x->site = e->site;
        x->site_flags = e->site_flags;
        x->kind = DG_COMP;
        x->ctx = seq[p];
        x->rep = (uint32_t)rep;
        x->gap = gid;
        if (++p == P)
            p = 0, rep++;
    }
    s->next = last + 1;
    return 0;
}

static int stream_feed_run(void *state, const struct dg_run *r)
{
    struct stream *s = state;
    const uint64_t n = r->reps * r->period;
    bool as_before[DG_RUN_PERIOD_MAX];
    struct dg_event ev;
    struct dg_range ranges[DG_RUN_MAX_ADDRS];
    static _Thread_local struct trace_iter iters[TRACE_MAX_LOOP_DEPTH];
    int rc;
    if (r->first != s->next)
        return TRACE_ERR_ARG;
    for (uint32_t p = 0; p < r->period; p++)
        as_before[p] = run_ctx_as_before(r, p);
    for (uint64_t t = 0; t < n;) {
        uint64_t i = r->first + t;
        if ((rc = close_horizon(s, i)) < 0)
            return rc;
        /* the stretch ends at the end of the run, of the batch, or where the
         * oldest open window reaches its horizon */
        uint64_t end = min64(n, (i / BATCH + 1) * BATCH - r->first);
        if (s->fw_n)
            end = min64(end, s->fw_fifo[s->fw_head] + s->H + 1 - r->first);
        /* or before the first event that closes a window or a group */
        uint64_t x = dg_watch_first_conflict_run(s->fw_watch, r, t, end);
        x = dg_watch_first_conflict_run(s->agg_watch, r, t, x);
        if (x > t) {
            if ((rc = run_bulk(s, r, t, x, as_before)) < 0)
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

static int cmp_overlap(const void *a, const void *b)
{
    uint32_t x = ((const struct search_overlap *)a)->site, y = ((const struct search_overlap *)b)->site;
    return x < y ? -1 : x > y;
}
static int cmp_stmt(const void *a, const void *b)
{
    uint32_t x = ((const struct search_stmt *)a)->site, y = ((const struct search_stmt *)b)->site;
    return x < y ? -1 : x > y;
}
static int cmp_group_ptr(const void *a, const void *b)
{
    return group_cmp(*(const struct search_group *const *)a, *(const struct search_group *const *)b);
}

static void stream_destroy(void *state)
{
    struct stream *s = state;
    if (!s)
        return;
    dg_shadow_destroy(s->shadow);
    dg_keytab_destroy(s->keys);
    dg_watch_destroy(s->fw_watch);
    dg_watch_destroy(s->agg_watch);
    free(s->ring);
    free(s->ctxs);
    free(s->ctx_d);
    free(s->gaps);
    for (size_t i = 0; i < s->ncs; i++) {
        struct csite *c = &s->cs[i];
        for (size_t j = 0; j < c->nstmts; j++)
            search_boxes_free(&c->stmts[j].s.iters);
        free(c->stmts);
        dg_map_free(&c->stmt_of);
        free(c->bw);
        free(c->fw);
        for (size_t j = 0; j < c->qn; j++)
            free(c->queue[(c->qhead + j) % c->qcap]);
        free(c->queue);
        search_boxes_free(&c->o.iters);
        free(c->o.windows);
        free(c->o.leads);
    }
    free(s->cs);
    dg_map_free(&s->cs_of);
    dg_map_free(&s->open_fw);
    free(s->fw_fifo);
    free(s->deferred);
    free(s->site_total);
    dg_map_free(&s->site_total_big);
    for (size_t i = 0; i < s->nch; i++)
        free(s->ch[i].sites);
    free(s->ch);
    free(s->chan_next);
    dg_map_free(&s->chan_of);
    dg_map_free(&s->chan_owner);
    for (size_t i = 0; i < s->ngroups; i++)
        free(s->groups[i].sites);
    free(s->groups);
    for (size_t i = 0; i < s->nchecks; i++) {
        free(s->checks[i].members);
        free(s->checks[i].cross);
    }
    free(s->checks);
    free(s);
}

static int stream_finish(void *state, struct search_rank_result **out)
{
    struct stream *s = state;
    struct search_rank_result *r = NULL;
    int rc;
    *out = NULL;
    /* close the last gap (nothing after it: 0 ns), the open windows (to
     * the end, not truncated) and the groups */
    if ((rc = gap_close(s, 0)) < 0)
        goto out;
    while (s->fw_n) {
        uint64_t c = s->fw_fifo[s->fw_head];
        uint64_t *p = dg_map_get(&s->open_fw, c);
        s->fw_head = (s->fw_head + 1) % s->fw_cap;
        s->fw_n--;
        if (p && (rc = fw_close(s, (struct inst *)(uintptr_t)*p, s->next - 1, false)) < 0)
            goto out;
    }
    for (size_t k = 0; k < s->nch; k++)
        if ((rc = chan_finish(s, &s->ch[k])) < 0)
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
    r->msg_latency_ns = search_msgcost_latency(&s->cost);
    r->peak_bytes = s->peak;
    if (s->ncs) {
        r->overlaps = calloc(s->ncs, sizeof *r->overlaps);
        if (!r->overlaps)
            goto out;
    }
    for (size_t i = 0; i < s->ncs; i++) {
        struct csite *c = &s->cs[i];
        struct search_overlap *o = &r->overlaps[r->noverlaps++];
        *o = c->o;
        memset(&c->o.iters, 0, sizeof c->o.iters); /* moved */
        c->o.windows = NULL;
        c->o.nwindows = 0;
        c->o.leads = NULL;
        c->o.nleads = 0;
        if (c->nstmts) {
            o->stmts = calloc(c->nstmts, sizeof *o->stmts);
            if (!o->stmts)
                goto out;
        }
        for (size_t j = 0; j < c->nstmts; j++) {
            struct search_stmt *st = &o->stmts[o->nstmts++];
            *st = c->stmts[j].s;
            memset(&c->stmts[j].s.iters, 0, sizeof c->stmts[j].s.iters);
            st->total = site_total(s, st->site);
        }
        if (o->nstmts)
            qsort(o->stmts, o->nstmts, sizeof *o->stmts, cmp_stmt);
    }
    if (r->noverlaps)
        qsort(r->overlaps, r->noverlaps, sizeof *r->overlaps, cmp_overlap);
    if (s->ngroups) {
        /* sort the summaries, and renumber the checks' groups */
        struct search_group **ord = malloc(s->ngroups * sizeof *ord);
        uint32_t *renum = malloc(s->ngroups * sizeof *renum);
        r->groups = malloc(s->ngroups * sizeof *r->groups);
        if (!ord || !renum || !r->groups) {
            free(ord);
            free(renum);
            goto out;
        }
        for (size_t k = 0; k < s->ngroups; k++)
            ord[k] = &s->groups[k];
        qsort(ord, s->ngroups, sizeof *ord, cmp_group_ptr);
        for (size_t k = 0; k < s->ngroups; k++) {
            r->groups[k] = *ord[k];
            renum[ord[k] - s->groups] = (uint32_t)k;
        }
        r->ngroups = (uint32_t)s->ngroups;
        for (size_t k = 0; k < s->nchecks; k++)
            s->checks[k].group = renum[s->checks[k].group];
        free(ord);
        free(renum);
        free(s->groups);
        s->groups = NULL;
        s->ngroups = 0;
    }
    r->checks = s->checks;
    r->nchecks = (uint32_t)s->nchecks;
    s->checks = NULL;
    s->nchecks = 0;
    if (r->nchecks > 1)
        qsort(r->checks, r->nchecks, sizeof *r->checks, search_check_cmp);
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
    struct stream *s = calloc(1, sizeof *s);
    if (!s)
        return TRACE_ERR_NOMEM;
    s->rank = rank;
    s->H = search_horizon(o);
    s->max_boxes = search_max_boxes(o);
    s->rmax = s->H + 2 * BATCH + 2;
    s->cmax = s->rmax;
    s->next_owner = 1;
    if (dg_shadow_create(&s->shadow) < 0 || dg_keytab_create(&s->keys) < 0 ||
        dg_watch_create(&s->fw_watch) < 0 || dg_watch_create(&s->agg_watch) < 0) {
        stream_destroy(s);
        return TRACE_ERR_NOMEM;
    }
    *state = s;
    *ops = &stream_ops;
    return 0;
}
