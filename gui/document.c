/* document.c - loads what the viewer shows from a trace directory through
 * the analysis `commhint hints` uses (search_analysis: every rank, the
 * hints without a filter, and the ranks' calls and messages kept for the
 * timeline).  No GTK here: the loading thread calls it as it is, and tests
 * can too. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "document.h"

/* Progress of the load, as the viewer shows it. */
struct load_progress {
    cv_progress_fn fn;
    void *ctx;
    char **warnings;
};

static void progress_cb(void *ctx, int rank, int index, int count, uint64_t done, uint64_t total)
{
    struct load_progress *p = ctx;
    if (!p->fn)
        return;
    double frac = total ? (double)done / (double)total : (double)(index > 0 ? index - 1 : 0) / (count ? count : 1);
    if (frac > 1)
        frac = 1;
    if (frac < 0)
        frac = 0;
    char what[64];
    snprintf(what, sizeof what, "analysing rank %d (%d of %d)", rank, index, count);
    p->fn(p->ctx, frac, what);
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

static void warn_cb(void *ctx, int rank, int what, const char *msg)
{
    struct load_progress *p = ctx;
    (void)rank;
    (void)what;
    append_line(p->warnings, "%s", msg);
}

int cv_document_load(const char *dir, cv_progress_fn progress, void *ctx, struct cv_document **out,
                     char **error)
{
    struct cv_document *d = NULL;
    struct trace_err err;
    int rc;

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
    struct load_progress pg = {.fn = progress, .ctx = ctx, .warnings = &d->warnings};
    struct search_analysis_opts ao = {.search = {.engine = SEARCH_ENGINE_STREAMING},
                                      .report = {.rank = -1},
                                      .keep_ranks = true,
                                      .warn = warn_cb,
                                      .warn_ctx = &pg,
                                      .progress = progress_cb,
                                      .progress_ctx = &pg};
    if ((rc = search_analyse(d->trace, &ao, &d->analysis, &err)) < 0) {
        if (rc == TRACE_ERR_NOT_FOUND && d->warnings) {
            /* the first reason is the most useful sentence */
            size_t n = strcspn(d->warnings, "\n");
            set_error(error, "%s first=\"%.*s\"", err.msg, (int)(n > 400 ? 400 : n), d->warnings);
        } else {
            set_error(error, "%s", err.msg[0] ? err.msg : trace_status_str(rc));
        }
        goto fail;
    }
    if (progress)
        progress(ctx, 1.0, "merging the ranks' results");
    d->report = search_analysis_report(d->analysis);
    d->t0 = 0;
    d->t1 = search_analysis_end(d->analysis);
    *out = d;
    return 0;

fail:
    cv_document_free(d);
    if (error && !*error)
        set_error(error, "cannot load the trace: dir=%s reason=%s", dir, trace_status_str(rc));
    return rc < 0 ? rc : TRACE_ERR_FORMAT;
}

void cv_document_free(struct cv_document *d)
{
    if (!d)
        return;
    search_analysis_free(d->analysis);
    if (d->trace)
        trace_close(d->trace);
    free(d->warnings);
    free(d->dir);
    free(d);
}
