/*
 * args-locals.c - a master/worker program written the way tutorial codes
 * write them: the tag and the peer of each call are kept in locals that
 * are set right before it (`mtype = FROM_WORKER;`), and the master and
 * the workers make the final MPI_Reduce at different lines.
 *
 * What commhint must not say (tests/e2e/hints.sh):
 *  - that a worker's send of its rank (RESULT-SEND, whose buffer is ready
 *    from the start) can start before the line that sets its tag
 *    (TAG-SET): started there, it would carry the tag the receive before
 *    it used, and the master would never match it.  The local is not
 *    traced (a register at -O2), so a fix that moves the start of a call
 *    taking it says that the trace cannot show where it is set;
 *  - that the master's MPI_Reduce (REDUCE-ROOT) can be made nonblocking
 *    alone: the workers' MPI_Reduce (REDUCE-WORKER) must become
 *    MPI_Ireduce too, and the fix names its line.
 *
 * Usage: args-locals [n]     default: n=20000
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { FROM_MASTER = 1, FROM_WORKER = 2 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    double *a = malloc((size_t)n * sizeof *a), *c = malloc((size_t)n * sizeof *c);
    if (!a || !c) {
        fprintf(stderr, "args-locals: out of memory: n=%d\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double local = 0.0, total = 0.0;
    int mtype, peer;
    if (rank == 0) {
        for (int w = 1; w < size; w++) {
            for (int i = 0; i < n; i++)
                a[i] = w + i * 1e-3;
            mtype = FROM_MASTER;
            peer = w;
            MPI_Send(a, n, MPI_DOUBLE, peer, mtype, MPI_COMM_WORLD);
        }
        for (int w = 1; w < size; w++) {
            int who;
            mtype = FROM_WORKER;
            peer = w;
            MPI_Recv(&who, 1, MPI_INT, peer, mtype, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (who != w) {
                fprintf(stderr, "args-locals: result of rank %d from rank %d\n", w, who);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            MPI_Recv(c, n, MPI_DOUBLE, peer, mtype, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < n; i++)
                local += c[i];
        }
        MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); /* REDUCE-ROOT */
        double check = 0.0;
        for (int i = 0; i < n; i++) /* ROOT-WORK */
            check += a[i] * 1e-6;
        printf("args-locals: ranks=%d total=%.6f check=%.6f\n", size, total, check);
    } else {
        mtype = FROM_MASTER;
        peer = 0;
        MPI_Recv(a, n, MPI_DOUBLE, peer, mtype, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) /* WORK */
            c[i] = 2.0 * a[i];
        mtype = FROM_WORKER; /* TAG-SET */
        MPI_Send(&rank, 1, MPI_INT, peer, mtype, MPI_COMM_WORLD); /* RESULT-SEND */
        MPI_Send(c, n, MPI_DOUBLE, peer, mtype, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            local += a[i] * 1e-3;
        MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD); /* REDUCE-WORKER */
    }
    free(a);
    free(c);
    MPI_Finalize();
    return 0;
}
