/* wait-split.c - a blocking MPI_Wait right before the loop that unpacks
 * what it waited for, field by field (as LULESH's CommSBN): each field's
 * destination comes from a table, which needs no data, and only then does
 * the field's inner loop read the message.  The first field's table read
 * can run before the wait, but only if the loop is split: "move the wait
 * right before the loop" alone leaves it where it is (tests/e2e/wait-split.sh).
 * Prints a checksum. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096

static double *fields[8];

int main(int argc, char **argv)
{
    int rank, size, nf = argc > 1 ? atoi(argv[1]) : 3;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || nf < 1 || nf > 8) {
        if (rank == 0)
            fprintf(stderr, "wait-split: needs 2 ranks and 1-8 fields\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double *sendbuf = malloc((size_t)nf * N * sizeof *sendbuf);
    double *recvbuf = malloc((size_t)nf * N * sizeof *recvbuf);
    for (int f = 0; f < nf; f++)
        fields[f] = calloc(N, sizeof(double));
    int peer = rank ^ 1;
    for (int it = 0; it < 20; it++) {
        MPI_Request rq;
        for (int i = 0; i < nf * N; i++)
            sendbuf[i] = rank + it + 0.001 * i;
        MPI_Irecv(recvbuf, nf * N, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &rq);
        MPI_Send(sendbuf, nf * N, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE); /* WAIT-CALL */
        const double *src = recvbuf;
        for (int f = 0; f < nf; f++) { /* UNPACK-LOOP */
            double *dst = fields[f];   /* UNPACK-DEST */
            for (int i = 0; i < N; i++)
                dst[i] += src[i];
            src += N;
        }
    }
    double sum = 0;
    for (int f = 0; f < nf; f++)
        for (int i = 0; i < N; i++)
            sum += fields[f][i];
    printf("wait-split: rank=%d checksum=%.6f\n", rank, sum);
    for (int f = 0; f < nf; f++)
        free(fields[f]);
    free(sendbuf);
    free(recvbuf);
    MPI_Finalize();
    return 0;
}
