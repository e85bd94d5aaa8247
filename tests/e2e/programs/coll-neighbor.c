/* coll-neighbor.c - neighbourhood collectives, for
 * tests/e2e/mpi-collectives-nb.sh: on a 2-D periodic Cartesian grid of all
 * ranks (MPI_Dims_create), MPI_Neighbor_alltoall (one block per neighbour:
 * 4), MPI_Ineighbor_allgather and its wait, MPI_Neighbor_alltoallv_init
 * started twice; on a 1-D non-periodic grid (the ends have MPI_PROC_NULL
 * neighbours) MPI_Neighbor_alltoall; on a ring made with
 * MPI_Dist_graph_create_adjacent MPI_Neighbor_alltoallw_c.  Prints one
 * checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>

#define B 4 /* doubles per block */

int main(int argc, char **argv)
{
    int rank, size, dims[2] = {0, 0}, periods[2] = {1, 1}, period1 = 0;
    double s[4 * B], r[4 * B], g[4 * B], one[B], sum = 0;
    MPI_Comm cart, line, ring;
    MPI_Request rq;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    for (int i = 0; i < 4 * B; i++)
        s[i] = rank * 100 + i;
    for (int i = 0; i < B; i++)
        one[i] = rank + 0.5 * i;
    MPI_Neighbor_alltoall(s, B, MPI_DOUBLE, r, B, MPI_DOUBLE, cart); /* NBR-A2A */
    for (int i = 0; i < 4 * B; i++)
        sum += r[i];
    MPI_Ineighbor_allgather(one, B, MPI_DOUBLE, g, B, MPI_DOUBLE, cart, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int i = 0; i < 4 * B; i++)
        sum += g[i];
    int counts[4] = {B, B, B, B}, displs[4] = {0, B, 2 * B, 3 * B};
    MPI_Neighbor_alltoallv_init(s, counts, displs, MPI_DOUBLE, r, counts, displs, MPI_DOUBLE,
                                cart, MPI_INFO_NULL, &rq);
    for (int k = 0; k < 2; k++) {
        MPI_Start(&rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        sum += r[k];
    }
    MPI_Request_free(&rq);

    MPI_Cart_create(MPI_COMM_WORLD, 1, &size, &period1, 0, &line);
    for (int i = 0; i < 2 * B; i++)
        r[i] = 0;
    MPI_Neighbor_alltoall(s, B, MPI_DOUBLE, r, B, MPI_DOUBLE, line); /* NBR-LINE */
    for (int i = 0; i < 2 * B; i++)
        sum += r[i];

    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int src[2] = {left, right}, dst[2] = {left, right};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &ring);
    MPI_Count wc[2] = {B, B};
    MPI_Aint wd[2] = {0, B * sizeof(double)};
    MPI_Datatype wt[2] = {MPI_DOUBLE, MPI_DOUBLE};
    MPI_Neighbor_alltoallw_c(s, wc, wd, wt, g, wc, wd, wt, ring); /* NBR-RING */
    for (int i = 0; i < 2 * B; i++)
        sum += g[i];

    MPI_Comm_free(&ring);
    MPI_Comm_free(&line);
    MPI_Comm_free(&cart);
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &sum, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll-neighbor: sum=%.6e\n", sum);
    MPI_Finalize();
    return 0;
}
