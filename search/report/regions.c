/* regions.c - an overlap hint's related lines as the regions a person
 * names (docs/dependence.md, "Regions"): per role, the lines in one loop
 * nest (the outermost loop around them in their function) or in one
 * function outside its loops, with their line range, executions and time.
 * The default text shows the largest regions; --verbose, JSON and the
 * viewer keep every line. */
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

static int region_key_cmp(const struct search_related *a, const struct search_related *b)
{
    int c;
    if (a->role != b->role)
        return a->role < b->role ? -1 : 1;
    if ((c = strcmp(search_nz(a->file), search_nz(b->file))) || (c = strcmp(search_nz(a->func), search_nz(b->func))))
        return c;
    uint32_t la = a->loop ? a->loop->line : 0, lb = b->loop ? b->loop->line : 0;
    uint32_t ca = a->loop ? a->loop->col : 0, cb = b->loop ? b->loop->col : 0;
    if ((c = search_cmp_u64(la, lb)))
        return c;
    return search_cmp_u64(ca, cb);
}

static int rel_ptr_cmp(const void *pa, const void *pb)
{
    const struct search_related *a = *(const struct search_related *const *)pa;
    const struct search_related *b = *(const struct search_related *const *)pb;
    int c = region_key_cmp(a, b);
    return c ? c : search_cmp_u64(a->line, b->line);
}

static int region_time_cmp(const void *pa, const void *pb)
{
    const struct search_region *a = pa, *b = pb;
    int c;
    /* by executions, which the trace fixes (times vary from run to run, and
     * the order is part of the --stable output) */
    if (a->events != b->events)
        return a->events > b->events ? -1 : 1;
    if (a->nlines != b->nlines)
        return a->nlines > b->nlines ? -1 : 1;
    if ((c = strcmp(search_nz(a->file), search_nz(b->file))))
        return c;
    if ((c = search_cmp_u64(a->line_lo, b->line_lo)))
        return c;
    return a->role - b->role;
}

int search_hint_regions(struct search_hint *h)
{
    const struct search_related **v;
    uint32_t n = 0;

    free(h->regions);
    h->regions = NULL;
    h->nregions = 0;
    for (uint32_t i = 0; i < h->nrelated; i++)
        n += h->related[i].role == SEARCH_REL_BEFORE || h->related[i].role == SEARCH_REL_AFTER;
    if (!n)
        return 0;
    if (!(v = malloc(n * sizeof *v)))
        return TRACE_ERR_NOMEM;
    n = 0;
    for (uint32_t i = 0; i < h->nrelated; i++)
        if (h->related[i].role == SEARCH_REL_BEFORE || h->related[i].role == SEARCH_REL_AFTER)
            v[n++] = &h->related[i];
    qsort(v, n, sizeof *v, rel_ptr_cmp);
    if (!(h->regions = calloc(n, sizeof *h->regions))) {
        free(v);
        return TRACE_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        struct search_region *g = &h->regions[h->nregions++];
        g->file = v[i]->file;
        g->func = v[i]->func;
        g->role = v[i]->role;
        g->loop_line = v[i]->loop ? v[i]->loop->line : 0;
        g->loop_col = v[i]->loop ? v[i]->loop->col : 0;
        g->line_lo = v[i]->line;
        for (; j < n && !region_key_cmp(v[i], v[j]); j++) {
            const struct search_related *r = v[j];
            g->line_hi = r->line;
            g->nlines++;
            g->events += r->events;
            g->total += r->total;
            g->time_ns += r->time_ns;
            g->conditional |= r->conditional;
        }
        i = j;
    }
    qsort(h->regions, h->nregions, sizeof *h->regions, region_time_cmp);
    free(v);
    return 0;
}
