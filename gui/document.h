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

#include "search.h"
#include "trace-reader.h"

struct cv_document {
    char *dir;                         /* the trace directory as given */
    struct trace *trace;
    int world_size;
    /* the analysis, with every rank's results and calls kept: the hints,
     * the overlaps and groups per rank (search_analysis_rank), the calls and
     * messages on one clock (search_analysis_call, _part) */
    struct search_analysis *analysis;
    const struct search_report *report; /* every hint (no filter), ranked; the analysis' */
    /* time axis: ns on the analysis' common clock from the earliest MPI
     * call of any rank (search_analysis_time) */
    uint64_t t0, t1;                   /* 0 and the latest exit (ns) */
    char *warnings;                    /* ranks left out or cut short, one per line, or NULL */
};

/* Progress of a load: fraction 0..1 and what is being done ("rank 3/8");
 * called from the loading thread. */
typedef void (*cv_progress_fn)(void *ctx, double fraction, const char *what);

/* Loads a trace directory through the analysis (search_analyse, ranks
 * kept).  Returns 0, or a
 * negative trace_status with *error set to one sentence (malloc'ed) for a
 * directory that is not a trace, a damaged trace, or no rank readable.
 * Thread-safe with respect to other documents (meant for a worker thread). */
int cv_document_load(const char *dir, cv_progress_fn progress, void *ctx,
                     struct cv_document **out, char **error);
void cv_document_free(struct cv_document *d);

#endif /* COMMHINT_GUI_DOCUMENT_H */
