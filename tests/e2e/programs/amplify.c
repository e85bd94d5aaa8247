/* amplify.c - makes the crafted trace of the amplification tests
 * (tests/e2e/amplification.sh) from a real one: in a rank stream file,
 * right after the first CHT_REC_REPEAT record, COPIES copies of that record
 * with its count set to COUNT (and its strides set to 0 with --zero).  Each
 * chunk is recompressed (zstd level 19); the file and chunk headers are kept.
 * A few KB of file then claim billions of events over gigabytes of memory.
 *
 *   amplify IN OUT COPIES COUNT [--zero]
 *
 * Not an MPI program: built with the C compiler and -lzstd. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "trace-format.h"

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *b = NULL;
    long n;
    if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
        !(b = malloc((size_t)n + 1)) || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "amplify: cannot read %s\n", path);
        exit(1);
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: amplify IN OUT COPIES COUNT [--zero]\n");
        return 2;
    }
    size_t len, off;
    unsigned char *in = slurp(argv[1], &len);
    unsigned long copies = strtoul(argv[3], NULL, 10), count = strtoul(argv[4], NULL, 10);
    int zero = argc > 5 && !strcmp(argv[5], "--zero"), done = 0;
    FILE *out = fopen(argv[2], "wb");
    struct cht_file_header fh;

    if (!out || len < sizeof fh)
        return 1;
    memcpy(&fh, in, sizeof fh);
    fwrite(in, 1, fh.header_size, out);
    for (off = fh.header_size; off + sizeof(struct cht_chunk_header) <= len;) {
        struct cht_chunk_header ch;
        memcpy(&ch, in + off, sizeof ch);
        size_t next = off + ch.header_size + ch.stored_size;
        unsigned char *raw = malloc(ch.raw_size + 8);
        if (ZSTD_isError(ZSTD_decompress(raw, ch.raw_size, in + off + ch.header_size, ch.stored_size)))
            return 1;
        size_t cap = ch.raw_size + (done ? 0 : copies * 4096), n = 0;
        unsigned char *buf = malloc(cap);
        for (size_t p = 0; p < ch.raw_size;) {
            struct cht_rec r;
            memcpy(&r, raw + p, sizeof r);
            memcpy(buf + n, raw + p, r.size);
            n += r.size;
            if (r.type == CHT_REC_REPEAT && !done) {
                struct cht_rec_repeat rep;
                memcpy(&rep, raw + p, sizeof rep);
                rep.count = (uint32_t)count;
                for (unsigned long k = 0; k < copies; k++) {
                    memcpy(buf + n, &rep, sizeof rep);
                    if (zero)
                        memset(buf + n + sizeof rep, 0, r.size - sizeof rep);
                    else
                        memcpy(buf + n + sizeof rep, raw + p + sizeof rep, r.size - sizeof rep);
                    n += r.size;
                }
                done = 1;
            }
            p += r.size;
        }
        size_t bound = ZSTD_compressBound(n);
        unsigned char *z = malloc(bound);
        size_t stored = ZSTD_compress(z, bound, buf, n, 19);
        if (ZSTD_isError(stored))
            return 1;
        ch.header_size = sizeof ch;
        ch.stored_size = (uint32_t)stored;
        ch.raw_size = (uint32_t)n;
        fwrite(&ch, 1, sizeof ch, out);
        fwrite(z, 1, stored, out);
        off = next;
        free(raw);
        free(buf);
        free(z);
    }
    fclose(out);
    if (!done) {
        fprintf(stderr, "amplify: %s has no REPEAT record\n", argv[1]);
        return 1;
    }
    return 0;
}
