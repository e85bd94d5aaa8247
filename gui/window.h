/* window.h - the viewer's application window (a GtkApplicationWindow
 * template, ui/window.ui): the hint list and the event-level view on the
 * left, the source pane and the timeline/statistics notebook on the right,
 * a progress bar while a trace loads in a worker thread, and a bar with
 * the load's warnings (ranks left out or cut short). */
#ifndef COMMHINT_GUI_WINDOW_H
#define COMMHINT_GUI_WINDOW_H

#include <gtk/gtk.h>

#include "document.h"
#include "sourceview.h"

G_BEGIN_DECLS

#define CV_TYPE_WINDOW (cv_window_get_type())
G_DECLARE_FINAL_TYPE(CvWindow, cv_window, CV, WINDOW, GtkApplicationWindow)

CvWindow *cv_window_new(GtkApplication *app);

/* Whether a failed load shows a GtkMessageDialog (the default); off for
 * scripted runs, which print the error themselves. */
void cv_window_set_error_dialogs(CvWindow *w, gboolean on);

/* Called in the main thread when a load ends: doc (borrowed; owned by the
 * window) or error (one sentence) set. */
typedef void (*CvLoadDone)(CvWindow *w, const struct cv_document *doc, const char *error, gpointer data);

/* Loads a trace directory in a worker thread (the window stays
 * responsive, with a progress bar), then shows it; done (may be NULL) is
 * called after.  A load started while another runs replaces it. */
void cv_window_load(CvWindow *w, const char *dir, CvLoadDone done, gpointer data);

/* Selects hint `index` (from 0, in the ranked list) in every pane; FALSE
 * if there is no such hint. */
gboolean cv_window_select_hint(CvWindow *w, int index);

/* Adds a source directory for this run (--source-dir; not remembered). */
void cv_window_add_source_dir(CvWindow *w, const char *dir);

/* The source pane (borrowed), for the screenshot's mark positions. */
CvSourcePane *cv_window_source_pane(CvWindow *w);

G_END_DECLS

#endif /* COMMHINT_GUI_WINDOW_H */
