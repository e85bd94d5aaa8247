/* stream.c - the low-level reader: one meta or rank file, chunk by chunk.
 *
 * A stream holds at most one decompressed chunk in memory (buffers are reused
 * between chunks).  Every header and record is checked before use; the first
 * malformed item makes the stream fail with a sticky status and a message
 * "one sentence: file=PATH offset=N reason=...".  A file that ends inside a
 * chunk is what a killed writer leaves behind: the stream then ends normally
 * and trace_stream_cut_short says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "reader-private.h"

void rd_verr(char *buf, size_t len, const char *fmt, va_list ap)
{
    vsnprintf(buf, len, fmt, ap);
}

void rd_err(struct trace_err *err, const char *fmt, ...)
{
    va_list ap;

    if (!err)
        return;
    va_start(ap, fmt);
    rd_verr(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
}

const char *trace_status_str(int status)
{
    switch (status) {
    case TRACE_OK: return "success";
    case TRACE_ERR_IO: return "I/O error";
    case TRACE_ERR_FORMAT: return "format error";
    case TRACE_ERR_VERSION: return "unsupported version";
    case TRACE_ERR_NOMEM: return "out of memory";
    case TRACE_ERR_NOT_TRACE: return "not a trace";
    case TRACE_ERR_ARG: return "bad argument";
    case TRACE_ERR_NOT_FOUND: return "not found";
    case TRACE_ERR_MISMATCH: return "run mismatch";
    case TRACE_ERR_LIMIT:
        return "the memory it touches needs more shadow memory than the limit (COMMHINT_MAX_MEMORY=SIZE "
               "raises it)";
    }
    return "unknown status";
}

/* Reads exactly len bytes at off; returns bytes read (< len at end of file)
 * or -1 with errno. */
static ssize_t read_at(int fd, void *buf, size_t len, uint64_t off)
{
    size_t done = 0;

    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0)
            break;
        done += (size_t)n;
    }
    return (ssize_t)done;
}

static int stream_fail(struct trace_stream *s, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int stream_fail(struct trace_stream *s, int status, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    rd_verr(s->msg, sizeof(s->msg), fmt, ap);
    va_end(ap);
    s->status = status;
    s->at_end = true;
    return status;
}

int rd_stream_rec_error(struct trace_stream *s, uint32_t roff, const char *fmt, ...)
{
    char reason[256];
    va_list ap;

    va_start(ap, fmt);
    rd_verr(reason, sizeof(reason), fmt, ap);
    va_end(ap);
    return stream_fail(s, TRACE_ERR_FORMAT,
                       "malformed record: file=%s offset=%" PRIu64 " record_offset=%" PRIu32
                       " reason=%s",
                       s->path, s->chunk_off, roff, reason);
}

uint32_t rd_stream_record_offset(const struct trace_stream *s)
{
    return s->last_off;
}

static int stream_cut(struct trace_stream *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static bool same_magic(const char m[8], const char *want)
{
    return memcmp(m, want, 8) == 0;
}

int trace_stream_open(const char *path, struct trace_stream **out, struct trace_err *err)
{
    struct trace_stream *s = NULL;
    struct stat st;
    ssize_t n;
    int ret;
    const struct cht_file_header *h;

    if (!path || !out) {
        rd_err(err, "bad argument to trace_stream_open: file=%s", path ? path : "(null)");
        return TRACE_ERR_ARG;
    }
    *out = NULL;
    s = calloc(1, sizeof(*s));
    if (!s) {
        rd_err(err, "out of memory: file=%s", path);
        return TRACE_ERR_NOMEM;
    }
    s->fd = -1;
    if (!(s->path = strdup(path))) {
        ret = TRACE_ERR_NOMEM;
        rd_err(err, "out of memory: file=%s", path);
        goto fail;
    }
    /* without blocking: a FIFO planted at the name must not hang the reader */
    s->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (s->fd < 0) {
        ret = errno == ENOENT ? TRACE_ERR_NOT_FOUND : TRACE_ERR_IO;
        rd_err(err, "cannot open trace file: file=%s offset=0 reason=%s", path, strerror(errno));
        goto fail;
    }
    if (fstat(s->fd, &st) < 0) {
        ret = TRACE_ERR_IO;
        rd_err(err, "cannot open trace file: file=%s offset=0 reason=%s", path, strerror(errno));
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        ret = TRACE_ERR_IO;
        rd_err(err, "cannot open trace file: file=%s offset=0 reason=not a regular file", path);
        goto fail;
    }
    s->file_size = (uint64_t)st.st_size;
    n = read_at(s->fd, &s->fh, sizeof(s->fh), 0);
    if (n < 0) {
        ret = TRACE_ERR_IO;
        rd_err(err, "cannot read file header: file=%s offset=0 reason=%s", path, strerror(errno));
        goto fail;
    }
    h = &s->fh;
    if (n >= 8 && !same_magic(h->magic, CHT_MAGIC_META) && !same_magic(h->magic, CHT_MAGIC_RANK)) {
        ret = TRACE_ERR_FORMAT;
        rd_err(err, "not a commhint trace file: file=%s offset=0 reason=bad magic", path);
        goto fail;
    }
    /* the start of a header (or nothing) is what a writer leaves that died,
     * or met a full disk, at once: a stream cut short before its first chunk */
    if ((size_t)n < sizeof(s->fh) && (!memcmp(h->magic, CHT_MAGIC_RANK, n < 8 ? (size_t)n : 8) ||
                                      !memcmp(h->magic, CHT_MAGIC_META, n < 8 ? (size_t)n : 8))) {
        memset((char *)&s->fh + n, 0, sizeof(s->fh) - (size_t)n);
        stream_cut(s, "file ends inside its file header: file=%s offset=0 reason=%zd of 64 bytes "
                   "present", path, n);
        *out = s;
        return 0;
    }
    if ((size_t)n < sizeof(s->fh)) {
        ret = TRACE_ERR_FORMAT;
        rd_err(err, "file ends inside its file header: file=%s offset=0 reason=%zd of 64 bytes",
               path, n);
        goto fail;
    }
    if (h->byte_order != CHT_BYTE_ORDER_MARK) {
        ret = TRACE_ERR_FORMAT;
        if (h->byte_order == 0x0201)
            rd_err(err, "cannot read trace file: file=%s offset=14 reason=written on a machine "
                   "of the other byte order", path);
        else
            rd_err(err, "cannot read trace file: file=%s offset=14 reason=bad byte order mark "
                   "0x%04x", path, h->byte_order);
        goto fail;
    }
    if (h->oldest_version > CHT_FORMAT_VERSION) {
        ret = TRACE_ERR_VERSION;
        rd_err(err, "cannot read trace file: file=%s offset=8 reason=written by a newer commhint: "
               "file version=%u, this reader reads up to %u", path, h->oldest_version,
               CHT_FORMAT_VERSION);
        goto fail;
    }
    if (h->header_size < sizeof(struct cht_file_header)) {
        ret = TRACE_ERR_FORMAT;
        rd_err(err, "bad file header: file=%s offset=12 reason=header_size=%u is less than 64",
               path, h->header_size);
        goto fail;
    }
    if (h->features & CHT_FEATURES_REQUIRED_MASK) {
        ret = TRACE_ERR_VERSION;
        rd_err(err, "cannot read trace file: file=%s offset=16 reason=requires unknown features "
               "0x%016" PRIx64, path, (uint64_t)(h->features & CHT_FEATURES_REQUIRED_MASK));
        goto fail;
    }
    if (h->compression != CHT_COMPRESSION_ZSTD) {
        ret = TRACE_ERR_FORMAT;
        rd_err(err, "cannot read trace file: file=%s offset=40 reason=unknown compression %u",
               path, h->compression);
        goto fail;
    }
    s->next_off = h->header_size;
    s->bytes_read = h->header_size;
    s->dctx = ZSTD_createDCtx();
    if (!s->dctx) {
        ret = TRACE_ERR_NOMEM;
        rd_err(err, "out of memory: file=%s", path);
        goto fail;
    }
    *out = s;
    return 0;
fail:
    trace_stream_close(s);
    return ret;
}

void trace_stream_close(struct trace_stream *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    ZSTD_freeDCtx(s->dctx);
    free(s->stored);
    free(s->raw);
    free(s->path);
    free(s);
}

const struct cht_file_header *trace_stream_header(const struct trace_stream *s)
{
    return &s->fh;
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
    uint8_t *p;
    size_t n;

    if (need <= *cap && *buf)
        return 0;
    n = *cap ? *cap : 4096;
    while (n < need)
        n *= 2;
    p = malloc(n); /* contents need not survive */
    if (!p)
        return -1;
    free(*buf);
    *buf = p;
    *cap = n;
    return 0;
}

/* The file ends inside a chunk: stop without error. */
static int stream_cut(struct trace_stream *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int stream_cut(struct trace_stream *s, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    rd_verr(s->msg, sizeof(s->msg), fmt, ap);
    va_end(ap);
    s->cut_short = true;
    s->at_end = true;
    s->have_chunk = false;
    return 0;
}

/* Loads the next chunk: 1 if loaded, 0 at the end of the file, negative on
 * error. */
static int load_chunk(struct trace_stream *s)
{
    struct cht_chunk_header ch;
    uint64_t off = s->next_off, left, payload_off;
    unsigned long long fsize;
    size_t got;
    ssize_t n;

    s->have_chunk = false;
    if (off >= s->file_size) {
        s->at_end = true;
        return 0;
    }
    left = s->file_size - off;
    if (left < sizeof(ch))
        return stream_cut(s, "file ends inside a chunk header: file=%s offset=%" PRIu64
                          " reason=%" PRIu64 " of 32 bytes present", s->path, off, left);
    n = read_at(s->fd, &ch, sizeof(ch), off);
    if (n < 0)
        return stream_fail(s, TRACE_ERR_IO, "cannot read chunk header: file=%s offset=%" PRIu64
                           " reason=%s", s->path, off, strerror(errno));
    if ((size_t)n < sizeof(ch))
        return stream_cut(s, "file ends inside a chunk header: file=%s offset=%" PRIu64
                          " reason=%zd of 32 bytes present", s->path, off, n);
    if (ch.magic != CHT_CHUNK_MAGIC)
        return stream_fail(s, TRACE_ERR_FORMAT, "bad chunk header: file=%s offset=%" PRIu64
                           " reason=bad magic 0x%08x", s->path, off, ch.magic);
    if (ch.header_size < sizeof(ch) || ch.header_size > RD_MAX_CHUNK_HEADER)
        return stream_fail(s, TRACE_ERR_FORMAT, "bad chunk header: file=%s offset=%" PRIu64
                           " reason=header_size=%u", s->path, off, ch.header_size);
    if (ch.stored_size > CHT_CHUNK_MAX_STORED)
        return stream_fail(s, TRACE_ERR_FORMAT, "bad chunk header: file=%s offset=%" PRIu64
                           " reason=stored_size=%u exceeds %u", s->path, off, ch.stored_size,
                           CHT_CHUNK_MAX_STORED);
    if (ch.raw_size > CHT_CHUNK_MAX_RAW || ch.raw_size % 8)
        return stream_fail(s, TRACE_ERR_FORMAT, "bad chunk header: file=%s offset=%" PRIu64
                           " reason=raw_size=%u is not a multiple of 8 up to %u", s->path, off,
                           ch.raw_size, CHT_CHUNK_MAX_RAW);
    if (s->fh.version >= 7 && s->fh.file_id && ch.file_tag != (uint32_t)s->fh.file_id)
        return stream_fail(s, TRACE_ERR_FORMAT, "bad chunk header: file=%s offset=%" PRIu64
                           " reason=the chunk belongs to another file: file_tag=0x%08x, this file's"
                           " is 0x%08x", s->path, off, ch.file_tag, (uint32_t)s->fh.file_id);
    if (ch.seq != s->next_seq)
        return stream_fail(s, TRACE_ERR_FORMAT, "bad chunk header: file=%s offset=%" PRIu64
                           " reason=seq=%" PRIu64 " but %" PRIu64 " expected", s->path, off,
                           ch.seq, s->next_seq);
    payload_off = off + ch.header_size;
    if (ch.header_size > left || (uint64_t)ch.stored_size > left - ch.header_size)
        return stream_cut(s, "file ends inside a chunk: file=%s offset=%" PRIu64
                          " reason=chunk needs %" PRIu64 " bytes, %" PRIu64 " present",
                          s->path, off, (uint64_t)ch.header_size + ch.stored_size, left);
    if (grow(&s->stored, &s->stored_cap, ch.stored_size ? ch.stored_size : 1) < 0 ||
        grow(&s->raw, &s->raw_cap, ch.raw_size ? ch.raw_size : 8) < 0)
        return stream_fail(s, TRACE_ERR_NOMEM, "out of memory: file=%s offset=%" PRIu64
                           " reason=chunk of %u bytes", s->path, off, ch.raw_size);
    n = read_at(s->fd, s->stored, ch.stored_size, payload_off);
    if (n < 0)
        return stream_fail(s, TRACE_ERR_IO, "cannot read chunk: file=%s offset=%" PRIu64
                           " reason=%s", s->path, off, strerror(errno));
    if ((size_t)n < ch.stored_size) /* the file shrank under us */
        return stream_cut(s, "file ends inside a chunk: file=%s offset=%" PRIu64
                          " reason=payload cut after %zd bytes", s->path, off, n);
    fsize = ZSTD_getFrameContentSize(s->stored, ch.stored_size);
    if (fsize == ZSTD_CONTENTSIZE_ERROR)
        return stream_fail(s, TRACE_ERR_FORMAT, "cannot decompress chunk: file=%s offset=%"
                           PRIu64 " reason=payload is not a zstd frame", s->path, off);
    if (fsize != ZSTD_CONTENTSIZE_UNKNOWN && fsize != ch.raw_size)
        return stream_fail(s, TRACE_ERR_FORMAT, "cannot decompress chunk: file=%s offset=%"
                           PRIu64 " reason=payload holds %llu bytes but raw_size=%u", s->path,
                           off, fsize, ch.raw_size);
    got = ZSTD_decompressDCtx(s->dctx, s->raw, ch.raw_size, s->stored, ch.stored_size);
    if (ZSTD_isError(got)) {
        if (ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall)
            return stream_fail(s, TRACE_ERR_FORMAT, "cannot decompress chunk: file=%s offset=%"
                               PRIu64 " reason=payload holds more than raw_size=%u bytes",
                               s->path, off, ch.raw_size);
        return stream_fail(s, TRACE_ERR_FORMAT, "cannot decompress chunk: file=%s offset=%"
                           PRIu64 " reason=zstd: %s", s->path, off, ZSTD_getErrorName(got));
    }
    if (got != ch.raw_size)
        return stream_fail(s, TRACE_ERR_FORMAT, "cannot decompress chunk: file=%s offset=%"
                           PRIu64 " reason=payload holds %zu bytes but raw_size=%u", s->path,
                           off, got, ch.raw_size);
    s->ch = ch;
    s->chunk_off = off;
    s->raw_size = ch.raw_size;
    s->pos = 0;
    s->last_off = 0;
    s->have_chunk = true;
    s->next_off = payload_off + ch.stored_size;
    s->next_seq++;
    s->bytes_read += (uint64_t)ch.header_size + ch.stored_size;
    s->bytes_raw += ch.raw_size;
    return 1;
}

/* Minimum sizes and aux-dependent lengths per record type. */
const char *rd_check_record(const uint8_t *raw, uint32_t raw_size, uint32_t off,
                            char *buf, size_t len)
{
    const struct cht_rec *r;
    uint64_t need = 0;
    uint32_t size;

    if (raw_size - off < sizeof(*r))
        return "record header past the chunk end";
    r = (const struct cht_rec *)(raw + off);
    size = r->size;
    if (size < 8 || size % 8) {
        snprintf(buf, len, "size=%u is not a multiple of 8 of at least 8", size);
        return buf;
    }
    if (size > raw_size - off) {
        snprintf(buf, len, "size=%u runs past the chunk end (%u bytes left)", size,
                 raw_size - off);
        return buf;
    }
#define NEED(n) do { need = (n); if (size < need) goto short_rec; } while (0)
    switch (r->type) {
    case CHT_REC_COMP:
        NEED(sizeof(struct cht_rec_comp) + 8ull * r->aux);
        break;
    case CHT_REC_RANGES:
        NEED(sizeof(struct cht_rec_ranges) + 16ull * r->aux);
        break;
    case CHT_REC_LOOP:
        NEED(sizeof(struct cht_rec_loop));
        break;
    case CHT_REC_MPI:
        NEED(sizeof(struct cht_rec_mpi));
        break;
    case CHT_REC_COMPLETE:
        NEED(sizeof(struct cht_rec_complete));
        break;
    case CHT_REC_ARGS:
        NEED(sizeof(struct cht_rec_args) + 16ull * r->aux);
        break;
    case CHT_REC_CALLNAME:
        NEED(sizeof(struct cht_rec_callname) + (uint64_t)r->aux + 1);
        if (((const char *)r)[sizeof(struct cht_rec_callname) + r->aux] != '\0')
            return "call name is not NUL-terminated at its length";
        break;
    case CHT_REC_BLOCKS: {
        const struct cht_rec_blocks *b = (const void *)r;
        NEED(sizeof(*b));
        NEED(sizeof(*b) + 16ull * b->count);
        break;
    }
    case CHT_REC_COMM: {
        const struct cht_rec_comm *c = (const void *)r;
        NEED(sizeof(*c));
        NEED(sizeof(*c) + 4ull * ((uint64_t)c->size + c->remote_size));
        break;
    }
    case CHT_REC_MODULE: {
        const struct cht_rec_module *m = (const void *)r;
        const char *path;
        NEED(sizeof(*m));
        NEED(sizeof(*m) + (uint64_t)m->build_id_len + m->path_len);
        path = (const char *)(m + 1) + m->build_id_len;
        if (m->path_len == 0 || path[m->path_len - 1] != '\0')
            return "module path is not NUL-terminated within path_len";
        break;
    }
    case CHT_REC_TU:
        NEED(sizeof(struct cht_rec_tu));
        break;
    case CHT_REC_CLOCK:
        NEED(CHT_REC_CLOCK_V4_SIZE); /* v5 records are larger; cursor.c reads what is there */
        break;
    case CHT_REC_CPU:
        NEED(sizeof(struct cht_rec_cpu));
        break;
    case CHT_REC_LOST:
        NEED(sizeof(struct cht_rec_lost));
        break;
    case CHT_REC_END:
        NEED(sizeof(struct cht_rec_end));
        break;
    case CHT_REC_REPEAT: {
        const struct cht_rec_repeat *x = (const void *)r;
        NEED(sizeof(*x));
        if (x->nstrides > (uint32_t)r->aux * CHT_REPEAT_MAX_ADDRS) {
            snprintf(buf, len, "repeat record has nstrides=%u, more than period=%u allows",
                     x->nstrides, r->aux);
            return buf;
        }
        NEED(sizeof(*x) + 8ull * x->nstrides);
        break;
    }
    case CHT_REC_REPEAT_COL: {
        const struct cht_rec_repeat_col *x = (const void *)r;
        NEED(sizeof(*x));
        if (x->nstrides > (uint32_t)r->aux * CHT_REPEAT_MAX_ADDRS) {
            snprintf(buf, len, "repeat record has nstrides=%u, more than period=%u allows",
                     x->nstrides, r->aux);
            return buf;
        }
        if (x->ncol < 1 || x->ncol > CHT_REPEAT_COL_MAX) {
            snprintf(buf, len, "repeat record has a column of %u entries, outside 1..%u", x->ncol,
                     CHT_REPEAT_COL_MAX);
            return buf;
        }
        NEED(sizeof(*x) + 8ull * x->nstrides + 4ull * x->ncol);
        break;
    }
    case CHT_REC_PACK: {
        const struct cht_rec_pack *x = (const void *)r;
        NEED(sizeof(*x));
        NEED(sizeof(*x) + (uint64_t)x->nbytes);
        break;
    }
    case CHT_REC_ROWS: {
        const struct cht_rec_rows *x = (const void *)r;
        NEED(sizeof(*x));
        NEED(sizeof(*x) + 8ull * ((uint64_t)x->nb + x->per) + 16ull * ((uint64_t)x->nab + x->nal) +
             (uint64_t)x->nbytes);
        break;
    }
    case CHT_REC_PROGRAM: {
        const struct cht_rec_program *p = (const void *)r;
        NEED(sizeof(*p));
        NEED(sizeof(*p) + (uint64_t)p->build_id_len + p->strings_len);
        break;
    }
    case CHT_REC_SITE_TABLE: {
        const struct cht_rec_site_table *t = (const void *)r;
        NEED(sizeof(*t));
        NEED(sizeof(*t) + (uint64_t)t->blob_size);
        break;
    }
    default: /* unknown types are skipped */
        break;
    }
#undef NEED
    return NULL;
short_rec:
    snprintf(buf, len, "type=%u aux=%u size=%u is less than the %" PRIu64 " bytes it needs",
             r->type, r->aux, size, need);
    return buf;
}

int trace_stream_next(struct trace_stream *s, const struct cht_rec **rec)
{
    char buf[160];
    const char *why;
    int ret;

    *rec = NULL;
    if (s->status)
        return s->status;
    if (s->at_end)
        return 0;
    while (!s->have_chunk || s->pos >= s->raw_size) {
        ret = load_chunk(s);
        if (ret <= 0)
            return ret;
    }
    why = rd_check_record(s->raw, s->raw_size, s->pos, buf, sizeof(buf));
    if (why)
        return rd_stream_rec_error(s, s->pos, "%s", why);
    *rec = (const struct cht_rec *)(s->raw + s->pos);
    s->last_off = s->pos;
    s->pos += (*rec)->size;
    return 1;
}

const struct cht_chunk_header *trace_stream_chunk(const struct trace_stream *s)
{
    return s->have_chunk ? &s->ch : NULL;
}

uint64_t trace_stream_chunk_offset(const struct trace_stream *s)
{
    return s->chunk_off;
}

const struct cht_rec *trace_stream_peek(const struct trace_stream *s, unsigned i)
{
    char buf[160];
    uint32_t off;

    if (!s->have_chunk || s->status)
        return NULL;
    off = s->pos;
    for (;;) {
        const struct cht_rec *r;
        if (off >= s->raw_size)
            return NULL;
        /* a malformed record is left for next() to report */
        if (rd_check_record(s->raw, s->raw_size, off, buf, sizeof(buf)))
            return NULL;
        r = (const struct cht_rec *)(s->raw + off);
        if (i == 0)
            return r;
        i--;
        off += r->size;
    }
}

void trace_stream_skip(struct trace_stream *s, unsigned n)
{
    while (n--) {
        const struct cht_rec *r = trace_stream_peek(s, 0);
        if (!r)
            return;
        s->last_off = s->pos;
        s->pos += r->size;
    }
}

bool trace_stream_cut_short(const struct trace_stream *s)
{
    return s->cut_short;
}

const char *trace_stream_error(const struct trace_stream *s)
{
    return s->msg;
}

const char *trace_stream_path(const struct trace_stream *s)
{
    return s->path;
}

uint64_t trace_stream_bytes_read(const struct trace_stream *s)
{
    return s->bytes_read;
}

uint64_t trace_stream_file_size(const struct trace_stream *s)
{
    return s->file_size;
}
