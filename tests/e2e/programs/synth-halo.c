/* synth-halo.c - the halo-allreduce pattern of bench/synth-trace, as a real
 * MPI program: tests/e2e/synth-trace.sh traces it and checks that the
 * synthetic trace of the same pattern has the same MPI calls, messages and
 * collectives.  Keep its calls, tags, sizes and order in step with
 * gen_halo() in bench/synth-trace.c.
 *
 *   synth-halo DIMS ITERATIONS EVERY DOUBLES
 *
 * The ranks form a DIMS-D (2 or 3) Cartesian grid without wrap-around,
 * factored as bench/synth-trace does (grid_dims()).  Each step posts an
 * MPI_Irecv from every neighbour, then an MPI_Isend of DOUBLES doubles to
 * every neighbour (the tag is the direction of travel: 0 +x, 1 -x, 2 +y,
 * 3 -y, 4 +z, 5 -z), completes them with one MPI_Waitall, updates the local
 * block, and every EVERY steps sums a residual with MPI_Allreduce.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXD 3

/* Factors p into dims[0] >= dims[1] (>= dims[2]): as square as possible. */
static void grid_dims(int p, int nd, int *dims)
{
    for (int i = 0; i < nd; i++) {
        int left = nd - i, best = 1;
        for (int d = 1; d <= p; d++) {
            long pw = 1;
            for (int k = 0; k < left; k++)
                pw *= d;
            if (pw > p)
                break;
            if (p % d == 0)
                best = d;
        }
        dims[nd - 1 - i] = best;
        p /= best;
    }
}

int main(int argc, char **argv)
{
    int rank, size, dims[MAXD] = {1, 1, 1}, coord[MAXD], nb[2 * MAXD];
    MPI_Request req[4 * MAXD];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 5) {
        if (rank == 0)
            fprintf(stderr, "usage: synth-halo DIMS ITERATIONS EVERY DOUBLES\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int nd = atoi(argv[1]), iters = atoi(argv[2]), every = atoi(argv[3]), n = atoi(argv[4]);
    grid_dims(size, nd, dims);
    for (int i = 0, r = rank; i < nd; i++) {
        coord[i] = r % dims[i];
        r /= dims[i];
    }
    for (int i = 0, stride = 1; i < nd; i++) {
        nb[2 * i] = coord[i] + 1 < dims[i] ? rank + stride : -1;
        nb[2 * i + 1] = coord[i] > 0 ? rank - stride : -1;
        stride *= dims[i];
    }
    double *out = calloc((size_t)2 * nd * n, sizeof(double));
    double *in = calloc((size_t)2 * nd * n, sizeof(double));
    double *u = calloc((size_t)n * n, sizeof(double));
    double res = 0, sum = 0;

    for (int it = 0; it < iters; it++) {
        int nr = 0;
        /* the message travelling in direction d comes from the neighbour
         * on the opposite side, d ^ 1 */
        for (int d = 0; d < 2 * nd; d++)
            if (nb[d ^ 1] >= 0)
                MPI_Irecv(in + (size_t)d * n, n, MPI_DOUBLE, nb[d ^ 1], d, MPI_COMM_WORLD, &req[nr++]);
        for (int d = 0; d < 2 * nd; d++)
            if (nb[d] >= 0)
                MPI_Isend(out + (size_t)d * n, n, MPI_DOUBLE, nb[d], d, MPI_COMM_WORLD, &req[nr++]);
        MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                u[(size_t)i * n + j] = 0.25 * (u[(size_t)i * n + j] + in[j % (2 * nd * n)] + i + j);
        res = u[(size_t)(it % n) * n];
        if (every > 0 && (it + 1) % every == 0)
            MPI_Allreduce(&res, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("synth-halo: %d ranks, %d steps\n", size, iters);
    free(out);
    free(in);
    free(u);
    MPI_Finalize();
    return 0;
}
