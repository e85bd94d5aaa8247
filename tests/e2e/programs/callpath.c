/* callpath.c - MPI calls made through helpers (tests/e2e/callpath.sh
 * checks the hints by the markers in the comments).
 *
 * Three helpers wrap one MPI_Sendrecv each: exchange_here (same file, not
 * inlined), exchange_there (callpath-other.c) and exchange_inline (always
 * inlined).  Each is called from two places per step:
 *   - the first call (CP-*-FIRST) has independent work after it (the
 *     CP-*-INDEP loop reads and writes only work arrays): its forward
 *     window holds that loop, one overlap hint belongs there;
 *   - the second call (CP-*-SECOND) sends what was computed from the first
 *     one's result right before it, and its result is needed at once: no
 *     window on either side, no hint.
 * Without call paths both calls of a helper are one call site, and the
 * hint is shown on the helper's MPI_Sendrecv line for both.
 * Run on 2 ranks.  Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#include "callpath-other.h"

#define N 4096
#define STEPS 30

static double a[N], ra[N], b[N], rb[N], work[N], work2[N];

static void __attribute__((noinline)) exchange_here(double *s, double *r, int n, int peer)
{
    MPI_Sendrecv(s, n, MPI_DOUBLE, peer, 1, r, n, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, /* CP-HERE-CALL */
                 MPI_STATUS_IGNORE);
}

static inline __attribute__((always_inline)) void exchange_inline(double *s, double *r, int n, int peer)
{
    MPI_Sendrecv(s, n, MPI_DOUBLE, peer, 3, r, n, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, /* CP-INL-CALL */
                 MPI_STATUS_IGNORE);
}

static void step_here(int peer, int t)
{
    for (int i = 0; i < N; i++)
        a[i] = rb[i] * 0.5 + t;
    exchange_here(a, ra, N, peer); /* CP-HERE-FIRST */
    for (int i = 0; i < N; i++)
        work[i] = work[i] * 0.99 + work2[i]; /* CP-HERE-INDEP */
    for (int i = 0; i < N; i++) /* CP-HERE-USE */
        b[i] = ra[i] + 1.0;
    exchange_here(b, rb, N, peer); /* CP-HERE-SECOND */
    for (int i = 0; i < N; i++)
        rb[i] = rb[i] * 0.25;
}

static void step_there(int peer, int t)
{
    for (int i = 0; i < N; i++)
        a[i] = rb[i] * 0.5 + t;
    exchange_there(a, ra, N, peer); /* CP-THERE-FIRST */
    for (int i = 0; i < N; i++)
        work2[i] = work2[i] * 0.98 + work[i]; /* CP-THERE-INDEP */
    for (int i = 0; i < N; i++) /* CP-THERE-USE */
        b[i] = ra[i] + 2.0;
    exchange_there(b, rb, N, peer); /* CP-THERE-SECOND */
    for (int i = 0; i < N; i++)
        rb[i] = rb[i] * 0.25;
}

static void step_inline(int peer, int t)
{
    for (int i = 0; i < N; i++)
        a[i] = rb[i] * 0.5 + t;
    exchange_inline(a, ra, N, peer); /* CP-INL-FIRST */
    for (int i = 0; i < N; i++)
        work[i] = work[i] * 0.97 + 1.0; /* CP-INL-INDEP */
    for (int i = 0; i < N; i++) /* CP-INL-USE */
        b[i] = ra[i] + 3.0;
    exchange_inline(b, rb, N, peer); /* CP-INL-SECOND */
    for (int i = 0; i < N; i++)
        rb[i] = rb[i] * 0.25;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "callpath: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < N; i++) {
        work[i] = i;
        work2[i] = N - i;
        rb[i] = rank + i;
    }
    for (int t = 0; t < STEPS; t++) {
        step_here(1 - rank, t); /* CP-STEP-HERE */
        step_there(1 - rank, t);
        step_inline(1 - rank, t);
    }
    double s = 0;
    for (int i = 0; i < N; i++)
        s += rb[i] + work[i] + work2[i];
    if (rank == 0)
        printf("callpath: sum=%.6e\n", s);
    MPI_Finalize();
    return 0;
}
