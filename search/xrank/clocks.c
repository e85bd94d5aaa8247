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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

/* Offsets of REALTIME - MONOTONIC that differ by more than this between
 * ranks mean different hosts (ns). */
#define SAME_HOST_NS 1000000

/* Spread over processes, each knows the samples of its ranks only: the
 * offsets' range and whether every rank has a sample are combined over
 * the processes, each maps its ranks, and the maps travel to every process
 * (a rank's messages and collectives relate it to any other: P maps of 32
 * bytes each, not the logs). */
struct cm_item {
    int32_t rank;
    struct dg_clockmap cm;
};

static int share_maps(const struct dg_mpilog *const *logs, int P, const struct dg_xchg *x, struct search_clocks *c)
{
    int K = x->nprocs, rc = 0;
    struct dg_bytes *out = dg_bytes_per_proc(K), *in = dg_bytes_per_proc(K);
    if (!out || !in)
        rc = TRACE_ERR_NOMEM;
    for (int r = 0; r < P && rc == 0; r++) {
        if (!logs[r])
            continue;
        struct cm_item it = {r, c->cm[r]};
        for (int q = 0; q < K && rc == 0; q++)
            if (q != x->proc && !dg_bytes_put(&out[q], &it, sizeof it))
                rc = TRACE_ERR_NOMEM;
    }
    if ((rc = x->alltoall(x->ctx, rc, out, in)) >= 0)
        for (int q = (rc = 0); q < K; q++)
            for (size_t off = 0; off + sizeof(struct cm_item) <= in[q].len; off += sizeof(struct cm_item)) {
                struct cm_item it;
                memcpy(&it, in[q].p + off, sizeof it);
                if (it.rank >= 0 && it.rank < P)
                    c->cm[it.rank] = it.cm;
            }
    dg_bytes_per_proc_free(out, K);
    dg_bytes_per_proc_free(in, K);
    return rc;
}

int search_clocks_build_dist(const struct dg_mpilog *const *logs, int P, const struct dg_xchg *x,
                             struct search_clocks *c)
{
    c->mode = SEARCH_CLOCK_MONOTONIC;
    c->sampled = true;
    c->cm = calloc(P > 0 ? (size_t)P : 1, sizeof *c->cm);
    int rc = dg_xchg_agree(x, c->cm ? 0 : TRACE_ERR_NOMEM);
    if (rc < 0) {
        search_clocks_free(c);
        return rc;
    }
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
    if (x->nprocs > 1) {
        /* min of lo, of -hi, of sampled; max of have */
        int64_t v[4] = {have ? lo : INT64_MAX, have ? -hi : INT64_MAX, c->sampled, !have};
        if ((rc = x->allreduce(x->ctx, v, 4, DG_XCHG_MIN)) < 0) {
            search_clocks_free(c);
            return rc;
        }
        have = v[3] == 0;
        lo = v[0];
        hi = -v[1];
        c->sampled = v[2] != 0;
    }
    c->sampled = c->sampled && have;
    if (c->sampled && hi - lo > SAME_HOST_NS) {
        c->mode = SEARCH_CLOCK_REALTIME;
        for (int r = 0; r < P; r++)
            if (logs[r])
                dg_clockmap_init(&c->cm[r], logs[r], lo);
        if (x->nprocs > 1 && (rc = share_maps(logs, P, x, c)) < 0) {
            search_clocks_free(c);
            return rc;
        }
    }
    return 0;
}

int search_clocks_build(const struct dg_mpilog *const *logs, int P, struct search_clocks *c)
{
    return search_clocks_build_dist(logs, P, dg_xchg_serial(), c);
}

void search_clocks_free(struct search_clocks *c)
{
    free(c->cm);
    c->cm = NULL;
}
