/*
 * gauss_after.c - examples/gauss.c after applying commhint's hints
 * (docs/case-studies.md).  Same computation, same output for the same
 * arguments.
 *
 * What commhint said about gauss.c (traced at -O2 on 4 ranks), by
 * estimated saving:
 *  - overlap: the MPI_Recv of pivot row k can move before the receiver's
 *    elimination of step k-1 where that does not read the pivot buffer, and
 *    the MPI_Send calls of pivot row k can run before the owner's own
 *    elimination of step k (they only read row k): the paper's look-ahead;
 *  - collective: the loop of MPI_Send of row k is an MPI_Bcast, and so is
 *    the loop of MPI_Send of x[i] in back substitution;
 *  - overlap, smaller: the sends and receives of x[i].
 * What changed (the overlap hints on the pivot rows):
 *  - look-ahead: at step k the owner of row k+1 eliminates that row first
 *    and starts its MPI_Isend calls at once, then eliminates its other
 *    rows; every other rank posts the MPI_Irecv of row k+1 (into the second
 *    of two pivot buffers) before it eliminates with row k, and waits for
 *    it at the start of step k+1.  The sends are waited for once, before
 *    back substitution, the first code that writes a sent row again (its
 *    right-hand side).  A pivot row goes only to the ranks that have rows
 *    below it: commhint showed that the other receives (of the last rows)
 *    could wait past the end of the program, i.e. nothing reads them.
 * Not applied:
 *  - MPI_Bcast for the pivot rows: with the look-ahead it would have to be
 *    MPI_Ibcast, which commhint does not trace, so the result could not be
 *    checked with it;
 *  - MPI_Bcast for x[i]: built with -DBCAST_X, back substitution uses it;
 *    with 4 ranks on 2 cores it is slower than the loop of sends (see
 *    docs/case-studies.md), so the default build keeps the loop;
 *  - overlap for x[i]: x[i-1] depends on x[i], and the chain leaves next
 *    to nothing to overlap.
 * Every row is eliminated with the same arithmetic as before, only in
 * another order across rows, so the output is the same to the last bit.
 *
 * Usage: gauss_after [n]     default: n=64
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
        fputs("gauss_after: ", stderr);
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

static int world_rank(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static int world_size(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    return p;
}

/* Eliminates column k of row (w doubles) with pivot row prow. */
static void eliminate(double *row, const double *prow, int k, int w)
{
    double f = row[k] / prow[k];
    row[k] = 0.0;
    for (int j = k + 1; j < w; j++)
        row[j] -= f * prow[j];
}

/* Whether rank r owns a row below row k (rows are dealt cyclically). */
static int has_rows_below(int r, int k, int n, int size)
{
    return k + 1 + ((r - (k + 1)) % size + size) % size < n;
}

/*
 * Starts sending pivot row k (final once step k-1 eliminated it) to every
 * other rank that has rows below it, or receiving it into pbuf if this rank
 * has: sends are appended to sreq (*nsreq of them so far), the receive goes
 * to *rreq.
 */
static void start_pivot(int k, int n, int rank, int size, int w, const double *a, double *pbuf,
                        MPI_Request *sreq, int *nsreq, MPI_Request *rreq)
{
    int owner = k % size;
    if (rank == owner) {
        const double *prow = &a[(k / size) * w];
        for (int dst = 0; dst < size; dst++)
            if (dst != rank && has_rows_below(dst, k, n, size))
                MPI_Isend(&prow[k], w - k, MPI_DOUBLE, dst, TAG_PIVOT, MPI_COMM_WORLD,
                          &sreq[(*nsreq)++]);
    } else if (has_rows_below(rank, k, n, size)) {
        MPI_Irecv(&pbuf[k], w - k, MPI_DOUBLE, owner, TAG_PIVOT, MPI_COMM_WORLD, rreq);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* Plain locals (their address is never taken): reading them is not a
     * memory access that commhint records. */
    const int rank = world_rank(), size = world_size();

    int n = arg_int(argc, argv, 1, 64, 1, rank);
    int w = n + 1;                                 /* row length of [A | b] */
    int nloc = (n - rank + size - 1) / size;       /* rows i with i % size == rank */

    double *a = malloc((size_t)(nloc > 0 ? nloc : 1) * w * sizeof *a);
    /* Two pivot buffers: row k+1 arrives in one while row k is used from
     * the other. */
    double *pivot = malloc(2 * (size_t)w * sizeof *pivot);
    /* The owner's sends of its rows, waited for before back substitution. */
    MPI_Request *sreq = malloc((size_t)(nloc > 0 ? nloc : 1) * size * sizeof *sreq);
    double *x = malloc((size_t)n * sizeof *x);
    double *red = malloc(2 * sizeof *red);         /* Allreduce in/out */
    if (!a || !pivot || !sreq || !x || !red) {
        fprintf(stderr, "gauss_after: out of memory: rank=%d n=%d\n", rank, n);
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

    /* Forward elimination with look-ahead.  Pivot row k goes only to the
     * ranks that have rows below it: in the last steps not every rank has;
     * row n-1 is the pivot of no row, and that step is left out. */
    MPI_Request rreq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    int nsreq = 0;
    if (n > 1)
        start_pivot(0, n, rank, size, w, a, pivot, sreq, &nsreq, &rreq[0]);
    for (int k = 0; k < n - 1; k++) {
        int owner = k % size;
        /* First local row with global index > k (the numerator is >= 1). */
        int l0 = (k + size - rank) / size;
        const double *prow;
        if (rank == owner) {
            prow = &a[(k / size) * w];
        } else if (l0 < nloc) {
            MPI_Wait(&rreq[k % 2], MPI_STATUS_IGNORE);
            prow = &pivot[(k % 2) * w];
        } else {
            continue;   /* no rows below k here: row k was not sent here */
        }
        /* Look-ahead: row k+1 first, and on its way at once. */
        if (k + 1 < n - 1) {
            if (rank == (k + 1) % size) {
                eliminate(&a[l0 * w], prow, k, w);
                l0++;
            }
            start_pivot(k + 1, n, rank, size, w, a, &pivot[((k + 1) % 2) * w], sreq, &nsreq,
                        &rreq[(k + 1) % 2]);
        }
        for (int l = l0; l < nloc; l++)
            eliminate(&a[l * w], prow, k, w);
    }
    /* Back substitution writes the right-hand sides of the rows sent. */
    MPI_Waitall(nsreq, sreq, MPI_STATUSES_IGNORE);

    /* Back substitution, column-oriented: after x[i] is known, every rank
     * removes column i from the right-hand sides of its rows above i. */
    for (int i = n - 1; i >= 0; i--) {
        int owner = i % size;
        if (rank == owner) {
            int l = i / size;
            x[i] = a[l * w + n] / a[l * w + i];
        }
#ifdef BCAST_X
        MPI_Bcast(&x[i], 1, MPI_DOUBLE, owner, MPI_COMM_WORLD);
#else
        if (rank == owner) {
            for (int dst = 0; dst < size; dst++)
                if (dst != rank)
                    MPI_Send(&x[i], 1, MPI_DOUBLE, dst, TAG_X, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&x[i], 1, MPI_DOUBLE, owner, TAG_X, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
#endif
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
    free(sreq);
    free(x);
    free(red);
    MPI_Finalize();
    return 0;
}
