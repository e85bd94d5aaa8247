/* test-timeline-model.c - unit tests of the viewer's timeline and
 * statistics models (gui/timeline-model.c, gui/stats-model.c), without a
 * display: the time <-> pixel mapping (round trips, zoom around a point,
 * clamping, pan), lanes, hit testing, level of detail (bounded rectangles
 * covering the same pixels as the calls), axis ticks, and, on documents
 * built by hand, the lanes, the marks of a selected hint, the message lines
 * and the per-site and per-rank totals.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "search-private.h"
#include "stats-model.h"
#include "timeline-model.h"

#define MS 1000000ull
#define T0 5000000000ull /* the fabricated runs start at 5 s of CLOCK_MONOTONIC */

static void assert_near(double a, double b, double eps)
{
    if (!(a - b <= eps && b - a <= eps))
        fail_msg("%.9g is not within %g of %.9g", a, eps, b);
}

static struct cv_tl_view view_800(uint64_t span, int nlanes)
{
    struct cv_tl_view v;
    cv_tl_view_init(&v, span, nlanes);
    cv_tl_view_set_area(&v, 80, 800, 30, 400);
    return v;
}

/* ---- mapping --------------------------------------------------------------------- */

static void test_mapping_round_trip(void **state)
{
    (void)state;
    struct cv_tl_view v = view_800(1000 * MS, 4);
    assert_near(cv_tl_x_of_t(&v, 0), 80, 1e-9);
    assert_near(cv_tl_x_of_t(&v, 1000.0 * MS), 880, 1e-9);
    assert_near(cv_tl_x_of_t(&v, 500.0 * MS), 480, 1e-9);
    assert_near(cv_tl_ns_per_px(&v), 1.25e6, 1e-6);
    for (double x = 80; x <= 880; x += 37.5)
        assert_near(cv_tl_x_of_t(&v, cv_tl_t_of_x(&v, x)), x, 1e-6);
    cv_tl_view_set_range(&v, 123456789.0, 123466789.0); /* 10 us */
    for (double t = 123456789.0; t <= 123466789.0; t += 777)
        assert_near(cv_tl_t_of_x(&v, cv_tl_x_of_t(&v, t)), t, 1e-3);
    assert_near(cv_tl_x_of_t(&v, 123456789.0), 80, 1e-6);
}

static void test_zoom_keeps_point(void **state)
{
    (void)state;
    struct cv_tl_view v = view_800(1000 * MS, 4);
    double xs[] = {80, 123, 480, 700.5, 880};
    for (size_t k = 0; k < sizeof xs / sizeof *xs; k++) {
        cv_tl_view_reset(&v);
        cv_tl_zoom(&v, xs[k], 4); /* zooming in never needs clamping from the full view */
        double t = cv_tl_t_of_x(&v, xs[k]);
        for (int i = 0; i < 5; i++) {
            double span = v.v1 - v.v0;
            cv_tl_zoom(&v, xs[k], 2);
            assert_near(cv_tl_t_of_x(&v, xs[k]), t, 1e-3);
            assert_near(v.v1 - v.v0, span / 2, 1e-3);
        }
        cv_tl_zoom(&v, xs[k], 0.5); /* and out again, inside the document */
        assert_near(cv_tl_t_of_x(&v, xs[k]), t, 1e-3);
    }
}

static void test_zoom_clamps(void **state)
{
    (void)state;
    struct cv_tl_view v = view_800(1000 * MS, 4);
    /* out past the document: the whole document */
    cv_tl_zoom(&v, 300, 2);
    cv_tl_zoom(&v, 700, 0.1);
    assert_near(v.v0, 0, 0);
    assert_near(v.v1, 1000.0 * MS, 0);
    /* in without end: stops at the minimum span, inside the document */
    for (int i = 0; i < 200; i++)
        cv_tl_zoom(&v, 879, 1.7);
    assert_near(v.v1 - v.v0, CV_TL_MIN_SPAN_NS, 1e-6);
    assert_true(v.v0 >= 0 && v.v1 <= v.total);
    /* zooming in at the last pixel near the end keeps the end in view */
    cv_tl_view_reset(&v);
    cv_tl_zoom(&v, 880, 10);
    assert_near(v.v1, 1000.0 * MS, 1e-3);
    /* a document shorter than the minimum span: its whole span */
    struct cv_tl_view s = view_800(400, 1);
    cv_tl_zoom(&s, 400, 8);
    assert_near(s.v0, 0, 0);
    assert_near(s.v1, 400, 0);
    /* a range given backwards and too short is ordered and widened */
    cv_tl_view_set_range(&v, 500.0 * MS + 10, 500.0 * MS);
    assert_near(v.v1 - v.v0, CV_TL_MIN_SPAN_NS, 1e-6);
    assert_near((v.v0 + v.v1) / 2, 500.0 * MS + 5, 1e-6);
    /* factor 0 or negative is ignored */
    double a = v.v0, b = v.v1;
    cv_tl_zoom(&v, 400, 0);
    cv_tl_zoom(&v, 400, -2);
    assert_near(v.v0, a, 0);
    assert_near(v.v1, b, 0);
}

static void test_pan(void **state)
{
    (void)state;
    struct cv_tl_view v = view_800(1000 * MS, 4);
    cv_tl_view_set_range(&v, 400.0 * MS, 480.0 * MS); /* 0.1 ms per px */
    cv_tl_pan(&v, 100, 0);                            /* drag right: earlier times */
    assert_near(v.v0, 390.0 * MS, 1e-3);
    assert_near(v.v1, 470.0 * MS, 1e-3);
    cv_tl_pan(&v, -250, 0);
    assert_near(v.v0, 415.0 * MS, 1e-3);
    /* a point under the pointer moves with it */
    double t = cv_tl_t_of_x(&v, 300);
    cv_tl_pan(&v, 42, 0);
    assert_near(cv_tl_t_of_x(&v, 342), t, 1e-3);
    /* clamped at both ends, span kept */
    cv_tl_pan(&v, 1e9, 0);
    assert_near(v.v0, 0, 0);
    assert_near(v.v1, 80.0 * MS, 1e-3);
    cv_tl_pan(&v, -1e9, 0);
    assert_near(v.v1, 1000.0 * MS, 1e-3);
    assert_near(v.v1 - v.v0, 80.0 * MS, 1e-3);
}

static void test_lanes(void **state)
{
    (void)state;
    /* 4 lanes in 400 px: 56 px each at most, no scrolling */
    struct cv_tl_view v = view_800(1000 * MS, 4);
    assert_near(v.pitch, CV_TL_MAX_PITCH, 0);
    assert_int_equal(cv_tl_lane_at(&v, 29), -1);
    assert_int_equal(cv_tl_lane_at(&v, 30), 0);
    assert_int_equal(cv_tl_lane_at(&v, 30 + 56 * 3 + 1), 3);
    assert_int_equal(cv_tl_lane_at(&v, 30 + 56 * 4 + 1), -1); /* below the last lane */
    cv_tl_pan(&v, 0, -100);
    assert_near(v.y_off, 0, 0); /* everything fits: no vertical scroll */
    for (int l = 0; l < 4; l++)
        assert_int_equal(cv_tl_lane_at(&v, cv_tl_lane_top(&v, l) + v.pitch / 2), l);

    /* 100 lanes in 400 px: 18 px each, scrolled by dragging up */
    struct cv_tl_view w = view_800(1000 * MS, 100);
    assert_near(w.pitch, CV_TL_MIN_PITCH, 0);
    cv_tl_pan(&w, 0, -180);
    assert_near(w.y_off, 180, 0);
    assert_int_equal(cv_tl_lane_at(&w, 30), 10);
    assert_near(cv_tl_lane_top(&w, 10), 30, 0);
    cv_tl_pan(&w, 0, -1e6);
    assert_near(w.y_off, 100 * 18 - 400, 0);
    assert_int_equal(cv_tl_lane_at(&w, 429), 99);
    cv_tl_pan(&w, 0, 1e6);
    assert_near(w.y_off, 0, 0);
    /* a taller window stops the scrolling */
    cv_tl_pan(&w, 0, -500);
    cv_tl_view_set_area(&w, 80, 800, 30, 2000);
    assert_near(w.y_off, 0, 0);
}

/* ---- bars, hit testing, level of detail ----------------------------------------- */

static struct cv_tl_bars make_bars(const uint64_t (*iv)[2], uint32_t n)
{
    struct cv_tl_bars b = {.n = n};
    b.bar = calloc(n, sizeof *b.bar);
    b.max_exit = calloc(n, sizeof *b.max_exit);
    assert_non_null(b.bar);
    assert_non_null(b.max_exit);
    uint64_t mx = 0;
    for (uint32_t i = 0; i < n; i++) {
        b.bar[i].t_enter = T0 + iv[i][0];
        b.bar[i].t_exit = T0 + iv[i][1];
        b.bar[i].rec = i;
        b.bar[i].cls = (uint8_t)(i % CV_TL_NCLASS);
        if (b.bar[i].t_exit > mx)
            mx = b.bar[i].t_exit;
        b.max_exit[i] = mx;
    }
    return b;
}

static void free_bars(struct cv_tl_bars *b)
{
    free(b->bar);
    free(b->max_exit);
}

static void test_hit(void **state)
{
    (void)state;
    /* 1 ms per px over 800 ms */
    struct cv_tl_view v = view_800(800 * MS, 1);
    static const uint64_t iv[][2] = {
        {100 * MS, 200 * MS}, {300 * MS, 301 * MS}, {305 * MS, 305 * MS},
        {500 * MS, 700 * MS}, {550 * MS, 560 * MS}, /* another thread's call inside the previous one */
    };
    struct cv_tl_bars b = make_bars(iv, 5);
    uint32_t nhere;

    assert_int_equal(cv_tl_bars_first(&b, T0), 0);
    assert_int_equal(cv_tl_bars_first(&b, T0 + 250 * MS), 1);
    assert_int_equal(cv_tl_bars_first(&b, T0 + 555 * MS), 3); /* reaches past 555 */
    assert_int_equal(cv_tl_bars_first(&b, T0 + 701 * MS), 5);

    assert_int_equal(cv_tl_hit(&v, T0, &b, 80 + 150, 3, &nhere), 0);
    assert_int_equal(nhere, 1);
    assert_int_equal(cv_tl_hit(&v, T0, &b, 80 + 99, 3, NULL), 0); /* just before: within slop */
    assert_int_equal(cv_tl_hit(&v, T0, &b, 80 + 250, 3, &nhere), -1);
    assert_int_equal(nhere, 0);
    /* 303 ms: between the 1 ms call and the 0 ms call, 2 ms from each;
     * the nearer is the first (ends at 301) */
    assert_int_equal(cv_tl_hit(&v, T0, &b, 80 + 302, 3, &nhere), 1);
    assert_int_equal(nhere, 2);
    assert_int_equal(cv_tl_hit(&v, T0, &b, 80 + 305, 1, NULL), 2);
    /* inside nested calls: the shorter one */
    assert_int_equal(cv_tl_hit(&v, T0, &b, 80 + 555, 0, &nhere), 4);
    assert_int_equal(nhere, 2);
    assert_int_equal(cv_tl_hit(&v, T0, &b, 80 + 600, 0, NULL), 3);
    free_bars(&b);
}

/* Pixel columns covered (relative to the plot's left edge). */
static void cover(unsigned char *cols, size_t ncols, double a, double z)
{
    if (z < 0 || a > (double)ncols)
        return;
    if (a < 0)
        a = 0;
    if (z > (double)ncols)
        z = (double)ncols;
    size_t lo = (size_t)a, hi = z > a ? (size_t)ceil(z) - 1 : lo;
    if (hi >= ncols)
        hi = ncols - 1;
    if (lo > hi)
        lo = hi;
    for (size_t c = lo; c <= hi; c++)
        cols[c] = 1;
}

static void check_lod(const struct cv_tl_view *v, const struct cv_tl_bars *b, long *count)
{
    size_t cap = cv_tl_lod_max(v), ncols = (size_t)ceil(v->width);
    struct cv_tl_rect *r = calloc(cap, sizeof *r);
    unsigned char *want = calloc(ncols, 1), *got = calloc(ncols, 1);
    assert_non_null(r);
    assert_non_null(want);
    assert_non_null(got);

    long n = cv_tl_lod(v, T0, b, r, cap);
    assert_true(n >= 0);
    assert_true((size_t)n <= 2 * ncols);
    double scale = v->width / (v->v1 - v->v0);
    for (uint32_t i = 0; i < b->n; i++)
        cover(want, ncols, ((double)(b->bar[i].t_enter - T0) - v->v0) * scale,
              ((double)(b->bar[i].t_exit - T0) - v->v0) * scale);
    uint64_t bars = 0;
    for (long k = 0; k < n; k++) {
        assert_true(r[k].x >= v->x0 - 1e-9 && r[k].x + r[k].w <= v->x0 + v->width + 1e-9);
        assert_true(k == 0 || r[k].x >= r[k - 1].x);
        assert_true(r[k].fill >= 0 && r[k].fill <= 1);
        assert_true(r[k].cls < CV_TL_NCLASS);
        assert_true(r[k].first < b->n);
        cover(got, ncols, r[k].x - v->x0, r[k].x - v->x0 + r[k].w);
        bars += r[k].nbars;
    }
    for (size_t c = 0; c < ncols; c++)
        if (want[c] != got[c])
            fail_msg("pixel column %zu: calls %s it, rectangles %s", c, want[c] ? "cover" : "leave",
                     got[c] ? "cover" : "leave");
    assert_true(bars >= (n > 0 ? 1u : 0u));
    *count = n;
    free(r);
    free(want);
    free(got);
}

static void test_lod_bounded(void **state)
{
    (void)state;
    /* 100,000 calls over 1 s, with gaps of 0 to 20 us and lengths of 0 to
     * 10 us, one long call of 30 ms, and an empty stretch of 100 ms */
    enum { N = 100000 };
    uint64_t(*iv)[2] = calloc(N, sizeof *iv);
    assert_non_null(iv);
    uint64_t t = 0, seed = 12345;
    for (int i = 0; i < N; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        t += (seed >> 33) % 20000;
        if (i == N / 2)
            t += 100 * MS;
        uint64_t len = i == N / 4 ? 30 * MS : (seed >> 20) % 10000;
        iv[i][0] = t;
        iv[i][1] = t + len;
        t += len;
    }
    struct cv_tl_bars b = make_bars((const uint64_t(*)[2])iv, N);
    struct cv_tl_view v = view_800(t, 1);
    long n;

    check_lod(&v, &b, &n);
    assert_true(n <= 1600);
    assert_true(n > 2); /* the empty stretch and the long call split it */
    /* the long call is drawn as itself */
    struct cv_tl_rect *r = calloc(cv_tl_lod_max(&v), sizeof *r);
    assert_non_null(r);
    n = cv_tl_lod(&v, T0, &b, r, cv_tl_lod_max(&v));
    bool seen = false;
    for (long k = 0; k < n; k++)
        if (!r[k].merged && r[k].first == N / 4) {
            seen = true;
            assert_near(r[k].x, cv_tl_x_of_t(&v, (double)iv[N / 4][0]), 1e-6);
            assert_near(r[k].w, 30.0 * MS / cv_tl_ns_per_px(&v), 1e-6);
        }
    assert_true(seen);
    /* a capacity below the bound is refused */
    assert_int_equal(cv_tl_lod(&v, T0, &b, r, 10), -1);
    free(r);

    /* zoomed in at several depths and places, with a width that is not whole */
    cv_tl_view_set_area(&v, 80.5, 799.5, 30, 400);
    double spans[] = {50.0 * MS, 1.0 * MS, 100e3, 5e3};
    for (size_t k = 0; k < sizeof spans / sizeof *spans; k++)
        for (double at = 0; at < (double)t; at += (double)t / 7) {
            cv_tl_view_set_range(&v, at, at + spans[k]);
            check_lod(&v, &b, &n);
            assert_true((size_t)n <= 2 * 800);
        }
    /* deep zoom: every call in view is its own rectangle */
    cv_tl_view_set_range(&v, (double)iv[1000][0], (double)iv[1003][1]);
    struct cv_tl_rect rr[2000];
    n = cv_tl_lod(&v, T0, &b, rr, 2000);
    assert_true(n >= 4);
    for (long k = 0; k < n; k++)
        if (rr[k].w >= CV_TL_WIDE_PX)
            assert_false(rr[k].merged);
    /* overlapping calls (threads): 30 calls of 50 ms starting 10 ms apart,
     * and short ones inside them */
    uint64_t ov[60][2];
    for (int i = 0; i < 30; i++) {
        ov[2 * i][0] = (uint64_t)i * 10 * MS;
        ov[2 * i][1] = ov[2 * i][0] + 50 * MS;
        ov[2 * i + 1][0] = ov[2 * i][0] + 3 * MS;
        ov[2 * i + 1][1] = ov[2 * i][0] + 3 * MS + 1000;
    }
    struct cv_tl_bars ob = make_bars((const uint64_t(*)[2])ov, 60);
    struct cv_tl_view ovv = view_800(400 * MS, 1);
    check_lod(&ovv, &ob, &n);
    assert_true(n >= 1 && n <= 31);
    free_bars(&ob);
    /* no bars, nothing */
    struct cv_tl_bars none = {0};
    assert_int_equal(cv_tl_lod(&v, T0, &none, rr, 2000), 0);
    free_bars(&b);
    free(iv);
}

/* ---- axis ----------------------------------------------------------------------- */

static void test_ticks(void **state)
{
    (void)state;
    struct cv_tl_view v = view_800(1071 * MS, 1);
    double ticks[64], step;
    int n = cv_tl_ticks(&v, 80, ticks, 64, &step);
    /* 80 px = 107 ms: step 200 ms */
    assert_near(step, 200.0 * MS, 0);
    assert_int_equal(n, 6);
    assert_near(ticks[0], 0, 0);
    assert_near(ticks[5], 1000.0 * MS, 0);
    char buf[32];
    assert_string_equal(cv_tl_format_tick(ticks[2], step, buf, sizeof buf), "400 ms");

    cv_tl_view_set_range(&v, 142.2 * MS, 142.6 * MS); /* 80 px = 40 us: step 50 us */
    n = cv_tl_ticks(&v, 80, ticks, 64, &step);
    assert_near(step, 50e3, 1e-9);
    assert_true(n >= 7 && n <= 9);
    for (int k = 0; k < n; k++) {
        assert_true(ticks[k] >= v.v0 && ticks[k] <= v.v1);
        if (k)
            assert_true(cv_tl_x_of_t(&v, ticks[k]) - cv_tl_x_of_t(&v, ticks[k - 1]) >= 80 - 1e-6);
    }
    assert_string_equal(cv_tl_format_tick(142.25 * MS, step, buf, sizeof buf), "142.25 ms");
    assert_string_equal(cv_tl_format_tick(20e3, 5e3, buf, sizeof buf), "20 µs");
    assert_string_equal(cv_tl_format_tick(2e9, 1e9, buf, sizeof buf), "2 s");
    assert_string_equal(cv_tl_format_tick(1.5e9, 5e8, buf, sizeof buf), "1500 ms");
    assert_string_equal(cv_tl_format_tick(7, 1, buf, sizeof buf), "7 ns");
    /* max bounds the count */
    assert_int_equal(cv_tl_ticks(&v, 1, ticks, 3, &step), 3);

    assert_string_equal(cv_tl_format_duration(11463908, buf, sizeof buf), "11.5 ms");
    assert_string_equal(cv_tl_format_duration(29404, buf, sizeof buf), "29.4 µs");
    assert_string_equal(cv_tl_format_duration(6860, buf, sizeof buf), "6.86 µs");
    assert_string_equal(cv_tl_format_duration(812, buf, sizeof buf), "812 ns");
    assert_string_equal(cv_tl_format_duration(1071429000, buf, sizeof buf), "1.07 s");
}

static void test_classes(void **state)
{
    (void)state;
    assert_int_equal(search_call_class_of(CHT_MPI_SEND), CV_TL_SEND);
    assert_int_equal(search_call_class_of(CHT_MPI_IRSEND), CV_TL_SEND);
    assert_int_equal(search_call_class_of(CHT_MPI_RECV), CV_TL_RECV);
    assert_int_equal(search_call_class_of(CHT_MPI_SENDRECV), CV_TL_RECV);
    assert_int_equal(search_call_class_of(CHT_MPI_WAITALL), CV_TL_WAIT);
    assert_int_equal(search_call_class_of(CHT_MPI_ALLREDUCE), CV_TL_COLL);
    assert_int_equal(search_call_class_of(CHT_MPI_BARRIER), CV_TL_COLL);
    assert_int_equal(search_call_class_of(CHT_MPI_INIT), CV_TL_OTHER);
    assert_int_equal(search_call_class_of(CHT_MPI_COMM_DUP), CV_TL_OTHER);
    assert_string_equal(search_call_class_name(CV_TL_COLL), "collective");
    assert_string_equal(search_call_class_name(99), "?");
}

/* ---- a fabricated document --------------------------------------------------------
 *
 * Three ranks, rank 2 not analysed.  Sites: 1 Init (a.c:10), 2 Send
 * (a.c:20:5), 3 Recv (a.c:21:5), 4 Allreduce (b.c:30), 5 Finalize
 * (a.c:40), 6 Sendrecv (a.c:50), 7 Send (a.c:22:5).  Rank 1 gives its Recv
 * at a.c:21 the site id 8 as well (another copy of the code).
 */

static struct trace_site_info si[9];
static struct search_siteinfo sinfo0[8], sinfo1[8];
static struct dg_msgrec log0[16], log1[16];
static struct search_window win0[3];
static struct search_overlap ov0[1], ov1[1];
static struct search_rank_result res0, res1;
static struct search_rank_result *ranks[3];
static struct cv_document doc;

static void mksite(uint32_t id, const char *file, uint32_t line, uint16_t col)
{
    si[id] = (struct trace_site_info){.id = id,
                                      .file = file,
                                      .func = "main",
                                      .line = line,
                                      .col = col,
                                      .kind = CHT_SITE_CALL,
                                      .loop = CHT_NONE};
}

/* A record: event index, site, call, kind, peer, tag, seq, times (ms after T0). */
static struct dg_msgrec rec(uint64_t index, uint32_t site, uint16_t call, uint8_t kind, int32_t peer,
                            int32_t tag, uint64_t seq, double t_enter, double t_exit)
{
    struct dg_msgrec r;
    memset(&r, 0, sizeof r);
    r.index = index;
    r.site = site;
    r.call = call;
    r.kind = kind;
    r.peer = peer;
    r.tag = tag;
    r.comm = 1;
    r.seq = seq;
    r.comm_size = 2;
    r.t_enter = t_enter < 0 ? 0 : T0 + (uint64_t)(t_enter * MS);
    r.t_exit = t_exit < 0 ? 0 : T0 + (uint64_t)(t_exit * MS);
    return r;
}

static int doc_setup(void **state)
{
    (void)state;
    memset(&doc, 0, sizeof doc);
    mksite(1, "/src/a.c", 10, 5);
    mksite(2, "/src/a.c", 20, 5);
    mksite(3, "/src/a.c", 21, 5);
    mksite(4, "/src/b.c", 30, 9);
    mksite(5, "/src/a.c", 40, 5);
    mksite(6, "/src/a.c", 50, 5);
    mksite(7, "/src/a.c", 22, 5);
    mksite(8, "/src/a.c", 21, 5);

    /* rank 0: Init 0-100, Send 110-111 (to 1, seq 1), Recv 112-120 (from 1),
     * Sendrecv 130-140 (send seq 2 to 1, recv seq 2 from 1), Allreduce 150-160,
     * a Send with unknown times, Send 165-166 at a.c:22, Finalize 170-171 */
    uint32_t n = 0;
    log0[n++] = rec(1, 1, CHT_MPI_INIT, DG_MSG_OTHER, -1, -1, 0, 0, 100);
    log0[n++] = rec(5, 2, CHT_MPI_SEND, DG_MSG_SEND, 1, 7, 1, 110, 111);
    log0[n++] = rec(6, 3, CHT_MPI_RECV, DG_MSG_RECV, 1, 8, 1, 112, 120);
    log0[n++] = rec(9, 6, CHT_MPI_SENDRECV, DG_MSG_SEND, 1, 7, 2, 130, 140);
    log0[n++] = rec(9, 6, CHT_MPI_SENDRECV, DG_MSG_RECV, 1, 8, 2, 130, 140);
    log0[n++] = rec(12, 4, CHT_MPI_ALLREDUCE, DG_MSG_COLL, -1, -1, 1, 150, 160);
    log0[n++] = rec(13, 2, CHT_MPI_SEND, DG_MSG_SEND, 1, 99, 1, -1, -1);
    log0[n++] = rec(14, 7, CHT_MPI_SEND, DG_MSG_SEND, 1, 9, 1, 165, 166);
    log0[n++] = rec(15, 5, CHT_MPI_FINALIZE, DG_MSG_OTHER, -1, -1, 0, 170, 171);
    res0.rank = 0;
    res0.log = (struct dg_mpilog){.rank = 0, .n = n, .cap = 16, .rec = log0};
    /* rank 1: Init 0-90, Recv 105-115 (site 3), Send 116-117, Sendrecv
     * 125-140, Allreduce 141-160, Recv 161-167 (site 8, same place as 3),
     * Finalize 172-173 */
    n = 0;
    log1[n++] = rec(1, 1, CHT_MPI_INIT, DG_MSG_OTHER, -1, -1, 0, 0, 90);
    log1[n++] = rec(4, 3, CHT_MPI_RECV, DG_MSG_RECV, 0, 7, 1, 105, 115);
    log1[n++] = rec(5, 2, CHT_MPI_SEND, DG_MSG_SEND, 0, 8, 1, 116, 117);
    log1[n++] = rec(8, 6, CHT_MPI_SENDRECV, DG_MSG_SEND, 0, 8, 2, 125, 140);
    log1[n++] = rec(8, 6, CHT_MPI_SENDRECV, DG_MSG_RECV, 0, 7, 2, 125, 140);
    log1[n++] = rec(11, 4, CHT_MPI_ALLREDUCE, DG_MSG_COLL, -1, -1, 1, 141, 160);
    log1[n++] = rec(12, 8, CHT_MPI_RECV, DG_MSG_RECV, 0, 9, 1, 161, 167);
    log1[n++] = rec(13, 5, CHT_MPI_FINALIZE, DG_MSG_OTHER, -1, -1, 0, 172, 173);
    res1.rank = 1;
    res1.log = (struct dg_mpilog){.rank = 1, .n = n, .cap = 16, .rec = log1};

    uint32_t ids0[] = {1, 2, 3, 4, 5, 6, 7}, ids1[] = {1, 2, 3, 4, 5, 6, 8};
    for (int k = 0; k < 7; k++) {
        sinfo0[k] = (struct search_siteinfo){ids0[k], &si[ids0[k]]};
        sinfo1[k] = (struct search_siteinfo){ids1[k], &si[ids1[k]]};
    }
    res0.siteinfo = sinfo0;
    res0.nsiteinfo = 7;
    res1.siteinfo = sinfo1;
    res1.nsiteinfo = 7;

    /* the Recv at a.c:21 can overlap: rank 0 has two windows (given out of
     * order), rank 1 none yet */
    win0[0] = (struct search_window){T0 + 112 * MS, T0 + 101 * MS, T0 + 125 * MS};
    win0[1] = (struct search_window){T0 + 50 * MS, T0 + 40 * MS, T0 + 60 * MS};
    ov0[0] = (struct search_overlap){
        .site = 3, .call = CHT_MPI_RECV, .info = &si[3], .nwindows = 2, .windows = win0};
    ov1[0] = (struct search_overlap){.site = 3, .call = CHT_MPI_RECV, .info = &si[3]};
    res0.overlaps = ov0;
    res0.noverlaps = 1;
    res1.overlaps = ov1;
    res1.noverlaps = 1;

    ranks[0] = &res0;
    ranks[1] = &res1;
    ranks[2] = NULL;
    doc.world_size = 3;
    struct search_analysis_opts ao = {.report = {.rank = -1}, .keep_ranks = true};
    struct trace_err err;
    assert_int_equal(search_analysis_from_results(ranks, 2, 3, &ao, &doc.analysis, &err), 0);
    doc.report = search_analysis_report(doc.analysis);
    /* the common clock: ns from the earliest call (Init at T0 on both ranks) */
    doc.t0 = 0;
    doc.t1 = search_analysis_end(doc.analysis);
    assert_int_equal(doc.t1, 173 * MS);
    return 0;
}

static int doc_teardown(void **state)
{
    (void)state;
    search_analysis_free(doc.analysis);
    doc.analysis = NULL;
    return 0;
}

static void test_model_lanes(void **state)
{
    (void)state;
    struct cv_tl_model *m = NULL;
    assert_int_equal(cv_tl_model_build(&doc, &m), 0);
    assert_int_equal(m->nlanes, 3);
    assert_int_equal(m->t0, 0);
    /* rank 0: 9 records in 8 calls, the Sendrecv is one bar, the unknown-time
     * Send none; bars name their calls */
    const struct cv_tl_bars *b = &m->lane[0].calls;
    assert_int_equal(b->n, 7);
    assert_int_equal(b->bar[0].call, CHT_MPI_INIT);
    assert_int_equal(b->bar[0].cls, CV_TL_OTHER);
    assert_int_equal(b->bar[3].call, CHT_MPI_SENDRECV);
    assert_int_equal(b->bar[3].rec, 3);
    assert_int_equal(b->bar[3].t_exit, 140 * MS);
    assert_int_equal(b->bar[4].cls, CV_TL_COLL);
    assert_int_equal(b->bar[5].rec, 6); /* call 6 (record 7), after the skipped call 5 */
    assert_int_equal(b->max_exit[6], 171 * MS);
    assert_int_equal(m->lane[1].calls.n, 7);
    assert_null(m->lane[2].res);
    assert_int_equal(m->lane[2].calls.n, 0);
    /* a missing rank has nothing to hit */
    struct cv_tl_view v = view_800(m->t1 - m->t0, m->nlanes);
    assert_int_equal(cv_tl_hit(&v, m->t0, &m->lane[2].calls, 300, 3, NULL), -1);
    /* the Recv of rank 1 at 105-115 ms */
    double x = cv_tl_x_of_t(&v, 110.0 * MS);
    long k = cv_tl_hit(&v, m->t0, &m->lane[1].calls, x, 2, NULL);
    assert_int_equal(k, 1);
    assert_int_equal(m->lane[1].calls.bar[k].call, CHT_MPI_RECV);
    cv_tl_model_free(m);
    cv_tl_model_free(NULL);
    assert_int_equal(cv_tl_model_build(NULL, &m), TRACE_ERR_ARG);
}

static struct search_hint hint(int kind, uint16_t call, const char *file, uint32_t line, uint32_t col,
                               int *rk, int nrk)
{
    struct search_hint h;
    memset(&h, 0, sizeof h);
    h.kind = kind;
    h.call = call;
    h.file = file;
    h.line = line;
    h.col = col;
    h.ranks = rk;
    h.nranks = nrk;
    return h;
}

static void test_model_select(void **state)
{
    (void)state;
    struct cv_tl_model *m = NULL;
    assert_int_equal(cv_tl_model_build(&doc, &m), 0);

    /* overlap hint on the Recv at a.c:21:5, ranks 0 and 1 */
    int both[] = {0, 1};
    struct search_hint h = hint(SEARCH_HINT_OVERLAP, CHT_MPI_RECV, "/src/a.c", 21, 5, both, 2);
    assert_int_equal(cv_tl_model_select(m, &h), 0);
    assert_ptr_equal(m->selected, &h);
    assert_int_equal(m->lane[0].marked.n, 1);
    assert_int_equal(m->lane[0].marked.bar[0].t_enter, 112 * MS);
    /* rank 1: both of its Recv sites at that place */
    assert_int_equal(m->lane[1].marked.n, 2);
    assert_int_equal(m->lane[1].marked.bar[1].t_enter, 161 * MS);
    /* windows: rank 0's two, sorted; rank 1 has none (handled) */
    assert_ptr_equal(m->lane[0].overlap, &ov0[0]);
    assert_int_equal(m->lane[0].windows.n, 2);
    assert_int_equal(m->lane[0].windows.bar[0].t_enter, 40 * MS);
    assert_int_equal(m->lane[0].windows.bar[0].rec, 1);
    assert_int_equal(m->lane[0].windows.bar[1].t_exit, 125 * MS);
    assert_ptr_equal(m->lane[1].overlap, &ov1[0]);
    assert_int_equal(m->lane[1].windows.n, 0);
    assert_int_equal(m->lane[2].marked.n, 0);

    /* a column that differs is another call; an unknown column matches */
    h.col = 9;
    assert_int_equal(cv_tl_model_select(m, &h), 0);
    assert_int_equal(m->lane[0].marked.n, 0);
    assert_null(m->lane[0].overlap);
    h.col = 0;
    assert_int_equal(cv_tl_model_select(m, &h), 0);
    assert_int_equal(m->lane[0].marked.n, 1);

    /* aggregation on rank 0 only: the Send at a.c:20 and its member at a.c:22 */
    int zero[] = {0};
    struct search_related rel[2];
    memset(rel, 0, sizeof rel);
    rel[0] = (struct search_related){.file = "/src/a.c", .line = 22, .col = 5, .role = SEARCH_REL_MEMBER};
    rel[1] = (struct search_related){.file = "/src/b.c", .line = 30, .col = 9, .role = SEARCH_REL_BEFORE};
    struct search_hint a = hint(SEARCH_HINT_AGGREGATE, CHT_MPI_SEND, "/src/a.c", 20, 5, zero, 1);
    a.related = rel;
    a.nrelated = 2;
    assert_int_equal(cv_tl_model_select(m, &a), 0);
    assert_int_equal(m->lane[0].marked.n, 2); /* 110 and 165 (the unknown-time one has no bar) */
    assert_int_equal(m->lane[0].marked.bar[1].t_enter, 165 * MS);
    assert_int_equal(m->lane[0].windows.n, 0);
    assert_int_equal(m->lane[1].marked.n, 0);
    assert_true(cv_tl_hint_has_site(&a, &si[7]));
    assert_false(cv_tl_hint_has_site(&a, &si[4])); /* a BEFORE line is not a call of the pattern */
    assert_false(cv_tl_hint_has_site(&h, &si[7]));

    /* clearing */
    assert_int_equal(cv_tl_model_select(m, NULL), 0);
    assert_null(m->selected);
    assert_int_equal(m->lane[0].marked.n, 0);
    cv_tl_model_free(m);
}

static void test_messages(void **state)
{
    (void)state;
    struct cv_tl_model *m = NULL;
    assert_int_equal(cv_tl_model_build(&doc, &m), 0);
    struct cv_tl_view v = view_800(m->t1 - m->t0, m->nlanes);
    struct cv_tl_msg msg[8];

    /* everything: 0->1 (110 -> 115), 1->0 (116 -> 120), both halves of the
     * Sendrecvs, and 0->1 at 165 -> 167: 5 messages, each once */
    size_t n = cv_tl_messages(m, &v, msg, 8);
    assert_int_equal(n, 5);
    int found = 0;
    for (size_t k = 0; k < n; k++) {
        if (msg[k].from == 0 && msg[k].to == 1 && msg[k].t_send == 110 * MS)
            found += msg[k].t_recv == 115 * MS;
        if (msg[k].from == 1 && msg[k].to == 0 && msg[k].t_send == 116 * MS)
            found += msg[k].t_recv == 120 * MS;
        if (msg[k].from == 0 && msg[k].t_send == 165 * MS)
            found += msg[k].t_recv == 167 * MS;
    }
    assert_int_equal(found, 3);
    /* a cap: the count says there are more */
    assert_int_equal(cv_tl_messages(m, &v, msg, 2), 3);
    /* only the receive end in view: the message is still there, once */
    cv_tl_view_set_range(&v, 166.5 * MS, 168.0 * MS);
    n = cv_tl_messages(m, &v, msg, 8);
    assert_int_equal(n, 1);
    assert_int_equal(msg[0].from, 0);
    assert_int_equal(msg[0].to, 1);
    /* nothing in view */
    cv_tl_view_set_range(&v, 20.0 * MS, 30.0 * MS);
    assert_int_equal(cv_tl_messages(m, &v, msg, 8), 0);
    cv_tl_model_free(m);
}

static void test_stats(void **state)
{
    (void)state;
    struct cv_stats_model *s = NULL;
    assert_int_equal(cv_stats_model_build(&doc, &s), 0);
    assert_int_equal(s->nranks, 3);

    /* rank 0: run 100..170; MPI 1 + 8 + 10 + 10 + 1 = 30 ms (Init,
     * Finalize and the unknown-time Send left out) */
    assert_true(s->ranks[0].present);
    assert_int_equal(s->ranks[0].run_ns, 70 * MS);
    assert_int_equal(s->ranks[0].mpi_ns, 30 * MS);
    assert_int_equal(s->ranks[0].comp_ns, 40 * MS);
    assert_int_equal(s->ranks[0].calls, 5);
    /* rank 1: run 90..172; MPI 10 + 1 + 15 + 19 + 6 = 51 ms */
    assert_int_equal(s->ranks[1].run_ns, 82 * MS);
    assert_int_equal(s->ranks[1].mpi_ns, 51 * MS);
    assert_int_equal(s->ranks[1].comp_ns, 31 * MS);
    assert_false(s->ranks[2].present);
    assert_int_equal(s->ranks[2].run_ns, 0);
    assert_int_equal(s->run_ns, 152 * MS);
    assert_int_equal(s->max_run_ns, 82 * MS);

    /* sites, largest first: Allreduce b.c:30 10+19, Sendrecv a.c:50 10+15,
     * Recv a.c:21 8+10+6 (two site ids on rank 1), Send a.c:20 1+1,
     * Send a.c:22 1 */
    assert_int_equal(s->nsites, 5);
    assert_int_equal(s->sites[0].call, CHT_MPI_ALLREDUCE);
    assert_int_equal(s->sites[0].time_ns, 29 * MS);
    assert_int_equal(s->sites[0].max_rank_ns, 19 * MS);
    assert_int_equal(s->sites[0].nranks, 2);
    assert_int_equal(s->sites[1].call, CHT_MPI_SENDRECV);
    assert_int_equal(s->sites[1].time_ns, 25 * MS);
    assert_int_equal(s->sites[2].call, CHT_MPI_RECV);
    assert_int_equal(s->sites[2].time_ns, 24 * MS);
    assert_int_equal(s->sites[2].calls, 3);
    assert_int_equal(s->sites[2].nranks, 2);
    assert_int_equal(s->sites[2].max_rank_ns, 16 * MS);
    assert_int_equal(s->sites[3].line, 20);
    assert_int_equal(s->sites[3].time_ns, 2 * MS);
    assert_int_equal(s->sites[4].line, 22);
    assert_int_equal(s->sites[4].nranks, 1);
    assert_int_equal(s->mpi_ns, 81 * MS);
    assert_int_equal(s->mpi_ns, s->ranks[0].mpi_ns + s->ranks[1].mpi_ns);

    char buf[64];
    assert_string_equal(cv_stats_site_label(&s->sites[2], buf, sizeof buf), "MPI_Recv a.c:21");
    struct cv_stats_site unk = {.call = CHT_MPI_BCAST, .file = "", .func = ""};
    assert_string_equal(cv_stats_site_label(&unk, buf, sizeof buf), "MPI_Bcast (unknown site)");
    cv_stats_model_free(s);
    cv_stats_model_free(NULL);

    /* an empty document */
    struct cv_document empty;
    memset(&empty, 0, sizeof empty);
    assert_int_equal(cv_stats_model_build(&empty, &s), 0);
    assert_int_equal(s->nsites, 0);
    assert_int_equal(s->nranks, 0);
    cv_stats_model_free(s);
}

int main(void)
{
    const struct CMUnitTest view_tests[] = {
        cmocka_unit_test(test_mapping_round_trip),
        cmocka_unit_test(test_zoom_keeps_point),
        cmocka_unit_test(test_zoom_clamps),
        cmocka_unit_test(test_pan),
        cmocka_unit_test(test_lanes),
        cmocka_unit_test(test_hit),
        cmocka_unit_test(test_lod_bounded),
        cmocka_unit_test(test_ticks),
        cmocka_unit_test(test_classes),
    };
    const struct CMUnitTest doc_tests[] = {
        cmocka_unit_test(test_model_lanes),
        cmocka_unit_test(test_model_select),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_stats),
    };
    int fails = cmocka_run_group_tests_name("timeline view", view_tests, NULL, NULL);
    fails += cmocka_run_group_tests_name("timeline document", doc_tests, doc_setup, doc_teardown);
    return fails ? 1 : 0;
}
