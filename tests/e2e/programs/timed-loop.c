/* timed-loop.c - communication timed with clock reads
 * (tests/e2e/clock-reads.sh, docs/dependence.md "Clock reads").  Runs on
 * an even number of ranks; rank r pairs with r ^ 1.
 *   TIMED: each iteration reads the clock, gathers a block from every rank
 *     with MPI_Iallgather and waits for it, reads the clock again and adds
 *     the difference, then computes on other data.  The computation could
 *     run while the gather is in flight, but only by moving the wait past
 *     the second clock read, which would change the time the program
 *     measures: no overlap hint;
 *   UNTIMED: the same loop without the clock reads: the wait can move past
 *     the computation (an overlap hint);
 *   SENDS: even ranks send two small messages to their partner, with a
 *     clock read between them: they stay apart (the clock read is a fence);
 *     then two more without one, which can be one message. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#define N 256
#define ITERS 30

static double sendbuf[N], recvbuf[64 * N], work[4 * N], other[4 * N];
static double a[8], b[8], c[8], d[8];

static double compute(double *v, int it)
{
    double s = 0;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 4 * N; i++) {
            v[i] = v[i] * 0.5 + it + i;
            s += v[i];
        }
    return s;
}

static double timed(int it)
{
    double t0 = MPI_Wtime();
    MPI_Request rq;
    MPI_Iallgather(sendbuf, N, MPI_DOUBLE, recvbuf, N, MPI_DOUBLE, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE); /* TIMED-WAIT */
    double t1 = MPI_Wtime();          /* TIMED-CLOCK */
    double s = compute(work, it);
    return s + (t1 - t0) + recvbuf[it];
}

static double untimed(int it)
{
    MPI_Request rq;
    MPI_Iallgather(sendbuf, N, MPI_DOUBLE, recvbuf, N, MPI_DOUBLE, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE); /* UNTIMED-WAIT */
    double s = compute(other, it);
    return s + recvbuf[it];
}

static double sends(int rank, int partner, int it)
{
    struct timespec ts = {0, 0};
    if (rank % 2 == 0) {
        for (int i = 0; i < 8; i++)
            a[i] = b[i] = c[i] = d[i] = rank + i + it;
        MPI_Send(a, 8, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD); /* CLOCK-1 */
        clock_gettime(CLOCK_MONOTONIC, &ts);                     /* CLOCK-X */
        MPI_Send(b, 8, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD); /* CLOCK-2 */
        MPI_Send(c, 8, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD); /* PLAIN-1 */
        MPI_Send(d, 8, MPI_DOUBLE, partner, 4, MPI_COMM_WORLD); /* PLAIN-2 */
    } else {
        MPI_Recv(a, 8, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(b, 8, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(c, 8, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(d, 8, MPI_DOUBLE, partner, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return a[0] + b[7] + c[3] + d[5] + (double)(ts.tv_nsec > 0);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64 || size % 2) {
        if (rank == 0)
            fprintf(stderr, "timed-loop: needs an even number of ranks, at most 64\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < N; i++)
        sendbuf[i] = rank + i;
    double s = 0;
    for (int it = 0; it < ITERS; it++) {
        s += timed(it);
        s += untimed(it);
        s += sends(rank, rank ^ 1, it);
    }
    double all = 0;
    MPI_Reduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("timed-loop: %d ranks, %s\n", size, all != 0 ? "done" : "zero");
    MPI_Finalize();
    return 0;
}
