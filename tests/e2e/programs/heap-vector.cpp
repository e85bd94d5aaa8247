/* heap-vector.cpp - C++ message buffers on the heap, for tests/e2e/heap.sh.
 * Each step, rank 0's send_row() fills a local std::vector, sends it and
 * does work that does not touch it; the vector's storage is freed by
 * operator delete when send_row returns (HV-SEND-END, its closing brace),
 * and main then does more work (HV-SEND-LATE).  Then rank 0 sends a block
 * from new[], does work, deletes it (HV-ARR-FREE) and does more work.
 * Rank 1 receives both messages.  Markers in comments:
 *   HV-SEND, HV-SEND-INDEP (may run before the send's wait), HV-SEND-END
 *   (the wait must come before it), HV-SEND-LATE (after the vector is
 *   gone: never before the wait);
 *   HV-ARR-SEND, HV-ARR-INDEP, HV-ARR-FREE, HV-ARR-LATE likewise.
 * Run on 2 ranks.  Prints one checksum line on rank 1.
 */
#include <mpi.h>
#include <cstdio>
#include <vector>

#define M 512
#define N 4096
#define STEPS 20

static double work[N], late[N], work2[N], late2[N];

static void __attribute__((noinline)) send_row(int it)
{
    std::vector<double> s(M);
    for (int i = 0; i < M; i++)
        s[i] = i + it;
    MPI_Send(s.data(), M, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD); /* HV-SEND */
    for (int i = 0; i < N; i++)
        work[i] = 0.5 * work[i] + 1.0; /* HV-SEND-INDEP */
} /* HV-SEND-END */

int main(int argc, char **argv)
{
    int rank, size;
    double sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            std::fprintf(stderr, "heap-vector: run on 2 ranks: ranks=%d\n", size);
        MPI_Finalize();
        return 2;
    }
    for (int it = 0; it < STEPS; it++) {
        if (rank == 0) {
            send_row(it);
            for (int i = 0; i < N; i++)
                late[i] = 0.5 * late[i] + 2.0; /* HV-SEND-LATE */
            double *a = new double[M];
            for (int i = 0; i < M; i++)
                a[i] = 2 * i + it;
            MPI_Send(a, M, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD); /* HV-ARR-SEND */
            for (int i = 0; i < N; i++)
                work2[i] = 0.5 * work2[i] + 3.0; /* HV-ARR-INDEP */
            delete[] a; /* HV-ARR-FREE */
            for (int i = 0; i < N; i++)
                late2[i] = 0.5 * late2[i] + 4.0; /* HV-ARR-LATE */
        } else {
            std::vector<double> r(M);
            MPI_Recv(r.data(), M, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += r[5];
            MPI_Recv(r.data(), M, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += r[7];
        }
    }
    if (rank == 1)
        std::printf("heap-vector: sum=%.6e\n", sum);
    else
        sum = work[3] + late[3] + work2[3] + late2[3];
    MPI_Finalize();
    return sum < 0;
}
