/* clocks.c - the one rule that puts the ranks' times on one clock, for the
 * wait states, the savings credited across ranks (overlap partner waits)
 * and the timelines (search/analysis/calls.c):
 *
 *   - every rank samples CLOCK_REALTIME and CLOCK_MONOTONIC together at
 *     MPI_Init and MPI_Finalize (struct dg_clock); the offset real - mono
 *     of a rank's first sample says which host's monotonic clock it ran on;
 *   - ranks whose offsets all lie within 1 ms ran on one host (or on hosts
 *     whose clocks agree that well): their CLOCK_MONOTONIC times are used
 *     as recorded, since one host's monotonic clock is the best clock there
 *     is between its processes;
 *   - otherwise each rank's times are mapped to CLOCK_REALTIME through its
 *     two samples, linear in between (depgraph's dg_clockmap), less the
 *     smallest offset, so that times stay near the monotonic ones;
 *   - a rank with a log but without a sample leaves the ranks' relation
 *     unknown: `sampled` is false, and whoever compares times across ranks
 *     (the wait states) says the clocks are not aligned.
 */
#include <stdlib.h>

#include "search-private.h"

/* Offsets of REALTIME - MONOTONIC that differ by more than this between
 * ranks mean different hosts (ns). */
#define SAME_HOST_NS 1000000

int search_clocks_build(const struct dg_mpilog *const *logs, int P, struct search_clocks *c)
{
    c->mode = SEARCH_CLOCK_MONOTONIC;
    c->sampled = true;
    c->cm = calloc(P > 0 ? (size_t)P : 1, sizeof *c->cm);
    if (!c->cm)
        return TRACE_ERR_NOMEM;
    bool have = false;
    int64_t lo = 0, hi = 0;
    for (int r = 0; r < P; r++) {
        const struct dg_mpilog *log = logs[r];
        if (!log)
            continue;
        const struct dg_clock *s = log->clock[0].valid ? &log->clock[0] : &log->clock[1];
        if (!s->valid) {
            c->sampled = false;
            continue;
        }
        int64_t d = dg_clock_delta(s);
        if (!have || d < lo)
            lo = d;
        if (!have || d > hi)
            hi = d;
        have = true;
    }
    c->sampled = c->sampled && have;
    if (c->sampled && hi - lo > SAME_HOST_NS) {
        c->mode = SEARCH_CLOCK_REALTIME;
        for (int r = 0; r < P; r++)
            if (logs[r])
                dg_clockmap_init(&c->cm[r], logs[r], lo);
    }
    return 0;
}

void search_clocks_free(struct search_clocks *c)
{
    free(c->cm);
    c->cm = NULL;
}
