/* bench/spmv.c - an irregular benchmark of bench/irregular.sh: power
 * iteration over a random sparse matrix in CSR form.  Each rank owns `rows`
 * rows of an n x n matrix (n = rows * ranks) with `nnz` nonzeros per row at
 * random columns; every iteration computes its rows of y = A x (reads of
 * x at random indices), normalises with an MPI_Allreduce and gathers the
 * new x with an MPI_Allgather.  About 3 traced accesses per nonzero and
 * iteration (column index, value, x) plus one write per row.
 * Usage: spmv rows-per-rank nonzeros-per-row iterations.
 * Prints one line on rank 0: the result and the seconds the iterations took
 * (the slowest rank's, from the barrier before them).
 *
 * Built with -DSPMV_FLOOR (and -lzstd), it is its own least tracer: what
 * any tracer of this loop has to record, and nothing else.  Every other
 * address is affine in the loop counters and the matrix's row lengths, so
 * the trace's information is each row's length (a varint) and each
 * x[col[j]] address (its 32-bit difference from the one before).  They go
 * into a 1 MiB buffer (as the runtime's), which when full is dropped
 * (SPMV_FLOOR=store), written to SPMV_FLOOR_DIR/floor-RANK.bin (write) or
 * compressed by zstd at level 1 (the runtime's default) and written
 * (zstd, the default).  bench/irregular.sh sets the tracer's cost beside
 * that floor. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef SPMV_FLOOR
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define FLOOR_BUF (1u << 20)
static struct {
    unsigned char buf[FLOOR_BUF + 64];
    size_t len;
    int mode; /* 0 store, 1 write, 2 zstd */
    int fd;
    ZSTD_CCtx *cc;
    void *out;
    size_t ocap;
    uintptr_t last;
    uint64_t bytes; /* written */
} fl;

static void floor_open(int rank)
{
    const char *m = getenv("SPMV_FLOOR"), *dir = getenv("SPMV_FLOOR_DIR");
    char path[4096];
    fl.mode = m && !strcmp(m, "store") ? 0 : m && !strcmp(m, "write") ? 1 : 2;
    snprintf(path, sizeof path, "%s/floor-%d.bin", dir && *dir ? dir : ".", rank);
    if ((fl.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0 || !(fl.cc = ZSTD_createCCtx()) ||
        !(fl.out = malloc(fl.ocap = ZSTD_compressBound(FLOOR_BUF + 64)))) {
        fprintf(stderr, "spmv: cannot open the floor's output: path=%s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void floor_put(const void *p, size_t n)
{
    if (fl.mode == 2) {
        n = ZSTD_compressCCtx(fl.cc, fl.out, fl.ocap, p, n, 1);
        p = fl.out;
    }
    if (fl.mode && (ZSTD_isError(n) || write(fl.fd, p, n) != (ssize_t)n)) {
        fprintf(stderr, "spmv: cannot write the floor's output\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fl.bytes += fl.mode ? n : 0;
}

static inline void floor_check(void)
{
    if (fl.len >= FLOOR_BUF) {
        floor_put(fl.buf, fl.len);
        fl.len = 0;
    }
}

static inline void floor_row(long n)
{
    unsigned long v = (unsigned long)n;
    while (v >= 0x80) {
        fl.buf[fl.len++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    fl.buf[fl.len++] = (unsigned char)v;
    floor_check();
}

static inline void floor_addr(const void *p)
{
    int64_t d = (int64_t)((uintptr_t)p - fl.last);
    int32_t w = d < INT32_MIN + 1 || d > INT32_MAX ? INT32_MIN : (int32_t)d; /* escape: 8 more bytes */
    memcpy(fl.buf + fl.len, &w, 4);
    fl.len += 4;
    if (w == INT32_MIN) {
        memcpy(fl.buf + fl.len, &p, 8);
        fl.len += 8;
    }
    fl.last = (uintptr_t)p;
    floor_check();
}

static void floor_close(int rank)
{
    if (fl.len)
        floor_put(fl.buf, fl.len);
    close(fl.fd);
    printf("spmv: rank=%d floor_bytes=%llu\n", rank, (unsigned long long)fl.bytes);
}
#define FLOOR_OPEN(r) floor_open(r)
#define FLOOR_ROW(n) floor_row(n)
#define FLOOR_ADDR(p) floor_addr(p)
#define FLOOR_CLOSE(r) floor_close(r)
#else
#define FLOOR_OPEN(r) ((void)0)
#define FLOOR_ROW(n) ((void)0)
#define FLOOR_ADDR(p) ((void)0)
#define FLOOR_CLOSE(r) ((void)0)
#endif

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long rows = argc > 1 ? atol(argv[1]) : 100000;
    long nnz = argc > 2 ? atol(argv[2]) : 8;
    long iters = argc > 3 ? atol(argv[3]) : 10;
    if (rows < 1 || nnz < 1 || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "spmv: bad arguments: rows=%ld nnz=%ld iterations=%ld\n", rows, nnz, iters);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    long n = rows * size;
    long *rowptr = malloc((size_t)(rows + 1) * sizeof *rowptr);
    int *col = malloc((size_t)(rows * nnz) * sizeof *col);
    double *val = malloc((size_t)(rows * nnz) * sizeof *val);
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)rows * sizeof *y);
    if (!rowptr || !col || !val || !x || !y)
        MPI_Abort(MPI_COMM_WORLD, 1);
    rng += (uint64_t)rank * 0x9e3779b97f4a7c15ull;
    for (long r = 0; r <= rows; r++)
        rowptr[r] = r * nnz;
    for (long j = 0; j < rows * nnz; j++) {
        col[j] = (int)(next() % (uint64_t)n);
        val[j] = (double)(next() % 1000) / 1000.0 + 0.001;
    }
    for (long i = 0; i < n; i++)
        x[i] = 1.0;
    double lambda = 0;
    FLOOR_OPEN(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        double local = 0, norm2 = 0;
        for (long r = 0; r < rows; r++) {
            double s = 0;
            FLOOR_ROW(rowptr[r + 1] - rowptr[r]);
            for (long j = rowptr[r]; j < rowptr[r + 1]; j++) {
                FLOOR_ADDR(&x[col[j]]);
                s += val[j] * x[col[j]];
            }
            y[r] = s;
            local += s * s;
        }
        MPI_Allreduce(&local, &norm2, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        lambda = sqrt(norm2);
        for (long r = 0; r < rows; r++)
            y[r] /= lambda;
        MPI_Allgather(y, (int)rows, MPI_DOUBLE, x, (int)rows, MPI_DOUBLE, MPI_COMM_WORLD);
    }
    FLOOR_CLOSE(rank); /* its last buffer counts */
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("spmv: n=%ld nnz/row=%ld iterations=%ld lambda=%.6f seconds=%.6f\n", n, nnz, iters, lambda, tmax);
    free(rowptr);
    free(col);
    free(val);
    free(x);
    free(y);
    MPI_Finalize();
    return 0;
}
