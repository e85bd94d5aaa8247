/* reader-private.h - internal interface of the trace reader (tracelib/reader):
 * the stream, trace, cursor and symbolisation parts share these types and
 * helpers.  Nothing here is part of the public API (trace-reader.h).
 */
#ifndef COMMHINT_READER_PRIVATE_H
#define COMMHINT_READER_PRIVATE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace-reader.h"

#define RD_MAX_LOOP_DEPTH TRACE_MAX_LOOP_DEPTH /* deeper loop stacks are a format error */
#define RD_MAX_ARGS 64 /* ranges in one CHT_REC_ARGS record; more is a format error */
#define RD_MAX_CHUNK_HEADER 4096 /* bytes; larger chunk header_size is rejected */
#define RD_MAX_WORLD_SIZE (1 << 20) /* ranks; a larger world_size is a format error (the
                                       analysis allocates per world rank) */

/* Formats a message into err (may be NULL). */
void rd_err(struct trace_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void rd_verr(char *buf, size_t len, const char *fmt, va_list ap);

/* ---- streams (stream.c) ------------------------------------------------- */

struct trace_stream {
    char *path;
    int fd;
    uint64_t file_size;   /* bytes, from fstat at open */
    struct cht_file_header fh;

    uint64_t next_off;    /* file offset of the next chunk header */
    uint64_t next_seq;    /* seq the next chunk must carry */
    uint64_t bytes_read;  /* file header + chunk headers + payloads read */
    uint64_t bytes_raw;   /* decompressed record bytes so far */

    /* current chunk */
    bool have_chunk;
    struct cht_chunk_header ch;
    uint64_t chunk_off;   /* file offset of its header */
    uint8_t *stored;      /* reusable buffer for the compressed payload */
    size_t stored_cap;
    uint8_t *raw;         /* reusable buffer for the records (8-aligned) */
    size_t raw_cap;
    uint32_t raw_size;
    uint32_t pos;         /* offset in raw of the next record */
    uint32_t last_off;    /* offset in raw of the record last returned */
    void *dctx;           /* ZSTD_DCtx */

    bool at_end;          /* next returns 0 from now on */
    bool cut_short;
    int status;           /* sticky error status, 0 if none */
    char msg[512];
};

/* Checks a record at `off` in the current chunk's raw payload; returns NULL
 * if it is well formed, else a reason (static string or written to buf). */
const char *rd_check_record(const uint8_t *raw, uint32_t raw_size, uint32_t off,
                            char *buf, size_t len);

/* Sets the stream's sticky error for the record at raw offset `roff`. */
int rd_stream_rec_error(struct trace_stream *s, uint32_t roff, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Offset in the raw payload of the record last returned. */
uint32_t rd_stream_record_offset(const struct trace_stream *s);

/* ---- site tables (trace.c) ---------------------------------------------- */

struct rd_table {
    uint64_t key;
    uint8_t *blob;                  /* owned copy, 8-aligned */
    uint32_t blob_size;
    const struct cht_tu_header *hdr;
    const struct cht_site *sites;
    const struct cht_loop *loops;
    const struct cht_access *access;
    const char *strings;
    const uint32_t *costs;          /* cost section (version 3), NULL without one */
    /* dependence section (version 2), all NULL without one */
    const struct cht_tu_deps *deps;
    const struct cht_dep_row *rows;
    const struct cht_dep *entries;
};

/* Validates a site table blob; on success adds a copy to the trace (a table
 * whose key is already known is kept once) and returns 0; on error returns
 * TRACE_ERR_FORMAT with "reason=..." text in why. */
int rd_add_table(struct trace *t, const void *blob, uint32_t blob_size,
                 char *why, size_t whylen);
const struct rd_table *rd_find_table(const struct trace *t, uint64_t key);

/* Checks the dependence section of a table whose other sections are valid
 * (deps.c); 0 if it is sound or absent. */
int rd_validate_deps(const uint8_t *blob, const struct cht_tu_header *h, char *why,
                     size_t whylen);

/* Per-rank id mapping, owned by the trace so that site and loop info handed
 * out stays valid until trace_close. */
struct rd_tu {
    uint64_t key;
    uint32_t site_base, nsites, loop_base, nloops;
    const struct rd_table *table;    /* NULL until its table is known */
    struct trace_site_info *sites;   /* nsites, built on first use */
    struct trace_loop_info *loops;   /* nloops, built on first use */
    /* resolved producers per site (rd_rank_producers), built on first use */
    uint32_t **prod;
    uint32_t *nprod;
    size_t *prod_gen;                /* ntus of the rank they were resolved with + 1 */
};

/* A symbol row of some TU of a rank (for resolving by name). */
struct rd_sym {
    const char *func;
    int32_t arg;
    uint32_t tu, row;
};

struct rd_rank {
    int rank;
    char *path;                      /* its stream file, built on demand */
    struct rd_tu *tus;
    size_t ntus, cap;
    size_t last_site, last_loop;     /* index of the last TU that matched */
    struct rd_sym *syms;             /* sorted by (func, arg); for ntus = syms_gen - 1 */
    size_t nsyms, syms_gen;
    struct rd_ctxtab *ctx;           /* calling contexts of its MPI calls (callctx.c) */
};

struct rd_rank *rd_rank_state(struct trace *t, int rank);
/* Adds a TU record's mapping (deduplicated); TRACE_ERR_FORMAT with a reason
 * in why if it contradicts its table. */
int rd_rank_add_tu(struct trace *t, struct rd_rank *r, const struct cht_rec_tu *tu,
                   char *why, size_t whylen);
/* Attaches tables that became known after the TU records. */
void rd_rank_attach_tables(struct trace *t, struct rd_rank *r);
const struct trace_site_info *rd_rank_site(struct rd_rank *r, uint32_t id);
const struct trace_loop_info *rd_rank_loop(struct rd_rank *r, uint32_t id);
/* The sites whose most recent execution site `id` depends on in registers
 * or by control (trace_event.producers): 1 with *ids (sorted, borrowed
 * until close) and *n set, 0 if unknown (no table, or a table without a
 * dependence section), TRACE_ERR_NOMEM. */
int rd_rank_producers(struct rd_rank *r, uint32_t id, const uint32_t **ids, uint32_t *n);
void rd_rank_free(struct rd_rank *r);

/* ---- symbolisation (symbolize.c) ---------------------------------------- */

/* ---- calling contexts (callctx.c) --------------------------------------- */

struct trace_cursor;
struct rd_ctxtab;
/* The context site of an MPI call of site `site` made from ret_addr with
 * the frames above it path[0..n) (CHT_REC_PATH), keeping at most depth
 * frames above the call: NULL if it has no
 * context beyond its own line (or the frames cannot be symbolised), else
 * its info, borrowed until trace_close.  TRACE_ERR_NOMEM through *rc. */
const struct trace_site_info *rd_ctx_of(struct trace_cursor *c, struct rd_rank *r, unsigned depth,
                                        uint32_t site, uint64_t ret_addr, const uint64_t *path,
                                        uint32_t n, int *rc);
const struct trace_site_info *rd_ctx_site(const struct rd_rank *r, uint32_t id);
void rd_ctx_free(struct rd_ctxtab *x);
unsigned rd_trace_call_depth(const struct trace *t);

struct rd_symcache; /* opened ELF/DWARF files by path */
void rd_symcache_destroy(struct rd_symcache *c);
struct rd_symcache **rd_trace_symcache(struct trace *t);
/* Reads the GNU build id of an ELF file into buf; returns its length, 0 if
 * none, negative on error. */
int rd_elf_build_id(const char *path, uint8_t *buf, size_t cap);

/* The objects a rank's code was loaded from (modules.c), from its
 * CHT_REC_MODULE records; a cursor keeps one (zeroed: empty). */
struct rd_module;
/* A varint of code[*pos, end) (PACK and ROWS records); 0, or -1 past the
 * end or longer than 64 bits.  The position is the caller's local: the common one-byte and
 * three-byte cases stay in registers. */
static inline __attribute__((always_inline)) int rd_varint(const unsigned char *code, uint32_t *pos, uint32_t end,
                                                        uint64_t *v)
{
    uint64_t x = 0;
    uint32_t at = *pos;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        unsigned char b;
        if (at >= end)
            return -1;
        b = code[at++];
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            *pos = at;
            return 0;
        }
    }
    return -1;
}

/* ---- packs (pack.c): CHT_REC_PACK records decoded one by one ------------ */

struct rd_pack_ent {
    uint64_t key, next;
    uint32_t gen, reserved;
    uint64_t last[CHT_REPEAT_MAX_ADDRS];
    int64_t d[CHT_REPEAT_MAX_ADDRS];
};

/* A writer thread's table: it goes on from one PACK to the next. */
struct rd_pack_table {
    struct rd_pack_ent *tab; /* CHT_PACK_SLOTS entries, NULL until the first PACK */
    uint32_t prev;           /* slot of the previous record, CHT_PACK_SLOTS: none */
    uint32_t gen;            /* entries of other numbers are empty */
};

struct rd_pack {
    const unsigned char *code; /* the PACK's code, in the stream's chunk */
    uint32_t nbytes, pos;      /* code bytes, the next to read */
    uint32_t left;        /* records still to decode; 0: no PACK open */
    struct rd_pack_table *tb; /* the writer thread's table */
};

/* Starts decoding the PACK record rec (its size checked by the stream) of
 * the writer thread whose table is tb: 0, TRACE_ERR_NOMEM, or
 * TRACE_ERR_FORMAT with the reason in why. */
int rd_pack_start(struct rd_pack *p, struct rd_pack_table *tb, const struct cht_rec_pack *rec, char *why,
                  size_t len);
/* Decodes the next record of the open PACK into w (16 bytes of COMP or
 * LOOP header, id and reserved word, then its addresses): 0, or
 * TRACE_ERR_FORMAT with the reason in why (the PACK is then closed). */
int rd_pack_next(struct rd_pack *p, uint64_t w[2 + CHT_REPEAT_MAX_ADDRS], char *why, size_t len);
void rd_pack_free(struct rd_pack *p);
void rd_pack_table_free(struct rd_pack_table *tb);

/* ---- rows (rows.c): CHT_REC_ROWS records decoded one by one ------------- */

#define RD_ROWS_ADDRS (CHT_REPEAT_PERIOD_MAX * CHT_REPEAT_MAX_ADDRS)
struct rd_rows {
    const unsigned char *code; /* the record's code, in the stream's chunk */
    uint32_t nbytes, pos;      /* code bytes, the next to read */
    uint32_t rows_left;        /* rows not begun yet */
    bool active;               /* a ROWS record is being decoded */
    bool between;              /* in the between records after a row */
    uint32_t nb, per, nab, nal, nirr;
    uint32_t phase;            /* next record of the between records or of the iteration */
    uint64_t trips, it;        /* of the current row */
    uint32_t take;             /* iterations 1 .. trips-1 of the row, when rd_rows_next has just
                                  ended its iteration 0 and they may go as a repeat (rd_rows_take) */
    uint64_t key[2 * CHT_REPEAT_PERIOD_MAX];
    uint32_t boff[CHT_REPEAT_PERIOD_MAX], loff[CHT_REPEAT_PERIOD_MAX];
    uint64_t bcur[RD_ROWS_ADDRS];
    int64_t bstride[RD_ROWS_ADDRS];
    uint64_t row0[RD_ROWS_ADDRS]; /* the current row's iteration-0 affine addresses */
    uint64_t cur[RD_ROWS_ADDRS];  /* the current iteration's addresses */
    int64_t step[RD_ROWS_ADDRS];
    bool irr[RD_ROWS_ADDRS];
};

/* Starts decoding the ROWS record rec (its size checked by the stream): 0,
 * or TRACE_ERR_FORMAT with the reason in why. */
int rd_rows_start(struct rd_rows *w, const struct cht_rec_rows *rec, char *why, size_t len);
/* Decodes the next record of the open ROWS into w (as rd_pack_next): 0, or
 * TRACE_ERR_FORMAT with the reason in why (the record is then closed). */
int rd_rows_next(struct rd_rows *w, uint64_t out[2 + CHT_REPEAT_MAX_ADDRS], char *why, size_t len);
/* After rd_rows_next set w->take: takes the row's other w->take iterations
 * at once, their irregular addresses' differences into col (w->take * nirr
 * entries, iteration by iteration, in the order rd_rows_next applies them:
 * a REPEAT_COL's column), and leaves w after the row.  Cannot fail:
 * rd_rows_next offers them only when the code holds them and what follows
 * the row decodes.  The caller expands them as a REPEAT of period w->per
 * over the iteration just decoded, with strides w->step (irregular ones
 * CHT_REPEAT_IRREGULAR), which makes the same records. */
void rd_rows_take(struct rd_rows *w, int32_t *col);

/* A ROWS record's record of key `key` (its keys' form) with addresses a,
 * as it enters the history, into out. */
static inline void rd_rows_emit(uint64_t out[2 + CHT_REPEAT_MAX_ADDRS], uint64_t key, const uint64_t *a)
{
    struct cht_rec *h = (struct cht_rec *)out;
    uint32_t type = (uint32_t)(key & 0xffff), aux = (uint32_t)(key >> 16 & 0xffff);
    uint32_t n = type == CHT_REC_COMP ? aux : 0;
    h->type = (uint16_t)type;
    h->aux = (uint16_t)aux;
    h->size = 16 + 8 * n;
    out[1] = key >> 32; /* site or loop, then the reserved word 0 */
    memcpy(out + 2, a, 8 * (size_t)n);
}

/* The rows rd_rows_bulk takes at once, in the caller's tables. */
struct rd_rows_tables {
    uint64_t cap_rows, cap_iters; /* room */
    uint32_t nb, ni;              /* events of the between records, of an iteration */
    uint64_t *trips;              /* cap_rows: each row's iterations */
    uint64_t *at, *itb;           /* cap_rows + 1: the events and the iterations before each row */
    /* per address of an iteration's records (slot i, as w->cur): a
     * strided one's address in iteration 0 of each row (cap_rows), an
     * irregular one's in each iteration (cap_iters) */
    uint64_t *slot[RD_ROWS_ADDRS];
    uint64_t rows;                /* taken */
    bool between_last;            /* the last row taken has its between records */
};

/* At the start of a row of the open ROWS record (no record of it decoded
 * yet): takes that row and the next ones, whole, each with its between
 * records if it has them, as expanding them would, into t: at least one
 * row unless the tables have no room for it, at most until max_iters
 * iterations are taken.  A row whose code is corrupt, or whose next row's
 * is, is left (with its between records, if those decode) for expanding,
 * which reports the error where it would have.  Leaves w after the rows.
 * 0 (t->rows may be 0). */
int rd_rows_bulk(struct rd_rows *w, struct rd_rows_tables *t, uint64_t max_iters);

struct rd_modules {
    struct rd_module *v;
    size_t n, cap;
};
/* Adds the object of a MODULE record (its size checked by the stream);
 * 0 or TRACE_ERR_NOMEM. */
int rd_modules_add(struct rd_modules *ms, const struct cht_rec_module *m);
void rd_modules_free(struct rd_modules *ms);
/* trace_cursor_symbolize for a rank whose trace file is `file` (named in
 * messages). */
int rd_modules_symbolize(struct rd_modules *ms, struct trace *t, const char *file, uint64_t ret_addr,
                         struct trace_srcloc *out, struct trace_err *err);

/* Applies a LOOP record to a loop stack (a thread's, or one the cursor
 * simulates a run on): 0, -1 if it would nest deeper than
 * RD_MAX_LOOP_DEPTH, -2 for an unknown kind.  Inline: the cursor applies
 * one per LOOP record. */
static inline int rd_loop_op(struct trace_iter *stack, uint32_t *depth, const struct cht_rec *rec)
{
    const struct cht_rec_loop *l = (const void *)rec;
    uint32_t i;

    switch (rec->aux) {
    case CHT_LOOP_ENTER:
        if (*depth >= RD_MAX_LOOP_DEPTH)
            return -1;
        stack[*depth] = (struct trace_iter){l->loop, 0, 0};
        ++*depth;
        return 0;
    case CHT_LOOP_ITER:
        for (i = *depth; i-- > 0;)
            if (stack[i].loop == l->loop) {
                stack[i].iter++;
                return 0;
            }
        /* not entered (the stream started inside it): tolerate */
        if (*depth >= RD_MAX_LOOP_DEPTH)
            return -1;
        stack[*depth] = (struct trace_iter){l->loop, 0, 1};
        ++*depth;
        return 0;
    case CHT_LOOP_EXIT:
        for (i = *depth; i-- > 0;)
            if (stack[i].loop == l->loop) {
                *depth = i;
                break;
            }
        return 0;
    }
    return -2;
}

#endif /* COMMHINT_READER_PRIVATE_H */
