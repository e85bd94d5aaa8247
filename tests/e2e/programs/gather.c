/* gather.c - indirect accesses for the run encoding's columns
 * (CHT_REC_REPEAT_COL; tests/e2e/runs.sh): every step, each element sums
 * its neighbours through a random neighbour list (f[nb[k]]), in loops of
 * varying length, then the ranks add up a norm with MPI_Allreduce.
 * Usage: gather [elements [steps]].  Prints one checksum line on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 20000, steps = argc > 2 ? atoi(argv[2]) : 5;
    if (n < 16 || steps < 1) {
        if (rank == 0)
            fprintf(stderr, "gather: usage: gather [elements>=16 [steps>=1]]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int *start = malloc((size_t)(n + 1) * sizeof *start), *nb = malloc((size_t)n * 12 * sizeof *nb);
    double *f = malloc((size_t)n * sizeof *f), *g = malloc((size_t)n * sizeof *g);
    if (!start || !nb || !f || !g) {
        fprintf(stderr, "gather: out of memory: rank=%d n=%d\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    unsigned s = 12345u + (unsigned)rank;
    start[0] = 0;
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        int deg = 4 + (int)((s >> 16) % 9); /* 4 to 12 neighbours */
        start[i + 1] = start[i] + deg;
        for (int k = start[i]; k < start[i + 1]; k++) {
            s = s * 1103515245u + 12345u;
            nb[k] = (int)((s >> 8) % (unsigned)n);
        }
        f[i] = 1.0 + (i % 7);
    }
    double norm = 0;
    for (int t = 0; t < steps; t++) {
        for (int i = 0; i < n; i++) {
            double sum = 0;
            for (int k = start[i]; k < start[i + 1]; k++)
                sum += f[nb[k]];
            g[i] = 0.5 * f[i] + 0.5 * sum / (start[i + 1] - start[i]);
        }
        double local = 0, total;
        for (int i = 0; i < n; i++) {
            f[i] = g[i];
            local += g[i] * g[i];
        }
        MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        norm = total;
    }
    if (rank == 0)
        printf("gather: n=%d steps=%d norm=%.9e\n", n, steps, norm);
    free(start);
    free(nb);
    free(f);
    free(g);
    MPI_Finalize();
    return 0;
}
