/* deadlock.c - the aggregation a single-rank analysis would propose and that
 * deadlocks (tests/e2e/hints.sh): rank 0 sends x to rank 1 (SEND-X),
 * receives y from rank 1 (RECV-Y), computes z from y and sends z to rank 1
 * (SEND-Z), while rank 1 receives x (RECV-X), computes y from it and sends
 * y (SEND-Y).  Merging SEND-X into SEND-Z would delay x past RECV-Y, which
 * waits for y, which rank 1 computes from x.  Run on 2 ranks. */
#include <mpi.h>
#include <stdio.h>

#define N 8

static double x[N], y[N], z[N];

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "deadlock: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int it = 0; it < 5; it++) {
        if (rank == 0) {
            for (int i = 0; i < N; i++)
                x[i] = it + i;
            MPI_Send(x, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD); /* SEND-X */
            MPI_Recv(y, N, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV-Y */
            for (int i = 0; i < N; i++)
                z[i] = 2 * y[i];
            MPI_Send(z, N, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD); /* SEND-Z */
        } else {
            MPI_Recv(x, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV-X */
            for (int i = 0; i < N; i++)
                y[i] = x[i] + 1;
            MPI_Send(y, N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD); /* SEND-Y */
            MPI_Recv(z, N, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    if (rank == 1)
        printf("deadlock: z0=%g\n", z[0]);
    MPI_Finalize();
    return 0;
}
