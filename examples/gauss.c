/*
 * gauss.c - Gaussian elimination and back substitution of a dense n x n
 * system A x = b, after the first case study of the Gordini paper.
 *
 * What it computes: A is generated deterministically and made strictly
 * diagonally dominant (so no pivoting is needed), b = A x_true for a known
 * x_true.  The program eliminates, substitutes back, and checks both the
 * error max|x - x_true| and the residual max|b - A x| (max-norms: exact
 * reductions, so the output does not depend on the number of ranks; every
 * row is updated with the same arithmetic whichever rank owns it).
 *
 * Communication pattern: the rows of the augmented matrix [A | b] are dealt
 * cyclically (row i lives on rank i % size).  At elimination step k the
 * owner of row k sends the pivot row straight from its matrix to every other
 * rank in a loop of MPI_Send; the others MPI_Recv it into a pivot buffer and
 * eliminate their rows below k.  Back substitution is column-oriented: the
 * owner of row i computes x[i] and sends it to every other rank in a loop of
 * MPI_Send, and every rank subtracts x[i] times column i from its b entries.
 *
 * What commhint should find:
 *  - collective communication: both owner loops of MPI_Send (and the
 *    matching receives) are a hand-written MPI_Bcast;
 *  - communication-computation overlap: the sends of pivot row k do not
 *    depend on the step k-1 updates of the owner's rows below row k (row k
 *    is updated first), so row k could be sent as soon as it is updated
 *    ("look-ahead"), which is what the paper exploited; and the sends only
 *    read, so each can also overlap with the owner's own elimination after
 *    it, and the sends of x[i] with the right-hand-side updates after them.
 *
 * Usage: gauss [n]     default: n=64
 */
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG_PIVOT = 1, TAG_X = 2 };

/*
 * Stops the job on a bad configuration that every rank detects: rank 0
 * prints the message and aborts, the others wait in a barrier so that they
 * cannot end the job before the message is out.
 */
static void die_config(int rank, const char *fmt, ...)
{
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fputs("gauss: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Returns argv[idx] as an integer in [min, 100000], or def if it is absent. */
static int arg_int(int argc, char **argv, int idx, int def, int min, int rank)
{
    if (argc <= idx)
        return def;
    char *end;
    long v = strtol(argv[idx], &end, 10);
    if (*end != '\0' || v < min || v > 100000)
        die_config(rank, "bad argument: position=%d value=%s min=%d max=%d", idx, argv[idx], min,
                   100000);
    return (int)v;
}

/* Matrix entry A(i,j): pseudo-random in [0,1) off the diagonal, n+1 on it,
 * so every row is strictly diagonally dominant. */
static double a_entry(int n, int i, int j)
{
    if (i == j)
        return n + 1.0;
    unsigned h = (unsigned)i * 2654435761u ^ (unsigned)j * 40503u;
    h ^= h >> 13;
    h *= 2246822519u;
    h ^= h >> 16;
    return (h % 1000u) / 1000.0;
}

static double x_true(int j)
{
    return 1.0 + 0.1 * (j % 7) - 0.05 * (j % 3);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int n = arg_int(argc, argv, 1, 64, 1, rank);
    int w = n + 1;                                 /* row length of [A | b] */
    int nloc = (n - rank + size - 1) / size;       /* rows i with i % size == rank */

    double *a = malloc((size_t)(nloc > 0 ? nloc : 1) * w * sizeof *a);
    double *pivot = malloc((size_t)w * sizeof *pivot);
    double *x = malloc((size_t)n * sizeof *x);
    double *red = malloc(2 * sizeof *red);         /* Allreduce in/out */
    if (!a || !pivot || !x || !red) {
        fprintf(stderr, "gauss: out of memory: rank=%d n=%d\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* Local row l is global row rank + l*size; column n holds b. */
    for (int l = 0; l < nloc; l++) {
        int i = rank + l * size;
        double bi = 0.0;
        for (int j = 0; j < n; j++) {
            a[l * w + j] = a_entry(n, i, j);
            bi += a[l * w + j] * x_true(j);
        }
        a[l * w + n] = bi;
    }

    /* Forward elimination. */
    for (int k = 0; k < n; k++) {
        int owner = k % size;
        const double *prow;
        if (rank == owner) {
            prow = &a[(k / size) * w];
            for (int dst = 0; dst < size; dst++)
                if (dst != rank)
                    MPI_Send(&prow[k], w - k, MPI_DOUBLE, dst, TAG_PIVOT, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&pivot[k], w - k, MPI_DOUBLE, owner, TAG_PIVOT, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            prow = pivot;
        }
        /* First local row with global index > k (the numerator is >= 1). */
        int l0 = (k + size - rank) / size;
        for (int l = l0; l < nloc; l++) {
            double f = a[l * w + k] / prow[k];
            a[l * w + k] = 0.0;
            for (int j = k + 1; j < w; j++)
                a[l * w + j] -= f * prow[j];
        }
    }

    /* Back substitution, column-oriented: after x[i] is known, every rank
     * removes column i from the right-hand sides of its rows above i. */
    for (int i = n - 1; i >= 0; i--) {
        int owner = i % size;
        if (rank == owner) {
            int l = i / size;
            x[i] = a[l * w + n] / a[l * w + i];
            for (int dst = 0; dst < size; dst++)
                if (dst != rank)
                    MPI_Send(&x[i], 1, MPI_DOUBLE, dst, TAG_X, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&x[i], 1, MPI_DOUBLE, owner, TAG_X, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        for (int l = 0; l < nloc && rank + l * size < i; l++)
            a[l * w + n] -= a[l * w + i] * x[i];
    }

    /* Self-check: error against x_true everywhere, residual of the rows
     * each rank owns (A and b regenerated, since A was overwritten). */
    double err = 0.0, res = 0.0;
    for (int j = 0; j < n; j++)
        err = fmax(err, fabs(x[j] - x_true(j)));
    for (int l = 0; l < nloc; l++) {
        int i = rank + l * size;
        double ax = 0.0, bi = 0.0;
        for (int j = 0; j < n; j++) {
            ax += a_entry(n, i, j) * x[j];
            bi += a_entry(n, i, j) * x_true(j);
        }
        res = fmax(res, fabs(bi - ax));
    }
    red[0] = res;
    MPI_Allreduce(&red[0], &red[1], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    double max_res = red[1];

    int ok = err < 1e-10 && max_res < 1e-9 * n;
    if (rank == 0)
        printf("gauss: n=%d max_error=%.6e residual=%.6e %s\n", n, err, max_res,
               ok ? "OK" : "FAILED");
    if (!ok)
        MPI_Abort(MPI_COMM_WORLD, 1);

    free(a);
    free(pivot);
    free(x);
    free(red);
    MPI_Finalize();
    return 0;
}
