/* callpath.c - many small MPI calls made through helpers, for
 * bench/callpath.sh: what recording the call path of every MPI call costs
 * (CHT_REC_PATH).  Two ranks exchange 8 bytes with MPI_Sendrecv, CALLS
 * times each, through three levels of helpers (step -> exchange -> the
 * call), each level a function of its own.
 * Usage: callpath [CALLS]   (default 1000000) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double value;

static __attribute__((noinline)) void exchange(double *s, double *r, int peer)
{
    MPI_Sendrecv(s, 1, MPI_DOUBLE, peer, 0, r, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static __attribute__((noinline)) void step(int peer, long i)
{
    double s = value + (double)i, r = 0;
    exchange(&s, &r, peer);
    value = 0.5 * (value + r) - (double)i;
}

int main(int argc, char **argv)
{
    int rank, size;
    long calls = argc > 1 ? atol(argv[1]) : 1000000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "callpath: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long i = 0; i < calls; i++)
        step(1 - rank, i);
    if (rank == 0)
        printf("callpath: value=%.6e\n", value);
    MPI_Finalize();
    return 0;
}
