/* sized-parts.c - a master hands each worker a block whose length it sends
 * first, then the block (tutorial style: MPI_Send of the length, MPI_Send
 * of that many doubles), and the worker sends back its block's sum the
 * same way; over a few rounds with a different length per worker and
 * round.
 *
 * What commhint should say: the two sends to one worker can be one message
 * (aggregation), but the worker's receive of the block takes its count from
 * the length received just before it, so the fix must say that the one
 * receive cannot be sized from it: the largest count, or MPI_Probe and
 * MPI_Get_count (tests/e2e/hints.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 4
#define MAXLEN 4096

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *block = malloc(MAXLEN * sizeof *block);
    if (!block) {
        fprintf(stderr, "sized-parts: out of memory: doubles=%d\n", MAXLEN);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double total = 0.0;
    for (int round = 0; round < ROUNDS; round++) {
        if (rank == 0) {
            for (int w = 1; w < size; w++) {
                int len = 1000 + 250 * ((w + round) % 4);
                for (int i = 0; i < len; i++)
                    block[i] = (double)(w * round + i % 7);
                MPI_Send(&len, 1, MPI_INT, w, 1, MPI_COMM_WORLD);          /* SEND-LEN */
                MPI_Send(block, len, MPI_DOUBLE, w, 2, MPI_COMM_WORLD);    /* SEND-BLOCK */
            }
            for (int w = 1; w < size; w++) {
                double s;
                MPI_Recv(&s, 1, MPI_DOUBLE, w, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                total += s;
            }
        } else {
            int len;
            MPI_Recv(&len, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);           /* RECV-LEN */
            MPI_Recv(block, len, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);     /* RECV-BLOCK */
            double s = 0.0;
            for (int i = 0; i < len; i++)
                s += block[i] * block[i];
            MPI_Send(&s, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
        }
    }
    if (rank == 0)
        printf("sized-parts: ranks=%d total=%.1f\n", size, total);
    free(block);
    MPI_Finalize();
    return 0;
}
