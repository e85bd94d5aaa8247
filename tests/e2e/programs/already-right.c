/* already-right.c - a power iteration whose communication is already what
 * it should be: each step multiplies a local block, combines the norm with
 * one MPI_Allreduce and uses it at once, trades a shift value with its
 * neighbours in one MPI_Sendrecv and uses it at once, and broadcasts
 * nothing by hand.
 * The only computation near the calls is bookkeeping (a step counter, a
 * copy of the norm), which overlapping would gain nothing from: by default
 * `commhint hints` must print nothing (tests/e2e/hints.sh), and with --all
 * whatever it finds must be predicted to save less than 1% of the run.
 * Any number of ranks; prints one line on rank 0.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 96
#define STEPS 30

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *a = malloc(N * N * sizeof *a), *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    if (!a || !x || !y)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < N; i++) {
        x[i] = 1.0;
        for (int j = 0; j < N; j++)
            a[i * N + j] = 1.0 / (1.0 + abs(i - j) + rank);
    }
    double norm = 0, last = 0, shift = 0;
    int done = 0, left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int step = 0; step < STEPS; step++) {
        for (int i = 0; i < N; i++) {
            double s = 0;
            for (int j = 0; j < N; j++)
                s += a[i * N + j] * x[j];
            y[i] = s;
        }
        double mine = y[N - 1], theirs = 0;
        done = step + 1;
        MPI_Sendrecv(&mine, 1, MPI_DOUBLE, right, 0, &theirs, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        shift = 1e-3 * theirs;
        double local = 0;
        for (int i = 0; i < N; i++) {
            y[i] += shift;
            local += y[i] * y[i];
        }
        MPI_Allreduce(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        norm = sqrt(norm);
        for (int i = 0; i < N; i++)
            x[i] = y[i] / norm;
        last = norm;
    }
    if (rank == 0)
        printf("already-right: %d steps, norm %.6f\n", done, last);
    free(a);
    free(x);
    free(y);
    MPI_Finalize();
    return 0;
}
