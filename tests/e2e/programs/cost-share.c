/* cost-share.c - a trivial statement and a heavy loop in one window
 * (tests/e2e/hints.sh checks it by the markers in the comments;
 * docs/dependence.md, "Estimated time of computation events").
 *
 * Rank 0 sends rank 1 an array h, ROUNDS times.  Rank 1 receives it
 * (OVL-RECV), then copies its rank (TRIVIAL: one load, one store), then
 * runs a loop whose every iteration calls libm four times in one
 * statement (HEAVY), both independent of h, then reads h (USE, closes the
 * receive's window).  The
 * overlap hint of the receive lists TRIVIAL and HEAVY; the time of one
 * execution of TRIVIAL must be a small fraction of one of HEAVY, which the
 * even split of the time between the MPI calls (every execution worth the
 * same) cannot give.
 * Run on 2 ranks.  Prints one checksum line on rank 1.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#define N 256
#define ROUNDS 20

static double a[N], h[N], heavy[N], acc[N];
static int taskid, tcopy;

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &taskid);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (taskid == 0)
            fprintf(stderr, "cost-share: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < N; i++)
        a[i] = 1.0 + i * 0.01;
    for (int r = 0; r < ROUNDS; r++) {
        if (taskid == 0) {
            for (int i = 0; i < N; i++)
                h[i] = r + i;
            MPI_Send(h, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD);
        } else {
            MPI_Recv(h, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* OVL-RECV */
            tcopy = taskid; /* TRIVIAL */
            for (int i = 0; i < N; i++) {
                double x = a[i];
                heavy[i] = exp(x + r) / log(x + 2.0) + sin(x) / cos(x + r); /* HEAVY */
            }
            for (int i = 0; i < N; i++)
                acc[i] += heavy[i] * h[i]; /* USE */
        }
    }
    if (taskid == 1) {
        double s = 0;
        for (int i = 0; i < N; i++)
            s += acc[i];
        printf("cost-share: checksum=%.6e rank=%d\n", s, tcopy);
    }
    MPI_Finalize();
    return 0;
}
