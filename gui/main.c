/* main.c - `commhint-gui DIR [options]` (also run as `commhint view DIR`):
 * the trace viewer.  Parses the command line, opens the window and starts
 * loading the trace; with --screenshot it selects a hint, waits until the
 * window is laid out, writes it as a PNG, prints where the marks are, and
 * exits, so the viewer can be scripted and tested headless (xvfb-run).
 *
 * Exit status: 0, 1 on error (not a trace, no display, cannot write the
 * PNG, no such hint), 2 for bad usage. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gtk/gtk.h>
#include <gtksourceview/gtksource.h>

#include "hint-model.h"
#include "search.h"
#include "window.h"

struct options {
    const char *dir;
    long select; /* --select-hint N (from 1), 0 if not given */
    const char *screenshot;
    GPtrArray *source_dirs;
};

struct run {
    struct options o;
    int status; /* the exit status */
    CvWindow *win;
    int frames; /* frames waited before the screenshot */
    guint line; /* the selected hint's line, to wait for the scroll */
};

#define SHOT_MIN_FRAMES 12  /* layout, the scroll and the panes' first draws */
#define SHOT_MAX_FRAMES 240 /* about 4 s at 60 frames per second */

static void usage(FILE *f)
{
    fprintf(f, "usage: commhint view DIR [options]   (or commhint-gui DIR [options])\n\n"
               "Shows the hints of the trace in DIR on the program's source: a mark per hint in\n"
               "the gutter, the selected hint's call and related lines highlighted, the dynamic\n"
               "instances behind it, and the ranks' MPI calls on a timeline (docs/viewer.md).\n"
               "  --select-hint N      select the N-th hint of the ranked list (from 1)\n"
               "  --screenshot FILE    once loaded (and the hint selected), write the window to\n"
               "                       FILE as a PNG, print where the marks are and exit; errors\n"
               "                       are printed instead of shown in a dialog\n"
               "  --source-dir DIR     also look for source files in DIR (this run only; the\n"
               "                       'Source directory…' button remembers its choice)\n"
               "  -h, --help           this text\n"
               "Exit status 0, 1 on error, 2 for bad usage.  Headless: xvfb-run -a commhint view ...\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "commhint view: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see 'commhint view --help')\n");
    return 2;
}

static int parse_args(int argc, char **argv, struct options *o)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        size_t n = strcspn(a, "=");
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return -1;
        }
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name - 1 ? n : sizeof name - 1), a);
        if (!strcmp(name, "--select-hint") || !strcmp(name, "--screenshot") ||
            !strcmp(name, "--source-dir")) {
            if (a[n] == '=')
                val = a + n + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else
                return usage_error("option '%s' needs a value", name);
            if (!strcmp(name, "--select-hint")) {
                char *end;
                errno = 0;
                long v = strtol(val, &end, 10);
                if (errno || *end || !*val || v < 1 || v > 100000000)
                    return usage_error("--select-hint needs a hint number from 1, not '%s'", val);
                o->select = v;
            } else if (!strcmp(name, "--screenshot")) {
                if (!*val)
                    return usage_error("--screenshot needs a file name%s", "");
                o->screenshot = val;
            } else {
                g_ptr_array_add(o->source_dirs, (gpointer)val);
            }
            continue;
        }
        if (a[0] == '-' && a[1])
            return usage_error("unknown option '%s'", a);
        if (o->dir)
            return usage_error("unexpected argument '%s'", a);
        o->dir = a;
    }
    if (o->screenshot && !o->dir)
        return usage_error("--screenshot needs the trace directory%s", "");
    if (o->select && !o->dir)
        return usage_error("--select-hint needs the trace directory%s", "");
    return 0;
}

/* ---- the screenshot ---------------------------------------------------------------- */

static void print_mark(void *ctx, const char *cat, const char *role, guint line, int x, int y)
{
    if (role && *role)
        printf("mark kind=%s role=%s line=%u y=%d x=%d\n", cat, role, line, y, x);
    else
        printf("mark kind=%s line=%u y=%d x=%d\n", cat, line, y, x);
}

/* Writes the window as a PNG; returns 0 or prints why not.  The picture
 * is read back from the display when the whole window is on screen (what
 * a person sees), else drawn with gtk_widget_draw (which leaves out a few
 * things GTK draws on windows of their own, such as list headers). */
static int write_png(GtkWidget *win, const char *path)
{
    GdkWindow *gw = gtk_widget_get_window(win);
    int w = gtk_widget_get_allocated_width(win), h = gtk_widget_get_allocated_height(win);
    if (!gw || w <= 0 || h <= 0) {
        fprintf(stderr, "commhint-gui: error: the window has no size to draw: width=%d height=%d\n", w, h);
        return 1;
    }
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    const char *how = "drawn";
    GdkWindow *root = gdk_screen_get_root_window(gtk_widget_get_screen(win));
    int ox = -1, oy = -1;
    gdk_display_sync(gtk_widget_get_display(win));
    gdk_window_get_origin(gw, &ox, &oy);
    GdkPixbuf *pb = NULL;
    if (root && ox >= 0 && oy >= 0 && ox + w <= gdk_window_get_width(root) &&
        oy + h <= gdk_window_get_height(root) && gdk_window_get_width(gw) == w &&
        gdk_window_get_height(gw) == h)
        pb = gdk_pixbuf_get_from_window(gw, 0, 0, w, h);
    if (pb) {
        gdk_cairo_set_source_pixbuf(cr, pb, 0, 0);
        cairo_paint(cr);
        g_object_unref(pb);
        how = "screen";
    } else {
        gtk_widget_draw(win, cr);
    }
    cairo_destroy(cr);
    cairo_surface_flush(s);
    cairo_status_t st = cairo_surface_write_to_png(s, path);
    cairo_surface_destroy(s);
    if (st != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "commhint-gui: error: cannot write the screenshot: file=%s reason=%s\n", path,
                cairo_status_to_string(st));
        return 1;
    }
    printf("screenshot file=%s width=%d height=%d from=%s\n", path, w, h, how);
    return 0;
}

/* A scripted run: the window near the top left corner (its shadow and
 * borders stick out of the position asked for), no larger than the
 * screen's work area, so that it can be read back whole. */
static void fit_on_screen(GtkWindow *win)
{
    GdkDisplay *dpy = gtk_widget_get_display(GTK_WIDGET(win));
    GdkMonitor *mon = gdk_display_get_primary_monitor(dpy);
    if (!mon)
        mon = gdk_display_get_monitor(dpy, 0);
    int w = 1280, h = 940;
    if (mon) {
        GdkRectangle area;
        gdk_monitor_get_workarea(mon, &area);
        /* room for the decorations GTK draws around the window */
        if (w > area.width - 40)
            w = area.width - 40;
        if (h > area.height - 80)
            h = area.height - 80;
    }
    gtk_window_set_default_size(win, w > 400 ? w : 400, h > 300 ? h : 300);
    gtk_window_move(win, 16, 16);
}

static gboolean shot_tick(GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
    struct run *r = data;
    CvSourcePane *src = cv_window_source_pane(r->win);
    r->frames++;
    /* the panes have their sizes now: scroll to the hint again, for a
     * scroll done before the window was laid out */
    if (r->frames == SHOT_MIN_FRAMES / 2 && r->o.select)
        cv_window_select_hint(r->win, (int)(r->o.select - 1));
    if (r->frames < SHOT_MIN_FRAMES)
        return G_SOURCE_CONTINUE;
    /* the source view scrolls, and aligns the line, once its lines are
     * measured (idle work, starved on a loaded machine): wait for it */
    if (r->line && !cv_source_pane_line_settled(src, r->line) && r->frames < SHOT_MAX_FRAMES)
        return G_SOURCE_CONTINUE;
    if (r->line && !cv_source_pane_line_visible(src, r->line))
        fprintf(stderr, "commhint-gui: warning: the selected hint's line is not in view: line=%u\n", r->line);
    r->status = write_png(widget, r->o.screenshot);
    if (r->status == 0)
        cv_source_pane_visible_marks(src, widget, print_mark, NULL);
    fflush(stdout);
    gtk_widget_destroy(widget);
    return G_SOURCE_REMOVE;
}

static void on_loaded(CvWindow *w, const struct cv_document *doc, const char *error, gpointer data)
{
    struct run *r = data;
    if (!doc) {
        fprintf(stderr, "commhint-gui: error: %s\n", error ? error : "cannot load the trace");
        r->status = 1;
        if (r->o.screenshot)
            gtk_widget_destroy(GTK_WIDGET(w));
        return;
    }
    if (doc->warnings && *doc->warnings) {
        char **lines = g_strsplit(doc->warnings, "\n", -1);
        for (char **l = lines; *l; l++)
            if (**l)
                fprintf(stderr, "commhint-gui: warning: %s\n", *l);
        g_strfreev(lines);
    }
    uint32_t nhints = doc->report ? doc->report->nhints : 0;
    if (r->o.select) {
        if ((uint32_t)r->o.select > nhints) {
            fprintf(stderr, "commhint-gui: error: no such hint: hint=%ld hints=%u\n", r->o.select, nhints);
            r->status = 1;
            if (r->o.screenshot)
                gtk_widget_destroy(GTK_WIDGET(w));
            return;
        }
        const struct search_hint *h = &doc->report->hints[r->o.select - 1];
        cv_window_select_hint(w, (int)(r->o.select - 1));
        if (r->o.screenshot) {
            gboolean found = FALSE;
            cv_source_pane_current_file(cv_window_source_pane(w), &found);
            printf("selected hint=%ld kind=%s call=%s file=%s line=%u\n", r->o.select,
                   search_kind_name(h->kind), trace_mpi_call_name(h->call),
                   h->file && *h->file ? h->file : "??", h->line);
            if (!found)
                printf("source not-found file=%s\n", h->file && *h->file ? h->file : "??");
            else
                printf("source read-from=%s\n", cv_source_pane_current_where(cv_window_source_pane(w)));
            r->line = found ? h->line : 0;
        }
    }
    if (r->o.screenshot)
        gtk_widget_add_tick_callback(GTK_WIDGET(w), shot_tick, r, NULL);
}

static void on_activate(GtkApplication *app, gpointer data)
{
    struct run *r = data;
    if (r->win) {
        gtk_window_present(GTK_WINDOW(r->win));
        return;
    }
    r->win = cv_window_new(app);
    cv_window_set_error_dialogs(r->win, r->o.screenshot == NULL);
    for (guint i = 0; i < r->o.source_dirs->len; i++)
        cv_window_add_source_dir(r->win, r->o.source_dirs->pdata[i]);
    if (r->o.screenshot)
        fit_on_screen(GTK_WINDOW(r->win));
    gtk_widget_show(GTK_WIDGET(r->win));
    if (r->o.dir)
        cv_window_load(r->win, r->o.dir, on_loaded, r);
}

int main(int argc, char **argv)
{
    struct run r = {.o = {.source_dirs = g_ptr_array_new()}};
    int rc = parse_args(argc, argv, &r.o);
    if (rc) {
        g_ptr_array_unref(r.o.source_dirs);
        return rc < 0 ? 0 : rc;
    }
    const char *bad = NULL;
    if (search_memory_limit_from_env(&bad) < 0) {
        fprintf(stderr, "commhint-gui: error: COMMHINT_MAX_MEMORY needs a size in bytes, or with a K, M, G or T "
                        "suffix (such as 8G), not '%s'\n", bad);
        g_ptr_array_unref(r.o.source_dirs);
        return 2;
    }
    if (r.o.screenshot) {
        /* a scripted run: no accessibility bus, no animations to wait for */
        g_setenv("NO_AT_BRIDGE", "1", TRUE);
    }
    if (!gtk_init_check(NULL, NULL)) {
        const char *d = g_getenv("DISPLAY");
        fprintf(stderr,
                "commhint-gui: error: cannot open a display: DISPLAY=%s (for a headless run: xvfb-run -a "
                "commhint view ...)\n",
                d && *d ? d : "(unset)");
        g_ptr_array_unref(r.o.source_dirs);
        return 1;
    }
    if (r.o.screenshot)
        g_object_set(gtk_settings_get_default(), "gtk-enable-animations", FALSE, NULL);
    gtk_source_init();
    g_set_prgname("commhint-gui");
    g_set_application_name("commhint");

    GtkApplication *app = gtk_application_new("org.commhint.Viewer", G_APPLICATION_NON_UNIQUE);
    g_signal_connect(app, "activate", G_CALLBACK(on_activate), &r);
    /* the options are parsed above; GApplication sees the program name only */
    char *args[] = {argv[0], NULL};
    int app_status = g_application_run(G_APPLICATION(app), 1, args);
    g_object_unref(app);
    gtk_source_finalize();
    g_ptr_array_unref(r.o.source_dirs);
    return r.status ? r.status : app_status;
}
