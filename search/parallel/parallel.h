/* parallel.h - `commhint hints --parallel`: the ranks of a trace analysed
 * by the P processes of an MPI job (mpiexec -n P).  The public header of
 * libcommhint-parallel.a (search/parallel/driver.c), the only part of
 * commhint that calls MPI; only the command line links it.  The bytes that
 * travel are search/parallel/pack.c's.
 *
 * With search_analyse: pass search_parallel_driver() as the driver of
 * struct search_analysis_opts; process 0 then gets the whole analysis, the
 * other processes an analysis without a report. */
#ifndef COMMHINT_SEARCH_PARALLEL_H
#define COMMHINT_SEARCH_PARALLEL_H

#include "search.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Calls MPI_Init (unless MPI is already initialised) and tells this
 * process's number and the number of processes.  Only for --parallel:
 * nothing else in commhint initialises MPI. */
int search_parallel_begin(int *argc, char ***argv, int *proc, int *nprocs, struct trace_err *err);
/* Calls MPI_Finalize if search_parallel_begin called MPI_Init.  Every
 * process calls it, on every path. */
void search_parallel_end(void);

/* Collective: whether ok holds on every process, and (root_ok, may be
 * NULL) on process 0.  Lets processes that failed before the analysis
 * leave together with the others instead of leaving them waiting.  Without
 * search_parallel_begin it returns ok. */
bool search_parallel_agree(bool ok, bool *root_ok);

/* Collective: analyses the ranks with a stream file, spread over the
 * processes (greedy by stream file size, decided by process 0), and
 * gathers the results on process 0: there *out (malloc'ed array of *n
 * results in rank order, site infos resolved through t as search_run_rank
 * does; the caller frees each result and the array) and *failed (malloc'ed,
 * *nfailed entries in rank order, may be NULL if not wanted).  progress (may
 * be NULL) is called with this process's bytes read and its share's total.
 * On the other processes *n = 0 and *nfailed = 0.  Returns 0, or a negative
 * status with err filled: on process 0 for a failure on any process (a
 * process that fails still takes part in every collective call and sends
 * its status); on another process for its own failure only. */
int search_run_parallel(struct trace *t, const struct search_opts *o, search_progress_fn progress,
                        void *ctx, struct search_rank_result ***out, int *n,
                        struct search_rank_failure **failed, int *nfailed, struct trace_err *err);

/* The driver to pass to search_analyse (struct search_analysis_opts) after
 * search_parallel_begin. */
const struct search_driver *search_parallel_driver(void);

/* The processes of the job as the exchange of a cross-rank stage spread
 * over them (depgraph's struct dg_xchg: nonblocking collectives on the
 * driver's communicator, waited for without busy polling); NULL before
 * search_parallel_begin. */
const struct dg_xchg *search_parallel_xchg(void);

#ifdef __cplusplus
}
#endif

#endif /* COMMHINT_SEARCH_PARALLEL_H */
