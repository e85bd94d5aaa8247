/*
 * ring_allgather_after.c - examples/ring_allgather.c after applying
 * commhint's hints (docs/case-studies.md).  Same computation, same output
 * for the same arguments.
 *
 * What commhint said about ring_allgather.c (traced at -O2 on 4 ranks,
 * default sizes):
 *  - collective: the MPI_Sendrecv calls of the x ring, and those of the y
 *    ring, pass every rank's block to every other rank along a ring: each
 *    is an MPI_Allgather;
 *  - aggregate: the two MPI_Sendrecv calls of a round (x, y) have the same
 *    ranks and can be one MPI_Sendrecv of their packed buffers;
 *  - overlap (not applied, 4-10 us in a traced run of 0.4 s): the y
 *    exchange of the last round with the first interactions of the force
 *    loop (the bodies whose blocks arrived earlier), and the x exchange of
 *    the first round with the drift of the last body's y.  With an MPI_Allgather in
 *    place of the ring this would be an MPI_Iallgather overlapping the
 *    interactions with the rank's own block, a change to the loop's order
 *    that these few microseconds do not pay for.
 * What changed: both hints together.  A rank packs its block of x and its
 * block of y into one buffer of 2m doubles, one MPI_Allgather gives every
 * rank all of them (rank p's x block, then its y block), and they are
 * copied back into x and y in body order.  The force loop and the
 * integrator are unchanged, so every value is computed with the same
 * arithmetic as before.
 *
 * What commhint should find: no collective and no aggregation hint.
 *
 * Usage: ring_allgather_after [N=64 [steps=10]]   (N even, divisible by the number of ranks)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.14159265358979323846

static const double dt = 1e-3, eps2 = 1e-2;

static int arg(int argc, char **argv, int i, int def)
{
    return argc > i ? atoi(argv[i]) : def;
}

/* Every rank's block of m positions reaches every rank: x and y packed
 * into one buffer (pack: 2m doubles), one MPI_Allgather into all (2N
 * doubles), unpacked in body order. */
static void share_positions(double *x, double *y, double *pack, double *all, int m, int rank,
                            int size)
{
    for (int i = 0; i < m; i++) {
        pack[i] = x[(size_t)rank * m + i];
        pack[m + i] = y[(size_t)rank * m + i];
    }
    MPI_Allgather(pack, 2 * m, MPI_DOUBLE, all, 2 * m, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < m; i++) {
            x[(size_t)p * m + i] = all[(size_t)p * 2 * m + i];
            y[(size_t)p * m + i] = all[(size_t)p * 2 * m + m + i];
        }
}

/* a = the acceleration of my bodies from all N */
static void accelerations(const double *x, const double *y, int n, int first, int m, double *ax,
                          double *ay)
{
    for (int i = 0; i < m; i++) {
        double xi = x[first + i], yi = y[first + i], sx = 0, sy = 0;
        for (int j = 0; j < n; j++) {
            double dx = x[j] - xi, dy = y[j] - yi;
            double r2 = dx * dx + dy * dy + eps2;
            double f = 1.0 / (r2 * sqrt(r2));
            sx += dx * f;
            sy += dy * f;
        }
        ax[i] = sx / n;
        ay[i] = sy / n;
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = arg(argc, argv, 1, 64), steps = arg(argc, argv, 2, 10);
    if (n < 2 || n % 2 != 0 || n % size != 0 || steps < 0) {
        if (rank == 0)
            fprintf(stderr, "ring_allgather: need N even and divisible by the number of ranks, steps >= 0\n");
        MPI_Finalize();
        return 2;
    }
    int m = n / size, first = rank * m;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *vx = malloc(m * sizeof *vx), *vy = malloc(m * sizeof *vy);
    double *ax = malloc(m * sizeof *ax), *ay = malloc(m * sizeof *ay);
    double *pack = malloc(2 * m * sizeof *pack), *all = malloc(2 * (size_t)n * sizeof *all);
    if (!x || !y || !vx || !vy || !ax || !ay || !pack || !all) {
        fprintf(stderr, "ring_allgather: out of memory: rank=%d n=%d\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* a ring of radius about 1 (jitter from a hash of the body's number),
     * body j + N/2 opposite body j: the centre of mass is 0, and stays */
    for (int i = 0; i < m; i++) {
        int j = (first + i) % (n / 2);
        double sign = first + i < n / 2 ? 1.0 : -1.0;
        unsigned h = (unsigned)j * 2654435761u;
        double r = 1.0 + 0.1 * ((h >> 8) / 16777216.0 - 0.5), t = 2 * PI * j / n;
        x[first + i] = sign * r * cos(t);
        y[first + i] = sign * r * sin(t);
        vx[i] = -0.5 * y[first + i];
        vy[i] = 0.5 * x[first + i];
    }

    share_positions(x, y, pack, all, m, rank, size);
    accelerations(x, y, n, first, m, ax, ay);
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < m; i++) {
            vx[i] += 0.5 * dt * ax[i];
            vy[i] += 0.5 * dt * ay[i];
            x[first + i] += dt * vx[i];
            y[first + i] += dt * vy[i];
        }
        share_positions(x, y, pack, all, m, rank, size);
        accelerations(x, y, n, first, m, ax, ay);
        for (int i = 0; i < m; i++) {
            vx[i] += 0.5 * dt * ax[i];
            vy[i] += 0.5 * dt * ay[i];
        }
    }

    if (rank == 0) {
        double cx = 0, cy = 0, rad = 0, sum = 0;
        for (int j = 0; j < n; j++) {
            cx += x[j];
            cy += y[j];
            rad += sqrt(x[j] * x[j] + y[j] * y[j]);
            sum += (j + 1) * (x[j] + 2 * y[j]);
        }
        cx /= n;
        cy /= n;
        rad /= n;
        int ok = fabs(cx) < 1e-9 && fabs(cy) < 1e-9 && rad > 0.5 && rad < 2;
        printf("ring_allgather: N=%d steps=%d centre=(%.3e,%.3e) mean_radius=%.12f checksum=%.12e %s\n",
               n, steps, cx, cy, rad, sum, ok ? "OK" : "FAILED");
        if (!ok)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(x);
    free(y);
    free(vx);
    free(vy);
    free(ax);
    free(ay);
    free(pack);
    free(all);
    MPI_Finalize();
    return 0;
}
