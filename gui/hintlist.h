/* hintlist.h - the hint list of the viewer: every hint of the report in a
 * sortable GtkTreeView (columns #, kind, call, location, saving, ranks)
 * under a filter bar (kind, rank, minimum saving).  Filtering and ordering
 * are hint-model.c's; layout is ui/hintlist.ui.
 *
 * Signals:
 *   "hint-selected"  (gint index)  a row was selected (index into the
 *                                  report's hints), -1 when none is;
 *   "hint-activated" (gint index)  a row was double-clicked (or Enter);
 *   "filter-changed" ()            the rows shown changed (cv_hint_list_visible). */
#ifndef COMMHINT_GUI_HINTLIST_H
#define COMMHINT_GUI_HINTLIST_H

#include <gtk/gtk.h>

#include "document.h"

G_BEGIN_DECLS

#define CV_TYPE_HINT_LIST (cv_hint_list_get_type())
G_DECLARE_FINAL_TYPE(CvHintList, cv_hint_list, CV, HINT_LIST, GtkBox)

GtkWidget *cv_hint_list_new(void);

/* Lists a document's hints (borrowed until the next call; NULL empties the
 * list) and resets the filter. */
void cv_hint_list_set_document(CvHintList *l, const struct cv_document *doc);

/* Selects hint `index` (into the report's hints) and scrolls to it; FALSE
 * if the filter hides it or there is no such hint. */
gboolean cv_hint_list_select(CvHintList *l, int index);

/* The selected hint's index, or -1. */
int cv_hint_list_selected(CvHintList *l);

/* The indices of the hints the filter lets through, in ranked order
 * (g_new'ed, *n entries; the caller g_frees it). */
guint *cv_hint_list_visible(CvHintList *l, guint *n);

G_END_DECLS

#endif /* COMMHINT_GUI_HINTLIST_H */
