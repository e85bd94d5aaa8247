/* fuzz-hints.c - libFuzzer harness for the hints pipeline, what `commhint
 * hints` does: the input (a trace directory, format in fuzz-common.h) is
 * opened, every rank of the world that has a stream is analysed with
 * search_run_rank (streaming engine; with FZ_MODE_REFERENCE the reference
 * engine too on small traces), each result goes through the --parallel
 * wire format (pack, unpack, pack again: both packs must be equal), and the
 * results are merged with search_report_build, whose hints are then
 * formatted (messages, iteration boxes) as the CLI prints them.
 *
 * Traces that decode to more than MAX_EVENTS events per rank (a few bytes
 * of REPEAT records can stand for millions), whose accesses touch more than
 * MAX_PAGES distinct 4 KiB pages (the analysis keeps up to 80 KiB of shadow
 * per page touched), or more than MAX_BYTES bytes in all (the shadow
 * memory does work per 4 bytes of each access up to 16 MiB long), are only
 * read, not analysed: their cost is the analysis's normal cost, by design,
 * not a finding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "pack.h"

#define MAX_EVENTS 20000u    /* per rank, analysed */
#define MAX_LOOPS 200000u    /* per rank: loop records, only decoded */
#define MAX_REFERENCE 3000u  /* per rank, also with the quadratic reference engine */
#define MAX_PAGES 4096u      /* per rank: distinct pages touched */
#define MAX_BYTES (64ull << 20) /* per rank: bytes touched by accesses up to BIG_BYTES */
#define BIG_BYTES (4096ull << 12) /* longer accesses cost one entry (depgraph/shadow.c) */

static volatile uint64_t sink;

static void need_message(int rc, const char *msg, const char *what)
{
    if (rc < 0 && (!msg || !msg[0])) {
        fprintf(stderr, "fuzz-hints: %s failed with status %d but no message\n", what, rc);
        abort();
    }
}

/* Adds the pages of [addr, addr + len) to the set and len to *bytes; false
 * once the set holds more than MAX_PAGES or *bytes exceeds MAX_BYTES. */
static bool add_pages(struct dg_map *pages, uint64_t *bytes, uint64_t addr, uint64_t len)
{
    if (!len || len > BIG_BYTES || addr + len < addr)
        return true;
    if ((*bytes += len) > MAX_BYTES)
        return false;
    for (uint64_t p = addr >> 12; p <= (addr + len - 1) >> 12; p++)
        if (!dg_map_put(pages, p, 1) || pages->n > MAX_PAGES)
            return false;
    return true;
}

/* Events of a rank, counted up to limit + 1 (0 if it cannot be read); limit
 * + 1 also if they touch more than MAX_PAGES pages or MAX_BYTES bytes, or
 * come with more than MAX_LOOPS loop records (one REPEAT record can stand
 * for 2^20 of them, which a cursor without loop events reads in one call). */
static uint64_t count_events(struct trace *t, int rank, uint64_t limit)
{
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct dg_map pages = {0};
    uint64_t n = 0, loops = 0, bytes = 0;
    bool ok = true;

    if (trace_cursor_open(t, rank, TRACE_CURSOR_LOOPS, &c, NULL) < 0)
        return 0;
    while (ok && n <= limit && trace_cursor_next(c, &ev) > 0) {
        if (ev->kind == TRACE_EV_LOOP) {
            ok = ++loops <= MAX_LOOPS;
            continue;
        }
        n++;
        for (uint32_t i = 0; ok && i < ev->nranges; i++)
            ok = add_pages(&pages, &bytes, ev->ranges[i].addr, ev->ranges[i].len);
        if (ev->kind == TRACE_EV_MPI)
            ok = ok && add_pages(&pages, &bytes, ev->mpi->sbuf, ev->mpi->sbytes) &&
                 add_pages(&pages, &bytes, ev->mpi->rbuf, ev->mpi->rbytes);
    }
    trace_cursor_close(c);
    dg_map_free(&pages);
    return ok ? n : limit + 1;
}

/* pack -> unpack -> pack gives the same bytes. */
static void check_roundtrip(const struct search_rank_result *r)
{
    struct search_rank_result *back = NULL;
    struct trace_err err;
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    int rc;

    if (search_rank_result_pack(r, &a, &na) < 0)
        return;
    err.msg[0] = '\0';
    rc = search_rank_result_unpack(a, na, &back, &err);
    if (rc < 0) {
        fprintf(stderr, "fuzz-hints: a packed result does not unpack: %s\n", err.msg);
        abort();
    }
    if (search_rank_result_pack(back, &b, &nb) == 0 && (na != nb || memcmp(a, b, na))) {
        fprintf(stderr, "fuzz-hints: pack(unpack(pack(r))) != pack(r): bytes=%zu and %zu\n", na,
                nb);
        abort();
    }
    search_rank_result_free(back);
    free(a);
    free(b);
}

static void touch_str(const char *s)
{
    if (s)
        sink += strlen(s);
}

static void touch_boxes(const struct search_boxes *b)
{
    char buf[512];

    for (uint32_t i = 0; i < b->n; i++)
        touch_str(search_box_format(&b->box[i], buf, sizeof(buf)));
}

static void touch_hints(const struct search_hint *h, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        char *m = search_hint_message(&h[i], false);
        touch_str(m);
        free(m);
        touch_str(h[i].message);
        touch_str(h[i].explain);
        touch_str(h[i].file);
        touch_str(h[i].func);
        touch_str(h[i].collective);
        touch_boxes(&h[i].iters);
        for (int k = 0; k < h[i].nranks; k++)
            sink += (unsigned)h[i].ranks[k];
        for (uint32_t k = 0; k < h[i].nrelated; k++) {
            touch_str(h[i].related[k].file);
            touch_str(h[i].related[k].func);
            touch_boxes(&h[i].related[k].iters);
        }
        if (i > 0)
            sink += (unsigned)search_hint_location_cmp(&h[i - 1], &h[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fz_scratch_dir();
    struct fz_files files;
    struct trace *t = NULL;
    struct trace_err err;
    struct search_rank_result *res[FZ_MAX_RANKS] = {0};
    struct search_report *rep = NULL;
    struct search_opts opts = {0};
    struct search_report_opts ropts = {.rank = -1};
    uint64_t events[FZ_MAX_RANKS] = {0};
    int world, nres = 0, rc;

    if (fz_write_dir(data, size, dir, &files) < 0) {
        perror("fuzz-hints: cannot write the input's trace directory");
        abort();
    }
    err.msg[0] = '\0';
    rc = trace_open(dir, &t, &err);
    need_message(rc, err.msg, "trace_open");
    if (rc < 0)
        return 0;
    /* the ranks `commhint hints` analyses: 0 .. world_size-1 with a stream */
    world = trace_world_size(t);
    for (int r = 0; r < world && r < files.nranks; r++) {
        events[r] = count_events(t, r, MAX_EVENTS);
        if (events[r] > MAX_EVENTS) {
            if (getenv("COMMHINT_FUZZ_VERBOSE"))
                fprintf(stderr, "fuzz-hints: not analysed: rank=%d is over the limits\n", r);
            goto out;
        }
    }
    if (files.mode & FZ_MODE_HORIZON)
        opts.horizon = 64;
    for (int r = 0; r < world && r < files.nranks; r++) {
        struct search_rank_result *rr = NULL;
        if (!trace_has_rank(t, r))
            continue;
        err.msg[0] = '\0';
        rc = search_run_rank(t, r, &opts, NULL, NULL, &rr, &err);
        need_message(rc, err.msg, "search_run_rank");
        if (rc < 0)
            continue;
        if ((files.mode & FZ_MODE_REFERENCE) && events[r] <= MAX_REFERENCE) {
            struct search_opts ref = opts;
            struct search_rank_result *rf = NULL;
            ref.engine = SEARCH_ENGINE_REFERENCE;
            err.msg[0] = '\0';
            rc = search_run_rank(t, r, &ref, NULL, NULL, &rf, &err);
            need_message(rc, err.msg, "search_run_rank (reference)");
            search_rank_result_free(rf);
        }
        check_roundtrip(rr);
        res[nres++] = rr;
    }
    if (!nres)
        goto out;
    rc = search_report_build(res, nres, world, &ropts, &rep);
    if (rc < 0)
        goto out;
    touch_hints(rep->hints, rep->nhints);
    touch_hints(rep->dropped, rep->ndropped);
    for (uint32_t i = 0; i < rep->nwaits; i++) {
        touch_str(rep->waits[i].file);
        touch_str(rep->waits[i].func);
        sink += rep->waits[i].late_sender_ns + rep->waits[i].wait_collective_ns;
    }
    sink += rep->unmatched_sends + rep->unmatched_recvs + rep->incomplete_colls;
out:
    search_report_free(rep);
    for (int k = 0; k < nres; k++)
        search_rank_result_free(res[k]);
    trace_close(t);
    return 0;
}
