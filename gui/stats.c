/* stats.c - the statistics pane (stats.h): draws the numbers of
 * stats-model.c as two horizontal bar charts with cairo. */
#include <math.h>
#include <string.h>

#include "stats-model.h"
#include "stats.h"
#include "timeline-model.h"
#include "timeline.h"

#define MARGIN 14.0
#define ROW_H 22.0
#define BAR_H 14.0
#define TITLE_H 46.0 /* a chart's title and subtitle */
#define GAP_H 22.0   /* between the charts */
#define TOP_SITES 20

struct _CvStats {
    GtkDrawingArea parent;
    struct cv_stats_model *model;
    /* where the rows were drawn, for tooltips and clicks */
    double sites_y, ranks_y, bars_x;
    uint32_t nsites_shown;
};

G_DEFINE_TYPE(CvStats, cv_stats, GTK_TYPE_DRAWING_AREA)

enum { SIG_LOCATION, NSIGS };
static guint signals[NSIGS];

static const double mpi_rgb[3] = {0xe1 / 255.0, 0x57 / 255.0, 0x59 / 255.0};  /* red */
static const double comp_rgb[3] = {0xa0 / 255.0, 0xcb / 255.0, 0xe8 / 255.0}; /* light blue */

static PangoLayout *layout(GtkWidget *w, const char *text, gboolean bold, double scale)
{
    PangoLayout *l = gtk_widget_create_pango_layout(w, text);
    if (bold || scale != 1) {
        PangoFontDescription *fd =
            pango_font_description_copy(pango_context_get_font_description(pango_layout_get_context(l)));
        if (bold)
            pango_font_description_set_weight(fd, PANGO_WEIGHT_BOLD);
        if (scale != 1)
            pango_font_description_set_size(fd, (gint)(pango_font_description_get_size(fd) * scale));
        pango_layout_set_font_description(l, fd);
        pango_font_description_free(fd);
    }
    return l;
}

static double text_width(GtkWidget *w, const char *text)
{
    PangoLayout *l = layout(w, text, FALSE, 1);
    int tw, th;
    pango_layout_get_pixel_size(l, &tw, &th);
    g_object_unref(l);
    return tw;
}

/* Draws text with its left (align 0) or right (1) edge at x, vertically
 * centred on y; returns its width. */
static double draw_text(GtkWidget *w, cairo_t *cr, const char *text, double x, double y, double align,
                        gboolean bold, double scale)
{
    PangoLayout *l = layout(w, text, bold, scale);
    int tw, th;
    pango_layout_get_pixel_size(l, &tw, &th);
    cairo_move_to(cr, round(x - align * tw), round(y - th / 2.0));
    pango_cairo_show_layout(cr, l);
    g_object_unref(l);
    return tw;
}

static uint32_t shown_sites(const struct cv_stats_model *m)
{
    return m->nsites < TOP_SITES ? m->nsites : TOP_SITES;
}

static double content_height(const struct cv_stats_model *m)
{
    uint32_t ns = shown_sites(m);
    return MARGIN + TITLE_H + (ns ? ns : 1) * ROW_H + GAP_H + TITLE_H + (m->nranks ? m->nranks : 1) * ROW_H +
           MARGIN;
}

static void percent(char *buf, size_t size, uint64_t part, uint64_t whole)
{
    double p = whole ? 100.0 * (double)part / (double)whole : 0;
    if (p > 0 && p < 1)
        snprintf(buf, size, "<1%%");
    else
        snprintf(buf, size, "%.0f%%", p);
}

static void draw_title(GtkWidget *w, cairo_t *cr, double y, const char *title, const char *sub)
{
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    draw_text(w, cr, title, MARGIN, y + 10, 0, TRUE, 1.05);
    cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
    draw_text(w, cr, sub, MARGIN, y + 29, 0, FALSE, 0.9);
}

static gboolean cv_stats_draw(GtkWidget *w, cairo_t *cr)
{
    CvStats *s = CV_STATS(w);
    const struct cv_stats_model *m = s->model;
    double width = gtk_widget_get_allocated_width(w), height = gtk_widget_get_allocated_height(w);
    char buf[256], a[32], b[32], p[16];

    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (!m) {
        cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
        draw_text(w, cr, "No trace loaded", width / 2, height / 2, 0.5, FALSE, 1);
        return FALSE;
    }
    uint32_t ns = shown_sites(m);
    s->nsites_shown = ns;

    /* label column: as wide as the widest label, at most 40% */
    double label_w = text_width(w, "rank 0000");
    for (uint32_t i = 0; i < ns; i++)
        label_w = fmax(label_w, text_width(w, cv_stats_site_label(&m->sites[i], buf, sizeof buf)));
    label_w = fmin(label_w, width * 0.4);
    double bx = MARGIN + label_w + 10;
    s->bars_x = bx;

    /* ---- per call site ---- */
    double y = MARGIN;
    cv_tl_format_duration((double)m->mpi_ns, a, sizeof a);
    snprintf(buf, sizeof buf, "%s in MPI over %d rank%s, %u call site%s%s", a, m->nranks,
             m->nranks == 1 ? "" : "s", m->nsites, m->nsites == 1 ? "" : "s",
             m->nsites > ns ? " (the 20 largest shown)" : "");
    draw_title(w, cr, y, "Time in MPI per call site", buf);
    y += TITLE_H;
    s->sites_y = y;
    /* value texts first, to leave them room */
    double value_w = 0;
    char(*values)[128] = g_malloc0(sizeof *values * (ns ? ns : 1));
    for (uint32_t i = 0; i < ns; i++) {
        const struct cv_stats_site *c = &m->sites[i];
        cv_tl_format_duration((double)c->time_ns, a, sizeof a);
        percent(p, sizeof p, c->time_ns, m->mpi_ns);
        snprintf(values[i], sizeof values[i], "%s (%s) · %" G_GUINT64_FORMAT " call%s on %d rank%s", a, p,
                 c->calls, c->calls == 1 ? "" : "s", c->nranks, c->nranks == 1 ? "" : "s");
        value_w = fmax(value_w, text_width(w, values[i]));
    }
    double avail = width - MARGIN - bx - value_w - 8;
    if (avail < 40)
        avail = 40;
    uint64_t top = ns ? m->sites[0].time_ns : 0;
    if (!ns) {
        cairo_set_source_rgb(cr, 0.45, 0.45, 0.45);
        draw_text(w, cr, "no MPI call with a measured time", bx, y + ROW_H / 2, 0, FALSE, 1);
    }
    for (uint32_t i = 0; i < ns; i++, y += ROW_H) {
        const struct cv_stats_site *c = &m->sites[i];
        double cy = y + ROW_H / 2, len = top ? avail * (double)c->time_ns / (double)top : 0;
        if (i % 2) {
            cairo_set_source_rgb(cr, 0.965, 0.965, 0.97);
            cairo_rectangle(cr, MARGIN / 2, y, width - MARGIN, ROW_H);
            cairo_fill(cr);
        }
        cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
        cairo_save(cr);
        cairo_rectangle(cr, 0, y, bx - 6, ROW_H);
        cairo_clip(cr);
        draw_text(w, cr, cv_stats_site_label(c, buf, sizeof buf), bx - 10, cy, 1, FALSE, 1);
        cairo_restore(cr);
        double r, g, bl;
        cv_timeline_class_color(search_call_class_of(c->call), &r, &g, &bl);
        cairo_set_source_rgb(cr, r, g, bl);
        cairo_rectangle(cr, bx, cy - BAR_H / 2, len < 1 ? 1 : len, BAR_H);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        draw_text(w, cr, values[i], bx + (len < 1 ? 1 : len) + 6, cy, 0, FALSE, 0.95);
    }
    g_free(values);
    if (!ns)
        y += ROW_H;

    /* ---- per rank ---- */
    y += GAP_H;
    draw_title(w, cr, y, "MPI and computation per rank",
               "from the end of MPI_Init to the start of MPI_Finalize");
    /* legend next to the title */
    double lx = MARGIN + 12 + text_width(w, "MPI and computation per rank") * 1.1 + 24;
    cairo_set_source_rgb(cr, mpi_rgb[0], mpi_rgb[1], mpi_rgb[2]);
    cairo_rectangle(cr, lx, y + 5, 14, 10);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    lx += 19 + draw_text(w, cr, "MPI", lx + 19, y + 10, 0, FALSE, 0.9) + 14;
    cairo_set_source_rgb(cr, comp_rgb[0], comp_rgb[1], comp_rgb[2]);
    cairo_rectangle(cr, lx, y + 5, 14, 10);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    draw_text(w, cr, "computation", lx + 19, y + 10, 0, FALSE, 0.9);
    y += TITLE_H;
    s->ranks_y = y;
    value_w = text_width(w, "MPI 000.0 ms (100%) · computation 000.0 ms");
    avail = width - MARGIN - bx - value_w - 8;
    if (avail < 40)
        avail = 40;
    for (int r = 0; r < m->nranks; r++, y += ROW_H) {
        const struct cv_stats_rank *k = &m->ranks[r];
        double cy = y + ROW_H / 2;
        if (r % 2) {
            cairo_set_source_rgb(cr, 0.965, 0.965, 0.97);
            cairo_rectangle(cr, MARGIN / 2, y, width - MARGIN, ROW_H);
            cairo_fill(cr);
        }
        snprintf(buf, sizeof buf, "rank %d", k->rank);
        cairo_set_source_rgb(cr, k->present ? 0.15 : 0.6, k->present ? 0.15 : 0.6, k->present ? 0.15 : 0.6);
        draw_text(w, cr, buf, bx - 10, cy, 1, FALSE, 1);
        if (!k->present) {
            draw_text(w, cr, "not analysed", bx, cy, 0, FALSE, 0.95);
            continue;
        }
        double scale = m->max_run_ns ? avail / (double)m->max_run_ns : 0;
        double lm = scale * (double)k->mpi_ns, lc = scale * (double)k->comp_ns;
        cairo_set_source_rgb(cr, mpi_rgb[0], mpi_rgb[1], mpi_rgb[2]);
        cairo_rectangle(cr, bx, cy - BAR_H / 2, lm, BAR_H);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, comp_rgb[0], comp_rgb[1], comp_rgb[2]);
        cairo_rectangle(cr, bx + lm, cy - BAR_H / 2, lc, BAR_H);
        cairo_fill(cr);
        cv_tl_format_duration((double)k->mpi_ns, a, sizeof a);
        cv_tl_format_duration((double)k->comp_ns, b, sizeof b);
        percent(p, sizeof p, k->mpi_ns, k->run_ns);
        snprintf(buf, sizeof buf, "MPI %s (%s) · computation %s", a, p, b);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        draw_text(w, cr, buf, bx + lm + lc + 6, cy, 0, FALSE, 0.95);
    }
    return FALSE;
}

/* The site row at y, or -1. */
static int site_at(CvStats *s, double y)
{
    if (!s->model || y < s->sites_y)
        return -1;
    double i = floor((y - s->sites_y) / ROW_H);
    return i < s->nsites_shown ? (int)i : -1;
}

static int rank_at(CvStats *s, double y)
{
    if (!s->model || y < s->ranks_y)
        return -1;
    double i = floor((y - s->ranks_y) / ROW_H);
    return i < s->model->nranks ? (int)i : -1;
}

static gboolean cv_stats_query_tooltip(GtkWidget *w, gint x, gint y, gboolean keyboard, GtkTooltip *tip)
{
    CvStats *s = CV_STATS(w);
    char a[32], b[32];
    int i;
    if (keyboard || !s->model)
        return FALSE;
    if ((i = site_at(s, y)) >= 0) {
        const struct cv_stats_site *c = &s->model->sites[i];
        cv_tl_format_duration((double)c->time_ns, a, sizeof a);
        cv_tl_format_duration((double)c->max_rank_ns, b, sizeof b);
        char *t = g_markup_printf_escaped("<b>%s</b> at %s:%u%s%s%s\n%s in %" G_GUINT64_FORMAT
                                          " calls on %d rank%s; at most %s on one rank",
                                          trace_mpi_call_name(c->call), *c->file ? c->file : "unknown file",
                                          c->line, *c->func ? " (" : "", c->func, *c->func ? ")" : "", a,
                                          c->calls, c->nranks, c->nranks == 1 ? "" : "s", b);
        gtk_tooltip_set_markup(tip, t);
        g_free(t);
        return TRUE;
    }
    if ((i = rank_at(s, y)) >= 0 && s->model->ranks[i].present) {
        const struct cv_stats_rank *k = &s->model->ranks[i];
        char r[32];
        cv_tl_format_duration((double)k->run_ns, r, sizeof r);
        cv_tl_format_duration((double)k->mpi_ns, a, sizeof a);
        cv_tl_format_duration((double)k->comp_ns, b, sizeof b);
        char *t = g_markup_printf_escaped("<b>rank %d</b>: %s run, %s in %" G_GUINT64_FORMAT
                                          " MPI calls, %s computing",
                                          k->rank, r, a, k->calls, b);
        gtk_tooltip_set_markup(tip, t);
        g_free(t);
        return TRUE;
    }
    return FALSE;
}

static gboolean cv_stats_button_release(GtkWidget *w, GdkEventButton *ev)
{
    CvStats *s = CV_STATS(w);
    int i = ev->button == GDK_BUTTON_PRIMARY ? site_at(s, ev->y) : -1;
    if (i < 0)
        return FALSE;
    const struct cv_stats_site *c = &s->model->sites[i];
    if (*c->file && c->line)
        g_signal_emit(s, signals[SIG_LOCATION], 0, c->file, (guint)c->line);
    return TRUE;
}

static void cv_stats_get_preferred_height(GtkWidget *w, gint *min, gint *nat)
{
    CvStats *s = CV_STATS(w);
    /* A small minimum: the window must not grow with the number of ranks.
     * In a GtkScrolledWindow, its viewport's vscroll-policy "natural"
     * scrolls over the whole content. */
    *nat = s->model ? (gint)ceil(content_height(s->model)) : 120;
    *min = *nat < 160 ? *nat : 160;
}

static void cv_stats_get_preferred_width(GtkWidget *w, gint *min, gint *nat)
{
    (void)w;
    *min = 360;
    *nat = 760;
}

static void cv_stats_finalize(GObject *o)
{
    cv_stats_model_free(CV_STATS(o)->model);
    G_OBJECT_CLASS(cv_stats_parent_class)->finalize(o);
}

static void cv_stats_class_init(CvStatsClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    oc->finalize = cv_stats_finalize;
    wc->draw = cv_stats_draw;
    wc->query_tooltip = cv_stats_query_tooltip;
    wc->button_release_event = cv_stats_button_release;
    wc->get_preferred_height = cv_stats_get_preferred_height;
    wc->get_preferred_width = cv_stats_get_preferred_width;
    signals[SIG_LOCATION] = g_signal_new("location-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_UINT);
}

static void cv_stats_init(CvStats *s)
{
    gtk_widget_add_events(GTK_WIDGET(s), GDK_BUTTON_PRESS_MASK | GDK_BUTTON_RELEASE_MASK);
    gtk_widget_set_has_tooltip(GTK_WIDGET(s), TRUE);
}

GtkWidget *cv_stats_new(void)
{
    return g_object_new(CV_TYPE_STATS, NULL);
}

void cv_stats_set_document(CvStats *s, const struct cv_document *doc)
{
    g_return_if_fail(CV_IS_STATS(s));
    cv_stats_model_free(s->model);
    s->model = NULL;
    if (doc && cv_stats_model_build(doc, &s->model) < 0) {
        g_warning("cannot compute the statistics: out of memory");
        s->model = NULL;
    }
    gtk_widget_queue_resize(GTK_WIDGET(s));
    gtk_widget_queue_draw(GTK_WIDGET(s));
}
