/*
 * round-sum.c - a master/worker sum over rounds, written the way tutorial
 * codes write it: every rank computes a value each round, the workers send
 * theirs to rank 0 with the round as the tag, and rank 0 receives them
 * from any source in a loop, adding them to a sum that starts at 0; its
 * own value is added after the loop.
 *
 * What commhint should say (tests/e2e/hints.sh):
 *  - overlap: the first receive of a round depends on nothing of that
 *    round (the sum of the round before was taken at the end of the
 *    receive loop), so it can start right after the receive loop of the
 *    round before (the first one before the rounds' loop), with the next
 *    round's tag, and rank 0's own computation (WORK) runs meanwhile;
 *  - collective: the receives and sends are an MPI_Reduce with MPI_SUM
 *    whose root passes what its sum starts from (0), not its own value,
 *    which the program still adds after the loop.
 *
 * Usage: round-sum [rounds] [work]     default: rounds=8 work=200000
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double work(int rank, int round, int n)
{
    double s = 0.0;
    for (int k = 1; k <= n; k++) /* WORK */
        s += 1.0 / ((double)k * k + rank + round);
    return s;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 8, n = argc > 2 ? atoi(argv[2]) : 200000;
    double total = 0.0;
    for (int r = 0; r < rounds; r++) { /* ROUNDS */
        double mine = work(rank, r, n);
        if (rank != 0) {
            MPI_Send(&mine, 1, MPI_DOUBLE, 0, r, MPI_COMM_WORLD); /* SEND */
        } else {
            double sum = 0.0, got;
            MPI_Status st;
            for (int q = 1; q < size; q++) { /* RECEIVES */
                MPI_Recv(&got, 1, MPI_DOUBLE, MPI_ANY_SOURCE, r, MPI_COMM_WORLD, &st); /* RECV */
                sum = sum + got; /* ADD */
            }
            total += (sum + mine) / size;
        }
    }
    if (rank == 0)
        printf("round-sum: ranks=%d rounds=%d mean=%.12f\n", size, rounds, total / rounds);
    MPI_Finalize();
    return 0;
}
