/* eventview.h - the event-level view of the viewer (the paper's left-hand
 * window): for the selected hint, the dynamic instances behind it, per
 * rank, from the ranks' results kept in the document (doc->rank[r]):
 *   - overlap: the call site's instances (how many have a window, their
 *     time in MPI and the window's computation, the iteration boxes of the
 *     calls), then each statement that can move into the window with its
 *     events in windows, all its events, time and iteration boxes;
 *   - aggregation: the groups of sends (destination, member lines, groups,
 *     sends, bytes, sizes, send time);
 *   - collectives: the related calls, and per rank the calls recorded at
 *     those lines (count and time, from the MPI log).
 * Layout is ui/eventview.ui.
 *
 * Signal "location-activated" (gchararray file, guint line): a row with a
 * source line was double-clicked. */
#ifndef COMMHINT_GUI_EVENTVIEW_H
#define COMMHINT_GUI_EVENTVIEW_H

#include <gtk/gtk.h>

#include "document.h"

G_BEGIN_DECLS

#define CV_TYPE_EVENT_VIEW (cv_event_view_get_type())
G_DECLARE_FINAL_TYPE(CvEventView, cv_event_view, CV, EVENT_VIEW, GtkBox)

GtkWidget *cv_event_view_new(void);

/* The document (borrowed until the next call; NULL empties the view). */
void cv_event_view_set_document(CvEventView *v, const struct cv_document *doc);

/* Shows hint `index` (into the report's hints; -1: none). */
void cv_event_view_show_hint(CvEventView *v, int index);

G_END_DECLS

#endif /* COMMHINT_GUI_EVENTVIEW_H */
