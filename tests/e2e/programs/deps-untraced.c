/* deps-untraced.c - MPI calls commhint does not wrap (issue 15, item 4;
 * tests/e2e/dependences.sh checks it by the markers): a one-sided
 * exchange, a nonblocking collective and persistent requests.  The pass
 * puts a hook after each of them, and the runtime records them as untraced
 * calls, fences for the analysis; `commhint info` counts them by name.
 *
 * Every pattern: rank 0 sends to rank 1 (UNT-*-SEND, the candidate), then
 * an INDEP loop that can run before the wait of that send, then the
 * untraced calls, then a NEEDED statement that reads what they delivered:
 * it must never be listed as "can run before the wait" of the send, since
 * the send's wait cannot move past calls whose effect is unknown.
 *   u1 UNT-PUT       MPI_Put between two MPI_Win_fence, then the window read
 *   u2 UNT-IBCAST    MPI_Ibcast and its MPI_Wait, then the buffer read
 *   u3 UNT-PERSIST   MPI_Recv_init / MPI_Send_init, MPI_Startall, MPI_Waitall,
 *                    then the received buffer read
 * Run on 2 ranks.  Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#define N 64

static int rank, size;
static double out[N], in[N], win_mem[N], put_src[N], bc[N], pin[N], pout[N];
static double wu[N], wv[N], ww[N];
static double sum;

static void fill(double *p, int n, double v)
{
    for (int i = 0; i < n; i++)
        p[i] = v + i;
}

/* the pair of messages every pattern starts with */
static void exchange_start(int tag)
{
    if (rank == 1) {
        MPI_Recv(in, N, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++)
            sum += in[i];
    }
}

/* u1 */
static void one_sided(MPI_Win win)
{
    MPI_Barrier(MPI_COMM_WORLD);
    exchange_start(21);
    fill(put_src, N, 1.0 + rank);
    if (rank == 0) {
        fill(out, N, 1.0);
        MPI_Send(out, N, MPI_DOUBLE, 1, 21, MPI_COMM_WORLD); /* UNT-PUT-SEND */
        for (int i = 0; i < N; i++)
            wu[i] = 0.5 * wu[i] + 1.0; /* UNT-PUT-INDEP */
    }
    MPI_Win_fence(0, win);
    MPI_Put(put_src, N, MPI_DOUBLE, 1 - rank, 0, N, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    sum += win_mem[3]; /* UNT-PUT */
}

/* u2 */
static void nonblocking_collective(void)
{
    MPI_Request rq;
    MPI_Barrier(MPI_COMM_WORLD);
    exchange_start(22);
    if (rank == 0) {
        fill(bc, N, 2.0);
        fill(out, N, 2.0);
        MPI_Send(out, N, MPI_DOUBLE, 1, 22, MPI_COMM_WORLD); /* UNT-IBCAST-SEND */
        for (int i = 0; i < N; i++)
            wv[i] = 0.5 * wv[i] + 2.0; /* UNT-IBCAST-INDEP */
    }
    MPI_Ibcast(bc, N, MPI_DOUBLE, 1, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    sum += bc[5]; /* UNT-IBCAST */
}

/* u3 */
static void persistent(void)
{
    MPI_Request rq[2];
    int other = 1 - rank;
    MPI_Barrier(MPI_COMM_WORLD);
    exchange_start(23);
    MPI_Recv_init(pin, N, MPI_DOUBLE, other, 24, MPI_COMM_WORLD, &rq[0]);
    MPI_Send_init(pout, N, MPI_DOUBLE, other, 24, MPI_COMM_WORLD, &rq[1]);
    fill(pout, N, 3.0 + rank);
    if (rank == 0) {
        fill(out, N, 3.0);
        MPI_Send(out, N, MPI_DOUBLE, 1, 23, MPI_COMM_WORLD); /* UNT-PERSIST-SEND */
        for (int i = 0; i < N; i++)
            ww[i] = 0.5 * ww[i] + 3.0; /* UNT-PERSIST-INDEP */
    }
    MPI_Startall(2, rq);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    sum += pin[7]; /* UNT-PERSIST */
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
}

int main(int argc, char **argv)
{
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "deps-untraced: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Win_create(win_mem, N * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);
    one_sided(win);
    nonblocking_collective();
    persistent();
    MPI_Win_free(&win);

    double *w[] = {wu, wv, ww};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < N; i++)
            sum += w[k][i];
    double all = 0;
    MPI_Reduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("deps-untraced: sum=%.6e\n", all);
    MPI_Finalize();
    return 0;
}
