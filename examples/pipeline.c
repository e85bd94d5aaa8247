/*
 * pipeline.c - a wavefront: an upwind transport sweep across a 2-D grid
 * split into column strips, pipelined over blocks of rows, with blocking
 * MPI_Recv/MPI_Send between neighbouring strips.
 *
 * What it computes: source iteration for one direction of a discrete-
 * ordinates transport problem on an n x n grid (the kernel of Sweep3D).
 * Each iteration first computes, per cell, the source
 *   src(i,j) = q(i,j) + sigma_s * sum_{d=-K..K} w_d psi_old(i+d, j)
 * (a scattering kernel along the column, rows clamped at the grid's edges)
 * from the previous iteration's flux psi_old, then sweeps the grid in the
 * direction of flight, from the top left corner:
 *   psi(i,j) = (src(i,j) + cx psi(i,j-1) + cy psi(i-1,j)) / (sigma_t + cx + cy),
 * with an inflow of 1 through the left edge and 0.5 through the top edge.
 * The iteration stops when the largest change of psi is below 1e-12 or
 * after `iters` iterations.  Every cell is computed with the same
 * arithmetic whatever the number of ranks, and rank 0 prints the number of
 * iterations, the last largest change, psi's minimum and the bottom row's
 * outflow (summed in column order after an MPI_Gatherv), which therefore
 * do not depend on it.
 *
 * Communication pattern: rank r owns a strip of columns; the cells of its
 * first column need the last column of rank r-1 for the same rows, in this
 * iteration.  The rows are cut into `blocks` blocks, and for each block
 * rank r receives the left boundary from r-1 (MPI_Recv), computes the
 * block's source, sweeps the block and sends its right boundary to r+1
 * (MPI_Send): a pipeline of size-1 stages.  After each iteration an
 * MPI_Allreduce (max) of the change decides whether to stop, so the
 * pipeline fills again every iteration.
 *
 * What commhint should find: overlap.  The source of a block reads only
 * psi_old and q, never the received boundary, so it can run while the
 * receive is in flight (post an MPI_Irecv before it, wait after it): rank
 * r then computes its source while r-1 is still sweeping, and only the
 * sweeps are left on the pipeline's critical path.  The send of a block
 * only reads its boundary buffer, which nothing writes before the next
 * block's sweep.  How much that is worth depends on the number of blocks:
 * the pipeline's fill (ranks-1 stages per iteration) is what shrinks, so
 * with many blocks it is a small part of the run.
 *
 * Usage: pipeline [n=64 [iters=10 [blocks=4]]]   (n >= ranks, n >= blocks)
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
    int it;
    for (it = 0; it < iters; it++) {
        double dmax = 0;
        for (int b = 0; b < blocks; b++) {
            int i0 = (int)((long)n * b / blocks), i1 = (int)((long)n * (b + 1) / blocks);
            if (left >= 0)
                MPI_Recv(inb + i0, i1 - i0, MPI_DOUBLE, left, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            else
                for (int i = i0; i < i1; i++)
                    inb[i] = in_left;
            /* the block's source, from the previous iteration's flux */
            for (int i = i0; i < i1; i++)
                for (int j = 0; j < w; j++) {
                    double s = 0;
                    for (int d = -K; d <= K; d++) {
                        int r = i + d < 0 ? 0 : i + d >= n ? n - 1 : i + d;
                        s += wgt[d + K] * old[r * w + j];
                    }
                    src[i * w + j] = q[i * w + j] + sig_s * s;
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
            for (int i = i0; i < i1; i++)
                outb[i] = psi[i * w + w - 1];
            if (right >= 0)
                MPI_Send(outb + i0, i1 - i0, MPI_DOUBLE, right, TAG, MPI_COMM_WORLD);
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
    free(counts);
    free(displs);
    free(row);
    MPI_Finalize();
    return 0;
}
