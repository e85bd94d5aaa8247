/* coll-tree.c - broadcasts the collective search finds through records
 * none of the root's streams covers (tests/e2e/collectives-candidates.sh):
 *   t1 a binomial tree written by hand: the root sends to log2(P) ranks,
 *      which forward the bytes unchanged to the others (MPI_Bcast);
 *   t2 the root sends every rank the same buffer on a tag of its own
 *      (MPI_Bcast: one group of the same bytes, no stream that covers);
 *   t3 a ring exchange with both neighbours every step, which no pattern
 *      can use (its records are withheld from the search);
 *   t4 a gather of one value per rank at rank 0, every step, plus one
 *      more receive at the same call site from rank 1 alone on another
 *      tag: the gather covers some iterations only.
 * Prints a checksum so that traced and untraced runs can be compared.
 */
#include <mpi.h>
#include <stdio.h>

#define N 64
#define STEPS 4

static void tree_bcast(double *buf, int rank, int size)
{
    int mask = 1;
    while (mask < size) {
        if (rank & mask) {
            MPI_Recv(buf, N, MPI_DOUBLE, rank - mask, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* t1-recv */
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rank + mask < size)
            MPI_Send(buf, N, MPI_DOUBLE, rank + mask, 7, MPI_COMM_WORLD); /* t1-send */
}

int main(int argc, char **argv)
{
    int rank, size;
    double buf[N], cfg[8], edge[8], halo[2][8], part, parts[64], sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 64)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int step = 0; step < STEPS; step++) {
        if (rank == 0)
            for (int i = 0; i < N; i++)
                buf[i] = step + 0.5 * i;
        tree_bcast(buf, rank, size);

        if (rank == 0) {
            for (int i = 0; i < 8; i++)
                cfg[i] = step * 10 + i;
            for (int d = 1; d < size; d++)
                MPI_Send(cfg, 8, MPI_DOUBLE, d, 100 + d, MPI_COMM_WORLD); /* t2-send */
        } else {
            MPI_Recv(cfg, 8, MPI_DOUBLE, 0, 100 + rank, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* t2-recv */
        }

        for (int i = 0; i < 8; i++)
            edge[i] = buf[i] * (rank + 1) + cfg[i];
        int left = (rank + size - 1) % size, right = (rank + 1) % size;
        MPI_Request rq[4];
        MPI_Irecv(halo[0], 8, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq[0]);  /* t3-irecv */
        MPI_Irecv(halo[1], 8, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &rq[1]); /* t3-irecv */
        MPI_Isend(edge, 8, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &rq[2]);    /* t3-isend */
        MPI_Isend(edge, 8, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &rq[3]);     /* t3-isend */
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);

        part = halo[0][0] + halo[1][7];
        int tag = 3, from = size - 1;
        if (step == STEPS - 1) { /* the last step: rank 1 alone, on tag 4 */
            tag = 4;
            from = 1;
        }
        if (rank == 0) {
            for (int q = 1; q <= from; q++)
                MPI_Recv(&parts[q], 1, MPI_DOUBLE, q, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* t4-recv */
            for (int q = 1; q <= from; q++)
                sum += parts[q];
        } else if (rank <= from) {
            MPI_Send(&part, 1, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD); /* t4-send */
        }
    }
    if (rank == 0)
        printf("checksum %.3f %.3f %.3f\n", sum, buf[N - 1], cfg[7]);
    MPI_Finalize();
    return 0;
}
