/* timeline.c - the timeline pane (timeline.h): draws what timeline-model.c
 * computes with cairo and turns mouse and keys into zoom and pan. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "timeline-model.h"
#include "timeline.h"

/* Layout, px */
#define LABEL_W 76.0 /* lane labels on the left */
#define RIGHT_PAD 14.0
#define AXIS_H 28.0    /* time axis on top */
#define LEGEND_H 24.0  /* legend and status at the bottom */
#define TICK_PX 90.0   /* labelled ticks at least this far apart */
#define HIT_SLOP 3.0   /* px around the pointer that count as a hit */
#define ZOOM_STEP 1.25 /* per wheel notch */
#define MAX_MSGS 600   /* message lines drawn at most (else none, and say so) */

struct _CvTimeline {
    GtkDrawingArea parent;
    const struct cv_document *doc;
    struct cv_tl_model *model;
    struct cv_tl_view view;
    struct cv_tl_rect *rects; /* scratch for the level of detail */
    size_t nrects;
    struct cv_tl_msg *msgs; /* scratch for the message lines */
    /* dragging */
    gboolean pressed, dragged;
    double press_x, press_y, last_x, last_y;
    GdkCursor *grab_cursor;
};

G_DEFINE_TYPE(CvTimeline, cv_timeline, GTK_TYPE_DRAWING_AREA)

enum { SIG_LOCATION, NSIGS };
static guint signals[NSIGS];

/* ---- colours ------------------------------------------------------------------------ */

/* Tableau 10: distinct for the common colour blindnesses, readable on white. */
static const double class_rgb[CV_TL_NCLASS][3] = {
    [CV_TL_SEND] = {0x4e / 255.0, 0x79 / 255.0, 0xa7 / 255.0},  /* blue */
    [CV_TL_RECV] = {0xf2 / 255.0, 0x8e / 255.0, 0x2b / 255.0},  /* orange */
    [CV_TL_COLL] = {0x59 / 255.0, 0xa1 / 255.0, 0x4f / 255.0},  /* green */
    [CV_TL_WAIT] = {0x76 / 255.0, 0xb7 / 255.0, 0xb2 / 255.0},  /* teal */
    [CV_TL_OTHER] = {0xa0 / 255.0, 0x98 / 255.0, 0x94 / 255.0}, /* grey */
};
static const double window_rgb[3] = {0xed / 255.0, 0xc9 / 255.0, 0x48 / 255.0}; /* yellow */
static const double mark_rgb[3] = {0.55, 0.0, 0.45};                            /* purple */

void cv_timeline_class_color(int cls, double *r, double *g, double *b)
{
    if (cls < 0 || cls >= CV_TL_NCLASS)
        cls = CV_TL_OTHER;
    *r = class_rgb[cls][0];
    *g = class_rgb[cls][1];
    *b = class_rgb[cls][2];
}

static void set_rgb(cairo_t *cr, const double *c, double alpha)
{
    cairo_set_source_rgba(cr, c[0], c[1], c[2], alpha);
}

/* ---- text ---------------------------------------------------------------------------- */

/* Draws text with its left (align 0), centre (0.5) or right (1) edge at x
 * and its vertical centre at y; returns its width. */
static double draw_text(GtkWidget *w, cairo_t *cr, const char *text, double x, double y, double align,
                        gboolean bold, double size_scale)
{
    PangoLayout *l = gtk_widget_create_pango_layout(w, NULL);
    if (bold || size_scale != 1) {
        PangoFontDescription *fd =
            pango_font_description_copy(pango_context_get_font_description(pango_layout_get_context(l)));
        if (bold)
            pango_font_description_set_weight(fd, PANGO_WEIGHT_BOLD);
        if (size_scale != 1)
            pango_font_description_set_size(fd, (gint)(pango_font_description_get_size(fd) * size_scale));
        pango_layout_set_font_description(l, fd);
        pango_font_description_free(fd);
    }
    pango_layout_set_text(l, text, -1);
    int tw, th;
    pango_layout_get_pixel_size(l, &tw, &th);
    cairo_move_to(cr, round(x - align * tw), round(y - th / 2.0));
    pango_cairo_show_layout(cr, l);
    g_object_unref(l);
    return tw;
}

static const char *base_name(const char *path)
{
    const char *s = path ? strrchr(path, '/') : NULL;
    return s ? s + 1 : path ? path : "";
}

/* ---- geometry ------------------------------------------------------------------------ */

static void update_area(CvTimeline *t)
{
    GtkWidget *w = GTK_WIDGET(t);
    double width = gtk_widget_get_allocated_width(w), height = gtk_widget_get_allocated_height(w);
    double pw = width - LABEL_W - RIGHT_PAD, ph = height - AXIS_H - LEGEND_H;
    cv_tl_view_set_area(&t->view, LABEL_W, pw > 20 ? pw : 20, AXIS_H, ph > 10 ? ph : 10);
    size_t need = cv_tl_lod_max(&t->view);
    if (need > t->nrects) {
        g_free(t->rects);
        t->rects = g_new(struct cv_tl_rect, need);
        t->nrects = need;
    }
}

/* The bar rectangle of a lane: [y, y + h]. */
static void lane_bar(const struct cv_tl_view *v, int lane, double *y, double *h)
{
    double top = cv_tl_lane_top(v, lane);
    *h = round(v->pitch * 0.6);
    *y = round(top + (v->pitch - *h) / 2);
}

static double lane_mid(const struct cv_tl_view *v, int lane)
{
    return cv_tl_lane_top(v, lane) + v->pitch / 2;
}

/* ---- drawing ----------------------------------------------------------------------------- */

static void draw_axis(CvTimeline *t, cairo_t *cr, double plot_bottom)
{
    GtkWidget *w = GTK_WIDGET(t);
    const struct cv_tl_view *v = &t->view;
    double ticks[64], step;
    char buf[48];
    int n = cv_tl_ticks(v, TICK_PX, ticks, 64, &step);

    cairo_set_line_width(cr, 1);
    for (int k = 0; k < n; k++) {
        double x = round(cv_tl_x_of_t(v, ticks[k])) + 0.5;
        cairo_set_source_rgba(cr, 0, 0, 0, 0.09); /* grid line through the lanes */
        cairo_move_to(cr, x, AXIS_H);
        cairo_line_to(cr, x, plot_bottom);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
        cairo_move_to(cr, x, AXIS_H - 6);
        cairo_line_to(cr, x, AXIS_H);
        cairo_stroke(cr);
        cv_tl_format_tick(ticks[k], step, buf, sizeof buf);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        double align = x - v->x0 < 30 ? 0 : v->x0 + v->width - x < 30 ? 1 : 0.5;
        draw_text(w, cr, buf, x, AXIS_H / 2 - 2, align, FALSE, 0.9);
    }
    /* minor ticks: 5 per step */
    cairo_set_source_rgb(cr, 0.55, 0.55, 0.55);
    double minor = step / 5;
    for (double m = ceil(v->v0 / minor) * minor; m <= v->v1; m += minor) {
        double x = round(cv_tl_x_of_t(v, m)) + 0.5;
        cairo_move_to(cr, x, AXIS_H - 3);
        cairo_line_to(cr, x, AXIS_H);
    }
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    cairo_move_to(cr, v->x0, AXIS_H - 0.5);
    cairo_line_to(cr, v->x0 + v->width, AXIS_H - 0.5);
    cairo_stroke(cr);
}

static void draw_rects(cairo_t *cr, const struct cv_tl_rect *r, long n, double y, double h)
{
    for (long k = 0; k < n; k++) {
        const double *c = class_rgb[r[k].cls];
        double x = r[k].x, w = r[k].w < 1 ? 1 : r[k].w;
        if (r[k].merged) {
            set_rgb(cr, c, 0.3 + 0.7 * r[k].fill);
            cairo_rectangle(cr, x, y, w, h);
            cairo_fill(cr);
            continue;
        }
        set_rgb(cr, c, 1);
        cairo_rectangle(cr, x, y, w, h);
        cairo_fill(cr);
        if (w >= 5) { /* separate touching calls */
            cairo_set_source_rgba(cr, 0, 0, 0, 0.35);
            cairo_rectangle(cr, x + 0.5, y + 0.5, w - 1, h - 1);
            cairo_stroke(cr);
        }
    }
}

static void draw_lane(CvTimeline *t, cairo_t *cr, int l)
{
    const struct cv_tl_view *v = &t->view;
    const struct cv_tl_lane *lane = &t->model->lane[l];
    double top = cv_tl_lane_top(v, l), y, h;
    lane_bar(v, l, &y, &h);

    if (lane->windows.n) {
        long n = cv_tl_lod(v, t->model->t0, &lane->windows, t->rects, t->nrects);
        for (long k = 0; k < n; k++) {
            const struct cv_tl_rect *r = &t->rects[k];
            double x = r->x, w = r->w;
            if (w < 3) { /* narrow windows stay visible: they say where the overlap is */
                x -= (3 - w) / 2;
                w = 3;
            }
            set_rgb(cr, window_rgb, r->merged ? 0.45 + 0.15 * r->fill : 0.5);
            cairo_rectangle(cr, x, top + 1, w, v->pitch - 2);
            cairo_fill(cr);
            if (!r->merged && w >= 4) {
                cairo_set_source_rgba(cr, 0.65, 0.5, 0.0, 0.9);
                cairo_move_to(cr, round(x) + 0.5, top + 1);
                cairo_line_to(cr, round(x) + 0.5, top + v->pitch - 1);
                cairo_move_to(cr, round(x + w) - 0.5, top + 1);
                cairo_line_to(cr, round(x + w) - 0.5, top + v->pitch - 1);
                cairo_stroke(cr);
            }
        }
    }
    long n = cv_tl_lod(v, t->model->t0, &lane->calls, t->rects, t->nrects);
    draw_rects(cr, t->rects, n, y, h);
    if (lane->marked.n) {
        n = cv_tl_lod(v, t->model->t0, &lane->marked, t->rects, t->nrects);
        cairo_set_line_width(cr, 2);
        double last_tri = -1e9;
        for (long k = 0; k < n; k++) {
            const struct cv_tl_rect *r = &t->rects[k];
            double w = r->w < 1 ? 1 : r->w, cx = r->x + w / 2;
            set_rgb(cr, mark_rgb, 1);
            cairo_rectangle(cr, r->x - 1, y - 1, w + 2, h + 2);
            cairo_stroke(cr);
            /* a small triangle above, visible however narrow the call
             * (one per 10 px) */
            if (cx - last_tri < 10)
                continue;
            last_tri = cx;
            cairo_move_to(cr, cx - 4, y - 6);
            cairo_line_to(cr, cx + 4, y - 6);
            cairo_line_to(cr, cx, y - 1.5);
            cairo_close_path(cr);
            cairo_fill(cr);
        }
        cairo_set_line_width(cr, 1);
    }
}

/* How many message lines may be drawn: MAX_MSGS, fewer in a narrow pane
 * (one per 3 px), so that the calls stay readable. */
static size_t msg_cap(const struct cv_tl_view *v)
{
    size_t cap = (size_t)(v->width / 3);
    return cap < MAX_MSGS ? cap : MAX_MSGS;
}

/* Draws the message lines; returns how many are in view (> msg_cap: too
 * many, none drawn). */
static size_t draw_messages(CvTimeline *t, cairo_t *cr)
{
    const struct cv_tl_view *v = &t->view;
    size_t cap = msg_cap(v);
    if (!t->msgs)
        t->msgs = g_new(struct cv_tl_msg, MAX_MSGS);
    size_t n = cv_tl_messages(t->model, v, t->msgs, cap);
    if (n > cap)
        return n;
    /* fainter when many, so that the calls stay readable */
    double alpha = n <= 40 ? 0.6 : 0.6 - 0.35 * (double)(n - 40) / (double)(cap > 40 ? cap - 40 : 1);
    cairo_set_line_width(cr, 1);
    for (size_t k = 0; k < n; k++) {
        const struct cv_tl_msg *m = &t->msgs[k];
        double x1 = cv_tl_x_of_t(v, (double)(int64_t)(m->t_send - t->model->t0));
        double x2 = cv_tl_x_of_t(v, (double)(int64_t)(m->t_recv - t->model->t0));
        double y1 = lane_mid(v, m->from), y2 = lane_mid(v, m->to);
        cairo_set_source_rgba(cr, 0.1, 0.1, 0.1, alpha);
        cairo_move_to(cr, x1, y1);
        cairo_line_to(cr, x2, y2);
        cairo_stroke(cr);
        /* an arrowhead at the receive when the line is long enough */
        double dx = x2 - x1, dy = y2 - y1, len = sqrt(dx * dx + dy * dy);
        if (len >= 14) {
            double ux = dx / len, uy = dy / len, a = 6, b = 3;
            cairo_move_to(cr, x2, y2);
            cairo_line_to(cr, x2 - a * ux + b * uy, y2 - a * uy - b * ux);
            cairo_line_to(cr, x2 - a * ux - b * uy, y2 - a * uy + b * ux);
            cairo_close_path(cr);
            cairo_fill(cr);
        }
    }
    return n;
}

static double legend_swatch(GtkWidget *w, cairo_t *cr, double x, double y, const double *rgb, double alpha,
                            const char *text)
{
    set_rgb(cr, rgb, alpha);
    cairo_rectangle(cr, x, y - 5, 14, 10);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    return x + 14 + 5 + draw_text(w, cr, text, x + 19, y, 0, FALSE, 0.9) + 14;
}

static void draw_legend(CvTimeline *t, cairo_t *cr, double y, size_t nmsgs)
{
    GtkWidget *w = GTK_WIDGET(t);
    const struct cv_tl_view *v = &t->view;
    double x = 8;
    char buf[256], a[32], b[32], s[32];

    for (int c = 0; c < CV_TL_NCLASS; c++)
        x = legend_swatch(w, cr, x, y, class_rgb[c], 1, search_call_class_name(c));
    if (t->model->selected) {
        x = legend_swatch(w, cr, x, y, window_rgb, 0.6, "overlap window");
        x = legend_swatch(w, cr, x, y, mark_rgb, 1, "hint's calls");
    }
    double ticks[2], step;
    cv_tl_ticks(v, TICK_PX, ticks, 2, &step);
    cv_tl_format_tick(v->v0, step / 10, a, sizeof a);
    cv_tl_format_tick(v->v1, step / 10, b, sizeof b);
    cv_tl_format_duration(v->v1 - v->v0, s, sizeof s);
    if (nmsgs > msg_cap(v))
        snprintf(buf, sizeof buf, "%s – %s (%s) · over %zu messages: zoom in to see them", a, b, s,
                 msg_cap(v));
    else
        snprintf(buf, sizeof buf, "%s – %s (%s) · %zu message%s", a, b, s, nmsgs, nmsgs == 1 ? "" : "s");
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    double right = v->x0 + v->width;
    PangoLayout *l = gtk_widget_create_pango_layout(w, buf);
    int tw, th;
    pango_layout_get_pixel_size(l, &tw, &th);
    if (right - tw > x) { /* right of the legend, or else under it */
        cairo_move_to(cr, right - tw, round(y - th / 2.0));
        pango_cairo_show_layout(cr, l);
    } else if (y + th + 2 <= gtk_widget_get_allocated_height(w)) {
        cairo_move_to(cr, 8, round(y + th / 2.0 + 2));
        pango_cairo_show_layout(cr, l);
    }
    g_object_unref(l);
}

static gboolean cv_timeline_draw(GtkWidget *w, cairo_t *cr)
{
    CvTimeline *t = CV_TIMELINE(w);
    double width = gtk_widget_get_allocated_width(w), height = gtk_widget_get_allocated_height(w);

    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (!t->model) {
        cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
        draw_text(w, cr, "No trace loaded", width / 2, height / 2, 0.5, FALSE, 1);
        return FALSE;
    }
    update_area(t);
    const struct cv_tl_view *v = &t->view;
    double plot_bottom = v->top + v->height;
    double lanes_bottom = v->top + v->nlanes * v->pitch - v->y_off;
    if (lanes_bottom < plot_bottom)
        plot_bottom = lanes_bottom;

    /* lane bands and labels (clipped to the lane area) */
    cairo_save(cr);
    cairo_rectangle(cr, 0, v->top, width, v->height);
    cairo_clip(cr);
    for (int l = 0; l < v->nlanes; l++) {
        double top = cv_tl_lane_top(v, l);
        if (top + v->pitch < v->top || top > v->top + v->height)
            continue;
        cairo_set_source_rgb(cr, l % 2 ? 0.945 : 0.975, l % 2 ? 0.945 : 0.975, l % 2 ? 0.95 : 0.98);
        cairo_rectangle(cr, 0, top, width, v->pitch);
        cairo_fill(cr);
        char label[32];
        snprintf(label, sizeof label, "rank %d", l);
        gboolean present = t->model->lane[l].res != NULL;
        if (present)
            cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        else
            cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
        draw_text(w, cr, label, LABEL_W - 10, top + v->pitch / 2, 1, FALSE, 1);
        if (!present)
            draw_text(w, cr, "not analysed", v->x0 + 8, top + v->pitch / 2, 0, FALSE, 0.9);
    }
    cairo_restore(cr);

    cairo_save(cr);
    cairo_rectangle(cr, v->x0, 0, v->width, plot_bottom);
    cairo_clip(cr);
    draw_axis(t, cr, plot_bottom);
    cairo_rectangle(cr, v->x0, v->top, v->width, v->height);
    cairo_clip(cr);
    for (int l = 0; l < v->nlanes; l++) {
        double top = cv_tl_lane_top(v, l);
        if (top + v->pitch < v->top || top > v->top + v->height || !t->model->lane[l].res)
            continue;
        draw_lane(t, cr, l);
    }
    size_t nmsgs = draw_messages(t, cr);
    cairo_restore(cr);

    /* plot frame */
    cairo_set_source_rgba(cr, 0, 0, 0, 0.25);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, v->x0 - 0.5, v->top - 0.5, v->width + 1, plot_bottom - v->top + 1);
    cairo_stroke(cr);
    /* the legend right under the lanes */
    double ly = plot_bottom + LEGEND_H / 2 + 4;
    draw_legend(t, cr, ly < height - LEGEND_H / 2 ? ly : height - LEGEND_H / 2, nmsgs);
    return FALSE;
}

/* ---- events ------------------------------------------------------------------------------ */

static void zoom_at(CvTimeline *t, double x, double factor)
{
    if (x < t->view.x0)
        x = t->view.x0;
    if (x > t->view.x0 + t->view.width)
        x = t->view.x0 + t->view.width;
    cv_tl_zoom(&t->view, x, factor);
    gtk_widget_queue_draw(GTK_WIDGET(t));
}

static gboolean cv_timeline_scroll(GtkWidget *w, GdkEventScroll *ev)
{
    CvTimeline *t = CV_TIMELINE(w);
    if (!t->model)
        return FALSE;
    update_area(t);
    double dx = 0, dy = 0;
    switch (ev->direction) {
    case GDK_SCROLL_UP: dy = -1; break;
    case GDK_SCROLL_DOWN: dy = 1; break;
    case GDK_SCROLL_LEFT: dx = -1; break;
    case GDK_SCROLL_RIGHT: dx = 1; break;
    case GDK_SCROLL_SMOOTH: gdk_event_get_scroll_deltas((GdkEvent *)ev, &dx, &dy); break;
    default: break;
    }
    if (ev->state & GDK_SHIFT_MASK) { /* scroll the lanes */
        cv_tl_pan(&t->view, 0, -dy * t->view.pitch);
        gtk_widget_queue_draw(w);
        return TRUE;
    }
    if (dx != 0)
        cv_tl_pan(&t->view, -dx * 40, 0);
    if (dy != 0)
        zoom_at(t, ev->x, pow(ZOOM_STEP, -dy));
    gtk_widget_queue_draw(w);
    return TRUE;
}

static gboolean cv_timeline_button_press(GtkWidget *w, GdkEventButton *ev)
{
    CvTimeline *t = CV_TIMELINE(w);
    gtk_widget_grab_focus(w);
    if (!t->model || ev->button != GDK_BUTTON_PRIMARY)
        return FALSE;
    update_area(t);
    if (ev->type == GDK_2BUTTON_PRESS) {
        cv_tl_view_reset(&t->view);
        t->pressed = FALSE;
        gtk_widget_queue_draw(w);
        return TRUE;
    }
    if (ev->type != GDK_BUTTON_PRESS)
        return FALSE;
    t->pressed = TRUE;
    t->dragged = FALSE;
    t->press_x = t->last_x = ev->x;
    t->press_y = t->last_y = ev->y;
    return TRUE;
}

static gboolean cv_timeline_motion(GtkWidget *w, GdkEventMotion *ev)
{
    CvTimeline *t = CV_TIMELINE(w);
    if (!t->pressed)
        return FALSE;
    if (!t->dragged && fabs(ev->x - t->press_x) + fabs(ev->y - t->press_y) > 3) {
        t->dragged = TRUE;
        GdkWindow *win = gtk_widget_get_window(w);
        if (win && !t->grab_cursor)
            t->grab_cursor = gdk_cursor_new_from_name(gdk_window_get_display(win), "grabbing");
        if (win)
            gdk_window_set_cursor(win, t->grab_cursor);
    }
    if (t->dragged) {
        cv_tl_pan(&t->view, ev->x - t->last_x, ev->y - t->last_y);
        gtk_widget_queue_draw(w);
    }
    t->last_x = ev->x;
    t->last_y = ev->y;
    return TRUE;
}

/* The call under (x, y): lane and bar index, or FALSE. */
static gboolean call_at(CvTimeline *t, double x, double y, int *lane, long *bar, uint32_t *nhere)
{
    if (!t->model || x < t->view.x0 || x > t->view.x0 + t->view.width)
        return FALSE;
    int l = cv_tl_lane_at(&t->view, y);
    if (l < 0 || !t->model->lane[l].res)
        return FALSE;
    long k = cv_tl_hit(&t->view, t->model->t0, &t->model->lane[l].calls, x, HIT_SLOP, nhere);
    if (k < 0)
        return FALSE;
    *lane = l;
    *bar = k;
    return TRUE;
}

static gboolean cv_timeline_button_release(GtkWidget *w, GdkEventButton *ev)
{
    CvTimeline *t = CV_TIMELINE(w);
    if (!t->pressed || ev->button != GDK_BUTTON_PRIMARY)
        return FALSE;
    t->pressed = FALSE;
    GdkWindow *win = gtk_widget_get_window(w);
    if (t->dragged) {
        if (win)
            gdk_window_set_cursor(win, NULL);
        return TRUE;
    }
    int l;
    long k;
    uint32_t nhere;
    update_area(t);
    if (call_at(t, ev->x, ev->y, &l, &k, &nhere)) {
        const struct cv_tl_lane *lane = &t->model->lane[l];
        const struct trace_site_info *info =
            search_analysis_call(t->model->an, lane->rank, lane->calls.bar[k].rec)->info;
        if (info && info->file && *info->file && info->line)
            g_signal_emit(t, signals[SIG_LOCATION], 0, info->file, (guint)info->line);
    }
    return TRUE;
}

static gboolean cv_timeline_key_press(GtkWidget *w, GdkEventKey *ev)
{
    CvTimeline *t = CV_TIMELINE(w);
    if (!t->model)
        return FALSE;
    update_area(t);
    double mid = t->view.x0 + t->view.width / 2;
    switch (ev->keyval) {
    case GDK_KEY_plus:
    case GDK_KEY_equal:
    case GDK_KEY_KP_Add: zoom_at(t, mid, 2); return TRUE;
    case GDK_KEY_minus:
    case GDK_KEY_KP_Subtract: zoom_at(t, mid, 0.5); return TRUE;
    case GDK_KEY_Left: cv_tl_pan(&t->view, t->view.width / 8, 0); break;
    case GDK_KEY_Right: cv_tl_pan(&t->view, -t->view.width / 8, 0); break;
    case GDK_KEY_Up: cv_tl_pan(&t->view, 0, t->view.pitch); break;
    case GDK_KEY_Down: cv_tl_pan(&t->view, 0, -t->view.pitch); break;
    case GDK_KEY_Home:
    case GDK_KEY_0: cv_tl_view_reset(&t->view); break;
    default: return FALSE;
    }
    gtk_widget_queue_draw(w);
    return TRUE;
}

static void append_call_text(GString *s, const struct cv_tl_model *m, const struct cv_tl_lane *lane,
                             const struct cv_tl_bar *bar, uint64_t t0)
{
    const struct search_call *c = search_analysis_call(m->an, lane->rank, bar->rec);
    const struct trace_site_info *info = c->info;
    char d[32], at[32];
    cv_tl_format_duration((double)(bar->t_exit - bar->t_enter), d, sizeof d);
    cv_tl_format_duration((double)(bar->t_enter - t0), at, sizeof at);
    char *site = info && info->file && *info->file
                     ? g_markup_printf_escaped("%s:%u", base_name(info->file), info->line)
                     : g_strdup("unknown site");
    g_string_append_printf(s, "<b>%s</b>  %s\n%s, starting at %s, on rank %d", trace_mpi_call_name(bar->call),
                           site, d, at, lane->rank);
    g_free(site);
    /* the message(s) of the call */
    for (uint32_t p = c->first; p < c->first + c->nparts; p++) {
        struct search_part pt;
        search_analysis_part(m->an, lane->rank, p, &pt);
        if (pt.kind == SEARCH_PART_SEND && pt.peer >= 0)
            g_string_append_printf(s, "\nsends %" PRIu64 " bytes to rank %d (tag %d)", pt.bytes, pt.peer,
                                   pt.tag);
        else if (pt.kind == SEARCH_PART_RECV && pt.peer >= 0)
            g_string_append_printf(s, "\nreceives %" PRIu64 " bytes from rank %d (tag %d)", pt.bytes, pt.peer,
                                   pt.tag);
    }
}

static gboolean cv_timeline_query_tooltip(GtkWidget *w, gint x, gint y, gboolean keyboard, GtkTooltip *tip)
{
    CvTimeline *t = CV_TIMELINE(w);
    if (keyboard || !t->model || t->pressed)
        return FALSE;
    update_area(t);
    int l;
    long k;
    uint32_t nhere = 0;
    GString *s = g_string_new(NULL);
    if (call_at(t, x, y, &l, &k, &nhere)) {
        const struct cv_tl_lane *lane = &t->model->lane[l];
        append_call_text(s, t->model, lane, &lane->calls.bar[k], t->model->t0);
        if (nhere > 1)
            g_string_append_printf(s, "\n<i>%u calls within %g px here: zoom in to tell them apart</i>",
                                   nhere, 2 * HIT_SLOP);
    } else if ((l = cv_tl_lane_at(&t->view, y)) >= 0 && x >= t->view.x0 && t->model->lane[l].windows.n) {
        const struct cv_tl_lane *lane = &t->model->lane[l];
        long wk = cv_tl_hit(&t->view, t->model->t0, &lane->windows, x, 0, NULL);
        if (wk >= 0) {
            const struct cv_tl_bar *b = &lane->windows.bar[wk];
            char a[32], z[32], d[32];
            cv_tl_format_duration((double)(b->t_enter - t->model->t0), a, sizeof a);
            cv_tl_format_duration((double)(b->t_exit - t->model->t0), z, sizeof z);
            cv_tl_format_duration((double)(b->t_exit - b->t_enter), d, sizeof d);
            const struct search_hint *h = t->model->selected;
            char *where = g_markup_printf_escaped("%s:%u", base_name(h->file), h->line);
            g_string_append_printf(s,
                                   "<b>Overlap window</b> of %s at %s on rank %d\n%s – %s (%s): computation "
                                   "that can run while the call is in flight",
                                   trace_mpi_call_name(h->call), where, lane->rank, a, z, d);
            g_free(where);
        }
    }
    if (!s->len) {
        g_string_free(s, TRUE);
        return FALSE;
    }
    gtk_tooltip_set_markup(tip, s->str);
    g_string_free(s, TRUE);
    return TRUE;
}

/* ---- life cycle ----------------------------------------------------------------------------- */

static void cv_timeline_get_preferred_height(GtkWidget *w, gint *min, gint *nat)
{
    CvTimeline *t = CV_TIMELINE(w);
    int lanes = t->model ? t->model->nlanes : 4;
    if (lanes > 16)
        lanes = 16;
    *min = (gint)(AXIS_H + LEGEND_H + 2 * CV_TL_MIN_PITCH);
    *nat = (gint)(AXIS_H + LEGEND_H + lanes * 40);
}

static void cv_timeline_get_preferred_width(GtkWidget *w, gint *min, gint *nat)
{
    (void)w;
    *min = (gint)(LABEL_W + RIGHT_PAD + 120);
    *nat = 800;
}

static void cv_timeline_finalize(GObject *o)
{
    CvTimeline *t = CV_TIMELINE(o);
    cv_tl_model_free(t->model);
    g_free(t->rects);
    g_free(t->msgs);
    g_clear_object(&t->grab_cursor);
    G_OBJECT_CLASS(cv_timeline_parent_class)->finalize(o);
}

static void cv_timeline_class_init(CvTimelineClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    oc->finalize = cv_timeline_finalize;
    wc->draw = cv_timeline_draw;
    wc->scroll_event = cv_timeline_scroll;
    wc->button_press_event = cv_timeline_button_press;
    wc->button_release_event = cv_timeline_button_release;
    wc->motion_notify_event = cv_timeline_motion;
    wc->key_press_event = cv_timeline_key_press;
    wc->query_tooltip = cv_timeline_query_tooltip;
    wc->get_preferred_height = cv_timeline_get_preferred_height;
    wc->get_preferred_width = cv_timeline_get_preferred_width;
    signals[SIG_LOCATION] = g_signal_new("location-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_UINT);
}

static void cv_timeline_init(CvTimeline *t)
{
    GtkWidget *w = GTK_WIDGET(t);
    gtk_widget_add_events(w, GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK | GDK_BUTTON_PRESS_MASK |
                                 GDK_BUTTON_RELEASE_MASK | GDK_POINTER_MOTION_MASK | GDK_KEY_PRESS_MASK);
    gtk_widget_set_can_focus(w, TRUE);
    gtk_widget_set_has_tooltip(w, TRUE);
    cv_tl_view_init(&t->view, 1, 0);
}

GtkWidget *cv_timeline_new(void)
{
    return g_object_new(CV_TYPE_TIMELINE, NULL);
}

void cv_timeline_set_document(CvTimeline *t, const struct cv_document *doc)
{
    g_return_if_fail(CV_IS_TIMELINE(t));
    cv_tl_model_free(t->model);
    t->model = NULL;
    t->doc = doc;
    if (doc && cv_tl_model_build(doc, &t->model) < 0) {
        g_warning("cannot build the timeline: out of memory");
        t->model = NULL;
    }
    cv_tl_view_init(&t->view, t->model ? t->model->t1 - t->model->t0 : 1, t->model ? t->model->nlanes : 0);
    gtk_widget_queue_resize(GTK_WIDGET(t));
    gtk_widget_queue_draw(GTK_WIDGET(t));
}

void cv_timeline_select_hint(CvTimeline *t, const struct search_hint *h)
{
    g_return_if_fail(CV_IS_TIMELINE(t));
    if (!t->model)
        return;
    if (cv_tl_model_select(t->model, h) < 0)
        g_warning("cannot mark the hint on the timeline: out of memory");
    gtk_widget_queue_draw(GTK_WIDGET(t));
}

