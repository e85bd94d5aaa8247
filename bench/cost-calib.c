/* cost-calib.c - what recording one event costs, for bench/cost-check.sh:
 * statements that do (almost) nothing, traced with COMMHINT_STMT_CLOCK=1.
 *
 *   cost-calib [ROUNDS=200]
 *
 * Each round, between two barriers, 64 straight-line stores of a register
 * to a global (one event each, no loop record between them), then a loop
 * of 256 stores (one event and one loop record per iteration).  The mean
 * interval between the stamps of two straight-line events is what
 * recording an event costs (the store itself is a fraction of a tick);
 * that of the loop's events less it, what a loop record costs.  Built
 * with `commhint cc -O2`, any number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256

int g[64];
double x[N];

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    MPI_Init(&argc, &argv);
    for (int r = 0; r < rounds; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        g[0] = r; /* STRAIGHT */
        g[1] = r; /* STRAIGHT */
        g[2] = r; /* STRAIGHT */
        g[3] = r; /* STRAIGHT */
        g[4] = r; /* STRAIGHT */
        g[5] = r; /* STRAIGHT */
        g[6] = r; /* STRAIGHT */
        g[7] = r; /* STRAIGHT */
        g[8] = r; /* STRAIGHT */
        g[9] = r; /* STRAIGHT */
        g[10] = r; /* STRAIGHT */
        g[11] = r; /* STRAIGHT */
        g[12] = r; /* STRAIGHT */
        g[13] = r; /* STRAIGHT */
        g[14] = r; /* STRAIGHT */
        g[15] = r; /* STRAIGHT */
        g[16] = r; /* STRAIGHT */
        g[17] = r; /* STRAIGHT */
        g[18] = r; /* STRAIGHT */
        g[19] = r; /* STRAIGHT */
        g[20] = r; /* STRAIGHT */
        g[21] = r; /* STRAIGHT */
        g[22] = r; /* STRAIGHT */
        g[23] = r; /* STRAIGHT */
        g[24] = r; /* STRAIGHT */
        g[25] = r; /* STRAIGHT */
        g[26] = r; /* STRAIGHT */
        g[27] = r; /* STRAIGHT */
        g[28] = r; /* STRAIGHT */
        g[29] = r; /* STRAIGHT */
        g[30] = r; /* STRAIGHT */
        g[31] = r; /* STRAIGHT */
        g[32] = r; /* STRAIGHT */
        g[33] = r; /* STRAIGHT */
        g[34] = r; /* STRAIGHT */
        g[35] = r; /* STRAIGHT */
        g[36] = r; /* STRAIGHT */
        g[37] = r; /* STRAIGHT */
        g[38] = r; /* STRAIGHT */
        g[39] = r; /* STRAIGHT */
        g[40] = r; /* STRAIGHT */
        g[41] = r; /* STRAIGHT */
        g[42] = r; /* STRAIGHT */
        g[43] = r; /* STRAIGHT */
        g[44] = r; /* STRAIGHT */
        g[45] = r; /* STRAIGHT */
        g[46] = r; /* STRAIGHT */
        g[47] = r; /* STRAIGHT */
        g[48] = r; /* STRAIGHT */
        g[49] = r; /* STRAIGHT */
        g[50] = r; /* STRAIGHT */
        g[51] = r; /* STRAIGHT */
        g[52] = r; /* STRAIGHT */
        g[53] = r; /* STRAIGHT */
        g[54] = r; /* STRAIGHT */
        g[55] = r; /* STRAIGHT */
        g[56] = r; /* STRAIGHT */
        g[57] = r; /* STRAIGHT */
        g[58] = r; /* STRAIGHT */
        g[59] = r; /* STRAIGHT */
        g[60] = r; /* STRAIGHT */
        g[61] = r; /* STRAIGHT */
        g[62] = r; /* STRAIGHT */
        g[63] = r; /* STRAIGHT */
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < N; i++)
            x[i] = r; /* LOOP */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
