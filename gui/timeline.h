/* timeline.h - the viewer's timeline pane: one lane per rank with its MPI
 * calls as bars over time (coloured by kind: send, receive, collective,
 * wait, other), messages as lines from the send to the receive when few
 * enough are in view, and the selected hint's overlap windows shaded and
 * its calls outlined.  Scroll wheel: zoom around the pointer (Shift: scroll
 * the lanes); drag: pan; double-click or Home: everything; +/- and the
 * arrow keys also zoom and pan.  Tooltips name the call under the pointer.
 * The logic is in timeline-model.h (tested without a display); this file
 * only draws and handles events.
 *
 * Signal "location-activated" (gchararray file, guint line): a call bar
 * was clicked (not dragged); file as recorded in the trace. */
#ifndef COMMHINT_GUI_TIMELINE_H
#define COMMHINT_GUI_TIMELINE_H

#include <gtk/gtk.h>

#include "document.h"

G_BEGIN_DECLS

#define CV_TYPE_TIMELINE (cv_timeline_get_type())
G_DECLARE_FINAL_TYPE(CvTimeline, cv_timeline, CV, TIMELINE, GtkDrawingArea)

GtkWidget *cv_timeline_new(void);

/* The document to show (borrowed until the next call or the widget's end;
 * NULL empties the pane).  Shows the whole run and clears the selection. */
void cv_timeline_set_document(CvTimeline *t, const struct cv_document *doc);

/* Marks hint h (borrowed from the document's report; NULL clears): its
 * overlap windows shaded and its calls outlined on the ranks it holds on.
 * The visible range does not change. */
void cv_timeline_select_hint(CvTimeline *t, const struct search_hint *h);

/* The colour of a call class (enum cv_tl_class), shared with the
 * statistics pane; components 0..1. */
void cv_timeline_class_color(int cls, double *r, double *g, double *b);

G_END_DECLS

#endif /* COMMHINT_GUI_TIMELINE_H */
