/* engine.c - choosing an engine, and analysing one rank of a trace with
 * it (cursor -> dg_builder -> engine -> source locations of the sites the
 * hint kinds' results refer to). */
#include <stdio.h>
#include <stdlib.h>

#include "rank/kind.h"

struct search_engine {
    void *state;
    const struct search_engine_ops *ops;
};

int search_engine_create(const struct search_opts *o, int rank, struct search_engine **out)
{
    struct search_engine *e = calloc(1, sizeof *e);
    if (!e)
        return TRACE_ERR_NOMEM;
    int engine = o ? o->engine : SEARCH_ENGINE_STREAMING;
    int rc = engine == SEARCH_ENGINE_REFERENCE ? search_reference_create(o, rank, &e->state, &e->ops)
             : engine == SEARCH_ENGINE_STREAMING ? search_stream_create(o, rank, &e->state, &e->ops)
                                                 : TRACE_ERR_ARG;
    if (rc < 0) {
        free(e);
        return rc;
    }
    *out = e;
    return 0;
}

int search_engine_feed(struct search_engine *e, const struct dg_event *ev)
{
    return e->ops->feed(e->state, ev);
}

int search_engine_feed_run(struct search_engine *e, const struct dg_run *r)
{
    if (e->ops->feed_run)
        return e->ops->feed_run(e->state, r);
    struct dg_event ev;
    struct dg_range ranges[DG_RUN_MAX_ADDRS];
    static _Thread_local struct trace_iter iters[TRACE_MAX_LOOP_DEPTH];
    for (uint64_t t = 0, n = dg_run_events(r); t < n; t++) {
        dg_run_event(r, t, &ev, ranges, iters);
        int rc = e->ops->feed(e->state, &ev);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int search_engine_finish(struct search_engine *e, struct search_rank_result **out)
{
    int rc = e->ops->finish(e->state, out);
    free(e);
    return rc;
}

void search_engine_destroy(struct search_engine *e)
{
    if (!e)
        return;
    e->ops->destroy(e->state);
    free(e);
}

/* Resolves a site reference or a box list's loops through the cursor. */
static bool resolve_site(void *ctx, uint32_t site, const struct trace_site_info **info)
{
    *info = trace_cursor_site(ctx, site);
    return false;
}

static void resolve_boxes(void *ctx, struct search_boxes *b)
{
    for (uint32_t i = 0; i < b->n; i++) {
        for (uint32_t d = 0; d < b->box[i].depth; d++) {
            const struct trace_loop_info *l = trace_cursor_loop(ctx, b->box[i].dim[d].loop);
            b->box[i].dim[d].line = l ? l->line : 0;
        }
    }
}

static int siteinfo_add(struct search_rank_result *r, size_t *cap, struct trace_cursor *c,
                        uint32_t site)
{
    if (site == CHT_NONE)
        return 0;
    if (r->nsiteinfo == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        struct search_siteinfo *p = realloc(r->siteinfo, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        r->siteinfo = p;
        *cap = nc;
    }
    r->siteinfo[r->nsiteinfo++] = (struct search_siteinfo){site, trace_cursor_site(c, site)};
    return 0;
}

static int siteinfo_cmp(const void *a, const void *b)
{
    uint32_t x = ((const struct search_siteinfo *)a)->site, y = ((const struct search_siteinfo *)b)->site;
    return x < y ? -1 : x > y;
}

/* Site infos of every site the MPI log names (calls and consumers). */
static int resolve_log(struct trace_cursor *c, struct search_rank_result *r)
{
    size_t cap = 0;
    for (uint32_t i = 0; i < r->log.n; i++) {
        const struct dg_msgrec *x = &r->log.rec[i];
        if (siteinfo_add(r, &cap, c, x->site) < 0)
            return TRACE_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < r->log.ncons; i++)
        if (r->log.cons[i].pos < r->log.n && (r->log.rec[r->log.cons[i].pos].flags & DG_MSGF_CONSUMED) &&
            siteinfo_add(r, &cap, c, r->log.cons[i].site) < 0)
            return TRACE_ERR_NOMEM;
    if (r->nsiteinfo > 1)
        qsort(r->siteinfo, r->nsiteinfo, sizeof *r->siteinfo, siteinfo_cmp);
    uint32_t k = 0; /* unique */
    for (uint32_t i = 0; i < r->nsiteinfo; i++)
        if (!k || r->siteinfo[k - 1].site != r->siteinfo[i].site)
            r->siteinfo[k++] = r->siteinfo[i];
    r->nsiteinfo = k;
    /* kept for every rank until the report: a few sites, not one a record */
    struct search_siteinfo *p = k ? realloc(r->siteinfo, k * sizeof *p) : NULL;
    if (p)
        r->siteinfo = p;
    return 0;
}

static int resolve(struct trace_cursor *c, struct search_rank_result *r)
{
    int rc = resolve_log(c, r);
    if (rc < 0)
        return rc;
    struct search_site_visitor v = {resolve_site, resolve_boxes, c};
    for (unsigned k = 0; k < search_kinds_count(); k++)
        if (search_kinds_get(k)->visit)
            search_kinds_get(k)->visit(r, &v);
    return 0;
}

/* A run from the reader: to the engine and the logger as a whole, or event
 * by event where the builder cannot make one of it. */
static int analyse_run(struct dg_builder *b, struct search_engine *e, struct dg_logger *lg,
                       const struct trace_run *run, uint64_t *n)
{
    const struct dg_run *dr;
    int rc = dg_builder_convert_run(b, run, &dr);
    if (rc < 0)
        return rc;
    *n += trace_run_events(run);
    if (rc > 0) {
        rc = search_engine_feed_run(e, dr);
        return rc < 0 ? rc : dg_logger_feed_run(lg, dr);
    }
    struct trace_event tev;
    struct trace_range ranges[CHT_REPEAT_MAX_ADDRS];
    static _Thread_local struct trace_iter iters[TRACE_MAX_LOOP_DEPTH];
    for (uint64_t t = 0; t < trace_run_events(run); t++) {
        const struct dg_event *ev;
        trace_run_event(run, t, &tev, ranges, iters);
        rc = dg_builder_convert(b, &tev, &ev);
        if (rc > 0)
            rc = search_engine_feed(e, ev);
        if (rc >= 0)
            rc = dg_logger_feed(lg, &tev, ev);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int search_run_rank(struct trace *t, int rank, const struct search_opts *o,
                    search_progress_fn progress, void *ctx, struct search_rank_result **out,
                    struct trace_err *err)
{
    struct trace_cursor *c = NULL;
    struct dg_builder *b = NULL;
    struct search_engine *e = NULL;
    struct dg_logger *lg = NULL;
    struct search_rank_result *r = NULL;
    *out = NULL;
    int rc = trace_cursor_open(t, rank,
                               TRACE_CURSOR_CONTEXTS | (o && o->expand_runs ? 0 : TRACE_CURSOR_RUNS | TRACE_CURSOR_ROWS),
                               &c, err);
    if (rc < 0)
        return rc;
    uint64_t total = trace_rank_file_size(t, rank); /* for progress */
    if ((rc = dg_builder_create(&b)) < 0 || (rc = search_engine_create(o, rank, &e)) < 0 ||
        (rc = dg_logger_create(rank, &lg)) < 0) {
        snprintf(err->msg, sizeof err->msg, "cannot start the analysis: rank=%d reason=%s", rank,
                 trace_status_str(rc));
        goto out;
    }
    dg_builder_set_cursor(b, c);
    const struct trace_event *tev;
    const struct trace_run *run;
    uint64_t n = 0, next_progress = 0x10000;
    while ((rc = trace_cursor_next_run(c, &tev, &run)) > 0) {
        if (run) {
            rc = analyse_run(b, e, lg, run, &n);
            if (rc < 0) {
                snprintf(err->msg, sizeof err->msg, "analysis failed: rank=%d events=%llu..%llu "
                         "reason=%s", rank, (unsigned long long)run->first,
                         (unsigned long long)(run->first + trace_run_events(run) - 1),
                         trace_status_str(rc));
                goto out;
            }
        } else {
            const struct dg_event *ev;
            rc = dg_builder_convert(b, tev, &ev);
            if (rc > 0)
                rc = search_engine_feed(e, ev);
            if (rc >= 0 && (tev->kind == TRACE_EV_COMP || tev->kind == TRACE_EV_MPI))
                rc = dg_logger_feed(lg, tev, ev);
            if (rc < 0) {
                snprintf(err->msg, sizeof err->msg, "analysis failed: rank=%d event=%llu reason=%s",
                         rank, (unsigned long long)tev->index, trace_status_str(rc));
                goto out;
            }
            n++;
        }
        if (progress && n >= next_progress) {
            struct trace_cursor_stats st;
            trace_cursor_stats(c, &st);
            progress(ctx, st.bytes_stored, total);
            next_progress = n + 0x10000;
        }
    }
    if (rc < 0) {
        snprintf(err->msg, sizeof err->msg, "%s", trace_cursor_error(c));
        goto out;
    }
    rc = search_engine_finish(e, &r);
    e = NULL;
    if (rc < 0) {
        snprintf(err->msg, sizeof err->msg, "analysis failed: rank=%d reason=%s", rank,
                 trace_status_str(rc));
        goto out;
    }
    r->cut_short = trace_cursor_cut_short(c);
    r->unknown_producers = dg_builder_unknown_producers(b);
    if ((rc = dg_logger_take(lg, &r->log)) < 0)
        goto out;
    {
        struct trace_cursor_stats st;
        trace_cursor_stats(c, &st);
        for (int k = 0; k < 2; k++)
            r->log.clock[k] = (struct dg_clock){st.clock[k].mono_ns, st.clock[k].real_ns,
                                                st.clock[k].valid};
        r->log.host = (struct dg_host){st.host.cpus, st.host.node_ranks, st.host.host_id};
        r->log.cut_short = r->cut_short;
    }
    if ((rc = resolve(c, r)) < 0 || (rc = search_rank_result_log_facts(r)) < 0)
        goto out;
    if (progress)
        progress(ctx, total, total);
    *out = r;
    r = NULL;
    rc = 0;
out:
    search_rank_result_free(r);
    search_engine_destroy(e);
    dg_logger_destroy(lg);
    dg_builder_destroy(b);
    trace_cursor_close(c);
    return rc;
}
