/* calls.c - the calls, messages and clock of an analysis kept with
 * keep_ranks, as timelines show them (the viewer's timeline and statistics,
 * `commhint export`): every rank's MPI log indexed by call, its records
 * (parts) matched across ranks (depgraph's dg_match), and every time put on
 * one clock.
 *
 * The clock is the cross-rank stage's (search/xrank/clocks.c: one host's
 * CLOCK_MONOTONIC as recorded, or CLOCK_REALTIME through each rank's clock
 * samples for ranks of different hosts); times are counted from the
 * earliest call of any rank.  A call without times
 * (its record has none) is placed at the end of the call before it, or at
 * the rank's first time. */
#include <stdlib.h>
#include <string.h>

#include "analysis-private.h"

/* ---- classes ------------------------------------------------------------------- */

int search_call_class_of(uint16_t call)
{
    switch (call) {
    case CHT_MPI_SEND:
    case CHT_MPI_SSEND:
    case CHT_MPI_BSEND:
    case CHT_MPI_RSEND:
    case CHT_MPI_ISEND:
    case CHT_MPI_ISSEND:
    case CHT_MPI_IBSEND:
    case CHT_MPI_IRSEND: return SEARCH_CALL_SEND;
    case CHT_MPI_RECV:
    case CHT_MPI_IRECV:
    case CHT_MPI_SENDRECV:
    case CHT_MPI_SENDRECV_REPLACE:
    case CHT_MPI_PROBE:
    case CHT_MPI_IPROBE:
    case CHT_MPI_MPROBE:
    case CHT_MPI_IMPROBE:
    case CHT_MPI_MRECV:
    case CHT_MPI_IMRECV:
    case CHT_MPI_ISENDRECV:
    case CHT_MPI_ISENDRECV_REPLACE: return SEARCH_CALL_RECV;
    default: break;
    }
    if (call >= CHT_MPI_WAIT && call < CHT_MPI_BARRIER)
        return SEARCH_CALL_WAIT;
    if (call >= CHT_MPI_BARRIER && call < CHT_MPI_COMM_DUP)
        return SEARCH_CALL_COLL;
    /* every form of a collective: Alltoallw, nonblocking, persistent, neighbourhood */
    int base = trace_mpi_call_base(call);
    if ((base >= CHT_MPI_BARRIER && base <= CHT_MPI_EXSCAN) || base == CHT_MPI_ALLTOALLW ||
        (base >= CHT_MPI_NEIGHBOR_ALLGATHER && base <= CHT_MPI_NEIGHBOR_ALLTOALLW))
        return SEARCH_CALL_COLL;
    return SEARCH_CALL_OTHER;
}

const char *search_call_class_name(int cls)
{
    static const char *const names[SEARCH_CALL_NCLASS] = {"send", "receive", "collective", "wait", "other"};
    return cls >= 0 && cls < SEARCH_CALL_NCLASS ? names[cls] : "?";
}

/* ---- the clock --------------------------------------------------------------------- */

/* The cross-rank stage's rule (search/xrank/clocks.c), and the earliest
 * call of any rank as time 0. */
static int choose_clock(struct search_analysis *a)
{
    const struct dg_mpilog **logs = calloc(a->world > 0 ? (size_t)a->world : 1, sizeof *logs);
    struct search_clocks c;
    if (!logs)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < a->world; r++)
        logs[r] = a->res[r] ? &a->res[r]->log : NULL;
    int rc = search_clocks_build(logs, a->world, &c);
    free(logs);
    if (rc < 0)
        return rc;
    a->clock = c.mode;
    for (int r = 0; r < a->world; r++)
        a->ranks[r].cm = c.cm[r];
    search_clocks_free(&c);
    bool have_base = false;
    a->base = 0;
    for (int r = 0; r < a->world; r++) {
        const struct search_rank_result *res = a->res[r];
        for (uint32_t i = 0; res && i < res->log.n; i++) {
            if (!res->log.rec[i].t_enter)
                continue;
            int64_t v = dg_clock_at(&a->ranks[r].cm, res->log.rec[i].t_enter);
            if (!have_base || v < a->base)
                a->base = v;
            have_base = true;
        }
    }
    return 0;
}

uint64_t search_analysis_time(const struct search_analysis *a, int rank, uint64_t mono_ns)
{
    if (!a || !a->ranks || rank < 0 || rank >= a->world || !mono_ns)
        return 0;
    int64_t v = dg_clock_at(&a->ranks[rank].cm, mono_ns) - a->base;
    return v > 0 ? (uint64_t)v : 0;
}

int search_analysis_clock(const struct search_analysis *a)
{
    return a ? a->clock : SEARCH_CLOCK_MONOTONIC;
}

uint64_t search_analysis_end(const struct search_analysis *a)
{
    return a ? a->end : 0;
}

/* ---- calls ------------------------------------------------------------------------- */

static int siteinfo_index(const struct search_rank_result *r, uint32_t site)
{
    uint32_t lo = 0, hi = r->nsiteinfo;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->siteinfo[mid].site < site)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nsiteinfo && r->siteinfo[lo].site == site ? (int)lo : -1;
}

/* The rank's run (struct search_rank_run) from its timed calls. */
static void rank_run(const struct an_rank *ar, struct search_rank_run *out)
{
    uint64_t first = UINT64_MAX, last = 0, init_end = 0, fin_start = UINT64_MAX;
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < ar->ncalls; i++) {
        const struct search_call *c = &ar->calls[i];
        if (!c->timed)
            continue;
        if (c->t_enter < first)
            first = c->t_enter;
        if (c->t_exit > last)
            last = c->t_exit;
        if ((c->call == CHT_MPI_INIT || c->call == CHT_MPI_INIT_THREAD) && c->t_exit > init_end)
            init_end = c->t_exit;
        if (c->call == CHT_MPI_FINALIZE && c->t_enter < fin_start)
            fin_start = c->t_enter;
    }
    if (first == UINT64_MAX)
        return;
    out->timed = true;
    uint64_t start = init_end ? init_end : first, end = fin_start != UINT64_MAX ? fin_start : last;
    if (end < start)
        end = start;
    out->run_ns = end - start;
    for (uint32_t i = 0; i < ar->ncalls; i++) {
        const struct search_call *c = &ar->calls[i];
        if (!c->timed || c->call == CHT_MPI_INIT || c->call == CHT_MPI_INIT_THREAD ||
            c->call == CHT_MPI_FINALIZE || c->call == CHT_MPI_CLOCK ||
            c->call == CHT_MPI_EXTERN) /* clock reads and library calls are computation */
            continue;
        uint64_t s = c->t_enter < start ? start : c->t_enter, z = c->t_exit > end ? end : c->t_exit;
        if (z > s)
            out->mpi_ns += z - s;
        out->calls++;
    }
    out->comp_ns = out->run_ns > out->mpi_ns ? out->run_ns - out->mpi_ns : 0;
}

/* Indexes rank r's log into calls, with times on the common clock. */
static int index_rank(struct search_analysis *a, int r)
{
    const struct search_rank_result *res = a->res[r];
    const struct dg_mpilog *log = &res->log;
    struct an_rank *ar = &a->ranks[r];
    size_t n = log->n ? log->n : 1;
    if (!(ar->calls = malloc(n * sizeof *ar->calls)) || !(ar->call_of = malloc(n * sizeof *ar->call_of)) ||
        !(ar->first = malloc((res->nsiteinfo ? res->nsiteinfo : 1) * sizeof *ar->first)))
        return TRACE_ERR_NOMEM;
    for (uint32_t i = 0; i < res->nsiteinfo; i++)
        ar->first[i] = UINT32_MAX;
    uint64_t known = 0, prev_exit = 0;
    for (uint32_t i = 0; i < log->n && !known; i++)
        known = log->rec[i].t_enter;
    for (uint32_t i = 0; i < log->n; i++) {
        const struct dg_msgrec *rec = &log->rec[i];
        int k = siteinfo_index(res, rec->site);
        if (k >= 0 && ar->first[k] == UINT32_MAX)
            ar->first[k] = i;
        if (i && log->rec[i - 1].index == rec->index) {
            ar->call_of[i] = ar->ncalls - 1;
            ar->calls[ar->ncalls - 1].nparts++;
            continue;
        }
        struct search_call *c = &ar->calls[ar->ncalls];
        uint64_t te = rec->t_enter, tx = rec->t_exit;
        c->timed = te != 0;
        if (!te) {
            te = prev_exit ? prev_exit : known;
            tx = te;
        }
        if (tx < te)
            tx = te;
        prev_exit = tx;
        c->index = rec->index;
        c->call = rec->call;
        c->cls = (uint8_t)search_call_class_of(rec->call);
        c->t_enter = search_analysis_time(a, r, te);
        c->t_exit = search_analysis_time(a, r, tx);
        c->comm = rec->comm;
        c->site = rec->site;
        c->info = k >= 0 ? res->siteinfo[k].info : NULL;
        c->first = i;
        c->nparts = 1;
        c->ordinal = ar->ncalls;
        ar->call_of[i] = ar->ncalls++;
        if (c->t_exit > a->end)
            a->end = c->t_exit;
    }
    ar->unlogged = res->mpi_events > ar->ncalls ? res->mpi_events - ar->ncalls : 0;
    rank_run(ar, &ar->run);
    return 0;
}

int search_analysis_calls_build(struct search_analysis *a)
{
    const struct dg_mpilog **logs = calloc(a->world > 0 ? (size_t)a->world : 1, sizeof *logs);
    if (!logs)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < a->world; r++)
        logs[r] = a->res[r] ? &a->res[r]->log : NULL;
    int rc = dg_match_build(logs, a->world, &a->match);
    free(logs);
    if (rc < 0)
        return rc;
    if ((rc = choose_clock(a)) < 0)
        return rc;
    a->end = 0;
    for (int r = 0; r < a->world; r++)
        if (a->res[r] && (rc = index_rank(a, r)) < 0)
            return rc;
    return 0;
}

void search_analysis_calls_free(struct search_analysis *a)
{
    if (a->ranks)
        for (int r = 0; r < a->world; r++) {
            free(a->ranks[r].calls);
            free(a->ranks[r].call_of);
            free(a->ranks[r].first);
            memset(&a->ranks[r], 0, sizeof a->ranks[r]);
        }
    if (a->match)
        dg_match_destroy(a->match);
    a->match = NULL;
}

static const struct an_rank *kept(const struct search_analysis *a, int rank)
{
    return a && a->match && rank >= 0 && rank < a->world && a->res[rank] ? &a->ranks[rank] : NULL;
}

uint32_t search_analysis_ncalls(const struct search_analysis *a, int rank)
{
    const struct an_rank *ar = kept(a, rank);
    return ar ? ar->ncalls : 0;
}

const struct search_call *search_analysis_call(const struct search_analysis *a, int rank, uint32_t i)
{
    const struct an_rank *ar = kept(a, rank);
    return ar && i < ar->ncalls ? &ar->calls[i] : NULL;
}

uint32_t search_analysis_nparts(const struct search_analysis *a, int rank)
{
    return kept(a, rank) ? a->res[rank]->log.n : 0;
}

void search_analysis_part(const struct search_analysis *a, int rank, uint32_t i, struct search_part *out)
{
    const struct an_rank *ar = kept(a, rank);
    memset(out, 0, sizeof *out);
    out->match_rank = -1;
    out->peer = out->tag = -1;
    out->coll = UINT32_MAX;
    if (!ar || i >= a->res[rank]->log.n)
        return;
    const struct dg_msgrec *r = &a->res[rank]->log.rec[i];
    out->kind = r->kind == DG_MSG_SEND   ? SEARCH_PART_SEND
                : r->kind == DG_MSG_RECV ? SEARCH_PART_RECV
                : r->kind == DG_MSG_COLL ? SEARCH_PART_COLL
                                         : SEARCH_PART_OTHER;
    out->peer = r->peer;
    out->tag = r->tag;
    out->bytes = r->bytes;
    out->rbytes = r->rbytes;
    out->call = ar->call_of[i];
    struct dg_pos p = {rank, i};
    if (out->kind == SEARCH_PART_SEND || out->kind == SEARCH_PART_RECV) {
        struct dg_pos q = dg_match_peer(a->match, p);
        if (q.rank >= 0 && q.rank < a->world && a->res[q.rank] && q.pos < a->res[q.rank]->log.n) {
            out->match_rank = q.rank;
            out->match_part = q.pos;
        }
    } else if (out->kind == SEARCH_PART_COLL) {
        out->coll = dg_match_coll_of(a->match, p);
        if (out->coll != UINT32_MAX)
            dg_match_coll(a->match, out->coll, &out->coll_members);
    }
}

static bool same_file(const char *x, const char *y)
{
    return !strcmp(x ? x : "", y ? y : "");
}

uint32_t search_analysis_first_part_at(const struct search_analysis *a, int rank, const char *file,
                                       uint32_t line, uint32_t col, int call)
{
    const struct an_rank *ar = kept(a, rank);
    uint32_t best = UINT32_MAX;
    if (!ar)
        return best;
    const struct search_rank_result *res = a->res[rank];
    for (uint32_t k = 0; k < res->nsiteinfo; k++) {
        const struct trace_site_info *si = res->siteinfo[k].info;
        uint32_t p = ar->first[k];
        if (!si || p == UINT32_MAX || p >= best || si->line != line || !same_file(si->file, file))
            continue;
        if (call < 0 || (si->col == col && res->log.rec[p].call == call))
            best = p;
    }
    return best;
}

uint32_t search_analysis_first_part_of_hint(const struct search_analysis *a, int rank, const struct search_hint *h)
{
    const struct an_rank *ar = kept(a, rank);
    uint32_t best = UINT32_MAX, rel = UINT32_MAX;
    if (!ar || !h)
        return best;
    const struct search_rank_result *res = a->res[rank];
    for (uint32_t k = 0; k < res->nsiteinfo; k++) {
        const struct trace_site_info *si = res->siteinfo[k].info;
        uint32_t p = ar->first[k];
        if (!si || p == UINT32_MAX)
            continue;
        if (p < best && search_hint_at_site(h, si, false))
            best = p;
        else if (p < rel && search_hint_at_site(h, si, true))
            rel = p;
    }
    return best != UINT32_MAX ? best : rel;
}

const struct trace_site_info *search_analysis_part_info(const struct search_analysis *a, int rank, uint32_t i)
{
    const struct an_rank *ar = kept(a, rank);
    if (!ar || i >= a->res[rank]->log.n)
        return NULL;
    return search_site_info(a->res[rank], a->res[rank]->log.rec[i].site);
}

uint64_t search_analysis_unlogged_calls(const struct search_analysis *a, int rank)
{
    const struct an_rank *ar = kept(a, rank);
    return ar ? ar->unlogged : 0;
}

void search_analysis_rank_run(const struct search_analysis *a, int rank, struct search_rank_run *out)
{
    const struct an_rank *ar = kept(a, rank);
    if (ar)
        *out = ar->run;
    else
        memset(out, 0, sizeof *out);
}
