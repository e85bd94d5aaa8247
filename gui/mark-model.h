/* mark-model.h - which lines of which source file get which marks, without
 * GTK: the source pane (sourceview.c) turns these into GtkSourceMarks, and
 * the unit tests check them without a display.
 *
 * Two sets are computed:
 *   - the gutter marks of the hints: each hint's call line gets a mark of
 *     its kind (overlap, aggregate, collective), one per hint, so a line
 *     with two hints has two marks (and two tooltips);
 *   - the highlight of the selected hint: its call line (CV_MARK_CALL),
 *     every related line (CV_MARK_RELATED with its role: statements that
 *     can move into the call's window, the member sends of an aggregation,
 *     the calls of a collective pattern), the frames of its call path below
 *     it (CV_MARK_PATH) and, for overlap, where its fix starts the
 *     nonblocking call and waits for it (CV_MARK_FIX), in whatever file
 *     each is.
 * Marks are grouped by file (as recorded in the trace), sorted by line.
 *
 * Ownership: a struct cv_marks owns its arrays; file names are borrowed
 * from the hints (the trace), so they live as long as the document. */
#ifndef COMMHINT_GUI_MARK_MODEL_H
#define COMMHINT_GUI_MARK_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "search.h"

enum cv_mark_cat {
    /* gutter marks at a hint's call line: the same numbers as enum
     * search_hint_kind */
    CV_MARK_OVERLAP = SEARCH_HINT_OVERLAP,
    CV_MARK_AGGREGATE = SEARCH_HINT_AGGREGATE,
    CV_MARK_COLLECTIVE = SEARCH_HINT_COLLECTIVE,
    /* the selected hint */
    CV_MARK_CALL = 10,    /* its MPI call (where the hint is shown) */
    CV_MARK_RELATED = 11, /* one of its related lines (role says which kind) */
    CV_MARK_PATH = 12,    /* a frame of its call path below where it is shown (the
                             helper's MPI call, the calls in between) */
    CV_MARK_FIX = 13      /* where its fix edits (role: CV_FIX_START, CV_FIX_WAIT) */
};

/* Roles of a CV_MARK_FIX mark. */
enum cv_fix_role { CV_FIX_START = 1, CV_FIX_WAIT = 2 };

struct cv_mark {
    uint32_t line; /* from 1 */
    int cat;       /* enum cv_mark_cat */
    int role;      /* CV_MARK_RELATED: enum search_related_role; CV_MARK_FIX: enum
                      cv_fix_role; else 0 */
    uint32_t hint; /* index of the hint in the array it came from */
};

struct cv_file_marks {
    const char *file; /* as recorded in the trace; "" if unknown */
    uint32_t n;
    struct cv_mark *marks; /* by line, then category, role, hint */
};

struct cv_marks {
    uint32_t nfiles;
    struct cv_file_marks *files; /* by file name */
};

/* The gutter marks of hints[idx[0..nidx-1]] (idx NULL: every one of the n
 * hints).  A hint without a line gets no mark.  Returns 0 or
 * TRACE_ERR_NOMEM (out left empty). */
int cv_marks_for_hints(const struct search_hint *hints, uint32_t n, const uint32_t *idx, uint32_t nidx,
                       struct cv_marks *out);

/* The highlight of hint h (its index, for the marks' hint field): the call
 * line and the related lines, duplicates (same file, line and role)
 * merged.  h NULL gives an empty set.  Returns 0 or TRACE_ERR_NOMEM. */
int cv_marks_for_selection(const struct search_hint *h, uint32_t index, struct cv_marks *out);

/* The marks of one file (NULL if it has none).  Borrowed. */
const struct cv_file_marks *cv_marks_file(const struct cv_marks *m, const char *file);

/* Frees the arrays; m is left empty and can be reused. */
void cv_marks_free(struct cv_marks *m);

/* "overlap", "aggregate", "collective", "call", "related". */
const char *cv_mark_cat_name(int cat);

#endif /* COMMHINT_GUI_MARK_MODEL_H */
