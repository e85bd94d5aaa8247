/* clock.c - relating the ranks' monotonic clocks through the samples each
 * rank took at MPI_Init and MPI_Finalize. */
#include <string.h>

#include "depgraph.h"

void dg_clockmap_init(struct dg_clockmap *cm, const struct dg_mpilog *log, int64_t base)
{
    const struct dg_clock *a = &log->clock[0], *b = &log->clock[1];
    memset(cm, 0, sizeof *cm);
    if (!a->valid && !b->valid)
        return;
    if (!a->valid)
        a = b;
    cm->ok = true;
    cm->m0 = a->mono_ns;
    cm->off = dg_clock_delta(a) - base;
    if (b->valid && a != b && b->mono_ns > a->mono_ns)
        cm->slope = (double)(dg_clock_delta(b) - dg_clock_delta(a)) / (double)(b->mono_ns - a->mono_ns);
}

int64_t dg_clock_at(const struct dg_clockmap *cm, uint64_t t)
{
    return (int64_t)t + cm->off + (int64_t)(cm->slope * ((double)t - (double)cm->m0));
}
