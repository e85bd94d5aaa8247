/* agg-staging.c - faces packed into one reused staging buffer and sent
 * one by one (tests/e2e/aggregate-buffer.sh): the sends are one message
 * only if each gets its own buffer (needs-buffer); faces packed into
 * distinct buffers are one message as they are; a second message
 * computed from what the first exchange received gets no hint. */
#include <mpi.h>
#include <stdio.h>

#define N 64
#define STEPS 4

static double u[4][N], v[N], w[N], stage[N], got[N], sum;

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Comm dbc, flc; /* each part on a channel of its own */
    MPI_Comm_dup(MPI_COMM_WORLD, &dbc);
    MPI_Comm_dup(MPI_COMM_WORLD, &flc);
    for (int f = 0; f < 4; f++)
        for (int i = 0; i < N; i++)
            u[f][i] = rank * 100 + f * 10 + i;
    for (int s = 0; s < STEPS; s++) {
        /* one staging buffer, reused for every face */
        for (int i = 0; i < N; i++)
            stage[i] = u[0][i] + s; /* PACK-1 */
        MPI_Send(stage, N, MPI_DOUBLE, right, 1, MPI_COMM_WORLD); /* ST-1 */
        for (int i = 0; i < N; i++)
            stage[i] = u[1][i] + s; /* PACK-2 */
        MPI_Send(stage, N, MPI_DOUBLE, right, 2, MPI_COMM_WORLD); /* ST-2 */
        for (int i = 0; i < N; i++)
            stage[i] = u[2][i] + s; /* PACK-3 */
        MPI_Send(stage, N, MPI_DOUBLE, right, 3, MPI_COMM_WORLD); /* ST-3 */
        for (int t = 1; t <= 3; t++) {
            MPI_Recv(got, N, MPI_DOUBLE, left, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += got[t];
        }
        /* distinct buffers: one message as they are */
        for (int i = 0; i < N; i++) {
            v[i] = u[3][i] * 2;
            w[i] = u[3][i] * 3;
        }
        MPI_Send(v, N, MPI_DOUBLE, right, 4, dbc); /* DB-1 */
        MPI_Send(w, N, MPI_DOUBLE, right, 5, dbc); /* DB-2 */
        MPI_Recv(got, N, MPI_DOUBLE, left, 4, dbc, MPI_STATUS_IGNORE);
        sum += got[1];
        MPI_Recv(got, N, MPI_DOUBLE, left, 5, dbc, MPI_STATUS_IGNORE);
        sum += got[2];
        /* flow: the second message is computed from the first's reply */
        MPI_Send(stage, N, MPI_DOUBLE, right, 6, flc); /* FL-1 */
        MPI_Recv(got, N, MPI_DOUBLE, left, 6, flc, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            stage[i] = got[i] * 0.5;
        MPI_Send(stage, N, MPI_DOUBLE, right, 7, flc); /* FL-2 */
        MPI_Recv(got, N, MPI_DOUBLE, left, 7, flc, MPI_STATUS_IGNORE);
        sum += got[3];
    }
    double all;
    MPI_Reduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.1f\n", all);
    MPI_Comm_free(&dbc);
    MPI_Comm_free(&flc);
    MPI_Finalize();
    return 0;
}
