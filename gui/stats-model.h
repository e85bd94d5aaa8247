/* stats-model.h - the statistics pane's numbers without GTK: time in MPI
 * per call site (summed over ranks, largest first) and, per rank, its MPI
 * time against its computation time.  stats.c draws them; the unit tests
 * (tests/unit/test-timeline-model.c) check them on fabricated documents.
 *
 * What is counted: every MPI call of the ranks' logs once (a Sendrecv or a
 * Wait completing several receives is one call), with its measured time
 * (t_exit - t_enter).  MPI_Init(_thread) and MPI_Finalize are left out, as
 * mpiP does: start-up and shut-down are not something to change, and
 * MPI_Init alone often takes longer than the run.  A rank's run is from the
 * end of MPI_Init to the start of MPI_Finalize (without them: its first MPI
 * enter to its last MPI exit); its computation time is the run less its
 * MPI time.
 *
 * Ownership: a struct cv_stats_model owns its arrays; file names are
 * borrowed from the document (the trace). */
#ifndef COMMHINT_GUI_STATS_MODEL_H
#define COMMHINT_GUI_STATS_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "document.h"

/* One MPI call site: the same call at the same source location on any rank. */
struct cv_stats_site {
    uint16_t call;        /* enum cht_mpi_call */
    const char *file;     /* "" if unknown */
    const char *func;     /* "" if unknown */
    uint32_t line, col;   /* 0 if unknown */
    uint64_t time_ns;     /* time in the call, summed over ranks */
    uint64_t max_rank_ns; /* the largest one rank spent in it */
    uint64_t calls;       /* calls, summed over ranks */
    int nranks;           /* ranks that made it */
};

struct cv_stats_rank {
    int rank;         /* world rank */
    bool present;     /* analysed (else the numbers are 0) */
    uint64_t run_ns;  /* from MPI_Init's end to MPI_Finalize's start */
    uint64_t mpi_ns;  /* in MPI calls during the run */
    uint64_t comp_ns; /* run_ns - mpi_ns */
    uint64_t calls;   /* MPI calls during the run */
};

struct cv_stats_model {
    uint32_t nsites;
    struct cv_stats_site *sites; /* by time_ns, largest first; ties by call, file, line, col */
    int nranks;                  /* world size */
    struct cv_stats_rank *ranks; /* by world rank */
    uint64_t mpi_ns;             /* sum of the sites' time */
    uint64_t run_ns;             /* sum of the ranks' runs */
    uint64_t max_run_ns;         /* the longest rank run */
};

/* Aggregates doc.  Returns 0 or TRACE_ERR_NOMEM / TRACE_ERR_ARG; *out is
 * freed with cv_stats_model_free. */
int cv_stats_model_build(const struct cv_document *doc, struct cv_stats_model **out);
void cv_stats_model_free(struct cv_stats_model *s);

/* "MPI_Recv jacobi.c:84" (the file's base name; "MPI_Recv (unknown site)"). */
char *cv_stats_site_label(const struct cv_stats_site *s, char *buf, size_t size);

#endif /* COMMHINT_GUI_STATS_MODEL_H */
