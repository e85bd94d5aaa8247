/* bench/spmv.c - an irregular benchmark of bench/irregular.sh: power
 * iteration over a random sparse matrix in CSR form.  Each rank owns `rows`
 * rows of an n x n matrix (n = rows * ranks) with `nnz` nonzeros per row at
 * random columns; every iteration computes its rows of y = A x (reads of
 * x at random indices), normalises with an MPI_Allreduce and gathers the
 * new x with an MPI_Allgather.  About 3 traced accesses per nonzero and
 * iteration (column index, value, x) plus one write per row.
 * Usage: spmv rows-per-rank nonzeros-per-row iterations.
 * Prints one line on rank 0: the result and the seconds the iterations took
 * (the slowest rank's, from the barrier before them). */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long rows = argc > 1 ? atol(argv[1]) : 100000;
    long nnz = argc > 2 ? atol(argv[2]) : 8;
    long iters = argc > 3 ? atol(argv[3]) : 10;
    if (rows < 1 || nnz < 1 || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "spmv: bad arguments: rows=%ld nnz=%ld iterations=%ld\n", rows, nnz, iters);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long n = rows * size;
    long *rowptr = malloc((size_t)(rows + 1) * sizeof *rowptr);
    int *col = malloc((size_t)(rows * nnz) * sizeof *col);
    double *val = malloc((size_t)(rows * nnz) * sizeof *val);
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)rows * sizeof *y);
    if (!rowptr || !col || !val || !x || !y)
        MPI_Abort(MPI_COMM_WORLD, 1);
    rng += (uint64_t)rank * 0x9e3779b97f4a7c15ull;
    for (long r = 0; r <= rows; r++)
        rowptr[r] = r * nnz;
    for (long j = 0; j < rows * nnz; j++) {
        col[j] = (int)(next() % (uint64_t)n);
        val[j] = (double)(next() % 1000) / 1000.0 + 0.001;
    }
    for (long i = 0; i < n; i++)
        x[i] = 1.0;
    double lambda = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        double local = 0, norm2 = 0;
        for (long r = 0; r < rows; r++) {
            double s = 0;
            for (long j = rowptr[r]; j < rowptr[r + 1]; j++)
                s += val[j] * x[col[j]];
            y[r] = s;
            local += s * s;
        }
        MPI_Allreduce(&local, &norm2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        lambda = sqrt(norm2);
        for (long r = 0; r < rows; r++)
            y[r] /= lambda;
        MPI_Allgather(y, (int)rows, MPI_DOUBLE, x, (int)rows, MPI_DOUBLE, MPI_COMM_WORLD);
    }
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("spmv: n=%ld nnz/row=%ld iterations=%ld lambda=%.6f seconds=%.6f\n", n, nnz, iters, lambda, tmax);
    free(rowptr);
    free(col);
    free(val);
    free(x);
    free(y);
    MPI_Finalize();
    return 0;
}
