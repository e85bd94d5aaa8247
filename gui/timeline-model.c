/* timeline-model.c - the timeline pane's logic without GTK: lanes of call
 * bars built from the ranks' MPI logs, the time/pixel mapping, level of
 * detail, hit testing, message lines, axis ticks and the marks of the
 * selected hint (timeline-model.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline-model.h"

/* ---- bars ---------------------------------------------------------------------- */

static int bar_cmp(const void *pa, const void *pb)
{
    const struct cv_tl_bar *a = pa, *b = pb;
    if (a->t_enter != b->t_enter)
        return a->t_enter < b->t_enter ? -1 : 1;
    return a->rec < b->rec ? -1 : a->rec > b->rec;
}

static void bars_free(struct cv_tl_bars *b)
{
    free(b->bar);
    free(b->max_exit);
    memset(b, 0, sizeof *b);
}

/* Sorts b->bar (if needed) and fills max_exit. */
static int bars_finish(struct cv_tl_bars *b)
{
    bool sorted = true;
    for (uint32_t i = 1; i < b->n && sorted; i++)
        sorted = bar_cmp(&b->bar[i - 1], &b->bar[i]) <= 0;
    if (!sorted)
        qsort(b->bar, b->n, sizeof *b->bar, bar_cmp);
    free(b->max_exit);
    b->max_exit = NULL;
    if (!b->n)
        return 0;
    if (!(b->max_exit = malloc(b->n * sizeof *b->max_exit)))
        return TRACE_ERR_NOMEM;
    uint64_t mx = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->bar[i].t_exit > mx)
            mx = b->bar[i].t_exit;
        b->max_exit[i] = mx;
    }
    return 0;
}

uint32_t cv_tl_bars_first(const struct cv_tl_bars *b, uint64_t t)
{
    uint32_t lo = 0, hi = b->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (b->max_exit[mid] >= t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The calls of one rank: one bar per call, times known. */
static int lane_build(const struct search_analysis *an, struct cv_tl_lane *l)
{
    struct cv_tl_bars *b = &l->calls;
    uint32_t n = search_analysis_ncalls(an, l->rank);
    if (!n)
        return 0;
    if (!(b->bar = malloc(n * sizeof *b->bar)))
        return TRACE_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        const struct search_call *c = search_analysis_call(an, l->rank, i);
        if (!c->timed)
            continue;
        struct cv_tl_bar *o = &b->bar[b->n++];
        o->t_enter = c->t_enter;
        o->t_exit = c->t_exit;
        o->rec = i;
        o->call = c->call;
        o->cls = c->cls;
        o->reserved = 0;
    }
    return bars_finish(b);
}

int cv_tl_model_build(const struct cv_document *doc, struct cv_tl_model **out)
{
    if (!out)
        return TRACE_ERR_ARG;
    *out = NULL;
    if (!doc || doc->world_size < 0)
        return TRACE_ERR_ARG;
    struct cv_tl_model *m = calloc(1, sizeof *m);
    if (!m)
        return TRACE_ERR_NOMEM;
    m->t0 = doc->t0;
    m->t1 = doc->t1 > doc->t0 ? doc->t1 : doc->t0;
    m->an = doc->analysis;
    m->nlanes = doc->world_size;
    if (m->nlanes && !(m->lane = calloc((size_t)m->nlanes, sizeof *m->lane))) {
        free(m);
        return TRACE_ERR_NOMEM;
    }
    for (int r = 0; r < m->nlanes; r++) {
        m->lane[r].rank = r;
        m->lane[r].res = search_analysis_rank(doc->analysis, r);
        if (m->lane[r].res && lane_build(doc->analysis, &m->lane[r]) < 0) {
            cv_tl_model_free(m);
            return TRACE_ERR_NOMEM;
        }
    }
    *out = m;
    return 0;
}

static void selection_clear(struct cv_tl_model *m)
{
    for (int r = 0; r < m->nlanes; r++) {
        bars_free(&m->lane[r].marked);
        bars_free(&m->lane[r].windows);
        m->lane[r].overlap = NULL;
    }
    m->selected = NULL;
}

void cv_tl_model_free(struct cv_tl_model *m)
{
    if (!m)
        return;
    if (m->lane) {
        selection_clear(m);
        for (int r = 0; r < m->nlanes; r++)
            bars_free(&m->lane[r].calls);
    }
    free(m->lane);
    free(m);
}

/* ---- the selected hint ------------------------------------------------------- */

bool cv_tl_hint_has_site(const struct search_hint *h, const struct trace_site_info *info)
{
    return search_hint_at_site(h, info, true);
}

static bool site_in(const uint32_t *sites, uint32_t n, uint32_t site)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sites[mid] == site)
            return true;
        if (sites[mid] < site)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

static int u32_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

/* Marks h's calls and windows on lane l. */
static int select_lane(const struct search_analysis *an, struct cv_tl_lane *l, const struct search_hint *h)
{
    const struct search_rank_result *res = l->res;
    uint32_t nsi, *sites = NULL, nsites = 0;
    const struct search_siteinfo *si = search_rank_sites(res, &nsi);
    int rc = TRACE_ERR_NOMEM;

    if (nsi && !(sites = malloc(nsi * sizeof *sites)))
        goto out;
    for (uint32_t k = 0; k < nsi; k++)
        if (cv_tl_hint_has_site(h, si[k].info))
            sites[nsites++] = si[k].site;
    if (nsites > 1)
        qsort(sites, nsites, sizeof *sites, u32_cmp);
    if (nsites && l->calls.n) {
        if (!(l->marked.bar = malloc(l->calls.n * sizeof *l->marked.bar)))
            goto out;
        for (uint32_t i = 0; i < l->calls.n; i++)
            if (site_in(sites, nsites, search_analysis_call(an, l->rank, l->calls.bar[i].rec)->site))
                l->marked.bar[l->marked.n++] = l->calls.bar[i];
        if (bars_finish(&l->marked) < 0)
            goto out;
    }
    if (h->kind == SEARCH_HINT_OVERLAP) {
        uint32_t nov;
        const struct search_overlap *ov = search_rank_overlaps(res, &nov);
        for (uint32_t k = 0; k < nov && !l->overlap; k++)
            if (search_hint_at_site(h, ov[k].info, false) &&
                ov[k].needs_buffer == ((h->flags & SEARCH_HINT_NEEDS_BUFFER) != 0)) /* the variant's own */
                l->overlap = &ov[k];
        const struct search_overlap *o = l->overlap;
        if (o && o->nwindows) {
            if (!(l->windows.bar = malloc(o->nwindows * sizeof *l->windows.bar)))
                goto out;
            for (uint32_t k = 0; k < o->nwindows; k++) {
                const struct search_window *w = &o->windows[k];
                uint64_t lo = w->t_lo ? w->t_lo : w->t_call, hi = w->t_hi > lo ? w->t_hi : lo;
                if (!lo)
                    continue;
                struct cv_tl_bar *b = &l->windows.bar[l->windows.n++];
                b->t_enter = search_analysis_time(an, l->rank, lo);
                b->t_exit = search_analysis_time(an, l->rank, hi);
                b->rec = k;
                b->call = o->call;
                b->cls = (uint8_t)search_call_class_of(o->call);
                b->reserved = 0;
            }
            if (bars_finish(&l->windows) < 0)
                goto out;
        }
    }
    rc = 0;
out:
    free(sites);
    return rc;
}

int cv_tl_model_select(struct cv_tl_model *m, const struct search_hint *h)
{
    if (!m)
        return TRACE_ERR_ARG;
    selection_clear(m);
    if (!h)
        return 0;
    m->selected = h;
    for (int k = 0; k < h->nranks; k++) {
        int r = h->ranks[k];
        if (r < 0 || r >= m->nlanes || !m->lane[r].res)
            continue;
        if (select_lane(m->an, &m->lane[r], h) < 0) {
            selection_clear(m);
            return TRACE_ERR_NOMEM;
        }
    }
    return 0;
}

/* ---- the view ------------------------------------------------------------------ */

static void clamp_range(struct cv_tl_view *v)
{
    double span = v->v1 - v->v0;
    if (!(span >= v->min_span)) /* also NaN */
        span = v->min_span;
    if (span > v->total)
        span = v->total;
    if (!(v->v0 >= 0))
        v->v0 = 0;
    if (v->v0 + span > v->total)
        v->v0 = v->total - span;
    v->v1 = v->v0 + span;
}

static void clamp_lanes(struct cv_tl_view *v)
{
    double max = v->nlanes * v->pitch - v->height;
    if (max < 0)
        max = 0;
    if (!(v->y_off >= 0))
        v->y_off = 0;
    if (v->y_off > max)
        v->y_off = max;
}

void cv_tl_view_init(struct cv_tl_view *v, uint64_t span_ns, int nlanes)
{
    memset(v, 0, sizeof *v);
    v->total = span_ns ? (double)span_ns : 1;
    v->min_span = v->total < CV_TL_MIN_SPAN_NS ? v->total : CV_TL_MIN_SPAN_NS;
    v->nlanes = nlanes > 0 ? nlanes : 0;
    v->v0 = 0;
    v->v1 = v->total;
    cv_tl_view_set_area(v, 0, 100, 0, 100);
}

void cv_tl_view_set_area(struct cv_tl_view *v, double x0, double width, double top, double height)
{
    v->x0 = x0;
    v->width = width >= 1 ? width : 1;
    v->top = top;
    v->height = height > 0 ? height : 0;
    double pitch = v->nlanes ? v->height / v->nlanes : CV_TL_MAX_PITCH;
    if (pitch < CV_TL_MIN_PITCH)
        pitch = CV_TL_MIN_PITCH;
    if (pitch > CV_TL_MAX_PITCH)
        pitch = CV_TL_MAX_PITCH;
    v->pitch = floor(pitch);
    clamp_lanes(v);
}

void cv_tl_view_reset(struct cv_tl_view *v)
{
    v->v0 = 0;
    v->v1 = v->total;
    v->y_off = 0;
}

void cv_tl_view_set_range(struct cv_tl_view *v, double t0, double t1)
{
    if (t1 < t0) {
        double t = t0;
        t0 = t1;
        t1 = t;
    }
    if (t1 - t0 < v->min_span) {
        double mid = (t0 + t1) / 2;
        t0 = mid - v->min_span / 2;
        t1 = mid + v->min_span / 2;
    }
    v->v0 = t0;
    v->v1 = t1;
    clamp_range(v);
}

double cv_tl_x_of_t(const struct cv_tl_view *v, double t)
{
    return v->x0 + (t - v->v0) * v->width / (v->v1 - v->v0);
}

double cv_tl_t_of_x(const struct cv_tl_view *v, double x)
{
    return v->v0 + (x - v->x0) * (v->v1 - v->v0) / v->width;
}

double cv_tl_ns_per_px(const struct cv_tl_view *v)
{
    return (v->v1 - v->v0) / v->width;
}

double cv_tl_lane_top(const struct cv_tl_view *v, int lane)
{
    return v->top + lane * v->pitch - v->y_off;
}

int cv_tl_lane_at(const struct cv_tl_view *v, double y)
{
    if (y < v->top || y >= v->top + v->height || v->pitch <= 0)
        return -1;
    double l = floor((y - v->top + v->y_off) / v->pitch);
    return l >= 0 && l < v->nlanes ? (int)l : -1;
}

void cv_tl_zoom(struct cv_tl_view *v, double x, double factor)
{
    if (!(factor > 0))
        return;
    double t = cv_tl_t_of_x(v, x);
    double frac = (x - v->x0) / v->width;
    double span = (v->v1 - v->v0) / factor;
    if (span < v->min_span)
        span = v->min_span;
    if (span > v->total)
        span = v->total;
    v->v0 = t - frac * span;
    v->v1 = v->v0 + span;
    clamp_range(v);
}

void cv_tl_pan(struct cv_tl_view *v, double dx, double dy)
{
    double shift = dx * cv_tl_ns_per_px(v);
    double span = v->v1 - v->v0;
    v->v0 -= shift;
    v->v1 = v->v0 + span;
    clamp_range(v);
    v->y_off -= dy;
    clamp_lanes(v);
}

/* ---- level of detail ------------------------------------------------------------ */

/* One pixel column of narrow calls. */
struct lod_col {
    double cov[CV_TL_NCLASS]; /* px of the column covered, per class */
    uint32_t n;               /* calls touching it */
    uint32_t nstart;          /* calls whose first column it is */
    uint32_t first;           /* the first of them (bar index) */
    uint8_t first_cls;
};

static double rel(uint64_t t, uint64_t t0)
{
    return (double)(int64_t)(t - t0);
}

size_t cv_tl_lod_max(const struct cv_tl_view *v)
{
    return 2 * (size_t)ceil(v->width) + 2;
}

static int rect_cmp(const void *pa, const void *pb)
{
    const struct cv_tl_rect *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    return a->merged - b->merged;
}

static int col_level(const struct lod_col *c, double *total, int *cls)
{
    double sum = 0, best = -1;
    *cls = c->first_cls;
    for (int k = 0; k < CV_TL_NCLASS; k++) {
        sum += c->cov[k];
        if (c->cov[k] > best && c->cov[k] > 0) {
            best = c->cov[k];
            *cls = k;
        }
    }
    *total = sum;
    int level = (int)ceil(sum * 4 - 1e-9);
    return level < 1 ? 1 : level > 4 ? 4 : level;
}

long cv_tl_lod(const struct cv_tl_view *v, uint64_t t0, const struct cv_tl_bars *b, struct cv_tl_rect *out,
               size_t cap)
{
    size_t ncols = (size_t)ceil(v->width), nout = 0;
    double width = v->width, scale = v->width / (v->v1 - v->v0);
    struct lod_col *col = NULL;

    if (!b->n)
        return 0;
    if (cap < cv_tl_lod_max(v) || !(col = calloc(ncols, sizeof *col)))
        return -1;
    double end_abs = v->v1 + (double)t0;
    uint64_t start = v->v0 > 0 ? t0 + (uint64_t)v->v0 : t0;
    double wide_end = -1;
    for (uint32_t i = cv_tl_bars_first(b, start); i < b->n && (double)b->bar[i].t_enter <= end_abs + 1; i++) {
        const struct cv_tl_bar *bar = &b->bar[i];
        double a = (rel(bar->t_enter, t0) - v->v0) * scale, z = (rel(bar->t_exit, t0) - v->v0) * scale;
        if (z < 0 || a > width)
            continue;
        double ca = a < 0 ? 0 : a, cz = z > width ? width : z;
        if (ca < wide_end) { /* overlaps the last wide call (threads): only the rest is new */
            if (cz <= wide_end)
                continue;
            ca = wide_end;
        }
        if (cz - ca >= CV_TL_WIDE_PX) {
            out[nout++] = (struct cv_tl_rect){.x = v->x0 + ca,
                                              .w = cz - ca,
                                              .cls = bar->cls,
                                              .merged = false,
                                              .fill = 1,
                                              .nbars = 1,
                                              .first = i};
            wide_end = cz;
            continue;
        }
        size_t lo = (size_t)floor(ca), hi = cz > ca ? (size_t)ceil(cz) - 1 : lo;
        if (lo >= ncols)
            lo = ncols - 1;
        if (hi >= ncols)
            hi = ncols - 1;
        if (hi < lo)
            hi = lo;
        for (size_t c = lo; c <= hi; c++) {
            struct lod_col *k = &col[c];
            double l = ca > (double)c ? ca : (double)c, r = cz < (double)c + 1 ? cz : (double)c + 1;
            if (r > l)
                k->cov[bar->cls] += r - l;
            if (!k->n && !k->nstart) {
                k->first = i;
                k->first_cls = bar->cls;
            }
            k->n++;
        }
        col[lo].nstart++;
    }
    /* runs of columns: same class, same fill level, adjacent */
    for (size_t c = 0; c < ncols;) {
        if (!col[c].n) {
            c++;
            continue;
        }
        double sum, s;
        int cls, cls2;
        int level = col_level(&col[c], &sum, &cls);
        size_t e = c + 1;
        uint32_t nb = col[c].nstart, first = col[c].first;
        while (e < ncols && col[e].n && col_level(&col[e], &s, &cls2) == level && cls2 == cls) {
            sum += s;
            nb += col[e].nstart;
            if (col[e].first < first)
                first = col[e].first;
            e++;
        }
        double w = (double)e > width ? width - (double)c : (double)(e - c);
        float fill = (float)(sum / w);
        out[nout++] = (struct cv_tl_rect){.x = v->x0 + (double)c,
                                          .w = w,
                                          .cls = (uint8_t)cls,
                                          .merged = true,
                                          .fill = fill > 1 ? 1 : fill,
                                          .nbars = nb ? nb : 1,
                                          .first = first};
        c = e;
    }
    free(col);
    if (nout > 1)
        qsort(out, nout, sizeof *out, rect_cmp);
    return (long)nout;
}

long cv_tl_hit(const struct cv_tl_view *v, uint64_t t0, const struct cv_tl_bars *b, double x, double slop,
               uint32_t *nhere)
{
    long best = -1;
    double best_d = INFINITY, best_len = INFINITY;
    uint32_t count = 0;
    double t = cv_tl_t_of_x(v, x) + (double)t0;
    double tl = cv_tl_t_of_x(v, x - slop) + (double)t0, th = cv_tl_t_of_x(v, x + slop) + (double)t0;
    uint64_t start = tl > 0 ? (uint64_t)tl : 0;

    for (uint32_t i = b->n ? cv_tl_bars_first(b, start) : 0; i < b->n && (double)b->bar[i].t_enter <= th;
         i++) {
        const struct cv_tl_bar *bar = &b->bar[i];
        double a = (double)bar->t_enter, z = (double)bar->t_exit;
        if (z < tl)
            continue;
        count++;
        double d = t < a ? a - t : t > z ? t - z : 0;
        double len = z - a;
        if (d < best_d || (d == 0 && best_d == 0 && len < best_len)) {
            best = i;
            best_d = d;
            best_len = len;
        }
    }
    if (nhere)
        *nhere = count;
    return best;
}

/* ---- messages ------------------------------------------------------------------ */

static bool call_in_view(const struct search_call *c, uint64_t lo, uint64_t hi)
{
    return c->timed && c->t_exit >= lo && c->t_enter <= hi;
}

size_t cv_tl_messages(const struct cv_tl_model *m, const struct cv_tl_view *v, struct cv_tl_msg *out,
                      size_t cap)
{
    size_t n = 0;
    if (!m->an)
        return 0;
    uint64_t lo = m->t0 + (uint64_t)(v->v0 > 0 ? v->v0 : 0), hi = m->t0 + (uint64_t)ceil(v->v1);
    for (int l = 0; l < m->nlanes; l++) {
        const struct cv_tl_lane *lane = &m->lane[l];
        const struct cv_tl_bars *b = &lane->calls;
        if (!lane->res || !b->n)
            continue;
        for (uint32_t i = cv_tl_bars_first(b, lo); i < b->n && b->bar[i].t_enter <= hi; i++) {
            if (b->bar[i].t_exit < lo)
                continue;
            const struct search_call *c = search_analysis_call(m->an, l, b->bar[i].rec);
            for (uint32_t p = c->first; p < c->first + c->nparts; p++) {
                struct search_part r;
                search_analysis_part(m->an, l, p, &r);
                if ((r.kind != SEARCH_PART_SEND && r.kind != SEARCH_PART_RECV) || r.match_rank < 0 ||
                    r.match_rank >= m->nlanes || !m->lane[r.match_rank].res)
                    continue;
                struct search_part o;
                search_analysis_part(m->an, r.match_rank, r.match_part, &o);
                const struct search_call *q = search_analysis_call(m->an, r.match_rank, o.call);
                if (!q || !q->timed || !c->timed)
                    continue;
                struct cv_tl_msg msg;
                if (r.kind == SEARCH_PART_SEND) {
                    msg = (struct cv_tl_msg){l, r.match_rank, c->t_enter, q->t_exit};
                } else {
                    if (call_in_view(q, lo, hi))
                        continue; /* drawn from its send */
                    msg = (struct cv_tl_msg){r.match_rank, l, q->t_enter, c->t_exit};
                }
                if (n < cap)
                    out[n] = msg;
                if (++n > cap)
                    return n;
            }
        }
    }
    return n;
}

/* ---- axis ------------------------------------------------------------------------ */

int cv_tl_ticks(const struct cv_tl_view *v, double min_px, double *ticks, int max, double *step)
{
    double raw = min_px * cv_tl_ns_per_px(v);
    if (!(raw > 0))
        raw = 1;
    double p = pow(10, floor(log10(raw))), s = p;
    static const double mult[] = {1, 2, 5, 10};
    for (size_t k = 0; k < sizeof mult / sizeof *mult; k++)
        if ((s = mult[k] * p) >= raw)
            break;
    if (s < 1)
        s = 1;
    if (step)
        *step = s;
    int n = 0;
    for (double k = ceil(v->v0 / s); n < max; k++) {
        double t = k * s;
        if (t > v->v1)
            break;
        ticks[n++] = t;
    }
    return n;
}

char *cv_tl_format_tick(double t, double step, char *buf, size_t size)
{
    double unit;
    const char *name;
    if (step >= 1e9) {
        unit = 1e9;
        name = "s";
    } else if (step >= 1e4) {
        unit = 1e6;
        name = "ms";
    } else if (step >= 10) {
        unit = 1e3;
        name = "µs";
    } else {
        unit = 1;
        name = "ns";
    }
    double q = step / unit;
    int dec = q >= 1 ? 0 : (int)ceil(-log10(q) - 1e-9);
    if (dec > 6)
        dec = 6;
    snprintf(buf, size, "%.*f %s", dec, t / unit, name);
    return buf;
}

char *cv_tl_format_duration(double ns, char *buf, size_t size)
{
    double unit = 1;
    const char *name = "ns";
    if (ns >= 1e9) {
        unit = 1e9;
        name = "s";
    } else if (ns >= 1e6) {
        unit = 1e6;
        name = "ms";
    } else if (ns >= 1e3) {
        unit = 1e3;
        name = "µs";
    }
    double q = ns / unit;
    int dec = unit == 1 ? 0 : q < 10 ? 2 : q < 100 ? 1 : 0;
    snprintf(buf, size, "%.*f %s", dec, q, name);
    return buf;
}
