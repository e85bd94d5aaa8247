/* deadlock-symmetric.c - an aggregation that is safe when one rank applies
 * it and deadlocks when every rank does (tests/e2e/hints.sh): ranks in
 * pairs (r, r^1) run the same code: send a (SEND-A), receive the partner's
 * a (RECV-B), send c (SEND-C, not computed from what was received),
 * receive the partner's c (RECV-D).  Merging SEND-A into SEND-C delays a
 * past RECV-B on every rank: each waits for the other's a, which the
 * other now sends only after its own RECV-B.  With the partner running
 * the traced program unchanged, the delay is harmless (the partner sends
 * a before it receives), which is all a check of one rank at a time sees.
 * Run on an even number of ranks. */
#include <mpi.h>
#include <stdio.h>

#define N 16

static double a[N], b[N], c[N], d[N];

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2) {
        if (rank == 0)
            fprintf(stderr, "deadlock-symmetric: run on an even number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int peer = rank ^ 1;
    double sum = 0;
    for (int it = 0; it < 6; it++) {
        for (int i = 0; i < N; i++)
            a[i] = rank + it + i;
        MPI_Send(a, N, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD); /* SEND-A */
        MPI_Recv(b, N, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV-B */
        for (int i = 0; i < N; i++)
            c[i] = rank * it - i;
        MPI_Send(c, N, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD); /* SEND-C */
        MPI_Recv(d, N, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV-D */
        for (int i = 0; i < N; i++)
            sum += b[i] + d[i];
    }
    printf("deadlock-symmetric: rank %d sum=%g\n", rank, sum);
    MPI_Finalize();
    return 0;
}
