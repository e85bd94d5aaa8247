/* bench/particles.c - an irregular benchmark of bench/irregular.sh: a
 * short-range particle code with cell lists.  Each rank owns a slab of a
 * periodic box (slabs along x, one per rank) with `np` particles; every
 * step it sends the particles within the cut-off of each slab face to the
 * neighbour rank (packed into a staging buffer, counts then coordinates by
 * MPI_Sendrecv), builds a linked cell list over its own and the received
 * particles (head/next arrays: scattered writes), sums Lennard-Jones forces
 * over the 27 neighbouring cells by following the lists (reads at
 * data-dependent indices), moves its particles (reflected at the slab's
 * faces, periodic in y and z) and sums the potential energy with
 * MPI_Allreduce.  Usage: particles particles-per-rank steps.
 * Prints one line on rank 0: the energy and the seconds the steps took
 * (the slowest rank's, from the barrier before them). */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RC 2.5 /* cut-off */

static uint64_t rng = 0x2545f4914f6cdd1dull;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long np = argc > 1 ? atol(argv[1]) : 20000;
    long steps = argc > 2 ? atol(argv[2]) : 10;
    if (np < 8 || steps < 1) {
        if (rank == 0)
            fprintf(stderr, "particles: bad arguments: particles=%ld steps=%ld\n", np, steps);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* density 0.5: a slab of ly * ly * lx with lx = ly per rank */
    double ly = cbrt((double)np / 0.5), lx = ly, x0 = rank * lx;
    int nc = (int)(ly / RC), ncx = (int)(lx / RC);
    if (nc < 3 || ncx < 3) {
        if (rank == 0)
            fprintf(stderr, "particles: too few particles for cells of the cut-off: particles=%ld\n", np);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double cy = ly / nc, cx = lx / ncx;
    long cap = 2 * np; /* own particles, then those received */
    double *px = malloc(cap * sizeof *px), *py = malloc(cap * sizeof *py), *pz = malloc(cap * sizeof *pz);
    double *vx = malloc(np * sizeof *vx), *vy = malloc(np * sizeof *vy), *vz = malloc(np * sizeof *vz);
    double *fx = malloc(np * sizeof *fx), *fy = malloc(np * sizeof *fy), *fz = malloc(np * sizeof *fz);
    double *sbuf = malloc(3 * np * sizeof *sbuf), *rbuf = malloc(3 * np * sizeof *rbuf);
    long ncells = (long)(ncx + 2) * nc * nc;
    long *head = malloc(ncells * sizeof *head), *next = malloc(cap * sizeof *next);
    if (!px || !py || !pz || !vx || !vy || !vz || !fx || !fy || !fz || !sbuf || !rbuf || !head || !next)
        MPI_Abort(MPI_COMM_WORLD, 1);
    rng += (uint64_t)rank * 0x9e3779b97f4a7c15ull;
    for (long i = 0; i < np; i++) {
        px[i] = x0 + uniform() * lx;
        py[i] = uniform() * ly;
        pz[i] = uniform() * ly;
        vx[i] = uniform() - 0.5;
        vy[i] = uniform() - 0.5;
        vz[i] = uniform() - 0.5;
    }
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double dt = 0.001, epot = 0, etot = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long s = 0; s < steps; s++) {
        /* ghosts: particles near each face go to that neighbour, shifted
         * into its frame across the periodic ends */
        long n = np;
        for (int dir = 0; dir < 2; dir++) {
            int to = dir ? right : left, from = dir ? left : right;
            double shift = 0;
            if (dir == 1 && rank == size - 1)
                shift = -lx * size;
            if (dir == 0 && rank == 0)
                shift = lx * size;
            long k = 0;
            for (long i = 0; i < np; i++) {
                double d = dir ? x0 + lx - px[i] : px[i] - x0;
                if (d < RC && k < np) {
                    sbuf[3 * k] = px[i] + shift;
                    sbuf[3 * k + 1] = py[i];
                    sbuf[3 * k + 2] = pz[i];
                    k++;
                }
            }
            long got = 0;
            MPI_Sendrecv(&k, 1, MPI_LONG, to, 10 + dir, &got, 1, MPI_LONG, from, 10 + dir, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            MPI_Sendrecv(sbuf, (int)(3 * k), MPI_DOUBLE, to, 20 + dir, rbuf, (int)(3 * got), MPI_DOUBLE, from,
                         20 + dir, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (long i = 0; i < got && n < cap; i++, n++) {
                px[n] = rbuf[3 * i];
                py[n] = rbuf[3 * i + 1];
                pz[n] = rbuf[3 * i + 2];
            }
        }
        /* cell list: x cells -1 .. ncx (ghost layers), y and z periodic */
        for (long c = 0; c < ncells; c++)
            head[c] = -1;
        for (long i = 0; i < n; i++) {
            int ix = (int)floor((px[i] - x0) / cx) + 1, iy = (int)(py[i] / cy), iz = (int)(pz[i] / cy);
            if (ix < 0 || ix > ncx + 1)
                continue;
            iy = iy < 0 ? 0 : iy >= nc ? nc - 1 : iy;
            iz = iz < 0 ? 0 : iz >= nc ? nc - 1 : iz;
            long c = ((long)ix * nc + iy) * nc + iz;
            next[i] = head[c];
            head[c] = i;
        }
        /* forces on the own particles */
        epot = 0;
        for (long i = 0; i < np; i++) {
            int ix = (int)floor((px[i] - x0) / cx) + 1, iy = (int)(py[i] / cy), iz = (int)(pz[i] / cy);
            double ax = 0, ay = 0, az = 0;
            for (int dx = -1; dx <= 1; dx++)
                for (int dy = -1; dy <= 1; dy++)
                    for (int dz = -1; dz <= 1; dz++) {
                        int jx = ix + dx, jy = (iy + dy + nc) % nc, jz = (iz + dz + nc) % nc;
                        if (jx < 0 || jx > ncx + 1)
                            continue;
                        for (long j = head[((long)jx * nc + jy) * nc + jz]; j >= 0; j = next[j]) {
                            if (j == i)
                                continue;
                            double rx = px[i] - px[j], ry = py[i] - py[j], rz = pz[i] - pz[j];
                            ry -= ly * round(ry / ly);
                            rz -= ly * round(rz / ly);
                            double r2 = rx * rx + ry * ry + rz * rz;
                            if (r2 < RC * RC && r2 > 1e-12) {
                                double i2 = 1.0 / (r2 > 0.64 ? r2 : 0.64), i6 = i2 * i2 * i2;
                                double f = 24.0 * i2 * i6 * (2.0 * i6 - 1.0);
                                ax += f * rx;
                                ay += f * ry;
                                az += f * rz;
                                epot += 2.0 * i6 * (i6 - 1.0);
                            }
                        }
                    }
            fx[i] = ax;
            fy[i] = ay;
            fz[i] = az;
        }
        /* move: reflected at the slab's faces, periodic in y and z */
        for (long i = 0; i < np; i++) {
            vx[i] += dt * fx[i];
            vy[i] += dt * fy[i];
            vz[i] += dt * fz[i];
            px[i] += dt * vx[i];
            if (px[i] < x0 || px[i] >= x0 + lx) {
                vx[i] = -vx[i];
                px[i] += 2 * dt * vx[i];
            }
            py[i] = fmod(py[i] + dt * vy[i] + ly, ly);
            pz[i] = fmod(pz[i] + dt * vz[i] + ly, ly);
        }
        MPI_Allreduce(&epot, &etot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("particles: n=%ld steps=%ld energy=%.6f seconds=%.6f\n", np * size, steps, etot, tmax);
    free(px);
    free(py);
    free(pz);
    free(vx);
    free(vy);
    free(vz);
    free(fx);
    free(fy);
    free(fz);
    free(sbuf);
    free(rbuf);
    free(head);
    free(next);
    MPI_Finalize();
    return 0;
}
