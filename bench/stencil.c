/* bench/stencil.c - the trace generator of bench/analysis.sh: a 1-D
 * three-point stencil with a blocking halo exchange every sweep, built with
 * commhint so that its traced run writes a trace of a chosen length (at
 * -O2 about 0.5 computation events per grid point and sweep, per rank:
 * one event covers two points of the update loop, and the copy back is one
 * memcpy per sweep; bench/analysis.sh measures the rate before choosing
 * the sweeps).  Usage: stencil points-per-rank sweeps.
 * Prints one line on rank 0: a checksum and the seconds the sweeps took
 * (the slowest rank's, from the barrier before them; bench/irregular.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    long sweeps = argc > 2 ? atol(argv[2]) : 10;
    if (n < 4 || sweeps < 1) {
        if (rank == 0)
            fprintf(stderr, "stencil: bad arguments: points=%ld sweeps=%ld\n", n, sweeps);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *u = calloc((size_t)n + 2, sizeof *u), *v = calloc((size_t)n + 2, sizeof *v);
    if (!u || !v)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 1; i <= n; i++)
        u[i] = (double)((rank * n + i) % 97);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long s = 0; s < sweeps; s++) {
        MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[n + 1], 1, MPI_DOUBLE, right, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (long i = 1; i <= n; i++)
            v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
        for (long i = 1; i <= n; i++)
            u[i] = v[i];
    }
    double sum = 0, all = 0;
    for (long i = 1; i <= n; i++)
        sum += u[i];
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Reduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("stencil: points=%ld sweeps=%ld sum=%.6e seconds=%.6f\n", n * size, sweeps, all, tmax);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
