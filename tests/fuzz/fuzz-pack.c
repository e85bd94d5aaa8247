/* fuzz-pack.c - converts between trace directories and fuzz inputs (format
 * in fuzz-common.h), for making seeds (tests/fuzz/make-seeds.sh) and for
 * looking at a crashing input with the commhint command.
 *
 *   fuzz-pack [--raw] [--mode=N] [--max-raw=BYTES] OUT DIR [RANK...]
 *       packs DIR's commhint.meta and rank streams (the given ranks, else
 *       all from 0 up to the first missing one, at most 8) into OUT.
 *       --raw stores chunk payloads decompressed (FZ_MODE_RAW); --max-raw
 *       then keeps about that many bytes of event records per rank stream
 *       (cut before a record that is not an MPI follower), its bookkeeping
 *       records but only the first MODULE record (the executable), and its
 *       final END chunk.  --mode ors harness option bits into the mode.
 *   fuzz-pack --unpack IN DIR
 *       writes the trace directory a fuzz input holds into DIR (created).
 *   fuzz-pack --result OUT DIR RANK
 *       packs search_run_rank's result for RANK of DIR as `hints --parallel`
 *       sends it (a seed for fuzz-unpack).
 *
 * Exit status 0, 1 on error (message on stderr), 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zstd.h>

#include "fuzz-common.h"
#include "pack.h"

static int fail(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "fuzz-pack: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return 1;
}

static int read_all(const char *path, struct fz_buf *b)
{
    FILE *f = fopen(path, "rb");
    char tmp[65536];
    size_t n;

    b->n = 0;
    if (!f)
        return -1;
    while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
        if (fz_buf_put(b, tmp, n) < 0) {
            fclose(f);
            return -1;
        }
    n = ferror(f);
    fclose(f);
    return n ? -1 : 0;
}

static int write_all(const char *path, const struct fz_buf *b)
{
    FILE *f = fopen(path, "wb");

    if (!f)
        return -1;
    if (b->n && fwrite(b->p, 1, b->n, f) != b->n) {
        fclose(f);
        return -1;
    }
    return fclose(f);
}

static int is_follower(uint16_t type)
{
    return type == CHT_REC_COMPLETE || type == CHT_REC_BLOCKS || type == CHT_REC_COMM;
}

/* A file with its chunk payloads decompressed; with max_raw > 0, cut after
 * about max_raw record bytes, the final END-only chunk kept. */
static int rawify(const struct fz_buf *in, size_t max_raw, struct fz_buf *out)
{
    const struct cht_file_header *fh = (const void *)in->p;
    struct cht_chunk_header ch;
    struct fz_buf raw = {0};
    size_t pos, kept = 0;
    uint64_t seq = 0;
    int cut = 0, modules = 0, ret = -1;

    out->n = 0;
    if (in->n < sizeof(*fh) || fh->header_size < sizeof(*fh) || fh->header_size > in->n)
        return -1;
    if (fz_buf_put(out, in->p, fh->header_size) < 0)
        return -1;
    for (pos = fh->header_size; pos + sizeof(ch) <= in->n;) {
        size_t got, len;
        memcpy(&ch, in->p + pos, sizeof(ch));
        if (ch.magic != CHT_CHUNK_MAGIC || ch.header_size != sizeof(ch) ||
            ch.stored_size > in->n - pos - sizeof(ch))
            goto out;
        raw.n = 0;
        if (fz_buf_put(&raw, NULL, ch.raw_size) < 0)
            goto out;
        got = ZSTD_decompress(raw.p, ch.raw_size, in->p + pos + sizeof(ch), ch.stored_size);
        pos += sizeof(ch) + ch.stored_size;
        if (ZSTD_isError(got) || got != ch.raw_size)
            goto out;
        len = got;
        if (max_raw) {
            /* keep the first MODULE record (the executable), bookkeeping
             * records, and events up to the budget */
            const struct cht_rec *first = (const void *)raw.p;
            int end_only = len >= 8 && first->type == CHT_REC_END && first->size == len;
            size_t off = 0, w = 0;
            if (cut && !end_only)
                continue;
            while (!cut && off + 8 <= len) {
                const struct cht_rec *r = (const void *)(raw.p + off);
                size_t sz = r->size;
                if (sz < 8 || sz > len - off)
                    goto out;
                if (r->type == CHT_REC_MODULE && modules++) {
                    off += sz;
                    continue;
                }
                if (r->type != CHT_REC_TU && r->type != CHT_REC_SITE_TABLE &&
                    r->type != CHT_REC_CLOCK && r->type != CHT_REC_MODULE) {
                    if (!is_follower(r->type) && kept + sz > max_raw) {
                        cut = 1;
                        break;
                    }
                    kept += sz;
                }
                memmove(raw.p + w, raw.p + off, sz);
                w += sz;
                off += sz;
            }
            len = end_only ? len : w;
            if (!len)
                continue;
        }
        ch.stored_size = 0;
        ch.raw_size = (uint32_t)len;
        ch.seq = seq++;
        if (fz_buf_put(out, &ch, sizeof(ch)) < 0 || fz_buf_put(out, raw.p, len) < 0)
            goto out;
    }
    ret = 0;
out:
    free(raw.p);
    return ret;
}

static int pack(int argc, char **argv)
{
    struct fz_buf in = {0}, cooked = {0}, out = {0};
    unsigned mode = 0;
    size_t max_raw = 0;
    int i = 1, ret = 1;
    char path[4096];

    for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
        if (!strcmp(argv[i], "--raw"))
            mode |= FZ_MODE_RAW;
        else if (!strncmp(argv[i], "--mode=", 7))
            mode |= (unsigned)strtoul(argv[i] + 7, NULL, 0);
        else if (!strncmp(argv[i], "--max-raw=", 10))
            max_raw = strtoul(argv[i] + 10, NULL, 0);
        else
            return 2;
    }
    if (argc - i < 2)
        return 2;
    const char *outp = argv[i], *dir = argv[i + 1];
    int nranks = argc - i - 2, ranks[FZ_MAX_RANKS];
    if (nranks > FZ_MAX_RANKS)
        return 2;
    for (int k = 0; k < nranks; k++)
        ranks[k] = atoi(argv[i + 2 + k]);
    if (!nranks) {
        struct stat st;
        while (nranks < FZ_MAX_RANKS) {
            snprintf(path, sizeof(path), "%s/" CHT_RANK_FILE_FMT, dir, nranks);
            if (stat(path, &st) < 0)
                break;
            ranks[nranks] = nranks;
            nranks++;
        }
    }
    uint8_t m = (uint8_t)mode;
    if (fz_buf_put(&out, &m, 1) < 0)
        goto out;
    for (int k = -1; k < nranks; k++) {
        const struct fz_buf *b = &in;
        if (k < 0)
            snprintf(path, sizeof(path), "%s/%s", dir, CHT_META_FILE);
        else
            snprintf(path, sizeof(path), "%s/" CHT_RANK_FILE_FMT, dir, ranks[k]);
        if (read_all(path, &in) < 0) {
            ret = fail("cannot read a trace file: file=%s reason=%s", path, strerror(errno));
            goto out;
        }
        if (mode & FZ_MODE_RAW) {
            if (rawify(&in, k < 0 ? 0 : max_raw, &cooked) < 0) {
                ret = fail("cannot decompress a trace file: file=%s%s", path, "");
                goto out;
            }
            b = &cooked;
        }
        if (fz_put_section(&out, b->p, b->n) < 0)
            goto out;
    }
    if (write_all(outp, &out) < 0) {
        ret = fail("cannot write the fuzz input: file=%s reason=%s", outp, strerror(errno));
        goto out;
    }
    ret = 0;
out:
    free(in.p);
    free(cooked.p);
    free(out.p);
    return ret;
}

static int unpack(const char *inp, const char *dir)
{
    struct fz_buf in = {0};
    struct fz_files files;
    int ret = 1;

    if (read_all(inp, &in) < 0)
        return fail("cannot read the fuzz input: file=%s reason=%s", inp, strerror(errno));
    if (mkdir(dir, 0777) < 0 && errno != EEXIST)
        ret = fail("cannot create the trace directory: dir=%s reason=%s", dir, strerror(errno));
    else if (fz_write_dir(in.p, in.n, dir, &files) < 0)
        ret = fail("cannot write the trace directory: dir=%s reason=%s", dir, strerror(errno));
    else
        ret = 0;
    free(in.p);
    return ret;
}

static int result(const char *outp, const char *dir, int rank)
{
    struct trace *t = NULL;
    struct search_rank_result *r = NULL;
    struct search_opts o = {0};
    struct trace_err err;
    struct fz_buf out = {0};
    void *buf = NULL;
    size_t len = 0;
    int ret = 1;

    err.msg[0] = '\0';
    if (trace_open(dir, &t, &err) < 0 || search_run_rank(t, rank, &o, NULL, NULL, &r, &err) < 0) {
        fprintf(stderr, "fuzz-pack: %s\n", err.msg);
        goto out;
    }
    if (search_rank_result_pack(r, &buf, &len) < 0)
        goto out;
    out.p = buf;
    out.n = len;
    if (write_all(outp, &out) < 0) {
        ret = fail("cannot write the packed result: file=%s reason=%s", outp, strerror(errno));
        goto out;
    }
    ret = 0;
out:
    free(buf);
    search_rank_result_free(r);
    if (t)
        trace_close(t);
    return ret;
}

int main(int argc, char **argv)
{
    int ret;

    if (argc == 4 && !strcmp(argv[1], "--unpack"))
        return unpack(argv[2], argv[3]);
    if (argc == 5 && !strcmp(argv[1], "--result"))
        return result(argv[2], argv[3], atoi(argv[4]));
    ret = pack(argc, argv);
    if (ret == 2)
        fprintf(stderr, "usage: fuzz-pack [--raw] [--mode=N] [--max-raw=BYTES] OUT DIR [RANK...]\n"
                        "       fuzz-pack --unpack IN DIR\n"
                        "       fuzz-pack --result OUT DIR RANK\n");
    return ret;
}
