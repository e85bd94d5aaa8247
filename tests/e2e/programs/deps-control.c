/* deps-control.c - blocking calls that happen only because a branch or a
 * loop condition says so, for the control dependences of issue 15
 * (tests/e2e/dependences.sh checks them by the markers in the comments).
 *
 * As in deps-register.c, each pattern is: an MPI_Barrier (every global and
 * escaped value is loaded again after it), the fill of the call's buffer
 * (the call depends on it: it ends the backward window), the statement
 * that decides whether or how often the call runs (it reads traced memory:
 * never a related line of the call), an INDEP loop on an array the call
 * does not touch ("can move after the call"), and the call:
 *   g1 DEP-GUARD-PARITY  if (rank % 2 == 0) around the send (rank 0 sends)
 *   g2 DEP-GUARD-SIZE    if (size == 2) around the send
 *   g3 DEP-NSTEPS        nsteps = atoi(argv[1]) (a local), the bound of the
 *                        loop around the send; the buffer is touched right
 *                        after each send so that the INDEP loop is only
 *                        ever "can move after the call"
 * Run on 2 ranks with one argument, the number of steps (3).  Prints one
 * checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64

static int rank, size; /* their addresses go to MPI: traced */
static double out[N], in[N], wa[N], wb[N], wc[N];
static double sum;

static void fill(double *p, int n, double v)
{
    for (int i = 0; i < n; i++)
        p[i] = v + i;
}

static void take(const double *p, int n)
{
    for (int i = 0; i < n; i++)
        sum += p[i];
}

/* g1 */
static void parity_guard(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    fill(out, N, 1.0);
    if (rank % 2 == 0) { /* DEP-GUARD-PARITY */
        for (int i = 0; i < N; i++)
            wa[i] = 0.5 * wa[i] + 1.0; /* DEP-GUARD-PARITY-INDEP */
        MPI_Send(out, N, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD); /* DEP-GUARD-PARITY-SEND */
    } else {
        MPI_Recv(in, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        take(in, N);
    }
}

/* g2 */
static void size_guard(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        fill(out, N, 2.0);
        if (size == 2) { /* DEP-GUARD-SIZE */
            for (int i = 0; i < N; i++)
                wb[i] = 0.5 * wb[i] + 2.0; /* DEP-GUARD-SIZE-INDEP */
            MPI_Send(out, N, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD); /* DEP-GUARD-SIZE-SEND */
        }
    } else if (size == 2) {
        MPI_Recv(in, N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        take(in, N);
    }
}

/* g3 */
static void loop_bound(char **argv)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        fill(out, N, 3.0);
        int nsteps = atoi(argv[1]); /* DEP-NSTEPS */
        for (int s = 0; s < nsteps; s++) {
            for (int i = 0; i < N; i++)
                wc[i] = 0.5 * wc[i] + 3.0; /* DEP-NSTEPS-INDEP */
            MPI_Send(out, N, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD); /* DEP-NSTEPS-SEND */
            out[0] += 1.0;
        }
    } else {
        int nsteps = atoi(argv[1]);
        for (int s = 0; s < nsteps; s++) {
            MPI_Recv(in, N, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            take(in, N);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || argc != 2 || atoi(argv[1]) < 1) {
        if (rank == 0)
            fprintf(stderr, "deps-control: run on 2 ranks with a number of steps\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    parity_guard();
    size_guard();
    loop_bound(argv);

    take(wa, N);
    take(wb, N);
    take(wc, N);
    double all = 0;
    MPI_Reduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("deps-control: sum=%.6e\n", all);
    MPI_Finalize();
    return 0;
}
