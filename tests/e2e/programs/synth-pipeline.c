/* synth-pipeline.c - the pipeline pattern of bench/synth-trace as a real
 * MPI program (tests/e2e/synth-trace.sh compares their traces; keep it in
 * step with gen_pipeline() in bench/synth-trace.c).
 *
 *   synth-pipeline ITEMS DOUBLES
 *
 * Each of ITEMS items flows through the ranks: rank r > 0 receives it from
 * r - 1 (MPI_Recv, tag 0), every rank works on it, and rank r < P - 1
 * sends it on to r + 1 (MPI_Send of DOUBLES doubles, tag 0).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3) {
        if (rank == 0)
            fprintf(stderr, "usage: synth-pipeline ITEMS DOUBLES\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int items = atoi(argv[1]), n = atoi(argv[2]);
    double *buf = calloc((size_t)n, sizeof(double));

    for (int it = 0; it < items; it++) {
        if (rank > 0)
            MPI_Recv(buf, n, MPI_DOUBLE, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            buf[i] = buf[i] * 0.5 + rank + it;
        if (rank < size - 1)
            MPI_Send(buf, n, MPI_DOUBLE, rank + 1, 0, MPI_COMM_WORLD);
    }
    if (rank == size - 1)
        printf("synth-pipeline: %d ranks, %d items\n", size, items);
    free(buf);
    MPI_Finalize();
    return 0;
}
