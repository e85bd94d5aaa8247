/*
 * facts.c - a tiny MPI program whose trace the end-to-end tests check fact by
 * fact.  Each statement of interest carries a marker comment, FACT:<name>,
 * at the end of its line so that the tests can find the line by grepping for
 * the marker (this header names them without the colon for that reason):
 *
 *  - loop    10 computation events, each reading b[i] and c[i] and writing
 *            a[i] (every rank);
 *  - memcpy  one copy of 50 doubles (400 bytes) from src into the first
 *            half of buf (rank 0), which the send then reads: a flow
 *            dependence memcpy -> send;
 *  - send    rank 0 sends the 100 doubles of buf to rank 1, tag 7;
 *  - recv    rank 1 receives them from rank 0, tag 7, into buf;
 *  - nested  3 x 4 = 12 computation events writing grid[i][j] (every rank),
 *            independent of the send and of the receive.
 *
 * The facts must hold at -O2 too, and the pass instruments the optimised
 * code: b and c are filled before the MPI_Comm_* calls (external calls, so
 * the loop must load them again), and the marked loops are kept as scalar
 * loops (no unrolling, no vectorization) so that each iteration stays one
 * event of 8-byte accesses.
 *
 * Needs at least 2 ranks; ranks 2 and up only run the two loops.  Rank 0
 * prints a checksum.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

/* Keeps the next loop a scalar loop at -O2 (clang only; gcc ignores it). */
#ifdef __clang__
#define SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable) unroll(disable)")
#else
#define SCALAR_LOOP
#endif

double a[10], b[10], c[10];
double src[50];
double buf[100];
double grid[3][4];

int main(int argc, char **argv)
{
    int rank, size, i, j;
    MPI_Init(&argc, &argv);
    for (i = 0; i < 10; i++) {
        b[i] = i;
        c[i] = 2.0 * i;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "facts: needs at least 2 ranks: ranks=%d\n", size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    SCALAR_LOOP
    for (i = 0; i < 10; i++) a[i] = b[i] + c[i];   /* FACT:loop */

    if (rank == 0) {
        for (i = 0; i < 50; i++)
            src[i] = 0.5 * i;
        for (i = 50; i < 100; i++)
            buf[i] = i;
        memcpy(buf, src, 50 * sizeof(double));  /* FACT:memcpy */
        MPI_Send(buf, 100, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);  /* FACT:send */
    } else if (rank == 1) {
        MPI_Recv(buf, 100, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  /* FACT:recv */
        for (i = 0; i < 100; i++)
            if (buf[i] != (i < 50 ? 0.5 * i : i)) {
                fprintf(stderr, "facts: wrong data received: index=%d value=%g\n", i, buf[i]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
    }

    SCALAR_LOOP
    for (i = 0; i < 3; i++) {
        SCALAR_LOOP
        for (j = 0; j < 4; j++)
            grid[i][j] = a[i] * j + 1.0;  /* FACT:nested */
    }

    if (rank == 0) {
        double sum = 0.0;
        for (i = 0; i < 10; i++)
            sum += a[i];
        for (i = 0; i < 100; i++)
            sum += buf[i];
        for (i = 0; i < 3; i++)
            for (j = 0; j < 4; j++)
                sum += grid[i][j];
        printf("facts: checksum=%.6e\n", sum);
    }

    MPI_Finalize();
    return 0;
}
