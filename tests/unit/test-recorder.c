/* test-recorder.c - unit tests of the recorder core of the trace runtime
 * (tracelib/rt/recorder.c, writer.c, modules.c), without MPI and without the
 * reader library: the runtime is driven in-process (and, for exits, signals
 * and failures, in child processes that re-execute this program) and the
 * bytes on disk are checked directly: file headers, chunk headers, each
 * zstd payload and the records inside.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <zstd.h>

#include "commhint-rt.h"
#include "rt/recorder-private.h"
#include "trace-format.h"
#include "trace-reader.h"

/* ---- a site table blob ------------------------------------------------------- */

struct blob {
    uint8_t bytes[1024];
    uint32_t size;
};

/* A valid blob with nsites sites (one access each) and nloops loops. */
static void make_blob(struct blob *b, uint32_t nsites, uint32_t nloops, uint64_t key)
{
    static const char strings[] = "\0t.c\0f";
    struct cht_tu_header h = {0};
    uint32_t off = sizeof(h);

    memset(b, 0, sizeof(*b));
    h.magic = CHT_TU_MAGIC;
    h.version = CHT_TU_VERSION;
    h.header_size = sizeof(h);
    h.tu_key = key;
    h.nsites = nsites;
    h.nloops = nloops;
    h.naccess = nsites;
    h.sites_off = off;
    for (uint32_t i = 0; i < nsites; i++) {
        struct cht_site s = {1, 5, 10 + i, 1, CHT_SITE_COMP, CHT_SOP_ADD, CHT_NONE, 0, i, 1};
        memcpy(b->bytes + off, &s, sizeof(s));
        off += sizeof(s);
    }
    h.loops_off = off;
    for (uint32_t i = 0; i < nloops; i++) {
        struct cht_loop l = {1, 5, 20 + i, 1, 1, CHT_NONE, 0};
        memcpy(b->bytes + off, &l, sizeof(l));
        off += sizeof(l);
    }
    h.access_off = off;
    for (uint32_t i = 0; i < nsites; i++) {
        struct cht_access a = {8, CHT_ACCESS_READ};
        memcpy(b->bytes + off, &a, sizeof(a));
        off += sizeof(a);
    }
    h.strings_off = off;
    h.strings_size = sizeof(strings);
    memcpy(b->bytes + off, strings, sizeof(strings));
    off += sizeof(strings);
    h.total_size = off;
    memcpy(b->bytes, &h, sizeof(h));
    b->size = off;
}

/* ---- the event sequence every test thread emits ------------------------------ */

static uint32_t s0, l0; /* global ids of the first TU's site 0 and loop 0 */

#define ADDR(tid, i, k) (((uint64_t)(tid) << 40) | ((uint64_t)(i) << 8) | (uint64_t)(k))

/* Event i of thread tid: every entry point in turn, plus events that must be
 * ignored (unknown site and loop ids). */
static void emit_one(int tid, uint32_t i)
{
    const void *a[6];
    for (int k = 0; k < 6; k++)
        a[k] = (const void *)(uintptr_t)ADDR(tid, i, k);
    switch (i % 8) {
    case 0:
        __commhint_ev1(s0, a[0]);
        __commhint_ev1(CHT_NONE, a[1]);           /* ignored */
        __commhint_ev2(s0 + 1000000, a[0], a[1]); /* ignored: never handed out */
        __commhint_ev1(COMMHINT_RT_BAD_BASE + 1, a[2]); /* ignored: base of an untraced TU */
        break;
    case 1: __commhint_ev2(s0 + 1, a[0], a[1]); break;
    case 2: __commhint_ev3(s0 + 2, a[0], a[1], a[2]); break;
    case 3: __commhint_ev4(s0, a[0], a[1], a[2], a[3]); break;
    case 4: __commhint_evn(s0 + 1, 6, a); break;
    case 5: __commhint_memcpy(s0 + 2, a[0], a[1], i); break;
    case 6: __commhint_memset(s0, a[0], (uint64_t)i | (1ull << 63)); break;
    case 7:
        __commhint_loop_enter(CHT_NONE); /* ignored */
        switch ((i / 8) % 3) {
        case 0: __commhint_loop_enter(l0 + (i / 8) % 2); break;
        case 1: __commhint_loop_iter(l0 + (i / 8) % 2); break;
        default: __commhint_loop_exit(l0 + (i / 8) % 2); break;
        }
        break;
    }
}

static void emit_range(int tid, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        emit_one(tid, i);
}

/* The record event i of thread tid must have produced; returns its size. */
static size_t expect_one(int tid, uint32_t i, uint8_t *out)
{
    struct cht_rec h = {0};
    uint32_t site = 0, naddr = 0;
    uint64_t body[12];
    size_t nbody = 0;

    switch (i % 8) {
    case 0: naddr = 1, site = s0; break;
    case 1: naddr = 2, site = s0 + 1; break;
    case 2: naddr = 3, site = s0 + 2; break;
    case 3: naddr = 4, site = s0; break;
    case 4: naddr = 6, site = s0 + 1; break;
    case 5:
        h.type = CHT_REC_RANGES, h.aux = 2, site = s0 + 2;
        body[0] = ADDR(tid, i, 1), body[1] = i;                   /* read src */
        body[2] = ADDR(tid, i, 0), body[3] = i | CHT_RANGE_WRITE; /* write dst */
        nbody = 4;
        break;
    case 6:
        h.type = CHT_REC_RANGES, h.aux = 1, site = s0;
        body[0] = ADDR(tid, i, 0), body[1] = i | CHT_RANGE_WRITE;
        nbody = 2;
        break;
    case 7: h.type = CHT_REC_LOOP, h.aux = (uint16_t)(1 + (i / 8) % 3), site = l0 + (i / 8) % 2; break;
    }
    if (naddr) {
        h.type = CHT_REC_COMP, h.aux = (uint16_t)naddr;
        for (uint32_t k = 0; k < naddr; k++)
            body[nbody++] = ADDR(tid, i, k);
    }
    h.size = (uint32_t)(16 + 8 * nbody);
    memcpy(out, &h, 8);
    memcpy(out + 8, &site, 4);
    memset(out + 12, 0, 4);
    memcpy(out + 16, body, 8 * nbody);
    return h.size;
}

/* ---- reading what the runtime wrote ---------------------------------------- */

struct rec {
    const uint8_t *p; /* into parsed.raw */
    struct cht_rec h;
    uint32_t thread; /* of its chunk */
    uint64_t chunk;  /* seq of its chunk */
};

struct parsed {
    struct cht_file_header hdr;
    struct cht_chunk_header *chunks;
    size_t nchunks;
    uint8_t *raw; /* all payloads, decompressed, one after the other */
    struct rec *recs;
    size_t nrecs;
    size_t file_size;
    int cut; /* the file ended inside a chunk */
};

static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;

    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Parses a file, checking every header, chunk and record frame on the way.
 * allow_cut: the file may end inside a chunk (write failure). */
static void parse_file(const char *path, const char *magic, struct parsed *ps, int allow_cut)
{
    size_t len, off = sizeof(struct cht_file_header), raw_len = 0, raw_cap = 1 << 20;
    size_t recs_cap = 1024;
    uint8_t *file = read_all(path, &len);

    memset(ps, 0, sizeof(*ps));
    ps->file_size = len;
    assert_true(len >= sizeof(ps->hdr));
    memcpy(&ps->hdr, file, sizeof(ps->hdr));
    assert_memory_equal(ps->hdr.magic, magic, 8);
    assert_int_equal(ps->hdr.version, CHT_FORMAT_VERSION);
    assert_int_equal(ps->hdr.oldest_version, CHT_FORMAT_OLDEST);
    assert_int_equal(ps->hdr.header_size, 64);
    assert_int_equal(ps->hdr.byte_order, CHT_BYTE_ORDER_MARK);
    assert_int_equal(ps->hdr.compression, CHT_COMPRESSION_ZSTD);
    assert_true(ps->hdr.features & CHT_FEAT_ZSTD);
    ps->raw = malloc(raw_cap);
    ps->recs = malloc(recs_cap * sizeof(*ps->recs));
    ps->chunks = malloc(4096 * sizeof(*ps->chunks));
    while (off < len) {
        struct cht_chunk_header ch;
        if (len - off < sizeof(ch) ||
            (memcpy(&ch, file + off, sizeof(ch)), len - off - sizeof(ch) < ch.stored_size)) {
            assert_true(allow_cut);
            ps->cut = 1;
            break;
        }
        assert_int_equal(ch.magic, CHT_CHUNK_MAGIC);
        assert_int_equal(ch.header_size, 32);
        assert_int_equal(ch.flags, 0);
        assert_int_equal(ch.seq, ps->nchunks); /* file order is seq order, no gaps */
        assert_int_equal(ch.raw_size % 8, 0);
        assert_true(ch.raw_size > 0 && ch.raw_size <= CHT_CHUNK_MAX_RAW);
        assert_true(ps->nchunks < 4096);
        ps->chunks[ps->nchunks++] = ch;

        const uint8_t *payload = file + off + sizeof(ch);
        ZSTD_frameHeader fh;
        assert_int_equal(ZSTD_getFrameHeader(&fh, payload, ch.stored_size), 0);
        assert_int_equal(fh.checksumFlag, 1);
        assert_int_equal(ZSTD_getFrameContentSize(payload, ch.stored_size), ch.raw_size);
        assert_int_equal(ZSTD_findFrameCompressedSize(payload, ch.stored_size), ch.stored_size);
        while (raw_len + ch.raw_size > raw_cap)
            ps->raw = realloc(ps->raw, raw_cap *= 2);
        size_t got = ZSTD_decompress(ps->raw + raw_len, ch.raw_size, payload, ch.stored_size);
        assert_false(ZSTD_isError(got));
        assert_int_equal(got, ch.raw_size);
        raw_len += ch.raw_size;
        off += sizeof(ch) + ch.stored_size;
    }
    /* records: pointers into raw once it stops moving */
    raw_len = 0;
    for (size_t c = 0; c < ps->nchunks; c++) {
        size_t end = raw_len + ps->chunks[c].raw_size;
        while (raw_len < end) {
            struct cht_rec h;
            assert_true(end - raw_len >= sizeof(h));
            memcpy(&h, ps->raw + raw_len, sizeof(h));
            assert_true(h.size >= 8 && h.size % 8 == 0 && h.size <= end - raw_len);
            if (ps->nrecs == recs_cap)
                ps->recs = realloc(ps->recs, (recs_cap *= 2) * sizeof(*ps->recs));
            ps->recs[ps->nrecs++] =
                (struct rec){ps->raw + raw_len, h, ps->chunks[c].thread, ps->chunks[c].seq};
            raw_len += h.size;
        }
    }
    free(file);
}

static void parsed_free(struct parsed *ps)
{
    free(ps->raw);
    free(ps->recs);
    free(ps->chunks);
}

static int is_event(const struct rec *r)
{
    return r->h.type == CHT_REC_COMP || r->h.type == CHT_REC_RANGES || r->h.type == CHT_REC_LOOP;
}

/* Checks that the event records of writer thread `thread` are events 0, 1,
 * 2... of thread tid, in order; returns how many.  *chunks (if not NULL)
 * gets the number of chunks they came in. */
static uint32_t check_prefix(const struct parsed *ps, uint32_t thread, int tid, size_t *chunks)
{
    uint8_t want[128];
    uint32_t i = 0;
    uint64_t last_chunk = UINT64_MAX;

    if (chunks)
        *chunks = 0;
    for (size_t r = 0; r < ps->nrecs; r++) {
        const struct rec *rec = &ps->recs[r];
        if (rec->thread != thread || !is_event(rec))
            continue;
        size_t size = expect_one(tid, i, want);
        if (rec->h.size != size || memcmp(rec->p, want, size) != 0)
            fail_msg("thread=%u event=%u differs (type=%u aux=%u size=%u)", thread, i, rec->h.type,
                     rec->h.aux, rec->h.size);
        if (chunks && rec->chunk != last_chunk)
            (*chunks)++, last_chunk = rec->chunk;
        i++;
    }
    return i;
}

/* Checks that the event records of writer thread `thread` are exactly events
 * [0, n) of thread tid, in order; returns the chunks they came in. */
static size_t check_thread_events(const struct parsed *ps, uint32_t thread, int tid, uint32_t n)
{
    size_t chunks;
    assert_int_equal(check_prefix(ps, thread, tid, &chunks), n);
    return chunks;
}

/* The writer thread index whose first event belongs to tid, or -1. */
/* The stream's last record, which must be CHT_REC_END counting every
 * record before it. */
static struct cht_rec_end clean_end(const struct parsed *ps)
{
    const struct rec *end = &ps->recs[ps->nrecs - 1];
    struct cht_rec_end e;
    assert_int_equal(end->h.type, CHT_REC_END);
    memcpy(&e, end->p, sizeof e);
    assert_int_equal(e.records, ps->nrecs - 1);
    return e;
}

static int thread_of(const struct parsed *ps, int tid)
{
    for (size_t r = 0; r < ps->nrecs; r++)
        if (ps->recs[r].h.type == CHT_REC_COMP &&
            (*(const uint64_t *)(ps->recs[r].p + 16) >> 40) == (uint64_t)tid)
            return (int)ps->recs[r].thread;
    return -1;
}

static const struct rec *find_rec(const struct parsed *ps, uint16_t type, size_t nth)
{
    for (size_t r = 0; r < ps->nrecs; r++)
        if (ps->recs[r].h.type == type && nth-- == 0)
            return &ps->recs[r];
    return NULL;
}

static size_t count_recs(const struct parsed *ps, uint16_t type)
{
    size_t n = 0;
    for (size_t r = 0; r < ps->nrecs; r++)
        n += ps->recs[r].h.type == type;
    return n;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void rm_rf(const char *path)
{
    nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static char *path_join(const char *a, const char *b)
{
    char *p;
    assert_true(asprintf(&p, "%s/%s", a, b) > 0);
    return p;
}

/* Entries of a directory, "." and ".." left out. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static uint64_t realtime_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- in-process: two threads, thread exit, flush, late TU, finish ----------- */

static char inproc_tmp[] = "/tmp/test-recorder-XXXXXX";
static char *inproc_dir;
static struct blob tu1, tu2, tu3, bad;
static uint64_t t_start;

#define WORKER_EVENTS 20000u

static void *worker(void *arg)
{
    emit_range((int)(intptr_t)arg, 0, WORKER_EVENTS);
    return NULL;
}

static void test_inproc_register(void **state)
{
    uint32_t sb, lb;
    (void)state;

    assert_non_null(mkdtemp(inproc_tmp));
    inproc_dir = path_join(inproc_tmp, "sub/trace.d");
    setenv("COMMHINT_TRACE_DIR", inproc_dir, 1);
    setenv("PMI_RANK", "0", 1);
    setenv("PMI_SIZE", "1", 1);
    setenv("COMMHINT_BUFFER_KB", "64", 1);
    unsetenv("COMMHINT_DISABLE");
    t_start = realtime_now();

    make_blob(&tu1, 3, 2, 0x1111);
    make_blob(&tu2, 2, 1, 0x2222);
    __commhint_register_tu(COMMHINT_RT_ABI_VERSION, tu1.bytes, tu1.size, &s0, &l0);
    assert_int_equal(s0, 0);
    assert_int_equal(l0, 0);
    __commhint_register_tu(COMMHINT_RT_ABI_VERSION, tu2.bytes, tu2.size, &sb, &lb);
    assert_int_equal(sb, 3);
    assert_int_equal(lb, 2);

    /* a TU of another ABI and a malformed one are left untraced */
    __commhint_register_tu(COMMHINT_RT_ABI_VERSION + 1, tu2.bytes, tu2.size, &sb, &lb);
    assert_int_equal(sb, COMMHINT_RT_BAD_BASE);
    assert_int_equal(lb, COMMHINT_RT_BAD_BASE);
    bad = tu2;
    bad.bytes[0] ^= 1; /* magic */
    __commhint_register_tu(COMMHINT_RT_ABI_VERSION, bad.bytes, bad.size, &sb, &lb);
    assert_int_equal(sb, COMMHINT_RT_BAD_BASE);
    bad = tu2;
    ((struct cht_tu_header *)bad.bytes)->nsites = 1000; /* sites past the end */
    __commhint_register_tu(COMMHINT_RT_ABI_VERSION, bad.bytes, bad.size, &sb, &lb);
    assert_int_equal(sb, COMMHINT_RT_BAD_BASE);
    __commhint_register_tu(COMMHINT_RT_ABI_VERSION, tu2.bytes, tu2.size - 8, &sb, &lb);
    assert_int_equal(sb, COMMHINT_RT_BAD_BASE); /* total_size disagrees */
}

static void test_inproc_lazy(void **state)
{
    (void)state;
    /* the main thread registers first (index 0); nothing flushed, nothing created */
    emit_range(0, 0, 100);
    assert_false(exists(inproc_dir));
    char *sub = path_join(inproc_tmp, "sub");
    assert_false(exists(sub));
    free(sub);
}

static void test_inproc_threads(void **state)
{
    pthread_t th[2];
    struct parsed ps;
    uint32_t sb, lb;
    char *path = path_join(inproc_dir, "rank-00000.chtr");
    (void)state;

    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, worker, (void *)(intptr_t)(i + 1)), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL); /* their exit flushes their buffers */

    /* code loaded now (dlopen) brings its TU and table into the stream */
    make_blob(&tu3, 2, 2, 0x3333);
    __commhint_register_tu(COMMHINT_RT_ABI_VERSION, tu3.bytes, tu3.size, &sb, &lb);
    assert_int_equal(sb, 5);
    assert_int_equal(lb, 3);

    emit_range(0, 100, 150);
    errno = 4242;
    assert_int_equal(rt_flush_all(), 0);
    assert_int_equal(errno, 4242);

    parse_file(path, CHT_MAGIC_RANK, &ps, 0);
    assert_int_equal(ps.hdr.rank, 0);
    assert_int_equal(ps.hdr.world_size, 1);
    assert_int_equal(ps.hdr.run_id, 0);
    assert_int_equal(ps.hdr.features, CHT_FEAT_ZSTD | CHT_FEAT_SITES | CHT_FEAT_THREADS);
    assert_true(ps.hdr.created_ns >= t_start && ps.hdr.created_ns <= realtime_now());

    /* first chunk: modules (the test program among them) and the two TUs */
    const struct rec *first = &ps.recs[0];
    assert_int_equal(first->chunk, 0);
    assert_int_equal(first->h.type, CHT_REC_MODULE);
    int found_exe = 0;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    assert_true(n > 0);
    exe[n] = '\0';
    for (size_t r = 0; r < ps.nrecs && ps.recs[r].chunk == 0; r++) {
        const struct rec *rec = &ps.recs[r];
        if (rec->h.type != CHT_REC_MODULE)
            continue;
        struct cht_rec_module m;
        memcpy(&m, rec->p, sizeof(m));
        assert_true(m.start < m.end);
        assert_true(sizeof(m) + m.build_id_len + m.path_len <= rec->h.size);
        const char *mpath = (const char *)rec->p + sizeof(m) + m.build_id_len;
        assert_int_equal(mpath[m.path_len - 1], '\0');
        uint64_t here = (uintptr_t)&test_inproc_threads;
        if (here >= m.start && here < m.end) {
            found_exe = 1;
            assert_string_equal(mpath, exe);
            assert_int_equal(m.build_id_len, 20); /* clang links with --build-id */
        }
    }
    assert_true(found_exe);
    const struct rec *tu = find_rec(&ps, CHT_REC_TU, 0);
    assert_non_null(tu);
    assert_int_equal(tu->chunk, 0);
    struct cht_rec_tu t;
    memcpy(&t, tu->p, sizeof(t));
    assert_int_equal(t.h.size, 32);
    assert_int_equal(t.tu_key, 0x1111);
    assert_int_equal(t.site_base, 0);
    assert_int_equal(t.nsites, 3);
    assert_int_equal(t.loop_base, 0);
    assert_int_equal(t.nloops, 2);
    memcpy(&t, find_rec(&ps, CHT_REC_TU, 1)->p, sizeof(t));
    assert_int_equal(t.tu_key, 0x2222);
    assert_int_equal(t.site_base, 3);
    assert_int_equal(t.loop_base, 2);
    assert_int_equal(find_rec(&ps, CHT_REC_TU, 1)->chunk, 0);

    /* the late TU: its TU record and its table verbatim, in a later chunk */
    const struct rec *late = find_rec(&ps, CHT_REC_TU, 2);
    assert_non_null(late);
    assert_true(late->chunk > 0);
    memcpy(&t, late->p, sizeof(t));
    assert_int_equal(t.tu_key, 0x3333);
    assert_int_equal(t.site_base, 5);
    assert_int_equal(count_recs(&ps, CHT_REC_SITE_TABLE), 1);
    const struct rec *st = find_rec(&ps, CHT_REC_SITE_TABLE, 0);
    assert_ptr_equal(st, late + 1);
    struct cht_rec_site_table sth;
    memcpy(&sth, st->p, sizeof(sth));
    assert_int_equal(sth.blob_size, tu3.size);
    assert_int_equal(sth.h.size, 16 + ((tu3.size + 7) & ~7u));
    assert_memory_equal(st->p + 16, tu3.bytes, tu3.size);

    /* events: every thread's in order, in several chunks; ignored ones absent */
    assert_int_equal(thread_of(&ps, 0), 0);
    int ta = thread_of(&ps, 1), tb = thread_of(&ps, 2);
    assert_true((ta == 1 && tb == 2) || (ta == 2 && tb == 1));
    assert_true(check_thread_events(&ps, 0, 0, 150) >= 1);
    assert_true(check_thread_events(&ps, (uint32_t)ta, 1, WORKER_EVENTS) >= 5);
    assert_true(check_thread_events(&ps, (uint32_t)tb, 2, WORKER_EVENTS) >= 5);
    for (size_t c = 0; c < ps.nchunks; c++)
        assert_true(ps.chunks[c].raw_size <= 64u << 10);
    assert_null(find_rec(&ps, CHT_REC_END, 0));
    parsed_free(&ps);
    free(path);
}

static void test_inproc_finish(void **state)
{
    struct parsed ps, meta;
    char *path = path_join(inproc_dir, "rank-00000.chtr");
    char *mpath = path_join(inproc_dir, CHT_META_FILE);
    (void)state;

    emit_range(0, 150, 160);
    assert_false(exists(mpath));
    rt_finish(7);
    parse_file(path, CHT_MAGIC_RANK, &ps, 0);
    /* the last chunk holds CHT_REC_END alone */
    const struct rec *end = &ps.recs[ps.nrecs - 1];
    assert_int_equal(end->h.type, CHT_REC_END);
    assert_int_equal(end->chunk, ps.nchunks - 1);
    assert_int_equal(ps.chunks[ps.nchunks - 1].raw_size, sizeof(struct cht_rec_end));
    struct cht_rec_end e;
    memcpy(&e, end->p, sizeof(e));
    assert_int_equal(e.records, ps.nrecs - 1);
    assert_int_equal(e.threads, 3);
    assert_int_equal(e.exit_status, 7);
    assert_true(e.t_end > 0);
    check_thread_events(&ps, 0, 0, 160);

    /* after the end nothing more is written */
    size_t size = ps.file_size;
    emit_range(0, 160, 5000);
    assert_int_equal(rt_flush_all(), RT_ERR_OFF); /* dropped */
    parsed_free(&ps);
    parse_file(path, CHT_MAGIC_RANK, &ps, 0);
    assert_int_equal(ps.file_size, size);
    parsed_free(&ps);

    /* never an MPI process, rank 0: the meta file has the program and the
     * three tables */
    parse_file(mpath, CHT_MAGIC_META, &meta, 0);
    assert_int_equal(meta.hdr.rank, -1);
    assert_int_equal(meta.hdr.world_size, 1);
    assert_int_equal(meta.hdr.features, CHT_FEAT_ZSTD | CHT_FEAT_SITES);
    assert_int_equal(meta.recs[0].h.type, CHT_REC_PROGRAM);
    assert_int_equal(count_recs(&meta, CHT_REC_SITE_TABLE), 3);
    const struct blob *want[3] = {&tu1, &tu2, &tu3};
    for (int i = 0; i < 3; i++) {
        const struct rec *st = find_rec(&meta, CHT_REC_SITE_TABLE, (size_t)i);
        assert_int_equal(((const struct cht_rec_site_table *)st->p)->blob_size, want[i]->size);
        assert_memory_equal(st->p + 16, want[i]->bytes, want[i]->size);
    }
    parsed_free(&meta);
    /* only the stream and the meta file (no temp files, no pending) */
    assert_int_equal(count_entries(inproc_dir), 2);
    rm_rf(inproc_tmp);
    free(path);
    free(mpath);
}

/* ---- child processes ------------------------------------------------------------- */

#define CHILD_EVENTS 5000u

static struct blob child_tu;

static void on_term(int sig)
{
    (void)sig;
    static const char msg[] = "program handler ran\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(42);
}

#define ZSTD_NOISE_EVENTS 120000

/* Emits n events that compress badly. */
static void emit_noise(uint32_t n)
{
    uint64_t x = 88172645463325252ull;
    for (uint32_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        __commhint_ev2(s0, (const void *)(uintptr_t)x, (const void *)(uintptr_t)(x * 31));
    }
}

#define REUSE_THREADS 30

struct job {
    int tid;
    uint32_t n;
};

static int jobs_started, jobs_done;

static void *job_run(void *arg)
{
    const struct job *j = arg;
    uint32_t first = j->n < 1000 ? j->n : 1000;
    emit_range(j->tid, 0, first);
    __atomic_fetch_add(&jobs_started, 1, __ATOMIC_RELEASE);
    emit_range(j->tid, first, j->n);
    __atomic_fetch_add(&jobs_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static int runs_child(const char *what);

static int child_main(const char *what)
{
    uint32_t sb, lb;
    const char *dir = getenv("COMMHINT_TRACE_DIR");

    if (!strncmp(what, "runs-", 5))
        return runs_child(what + 5);
    if (!strcmp(what, "term-chain"))
        signal(SIGTERM, on_term); /* installed before the runtime starts */
    make_blob(&child_tu, 3, 2, 0x4444);
    __commhint_register_tu(COMMHINT_RT_ABI_VERSION, child_tu.bytes, child_tu.size, &s0, &l0);
    if (s0 != 0 || l0 != 0)
        return 10;

    if (!strcmp(what, "exit") || !strcmp(what, "nompi")) {
        emit_range(0, 0, CHILD_EVENTS);
        return 0; /* the destructor finishes the trace */
    }
    if (!strcmp(what, "segv")) {
        emit_range(0, 0, CHILD_EVENTS);
        *(volatile int *)(uintptr_t)16 = 1;
        return 11;
    }
    if (!strcmp(what, "abort")) {
        emit_range(0, 0, CHILD_EVENTS);
        abort();
    }
    if (!strncmp(what, "runs-", 5))
        return runs_child(what + 5);
    if (!strcmp(what, "term-chain")) {
        emit_range(0, 0, CHILD_EVENTS);
        raise(SIGTERM);
        return 12;
    }
    if (!strcmp(what, "unwritable") || !strcmp(what, "disable")) {
        errno = 777;
        emit_range(0, 0, 20 * CHILD_EVENTS);
        if (errno != 777)
            return 13;
        if (rt_reserve(64) != NULL) /* the MPI wrappers get no space either */
            return 14;
        return 0;
    }
    if (!strcmp(what, "zstd-adapt")) {
        /* chunks that compress, then chunks that hardly do, then again
         * chunks that compress (test_zstd_adapt) */
        emit_range(0, 0, 40000);
        emit_noise(ZSTD_NOISE_EVENTS);
        emit_range(0, 40000, 400000);
        return 0;
    }
    if (!strcmp(what, "efbig")) {
        /* SIGXFSZ keeps its default action (kill): the runtime must not
         * let its own writes raise it */
        struct rlimit rl = {300000, 300000};
        if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
            return 15;
        errno = 778;
        emit_noise(400000);
        if (errno != 778)
            return 16;
        emit_noise(400000);
        return 0;
    }
    if (!strcmp(what, "reuse")) {
        /* short-lived threads one after the other: new indexes, reused buffers */
        emit_range(0, 0, 10);
        for (int k = 1; k <= REUSE_THREADS; k++) {
            pthread_t th;
            struct job j = {k, 100 + (uint32_t)k};
            if (pthread_create(&th, NULL, job_run, &j) != 0)
                return 21;
            pthread_join(th, NULL);
        }
        int nodes = 0;
        for (struct rt_thread *t = rt_g.threads; t; t = t->next)
            nodes++;
        return nodes <= 2 ? 0 : 22;
    }
    if (!strcmp(what, "concurrent") || !strcmp(what, "term-threads")) {
        /* owners write while other threads flush their buffers */
        pthread_t th[4];
        struct job j[4];
        int term = !strcmp(what, "term-threads");
        for (int k = 0; k < 4; k++) {
            j[k] = (struct job){k + 1, term ? 300000 : 100000};
            if (pthread_create(&th[k], NULL, job_run, &j[k]) != 0)
                return 23;
        }
        if (term) {
            struct timespec ts = {0, 2000000};
            while (__atomic_load_n(&jobs_started, __ATOMIC_ACQUIRE) < 4)
                sched_yield();
            nanosleep(&ts, NULL);
            kill(getpid(), SIGTERM); /* to whichever thread the kernel picks */
            for (;;)
                pause();
        }
        while (__atomic_load_n(&jobs_done, __ATOMIC_ACQUIRE) < 4) {
            if (rt_flush_all() != 0)
                return 24;
            rt_mpi_finalizing();
        }
        for (int k = 0; k < 4; k++)
            pthread_join(th[k], NULL);
        return 0;
    }
    if (!strcmp(what, "mpi") || !strcmp(what, "mpi0")) {
        int rank = !strcmp(what, "mpi") ? 2 : 0;
        char pending[PATH_MAX];
        snprintf(pending, sizeof(pending), "%s/pending-%d.chtr", dir, (int)getpid());
        emit_range(0, 0, CHILD_EVENTS); /* flushes before MPI_Init: provisional name */
        if (!exists(pending))
            return 17;
        void *p = rt_reserve(sizeof(struct cht_rec_lost));
        if (!p)
            return 18;
        struct cht_rec_lost lost = {{CHT_REC_LOST, 9, sizeof(lost)}, 12345};
        memcpy(p, &lost, sizeof(lost));
        rt_commit(sizeof(lost));
        rt_mpi_initialized(rank, 4, 0xabcdef);
        if (exists(pending))
            return 19;
        static struct blob late;
        make_blob(&late, 1, 1, 0x5555);
        __commhint_register_tu(COMMHINT_RT_ABI_VERSION, late.bytes, late.size, &sb, &lb);
        if (sb != 3)
            return 20;
        rt_record_clock(1, 2.5, NULL);
        rt_mpi_finalizing();
        return 0;
    }
    return 99;
}

struct child {
    int status;
    char *err; /* its stderr, malloc'd */
};

/* Runs this program as `test-recorder child <what>` with the given
 * environment changes ("NAME=value" sets, "NAME" unsets). */
static void run_child(const char *what, const char *const *env, const char *errfile, struct child *c)
{
    static const char *const clear[] = {
        "COMMHINT_TRACE_DIR",   "COMMHINT_DISABLE",     "PMI_RANK", "PMI_SIZE", "PMIX_RANK",
        "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
        /* this process traces itself (the in-process tests): its children
         * are traced processes of their own, not processes it started */
        "COMMHINT_TRACE_OWNER", "COMMHINT_ZSTD_LEVEL", NULL};
    char exe[PATH_MAX];
    size_t len;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1); /* valgrind-proof */
    assert_true(n > 0);
    exe[n] = '\0';
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        for (int i = 0; clear[i]; i++)
            unsetenv(clear[i]);
        setenv("COMMHINT_BUFFER_KB", "64", 1);
        setenv("COMMHINT_RUNS", "0", 1); /* these tests check records byte for byte */
        /* Under ASan (make SAN=1) the sanitizer's SIGSEGV, SIGBUS and SIGFPE
         * handlers would be the previous actions the runtime chains to, and
         * turn the deaths these tests check into a report and exit(1): the
         * children die as an uninstrumented program does. */
        const char *asan = getenv("ASAN_OPTIONS");
        char asan_opts[1024];
        snprintf(asan_opts, sizeof(asan_opts), "%s%shandle_segv=0:handle_sigbus=0:handle_sigfpe=0",
                 asan ? asan : "", asan && *asan ? ":" : "");
        setenv("ASAN_OPTIONS", asan_opts, 1);
        for (; env && *env; env++) {
            const char *eq = strchr(*env, '=');
            if (eq) {
                char name[64];
                snprintf(name, sizeof(name), "%.*s", (int)(eq - *env), *env);
                setenv(name, eq + 1, 1);
            } else {
                unsetenv(*env);
            }
        }
        int fd = open(errfile, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        dup2(fd, 2);
        execl(exe, "test-recorder", "child", what, (char *)NULL);
        _exit(127);
    }
    assert_int_equal(waitpid(pid, &c->status, 0), pid);
    c->err = (char *)read_all(errfile, &len);
    c->err[len] = '\0';
}

static char child_tmp[PATH_MAX];

static int child_setup(void **state)
{
    (void)state;
    strcpy(child_tmp, "/tmp/test-recorder-child-XXXXXX");
    return mkdtemp(child_tmp) ? 0 : -1;
}

static int child_teardown(void **state)
{
    (void)state;
    rm_rf(child_tmp);
    return 0;
}

/* Runs a child tracing into child_tmp/trace; returns that directory. */
static char *traced_child(const char *what, const char *rank, struct child *c)
{
    char *dir = path_join(child_tmp, "trace");
    char *err = path_join(child_tmp, "stderr");
    char *dir_env, *rank_env = NULL;
    assert_true(asprintf(&dir_env, "COMMHINT_TRACE_DIR=%s", dir) > 0);
    if (rank)
        assert_true(asprintf(&rank_env, "PMI_RANK=%s", rank) > 0);
    const char *env[] = {dir_env, rank ? "PMI_SIZE=4" : "PMI_SIZE", rank_env, NULL};
    run_child(what, env, err, c);
    free(dir_env);
    free(rank_env);
    free(err);
    return dir;
}

static void test_exit_writes_end(void **state)
{
    struct child c;
    struct parsed ps;
    (void)state;
    char *dir = traced_child("exit", "3", &c);
    char *path = path_join(dir, "rank-00003.chtr");

    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 0);
    assert_string_equal(c.err, "");
    parse_file(path, CHT_MAGIC_RANK, &ps, 0);
    assert_int_equal(ps.hdr.rank, 3);
    assert_int_equal(ps.hdr.world_size, 4);
    assert_int_equal(ps.hdr.features, CHT_FEAT_ZSTD | CHT_FEAT_SITES); /* one thread */
    check_thread_events(&ps, 0, 0, CHILD_EVENTS);
    struct cht_rec_end end = clean_end(&ps);
    assert_int_equal(ps.chunks[ps.nchunks - 1].raw_size, 32);
    assert_int_equal(end.threads, 1);
    assert_int_equal(end.exit_status, -1);
    /* rank 3 writes no meta file */
    assert_int_equal(count_entries(dir), 1);
    parsed_free(&ps);
    free(path);
    free(dir);
    free(c.err);
}

static void test_no_mpi_becomes_rank0(void **state)
{
    struct child c;
    struct parsed ps, meta;
    char exe[PATH_MAX];
    (void)state;
    char *dir = traced_child("nompi", NULL, &c);
    char *path = path_join(dir, "rank-00000.chtr");
    char *mpath = path_join(dir, CHT_META_FILE);

    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 0);
    parse_file(path, CHT_MAGIC_RANK, &ps, 0);
    assert_int_equal(ps.hdr.rank, 0);
    assert_int_equal(ps.hdr.world_size, 1);
    check_thread_events(&ps, 0, 0, CHILD_EVENTS);
    assert_int_equal(ps.recs[ps.nrecs - 1].h.type, CHT_REC_END);
    parsed_free(&ps);

    parse_file(mpath, CHT_MAGIC_META, &meta, 0);
    assert_int_equal(meta.hdr.world_size, 1);
    assert_int_equal(meta.hdr.run_id, 0);
    const struct rec *prog = find_rec(&meta, CHT_REC_PROGRAM, 0);
    assert_non_null(prog);
    struct cht_rec_program p;
    memcpy(&p, prog->p, sizeof(p));
    assert_int_equal(p.argc, 3);
    assert_int_equal(p.build_id_len, 20);
    assert_int_equal(p.world_size, 1);
    const char *s = (const char *)prog->p + sizeof(p) + p.build_id_len;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n] = '\0';
    assert_string_equal(s, exe); /* argv[0] "test-recorder" made absolute */
    s += strlen(s) + 1;
    assert_string_equal(s, "child");
    s += strlen(s) + 1;
    assert_string_equal(s, "nompi");
    assert_int_equal(p.strings_len, strlen(exe) + 1 + 6 + 6);
    const struct rec *st = find_rec(&meta, CHT_REC_SITE_TABLE, 0);
    assert_non_null(st);
    make_blob(&child_tu, 3, 2, 0x4444);
    assert_memory_equal(st->p + 16, child_tu.bytes, child_tu.size);
    assert_int_equal(count_entries(dir), 2);
    parsed_free(&meta);
    free(path);
    free(mpath);
    free(dir);
    free(c.err);
}

/* A fatal signal: everything recorded is on disk, no END, same death. */
static void check_killed(const char *what, int sig)
{
    struct child c;
    struct parsed ps;
    char *dir = traced_child(what, "0", &c);
    char *path = path_join(dir, "rank-00000.chtr");

    assert_true(WIFSIGNALED(c.status));
    assert_int_equal(WTERMSIG(c.status), sig);
    parse_file(path, CHT_MAGIC_RANK, &ps, 0);
    check_thread_events(&ps, 0, 0, CHILD_EVENTS);
    assert_null(find_rec(&ps, CHT_REC_END, 0));
    parsed_free(&ps);
    free(path);
    free(dir);
    free(c.err);
}

static void test_segv_flushes(void **state)
{
    (void)state;
    check_killed("segv", SIGSEGV);
}

static void test_abort_flushes(void **state)
{
    (void)state;
    check_killed("abort", SIGABRT);
}

static void test_signal_chains(void **state)
{
    struct child c;
    struct parsed ps;
    (void)state;
    char *dir = traced_child("term-chain", "0", &c);
    char *path = path_join(dir, "rank-00000.chtr");

    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 42); /* the program's handler ran */
    assert_string_equal(c.err, "program handler ran\n");
    parse_file(path, CHT_MAGIC_RANK, &ps, 0);
    check_thread_events(&ps, 0, 0, CHILD_EVENTS);
    assert_null(find_rec(&ps, CHT_REC_END, 0));
    parsed_free(&ps);
    free(path);
    free(dir);
    free(c.err);
}

static void test_unwritable_dir(void **state)
{
    struct child c;
    char *file = path_join(child_tmp, "afile");
    char *dir = path_join(file, "trace");
    char *err = path_join(child_tmp, "stderr");
    char *dir_env, *want;
    (void)state;

    fclose(fopen(file, "w"));
    assert_true(asprintf(&dir_env, "COMMHINT_TRACE_DIR=%s", dir) > 0);
    const char *env[] = {dir_env, "PMI_RANK=1", NULL};
    run_child("unwritable", env, err, &c);
    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 0);
    assert_true(asprintf(&want,
                         "commhint: cannot write trace, tracing stopped: file=%s "
                         "reason=Not a directory\n",
                         dir) > 0);
    assert_string_equal(c.err, want);              /* exactly one warning */
    assert_int_equal(count_entries(child_tmp), 2); /* afile and stderr: nothing created */
    free(want);
    free(dir_env);
    free(err);
    free(dir);
    free(file);
    free(c.err);
}

static void test_disable(void **state)
{
    struct child c;
    char *dir = path_join(child_tmp, "trace");
    char *err = path_join(child_tmp, "stderr");
    char *dir_env;
    (void)state;

    assert_true(asprintf(&dir_env, "COMMHINT_TRACE_DIR=%s", dir) > 0);
    const char *env[] = {dir_env, "PMI_RANK=0", "COMMHINT_DISABLE=1", NULL};
    run_child("disable", env, err, &c);
    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 0);
    assert_string_equal(c.err, "");
    assert_false(exists(dir));
    free(dir_env);
    free(err);
    free(dir);
    free(c.err);
}

static void test_write_error(void **state)
{
    struct child c;
    struct parsed ps;
    char *want;
    (void)state;
    char *dir = traced_child("efbig", "0", &c);
    char *path = path_join(dir, "rank-00000.chtr");

    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 0);
    assert_true(asprintf(&want,
                         "commhint: cannot write trace, tracing stopped: file=%s "
                         "reason=File too large\n",
                         path) > 0);
    assert_string_equal(c.err, want);
    /* what was written before the failure is a readable prefix */
    parse_file(path, CHT_MAGIC_RANK, &ps, 1);
    assert_true(ps.nchunks >= 2);
    assert_true(ps.file_size <= 300000);
    assert_null(find_rec(&ps, CHT_REC_END, 0));
    assert_int_equal(count_entries(dir), 1); /* no meta file after the failure */
    parsed_free(&ps);
    free(want);
    free(path);
    free(dir);
    free(c.err);
}

/* The chunks a thread's buffer filled (not the metadata's): those with events. */
static bool chunk_has_events(const struct parsed *ps, uint64_t seq)
{
    for (size_t i = 0; i < ps->nrecs; i++)
        if (ps->recs[i].chunk == seq && (is_event(&ps->recs[i]) || ps->recs[i].h.type == CHT_REC_PACK))
            return true;
    return false;
}

/* Without COMMHINT_ZSTD_LEVEL, a thread chunk that level 1 shrinks by less
 * than a quarter sends the next RT_ZSTD_FAST_CHUNKS to RT_ZSTD_FAST_LEVEL,
 * then one to level 1 again: the same program traced with
 * COMMHINT_ZSTD_LEVEL=1 gives the same chunks, records and, where level 1
 * was used, payload sizes; the fast chunks are the ones that rule picks
 * from the level-1 sizes, and they are larger. */
static void test_zstd_adapt(void **state)
{
    struct child c[2];
    struct parsed ps[2];
    char *dir_env, *dir[2], *err = path_join(child_tmp, "stderr");
    (void)state;

    for (int k = 0; k < 2; k++) {
        char name[16];
        snprintf(name, sizeof(name), "trace%d", k);
        dir[k] = path_join(child_tmp, name);
        assert_true(asprintf(&dir_env, "COMMHINT_TRACE_DIR=%s", dir[k]) > 0);
        /* packs (runs on): the noise's addresses as differences, which
         * level 1 hardly shrinks; no flusher, so that both runs cut the
         * same chunks */
        const char *env[] = {dir_env, "PMI_RANK=0", "COMMHINT_RUNS=1", "COMMHINT_FLUSH_MS=0",
                             k ? "COMMHINT_ZSTD_LEVEL=1" : "COMMHINT_ZSTD_LEVEL", NULL};
        run_child("zstd-adapt", env, err, &c[k]);
        assert_true(WIFEXITED(c[k].status));
        assert_int_equal(WEXITSTATUS(c[k].status), 0);
        assert_string_equal(c[k].err, "");
        char *path = path_join(dir[k], "rank-00000.chtr");
        parse_file(path, CHT_MAGIC_RANK, &ps[k], 0);
        free(path);
        free(dir_env);
    }
    assert_int_equal(ps[0].nchunks, ps[1].nchunks);
    assert_int_equal(ps[0].nrecs, ps[1].nrecs);
    for (size_t i = 0; i < ps[0].nrecs; i++) {
        assert_int_equal(ps[0].recs[i].h.type, ps[1].recs[i].h.type);
        assert_int_equal(ps[0].recs[i].h.size, ps[1].recs[i].h.size);
        if (is_event(&ps[0].recs[i]) || ps[0].recs[i].h.type == CHT_REC_PACK)
            assert_memory_equal(ps[0].recs[i].p, ps[1].recs[i].p, ps[0].recs[i].h.size);
    }
    uint32_t zfast = 0, nfast = 0, nslow_poor = 0, nthread = 0;
    for (size_t i = 0; i < ps[0].nchunks; i++) {
        const struct cht_chunk_header *a = &ps[0].chunks[i], *b = &ps[1].chunks[i];
        assert_int_equal(a->raw_size, b->raw_size);
        if (!chunk_has_events(&ps[1], b->seq))
            continue; /* metadata (its run id differs) */
        nthread++;
        bool poor = b->raw_size >= RT_ZSTD_JUDGE_MIN && 4 * (uint64_t)b->stored_size > 3 * (uint64_t)b->raw_size;
        if (zfast) {
            assert_true(a->stored_size > b->stored_size);
            nfast++;
            zfast--;
        } else {
            assert_int_equal(a->stored_size, b->stored_size);
            if (poor) {
                zfast = RT_ZSTD_FAST_CHUNKS;
                nslow_poor++;
            }
        }
    }
    /* the noise filled more than one fast stretch, looked again between
     * them, and the chunks after it went back to level 1 for good */
    assert_true(nfast >= RT_ZSTD_FAST_CHUNKS + 1);
    assert_true(nslow_poor >= 2);
    assert_true(nthread > nfast + nslow_poor + 2);
    assert_int_equal(zfast, 0);
    for (int k = 0; k < 2; k++) {
        parsed_free(&ps[k]);
        free(dir[k]);
        free(c[k].err);
    }
    free(err);
}

static void test_thread_reuse(void **state)
{
    struct child c;
    struct parsed ps;
    (void)state;
    char *dir = traced_child("reuse", "0", &c);
    char *path = path_join(dir, "rank-00000.chtr");

    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 0); /* 22: buffers were not reused */
    parse_file(path, CHT_MAGIC_RANK, &ps, 0);
    assert_int_equal(ps.hdr.features, CHT_FEAT_ZSTD | CHT_FEAT_SITES | CHT_FEAT_THREADS);
    check_thread_events(&ps, 0, 0, 10);
    for (int k = 1; k <= REUSE_THREADS; k++) {
        assert_int_equal(thread_of(&ps, k), k); /* a new index per thread */
        check_thread_events(&ps, (uint32_t)k, k, 100 + (uint32_t)k);
    }
    assert_int_equal(clean_end(&ps).threads, REUSE_THREADS + 1);
    parsed_free(&ps);
    free(path);
    free(dir);
    free(c.err);
}

static void test_concurrent_flush(void **state)
{
    struct child c;
    struct parsed ps;
    (void)state;
    char *dir = traced_child("concurrent", "0", &c);
    char *path = path_join(dir, "rank-00000.chtr");

    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 0);
    parse_file(path, CHT_MAGIC_RANK, &ps, 0);
    for (int k = 1; k <= 4; k++) {
        int t = thread_of(&ps, k);
        assert_true(t >= 0);
        check_thread_events(&ps, (uint32_t)t, k, 100000);
    }
    (void)clean_end(&ps);
    parsed_free(&ps);
    free(path);
    free(dir);
    free(c.err);
}

static void test_signal_while_threads_write(void **state)
{
    struct child c;
    struct parsed ps;
    (void)state;
    char *dir = traced_child("term-threads", "0", &c);
    char *path = path_join(dir, "rank-00000.chtr");

    assert_true(WIFSIGNALED(c.status));
    assert_int_equal(WTERMSIG(c.status), SIGTERM);
    parse_file(path, CHT_MAGIC_RANK, &ps, 0);
    /* each thread: a clean prefix of its events, complete records only */
    for (int k = 1; k <= 4; k++) {
        int t = thread_of(&ps, k);
        assert_true(t >= 0);
        uint32_t n = check_prefix(&ps, (uint32_t)t, k, NULL);
        assert_true(n > 0 && n <= 300000);
    }
    assert_null(find_rec(&ps, CHT_REC_END, 0));
    parsed_free(&ps);
    free(path);
    free(dir);
    free(c.err);
}

static void check_mpi(const char *what, int rank)
{
    struct child c;
    struct parsed ps;
    char name[32];
    (void)what;
    char *dir = traced_child(what, NULL, &c);
    snprintf(name, sizeof(name), CHT_RANK_FILE_FMT, rank);
    char *path = path_join(dir, name);
    char *mpath = path_join(dir, CHT_META_FILE);

    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 0);
    assert_string_equal(c.err, "");
    parse_file(path, CHT_MAGIC_RANK, &ps, 0);
    assert_int_equal(ps.hdr.rank, rank);
    assert_int_equal(ps.hdr.world_size, 4);
    assert_int_equal(ps.hdr.run_id, 0xabcdef);
    check_thread_events(&ps, 0, 0, CHILD_EVENTS);
    /* the record reserved by a "wrapper", the clock, the late TU with its
     * table, then the end */
    const struct rec *lost = find_rec(&ps, CHT_REC_LOST, 0);
    assert_non_null(lost);
    assert_int_equal(lost->h.aux, 9);
    assert_int_equal(((const struct cht_rec_lost *)lost->p)->records, 12345);
    const struct rec *clk = find_rec(&ps, CHT_REC_CLOCK, 0);
    assert_non_null(clk);
    assert_int_equal(clk->h.aux, 1);
    assert_true(((const struct cht_rec_clock *)clk->p)->wtime == 2.5);
    assert_int_equal(count_recs(&ps, CHT_REC_TU), 2);
    assert_int_equal(count_recs(&ps, CHT_REC_SITE_TABLE), 1);
    assert_int_equal(ps.recs[ps.nrecs - 1].h.type, CHT_REC_END);
    parsed_free(&ps);
    if (rank == 0) {
        struct parsed meta;
        parse_file(mpath, CHT_MAGIC_META, &meta, 0);
        assert_int_equal(meta.hdr.run_id, 0xabcdef);
        assert_int_equal(meta.hdr.world_size, 4);
        /* rewritten at exit: the late TU's table is there too */
        assert_int_equal(count_recs(&meta, CHT_REC_SITE_TABLE), 2);
        parsed_free(&meta);
        assert_int_equal(count_entries(dir), 2);
    } else {
        assert_int_equal(count_entries(dir), 1); /* renamed, no meta */
    }
    free(path);
    free(mpath);
    free(dir);
    free(c.err);
}

static void test_mpi_rank2(void **state)
{
    (void)state;
    check_mpi("mpi", 2);
}

static void test_mpi_rank0(void **state)
{
    (void)state;
    check_mpi("mpi0", 0);
}

/* ---- runs (CHT_REC_REPEAT): writer to reader round trips -------------------------- */

/* Sites 0..7 have i + 1 accesses, site 8 has RUNS_BIG (too many to repeat);
 * 8 loops. */
#define RUNS_SITES 9u
#define RUNS_LOOPS 8u
#define RUNS_BIG 10u

static void make_runs_blob(struct blob *b)
{
    static const char strings[] = "\0r.c\0f";
    struct cht_tu_header h = {0};
    uint32_t off = sizeof(h), first = 0;

    memset(b, 0, sizeof(*b));
    h.magic = CHT_TU_MAGIC;
    h.version = CHT_TU_VERSION;
    h.header_size = sizeof(h);
    h.tu_key = 0x7777;
    h.nsites = RUNS_SITES;
    h.nloops = RUNS_LOOPS;
    h.sites_off = off;
    for (uint32_t i = 0; i < RUNS_SITES; i++) {
        uint32_t n = i < 8 ? i + 1 : RUNS_BIG;
        struct cht_site s = {1, 5, 10 + i, 1, CHT_SITE_COMP, CHT_SOP_ADD, CHT_NONE, 0, first, n};
        memcpy(b->bytes + off, &s, sizeof(s));
        off += sizeof(s);
        first += n;
    }
    h.naccess = first;
    h.loops_off = off;
    for (uint32_t i = 0; i < RUNS_LOOPS; i++) {
        struct cht_loop l = {1, 5, 40 + i, 1, 1, CHT_NONE, 0};
        memcpy(b->bytes + off, &l, sizeof(l));
        off += sizeof(l);
    }
    h.access_off = off;
    for (uint32_t i = 0; i < first; i++) {
        struct cht_access a = {8, i % 2 ? CHT_ACCESS_WRITE : CHT_ACCESS_READ};
        memcpy(b->bytes + off, &a, sizeof(a));
        off += sizeof(a);
    }
    h.strings_off = off;
    h.strings_size = sizeof(strings);
    memcpy(b->bytes + off, strings, sizeof(strings));
    off += sizeof(strings);
    h.total_size = off;
    memcpy(b->bytes, &h, sizeof(h));
    b->size = off;
}

/* OP_AFFINE: a loop recorded at its exit (commhint-rt.h), its frame linked
 * and __commhint_loop_affine called as the pass's code does it (with
 * irregular addresses: each iteration stores them into the buffer, and
 * calls __commhint_loop_flush when it filled the buffer); OP_OPEN: the
 * same loop interrupted (by a fault) after `done` iterations. */
enum run_op_kind { OP_COMP, OP_LOOP, OP_MEMSET, OP_CLOCK, OP_FLUSH, OP_AFFINE, OP_OPEN };

struct run_affine {
    uint64_t desc[1 + 4 + 16]; /* loop | sites << 32, site | n << 32 each, the steps */
    uint64_t starts[16];
    uint64_t trips, done;
    int irr_kind; /* of the irregular addresses (steps COMMHINT_RT_IRREGULAR): IRR_* */
};

/* Irregular addresses: random over 800 KB (a sparse product's x[col[j]]),
 * strided after all (x[idx[i]] with idx[i] = 3 i), or jumping by 2^40 (no
 * 32-bit difference). */
enum { IRR_RANDOM, IRR_STRIDED, IRR_FAR };

/* Irregular address k (its index over all the sites) of iteration it. */
static uint64_t affine_irr_addr(const struct run_affine *f, uint32_t k, uint64_t it)
{
    uint64_t h = (it + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)k << 50;
    uint64_t base = (1ull << 44) + ((uint64_t)k << 30);
    switch (f->irr_kind) {
    case IRR_STRIDED: return base + 24 * it;
    case IRR_FAR: return base + (it % 2) * (1ull << 40) + 8 * it;
    default: return base + 8 * ((h >> 20) % 100000);
    }
}

/* Address k (over all the sites) of iteration it of a loop recorded at its
 * exit. */
static uint64_t affine_addr(const struct run_affine *f, uint32_t k, uint64_t it)
{
    uint32_t nsites = (uint32_t)(f->desc[0] >> 32);
    int64_t step = (int64_t)f->desc[1 + nsites + k];
    if (step == COMMHINT_RT_IRREGULAR)
        return affine_irr_addr(f, k, it);
    return f->starts[k] + it * (uint64_t)step;
}

struct run_op {
    int kind;
    uint32_t id;   /* site or loop */
    uint32_t n;    /* addresses */
    uint16_t lk;   /* loop kind */
    uint64_t a[RUNS_BIG];
    const struct run_affine *aff; /* OP_AFFINE */
};

typedef void (*run_op_fn)(const struct run_op *o, void *ctx);

static uint64_t rnd_next(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* One record of a period: shape, base addresses and strides (bytes). */
struct run_pos {
    int kind;
    uint32_t id, n;
    uint16_t lk;
    uint64_t base[8];
    int64_t stride[8];
};

/* A random record shape; ENTER is left out so that loop stacks stay shallow. */
static void rnd_pos(uint64_t *x, struct run_pos *p)
{
    memset(p, 0, sizeof(*p));
    if (rnd_next(x) % 5 == 0) {
        p->kind = OP_LOOP;
        p->id = (uint32_t)(rnd_next(x) % RUNS_LOOPS);
        p->lk = rnd_next(x) % 4 ? CHT_LOOP_ITER : CHT_LOOP_EXIT;
        return;
    }
    p->kind = OP_COMP;
    p->id = (uint32_t)(rnd_next(x) % 8);
    p->n = p->id + 1;
    for (uint32_t k = 0; k < p->n; k++) {
        p->base[k] = rnd_next(x) & ~(uint64_t)7;
        p->stride[k] = ((int64_t)(rnd_next(x) % 65) - 32) * 8; /* negative and zero too */
    }
}

/* Emits reps periods of the pattern; jitter: one slot in four periods gets
 * an irregular address. */
static void run_pattern(const struct run_pos *pat, uint32_t period, uint32_t reps, int jitter, uint64_t *x,
                        run_op_fn fn, void *ctx)
{
    for (uint32_t it = 0; it < reps; it++)
        for (uint32_t j = 0; j < period; j++) {
            struct run_op o = {.kind = pat[j].kind, .id = pat[j].id, .n = pat[j].n, .lk = pat[j].lk};
            for (uint32_t k = 0; k < o.n; k++)
                o.a[k] = pat[j].base[k] + (uint64_t)pat[j].stride[k] * it;
            if (jitter && o.n && rnd_next(x) % 4 == 0)
                o.a[rnd_next(x) % o.n] += 8 * (1 + rnd_next(x) % 5);
            fn(&o, ctx);
        }
}

static int runs_segv; /* the child ends in a fault (RUNS_TEST_SEGV) */

enum run_case {
    RC_MIXED,
    RC_LONG,
    RC_P17,
    RC_PERIODS,
    RC_THREADS,
    RC_OPEN,
    RC_IRREGULAR,
    RC_AFFINE,
    RC_AFFINE_OPEN_IRR
};

/* Sets *f to loop `loop` with sites (id, n) taken from ids/ns, every
 * address from base + 4096 * k moving by stride * (k + 1) (k: its index
 * over all the sites), `trips` iterations. */
static void affine_make(struct run_affine *f, uint32_t loop, uint32_t nsites, const uint32_t *ids,
                        const uint32_t *ns, uint64_t base, int64_t stride, uint64_t trips)
{
    uint32_t k = 0;
    memset(f, 0, sizeof(*f));
    f->desc[0] = loop | (uint64_t)nsites << 32;
    for (uint32_t j = 0; j < nsites; j++) {
        f->desc[1 + j] = ids[j] | (uint64_t)ns[j] << 32;
        for (uint32_t i = 0; i < ns[j]; i++, k++)
            f->starts[k] = base + 4096 * k;
    }
    for (uint32_t i = 0; i < k; i++)
        f->desc[1 + nsites + i] = (uint64_t)(stride * (int64_t)(i + 1));
    f->trips = f->done = trips;
}

/* The same loop with address k of every mask bit irregular, of kind kind. */
static void affine_make_irr(struct run_affine *f, uint32_t loop, uint32_t nsites, const uint32_t *ids,
                            const uint32_t *ns, uint64_t base, int64_t stride, uint64_t trips, uint32_t mask,
                            int kind)
{
    affine_make(f, loop, nsites, ids, ns, base, stride, trips);
    for (uint32_t k = 0; k < 16; k++)
        if (mask >> k & 1) {
            f->desc[1 + nsites + k] = (uint64_t)COMMHINT_RT_IRREGULAR;
            f->starts[k] = 0;
        }
    f->irr_kind = kind;
}

/* The op sequence of one case (seed: per thread). */
static void run_gen(int which, uint64_t seed, run_op_fn fn, void *ctx)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    struct run_pos pat[17];
    struct run_op o;

    switch (which) {
    case RC_MIXED:
    case RC_THREADS:
        for (int blk = 0; blk < 300; blk++) {
            uint32_t period = 1 + (uint32_t)(rnd_next(&x) % 17);
            for (uint32_t j = 0; j < period; j++)
                rnd_pos(&x, &pat[j]);
            run_pattern(pat, period, 1 + (uint32_t)(rnd_next(&x) % 150), rnd_next(&x) % 4 == 0, &x, fn, ctx);
            memset(&o, 0, sizeof(o));
            switch (rnd_next(&x) % 10) {
            case 0: o.kind = OP_CLOCK; fn(&o, ctx); break;  /* like an MPI record */
            case 1: o.kind = OP_FLUSH; fn(&o, ctx); break;  /* a buffer flush */
            case 2: o.kind = OP_MEMSET, o.id = 0, o.a[0] = rnd_next(&x); fn(&o, ctx); break;
            case 3: /* too many addresses to repeat: empties the history */
                o.kind = OP_COMP, o.id = 8, o.n = RUNS_BIG;
                for (uint32_t k = 0; k < RUNS_BIG; k++)
                    o.a[k] = 8 * k;
                fn(&o, ctx);
                break;
            }
        }
        break;
    case RC_LONG: /* beyond the largest count, twice */
    case RC_OPEN: /* (shorter) left open: the thread then waits for the process to exit */
        memset(pat, 0, 3 * sizeof(pat[0]));
        pat[0].kind = OP_LOOP, pat[0].id = 0, pat[0].lk = CHT_LOOP_ITER;
        pat[1].kind = OP_COMP, pat[1].id = 1, pat[1].n = 2, pat[1].base[0] = 1u << 20, pat[1].stride[0] = 8;
        pat[1].base[1] = 1u << 30, pat[1].stride[1] = -8;
        pat[2].kind = OP_COMP, pat[2].id = 0, pat[2].n = 1, pat[2].base[0] = 4096, pat[2].stride[0] = 16;
        run_pattern(pat, 3, which == RC_LONG ? 2 * CHT_REPEAT_COUNT_MAX / 3 + 1000 : 5000, 0, &x, fn, ctx);
        break;
    case RC_P17: /* 17 shapes that all differ: no period of 16 or less fits */
        for (uint32_t j = 0; j < 17; j++) {
            memset(&pat[j], 0, sizeof(pat[j]));
            if (j < 8) {
                pat[j].kind = OP_COMP, pat[j].id = j, pat[j].n = j + 1;
                for (uint32_t k = 0; k < pat[j].n; k++)
                    pat[j].base[k] = 1000000 * (j + 1) + 64 * k, pat[j].stride[k] = 8;
            } else {
                pat[j].kind = OP_LOOP, pat[j].id = (j - 8) % RUNS_LOOPS;
                pat[j].lk = j == 16 ? CHT_LOOP_EXIT : CHT_LOOP_ITER;
            }
        }
        run_pattern(pat, 17, 300, 0, &x, fn, ctx);
        break;
    case RC_IRREGULAR: /* gathers: x[col[j]] in loops of varying trip counts, a far
                        * address now and then (no column entry), flushes */
        for (int row = 0; row < 400; row++) {
            uint32_t len = 1 + (uint32_t)(rnd_next(&x) % 200);
            memset(&o, 0, sizeof(o));
            o.kind = OP_COMP, o.id = 0, o.n = 1, o.a[0] = 4096 + 8 * (uint64_t)row;
            fn(&o, ctx);
            for (uint32_t j = 0; j < len; j++) {
                memset(&o, 0, sizeof(o));
                o.kind = OP_LOOP, o.id = 0, o.lk = CHT_LOOP_ITER;
                fn(&o, ctx);
                o.kind = OP_COMP, o.id = 2, o.n = 3;
                o.a[0] = (1u << 20) + 8 * (uint64_t)j;                     /* val[j] */
                o.a[1] = (1u << 24) + 4 * (uint64_t)j;                     /* col[j] */
                o.a[2] = (1ull << 32) + 8 * (rnd_next(&x) % 400000);       /* x[col[j]] */
                if (rnd_next(&x) % 500 == 0)
                    o.a[2] += 1ull << 40; /* farther than a column entry reaches */
                if (rnd_next(&x) % 7 == 0) { /* a second irregular address */
                    o.kind = OP_COMP, o.id = 3, o.n = 4;
                    o.a[3] = (1ull << 36) + 8 * (rnd_next(&x) % 1000);
                }
                fn(&o, ctx);
            }
            memset(&o, 0, sizeof(o));
            o.kind = OP_LOOP, o.id = 0, o.lk = CHT_LOOP_EXIT;
            fn(&o, ctx);
            if (row % 97 == 0) {
                o.kind = OP_FLUSH;
                fn(&o, ctx);
            }
        }
        break;
    case RC_AFFINE: { /* loops recorded at their exits */
        static struct run_affine f[4];
        static const uint32_t ids[] = {1, 0, 3, 2}, ns[] = {2, 1, 4, 3};
        static const uint64_t trips[] = {1, 2, 3, 4, 5, 9, 1000, 3, 2, 1};
        /* alone, with a zero and a negative step, every short count */
        for (size_t i = 0; i < sizeof(trips) / sizeof(trips[0]); i++) {
            affine_make(&f[0], 0, 2, ids, ns, 1u << 20, i % 2 ? -8 : 0, trips[i]);
            memset(&o, 0, sizeof(o));
            o.kind = OP_AFFINE, o.aff = &f[0];
            fn(&o, ctx);
            memset(&o, 0, sizeof(o));
            o.kind = OP_LOOP, o.id = 0, o.lk = CHT_LOOP_EXIT;
            fn(&o, ctx);
        }
        /* three iterations inside a longer strided period: the run of the
         * outer loop takes them as the inlined code would */
        for (uint32_t r = 0; r < 3000; r++) {
            affine_make(&f[1], 1, 1, ids + 2, ns + 2, (1u << 24) + 64 * (uint64_t)r, 8, 3);
            memset(&o, 0, sizeof(o));
            o.kind = OP_COMP, o.id = 2, o.n = 3;
            for (uint32_t k = 0; k < 3; k++)
                o.a[k] = (1ull << 32) + 4096 * k + 8 * (uint64_t)r;
            fn(&o, ctx);
            memset(&o, 0, sizeof(o));
            o.kind = OP_AFFINE, o.aff = &f[1];
            fn(&o, ctx);
            memset(&o, 0, sizeof(o));
            o.kind = OP_LOOP, o.id = 1, o.lk = CHT_LOOP_EXIT;
            fn(&o, ctx);
            if (r % 1000 == 999) { /* between irregular records (queued) */
                for (uint32_t j = 0; j < 50; j++) {
                    o.kind = OP_COMP, o.id = 0, o.n = 1, o.a[0] = 8 * (rnd_next(&x) % 100000);
                    fn(&o, ctx);
                }
            }
        }
        /* more than a run's count, in one loop of four sites and in one of one */
        affine_make(&f[2], 2, 4, ids, ns, 1ull << 36, 16, CHT_REPEAT_COUNT_MAX / 2);
        memset(&o, 0, sizeof(o));
        o.kind = OP_AFFINE, o.aff = &f[2];
        fn(&o, ctx);
        affine_make(&f[3], 3, 1, ids + 1, ns + 1, 1ull << 40, 8, 3 * (uint64_t)CHT_REPEAT_COUNT_MAX / 2);
        o.aff = &f[3];
        fn(&o, ctx);
        /* irregular addresses: rows of a sparse product (every length
         * around a buffer's 128), one site of two irregular addresses
         * among four, strided after all, too far apart for a column; and
         * between them records that the outer loop makes */
        {
            static const uint64_t rows[] = {1, 2, 3, 5, 8, 9, 127, 128, 129, 256, 300, 1000, 8, 8, 8};
            static const uint32_t ids2[] = {0, 2}, ns2[] = {1, 3};
            for (int kind = IRR_RANDOM; kind <= IRR_FAR; kind++)
                for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
                    affine_make_irr(&f[1], 5, 2, ids2, ns2, 1ull << 38, 8, rows[i], i % 3 ? 0x2 : 0xa, kind);
                    memset(&o, 0, sizeof(o));
                    o.kind = OP_COMP, o.id = 1, o.n = 2;
                    o.a[0] = (1ull << 33) + 8 * i, o.a[1] = (1ull << 34) + 8 * i;
                    fn(&o, ctx);
                    o.kind = OP_AFFINE, o.aff = &f[1];
                    fn(&o, ctx);
                    memset(&o, 0, sizeof(o));
                    o.kind = OP_LOOP, o.id = 5, o.lk = CHT_LOOP_EXIT;
                    fn(&o, ctx);
                }
            /* long rows, past a column's room */
            affine_make_irr(&f[1], 5, 2, ids2, ns2, 1ull << 38, 8, 30000, 0x2, IRR_RANDOM);
            o.kind = OP_AFFINE, o.aff = &f[1];
            fn(&o, ctx);
        }
        if (runs_segv) { /* the fault comes in a loop 1.5 runs' count long */
            affine_make(&f[3], 4, 1, ids + 1, ns + 1, 1ull << 41, -8, 2 * (uint64_t)CHT_REPEAT_COUNT_MAX);
            f[3].done = 3 * (uint64_t)CHT_REPEAT_COUNT_MAX / 4;
            o.kind = OP_OPEN, o.aff = &f[3];
            fn(&o, ctx);
        }
        break;
    }
    case RC_AFFINE_OPEN_IRR: { /* a fault in a loop with an irregular address, 200 iterations done */
        static struct run_affine f;
        static const uint32_t ids2[] = {0, 2}, ns2[] = {1, 3};
        affine_make_irr(&f, 5, 2, ids2, ns2, 1ull << 38, 8, 1000, 0x2, IRR_RANDOM);
        f.done = 200;
        memset(&o, 0, sizeof(o));
        for (uint32_t k = 0; k < 20; k++) { /* before it, records the queue takes */
            o.kind = OP_COMP, o.id = 0, o.n = 1, o.a[0] = 8 * (rnd_next(&x) % 100000);
            fn(&o, ctx);
        }
        o.kind = OP_OPEN, o.aff = &f;
        fn(&o, ctx);
        break;
    }
    case RC_PERIODS: /* every period, each followed by a record that ends it */
        for (uint32_t period = 1; period <= 16; period++) {
            for (uint32_t j = 0; j < period; j++) {
                rnd_pos(&x, &pat[j]);
                if (pat[j].kind == OP_LOOP) /* keep it a COMP so that no shorter period fits */
                    pat[j].kind = OP_COMP, pat[j].id = j % 8, pat[j].n = pat[j].id + 1;
                for (uint32_t k = 0; k < pat[j].n; k++)
                    pat[j].base[k] = rnd_next(&x) & ~(uint64_t)7, pat[j].stride[k] = 8 * (int64_t)(k + 1);
            }
            run_pattern(pat, period, 100, 0, &x, fn, ctx);
            memset(&o, 0, sizeof(o));
            o.kind = OP_CLOCK;
            fn(&o, ctx);
        }
        break;
    }
}

/* RUNS_TEST_INLINE set: the child does what the pass's inlined code does
 * (commhint-rt.h) before each call of __commhint_ev1..4 and loop_*: the
 * record is absorbed by the run, or queued if there is room, and only
 * otherwise is the call made.  Records queued, in the child. */
static int runs_inline;
static __thread uint64_t runs_queued;

/* 1 if the inlined code would have taken the record without the call. */
static int inline_take(uint64_t key, uint32_t n, const uint64_t *a)
{
    struct commhint_rt_fast *f = &__commhint_fast;
    struct commhint_rt_slot *s = &f->slot[f->phase];
    int same = s->key == key && f->left != 0;
    uint64_t *q = f->qpos;

    for (uint32_t k = 0; k < n; k++)
        same &= s->next[k] == a[k];
    if (same) {
        for (uint32_t k = 0; k < n; k++)
            s->next[k] = a[k] + (uint64_t)s->stride[k];
        f->phase = f->phase + 1 == f->period ? 0 : f->phase + 1;
        f->left--;
        return 1;
    }
    if ((uintptr_t)q + 8 * (1 + n) > (uintptr_t)f->qend)
        return 0;
    for (uint32_t k = 0; k < n; k++)
        q[1 + k] = a[k];
    q[0] = key;
    __atomic_signal_fence(__ATOMIC_RELEASE);
    f->qpos = q + 1 + n;
    runs_queued++;
    return 1;
}

/* Child side: does what an op says. */
static void run_emit(const struct run_op *o, void *ctx)
{
    const void *a[RUNS_BIG];
    (void)ctx;
    for (uint32_t k = 0; k < o->n; k++)
        a[k] = (const void *)(uintptr_t)o->a[k];
    if (runs_inline && ((o->kind == OP_COMP && o->n <= COMMHINT_RT_FAST_ADDRS) || o->kind == OP_LOOP) &&
        inline_take(o->kind == OP_COMP ? RT_RUN_KEY(CHT_REC_COMP, o->n, o->id) : RT_RUN_KEY(CHT_REC_LOOP, o->lk, o->id),
                    o->kind == OP_COMP ? o->n : 0, o->a))
        return;
    switch (o->kind) {
    case OP_COMP:
        switch (o->n) {
        case 1: __commhint_ev1(o->id, a[0]); break;
        case 2: __commhint_ev2(o->id, a[0], a[1]); break;
        case 3: __commhint_ev3(o->id, a[0], a[1], a[2]); break;
        case 4: __commhint_ev4(o->id, a[0], a[1], a[2], a[3]); break;
        default: __commhint_evn(o->id, o->n, a); break;
        }
        break;
    case OP_LOOP:
        if (o->lk == CHT_LOOP_ITER)
            __commhint_loop_iter(o->id);
        else
            __commhint_loop_exit(o->id);
        break;
    case OP_MEMSET: __commhint_memset(o->id, (const void *)(uintptr_t)o->a[0], 64); break;
    case OP_AFFINE:
    case OP_OPEN: {
        static __thread uint64_t fm[sizeof(struct commhint_rt_loop_frame) / 8 + 16];
        static __thread uint64_t buf[COMMHINT_RT_LOOP_BUF * COMMHINT_RT_LOOP_IRR];
        struct commhint_rt_loop_frame *fr = (struct commhint_rt_loop_frame *)fm;
        uint32_t nsites = (uint32_t)(o->aff->desc[0] >> 32), na = 0, irr[COMMHINT_RT_LOOP_IRR], nirr = 0;
        for (uint32_t j = 0; j < nsites; j++)
            na += (uint32_t)(o->aff->desc[1 + j] >> 32);
        for (uint32_t k = 0; k < na; k++)
            if ((int64_t)o->aff->desc[1 + nsites + k] == COMMHINT_RT_IRREGULAR)
                irr[nirr++] = k;
        fr->desc = o->aff->desc;
        fr->loop_base = fr->site_base = 0;
        fr->done = fr->made = 0;
        fr->irr = nirr ? buf : NULL;
        memcpy(fr->starts, o->aff->starts, sizeof(o->aff->starts));
        fr->prev = __commhint_fast.loop;
        __atomic_signal_fence(__ATOMIC_RELEASE);
        __commhint_fast.loop = fr;
        if (!nirr) {
            fr->done = o->aff->done;
        } else { /* as the pass's code: the addresses, the count, the flush */
            for (uint64_t it = 0; it < o->aff->done; it++) {
                for (uint32_t q = 0; q < nirr; q++)
                    ((volatile uint64_t *)buf)[(it % COMMHINT_RT_LOOP_BUF) * nirr + q] =
                        affine_irr_addr(o->aff, irr[q], it);
                ((volatile struct commhint_rt_loop_frame *)fr)->done = it + 1;
                if (it % COMMHINT_RT_LOOP_BUF == COMMHINT_RT_LOOP_BUF - 1)
                    __commhint_loop_flush(fr);
            }
        }
        if (o->kind == OP_AFFINE)
            __commhint_loop_affine(fr, o->aff->trips);
        break;
    }
    case OP_CLOCK: rt_record_clock(0, 1.0, NULL); break;
    case OP_FLUSH: rt_flush_all(); break;
    }
}

static void *run_thread(void *arg)
{
    run_gen(RC_THREADS, (uint64_t)(uintptr_t)arg, run_emit, NULL);
    return NULL;
}

static sem_t open_waiting;

/* RC_OPEN: its records, then a wait that lasts until the process exits. */
static void *open_thread(void *arg)
{
    run_gen(RC_OPEN, (uint64_t)(uintptr_t)arg, run_emit, NULL);
    sem_post(&open_waiting);
    for (;;)
        pause();
    return NULL;
}

static int runs_child(const char *what)
{
    static struct blob b;
    uint32_t sb, lb;
    int which = atoi(what);

    make_runs_blob(&b);
    __commhint_register_tu(COMMHINT_RT_ABI_VERSION, b.bytes, b.size, &sb, &lb);
    if (sb != 0 || lb != 0)
        return 10;
    runs_inline = getenv("RUNS_TEST_INLINE") != NULL;
    runs_segv = getenv("RUNS_TEST_SEGV") != NULL;
    if (runs_segv) {
        /* the records, then a fault: the handler writes what is queued
         * (the metadata first, as MPI_Init would: a fault writes none) */
        __commhint_ev1(0, (const void *)8);
        if (rt_meta_file_write() < 0)
            return 14;
        run_gen(which, 1, run_emit, NULL);
        if (runs_inline && !runs_queued)
            return 12;
        *(volatile int *)(uintptr_t)16 = 1;
        return 13;
    }
    if (which == RC_THREADS) {
        pthread_t th;
        __commhint_ev1(0, (const void *)8); /* the main thread is writer thread 0 */
        if (pthread_create(&th, NULL, run_thread, (void *)(uintptr_t)2))
            return 11;
        run_gen(RC_THREADS, 1, run_emit, NULL);
        pthread_join(th, NULL);
        return 0;
    }
    if (which == RC_OPEN) {
        pthread_t th;
        __commhint_ev1(0, (const void *)8); /* the main thread is writer thread 0 */
        if (sem_init(&open_waiting, 0, 0) || pthread_create(&th, NULL, open_thread, (void *)(uintptr_t)2) ||
            pthread_detach(th))
            return 11;
        while (sem_wait(&open_waiting) != 0)
            ;
        return 0; /* the other thread's run is still open at exit */
    }
    run_gen(which, 1, run_emit, NULL);
    if (runs_inline && !runs_queued)
        return 12; /* the queue was never used */
    return 0; /* the destructor finishes the trace */
}

/* Parent side: the next event of the thread must be what the op made. */
struct run_cmp {
    struct trace_cursor *cur;
    uint32_t thread;
    uint64_t ops, comp; /* ops compared, COMP events among them */
    int check_index;
    int in_affine; /* comparing the records of an OP_AFFINE: no time stamps */
};

static void run_check(const struct run_op *o, void *vctx);

/* The records a loop recorded at its exit stands for, one by one. */
static void run_check_affine(const struct run_affine *f, struct run_cmp *c)
{
    uint32_t nsites = (uint32_t)(f->desc[0] >> 32);
    struct run_op o;
    c->in_affine = 1;
    for (uint64_t it = 0; it < f->done; it++) {
        uint32_t k = 0;
        memset(&o, 0, sizeof(o));
        o.kind = OP_LOOP, o.id = (uint32_t)f->desc[0], o.lk = CHT_LOOP_ITER;
        run_check(&o, c);
        for (uint32_t j = 0; j < nsites; j++) {
            o.kind = OP_COMP, o.id = (uint32_t)f->desc[1 + j], o.n = (uint32_t)(f->desc[1 + j] >> 32);
            for (uint32_t i = 0; i < o.n; i++, k++)
                o.a[i] = affine_addr(f, k, it);
            run_check(&o, c);
        }
    }
    c->in_affine = 0;
}

static void run_check(const struct run_op *o, void *vctx)
{
    struct run_cmp *c = vctx;
    const struct trace_event *ev;
    int rc;

    if (o->kind == OP_CLOCK || o->kind == OP_FLUSH)
        return;
    if (o->kind == OP_AFFINE || o->kind == OP_OPEN) {
        run_check_affine(o->aff, c);
        return;
    }
    do {
        rc = trace_cursor_next(c->cur, &ev);
        if (rc != 1)
            fail_msg("op=%" PRIu64 ": cursor returned %d: %s", c->ops, rc, trace_cursor_error(c->cur));
    } while (ev->thread != c->thread);
    if (o->kind == OP_LOOP) {
        if (ev->kind != TRACE_EV_LOOP || ev->loop != o->id || ev->loop_kind != o->lk)
            fail_msg("op=%" PRIu64 ": expected loop=%u kind=%u, got kind=%d loop=%u", c->ops, o->id, o->lk,
                     ev->kind, ev->loop);
    } else {
        uint32_t n = o->kind == OP_MEMSET ? 1 : o->n;
        if (ev->kind != TRACE_EV_COMP || ev->site != o->id || ev->nranges != n)
            fail_msg("op=%" PRIu64 ": expected site=%u n=%u, got kind=%d site=%u n=%u", c->ops, o->id, n, ev->kind,
                     ev->site, ev->nranges);
        for (uint32_t k = 0; k < n; k++)
            if (ev->ranges[k].addr != o->a[k])
                fail_msg("op=%" PRIu64 " address %u: expected 0x%" PRIx64 " got 0x%" PRIx64, c->ops, k, o->a[k],
                         ev->ranges[k].addr);
        if (c->in_affine && ev->stamp != 0)
            fail_msg("op=%" PRIu64 ": a record of a loop recorded at its exit has a time stamp", c->ops);
        if (c->check_index && ev->index != c->comp)
            fail_msg("op=%" PRIu64 ": index=%" PRIu64 " expected %" PRIu64, c->ops, ev->index, c->comp);
        c->comp++;
    }
    c->ops++;
}

static uint64_t runs_seen; /* runs the last round trip's trace came in */

/* Reads rank 0 twice, expanded and with runs (`flags`: TRACE_CURSOR_RUNS,
 * perhaps with TRACE_CURSOR_ROWS; each run expanded with trace_run_event),
 * and checks that the events and the final statistics are the same;
 * returns the number of runs seen (*nrows: of them runs of rows). */
static uint64_t runs_cursor_same_flags(struct trace *t, unsigned flags, uint64_t *nrows)
{
    struct trace_cursor *a, *b;
    struct trace_err err;
    const struct trace_event *ea, *eb;
    const struct trace_run *run = NULL;
    struct trace_event mat;
    struct trace_range rg[CHT_REPEAT_MAX_ADDRS];
    static struct trace_iter it[TRACE_MAX_LOOP_DEPTH];
    uint64_t t_in = 0, nruns = 0, n = 0;
    int ra, rb = 0;

    *nrows = 0;
    if (trace_cursor_open(t, 0, 0, &a, &err) != 0 || trace_cursor_open(t, 0, flags, &b, &err) != 0)
        fail_msg("trace_cursor_open: %s", err.msg);
    for (;;) {
        ra = trace_cursor_next(a, &ea);
        if (run && t_in < trace_run_events(run)) {
            trace_run_event(run, t_in++, &mat, rg, it);
            eb = &mat;
            rb = 1;
        } else {
            run = NULL;
            rb = trace_cursor_next_run(b, &eb, &run);
            if (rb == 2) {
                nruns++;
                *nrows += run->rows != NULL;
                t_in = 0;
                trace_run_event(run, t_in++, &mat, rg, it);
                eb = &mat;
                rb = 1;
            }
        }
        if (ra != rb)
            fail_msg("event %" PRIu64 ": expanded cursor returned %d, with runs %d", n, ra, rb);
        if (ra != 1)
            break;
        if (ea->kind != eb->kind || ea->index != eb->index || ea->thread != eb->thread ||
            ea->site != eb->site || ea->site_info != eb->site_info || ea->depth != eb->depth ||
            ea->nranges != eb->nranges)
            fail_msg("event %" PRIu64 ": differs with runs (kind %d/%d index %" PRIu64 "/%" PRIu64
                     " site %u/%u depth %u/%u)", n, ea->kind, eb->kind, ea->index, eb->index, ea->site,
                     eb->site, ea->depth, eb->depth);
        for (uint32_t k = 0; k < ea->nranges; k++)
            if (ea->ranges[k].addr != eb->ranges[k].addr || ea->ranges[k].len != eb->ranges[k].len ||
                ea->ranges[k].write != eb->ranges[k].write)
                fail_msg("event %" PRIu64 " range %u differs with runs", n, k);
        for (uint32_t k = 0; k < ea->depth; k++)
            if (ea->iters[k].loop != eb->iters[k].loop || ea->iters[k].iter != eb->iters[k].iter)
                fail_msg("event %" PRIu64 " level %u: loop %u iter %" PRIu64 " expanded, loop %u iter %"
                         PRIu64 " with runs", n, k, ea->iters[k].loop, ea->iters[k].iter,
                         eb->iters[k].loop, eb->iters[k].iter);
        n++;
    }
    assert_int_equal(ra, 0);
    struct trace_cursor_stats sa, sb;
    trace_cursor_stats(a, &sa);
    trace_cursor_stats(b, &sb);
    assert_int_equal(sa.records, sb.records);
    assert_int_equal(sa.comp_events, sb.comp_events);
    assert_int_equal(sa.mpi_events, sb.mpi_events);
    assert_int_equal(sa.loop_records, sb.loop_records);
    assert_int_equal(sa.accesses, sb.accesses);
    trace_cursor_close(a);
    trace_cursor_close(b);
    return nruns;
}

/* With runs, then with runs of rows too (tests/unit/test-reader.c's
 * test_rows_runs checks them on nests that make some). */
static uint64_t runs_cursor_same(struct trace *t)
{
    uint64_t rows, n = runs_cursor_same_flags(t, TRACE_CURSOR_RUNS, &rows);
    assert_int_equal(rows, 0);
    runs_cursor_same_flags(t, TRACE_CURSOR_RUNS | TRACE_CURSOR_ROWS, &rows);
    return n;
}

/* Runs case `which` in a child with runs on, reads it back with the reader
 * and compares it with the generator, thread by thread; returns the parsed
 * rank stream (caller frees). */
static void runs_round_trip_env(int which, const char *extra, struct parsed *ps);

static void runs_round_trip(int which, struct parsed *ps)
{
    runs_round_trip_env(which, NULL, ps);
}

/* Records the PACK records of a parsed stream stand for. */
static size_t count_packed(const struct parsed *ps)
{
    size_t n = 0;
    for (size_t r = 0; r < ps->nrecs; r++)
        if (ps->recs[r].h.type == CHT_REC_PACK) {
            struct cht_rec_pack x;
            memcpy(&x, ps->recs[r].p, sizeof(x));
            n += x.count;
        }
    return n;
}

/* The same with one more environment setting (NULL: none). */
static void runs_round_trip_env(int which, const char *extra, struct parsed *ps)
{
    struct child c;
    char what[32];
    struct trace *t;
    struct trace_err err;
    int nthreads = which == RC_THREADS || which == RC_OPEN ? 2 : 1;

    snprintf(what, sizeof(what), "runs-%d", which);
    static int ntrips;
    char name[32];
    snprintf(name, sizeof(name), "trace-%d", ntrips++); /* a test may make several */
    char *dir = path_join(child_tmp, name);
    char *err_path = path_join(child_tmp, "stderr");
    char *dir_env;
    assert_true(asprintf(&dir_env, "COMMHINT_TRACE_DIR=%s", dir) > 0);
    /* a fault leaves the file of an unknown rank pending: rank 0 of 1 */
    const char *env[] = {dir_env, "COMMHINT_RUNS=1", extra, runs_segv ? "RUNS_TEST_SEGV=1" : NULL,
                         "PMI_RANK=0", "PMI_SIZE=1", NULL};
    run_child(what, env, err_path, &c);
    if (runs_segv) {
        assert_true(WIFSIGNALED(c.status));
        assert_int_equal(WTERMSIG(c.status), SIGSEGV);
    } else {
        assert_true(WIFEXITED(c.status));
        assert_int_equal(WEXITSTATUS(c.status), 0);
        assert_string_equal(c.err, "");
    }

    if (trace_open(dir, &t, &err) != 0)
        fail_msg("trace_open: %s", err.msg);
    for (int th = 0; th < nthreads; th++) {
        struct run_cmp cmp = {.thread = (uint32_t)th, .check_index = nthreads == 1};
        const struct trace_event *ev;
        int rc;
        if (trace_cursor_open(t, 0, TRACE_CURSOR_LOOPS, &cmp.cur, &err) != 0)
            fail_msg("trace_cursor_open: %s", err.msg);
        if ((nthreads == 2 && th == 0) || runs_segv) { /* the event that made it thread 0 */
            struct run_op o = {.kind = OP_COMP, .id = 0, .n = 1, .a = {8}};
            run_check(&o, &cmp);
        }
        if (which != RC_OPEN || th == 1)
            run_gen(which, nthreads == 2 ? (uint64_t)th + 1 : 1, run_check, &cmp);
        while ((rc = trace_cursor_next(cmp.cur, &ev)) == 1)
            if (ev->thread == cmp.thread)
                fail_msg("thread=%d: an event more than written, kind=%d", th, ev->kind);
        assert_int_equal(rc, 0);
        assert_int_equal(trace_cursor_cut_short(cmp.cur), runs_segv);
        trace_cursor_close(cmp.cur);
    }
    runs_seen = runs_cursor_same(t);
    trace_close(t);
    char *path = path_join(dir, "rank-00000.chtr");
    parse_file(path, CHT_MAGIC_RANK, ps, 0);
    free(path);
    free(dir_env);
    free(err_path);
    free(dir);
    free(c.err);
}

static void test_runs_mixed(void **state)
{
    struct parsed ps;
    (void)state;
    runs_round_trip(RC_MIXED, &ps);
    assert_true(count_recs(&ps, CHT_REC_REPEAT) > 50);
    assert_true(runs_seen > 20);
    parsed_free(&ps);
}

static void test_runs_long(void **state)
{
    struct parsed ps;
    (void)state;
    runs_round_trip(RC_LONG, &ps);
    /* 2 * COUNT_MAX + 3000 records: the first 6 written, three REPEATs */
    assert_int_equal(count_recs(&ps, CHT_REC_REPEAT), 3);
    assert_int_equal(runs_seen, 3);
    const struct rec *r = find_rec(&ps, CHT_REC_REPEAT, 0);
    struct cht_rec_repeat x;
    memcpy(&x, r->p, sizeof(x));
    assert_int_equal(x.h.aux, 3);
    assert_int_equal(x.count, CHT_REPEAT_COUNT_MAX);
    assert_int_equal(x.nstrides, 3);
    int64_t d[3];
    memcpy(d, r->p + sizeof(x), sizeof(d));
    assert_int_equal(d[0], 8);  /* site 1, first address */
    assert_int_equal(d[1], -8); /* site 1, second address */
    assert_int_equal(d[2], 16); /* site 0 */
    assert_true(ps.file_size < 4096);
    parsed_free(&ps);
}

static void test_runs_period17(void **state)
{
    struct parsed ps;
    (void)state;
    runs_round_trip(RC_P17, &ps);
    assert_int_equal(count_recs(&ps, CHT_REC_REPEAT), 0);
    /* packed: a pack holds about 16 KB of code */
    assert_int_equal(count_recs(&ps, CHT_REC_COMP) + count_recs(&ps, CHT_REC_LOOP) + count_packed(&ps), 17 * 300);
    assert_true(count_recs(&ps, CHT_REC_PACK) >= 1);
    assert_true(count_packed(&ps) > 17 * 290);
    parsed_free(&ps);
    /* and without packs, as records */
    runs_round_trip_env(RC_P17, "COMMHINT_PACK=0", &ps);
    assert_int_equal(count_recs(&ps, CHT_REC_REPEAT), 0);
    assert_int_equal(count_recs(&ps, CHT_REC_PACK), 0);
    assert_int_equal(count_recs(&ps, CHT_REC_COMP) + count_recs(&ps, CHT_REC_LOOP), 17 * 300);
    parsed_free(&ps);
}

static void test_runs_periods(void **state)
{
    struct parsed ps;
    unsigned seen = 0;
    (void)state;
    runs_round_trip(RC_PERIODS, &ps);
    for (size_t i = 0; i < ps.nrecs; i++)
        if (ps.recs[i].h.type == CHT_REC_REPEAT)
            seen |= 1u << ps.recs[i].h.aux;
    assert_int_equal(seen, 0x1fffeu); /* periods 1 to 16 */
    assert_true(runs_seen >= 16);
    parsed_free(&ps);
}

/* Irregular addresses in runs (CHT_REC_REPEAT_COL): the events read back
 * are the ones made, the gathers' runs come as columns. */
static void test_runs_irregular(void **state)
{
    struct parsed ps;
    (void)state;
    runs_round_trip_env(RC_IRREGULAR, "COMMHINT_COLUMNS=1", &ps);
    assert_true(count_recs(&ps, CHT_REC_REPEAT_COL) > 100);
    parsed_free(&ps);
}

/* The same gathers with the defaults: packs (CHT_REC_PACK), no columns;
 * the events read back are the ones made, almost all of them from packs;
 * the mixed case without packs still makes its runs of records. */
static void test_runs_packed(void **state)
{
    struct parsed ps;
    (void)state;
    runs_round_trip(RC_IRREGULAR, &ps);
    assert_int_equal(count_recs(&ps, CHT_REC_REPEAT_COL), 0);
    assert_true(count_recs(&ps, CHT_REC_PACK) > 5);
    assert_true(count_packed(&ps) > 40000);
    parsed_free(&ps);
    runs_round_trip_env(RC_MIXED, "COMMHINT_PACK=0", &ps);
    assert_int_equal(count_recs(&ps, CHT_REC_PACK), 0);
    assert_true(count_recs(&ps, CHT_REC_REPEAT) > 50);
    assert_true(runs_seen > 20);
    parsed_free(&ps);
}

/* The records the inlined code queues (commhint-rt.h), emulated in the
 * child: every case reads back as it was made, packed or in runs, in one
 * thread or two; at exit a thread waiting with queued records has them
 * written (rt_on_exit_signal), and so does the handler of a fault. */
static void test_runs_queued(void **state)
{
    static const int cases[] = {RC_IRREGULAR, RC_MIXED, RC_PERIODS, RC_THREADS, RC_OPEN};
    struct parsed ps;
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        runs_round_trip_env(cases[i], "RUNS_TEST_INLINE=1", &ps);
        parsed_free(&ps);
    }
    runs_segv = 1; /* the fault's child records one event first (see runs_child) */
    runs_round_trip_env(RC_IRREGULAR, "RUNS_TEST_INLINE=1", &ps);
    assert_true(count_packed(&ps) > 1000);
    assert_true(count_recs(&ps, CHT_REC_COMP) > 0); /* the queue, as it was */
    parsed_free(&ps);
    runs_segv = 0;
}

/* Loops recorded at their exits (__commhint_loop_affine): their records
 * read back as the calls per iteration would have made them, alone, inside
 * an outer run, beside queued records and past a run's count, with runs
 * and the queue as the inlined code uses them, without runs, without
 * packs, and stamping (where they carry no stamp); the long loops come as
 * a few REPEAT records, not record by record.  A fault inside such a loop
 * loses none of the iterations done. */
static void test_runs_affine(void **state)
{
    static const char *const envs[] = {"RUNS_TEST_INLINE=1", "COMMHINT_QUEUE=0", "COMMHINT_RUNS=0",
                                       "COMMHINT_PACK=0", "COMMHINT_STMT_CLOCK=1"};
    struct parsed ps;
    (void)state;
    for (size_t i = 0; i < sizeof(envs) / sizeof(envs[0]); i++) {
        runs_round_trip_env(RC_AFFINE, envs[i], &ps);
        if (i < 2) {
            assert_true(count_recs(&ps, CHT_REC_REPEAT) > 3);
            assert_true(count_recs(&ps, CHT_REC_REPEAT) < 2000);
            assert_true(count_packed(&ps) < 30000);
            /* the random rows of 8 iterations and more: runs with a
             * column, opened from the loop's structure, or (with the
             * queue) rows of a loop nest (CHT_REC_ROWS), which take the
             * rows of up to 128 iterations whose outer records move by
             * strides */
            assert_true(count_recs(&ps, CHT_REC_REPEAT_COL) + count_recs(&ps, CHT_REC_ROWS) >= 10);
            if (i == 1) /* no queue: no rows */
                assert_true(count_recs(&ps, CHT_REC_REPEAT_COL) >= 10);
            else
                assert_true(count_recs(&ps, CHT_REC_ROWS) >= 1);
        }
        parsed_free(&ps);
    }
    /* a fault in a loop: the handler writes the iterations done, as one
     * record and REPEAT records */
    runs_segv = 1;
    runs_round_trip_env(RC_AFFINE, "RUNS_TEST_INLINE=1", &ps);
    assert_true(count_recs(&ps, CHT_REC_REPEAT) > 3);
    parsed_free(&ps);
    /* in a loop with an irregular address, after a flush of the buffer:
     * the iterations since, each as it is */
    runs_round_trip_env(RC_AFFINE_OPEN_IRR, "RUNS_TEST_INLINE=1", &ps);
    assert_true(count_recs(&ps, CHT_REC_COMP) >= 2 * (200 - COMMHINT_RT_LOOP_BUF));
    parsed_free(&ps);
    runs_segv = 0;
}

/* A thread still inside a run when the process exits (a pool thread that
 * waits for work): rt_finish has the thread end its run, so that none of
 * its records is lost; the run is one REPEAT. */
static void test_runs_open_at_exit(void **state)
{
    struct parsed ps;
    (void)state;
    runs_round_trip(RC_OPEN, &ps);
    assert_int_equal(count_recs(&ps, CHT_REC_REPEAT), 1);
    parsed_free(&ps);
}

static void test_runs_threads(void **state)
{
    struct parsed ps;
    (void)state;
    runs_round_trip(RC_THREADS, &ps);
    assert_true(count_recs(&ps, CHT_REC_REPEAT) > 50);
    assert_true(runs_seen > 20);
    parsed_free(&ps);
}

/* A validation run (COMMHINT_STMT_CLOCK=1, runs asked for too): no
 * REPEAT, every COMP record stamped (docs/trace-format.md, `stamp`), LOOP
 * records not; consecutive stamps of the thread a short step apart. */
static void test_stmt_clock(void **state)
{
    struct child c;
    struct parsed ps;
    (void)state;
    char *dir = path_join(child_tmp, "trace");
    char *err_path = path_join(child_tmp, "stderr");
    char *dir_env;
    assert_true(asprintf(&dir_env, "COMMHINT_TRACE_DIR=%s", dir) > 0);
    const char *env[] = {dir_env, "COMMHINT_RUNS=1", "COMMHINT_STMT_CLOCK=1", NULL};
    run_child("runs-0", env, err_path, &c); /* RC_MIXED */
    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 0);
    char *path = path_join(dir, "rank-00000.chtr");
    parse_file(path, CHT_MAGIC_RANK, &ps, 0);
    assert_int_equal(count_recs(&ps, CHT_REC_REPEAT), 0);
    size_t ncomp = 0, zero = 0, far = 0;
    uint32_t last = 0;
    for (size_t i = 0; i < ps.nrecs; i++) {
        struct cht_rec_comp r;
        if (ps.recs[i].h.type != CHT_REC_COMP && ps.recs[i].h.type != CHT_REC_LOOP)
            continue;
        memcpy(&r, ps.recs[i].p, sizeof(r));
        if (ps.recs[i].h.type == CHT_REC_LOOP) {
            assert_int_equal(r.reserved, 0);
            continue;
        }
        zero += r.reserved == 0;
        /* a second of the counter at most between records: they are
         * stamps of one clock, not garbage */
        if (ncomp && (uint32_t)(r.reserved - last) > 0x7fffffffu) {
            far++;
            fprintf(stderr, "# record %zu of %zu (chunk %" PRIu64 " thread %u): stamp %u after %u\n", i, ps.nrecs, ps.recs[i].chunk, ps.recs[i].thread, r.reserved, last);
        }
        last = r.reserved;
        ncomp++;
    }
    assert_true(ncomp > 1000);
    assert_true(zero <= 1); /* a stamp is 0 once in 2^32 (the thread's first included) */
    assert_int_equal(far, 0);
    parsed_free(&ps);
    free(path);
    free(dir_env);
    free(err_path);
    free(dir);
    free(c.err);
}

#define C(f) cmocka_unit_test_setup_teardown(f, child_setup, child_teardown)

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "child"))
        return child_main(argv[2]);
    setenv("COMMHINT_RUNS", "0", 1); /* the in-process tests check records byte for byte */

    const struct CMUnitTest tests[] = {
        /* in order: they share the runtime of this process */
        cmocka_unit_test(test_inproc_register),
        cmocka_unit_test(test_inproc_lazy),
        cmocka_unit_test(test_inproc_threads),
        cmocka_unit_test(test_inproc_finish),
        C(test_exit_writes_end),
        C(test_no_mpi_becomes_rank0),
        C(test_segv_flushes),
        C(test_abort_flushes),
        C(test_signal_chains),
        C(test_unwritable_dir),
        C(test_disable),
        C(test_write_error),
        C(test_zstd_adapt),
        C(test_thread_reuse),
        C(test_concurrent_flush),
        C(test_signal_while_threads_write),
        C(test_mpi_rank2),
        C(test_mpi_rank0),
        C(test_runs_mixed),
        C(test_runs_long),
        C(test_runs_period17),
        C(test_runs_periods),
        C(test_runs_threads),
        C(test_stmt_clock),
        C(test_runs_open_at_exit),
        C(test_runs_irregular),
        C(test_runs_packed),
        C(test_runs_queued),
        C(test_runs_affine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
