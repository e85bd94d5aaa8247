/* clock.c - relating the ranks' monotonic clocks through the samples each
 * rank took at MPI_Init and MPI_Finalize.  Samples and times come from the
 * trace as they are: the arithmetic saturates instead of overflowing, and
 * mapped times stay within +-(2^62 - 1) ns (year 2116), so that callers can
 * subtract two of them. */
#include <string.h>

#include "depgraph.h"

#define CLOCK_LIM ((INT64_C(1) << 62) - 1)

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return a < 0 ? INT64_MIN : INT64_MAX;
    return r;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return a < 0 ? INT64_MIN : INT64_MAX;
    return r;
}

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
    cm->off = sat_sub(dg_clock_delta(a), base);
    if (b->valid && a != b && b->mono_ns > a->mono_ns)
        cm->slope = (double)sat_sub(dg_clock_delta(b), dg_clock_delta(a)) / (double)(b->mono_ns - a->mono_ns);
}

int64_t dg_clock_at(const struct dg_clockmap *cm, uint64_t t)
{
    double d = cm->slope * ((double)t - (double)cm->m0);
    int64_t drift = d != d ? 0 : d >= 0x1p62 ? CLOCK_LIM : d <= -0x1p62 ? -CLOCK_LIM : (int64_t)d;
    int64_t v = sat_add(sat_add(t > (uint64_t)CLOCK_LIM ? CLOCK_LIM : (int64_t)t, cm->off), drift);
    return v > CLOCK_LIM ? CLOCK_LIM : v < -CLOCK_LIM ? -CLOCK_LIM : v;
}
