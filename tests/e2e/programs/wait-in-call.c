/* wait-in-call.c - a send made two calls deep whose hints are shown at
 * main's calls of the outer helper (tests/e2e/callpath.sh checks them by
 * the markers in the comments).
 *
 * step() sends array a through post(), runs work() through a pointer (as
 * graph500's aml calls its handlers: a function off the send's path,
 * whose order against it the source does not tell) and receives into a
 * through take().  step is called from two lines of main (WIC-FIRST once,
 * WIC-LOOP in a loop), so post's MPI_Send and take's MPI_Recv each have
 * two calling contexts that differ only in main: their hints are shown at
 * those two lines.  The access that needs the send done (the receive into
 * a) runs inside the same call of step: at main's level no place between
 * the send and it exists, and "call it where it is (line WIC-LOOP), and
 * MPI_Wait for it right before line WIC-LOOP" waits before the send is
 * made.  No hint of the send may wait at or before the line it is shown
 * at, in the same iteration.
 * Run on 2 ranks (messages of 8 KiB: sent eagerly, both ranks send
 * first).  Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#define N 1024
#define STEPS 6

static double a[N], b[N], c[N], v[N], w[N];

static void __attribute__((noinline)) post(double *buf, int peer)
{
    MPI_Send(buf, N, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD); /* WIC-SEND */
}

static void __attribute__((noinline)) take(double *buf, int peer)
{
    MPI_Recv(buf, N, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void __attribute__((noinline)) work(void)
{
    for (int i = 0; i < N; i++)
        w[i] = w[i] * 0.5 + c[i]; /* WIC-INDEP */
}

static void (*handler[1])(void) = {work};

static void __attribute__((noinline)) step(int peer)
{
    post(a, peer); /* WIC-SEND-A */
    handler[0](); /* through a pointer, as aml's handlers */
    take(a, peer); /* WIC-USE */
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = rank ^ 1;
    if (peer >= size)
        peer = rank;
    for (int i = 0; i < N; i++) {
        a[i] = rank + i;
        b[i] = rank - i;
        w[i] = i * 0.25;
    }
    step(peer); /* WIC-FIRST */
    for (int i = 0; i < N; i++)
        v[i] = v[i] * 0.75 + i; /* WIC-MAIN-INDEP */
    for (int i = 0; i < N; i++)
        a[i] = c[i] + b[i];
    for (int t = 0; t < STEPS; t++) {
        step(peer); /* WIC-LOOP */
        for (int i = 0; i < N; i++)
            a[i] = a[i] * 0.5 + c[i] + b[i] + t;
    }
    double s = 0, all = 0;
    for (int i = 0; i < N; i++)
        s += a[i] + b[i] + c[i] + v[i] + w[i];
    MPI_Reduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("wait-in-call: %.6f\n", all);
    MPI_Finalize();
    return 0;
}
