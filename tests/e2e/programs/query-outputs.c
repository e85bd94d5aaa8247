/* query-outputs.c - calls whose guard, peer or count comes from a local MPI
 * query (MPI_Comm_rank, MPI_Comm_size, MPI_Cart_shift, MPI_Type_size),
 * after work that does not need them.
 *
 * No wrapper records those queries (tracelib/mpi-local.h); the pass
 * records the writes of their output arguments, so that the guard
 * `if (rank > 0)` depends on MPI_Comm_rank: a call under it must not start
 * before the rank is known, nor the ring's MPI_Sendrecv before its
 * neighbours are (tests/e2e/hints.sh). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 20000
#define STEPS 6

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double *work = malloc(N * sizeof *work);
    if (!work) {
        fprintf(stderr, "query-outputs: out of memory: doubles=%d\n", N);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < N; i++) /* PRE-WORK: needs no rank */
        work[i] = sin(i * 0.001);
    int rank, size, dsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* RANK */
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_size(MPI_DOUBLE, &dsize);
    double total = 0.0;
    if (rank > 0) {
        double got[64];
        MPI_Recv(got, 64, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* GUARDED-RECV */
        for (int i = 0; i < 64; i++)
            total += got[i];
    } else {
        for (int w = 1; w < size; w++)
            MPI_Send(work, 64 * (int)sizeof(double) / dsize, MPI_DOUBLE, w, 1, MPI_COMM_WORLD);
    }
    /* (MPI_Cart_create synchronises: nothing moves across it) */
    int dims[1] = {0}, periods[1] = {1};
    MPI_Dims_create(size, 1, dims);
    MPI_Comm ring;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int left, right;
    MPI_Cart_shift(ring, 0, 1, &left, &right); /* SHIFT */
    double v = rank, in = 0.0;
    for (int s = 0; s < STEPS; s++) {
        MPI_Sendrecv(&v, 1, MPI_DOUBLE, right, 2, &in, 1, MPI_DOUBLE, left, 2, ring, MPI_STATUS_IGNORE); /* RING */
        v = in + work[s];
        total += v;
    }
    double all = 0.0;
    MPI_Reduce(&total, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("query-outputs: ranks=%d total=%.6f\n", size, all);
    MPI_Comm_free(&ring);
    free(work);
    MPI_Finalize();
    return 0;
}
