/* child.c - a traced MPI program that starts an instrumented helper with
 * system() between two phases (argv[1]: the helper's command).  The helper
 * inherits the trace directory and the launcher's rank variables; it must
 * not write into this run's trace. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double a[2048];

static double phase(int rank, int step)
{
    for (int i = 0; i < 2048; i++)
        a[i] = a[i] * 0.5 + rank + step;
    double s = a[step], r = 0;
    MPI_Allreduce(&s, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return r;
}

int main(int argc, char **argv)
{
    int rank;
    double r = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int step = 0; step < 5; step++)
        r += phase(rank, step);
    fflush(stdout);
    if (argc > 1 && system(argv[1]) != 0)
        fprintf(stderr, "child: the helper failed\n");
    for (int step = 5; step < 10; step++)
        r += phase(rank, step);
    if (rank == 0)
        printf("child: %.1f\n", r);
    MPI_Finalize();
    return 0;
}
