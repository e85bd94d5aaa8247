/* synth-master.c - the master-worker pattern of bench/synth-trace as a real
 * MPI program (tests/e2e/synth-trace.sh compares their traces; keep it in
 * step with gen_master() in bench/synth-trace.c).
 *
 *   synth-master TASKS_PER_WORKER DOUBLES
 *
 * Rank 0 hands out (P - 1) * TASKS_PER_WORKER tasks of DOUBLES doubles:
 * one to each worker (MPI_Send, tag 1), then, for every result it receives
 * (MPI_Recv from MPI_ANY_SOURCE, tag 2), the next task or, when none is
 * left, a stop message (tag 3, no data) to the worker that sent it.  Workers
 * receive from rank 0 with MPI_ANY_TAG, work, and send a result of DOUBLES
 * doubles back, until they get a stop.  Which worker gets which task
 * depends on timing; the number of each call does not.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG_TASK 1
#define TAG_RESULT 2
#define TAG_STOP 3

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: synth-master TASKS_PER_WORKER DOUBLES (on 2 ranks or more)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int per = atoi(argv[1]), n = atoi(argv[2]);
    double *buf = calloc((size_t)n, sizeof(double));
    MPI_Status st;

    if (rank == 0) {
        int tasks = (size - 1) * per, sent = 0;
        for (int w = 1; w < size; w++, sent++)
            MPI_Send(buf, n, MPI_DOUBLE, w, TAG_TASK, MPI_COMM_WORLD);
        for (int done = 0; done < tasks; done++) {
            MPI_Recv(buf, n, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
            if (sent < tasks) {
                MPI_Send(buf, n, MPI_DOUBLE, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
                sent++;
            } else {
                MPI_Send(buf, 0, MPI_DOUBLE, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
            }
        }
        printf("synth-master: %d workers, %d tasks\n", size - 1, tasks);
    } else {
        for (;;) {
            MPI_Recv(buf, n, MPI_DOUBLE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == TAG_STOP)
                break;
            for (int i = 0; i < n; i++)
                buf[i] = buf[i] * 0.5 + rank;
            MPI_Send(buf, n, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
