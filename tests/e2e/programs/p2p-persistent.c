/* p2p-persistent.c - persistent point-to-point requests (issue 15, item 4;
 * tests/e2e/mpi-p2p-more.sh checks it by the markers, written below without
 * their comment delimiters).  Each start is recorded as the nonblocking
 * call it behaves as, matched per start across ranks:
 *   q1 MPI_Recv_init + MPI_Send_init, started together with MPI_Startall
 *      ITERS times and completed by PS-WAIT (MPI_Waitall): after the wait,
 *      PS-USE reads the receive buffer and PS-SWRITE writes the send buffer
 *      (MPI reads it until completion): neither can run before the wait;
 *      PS-INDEP can.
 *   q2 MPI_Send_init started with MPI_Start, a blocking MPI_Recv from the
 *      other rank, then PS1-WAIT (MPI_Wait) completes the send: PS1-SWRITE
 *      rewrites the send buffer after it (never related), PS1-INDEP can run
 *      before it.
 * Run on 2 ranks.  Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#define N 64
#define ITERS 4

static int rank, size; /* their addresses go to MPI: traced */
static double ps[N], pr[N], qs[N], qr[N];
static double wa[N], wb[N];
static double sum;

/* q1 */
static void persistent_pair(void)
{
    MPI_Request rq[2];
    int peer = 1 - rank;
    MPI_Recv_init(pr, N, MPI_DOUBLE, peer, 51, MPI_COMM_WORLD, &rq[0]);
    MPI_Send_init(ps, N, MPI_DOUBLE, peer, 51, MPI_COMM_WORLD, &rq[1]);
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < N; i++)
            ps[i] = rank + it + i; /* PS-FILL */
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE); /* PS-WAIT */
        for (int i = 0; i < N; i++)
            wa[i] = 0.5 * wa[i] + 1.0; /* PS-INDEP */
        for (int i = 0; i < N; i++)
            sum += pr[i]; /* PS-USE */
        for (int i = 0; i < N; i++)
            ps[i] = -1.0; /* PS-SWRITE */
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
}

/* q2 */
static void persistent_send(void)
{
    MPI_Request rq;
    int peer = 1 - rank;
    MPI_Send_init(qs, N, MPI_DOUBLE, peer, 52, MPI_COMM_WORLD, &rq);
    for (int it = 0; it < ITERS; it++) {
        for (int i = 0; i < N; i++)
            qs[i] = 10 * rank + it + i;
        MPI_Start(&rq);
        MPI_Recv(qr, N, MPI_DOUBLE, peer, 52, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&rq, MPI_STATUS_IGNORE); /* PS1-WAIT */
        for (int i = 0; i < N; i++)
            wb[i] = 0.5 * wb[i] + 2.0; /* PS1-INDEP */
        for (int i = 0; i < N; i++)
            qs[i] = -2.0; /* PS1-SWRITE */
        for (int i = 0; i < N; i++)
            sum += qr[i];
    }
    MPI_Request_free(&rq);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "p2p-persistent: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    persistent_pair();
    MPI_Barrier(MPI_COMM_WORLD);
    persistent_send();
    for (int i = 0; i < N; i++)
        sum += wa[i] + wb[i] + ps[i] + qs[i];
    double total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p-persistent: sum=%.6e\n", total);
    MPI_Finalize();
    return 0;
}
