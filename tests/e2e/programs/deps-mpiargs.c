/* deps-mpiargs.c - memory MPI calls touch besides their buffers (issue 15,
 * item 3; tests/e2e/dependences.sh checks it by the markers): the status a
 * receive fills, the count MPI_Get_count writes from it, the count and
 * displacement arrays of a v-collective, the request array MPI_Waitall
 * reads and resets.  Each pattern has a NEEDED statement (it reads what
 * the call wrote, or writes what the call reads: never a related line of
 * the call) and an INDEP loop next to it (an array the call does not
 * touch: still a related line).  The patterns (markers without their
 * comment delimiters):
 *   i1 ARG-STATUS      after a receive, the source is read from its status
 *   i2 ARG-GETCOUNT    after a receive, MPI_Get_count reads its status and
 *                      the count it wrote is used
 *   i3 ARG-VCOUNTS / ARG-VDISPLS   the count and displacement arrays of an
 *                      MPI_Allgatherv, computed right before it; the last
 *                      test of the displacements' loop (ARG-VDISPLS-LOOP)
 *                      is in the window at -O0, but listed alone its `for`
 *                      line would read as the loop moving: it is not listed
 *   i4 ARG-REQS        after MPI_Waitall, its request array is read
 *   i5 ARG-RCOUNTS / ARG-RDISPLS   the count and displacement arrays of a
 *                      rooted MPI_Gatherv, computed right before it: the
 *                      root reads them, the other rank does not (its
 *                      backward window reaches past them), and one edit
 *                      must hold on both; the work after the call
 *                      (ARG-ROOTED-INDEP) runs before the wait on both
 * Run on 2 ranks.  Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64

static int rank, size; /* their addresses go to MPI: traced */
static double out[N], in[N], gathered[2 * N];
static double wi[N], wj[N], wk[N], wl[N], wm[N];
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

/* i1 */
static void status_fields(void)
{
    MPI_Status st;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Recv(in, N, MPI_DOUBLE, 0, 11, MPI_COMM_WORLD, &st); /* ARG-STATUS-RECV */
        for (int i = 0; i < N; i++)
            wi[i] = 0.5 * wi[i] + 1.0; /* ARG-STATUS-INDEP */
        sum += st.MPI_SOURCE + st.MPI_TAG; /* ARG-STATUS */
        take(in, N);
    } else {
        fill(out, N, 1.0);
        MPI_Send(out, N, MPI_DOUBLE, 1, 11, MPI_COMM_WORLD);
    }
}

/* i2 */
static void count_of_status(void)
{
    MPI_Status st;
    int got = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        MPI_Recv(in, N, MPI_DOUBLE, 0, 12, MPI_COMM_WORLD, &st); /* ARG-GETCOUNT-RECV */
        for (int i = 0; i < N; i++)
            wj[i] = 0.5 * wj[i] + 2.0; /* ARG-GETCOUNT-INDEP */
        MPI_Get_count(&st, MPI_DOUBLE, &got);
        sum += got; /* ARG-GETCOUNT */
        take(in, got);
    } else {
        fill(out, N, 2.0);
        MPI_Send(out, N / 2, MPI_DOUBLE, 1, 12, MPI_COMM_WORLD);
    }
}

/* i3 */
static void v_arrays(void)
{
    int counts[2], displs[2];
    int mine = N / 2 + rank * (N / 4); /* (a local: the call's line loads nothing) */
    MPI_Barrier(MPI_COMM_WORLD);
    fill(out, N, 3.0 + rank);
    for (int q = 0; q < size; q++)
        counts[q] = N / 2 + q * (N / 4); /* ARG-VCOUNTS */
    for (int q = 0; q < size; q++) /* ARG-VDISPLS-LOOP */
        displs[q] = q * N; /* ARG-VDISPLS */
    for (int i = 0; i < N; i++)
        wk[i] = 0.5 * wk[i] + 3.0; /* ARG-VARRAYS-INDEP */
    MPI_Allgatherv(out, mine, MPI_DOUBLE, gathered, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD); /* ARG-VARRAYS-CALL */
    take(gathered, N / 2);
    take(gathered + N, N / 2 + N / 4);
}

/* i4 */
static void request_array(void)
{
    MPI_Request reqs[2];
    int other = 1 - rank;
    MPI_Barrier(MPI_COMM_WORLD);
    fill(out, N, 4.0);
    MPI_Irecv(in, N, MPI_DOUBLE, other, 14, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(out, N, MPI_DOUBLE, other, 14, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE); /* ARG-REQS-WAITALL */
    for (int i = 0; i < N; i++)
        wl[i] = 0.5 * wl[i] + 4.0; /* ARG-REQS-INDEP */
    sum += (reqs[0] == MPI_REQUEST_NULL) + (reqs[1] == MPI_REQUEST_NULL); /* ARG-REQS */
    take(in, N);
}

/* i5 */
static void v_rooted(void)
{
    int counts[2], displs[2];
    MPI_Barrier(MPI_COMM_WORLD);
    fill(out, N, 5.0 + rank);
    for (int q = 0; q < size; q++)
        counts[q] = N / 2 + q; /* ARG-RCOUNTS */
    for (int q = 0; q < size; q++)
        displs[q] = q * N; /* ARG-RDISPLS */
    MPI_Gatherv(out, N / 2 + rank, MPI_DOUBLE, gathered, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* ARG-ROOTED-CALL */
    for (int i = 0; i < N; i++)
        wm[i] = 0.5 * wm[i] + 5.0; /* ARG-ROOTED-INDEP */
    take(gathered, N / 2); /* (on the other rank: what an earlier call left there) */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "deps-mpiargs: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    status_fields();
    count_of_status();
    v_arrays();
    request_array();
    v_rooted();

    double *w[] = {wi, wj, wk, wl, wm};
    for (int k = 0; k < 5; k++)
        take(w[k], N);
    double all = 0;
    MPI_Reduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("deps-mpiargs: sum=%.6e\n", all);
    MPI_Finalize();
    return 0;
}
