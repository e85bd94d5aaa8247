/* helper-tail.c - two halo exchanges in a row through one helper whose
 * MPI_Sendrecv is followed by a statement of its own (MPI_Get_count into
 * a local, returned), as molecular dynamics codes write them.  The second
 * exchange is ordered after the first (same channel), so the only thing
 * between them is the first helper call's tail: "start the second right
 * after the first call" changes nothing and must not be a hint.  After
 * the exchanges, work that does not read the received faces (HT-INDEP)
 * can overlap the second exchange, before the loop that unpacks them
 * (HT-USE).  Prints a checksum that tracing must not change. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 20

static int exchange(double *send, int n, int dest, double *recv, int cap, int src)
{
    MPI_Status st;
    int got;
    MPI_Sendrecv(send, n, MPI_DOUBLE, dest, 0, recv, cap, MPI_DOUBLE, src, 0, MPI_COMM_WORLD, &st); /* HT-CALL */
    MPI_Get_count(&st, MPI_DOUBLE, &got);
    return got;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int up = (rank + 1) % size, down = (rank + size - 1) % size;
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    double *ra = malloc(N * sizeof *ra), *rb = malloc(N * sizeof *rb);
    double *w = malloc(N * sizeof *w), sum = 0;
    for (int i = 0; i < N; i++) {
        a[i] = rank + i * 1e-3;
        b[i] = rank - i * 1e-3;
        w[i] = 1.0;
    }
    for (int s = 0; s < STEPS; s++) {
        for (int i = 0; i < N; i++) {
            a[i] += 1e-6 * w[i];
            b[i] -= 1e-6 * w[i];
        }
        int na = exchange(a, N, up, ra, N, down);   /* HT-FIRST */
        int nb = exchange(b, N, down, rb, N, up);   /* HT-SECOND */
        for (int i = 0; i < N; i++)
            w[i] = w[i] * 0.999 + 0.001 * (i % 7); /* HT-INDEP */
        for (int i = 0; i < na && i < nb; i++)
            sum += ra[i] - rb[i];                   /* HT-USE */
    }
    double tot = 0;
    MPI_Reduce(&sum, &tot, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("helper-tail: sum=%.6e\n", tot);
    free(a);
    free(b);
    free(ra);
    free(rb);
    free(w);
    MPI_Finalize();
    return 0;
}
