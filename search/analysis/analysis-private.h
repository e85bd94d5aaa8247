/* analysis-private.h - the state of an analysis (search/analysis/): what
 * analysis.c builds and calls.c indexes for timelines. */
#ifndef COMMHINT_SEARCH_ANALYSIS_PRIVATE_H
#define COMMHINT_SEARCH_ANALYSIS_PRIVATE_H

#include "search-private.h"

/* The calls of one rank (keep_ranks). */
struct an_rank {
    struct search_call *calls;
    uint32_t ncalls;
    uint32_t *call_of;       /* per log position: its call */
    uint32_t *first;         /* per siteinfo entry: log position of its first record
                                (UINT32_MAX: none) */
    struct dg_clockmap cm;   /* the rank's times on the common clock */
    uint64_t unlogged;       /* MPI calls without a record */
    struct search_rank_run run;
};

struct search_analysis {
    int world;
    struct trace *trace;     /* borrowed; NULL from search_analysis_from_results */
    bool owns;               /* the results are freed with the analysis */
    bool leader;             /* this process has the report */
    struct search_rank_result **res; /* [world], NULL if not analysed */
    bool *missing;           /* [world]: no stream file */
    int nres;
    struct search_report *report;
    const struct dg_xchg *stage; /* a driver's processes for the cross-rank stage, or NULL */
    const int *owner;            /* [world]: their ranks (the driver's) */
    /* keep_ranks */
    struct an_rank *ranks;   /* [world] */
    struct dg_match *match;
    int clock;               /* enum search_clock */
    int64_t base;            /* common-clock time of the earliest call (ns) */
    uint64_t end;            /* latest exit, from base (ns) */
};

/* calls.c: matches the logs, chooses the clock and indexes every rank's
 * calls; frees them. */
int search_analysis_calls_build(struct search_analysis *a);
void search_analysis_calls_free(struct search_analysis *a);

#endif /* COMMHINT_SEARCH_ANALYSIS_PRIVATE_H */
