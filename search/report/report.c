/* report.c - merging the per-rank results into hints, ranked by estimated
 * saving (docs/dependence.md, "From ranks to hints"): the cross-rank
 * stage (search/xrank/), each per-rank hint kind's merge method
 * (search/rank/kind.h; overlap: search/rank/kinds/overlap-merge.c,
 * aggregation: kinds/aggregate-merge.c), the collective hints, then
 * severity, messages, ranking and the filters.  Also what the kinds'
 * merges share: locations as keys, the growing hint array, ranks and
 * lines as message text.
 *
 * Decisions beyond the document that hold for every kind:
 *   - "some ranks" compares a hint's ranks with the ranks analysed (the
 *     non-NULL results), not with world_size: a rank that could not be read
 *     does not make every hint partial;
 *   - counts are summed over ranks, times and savings are the largest of
 *     any rank (ranks run at the same time: the job gains what its slowest
 *     rank gains); several entries of one rank with the same key are added
 *     up for that rank before the maximum is taken.
 *
 * Everything a report holds is owned by it, except the file and function
 * strings, which point into the trace's site tables (valid until
 * trace_close) or to static "".
 */
#include <inttypes.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rank/kind.h"

/* ---- locations ------------------------------------------------------------------ */

const struct trace_callctx *search_ctx_shown(const struct trace_site_info *info)
{
    const struct trace_callctx *x = info ? info->ctx : NULL;
    return x && x->anchor > 0 && x->anchor < x->nframes ? x : NULL;
}

static void loc_of(const struct trace_site_info *info, uint32_t site, struct search_loc *l,
                   const struct trace_callctx *x)
{
    l->ctx = x;
    if (x) {
        const struct trace_srcframe *f = &x->frames[x->anchor];
        l->file = search_nz(f->file);
        l->func = search_nz(f->func);
        l->line = f->line;
        l->col = f->col;
        l->site = CHT_NONE;
    } else if (info) {
        l->file = search_nz(info->file);
        l->func = search_nz(info->func);
        l->line = info->line;
        l->col = info->col;
        l->site = CHT_NONE;
    } else {
        l->file = l->func = "";
        l->line = l->col = 0;
        l->site = site;
    }
}

void search_loc_of(const struct trace_site_info *info, uint32_t site, struct search_loc *l)
{
    loc_of(info, site, l, search_ctx_shown(info));
}

void search_loc_at_call(const struct trace_site_info *info, uint32_t site, struct search_loc *l)
{
    loc_of(info, site, l, NULL);
}

int search_ctx_cmp(const struct trace_callctx *a, const struct trace_callctx *b)
{
    uint32_t na = a ? a->anchor : 0, nb = b ? b->anchor : 0;
    int c;
    /* the frames below the anchors, from the anchor down to the call */
    for (uint32_t i = 1; i <= na && i <= nb; i++) {
        const struct trace_srcframe *x = &a->frames[na - i], *y = &b->frames[nb - i];
        if ((c = strcmp(search_nz(x->file), search_nz(y->file))) || (c = search_cmp_u64(x->line, y->line)) ||
            (c = search_cmp_u64(x->col, y->col)) || (c = strcmp(search_nz(x->func), search_nz(y->func))))
            return c;
    }
    return search_cmp_u64(na, nb);
}

int search_loc_cmp(const struct search_loc *a, const struct search_loc *b, bool func)
{
    int c = strcmp(a->file, b->file);
    if (c)
        return c;
    if ((c = search_cmp_u64(a->line, b->line)) || (c = search_cmp_u64(a->col, b->col)) ||
        (c = search_cmp_u64(a->site, b->site)) || (c = search_ctx_cmp(a->ctx, b->ctx)))
        return c;
    return func ? strcmp(a->func, b->func) : 0;
}

/* ---- iteration boxes ---------------------------------------------------------------- */

int search_boxes_copy(struct search_boxes *dst, const struct search_boxes *src)
{
    memset(dst, 0, sizeof *dst);
    dst->more = src->more;
    if (!src->n)
        return 0;
    dst->box = malloc(src->n * sizeof *dst->box);
    if (!dst->box)
        return TRACE_ERR_NOMEM;
    memcpy(dst->box, src->box, src->n * sizeof *dst->box);
    dst->n = dst->cap = src->n;
    return 0;
}

/* ---- message text ------------------------------------------------------------------ */

/* Sorted integers as "0-3", "0, 2", "1-2, 5". */
static void sb_ranges(struct search_text *b, const uint32_t *v, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        if (j > i)
            search_text_printf(b, "%s%u-%u", i ? ", " : "", v[i], v[j]);
        else
            search_text_printf(b, "%s%u", i ? ", " : "", v[i]);
        i = j + 1;
    }
}

void search_text_ranks(struct search_text *b, const int *ranks, int n)
{
    uint32_t *v = malloc((n ? (size_t)n : 1) * sizeof *v);
    if (!v) {
        b->failed = true;
        return;
    }
    for (int i = 0; i < n; i++)
        v[i] = (uint32_t)ranks[i];
    search_text_printf(b, n == 1 ? "rank " : "ranks ");
    sb_ranges(b, v, (size_t)n);
    free(v);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

struct fline {
    const char *file;
    uint32_t line;
    bool other; /* not the hint's file */
};

static int fline_cmp(const void *pa, const void *pb)
{
    const struct fline *a = pa, *b = pb;
    int c;
    if (a->other != b->other)
        return a->other ? 1 : -1;
    if ((c = strcmp(a->file, b->file)))
        return c;
    return search_cmp_u64(a->line, b->line);
}

void search_text_needs_buffer(struct search_text *b, const struct search_hint *h)
{
    search_text_printf(b, "needs a buffer per message: ");
    if (h->buf_line)
        search_text_printf(b, "the send buffer at line %" PRIu32, h->buf_line);
    else
        search_text_printf(b, "a send buffer");
    if (h->over_file && h->over_line) {
        const char *base = strrchr(h->over_file, '/');
        search_text_printf(b, " is %s at %s:%" PRIu32 "; ", h->over_frees ? "freed" : "overwritten", base ? base + 1 : h->over_file,
                           h->over_line);
    } else
        search_text_printf(b, " is overwritten at an unknown statement; ");
}

/* Lines of other files as "util.c:12-14" (base name: the message is shown
 * next to the hint's location, and must not hold absolute paths). */
void search_text_lines(struct search_text *b, const struct search_hint *h, bool self)
{
    size_t n = 0;
    struct fline *v = malloc((h->nrelated + 1) * sizeof *v);
    if (!v) {
        b->failed = true;
        return;
    }
    if (self)
        v[n++] = (struct fline){search_nz(h->file), h->line, false};
    for (uint32_t i = 0; i < h->nrelated; i++) {
        const char *f = search_nz(h->related[i].file);
        v[n++] = (struct fline){f, h->related[i].line, strcmp(f, search_nz(h->file)) != 0};
    }
    qsort(v, n, sizeof *v, fline_cmp);
    uint32_t *lines = malloc((n ? n : 1) * sizeof *lines);
    if (!lines) {
        free(v);
        b->failed = true;
        return;
    }
    size_t nown = 0;
    for (size_t i = 0; i < n && !v[i].other; i++)
        if (!nown || lines[nown - 1] != v[i].line)
            lines[nown++] = v[i].line;
    if (nown) {
        search_text_printf(b, nown == 1 ? "line " : "lines ");
        sb_ranges(b, lines, nown);
    }
    /* Other files, each as a run of ranges. */
    bool first = nown == 0;
    for (size_t i = 0; i < n;) {
        if (!v[i].other) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < n && !strcmp(v[j + 1].file, v[i].file))
            j++;
        for (size_t k = i; k <= j;) {
            size_t e = k;
            while (e + 1 <= j && (v[e + 1].line == v[e].line || v[e + 1].line == v[e].line + 1))
                e++;
            if (v[e].line != v[k].line)
                search_text_printf(b, "%s%s:%u-%u", first ? "" : ", ", base_name(v[k].file), v[k].line,
                                   v[e].line);
            else
                search_text_printf(b, "%s%s:%u", first ? "" : ", ", base_name(v[k].file), v[k].line);
            first = false;
            k = e + 1;
        }
        i = j + 1;
    }
    free(lines);
    free(v);
}

/* The one-sentence message of a hint (without its location), as stored in
 * search_hint.message; without times (with_times false) for outputs that
 * are compared across runs.  Returns a string the caller frees, or NULL if
 * out of memory.  A per-rank kind's hints have their kind's message; a
 * hint of no registered kind reads as an overlap hint. */
char *search_hint_message(const struct search_hint *h, bool with_times)
{
    struct search_text b = {0};
    const struct search_kind *k = search_kinds_find(h->kind);

    if (h->kind == SEARCH_HINT_COLLECTIVE && h->message)
        return search_collective_message(h, with_times);
    if (h->kind != SEARCH_HINT_COLLECTIVE)
        return (k ? k : &search_kind_overlap)->message(h, with_times);
    search_text_printf(&b, "the %s calls at ", trace_mpi_call_name(h->call));
    search_text_lines(&b, h, true);
    search_text_printf(&b, " can be one %s (", h->collective ? h->collective : "collective call");
    search_text_ranks(&b, h->ranks, h->nranks);
    if (with_times) {
        search_text_printf(&b, ", est. saving ");
        search_text_time(&b, h->saving_ns);
    }
    search_text_printf(&b, ")");
    return search_text_take(&b);
}

/* ---- hints ------------------------------------------------------------------------ */

void search_hint_clear(struct search_hint *h)
{
    free(h->ranks);
    free(h->explain);
    for (uint32_t i = 0; i < h->nrelated; i++)
        search_boxes_free(&h->related[i].iters);
    free(h->related);
    free(h->by_rank);
    search_boxes_free(&h->iters);
    free(h->message);
    free(h->changes);
    free(h->regions);
    free(h->coll_fix);
    memset(h, 0, sizeof *h);
}

struct search_hint *search_hints_push(struct search_hints *hs)
{
    if (hs->n == hs->cap) {
        uint32_t cap = hs->cap ? hs->cap * 2 : 16;
        struct search_hint *v = realloc(hs->v, cap * sizeof *v);
        if (!v)
            return NULL;
        hs->v = v;
        hs->cap = cap;
    }
    struct search_hint *h = &hs->v[hs->n++];
    memset(h, 0, sizeof *h);
    return h;
}

int search_hint_alloc_ranks(struct search_hint *h, size_t n)
{
    h->ranks = malloc((n ? n : 1) * sizeof *h->ranks);
    return h->ranks ? 0 : TRACE_ERR_NOMEM;
}

void search_hint_add_rank(struct search_hint *h, int rank)
{
    if (!h->nranks || h->ranks[h->nranks - 1] != rank)
        h->ranks[h->nranks++] = rank;
}

int search_related_cmp(const void *pa, const void *pb)
{
    const struct search_related *a = pa, *b = pb;
    int c = strcmp(search_nz(a->file), search_nz(b->file));
    if (c || (c = search_cmp_u64(a->line, b->line)) || (c = search_cmp_u64(a->col, b->col)))
        return c;
    return a->role - b->role;
}

/* "some ranks" is relative to them, so that a call only the even ranks
 * make is not flagged for holding on the even ranks only. */
int search_ranks_running(struct search_rank_result *const *ranks, int n, const struct search_loc *l)
{
    int count = 0;
    for (int r = 0; r < n; r++) {
        if (!ranks[r])
            continue;
        for (uint32_t k = 0; k < ranks[r]->noverlaps; k++) {
            const struct search_overlap *ov = &ranks[r]->overlaps[k];
            struct search_loc x;
            if (l->ctx)
                search_loc_of(ov->info, ov->site, &x);
            else
                search_loc_at_call(ov->info, ov->site, &x);
            if (ov->instances && !search_loc_cmp(&x, l, false)) {
                count++;
                break;
            }
        }
    }
    return count;
}

/* ---- ranking and filters -------------------------------------------------------------- */

static int hint_rank_cmp(const void *pa, const void *pb)
{
    const struct search_hint *a = pa, *b = pb;
    int c;
    if (a->saving_ns != b->saving_ns)
        return a->saving_ns > b->saving_ns ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if ((c = strcmp(search_nz(a->file), search_nz(b->file))) || (c = search_cmp_u64(a->line, b->line)) ||
        (c = search_cmp_u64(a->col, b->col)) || (c = strcmp(search_nz(a->func), search_nz(b->func))) ||
        (c = search_cmp_u64(a->call, b->call)) || (c = search_ctx_cmp(a->ctx, b->ctx)))
        return c;
    /* Same location and kind: aggregation hints on different communicators
     * or member sets; keep the order deterministic. */
    if (a->nrelated != b->nrelated)
        return a->nrelated < b->nrelated ? -1 : 1;
    for (uint32_t k = 0; k < a->nrelated; k++) {
        const struct search_related *x = &a->related[k], *y = &b->related[k];
        if ((c = strcmp(search_nz(x->file), search_nz(y->file))) || (c = search_cmp_u64(x->line, y->line)) ||
            (c = search_cmp_u64(x->col, y->col)))
            return c;
    }
    if (a->nranks != b->nranks)
        return a->nranks > b->nranks ? -1 : 1;
    for (int k = 0; k < a->nranks; k++)
        if (a->ranks[k] != b->ranks[k])
            return a->ranks[k] < b->ranks[k] ? -1 : 1;
    if ((c = search_cmp_u64(a->instances, b->instances)))
        return c;
    /* an overlap hint and its needs-buffer variant with the same lines */
    return search_cmp_u64(a->flags, b->flags);
}

static bool hint_has_rank(const struct search_hint *h, int rank)
{
    for (int k = 0; k < h->nranks; k++)
        if (h->ranks[k] == rank)
            return true;
    return false;
}

/* Whether h passes the options: 1; 0 if not; -1 if it only saves too
 * little (hidden). */
static int hint_passes(const struct search_hint *h, const struct search_report_opts *o,
                       const struct search_report *rep)
{
    if (!o)
        return 1;
    if (o->kinds && !(o->kinds & (1u << h->kind)))
        return 0;
    if (o->rank >= 0 && !hint_has_rank(h, o->rank))
        return 0;
    uint64_t run = rep->predict.ok && rep->predict.measured_ns ? rep->predict.measured_ns : rep->run_ns;
    double min = fmax((double)o->min_saving_ns, o->min_saving_frac * (double)run);
    return (double)h->saving_ns >= min ? 1 : -1;
}

/* ---- the report ------------------------------------------------------------------------ */

void search_report_free(struct search_report *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->nhints; i++)
        search_hint_clear(&r->hints[i]);
    free(r->hints);
    for (uint32_t i = 0; i < r->ndropped; i++)
        search_hint_clear(&r->dropped[i]);
    free(r->dropped);
    free(r->waits);
    free(r);
}

/* The wait states of a hint's call site (same location), if measured. */
/* The wait states at the hint's call: of its calling context, or (a hint
 * shown at the call itself) of every context of the call. */
static void copy_waits(const struct search_report *rep, struct search_hint *h)
{
    for (uint32_t i = 0; i < rep->nwaits; i++) {
        const struct search_waitsite *w = &rep->waits[i];
        const char *file = w->file;
        uint32_t line = w->line, col = w->col;
        if (w->ctx && !h->ctx) { /* the call itself */
            file = w->ctx->frames[0].file;
            line = w->ctx->frames[0].line;
            col = w->ctx->frames[0].col;
        } else if (search_ctx_cmp(w->ctx, h->ctx)) {
            continue;
        }
        if (line == h->line && col == h->col && file && h->file && !strcmp(file, h->file)) {
            h->late_sender_ns += w->late_sender_ns;
            h->late_receiver_ns += w->late_receiver_ns;
            h->wait_collective_ns += w->wait_collective_ns;
            if (h->ctx || !w->ctx)
                return;
        }
    }
}

/* ", predicted saving 57 ms, 2.9% of the run" (the replay model's, on
 * the run it replays), ", predicted to make the run 3 ms slower, 1.2% of
 * it" (by more than 0.1% of the run: less is within the model's
 * rounding), or ", est. saving 2.3 ms" where the model could not apply the
 * hint (the kind's own estimate). */
void search_text_saving(struct search_text *b, const struct search_report *rep, const struct search_hint *h)
{
    uint64_t run = rep->predict.measured_ns;
    if (h->predicted && run && (double)h->slower_ns > 0.001 * (double)run) {
        /* what it saves in messages or waits, the delays it adds cost more */
        search_text_printf(b, ", predicted to make the run ");
        search_text_time(b, h->slower_ns);
        search_text_printf(b, " slower, %.1f%% of it", 100.0 * (double)h->slower_ns / (double)run);
    } else if (h->predicted) {
        search_text_printf(b, ", predicted saving ");
        search_text_time(b, h->saving_ns);
        if (rep->predict.measured_ns)
            search_text_printf(b, ", %.1f%% of the run", 100.0 * (double)h->saving_ns / (double)rep->predict.measured_ns);
    } else {
        search_text_printf(b, ", est. saving ");
        search_text_time(b, h->saving_ns);
    }
}

/* The message of a kept hint: its kind's sentence, the saving last. */
static char *message_with_saving(const struct search_report *rep, const struct search_hint *h)
{
    char *m = search_hint_message(h, false);
    if (!m)
        return NULL;
    size_t n = strlen(m);
    if (n && m[n - 1] == ')')
        m[n - 1] = 0;
    struct search_text b = {0};
    search_text_printf(&b, "%s", m);
    free(m);
    search_text_saving(&b, rep, h);
    search_text_printf(&b, ")");
    return search_text_take(&b);
}

/* Severity and message of hints built here (kept and predicted: the
 * message says the predicted saving; else the kind's estimate). */
static int finish_hints(const struct search_report *rep, struct search_hints *hs, bool kept)
{
    uint64_t run = rep->predict.ok && rep->predict.measured_ns ? rep->predict.measured_ns : rep->run_ns;
    for (uint32_t i = 0; i < hs->n; i++) {
        struct search_hint *h = &hs->v[i];
        h->severity = run ? (double)h->saving_ns / (double)run : 0.0;
        if (h->severity > 1.0)
            h->severity = 1.0;
        copy_waits(rep, h);
        if (search_hint_regions(h) < 0)
            return TRACE_ERR_NOMEM;
        if (kept && h->predicted) {
            char *m = message_with_saving(rep, h); /* from the kind's, which a collective keeps */
            if (!m)
                return TRACE_ERR_NOMEM;
            free(h->message);
            h->message = m;
        } else if (!h->message && !(h->message = search_hint_message(h, true))) {
            return TRACE_ERR_NOMEM;
        }
    }
    return 0;
}

/* The hints of every per-rank kind, in the registry's order. */
static int merge_kinds(struct search_rank_result *const *ranks, int n, const struct search_report *rep,
                       const struct search_xrank *xr, struct search_hints *hs, struct search_hints *dropped)
{
    struct search_merge m = {.ranks = ranks, .n = n, .nanalysed = rep->nranks, .xr = xr,
                             .clocks_aligned = rep->clocks_aligned, .hints = hs, .dropped = dropped};
    for (unsigned k = 0; k < search_kinds_count(); k++) {
        m.kind = search_kinds_desc(k)->kind;
        int rc = search_kinds_get(k)->merge(&m);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void search_report_cancel(const struct dg_xchg *x, int rc)
{
    if (x && x->nprocs > 1)
        dg_xchg_agree(x, rc < 0 ? rc : TRACE_ERR_ARG);
}

/* What the other processes do of the cross-rank stage: the same calls as
 * search_report_build_dist's (the spread context, the wait states), with
 * their ranks' logs; the report they would get is process 0's. */
int search_report_follow(struct search_rank_result *const *ranks, int n, int world_size,
                         const struct dg_xchg *x, const int *owner)
{
    struct search_xrank *xr = NULL;
    struct search_report rep;
    memset(&rep, 0, sizeof rep);
    int rc = search_xrank_build_dist(ranks, n, world_size, owner, x, &xr);
    if (rc < 0)
        return rc;
    rc = search_waitstates(xr, &rep);
    free(rep.waits);
    /* then the questions process 0's merges ask, until it is done */
    if (rc == 0 && x->nprocs > 1)
        rc = search_xrank_serve(xr);
    search_xrank_destroy(xr);
    return rc;
}

int search_report_build(struct search_rank_result *const *ranks, int n, int world_size,
                        const struct search_report_opts *o, struct search_report **out)
{
    return search_report_build_dist(ranks, n, world_size, o, dg_xchg_serial(), NULL, out);
}

int search_report_build_dist(struct search_rank_result *const *ranks, int n, int world_size,
                             const struct search_report_opts *o, const struct dg_xchg *x, const int *owner,
                             struct search_report **out)
{
    struct search_hints hs = {0}, dropped = {0};
    struct search_report *rep = NULL;
    struct search_xrank *xr = NULL;
    struct search_hint *coll = NULL, *cdrop = NULL;
    uint32_t ncoll = 0, ncdrop = 0;
    int rc;

    if (!out || n < 0 || (n > 0 && !ranks) || !x) {
        search_report_cancel(x, TRACE_ERR_ARG);
        return TRACE_ERR_ARG;
    }
    *out = NULL;
    rep = calloc(1, sizeof *rep);
    if (!rep) {
        search_report_cancel(x, TRACE_ERR_NOMEM);
        return TRACE_ERR_NOMEM;
    }
    rep->world_size = world_size;
    for (int r = 0; r < n; r++) {
        const struct search_rank_result *res = ranks[r];
        if (!res)
            continue;
        rep->nranks++;
        rep->events += res->events;
        if (res->t_last > res->t_first && res->t_last - res->t_first > rep->run_ns)
            rep->run_ns = res->t_last - res->t_first;
    }
    if ((rc = search_contexts_anchor(ranks, n, o)) < 0) {
        search_report_cancel(x, rc);
        goto fail;
    }
    /* the cross-rank stage: spread over the processes of x as far as it
     * goes (the matching, the clocks, the wait states); the rest on this
     * process over every rank's log */
    if ((rc = search_xrank_build_dist(ranks, n, world_size, owner, x, &xr)) < 0 ||
        (rc = search_waitstates(xr, rep)) < 0)
        goto fail;
    if (xr->partial) {
        /* the others wait for jobs (search_xrank_serve) from here until
         * search_xrank_end, in every way out */
        struct search_xrank *whole = NULL;
        rc = search_xrank_complete(xr, &whole);
        if (rc < 0) {
            search_xrank_end(xr, rc);
            goto fail;
        }
        whole->dist = xr;
        xr = whole;
    }
    if ((rc = merge_kinds(ranks, n, rep, xr, &hs, &dropped)) < 0 ||
        (rc = search_collectives_explain(xr, &coll, &ncoll, &cdrop, &ncdrop)) < 0)
        goto fail;
    for (uint32_t i = 0; i < hs.n; i++)
        hs.v[i].root = -1;
    for (uint32_t i = 0; i < dropped.n; i++)
        dropped.v[i].root = -1;
    for (uint32_t i = 0; i < ncoll; i++) {
        struct search_hint *h = search_hints_push(&hs);
        if (!h) {
            rc = TRACE_ERR_NOMEM;
            goto fail;
        }
        *h = coll[i];
        memset(&coll[i], 0, sizeof coll[i]);
    }
    for (uint32_t i = 0; i < ncdrop; i++) {
        struct search_hint *h = search_hints_push(&dropped);
        if (!h) {
            rc = TRACE_ERR_NOMEM;
            goto fail;
        }
        *h = cdrop[i];
        memset(&cdrop[i], 0, sizeof cdrop[i]);
    }
    if ((rc = search_predict(xr, o, rep, hs.v, hs.n)) < 0 || (rc = finish_hints(rep, &hs, true)) < 0 ||
        (rc = finish_hints(rep, &dropped, false)) < 0)
        goto fail;
    if (hs.n)
        qsort(hs.v, hs.n, sizeof *hs.v, hint_rank_cmp);
    if (dropped.n)
        qsort(dropped.v, dropped.n, sizeof *dropped.v, hint_rank_cmp);

    uint32_t kept = 0;
    for (uint32_t i = 0; i < hs.n; i++) {
        int pass = hint_passes(&hs.v[i], o, rep);
        if (pass > 0 && (!o || !o->top || kept < o->top)) {
            if (kept != i)
                hs.v[kept] = hs.v[i];
            kept++;
        } else {
            search_hint_clear(&hs.v[i]);
            rep->nfiltered++;
            rep->nhidden += pass < 0;
        }
    }
    hs.n = kept;
    rep->nhints = hs.n;
    rep->hints = hs.v;
    rep->ndropped = dropped.n;
    rep->dropped = dropped.v;
    if (xr->dist && (rc = search_xrank_end(xr->dist, 0)) < 0) {
        rep->hints = NULL; /* back to hs and dropped, freed below */
        rep->dropped = NULL;
        rep->nhints = rep->ndropped = 0;
        goto fail;
    }
    search_xrank_destroy(xr);
    free(coll);
    free(cdrop);
    *out = rep;
    return 0;
fail:
    if (xr && xr->dist)
        search_xrank_end(xr->dist, rc);
    for (uint32_t i = 0; i < hs.n; i++)
        search_hint_clear(&hs.v[i]);
    free(hs.v);
    for (uint32_t i = 0; i < dropped.n; i++)
        search_hint_clear(&dropped.v[i]);
    free(dropped.v);
    for (uint32_t i = 0; i < ncoll; i++)
        search_hint_clear(&coll[i]);
    free(coll);
    for (uint32_t i = 0; i < ncdrop; i++)
        search_hint_clear(&cdrop[i]);
    free(cdrop);
    search_xrank_destroy(xr);
    search_report_free(rep);
    return rc;
}
