/*
 * jacobi_after.c - examples/jacobi.c after applying commhint's hints
 * (docs/case-studies.md).  Same computation, same output for the same
 * arguments.
 *
 * What commhint said about jacobi.c (traced at -O2 on 4 ranks): every
 * blocking MPI_Send and MPI_Recv of the halo exchange can overlap with the
 * computation at lines 138-143, the update of the grid: the receives with
 * "95976 of 96100 executions" (all rows but the two next to the halos), the
 * sends with all of it (they only read the boundary rows, the update writes
 * unew).  What changed, as the hints say:
 *  - exchange_start() posts the two receives and the two sends as
 *    MPI_Irecv/MPI_Isend at the start of the sweep (the even/odd ordering
 *    that kept the blocking version from deadlocking is no longer needed);
 *  - the rows that read no halo (2..nloc-1) are updated while the messages
 *    travel;
 *  - then, per neighbour, MPI_Waitall on its receive and send, and the
 *    boundary row that reads that halo (row 1 after the top, row nloc after
 *    the bottom).  Each wait is followed at once by a statement that reads
 *    what it received, so nothing more can move before it.
 * The residual is a maximum, so updating the rows in another order gives
 * the same value to the last bit.
 *
 * Usage: jacobi_after [n [iters [k]]]     defaults: n=64 iters=50 k=10
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
        fputs("jacobi_after: ", stderr);
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
 * Starts the halo exchange.  u holds nloc owned rows (1..nloc) and two halo
 * rows (0 and nloc+1), each n doubles.  Rank 0's top halo and the last
 * rank's bottom halo are the fixed global boundary rows and are never
 * received.  req[0..1] are the receive and send with the rank above,
 * req[2..3] with the rank below (MPI_REQUEST_NULL where there is none).
 */
static void exchange_start(double *u, int n, int nloc, int rank, int size, MPI_Request req[4])
{
    int up = rank - 1, down = rank + 1;

    for (int r = 0; r < 4; r++)
        req[r] = MPI_REQUEST_NULL;
    if (up >= 0) {
        MPI_Irecv(&u[0], n, MPI_DOUBLE, up, TAG_DOWN, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(&u[1 * n], n, MPI_DOUBLE, up, TAG_UP, MPI_COMM_WORLD, &req[1]);
    }
    if (down < size) {
        MPI_Irecv(&u[(nloc + 1) * n], n, MPI_DOUBLE, down, TAG_UP, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&u[nloc * n], n, MPI_DOUBLE, down, TAG_DOWN, MPI_COMM_WORLD, &req[3]);
    }
}

/* Updates rows i0..i1 of unew from u; returns the largest change, or diff
 * if that is larger. */
static double sweep_rows(const double *u, double *unew, int n, int i0, int i1, double diff)
{
    for (int i = i0; i <= i1; i++) {
        for (int j = 1; j < n - 1; j++) {
            double v = 0.25 * (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                               u[i * n + j - 1] + u[i * n + j + 1]);
            double d = fabs(v - u[i * n + j]);
            if (d > diff)
                diff = d;
            unew[i * n + j] = v;
        }
    }
    return diff;
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
        fprintf(stderr, "jacobi_after: out of memory: rank=%d doubles=%zu\n", rank, 2 * count);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* Global row 0 (top edge, u = 1) is rank 0's top halo row. */
    if (row0 == 1)
        for (int j = 0; j < n; j++)
            u[j] = unew[j] = 1.0;

    double residual = 0.0, first_residual = -1.0, prev = INFINITY;
    for (int it = 0; it < iters; it++) {
        MPI_Request req[4];
        exchange_start(u, n, nloc, rank, size, req);

        /* Rows 2..nloc-1 read no halo row: they run while the halos travel. */
        double diff = sweep_rows(u, unew, n, 2, nloc - 1, 0.0);
        if (nloc == 1) {
            /* The only row reads both halos. */
            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
            diff = sweep_rows(u, unew, n, 1, 1, diff);
        } else {
            if (rank > 0)
                MPI_Waitall(2, &req[0], MPI_STATUSES_IGNORE);
            diff = sweep_rows(u, unew, n, 1, 1, diff);
            if (rank < size - 1)
                MPI_Waitall(2, &req[2], MPI_STATUSES_IGNORE);
            diff = sweep_rows(u, unew, n, nloc, nloc, diff);
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
                    fprintf(stderr, "jacobi_after: residual grew: iter=%d residual=%.6e previous=%.6e\n",
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
