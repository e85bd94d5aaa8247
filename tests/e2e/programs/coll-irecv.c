/* coll-irecv.c - hand-written collectives made of nonblocking calls
 * (tests/e2e/collectives.sh): rank 0 posts an MPI_Irecv from every other
 * rank into its slice of one buffer and completes them with one
 * MPI_Waitall (IGATHER-RECV), the others send with MPI_Send (IGATHER-SEND):
 * an MPI_Igather; then rank 0 sends every rank its slice of a table with
 * MPI_Isend (ISCATTER-SEND), waited for together, and the others receive
 * with MPI_Recv (ISCATTER-RECV): an MPI_Iscatter.  Run on 3 ranks or more. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 16

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *all = calloc((size_t)size * N, sizeof *all), *tab = calloc((size_t)size * N, sizeof *tab);
    MPI_Request *req = calloc((size_t)size, sizeof *req);
    double mine[N], slice[N], sum = 0;
    if (!all || !tab || !req) {
        fprintf(stderr, "coll-irecv: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int it = 0; it < 4; it++) {
        for (int i = 0; i < N; i++)
            mine[i] = rank * 100 + it + i;
        if (rank == 0) {
            for (int q = 1; q < size; q++)
                MPI_Irecv(&all[q * N], N, MPI_DOUBLE, q, 1, MPI_COMM_WORLD, &req[q - 1]); /* IGATHER-RECV */
            MPI_Waitall(size - 1, req, MPI_STATUSES_IGNORE);
            for (int i = 0; i < size * N; i++)
                tab[i] = 2 * all[i] + it;
            for (int q = 1; q < size; q++)
                MPI_Isend(&tab[q * N], N, MPI_DOUBLE, q, 2, MPI_COMM_WORLD, &req[q - 1]); /* ISCATTER-SEND */
            MPI_Waitall(size - 1, req, MPI_STATUSES_IGNORE);
        } else {
            MPI_Send(mine, N, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD); /* IGATHER-SEND */
            MPI_Recv(slice, N, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* ISCATTER-RECV */
            for (int i = 0; i < N; i++)
                sum += slice[i];
        }
    }
    printf("coll-irecv: rank %d sum=%g\n", rank, sum);
    free(all);
    free(tab);
    free(req);
    MPI_Finalize();
    return 0;
}
