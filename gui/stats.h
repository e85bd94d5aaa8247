/* stats.h - the viewer's statistics pane: two bar charts so that the
 * biggest costs stand out,
 *   - time in MPI per call site, summed over ranks, the 20 largest
 *     ("MPI_Recv jacobi.c:84"), coloured like the timeline's calls;
 *   - per rank, its MPI time and its computation time as one stacked bar
 *     (from the end of MPI_Init to the start of MPI_Finalize);
 * with the values written next to the bars.  The numbers come from
 * stats-model.h (tested without a display).  Its natural height is what
 * its rows need (its minimum is small, so that many ranks do not make the
 * window tall): put it in a GtkScrolledWindow whose viewport has
 * vscroll-policy "natural" to scroll over every row.
 *
 * Signal "location-activated" (gchararray file, guint line): a call site's
 * bar was clicked; file as recorded in the trace. */
#ifndef COMMHINT_GUI_STATS_H
#define COMMHINT_GUI_STATS_H

#include <gtk/gtk.h>

#include "document.h"

G_BEGIN_DECLS

#define CV_TYPE_STATS (cv_stats_get_type())
G_DECLARE_FINAL_TYPE(CvStats, cv_stats, CV, STATS, GtkDrawingArea)

GtkWidget *cv_stats_new(void);

/* The document to show (borrowed until the next call or the widget's end;
 * NULL empties the pane). */
void cv_stats_set_document(CvStats *s, const struct cv_document *doc);

G_END_DECLS

#endif /* COMMHINT_GUI_STATS_H */
