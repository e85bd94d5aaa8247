/* extern-calls.c - calls into code built without the pass are fences
 * (docs/dependence.md, "Calls into code built without the pass"), for
 * tests/e2e/extern-calls.sh.  Pairs of ranks (0-1, 2-3, ...) exchange
 * with MPI_Sendrecv; rank 0 broadcasts names.
 *   - The received buffer is summed by lib_sum (built without the pass)
 *     before the computation: no hint moves the wait past that call.
 *   - The twin loop sums with helper_sum (built with the pass, in another
 *     file), which reads only `work`: the wait moves past it.
 *   - Two sends to the same rank with a lib_sum call between stay apart.
 *   - Rank 0 writes each name with snprintf between the broadcasts, and
 *     every rank sorts the names with qsort and compares them with strcmp:
 *     no hint merges the broadcasts or moves a wait past the sort.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096
#define ITERS 20
#define NAMES 8
#define LEN 32

double lib_sum(const double *v, int n);    /* extern-calls-lib.c, without the pass */
double helper_sum(const double *v, int n); /* extern-calls-helper.c, with it */

static int by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

int main(int argc, char **argv)
{
    static double out[N], in[N], work[N], a[64], b[64];
    static char names[NAMES][LEN];
    int rank, size;
    double total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = (rank ^ 1) < size ? rank ^ 1 : MPI_PROC_NULL;
    for (int i = 0; i < N; i++)
        out[i] = rank + i;
    for (int it = 0; it < ITERS; it++) {
        MPI_Sendrecv(out, N, MPI_DOUBLE, peer, 1, in, N, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, /* LIB-CALL */
                     MPI_STATUS_IGNORE);
        total += lib_sum(in, N); /* LIB-READ */
        for (int i = 0; i < N; i++)
            work[i] = work[i] * 0.5 + out[i];
        for (int i = 0; i < N; i++) /* LIB-USE */
            total += in[i];
    }
    for (int it = 0; it < ITERS; it++) {
        MPI_Sendrecv(out, N, MPI_DOUBLE, peer, 2, in, N, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, /* HELPER-CALL */
                     MPI_STATUS_IGNORE);
        total += helper_sum(work, N); /* HELPER-READ */
        for (int i = 0; i < N; i++)
            work[i] = work[i] * 0.5 + out[i];
        for (int i = 0; i < N; i++) /* HELPER-USE */
            total += in[i];
    }
    for (int it = 0; it < ITERS; it++) {
        if (rank % 2 == 0 && peer != MPI_PROC_NULL) {
            for (int i = 0; i < 64; i++)
                a[i] = b[i] = it + i;
            MPI_Send(a, 64, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD); /* SEND-1 */
            total += lib_sum(work, 64);                           /* SEND-FENCE */
            MPI_Send(b, 64, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD); /* SEND-2 */
        } else if (peer != MPI_PROC_NULL) {
            MPI_Recv(a, 64, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(b, 64, MPI_DOUBLE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += a[0] + b[63];
        }
    }
    for (int n = 0; n < NAMES; n++) {
        if (rank == 0)
            snprintf(names[n], LEN, "host-%d", (n * 5) % NAMES); /* NAME-WRITE */
        MPI_Bcast(names[n], LEN, MPI_CHAR, 0, MPI_COMM_WORLD);   /* NAME-BCAST */
    }
    qsort(names, NAMES, LEN, by_name); /* NAME-SORT */
    int dups = 0;
    for (int n = 1; n < NAMES; n++)
        dups += strcmp(names[n - 1], names[n]) == 0;
    if (rank == 0)
        printf("total %.1f, first %s, %d duplicates\n", total, names[0], dups);
    MPI_Finalize();
    return 0;
}
