/*
 * halo_staging_after.c - halo_staging.c after applying commhint's hint:
 * the boundary rows of the three fields get a buffer each (one packed
 * buffer of 3 x C doubles) and travel as one message per step.
 *
 * What it computes: fields f = 0..2 on an R x C grid (R rows split among
 * the ranks, C columns) are advected down the rows by the first-order
 * upwind scheme u'(i,j) = u(i,j) - c_f (u(i,j) - u(i-1,j)), periodic in i,
 * with c_f = 0.25, 0.5, 0.75, from u_f(i,j) = 1 + sin(2 pi (i + f) / R) *
 * cos(2 pi j / C).  Rank 0 prints the sum of all cells of all fields after
 * the last step (the scheme conserves it) and a checksum weighted by
 * position, which does not depend on the number of ranks.
 *
 * Communication pattern: every step each rank packs the last row of each
 * field into its own part of one buffer and sends it to the next rank in
 * one MPI_Send, and receives the previous rank's rows in one MPI_Recv.
 * Even ranks send first and odd ranks receive first.  It prints the same
 * line as halo_staging.
 *
 * What commhint should find: no aggregation hint.
 *
 * Usage: halo_staging_after [rows=256 [cols=256 [steps=100]]]   (rows >= ranks)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.14159265358979323846
enum { NF = 3 };

static const double cfl[NF] = {0.25, 0.5, 0.75};

static int arg(int argc, char **argv, int i, int def)
{
    return argc > i ? atoi(argv[i]) : def;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int R = arg(argc, argv, 1, 256), C = arg(argc, argv, 2, 256), steps = arg(argc, argv, 3, 100);
    if (R < size || C < 1 || steps < 0) {
        if (rank == 0)
            fprintf(stderr, "halo_staging_after: need rows >= ranks, cols >= 1, steps >= 0\n");
        MPI_Finalize();
        return 2;
    }
    int r0 = (int)((long)R * rank / size), nr = (int)((long)R * (rank + 1) / size) - r0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    /* u[f]: nr + 1 rows, row 0 is the ghost row (the last row of prev) */
    double *u[NF], *v[NF], *pack = malloc((size_t)NF * C * sizeof *pack);
    for (int f = 0; f < NF; f++) {
        u[f] = malloc((size_t)(nr + 1) * C * sizeof *u[f]);
        v[f] = malloc((size_t)(nr + 1) * C * sizeof *v[f]);
        for (int i = 0; i < nr; i++)
            for (int j = 0; j < C; j++)
                u[f][(i + 1) * C + j] = 1 + sin(2 * PI * (r0 + i + f) / R) * cos(2 * PI * j / C);
    }
    for (int s = 0; s < steps; s++) {
        for (int turn = 0; turn < 2 && size > 1; turn++) {
            if (turn == rank % 2) { /* send: a buffer per field, one message */
                for (int f = 0; f < NF; f++)
                    for (int j = 0; j < C; j++)
                        pack[f * C + j] = u[f][nr * C + j];
                MPI_Send(pack, NF * C, MPI_DOUBLE, next, 0, MPI_COMM_WORLD);
            } else {
                MPI_Recv(pack, NF * C, MPI_DOUBLE, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int f = 0; f < NF; f++)
                    for (int j = 0; j < C; j++)
                        u[f][j] = pack[f * C + j];
            }
        }
        if (size == 1) /* the ghost row is this rank's own last row: no message to itself */
            for (int f = 0; f < NF; f++)
                for (int j = 0; j < C; j++)
                    u[f][j] = u[f][nr * C + j];
        for (int f = 0; f < NF; f++) {
            for (int i = 1; i <= nr; i++)
                for (int j = 0; j < C; j++)
                    v[f][i * C + j] = u[f][i * C + j] - cfl[f] * (u[f][i * C + j] - u[f][(i - 1) * C + j]);
            double *t = u[f];
            u[f] = v[f];
            v[f] = t;
        }
    }
    double loc[2] = {0, 0}, tot[2];
    for (int f = 0; f < NF; f++)
        for (int i = 1; i <= nr; i++)
            for (int j = 0; j < C; j++) {
                loc[0] += u[f][i * C + j];
                loc[1] += u[f][i * C + j] * (double)(r0 + i) * (j + 1) * (f + 1);
            }
    MPI_Reduce(loc, tot, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("halo_staging: rows=%d cols=%d steps=%d sum=%.9e checksum=%.9e\n", R, C, steps, tot[0], tot[1]);
    for (int f = 0; f < NF; f++) {
        free(u[f]);
        free(v[f]);
    }
    free(pack);
    MPI_Finalize();
    return 0;
}
