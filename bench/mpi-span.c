/* mpi-span.c - a PMPI shim for timing plain MPI runs the way `commhint
 * hints` measures a traced run (run_ns: from the start of MPI_Init to the
 * end of MPI_Finalize on the rank where that takes longest).
 *
 * Built as a shared library and put in LD_PRELOAD of an uninstrumented
 * program, it prints one line on standard error per rank at the end of
 * MPI_Finalize:
 *     mpi-span: rank=R ns=N
 * (bench/case-studies.sh takes the largest N).  Nothing else changes.
 */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static uint64_t t_init; /* ns, CLOCK_MONOTONIC before PMPI_Init */
static int my_rank = -1;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int MPI_Init(int *argc, char ***argv)
{
    t_init = now_ns();
    int rc = PMPI_Init(argc, argv);
    PMPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    t_init = now_ns();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    PMPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    return rc;
}

int MPI_Finalize(void)
{
    int rc = PMPI_Finalize();
    fprintf(stderr, "mpi-span: rank=%d ns=%llu\n", my_rank, (unsigned long long)(now_ns() - t_init));
    return rc;
}
