/* pack.c - rank results as bytes, for `commhint hints --parallel` (the
 * MPI driver is search/parallel/driver.c; this file needs no MPI, so the
 * viewer and the fuzzers link it without MPICH).
 *
 * A result travels as a byte buffer (search_rank_result_pack): versioned,
 * little-endian, every array preceded by its count, and unpacked by a reader
 * that checks every length against what is left.  Site info pointers do not
 * travel: the packer sends one flag per site reference (resolved or not
 * where it was analysed) and process 0 resolves them again through its own
 * cursor on the rank, reading the rank's stream only until every flagged
 * site is known (the TU records that map a rank's site ids come with its
 * stream, usually in the first chunk).  Loop lines in iteration boxes are
 * plain numbers and travel with the boxes.  The bundles a process sends
 * are described in pack.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack-bytes.h"

#include "rank/kind.h"

/* The packer below and the kinds' pack methods write every field of these
 * structs; a field added to one of them must be added to the packer, the
 * unpacker and the format version, and these sizes (of the LP64 layout)
 * updated (kind_data travels through its kinds' pack methods).  A field put in
 * a padding hole does not change a size: look for those by hand. */
#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct search_rank_result) == 368,
               "search_rank_result changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct search_overlap) == 448, "search_overlap changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct search_lead) == 64, "search_lead changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct search_window) == 24, "search_window changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct search_group_span) == 40, "search_group_span changed: update search/rank/kinds/aggregate.c");
_Static_assert(sizeof(struct search_stmt) == 72, "search_stmt changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct search_group) == 112, "search_group changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct search_group_check) == 40,
               "search_group_check changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct search_closed) == 88, "search_closed changed: update search/rank/kinds/aggregate.c");
_Static_assert(sizeof(struct search_siteinfo) == 16, "search_siteinfo changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct search_box) == 200, "search_box changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct search_boxes) == 24, "search_boxes changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct dg_mpilog) == 112, "dg_mpilog changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct dg_consumer) == 40, "dg_consumer changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct dg_clock) == 24, "dg_clock changed: update search/parallel/pack.c");
_Static_assert(sizeof(struct dg_msgrec) == 112, "dg_msgrec changed: update search/parallel/pack.c");
#endif

#define RES_MAGIC 0x52524843u    /* "CHRR": one packed rank result */
#define BUNDLE_MAGIC 0x42504843u /* "CHPB": what one process sends to process 0 */
#define PACK_VERSION 19u /* 19: search_group_check.move_off/nmoves, search_rank_result.check_moves (the deadlock check's moves of the log); 18: search_rank_result.span_merged as struct search_merged_send (the merged sends' record times, for the bound on what a merge saves); 17: search_group_span.carry/first_send/merge_off/nmerged, search_rank_result.span_merged/site_sends (the aggregation facts of the log); 16: search_lead.pos/t_enter/t_exit/fw_exit, search_overlap.recv_bufs_apart/args_differ (the overlap facts of the log); 15: dg_mpilog.cpu (the CPU times beside the records); 14: dg_mpilog.cons (the consumers beside the records); 13: search_overlap.dep_loops; 12: search_overlap.back_empty/fwd_empty, their _outside, fwd_chained, back_others/fwd_others; 11: search_overlap.dep_site/use_site; 10: dg_msgrec.cpu_enter/cpu_exit, dg_mpilog.host; 9: search_lead.after_ns and fw_end, search_rank_result.spans; 4: unknown_producers after cut_short; 5: search_group.call; 6: needs_buffer;
                            7: closed pairs; 8: needs-buffer overlaps */

/* Bytes on the wire of the fixed parts, for count checks (the kinds'
 * parts have theirs). */
#define SITEINFO_BYTES 5u
#define REC_BYTES (8u + 4 + 2 + 1 + 1 + 4 + 4 + 4 + 8 + 8 + 4 + 4 + 8 * 8 + 2)
#define CPU_BYTES 16u
#define CONS_BYTES (4u + 8 + 4 + 1 + 1 + 4 + 8 + 8)

/* ---- one rank result ---------------------------------------------------------------- */

/* Replaced by resolve_sites. */
const struct trace_site_info search_pending_site = {
    .id = UINT32_MAX, .file = "", .func = "", .loop = UINT32_MAX};

void pk_boxes(struct pk_buf *b, const struct search_boxes *x)
{
    pk_u32(b, x->n);
    pk_u64(b, x->more);
    for (uint32_t i = 0; i < x->n; i++) {
        const struct search_box *box = &x->box[i];
        uint32_t depth = box->depth < SEARCH_BOX_DEPTH ? box->depth : SEARCH_BOX_DEPTH;
        pk_u32(b, depth);
        for (uint32_t d = 0; d < depth; d++) {
            pk_u32(b, box->dim[d].loop);
            pk_u32(b, box->dim[d].line);
            pk_u64(b, box->dim[d].lo);
            pk_u64(b, box->dim[d].hi);
        }
    }
}

void rd_boxes(struct pk_rd *r, struct search_boxes *x)
{
    uint32_t n = rd_count(r, BOX_MIN);
    x->more = rd_u64(r);
    if (r->bad || !n)
        return;
    if (!(x->box = rd_alloc(r, n, sizeof *x->box)))
        return;
    x->cap = n;
    for (uint32_t i = 0; i < n && !r->bad; i++) {
        struct search_box *box = &x->box[i];
        uint32_t depth = rd_u32(r);
        if (depth > SEARCH_BOX_DEPTH) {
            rd_fail(r, "box deeper than SEARCH_BOX_DEPTH");
            break;
        }
        box->depth = depth;
        for (uint32_t d = 0; d < depth; d++) {
            box->dim[d].loop = rd_u32(r);
            box->dim[d].line = rd_u32(r);
            box->dim[d].lo = rd_u64(r);
            box->dim[d].hi = rd_u64(r);
        }
        x->n = i + 1;
    }
}

static void pk_msgrec(struct pk_buf *b, const struct dg_msgrec *m)
{
    pk_u64(b, m->index);
    pk_u32(b, m->site);
    pk_u16(b, m->call);
    pk_u8(b, m->kind);
    pk_u8(b, m->role);
    pk_u32(b, m->flags);
    pk_i32(b, m->peer);
    pk_i32(b, m->tag);
    pk_u64(b, m->comm);
    pk_u64(b, m->seq);
    pk_u32(b, m->comm_size);
    pk_u32(b, m->use_site);
    pk_u64(b, m->t_enter);
    pk_u64(b, m->t_exit);
    pk_u64(b, m->buf);
    pk_u64(b, m->bytes);
    pk_u64(b, m->rbuf);
    pk_u64(b, m->rbytes);
    pk_u64(b, m->version);
    pk_u64(b, m->fwd_pos);
    pk_u8(b, m->mpi_op);
    pk_u8(b, m->dtype);
}

static void pk_consumer(struct pk_buf *b, const struct dg_consumer *c)
{
    pk_u32(b, c->pos);
    pk_u64(b, c->index);
    pk_u32(b, c->site);
    pk_u8(b, c->op);
    pk_u8(b, c->kind);
    pk_u32(b, c->flags);
    pk_u64(b, c->addr);
    pk_u64(b, c->len);
}

static void rd_consumer(struct pk_rd *r, struct dg_consumer *c)
{
    c->pos = rd_u32(r);
    c->index = rd_u64(r);
    c->site = rd_u32(r);
    c->op = rd_u8(r);
    c->kind = rd_u8(r);
    c->flags = rd_u32(r);
    c->addr = rd_u64(r);
    c->len = rd_u64(r);
}

static void rd_msgrec(struct pk_rd *r, struct dg_msgrec *m)
{
    m->index = rd_u64(r);
    m->site = rd_u32(r);
    m->call = rd_u16(r);
    m->kind = rd_u8(r);
    m->role = rd_u8(r);
    uint32_t flags = rd_u32(r);
    if (flags > UINT16_MAX)
        rd_fail(r, "an MPI record's flags are out of range");
    m->flags = (uint16_t)flags;
    m->peer = rd_i32(r);
    m->tag = rd_i32(r);
    m->comm = rd_u64(r);
    m->seq = rd_u64(r);
    m->comm_size = rd_u32(r);
    m->use_site = rd_u32(r);
    m->t_enter = rd_u64(r);
    m->t_exit = rd_u64(r);
    m->buf = rd_u64(r);
    m->bytes = rd_u64(r);
    m->rbuf = rd_u64(r);
    m->rbytes = rd_u64(r);
    m->version = rd_u64(r);
    uint64_t fwd = rd_u64(r);
    if (fwd > UINT32_MAX)
        rd_fail(r, "an MPI record names a log position out of range");
    m->fwd_pos = (uint32_t)fwd;
    m->mpi_op = rd_u8(r);
    m->dtype = rd_u8(r);
}

static void pk_clock(struct pk_buf *b, const struct dg_clock *c)
{
    pk_u64(b, c->mono_ns);
    pk_u64(b, c->real_ns);
    pk_u8(b, c->valid ? 1 : 0);
}

static void rd_clock(struct pk_rd *r, struct dg_clock *c)
{
    c->mono_ns = rd_u64(r);
    c->real_ns = rd_u64(r);
    c->valid = rd_bool(r);
}

/* Appends r to b (the format is in search.h, "parallel analysis"). */
static void pack_result(struct pk_buf *b, const struct search_rank_result *r, bool records)
{
    size_t start = b->len;
    pk_u32(b, RES_MAGIC);
    pk_u16(b, PACK_VERSION);
    pk_u16(b, 0);
    pk_u64(b, 0); /* total bytes, patched at the end */
    pk_i32(b, r->rank);
    pk_u8(b, r->cut_short ? 1 : 0);
    pk_u64(b, r->unknown_producers);
    pk_u64(b, r->events);
    pk_u64(b, r->comp_events);
    pk_u64(b, r->mpi_events);
    pk_u64(b, r->t_first);
    pk_u64(b, r->t_last);
    pk_f64(b, r->msg_latency_ns);
    pk_u64(b, r->peak_bytes);

    for (unsigned k = 0; k < search_kinds_count(); k++)
        if (search_kinds_get(k)->pack)
            search_kinds_get(k)->pack(b, r);

    const struct dg_mpilog *log = &r->log;
    pk_i32(b, log->rank);
    pk_u8(b, log->cut_short ? 1 : 0);
    pk_clock(b, &log->clock[0]);
    pk_clock(b, &log->clock[1]);
    pk_u32(b, log->host.cpus);
    pk_u32(b, log->host.node_ranks);
    pk_u32(b, log->host.host_id);
    /* without records: the header only (clocks and host) */
    uint32_t n = records ? log->n : 0, ncons = records ? log->ncons : 0;
    pk_u32(b, n);
    if (pk_reserve(b, (size_t)n * REC_BYTES))
        for (uint32_t i = 0; i < n; i++)
            pk_msgrec(b, &log->rec[i]);
    pk_u32(b, log->cpu ? n : 0); /* the CPU times: none, or one per record */
    if (log->cpu && pk_reserve(b, (size_t)n * CPU_BYTES))
        for (uint32_t i = 0; i < n; i++) {
            pk_u64(b, log->cpu[i].enter);
            pk_u64(b, log->cpu[i].exit);
        }
    pk_u32(b, ncons);
    if (pk_reserve(b, (size_t)ncons * CONS_BYTES))
        for (uint32_t i = 0; i < ncons; i++)
            pk_consumer(b, &log->cons[i]);

    pk_u32(b, r->nsiteinfo);
    for (uint32_t i = 0; i < r->nsiteinfo; i++) {
        pk_u32(b, r->siteinfo[i].site);
        pk_u8(b, r->siteinfo[i].info ? 1 : 0);
    }
    pk_patch_u64(b, start + 8, b->len - start);
}

/* Unpacks one result of exactly len bytes.  Returns 0, or
 * TRACE_ERR_FORMAT / TRACE_ERR_VERSION / TRACE_ERR_NOMEM with why set. */
static int unpack_result(const uint8_t *p, size_t len, struct search_rank_result **out, const char **why)
{
    struct pk_rd rd = {.p = p, .len = len};
    struct pk_rd *r = &rd;
    struct search_rank_result *res = NULL;
    int rc = TRACE_ERR_FORMAT;

    *out = NULL;
    *why = NULL;
    if (rd_u32(r) != RES_MAGIC) {
        rd_fail(r, "not a packed rank result (bad magic)");
        goto out;
    }
    uint16_t version = rd_u16(r);
    rd_u16(r);
    uint64_t total = rd_u64(r);
    if (!r->bad && version != PACK_VERSION) {
        *why = "packed by another version of commhint";
        rc = TRACE_ERR_VERSION;
        goto out;
    }
    if (!r->bad && total != len)
        rd_fail(r, "recorded length differs from the buffer's");
    if (r->bad)
        goto out;
    if (!(res = rd_alloc(r, 1, sizeof *res)))
        goto out;
    res->rank = rd_i32(r);
    res->cut_short = rd_bool(r);
    res->unknown_producers = rd_u64(r);
    res->events = rd_u64(r);
    res->comp_events = rd_u64(r);
    res->mpi_events = rd_u64(r);
    res->t_first = rd_u64(r);
    res->t_last = rd_u64(r);
    res->msg_latency_ns = rd_f64(r);
    res->peak_bytes = rd_u64(r);
    if (!r->bad && res->rank < 0)
        rd_fail(r, "negative rank");

    for (unsigned k = 0; k < search_kinds_count() && !r->bad; k++)
        if (search_kinds_get(k)->unpack)
            search_kinds_get(k)->unpack(r, res);

    struct dg_mpilog *log = &res->log;
    log->rank = rd_i32(r);
    log->cut_short = rd_bool(r);
    rd_clock(r, &log->clock[0]);
    rd_clock(r, &log->clock[1]);
    log->host.cpus = rd_u32(r);
    log->host.node_ranks = rd_u32(r);
    log->host.host_id = rd_u32(r);
    if (!r->bad && log->rank != res->rank)
        rd_fail(r, "the MPI log is another rank's");
    uint32_t n = rd_count(r, REC_BYTES);
    if (n && (log->rec = rd_alloc(r, n, sizeof *log->rec))) {
        log->n = log->cap = n;
        for (uint32_t i = 0; i < n && !r->bad; i++) {
            rd_msgrec(r, &log->rec[i]);
            if (!r->bad && (log->rec[i].flags & DG_MSGF_FORWARD) && log->rec[i].fwd_pos >= n)
                rd_fail(r, "forwarded send names a log position past the end");
        }
    }
    n = rd_count(r, CPU_BYTES);
    if (n && !r->bad && n != log->n)
        rd_fail(r, "CPU times of another number of records");
    else if (n && (log->cpu = rd_alloc(r, n, sizeof *log->cpu)))
        for (uint32_t i = 0; i < n && !r->bad; i++) {
            log->cpu[i].enter = rd_u64(r);
            log->cpu[i].exit = rd_u64(r);
        }
    n = rd_count(r, CONS_BYTES);
    if (n && (log->cons = rd_alloc(r, n, sizeof *log->cons))) {
        log->ncons = log->capcons = n;
        for (uint32_t i = 0; i < n && !r->bad; i++) {
            rd_consumer(r, &log->cons[i]);
            /* dg_consumer_of searches them by position */
            if (!r->bad && (log->cons[i].pos >= log->n || (i && log->cons[i].pos <= log->cons[i - 1].pos)))
                rd_fail(r, "a consumer's record position is past the end or out of order");
        }
    }

    n = rd_count(r, SITEINFO_BYTES);
    if (n && (res->siteinfo = rd_alloc(r, n, sizeof *res->siteinfo)))
        res->nsiteinfo = n;
    for (uint32_t i = 0; i < res->nsiteinfo && !r->bad; i++) {
        res->siteinfo[i].site = rd_u32(r);
        res->siteinfo[i].info = rd_site_flag(r);
    }

    if (!r->bad && r->off != r->len)
        rd_fail(r, "bytes left after the result");
    if (r->bad) {
        rc = r->why && !strcmp(r->why, "out of memory") ? TRACE_ERR_NOMEM : TRACE_ERR_FORMAT;
        goto out;
    }
    *out = res;
    res = NULL;
    rc = 0;
out:
    if (rc < 0 && !*why)
        *why = r->why ? r->why : "malformed";
    search_rank_result_free(res);
    return rc;
}

int search_rank_result_pack(const struct search_rank_result *r, void **buf, size_t *len)
{
    struct pk_buf b = {0};
    *buf = NULL;
    *len = 0;
    if (!r)
        return TRACE_ERR_ARG;
    pack_result(&b, r, true);
    if (b.nomem) {
        free(b.p);
        return TRACE_ERR_NOMEM;
    }
    *buf = b.p;
    *len = b.len;
    return 0;
}

int search_rank_result_unpack(const void *buf, size_t len, struct search_rank_result **out,
                              struct trace_err *err)
{
    const char *why;
    *out = NULL;
    if (!buf && len)
        return TRACE_ERR_ARG;
    int rc = unpack_result(buf, len, out, &why);
    if (rc < 0 && err)
        snprintf(err->msg, sizeof err->msg, "cannot unpack a rank result: bytes=%zu reason=%s", len, why);
    return rc;
}

/* ---- resolving site ids on process 0 ---------------------------------------------------- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The pending references of a result: their ids collected (ids, with
 * room for n) or counted (ids NULL), or, with c, replaced by the cursor's
 * infos. */
struct pending {
    uint32_t *ids;
    size_t n;
    struct trace_cursor *c;
};

static bool pending_site(void *ctx, uint32_t site, const struct trace_site_info **info)
{
    struct pending *p = ctx;
    if (*info != &search_pending_site)
        return false;
    if (p->c)
        *info = trace_cursor_site(p->c, site);
    else if (p->ids)
        p->ids[p->n] = site;
    p->n++;
    return false;
}

/* Walks the references of the kinds and the MPI log's.  Returns their
 * count. */
static size_t walk_pending(struct search_rank_result *r, uint32_t *ids, struct trace_cursor *c)
{
    struct pending p = {ids, 0, c};
    struct search_site_visitor v = {.site = pending_site, .ctx = &p};
    for (unsigned k = 0; k < search_kinds_count(); k++)
        if (search_kinds_get(k)->visit)
            search_kinds_get(k)->visit(r, &v);
    for (uint32_t i = 0; i < r->nsiteinfo; i++)
        pending_site(&p, r->siteinfo[i].site, &r->siteinfo[i].info);
    return p.n;
}

/* Replaces the placeholders of an unpacked result by this process's infos:
 * opens a cursor on the rank and reads its events only until every site
 * resolved where the result was packed is known here too. */
static int resolve_sites(struct trace *t, struct search_rank_result *r, struct trace_err *err)
{
    struct trace_cursor *c = NULL;
    uint32_t *ids = NULL;
    size_t n = walk_pending(r, NULL, NULL);
    int rc;

    if (!n)
        return 0;
    if (!(ids = malloc(n * sizeof *ids))) {
        snprintf(err->msg, sizeof err->msg, "out of memory: rank=%d", r->rank);
        return TRACE_ERR_NOMEM;
    }
    walk_pending(r, ids, NULL);
    qsort(ids, n, sizeof *ids, cmp_u32);
    if ((rc = trace_cursor_open(t, r->rank, TRACE_CURSOR_CONTEXTS, &c, err)) < 0)
        goto out;
    for (size_t k = 0; k < n;) {
        if (k && ids[k] == ids[k - 1]) {
            k++;
            continue;
        }
        if (trace_cursor_site(c, ids[k])) {
            k++;
            continue;
        }
        const struct trace_event *ev;
        rc = trace_cursor_next(c, &ev);
        if (rc < 0) {
            snprintf(err->msg, sizeof err->msg, "%s", trace_cursor_error(c));
            goto out;
        }
        if (rc == 0) {
            snprintf(err->msg, sizeof err->msg,
                     "a site another process found is unknown to process 0: rank=%d site=%" PRIu32, r->rank,
                     ids[k]);
            rc = TRACE_ERR_MISMATCH;
            goto out;
        }
    }
    walk_pending(r, NULL, c);
    rc = 0;
out:
    trace_cursor_close(c);
    free(ids);
    return rc;
}

/* ---- bundles ------------------------------------------------------------------------ */

/* Bundle items. */
enum { ITEM_RESULT = 1, ITEM_FAILURE = 2 };

static void pk_msg(struct pk_buf *b, const char *msg)
{
    size_t n = strnlen(msg, sizeof(((struct trace_err *)0)->msg) - 1);
    pk_u32(b, (uint32_t)n);
    pk_bytes(b, msg, n);
}

/* A message of at most 511 bytes into out (NUL-terminated). */
static void rd_msg(struct pk_rd *r, char *out, size_t size)
{
    uint32_t n = rd_u32(r);
    out[0] = '\0';
    if (r->bad)
        return;
    if (n >= size || n > r->len - r->off) {
        rd_fail(r, "message too long");
        return;
    }
    memcpy(out, r->p + r->off, n);
    out[n] = '\0';
    r->off += n;
}

static void pk_bundle_header(struct pk_buf *b, int32_t status, uint32_t nitems)
{
    pk_u32(b, BUNDLE_MAGIC);
    pk_u16(b, PACK_VERSION);
    pk_u16(b, 0);
    pk_i32(b, status);
    pk_u32(b, nitems);
}


int search_collected_add_result(struct search_collected *c, struct search_rank_result *r)
{
    if (c->nres == c->capres) {
        int cap = c->capres ? 2 * c->capres : 16;
        void *p = realloc(c->res, (size_t)cap * sizeof *c->res);
        if (!p)
            return TRACE_ERR_NOMEM;
        c->res = p;
        c->capres = cap;
    }
    c->res[c->nres++] = r;
    return 0;
}

int search_collected_add_failure(struct search_collected *c, int rank, int status, const char *msg)
{
    if (c->nfail == c->capfail) {
        int cap = c->capfail ? 2 * c->capfail : 8;
        void *p = realloc(c->fail, (size_t)cap * sizeof *c->fail);
        if (!p)
            return TRACE_ERR_NOMEM;
        c->fail = p;
        c->capfail = cap;
    }
    struct search_rank_failure *f = &c->fail[c->nfail++];
    memset(f, 0, sizeof *f);
    f->rank = rank;
    f->status = status;
    snprintf(f->msg, sizeof f->msg, "%s", msg ? msg : "");
    return 0;
}

/* Unpacks the bundle of process src into c and resolves its sites. */
int search_bundle_unpack(struct trace *t, int src, const uint8_t *p, size_t len, const int *owner, int world,
                         struct search_collected *c, struct trace_err *err)
{
    struct pk_rd rd = {.p = p, .len = len};
    struct pk_rd *r = &rd;
    char msg[sizeof err->msg];
    int rc;

    if (rd_u32(r) != BUNDLE_MAGIC || r->bad) {
        snprintf(err->msg, sizeof err->msg, "bad data from an analysis process: process=%d reason=bad magic",
                 src);
        return TRACE_ERR_FORMAT;
    }
    uint16_t version = rd_u16(r);
    rd_u16(r);
    int32_t status = rd_i32(r);
    uint32_t nitems = rd_u32(r);
    if (!r->bad && version != PACK_VERSION) {
        snprintf(err->msg, sizeof err->msg,
                 "an analysis process runs another version of commhint: process=%d version=%u", src, version);
        return TRACE_ERR_VERSION;
    }
    if (!r->bad && status < 0) {
        rd_msg(r, msg, sizeof msg);
        snprintf(err->msg, sizeof err->msg, "the analysis failed on process %d: %s", src,
                 r->bad ? trace_status_str(status) : msg);
        return status;
    }
    for (uint32_t i = 0; i < nitems && !r->bad; i++) {
        uint32_t kind = rd_u32(r);
        int32_t rank = rd_i32(r);
        if (r->bad)
            break;
        if (rank < 0 || rank >= world || owner[rank] != src) {
            rd_fail(r, "a rank the process was not given");
            break;
        }
        if (kind == ITEM_FAILURE) {
            int32_t st = rd_i32(r);
            rd_msg(r, msg, sizeof msg);
            if (r->bad)
                break;
            if ((rc = search_collected_add_failure(c, rank, st < 0 ? st : TRACE_ERR_FORMAT, msg)) < 0)
                goto nomem;
        } else if (kind == ITEM_RESULT) {
            uint64_t n = rd_u64(r);
            if (r->bad || n > r->len - r->off) {
                rd_fail(r, "length past end");
                break;
            }
            struct search_rank_result *res;
            const char *why;
            rc = unpack_result(r->p + r->off, (size_t)n, &res, &why);
            if (rc < 0) {
                snprintf(err->msg, sizeof err->msg,
                         "bad rank result from an analysis process: process=%d rank=%d reason=%s", src, rank,
                         why);
                return rc;
            }
            r->off += (size_t)n;
            if (res->rank != rank) {
                search_rank_result_free(res);
                rd_fail(r, "result of another rank");
                break;
            }
            if ((rc = resolve_sites(t, res, err)) < 0) {
                search_rank_result_free(res);
                return rc;
            }
            if ((rc = search_collected_add_result(c, res)) < 0) {
                search_rank_result_free(res);
                goto nomem;
            }
        } else {
            rd_fail(r, "unknown item");
        }
    }
    if (!r->bad && r->off != r->len)
        rd_fail(r, "bytes left after the last item");
    if (r->bad) {
        snprintf(err->msg, sizeof err->msg,
                 "bad data from an analysis process: process=%d offset=%zu reason=%s", src, r->off, r->why);
        return TRACE_ERR_FORMAT;
    }
    return 0;
nomem:
    snprintf(err->msg, sizeof err->msg, "out of memory: process=0");
    return TRACE_ERR_NOMEM;
}

static int cmp_result_rank(const void *a, const void *b)
{
    const struct search_rank_result *x = *(struct search_rank_result *const *)a;
    const struct search_rank_result *y = *(struct search_rank_result *const *)b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int cmp_failure_rank(const void *a, const void *b)
{
    const struct search_rank_failure *x = a, *y = b;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}


void search_collected_sort(struct search_collected *c)
{
    if (c->nres)
        qsort(c->res, (size_t)c->nres, sizeof *c->res, cmp_result_rank);
    if (c->nfail)
        qsort(c->fail, (size_t)c->nfail, sizeof *c->fail, cmp_failure_rank);
}

void search_collected_free(struct search_collected *c)
{
    for (int k = 0; k < c->nres; k++)
        search_rank_result_free(c->res[k]);
    free(c->res);
    free(c->fail);
    memset(c, 0, sizeof *c);
}

void search_bundle_begin(struct pk_buf *b)
{
    pk_bundle_header(b, 0, 0);
}

void search_bundle_add_result(struct pk_buf *b, int rank, const struct search_rank_result *r, bool records)
{
    pk_u32(b, ITEM_RESULT);
    pk_i32(b, rank);
    size_t at = b->len;
    pk_u64(b, 0);
    pack_result(b, r, records);
    pk_patch_u64(b, at, b->len - at - 8);
}

void search_bundle_add_failure(struct pk_buf *b, int rank, int status, const char *msg)
{
    pk_u32(b, ITEM_FAILURE);
    pk_i32(b, rank);
    pk_i32(b, status);
    pk_msg(b, msg);
}

void search_bundle_set_items(struct pk_buf *b, uint32_t nitems)
{
    /* the item count: bytes 12..15 of the header */
    if (b->nomem || b->len < 16)
        return;
    for (unsigned i = 0; i < 4; i++)
        b->p[12 + i] = (uint8_t)(nitems >> (8 * i));
}

bool search_bundle_failed(struct pk_buf *b, int status, const char *msg)
{
    free(b->p);
    memset(b, 0, sizeof *b);
    pk_bundle_header(b, status, 0);
    pk_msg(b, msg);
    if (!b->nomem)
        return false;
    /* the status alone, in 20 static bytes */
    static uint8_t tiny[20];
    free(b->p);
    *b = (struct pk_buf){.p = tiny, .cap = sizeof tiny};
    pk_bundle_header(b, status, 0);
    pk_u32(b, 0);
    return true;
}
