/* fuzz-common.c - unpacking a fuzz input into a trace directory (the format
 * is in fuzz-common.h), and the per-process scratch directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "fuzz-common.h"
#include "trace-format.h"

int fz_buf_put(struct fz_buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        uint8_t *q;
        while (cap < b->n + n)
            cap *= 2;
        q = realloc(b->p, cap);
        if (!q)
            return -1;
        b->p = q;
        b->cap = cap;
    }
    if (n && p) /* p NULL: only reserve */
        memcpy(b->p + b->n, p, n);
    b->n += n;
    return 0;
}

int fz_put_section(struct fz_buf *b, const void *p, size_t n)
{
    uint8_t len[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};

    return fz_buf_put(b, len, 4) || fz_buf_put(b, p, n) ? -1 : 0;
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static ZSTD_CCtx *cctx;
static struct fz_buf cooked;
static void *frame;
static size_t frame_cap;

/* The file of a raw-mode section: each chunk's raw records compressed into
 * a zstd frame (with checksum, as the writer does), stored_size and
 * raw_size set to match.  A header size in the file or chunk header
 * between its minimum and 4096 is honoured, other values give the minimum
 * (the reader is then left to reject it). */
static int cook(const uint8_t *p, size_t n, const uint8_t **out, size_t *outlen)
{
    size_t pos, hs = sizeof(struct cht_file_header);

    cooked.n = 0;
    if (!cctx) {
        cctx = ZSTD_createCCtx();
        if (!cctx || ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)))
            return -1;
    }
    if (n >= 14 && get16(p + 12) > hs && get16(p + 12) <= 4096)
        hs = get16(p + 12);
    pos = hs < n ? hs : n;
    if (fz_buf_put(&cooked, p, pos) < 0)
        return -1;
    while (pos < n) {
        uint8_t ch[32];
        size_t extra = 0, take, bound, z;
        uint16_t chs;

        if (n - pos < sizeof(ch)) { /* a cut chunk header */
            if (fz_buf_put(&cooked, p + pos, n - pos) < 0)
                return -1;
            break;
        }
        memcpy(ch, p + pos, sizeof(ch));
        pos += sizeof(ch);
        chs = get16(ch + 4);
        if (chs > sizeof(ch) && chs <= 4096)
            extra = chs - sizeof(ch);
        if (extra > n - pos)
            extra = n - pos;
        take = get32(ch + 12);
        if (take > n - pos - extra)
            take = n - pos - extra;
        bound = ZSTD_compressBound(take);
        if (bound > frame_cap) {
            void *f = realloc(frame, bound);
            if (!f)
                return -1;
            frame = f;
            frame_cap = bound;
        }
        z = ZSTD_compress2(cctx, frame, frame_cap, p + pos + extra, take);
        if (ZSTD_isError(z))
            return -1;
        put32(ch + 8, (uint32_t)z);
        put32(ch + 12, (uint32_t)take);
        if (fz_buf_put(&cooked, ch, sizeof(ch)) < 0 || fz_buf_put(&cooked, p + pos, extra) < 0 ||
            fz_buf_put(&cooked, frame, z) < 0)
            return -1;
        pos += extra + take;
    }
    *out = cooked.p;
    *outlen = cooked.n;
    return 0;
}

static int write_file(const char *path, const uint8_t *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    size_t done = 0;

    if (fd < 0)
        return -1;
    while (done < n) {
        ssize_t w = write(fd, p + done, n - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    return close(fd);
}

static int file_path(char *buf, size_t cap, const char *dir, int section)
{
    char name[64];

    if (section == 0)
        snprintf(name, sizeof(name), "%s", CHT_META_FILE);
    else
        snprintf(name, sizeof(name), CHT_RANK_FILE_FMT, section - 1);
    return snprintf(buf, cap, "%s/%s", dir, name) < (int)cap ? 0 : -1;
}

int fz_write_dir(const uint8_t *data, size_t size, const char *dir, struct fz_files *out)
{
    static int written = -1; /* sections the last call wrote, -1: unknown */
    char path[4096];
    size_t pos = 1;
    int k;

    memset(out, 0, sizeof(*out));
    out->mode = size ? data[0] : 0;
    for (k = 0; k < 1 + FZ_MAX_RANKS && size >= 4 && pos <= size - 4; k++) {
        size_t len = get32(data + pos);
        const uint8_t *p;
        size_t n;

        pos += 4;
        if (len > size - pos)
            len = size - pos;
        p = data + pos;
        n = len;
        pos += len;
        if ((out->mode & FZ_MODE_RAW) && cook(p, len, &p, &n) < 0)
            return -1;
        if (file_path(path, sizeof(path), dir, k) < 0 || write_file(path, p, n) < 0)
            return -1;
    }
    out->have_meta = k > 0;
    out->nranks = k > 0 ? k - 1 : 0;
    /* files of the earlier input that this one does not have */
    for (int j = k; j < (written < 0 ? 1 + FZ_MAX_RANKS : written); j++)
        if (file_path(path, sizeof(path), dir, j) == 0 && unlink(path) < 0 && errno != ENOENT)
            return -1;
    written = k;
    return 0;
}

static char scratch[4096];

static void scratch_remove(void)
{
    char path[4096 + 64];

    for (int k = 0; k < 1 + FZ_MAX_RANKS; k++)
        if (file_path(path, sizeof(path), scratch, k) == 0)
            unlink(path);
    rmdir(scratch);
}

const char *fz_scratch_dir(void)
{
    const char *base = getenv("COMMHINT_FUZZ_TMP");

    if (scratch[0])
        return scratch;
    if (!base || !*base)
        base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(scratch, sizeof(scratch), "%s/commhint-fuzz-XXXXXX", base);
    if (!mkdtemp(scratch)) {
        fprintf(stderr, "cannot create the fuzz scratch directory: dir=%s reason=%s\n", scratch,
                strerror(errno));
        abort();
    }
    atexit(scratch_remove);
    return scratch;
}
