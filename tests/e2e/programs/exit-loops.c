/* exit-loops.c - loops of every shape the pass may record at their exits
 * (clang_pass/ExitRecorded.h) beside ones it must not, for
 * tests/e2e/exit-loops.sh: the trace must decode to the same events as
 * with every iteration recorded (COMMHINT_EXIT_LOOPS=0 at build time).
 * Usage: exit-loops [n [steps]]; prints a checksum on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct pt {
    double x, y;
    int id, pad;
};

/* vectorised at -O2: a vector body and a scalar remainder, both affine */
static void axpy(double *restrict y, const double *restrict x, double a, long n)
{
    for (long i = 0; i < n; i++)
        y[i] += a * x[i];
}

/* a negative step */
static void reverse_scale(double *restrict b, const double *restrict a, long n)
{
    for (long i = n - 1; i >= 0; i--)
        b[i] = 2.0 * a[i];
}

/* a 24-byte stride through an array of structures, two fields */
static void fields(struct pt *p, long n)
{
    for (long i = 0; i < n; i++)
        p[i].y = p[i].x + (double)p[i].id;
}

/* an address that does not move: the same word read every iteration */
static double invariant(const double *restrict a, const double *restrict scale, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += a[i] * *(volatile const double *)scale;
    return s;
}

/* an early exit: two ways out */
static long find_negative(const double *a, long n)
{
    for (long i = 0; i < n; i++)
        if (a[i] < 0)
            return i;
    return -1;
}

/* indirect but strided after all (idx[i] = 31 i + 5 modulo n): each
 * iteration stores its address; the loop's run with a column ends after
 * three equal differences and the search finds the strided run */
static double gather(const double *x, const int *idx, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s += x[idx[i]];
    return s;
}

/* rows of a sparse product: random columns, two irregular addresses per
 * iteration (stored into the loop's buffer: runs with a column), rows of
 * 1 to 300 nonzeros (past the 128 iterations the buffer holds) */
static void sparse_rows(double *y, double *z, const double *x, const int *col, long n)
{
    long j = 0;
    for (long r = 0; j < n; r++) {
        long end = j + 1 + (r * 37) % 300;
        double s = 0;
        if (end > n)
            end = n;
        for (; j < end; j++) {
            s += x[col[j]];
            z[col[j]] += 1.0;
        }
        y[r % n] += s;
    }
}

/* a call in the body: recorded per iteration */
static __attribute__((noinline)) double twice(double v)
{
    return 2 * v;
}

static void with_call(double *a, long n)
{
    for (long i = 0; i < n; i++)
        a[i] = twice(a[i]);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 1003;
    int steps = argc > 2 ? atoi(argv[2]) : 4;
    if (n < 10 || steps < 1)
        MPI_Abort(MPI_COMM_WORLD, 2);
    double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    int *idx = malloc((size_t)n * sizeof *idx), *col = malloc((size_t)n * sizeof *col);
    struct pt *p = malloc((size_t)n * sizeof *p);
    double *z = calloc((size_t)n, sizeof *z);
    double scale = 0.5, sum = 0, all = 0;
    unsigned long rng = 88172645463325252ul + (unsigned long)rank;
    if (!a || !b || !idx || !col || !p || !z)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0; i < n; i++) {
        a[i] = (double)((i * 7 + rank) % 13);
        b[i] = 1;
        idx[i] = (int)((i * 31 + 5) % n);
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        col[i] = (int)(rng % (unsigned long)n);
        p[i].x = (double)i;
        p[i].id = (int)(i % 5);
    }
    for (int step = 0; step < steps; step++) {
        axpy(b, a, 0.25, n);
        reverse_scale(a, b, n);
        fields(p, n);
        sum += invariant(a, &scale, n);
        sum += (double)find_negative(a, n);
        sum += gather(b, idx, n);
        sparse_rows(a, z, b, col, n);
        /* short loops, 1 to 5 iterations, inside a long outer loop */
        for (long r = 0; r + 5 <= n; r += 5)
            axpy(b + r, a + r, 0.5, 1 + r % 5);
        /* 1 and 2 iterations: before the runtime looks for a run */
        axpy(b, a, 1.0, 1);
        axpy(b + 1, a + 1, 1.0, 2);
        with_call(b, n / 10);
        a[n / 2] = -1.0 - step;
        sum += (double)find_negative(a, n);
        MPI_Allreduce(MPI_IN_PLACE, b, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    for (long i = 0; i < n; i++)
        sum += a[i] + b[i] + p[i].y + z[i];
    MPI_Reduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("exit-loops: n=%ld sum=%.6e\n", n, all);
    free(a);
    free(b);
    free(idx);
    free(col);
    free(z);
    free(p);
    MPI_Finalize();
    return 0;
}
