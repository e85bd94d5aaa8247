/* coll-nonblocking.c - nonblocking and persistent collectives, for
 * tests/e2e/mpi-collectives-nb.sh.  Patterns (markers in comments):
 *   n1 NB-IBCAST     MPI_Sendrecv, an independent loop, MPI_Ibcast and its
 *                    wait, an independent loop, then the buffer read on every
 *                    rank (the root too: with the read on the other ranks
 *                    only, the root's window would have no bound that fits
 *                    every rank, and the merged hint keeps no forward side;
 *                    docs/dependence.md, "One edit for every rank")
 *   n2 NB-IAR        the send buffer written, MPI_Iallreduce, MPI_Sendrecv, a
 *                    blocking MPI_Allreduce and an independent loop between
 *                    the start and the wait; after the wait an independent
 *                    loop, the send buffer rewritten, the result read
 *   n3 NB-A2AV       MPI_Ialltoallv, its wait, an independent loop, then the
 *                    count array rewritten
 *   n4 NB-PERS       MPI_Allreduce_init started in a loop: send buffer
 *                    written, MPI_Start, MPI_Wait, independent loop, result read
 *   n5               other forms once each (Ibarrier, Igatherv, Iscatter,
 *                    Ialltoallw, Alltoallw, Ireduce_scatter_block, Iscan,
 *                    Bcast_c, Iallreduce_c, Allgather_init, Startall)
 * Run on 2 ranks (or more).  Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64
#define R 8 /* ranks at most */

static int rank, size;
static double out[N], in[N], bc[N], sa[N], ra[N], x[N], y[N], pa[N], pr[N];
static double wu[N], wv[N], ww[N], wz[N];
static double a2s[N * R], a2r[N * R];
static int scounts[R], sdispls[R], rcounts[R], rdispls[R];
static double sum;

static void fill(double *p, int n, double v)
{
    for (int i = 0; i < n; i++)
        p[i] = v + i;
}

/* n1 */
static void ibcast(void)
{
    MPI_Request rq;
    int other = 1 - rank % 2 * 2 + rank; /* 0<->1, 2<->3 ... */
    if (other >= size)
        other = MPI_PROC_NULL;
    MPI_Sendrecv(out, N, MPI_DOUBLE, other, 11, in, N, MPI_DOUBLE, other, 11, /* NB-IBCAST-SR */
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
        wu[i] = 0.5 * wu[i] + 1.0; /* NB-IBCAST-INDEP */
    MPI_Ibcast(bc, N, MPI_DOUBLE, 0, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE); /* NB-IBCAST-WAIT */
    for (int i = 0; i < N; i++)
        ww[i] = 0.5 * ww[i] + 7.0; /* NB-IBCAST-INDEPW */
    sum += bc[5]; /* NB-IBCAST-READ */
}

/* n2 */
static void iallreduce(void)
{
    MPI_Request rq;
    int other = 1 - rank % 2 * 2 + rank;
    if (other >= size)
        other = MPI_PROC_NULL;
    for (int i = 0; i < N; i++)
        sa[i] = i + rank; /* NB-IAR-WSEND */
    for (int i = 0; i < N; i++)
        wv[i] = 0.5 * wv[i] + 2.0; /* NB-IAR-INDEPB */
    MPI_Iallreduce(sa, ra, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq);
    MPI_Sendrecv(out, N, MPI_DOUBLE, other, 12, in, N, MPI_DOUBLE, other, 12, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Allreduce(x, y, N, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD); /* NB-AR-C */
    for (int i = 0; i < N; i++)
        ww[i] = 0.5 * ww[i] + 3.0; /* NB-IAR-INDEPA */
    MPI_Wait(&rq, MPI_STATUS_IGNORE); /* NB-IAR-WAIT */
    for (int i = 0; i < N; i++)
        wz[i] = 0.5 * wz[i] + 4.0; /* NB-IAR-INDEPW */
    for (int i = 0; i < N; i++)
        sa[i] = -i; /* NB-IAR-WSEND2 */
    sum += ra[3]; /* NB-IAR-READ */
    sum += y[2] + in[1];
}

/* n3 */
static void ialltoallv(void)
{
    MPI_Request rq;
    for (int r = 0; r < size; r++) {
        scounts[r] = rcounts[r] = 4;
        sdispls[r] = rdispls[r] = 8 * r;
    }
    fill(a2s, N * R, rank);
    MPI_Ialltoallv(a2s, scounts, sdispls, MPI_DOUBLE, a2r, rcounts, rdispls, MPI_DOUBLE,
                   MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE); /* NB-A2AV-WAIT */
    for (int i = 0; i < N; i++)
        wu[i] = 0.5 * wu[i] + 5.0; /* NB-A2AV-INDEP */
    scounts[0] = 3; /* NB-A2AV-ARRAYS */
    sum += a2r[1] + scounts[0];
}

/* n4 */
static void persistent(void)
{
    MPI_Request rq;
    MPI_Allreduce_init(pa, pr, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < N; i++)
            pa[i] = k + i + rank;
        MPI_Start(&rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE); /* NB-PERS-WAIT */
        for (int i = 0; i < N; i++)
            wv[i] = 0.5 * wv[i] + 6.0; /* NB-PERS-INDEP */
        sum += pr[k]; /* NB-PERS-READ */
    }
    MPI_Request_free(&rq);
}

/* n5 */
static void others(void)
{
    MPI_Request rq[4];
    int one[R], disp[R], bdisp[R];
    MPI_Datatype types[R];
    for (int r = 0; r < size; r++) {
        one[r] = 2;
        disp[r] = 2 * r;
        bdisp[r] = 2 * r * (int)sizeof(double);
        types[r] = MPI_DOUBLE;
    }
    fill(x, N, rank);
    MPI_Ibarrier(MPI_COMM_WORLD, &rq[0]);
    MPI_Igatherv(x, 2, MPI_DOUBLE, y, one, disp, MPI_DOUBLE, 0, MPI_COMM_WORLD, &rq[1]);
    MPI_Iscatter(x, 2, MPI_DOUBLE, in, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD, &rq[2]);
    MPI_Ialltoallw(x, one, bdisp, types, a2r, one, bdisp, types, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    sum += y[0] + in[1] + a2r[2];
    MPI_Alltoallw(x, one, bdisp, types, a2s, one, bdisp, types, MPI_COMM_WORLD);
    sum += a2s[3];
    MPI_Ireduce_scatter_block(x, y, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
    MPI_Iscan(x, out, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    sum += y[1] + out[2];
    MPI_Bcast_c(bc, (MPI_Count)N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Iallreduce_c(x, ra, (MPI_Count)N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[0]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    sum += bc[1] + ra[1];
    MPI_Allgather_init(x, 2, MPI_DOUBLE, a2s, 2, MPI_DOUBLE, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]);
    for (int k = 0; k < 2; k++) {
        MPI_Startall(2, rq);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        sum += a2s[k];
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size > R) {
        if (rank == 0)
            fprintf(stderr, "coll-nonblocking: run on 2 to %d ranks\n", R);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fill(out, N, 1.0);
    fill(bc, N, 2.0 + rank);
    fill(x, N, 3.0 + rank);
    ibcast();
    iallreduce();
    ialltoallv();
    persistent();
    others();
    double total = 0;
    for (int i = 0; i < N; i++)
        total += wu[i] + wv[i] + ww[i] + wz[i];
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &sum, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll-nonblocking: sum=%.6e work=%.6e\n", sum, total);
    MPI_Finalize();
    return 0;
}
