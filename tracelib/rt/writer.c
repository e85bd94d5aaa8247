/* writer.c - the files of a trace as the runtime writes them: chunks (one
 * zstd frame with content checksum behind a cht_chunk_header, appended at an
 * offset reserved together with the chunk's sequence number), the rank
 * stream (created lazily, renamed when MPI gives the rank, header rewritten
 * as run id and features become known, metadata chunks) and the meta file.
 * Any failure stops tracing with one warning; nothing here exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "recorder-private.h"

#define CHUNK_HDR sizeof(struct cht_chunk_header)

static const char *reason_of(int err)
{
    const char *s = strerrordesc_np(err);
    return s ? s : "unknown error";
}

/* rt_mkdir_p's errors as reasons. */
static const char *dir_reason(int err)
{
    return err == EPERM ? "the trace directory belongs to another user" : reason_of(err);
}

uint64_t rt_random64(void)
{
    static uint64_t salt;
    uint64_t r = 0;

    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        uint64_t n = __atomic_add_fetch(&salt, 1, __ATOMIC_RELAXED);
        r ^= (rt_now_ns() + n) * 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid() << 32;
        r ^= r >> 29;
    }
    return r;
}

void rt_fail(const char *file, const char *reason)
{
    int prev = __atomic_fetch_or(&rt_g.off, RT_OFF_FAILED, __ATOMIC_ACQ_REL);
    if (prev & (RT_OFF_DISABLED | RT_OFF_FAILED))
        return; /* a forked child stays silent; one failure is enough */
    rt_warn_once(RT_WARN_WRITE, "cannot write trace, tracing stopped: file=%s reason=%s", file ? file : "?",
                 reason);
}

int rt_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
    const unsigned char *p = buf;
    sigset_t xfsz, old, pending;
    int ret = 0, was_pending;

    /* past RLIMIT_FSIZE the kernel sends SIGXFSZ, whose default action
     * kills: keep it blocked during the write and take back the one our
     * write caused, so that a full quota only stops tracing */
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &xfsz, &old);
    sigpending(&pending);
    was_pending = sigismember(&pending, SIGXFSZ) == 1;
    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, (off_t)off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            ret = -errno;
            break;
        }
        if (n == 0) {
            ret = -EIO;
            break;
        }
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    if (ret < 0 && !was_pending) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&xfsz, NULL, &zero) == SIGXFSZ)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return ret;
}

int rt_create_fresh(const char *path)
{
    /* whatever was there goes (a file of an earlier run, or a link someone
     * planted: only the name is removed, never what it points to), then a
     * new file is made, failing if anything took the name meanwhile */
    if (unlink(path) < 0 && errno != ENOENT)
        return -errno;
    int fd = open(path, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0666);
    return fd < 0 ? -errno : fd;
}

int rt_mkdir_p(const char *dir)
{
    char tmp[PATH_MAX];
    struct stat st;
    size_t n = strlen(dir);

    if (n == 0 || n >= sizeof(tmp))
        return -ENAMETOOLONG;
    memcpy(tmp, dir, n + 1);
    while (n > 1 && tmp[n - 1] == '/')
        tmp[--n] = '\0';
    /* the parents only if missing: nothing is tried outside the trace
     * directory when its parent exists */
    if (mkdir(tmp, 0777) == 0)
        return 0;
    if (errno == ENOENT) {
        for (char *p = tmp + 1; *p; p++) {
            if (*p != '/')
                continue;
            *p = '\0';
            (void)mkdir(tmp, 0777); /* errors show up at the last component */
            *p = '/';
        }
        if (mkdir(tmp, 0777) == 0)
            return 0;
    }
    if (errno != EEXIST)
        return -errno;
    if (stat(tmp, &st) < 0)
        return -errno;
    if (!S_ISDIR(st.st_mode))
        return -ENOTDIR;
    /* a directory someone else made: they could plant links in it */
    return st.st_uid == geteuid() ? 0 : -EPERM;
}

size_t rt_out_bound(size_t len)
{
    return CHUNK_HDR + ZSTD_compressBound(len);
}

ZSTD_CCtx *rt_cctx_init(void *mem)
{
    ZSTD_CCtx *c = ZSTD_initStaticCCtx(mem, rt_g.cctx_size);
    if (!c)
        return NULL;
    /* a static context starts with zeroed parameters (no content size in
     * the frame): reset to the defaults, then ask for what we need */
    if (ZSTD_isError(ZSTD_CCtx_reset(c, ZSTD_reset_parameters)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, rt_g.zstd_level)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 1)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)))
        return NULL;
    return c;
}

void rt_zstd_pick(struct rt_thread *t, size_t raw, size_t stored)
{
    int level = rt_g.zstd_level;

    if (!rt_g.zstd_adapt)
        return;
    if (t->zfast) {
        /* the chunk was one of the fast ones: after the last of them, the
         * next one goes at the level again and is judged */
        if (--t->zfast)
            level = RT_ZSTD_FAST_LEVEL;
    } else if (raw >= RT_ZSTD_JUDGE_MIN && stored && 4 * (uint64_t)stored > 3 * (uint64_t)raw) {
        t->zfast = RT_ZSTD_FAST_CHUNKS;
        level = RT_ZSTD_FAST_LEVEL;
    }
    /* between frames a context takes new parameters; should it refuse, the
     * level it has stays */
    if (level != t->zlevel && !ZSTD_isError(ZSTD_CCtx_setParameter(t->cctx, ZSTD_c_compressionLevel, level)))
        t->zlevel = level;
}

/* Number of records in len bytes of whole records. */
static uint64_t count_records(const unsigned char *raw, size_t len)
{
    uint64_t n = 0;
    size_t off = 0;
    while (off + sizeof(struct cht_rec) <= len) {
        struct cht_rec r;
        memcpy(&r, raw + off, sizeof(r));
        if (r.size < sizeof(r))
            break;
        off += r.size;
        n++;
    }
    return n;
}

static __thread int tls_writing;

int rt_writing_own(void)
{
    return tls_writing;
}

/* Compresses and writes one chunk at the sink's end. */
static int emit_chunk(struct rt_sink *s, ZSTD_CCtx *cctx, const void *raw, size_t len, uint64_t nrec,
                      unsigned char *out, size_t out_cap, uint32_t thread, size_t *stored);

int rt_emit_chunk(struct rt_sink *s, ZSTD_CCtx *cctx, const void *raw, size_t len, uint64_t nrec,
                  unsigned char *out, size_t out_cap, uint32_t thread, size_t *stored)
{
    /* counted before the check, so that a thread handling a fatal signal
     * that sees no write in progress sees every later one refused */
    tls_writing++;
    __atomic_fetch_add(&rt_g.writing, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&rt_g.closed, __ATOMIC_SEQ_CST) &&
        __atomic_load_n(&rt_g.dying, __ATOMIC_SEQ_CST) != (int)syscall(SYS_gettid)) {
        /* the process is about to die of a signal and the handler has
         * flushed what it could (rt_on_signal): this chunk, recorded
         * after that, waits for the end; this thread's buffer stays as
         * it is, so the file holds a clean prefix of its events */
        __atomic_fetch_sub(&rt_g.writing, 1, __ATOMIC_SEQ_CST);
        tls_writing--;
        struct timespec ms = {0, 10000000};
        while (__atomic_load_n(&rt_g.closed, __ATOMIC_SEQ_CST))
            nanosleep(&ms, NULL);
        tls_writing++;
        __atomic_fetch_add(&rt_g.writing, 1, __ATOMIC_SEQ_CST);
    }
    int e = emit_chunk(s, cctx, raw, len, nrec, out, out_cap, thread, stored);
    __atomic_fetch_sub(&rt_g.writing, 1, __ATOMIC_SEQ_CST);
    tls_writing--;
    return e;
}

static int emit_chunk(struct rt_sink *s, ZSTD_CCtx *cctx, const void *raw, size_t len, uint64_t nrec,
                      unsigned char *out, size_t out_cap, uint32_t thread, size_t *stored_out)
{
    struct cht_chunk_header h;
    uint64_t off;
    size_t stored;
    int e;

    if (stored_out)
        *stored_out = 0;
    if (len == 0)
        return RT_OK;
    if (out_cap <= CHUNK_HDR || len > CHT_CHUNK_MAX_RAW) {
        rt_fail(s->path, "chunk too large");
        return RT_ERR_INVAL;
    }
    stored = ZSTD_compress2(cctx, out + CHUNK_HDR, out_cap - CHUNK_HDR, raw, len);
    if (ZSTD_isError(stored)) {
        rt_fail(s->path, ZSTD_getErrorName(stored));
        return RT_ERR_IO;
    }
    if (stored_out)
        *stored_out = stored;
    memset(&h, 0, sizeof(h));
    h.magic = CHT_CHUNK_MAGIC;
    h.header_size = CHUNK_HDR;
    h.stored_size = (uint32_t)stored;
    h.raw_size = (uint32_t)len;
    h.thread = thread;
    h.file_tag = (uint32_t)s->file_id;
    /* seq and offset together, so that the file holds chunks in seq order */
    rt_lock(&s->lock);
    h.seq = s->seq++;
    off = s->end;
    s->end += CHUNK_HDR + stored;
    rt_unlock(&s->lock);
    memcpy(out, &h, sizeof(h));
    e = rt_pwrite_all(s->fd, out, CHUNK_HDR + stored, off);
    if (e < 0) {
        rt_fail(s->path, reason_of(-e));
        return RT_ERR_IO;
    }
    if (s->is_stream)
        __atomic_fetch_add(&rt_g.records, nrec == RT_COUNT ? count_records(raw, len) : nrec,
                           __ATOMIC_RELAXED);
    return RT_OK;
}

int rt_emit_records(struct rt_sink *s, ZSTD_CCtx *cctx, const void *raw, size_t len, unsigned char *out,
                    size_t out_cap, uint32_t thread)
{
    const unsigned char *p = raw;
    size_t start = 0, cur = 0;
    int e;

    while (cur + sizeof(struct cht_rec) <= len) {
        struct cht_rec r;
        memcpy(&r, p + cur, sizeof(r));
        if (cur > start && cur + r.size - start > RT_META_PIECE) {
            if ((e = rt_emit_chunk(s, cctx, p + start, cur - start, RT_COUNT, out, out_cap, thread, NULL)) < 0)
                return e;
            start = cur;
        }
        cur += r.size;
    }
    if (cur > start)
        return rt_emit_chunk(s, cctx, p + start, cur - start, RT_COUNT, out, out_cap, thread, NULL);
    return RT_OK;
}

void rt_file_header(struct cht_file_header *h, const char *magic, int32_t rank, int32_t world_size,
                    uint64_t features)
{
    memset(h, 0, sizeof(*h));
    memcpy(h->magic, magic, sizeof(h->magic));
    h->version = CHT_FORMAT_VERSION;
    h->oldest_version = CHT_FORMAT_OLDEST;
    h->header_size = sizeof(*h);
    h->byte_order = CHT_BYTE_ORDER_MARK;
    h->features = features;
    h->run_id = rt_g.run_id;
    h->rank = rank;
    h->world_size = world_size;
    h->compression = CHT_COMPRESSION_ZSTD;
}

static uint64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Writes the stream's file header from the current state. */
static int write_stream_header(void)
{
    struct cht_file_header h;
    uint64_t features = CHT_FEAT_ZSTD;
    int e;

    if (__atomic_load_n(&rt_g.ntu, __ATOMIC_ACQUIRE) > 0)
        features |= CHT_FEAT_SITES;
    if (__atomic_load_n(&rt_g.nthreads, __ATOMIC_RELAXED) > 1)
        features |= CHT_FEAT_THREADS;
    rt_file_header(&h, CHT_MAGIC_RANK, rt_g.rank, rt_g.world_size, features);
    h.created_ns = rt_g.created_ns;
    h.file_id = rt_g.stream.file_id;
    e = rt_pwrite_all(rt_g.stream.fd, &h, sizeof(h), 0);
    if (e < 0) {
        rt_fail(rt_g.stream.path, reason_of(-e));
        return RT_ERR_IO;
    }
    return RT_OK;
}

int rt_stream_write_header(void)
{
    if (__atomic_load_n(&rt_g.stream_state, __ATOMIC_ACQUIRE) != RT_STREAM_OPEN)
        return RT_ERR_OFF;
    return write_stream_header();
}

/* Writes the SITE_TABLE record of TU i at p (blob copied verbatim, zero
 * padded); returns its size (only the size with p NULL). */
static size_t site_table_record(unsigned char *p, uint32_t i)
{
    const struct rt_tu *tu = &rt_g.tus[i];
    size_t size = sizeof(struct cht_rec_site_table) + rt_pad8(tu->blob_size);

    if (p) {
        struct cht_rec_site_table t = {
            .h = {.type = CHT_REC_SITE_TABLE, .aux = 0, .size = (uint32_t)size},
            .blob_size = tu->blob_size,
        };
        memset(p, 0, size);
        memcpy(p, &t, sizeof(t));
        memcpy(p + sizeof(t), tu->blob, tu->blob_size);
    }
    return size;
}

/* Writes the TU record of TU i at p, followed by its site table when
 * with_table; returns the bytes (only the size with p NULL). */
static size_t tu_records(unsigned char *p, uint32_t i, int with_table)
{
    const struct rt_tu *tu = &rt_g.tus[i];

    if (p) {
        struct cht_rec_tu r = {
            .h = {.type = CHT_REC_TU, .aux = 0, .size = sizeof(r)},
            .tu_key = tu->tu_key,
            .site_base = tu->site_base,
            .nsites = tu->nsites,
            .loop_base = tu->loop_base,
            .nloops = tu->nloops,
        };
        memcpy(p, &r, sizeof(r));
    }
    return sizeof(struct cht_rec_tu) +
           (with_table ? site_table_record(p ? p + sizeof(struct cht_rec_tu) : NULL, i) : 0);
}

/* Remembers the start addresses of the MODULE records in raw. */
static void note_modules(const unsigned char *raw, size_t len)
{
    size_t off = 0;
    while (off + sizeof(struct cht_rec) <= len) {
        struct cht_rec_module m;
        memcpy(&m.h, raw + off, sizeof(m.h));
        if (m.h.size < sizeof(m.h))
            break;
        if (m.h.type == CHT_REC_MODULE && rt_g.nmod_starts < RT_MAX_MODULES) {
            memcpy(&m, raw + off, sizeof(m));
            rt_g.mod_starts[rt_g.nmod_starts++] = m.start;
        }
        off += m.h.size;
    }
}

int rt_snapshot_rebuild(void)
{
    uint32_t ntu = __atomic_load_n(&rt_g.ntu, __ATOMIC_ACQUIRE);
    size_t need_tu = 0, need_mod, need;

    for (uint32_t i = 0; i < ntu; i++)
        need_tu += tu_records(NULL, i, rt_g.tus[i].late);
    for (int attempt = 0; attempt < 4; attempt++) {
        need_mod = rt_modules_records(NULL, 0, NULL, 0);
        need = need_mod + 4096 + need_tu; /* slack for a concurrent dlopen */
        if (need > rt_g.snap_cap || rt_out_bound(need) > rt_g.snap_out_cap) {
            size_t out_cap = rt_out_bound(need);
            unsigned char *snap = rt_mem_alloc(need);
            unsigned char *out = rt_mem_alloc(out_cap);
            if (!snap || !out) {
                rt_mem_free(snap, need);
                rt_mem_free(out, out_cap);
                return RT_ERR_NOMEM;
            }
            rt_mem_free(rt_g.snap, rt_g.snap_cap);
            rt_mem_free(rt_g.snap_out, rt_g.snap_out_cap);
            rt_g.snap = snap;
            rt_g.snap_cap = need;
            rt_g.snap_out = out;
            rt_g.snap_out_cap = out_cap;
        }
        need_mod = rt_modules_records(rt_g.snap, rt_g.snap_cap - need_tu, NULL, 0);
        if (need_mod + need_tu > rt_g.snap_cap)
            continue;
        unsigned char *p = rt_g.snap + need_mod;
        for (uint32_t i = 0; i < ntu; i++)
            p += tu_records(p, i, rt_g.tus[i].late);
        rt_g.snap_len = (size_t)(p - rt_g.snap);
        rt_g.snap_ntu = ntu;
        return RT_OK;
    }
    return RT_ERR_NOMEM;
}

/* Opens the stream file; the caller won the NONE -> OPENING transition. */
static int stream_open(int in_signal)
{
    const char *path;
    int e, fd;

    e = rt_mkdir_p(rt_g.dir);
    if (e < 0) {
        rt_fail(rt_g.dir, dir_reason(-e));
        return RT_ERR_IO;
    }
    path = rt_g.rank >= 0 ? rt_g.rank_path[__atomic_load_n(&rt_g.rank_path_cur, __ATOMIC_ACQUIRE)]
                          : rt_g.pending_path;
    fd = rt_create_fresh(path);
    if (fd < 0) {
        rt_fail(path, reason_of(-fd));
        return RT_ERR_IO;
    }
    rt_g.created_ns = realtime_ns();
    rt_g.stream.fd = fd;
    rt_g.stream.seq = 0;
    rt_g.stream.file_id = rt_random64() | 1;
    rt_g.stream.end = sizeof(struct cht_file_header);
    rt_g.stream.path = path;
    rt_g.stream.is_stream = 1;

    rt_lock(&rt_g.meta_lock);
    e = write_stream_header();
    if (e == RT_OK && !in_signal)
        (void)rt_snapshot_rebuild(); /* fresh module list; keep the old one on failure */
    if (e == RT_OK && rt_g.snap_len) {
        e = rt_emit_records(&rt_g.stream, rt_g.mcctx, rt_g.snap, rt_g.snap_len, rt_g.snap_out,
                            rt_g.snap_out_cap, rt_thread_index_peek());
        if (e == RT_OK) {
            rt_g.tu_in_stream = rt_g.snap_ntu;
            note_modules(rt_g.snap, rt_g.snap_len);
        }
    }
    /* only now may other chunks follow (the metadata chunk is seq 0); still
     * under the meta lock, so that a TU registering meanwhile sees either
     * OPENING (and is in the snapshot) or OPEN (and adds its own chunk) */
    if (e == RT_OK)
        __atomic_store_n(&rt_g.stream_state, RT_STREAM_OPEN, __ATOMIC_RELEASE);
    rt_unlock(&rt_g.meta_lock);
    return e;
}

int rt_stream_ensure(int in_signal)
{
    int st = __atomic_load_n(&rt_g.stream_state, __ATOMIC_ACQUIRE);
    int expected = RT_STREAM_NONE;

    if (st == RT_STREAM_OPEN)
        return 0;
    if (st == RT_STREAM_NONE && __atomic_compare_exchange_n(&rt_g.stream_state, &expected, RT_STREAM_OPENING,
                                                            0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        int e = stream_open(in_signal);
        if (e < 0) {
            __atomic_store_n(&rt_g.stream_state, RT_STREAM_FAILED, __ATOMIC_RELEASE);
            return e;
        }
        return 1;
    }
    /* another thread is opening it: it holds no lock we hold, wait */
    uint64_t deadline = rt_now_ns() + 2000000000u;
    while ((st = __atomic_load_n(&rt_g.stream_state, __ATOMIC_ACQUIRE)) == RT_STREAM_OPENING) {
        if (in_signal && rt_now_ns() > deadline)
            return RT_ERR_BUSY;
        sched_yield();
    }
    return st == RT_STREAM_OPEN ? 0 : RT_ERR_IO;
}

int rt_stream_rename(const char *path, int noreplace)
{
    int r;

    if (__atomic_load_n(&rt_g.stream_state, __ATOMIC_ACQUIRE) != RT_STREAM_OPEN)
        return RT_ERR_OFF;
    if (strcmp(rt_g.stream.path, path) == 0)
        return RT_OK;
    if (noreplace)
        r = renameat2(AT_FDCWD, rt_g.stream.path, AT_FDCWD, path, RENAME_NOREPLACE);
    else
        r = rename(rt_g.stream.path, path);
    if (r < 0) {
        int err = errno;
        if (noreplace && err == EEXIST)
            return RT_ERR_IO; /* the caller keeps the provisional name */
        rt_fail(path, reason_of(err));
        return RT_ERR_IO;
    }
    __atomic_store_n(&rt_g.stream.path, path, __ATOMIC_RELEASE);
    return RT_OK;
}

/* Emits len bytes of records into the stream with the shared context and a
 * scratch output buffer (normal context, meta lock held). */
static int emit_scratch(unsigned char *raw, size_t len)
{
    size_t out_cap = rt_out_bound(len);
    unsigned char *out = rt_mem_alloc(out_cap);
    int e;

    if (!out)
        return RT_ERR_NOMEM;
    e = rt_emit_records(&rt_g.stream, rt_g.mcctx, raw, len, out, out_cap, rt_thread_index_peek());
    rt_mem_free(out, out_cap);
    return e;
}

int rt_stream_add_tus(void)
{
    uint32_t ntu = __atomic_load_n(&rt_g.ntu, __ATOMIC_ACQUIRE);
    size_t len = 0;
    unsigned char *raw, *p;
    int e;

    if (rt_g.tu_in_stream >= ntu || rt_is_off())
        return RT_OK;
    for (uint32_t i = rt_g.tu_in_stream; i < ntu; i++)
        len += tu_records(NULL, i, 1);
    raw = rt_mem_alloc(len);
    if (!raw)
        return RT_ERR_NOMEM;
    p = raw;
    for (uint32_t i = rt_g.tu_in_stream; i < ntu; i++)
        p += tu_records(p, i, 1);
    e = emit_scratch(raw, len);
    if (e == RT_OK)
        rt_g.tu_in_stream = ntu;
    rt_mem_free(raw, len);
    return e;
}

int rt_stream_add_modules(void)
{
    size_t need, cap;
    unsigned char *raw;
    int e = RT_OK;

    if (rt_is_off())
        return RT_OK;
    need = rt_modules_records(NULL, 0, rt_g.mod_starts, rt_g.nmod_starts);
    if (need == 0)
        return RT_OK;
    cap = need + 4096;
    raw = rt_mem_alloc(cap);
    if (!raw)
        return RT_ERR_NOMEM;
    need = rt_modules_records(raw, cap, rt_g.mod_starts, rt_g.nmod_starts);
    if (need <= cap) {
        e = emit_scratch(raw, need);
        if (e == RT_OK)
            note_modules(raw, need);
    }
    rt_mem_free(raw, cap);
    return e;
}

int rt_stream_write_end(int32_t exit_status, uint32_t thread)
{
    unsigned char out[512];
    struct cht_rec_end r = {
        .h = {.type = CHT_REC_END, .aux = 0, .size = sizeof(r)},
        .t_end = rt_now_ns(),
        .threads = __atomic_load_n(&rt_g.nthreads, __ATOMIC_RELAXED),
        .exit_status = exit_status,
    };

    r.records = __atomic_load_n(&rt_g.records, __ATOMIC_RELAXED);
    _Static_assert(sizeof(out) >= CHUNK_HDR + ZSTD_COMPRESSBOUND(sizeof(r)), "END chunk fits");
    return rt_emit_chunk(&rt_g.stream, rt_g.mcctx, &r, sizeof(r), 1, out, sizeof(out), thread, NULL);
}

int rt_meta_file_write(void)
{
    char path[PATH_MAX], tmp[PATH_MAX];
    uint32_t ntu = __atomic_load_n(&rt_g.ntu, __ATOMIC_ACQUIRE);
    size_t prog = 0, len = 0, cap = 0, out_cap = 0;
    unsigned char *raw = NULL, *out = NULL, *p;
    struct rt_sink m = {.fd = -1};
    struct cht_file_header h;
    sigset_t old;
    int e, fd = -1;

    if (__atomic_load_n(&rt_g.off, __ATOMIC_ACQUIRE) & (RT_OFF_DISABLED | RT_OFF_FAILED))
        return RT_ERR_OFF;
    if (snprintf(path, sizeof(path), "%s/%s", rt_g.dir, CHT_META_FILE) >= (int)sizeof(path) ||
        snprintf(tmp, sizeof(tmp), "%s/.%s.0123456789abcdef", rt_g.dir, CHT_META_FILE) >= (int)sizeof(tmp)) {
        rt_fail(rt_g.dir, "path too long");
        return RT_ERR_INVAL;
    }
    /* PROGRAM then one SITE_TABLE per TU (TU records belong in rank
     * streams); argv may change between sizing and writing: retry */
    for (int attempt = 0; attempt < 3 && !raw; attempt++) {
        size_t tables = 0;
        for (uint32_t i = 0; i < ntu; i++)
            tables += site_table_record(NULL, i);
        prog = rt_program_record(NULL, 0, rt_g.world_size);
        if (prog == 0)
            break;
        cap = prog + tables + 4096;
        raw = rt_mem_alloc(cap);
        if (!raw)
            break;
        prog = rt_program_record(raw, cap, rt_g.world_size);
        if (prog == 0 || prog + tables > cap) {
            rt_mem_free(raw, cap);
            raw = NULL;
        }
    }
    if (!raw) {
        e = RT_ERR_NOMEM;
        goto out;
    }
    p = raw + prog;
    for (uint32_t i = 0; i < ntu; i++)
        p += site_table_record(p, i);
    len = (size_t)(p - raw);
    out_cap = rt_out_bound(len);
    out = rt_mem_alloc(out_cap);
    if (!out) {
        e = RT_ERR_NOMEM;
        goto out;
    }

    e = rt_mkdir_p(rt_g.dir);
    if (e < 0) {
        rt_fail(rt_g.dir, dir_reason(-e));
        e = RT_ERR_IO;
        goto out;
    }
    /* a temporary name nobody can guess, created exclusively (the mode is
     * the umask's, as for the rank files) */
    fd = -1;
    for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
        uint64_t r = rt_random64();
        snprintf(tmp + strlen(tmp) - 16, 17, "%016llx", (unsigned long long)r);
        fd = open(tmp, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        rt_fail(path, reason_of(errno));
        e = RT_ERR_IO;
        goto out;
    }
    rt_file_header(&h, CHT_MAGIC_META, -1, rt_g.world_size, CHT_FEAT_ZSTD | (ntu ? CHT_FEAT_SITES : 0));
    h.created_ns = realtime_ns();
    h.file_id = rt_random64() | 1;
    e = rt_pwrite_all(fd, &h, sizeof(h), 0);
    if (e < 0) {
        rt_fail(path, reason_of(-e));
        e = RT_ERR_IO;
        goto out_unlink;
    }
    m.fd = fd;
    m.file_id = h.file_id;
    m.end = sizeof(h);
    m.path = path;
    rt_block_signals(&old);
    rt_lock(&rt_g.meta_lock);
    e = rt_emit_records(&m, rt_g.mcctx, raw, len, out, out_cap, 0);
    rt_unlock(&rt_g.meta_lock);
    rt_restore_signals(&old);
    if (e < 0)
        goto out_unlink;
    if (close(fd) < 0) {
        fd = -1;
        rt_fail(path, reason_of(errno));
        e = RT_ERR_IO;
        goto out_unlink;
    }
    fd = -1;
    if (rename(tmp, path) < 0) {
        rt_fail(path, reason_of(errno));
        e = RT_ERR_IO;
        goto out_unlink;
    }
    rt_g.meta_written = 1;
    rt_g.meta_ntu = ntu;
    e = RT_OK;
    goto out;
out_unlink:
    if (fd >= 0)
        close(fd);
    fd = -1;
    unlink(tmp);
out:
    rt_mem_free(out, out_cap);
    rt_mem_free(raw, cap);
    return e;
}
