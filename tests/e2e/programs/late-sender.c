/* late-sender.c - a program with known wait states for `commhint hints
 * --waits` (tests/e2e/waitstates.sh checks them by the markers in the
 * comments; docs/waitstates.md defines them).
 *
 *   - Late sender: rank 1 computes ~20 ms before it sends; rank 0 receives
 *     at once (WS-RECV), so it waits ~20 ms for the sender.  Rank 0 then
 *     updates an array that does not depend on the message (an overlap
 *     hint at WS-RECV, which carries the wait) before it uses the message.
 *   - Imbalance: ROUNDS times, rank 1 computes 30 ms and rank 0 1 ms before
 *     a barrier (WS-BARRIER): rank 0 waits ~29 ms at each, and the ranks'
 *     computation times are far apart (load imbalance near 0.95; rank 0
 *     may lose up to ~80 ms to a loaded machine outside MPI and the
 *     imbalance still stays above 0.5).
 * Run on 2 ranks.  Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define N 256
#define ROUNDS 5

static double a[N], msg[N];

/* Busy computation for about ms milliseconds (time outside MPI is what the
 * tool calls computation; a busy loop keeps the rank on its core). */
static double compute(double ms)
{
    struct timespec t0, t;
    double x = 0, el;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (int i = 0; i < 1000; i++)
            x += 1e-9 * i;
        clock_gettime(CLOCK_MONOTONIC, &t);
        el = (t.tv_sec - t0.tv_sec) * 1e3 + (t.tv_nsec - t0.tv_nsec) / 1e6;
    } while (el < ms);
    return x;
}

int main(int argc, char **argv)
{
    int rank, size;
    double sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "late-sender: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < N; i++)
        a[i] = i;

    /* late sender */
    if (rank == 0) {
        MPI_Recv(msg, N, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* WS-RECV */
        for (int i = 0; i < N; i++)
            a[i] = 0.5 * a[i] + 1.0; /* WS-INDEP */
        for (int i = 0; i < N; i++)
            sum += msg[i] * a[i]; /* WS-USE */
    } else {
        sum += compute(20);
        for (int i = 0; i < N; i++)
            msg[i] = i + 1;
        MPI_Send(msg, N, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD); /* WS-SEND */
    }

    /* imbalanced loop */
    for (int r = 0; r < ROUNDS; r++) {
        sum += compute(rank == 1 ? 30 : 1);
        MPI_Barrier(MPI_COMM_WORLD); /* WS-BARRIER */
    }

    if (rank == 0)
        printf("late-sender: %.3f\n", sum > 0 ? 1.0 : 0.0);
    MPI_Finalize();
    return 0;
}
