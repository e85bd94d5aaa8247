/* p2p-partitioned.c - partitioned communication (MPI-4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Start, MPI_Pready, MPI_Pready_range, MPI_Pready_list,
 * MPI_Parrived, MPI_Wait, started twice (issue 15, item 4;
 * tests/e2e/mpi-p2p-more.sh checks it by the markers, written below without
 * their comment delimiters):
 *   rank 0 fills each partition (PT-FILL) and hands it to MPI (PT-READY,
 *   PT-READY-RANGE, PT-READY-LIST); after its wait (PT-SWAIT), PT-SWRITE
 *   writes the send buffer (never "can run before the wait"), PT-SINDEP can.
 *   rank 1 waits until partition 0 arrived (PT-ARRIVED), reads it
 *   (PT-USE0), and after its wait (PT-RWAIT) PT-USE reads the buffer
 *   (never related), PT-RINDEP can run before the wait.
 * Run on 2 ranks.  Prints one checksum line on rank 1.
 */
#include <mpi.h>
#include <stdio.h>

#define NPART 8
#define PCOUNT 16

static int rank, size; /* their addresses go to MPI: traced */
static double pbuf[NPART * PCOUNT];
static double wa[PCOUNT], wb[PCOUNT];
static double sum;

static void sender(MPI_Request *req, int round)
{
    int list[2] = {NPART - 1, NPART - 2};
    MPI_Start(req);
    for (int p = 0; p < NPART - 4; p++) {
        for (int i = 0; i < PCOUNT; i++)
            pbuf[p * PCOUNT + i] = round * 1000 + p * PCOUNT + i; /* PT-FILL */
        MPI_Pready(p, *req); /* PT-READY */
    }
    for (int i = 0; i < 2 * PCOUNT; i++)
        pbuf[(NPART - 4) * PCOUNT + i] = -i;
    MPI_Pready_range(NPART - 4, NPART - 3, *req); /* PT-READY-RANGE */
    for (int i = 0; i < 2 * PCOUNT; i++)
        pbuf[(NPART - 2) * PCOUNT + i] = i;
    MPI_Pready_list(2, list, *req); /* PT-READY-LIST */
    MPI_Wait(req, MPI_STATUS_IGNORE); /* PT-SWAIT */
    for (int i = 0; i < PCOUNT; i++)
        wa[i] = 0.5 * wa[i] + 1.0; /* PT-SINDEP */
    for (int i = 0; i < NPART * PCOUNT; i++)
        pbuf[i] = 0; /* PT-SWRITE */
}

static void receiver(MPI_Request *req)
{
    int flag = 0;
    MPI_Start(req);
    while (!flag)
        MPI_Parrived(*req, 0, &flag); /* PT-ARRIVED */
    for (int i = 0; i < PCOUNT; i++)
        sum += pbuf[i]; /* PT-USE0 */
    MPI_Wait(req, MPI_STATUS_IGNORE); /* PT-RWAIT */
    for (int i = 0; i < PCOUNT; i++)
        wb[i] = 0.5 * wb[i] + 2.0; /* PT-RINDEP */
    for (int i = 0; i < NPART * PCOUNT; i++)
        sum += pbuf[i]; /* PT-USE */
}

int main(int argc, char **argv)
{
    MPI_Request req;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "p2p-partitioned: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0)
        MPI_Psend_init(pbuf, NPART, PCOUNT, MPI_DOUBLE, 1, 41, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &req);
    else
        MPI_Precv_init(pbuf, NPART, PCOUNT, MPI_DOUBLE, 0, 41, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &req);
    for (int round = 0; round < 2; round++) {
        if (rank == 0)
            sender(&req, round);
        else
            receiver(&req);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Request_free(&req);
    for (int i = 0; i < PCOUNT; i++)
        sum += wa[i] + wb[i];
    if (rank == 1)
        printf("p2p-partitioned: sum=%.6e\n", sum);
    MPI_Finalize();
    return 0;
}
