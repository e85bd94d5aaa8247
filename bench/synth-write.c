/* synth-write.c - the trace files of bench/synth-trace (see its header
 * comment): the meta file, the rank streams as the runtime writes them
 * (tracelib/rt/writer.c: zstd level 1 chunks with content size and
 * checksum, file ids and tags, the TU record in the first chunk, END in a
 * chunk of its own), the records of the MPI calls, and the timing model's
 * helpers.  The runtime's writer cannot be reused as it is (it writes the
 * one stream of the process it runs in, from global state), so the
 * encoding is redone here on tracelib/trace-format.h's structs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "synth-trace.h"

uint64_t synth_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Computation time of rank r at step s: compute_ns scaled by [1-F, 1+F]. */
uint64_t synth_compute_time(const struct gen *g, int r, long s)
{
    uint64_t h = synth_mix(g->o.seed ^ synth_mix((uint64_t)r << 32 ^ (uint64_t)s));
    double u = (double)(h >> 11) / 9007199254740992.0; /* [0, 1) */
    double f = 1.0 + g->o.jitter * (2.0 * u - 1.0);
    return (uint64_t)((double)g->o.compute_ns * f);
}

/* Time a message of `bytes` takes from send to arrival. */
uint64_t synth_msg_time(const struct gen *g, uint64_t bytes)
{
    return g->o.latency_ns + (uint64_t)((double)bytes / g->o.bandwidth);
}

uint64_t synth_now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fail_io(struct gen *g, const char *path, int err)
{
    if (!g->failed)
        fprintf(stderr, "synth-trace: cannot write the trace: file=%s reason=%s\n", path, strerror(err));
    g->failed = 1;
}

static void rank_path(const struct gen *g, int r, char *path, size_t n)
{
    int k = snprintf(path, n, "%s/", g->o.dir);
    snprintf(path + k, n - (size_t)k, CHT_RANK_FILE_FMT, r);
}

static int write_at(struct gen *g, const char *path, const void *p, size_t n, uint64_t off)
{
    const unsigned char *b = p;
    int fd = open(path, O_WRONLY | O_CLOEXEC), err = fd < 0 ? errno : 0;

    /* a short write is retried: the next one says why (EFBIG, ENOSPC) */
    while (!err && n > 0) {
        ssize_t w = pwrite(fd, b, n, (off_t)off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            err = w < 0 ? errno : EIO;
            break;
        }
        b += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    if (fd >= 0 && close(fd) < 0 && !err)
        err = errno;
    if (err) {
        fail_io(g, path, err);
        return -1;
    }
    return 0;
}

/* Compresses raw[len] into one chunk (as rt_emit_chunk does) and appends
 * it to the file at path whose size is *end. */
static int put_chunk(struct gen *g, const char *path, const void *raw, size_t len, uint64_t *seq,
                     uint64_t *end, uint64_t file_id)
{
    struct cht_chunk_header h;
    size_t stored;

    if (len == 0)
        return 0;
    stored = ZSTD_compress2(g->cctx, g->zbuf + sizeof h, g->zcap - sizeof h, raw, len);
    if (ZSTD_isError(stored)) {
        fprintf(stderr, "synth-trace: cannot compress a chunk: reason=%s\n", ZSTD_getErrorName(stored));
        g->failed = 1;
        return -1;
    }
    memset(&h, 0, sizeof h);
    h.magic = CHT_CHUNK_MAGIC;
    h.header_size = sizeof h;
    h.stored_size = (uint32_t)stored;
    h.raw_size = (uint32_t)len;
    h.file_tag = (uint32_t)file_id;
    h.seq = (*seq)++;
    memcpy(g->zbuf, &h, sizeof h);
    if (write_at(g, path, g->zbuf, sizeof h + stored, *end) < 0)
        return -1;
    *end += sizeof h + stored;
    return 0;
}

static int flush_rank(struct gen *g, int r)
{
    struct rank_out *o = &g->r[r];
    char path[PATH_MAX];

    if (g->failed) {
        o->len = 0;
        return -1;
    }
    if (o->len == 0)
        return 0;
    rank_path(g, r, path, sizeof path);
    int e = put_chunk(g, path, o->buf, o->len, &o->seq, &o->end, o->file_id);
    o->len = 0;
    return e;
}

/* Appends n bytes of whole records to rank r's chunk: an MPI record and
 * its followers always go together, as in the runtime's chunks. */
void synth_put(struct gen *g, int r, const void *p, size_t n, unsigned nrec)
{
    struct rank_out *o = &g->r[r];

    /* after a write error nothing more is written (the generation stops
     * at the end of the step) */
    if (o->len + n > g->cap && flush_rank(g, r) < 0)
        return;
    memcpy(o->buf + o->len, p, n);
    o->len += n;
    o->nrec += nrec;
}

static void file_header(const struct gen *g, struct cht_file_header *h, const char *magic, int32_t rank,
                        uint64_t file_id)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, magic, sizeof h->magic);
    h->version = CHT_FORMAT_VERSION;
    h->oldest_version = CHT_FORMAT_OLDEST;
    h->header_size = sizeof *h;
    h->byte_order = CHT_BYTE_ORDER_MARK;
    h->features = CHT_FEAT_ZSTD | CHT_FEAT_SITES;
    h->run_id = g->run_id;
    h->rank = rank;
    h->world_size = g->o.ranks;
    h->compression = CHT_COMPRESSION_ZSTD;
    h->created_ns = g->real0;
    h->file_id = file_id;
}

/* ---- the site table and the meta file ----------------------------------- */

/* A site-table blob as the pass lays it out (header, sites, an empty
 * dependence section, costs, strings) with its tu_key; malloc'd. */
static unsigned char *site_table(struct gen *g, uint32_t *size_out)
{
    struct table t = g->tab;
    uint32_t ns = (uint32_t)(t.n[0] + t.n[1]);
    const char *file = g->file;
    /* strings: "", the file, "main" */
    uint32_t s_file = 1, s_main = s_file + (uint32_t)strlen(file) + 1;
    uint32_t strings_size = s_main + 5;
    struct cht_tu_header h;
    uint32_t off = sizeof h;

    memset(&h, 0, sizeof h);
    h.magic = CHT_TU_MAGIC;
    h.version = CHT_TU_VERSION;
    h.header_size = sizeof h;
    h.nsites = ns;
    h.sites_off = off;
    off += ns * (uint32_t)sizeof(struct cht_site);
    h.loops_off = h.access_off = off; /* no loops, no accesses */
    h.deps_off = off;
    uint32_t rows_off = off + (uint32_t)sizeof(struct cht_tu_deps);
    off = rows_off + ns * (uint32_t)sizeof(struct cht_dep_row);
    h.costs_off = off;
    off += ns * 4u;
    h.strings_off = off;
    h.strings_size = strings_size;
    h.module_name = s_file;
    off += strings_size;
    h.total_size = (off + 7) & ~7u;

    unsigned char *b = calloc(1, h.total_size);
    if (!b)
        return NULL;
    for (uint32_t i = 0, k = 0; k < 2; k++) {
        for (size_t j = 0; j < t.n[k]; j++, i++) {
            struct cht_site s = {.file = s_file,
                                 .func = s_main,
                                 .line = t.s[k][j].line,
                                 .col = t.s[k][j].col,
                                 .kind = CHT_SITE_CALL,
                                 .loop = CHT_NONE};
            struct cht_dep_row row = {0, 0, 0, CHT_DEP_ARG_SITE};
            memcpy(b + h.sites_off + i * sizeof s, &s, sizeof s);
            memcpy(b + rows_off + i * sizeof row, &row, sizeof row);
        }
    }
    struct cht_tu_deps deps = {ns, 0, rows_off, rows_off + ns * (uint32_t)sizeof(struct cht_dep_row)};
    memcpy(b + h.deps_off, &deps, sizeof deps); /* MPI call sites cost 0: costs stay zero */
    memcpy(b + h.strings_off + s_file, file, strlen(file) + 1);
    memcpy(b + h.strings_off + s_main, "main", 5);
    memcpy(b, &h, sizeof h);
    uint64_t key = CHT_FNV64_OFFSET;
    for (uint32_t i = 0; i < h.total_size; i++)
        key = (key ^ b[i]) * CHT_FNV64_PRIME;
    memcpy(b + offsetof(struct cht_tu_header, tu_key), &key, sizeof key);
    g->tu_key = key;
    g->nsites = ns;
    *size_out = h.total_size;
    return b;
}

/* The meta file: PROGRAM (argv: the pattern and its parameters) and the
 * site table, written under a temporary name and renamed into place. */
int synth_write_meta(struct gen *g)
{
    char args[6][64], path[PATH_MAX], tmp[PATH_MAX];
    uint32_t blob_size;
    unsigned char *blob = site_table(g, &blob_size);
    int e = -1;

    if (!blob) {
        fprintf(stderr, "synth-trace: out of memory\n");
        return -1;
    }
    snprintf(args[0], sizeof args[0], "/synthetic/%s", g->pattern);
    snprintf(args[1], sizeof args[1], "--ranks=%d", g->o.ranks);
    snprintf(args[2], sizeof args[2], "--iterations=%ld", g->o.iters);
    snprintf(args[3], sizeof args[3], "--every=%d", g->o.every);
    snprintf(args[4], sizeof args[4], "--dims=%d", g->o.dims);
    snprintf(args[5], sizeof args[5], "--bytes=%" PRIu64, g->o.bytes);
    size_t slen = 0;
    for (int i = 0; i < 6; i++)
        slen += strlen(args[i]) + 1;
    size_t prog = (sizeof(struct cht_rec_program) + slen + 7) & ~(size_t)7;
    size_t tab = sizeof(struct cht_rec_site_table) + ((blob_size + 7) & ~(size_t)7);
    unsigned char *raw = calloc(1, prog + tab);
    if (!raw) {
        fprintf(stderr, "synth-trace: out of memory\n");
        free(blob);
        return -1;
    }
    struct cht_rec_program p = {.h = {CHT_REC_PROGRAM, 0, (uint32_t)prog},
                                .argc = 6,
                                .strings_len = (uint32_t)slen,
                                .world_size = g->o.ranks};
    memcpy(raw, &p, sizeof p);
    for (size_t i = 0, at = sizeof p; i < 6; i++) {
        memcpy(raw + at, args[i], strlen(args[i]) + 1);
        at += strlen(args[i]) + 1;
    }
    struct cht_rec_site_table st = {.h = {CHT_REC_SITE_TABLE, 0, (uint32_t)tab}, .blob_size = blob_size};
    memcpy(raw + prog, &st, sizeof st);
    memcpy(raw + prog + sizeof st, blob, blob_size);

    snprintf(path, sizeof path, "%s/%s", g->o.dir, CHT_META_FILE);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", g->o.dir, CHT_META_FILE);
    int fd = open(tmp, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0 || close(fd) < 0) {
        fail_io(g, tmp, errno);
        goto out;
    }
    struct cht_file_header h;
    uint64_t seq = 0, end = sizeof h, id = synth_mix(g->run_id ^ 0x6d657461u) | 1;
    file_header(g, &h, CHT_MAGIC_META, -1, id);
    if (write_at(g, tmp, &h, sizeof h, 0) < 0 || put_chunk(g, tmp, raw, prog + tab, &seq, &end, id) < 0)
        goto out;
    if (rename(tmp, path) < 0) {
        fail_io(g, path, errno);
        goto out;
    }
    e = 0;
out:
    if (e < 0)
        unlink(tmp);
    free(raw);
    free(blob);
    return e;
}

/* ---- records ------------------------------------------------------------- */

/* An MPI record with every field "unused" (0, -1 for ranks and tags). */
struct cht_rec_mpi synth_mpi_rec(const struct gen *g, uint16_t call, uint32_t site, uint64_t t_enter,
                                 uint64_t t_exit)
{
    struct cht_rec_mpi m;
    memset(&m, 0, sizeof m);
    m.h.type = CHT_REC_MPI;
    m.h.aux = call;
    m.h.size = sizeof m;
    m.site = site;
    m.t_enter = t_enter;
    m.t_exit = t_exit;
    m.comm = CHT_COMM_WORLD;
    m.comm_size = (uint32_t)g->o.ranks;
    m.peer = m.rpeer = m.st_source = CHT_RANK_NONE;
    m.tag = m.rtag = m.st_tag = CHT_TAG_NONE;
    return m;
}

/* Fictitious buffer addresses, distinct per rank and per use: 0 and 1 the
 * Allreduce's, 2 + d the halo sent in direction d (and the one buffer of
 * the pipeline and master-worker, as in their real programs), 8 + d the
 * halo received. */
uint64_t synth_buf_addr(int r, unsigned k)
{
    return 0x7f0000000000ull + ((uint64_t)r << 24) + ((uint64_t)k << 20);
}

void synth_put_mpi(struct gen *g, int r, const struct cht_rec_mpi *m)
{
    synth_put(g, r, m, sizeof *m, 1);
}

/* A point-to-point send (MPI_Send, or MPI_Isend with a request). */
void synth_send(struct gen *g, int r, uint16_t call, uint32_t site, uint64_t t, int dest, int tag,
                uint64_t bytes, uint64_t seq, unsigned buf)
{
    struct cht_rec_mpi m = synth_mpi_rec(g, call, site, t, t + g->o.call_ns);
    m.sbuf = bytes ? synth_buf_addr(r, buf) : 0;
    m.sbytes = bytes;
    m.peer = dest;
    m.tag = tag;
    m.seq = seq;
    m.count = (int32_t)(bytes / 8);
    m.datatype = 8;
    if (call == CHT_MPI_ISEND)
        m.request = g->r[r].next_req++;
    synth_put_mpi(g, r, &m);
}

static void rec_clock(struct gen *g, int r, int which, uint64_t t)
{
    struct cht_rec_clock c;
    memset(&c, 0, sizeof c);
    c.h.type = CHT_REC_CLOCK;
    c.h.aux = (uint16_t)which;
    c.h.size = sizeof c;
    c.mono_ns = t;
    c.real_ns = t - g->t0 + g->real0;
    c.wtime = (double)(t - g->t0) * 1e-9;
    if (which == 0) { /* one host with a CPU per rank: no oversubscription */
        c.cpus = (uint32_t)g->o.ranks;
        c.node_ranks = (uint32_t)g->o.ranks;
        c.host_id = 0x53594e54u;
    }
    synth_put(g, r, &c, sizeof c, 1);
}

/* Creates every rank's file (header, then a first chunk with the TU record
 * as the runtime's metadata chunk), and records MPI_Init at t0 on all. */
int synth_open_ranks(struct gen *g)
{
    char path[PATH_MAX];
    for (int r = 0; r < g->o.ranks; r++) {
        struct rank_out *o = &g->r[r];
        struct cht_file_header h;
        rank_path(g, r, path, sizeof path);
        int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
        if (fd < 0 || close(fd) < 0) {
            fail_io(g, path, errno);
            return -1;
        }
        o->file_id = synth_mix(g->run_id ^ (uint64_t)r) | 1;
        o->end = sizeof h;
        o->next_req = 1;
        file_header(g, &h, CHT_MAGIC_RANK, r, o->file_id);
        if (write_at(g, path, &h, sizeof h, 0) < 0)
            return -1;
        struct cht_rec_tu tu = {.h = {CHT_REC_TU, 0, sizeof tu},
                                .tu_key = g->tu_key,
                                .site_base = SITE_BASE,
                                .nsites = g->nsites,
                                .loop_base = 0,
                                .nloops = 0};
        synth_put(g, r, &tu, sizeof tu, 1);
        if (flush_rank(g, r) < 0)
            return -1;
        rec_clock(g, r, 0, g->t0 + INIT_NS);
        struct cht_rec_mpi m = synth_mpi_rec(g, CHT_MPI_INIT, GSITE(S_INIT), g->t0, g->t0 + INIT_NS);
        synth_put_mpi(g, r, &m);
        o->t = g->t0 + INIT_NS;
    }
    return 0;
}

/* MPI_Finalize (records written before the call: t_enter = t_exit), the
 * clean end in a chunk of its own, for every rank. */
int synth_close_ranks(struct gen *g)
{
    char path[PATH_MAX];
    for (int r = 0; r < g->o.ranks && !g->failed; r++) {
        struct rank_out *o = &g->r[r];
        rec_clock(g, r, 1, o->t);
        struct cht_rec_mpi m = synth_mpi_rec(g, CHT_MPI_FINALIZE, GSITE(S_FINALIZE), o->t, o->t);
        synth_put_mpi(g, r, &m);
        if (flush_rank(g, r) < 0)
            return -1;
        struct cht_rec_end end = {.h = {CHT_REC_END, 0, sizeof end},
                                  .records = o->nrec, /* as the runtime: END itself not counted */
                                  .t_end = o->t + g->o.call_ns,
                                  .threads = 1,
                                  .exit_status = 0};
        rank_path(g, r, path, sizeof path);
        if (put_chunk(g, path, &end, sizeof end, &o->seq, &o->end, o->file_id) < 0)
            return -1;
    }
    return g->failed ? -1 : 0;
}

/* A receive's COMPLETE follower (for MPI_Waitall). */
size_t synth_complete(unsigned char *p, int recv, uint64_t req, int src, int tag, uint64_t bytes,
                      uint64_t rseq)
{
    struct cht_rec_complete c = {.h = {CHT_REC_COMPLETE, (uint16_t)(recv ? CHT_COMPLETE_RECV : 0), sizeof c},
                                 .request = req,
                                 .st_source = recv ? src : CHT_RANK_NONE,
                                 .st_tag = recv ? tag : CHT_TAG_NONE,
                                 .st_bytes = recv ? bytes : 0,
                                 .rseq = recv ? rseq : 0};
    memcpy(p, &c, sizeof c);
    return sizeof c;
}

/* A blocking receive of a message from src that arrives at `arrive`. */
void synth_recv(struct gen *g, int r, uint32_t site, int src, int rtag, int tag, uint64_t bytes,
                uint64_t rseq, uint64_t arrive, unsigned flags)
{
    struct rank_out *o = &g->r[r];
    uint64_t from = arrive > o->t ? arrive : o->t;
    struct cht_rec_mpi m = synth_mpi_rec(g, CHT_MPI_RECV, site, o->t, from + g->o.call_ns);
    m.flags = flags | CHT_MPIF_HAS_STATUS;
    m.rbuf = synth_buf_addr(r, 2);
    m.rbytes = g->o.bytes;
    m.rpeer = (flags & CHT_MPIF_ANY_SOURCE) ? CHT_RANK_ANY : src;
    m.rtag = (flags & CHT_MPIF_ANY_TAG) ? CHT_TAG_ANY : rtag;
    m.st_source = src;
    m.st_tag = tag;
    m.st_bytes = bytes;
    m.rseq = rseq;
    m.count = (int32_t)(g->o.bytes / 8);
    m.datatype = 8;
    synth_put_mpi(g, r, &m);
    o->t = m.t_exit;
}
