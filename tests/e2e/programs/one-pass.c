/* one-pass.c - a send per neighbour from one local variable, in a loop
 * over the neighbour list (tests/e2e/overlap-bounds.sh checks it by the
 * markers in the comments).
 *
 * Once, as in a setup phase, every rank sends a number to each other rank
 * from the same local `len`, written right before each send (OP-FILL,
 * OP-SEND), then works on an array no message touches (OP-INDEP) and
 * receives.  On 2 ranks the loop over neighbours (OP-LOOP) runs once: a fix
 * that starts each send where it is and waits for them all after the loop
 * looks right in the trace, but on more ranks the next iteration writes
 * `len` while the first send may still be in flight.  The hint must say
 * that the trace saw one pass (flag one-pass); on 3 ranks it must not wait
 * after the loop for sends whose buffer the loop rewrites.
 * Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#define N 16384

static double work[N];

int main(int argc, char **argv)
{
    int rank, size, nbrs[64], nn = 0;
    long total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int p = 0; p < size && nn < 64; p++)
        if (p != rank)
            nbrs[nn++] = p;
    int len;
    for (int k = 0; k < nn; k++) { /* OP-LOOP */
        len = 100 * rank + nbrs[k]; /* OP-FILL */
        MPI_Send(&len, 1, MPI_INT, nbrs[k], 5, MPI_COMM_WORLD); /* OP-SEND */
    }
    for (int i = 0; i < N; i++)
        work[i] = work[i] * 0.5 + i; /* OP-INDEP */
    for (int k = 0; k < nn; k++) { /* OP-RECV */
        int got;
        MPI_Recv(&got, 1, MPI_INT, nbrs[k], 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        total += got;
    }
    long all = 0;
    MPI_Reduce(&total, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("one-pass: %ld %.3f\n", all, work[9]);
    MPI_Finalize();
    return 0;
}
