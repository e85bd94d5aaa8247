/* coll-grid2.c - a process grid with a row and a column communicator per
 * rank (MPI_Comm_split), for the collective search on communicators of two
 * ranks (tests/e2e/collectives-grid.sh checks the hints by the markers in
 * the comments).  Each iteration:
 *   - the first rank of every row computes a vector and passes it along its
 *     row in a hand-written ring: each rank receives it from its left
 *     neighbour (RING-RECV) and sends it on to its right one (RING-SEND)
 *     unless it is the last: a broadcast, MPI_Bcast;
 *   - the first rank of every column receives a block of results from
 *     every other rank of its column (GATHER-RECV) into its slot of one
 *     array, each sending its block (GATHER-SEND): MPI_Gather.
 * The grid has as many rows as the largest divisor of the rank count not
 * above its square root: 4 ranks are 2x2 (every row and column
 * communicator has two ranks: each round is one message, no collective is
 * searched), 9 ranks 3x3 (both are collectives), 6 ranks 2 rows of 3 (the
 * ring is a broadcast, the columns have two ranks).  Prints one checksum
 * line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#define ITERS 3
#define N 16 /* doubles passed along a row */
#define K 4  /* doubles gathered per rank */
#define TAG_RING 1
#define TAG_GATHER 2
#define MAXROWS 16

/* The number of rows: the largest divisor of p not above its square root. */
static int rows_of(int p)
{
    int best = 1;
    for (int r = 1; r * r <= p; r++)
        if (p % r == 0)
            best = r;
    return best;
}

/* The ring along a row: the row's rank 0 fills v, the others receive it
 * from the left and pass it on to the right. */
static void row_ring(MPI_Comm row, int it, double *v)
{
    int me, n;
    MPI_Comm_rank(row, &me);
    MPI_Comm_size(row, &n);
    if (me == 0)
        for (int i = 0; i < N; i++)
            v[i] = (double)(i + 1) * (it + 1);
    else
        MPI_Recv(v, N, MPI_DOUBLE, me - 1, TAG_RING, row, MPI_STATUS_IGNORE); /* RING-RECV */
    if (me + 1 < n)
        MPI_Send(v, N, MPI_DOUBLE, me + 1, TAG_RING, row); /* RING-SEND */
}

/* The gather down a column: rank 0 of the column receives every other
 * rank's block into its slot of all. */
static void column_gather(MPI_Comm col, const double *mine, double *all)
{
    int me, n;
    MPI_Comm_rank(col, &me);
    MPI_Comm_size(col, &n);
    if (me == 0) {
        for (int k = 0; k < K; k++)
            all[k] = mine[k];
        for (int i = 1; i < n; i++)
            MPI_Recv(&all[i * K], K, MPI_DOUBLE, i, TAG_GATHER, col, MPI_STATUS_IGNORE); /* GATHER-RECV */
    } else {
        MPI_Send(mine, K, MPI_DOUBLE, 0, TAG_GATHER, col); /* GATHER-SEND */
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rows = rows_of(size), cols = size / rows;
    if (rows > MAXROWS) {
        if (!rank)
            fprintf(stderr, "coll-grid2: at most %d rows\n", MAXROWS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int myrow = rank / cols, mycol = rank % cols;
    MPI_Comm row, col;
    MPI_Comm_split(MPI_COMM_WORLD, myrow, mycol, &row);
    MPI_Comm_split(MPI_COMM_WORLD, mycol, myrow, &col);

    double v[N], mine[K], all[MAXROWS * K], local = 0.0;
    for (int it = 0; it < ITERS; it++) {
        row_ring(row, it, v);
        for (int k = 0; k < K; k++)
            mine[k] = v[k * (N / K)] * (rank + 1);
        column_gather(col, mine, all);
        if (myrow == 0)
            for (int i = 0; i < rows * K; i++)
                local += all[i];
    }
    double total = 0.0;
    MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (!rank)
        printf("coll-grid2: ranks=%d grid=%dx%d checksum=%.1f\n", size, rows, cols, total);
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    MPI_Finalize();
    return 0;
}
