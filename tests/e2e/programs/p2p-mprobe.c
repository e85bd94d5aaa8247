/* p2p-mprobe.c - matched probes, a large-count send and receive, and a
 * cancelled receive (issue 15, item 4; tests/e2e/mpi-p2p-more.sh checks it
 * by the markers, written below without their comment delimiters):
 *   m1 MPI_Mprobe + MPI_Mrecv into a buffer malloc'd from the probed count:
 *      MP-COUNT (the count taken from the probe's status) and MP-MALLOC
 *      feed the MPI_Mrecv at MP-MRECV: never "can move after" it; MP-INDEP
 *      can.  After it, MP-STATUS and MP-USE read its status and buffer:
 *      never "can run before the wait"; MP-RECV-INDEP can.
 *   m2 MPI_Improbe + MPI_Imrecv + MPI_Wait (IM-WAIT): IM-USE reads the
 *      buffer after the wait (never related), IM-INDEP can run before it.
 *   m3 MPI_Mprobe of MPI_PROC_NULL + MPI_Mrecv of MPI_MESSAGE_NO_PROC.
 *   c1 MPI_Send_c / MPI_Recv_c (LC-SEND, LC-RECV), matched.
 *   x1 a receive nobody sends to, cancelled (CANCEL-IRECV, CANCEL,
 *      CANCEL-WAIT, CANCEL-TEST), then a real message on the same channel
 *      (CANCEL-RECV): the cancelled receive moves no message and the real
 *      one still matches its send.
 * Run on 2 ranks.  Prints one checksum line on rank 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64

static int rank, size; /* their addresses go to MPI: traced */
static double out[N], in[N];
static double *mbuf;    /* m1: allocated from the probed count */
static int cnt, rcount; /* cnt's address goes to MPI_Get_count */
static double wa[N], wb[N], wc[N];
static double sum;

static void fill(double *p, int n, double v)
{
    for (int i = 0; i < n; i++)
        p[i] = v + i;
}

/* m1 */
static void mprobe_mrecv(void)
{
    MPI_Message msg;
    MPI_Status st, st2;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Mprobe(0, 21, MPI_COMM_WORLD, &msg, &st); /* MP-PROBE */
        MPI_Get_count(&st, MPI_DOUBLE, &cnt);
        rcount = cnt < N ? cnt : N; /* MP-COUNT */
        mbuf = malloc((size_t)rcount * sizeof *mbuf); /* MP-MALLOC */
        for (int i = 0; i < N; i++)
            wa[i] = 0.5 * wa[i] + 1.0; /* MP-INDEP */
        MPI_Mrecv(mbuf, rcount, MPI_DOUBLE, &msg, &st2); /* MP-MRECV */
        for (int i = 0; i < N; i++)
            wb[i] = 0.5 * wb[i] + 2.0; /* MP-RECV-INDEP */
        sum += st2.MPI_SOURCE + st2.MPI_TAG; /* MP-STATUS */
        for (int i = 0; i < rcount; i++)
            sum += mbuf[i]; /* MP-USE */
        free(mbuf);
    } else {
        fill(out, N, 1.0);
        MPI_Send(out, N / 2, MPI_DOUBLE, 1, 21, MPI_COMM_WORLD);
    }
}

/* m2 */
static void improbe_imrecv(void)
{
    MPI_Message msg;
    MPI_Status st;
    MPI_Request req;
    int flag = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        while (!flag)
            MPI_Improbe(0, 22, MPI_COMM_WORLD, &flag, &msg, &st);
        MPI_Imrecv(in, N, MPI_DOUBLE, &msg, &req); /* IM-IMRECV */
        MPI_Wait(&req, &st); /* IM-WAIT */
        for (int i = 0; i < N; i++)
            wc[i] = 0.5 * wc[i] + 3.0; /* IM-INDEP */
        for (int i = 0; i < N; i++)
            sum += in[i]; /* IM-USE */
    } else {
        fill(out, N, 2.0);
        MPI_Send(out, N, MPI_DOUBLE, 1, 22, MPI_COMM_WORLD);
    }
}

/* m3 */
static void mprobe_proc_null(void)
{
    MPI_Message msg;
    MPI_Status st;
    MPI_Mprobe(MPI_PROC_NULL, 23, MPI_COMM_WORLD, &msg, &st); /* NP-PROBE */
    MPI_Mrecv(in, N, MPI_DOUBLE, &msg, &st); /* NP-MRECV */
    sum += st.MPI_SOURCE == MPI_PROC_NULL;
}

/* c1 */
static void large_count(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        fill(out, N, 4.0);
        MPI_Send_c(out, (MPI_Count)N, MPI_DOUBLE, 1, 24, MPI_COMM_WORLD); /* LC-SEND */
    } else {
        MPI_Recv_c(in, (MPI_Count)N, MPI_DOUBLE, 0, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* LC-RECV */
        for (int i = 0; i < N; i++)
            sum += in[i];
    }
}

/* x1 */
static void cancelled(void)
{
    MPI_Request req;
    MPI_Status st;
    int flag = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Irecv(in, N, MPI_DOUBLE, 0, 25, MPI_COMM_WORLD, &req); /* CANCEL-IRECV */
        MPI_Cancel(&req); /* CANCEL */
        MPI_Wait(&req, &st); /* CANCEL-WAIT */
        MPI_Test_cancelled(&st, &flag); /* CANCEL-TEST */
        sum += flag;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        fill(out, N, 5.0);
        MPI_Send(out, N, MPI_DOUBLE, 1, 25, MPI_COMM_WORLD); /* CANCEL-SEND */
    } else {
        MPI_Recv(in, N, MPI_DOUBLE, 0, 25, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* CANCEL-RECV */
        for (int i = 0; i < N; i++)
            sum += in[i];
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "p2p-mprobe: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    mprobe_mrecv();
    improbe_imrecv();
    mprobe_proc_null();
    large_count();
    cancelled();
    for (int i = 0; i < N; i++)
        sum += wa[i] + wb[i] + wc[i];
    if (rank == 1)
        printf("p2p-mprobe: sum=%.6e\n", sum);
    MPI_Finalize();
    return 0;
}
