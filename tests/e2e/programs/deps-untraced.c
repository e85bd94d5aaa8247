/* deps-untraced.c - MPI calls commhint does not wrap (issue 15, item 4;
 * tests/e2e/dependences.sh checks it by the markers).  Every data-moving
 * call of MPI has a wrapper (tests/e2e/mpi-coverage.sh); what is left are
 * PMPI_ calls made directly, communicator calls the runtime does not wrap,
 * and MPI-IO.  The pass puts a hook after each of them, and the runtime
 * records them as untraced calls, fences for the analysis; a completion of
 * a request no wrapper made is a fence too; `commhint info` counts the
 * untraced calls by name.
 *
 * Every pattern: rank 0 sends to rank 1 (UNT-*-SEND, the candidate), then
 * an INDEP loop that can run before the wait of that send, then the
 * untraced calls, then a NEEDED statement that reads what they delivered:
 * it must never be listed as "can run before the wait" of the send, since
 * the send's wait cannot move past calls whose effect is unknown.
 *   u1 UNT-PMPI   PMPI_Bcast called directly, then its buffer read
 *   u2 UNT-IDUP   MPI_Comm_idup and the MPI_Wait of its request (a request
 *                 no wrapper made), then the new communicator read
 *   u3 UNT-FILE   MPI_File_write_at / MPI_File_read_at (in the directory
 *                 argv[1]), then the buffer read back
 * Run on 2 ranks.  Prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#define N 64

static int rank, size;
static double out[N], in[N], bc[N], pin[N], pout[N];
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
static void direct_pmpi(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    exchange_start(21);
    if (rank == 0) {
        fill(out, N, 1.0);
        MPI_Send(out, N, MPI_DOUBLE, 1, 21, MPI_COMM_WORLD); /* UNT-PMPI-SEND */
        for (int i = 0; i < N; i++)
            wu[i] = 0.5 * wu[i] + 1.0; /* UNT-PMPI-INDEP */
    }
    fill(bc, N, 1.0 + rank);
    PMPI_Bcast(bc, N, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    sum += bc[3]; /* UNT-PMPI */
}

/* u2 */
static void nonblocking_idup(void)
{
    MPI_Request rq;
    MPI_Comm dup;
    MPI_Barrier(MPI_COMM_WORLD);
    exchange_start(22);
    if (rank == 0) {
        fill(out, N, 2.0);
        MPI_Send(out, N, MPI_DOUBLE, 1, 22, MPI_COMM_WORLD); /* UNT-IDUP-SEND */
        for (int i = 0; i < N; i++)
            wv[i] = 0.5 * wv[i] + 2.0; /* UNT-IDUP-INDEP */
    }
    MPI_Comm_idup(MPI_COMM_WORLD, &dup, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    sum += dup != MPI_COMM_NULL; /* UNT-IDUP */
    MPI_Comm_free(&dup);
}

/* u3 */
static void file_io(const char *dir)
{
    char path[4096];
    MPI_File fh;
    MPI_Barrier(MPI_COMM_WORLD);
    exchange_start(23);
    snprintf(path, sizeof path, "%s/deps-untraced-%d.bin", dir, rank);
    fill(pout, N, 3.0 + rank);
    MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_write_at(fh, 0, pout, N, MPI_DOUBLE, MPI_STATUS_IGNORE);
    if (rank == 0) {
        fill(out, N, 3.0);
        MPI_Send(out, N, MPI_DOUBLE, 1, 23, MPI_COMM_WORLD); /* UNT-FILE-SEND */
        for (int i = 0; i < N; i++)
            ww[i] = 0.5 * ww[i] + 3.0; /* UNT-FILE-INDEP */
    }
    MPI_File_read_at(fh, 0, pin, N, MPI_DOUBLE, MPI_STATUS_IGNORE);
    sum += pin[7]; /* UNT-FILE */
    MPI_File_close(&fh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "deps-untraced: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    direct_pmpi();
    nonblocking_idup();
    file_io(argc > 1 ? argv[1] : ".");

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
