/*
 * small_sends.c - advection of four chemical species on a periodic 1-D
 * domain, each species in its own array, with one small message per array.
 *
 * What it computes: species s is carried to the right with its own Courant
 * number sigma[s] (0.2 .. 0.8 cells per step) by the second-order upwind
 * Beam-Warming scheme
 *   c'(i) = c(i) - sigma/2 (3c(i) - 4c(i-1) + c(i-2))
 *                + sigma^2/2 (c(i) - 2c(i-1) + c(i-2)),
 * starting from c_s(x) = 1 + 0.5 sin(2 pi (x + s/10)).  The exact solution
 * is the initial profile shifted by sigma[s]*steps cells, and the scheme
 * conserves mass; rank 0 checks both.  Every cell is updated with the same
 * arithmetic whatever the number of ranks, and the check runs on the
 * gathered arrays in cell order, so the output does not depend on it.
 *
 * Communication pattern: the cells are split into blocks; since the scheme
 * is upwind, a rank needs only the last two cells of its left neighbour.
 * Every step each rank sends its right neighbour, one after another, the
 * two edge cells of each of the four species (four messages of 2 doubles)
 * and a small header {step, index of the next cell} that it computes just
 * before (one message of 2 ints), and receives the same five messages from
 * its left neighbour.  Even ranks send first and odd ranks receive first,
 * so the ring of blocking sends cannot deadlock.
 *
 * What commhint should find:
 *  - message aggregation: the five sends to the right neighbour (and the
 *    five receives) carry independent data and can be packed into one
 *    message of 8 doubles + 2 ints;
 *  - overlap (secondary): the sends only read the two edge cells, which
 *    nothing writes before the next step, so the whole update can run while
 *    they are in flight; the receive of species s does not feed the updates
 *    of the species before it.
 *
 * Usage: small_sends [n [steps]]   defaults: n=256 steps=50 (n >= 2*ranks)
 */
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

enum { NSPEC = 4, GHOST = 2, TAG_HEADER = 10 };   /* tag of species s is s */

static const double sigma[NSPEC] = {0.2, 0.35, 0.5, 0.8};

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
        fputs("small_sends: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Returns argv[idx] as an integer in [min, 10000000], or def if it is absent. */
static int arg_int(int argc, char **argv, int idx, int def, int min, int rank)
{
    if (argc <= idx)
        return def;
    char *end;
    long v = strtol(argv[idx], &end, 10);
    if (*end != '\0' || v < min || v > 10000000)
        die_config(rank, "bad argument: position=%d value=%s min=%d max=%d", idx, argv[idx], min,
                   10000000);
    return (int)v;
}

static double profile(int s, double x)
{
    return 1.0 + 0.5 * sin(2 * PI * (x + 0.1 * s));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int n = arg_int(argc, argv, 1, 256, 2, rank);
    int steps = arg_int(argc, argv, 2, 50, 0, rank);
    if (n < GHOST * size)
        die_config(rank, "too few cells for the ranks: n=%d ranks=%d min_n=%d", n, size, GHOST * size);

    int nloc = n / size + (rank < n % size);
    int first = rank * (n / size) + (rank < n % size ? rank : n % size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;

    /* c[s][0..1] are ghost cells (the left neighbour's last two), c[s][2..]
     * the owned cells. */
    double *c[NSPEC], *cn[NSPEC];
    int *hdr_out = malloc(2 * sizeof(int)), *hdr_in = malloc(2 * sizeof(int));
    int ok_alloc = hdr_out && hdr_in;
    for (int s = 0; s < NSPEC; s++) {
        c[s] = malloc((nloc + GHOST) * sizeof(double));
        cn[s] = malloc((nloc + GHOST) * sizeof(double));
        ok_alloc = ok_alloc && c[s] && cn[s];
    }
    if (!ok_alloc) {
        fprintf(stderr, "small_sends: out of memory: rank=%d cells=%d\n", rank, nloc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int s = 0; s < NSPEC; s++)
        for (int i = 0; i < nloc; i++)
            c[s][GHOST + i] = profile(s, (first + i) / (double)n);

    for (int step = 0; step < steps; step++) {
        double *edge[NSPEC];            /* my last two cells of each species */
        for (int s = 0; s < NSPEC; s++)
            edge[s] = &c[s][nloc];      /* = owned cells nloc-2, nloc-1 */
        hdr_out[0] = step;
        hdr_out[1] = (first + nloc) % n;

        if (size == 1) {
            for (int s = 0; s < NSPEC; s++)
                memcpy(c[s], edge[s], GHOST * sizeof(double));
            memcpy(hdr_in, hdr_out, 2 * sizeof(int));
        } else if (rank % 2 == 0) {
            for (int s = 0; s < NSPEC; s++)
                MPI_Send(edge[s], GHOST, MPI_DOUBLE, right, s, MPI_COMM_WORLD);
            MPI_Send(hdr_out, 2, MPI_INT, right, TAG_HEADER, MPI_COMM_WORLD);
            for (int s = 0; s < NSPEC; s++)
                MPI_Recv(c[s], GHOST, MPI_DOUBLE, left, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(hdr_in, 2, MPI_INT, left, TAG_HEADER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int s = 0; s < NSPEC; s++)
                MPI_Recv(c[s], GHOST, MPI_DOUBLE, left, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(hdr_in, 2, MPI_INT, left, TAG_HEADER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int s = 0; s < NSPEC; s++)
                MPI_Send(edge[s], GHOST, MPI_DOUBLE, right, s, MPI_COMM_WORLD);
            MPI_Send(hdr_out, 2, MPI_INT, right, TAG_HEADER, MPI_COMM_WORLD);
        }
        if (hdr_in[0] != step || hdr_in[1] != first) {
            fprintf(stderr, "small_sends: wrong header from the left: rank=%d step=%d got_step=%d "
                            "got_cell=%d want_cell=%d\n", rank, step, hdr_in[0], hdr_in[1], first);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }

        for (int s = 0; s < NSPEC; s++) {
            double a = sigma[s] / 2, b = sigma[s] * sigma[s] / 2;
            const double *u = c[s];
            for (int i = GHOST; i < nloc + GHOST; i++)
                cn[s][i] = u[i] - a * (3 * u[i] - 4 * u[i - 1] + u[i - 2]) +
                           b * (u[i] - 2 * u[i - 1] + u[i - 2]);
            double *t = c[s];
            c[s] = cn[s];
            cn[s] = t;
        }
    }

    /* Gather each species on rank 0 in cell order and check it there. */
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    double *all = rank == 0 ? malloc((size_t)NSPEC * n * sizeof(double)) : NULL;
    if (!counts || !displs || (rank == 0 && !all)) {
        fprintf(stderr, "small_sends: out of memory: rank=%d n=%d\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int q = 0; q < size; q++) {
        counts[q] = n / size + (q < n % size);
        displs[q] = q * (n / size) + (q < n % size ? q : n % size);
    }
    for (int s = 0; s < NSPEC; s++)
        MPI_Gatherv(&c[s][GHOST], nloc, MPI_DOUBLE, rank == 0 ? &all[s * n] : NULL, counts, displs,
                    MPI_DOUBLE, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        double mass = 0.0, mass0 = 0.0, err = 0.0;
        for (int s = 0; s < NSPEC; s++)
            for (int i = 0; i < n; i++) {
                mass += all[s * n + i];
                mass0 += profile(s, i / (double)n);
                err = fmax(err, fabs(all[s * n + i] - profile(s, (i - sigma[s] * steps) / n)));
            }
        /* Coarse grids resolve the sine too poorly for an accuracy check;
         * there we only ask that the amplitude (0.5) did not grow. */
        double tol = n >= 64 ? 0.05 : 1.0;
        int ok = fabs(mass - mass0) < 1e-9 * mass0 && err < tol;
        printf("small_sends: n=%d steps=%d mass=%.6e max_error=%.6e %s\n", n, steps, mass, err,
               ok ? "OK" : "FAILED");
        if (!ok)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }

    for (int s = 0; s < NSPEC; s++) {
        free(c[s]);
        free(cn[s]);
    }
    free(hdr_out);
    free(hdr_in);
    free(counts);
    free(displs);
    free(all);
    MPI_Finalize();
    return 0;
}
