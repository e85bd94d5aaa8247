/*
 * halo_staging.c - three fields carried to the right on a periodic 2-D
 * grid split into row blocks, each boundary row packed into ONE reused
 * staging buffer and sent on its own.
 *
 * What it computes: fields f = 0..2 on an R x C grid (R rows split among
 * the ranks, C columns) are advected down the rows by the first-order
 * upwind scheme u'(i,j) = u(i,j) - c_f (u(i,j) - u(i-1,j)), periodic in i,
 * with c_f = 0.25, 0.5, 0.75, from u_f(i,j) = 1 + sin(2 pi (i + f) / R) *
 * cos(2 pi j / C).  Rank 0 prints the sum of all cells of all fields after
 * the last step (the scheme conserves it) and a checksum weighted by
 * position, which does not depend on the number of ranks.
 *
 * Communication pattern: every step each rank needs the last row of its
 * upper neighbour (the rank before it, periodic).  Like many codes that
 * support several fields, it packs the boundary row of each field into the
 * same staging buffer and sends it at once, one message per field: three
 * MPI_Send of C doubles to the next rank, each reusing the staging buffer,
 * then three MPI_Recv from the previous rank.  Even ranks send first and
 * odd ranks receive first, so the ring of blocking sends cannot deadlock.
 *
 * What commhint should find: the three sends to the same rank can be one
 * message, but only if each gets its own buffer: the aggregation hint is
 * flagged needs-buffer and names the staging buffer and the pack that
 * overwrites it (halo_staging_after.c follows it).
 *
 * Usage: halo_staging [rows=256 [cols=256 [steps=100]]]   (rows >= ranks)
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
            fprintf(stderr, "halo_staging: need rows >= ranks, cols >= 1, steps >= 0\n");
        MPI_Finalize();
        return 2;
    }
    int r0 = (int)((long)R * rank / size), nr = (int)((long)R * (rank + 1) / size) - r0;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    /* u[f]: nr + 1 rows, row 0 is the ghost row (the last row of prev) */
    double *u[NF], *v[NF], *stage = malloc(C * sizeof *stage);
    for (int f = 0; f < NF; f++) {
        u[f] = malloc((size_t)(nr + 1) * C * sizeof *u[f]);
        v[f] = malloc((size_t)(nr + 1) * C * sizeof *v[f]);
        for (int i = 0; i < nr; i++)
            for (int j = 0; j < C; j++)
                u[f][(i + 1) * C + j] = 1 + sin(2 * PI * (r0 + i + f) / R) * cos(2 * PI * j / C);
    }
    for (int s = 0; s < steps; s++) {
        for (int turn = 0; turn < 2 && size > 1; turn++) {
            if (turn == rank % 2) { /* send: one staging buffer for every field */
                for (int f = 0; f < NF; f++) {
                    for (int j = 0; j < C; j++)
                        stage[j] = u[f][nr * C + j];
                    MPI_Send(stage, C, MPI_DOUBLE, next, f, MPI_COMM_WORLD);
                }
            } else {
                for (int f = 0; f < NF; f++)
                    MPI_Recv(u[f], C, MPI_DOUBLE, prev, f, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
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
    free(stage);
    MPI_Finalize();
    return 0;
}
