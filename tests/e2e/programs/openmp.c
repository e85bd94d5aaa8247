/*
 * openmp.c - an MPI program with OpenMP parallel regions whose per-thread
 * work is known exactly, for tests/e2e/threads.sh.  Statements of interest
 * carry a marker comment FACT:<name> at the end of their line (named here
 * without the colon so that grepping finds only the line itself):
 *
 *   openmp [n=4000]        (built with -fopenmp; 4 OpenMP threads)
 *
 *  - ostore    in a parallel region, OpenMP thread t (0..3) makes 500*(t+1)
 *              events, each writing the 8 bytes of data[t][i], i = 0, 1, ...
 *              in order;
 *  - ofor      a parallel loop over v[0..n-1] with schedule(static): thread t
 *              makes n/4 events writing v[t*n/4 + i], i = 0, 1, ... in
 *              order (n is a multiple of 4);
 *  - allreduce the main thread (OpenMP thread 0) then sums v over the ranks
 *              with one MPI_Allreduce (MPI_THREAD_FUNNELED).
 *
 * The pool threads are still alive at exit (the OpenMP runtime keeps them),
 * so what they recorded last must reach the trace through the runtime's
 * exit path, not through thread exit.  Rank 0 prints "openmp: ranks=P n=N
 * OK" when the sums are right; a wrong value aborts.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __clang__
#define SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable) unroll(disable)")
#else
#define SCALAR_LOOP
#endif

#define NT 4
#define NMAX 16384

double data[NT][2000];
double v[NMAX], sum[NMAX];

int main(int argc, char **argv)
{
    int rank, size, provided, n = argc > 1 ? atoi(argv[1]) : 4000, bad = 0, all = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (n < NT || n > NMAX || n % NT) {
        if (rank == 0)
            fprintf(stderr, "usage: openmp [n], n a multiple of %d up to %d\n", NT, NMAX);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
#pragma omp parallel num_threads(NT)
    {
        int t = omp_get_thread_num();
        double *row = data[t];
        SCALAR_LOOP
        for (int i = 0; i < 500 * (t + 1); i++)
            row[i] = (double)(i + t); /* FACT:ostore */
    }
#pragma omp parallel for num_threads(NT) schedule(static)
    SCALAR_LOOP
    for (int i = 0; i < n; i++)
        v[i] = (double)(2 * i); /* FACT:ofor */

    MPI_Allreduce(v, sum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* FACT:allreduce */
    for (int t = 0; t < NT; t++)
        for (int i = 0; i < 500 * (t + 1); i++)
            bad |= data[t][i] != (double)(i + t);
    for (int i = 0; i < n; i++)
        bad |= sum[i] != (double)(2 * i) * size;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (all) {
        if (rank == 0)
            fprintf(stderr, "openmp: %d ranks got wrong results\n", all);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("openmp: ranks=%d n=%d OK\n", size, n);
    MPI_Finalize();
    return 0;
}
