/*
 * heat_helpers.c - two coupled diffusion fields on an n x n grid, with the
 * MPI calls wrapped in helpers the way real codes wrap them.
 *
 * What it computes: a temperature field T and a concentration field C, each
 * diffused by explicit steps u' = u + k * (laplacian of u) on a 1-D row
 * decomposition, periodic in the rows, the first and last columns fixed (C also leaks at the rank
 * boundaries, and what flows in is summed); a source term S, updated every
 * step from its own state, heats T; every `report` steps the ranks agree
 * on the total heat (used at once: the step size shrinks if it grew) and on
 * the total mass of C (only printed, at the end).
 *
 * Communication pattern: every exchange of halo rows goes through one
 * helper, halo_swap() (two MPI_Sendrecv, with the rank above and below), and
 * every global sum through global_sum() (MPI_Allreduce).  Each helper is
 * called from two places:
 *   - halo_swap(T) is followed by the update of the source term, which
 *     reads and writes neither T nor its halos: that update can run while
 *     the halos travel; halo_swap(C) sends the rows leak() has just
 *     written and is followed at once by inflow(), which reads the halos:
 *     nothing can move around it;
 *   - global_sum(heat) is needed at once (the step size depends on it);
 *     global_sum(mass) is only printed at the end: the next steps can run
 *     while it completes.
 * What commhint should find: overlap hints at the first call of each
 * helper (shown there, with the helper's MPI call below them), none at the
 * second; without call paths both calls of a helper would be one line.
 *
 * The leak happens at the ranks' own boundaries, so mass and inflow depend
 * on the number of ranks (unlike the other examples' output); the check
 * is that the heat stays positive and the mass does not grow.
 *
 * Usage: heat_helpers [n [steps [report]]]     defaults: n=96 steps=30 report=10
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void die(int rank, const char *what)
{
    if (rank == 0)
        fprintf(stderr, "heat_helpers: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The halo rows of u (nloc owned rows 1..nloc, halos 0 and nloc+1, n
 * columns each) from the ranks above and below (the grid is periodic in
 * its rows). */
static void halo_swap(double *u, int n, int nloc, int up, int down)
{
    MPI_Sendrecv(&u[1 * n], n, MPI_DOUBLE, up, 1, &u[(nloc + 1) * n], n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[nloc * n], n, MPI_DOUBLE, down, 2, &u[0], n, MPI_DOUBLE, up, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
}

/* The sum of x over all ranks. */
static double global_sum(double x)
{
    double s = 0;
    MPI_Allreduce(&x, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

/* One explicit diffusion step of u into unew (interior columns), the
 * source added; returns the largest change. */
static double diffuse(const double *u, double *unew, const double *src, int n, int nloc, double k)
{
    double change = 0;
    for (int i = 1; i <= nloc; i++)
        for (int j = 1; j < n - 1; j++) {
            double lap = u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1] -
                         4 * u[i * n + j];
            double v = u[i * n + j] + k * lap + (src ? src[i * n + j] : 0);
            double d = v > u[i * n + j] ? v - u[i * n + j] : u[i * n + j] - v;
            if (d > change)
                change = d;
            unew[i * n + j] = v;
        }
    return change;
}

/* Fixed-flux boundary of c: its first and last owned rows lose a little to
 * the outside (the rows halo_swap sends next). */
static void leak(double *c, int n, int nloc)
{
    for (int j = 1; j < n - 1; j++) {
        c[1 * n + j] *= 0.999;
        c[nloc * n + j] *= 0.999;
    }
}

/* What flows in from the neighbours: read off the halo rows at once. */
static double inflow(const double *c, int n, int nloc)
{
    double f = 0;
    for (int j = 1; j < n - 1; j++)
        f += (c[0 * n + j] - c[1 * n + j]) + (c[(nloc + 1) * n + j] - c[nloc * n + j]);
    return f;
}

/* The source term's own evolution: a slow decay towards a pattern. */
static void update_sources(double *s, int n, int nloc, int row0, int step)
{
    for (int i = 1; i <= nloc; i++)
        for (int j = 1; j < n - 1; j++) {
            double target = ((row0 + i + j + step) % 17 == 0) ? 1e-3 : 0.0;
            s[i * n + j] = 0.9 * s[i * n + j] + 0.1 * target;
        }
}

static double total(const double *u, int n, int nloc)
{
    double s = 0;
    for (int i = 1; i <= nloc; i++)
        for (int j = 1; j < n - 1; j++)
            s += u[i * n + j];
    return s;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 96;
    int steps = argc > 2 ? atoi(argv[2]) : 30;
    int report = argc > 3 ? atoi(argv[3]) : 10;
    if (n < 8 || steps < 1 || report < 1)
        die(rank, "usage: heat_helpers [n >= 8 [steps >= 1 [report >= 1]]]");
    if (size > n - 2)
        die(rank, "more ranks than interior rows");

    int rows = n - 2, nloc = rows / size + (rank < rows % size);
    int row0 = rank * (rows / size) + (rank < rows % size ? rank : rows % size);
    /* periodic in the rows: every rank has a rank above and below (itself
     * when alone) */
    int up = (rank + size - 1) % size, down = (rank + 1) % size;
    size_t count = (size_t)(nloc + 2) * n;
    double *T = calloc(count, sizeof *T), *Tn = calloc(count, sizeof *Tn);
    double *C = calloc(count, sizeof *C), *Cn = calloc(count, sizeof *Cn);
    double *S = calloc(count, sizeof *S);
    if (!T || !Tn || !C || !Cn || !S)
        die(rank, "out of memory");
    /* a hot stripe of T near the top, a blob of C in the middle */
    for (int i = 1; i <= nloc; i++)
        if (row0 + i <= 4)
            for (int j = 0; j < n; j++)
                T[i * n + j] = Tn[i * n + j] = 1.0;
    for (int i = 1; i <= nloc; i++)
        for (int j = n / 3; j < 2 * n / 3; j++)
            if (row0 + i > rows / 3 && row0 + i < 2 * rows / 3)
                C[i * n + j] = Cn[i * n + j] = 1.0;

    double k = 0.2, heat = 0, mass = 0, prev_heat = 0, flow = 0;
    for (int step = 0; step < steps; step++) {
        halo_swap(T, n, nloc, up, down);
        update_sources(S, n, nloc, row0, step);
        diffuse(T, Tn, S, n, nloc, k);
        double *t = T;
        T = Tn;
        Tn = t;

        leak(C, n, nloc);
        halo_swap(C, n, nloc, up, down);
        flow += inflow(C, n, nloc);
        diffuse(C, Cn, NULL, n, nloc, k);
        t = C;
        C = Cn;
        Cn = t;

        if ((step + 1) % report == 0) {
            heat = global_sum(total(T, n, nloc));
            if (step + 1 > report && heat < prev_heat)
                k *= 0.99; /* the heat must not fall: a smaller step */
            prev_heat = heat;
            mass = global_sum(total(C, n, nloc));
        }
    }
    /* self-check: diffusion keeps the heat (the source only adds), and the
     * leaks only take mass away */
    double mass0 = 0;
    for (int i = 1; i <= rows; i++)
        if (i > rows / 3 && i < 2 * rows / 3)
            mass0 += 2 * n / 3 - n / 3;
    if (!(heat > 0) || !(mass > 0) || mass > mass0 + 1e-9) {
        if (rank == 0)
            fprintf(stderr, "heat_helpers: check failed: heat=%.6e mass=%.6e initial mass=%.6e\n", heat, mass,
                    mass0);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("heat_helpers: n=%d steps=%d heat=%.6e mass=%.6e inflow=%.6e k=%.4f OK\n", n, steps, heat, mass,
               flow, k);
    free(T);
    free(Tn);
    free(C);
    free(Cn);
    free(S);
    MPI_Finalize();
    return 0;
}
