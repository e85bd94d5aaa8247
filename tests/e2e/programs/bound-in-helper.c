/* bound-in-helper.c - a reduction bounded by an MPI call inside a helper
 * that the loop before it calls (as graph500's CSR build: blocks of edges
 * scanned for the largest vertex, each block closed by aml_barrier, then
 * aml_long_allmax of that largest vertex).  The MPI_Allreduce cannot start
 * before the last MPI_Barrier of the loop (collectives keep their order),
 * and the loop updates its buffer, so the only computation that can move
 * after its start is the tail of the loop's last block: a start "right
 * before the loop" would reduce a stale value (tests/e2e/overlap-bounds.sh).
 * Built with -DBOUND_BEFORE, the blocks are scanned first, the barrier
 * follows, and the tails come in a loop of their own: that whole loop can
 * move after the start, which goes right before it.
 * Run on 2 ranks.  Prints one line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#define BLOCKS 4
#define PER 20000

static long largest;      /* reduced in place: its address goes to MPI */
static double tally[PER]; /* a block's tail works on it */

static void block_done(void)
{
    MPI_Barrier(MPI_COMM_WORLD); /* BOUND-BARRIER */
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned long x = 12345u + (unsigned long)rank;
#ifndef BOUND_BEFORE
    for (int b = 0; b < BLOCKS; b++) { /* BOUND-LOOP */
        for (int i = 0; i < PER; i++) {
            x = x * 6364136223846793005ul + 1442695040888963407ul;
            long v = (long)(x >> 40);
            if (v > largest) /* BOUND-SCAN */
                largest = v;
        }
        block_done();
        if (b == BLOCKS - 1)
            for (int i = 0; i < PER; i++)
                tally[i] = 0.5 * tally[i] + b; /* BOUND-TAIL */
    }
#else
    for (int b = 0; b < BLOCKS; b++)
        for (int i = 0; i < PER; i++) {
            x = x * 6364136223846793005ul + 1442695040888963407ul;
            long v = (long)(x >> 40);
            if (v > largest)
                largest = v;
        }
    block_done();
    for (int b = 0; b < BLOCKS; b++) /* BOUND-TAILS */
        if (b == BLOCKS - 1)
            for (int i = 0; i < PER; i++)
                tally[i] = 0.5 * tally[i] + b;
#endif
    MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD); /* BOUND-ALLMAX */
    double t = 0;
    for (int i = 0; i < PER; i++)
        t += tally[i];
    if (rank == 0)
        printf("largest %ld tally %.1f\n", largest, t);
    MPI_Finalize();
    return 0;
}
