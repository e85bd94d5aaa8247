/* mpi-span.c - a PMPI shim for timing plain MPI runs the way `commhint
 * hints` replays a traced run (model.measured_ns, docs/prediction.md):
 * from the first return of MPI_Init to the last entry of MPI_Finalize,
 * on the ranks' common CLOCK_MONOTONIC (one host).
 *
 * Built as a shared library and put in LD_PRELOAD of an uninstrumented
 * program, it prints one line on standard error per rank at the end of
 * MPI_Finalize:
 *     mpi-span: rank=R init=I fini=F
 * (ns; bench/case-studies.sh takes the largest F less the smallest I).
 * Nothing else changes.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static uint64_t t_init, t_fini; /* ns, CLOCK_MONOTONIC after PMPI_Init, before PMPI_Finalize */
static int my_rank = -1;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    t_init = now_ns();
    PMPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    t_init = now_ns();
    PMPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    return rc;
}

int MPI_Finalize(void)
{
    t_fini = now_ns();
    int rc = PMPI_Finalize();
    fprintf(stderr, "mpi-span: rank=%d init=%llu fini=%llu\n", my_rank, (unsigned long long)t_init,
            (unsigned long long)t_fini);
    return rc;
}
