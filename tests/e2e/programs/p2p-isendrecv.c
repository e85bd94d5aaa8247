/* p2p-isendrecv.c - MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4)
 * (issue 15, item 4; tests/e2e/mpi-p2p-more.sh checks it by the markers,
 * written below without their comment delimiters):
 *   s1 MPI_Isendrecv (IS-CALL) between the two ranks, completed by IS-WAIT:
 *      after the wait, IS-SWRITE writes the send buffer (MPI reads it until
 *      completion) and IS-USE reads the receive buffer: neither can run
 *      before the wait; IS-INDEP can.  IS-FILL writes the send buffer
 *      before the call.
 *   s2 MPI_Isendrecv_replace (ISR-CALL, ISR-WAIT): ISR-USE reads the buffer
 *      after the wait (never related), ISR-INDEP can run before it.
 * Run on 2 ranks.  Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#define N 64

static int rank, size; /* their addresses go to MPI: traced */
static double sb[N], rb[N], rep[N];
static double wa[N], wb[N];
static double sum;

/* s1 */
static void isendrecv(void)
{
    MPI_Request req;
    MPI_Status st;
    int peer = 1 - rank;
    for (int i = 0; i < N; i++)
        sb[i] = rank + i; /* IS-FILL */
    MPI_Isendrecv(sb, N, MPI_DOUBLE, peer, 31, rb, N, MPI_DOUBLE, peer, 31, /* IS-CALL */
                  MPI_COMM_WORLD, &req);
    MPI_Wait(&req, &st); /* IS-WAIT */
    for (int i = 0; i < N; i++)
        wa[i] = 0.5 * wa[i] + 1.0; /* IS-INDEP */
    for (int i = 0; i < N; i++)
        sb[i] = -1.0; /* IS-SWRITE */
    for (int i = 0; i < N; i++)
        sum += rb[i]; /* IS-USE */
    sum += st.MPI_SOURCE;
}

/* s2 */
static void isendrecv_replace(void)
{
    MPI_Request req;
    int peer = 1 - rank;
    for (int i = 0; i < N; i++)
        rep[i] = 10 * rank + i;
    MPI_Isendrecv_replace(rep, N, MPI_DOUBLE, peer, 32, peer, 32, /* ISR-CALL */
                          MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE); /* ISR-WAIT */
    for (int i = 0; i < N; i++)
        wb[i] = 0.5 * wb[i] + 2.0; /* ISR-INDEP */
    for (int i = 0; i < N; i++)
        sum += rep[i]; /* ISR-USE */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "p2p-isendrecv: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    isendrecv();
    MPI_Barrier(MPI_COMM_WORLD);
    isendrecv_replace();
    for (int i = 0; i < N; i++)
        sum += wa[i] + wb[i] + sb[i];
    double total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p-isendrecv: sum=%.6e\n", total);
    MPI_Finalize();
    return 0;
}
