/* timeline-model.h - the timeline pane's logic without GTK: the MPI calls of
 * each rank as bars on a lane, the mapping between time and pixels (zoom
 * around a point, pan, clamping), hit testing, level of detail (at most a
 * few rectangles per pixel column however many calls fall there), the
 * message lines in view, the axis ticks, and what the selected hint marks
 * (its calls, its overlap windows).  timeline.c only draws what these
 * return, so the unit tests (tests/unit/test-timeline-model.c) check the
 * behaviour without a display.
 *
 * Times: the analysis' common clock, ns from the earliest MPI call of any
 * rank (search_analysis_time); the view works in ns since the document's
 * t0 (doubles: exact to the ns for runs up to 104 days).
 *
 * Ownership: a struct cv_tl_model owns its arrays and borrows everything
 * else from the document (the analysis: calls, site infos, windows), so it
 * must be freed before the document. */
#ifndef COMMHINT_GUI_TIMELINE_MODEL_H
#define COMMHINT_GUI_TIMELINE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "document.h"

/* How a call is coloured: the analysis' classes (search_call_class_of,
 * search_call_class_name). */
enum cv_tl_class {
    CV_TL_SEND = SEARCH_CALL_SEND,   /* Send, Ssend, Bsend, Rsend and their I- forms */
    CV_TL_RECV = SEARCH_CALL_RECV,   /* Recv, Irecv, Sendrecv(_replace), Probe, Iprobe */
    CV_TL_COLL = SEARCH_CALL_COLL,   /* collectives, Barrier included */
    CV_TL_WAIT = SEARCH_CALL_WAIT,   /* Wait*, Test*, Request_free, Cancel */
    CV_TL_OTHER = SEARCH_CALL_OTHER, /* communicator management, Init, Finalize, unknown */
    CV_TL_NCLASS = SEARCH_CALL_NCLASS
};

/* One bar: an MPI call (one per event: a Sendrecv or a Wait completing
 * several receives is one bar), or an overlap window of the selected hint. */
struct cv_tl_bar {
    uint64_t t_enter, t_exit; /* ns, the common clock */
    uint32_t rec;             /* calls: the call (search_analysis_call);
                                 windows: index in the overlap's windows */
    uint16_t call;            /* enum cht_mpi_call */
    uint8_t cls;              /* enum cv_tl_class */
    uint8_t reserved;
};

/* Bars sorted by t_enter, with the running maximum of t_exit (so that the
 * first bar reaching into a time range is found by binary search even if
 * bars overlap, as calls of several threads do). */
struct cv_tl_bars {
    uint32_t n;
    struct cv_tl_bar *bar;
    uint64_t *max_exit; /* max_exit[i] = max of bar[0..i].t_exit */
};

/* One lane: a rank's calls, and what the selected hint marks on it. */
struct cv_tl_lane {
    int rank;                             /* world rank */
    const struct search_rank_result *res; /* NULL: the rank was not analysed */
    struct cv_tl_bars calls;              /* every MPI call with known times */
    /* the selected hint (cv_tl_model_select) */
    struct cv_tl_bars marked;             /* its calls on this rank */
    struct cv_tl_bars windows;            /* overlap: [t_lo, t_hi] of its windows */
    const struct search_overlap *overlap; /* overlap: the rank's entry for its call, or NULL */
};

struct cv_tl_model {
    uint64_t t0, t1; /* the document's time range (ns) */
    int nlanes;      /* world size: one lane per rank */
    struct cv_tl_lane *lane;
    const struct search_analysis *an;   /* borrowed from the document */
    const struct search_hint *selected; /* borrowed, or NULL */
};

/* Builds the lanes of doc (one per world rank; a missing rank gets an empty
 * lane).  Calls with unknown times (0) are left out.  Returns 0 or
 * TRACE_ERR_NOMEM / TRACE_ERR_ARG; *out is freed with cv_tl_model_free. */
int cv_tl_model_build(const struct cv_document *doc, struct cv_tl_model **out);
void cv_tl_model_free(struct cv_tl_model *m);

/* Marks what hint h shows on the timeline (h NULL clears): on each rank the
 * hint holds on, the calls at its location (for aggregation and collective
 * hints also the calls at its related lines) and, for an overlap hint, the
 * time spans of the windows of its call (struct search_window; a rank may
 * have none).  Returns 0 or TRACE_ERR_NOMEM (then nothing is marked). */
int cv_tl_model_select(struct cv_tl_model *m, const struct search_hint *h);

/* Whether a site of r is at one of hint h's locations (what
 * cv_tl_model_select marks): same file, same line, and the same column
 * when both are known. */
bool cv_tl_hint_has_site(const struct search_hint *h, const struct trace_site_info *info);

/* ---- the view: time <-> x, lane <-> y -------------------------------------- */

#define CV_TL_MIN_SPAN_NS 1000.0 /* the deepest zoom shows 1 us */
#define CV_TL_MIN_PITCH 18.0     /* px per lane at least (more lanes scroll) */
#define CV_TL_MAX_PITCH 56.0     /* px per lane at most */

struct cv_tl_view {
    double total;       /* ns: the document's span (at least 1) */
    double min_span;    /* ns: the smallest visible span (<= total) */
    double v0, v1;      /* visible range, ns since the document's t0; 0 <= v0 < v1 <= total */
    double x0, width;   /* plot area, px (width >= 1) */
    double top, height; /* lane area, px */
    int nlanes;
    double pitch; /* px from one lane to the next */
    double y_off; /* vertical scroll, px (0 when every lane fits) */
};

/* A view of a span_ns long document with nlanes lanes showing everything;
 * area 0,0 sized 100 x 100 until cv_tl_view_set_area. */
void cv_tl_view_init(struct cv_tl_view *v, uint64_t span_ns, int nlanes);
/* Sets the plot area (widget resized), keeping the visible time range;
 * recomputes the lane pitch and clamps the vertical scroll. */
void cv_tl_view_set_area(struct cv_tl_view *v, double x0, double width, double top, double height);
/* Shows the whole document again. */
void cv_tl_view_reset(struct cv_tl_view *v);
/* Shows [t0, t1] (ns since the document's t0), clamped to the document and
 * widened to the minimum span around its middle if shorter. */
void cv_tl_view_set_range(struct cv_tl_view *v, double t0, double t1);

double cv_tl_x_of_t(const struct cv_tl_view *v, double t);
double cv_tl_t_of_x(const struct cv_tl_view *v, double x);
/* ns per pixel at the current zoom. */
double cv_tl_ns_per_px(const struct cv_tl_view *v);

/* Top of lane i's band (pitch px high); the band may be scrolled out. */
double cv_tl_lane_top(const struct cv_tl_view *v, int lane);
/* The lane at y, or -1 outside the lane area. */
int cv_tl_lane_at(const struct cv_tl_view *v, double y);

/* Zooms by factor (> 1 zooms in) keeping the time under x where it is,
 * unless the new range has to be clamped to the document or to the
 * minimum span (then it moves as little as possible). */
void cv_tl_zoom(struct cv_tl_view *v, double x, double factor);
/* Drags the content by dx, dy pixels (dx > 0 shows earlier times, dy > 0
 * shows lanes above), clamped to the document and the lanes. */
void cv_tl_pan(struct cv_tl_view *v, double dx, double dy);

/* ---- level of detail, hit testing ------------------------------------------- */

/* A rectangle to draw on a lane: one call (nbars 1) or, where calls are
 * narrower than CV_TL_WIDE_PX, a run of pixel columns merged into one. */
struct cv_tl_rect {
    double x, w;    /* px, inside the plot area */
    uint8_t cls;    /* the class with the most time in it */
    bool merged;    /* a run of pixel columns (narrow calls) */
    float fill;     /* fraction of its time covered by calls, 0..1 (1 for a call) */
    uint32_t nbars; /* calls in it */
    uint32_t first; /* index of its first call in the bars */
};

#define CV_TL_WIDE_PX 2.0 /* calls at least this wide are drawn one by one */

/* Upper bound of the rectangles cv_tl_lod returns for a view (2 per pixel
 * column, plus the two partial columns at the edges). */
size_t cv_tl_lod_max(const struct cv_tl_view *v);

/* The rectangles that draw bars b in the visible range, by increasing x:
 * each call at least CV_TL_WIDE_PX wide as itself (a call overlapping the
 * previous wide one, as calls of threads do, from where that one ends;
 * one inside it not at all); the other calls merged per pixel column, and
 * consecutive columns of the same class and about the same fill (quarters)
 * into one rectangle.  They cover the same pixel columns as the calls.
 * out has room for cap rectangles (cv_tl_lod_max is always enough).
 * Returns the number written, or -1 (out of memory or cap too small). */
long cv_tl_lod(const struct cv_tl_view *v, uint64_t t0, const struct cv_tl_bars *b, struct cv_tl_rect *out,
               size_t cap);

/* The index of the first bar of b with t_exit >= t (absolute ns), b->n if none. */
uint32_t cv_tl_bars_first(const struct cv_tl_bars *b, uint64_t t);

/* The bar of b under x (within slop px): the one containing the time at x
 * or else the nearest; -1 if none.  *nhere (may be NULL) gets how many bars
 * meet [x - slop, x + slop]. */
long cv_tl_hit(const struct cv_tl_view *v, uint64_t t0, const struct cv_tl_bars *b, double x, double slop,
               uint32_t *nhere);

/* ---- messages --------------------------------------------------------------- */

/* A message: from the send's t_enter on the sender's lane to the
 * receive's t_exit on the receiver's lane. */
struct cv_tl_msg {
    int from, to;            /* lanes (world ranks) */
    uint64_t t_send, t_recv; /* ns */
};

/* The messages with an end on a call in view (each once), up to cap.
 * Returns how many there are, counting stops at cap + 1 (so a return
 * > cap says "too many to draw"); out gets min(return, cap). */
size_t cv_tl_messages(const struct cv_tl_model *m, const struct cv_tl_view *v, struct cv_tl_msg *out,
                      size_t cap);

/* ---- axis ---------------------------------------------------------------------- */

/* Tick positions (ns since t0, multiples of a 1-2-5 step) in the visible
 * range, at least min_px apart; returns the count (<= max) and the step. */
int cv_tl_ticks(const struct cv_tl_view *v, double min_px, double *ticks, int max, double *step);

/* A tick label ("142.5 ms", "20 us") for t with precision for step. */
char *cv_tl_format_tick(double t, double step, char *buf, size_t size);

/* A duration for people ("11.46 ms", "29.4 us", "812 ns", "1.07 s"). */
char *cv_tl_format_duration(double ns, char *buf, size_t size);

#endif /* COMMHINT_GUI_TIMELINE_MODEL_H */
