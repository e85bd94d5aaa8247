/*
 * pipeline_after.c - examples/pipeline.c after applying commhint's overlap
 * hints (docs/case-studies.md).  Same computation, same output for the
 * same arguments.
 *
 * What commhint said about pipeline.c (traced at -O2 on 4 ranks, default
 * sizes):
 *  - overlap of the MPI_Recv of a block's left boundary (ranks 1-3): the
 *    block's source "can run before the wait", and the previous block's
 *    sweep and the pack of its boundary "can move after the call";
 *  - overlap of the MPI_Send of a block's right boundary (ranks 0-2):
 *    everything up to the pack of the same block in the next iteration
 *    can run before the wait;
 *  - aggregate: on rank 0 only, the sends of an iteration's blocks can be
 *    one message (not applied: rank 0 would send only after sweeping the
 *    whole strip, and rank 1 could not start before; the pipeline would
 *    be gone.  The estimate, 71 us, prices the messages saved, not the
 *    lateness of the merged one at its receiver);
 *  - overlap of the MPI_Allreduce (the last cell's store and the pack of
 *    the last block), the MPI_Reduce and the MPI_Gatherv (the counts and
 *    displacements): not applied, a few microseconds each.
 * What changed: the receive of block b is an MPI_Irecv, posted as early as
 * the hint allows (block 0 at the start of the iteration, block b+1 right
 * after block b's boundary has arrived, before block b's sweep), and waited
 * for after the block's source is computed; the send is an MPI_Isend,
 * waited for just before the same block's boundary is packed again in the
 * next iteration (and after the last iteration).  The blocks of the left
 * boundary already had distinct parts of inb and outb, so no buffer was
 * added.  Every cell is computed with the same arithmetic as before.
 *
 * What commhint should find: no overlap hint at the MPI_Irecv, MPI_Isend or
 * their waits.
 *
 * Usage: pipeline_after [n=64 [iters=10 [blocks=4]]]   (n >= ranks, n >= blocks)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { K = 4, TAG = 7 };

static const double sig_t = 1.0, sig_s = 0.5, cx = 0.7, cy = 0.4;
static const double in_left = 1.0, in_top = 0.5;

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
    int n = arg(argc, argv, 1, 64), iters = arg(argc, argv, 2, 10), blocks = arg(argc, argv, 3, 4);
    if (n < size || blocks < 1 || n < blocks || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "pipeline: need n >= ranks, n >= blocks >= 1, iters >= 1\n");
        MPI_Finalize();
        return 2;
    }
    int c0 = (int)((long)n * rank / size), w = (int)((long)n * (rank + 1) / size) - c0;
    int left = rank - 1, right = rank + 1 < size ? rank + 1 : -1;
    double *psi = malloc((size_t)n * w * sizeof *psi), *old = malloc((size_t)n * w * sizeof *old);
    double *src = malloc((size_t)n * w * sizeof *src), *q = malloc((size_t)n * w * sizeof *q);
    double *inb = malloc(n * sizeof *inb), *outb = malloc(n * sizeof *outb);
    if (!psi || !old || !src || !q || !inb || !outb) {
        fprintf(stderr, "pipeline: out of memory: rank=%d n=%d\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double wgt[2 * K + 1], wsum = 0;
    for (int d = -K; d <= K; d++)
        wsum += wgt[d + K] = 1.0 / (1 + d * d);
    for (int d = 0; d <= 2 * K; d++)
        wgt[d] /= wsum;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < w; j++) {
            double x = (c0 + j + 0.5) / n, y = (i + 0.5) / n;
            q[i * w + j] = (x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5) < 0.04 ? 1.0 : 1e-3;
            old[i * w + j] = 0.0;
        }

    double change = 0, first_change = 0;
    MPI_Request rreq = MPI_REQUEST_NULL, *sreq = malloc(blocks * sizeof *sreq);
    if (!sreq) {
        fprintf(stderr, "pipeline: out of memory: rank=%d blocks=%d\n", rank, blocks);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int b = 0; b < blocks; b++)
        sreq[b] = MPI_REQUEST_NULL;
    int it;
    for (it = 0; it < iters; it++) {
        double dmax = 0;
        if (left >= 0)
            MPI_Irecv(inb, n / blocks, MPI_DOUBLE, left, TAG, MPI_COMM_WORLD, &rreq);
        for (int b = 0; b < blocks; b++) {
            int i0 = (int)((long)n * b / blocks), i1 = (int)((long)n * (b + 1) / blocks);
            /* the block's source, from the previous iteration's flux, while
             * its left boundary is on its way */
            for (int i = i0; i < i1; i++)
                for (int j = 0; j < w; j++) {
                    double s = 0;
                    for (int d = -K; d <= K; d++) {
                        int r = i + d < 0 ? 0 : i + d >= n ? n - 1 : i + d;
                        s += wgt[d + K] * old[r * w + j];
                    }
                    src[i * w + j] = q[i * w + j] + sig_s * s;
                }
            if (left >= 0) {
                MPI_Wait(&rreq, MPI_STATUS_IGNORE);
                if (b + 1 < blocks) {
                    int i2 = (int)((long)n * (b + 2) / blocks);
                    MPI_Irecv(inb + i1, i2 - i1, MPI_DOUBLE, left, TAG, MPI_COMM_WORLD, &rreq);
                }
            } else {
                for (int i = i0; i < i1; i++)
                    inb[i] = in_left;
            }
            /* the sweep of the block */
            for (int i = i0; i < i1; i++)
                for (int j = 0; j < w; j++) {
                    double l = j == 0 ? inb[i] : psi[i * w + j - 1];
                    double u = i == 0 ? in_top : psi[(i - 1) * w + j];
                    double v = (src[i * w + j] + cx * l + cy * u) / (sig_t + cx + cy);
                    dmax = fmax(dmax, fabs(v - old[i * w + j]));
                    psi[i * w + j] = v;
                }
            if (right >= 0) {
                MPI_Wait(&sreq[b], MPI_STATUS_IGNORE);   /* the last iteration's send of this block */
                for (int i = i0; i < i1; i++)
                    outb[i] = psi[i * w + w - 1];
                MPI_Isend(outb + i0, i1 - i0, MPI_DOUBLE, right, TAG, MPI_COMM_WORLD, &sreq[b]);
            }
        }
        MPI_Allreduce(&dmax, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (it == 0)
            first_change = change;
        double *t = old;
        old = psi;
        psi = t;
        if (change < 1e-12) {
            it++;
            break;
        }
    }
    MPI_Waitall(blocks, sreq, MPI_STATUSES_IGNORE);

    /* old is the last iteration's flux: its minimum, and the bottom row's outflow */
    double mn = old[0], gmin;
    for (int k = 1; k < n * w; k++)
        mn = fmin(mn, old[k]);
    MPI_Reduce(&mn, &gmin, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    int *counts = malloc(size * sizeof *counts), *displs = malloc(size * sizeof *displs);
    double *row = rank == 0 ? malloc(n * sizeof *row) : NULL;
    if (!counts || !displs || (rank == 0 && !row)) {
        fprintf(stderr, "pipeline: out of memory: rank=%d n=%d\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int p = 0; p < size; p++) {
        displs[p] = (int)((long)n * p / size);
        counts[p] = (int)((long)n * (p + 1) / size) - displs[p];
    }
    MPI_Gatherv(old + (size_t)(n - 1) * w, w, MPI_DOUBLE, row, counts, displs, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
    if (rank == 0) {
        double out = 0;
        for (int j = 0; j < n; j++)
            out += row[j];
        int ok = gmin >= 0 && isfinite(out) && change <= first_change;
        printf("pipeline: n=%d iters=%d blocks=%d done=%d change=%.6e min=%.9e outflow=%.12e %s\n", n,
               iters, blocks, it, change, gmin, out, ok ? "OK" : "FAILED");
        if (!ok)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(psi);
    free(old);
    free(src);
    free(q);
    free(inb);
    free(outb);
    free(sreq);
    free(counts);
    free(displs);
    free(row);
    MPI_Finalize();
    return 0;
}
