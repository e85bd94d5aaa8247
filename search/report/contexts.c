/* contexts.c - where the hints of an MPI call made in several calling
 * contexts are shown (docs/dependence.md, "Call paths").
 *
 * The reader gives an MPI call made through helpers a site per calling
 * context (trace_site_info.ctx), so the engines find windows and groups per
 * context.  A hint is shown at its context's anchor: the first frame from
 * the call up that tells it apart from every other context of that call,
 * over all ranks.
 * A call made from one place only keeps its own line; a helper's call made
 * from two places is shown at the two calls of the helper (or further up,
 * if those are one line reached two ways).  Functions named as helpers are
 * looked through whatever the contexts say; a name with a leading '-' is
 * never looked through.  The decision is written into each context's
 * anchor before anything merges by location (search_loc_of reads it).
 */
#include <stdlib.h>
#include <string.h>

#include "rank/kind.h"

struct ctxs {
    const struct trace_callctx **v;
    size_t n, cap;
    bool nomem;
};

static bool collect(void *p, uint32_t site, const struct trace_site_info **info)
{
    struct ctxs *c = p;
    (void)site;
    if (!*info || !(*info)->ctx)
        return false;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        const struct trace_callctx **v = realloc(c->v, cap * sizeof *v);
        if (!v) {
            c->nomem = true;
            return true;
        }
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n++] = (*info)->ctx;
    return false;
}

static int frame_cmp(const struct trace_srcframe *x, const struct trace_srcframe *y)
{
    int c = strcmp(search_nz(x->file), search_nz(y->file));
    if (c || (c = search_cmp_u64(x->line, y->line)) || (c = search_cmp_u64(x->col, y->col)))
        return c;
    return strcmp(search_nz(x->func), search_nz(y->func));
}

/* The first frame where a and b differ (the shorter one's length if one
 * is the start of the other; both lengths if equal). */
static uint32_t common(const struct trace_callctx *a, const struct trace_callctx *b)
{
    uint32_t k = 0;
    while (k < a->nframes && k < b->nframes && !frame_cmp(&a->frames[k], &b->frames[k]))
        k++;
    return k;
}

static int ctx_sort(const void *pa, const void *pb)
{
    const struct trace_callctx *a = *(const struct trace_callctx *const *)pa;
    const struct trace_callctx *b = *(const struct trace_callctx *const *)pb;
    uint32_t k = common(a, b);
    if (k < a->nframes && k < b->nframes)
        return frame_cmp(&a->frames[k], &b->frames[k]);
    if (a->nframes != b->nframes)
        return a->nframes < b->nframes ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Whether name is in the comma-separated list with the sign wanted ('-'
 * prefix: neg). */
static bool listed(const char *list, const char *name, bool neg)
{
    size_t len = name ? strlen(name) : 0;
    if (!list || !len)
        return false;
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        bool m = n && *p == '-';
        if (m == neg && n - m == len && !strncmp(p + m, name, len))
            return true;
        p += n + (e != NULL);
    }
    return false;
}

int search_contexts_anchor(struct search_rank_result *const *ranks, int n, const struct search_report_opts *o)
{
    struct ctxs c = {0};
    struct search_site_visitor v = {.site = collect, .ctx = &c};
    const char *helpers = o ? o->helpers : NULL;

    for (int r = 0; r < n && !c.nomem; r++) {
        struct search_rank_result *res = ranks[r];
        if (!res)
            continue;
        for (unsigned k = 0; k < search_kinds_count() && !c.nomem; k++)
            if (search_kinds_get(k)->visit)
                search_kinds_get(k)->visit(res, &v);
        for (uint32_t i = 0; i < res->nsiteinfo && !c.nomem; i++)
            collect(&c, res->siteinfo[i].site, &res->siteinfo[i].info);
    }
    if (c.nomem) {
        free(c.v);
        return TRACE_ERR_NOMEM;
    }
    if (c.n)
        qsort(c.v, c.n, sizeof *c.v, ctx_sort);
    /* groups: contexts of one call (same frame 0) */
    for (size_t i = 0; i < c.n;) {
        size_t j = i + 1;
        while (j < c.n && !frame_cmp(&c.v[j]->frames[0], &c.v[i]->frames[0]))
            j++;
        for (size_t a = i; a < j; a++) {
            struct trace_callctx *x = (struct trace_callctx *)c.v[a];
            /* its anchor: the first frame where it differs from every other
             * context of the call; in the sorted order the nearest
             * different neighbours share the longest start with it */
            uint32_t k = 0;
            for (size_t b = a; b-- > i;) {
                uint32_t d = common(c.v[b], x);
                if (d == x->nframes && d == c.v[b]->nframes)
                    continue; /* the same context on another rank */
                k = d;
                break;
            }
            for (size_t b = a + 1; b < j; b++) {
                uint32_t d = common(c.v[b], x);
                if (d == x->nframes && d == c.v[b]->nframes)
                    continue;
                if (d > k)
                    k = d;
                break;
            }
            uint32_t lo = 0, hi = x->nframes - 1, at;
            for (uint32_t f = 0; f + 1 < x->nframes; f++)
                if (listed(helpers, x->frames[f].func, false))
                    lo = f + 1;
            for (uint32_t f = 0; f < x->nframes; f++)
                if (listed(helpers, x->frames[f].func, true)) {
                    hi = f;
                    break;
                }
            at = k > lo ? k : lo;
            x->anchor = at < hi ? at : hi;
        }
        i = j;
    }
    free(c.v);
    return 0;
}
