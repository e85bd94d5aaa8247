/* window.c - the viewer's application window (see window.h).  It loads a
 * trace with cv_document_load in a GTask worker thread, forwards progress
 * to a GtkProgressBar through idle callbacks, and wires the panes
 * together: selecting a hint in the list selects it in the source pane,
 * the event-level view and the timeline. */
#include <string.h>

#include "eventview.h"
#include "hint-model.h"
#include "hintlist.h"
#include "stats.h"
#include "timeline.h"
#include "window.h"

struct _CvWindow {
    GtkApplicationWindow parent;
    /* template children */
    GtkPaned *left_paned;
    GtkHeaderBar *header;
    GtkRevealer *progress_revealer;
    GtkProgressBar *progress;
    GtkInfoBar *warn_bar;
    GtkLabel *warn_label;
    GtkNotebook *notebook;
    /* the panes (templates of their own, in window.ui too) */
    CvHintList *hints;
    CvEventView *events;
    CvSourcePane *source;
    GtkWidget *timeline, *stats;
    /* state */
    struct cv_document *doc;
    GTask *loading; /* the load in progress (its progress is shown), or NULL */
    gboolean dialogs;
    gboolean disposed;
};

G_DEFINE_TYPE(CvWindow, cv_window, GTK_TYPE_APPLICATION_WINDOW)

/* ---- loading in a worker thread ---------------------------------------------------- */

struct load_job {
    char *dir;
    CvLoadDone done;
    gpointer data;
    GMutex lock; /* guards the fields below (worker writes, main reads) */
    double fraction;
    char what[96];
    gboolean idle_pending;
};

static void load_job_free(gpointer p)
{
    struct load_job *j = p;
    g_mutex_clear(&j->lock);
    g_free(j->dir);
    g_free(j);
}

static gboolean progress_idle(gpointer data)
{
    GTask *task = data;
    struct load_job *j = g_task_get_task_data(task);
    CvWindow *w = g_task_get_source_object(task);
    double fraction;
    char what[96];
    g_mutex_lock(&j->lock);
    fraction = j->fraction;
    memcpy(what, j->what, sizeof what);
    j->idle_pending = FALSE;
    g_mutex_unlock(&j->lock);
    if (!w->disposed && w->loading == task) {
        gtk_progress_bar_set_fraction(w->progress, fraction);
        gtk_progress_bar_set_text(w->progress, what);
    }
    return G_SOURCE_REMOVE;
}

/* Called by cv_document_load in the worker: keeps the latest value and
 * posts at most one idle callback at a time. */
static void load_progress(void *ctx, double fraction, const char *what)
{
    GTask *task = ctx;
    struct load_job *j = g_task_get_task_data(task);
    gboolean post = FALSE;
    g_mutex_lock(&j->lock);
    j->fraction = fraction;
    g_strlcpy(j->what, what ? what : "", sizeof j->what);
    if (!j->idle_pending)
        post = j->idle_pending = TRUE;
    g_mutex_unlock(&j->lock);
    if (post)
        g_idle_add_full(G_PRIORITY_DEFAULT_IDLE, progress_idle, g_object_ref(task), g_object_unref);
}

static void load_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancel)
{
    struct load_job *j = data;
    struct cv_document *doc = NULL;
    char *error = NULL;
    if (cv_document_load(j->dir, load_progress, task, &doc, &error) < 0 || !doc) {
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
                                error ? error : "cannot load the trace");
        free(error);
        return;
    }
    free(error);
    g_task_return_pointer(task, doc, (GDestroyNotify)cv_document_free);
}

static void show_error_dialog(CvWindow *w, const char *dir, const char *message)
{
    GtkWidget *d = gtk_message_dialog_new(GTK_WINDOW(w), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                          GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "Cannot open the trace %s",
                                          dir ? dir : "");
    gtk_message_dialog_format_secondary_text(GTK_MESSAGE_DIALOG(d), "%s", message);
    g_signal_connect(d, "response", G_CALLBACK(gtk_widget_destroy), NULL);
    gtk_widget_show(d);
}

static void set_document(CvWindow *w, struct cv_document *doc);

static void load_done(GObject *source, GAsyncResult *res, gpointer data)
{
    CvWindow *w = CV_WINDOW(source);
    GTask *task = G_TASK(res);
    struct load_job *j = g_task_get_task_data(task);
    GError *err = NULL;
    struct cv_document *doc = g_task_propagate_pointer(task, &err);
    if (w->disposed || w->loading != task) {
        /* the window went away, or a newer load replaced this one */
        cv_document_free(doc);
        g_clear_error(&err);
        return;
    }
    g_clear_object(&w->loading);
    gtk_revealer_set_reveal_child(w->progress_revealer, FALSE);
    if (!doc) {
        const char *msg = err ? err->message : "cannot load the trace";
        if (w->dialogs)
            show_error_dialog(w, j->dir, msg);
        if (j->done)
            j->done(w, NULL, msg, j->data);
        g_clear_error(&err);
        return;
    }
    set_document(w, doc);
    if (j->done)
        j->done(w, w->doc, NULL, j->data);
}

void cv_window_load(CvWindow *w, const char *dir, CvLoadDone done, gpointer data)
{
    g_return_if_fail(CV_IS_WINDOW(w));
    struct load_job *j = g_new0(struct load_job, 1);
    g_mutex_init(&j->lock);
    j->dir = g_strdup(dir);
    j->done = done;
    j->data = data;
    GTask *task = g_task_new(w, NULL, load_done, NULL);
    g_task_set_task_data(task, j, load_job_free);
    g_clear_object(&w->loading);
    w->loading = g_object_ref(task);
    char *text = g_strdup_printf("opening %s", dir ? dir : "");
    gtk_progress_bar_set_fraction(w->progress, 0);
    gtk_progress_bar_set_text(w->progress, text);
    g_free(text);
    gtk_revealer_set_reveal_child(w->progress_revealer, TRUE);
    g_task_run_in_thread(task, load_thread);
    g_object_unref(task);
}

/* ---- showing a document ---------------------------------------------------------------- */

static void set_document(CvWindow *w, struct cv_document *doc)
{
    struct cv_document *old = w->doc;
    w->doc = doc;
    /* every pane lets go of the old document before it is freed; the list
     * last, since it announces the (empty) selection to the others */
    cv_source_pane_set_document(w->source, doc);
    cv_event_view_set_document(w->events, doc);
    cv_timeline_set_document(CV_TIMELINE(w->timeline), doc);
    cv_timeline_select_hint(CV_TIMELINE(w->timeline), NULL);
    cv_stats_set_document(CV_STATS(w->stats), doc);
    cv_hint_list_set_document(w->hints, doc);
    cv_document_free(old);
    /* the hint list as tall as its hints (a few rows: the rest goes to the
     * selected hint's detail), at most half the column */
    if (doc && doc->report) {
        int h = gtk_widget_get_allocated_height(GTK_WIDGET(w->left_paned));
        int want = 90 + 26 * (int)(doc->report->nhints ? doc->report->nhints : 1);
        if (h > 200 && want > h / 2)
            want = h / 2;
        gtk_paned_set_position(w->left_paned, want < 140 ? 140 : want);
    }

    if (doc) {
        char *base = g_path_get_basename(doc->dir);
        char *sub = g_strdup_printf(
            "%s — %u hint%s from %d of %d rank%s", doc->dir, doc->report ? doc->report->nhints : 0,
            doc->report && doc->report->nhints == 1 ? "" : "s", doc->report ? doc->report->nranks : 0,
            doc->world_size, doc->world_size == 1 ? "" : "s");
        char *title = g_strdup_printf("commhint — %s", base);
        gtk_header_bar_set_title(w->header, title);
        gtk_header_bar_set_subtitle(w->header, sub);
        g_free(title);
        g_free(sub);
        g_free(base);
    } else {
        gtk_header_bar_set_title(w->header, "commhint");
        gtk_header_bar_set_subtitle(w->header, NULL);
    }
    if (doc && doc->warnings && *doc->warnings) {
        char *text = g_strchomp(g_strdup(doc->warnings));
        gtk_label_set_text(w->warn_label, text);
        g_free(text);
        gtk_widget_show(GTK_WIDGET(w->warn_bar));
    } else {
        gtk_widget_hide(GTK_WIDGET(w->warn_bar));
    }
}

/* ---- panes talking to each other ----------------------------------------------------------- */

static const struct search_hint *hint_at(CvWindow *w, int index)
{
    if (!w->doc || !w->doc->report || index < 0 || (uint32_t)index >= w->doc->report->nhints)
        return NULL;
    return &w->doc->report->hints[index];
}

static void on_hint_selected(CvHintList *list, gint index, CvWindow *w)
{
    cv_source_pane_select_hint(w->source, index);
    cv_event_view_show_hint(w->events, index);
    cv_timeline_select_hint(CV_TIMELINE(w->timeline), hint_at(w, index));
}

static void on_hint_activated(CvHintList *list, gint index, CvWindow *w)
{
    /* double-click: (re)show the call in the source, even after browsing */
    cv_source_pane_select_hint(w->source, index);
    gtk_widget_grab_focus(GTK_WIDGET(w->source));
}

static void on_filter_changed(CvHintList *list, CvWindow *w)
{
    guint n = 0;
    guint *idx = cv_hint_list_visible(list, &n);
    cv_source_pane_set_visible_hints(w->source, idx, n);
    g_free(idx);
}

/* A source line chosen in the event view, the timeline or the statistics. */
static void on_location_activated(GtkWidget *from, const char *file, guint line, CvWindow *w)
{
    cv_source_pane_show_location(w->source, file, line);
}

static void on_trace_chosen(GtkNativeDialog *dlg, gint response, CvWindow *w)
{
    if (response == GTK_RESPONSE_ACCEPT && !w->disposed) {
        char *dir = gtk_file_chooser_get_filename(GTK_FILE_CHOOSER(dlg));
        if (dir)
            cv_window_load(w, dir, NULL, NULL);
        g_free(dir);
    }
    g_object_unref(dlg);
    g_object_unref(w);
}

static void on_open_clicked(GtkButton *button, CvWindow *w)
{
    GtkFileChooserNative *dlg = gtk_file_chooser_native_new(
        "Open a trace directory", GTK_WINDOW(w), GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, "_Open", "_Cancel");
    g_signal_connect(dlg, "response", G_CALLBACK(on_trace_chosen), g_object_ref(w));
    gtk_native_dialog_set_modal(GTK_NATIVE_DIALOG(dlg), TRUE);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(dlg));
}

static void on_warn_response(GtkInfoBar *bar, gint response, CvWindow *w)
{
    gtk_widget_hide(GTK_WIDGET(bar));
}

/* ---- GObject ------------------------------------------------------------------------------------ */

static void cv_window_dispose(GObject *obj)
{
    CvWindow *w = CV_WINDOW(obj);
    if (!w->disposed) {
        w->disposed = TRUE;
        /* the panes are destroyed one by one after this: none may reach
         * another through the window any more */
        g_signal_handlers_disconnect_by_data(w->hints, w);
        g_signal_handlers_disconnect_by_data(w->events, w);
        g_signal_handlers_disconnect_by_data(w->timeline, w);
        g_signal_handlers_disconnect_by_data(w->stats, w);
        /* the panes borrow the document: empty them before freeing it */
        if (w->doc) {
            cv_hint_list_set_document(w->hints, NULL);
            cv_source_pane_set_document(w->source, NULL);
            cv_event_view_set_document(w->events, NULL);
            cv_timeline_select_hint(CV_TIMELINE(w->timeline), NULL);
            cv_timeline_set_document(CV_TIMELINE(w->timeline), NULL);
            cv_stats_set_document(CV_STATS(w->stats), NULL);
            cv_document_free(w->doc);
            w->doc = NULL;
        }
        g_clear_object(&w->loading);
    }
    G_OBJECT_CLASS(cv_window_parent_class)->dispose(obj);
}

static void cv_window_class_init(CvWindowClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = cv_window_dispose;
    /* the types window.ui names */
    g_type_ensure(CV_TYPE_HINT_LIST);
    g_type_ensure(CV_TYPE_EVENT_VIEW);
    g_type_ensure(CV_TYPE_SOURCE_PANE);
    g_type_ensure(cv_timeline_get_type());
    g_type_ensure(cv_stats_get_type());
    gtk_widget_class_set_template_from_resource(wc, "/org/commhint/viewer/ui/window.ui");
    gtk_widget_class_bind_template_child(wc, CvWindow, header);
    gtk_widget_class_bind_template_child(wc, CvWindow, left_paned);
    gtk_widget_class_bind_template_child(wc, CvWindow, progress_revealer);
    gtk_widget_class_bind_template_child(wc, CvWindow, progress);
    gtk_widget_class_bind_template_child(wc, CvWindow, warn_bar);
    gtk_widget_class_bind_template_child(wc, CvWindow, warn_label);
    gtk_widget_class_bind_template_child(wc, CvWindow, notebook);
    gtk_widget_class_bind_template_child(wc, CvWindow, hints);
    gtk_widget_class_bind_template_child(wc, CvWindow, events);
    gtk_widget_class_bind_template_child(wc, CvWindow, source);
    gtk_widget_class_bind_template_child(wc, CvWindow, timeline);
    gtk_widget_class_bind_template_child(wc, CvWindow, stats);
    gtk_widget_class_bind_template_callback(wc, on_open_clicked);
    gtk_widget_class_bind_template_callback(wc, on_warn_response);
}

static void cv_window_init(CvWindow *w)
{
    gtk_widget_init_template(GTK_WIDGET(w));
    w->dialogs = TRUE;
    g_signal_connect(w->hints, "hint-selected", G_CALLBACK(on_hint_selected), w);
    g_signal_connect(w->hints, "hint-activated", G_CALLBACK(on_hint_activated), w);
    g_signal_connect(w->hints, "filter-changed", G_CALLBACK(on_filter_changed), w);
    g_signal_connect(w->events, "location-activated", G_CALLBACK(on_location_activated), w);
    g_signal_connect(w->timeline, "location-activated", G_CALLBACK(on_location_activated), w);
    g_signal_connect(w->stats, "location-activated", G_CALLBACK(on_location_activated), w);
    gtk_widget_hide(GTK_WIDGET(w->warn_bar));
}

CvWindow *cv_window_new(GtkApplication *app)
{
    return g_object_new(CV_TYPE_WINDOW, "application", app, NULL);
}

void cv_window_set_error_dialogs(CvWindow *w, gboolean on)
{
    g_return_if_fail(CV_IS_WINDOW(w));
    w->dialogs = on;
}

gboolean cv_window_select_hint(CvWindow *w, int index)
{
    g_return_val_if_fail(CV_IS_WINDOW(w), FALSE);
    if (!hint_at(w, index))
        return FALSE;
    /* the panes follow even if the list's selection does not change (to
     * scroll back to it) or the filter hides the hint */
    g_signal_handlers_block_by_func(w->hints, on_hint_selected, w);
    cv_hint_list_select(w->hints, index);
    g_signal_handlers_unblock_by_func(w->hints, on_hint_selected, w);
    on_hint_selected(w->hints, index, w);
    return TRUE;
}

void cv_window_add_source_dir(CvWindow *w, const char *dir)
{
    g_return_if_fail(CV_IS_WINDOW(w));
    cv_source_pane_add_source_dir(w->source, dir, FALSE);
}

CvSourcePane *cv_window_source_pane(CvWindow *w)
{
    g_return_val_if_fail(CV_IS_WINDOW(w), NULL);
    return w->source;
}
