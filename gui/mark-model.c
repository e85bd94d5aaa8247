/* mark-model.c - line-mark placement for the source pane, without GTK
 * (see mark-model.h). */
#include <stdlib.h>
#include <string.h>

#include "mark-model.h"

/* A flat list of (file, mark) while building; grouped at the end. */
struct flat {
    const char *file;
    struct cv_mark m;
};

struct builder {
    struct flat *v;
    size_t n, cap;
    bool nomem;
};

static void add(struct builder *b, const char *file, uint32_t line, int cat, int role, uint32_t hint)
{
    if (!line || b->nomem)
        return;
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        struct flat *v = realloc(b->v, cap * sizeof *v);
        if (!v) {
            b->nomem = true;
            return;
        }
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = (struct flat){file ? file : "", {line, cat, role, hint}};
}

static int flat_cmp(const void *pa, const void *pb)
{
    const struct flat *a = pa, *b = pb;
    int c = strcmp(a->file, b->file);
    if (c)
        return c;
    if (a->m.line != b->m.line)
        return a->m.line < b->m.line ? -1 : 1;
    if (a->m.cat != b->m.cat)
        return a->m.cat < b->m.cat ? -1 : 1;
    if (a->m.role != b->m.role)
        return a->m.role < b->m.role ? -1 : 1;
    return a->m.hint < b->m.hint ? -1 : a->m.hint > b->m.hint;
}

static bool same_mark(const struct flat *a, const struct flat *b)
{
    return !strcmp(a->file, b->file) && a->m.line == b->m.line && a->m.cat == b->m.cat &&
           a->m.role == b->m.role && a->m.hint == b->m.hint;
}

/* Sorts, merges duplicates and groups by file into out. */
static int finish(struct builder *b, struct cv_marks *out)
{
    memset(out, 0, sizeof *out);
    if (b->nomem) {
        free(b->v);
        return TRACE_ERR_NOMEM;
    }
    if (!b->n) {
        free(b->v);
        return 0;
    }
    qsort(b->v, b->n, sizeof *b->v, flat_cmp);
    size_t m = 0;
    for (size_t i = 0; i < b->n; i++)
        if (!m || !same_mark(&b->v[m - 1], &b->v[i]))
            b->v[m++] = b->v[i];
    uint32_t nfiles = 0;
    for (size_t i = 0; i < m; i++)
        if (!i || strcmp(b->v[i - 1].file, b->v[i].file))
            nfiles++;
    out->files = calloc(nfiles, sizeof *out->files);
    if (!out->files) {
        free(b->v);
        return TRACE_ERR_NOMEM;
    }
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && !strcmp(b->v[j].file, b->v[i].file))
            j++;
        struct cv_file_marks *f = &out->files[out->nfiles++];
        f->file = b->v[i].file;
        f->marks = malloc((j - i) * sizeof *f->marks);
        if (!f->marks) {
            free(b->v);
            cv_marks_free(out);
            return TRACE_ERR_NOMEM;
        }
        for (size_t k = i; k < j; k++)
            f->marks[f->n++] = b->v[k].m;
        i = j;
    }
    free(b->v);
    return 0;
}

int cv_marks_for_hints(const struct search_hint *hints, uint32_t n, const uint32_t *idx, uint32_t nidx,
                       struct cv_marks *out)
{
    struct builder b = {0};
    if (!out)
        return TRACE_ERR_ARG;
    uint32_t count = idx ? nidx : n;
    for (uint32_t k = 0; hints && k < count; k++) {
        uint32_t i = idx ? idx[k] : k;
        if (i >= n)
            continue;
        const struct search_hint *h = &hints[i];
        int cat =
            h->kind >= SEARCH_HINT_OVERLAP && h->kind <= SEARCH_HINT_COLLECTIVE ? h->kind : CV_MARK_OVERLAP;
        add(&b, h->file, h->line, cat, 0, i);
    }
    return finish(&b, out);
}

int cv_marks_for_selection(const struct search_hint *h, uint32_t index, struct cv_marks *out)
{
    struct builder b = {0};
    if (!out)
        return TRACE_ERR_ARG;
    if (h) {
        add(&b, h->file, h->line, CV_MARK_CALL, 0, index);
        for (uint32_t k = 0; h->related && k < h->nrelated; k++) {
            const struct search_related *r = &h->related[k];
            add(&b, r->file, r->line, CV_MARK_RELATED, r->role, index);
        }
        for (uint32_t k = 1, nf = search_hint_nframes(h); k < nf; k++) {
            struct trace_srcframe f = search_hint_frame(h, k);
            add(&b, f.file, f.line, CV_MARK_PATH, 0, index);
        }
        if (h->kind == SEARCH_HINT_OVERLAP) {
            if (h->fix.start.file && h->fix.start.where != SEARCH_FIX_AT)
                add(&b, h->fix.start.file, h->fix.start.line, CV_MARK_FIX, CV_FIX_START, index);
            if (h->fix.wait.file)
                add(&b, h->fix.wait.file, h->fix.wait.line, CV_MARK_FIX, CV_FIX_WAIT, index);
        }
    }
    return finish(&b, out);
}

const struct cv_file_marks *cv_marks_file(const struct cv_marks *m, const char *file)
{
    if (!m || !file)
        return NULL;
    size_t lo = 0, hi = m->nfiles;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(m->files[mid].file, file);
        if (!c)
            return &m->files[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

void cv_marks_free(struct cv_marks *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->nfiles; i++)
        free(m->files[i].marks);
    free(m->files);
    m->files = NULL;
    m->nfiles = 0;
}

const char *cv_mark_cat_name(int cat)
{
    switch (cat) {
    case CV_MARK_OVERLAP: return "overlap";
    case CV_MARK_AGGREGATE: return "aggregate";
    case CV_MARK_COLLECTIVE: return "collective";
    case CV_MARK_CALL: return "call";
    case CV_MARK_RELATED: return "related";
    case CV_MARK_PATH: return "path";
    case CV_MARK_FIX: return "fix";
    }
    return "?";
}


