/* amp-loop.c - one long strided loop between MPI_Init and an MPI_Allreduce:
 * its trace holds REPEAT records, which tests/e2e/amplification.sh copies
 * into a crafted trace. */
#include <mpi.h>
#include <stdio.h>

static double a[100000];

int main(int argc, char **argv)
{
    double s, r;
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 100000; i++)
        a[i] = a[i] * 0.5 + i;
    s = a[7];
    MPI_Allreduce(&s, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    printf("amp-loop: %.1f\n", r);
    MPI_Finalize();
    return 0;
}
