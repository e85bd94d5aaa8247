/* tracegen.c - synthetic commhint trace files for the reader tests; see
 * tracegen.h.  Errors abort: these are test fixtures.
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "tracegen.h"

struct tg_file {
    FILE *fp;
    uint64_t off;       /* bytes written */
    uint64_t seq;
    uint32_t thread;
    uint8_t *buf;       /* pending records */
    size_t len, cap;
};

static void die(const char *what)
{
    perror(what);
    abort();
}

static void put(struct tg_file *f, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, f->fp) != n)
        die("tracegen: write");
    f->off += n;
}

struct tg_file *tg_create(const char *path, const char *magic, uint64_t run_id, int rank,
                          int world_size)
{
    struct tg_file *f = calloc(1, sizeof(*f));
    struct cht_file_header h;

    if (!f)
        die("tracegen: calloc");
    f->fp = fopen(path, "wb");
    if (!f->fp)
        die(path);
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, magic, 8);
    h.version = CHT_FORMAT_VERSION;
    h.oldest_version = CHT_FORMAT_OLDEST;
    h.header_size = sizeof(h);
    h.byte_order = CHT_BYTE_ORDER_MARK;
    h.features = CHT_FEAT_ZSTD | CHT_FEAT_SITES;
    h.run_id = run_id;
    h.rank = rank;
    h.world_size = world_size;
    h.compression = CHT_COMPRESSION_ZSTD;
    h.created_ns = 1;
    put(f, &h, sizeof(h));
    return f;
}

void tg_raw(struct tg_file *f, const void *bytes, size_t len)
{
    if (f->len + len > f->cap) {
        size_t n = f->cap ? f->cap : 4096;
        while (n < f->len + len)
            n *= 2;
        f->buf = realloc(f->buf, n);
        if (!f->buf)
            die("tracegen: realloc");
        f->cap = n;
    }
    memcpy(f->buf + f->len, bytes, len);
    f->len += len;
}

void tg_rec(struct tg_file *f, uint16_t type, uint16_t aux, const void *body, size_t body_len)
{
    struct cht_rec h;
    static const uint8_t zero[8];
    size_t size = (8 + body_len + 7) & ~(size_t)7;

    h.type = type;
    h.aux = aux;
    h.size = (uint32_t)size;
    tg_raw(f, &h, sizeof(h));
    tg_raw(f, body, body_len);
    tg_raw(f, zero, size - 8 - body_len);
}

uint64_t tg_flush(struct tg_file *f)
{
    struct cht_chunk_header ch;
    size_t bound = ZSTD_compressBound(f->len), n;
    uint8_t *z = malloc(bound ? bound : 1);
    uint64_t at = f->off;

    if (!z)
        die("tracegen: malloc");
    n = ZSTD_compress(z, bound, f->buf, f->len, 1);
    if (ZSTD_isError(n)) {
        fprintf(stderr, "tracegen: zstd: %s\n", ZSTD_getErrorName(n));
        abort();
    }
    memset(&ch, 0, sizeof(ch));
    ch.magic = CHT_CHUNK_MAGIC;
    ch.header_size = sizeof(ch);
    ch.stored_size = (uint32_t)n;
    ch.raw_size = (uint32_t)f->len;
    ch.thread = f->thread;
    ch.seq = f->seq++;
    put(f, &ch, sizeof(ch));
    put(f, z, n);
    free(z);
    f->len = 0;
    return at;
}

void tg_thread(struct tg_file *f, uint32_t thread)
{
    if (thread != f->thread && f->len)
        tg_flush(f);
    f->thread = thread;
}

void tg_set_seq(struct tg_file *f, uint64_t seq)
{
    f->seq = seq;
}

void tg_close(struct tg_file *f)
{
    if (f->len)
        tg_flush(f);
    if (fclose(f->fp))
        die("tracegen: fclose");
    free(f->buf);
    free(f);
}

/* ---- records ------------------------------------------------------------ */

void tg_comp(struct tg_file *f, uint32_t site, uint16_t n, const uint64_t *addr)
{
    uint32_t b[2] = { site, 0 };
    uint8_t *body = malloc(8 + 8 * (size_t)n);

    memcpy(body, b, 8);
    if (n)
        memcpy(body + 8, addr, 8 * (size_t)n);
    tg_rec(f, CHT_REC_COMP, n, body, 8 + 8 * (size_t)n);
    free(body);
}

void tg_ranges(struct tg_file *f, uint32_t site, uint16_t n, const struct cht_range *r)
{
    uint32_t b[2] = { site, 0 };
    uint8_t *body = malloc(8 + 16 * (size_t)n);

    memcpy(body, b, 8);
    if (n)
        memcpy(body + 8, r, 16 * (size_t)n);
    tg_rec(f, CHT_REC_RANGES, n, body, 8 + 16 * (size_t)n);
    free(body);
}

void tg_loop(struct tg_file *f, int kind, uint32_t loop)
{
    uint32_t b[2] = { loop, 0 };

    tg_rec(f, CHT_REC_LOOP, (uint16_t)kind, b, 8);
}

void tg_mpi(struct tg_file *f, const struct cht_rec_mpi *m)
{
    tg_rec(f, CHT_REC_MPI, m->h.aux, (const uint8_t *)m + 8, sizeof(*m) - 8);
}

void tg_complete(struct tg_file *f, int recv, uint64_t request, int32_t src, int32_t tag,
                 uint64_t bytes, uint64_t rseq)
{
    struct cht_rec_complete c = { .request = request, .st_source = src, .st_tag = tag,
                                  .st_bytes = bytes, .rseq = rseq };

    tg_rec(f, CHT_REC_COMPLETE, (uint16_t)recv, (const uint8_t *)&c + 8, sizeof(c) - 8);
}

void tg_blocks(struct tg_file *f, int side, uint32_t count, const struct cht_block *b)
{
    uint32_t hd[2] = { count, 0 };
    uint8_t *body = malloc(8 + 16 * (size_t)count);

    memcpy(body, hd, 8);
    if (count)
        memcpy(body + 8, b, 16 * (size_t)count);
    tg_rec(f, CHT_REC_BLOCKS, (uint16_t)side, body, 8 + 16 * (size_t)count);
    free(body);
}

void tg_comm(struct tg_file *f, uint16_t call, uint64_t comm, uint64_t parent, uint32_t size,
             int32_t my_rank, const int32_t *world_ranks)
{
    struct cht_rec_comm c = { .comm = comm, .parent = parent, .size = size,
                              .my_rank = my_rank };
    size_t n = sizeof(c) - 8 + 4 * (size_t)size;
    uint8_t *body = malloc(n);

    memcpy(body, (const uint8_t *)&c + 8, sizeof(c) - 8);
    memcpy(body + sizeof(c) - 8, world_ranks, 4 * (size_t)size);
    tg_rec(f, CHT_REC_COMM, call, body, n);
    free(body);
}

void tg_module(struct tg_file *f, uint64_t base, uint64_t start, uint64_t end,
               const uint8_t *build_id, uint32_t build_id_len, const char *path)
{
    struct cht_rec_module m = { .base = base, .start = start, .end = end,
                                .build_id_len = build_id_len,
                                .path_len = (uint32_t)strlen(path) + 1 };
    size_t n = sizeof(m) - 8 + build_id_len + m.path_len;
    uint8_t *body = malloc(n);

    memcpy(body, (const uint8_t *)&m + 8, sizeof(m) - 8);
    memcpy(body + sizeof(m) - 8, build_id, build_id_len);
    memcpy(body + sizeof(m) - 8 + build_id_len, path, m.path_len);
    tg_rec(f, CHT_REC_MODULE, 0, body, n);
    free(body);
}

void tg_tu(struct tg_file *f, uint64_t key, uint32_t site_base, uint32_t nsites,
           uint32_t loop_base, uint32_t nloops)
{
    struct cht_rec_tu t = { .tu_key = key, .site_base = site_base, .nsites = nsites,
                            .loop_base = loop_base, .nloops = nloops };

    tg_rec(f, CHT_REC_TU, 0, (const uint8_t *)&t + 8, sizeof(t) - 8);
}

void tg_clock(struct tg_file *f, int which, uint64_t mono, uint64_t real, double wtime)
{
    struct cht_rec_clock c = { .mono_ns = mono, .real_ns = real, .wtime = wtime };

    tg_rec(f, CHT_REC_CLOCK, (uint16_t)which, (const uint8_t *)&c + 8, sizeof(c) - 8);
}

void tg_lost(struct tg_file *f, uint16_t why, uint64_t records)
{
    tg_rec(f, CHT_REC_LOST, why, &records, 8);
}

void tg_end(struct tg_file *f, uint64_t records, uint32_t threads, int32_t exit_status)
{
    struct cht_rec_end e = { .records = records, .t_end = 99, .threads = threads,
                             .exit_status = exit_status };

    tg_rec(f, CHT_REC_END, 0, (const uint8_t *)&e + 8, sizeof(e) - 8);
}

void tg_program(struct tg_file *f, const uint8_t *build_id, uint32_t build_id_len, int argc,
                const char *const *argv, int32_t world_size)
{
    struct cht_rec_program p = { .build_id_len = build_id_len, .argc = (uint32_t)argc,
                                 .world_size = world_size };
    size_t slen = 0, n, off;
    uint8_t *body;
    int i;

    for (i = 0; i < argc; i++)
        slen += strlen(argv[i]) + 1;
    p.strings_len = (uint32_t)slen;
    n = sizeof(p) - 8 + build_id_len + slen;
    body = malloc(n);
    memcpy(body, (const uint8_t *)&p + 8, sizeof(p) - 8);
    memcpy(body + sizeof(p) - 8, build_id, build_id_len);
    off = sizeof(p) - 8 + build_id_len;
    for (i = 0; i < argc; i++) {
        memcpy(body + off, argv[i], strlen(argv[i]) + 1);
        off += strlen(argv[i]) + 1;
    }
    tg_rec(f, CHT_REC_PROGRAM, 0, body, n);
    free(body);
}

void tg_site_table(struct tg_file *f, const void *blob, uint32_t blob_size)
{
    uint32_t hd[2] = { blob_size, 0 };
    uint8_t *body = malloc(8 + (size_t)blob_size);

    memcpy(body, hd, 8);
    memcpy(body + 8, blob, blob_size);
    tg_rec(f, CHT_REC_SITE_TABLE, 0, body, 8 + (size_t)blob_size);
    free(body);
}

/* ---- site tables -------------------------------------------------------- */

void tg_table_rekey(uint8_t *blob, uint32_t size)
{
    struct cht_tu_header *h = (struct cht_tu_header *)blob;
    uint64_t k = CHT_FNV64_OFFSET;
    uint32_t i;

    h->tu_key = 0;
    for (i = 0; i < size; i++)
        k = (k ^ blob[i]) * CHT_FNV64_PRIME;
    h->tu_key = k;
}

uint8_t *tg_table(const struct cht_site *sites, uint32_t nsites, const struct cht_loop *loops,
                  uint32_t nloops, const struct cht_access *acc, uint32_t naccess,
                  const char *strings, uint32_t strings_size, uint32_t *size_out)
{
    return tg_table_costs(sites, nsites, loops, nloops, acc, naccess, NULL, strings, strings_size,
                          size_out);
}

uint8_t *tg_table_costs(const struct cht_site *sites, uint32_t nsites, const struct cht_loop *loops,
                        uint32_t nloops, const struct cht_access *acc, uint32_t naccess,
                        const uint32_t *costs, const char *strings, uint32_t strings_size,
                        uint32_t *size_out)
{
    struct cht_tu_header h;
    uint32_t off = sizeof(h), size;
    uint8_t *b;

    memset(&h, 0, sizeof(h));
    h.magic = CHT_TU_MAGIC;
    h.version = CHT_TU_VERSION;
    h.header_size = sizeof(h);
    h.nsites = nsites;
    h.nloops = nloops;
    h.naccess = naccess;
    h.sites_off = off;
    off += nsites * (uint32_t)sizeof(*sites);
    h.loops_off = off;
    off += nloops * (uint32_t)sizeof(*loops);
    h.access_off = off;
    off += naccess * (uint32_t)sizeof(*acc);
    /* an empty dependence section, as the pass writes for sites without
     * register or control dependences: one row per site, no entries */
    off = (off + 7) & ~7u;
    h.deps_off = off;
    uint32_t rows_off = off + (uint32_t)sizeof(struct cht_tu_deps);
    off = rows_off + nsites * (uint32_t)sizeof(struct cht_dep_row);
    if (costs) {
        h.costs_off = off;
        off += nsites * (uint32_t)sizeof(*costs);
    }
    h.strings_off = off;
    h.strings_size = strings_size;
    off += strings_size;
    size = (off + 7) & ~7u;
    h.total_size = size;
    b = calloc(1, size);
    memcpy(b, &h, sizeof(h));
    memcpy(b + h.sites_off, sites, nsites * sizeof(*sites));
    memcpy(b + h.loops_off, loops, nloops * sizeof(*loops));
    memcpy(b + h.access_off, acc, naccess * sizeof(*acc));
    struct cht_tu_deps deps = {nsites, 0, rows_off, rows_off + nsites * (uint32_t)sizeof(struct cht_dep_row)};
    memcpy(b + h.deps_off, &deps, sizeof deps);
    for (uint32_t i = 0; i < nsites; i++) {
        struct cht_dep_row row = {0, 0, 0, CHT_DEP_ARG_SITE};
        memcpy(b + rows_off + i * sizeof row, &row, sizeof row);
    }
    if (costs)
        memcpy(b + h.costs_off, costs, nsites * sizeof(*costs));
    memcpy(b + h.strings_off, strings, strings_size);
    tg_table_rekey(b, size);
    *size_out = size;
    return b;
}

/* ---- files -------------------------------------------------------------- */

char *tg_tmpdir(void)
{
    char *d = strdup("/tmp/commhint-test-XXXXXX");

    if (!d || !mkdtemp(d))
        die("tracegen: mkdtemp");
    return d;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

void tg_rmdir(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void tg_patch(const char *path, uint64_t off, const void *bytes, size_t len)
{
    int fd = open(path, O_WRONLY);

    if (fd < 0 || pwrite(fd, bytes, len, (off_t)off) != (ssize_t)len)
        die(path);
    close(fd);
}

void tg_truncate(const char *path, uint64_t size)
{
    if (truncate(path, (off_t)size) < 0)
        die(path);
}

uint64_t tg_file_size(const char *path)
{
    struct stat st;

    if (stat(path, &st) < 0)
        die(path);
    return (uint64_t)st.st_size;
}

const char *tg_path(const char *dir, const char *name)
{
    static char buf[8][1024];
    static int slot;
    char *p = buf[slot++ % 8];

    snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
    return p;
}
