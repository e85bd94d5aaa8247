/*
 * dft.c - complex discrete Fourier transform of n = m*m points by the
 * "four-step" method, after the second case study of the Gordini paper.
 *
 * What it computes: X[k] = sum_j x[j] exp(-2 pi i j k / n) of a known real
 * signal x[j] = 0.25 + cos(2 pi 3 j / n) + 0.5 sin(2 pi 10 j / n), whose
 * spectrum is n*0.25 at k=0, n/2 at k=3 and n-3, and -/+ i n/4 at k=10 and
 * n-10, zero elsewhere.  Writing j = m*j1 + j2 and k = k1 + m*k2:
 *   1. m-point DFTs over j1 for every column j2,
 *   2. multiplication by the twiddle factors w_n^(j2*k1),
 *   3. a transpose, so each rank holds whole rows k1,
 *   4. m-point DFTs over j2 for every k1.
 * The sub-DFTs are naive O(m^2) sums in a fixed order, so every output value
 * is computed with the same arithmetic whatever the number of ranks.
 *
 * Communication pattern: rank p owns columns j2 (steps 1-2) and then rows
 * k1 (step 4), m/size of each.  The transpose is a hand-written all-to-all:
 * each rank packs one block per destination, then exchanges blocks pairwise
 * with blocking MPI_Send/MPI_Recv, visiting partners in increasing rank
 * order, the lower rank of each pair sending first (every rank meets the
 * pairs in the same global order, so it cannot deadlock).  Real and
 * imaginary parts live in separate arrays and go as two messages.  At the
 * end every rank sends its part of the spectrum to rank 0 (again re and im
 * separately), which collects the blocks into one array and checks it.
 *
 * What commhint should find:
 *  - message aggregation: the re and im sends to the same rank (transpose
 *    and final gather) can be merged into one message;
 *  - collective communication: the pairwise exchange is an MPI_Alltoall and
 *    the final send/receive loop an MPI_Gather;
 *  - overlap: a send buffer is never written again, so each send of the
 *    transpose can overlap with the packing of the blocks for later
 *    partners (before it) and with the step-4 DFTs (after it).
 *
 * Usage: dft [n]     default n=576 (= 24*24); n must be a square m*m with
 *                    m divisible by the number of ranks.
 */
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

enum { TAG_RE = 1, TAG_IM = 2, TAG_GRE = 3, TAG_GIM = 4 };

/*
 * Stops the job on a bad configuration that every rank detects: rank 0
 * prints the message and aborts, the others wait in a barrier so that they
 * cannot end the job before the message is out.
 */
static void die_config(int rank, const char *fmt, ...)
{
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fputs("dft: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Returns argv[idx] as an integer in [min, 4000000], or def if it is absent. */
static int arg_int(int argc, char **argv, int idx, int def, int min, int rank)
{
    if (argc <= idx)
        return def;
    char *end;
    long v = strtol(argv[idx], &end, 10);
    if (*end != '\0' || v < min || v > 4000000)
        die_config(rank, "bad argument: position=%d value=%s min=%d max=%d", idx, argv[idx], min,
                   4000000);
    return (int)v;
}

static double signal(int j, int n)
{
    return 0.25 + cos(2 * PI * 3 * j / n) + 0.5 * sin(2 * PI * 10 * j / n);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "dft: out of memory: bytes=%zu\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int n = arg_int(argc, argv, 1, 576, 1, rank);
    int m = (int)lround(sqrt((double)n));
    if (m * m != n || m % size != 0 || n <= 20)
        die_config(rank, "n must be a square m*m > 20 with m divisible by the ranks: n=%d ranks=%d",
                   n, size);
    int b = m / size;      /* columns (then rows) per rank */
    int blk = b * b;       /* doubles per transpose block */

    /* cs[t] + i sn[t] = w_n^t = exp(-2 pi i t / n), t in [0, n). */
    double *cs = xmalloc(n * sizeof(double)), *sn = xmalloc(n * sizeof(double));
    for (int t = 0; t < n; t++) {
        cs[t] = cos(2 * PI * t / n);
        sn[t] = -sin(2 * PI * t / n);
    }

    /* Steps 1-2: yre/yim[c*m + k1] for local column c (j2 = rank*b + c). */
    double *yre = xmalloc(b * m * sizeof(double)), *yim = xmalloc(b * m * sizeof(double));
    double *col = xmalloc(m * sizeof(double));
    for (int c = 0; c < b; c++) {
        int j2 = rank * b + c;
        for (int j1 = 0; j1 < m; j1++)
            col[j1] = signal(m * j1 + j2, n);
        for (int k1 = 0; k1 < m; k1++) {
            double re = 0.0, im = 0.0;
            for (int j1 = 0; j1 < m; j1++) {
                int t = (int)((long)m * j1 * k1 % n);        /* w_m^(j1 k1) */
                re += col[j1] * cs[t];
                im += col[j1] * sn[t];
            }
            int t = j2 * k1 % n;                             /* twiddle */
            yre[c * m + k1] = re * cs[t] - im * sn[t];
            yim[c * m + k1] = re * sn[t] + im * cs[t];
        }
    }

    /* Step 3: transpose.  Block for rank q holds rows k1 = q*b + r of my
     * columns, packed as [r][c]; it arrives as [r][source column]. */
    double *sre = xmalloc(size * blk * sizeof(double)), *sim = xmalloc(size * blk * sizeof(double));
    double *rre = xmalloc(size * blk * sizeof(double)), *rim = xmalloc(size * blk * sizeof(double));
    for (int q = 0; q < size; q++)
        for (int r = 0; r < b; r++)
            for (int c = 0; c < b; c++) {
                sre[q * blk + r * b + c] = yre[c * m + q * b + r];
                sim[q * blk + r * b + c] = yim[c * m + q * b + r];
            }
    for (int q = 0; q < size; q++) {
        double *sr = &sre[q * blk], *si = &sim[q * blk];
        double *rr = &rre[q * blk], *ri = &rim[q * blk];
        if (q == rank) {
            memcpy(rr, sr, blk * sizeof(double));
            memcpy(ri, si, blk * sizeof(double));
        } else if (rank < q) {
            MPI_Send(sr, blk, MPI_DOUBLE, q, TAG_RE, MPI_COMM_WORLD);
            MPI_Send(si, blk, MPI_DOUBLE, q, TAG_IM, MPI_COMM_WORLD);
            MPI_Recv(rr, blk, MPI_DOUBLE, q, TAG_RE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(ri, blk, MPI_DOUBLE, q, TAG_IM, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rr, blk, MPI_DOUBLE, q, TAG_RE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(ri, blk, MPI_DOUBLE, q, TAG_IM, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sr, blk, MPI_DOUBLE, q, TAG_RE, MPI_COMM_WORLD);
            MPI_Send(si, blk, MPI_DOUBLE, q, TAG_IM, MPI_COMM_WORLD);
        }
    }

    /* Step 4: zre/zim[r*m + k2] = X[k1 + m*k2] for local row k1 = rank*b + r;
     * row r of the block from rank q holds j2 = q*b + c. */
    double *zre = xmalloc(b * m * sizeof(double)), *zim = xmalloc(b * m * sizeof(double));
    for (int r = 0; r < b; r++)
        for (int k2 = 0; k2 < m; k2++) {
            double re = 0.0, im = 0.0;
            for (int j2 = 0; j2 < m; j2++) {
                int src = (j2 / b) * blk + r * b + j2 % b;
                int t = (int)((long)m * j2 * k2 % n);        /* w_m^(j2 k2) */
                re += rre[src] * cs[t] - rim[src] * sn[t];
                im += rre[src] * sn[t] + rim[src] * cs[t];
            }
            zre[r * m + k2] = re;
            zim[r * m + k2] = im;
        }

    /* Collect the spectrum on rank 0: block of rank q into slice q. */
    double *fre = NULL, *fim = NULL;
    if (rank == 0) {
        fre = xmalloc(n * sizeof(double));
        fim = xmalloc(n * sizeof(double));
        memcpy(fre, zre, b * m * sizeof(double));
        memcpy(fim, zim, b * m * sizeof(double));
        for (int q = 1; q < size; q++) {
            MPI_Recv(&fre[q * b * m], b * m, MPI_DOUBLE, q, TAG_GRE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&fim[q * b * m], b * m, MPI_DOUBLE, q, TAG_GIM, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        MPI_Send(zre, b * m, MPI_DOUBLE, 0, TAG_GRE, MPI_COMM_WORLD);
        MPI_Send(zim, b * m, MPI_DOUBLE, 0, TAG_GIM, MPI_COMM_WORLD);
    }

    if (rank == 0) {
        /* fre[k1*m + k2] = X[k1 + m*k2]: compare with the exact spectrum. */
        double err = 0.0, energy = 0.0;
        for (int k1 = 0; k1 < m; k1++)
            for (int k2 = 0; k2 < m; k2++) {
                int k = k1 + m * k2;
                double ere = 0.0, eim = 0.0;
                if (k == 0)
                    ere = 0.25 * n;
                if (k == 3 || k == n - 3)
                    ere = 0.5 * n;
                if (k == 10)
                    eim = -0.25 * n;
                if (k == n - 10)
                    eim = 0.25 * n;
                double re = fre[k1 * m + k2], im = fim[k1 * m + k2];
                err = fmax(err, fmax(fabs(re - ere), fabs(im - eim)));
                energy += re * re + im * im;
            }
        int ok = err < 1e-9 * n;
        printf("dft: n=%d max_error=%.6e energy=%.6e %s\n", n, err, energy, ok ? "OK" : "FAILED");
        if (!ok)
            MPI_Abort(MPI_COMM_WORLD, 1);
        free(fre);
        free(fim);
    }

    free(cs); free(sn); free(yre); free(yim); free(col);
    free(sre); free(sim); free(rre); free(rim); free(zre); free(zim);
    MPI_Finalize();
    return 0;
}
