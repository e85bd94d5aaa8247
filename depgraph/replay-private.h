/* replay-private.h - what the timed replay (replay.c), its fitting
 * (replay-fit.c) and the ranks' turns on the CPUs of an oversubscribed
 * host (cpu-turns.c) share; depgraph.h holds the replay's interface
 * (docs/prediction.md). */
#ifndef COMMHINT_REPLAY_PRIVATE_H
#define COMMHINT_REPLAY_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "depgraph.h"

/* A rank's turns on the CPUs of its host (cpu-turns.c). */
struct turns {
    bool on;          /* an oversubscribed host, and the rank's calls say it lost its CPU */
    double *off;      /* during the run: the stretches it was off its CPU, [start, end) pairs
                         (ns from the run's start), in order */
    size_t noff;
    double last;      /* the run's last time of the rank */
    uint32_t a, b;    /* after it: slots on, then off, in a row */
    uint32_t phase;   /* slot j is on if (j + phase) mod (a + b) < a */
};

enum {
    TURN_MAX = 16,   /* at most this many slots on or off in a row */
    TURN_SAMPLES = 5 /* stretches off its CPU a rank's own turns are fitted from */
};

/* The run's start: the first MPI_Init return (0: none). */
uint64_t dg_run_start(const struct dg_mpilog *const *logs, int P);

/* The median of v[n] (sorted in place); fallback if n is 0 (replay-fit.c). */
double dg_median(double *v, size_t n, double fallback);

/* Whether the log's calls carry the thread's CPU times. */
bool dg_has_cpu_times(const struct dg_mpilog *log);

/* Per rank (P entries each): whether its calls carry CPU times (over: its
 * host had more ranks than CPUs, or the run asked for them), the share of a
 * CPU each rank of its host has if the trace has more ranks on it than it
 * has CPUs (fair; else 1), and, if host is not NULL, its host: ranks with
 * the same host id share one, numbered from 0; -1 if its log does not say.
 * False if out of memory. */
bool dg_crowded(const struct dg_mpilog *const *logs, int P, bool *over, double *fair, int *host);

/* The values dg_off_stats may need room for, for any of the logs. */
size_t dg_off_capacity(const struct dg_mpilog *const *logs, int P);

/* A rank's stretches off its CPU: their median (from 100 us; tmp holds
 * 2 * log->n values), how many, and the share of its run it had a CPU. */
void dg_off_stats(const struct dg_mpilog *log, double *tmp, double *med, size_t *count, double *share);

/* Slot j of slices of q ns runs from phase + (j - 1) * q. */
uint64_t dg_slot_at(double t, double q, double phase);

/* Each rank's turns (t[P]), slices of q ns from t0; false if out of
 * memory.  dg_turns_free frees them. */
bool dg_turns_of(const struct dg_mpilog *const *logs, int P, double q, uint64_t t0, struct turns *t);
void dg_turns_free(struct turns *t, int P);

/* The first time from t at which the rank of turns k runs, and when it
 * has had w ns of CPU from t (pp: the slice after the run). */
double dg_turns_notice(const struct turns *k, const struct dg_replay_params *pp, double t);
double dg_turns_run(const struct turns *k, const struct dg_replay_params *pp, double t, double w);

#endif
