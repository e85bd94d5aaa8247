/* deps-register.c - blocking calls whose count, destination, buffer or
 * received value travels through a local (a register at -O2), for the
 * register dependences of issue 15 (tests/e2e/dependences.sh checks them by
 * the markers in the comments).
 *
 * Every pattern has the same shape:
 *
 *     MPI_Barrier                  every global and escaped value is loaded
 *                                  again after it, so the NEEDED line below
 *                                  really loads traced memory at -O2 too
 *     fill the call's buffer       the call depends on it (memory): ends
 *                                  the backward window
 *     NEEDED statement             reads traced memory into a local that
 *                                  the call uses: never a related line
 *     INDEP loop                   an array the call does not touch: "can
 *                                  move after the call"
 *     the call
 *
 * except f and h, whose real overlap is after the call ("can run before the
 * wait"): in f the needed load is the last thing before the receive, so
 * nothing can move after it once that load is seen as a dependence; in h
 * the INDEP loop comes between the receive and the local whose load of the
 * received value ends the forward window.  The patterns (markers without
 * their comment delimiters):
 *   a1 DEP-COUNT-FN      the count of a send comes back from a function
 *                        that reads memory (the line inside it)
 *   a2 DEP-COUNT-EXPR    the count is (int)(scale * 2), scale a global
 *   b  DEP-DEST          the destination is (rank + 1) % size; both ranks
 *                        send (receives posted before)
 *   c  DEP-PTR           the buffer is &grid[row_k][col_off]
 *   d  DEP-MALLOC        the buffer of an MPI_Bcast is malloc'd with a size
 *                        read from memory; the count is a constant, so only
 *                        the pointer links them (the root fills the buffer,
 *                        so the malloc is in the window of rank 1 only)
 *   e  DEP-BCAST-PEER    rank 1 reads the destination MPI_Bcast delivered
 *   f  DEP-ROWS-RECV     the receive's count rows * NCA, rows a global, is
 *                        loaded on the call's own line
 *   h  DEP-RECV-LOCAL    after a receive, a local takes the received value
 *                        (DEP-RECV-USE uses the local, not the buffer);
 *                        already right before issue 15, since the local's
 *                        statement loads the buffer
 * Run on 2 ranks.  Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64
#define ROWS 4
#define COLS 16
#define NCA 8
#define BN 32 /* d: doubles broadcast; bcast_len is 32 on 2 ranks */

static int rank, size; /* their addresses go to MPI: traced */
/* what the NEEDED lines read: set in main from the size, so that -O2
 * cannot fold them into constants */
static int base_count, row_k, col_off, bcast_len;
static double scale;
static int peer_cfg = -1;
static int rows;
static double out[N], in[N], grid[ROWS][COLS], blk[ROWS * NCA];
static double wa[N], wb[N], wc[N], wd[N], we[N], wf[N], wg[N], wh[N];
static double sum;

static void fill(double *p, int n, double v)
{
    for (int i = 0; i < n; i++)
        p[i] = v + i;
}

static void take(const double *p, int n)
{
    for (int i = 0; i < n; i++)
        sum += p[i];
}

/* a1 */
static int count_for(int r)
{
    return base_count + 4 * r; /* DEP-COUNT-FN */
}

static void count_from_function(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        fill(out, N, 1.0);
        int n = count_for(3);
        for (int i = 0; i < N; i++)
            wa[i] = 0.5 * wa[i] + 1.0; /* DEP-COUNT-FN-INDEP */
        MPI_Send(out, n, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD); /* DEP-COUNT-FN-SEND */
    } else {
        MPI_Recv(in, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        take(in, 28);
    }
}

/* a2 */
static void count_from_expression(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        fill(out, N, 2.0);
        int n = (int)(scale * 2); /* DEP-COUNT-EXPR */
        for (int i = 0; i < N; i++)
            wb[i] = 0.5 * wb[i] + 2.0; /* DEP-COUNT-EXPR-INDEP */
        MPI_Send(out, n, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD); /* DEP-COUNT-EXPR-SEND */
    } else {
        MPI_Recv(in, N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        take(in, 24);
    }
}

/* b: both ranks send to the right and receive from the left */
static void dest_in_local(void)
{
    MPI_Request req;
    MPI_Irecv(in, N, MPI_DOUBLE, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    fill(out, N, 3.0);
    int right = (rank + 1) % size; /* DEP-DEST */
    for (int i = 0; i < N; i++)
        wc[i] = 0.5 * wc[i] + 3.0; /* DEP-DEST-INDEP */
    MPI_Send(out, N, MPI_DOUBLE, right, 3, MPI_COMM_WORLD); /* DEP-DEST-SEND */
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    take(in, N);
}

/* c */
static void pointer_in_local(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        fill(&grid[0][0], ROWS * COLS, 4.0);
        double *p = &grid[row_k][col_off]; /* DEP-PTR */
        for (int i = 0; i < N; i++)
            wd[i] = 0.5 * wd[i] + 4.0; /* DEP-PTR-INDEP */
        MPI_Send(p, 8, MPI_DOUBLE, 1, 4, MPI_COMM_WORLD); /* DEP-PTR-SEND */
    } else {
        MPI_Recv(in, 8, MPI_DOUBLE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        take(in, 8);
    }
}

/* d: only the buffer links the malloc to the MPI_Bcast (its count is a
 * constant), so the dependence is on the pointer malloc returns */
static void malloc_then_bcast(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double *buf = malloc(bcast_len * sizeof *buf); /* DEP-MALLOC */
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0)
        fill(buf, BN, 5.0);
    for (int i = 0; i < N; i++)
        we[i] = 0.5 * we[i] + 5.0; /* DEP-MALLOC-INDEP */
    MPI_Bcast(buf, BN, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* DEP-MALLOC-BCAST */
    take(buf, BN);
    free(buf);
}

/* e */
static void peer_from_bcast(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        peer_cfg = 0;
    fill(out, N, 6.0);
    MPI_Bcast(&peer_cfg, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank != 0) {
        int to = peer_cfg; /* DEP-BCAST-PEER */
        for (int i = 0; i < N; i++)
            wf[i] = 0.5 * wf[i] + 6.0; /* DEP-BCAST-PEER-INDEP */
        MPI_Send(out, N, MPI_DOUBLE, to, 5, MPI_COMM_WORLD); /* DEP-BCAST-PEER-SEND */
    } else {
        MPI_Recv(in, N, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        take(in, N);
    }
}

/* f */
static void count_in_arguments(void)
{
    rows = ROWS / size;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        fill(blk, ROWS * NCA, 0.0);
        MPI_Recv(blk, rows * NCA, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* DEP-ROWS-RECV */
        for (int i = 0; i < N; i++)
            wg[i] = 0.5 * wg[i] + 7.0; /* DEP-ROWS-INDEP */
        take(blk, ROWS * NCA);
    } else {
        fill(blk, ROWS * NCA, 7.0);
        MPI_Send(blk, rows * NCA, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD);
    }
}

/* h */
static void received_into_local(void)
{
    int v = 0; /* its address goes to MPI: traced */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* DEP-RECV-CALL */
        for (int i = 0; i < N; i++)
            wh[i] = 0.5 * wh[i] + 8.0; /* DEP-RECV-INDEP */
        int m = v * 2; /* DEP-RECV-LOCAL */
        for (int i = 0; i < N; i++)
            wh[i] += m; /* DEP-RECV-USE */
    } else {
        v = 21;
        MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "deps-register: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    base_count = 8 * size; /* 16: the send of a1 carries 28 doubles */
    scale = 6.0 * size;    /* 12.0: the send of a2 carries 24 */
    row_k = size;          /* c sends grid[2][4..11] */
    col_off = 2 * size;
    bcast_len = 16 * size; /* d: room for the BN doubles broadcast */
    count_from_function();
    count_from_expression();
    dest_in_local();
    pointer_in_local();
    malloc_then_bcast();
    peer_from_bcast();
    count_in_arguments();
    received_into_local();

    double *w[] = {wa, wb, wc, wd, we, wf, wg, wh};
    for (int k = 0; k < 8; k++)
        take(w[k], N);
    double all = 0;
    MPI_Reduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("deps-register: sum=%.6e\n", all);
    MPI_Finalize();
    return 0;
}
