/* collectives.c - one hand-written instance of every point-to-point pattern
 * that a single MPI collective does better, for `commhint hints
 * --kind=collective` (tests/e2e/collectives.sh checks each hint by the
 * markers in the comments):
 *   - flat broadcast: rank 0 sends the same parameters to every rank
 *     (BCAST-SEND, BCAST-RECV): MPI_Bcast;
 *   - ring broadcast: rank 0 sends to rank 1, every rank forwards what it
 *     received to the next (RING-SEND, RING-RECV): MPI_Bcast;
 *   - scatter: rank 0 sends rank d slice d of a table (SCATTER-SEND,
 *     SCATTER-RECV): MPI_Scatter;
 *   - scatterv: the same with slices of different sizes (SCATTERV-SEND,
 *     SCATTERV-RECV): MPI_Scatterv;
 *   - gather: every rank sends its part, rank 0 receives it into slice q
 *     (GATHER-SEND, GATHER-RECV): MPI_Gather;
 *   - reduce: every rank sends a value, rank 0 adds each into one
 *     accumulator (REDUCE-SEND, REDUCE-RECV, REDUCE-ACC): MPI_Reduce, MPI_SUM;
 *   - reduce + broadcast: an integer sum at rank 0, then sent back to every
 *     rank (ALLRED-SEND, ALLRED-RECV, ALLRED-ACC, ALLRED-BSEND,
 *     ALLRED-BRECV): MPI_Allreduce;
 *   - alltoall: pairwise MPI_Sendrecv of block dst of one buffer into block
 *     src of another (ALLTOALL-SR): MPI_Alltoall;
 *   - allgather: blocks passed around a ring with MPI_Sendrecv, in place
 *     (ALLGATHER-SR): MPI_Allgather;
 *   - two consecutive independent MPI_Gather calls (REPEAT-GATHER-1,
 *     REPEAT-GATHER-2) and MPI_Bcast calls (REPEAT-BCAST-1, REPEAT-BCAST-2):
 *     one call each.
 * Every pattern runs ITERS times with new data.  Runs on 4 ranks (any
 * number from 3 works); prints one checksum line on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITERS 3
#define NP 8  /* parameters */
#define CH 4  /* scatter / gather slice, doubles */
#define BLK 3 /* alltoall / allgather block, doubles */

#define W MPI_COMM_WORLD
#define NOST MPI_STATUS_IGNORE

enum { T_BCAST = 1, T_RING, T_SCAT, T_SCATV, T_GATH, T_RED, T_ARED, T_ABC, T_A2A, T_AG };

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        MPI_Abort(MPI_COMM_WORLD, 1);
    return p;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3) {
        if (rank == 0)
            fprintf(stderr, "collectives: run on 3 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int root = rank == 0;
    int nv = size * (size + 1); /* scatterv: slice d has 2 * (d + 1) doubles */
    double *params = xcalloc(NP, sizeof *params);
    double *ring = xcalloc(NP, sizeof *ring);
    double *tab = xcalloc((size_t)size * CH, sizeof *tab);
    double *slice = xcalloc(CH, sizeof *slice);
    double *vtab = xcalloc((size_t)nv, sizeof *vtab);
    double *vslice = xcalloc(2 * (size_t)size, sizeof *vslice);
    double *part = xcalloc(CH, sizeof *part);
    double *all = xcalloc((size_t)size * CH, sizeof *all);
    /* my value, a received one, the accumulator: one buffer that MPI sees,
     * so that the compiler keeps the accumulator in memory at -O2 */
    double *val = xcalloc(3, sizeof *val);
    long *ival = xcalloc(3, sizeof *ival);
    long *isum = xcalloc(1, sizeof *isum);
    double *sb = xcalloc((size_t)size * BLK, sizeof *sb);
    double *rb = xcalloc((size_t)size * BLK, sizeof *rb);
    double *ag = xcalloc((size_t)size * BLK, sizeof *ag);
    double *g1 = xcalloc(2, sizeof *g1), *g2 = xcalloc(2, sizeof *g2);
    double *G1 = xcalloc(2 * (size_t)size, sizeof *G1), *G2 = xcalloc(2 * (size_t)size, sizeof *G2);
    double *b1 = xcalloc(2, sizeof *b1), *b2 = xcalloc(2, sizeof *b2);
    double *sum = xcalloc(2, sizeof *sum);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double check = 0.0;

    for (int it = 0; it < ITERS; it++) {
        /* flat broadcast */
        if (root) {
            for (int k = 0; k < NP; k++)
                params[k] = it + 0.5 * k;
            for (int d = 1; d < size; d++)
                MPI_Send(params, NP, MPI_DOUBLE, d, T_BCAST, W); /* BCAST-SEND */
        } else {
            MPI_Recv(params, NP, MPI_DOUBLE, 0, T_BCAST, W, NOST); /* BCAST-RECV */
        }

        /* ring broadcast */
        if (root)
            for (int k = 0; k < NP; k++)
                ring[k] = 2.0 * it - k;
        else
            MPI_Recv(ring, NP, MPI_DOUBLE, rank - 1, T_RING, W, NOST); /* RING-RECV */
        if (rank + 1 < size)
            MPI_Send(ring, NP, MPI_DOUBLE, rank + 1, T_RING, W); /* RING-SEND */

        /* scatter: rank 0 keeps slice 0 */
        if (root) {
            for (int i = 0; i < size * CH; i++)
                tab[i] = it * 100.0 + i;
            for (int d = 1; d < size; d++)
                MPI_Send(&tab[d * CH], CH, MPI_DOUBLE, d, T_SCAT, W); /* SCATTER-SEND */
            memcpy(slice, tab, CH * sizeof *slice);
        } else {
            MPI_Recv(slice, CH, MPI_DOUBLE, 0, T_SCAT, W, NOST); /* SCATTER-RECV */
        }

        /* scatterv: slice d starts at d * (d + 1) and has 2 * (d + 1) doubles */
        if (root) {
            for (int i = 0; i < nv; i++)
                vtab[i] = it - 0.25 * i;
            for (int d = 1; d < size; d++)
                MPI_Send(&vtab[d * (d + 1)], 2 * (d + 1), MPI_DOUBLE, d, T_SCATV, W); /* SCATTERV-SEND */
            memcpy(vslice, vtab, 2 * sizeof *vslice);
        } else {
            MPI_Recv(vslice, 2 * (rank + 1), MPI_DOUBLE, 0, T_SCATV, W, NOST); /* SCATTERV-RECV */
        }

        /* gather */
        for (int k = 0; k < CH; k++)
            part[k] = slice[k] * (rank + 1) + vslice[0];
        if (root) {
            memcpy(all, part, CH * sizeof *all);
            for (int q = 1; q < size; q++)
                MPI_Recv(&all[q * CH], CH, MPI_DOUBLE, q, T_GATH, W, NOST); /* GATHER-RECV */
            for (int i = 0; i < size * CH; i++)
                check += all[i];
        } else {
            MPI_Send(part, CH, MPI_DOUBLE, 0, T_GATH, W); /* GATHER-SEND */
        }

        /* reduce into an accumulator in memory */
        val[0] = params[rank % NP] + ring[1] + rank;
        if (root) {
            val[2] = val[0];
            for (int q = 1; q < size; q++) {
                MPI_Recv(&val[1], 1, MPI_DOUBLE, q, T_RED, W, NOST); /* REDUCE-RECV */
                val[2] += val[1];                                    /* REDUCE-ACC */
            }
            check += val[2];
        } else {
            MPI_Send(&val[0], 1, MPI_DOUBLE, 0, T_RED, W); /* REDUCE-SEND */
        }

        /* reduce, then the sum back to every rank */
        ival[0] = (long)(rank + 1) * (it + 3);
        if (root) {
            ival[2] = ival[0];
            for (int q = 1; q < size; q++) {
                MPI_Recv(&ival[1], 1, MPI_LONG, q, T_ARED, W, NOST); /* ALLRED-RECV */
                ival[2] += ival[1];                                  /* ALLRED-ACC */
            }
            for (int d = 1; d < size; d++)
                MPI_Send(&ival[2], 1, MPI_LONG, d, T_ABC, W); /* ALLRED-BSEND */
            isum[0] = ival[2];
        } else {
            MPI_Send(&ival[0], 1, MPI_LONG, 0, T_ARED, W);  /* ALLRED-SEND */
            MPI_Recv(isum, 1, MPI_LONG, 0, T_ABC, W, NOST); /* ALLRED-BRECV */
        }

        /* alltoall: block dst of sb to dst, block src of rb from src */
        for (int i = 0; i < size * BLK; i++)
            sb[i] = rank * 1000.0 + it * 10.0 + i + (double)isum[0];
        memcpy(&rb[rank * BLK], &sb[rank * BLK], BLK * sizeof *rb);
        for (int i = 1; i < size; i++) {
            int dst = (rank + i) % size, src = (rank - i + size) % size;
            MPI_Sendrecv(&sb[dst * BLK], BLK, MPI_DOUBLE, dst, T_A2A, /* ALLTOALL-SR */
                         &rb[src * BLK], BLK, MPI_DOUBLE, src, T_A2A, W, NOST);
        }

        /* allgather around a ring, in place: at step s send block rank - s,
         * receive block rank - s - 1 */
        for (int k = 0; k < BLK; k++)
            ag[rank * BLK + k] = rb[k] + rank;
        for (int s = 0; s < size - 1; s++) {
            int sblk = (rank - s + size) % size, rblk = (rank - s - 1 + size) % size;
            MPI_Sendrecv(&ag[sblk * BLK], BLK, MPI_DOUBLE, right, T_AG, /* ALLGATHER-SR */
                         &ag[rblk * BLK], BLK, MPI_DOUBLE, left, T_AG, W, NOST);
        }
        for (int i = 0; i < size * BLK; i++)
            check += ag[i] * 1e-3;

        /* two independent gathers, then two independent broadcasts */
        g1[0] = rank + it;
        g1[1] = ag[0];
        g2[0] = rank - it;
        g2[1] = ag[1];
        MPI_Gather(g1, 2, MPI_DOUBLE, G1, 2, MPI_DOUBLE, 0, W); /* REPEAT-GATHER-1 */
        MPI_Gather(g2, 2, MPI_DOUBLE, G2, 2, MPI_DOUBLE, 0, W); /* REPEAT-GATHER-2 */
        if (root) {
            for (int i = 0; i < 2 * size; i++)
                check += G1[i] - G2[i];
            b1[0] = check;
            b1[1] = it;
            b2[0] = -check;
            b2[1] = 2 * it;
        }
        MPI_Bcast(b1, 2, MPI_DOUBLE, 0, W); /* REPEAT-BCAST-1 */
        MPI_Bcast(b2, 2, MPI_DOUBLE, 0, W); /* REPEAT-BCAST-2 */
        check += (b1[0] + b2[0]) * 0.5 + b1[1] - b2[1] * 0.5;
        for (int k = 0; k < NP; k++)
            check += params[k] * 1e-2 + ring[k] * 1e-2;
    }

    sum[0] = check;
    MPI_Allreduce(&sum[0], &sum[1], 1, MPI_DOUBLE, MPI_SUM, W);
    if (root)
        printf("collectives: ranks=%d checksum=%.6f\n", size, sum[1]);
    free(params);
    free(ring);
    free(tab);
    free(slice);
    free(vtab);
    free(vslice);
    free(part);
    free(all);
    free(val);
    free(ival);
    free(isum);
    free(sb);
    free(rb);
    free(ag);
    free(g1);
    free(g2);
    free(G1);
    free(G2);
    free(b1);
    free(b2);
    free(sum);
    MPI_Finalize();
    return 0;
}
