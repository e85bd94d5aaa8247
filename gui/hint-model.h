/* hint-model.h - the hint list's logic without GTK: which hints pass the
 * filter bar (kind, rank, minimum saving), in which order they are listed
 * (by estimated saving, kind, file, call or ranks), and how their cells
 * read.  The GTK list (hintlist.c) only copies these into a GtkListStore
 * and calls cv_hint_compare from its sort functions, so the whole
 * behaviour is unit-tested without a display (tests/unit/test-gui-models.c).
 *
 * Hints are the report's (struct search_hint, borrowed); a hint is named by
 * its index in the report's ranked array, which is also its rank order
 * minus one. */
#ifndef COMMHINT_GUI_HINT_MODEL_H
#define COMMHINT_GUI_HINT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "search.h"

/* What the filter bar lets through. */
struct cv_hint_filter {
    unsigned kinds;         /* bit (1 << enum search_hint_kind); 0 = every kind */
    int rank;               /* only hints holding on this world rank; -1 = every rank */
    uint64_t min_saving_ns; /* only hints saving at least this (ns); 0 = all */
};

/* Sort keys of the list's columns.  Each is an ascending total order; the
 * list shows it reversed when sorted descending. */
enum cv_hint_sort_key {
    CV_SORT_ORDER = 0, /* position in the ranked list (the report's order) */
    CV_SORT_SAVING,    /* estimated saving; ties: the ranked order, so that
                          descending by saving IS the ranked order */
    CV_SORT_KIND,      /* kind (overlap, aggregate, collective), then the ranked order */
    CV_SORT_FILE,      /* file, line, column, then the ranked order */
    CV_SORT_CALL,      /* MPI call name, then the ranked order */
    CV_SORT_RANKS,     /* number of ranks, then the lowest rank, then the ranked order */
    CV_SORT_NKEYS
};

/* Whether hint h passes filter f (f NULL: every hint passes). */
bool cv_hint_filter_match(const struct search_hint *h, const struct cv_hint_filter *f);

/* Compares hints a and b, at positions ia and ib of the ranked list, by
 * key: negative, 0 (only when ia == ib) or positive. */
int cv_hint_compare(const struct search_hint *a, uint32_t ia, const struct search_hint *b, uint32_t ib,
                    int key);

/* The rows of the list: the indices (into hints, n entries) of the hints
 * that pass f, sorted by key, reversed if descending.  idx must hold n
 * entries; returns how many were written. */
uint32_t cv_hint_model_rows(const struct search_hint *hints, uint32_t n, const struct cv_hint_filter *f,
                            int key, bool descending, uint32_t *idx);

/* ---- cell text (kind names and durations: search_kind_name, search_format_ns) ---- */

/* A sorted rank list compressed: "0-3, 5" ("" for none).  Returns buf. */
char *cv_format_ranks(char *buf, size_t size, const int *ranks, int n);

/* The last component of a path ("" for NULL).  Borrowed from path. */
const char *cv_basename(const char *path);

/* "jacobi.c:84:13" (basename, line, column; "??" for an unknown file).
 * Returns buf. */
char *cv_hint_location(char *buf, size_t size, const struct search_hint *h);

#endif /* COMMHINT_GUI_HINT_MODEL_H */
