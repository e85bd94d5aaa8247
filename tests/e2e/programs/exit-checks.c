/* exit-checks.c - argument and allocation checks that end the program
 * (exit), then a loop whose Allreduce can overlap the loops around it:
 * nothing after the checks runs "on some paths only" (e2e/hints). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    if (n <= 0) {
        fprintf(stderr, "exit-checks: n must be positive\n");
        exit(1);
    }
    double *a = malloc(n * sizeof *a), *b = calloc(n, sizeof *b);
    if (!a || !b) {
        fprintf(stderr, "exit-checks: out of memory\n");
        exit(1);
    }
    double s = 0, t = 0;
    for (int it = 0; it < 50; it++) {
        for (int i = 0; i < n; i++)
            a[i] = i * 0.5 + it;
        MPI_Allreduce(&a[0], &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            b[i] = b[i] * 0.5 + i;
        t += s + b[n / 2];
    }
    if (rank == 0)
        printf("%g\n", t);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
