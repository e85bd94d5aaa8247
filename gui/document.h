/* document.h - what the viewer shows, loaded from a trace with the analysis
 * library (the same calls as `commhint hints`); no GTK here, so the view
 * models built on it are tested without a display.
 *
 * Ownership: everything is owned by the document; pointers into it stay
 * valid until cv_document_free. */
#ifndef COMMHINT_GUI_DOCUMENT_H
#define COMMHINT_GUI_DOCUMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "depgraph.h"
#include "search.h"
#include "trace-reader.h"

struct cv_document {
    char *dir;                         /* the trace directory as given */
    struct trace *trace;
    int world_size;
    /* per world rank (world_size entries, NULL for ranks not analysed):
     * overlaps, groups, the MPI log with its times */
    struct search_rank_result **rank;
    struct search_report *report;      /* every hint (no filter), ranked */
    struct dg_match *match;            /* the logs' messages, for the timeline */
    /* time axis: ns since the earliest MPI enter of any rank (each rank's
     * CLOCK_MONOTONIC; ranks of one node share it) */
    uint64_t t0, t1;                   /* earliest enter, latest exit (ns) */
    char *warnings;                    /* ranks left out or cut short, one per line, or NULL */
};

/* Progress of a load: fraction 0..1 and what is being done ("rank 3/8");
 * called from the loading thread. */
typedef void (*cv_progress_fn)(void *ctx, double fraction, const char *what);

/* Loads a trace directory: analyses every rank (search_run_rank), builds
 * the report (search_report_build) and matches the logs.  Returns 0, or a
 * negative trace_status with *error set to one sentence (malloc'ed) for a
 * directory that is not a trace, a damaged trace, or no rank readable.
 * Thread-safe with respect to other documents (meant for a worker thread). */
int cv_document_load(const char *dir, cv_progress_fn progress, void *ctx,
                     struct cv_document **out, char **error);
void cv_document_free(struct cv_document *d);

#endif /* COMMHINT_GUI_DOCUMENT_H */
