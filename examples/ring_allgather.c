/*
 * ring_allgather.c - an all-pairs N-body step whose positions are shared
 * by a hand-written ring: every rank passes blocks to its right neighbour,
 * ranks-1 times, with the x and the y coordinates as separate
 * MPI_Sendrecv calls.
 *
 * What it computes: N bodies of equal mass in a plane, attracting each
 * other with a softened inverse-square force
 *   a_i = sum_j (p_j - p_i) / (|p_j - p_i|^2 + eps^2)^(3/2) / N,
 * integrated by leapfrog (kick-drift-kick) for `steps` steps of dt = 1e-3,
 * from a ring of bodies (a deterministic pseudo-random jitter on the
 * radius, body j + N/2 opposite body j) in solid rotation.  Rank r owns bodies r*m .. r*m+m-1 (m =
 * N/ranks).  Every acceleration sums over j = 0..N-1 in the same order
 * whatever the number of ranks, so rank 0 prints the same line for any
 * of them: the centre of mass (which the pairwise forces keep where it
 * was: checked), the mean radius and a checksum of the final positions.
 *
 * Communication pattern: before each force computation every rank needs
 * all positions.  They are kept in two arrays x[N] and y[N] in body order;
 * a rank copies nothing, its own block is already in place, and passes
 * blocks around the ring: in round k (k = 0..ranks-2) it sends the block it
 * got in the previous round (its own in round 0) to its right neighbour and
 * receives the next one from its left neighbour, x then y, each with one
 * MPI_Sendrecv.  The ring runs once before the first step and once per
 * step, after the drift, so the last one leaves the final positions on
 * rank 0 for its output.
 *
 * What commhint should find:
 *  - collective communication: each ring is an MPI_Allgather (every rank's
 *    block reaches every other rank once, into distinct slices), and the
 *    two allgathers (x and y) are independent;
 *  - message aggregation: the two MPI_Sendrecv calls of a round go to the
 *    same rank and come from the same rank, so they can be one MPI_Sendrecv
 *    of packed buffers.
 * How much either is worth depends on N: with few bodies a step is its
 * messages (2 (ranks-1) synchronising exchanges against one allgather,
 * log2(ranks) steps in MPICH); with many, the N^2/ranks force
 * computation is all of it.
 *
 * Usage: ring_allgather [N=64 [steps=10]]   (N even, divisible by the number of ranks)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.14159265358979323846

enum { TAG_X = 1, TAG_Y = 2 };

static const double dt = 1e-3, eps2 = 1e-2;

static int arg(int argc, char **argv, int i, int def)
{
    return argc > i ? atoi(argv[i]) : def;
}

/* Every rank's block of m positions reaches every rank: a ring of
 * MPI_Sendrecv, x and y separately. */
static void share_positions(double *x, double *y, int m, int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int k = 0; k < size - 1; k++) {
        int sb = (rank - k + size) % size, rb = (rank - k - 1 + size) % size;
        MPI_Sendrecv(x + (size_t)sb * m, m, MPI_DOUBLE, right, TAG_X, x + (size_t)rb * m, m,
                     MPI_DOUBLE, left, TAG_X, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(y + (size_t)sb * m, m, MPI_DOUBLE, right, TAG_Y, y + (size_t)rb * m, m,
                     MPI_DOUBLE, left, TAG_Y, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
    if (!x || !y || !vx || !vy || !ax || !ay) {
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

    share_positions(x, y, m, rank, size);
    accelerations(x, y, n, first, m, ax, ay);
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < m; i++) {
            vx[i] += 0.5 * dt * ax[i];
            vy[i] += 0.5 * dt * ay[i];
            x[first + i] += dt * vx[i];
            y[first + i] += dt * vy[i];
        }
        share_positions(x, y, m, rank, size);
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
    MPI_Finalize();
    return 0;
}
