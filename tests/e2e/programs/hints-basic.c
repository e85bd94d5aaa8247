/* hints-basic.c - a program with known opportunities for `commhint hints`
 * (tests/e2e/hints.sh checks them by the markers in the comments).
 *
 * Rank 0 sends rank 1, ROUNDS times:
 *   - three different arrays one after another: one aggregate (AGG-A, AGG-B,
 *     AGG-C);
 *   - then array x, overwrites x, and sends x again: those two sends must
 *     not be merged (REUSE-1, REUSE-W, REUSE-2).
 * Rank 1 receives into h (OVL-RECV), computes something that does not read
 * h (OVL-INDEP, overlappable: forward window) and then something that reads
 * it (OVL-USE, closes the window).
 * Run on 2 ranks.  Prints one checksum line on rank 1.
 */
#include <mpi.h>
#include <stdio.h>

#define N 64
#define ROUNDS 20

static double a[N], b[N], c[N], x[N], h[N], w[N], acc[N];

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "hints-basic: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int r = 0; r < ROUNDS; r++) {
        if (rank == 0) {
            for (int i = 0; i < N; i++) {
                a[i] = r + i;
                b[i] = r - i;
                c[i] = r * i;
            }
            MPI_Send(a, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD); /* AGG-A */
            MPI_Send(b, N, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD); /* AGG-B */
            MPI_Send(c, N, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD); /* AGG-C */
            for (int i = 0; i < N; i++)
                x[i] = 2.0 * r + i;
            MPI_Send(x, N, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD); /* REUSE-1 */
            for (int i = 0; i < N; i++)
                x[i] = x[i] * 0.5; /* REUSE-W */
            MPI_Send(x, N, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD); /* REUSE-2 */
        } else {
            MPI_Recv(a, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(b, N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(c, N, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(x, N, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(h, N, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* OVL-RECV */
            for (int i = 0; i < N; i++)
                w[i] = a[i] * b[i] + c[i] * x[i]; /* OVL-INDEP */
            for (int i = 0; i < N; i++)
                acc[i] += w[i] + h[i]; /* OVL-USE */
        }
    }
    if (rank == 1) {
        double s = 0;
        for (int i = 0; i < N; i++)
            s += acc[i];
        printf("hints-basic: sum=%.6e\n", s);
    }
    MPI_Finalize();
    return 0;
}
