/* prog.c - the tiny 2-rank MPI program whose trace tests/data/damaged/make.sh
 * damages in each way tests/e2e/damaged.sh checks.  Rank 0 sends a block to
 * rank 1 a few times with independent computation around (so `hints` has
 * something to say); both ranks then compute a little after MPI_Finalize,
 * so each rank stream holds, in order: the metadata chunk, the events up to
 * MPI_Finalize, the events after it, and the END chunk.  A file cut inside
 * the third chunk keeps every MPI call.  tests/e2e/faults.sh runs it too:
 * `prog [STATUS]` exits with STATUS (default 0). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64
static double buf[N], work[N], after[N];

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int step = 0; step < 4; step++) {
        for (int i = 0; i < N; i++)
            buf[i] = rank + step + i;
        if (rank == 0)
            MPI_Send(buf, N, MPI_DOUBLE, 1, step, MPI_COMM_WORLD);
        else if (rank == 1)
            MPI_Recv(buf, N, MPI_DOUBLE, 0, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            work[i] = work[i] * 0.5 + step;
        work[0] += buf[N - 1];
    }
    MPI_Finalize();
    for (int i = 0; i < N; i++)
        after[i] = work[i] + 1;
    if (rank == 0)
        printf("prog: %g\n", after[0]);
    return argc > 1 ? atoi(argv[1]) : 0;
}
