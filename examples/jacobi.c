/*
 * jacobi.c - Jacobi iteration for the Laplace equation on an n x n grid.
 *
 * What it computes: u = 1 on the top edge, u = 0 on the other three edges,
 * and Jacobi sweeps u'(i,j) = (u(i-1,j) + u(i+1,j) + u(i,j-1) + u(i,j+1)) / 4
 * over the interior points.  Every k sweeps the ranks agree on the residual,
 * the largest change of any point in the last sweep (max-norm, so the
 * reduction is exact and the printed value does not depend on the number of
 * ranks).
 *
 * Communication pattern: 1-D decomposition of the grid into blocks of rows.
 * Each sweep starts with a halo exchange by BLOCKING MPI_Send/MPI_Recv with
 * the ranks above and below; even ranks send first and odd ranks receive
 * first, so no cycle of blocking sends can form and it cannot deadlock.
 * The residual is combined with MPI_Allreduce every k sweeps.
 *
 * What commhint should find: communication-computation overlap.  The update
 * of every row except the first and last local row reads no halo row, so it
 * can overlap with the halo receives (forward search from the receive from
 * the rank below finds the update of rows 1..nloc-1); the sends only read
 * the boundary rows, which the update does not write (it writes unew), so
 * the whole update can follow them; and the part of the previous sweep
 * that does not write row 1 can precede the send of row 1 (backward
 * search).  The fix is the usual one: MPI_Isend/MPI_Irecv, update the inner
 * rows, MPI_Waitall, update the two boundary rows.
 *
 * Usage: jacobi [n [iters [k]]]     defaults: n=64 iters=50 k=10
 */
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG_UP = 1, TAG_DOWN = 2 };

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
        fputs("jacobi: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Returns argv[idx] as an integer in [min, 1000000], or def if it is absent. */
static int arg_int(int argc, char **argv, int idx, int def, int min, int rank)
{
    if (argc <= idx)
        return def;
    char *end;
    long v = strtol(argv[idx], &end, 10);
    if (*end != '\0' || v < min || v > 1000000)
        die_config(rank, "bad argument: position=%d value=%s min=%d max=%d", idx, argv[idx], min,
                   1000000);
    return (int)v;
}

/*
 * Exchanges halo rows.  u holds nloc owned rows (1..nloc) and two halo rows
 * (0 and nloc+1), each n doubles.  Rank 0's top halo and the last rank's
 * bottom halo are the fixed global boundary rows and are never received.
 */
static void exchange(double *u, int n, int nloc, int rank, int size)
{
    int up = rank - 1, down = rank + 1;
    double *first = &u[1 * n], *last = &u[nloc * n];
    double *halo_top = &u[0], *halo_bot = &u[(nloc + 1) * n];

    if (rank % 2 == 0) {
        if (up >= 0)
            MPI_Send(first, n, MPI_DOUBLE, up, TAG_UP, MPI_COMM_WORLD);
        if (down < size)
            MPI_Recv(halo_bot, n, MPI_DOUBLE, down, TAG_UP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (down < size)
            MPI_Send(last, n, MPI_DOUBLE, down, TAG_DOWN, MPI_COMM_WORLD);
        if (up >= 0)
            MPI_Recv(halo_top, n, MPI_DOUBLE, up, TAG_DOWN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        if (down < size)
            MPI_Recv(halo_bot, n, MPI_DOUBLE, down, TAG_UP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(first, n, MPI_DOUBLE, up, TAG_UP, MPI_COMM_WORLD);
        MPI_Recv(halo_top, n, MPI_DOUBLE, up, TAG_DOWN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (down < size)
            MPI_Send(last, n, MPI_DOUBLE, down, TAG_DOWN, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int n = arg_int(argc, argv, 1, 64, 3, rank);
    int iters = arg_int(argc, argv, 2, 50, 1, rank);
    int k = arg_int(argc, argv, 3, 10, 1, rank);
    if (size > n - 2)
        die_config(rank, "more ranks than interior rows: n=%d ranks=%d", n, size);

    /* Block distribution of the n-2 interior rows; the first (n-2)%size
     * ranks get one row more. */
    int rows = n - 2;
    int nloc = rows / size + (rank < rows % size);
    int row0 = 1 + rank * (rows / size) + (rank < rows % size ? rank : rows % size);

    size_t count = (size_t)(nloc + 2) * n;
    double *u = calloc(count, sizeof *u);
    double *unew = calloc(count, sizeof *unew);
    double *red = malloc(2 * sizeof *red);   /* Allreduce in/out: local, global change */
    if (!u || !unew || !red) {
        fprintf(stderr, "jacobi: out of memory: rank=%d doubles=%zu\n", rank, 2 * count);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Global row 0 (top edge, u = 1) is rank 0's top halo row. */
    if (row0 == 1)
        for (int j = 0; j < n; j++)
            u[j] = unew[j] = 1.0;

    double residual = 0.0, first_residual = -1.0, prev = INFINITY;
    for (int it = 0; it < iters; it++) {
        exchange(u, n, nloc, rank, size);

        double diff = 0.0;
        for (int i = 1; i <= nloc; i++) {
            for (int j = 1; j < n - 1; j++) {
                double v = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                                   u[i * n + j - 1] + u[i * n + j + 1]);
                double d = fabs(v - u[i * n + j]);
                if (d > diff)
                    diff = d;
                unew[i * n + j] = v;
            }
        }
        double *t = u;
        u = unew;
        unew = t;

        if ((it + 1) % k == 0 || it == iters - 1) {
            red[0] = diff;
            MPI_Allreduce(&red[0], &red[1], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            residual = red[1];
            /* Self-check: the Jacobi matrix has max-norm <= 1, so the
             * change per sweep can only grow by rounding. */
            if (!isfinite(residual) || residual > prev + 1e-12) {
                if (rank == 0)
                    fprintf(stderr, "jacobi: residual grew: iter=%d residual=%.6e previous=%.6e\n",
                            it + 1, residual, prev);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (first_residual < 0)
                first_residual = residual;
            prev = residual;
        }
    }

    if (rank == 0)
        printf("jacobi: n=%d iters=%d residual=%.6e first_residual=%.6e\n", n, iters,
               residual, first_residual);

    free(u);
    free(unew);
    free(red);
    MPI_Finalize();
    return 0;
}
