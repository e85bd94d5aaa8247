/* crash.c - a 4-rank MPI program whose rank 2 dies on purpose, for the
 * tests of traces cut short.  argv[1] picks how it dies: segv (null write),
 * abort (abort()), term (SIGTERM to itself, as mpiexec sends), mpiabort
 * (MPI_Abort), kill (SIGKILL to itself, which no handler sees).  Before
 * dying every rank computes and exchanges data so its trace has events to
 * keep, and rank 2 pauses for argv[2] ms (default 1500) with the others
 * waiting in MPI_Barrier: the launcher then kills ranks that had been idle
 * for longer than the runtime's flush period. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double work[4096];

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "segv";
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int step = 0; step < 20; step++) {
        for (int i = 0; i < 4096; i++)
            work[i] = work[i] * 0.5 + rank + step;
        double s = work[step], r = 0;
        MPI_Allreduce(&s, &r, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        work[0] += r;
    }
    if (rank == 2) {
        fflush(stdout);
        usleep((useconds_t)(argc > 2 ? atoi(argv[2]) : 1500) * 1000u);
        if (!strcmp(how, "segv")) {
            volatile int *p = NULL;
            *p = 1; /* CRASH:segv */
        } else if (!strcmp(how, "abort")) {
            abort();
        } else if (!strcmp(how, "term")) {
            raise(SIGTERM);
        } else if (!strcmp(how, "kill")) {
            raise(SIGKILL);
        } else {
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("crash: survived, which should not happen\n");
    MPI_Finalize();
    return 0;
}
