/* rows.c - loop nests whose inner loop is recorded at its exit with
 * irregular addresses, for tests/e2e/rows.sh: the runtime codes such rows
 * as CHT_REC_ROWS records (the outer loop's records between the inner
 * loops, each row's trip count and the irregular addresses' differences),
 * and the trace must decode to the same events as with every iteration
 * recorded (COMMHINT_EXIT_LOOPS=0) and as without rows (COMMHINT_ROWS=0).
 * Usage: rows [rows-per-rank [sweeps [spmv]]] (spmv: the first nest only);
 * prints a checksum on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long rng = 88172645463325252ull;
static unsigned long long next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* a sparse product's rows (CSR): rows of 0 to 20 nonzeros (empty rows end
 * a record: their outer records come twice between two inner loops), one
 * irregular address */
static double spmv(double *y, const double *x, const long *rowptr, const int *col, const double *val, long rows)
{
    double s2 = 0;
    for (long r = 0; r < rows; r++) {
        double s = 0;
        for (long j = rowptr[r]; j < rowptr[r + 1]; j++)
            s += val[j] * x[col[j]];
        y[r] = s;
        s2 += s * s;
    }
    return s2;
}

/* two irregular addresses per nonzero, rows taken in a permuted order (the
 * outer records' addresses do not move by strides: every row its own
 * record, or none) */
static void scatter(double *z, const double *x, const long *rowptr, const int *col, const long *perm, long rows)
{
    for (long k = 0; k < rows; k++) {
        long r = perm[k];
        for (long j = rowptr[r]; j < rowptr[r + 1]; j++)
            z[col[j]] += 0.5 * x[col[j]];
    }
}

/* rows of a fixed length read from a structure of two columns, the outer
 * loop's stride changing half way (two records) and one row past the 128
 * iterations a loop's buffer holds */
static double blocks(const double *x, const int *col, long rows, long len)
{
    double s = 0;
    for (long r = 0; r < rows; r++) {
        long step = r < rows / 2 ? len : len + 3, from = r < rows / 2 ? r * step : (rows / 2) * len + (r - rows / 2) * step;
        long n = r == rows / 3 ? 200 : len;
        for (long j = from; j < from + n; j++)
            s += x[col[j]] * (double)j;
    }
    return s;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long rows = argc > 1 ? atol(argv[1]) : 3000, sweeps = argc > 2 ? atol(argv[2]) : 3;
    int all = argc <= 3;
    long n = rows * size, nnz = 0;
    long *rowptr = malloc((size_t)(rows + 1) * sizeof *rowptr), *perm = malloc((size_t)rows * sizeof *perm);
    rng += (unsigned long long)rank * 0x9e3779b97f4a7c15ull;
    rowptr[0] = 0;
    for (long r = 0; r < rows; r++)
        rowptr[r + 1] = rowptr[r] + (r % 97 == 5 ? 0 : (long)(next() % 21));
    nnz = rowptr[rows] + 30 * rows + 400;
    int *col = malloc((size_t)nnz * sizeof *col);
    double *val = malloc((size_t)nnz * sizeof *val), *x = malloc((size_t)n * sizeof *x);
    double *y = malloc((size_t)rows * sizeof *y), *z = calloc((size_t)n, sizeof *z);
    if (!rowptr || !perm || !col || !val || !x || !y || !z)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long j = 0; j < nnz; j++) {
        col[j] = (int)(next() % (unsigned long long)n);
        val[j] = (double)(next() % 1000) / 1000.0;
    }
    for (long r = 0; r < rows; r++)
        perm[r] = (r * 7919) % rows;
    for (long i = 0; i < n; i++)
        x[i] = 1.0 + (double)(i % 7);
    double sum = 0;
    for (long s = 0; s < sweeps; s++) {
        double local = spmv(y, x, rowptr, col, val, rows), norm = 0;
        MPI_Allreduce(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sum += norm;
        if (all) {
            scatter(z, x, rowptr, col, perm, rows);
            sum += blocks(x, col, rows, 9);
        }
        MPI_Allgather(y, (int)rows, MPI_DOUBLE, x, (int)rows, MPI_DOUBLE, MPI_COMM_WORLD);
    }
    for (long i = 0; i < n; i++)
        sum += z[i] * 1e-9;
    double total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rows: n=%ld sum=%.6e\n", n, total);
    free(rowptr);
    free(perm);
    free(col);
    free(val);
    free(x);
    free(y);
    free(z);
    MPI_Finalize();
    return 0;
}
