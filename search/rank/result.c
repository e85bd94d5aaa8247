/* result.c - what both engines share to build and compare per-rank results:
 * iteration-vector boxes, the per-message cost fit, and freeing and
 * comparing struct search_rank_result (docs/dependence.md): the rank's
 * facts here, each hint kind's part through its methods (rank/kind.h).
 *
 * The two engines must give identical results on the same events, so
 * everything here is deterministic in the order things are fed: the boxes
 * depend on the order vectors are added in, the cost fit on the order of
 * the sends (floating-point sums).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank/kind.h"

/* ---- iteration-vector boxes ------------------------------------------------ */

/* Whether box b continues box a: same depth (at least 1), the same loops at
 * every level, the same range at every level but one, and at that level b
 * starts right after a ends.  A degenerate box (one vector) is tested the
 * same way. */
static int box_continue_level(const struct search_box *a, const struct search_box *b)
{
    int level = -1;

    if (a->depth != b->depth || a->depth == 0)
        return -1;
    for (uint32_t k = 0; k < a->depth; k++) {
        if (a->dim[k].loop != b->dim[k].loop)
            return -1;
        if (a->dim[k].lo == b->dim[k].lo && a->dim[k].hi == b->dim[k].hi)
            continue;
        if (level >= 0 || a->dim[k].hi == UINT64_MAX || a->dim[k].hi + 1 != b->dim[k].lo)
            return -1;
        level = (int)k;
    }
    return level;
}

/* Adds the iteration vector iters[0..depth) (outermost first) to b.
 *
 * The new vector merges into the last box when box_continue_level() says it
 * continues it; the last box then merges into the one before it as long as
 * it continues that one.  Otherwise it becomes a new box, or, when b
 * already holds max boxes, it is only counted in b->more.  Vectors deeper
 * than SEARCH_BOX_DEPTH keep their innermost SEARCH_BOX_DEPTH levels.
 *
 * Depth 0 (an event outside every loop): all depth-0 vectors are the same
 * empty vector, and no level can continue another, so the list keeps one
 * depth-0 box and a depth-0 vector added while the list holds one is
 * dropped, neither added nor counted in `more` (it is already in the set).
 *
 * max 0 means SEARCH_DEFAULT_MAX_BOXES.  Returns 0 or TRACE_ERR_NOMEM. */
int search_boxes_add(struct search_boxes *b, uint32_t depth, const struct trace_iter *iters,
                     unsigned max)
{
    struct search_box nb;

    if (!max)
        max = SEARCH_DEFAULT_MAX_BOXES;
    if (depth > SEARCH_BOX_DEPTH) {
        iters += depth - SEARCH_BOX_DEPTH;
        depth = SEARCH_BOX_DEPTH;
    }
    /* fast path, the common case in a loop: the next iteration of the last
     * box's innermost loop, every outer level a single equal iteration */
    if (depth && b->n && b->box[b->n - 1].depth == depth) {
        struct search_box *last = &b->box[b->n - 1];
        uint32_t in = depth - 1;
        bool next = last->dim[in].loop == iters[in].loop && last->dim[in].hi + 1 == iters[in].iter;
        for (uint32_t k = 0; next && k < in; k++)
            next = last->dim[k].loop == iters[k].loop && last->dim[k].lo == iters[k].iter &&
                   last->dim[k].hi == iters[k].iter;
        if (next) {
            last->dim[in].hi = iters[in].iter;
            /* the last box can only now continue the one before it if
             * their innermost ranges are equal or adjacent */
            if (b->n >= 2) {
                const struct search_box *prev = &b->box[b->n - 2];
                if (prev->depth == depth && prev->dim[in].hi + 1 != last->dim[in].lo &&
                    (prev->dim[in].lo != last->dim[in].lo || prev->dim[in].hi != last->dim[in].hi))
                    return 0;
            }
            while (b->n >= 2) {
                struct search_box *prev = &b->box[b->n - 2];
                last = &b->box[b->n - 1];
                int level = box_continue_level(prev, last);
                if (level < 0)
                    break;
                prev->dim[level].hi = last->dim[level].hi;
                b->n--;
            }
            return 0;
        }
    }
    memset(&nb, 0, sizeof(nb));
    nb.depth = depth;
    for (uint32_t k = 0; k < depth; k++) {
        nb.dim[k].loop = iters[k].loop;
        nb.dim[k].lo = nb.dim[k].hi = iters[k].iter;
    }

    if (depth == 0) {
        for (uint32_t i = 0; i < b->n; i++)
            if (b->box[i].depth == 0)
                return 0;
    } else if (b->n) {
        struct search_box *last = &b->box[b->n - 1];
        int level = box_continue_level(last, &nb);

        if (level >= 0) {
            last->dim[level].hi = nb.dim[level].hi;
            while (b->n >= 2) {
                struct search_box *prev = &b->box[b->n - 2];
                last = &b->box[b->n - 1];
                level = box_continue_level(prev, last);
                if (level < 0)
                    break;
                prev->dim[level].hi = last->dim[level].hi;
                b->n--;
            }
            return 0;
        }
    }

    if (b->n >= max) {
        b->more++;
        return 0;
    }
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 2;
        struct search_box *nbox;

        if (cap > max)
            cap = max;
        nbox = realloc(b->box, cap * sizeof(*nbox));
        if (!nbox)
            return TRACE_ERR_NOMEM;
        b->box = nbox;
        b->cap = cap;
    }
    b->box[b->n++] = nb;
    return 0;
}

void search_boxes_free(struct search_boxes *b)
{
    if (!b)
        return;
    free(b->box);
    memset(b, 0, sizeof(*b));
}

/* Compares the boxes themselves: depth, loops and ranges.  The `line` fields
 * (filled in when resolving loops to source lines) and cap are ignored. */
static bool box_equal(const struct search_box *a, const struct search_box *b)
{
    if (a->depth != b->depth)
        return false;
    for (uint32_t k = 0; k < a->depth; k++)
        if (a->dim[k].loop != b->dim[k].loop || a->dim[k].lo != b->dim[k].lo ||
            a->dim[k].hi != b->dim[k].hi)
            return false;
    return true;
}

bool search_boxes_equal(const struct search_boxes *a, const struct search_boxes *b)
{
    if (a->n != b->n || a->more != b->more)
        return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (!box_equal(&a->box[i], &b->box[i]))
            return false;
    return true;
}

char *search_box_format(const struct search_box *box, char *buf, size_t size)
{
    size_t off = 0;

    if (!size)
        return buf;
    buf[0] = '\0';
#define PUT(...)                                                                               \
    do {                                                                                       \
        int w_ = snprintf(buf + off, size - off, __VA_ARGS__);                                 \
        if (w_ < 0 || (size_t)w_ >= size - off)                                                \
            return buf;                                                                        \
        off += (size_t)w_;                                                                     \
    } while (0)
    PUT("(");
    for (uint32_t k = 0; k < box->depth && k < SEARCH_BOX_DEPTH; k++) {
        if (box->dim[k].lo == box->dim[k].hi)
            PUT("%s%" PRIu64, k ? ", " : "", box->dim[k].lo);
        else
            PUT("%s%" PRIu64 "..%" PRIu64, k ? ", " : "", box->dim[k].lo, box->dim[k].hi);
    }
    PUT(")");
#undef PUT
    return buf;
}

/* ---- per-message cost -------------------------------------------------------- */

void search_msgcost_add(struct search_msgcost *m, uint64_t bytes, uint64_t ns)
{
    double x = (double)bytes, y = (double)ns;

    if (m->n == 0 || y < m->min_ns) {
        m->min_ns = y;
        m->min_bytes = x;
    }
    m->n++;
    m->sx += x;
    m->sy += y;
    m->sxx += x * x;
    m->sxy += x * y;
}

/* See search.h.  The sums are doubles, so n*sxx - sx*sx of equal sizes can
 * come out as rounding noise instead of 0: a spread below 1e-12 of n*sxx
 * counts as a single size. */
double search_msgcost_latency(const struct search_msgcost *m)
{
    if (!m || m->n == 0)
        return 0;
    double n = (double)m->n;
    double den = n * m->sxx - m->sx * m->sx;
    double slope = 0;
    if (den > 1e-12 * n * m->sxx)
        slope = (n * m->sxy - m->sx * m->sy) / den;
    if (!(slope > 0))
        slope = 0;
    double a = m->min_ns - (m->min_bytes >= 1024 ? slope * m->min_bytes : 0);
    if (!(a > 0))
        return 0;
    return a > m->min_ns ? m->min_ns : a;
}

/* ---- per-rank results ----------------------------------------------------------- */

void search_rank_result_free(struct search_rank_result *r)
{
    if (!r)
        return;
    for (unsigned k = 0; k < search_kinds_count(); k++)
        search_kinds_get(k)->result_free(r);
    free(r->kind_data);
    dg_mpilog_free(&r->log);
    free(r->siteinfo);
    free(r);
}

int search_rank_result_log_facts(struct search_rank_result *r)
{
    for (unsigned k = 0; k < search_kinds_count(); k++) {
        const struct search_kind *kd = search_kinds_get(k);
        int rc = kd->log_facts ? kd->log_facts(r) : 0;
        if (rc < 0)
            return rc;
    }
    return 0;
}

void *search_rank_result_kind_data(const struct search_rank_result *r, const struct search_kind *k)
{
    for (uint32_t i = 0; r && i < r->nkind_data; i++)
        if (r->kind_data[i].kind == k)
            return r->kind_data[i].data;
    return NULL;
}

int search_rank_result_set_kind_data(struct search_rank_result *r, const struct search_kind *k, void *data)
{
    for (uint32_t i = 0; i < r->nkind_data; i++)
        if (r->kind_data[i].kind == k) {
            r->kind_data[i].data = data;
            return 0;
        }
    struct search_kind_data *p = realloc(r->kind_data, (r->nkind_data + 1) * sizeof *p);
    if (!p)
        return TRACE_ERR_NOMEM;
    r->kind_data = p;
    r->kind_data[r->nkind_data++] = (struct search_kind_data){k, data};
    return 0;
}

static int siteinfo_cmp(const void *key, const void *elem)
{
    uint32_t k = *(const uint32_t *)key, v = ((const struct search_siteinfo *)elem)->site;
    return k < v ? -1 : k > v;
}

struct site_find {
    uint32_t site;
    const struct trace_site_info *info;
};

static bool site_find(void *ctx, uint32_t site, const struct trace_site_info **info)
{
    struct site_find *f = ctx;
    if (site != f->site || !*info)
        return false;
    f->info = *info;
    return true;
}

const struct trace_site_info *search_site_info(const struct search_rank_result *r, uint32_t site)
{
    if (!r)
        return NULL;
    if (r->nsiteinfo) {
        const struct search_siteinfo *f =
            bsearch(&site, r->siteinfo, r->nsiteinfo, sizeof *r->siteinfo, siteinfo_cmp);
        if (f)
            return f->info;
    }
    /* the kinds' references, in the kinds' order (the walk writes nothing) */
    struct site_find f = {site, NULL};
    struct search_site_visitor v = {.site = site_find, .ctx = &f};
    for (unsigned k = 0; k < search_kinds_count() && !f.info; k++)
        if (search_kinds_get(k)->visit)
            search_kinds_get(k)->visit((struct search_rank_result *)r, &v);
    return f.info;
}

bool search_differ(char *why, size_t size, const char *fmt, ...)
{
    va_list ap;

    if (why && size) {
        va_start(ap, fmt);
        vsnprintf(why, size, fmt, ap);
        va_end(ap);
    }
    return false;
}

bool search_boxes_diff(const struct search_boxes *a, const struct search_boxes *b, const char *what,
                       char *why, size_t size)
{
    char ba[160], bb[160];

    for (uint32_t i = 0; i < a->n && i < b->n; i++)
        if (!box_equal(&a->box[i], &b->box[i])) {
            for (uint32_t k = 0; k < a->box[i].depth && k < b->box[i].depth; k++)
                if (a->box[i].dim[k].loop != b->box[i].dim[k].loop)
                    return search_differ(why, size, "%s box %" PRIu32 ": loop at level %" PRIu32
                                         " %" PRIu32 " != %" PRIu32,
                                         what, i, k, a->box[i].dim[k].loop, b->box[i].dim[k].loop);
            return search_differ(why, size, "%s box %" PRIu32 ": %s != %s", what, i,
                                 search_box_format(&a->box[i], ba, sizeof(ba)),
                                 search_box_format(&b->box[i], bb, sizeof(bb)));
        }
    if (a->n != b->n)
        return search_differ(why, size, "%s: boxes %" PRIu32 " != %" PRIu32 " (first extra %s)", what, a->n,
                             b->n,
                             a->n > b->n ? search_box_format(&a->box[b->n], ba, sizeof(ba))
                                         : search_box_format(&b->box[a->n], bb, sizeof(bb)));
    if (a->more != b->more)
        return search_differ(why, size, "%s: more %" PRIu64 " != %" PRIu64, what, a->more, b->more);
    return true;
}

bool search_rank_result_equal(const struct search_rank_result *a, const struct search_rank_result *b,
                              char *why, size_t size)
{
    if (why && size)
        why[0] = '\0';
    if (!a || !b) {
        if (a == b)
            return true;
        return search_differ(why, size, "result %s != %s", a ? "present" : "NULL", b ? "present" : "NULL");
    }
    if (a->rank != b->rank)
        return search_differ(why, size, "rank %d != %d", a->rank, b->rank);
#define CMP(field) SEARCH_CMP_FIELD("", field)
    CMP(events);
    CMP(comp_events);
    CMP(mpi_events);
    CMP(t_first);
    CMP(t_last);
#undef CMP
    if (a->msg_latency_ns != b->msg_latency_ns)
        return search_differ(why, size, "msg_latency_ns %.17g != %.17g", a->msg_latency_ns,
                             b->msg_latency_ns);
    for (unsigned k = 0; k < search_kinds_count(); k++)
        if (!search_kinds_get(k)->result_equal(a, b, why, size))
            return false;
    return true;
}
