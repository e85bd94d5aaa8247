/* sourceview.h - the source pane of the viewer: the program's files in a
 * GtkSourceView (syntax highlighting, line numbers), each hint as a mark
 * in the gutter (an icon and colour per kind, a tooltip with its message),
 * the selected hint's call line and related lines highlighted, a file
 * selector, and a "file not found" bar to choose the source directory
 * (remembered in g_get_user_config_dir()/commhint/viewer.ini).
 *
 * Which marks go where is computed by mark-model.c; this file only puts
 * them into the buffer. */
#ifndef COMMHINT_GUI_SOURCEVIEW_H
#define COMMHINT_GUI_SOURCEVIEW_H

#include <gtk/gtk.h>

#include "document.h"

G_BEGIN_DECLS

#define CV_TYPE_SOURCE_PANE (cv_source_pane_get_type())
G_DECLARE_FINAL_TYPE(CvSourcePane, cv_source_pane, CV, SOURCE_PANE, GtkBox)

GtkWidget *cv_source_pane_new(void);

/* Shows a document's files (borrowed until the next call; NULL clears the
 * pane).  Every hint gets its gutter mark. */
void cv_source_pane_set_document(CvSourcePane *p, const struct cv_document *doc);

/* Only these hints (indices into the report's hints) keep their gutter
 * marks, e.g. those the hint list's filter lets through; NULL: all. */
void cv_source_pane_set_visible_hints(CvSourcePane *p, const guint *idx, guint n);

/* Highlights hint `index` (into the report's hints; -1: none): switches to
 * its file, marks its call and related lines, scrolls to the call. */
void cv_source_pane_select_hint(CvSourcePane *p, int index);

/* Shows a recorded file at a line (0: keep the position). */
void cv_source_pane_show_location(CvSourcePane *p, const char *file, guint line);

/* Adds a directory to look for sources in, first; remember: also saved in
 * the settings for the next runs. */
void cv_source_pane_add_source_dir(CvSourcePane *p, const char *dir, gboolean remember);

/* The recorded name of the file shown (NULL if none) and whether it was
 * found on disk. */
const char *cv_source_pane_current_file(CvSourcePane *p, gboolean *found);
/* Where the file shown was read from (cv_source_where), NULL if none is. */
const char *cv_source_pane_current_where(CvSourcePane *p);

/* Whether line (from 1) of the file shown is inside the visible part of the
 * view (for waiting until a scroll has happened). */
gboolean cv_source_pane_line_visible(CvSourcePane *p, guint line);
/* Whether line is where selecting a hint scrolls it: in view, in the upper
 * half unless the file ends below it. */
gboolean cv_source_pane_line_settled(CvSourcePane *p, guint line);

/* Calls fn for every mark on a line of the file shown that is in view:
 * category ("overlap", "aggregate", "collective", "call", "related"), role
 * of a related line ("before", ...; "" otherwise), line, and a point of the
 * line in relative_to's coordinates: x in the text area's left margin
 * (where the line's highlight colour shows, never text), y the line's
 * centre. */
typedef void (*cv_mark_visit_fn)(void *ctx, const char *cat, const char *role, guint line, int x, int y);
void cv_source_pane_visible_marks(CvSourcePane *p, GtkWidget *relative_to, cv_mark_visit_fn fn, void *ctx);

G_END_DECLS

#endif /* COMMHINT_GUI_SOURCEVIEW_H */
