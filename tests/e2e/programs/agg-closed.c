/* agg-closed.c - sends to one rank that stay apart, and why
 * (tests/e2e/aggregate-closed.sh, docs/dependence.md "What --explain says
 * of closed groups").  Runs on an even number of ranks; rank r pairs
 * with r ^ 1.
 *   FLOW: the second exchange sends what a statement computed from the
 *     first exchange's receive: a flow dependence closes the group;
 *   FENCE: MPI_Comm_dup between two sends to the partner: nothing moves
 *     across it;
 *   WAITED: even ranks pack a staging buffer, send it, receive a reply,
 *     then pack the buffer again and send it: the second packing
 *     overwrites the first send's buffer after the group passed a receive,
 *     so even the needs-buffer variant does not apply. */
#include <mpi.h>
#include <stdio.h>

#define N 32

static double s1[N], r1[N], s2[N], r2[N]; /* FLOW */
static double f1[N], f2[N];               /* FENCE */
static double stage[N], reply[N];         /* WAITED */

static double flow(int partner, int it)
{
    for (int i = 0; i < N; i++)
        s1[i] = partner + i + it;
    MPI_Sendrecv(s1, N, MPI_DOUBLE, partner, 1, r1, N, MPI_DOUBLE, partner, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE); /* FLOW-1 */
    for (int i = 0; i < N; i++)
        s2[i] = 2 * r1[i]; /* FLOW-X */
    MPI_Sendrecv(s2, N, MPI_DOUBLE, partner, 2, r2, N, MPI_DOUBLE, partner, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE); /* FLOW-2 */
    return r2[0] + r2[N - 1];
}

static double fence(int rank, int partner)
{
    MPI_Comm dup;
    if (rank % 2 == 0) {
        for (int i = 0; i < N; i++)
            f1[i] = f2[i] = rank + i;
        MPI_Send(f1, N, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD); /* FENCE-1 */
        MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* FENCE-X */
        MPI_Send(f2, N, MPI_DOUBLE, partner, 4, MPI_COMM_WORLD); /* FENCE-2 */
    } else {
        MPI_Recv(f1, N, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Recv(f2, N, MPI_DOUBLE, partner, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&dup);
    return f1[0] + f2[N - 1];
}

static double waited(int rank, int partner, int it)
{
    if (rank % 2 == 0) {
        for (int i = 0; i < N; i++)
            stage[i] = i + it;
        MPI_Send(stage, N, MPI_DOUBLE, partner, 5, MPI_COMM_WORLD); /* WAIT-1 */
        MPI_Recv(reply, N, MPI_DOUBLE, partner, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* WAIT-R */
        for (int i = 0; i < N; i++)
            stage[i] = i - it; /* WAIT-X */
        MPI_Send(stage, N, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD); /* WAIT-2 */
    } else {
        MPI_Recv(stage, N, MPI_DOUBLE, partner, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(stage, N, MPI_DOUBLE, partner, 6, MPI_COMM_WORLD);
        MPI_Recv(stage, N, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return stage[1];
}

int main(int argc, char **argv)
{
    int rank, size;
    double total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2 == 0) {
        for (int it = 0; it < 3; it++) {
            total += flow(rank ^ 1, it);
            total += fence(rank, rank ^ 1);
            total += waited(rank, rank ^ 1, it);
        }
    }
    if (rank == 0)
        printf("checksum %g\n", total);
    MPI_Finalize();
    return 0;
}
