/* heap-blocks.c - message buffers that live on the heap, for
 * tests/e2e/heap.sh.  Each step, rank 0 allocates a buffer, fills it,
 * sends it, does work that does not touch it, frees it, then more work;
 * rank 1 does some work, allocates a buffer, receives into it, reads it
 * and frees it.  Markers in comments:
 *   HB-SEND-ALLOC, HB-SEND-FILL, HB-SEND, HB-SEND-INDEP (may run before
 *   the send's wait), HB-SEND-FREE (the wait must come before it: the
 *   block is gone after it), HB-SEND-LATE (after the free: never before
 *   the wait);
 *   HB-RECV-EARLY (before the allocation: the receive cannot start before
 *   the block exists), HB-RECV-ALLOC, HB-RECV, HB-RECV-USE, HB-RECV-FREE.
 * Run on 2 ranks.  Prints one checksum line on rank 1.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define M 512
#define N 4096
#define STEPS 20

static double work[N], late[N], early[N];

int main(int argc, char **argv)
{
    int rank, size;
    double sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "heap-blocks: run on 2 ranks: ranks=%d\n", size);
        MPI_Finalize();
        return 2;
    }
    for (int it = 0; it < STEPS; it++) {
        if (rank == 0) {
            double *s = malloc(M * sizeof *s); /* HB-SEND-ALLOC */
            if (!s)
                MPI_Abort(MPI_COMM_WORLD, 1);
            for (int i = 0; i < M; i++)
                s[i] = i + it; /* HB-SEND-FILL */
            MPI_Send(s, M, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); /* HB-SEND */
            for (int i = 0; i < N; i++)
                work[i] = 0.5 * work[i] + 1.0; /* HB-SEND-INDEP */
            free(s); /* HB-SEND-FREE */
            for (int i = 0; i < N; i++)
                late[i] = 0.5 * late[i] + 2.0; /* HB-SEND-LATE */
        } else {
            for (int i = 0; i < N; i++)
                early[i] = 0.5 * early[i] + 3.0; /* HB-RECV-EARLY */
            double *r = malloc(M * sizeof *r); /* HB-RECV-ALLOC */
            if (!r)
                MPI_Abort(MPI_COMM_WORLD, 1);
            MPI_Recv(r, M, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* HB-RECV */
            sum += r[5]; /* HB-RECV-USE */
            free(r); /* HB-RECV-FREE */
        }
    }
    if (rank == 1)
        printf("heap-blocks: sum=%.6e early=%.6e\n", sum, early[7]);
    else
        sum = work[3] + late[3];
    MPI_Finalize();
    return sum < 0;
}
