/* waitstates.c - wait states and load imbalance across ranks
 * (docs/waitstates.md): how long the ranks' MPI calls waited for another
 * rank, per call site, and how unevenly the computation was spread.
 *
 * Inputs are the ranks' MPI logs, matched (struct search_xrank); outputs go
 * into the report: rep->waits (one struct search_waitsite per call-site
 * location, summed over ranks), clocks_aligned, imbalance, comp_mean_ns,
 * comp_max_ns and the unmatched counts.
 *
 * Times of different ranks are compared on the cross-rank stage's common
 * clock (search/xrank/clocks.c: one host's CLOCK_MONOTONIC as recorded, or
 * each rank's CLOCK_MONOTONIC mapped to CLOCK_REALTIME through its CLOCK
 * samples, at MPI_Init and MPI_Finalize, for ranks of different hosts).
 * If a rank has no sample,
 * or if after the mapping a message would be received before it was sent
 * (or a collective would return before a member it needs entered it) by
 * more than WAIT_CLOCK_TOLERANCE_NS, the clocks are not trusted: wait
 * states are then 0 (calls and times per site are still given) and
 * clocks_aligned is false.
 *
 * Decisions beyond the document:
 *   - a rank with only one valid sample (no MPI_Finalize sample: it was cut
 *     short) uses that sample's offset without drift;
 *   - a receive completed by a Wait/Test whose request started at an Irecv
 *     has no known posting time in the log, so it never makes its sender a
 *     late receiver (this errs towards 0);
 *   - a Wait completing several receives waits once: the latest of their
 *     senders' entries counts;
 *   - collectives with members missing (a rank without trace) are measured
 *     over the members present, which can only make waits smaller;
 *     collectives in which no member moves a byte (count 0), other than
 *     Barrier, do not synchronise in MPICH and are not measured;
 *   - Scan and Exscan order members by world rank (the communicator's rank
 *     order is not in the log; it is the same for MPI_COMM_WORLD and its
 *     duplicates and splits keyed by world rank).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

/* How far a receive may seem to end before its send started, or a
 * collective to return before a member it needs entered, after alignment,
 * before the clocks are declared untrustworthy (ns).  Covers the jitter of
 * reading two clocks one after the other and NTP slewing during a run. */
#define WAIT_CLOCK_TOLERANCE_NS 20000

static const char *nz(const char *s)
{
    return s ? s : "";
}

/* ---- clocks ---------------------------------------------------------------------- */

/* ---- the state of one run ---------------------------------------------------------- */

/* Wait states of one call site of one rank. */
struct ent {
    const struct trace_site_info *info; /* NULL: not known here (see entry_at) */
    int rank;
    uint32_t site;
    uint16_t call;
    uint64_t calls, time_ns, ls, lr, wc;
};

struct ws {
    const struct search_xrank *x;
    struct dg_clockmap *cm; /* [world_size]: the common clock's maps */
    bool aligned;
    struct dg_map *sites; /* [world_size]: site id -> entry index + 1, or 0 without info */
    struct ent *ent;
    size_t nent, cap;
};

/* A record of this process's ranks, or another process's that a match or
 * an instance here involves (NULL: none, e.g. a rank without a log). */
static const struct dg_msgrec *rec_at(const struct ws *w, struct dg_pos p)
{
    return dg_match_rec(w->x->match, p);
}

static bool timed(const struct dg_msgrec *r)
{
    return r->t_enter && r->t_exit >= r->t_enter;
}

static uint64_t dur_of(const struct dg_msgrec *r)
{
    return timed(r) ? r->t_exit - r->t_enter : 0;
}

static bool located(const struct trace_site_info *info)
{
    return info && info->file && info->file[0] && info->line;
}

/* The entry of rank r's call site `site`; NULL if the site has no source
 * location (or on out-of-memory, which sets *nomem).  A rank whose result
 * is not known here (another process's, met in an instance this one owns)
 * gets an entry without its site's information, which process 0 looks up
 * when the entries are gathered. */
static struct ent *entry_at(struct ws *w, int r, uint32_t site, uint16_t call, bool *nomem)
{
    if (site == CHT_NONE)
        return NULL;
    uint64_t *v = dg_map_get(&w->sites[r], site);
    if (v)
        return *v ? &w->ent[*v - 1] : NULL;
    const struct search_rank_result *res = w->x->by_rank ? w->x->by_rank[r] : NULL;
    const struct trace_site_info *info = res ? search_site_info(res, site) : NULL;
    uint64_t val = 0;
    if (located(info) || !res) {
        if (w->nent == w->cap) {
            size_t cap = w->cap ? w->cap * 2 : 64;
            struct ent *e = realloc(w->ent, cap * sizeof *e);
            if (!e) {
                *nomem = true;
                return NULL;
            }
            w->ent = e;
            w->cap = cap;
        }
        struct ent *e = &w->ent[w->nent++];
        memset(e, 0, sizeof *e);
        e->info = info;
        e->rank = r;
        e->site = site;
        e->call = call;
        val = w->nent;
    }
    if (!dg_map_put(&w->sites[r], site, val)) {
        *nomem = true;
        return NULL;
    }
    return val ? &w->ent[val - 1] : NULL;
}

static struct ent *entry_of(struct ws *w, int r, const struct dg_msgrec *rec, bool *nomem)
{
    return entry_at(w, r, rec->site, rec->call, nomem);
}

/* ---- collectives: who waits for whom --------------------------------------------------- */

enum coll_shape {
    COLL_NONE,      /* not measured */
    COLL_ALL,       /* everybody waits for the last member: Barrier, All*, Reduce_scatter */
    COLL_FROM_ROOT, /* non-roots wait for the root: Bcast, Scatter(v) */
    COLL_TO_ROOT,   /* the root waits for the last member: Reduce, Gather(v) */
    COLL_PREFIX,    /* a member waits for the lower ranks: Scan (inclusive), Exscan */
};

/* By the blocking form (a persistent start or a nonblocking call never gets
 * here: see coll_members).  Neighbourhood collectives are not measured: a
 * member waits only for its neighbours. */
static int coll_shape(uint16_t call)
{
    switch (trace_mpi_call_base(call)) {
    case CHT_MPI_ALLTOALLW:
    case CHT_MPI_BARRIER:
    case CHT_MPI_ALLREDUCE:
    case CHT_MPI_ALLGATHER:
    case CHT_MPI_ALLGATHERV:
    case CHT_MPI_ALLTOALL:
    case CHT_MPI_ALLTOALLV:
    case CHT_MPI_REDUCE_SCATTER:
    case CHT_MPI_REDUCE_SCATTER_BLOCK: return COLL_ALL;
    case CHT_MPI_BCAST:
    case CHT_MPI_SCATTER:
    case CHT_MPI_SCATTERV: return COLL_FROM_ROOT;
    case CHT_MPI_REDUCE:
    case CHT_MPI_GATHER:
    case CHT_MPI_GATHERV: return COLL_TO_ROOT;
    case CHT_MPI_SCAN:
    case CHT_MPI_EXSCAN: return COLL_PREFIX;
    }
    return COLL_NONE;
}

/* Calls whose "needs" relation holds in every MPI implementation whatever
 * the per-rank counts (the v-variants may skip ranks with count 0, and
 * Scan's rank order is a guess): only these take part in the clock check. */
static bool coll_certain(uint16_t call)
{
    switch (trace_mpi_call_base(call)) {
    case CHT_MPI_BARRIER:
    case CHT_MPI_ALLREDUCE:
    case CHT_MPI_ALLGATHER:
    case CHT_MPI_ALLTOALL:
    case CHT_MPI_REDUCE_SCATTER_BLOCK:
    case CHT_MPI_BCAST:
    case CHT_MPI_SCATTER:
    case CHT_MPI_REDUCE:
    case CHT_MPI_GATHER: return true;
    }
    return false;
}

/* One member of a collective instance, aligned. */
struct member {
    struct dg_pos p;
    const struct dg_msgrec *rec;
    int64_t enter, exit;
    bool root;
};

/* Fills the members of instance i that have times (aligned with the clock
 * maps, or raw when align is false); returns how many, and the shape of the
 * instance (COLL_NONE if it is not measured). */
static uint32_t coll_members(const struct ws *w, uint32_t i, struct member **buf, uint32_t *bufcap,
                             int *shape, bool *nomem)
{
    uint32_t n = 0;
    const struct dg_pos *pos = dg_match_coll(w->x->match, i, &n);
    *shape = COLL_NONE;
    if (!pos || !n)
        return 0;
    if (n > *bufcap) {
        struct member *m = realloc(*buf, n * sizeof *m);
        if (!m) {
            *nomem = true;
            return 0;
        }
        *buf = m;
        *bufcap = n;
    }
    uint32_t k = 0;
    bool moves = false;
    for (uint32_t j = 0; j < n; j++) {
        const struct dg_msgrec *r = rec_at(w, pos[j]);
        if (r->bytes || r->rbytes)
            moves = true;
        if (!timed(r))
            continue;
        struct member *m = &(*buf)[k++];
        m->p = pos[j];
        m->rec = r;
        m->enter = dg_clock_at(&w->cm[pos[j].rank], r->t_enter);
        m->exit = dg_clock_at(&w->cm[pos[j].rank], r->t_exit);
        m->root = (r->flags & DG_MSGF_ROOT) || (r->peer >= 0 && r->peer == pos[j].rank);
    }
    /* A nonblocking collective waits in the call that completes it, for the
     * members' starts: its COLL records carry the completions' times, so
     * its wait states are not measured. */
    if (k && !((*buf)[0].rec->flags & DG_MSGF_NONBLOCKING)) {
        uint16_t call = (*buf)[0].rec->call;
        if (moves || call == CHT_MPI_BARRIER)
            *shape = coll_shape(call);
    }
    return k;
}

/* The time member j cannot leave the instance before: the latest entry of
 * the members it needs; false if it needs none. */
static bool coll_needed(const struct member *m, uint32_t n, uint32_t j, int shape, int64_t *at)
{
    bool any = false;
    int64_t t = 0;
    for (uint32_t k = 0; k < n; k++) {
        bool need;
        switch (shape) {
        case COLL_ALL: need = true; break;
        case COLL_FROM_ROOT: need = !m[j].root && m[k].root; break;
        case COLL_TO_ROOT: need = m[j].root; break;
        case COLL_PREFIX:
            need =
                m[k].p.rank < m[j].p.rank || (m[k].p.rank == m[j].p.rank && m[j].rec->call == CHT_MPI_SCAN);
            break;
        default: need = false;
        }
        if (need && (!any || m[k].enter > t)) {
            t = m[k].enter;
            any = true;
        }
    }
    *at = t;
    return any;
}

/* ---- clock check ------------------------------------------------------------------------ */

/* Whether every matched message is received after it was sent and every
 * collective member leaves after the members it needs entered, within the
 * tolerance, on the aligned clocks. */
static bool clocks_consistent(const struct ws *w, bool *nomem)
{
    const struct search_xrank *x = w->x;
    for (int r = 0; r < x->world_size; r++) {
        const struct dg_mpilog *log = x->logs[r];
        if (!log)
            continue;
        for (uint32_t i = 0; i < log->n; i++) {
            const struct dg_msgrec *rv = &log->rec[i];
            if (rv->kind != DG_MSG_RECV || !timed(rv))
                continue;
            struct dg_pos s = dg_match_peer(x->match, (struct dg_pos){r, i});
            if (s.rank < 0 || s.rank >= x->world_size)
                continue;
            const struct dg_msgrec *sd = rec_at(w, s);
            if (!sd || !timed(sd))
                continue;
            if (dg_clock_at(&w->cm[r], rv->t_exit) + WAIT_CLOCK_TOLERANCE_NS <
                dg_clock_at(&w->cm[s.rank], sd->t_enter))
                return false;
        }
    }
    struct member *m = NULL;
    uint32_t cap = 0, lo, hi;
    bool ok = true;
    dg_match_coll_here(x->match, &lo, &hi);
    for (uint32_t i = lo; i < hi && ok; i++) {
        int shape;
        uint32_t n = coll_members(w, i, &m, &cap, &shape, nomem);
        if (*nomem)
            break;
        if (shape == COLL_NONE || !coll_certain(m[0].rec->call))
            continue;
        for (uint32_t j = 0; j < n; j++) {
            int64_t at;
            if (coll_needed(m, n, j, shape, &at) && m[j].exit + WAIT_CLOCK_TOLERANCE_NS < at) {
                ok = false;
                break;
            }
        }
    }
    free(m);
    return ok;
}

/* ---- the three wait states ----------------------------------------------------------------- */

static uint64_t clamp_wait(int64_t gap, uint64_t dur)
{
    if (gap <= 0)
        return 0;
    return (uint64_t)gap < dur ? (uint64_t)gap : dur;
}

/* Calls, times, late senders and late receivers of rank r, event by event
 * (the records of one event are consecutive and share its index). */
static int scan_rank(struct ws *w, int r)
{
    const struct search_xrank *x = w->x;
    const struct dg_mpilog *log = x->logs[r];
    bool nomem = false;
    for (uint32_t i = 0; i < log->n;) {
        uint32_t j = i + 1;
        while (j < log->n && log->rec[j].index == log->rec[i].index)
            j++;
        const struct dg_msgrec *ev = &log->rec[i];
        uint64_t dur = dur_of(ev);
        bool listed = false;
        int64_t ls_gap = 0;
        uint64_t lr = 0;
        for (uint32_t k = i; k < j; k++) {
            const struct dg_msgrec *rc = &log->rec[k];
            if (rc->kind == DG_MSG_COLL) {
                listed = true;
            } else if (rc->kind == DG_MSG_RECV && (rc->flags & DG_MSGF_BLOCKS)) {
                /* Late sender: the receive (or the Wait completing it)
                 * entered before its send did. */
                listed = true;
                if (!w->aligned || !timed(rc) || !x->match)
                    continue;
                struct dg_pos s = dg_match_peer(x->match, (struct dg_pos){r, k});
                if (s.rank < 0 || s.rank >= x->world_size)
                    continue;
                const struct dg_msgrec *sd = rec_at(w, s);
                if (!sd || !timed(sd))
                    continue;
                int64_t gap = dg_clock_at(&w->cm[s.rank], sd->t_enter) - dg_clock_at(&w->cm[r], rc->t_enter);
                if (gap > ls_gap)
                    ls_gap = gap;
            } else if (rc->kind == DG_MSG_SEND && !(rc->flags & DG_MSGF_NONBLOCKING) &&
                       (rc->call == CHT_MPI_SEND || rc->call == CHT_MPI_SSEND)) {
                /* Late receiver: the send entered before its receive was
                 * posted and was still in the call when it was (an eager
                 * send has returned by then and waited for nothing). */
                listed = true;
                if (!w->aligned || !timed(rc) || !x->match)
                    continue;
                struct dg_pos p = dg_match_peer(x->match, (struct dg_pos){r, k});
                if (p.rank < 0 || p.rank >= x->world_size)
                    continue;
                const struct dg_msgrec *rv = rec_at(w, p);
                if (!rv || !timed(rv) || (rv->flags & DG_MSGF_NONBLOCKING))
                    continue;
                int64_t gap = dg_clock_at(&w->cm[p.rank], rv->t_enter) - dg_clock_at(&w->cm[r], rc->t_enter);
                uint64_t d = dur_of(rc);
                if (gap > 0 && d > (uint64_t)gap)
                    lr += (uint64_t)gap;
            }
        }
        if (listed) {
            struct ent *e = entry_of(w, r, ev, &nomem);
            if (nomem)
                return TRACE_ERR_NOMEM;
            if (e) {
                e->calls++;
                e->time_ns += dur;
                e->ls += clamp_wait(ls_gap, dur);
                e->lr += lr < dur ? lr : dur;
            }
        }
        i = j;
    }
    return 0;
}

/* Wait at collectives, instance by instance. */
static int scan_colls(struct ws *w)
{
    struct member *m = NULL;
    uint32_t cap = 0, lo, hi;
    bool nomem = false;
    dg_match_coll_here(w->x->match, &lo, &hi);
    for (uint32_t i = lo; i < hi && !nomem; i++) {
        int shape;
        uint32_t n = coll_members(w, i, &m, &cap, &shape, &nomem);
        if (shape == COLL_NONE)
            continue;
        for (uint32_t j = 0; j < n && !nomem; j++) {
            int64_t at;
            if (!coll_needed(m, n, j, shape, &at))
                continue;
            uint64_t wait = clamp_wait(at - m[j].enter, dur_of(m[j].rec));
            struct ent *e = entry_of(w, m[j].p.rank, m[j].rec, &nomem);
            if (e)
                e->wc += wait;
        }
    }
    free(m);
    return nomem ? TRACE_ERR_NOMEM : 0;
}

/* ---- load imbalance --------------------------------------------------------------------- */

/* Computation time of a rank: the span of its log less its time in MPI
 * calls (each event once). */
static bool comp_time(const struct dg_mpilog *log, uint64_t *out)
{
    uint64_t first = 0, last = 0, mpi = 0;
    bool any = false;
    for (uint32_t i = 0; i < log->n;) {
        uint32_t j = i + 1;
        while (j < log->n && log->rec[j].index == log->rec[i].index)
            j++;
        const struct dg_msgrec *ev = &log->rec[i];
        if (timed(ev)) {
            if (!any || ev->t_enter < first)
                first = ev->t_enter;
            if (!any || ev->t_exit > last)
                last = ev->t_exit;
            any = true;
            mpi += ev->t_exit - ev->t_enter;
        }
        i = j;
    }
    if (!any)
        return false;
    uint64_t span = last - first;
    *out = span > mpi ? span - mpi : 0;
    return true;
}

static int imbalance(const struct search_xrank *x, struct search_report *rep)
{
    uint64_t sum = 0, max = 0;
    int p = 0;
    for (int r = 0; r < x->world_size; r++) {
        uint64_t c;
        if (!x->logs[r] || !comp_time(x->logs[r], &c))
            continue;
        sum += c;
        if (c > max)
            max = c;
        p++;
    }
    if (x->xchg && x->xchg->nprocs > 1) { /* every process's ranks */
        int64_t v[2] = {(int64_t)sum, p}, mx = (int64_t)max;
        int rc = x->xchg->allreduce(x->xchg->ctx, v, 2, DG_XCHG_SUM);
        if (rc == 0)
            rc = x->xchg->allreduce(x->xchg->ctx, &mx, 1, DG_XCHG_MAX);
        if (rc < 0)
            return rc;
        sum = (uint64_t)v[0];
        p = (int)v[1];
        max = (uint64_t)mx;
    }
    rep->comp_mean_ns = p ? sum / (uint64_t)p : 0;
    rep->comp_max_ns = max;
    rep->imbalance = 0.0;
    if (p > 1 && max > 0) {
        double mean = (double)sum / (double)p;
        double s = (1.0 - mean / (double)max) / (1.0 - 1.0 / (double)p);
        rep->imbalance = s < 0 ? 0 : s > 1 ? 1 : s;
    }
    return 0;
}

/* ---- merging by location ----------------------------------------------------------------- */

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

/* Entries merge by where their hints are shown: the call's line, or its
 * calling context's anchor and the frames below it. */
static int place_cmp(const struct trace_site_info *a, const struct trace_site_info *b)
{
    struct search_loc x, y;
    search_loc_of(a, a->id, &x);
    search_loc_of(b, b->id, &y);
    int c = search_place_cmp(x.file, x.line, x.col, y.file, y.line, y.col);
    return c ? c : search_ctx_cmp(x.ctx, y.ctx);
}

static int ent_cmp(const void *pa, const void *pb)
{
    const struct ent *a = pa, *b = pb;
    int c = place_cmp(a->info, b->info);
    if (c)
        return c;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return cmp_u64(a->info->id, b->info->id);
}

static uint64_t total_wait(const struct search_waitsite *s)
{
    return s->late_sender_ns + s->late_receiver_ns + s->wait_collective_ns;
}

static int waitsite_cmp(const void *pa, const void *pb)
{
    const struct search_waitsite *a = pa, *b = pb;
    uint64_t ta = total_wait(a), tb = total_wait(b);
    if (ta != tb)
        return ta > tb ? -1 : 1;
    if (a->time_ns != b->time_ns)
        return a->time_ns > b->time_ns ? -1 : 1;
    return search_place_cmp(a->file, a->line, a->col, b->file, b->line, b->col);
}

/* ---- the entries of all processes on process 0 -------------------------------------- */

struct ent_wire {
    int32_t rank;
    uint32_t site;
    uint16_t call;
    uint64_t calls, time_ns, ls, lr, wc;
};

/* Every process's entries to process 0, which adds them to its own and
 * looks up the sites it did not know; entries whose site has no location
 * are dropped there, as entry_at does. */
static int gather(struct ws *w)
{
    const struct dg_xchg *x = w->x->xchg;
    int K = x->nprocs, rc = 0;
    struct dg_bytes *out = dg_bytes_per_proc(K), *in = dg_bytes_per_proc(K);
    if (!out || !in)
        rc = TRACE_ERR_NOMEM;
    for (size_t i = 0; i < w->nent && rc == 0 && x->proc != 0; i++) {
        const struct ent *e = &w->ent[i];
        struct ent_wire o = {e->rank, e->site, e->call, e->calls, e->time_ns, e->ls, e->lr, e->wc};
        if (!dg_bytes_put(&out[0], &o, sizeof o))
            rc = TRACE_ERR_NOMEM;
    }
    if (x->proc != 0)
        w->nent = 0;
    if ((rc = x->alltoall(x->ctx, rc, out, in)) >= 0) {
        bool nomem = false;
        for (int q = 1; q < K && !nomem; q++)
            for (size_t off = 0; off + sizeof(struct ent_wire) <= in[q].len && !nomem;
                 off += sizeof(struct ent_wire)) {
                struct ent_wire o;
                memcpy(&o, in[q].p + off, sizeof o);
                if (o.rank < 0 || o.rank >= w->x->world_size)
                    continue;
                struct ent *e = entry_at(w, o.rank, o.site, o.call, &nomem);
                if (!e)
                    continue;
                e->calls += o.calls;
                e->time_ns += o.time_ns;
                e->ls += o.ls;
                e->lr += o.lr;
                e->wc += o.wc;
            }
        rc = nomem ? TRACE_ERR_NOMEM : 0;
    }
    dg_bytes_per_proc_free(out, K);
    dg_bytes_per_proc_free(in, K);
    if (rc < 0 || x->proc != 0)
        return rc;
    /* sites of ranks whose results process 0 does not have: left out */
    size_t k = 0;
    for (size_t i = 0; i < w->nent; i++)
        if (located(w->ent[i].info))
            w->ent[k++] = w->ent[i];
    w->nent = k;
    return 0;
}

static int merge(struct ws *w, struct search_report *rep)
{
    if (!w->nent)
        return 0;
    qsort(w->ent, w->nent, sizeof *w->ent, ent_cmp);
    struct search_waitsite *v = calloc(w->nent, sizeof *v);
    if (!v)
        return TRACE_ERR_NOMEM;
    uint32_t n = 0;
    for (size_t i = 0; i < w->nent;) {
        const struct trace_site_info *in = w->ent[i].info;
        size_t j = i + 1;
        while (j < w->nent && !place_cmp(w->ent[j].info, in))
            j++;
        struct search_waitsite *s = &v[n];
        struct search_loc at;
        search_loc_of(in, in->id, &at);
        s->file = at.file;
        s->func = nz(at.func);
        s->line = at.line;
        s->col = at.col;
        s->ctx = at.ctx;
        s->call = w->ent[i].call;
        for (size_t k = i; k < j; k++) {
            const struct ent *e = &w->ent[k];
            if (k == i || e->rank != w->ent[k - 1].rank)
                s->nranks++;
            s->calls += e->calls;
            s->time_ns += e->time_ns;
            s->late_sender_ns += e->ls;
            s->late_receiver_ns += e->lr;
            s->wait_collective_ns += e->wc;
        }
        /* A site reached only by events that were not counted (a Wait of
         * a collective member without times) is left out. */
        if (s->calls)
            n++;
        else
            memset(s, 0, sizeof *s);
        i = j;
    }
    if (!n) {
        free(v);
        return 0;
    }
    qsort(v, n, sizeof *v, waitsite_cmp);
    rep->waits = v;
    rep->nwaits = n;
    return 0;
}

/* ---- entry points ------------------------------------------------------------------------ */

int search_waitstates(const struct search_xrank *x, struct search_report *rep)
{
    struct ws w = {.x = x};
    int rc = 0;
    bool nomem = false;

    if (!x || !rep || x->world_size < 0 || (x->world_size && !x->logs))
        return TRACE_ERR_ARG;
    const struct dg_xchg *xc = x->xchg ? x->xchg : dg_xchg_serial();
    rep->nwaits = 0;
    rep->waits = NULL;
    rep->clocks_aligned = false;
    rep->unmatched_sends = rep->unmatched_recvs = rep->incomplete_colls = 0;
    if ((rc = imbalance(x, rep)) < 0)
        return rc;
    if (!x->world_size)
        return 0;
    if (x->match) {
        rep->unmatched_sends = dg_match_unmatched_sends(x->match);
        rep->unmatched_recvs = dg_match_unmatched_recvs(x->match);
        rep->incomplete_colls = dg_match_incomplete_colls(x->match);
    }

    w.cm = calloc((size_t)x->world_size, sizeof *w.cm);
    w.sites = calloc((size_t)x->world_size, sizeof *w.sites);
    if ((rc = dg_xchg_agree(xc, w.cm && w.sites ? 0 : TRACE_ERR_NOMEM)) < 0)
        goto out;
    /* Clocks: the cross-rank stage's common clock (clocks.c); every rank
     * with a log needs a sample for the ranks' times to be related. */
    for (int r = 0; r < x->world_size && x->clocks.cm; r++)
        w.cm[r] = x->clocks.cm[r];
    w.aligned = x->clocks.cm && x->clocks.sampled && x->match && clocks_consistent(&w, &nomem);
    if (xc->nprocs > 1) {
        /* every process's messages and instances consistent */
        int64_t v[2] = {w.aligned, nomem ? TRACE_ERR_NOMEM : 0};
        if ((rc = xc->allreduce(xc->ctx, v, 2, DG_XCHG_MIN)) < 0)
            goto out;
        w.aligned = v[0] != 0;
        nomem = v[1] < 0;
    }
    if (nomem) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    rep->clocks_aligned = w.aligned;

    for (int r = 0; r < x->world_size && rc == 0; r++)
        if (x->logs[r])
            rc = scan_rank(&w, r);
    if (rc == 0 && w.aligned && x->match)
        rc = scan_colls(&w);
    if ((rc = dg_xchg_agree(xc, rc)) < 0 || (xc->nprocs > 1 && (rc = gather(&w)) < 0))
        goto out;
    if (xc->proc == 0)
        rc = merge(&w, rep);
out:
    if (w.sites)
        for (int r = 0; r < x->world_size; r++)
            dg_map_free(&w.sites[r]);
    free(w.sites);
    free(w.cm);
    free(w.ent);
    return rc;
}
