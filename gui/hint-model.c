/* hint-model.c - the hint list's filtering, ordering and cell text,
 * without GTK (see hint-model.h). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hint-model.h"

bool cv_hint_filter_match(const struct search_hint *h, const struct cv_hint_filter *f)
{
    if (!h)
        return false;
    if (!f)
        return true;
    if (f->kinds && (h->kind < 0 || h->kind > 31 || !(f->kinds & (1u << h->kind))))
        return false;
    if (h->saving_ns < f->min_saving_ns)
        return false;
    if (f->rank >= 0) {
        bool found = false;
        for (int k = 0; k < h->nranks && !found; k++)
            found = h->ranks && h->ranks[k] == f->rank;
        if (!found)
            return false;
    }
    return true;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int cmp_str(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

int cv_hint_compare(const struct search_hint *a, uint32_t ia, const struct search_hint *b, uint32_t ib,
                    int key)
{
    int c = 0;
    switch (key) {
    case CV_SORT_SAVING:
        if ((c = cmp_u64(a->saving_ns, b->saving_ns)))
            return c;
        /* equal savings: the one ranked later is the "smaller" one */
        return cmp_u64(ib, ia);
    case CV_SORT_KIND: c = a->kind < b->kind ? -1 : a->kind > b->kind; break;
    case CV_SORT_FILE:
        if ((c = cmp_str(a->file, b->file)))
            break;
        if ((c = cmp_u64(a->line, b->line)))
            break;
        c = cmp_u64(a->col, b->col);
        break;
    case CV_SORT_CALL: c = cmp_str(trace_mpi_call_name(a->call), trace_mpi_call_name(b->call)); break;
    case CV_SORT_RANKS:
        if ((c = a->nranks < b->nranks ? -1 : a->nranks > b->nranks))
            break;
        if (a->nranks > 0 && b->nranks > 0 && a->ranks && b->ranks)
            c = a->ranks[0] < b->ranks[0] ? -1 : a->ranks[0] > b->ranks[0];
        break;
    case CV_SORT_ORDER:
    default: break;
    }
    return c ? c : cmp_u64(ia, ib);
}

/* qsort has no context argument in C11: the rows are sorted as records
 * carrying their hint. */
struct row {
    const struct search_hint *h;
    uint32_t i;
};

static int sort_key;

static int row_cmp(const void *pa, const void *pb)
{
    const struct row *a = pa, *b = pb;
    return cv_hint_compare(a->h, a->i, b->h, b->i, sort_key);
}

uint32_t cv_hint_model_rows(const struct search_hint *hints, uint32_t n, const struct cv_hint_filter *f,
                            int key, bool descending, uint32_t *idx)
{
    if (!hints || !idx || !n)
        return 0;
    struct row *rows = malloc((size_t)n * sizeof *rows);
    uint32_t m = 0;
    if (!rows) {
        /* out of memory: the ranked order, unsorted */
        for (uint32_t i = 0; i < n; i++)
            if (cv_hint_filter_match(&hints[i], f))
                idx[m++] = i;
        return m;
    }
    for (uint32_t i = 0; i < n; i++)
        if (cv_hint_filter_match(&hints[i], f))
            rows[m++] = (struct row){&hints[i], i};
    /* called from the GTK main thread only; the static key is not shared
     * with another thread */
    sort_key = key >= 0 && key < CV_SORT_NKEYS ? key : CV_SORT_ORDER;
    qsort(rows, m, sizeof *rows, row_cmp);
    for (uint32_t k = 0; k < m; k++)
        idx[k] = rows[descending ? m - 1 - k : k].i;
    free(rows);
    return m;
}

/* ---- cell text ------------------------------------------------------------------------ */


char *cv_format_ranks(char *buf, size_t size, const int *ranks, int n)
{
    if (!buf || !size)
        return buf;
    buf[0] = '\0';
    size_t len = 0;
    for (int k = 0; ranks && k < n;) {
        int j = k;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        int w;
        if (j > k)
            w = snprintf(buf + len, size - len, "%s%d-%d", k ? ", " : "", ranks[k], ranks[j]);
        else
            w = snprintf(buf + len, size - len, "%s%d", k ? ", " : "", ranks[k]);
        if (w < 0 || (size_t)w >= size - len) {
            /* does not fit: end with an ellipsis where there is room */
            if (size >= 4)
                snprintf(buf + (len + 4 < size ? len : size - 4), 4, "...");
            return buf;
        }
        len += (size_t)w;
        k = j + 1;
    }
    return buf;
}

const char *cv_basename(const char *path)
{
    if (!path)
        return "";
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

char *cv_hint_location(char *buf, size_t size, const struct search_hint *h)
{
    if (!buf || !size)
        return buf;
    const char *f = h && h->file && *h->file ? cv_basename(h->file) : "??";
    if (h && h->col)
        snprintf(buf, size, "%s:%u:%u", f, h->line, h->col);
    else
        snprintf(buf, size, "%s:%u", f, h ? h->line : 0);
    return buf;
}

