/* fuzz-hints.c - libFuzzer harness for the hints pipeline, what `commhint
 * hints` does: the input (a trace directory, format in fuzz-common.h) is
 * opened, every rank of the world that has a stream is analysed with
 * search_run_rank (streaming engine; with FZ_MODE_REFERENCE the reference
 * engine too on small traces), each result goes through the --parallel
 * wire format (pack, unpack, pack again: both packs must be equal), and the
 * results are merged with search_report_build, whose hints are then
 * formatted (messages, iteration boxes) as the CLI prints them.
 *
 * Whatever memory a trace claims to touch, it is analysed: the shadow
 * memory stops at the limit set here (SHADOW_LIMIT, as COMMHINT_MAX_MEMORY
 * would), and a rank that needs more fails with TRACE_ERR_LIMIT, which is
 * the analysis's bound (docs/reliability.md, "What reading costs").  Only
 * traces whose ranks hold more than MAX_EVENTS events (a few bytes of
 * REPEAT records can stand for millions) or whose accesses add up to more
 * than MAX_BYTES bytes (the shadow does work per 4 bytes of an access up to
 * 16 MiB long) are read and not analysed, both counted without expanding
 * the repeats: the analysis's time is linear in both by design, which is
 * not a finding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz-common.h"
#include "pack.h"

#define MAX_EVENTS 20000u    /* per rank, analysed */
#define MAX_REFERENCE 3000u  /* per rank, also with the quadratic reference engine */
#define SHADOW_LIMIT ((size_t)256 << 20) /* bytes of shadow memory, all ranks together */
#define MAX_BYTES (64ull << 20)   /* per rank: bytes touched by accesses up to BIG_BYTES */
#define BIG_BYTES (4096ull << 12) /* longer accesses cost one entry (depgraph/shadow.c) */

static volatile uint64_t sink;

static void need_message(int rc, const char *msg, const char *what)
{
    if (rc < 0 && (!msg || !msg[0])) {
        fprintf(stderr, "fuzz-hints: %s failed with status %d but no message\n", what, rc);
        abort();
    }
}

/* The shadow memory's work for one access: its bytes, up to BIG_BYTES
 * (a longer one is kept whole, at the cost of one entry). */
static uint64_t work(uint64_t len)
{
    return len > BIG_BYTES ? 0 : len;
}

/* Events of a rank as the cursor counts them, runs counted without being
 * expanded (a REPEAT record costs its period), and in *bytes what they
 * touch (work above); 0 if it cannot be read. */
static uint64_t count_events(struct trace *t, int rank, uint64_t *bytes)
{
    struct trace_cursor *c;
    struct trace_cursor_stats st;
    const struct trace_event *ev;
    const struct trace_run *run;

    *bytes = 0;
    if (trace_cursor_open(t, rank, TRACE_CURSOR_RUNS, &c, NULL) < 0)
        return 0;
    while (trace_cursor_next_run(c, &ev, &run) > 0) {
        if (run) {
            for (uint32_t p = 0; p < run->period; p++)
                for (uint32_t k = 0; k < run->ph[p].ev.nranges; k++)
                    *bytes += run->reps * work(run->ph[p].ev.ranges[k].len);
            continue;
        }
        for (uint32_t k = 0; k < ev->nranges; k++)
            *bytes += work(ev->ranges[k].len);
        if (ev->kind == TRACE_EV_MPI)
            *bytes += work(ev->mpi->sbytes) + work(ev->mpi->rbytes);
    }
    trace_cursor_stats(c, &st);
    trace_cursor_close(c);
    return st.comp_events + st.mpi_events;
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

    dg_shadow_set_limit(SHADOW_LIMIT);
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
        uint64_t bytes;
        events[r] = count_events(t, r, &bytes);
        if (events[r] > MAX_EVENTS || bytes > MAX_BYTES) {
            if (getenv("COMMHINT_FUZZ_VERBOSE"))
                fprintf(stderr, "fuzz-hints: not analysed: rank=%d has more than MAX_EVENTS events or MAX_BYTES bytes\n", r);
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
