/* coll-offset-rows.c - a master/worker product of a matrix by a vector
 * with the "offset, rows, block" protocol, next to a true reduction, for
 * `commhint hints --kind=collective` (tests/e2e/collectives-protocol.sh
 * checks the hints by the markers in the comments):
 *   - every worker sends the master the offset and the number of its rows
 *     (OFFSET-SEND, ROWS-SEND), then its block of results (BLOCK-SEND); the
 *     master receives offset and rows (OFFSET-RECV, ROWS-RECV) and the block
 *     at &y[offset] with rows * NC doubles (BLOCK-RECV): the received values
 *     are an offset and a count, not combined, so no MPI_Reduce;
 *   - the other way round, the master sends every worker the offset and
 *     the number of its rows (DIST-OFF-SEND, DIST-ROWS-SEND), then its block
 *     of the input at &x[offset * NC] (DIST-BLOCK-SEND); the worker receives
 *     them (DIST-OFF-RECV, DIST-ROWS-RECV, DIST-BLOCK-RECV): MPI_Scatterv;
 *   - counts alone: the master sends every worker a count from one
 *     variable (CNT-SEND), then that many values from one scratch buffer
 *     (CBLK-SEND); the worker sends back a count (CNT2-SEND) and a block
 *     (CBLK2-SEND), which the master receives into one variable
 *     (CNT2-RECV) and one scratch buffer (CBLK2-RECV) and adds up: the
 *     counts are an MPI_Scatter and an MPI_Gather of one value per rank,
 *     the blocks neither a scatter nor a gather (one buffer each time);
 *   - every worker sends a partial sum that the master adds into a local
 *     total (SUM-SEND, SUM-RECV, SUM-ACC): a true reduction, MPI_Reduce.
 * The rows are split unevenly (worker w gets w + 1 row blocks), so the
 * blocks differ in size.  Runs on 4 ranks (any number from 3 works);
 * prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS 3
#define NC 4 /* results per row */
#define TAG_OFF 1
#define TAG_ROWS 2
#define TAG_BLOCK 3
#define TAG_SUM 4
#define TAG_CNT 5
#define TAG_CBLK 6

#define W MPI_COMM_WORLD

/* Rows of worker w (1..p-1): w + 1 blocks of two. */
static int rows_of(int w)
{
    return 2 * (w + 1);
}

static int offset_of(int w)
{
    int off = 0;
    for (int v = 1; v < w; v++)
        off += rows_of(v);
    return off;
}

static void distribute(int p, int it, double *x)
{
    int offset = 0, rows;
    for (int i = 0; i < offset_of(p) * NC; i++)
        x[i] = (double)(i % 7) + it;
    for (int w = 1; w < p; w++) {
        rows = rows_of(w);
        MPI_Send(&offset, 1, MPI_INT, w, TAG_OFF, W);                   /* DIST-OFF-SEND */
        MPI_Send(&rows, 1, MPI_INT, w, TAG_ROWS, W);                    /* DIST-ROWS-SEND */
        MPI_Send(&x[offset * NC], rows * NC, MPI_DOUBLE, w, TAG_BLOCK, W); /* DIST-BLOCK-SEND */
        offset += rows;
    }
}

/* The counts alone, on the master. */
static void counts_master(int p, int it, int *cnt, double *tmp, double *check)
{
    for (int w = 1; w < p; w++) {
        *cnt = w + it + 1;
        for (int i = 0; i < *cnt; i++)
            tmp[i] = w * 0.5 + i;
        MPI_Send(cnt, 1, MPI_INT, w, TAG_CNT, W);             /* CNT-SEND */
        MPI_Send(tmp, *cnt, MPI_DOUBLE, w, TAG_CBLK, W);      /* CBLK-SEND */
    }
    for (int w = 1; w < p; w++) {
        MPI_Recv(cnt, 1, MPI_INT, w, TAG_CNT, W, MPI_STATUS_IGNORE);           /* CNT2-RECV */
        MPI_Recv(tmp, *cnt, MPI_DOUBLE, w, TAG_CBLK, W, MPI_STATUS_IGNORE);    /* CBLK2-RECV */
        double s = 0.0;
        for (int i = 0; i < *cnt; i++)
            s += tmp[i] * (i + 1);
        *check += s;
    }
}

static void counts_worker(int *cnt, double *tmp)
{
    MPI_Recv(cnt, 1, MPI_INT, 0, TAG_CNT, W, MPI_STATUS_IGNORE);               /* CNT-RECV */
    MPI_Recv(tmp, *cnt, MPI_DOUBLE, 0, TAG_CBLK, W, MPI_STATUS_IGNORE);        /* CBLK-RECV */
    for (int i = 0; i < *cnt; i++)
        tmp[i] *= 2.0;
    *cnt -= 1;
    MPI_Send(cnt, 1, MPI_INT, 0, TAG_CNT, W);                                  /* CNT2-SEND */
    MPI_Send(tmp, *cnt, MPI_DOUBLE, 0, TAG_CBLK, W);                           /* CBLK2-SEND */
}

static void master(int p, double *y, double *part, double *check)
{
    int offset, rows;
    for (int w = 1; w < p; w++) {
        MPI_Recv(&offset, 1, MPI_INT, w, TAG_OFF, W, MPI_STATUS_IGNORE); /* OFFSET-RECV */
        MPI_Recv(&rows, 1, MPI_INT, w, TAG_ROWS, W, MPI_STATUS_IGNORE);  /* ROWS-RECV */
        MPI_Recv(&y[offset * NC], rows * NC, MPI_DOUBLE, w, TAG_BLOCK, W, MPI_STATUS_IGNORE); /* BLOCK-RECV */
    }
    double total = 0.0;
    for (int w = 1; w < p; w++) {
        MPI_Recv(part, 1, MPI_DOUBLE, w, TAG_SUM, W, MPI_STATUS_IGNORE); /* SUM-RECV */
        total += *part;                                                  /* SUM-ACC */
    }
    *check += total;
}

static void worker(int rank, int it, double *in, double *blk, double *part)
{
    int offset, rows;
    MPI_Recv(&offset, 1, MPI_INT, 0, TAG_OFF, W, MPI_STATUS_IGNORE);    /* DIST-OFF-RECV */
    MPI_Recv(&rows, 1, MPI_INT, 0, TAG_ROWS, W, MPI_STATUS_IGNORE);     /* DIST-ROWS-RECV */
    MPI_Recv(in, rows * NC, MPI_DOUBLE, 0, TAG_BLOCK, W, MPI_STATUS_IGNORE); /* DIST-BLOCK-RECV */
    double s = 0.0;
    for (int i = 0; i < rows * NC; i++) {
        blk[i] = in[i] * (offset * NC + i) * (it + 1);
        s += blk[i];
    }
    *part = s;
    MPI_Send(&offset, 1, MPI_INT, 0, TAG_OFF, W);                /* OFFSET-SEND */
    MPI_Send(&rows, 1, MPI_INT, 0, TAG_ROWS, W);                 /* ROWS-SEND */
    MPI_Send(blk, rows * NC, MPI_DOUBLE, 0, TAG_BLOCK, W);       /* BLOCK-SEND */
    MPI_Send(part, 1, MPI_DOUBLE, 0, TAG_SUM, W);                /* SUM-SEND */
}

int main(int argc, char **argv)
{
    int rank, p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(W, &rank);
    MPI_Comm_size(W, &p);
    int nrows = offset_of(p);
    double *y = calloc((size_t)nrows * NC + 1, sizeof *y);
    double *blk = calloc((size_t)rows_of(p) * NC, sizeof *blk);
    double *x = calloc((size_t)nrows * NC + 1, sizeof *x);
    double *in = calloc((size_t)rows_of(p) * NC, sizeof *in);
    double *part = malloc(sizeof *part);
    double *tmp = calloc((size_t)p + ITERS + 1, sizeof *tmp);
    int *cnt = malloc(sizeof *cnt);
    double check = 0.0;
    if (!y || !x || !in || !blk || !part || !tmp || !cnt)
        MPI_Abort(W, 1);
    for (int it = 0; it < ITERS; it++) {
        if (rank == 0) {
            distribute(p, it, x);
            master(p, y, part, &check);
            counts_master(p, it, cnt, tmp, &check);
        } else {
            worker(rank, it, in, blk, part);
            counts_worker(cnt, tmp);
        }
    }
    if (rank == 0) {
        for (int i = 0; i < nrows * NC; i++)
            check += y[i];
        printf("coll-offset-rows: ranks=%d checksum=%.1f\n", p, check);
    }
    free(cnt);
    free(tmp);
    free(part);
    free(in);
    free(x);
    free(blk);
    free(y);
    MPI_Finalize();
    return 0;
}
