/* compress-chunks.c - measures how well and how fast the raw records of a
 * real trace compress with zstd (several levels) and lz4, to justify the
 * chunk compression of the trace format (docs/trace-format.md).
 *
 *   compress-chunks TRACE_DIR [REPS]
 *
 * Reads every rank stream with the trace reader, reassembles each chunk's
 * raw record bytes, recompresses them with each codec in turn, REPS times
 * (default 5: the codecs alternate, so that all see the same machine load),
 * and reports ratio and compress/decompress throughput (MB of raw records
 * per second, over all repetitions) as a markdown table on stdout. */
#include <inttypes.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "trace-reader.h"

struct codec {
    const char *name;
    int level; /* zstd level (negative: --fast), or 0 for lz4 */
    uint64_t raw, stored;
    double t_comp, t_decomp;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run_codec(struct codec *c, const void *raw, size_t n, void *tmp, size_t tmpcap, void *back)
{
    double t0 = now();
    size_t stored;
    if (c->level) {
        stored = ZSTD_compress(tmp, tmpcap, raw, n, c->level);
        if (ZSTD_isError(stored))
            return;
    } else {
        int r = LZ4_compress_default(raw, tmp, (int)n, (int)tmpcap);
        if (r <= 0)
            return;
        stored = (size_t)r;
    }
    double t1 = now();
    if (c->level)
        ZSTD_decompress(back, n, tmp, stored);
    else
        LZ4_decompress_safe(tmp, back, (int)stored, (int)n);
    double t2 = now();
    if (memcmp(raw, back, n) != 0) {
        fprintf(stderr, "compress-chunks: %s round trip differs\n", c->name);
        exit(1);
    }
    c->raw += n;
    c->stored += stored;
    c->t_comp += t1 - t0;
    c->t_decomp += t2 - t1;
}

int main(int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: compress-chunks TRACE_DIR [REPS]\n");
        return 2;
    }
    int reps = argc == 3 ? atoi(argv[2]) : 5;
    if (reps < 1) {
        fprintf(stderr, "compress-chunks: bad REPS: %s\n", argv[2]);
        return 2;
    }
    struct codec codecs[] = {
        {"lz4 (default level)", 0, 0, 0, 0, 0}, {"zstd -1", 1, 0, 0, 0, 0},
        {"zstd -3", 3, 0, 0, 0, 0},      {"zstd -9", 9, 0, 0, 0, 0},
        /* the runtime's level for chunks that level 1 hardly shrinks */
        {"zstd --fast=100", -100, 0, 0, 0, 0},
    };
    const size_t ncodecs = sizeof codecs / sizeof codecs[0];
    struct trace *t;
    struct trace_err err;
    if (trace_open(argv[1], &t, &err) < 0) {
        fprintf(stderr, "compress-chunks: %s\n", err.msg);
        return 1;
    }
    size_t cap = ZSTD_compressBound(CHT_CHUNK_MAX_RAW);
    void *tmp = malloc(cap), *back = malloc(CHT_CHUNK_MAX_RAW);
    uint64_t chunks = 0;
    for (int r = 0; r < trace_world_size(t); r++) {
        struct trace_stream *s;
        if (trace_stream_open(trace_rank_path(t, r), &s, &err) < 0)
            continue;
        const struct cht_rec *rec;
        uint64_t last = UINT64_MAX;
        while (trace_stream_next(s, &rec) == 1) {
            uint64_t off = trace_stream_chunk_offset(s);
            if (off == last)
                continue;
            /* The first record of a chunk starts its raw payload. */
            last = off;
            chunks++;
            size_t n = trace_stream_chunk(s)->raw_size;
            for (int k = 0; k < reps; k++)
                for (size_t i = 0; i < ncodecs; i++)
                    run_codec(&codecs[i], rec, n, tmp, cap, back);
        }
        trace_stream_close(s);
    }
    /* the ratios to lz4's figures were taken in the same run, over the
     * same chunks, the codecs alternating: they are what to compare */
    printf("| codec | ratio (raw/stored) | compress MB/s | decompress MB/s | stored / lz4's | compress time / lz4's "
           "| decompress time / lz4's |\n|---|---|---|---|---|---|---|\n");
    const struct codec *l = &codecs[0];
    for (size_t i = 0; i < ncodecs; i++) {
        struct codec *c = &codecs[i];
        printf("| %s | %.1f | %.0f | %.0f | %.3f | %.2f | %.2f |\n", c->name,
               c->stored ? (double)c->raw / (double)c->stored : 0,
               c->t_comp > 0 ? (double)c->raw / 1e6 / c->t_comp : 0,
               c->t_decomp > 0 ? (double)c->raw / 1e6 / c->t_decomp : 0,
               l->stored ? (double)c->stored / (double)l->stored : 0, l->t_comp > 0 ? c->t_comp / l->t_comp : 0,
               l->t_decomp > 0 ? c->t_decomp / l->t_decomp : 0);
    }
    printf("\n%" PRIu64 " chunks, %.1f MB of raw records, each compressed and decompressed %d times with each codec, "
           "trace %s\n",
           chunks, (double)codecs[0].raw / 1e6 / reps, reps, argv[1]);
    free(tmp);
    free(back);
    trace_close(t);
    return 0;
}
