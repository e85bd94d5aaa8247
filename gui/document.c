/* document.c - loads what the viewer shows from a trace directory, with
 * the same analysis calls as `commhint hints`: every rank with a stream
 * file through search_run_rank, the results merged into hints by
 * search_report_build (no filter), and the ranks' MPI logs matched for the
 * timeline.  No GTK here: the loading thread calls it as it is, and tests
 * can too. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "document.h"

/* Progress over all rank files, by bytes read. */
struct load_progress {
    cv_progress_fn fn;
    void *ctx;
    int index, count;     /* rank being analysed (from 1) of count */
    uint64_t done_before; /* bytes of the ranks analysed before */
    uint64_t total;       /* bytes of all rank files */
    char what[64];
};

static uint64_t file_size(const char *path)
{
    struct stat sb;
    return path && stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

static void progress_report(struct load_progress *p, uint64_t done)
{
    if (!p->fn)
        return;
    double frac = p->total ? (double)(p->done_before + done) / (double)p->total
                           : (double)(p->index > 0 ? p->index - 1 : 0) / (double)(p->count ? p->count : 1);
    if (frac > 1)
        frac = 1;
    if (frac < 0)
        frac = 0;
    p->fn(p->ctx, frac, p->what);
}

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
    (void)total;
    progress_report(ctx, done);
}

/* Appends one line to *buf (malloc'ed, grows); out of memory loses the
 * line, not the load. */
static void append_line(char **buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append_line(char **buf, const char *fmt, ...)
{
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t old = *buf ? strlen(*buf) : 0, add = strlen(line);
    char *p = realloc(*buf, old + add + 2);
    if (!p)
        return;
    memcpy(p + old, line, add);
    p[old + add] = '\n';
    p[old + add + 1] = '\0';
    *buf = p;
}

static void set_error(char **error, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_error(char **error, const char *fmt, ...)
{
    if (!error)
        return;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    *error = strdup(msg);
}

int cv_document_load(const char *dir, cv_progress_fn progress, void *ctx, struct cv_document **out,
                     char **error)
{
    struct cv_document *d = NULL;
    struct search_rank_result **compact = NULL;
    const struct dg_mpilog **logs = NULL;
    struct trace_err err;
    int rc, nres = 0;

    if (error)
        *error = NULL;
    if (out)
        *out = NULL;
    if (!dir || !out) {
        set_error(error, "no trace directory given");
        return TRACE_ERR_ARG;
    }
    err.msg[0] = '\0';
    d = calloc(1, sizeof *d);
    if (!d || !(d->dir = strdup(dir))) {
        rc = TRACE_ERR_NOMEM;
        set_error(error, "out of memory while opening the trace: dir=%s", dir);
        goto fail;
    }
    if ((rc = trace_open(dir, &d->trace, &err)) < 0) {
        if (err.msg[0])
            set_error(error, "%s", err.msg);
        else
            set_error(error, "cannot open the trace: dir=%s reason=%s", dir, trace_status_str(rc));
        goto fail;
    }
    d->world_size = trace_world_size(d->trace);
    if (d->world_size <= 0) {
        rc = TRACE_ERR_FORMAT;
        set_error(error, "the trace names no ranks: dir=%s world_size=%d", dir, d->world_size);
        goto fail;
    }
    d->rank = calloc((size_t)d->world_size, sizeof *d->rank);
    compact = calloc((size_t)d->world_size, sizeof *compact);
    logs = calloc((size_t)d->world_size, sizeof *logs);
    if (!d->rank || !compact || !logs) {
        rc = TRACE_ERR_NOMEM;
        set_error(error, "out of memory for the ranks: dir=%s world_size=%d", dir, d->world_size);
        goto fail;
    }

    struct load_progress pg = {.fn = progress, .ctx = ctx};
    for (int r = 0; r < d->world_size; r++)
        if (trace_has_rank(d->trace, r)) {
            pg.count++;
            pg.total += file_size(trace_rank_path(d->trace, r));
        }
    struct search_opts so = {.engine = SEARCH_ENGINE_STREAMING};
    for (int r = 0; r < d->world_size; r++) {
        if (!trace_has_rank(d->trace, r)) {
            append_line(&d->warnings, "rank %d has no stream file and is left out: file=%s", r,
                        trace_rank_path(d->trace, r));
            continue;
        }
        pg.index++;
        snprintf(pg.what, sizeof pg.what, "analysing rank %d (%d of %d)", r, pg.index, pg.count);
        progress_report(&pg, 0);
        struct search_rank_result *rr = NULL;
        err.msg[0] = '\0';
        int rrc = search_run_rank(d->trace, r, &so, progress_cb, &pg, &rr, &err);
        pg.done_before += file_size(trace_rank_path(d->trace, r));
        if (rrc < 0) {
            if (err.msg[0])
                append_line(&d->warnings, "rank %d could not be analysed and is left out: %s", r, err.msg);
            else
                append_line(&d->warnings, "rank %d could not be analysed and is left out: reason=%s", r,
                            trace_status_str(rrc));
            continue;
        }
        if (rr->cut_short)
            append_line(&d->warnings, "rank %d was cut short; showing what it recorded", r);
        d->rank[r] = rr;
        compact[nres++] = rr;
        logs[r] = &rr->log;
    }
    if (!nres) {
        rc = TRACE_ERR_NOT_FOUND;
        if (d->warnings) {
            /* the first reason is the most useful sentence */
            size_t n = strcspn(d->warnings, "\n");
            set_error(error, "no rank could be analysed: dir=%s world_size=%d first=\"%.*s\"", dir,
                      d->world_size, (int)(n > 400 ? 400 : n), d->warnings);
        } else {
            set_error(error, "no rank could be analysed: dir=%s world_size=%d", dir, d->world_size);
        }
        goto fail;
    }

    snprintf(pg.what, sizeof pg.what, "merging the ranks' results");
    pg.index = pg.count + 1;
    if (progress)
        progress(ctx, 1.0, pg.what);
    struct search_report_opts ro = {.rank = -1};
    if ((rc = search_report_build(compact, nres, d->world_size, &ro, &d->report)) < 0) {
        set_error(error, "cannot merge the ranks' results into hints: dir=%s reason=%s", dir,
                  trace_status_str(rc));
        goto fail;
    }
    if ((rc = dg_match_build(logs, d->world_size, &d->match)) < 0) {
        set_error(error, "cannot match the ranks' messages: dir=%s reason=%s", dir, trace_status_str(rc));
        goto fail;
    }

    /* the time axis: earliest enter and latest exit of any record */
    d->t0 = UINT64_MAX;
    d->t1 = 0;
    for (int r = 0; r < d->world_size; r++) {
        const struct dg_mpilog *lg = logs[r];
        if (!lg)
            continue;
        for (uint32_t i = 0; i < lg->n; i++) {
            const struct dg_msgrec *m = &lg->rec[i];
            if (m->t_enter && m->t_enter < d->t0)
                d->t0 = m->t_enter;
            if (m->t_exit > d->t1)
                d->t1 = m->t_exit;
            if (m->t_enter > d->t1)
                d->t1 = m->t_enter;
        }
    }
    if (d->t0 == UINT64_MAX)
        d->t0 = d->t1 = 0;
    if (d->t1 < d->t0)
        d->t1 = d->t0;

    free(compact);
    free(logs);
    *out = d;
    return 0;

fail:
    free(compact);
    free(logs);
    cv_document_free(d);
    if (error && !*error)
        set_error(error, "cannot load the trace: dir=%s reason=%s", dir, trace_status_str(rc));
    return rc < 0 ? rc : TRACE_ERR_FORMAT;
}

void cv_document_free(struct cv_document *d)
{
    if (!d)
        return;
    if (d->match)
        dg_match_destroy(d->match);
    search_report_free(d->report);
    if (d->rank)
        for (int r = 0; r < d->world_size; r++)
            search_rank_result_free(d->rank[r]);
    free(d->rank);
    if (d->trace)
        trace_close(d->trace);
    free(d->warnings);
    free(d->dir);
    free(d);
}
