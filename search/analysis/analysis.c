/* analysis.c - the one entry point of the analysis (search_analyse): every
 * rank with a stream file through its engine (here, or spread over the
 * processes of an MPI job by a driver), the warnings about the ranks left
 * out or cut short, then the cross-rank stage and the report.  `commhint
 * hints`, `commhint export` and the viewer all load a trace through it and
 * only present what it returns (sysprof's one document loader).
 *
 * With keep_ranks the results stay, and their MPI logs are matched across
 * ranks and put on one clock for the calls and messages of timelines
 * (calls.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis-private.h"

/* ---- warnings and progress --------------------------------------------------------- */

static void warn(const struct search_analysis_opts *o, int rank, int what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void warn(const struct search_analysis_opts *o, int rank, int what, const char *fmt, ...)
{
    if (!o->warn)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    o->warn(o->warn_ctx, rank, what, msg);
}

static void warn_missing(const struct search_analysis_opts *o, struct trace *t, int r)
{
    warn(o, r, SEARCH_WARN_NO_STREAM, "rank %d has no stream file and is left out: file=%s", r,
         trace_rank_path(t, r));
}

static void warn_failed(const struct search_analysis_opts *o, int r, int rc, const char *msg)
{
    if (msg && msg[0])
        warn(o, r, SEARCH_WARN_FAILED, "rank %d could not be analysed and is left out: %s", r, msg);
    else
        warn(o, r, SEARCH_WARN_FAILED, "rank %d could not be analysed and is left out: reason=%s", r,
             trace_status_str(rc));
}

/* (the file, not where it was cut: a driver has only the flag; `commhint
 * info` says where) */
static void warn_cut_short(const struct search_analysis_opts *o, struct trace *t, int r)
{
    warn(o, r, SEARCH_WARN_CUT_SHORT, "rank %d was cut short; analysing what it recorded: file=%s", r,
         trace_rank_path(t, r));
}

/* What a rank's result says about its trace. */
static void warn_rank_facts(const struct search_analysis_opts *o, struct trace *t,
                            const struct search_rank_result *rr)
{
    if (rr->cut_short)
        warn_cut_short(o, t, rr->rank);
}

/* Once for the run: calls whose code an older pass built (their register
 * and control dependences are unknown, so a statement such a call needs
 * may be listed as movable). */
static void warn_old_pass(const struct search_analysis_opts *o, const struct search_analysis *a)
{
    uint64_t calls = 0;
    int ranks = 0;
    for (int r = 0; r < a->world; r++)
        if (a->res[r] && a->res[r]->unknown_producers) {
            calls += a->res[r]->unknown_producers;
            ranks++;
        }
    if (calls)
        warn(o, -1, SEARCH_WARN_NO_DEPS,
             "%llu MPI calls on %d rank%s come from code built by an older commhint pass, without "
             "register and control dependences: their hints may list statements the calls need "
             "(rebuild with this commhint)", (unsigned long long)calls, ranks, ranks == 1 ? "" : "s");
}

struct progress {
    const struct search_analysis_opts *o;
    int rank, index, count;
    uint64_t done_before, total;
};

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
    struct progress *p = ctx;
    (void)total;
    p->o->progress(p->o->progress_ctx, p->rank, p->index, p->count, p->done_before + done, p->total);
}

/* A driver reports the bytes of its share itself. */
static void share_progress_cb(void *ctx, uint64_t done, uint64_t total)
{
    struct progress *p = ctx;
    p->o->progress(p->o->progress_ctx, -1, 0, p->count, done, total);
}

/* ---- the per-rank stage -------------------------------------------------------------- */

/* Every rank in this process, in rank order; results in a->res. */
static int run_serial(struct search_analysis *a, const struct search_analysis_opts *o)
{
    struct trace *t = a->trace;
    struct progress pg = {.o = o};
    for (int r = 0; r < a->world; r++)
        if (trace_has_rank(t, r)) {
            pg.count++;
            pg.total += trace_rank_file_size(t, r);
        }
    for (int r = 0; r < a->world; r++) {
        if (!trace_has_rank(t, r)) {
            a->missing[r] = true;
            warn_missing(o, t, r);
            continue;
        }
        pg.index++;
        pg.rank = r;
        if (o->progress)
            progress_cb(&pg, 0, 0);
        struct trace_err err;
        struct search_rank_result *rr = NULL;
        err.msg[0] = '\0';
        int rc = search_run_rank(t, r, &o->search, o->progress ? progress_cb : NULL, &pg, &rr, &err);
        pg.done_before += trace_rank_file_size(t, r);
        if (rc < 0) {
            warn_failed(o, r, rc, err.msg);
            continue;
        }
        warn_rank_facts(o, t, rr);
        a->res[r] = rr;
        a->nres++;
    }
    return 0;
}

/* The ranks spread over the processes of a driver; on the leader the
 * results in a->res and the warnings run_serial gives, in rank order. */
static int run_driver(struct search_analysis *a, const struct search_analysis_opts *o, struct trace_err *err)
{
    struct trace *t = a->trace;
    struct progress pg = {.o = o};
    struct search_rank_result **got = NULL;
    struct search_rank_failure *failed = NULL;
    int n = 0, nfailed = 0;
    for (int r = 0; r < a->world; r++)
        pg.count += trace_has_rank(t, r);
    int rc = o->driver->run(t, &o->search, o->progress ? share_progress_cb : NULL, &pg, &got, &n, &failed,
                            &nfailed, &a->leader, err);
    if (rc < 0)
        return rc;
    if (!a->leader) {
        /* this process's ranks, for its part of the cross-rank stage */
        for (int k = 0; k < n; k++)
            if (got[k]->rank >= 0 && got[k]->rank < a->world && !a->res[got[k]->rank]) {
                a->res[got[k]->rank] = got[k];
                a->nres++;
            }
    }
    for (int r = 0, k = 0, f = 0; r < a->world && a->leader; r++) {
        if (!trace_has_rank(t, r)) {
            a->missing[r] = true;
            warn_missing(o, t, r);
        } else if (f < nfailed && failed[f].rank == r) {
            warn_failed(o, r, failed[f].status, failed[f].msg);
            f++;
        } else if (k < n && got[k]->rank == r) {
            warn_rank_facts(o, t, got[k]);
            a->res[r] = got[k++];
            a->nres++;
        }
    }
    /* (results of ranks out of order cannot come from a driver; if one did,
     * it is freed here rather than lost) */
    for (int k = 0; k < n; k++)
        if (got[k]->rank < 0 || got[k]->rank >= a->world || a->res[got[k]->rank] != got[k])
            search_rank_result_free(got[k]);
    free(got);
    free(failed);
    return 0;
}

/* ---- the whole ------------------------------------------------------------------------ */

static struct search_analysis *analysis_new(int world)
{
    struct search_analysis *a = calloc(1, sizeof *a);
    size_t n = world > 0 ? (size_t)world : 1;
    if (!a)
        return NULL;
    a->world = world;
    a->leader = true;
    a->res = calloc(n, sizeof *a->res);
    a->missing = calloc(n, sizeof *a->missing);
    a->ranks = calloc(n, sizeof *a->ranks);
    if (!a->res || !a->missing || !a->ranks) {
        search_analysis_free(a);
        return NULL;
    }
    return a;
}

/* The cross-rank stage and the report over a->res; with keep_ranks the
 * calls of every rank. */
/* The report over a->res (in rank order) with options o. */
static int build_report(const struct search_analysis *a, const struct search_report_opts *o,
                        struct search_report **out)
{
    struct search_rank_result **dense = calloc(a->nres ? (size_t)a->nres : 1, sizeof *dense);
    if (!dense) {
        search_report_cancel(a->stage, TRACE_ERR_NOMEM);
        return TRACE_ERR_NOMEM;
    }
    int n = 0;
    for (int r = 0; r < a->world; r++)
        if (a->res[r])
            dense[n++] = a->res[r];
    int rc = a->stage ? search_report_build_dist(dense, n, a->world, o, a->stage, a->owner, out)
                      : search_report_build(dense, n, a->world, o, out);
    free(dense);
    return rc;
}

/* A process other than the leader: its part of the cross-rank stage. */
static int follow(struct search_analysis *a)
{
    struct search_rank_result **dense = calloc(a->nres ? (size_t)a->nres : 1, sizeof *dense);
    int n = 0, rc;
    for (int r = 0; dense && r < a->world; r++)
        if (a->res[r])
            dense[n++] = a->res[r];
    if (!dense) {
        /* still one call, which the others' agreement meets */
        rc = search_report_follow(NULL, 0, a->world, a->stage, a->owner);
        return rc < 0 ? rc : TRACE_ERR_NOMEM;
    }
    rc = search_report_follow(dense, n, a->world, a->stage, a->owner);
    free(dense);
    return rc;
}

int search_analysis_report_again(const struct search_analysis *a, const struct search_report_opts *o,
                                 struct search_report **out)
{
    if (!a || !out || !a->leader || !a->nres || !a->report)
        return TRACE_ERR_ARG;
    *out = NULL;
    bool kept = false; /* without keep_ranks the results are freed */
    for (int r = 0; r < a->world && !kept; r++)
        kept = a->res[r] != NULL;
    return kept ? build_report(a, o, out) : TRACE_ERR_ARG;
}

static int finish(struct search_analysis *a, const struct search_analysis_opts *o, struct trace_err *err)
{
    int rc = build_report(a, &o->report, &a->report);
    a->stage = NULL; /* the other processes have left the stage: a report again is this process's */
    if (rc == TRACE_ERR_NOMEM)
        goto nomem;
    if (rc < 0) {
        snprintf(err->msg, sizeof err->msg, "cannot merge the ranks' results into hints: reason=%s",
                 trace_status_str(rc));
        return rc;
    }
    if (!o->keep_ranks) {
        /* the report holds no pointer into the results */
        for (int r = 0; r < a->world; r++) {
            if (a->owns)
                search_rank_result_free(a->res[r]);
            a->res[r] = NULL;
        }
        return 0;
    }
    if ((rc = search_analysis_calls_build(a)) < 0) {
        snprintf(err->msg, sizeof err->msg, "cannot match the ranks' messages: reason=%s",
                 trace_status_str(rc));
        return rc;
    }
    return 0;
nomem:
    snprintf(err->msg, sizeof err->msg, "out of memory");
    return TRACE_ERR_NOMEM;
}

int search_analyse(struct trace *t, const struct search_analysis_opts *o, struct search_analysis **out,
                   struct trace_err *err)
{
    struct search_analysis *a = NULL;
    int rc;

    err->msg[0] = '\0';
    if (!out || !t || !o)
        return TRACE_ERR_ARG;
    *out = NULL;
    if (o->driver && o->keep_ranks && search_xrank_replay_may_spread()) {
        /* the calls of every rank need every log here, which the driver
         * does not send when the predictions are replayed spread (which
         * it may choose only once the ranks are analysed) */
        snprintf(err->msg, sizeof err->msg,
                 "keeping every rank's calls needs their logs on this process: set COMMHINT_SPREAD_REPLAY=0");
        return TRACE_ERR_ARG;
    }
    int world = trace_world_size(t);
    if (!(a = analysis_new(world))) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return TRACE_ERR_NOMEM;
    }
    a->trace = t;
    a->owns = true;
    if (o->search.call_depth)
        trace_set_call_depth(t, o->search.call_depth < 0 ? 0 : (unsigned)o->search.call_depth);
    rc = o->driver ? run_driver(a, o, err) : run_serial(a, o);
    if (rc < 0)
        goto fail;
    if (o->driver && o->driver->stage)
        a->stage = o->driver->stage(&a->owner);
    if (!a->leader) {
        /* the results are this process's ranks', for the stage only */
        if (a->stage && (rc = follow(a)) < 0) {
            snprintf(err->msg, sizeof err->msg, "the cross-rank stage failed: reason=%s", trace_status_str(rc));
            goto fail;
        }
        for (int r = 0; r < a->world; r++) {
            search_rank_result_free(a->res[r]);
            a->res[r] = NULL;
        }
        a->nres = 0;
        *out = a;
        return 0;
    }
    warn_old_pass(o, a);
    if (!a->nres) {
        rc = TRACE_ERR_NOT_FOUND;
        snprintf(err->msg, sizeof err->msg, "no rank could be analysed: dir=%s world_size=%d", trace_dir(t),
                 world);
        search_report_cancel(a->stage, rc);
        goto fail;
    }
    if ((rc = finish(a, o, err)) < 0)
        goto fail;
    *out = a;
    return 0;
fail:
    search_analysis_free(a);
    return rc;
}

int search_analysis_from_results(struct search_rank_result *const *ranks, int n, int world_size,
                                 const struct search_analysis_opts *o, struct search_analysis **out,
                                 struct trace_err *err)
{
    err->msg[0] = '\0';
    if (!out || !o || n < 0 || (n && !ranks))
        return TRACE_ERR_ARG;
    *out = NULL;
    int world = world_size;
    for (int i = 0; i < n; i++)
        if (ranks[i] && ranks[i]->rank >= world)
            world = ranks[i]->rank + 1;
    struct search_analysis *a = analysis_new(world);
    if (!a) {
        snprintf(err->msg, sizeof err->msg, "out of memory");
        return TRACE_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++)
        if (ranks[i] && ranks[i]->rank >= 0 && !a->res[ranks[i]->rank]) {
            a->res[ranks[i]->rank] = ranks[i];
            a->nres++;
        }
    int rc = finish(a, o, err);
    if (rc < 0) {
        search_analysis_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

void search_analysis_free(struct search_analysis *a)
{
    if (!a)
        return;
    search_analysis_calls_free(a);
    search_report_free(a->report);
    if (a->res && a->owns)
        for (int r = 0; r < a->world; r++)
            search_rank_result_free(a->res[r]);
    free(a->res);
    free(a->missing);
    free(a->ranks);
    free(a);
}

const struct search_report *search_analysis_report(const struct search_analysis *a)
{
    return a && a->leader ? a->report : NULL;
}

int search_analysis_world_size(const struct search_analysis *a)
{
    return a ? a->world : 0;
}

const struct search_rank_result *search_analysis_rank(const struct search_analysis *a, int rank)
{
    return a && rank >= 0 && rank < a->world ? a->res[rank] : NULL;
}

bool search_analysis_rank_missing(const struct search_analysis *a, int rank)
{
    return a && rank >= 0 && rank < a->world && a->missing[rank];
}

/* ---- the per-rank result, for the front ends --------------------------------------------- */

int search_rank_result_rank(const struct search_rank_result *r)
{
    return r ? r->rank : -1;
}

const struct search_overlap *search_rank_overlaps(const struct search_rank_result *r, uint32_t *n)
{
    *n = r ? r->noverlaps : 0;
    return r ? r->overlaps : NULL;
}

const struct search_group *search_rank_groups(const struct search_rank_result *r, uint32_t *n)
{
    *n = r ? r->ngroups : 0;
    return r ? r->groups : NULL;
}

const struct search_siteinfo *search_rank_sites(const struct search_rank_result *r, uint32_t *n)
{
    *n = r ? r->nsiteinfo : 0;
    return r ? r->siteinfo : NULL;
}

bool search_rank_cut_short(const struct search_rank_result *r)
{
    return r && r->cut_short;
}

int search_memory_limit_from_env(const char **bad)
{
    return dg_shadow_limit_from_env(bad);
}
