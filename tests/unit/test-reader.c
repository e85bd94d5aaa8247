/* test-reader.c - unit tests of tracelib/reader: writer-to-reader round trip
 * of every record type through synthetic traces (tests/unit/helpers/
 * tracegen.c), iteration vectors, site table validation, and the reader's
 * answer to each kind of damaged input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "helpers/tracegen.h"
#include "trace-reader.h"

#define RUN_ID 0x1122334455667788ull

#define ASSERT_HAS(msg, sub)                                                                   \
    do {                                                                                       \
        if (!strstr((msg), (sub)))                                                             \
            fail_msg("message \"%s\" lacks \"%s\"", (msg), (sub));                             \
    } while (0)

/* ---- fixtures ----------------------------------------------------------- */

/* Site table used by most tests: 3 sites, 2 loops, 2 accesses. */
static const char table_strings[] = "\0a.c\0f\0g";
#define S_FILE 1
#define S_F 5
#define S_G 7

static uint8_t *std_table(uint32_t *size)
{
    static const struct cht_site sites[3] = {
        { S_FILE, S_F, 10, 3, CHT_SITE_COMP, CHT_SOP_FADD, 1, CHT_SITEF_ACCUMULATE, 0, 2 },
        { S_FILE, S_F, 20, 5, CHT_SITE_MEMCPY, CHT_SOP_COPY, CHT_NONE, 0, 2, 0 },
        { S_FILE, S_G, 30, 7, CHT_SITE_CALL, CHT_SOP_NONE, 0, 0, 2, 0 },
    };
    static const struct cht_loop loops[2] = {
        { S_FILE, S_F, 5, 2, 1, CHT_NONE, 0 },
        { S_FILE, S_F, 6, 4, 2, 0, 0 },
    };
    static const struct cht_access acc[2] = { { 8, CHT_ACCESS_READ },
                                              { 4, CHT_ACCESS_WRITE } };
    static const uint32_t costs[3] = { 7, 40, 0 };

    return tg_table_costs(sites, 3, loops, 2, acc, 2, costs, table_strings, sizeof(table_strings),
                          size);
}

static uint64_t table_key(const uint8_t *blob)
{
    return ((const struct cht_tu_header *)blob)->tu_key;
}

static void write_meta_with(const char *dir, uint64_t run_id, const uint8_t *blob,
                            uint32_t size)
{
    static const char *const argv[] = { "/abs/prog", "-n", "5" };
    static const uint8_t bid[4] = { 0xde, 0xad, 0xbe, 0xef };
    struct tg_file *f = tg_create(tg_path(dir, CHT_META_FILE), CHT_MAGIC_META, run_id, -1, 2);

    tg_program(f, bid, 4, 3, argv, 2);
    if (blob)
        tg_site_table(f, blob, size);
    tg_end(f, 2, 1, 0);
    tg_close(f);
}

static void write_meta(const char *dir)
{
    uint32_t size;
    uint8_t *blob = std_table(&size);

    write_meta_with(dir, RUN_ID, blob, size);
    free(blob);
}

static struct tg_file *rank_file(const char *dir, int rank, uint64_t run_id)
{
    char name[64];

    snprintf(name, sizeof(name), CHT_RANK_FILE_FMT, rank);
    return tg_create(tg_path(dir, name), CHT_MAGIC_RANK, run_id, rank, 2);
}

static const char *rank_path(const char *dir, int rank)
{
    char name[64];

    snprintf(name, sizeof(name), CHT_RANK_FILE_FMT, rank);
    return tg_path(dir, name);
}

/* Rank stream with the standard TU mapping: sites 100.., loops 50.. */
static struct tg_file *std_rank(const char *dir)
{
    uint32_t size;
    uint8_t *blob = std_table(&size);
    struct tg_file *f = rank_file(dir, 0, RUN_ID);

    tg_tu(f, table_key(blob), 100, 3, 50, 2);
    free(blob);
    return f;
}

static char *dir;

static int setup(void **state)
{
    (void)state;
    dir = tg_tmpdir();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tg_rmdir(dir);
    free(dir);
    return 0;
}

/* Opens the trace and a cursor on rank 0 (both must succeed). */
static void open_rank0(struct trace **t, struct trace_cursor **c, unsigned flags)
{
    struct trace_err err = { "" };

    if (trace_open(dir, t, &err))
        fail_msg("trace_open: %s", err.msg);
    if (trace_cursor_open(*t, 0, flags, c, &err))
        fail_msg("trace_cursor_open: %s", err.msg);
}

/* Reads rank 0 to its end expecting status `want` from the last next(). */
static int drain(struct trace_cursor *c)
{
    const struct trace_event *ev;
    int ret;

    while ((ret = trace_cursor_next(c, &ev)) > 0)
        ;
    return ret;
}

/* ---- round trip --------------------------------------------------------- */

static void test_round_trip(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct trace_cursor_stats st;
    struct trace_err err;
    struct tg_file *f;
    struct cht_rec_mpi m;
    const uint8_t *bid;
    size_t bidlen;
    static const uint8_t mod_bid[3] = { 1, 2, 3 };
    uint64_t addr[2] = { 0x1000, 0x2000 };
    struct cht_range rg[2] = { { 0x3000, 64 }, { 0x4000, 32 | CHT_RANGE_WRITE } };
    struct cht_block blk[2] = { { 0, 16 }, { 16, 8 } };
    int32_t members[2] = { 1, 0 };
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    tg_module(f, 0x400000, 0x400000, 0x500000, mod_bid, 3, "/abs/prog");
    tg_clock(f, 0, 1000, 2000, 0.5);
    tg_comp(f, 100, 2, addr);
    tg_ranges(f, 101, 2, rg);
    memset(&m, 0, sizeof(m));
    m.h.aux = CHT_MPI_WAITALL;
    m.site = 102;
    m.t_enter = 5000;
    m.t_exit = 6000;
    m.ret_addr = 0x400123;
    tg_mpi(f, &m);
    tg_complete(f, 1, 7, 1, 42, 128, 3);
    tg_complete(f, 0, 8, 0, 0, 0, 0);
    memset(&m, 0, sizeof(m));
    m.h.aux = CHT_MPI_ALLTOALLV;
    m.site = CHT_NONE;
    m.t_enter = 7000;
    m.t_exit = 9000;
    m.comm_size = 2;
    tg_mpi(f, &m);
    tg_blocks(f, 0, 2, blk);
    tg_blocks(f, 1, 2, blk);
    memset(&m, 0, sizeof(m));
    m.h.aux = CHT_MPI_COMM_SPLIT;
    m.t_enter = 9500;
    m.t_exit = 9600;
    tg_mpi(f, &m);
    tg_comm(f, CHT_MPI_COMM_SPLIT, 0x100000000ull, 0, 2, 1, members);
    tg_lost(f, 1, 17);
    tg_flush(f);
    tg_clock(f, 1, 10000, 20000, 1.5);
    tg_end(f, 13, 1, 3);
    tg_close(f);

    if (trace_open(dir, &t, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(trace_world_size(t), 2);
    assert_true(trace_run_id(t) == RUN_ID);
    assert_string_equal(trace_program(t), "/abs/prog");
    assert_int_equal(trace_argc(t), 3);
    assert_string_equal(trace_argv(t, 1), "-n");
    assert_string_equal(trace_argv(t, 2), "5");
    assert_null(trace_argv(t, 3));
    bid = trace_build_id(t, &bidlen);
    assert_int_equal(bidlen, 4);
    assert_int_equal(bid[3], 0xef);
    assert_true(trace_has_rank(t, 0));
    assert_false(trace_has_rank(t, 1));
    ASSERT_HAS(trace_rank_path(t, 0), "rank-00000.chtr");
    assert_int_equal(memcmp(trace_meta_header(t)->magic, CHT_MAGIC_META, 8), 0);
    if (trace_cursor_open(t, 0, 0, &c, &err))
        fail_msg("%s", err.msg);

    /* COMP: ranges from the site's access list */
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->kind, TRACE_EV_COMP);
    assert_int_equal(ev->rank, 0);
    assert_int_equal(ev->index, 0);
    assert_int_equal(ev->site, 100);
    assert_non_null(ev->site_info);
    assert_int_equal(ev->site_info->id, 100);
    assert_string_equal(ev->site_info->file, "a.c");
    assert_string_equal(ev->site_info->func, "f");
    assert_int_equal(ev->site_info->line, 10);
    assert_int_equal(ev->site_info->col, 3);
    assert_int_equal(ev->site_info->op, CHT_SOP_FADD);
    assert_int_equal(ev->site_info->flags, CHT_SITEF_ACCUMULATE);
    assert_int_equal(ev->site_info->loop, 51); /* loop_base + local 1 */
    assert_int_equal(ev->site_info->cost, 7);
    assert_int_equal(ev->nranges, 2);
    assert_true(ev->ranges[0].addr == 0x1000 && ev->ranges[0].len == 8 && !ev->ranges[0].write);
    assert_true(ev->ranges[1].addr == 0x2000 && ev->ranges[1].len == 4 && ev->ranges[1].write);
    assert_int_equal(ev->depth, 0);

    /* RANGES: explicit ranges, write bit decoded */
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->kind, TRACE_EV_COMP);
    assert_int_equal(ev->index, 1);
    assert_int_equal(ev->site, 101);
    assert_int_equal(ev->site_info->kind, CHT_SITE_MEMCPY);
    assert_int_equal(ev->nranges, 2);
    assert_true(ev->ranges[0].addr == 0x3000 && ev->ranges[0].len == 64 && !ev->ranges[0].write);
    assert_true(ev->ranges[1].addr == 0x4000 && ev->ranges[1].len == 32 && ev->ranges[1].write);

    /* MPI with two COMPLETE followers */
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->kind, TRACE_EV_MPI);
    assert_int_equal(ev->index, 2);
    assert_int_equal(ev->mpi->h.aux, CHT_MPI_WAITALL);
    assert_true(ev->mpi->ret_addr == 0x400123);
    assert_int_equal(ev->site_info->kind, CHT_SITE_CALL);
    assert_string_equal(ev->site_info->func, "g");
    assert_int_equal(ev->ncomplete, 2);
    assert_int_equal(ev->complete[0]->request, 7);
    assert_int_equal(ev->complete[0]->h.aux, 1);
    assert_int_equal(ev->complete[0]->st_tag, 42);
    assert_int_equal(ev->complete[0]->st_bytes, 128);
    assert_int_equal(ev->complete[1]->request, 8);
    assert_null(ev->blocks[0]);
    assert_null(ev->newcomm);

    /* MPI with both BLOCKS sides */
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->mpi->h.aux, CHT_MPI_ALLTOALLV);
    assert_int_equal(ev->site, CHT_NONE);
    assert_null(ev->site_info);
    assert_int_equal(ev->ncomplete, 0);
    assert_non_null(ev->blocks[0]);
    assert_non_null(ev->blocks[1]);
    assert_int_equal(ev->blocks[1]->count, 2);
    assert_int_equal(((const struct cht_block *)(ev->blocks[1] + 1))[1].offset, 16);

    /* MPI with COMM */
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->mpi->h.aux, CHT_MPI_COMM_SPLIT);
    assert_non_null(ev->newcomm);
    assert_true(ev->newcomm->comm == 0x100000000ull);
    assert_int_equal(ev->newcomm->my_rank, 1);
    assert_int_equal(((const int32_t *)(ev->newcomm + 1))[0], 1);
    assert_int_equal(ev->index, 4);

    assert_int_equal(trace_cursor_next(c, &ev), 0);
    assert_null(ev);
    assert_false(trace_cursor_cut_short(c));
    assert_int_equal(trace_cursor_next(c, &ev), 0);

    trace_cursor_stats(c, &st);
    assert_int_equal(st.records, 16); /* followers included */
    assert_int_equal(st.comp_events, 2);
    assert_int_equal(st.mpi_events, 3);
    assert_int_equal(st.loop_records, 0);
    assert_int_equal(st.accesses, 4);
    assert_int_equal(st.chunks, 2);
    assert_int_equal(st.lost_records, 17);
    assert_int_equal(st.bytes_stored, tg_file_size(rank_path(dir, 0)));
    assert_true(st.bytes_raw > 0 && st.bytes_raw % 8 == 0);
    assert_int_equal(st.t_first, 5000);
    assert_int_equal(st.t_last, 9600);
    assert_int_equal(st.threads, 1);
    assert_true(st.clean_end);
    assert_int_equal(st.exit_status, 3);

    /* lookups survive the cursor */
    {
        const struct trace_loop_info *l = trace_cursor_loop(c, 51);
        const struct trace_site_info *s = trace_cursor_site(c, 102);
        trace_cursor_close(c);
        assert_non_null(l);
        assert_int_equal(l->id, 51);
        assert_int_equal(l->parent, 50);
        assert_int_equal(l->depth, 2);
        assert_int_equal(l->line, 6);
        assert_int_equal(l->col, 4);
        assert_string_equal(l->file, "a.c");
        assert_int_equal(s->line, 30);
        assert_int_equal(s->loop, 50);
    }
    /* a second cursor on the same rank sees the same mapping */
    if (trace_cursor_open(t, 0, 0, &c, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->site_info->line, 10);
    assert_null(trace_cursor_site(c, 103));
    assert_null(trace_cursor_site(c, 99));
    assert_null(trace_cursor_loop(c, 52));
    trace_cursor_close(c);
    trace_close(t);
}

/* The low-level stream: record order, chunk bookkeeping, peek and skip. */
static void test_stream_records(void **state)
{
    struct trace_stream *s;
    struct trace_err err;
    const struct cht_rec *r;
    struct tg_file *f;
    uint64_t off1, off2;
    uint64_t a = 1;
    (void)state;

    f = rank_file(dir, 0, RUN_ID);
    tg_comp(f, 1, 1, &a);
    tg_loop(f, CHT_LOOP_ENTER, 4);
    tg_loop(f, CHT_LOOP_EXIT, 4);
    off1 = tg_flush(f);
    tg_thread(f, 3);
    tg_rec(f, 200, 9, "unknown!", 8); /* unknown type: returned, skippable */
    tg_end(f, 4, 1, 0);
    off2 = tg_flush(f);
    tg_close(f);

    if (trace_stream_open(rank_path(dir, 0), &s, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(trace_stream_header(s)->rank, 0);
    assert_int_equal(trace_stream_file_size(s), tg_file_size(rank_path(dir, 0)));
    assert_int_equal(trace_stream_next(s, &r), 1);
    assert_int_equal(r->type, CHT_REC_COMP);
    assert_int_equal(r->size, 24);
    assert_int_equal(trace_stream_chunk_offset(s), off1);
    assert_int_equal(off1, 64);
    assert_int_equal(trace_stream_chunk(s)->seq, 0);
    assert_int_equal(trace_stream_peek(s, 0)->aux, CHT_LOOP_ENTER);
    assert_int_equal(trace_stream_peek(s, 1)->aux, CHT_LOOP_EXIT);
    assert_null(trace_stream_peek(s, 2)); /* never crosses a chunk */
    trace_stream_skip(s, 1);
    assert_int_equal(trace_stream_next(s, &r), 1);
    assert_int_equal(r->type, CHT_REC_LOOP);
    assert_int_equal(r->aux, CHT_LOOP_EXIT);
    assert_int_equal(trace_stream_next(s, &r), 1);
    assert_int_equal(r->type, 200);
    assert_int_equal(trace_stream_chunk_offset(s), off2);
    assert_int_equal(trace_stream_chunk(s)->thread, 3);
    assert_int_equal(trace_stream_chunk(s)->seq, 1);
    assert_int_equal(trace_stream_next(s, &r), 1);
    assert_int_equal(r->type, CHT_REC_END);
    assert_int_equal(trace_stream_next(s, &r), 0);
    assert_false(trace_stream_cut_short(s));
    assert_int_equal(trace_stream_bytes_read(s), trace_stream_file_size(s));
    ASSERT_HAS(trace_stream_path(s), "rank-00000.chtr");
    trace_stream_close(s);
}

/* ---- loops -------------------------------------------------------------- */

static void expect_vec(const struct trace_event *ev, uint32_t depth, ...)
{
    va_list ap;
    uint32_t i;

    assert_int_equal(ev->depth, depth);
    va_start(ap, depth);
    for (i = 0; i < depth; i++) {
        uint32_t loop = va_arg(ap, uint32_t);
        uint64_t iter = va_arg(ap, uint64_t);
        assert_int_equal(ev->iters[i].loop, loop);
        assert_int_equal(ev->iters[i].iter, iter);
    }
    va_end(ap);
}

static void test_iteration_vectors(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct trace_cursor_stats st;
    struct tg_file *f;
    struct cht_rec_mpi m;
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    memset(&m, 0, sizeof(m));
    m.h.aux = CHT_MPI_BARRIER;
    m.site = CHT_NONE;
    tg_loop(f, CHT_LOOP_ENTER, 50);
    tg_loop(f, CHT_LOOP_ITER, 50);
    tg_loop(f, CHT_LOOP_ENTER, 51);
    tg_loop(f, CHT_LOOP_ITER, 51);
    tg_loop(f, CHT_LOOP_ITER, 51);
    tg_mpi(f, &m);                       /* ev0: [50:1, 51:2] */
    tg_loop(f, CHT_LOOP_ENTER, 60);
    tg_loop(f, CHT_LOOP_ITER, 60);
    tg_mpi(f, &m);                       /* ev1: [50:1, 51:2, 60:1] */
    tg_loop(f, CHT_LOOP_EXIT, 51);       /* pops 60 and 51 */
    tg_mpi(f, &m);                       /* ev2: [50:1] */
    tg_loop(f, CHT_LOOP_EXIT, 77);       /* not on the stack: ignored */
    tg_loop(f, CHT_LOOP_ITER, 50);
    tg_flush(f);
    tg_thread(f, 1);                     /* another thread: its own stack */
    tg_loop(f, CHT_LOOP_ITER, 70);       /* not entered: pushed with 1 */
    tg_mpi(f, &m);                       /* ev3 thread 1: [70:1] */
    tg_flush(f);
    tg_thread(f, 0);
    tg_mpi(f, &m);                       /* ev4 thread 0: [50:2] */
    tg_loop(f, CHT_LOOP_EXIT, 50);
    tg_mpi(f, &m);                       /* ev5: [] */
    tg_end(f, 0, 2, 0);
    tg_close(f);

    open_rank0(&t, &c, 0);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->index, 0);
    expect_vec(ev, 2, 50u, (uint64_t)1, 51u, (uint64_t)2);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    expect_vec(ev, 3, 50u, (uint64_t)1, 51u, (uint64_t)2, 60u, (uint64_t)1);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    expect_vec(ev, 1, 50u, (uint64_t)1);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->thread, 1);
    expect_vec(ev, 1, 70u, (uint64_t)1);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->thread, 0);
    expect_vec(ev, 1, 50u, (uint64_t)2);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->index, 5);
    expect_vec(ev, 0);
    assert_int_equal(trace_cursor_next(c, &ev), 0);
    trace_cursor_stats(c, &st);
    assert_int_equal(st.loop_records, 12);
    assert_int_equal(st.threads, 2);
    assert_int_equal(st.mpi_events, 6);
    trace_cursor_close(c);
    trace_close(t);
}

static void test_loop_events(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct tg_file *f;
    uint64_t a[2] = { 8, 16 };
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    tg_loop(f, CHT_LOOP_ENTER, 50);
    tg_loop(f, CHT_LOOP_ITER, 50);
    tg_comp(f, 100, 2, a);
    tg_loop(f, CHT_LOOP_EXIT, 50);
    tg_end(f, 0, 1, 0);
    tg_close(f);

    open_rank0(&t, &c, TRACE_CURSOR_LOOPS);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->kind, TRACE_EV_LOOP);
    assert_int_equal(ev->loop_kind, CHT_LOOP_ENTER);
    assert_int_equal(ev->loop, 50);
    assert_int_equal(ev->index, 0);
    expect_vec(ev, 1, 50u, (uint64_t)0);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->loop_kind, CHT_LOOP_ITER);
    expect_vec(ev, 1, 50u, (uint64_t)1);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->kind, TRACE_EV_COMP);
    assert_int_equal(ev->index, 0); /* loop events do not count */
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->kind, TRACE_EV_LOOP);
    assert_int_equal(ev->loop_kind, CHT_LOOP_EXIT);
    assert_int_equal(ev->index, 1);
    expect_vec(ev, 0);
    assert_int_equal(trace_cursor_next(c, &ev), 0);
    trace_cursor_close(c);
    trace_close(t);
}

static void test_loop_too_deep(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct tg_file *f;
    uint32_t i;
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    for (i = 0; i < 257; i++)
        tg_loop(f, CHT_LOOP_ENTER, i);
    tg_close(f);
    open_rank0(&t, &c, 0);
    assert_int_equal(trace_cursor_next(c, &ev), TRACE_ERR_FORMAT);
    ASSERT_HAS(trace_cursor_error(c), "deeper than 256");
    ASSERT_HAS(trace_cursor_error(c), "file=");
    ASSERT_HAS(trace_cursor_error(c), "offset=64 record_offset=");
    /* the error is sticky */
    assert_int_equal(trace_cursor_next(c, &ev), TRACE_ERR_FORMAT);
    trace_cursor_close(c);
    trace_close(t);
}

static void test_bad_loop_kind(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct tg_file *f;
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    tg_loop(f, 9, 50);
    tg_close(f);
    open_rank0(&t, &c, 0);
    assert_int_equal(trace_cursor_next(c, &ev), TRACE_ERR_FORMAT);
    ASSERT_HAS(trace_cursor_error(c), "record_offset=32"); /* after the 32-byte TU record */
    ASSERT_HAS(trace_cursor_error(c), "kind aux=9");
    trace_cursor_close(c);
    trace_close(t);
}

/* ---- CHT_REC_REPEAT ------------------------------------------------------ */

static int read_rank0(char *msg, size_t len, bool *cut);

static void tg_repeat(struct tg_file *f, uint16_t period, uint32_t count, uint32_t nstrides,
                      const int64_t *stride, uint32_t nwritten)
{
    uint8_t body[8 + 8 * 32];
    memcpy(body, &count, 4);
    memcpy(body + 4, &nstrides, 4);
    memcpy(body + 8, stride, 8 * (size_t)nwritten);
    tg_rec(f, CHT_REC_REPEAT, period, body, 8 + 8 * (size_t)nwritten);
}

/* comp {1,2}, ITER 50, comp {11,22}, ITER 50: a period of 2 to repeat. */
static struct tg_file *repeat_prefix(void)
{
    uint64_t a[2] = { 1, 2 }, b[2] = { 11, 22 };
    struct tg_file *f;

    write_meta(dir);
    f = std_rank(dir);
    tg_comp(f, 100, 2, a);
    tg_loop(f, CHT_LOOP_ITER, 50);
    tg_comp(f, 100, 2, b);
    tg_loop(f, CHT_LOOP_ITER, 50);
    return f;
}

/* The next event is an ITER of loop 50, its iteration iter. */
static void expect_iter50(struct trace_cursor *c, uint64_t iter)
{
    const struct trace_event *ev;
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->kind, TRACE_EV_LOOP);
    assert_int_equal(ev->loop, 50);
    assert_int_equal(ev->depth, 1);
    assert_int_equal(ev->iters[0].iter, iter);
}

/* The cursor is at the end, having read comp computation events with acc
 * accesses and loops loop records; closes it and the trace. */
static void expect_end(struct trace *t, struct trace_cursor *c, uint64_t comp, uint64_t acc, uint64_t loops)
{
    const struct trace_event *ev;
    struct trace_cursor_stats st;
    assert_int_equal(trace_cursor_next(c, &ev), 0);
    trace_cursor_stats(c, &st);
    assert_int_equal(st.comp_events, comp);
    assert_int_equal(st.loop_records, loops);
    assert_int_equal(st.accesses, acc);
    trace_cursor_close(c);
    trace_close(t);
}

static void test_repeat_expands(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    int64_t d[2] = { 10, -1 };
    struct tg_file *f = repeat_prefix();
    (void)state;

    tg_flush(f); /* the history carries over chunks */
    tg_repeat(f, 2, 5, 2, d, 2);
    tg_end(f, 6, 1, 0);
    tg_close(f);
    open_rank0(&t, &c, TRACE_CURSOR_LOOPS);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(trace_cursor_next(c, &ev), 1);
        assert_int_equal(ev->kind, TRACE_EV_COMP);
        assert_int_equal(ev->index, i);
        assert_int_equal(ev->nranges, 2);
        assert_int_equal(ev->ranges[0].addr, 1 + 10 * i);
        assert_int_equal(ev->ranges[1].addr, i == 0 ? 2 : 23 - i);
        if (i == 4)
            break; /* the REPEAT's 5th record is a comp: count 5 = c l c l c */
        expect_iter50(c, (uint64_t)i + 1);
    }
    expect_end(t, c, 5, 10, 4);
}

/* A damaged REPEAT record after the standard prefix gives a format error
 * naming the file and the record's offset. */
static void check_bad_repeat(uint16_t period, uint32_t count, uint32_t nstrides, uint32_t nwritten,
                             int empty_history, const char *why)
{
    char msg[512];
    int64_t d[32] = { 0 };
    struct tg_file *f = repeat_prefix();

    if (empty_history) {
        uint64_t big[9] = { 0 };
        tg_comp(f, 999, 9, big); /* too many addresses to repeat: empties the history */
    }
    tg_repeat(f, period, count, nstrides, d, nwritten);
    tg_end(f, 6, 1, 0);
    tg_close(f);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "rank-00000.chtr");
    ASSERT_HAS(msg, "offset=");
    ASSERT_HAS(msg, why);
}

static void test_repeat_damaged(void **state)
{
    (void)state;
    /* the period is longer than the history */
    check_bad_repeat(5, 1, 2, 2, 0, "period=5 but thread=0 has only 4 records");
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
    check_bad_repeat(1, 1, 0, 0, 1, "period=1 but thread=0 has only 0 records");
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
    check_bad_repeat(0, 1, 0, 0, 0, "period=0 outside 1..16");
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
    check_bad_repeat(17, 1, 0, 0, 0, "period=17 outside 1..16");
    /* counts */
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
    check_bad_repeat(2, 0, 2, 2, 0, "count=0 outside");
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
    check_bad_repeat(2, CHT_REPEAT_COUNT_MAX + 1, 2, 2, 0, "count=1048577 outside");
    /* strides that do not fit the record, or more than the period allows */
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
    check_bad_repeat(2, 1, 2, 1, 0, "is less than the 32 bytes it needs");
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
    check_bad_repeat(2, 1, 17, 17, 0, "nstrides=17, more than period=2 allows");
    /* a stride count that does not match the shape of the records repeated */
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
    check_bad_repeat(2, 1, 3, 3, 0, "nstrides=3 but the 2 records it repeats have 2 addresses");
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
    check_bad_repeat(1, 1, 2, 2, 0, "nstrides=2 but the 1 records it repeats have 0 addresses");
}

/* ---- CHT_REC_PACK --------------------------------------------------------- */

/* A PACK of count records coded in code[0..len); aux CHT_PACK_RESET or 0. */
static void tg_pack(struct tg_file *f, uint16_t aux, uint32_t count, const uint8_t *code, uint32_t len)
{
    uint8_t body[8 + 64];
    memcpy(body, &count, 4);
    memcpy(body + 4, &len, 4);
    memcpy(body + 8, code, len);
    tg_rec(f, CHT_REC_PACK, aux, body, 8 + (size_t)len);
}

/* comp 100 {1,2}, ITER 50, comp 100 {11,22}, ITER 50, comp 100 {21,42},
 * coded by hand after trace-format.h: the first three name their keys and
 * carry their differences, the fourth's key is predicted, the fifth's key
 * and both addresses are.  As one PACK, or as two (3 and 2 records), the
 * second going on from the first one's table. */
static const uint8_t pack5[] = {
    0x00, 0x02, 0x64, 0x02, 0x04, /* comp 100: differences 1, 2 (zigzag 2, 4) */
    0x00, 0x82, 0x32,             /* loop 50, ITER */
    0x00, 0x02, 0x64, 0x14, 0x28, /* comp 100: differences 10, 20 */
    0x01,                         /* the key that followed comp 100 last time */
    0x07,                         /* key and both addresses as predicted: 21, 42 */
};

static void test_pack_expands(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    uint64_t want[3][2] = { { 1, 2 }, { 11, 22 }, { 21, 42 } };
    int64_t d[2] = { 10, 20 };
    struct tg_file *f;
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    tg_pack(f, CHT_PACK_RESET, 3, pack5, 13);
    tg_flush(f); /* the table and the history carry over chunks */
    tg_pack(f, 0, 2, pack5 + 13, 2);
    tg_repeat(f, 2, 2, 2, d, 2); /* ITER 50, comp 100 {31,62}: the pack's records are the history */
    tg_end(f, 6, 1, 0);
    tg_close(f);
    open_rank0(&t, &c, TRACE_CURSOR_LOOPS);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(trace_cursor_next(c, &ev), 1);
        assert_int_equal(ev->kind, TRACE_EV_COMP);
        assert_int_equal(ev->site, 100);
        assert_int_equal(ev->nranges, 2);
        assert_int_equal(ev->ranges[0].addr, i < 3 ? want[i][0] : 31);
        assert_int_equal(ev->ranges[1].addr, i < 3 ? want[i][1] : 62);
        if (i == 3)
            break;
        expect_iter50(c, (uint64_t)i + 1);
    }
    expect_end(t, c, 4, 8, 3);
}

/* A damaged PACK gives a format error naming the file, the record's offset
 * and what is wrong. */
static void check_bad_pack(uint16_t aux, uint32_t count, const uint8_t *code, uint32_t len, const char *why)
{
    char msg[512];
    struct tg_file *f;

    write_meta(dir);
    f = std_rank(dir);
    tg_pack(f, aux, count, code, len);
    tg_end(f, 6, 1, 0);
    tg_close(f);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "rank-00000.chtr");
    ASSERT_HAS(msg, "offset=");
    ASSERT_HAS(msg, why);
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
}

static void test_pack_damaged(void **state)
{
    static const uint8_t first_predicted[] = { 0x01 };
    static const uint8_t comp9[] = { 0x00, 0x09, 0x64 };
    static const uint8_t loop_kind0[] = { 0x00, 0x80, 0x32 };
    static const uint8_t loop_addr[] = { 0x02, 0x82, 0x32 };
    static const uint8_t long_varint[] = { 0x00, 0x82, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
    static const uint8_t cut_diff[] = { 0x00, 0x01, 0x64, 0x80 };
    (void)state;
    check_bad_pack(CHT_PACK_RESET, 6, pack5, sizeof(pack5), "code ends before the count of records");
    check_bad_pack(CHT_PACK_RESET, 4, pack5, sizeof(pack5), "code goes on after the count of records");
    check_bad_pack(CHT_PACK_RESET, 0, pack5, sizeof(pack5), "count=0 and nbytes=15, outside");
    check_bad_pack(CHT_PACK_RESET, 1, pack5, 0, "count=1 and nbytes=0, outside");
    check_bad_pack(0, 5, pack5, sizeof(pack5), "goes on from the table of an earlier pack, but its thread has none");
    check_bad_pack(CHT_PACK_RESET | 2, 5, pack5, sizeof(pack5), "aux=3, unknown bits");
    check_bad_pack(CHT_PACK_RESET, 1, first_predicted, 1, "a record follows the prediction of no record");
    check_bad_pack(CHT_PACK_RESET, 1, comp9, 3, "bad record kind");
    check_bad_pack(CHT_PACK_RESET, 1, loop_kind0, 3, "bad record kind");
    check_bad_pack(CHT_PACK_RESET, 1, loop_addr, 3, "names addresses it does not have");
    check_bad_pack(CHT_PACK_RESET, 1, long_varint, 8, "bad id");
    check_bad_pack(CHT_PACK_RESET, 1, cut_diff, 4, "bad address difference");
}

/* ---- CHT_REC_ROWS --------------------------------------------------------- */

/* A ROWS record of `rows` rows: between records ITER 50, an iteration of
 * one record, comp 100 {1000 + 8 j, irregular from 500} (nal 2; another
 * nal is a damaged record), and the code given. */
static void tg_rows(struct tg_file *f, uint32_t rows, uint16_t nal, const uint8_t *code, uint32_t len)
{
    uint8_t body[16 + 2 * 8 + 4 * 8 + 64];
    uint16_t c16[4] = { 1, 1, 0, nal };
    uint64_t keys[2] = { CHT_REC_LOOP | (uint64_t)CHT_LOOP_ITER << 16 | 50ull << 32,
                         CHT_REC_COMP | 2ull << 16 | 100ull << 32 };
    uint64_t start[2] = { 1000, 500 };
    int64_t step[2] = { 8, CHT_REPEAT_IRREGULAR };
    size_t at = 16;
    memcpy(body, &rows, 4);
    memcpy(body + 4, &len, 4);
    memcpy(body + 8, c16, 8);
    memcpy(body + at, keys, 16);
    at += 16;
    memcpy(body + at, start, 16);
    memcpy(body + at + 16, step, 16);
    memcpy(body + at + 32, code, len);
    tg_rec(f, CHT_REC_ROWS, 0, body, at + 32 + len);
}

/* Three rows of 2, 1 and 3 iterations, the third's start 8 bytes past the
 * prediction; the irregular address moves by 0, 7, -3, 10, 1, 2. */
static const uint8_t rows3[] = {
    0x02, 0x00, 0, 0, 0, 0, 7, 0, 0, 0,                        /* row 0 */
    0x01, 0x00, 0xfd, 0xff, 0xff, 0xff,                        /* row 1 */
    0x03, 0x10, 10, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0,           /* row 2 */
};

static void test_rows_expands(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    static const uint64_t a0[6] = { 1000, 1008, 1016, 1032, 1040, 1048 }, a1[6] = { 500, 507, 504, 514, 515, 517 };
    int64_t d[2] = { 8, 1 };
    struct tg_file *f;
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    tg_rows(f, 3, 2, rows3, sizeof(rows3));
    tg_repeat(f, 1, 1, 2, d, 2); /* comp 100 {1056, 518}: the rows' records are the history */
    tg_end(f, 6, 1, 0);
    tg_close(f);
    open_rank0(&t, &c, TRACE_CURSOR_LOOPS);
    for (int i = 0; i < 7; i++) {
        if (i == 2 || i == 3)
            expect_iter50(c, (uint64_t)i - 1);
        assert_int_equal(trace_cursor_next(c, &ev), 1);
        assert_int_equal(ev->kind, TRACE_EV_COMP);
        assert_int_equal(ev->site, 100);
        assert_int_equal(ev->nranges, 2);
        assert_int_equal(ev->ranges[0].addr, i < 6 ? a0[i] : 1056);
        assert_int_equal(ev->ranges[1].addr, i < 6 ? a1[i] : 518);
    }
    expect_end(t, c, 7, 14, 2);
}

/* One row of `trips` iterations (the irregular address moving by d[i]),
 * then `tail` bytes of code. */
static size_t row_code(uint8_t *code, uint8_t trips, const int32_t *d, const uint8_t *tail, size_t ntail)
{
    size_t at = 2;
    code[0] = trips;
    code[1] = 0x00; /* the affine address where predicted */
    for (uint8_t i = 0; i < trips; i++, at += 4)
        memcpy(code + at, &d[i], 4);
    if (ntail)
        memcpy(code + at, tail, ntail);
    return at + ntail;
}

/* A row's iterations after its first are expanded as a REPEAT_COL of its
 * first (rows_repeat, cursor.c): with runs they come as one run, of the
 * events record by record would give. */
static void test_rows_as_runs(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    const struct trace_run *run;
    struct trace_event mat;
    struct trace_range rg[CHT_REPEAT_MAX_ADDRS];
    struct trace_iter it[TRACE_MAX_LOOP_DEPTH];
    int32_t d[12];
    uint64_t irr[12], at = 500, n = 0;
    uint8_t code[64];
    int ret, runs = 0;
    (void)state;

    for (int i = 0; i < 12; i++) {
        d[i] = i * 37 % 11 - 5;
        irr[i] = at += (uint64_t)(int64_t)d[i];
    }
    write_meta(dir);
    struct tg_file *f = std_rank(dir);
    tg_rows(f, 1, 2, code, (uint32_t)row_code(code, 12, d, NULL, 0));
    tg_end(f, 12, 1, 0);
    tg_close(f);
    open_rank0(&t, &c, TRACE_CURSOR_RUNS);
    while ((ret = trace_cursor_next_run(c, &ev, &run)) > 0) {
        uint64_t m = ret == 2 ? run->reps * run->period : 1;
        runs += ret == 2;
        for (uint64_t k = 0; k < m; k++, n++) {
            if (ret == 2)
                trace_run_event(run, k, &mat, rg, it), ev = &mat;
            assert_true(n < 12);
            assert_int_equal(ev->site, 100);
            assert_int_equal(ev->index, n);
            assert_int_equal(ev->ranges[0].addr, 1000 + 8 * n);
            assert_int_equal(ev->ranges[1].addr, irr[n]);
        }
    }
    assert_int_equal(ret, 0);
    assert_int_equal(n, 12);
    assert_int_equal(runs, 1);
    expect_end(t, c, 12, 24, 0);
}

/* What follows a row is damaged: the row is decoded record by record, so
 * that the error comes after the same `want` events as before rows went as
 * repeats (all 3, or 2 where the error is found with the row's last
 * record). */
static void check_row_then_bad(uint32_t rows, const uint8_t *tail, size_t ntail, int want, const char *why)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    int32_t d[3] = { 4, -2, 9 };
    uint8_t code[32];
    int ret, n = 0;

    write_meta(dir);
    struct tg_file *f = std_rank(dir);
    tg_rows(f, rows, 2, code, (uint32_t)row_code(code, 3, d, tail, ntail));
    tg_end(f, 3, 1, 0);
    tg_close(f);
    open_rank0(&t, &c, TRACE_CURSOR_RUNS);
    while ((ret = trace_cursor_next(c, &ev)) == 1)
        assert_int_equal(ev->ranges[1].addr, 500 + (n == 0 ? 4 : n == 1 ? 2 : 11)), n++;
    if (ret != TRACE_ERR_FORMAT || n != want)
        fail_msg("%s: %d events, then %d: %s", why, n, ret, trace_cursor_error(c));
    ASSERT_HAS(trace_cursor_error(c), why);
    trace_cursor_close(c);
    trace_close(t);
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
}

static void test_rows_damaged_after_row(void **state)
{
    static const uint8_t zero_trips[] = { 0x00, 0x00 }, more[] = { 0x01 }, cut[] = { 0x02, 0x00, 1, 0 };
    (void)state;
    check_row_then_bad(2, zero_trips, sizeof(zero_trips), 3, "bad trip count");
    check_row_then_bad(1, more, sizeof(more), 2, "code goes on after the last row");
    check_row_then_bad(2, cut, sizeof(cut), 3, "code ends in a column");
    check_row_then_bad(2, NULL, 0, 3, "bad trip count");
}

/* A damaged ROWS gives a format error naming the file and what is wrong. */
static void check_bad_rows(uint32_t rows, uint16_t nal, const uint8_t *code, uint32_t len, const char *why)
{
    char msg[512];
    struct tg_file *f;

    write_meta(dir);
    f = std_rank(dir);
    tg_rows(f, rows, nal, code, len);
    tg_end(f, 6, 1, 0);
    tg_close(f);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "rank-00000.chtr");
    ASSERT_HAS(msg, why);
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
}

static void test_rows_damaged(void **state)
{
    static const uint8_t zero_trips[] = { 0x00, 0x00 };
    (void)state;
    check_bad_rows(4, 2, rows3, sizeof(rows3), "bad trip count");
    check_bad_rows(2, 2, rows3, sizeof(rows3), "code goes on after the last row");
    check_bad_rows(3, 2, rows3, sizeof(rows3) - 1, "code ends in a column");
    check_bad_rows(0, 2, rows3, sizeof(rows3), "outside the format's limits");
    check_bad_rows(1, 2, zero_trips, 2, "bad trip count");
    check_bad_rows(1, 1, rows3, 10, "nab=0 nal=1, its keys 0 and 2");
}

/* ---- runs of rows (TRACE_CURSOR_ROWS) -------------------------------------- */

/* A loop nest's ROWS record of `rows` rows as the pass records one: its
 * between records EXIT 51, comp 100 {3000 + 16 i, 4000 - 8 i}, ITER 50,
 * ENTER 51 (with reenter; else comp 100, ITER 50: the inner loop's count
 * goes on across rows), an iteration ITER 51, comp 100 {1000 + 8 j, moved
 * by starts[i] at row i's start, irregular from 500 by the next of d}.
 * `bad` bytes are cut off the end of its code (negative: that many zeros
 * added). */
static void tg_rows_nest(struct tg_file *f, uint32_t rows, const uint8_t *trips, const int8_t *starts,
                         const int32_t *d, bool reenter, int bad)
{
    uint8_t body[4096], code[2048];
    uint32_t len = 0, k = 0;
    uint16_t nb = reenter ? 4 : 2, c16[4] = {nb, 2, 2, 2};
    uint64_t keys[6], *kp = keys;
    if (reenter)
        *kp++ = CHT_REC_LOOP | (uint64_t)CHT_LOOP_EXIT << 16 | 51ull << 32;
    *kp++ = CHT_REC_COMP | 2ull << 16 | 100ull << 32;
    *kp++ = CHT_REC_LOOP | (uint64_t)CHT_LOOP_ITER << 16 | 50ull << 32;
    if (reenter)
        *kp++ = CHT_REC_LOOP | (uint64_t)CHT_LOOP_ENTER << 16 | 51ull << 32;
    *kp++ = CHT_REC_LOOP | (uint64_t)CHT_LOOP_ITER << 16 | 51ull << 32;
    *kp++ = CHT_REC_COMP | 2ull << 16 | 100ull << 32;
    uint64_t tabs[8] = {3000, 4000, 16, (uint64_t)-8, 1000, 500, 8, (uint64_t)CHT_REPEAT_IRREGULAR};
    for (uint32_t i = 0; i < rows; i++) {
        code[len++] = trips[i];
        code[len++] = (uint8_t)(starts[i] >= 0 ? 2 * starts[i] : -2 * starts[i] - 1); /* zigzag */
        for (uint8_t m = 0; m < trips[i]; m++, len += 4)
            memcpy(code + len, &d[k++], 4);
    }
    if (bad > 0)
        len -= (uint32_t)bad;
    for (; bad < 0; bad++)
        code[len++] = 0;
    size_t at = 16;
    memcpy(body, &rows, 4);
    memcpy(body + 4, &len, 4);
    memcpy(body + 8, c16, 8);
    memcpy(body + at, keys, 8 * (size_t)(kp - keys));
    at += 8 * (size_t)(kp - keys);
    memcpy(body + at, tabs, sizeof(tabs));
    at += sizeof(tabs);
    memcpy(body + at, code, len);
    tg_rec(f, CHT_REC_ROWS, 0, body, at + len);
}

static int rows_end; /* how the last rows_runs_same's cursors ended */
static char rows_msg[512];

/* Reads rank 0 expanded and with runs of rows (each expanded with
 * trace_run_event): the same events, the same end (the same error, if
 * any) and statistics.  Returns the runs of rows seen. */
static int rows_runs_same(void)
{
    struct trace *t;
    struct trace_cursor *a = NULL, *b = NULL;
    const struct trace_event *ea, *eb;
    const struct trace_run *run = NULL;
    struct trace_event mat;
    struct trace_range rg[CHT_REPEAT_MAX_ADDRS];
    static struct trace_iter it[TRACE_MAX_LOOP_DEPTH];
    struct trace_err err = {""};
    uint64_t t_in = 0, n = 0;
    int ra, rb, nrows = 0;

    if (trace_open(dir, &t, &err) || trace_cursor_open(t, 0, 0, &a, &err) ||
        trace_cursor_open(t, 0, TRACE_CURSOR_RUNS | TRACE_CURSOR_ROWS, &b, &err))
        fail_msg("open: %s", err.msg);
    for (;; n++) {
        ra = trace_cursor_next(a, &ea);
        if (run && t_in < trace_run_events(run)) {
            trace_run_event(run, t_in++, &mat, rg, it), eb = &mat, rb = 1;
        } else if ((rb = trace_cursor_next_run(b, &eb, &run)) == 2) {
            nrows += run->rows != NULL;
            t_in = 0;
            trace_run_event(run, t_in++, &mat, rg, it), eb = &mat, rb = 1;
        } else {
            run = NULL;
        }
        if (ra != rb)
            fail_msg("event %" PRIu64 ": expanded %d (%s), with runs of rows %d (%s)", n, ra,
                     trace_cursor_error(a), rb, trace_cursor_error(b));
        if (ra != 1)
            break;
        if (ea->index != eb->index || ea->site != eb->site || ea->depth != eb->depth || ea->nranges != eb->nranges)
            fail_msg("event %" PRIu64 ": index %" PRIu64 "/%" PRIu64 " site %u/%u depth %u/%u", n, ea->index,
                     eb->index, ea->site, eb->site, ea->depth, eb->depth);
        for (uint32_t k = 0; k < ea->nranges; k++)
            if (ea->ranges[k].addr != eb->ranges[k].addr || ea->ranges[k].len != eb->ranges[k].len)
                fail_msg("event %" PRIu64 " range %u: %" PRIx64 " expanded, %" PRIx64 " with runs of rows", n, k,
                         ea->ranges[k].addr, eb->ranges[k].addr);
        for (uint32_t k = 0; k < ea->depth; k++)
            if (ea->iters[k].loop != eb->iters[k].loop || ea->iters[k].iter != eb->iters[k].iter)
                fail_msg("event %" PRIu64 " level %u: loop %u iter %" PRIu64 " expanded, loop %u iter %" PRIu64,
                         n, k, ea->iters[k].loop, ea->iters[k].iter, eb->iters[k].loop, eb->iters[k].iter);
    }
    if (ra < 0)
        assert_string_equal(trace_cursor_error(a), trace_cursor_error(b));
    rows_end = ra;
    snprintf(rows_msg, sizeof(rows_msg), "%s", ra < 0 ? trace_cursor_error(a) : "");
    struct trace_cursor_stats sa, sb;
    trace_cursor_stats(a, &sa);
    trace_cursor_stats(b, &sb);
    assert_int_equal(sa.records, sb.records);
    assert_int_equal(sa.comp_events, sb.comp_events);
    assert_int_equal(sa.loop_records, sb.loop_records);
    assert_int_equal(sa.accesses, sb.accesses);
    trace_cursor_close(a);
    trace_cursor_close(b);
    trace_close(t);
    return nrows;
}

/* One trace: ENTER 50, ITER 50, ENTER 51, the nest's rows (twice: two
 * records, the between records of the first's last row between them as
 * records), then REPEATs that go
 * back into the history the rows left: an iteration (period 2) and a
 * whole row with its between records (period 6, when the last row has
 * one iteration).  Returns the runs of rows seen. */
static int rows_nest_case(uint32_t rows, const uint8_t *trips, bool reenter, int bad)
{
    static const int8_t starts[8] = {0, 0, 2, -1, 0, 3, 0, 0};
    int32_t d[64];
    for (int k = 0; k < 64; k++)
        d[k] = (k * 37 % 23 - 11) * 8;
    write_meta(dir);
    struct tg_file *f = std_rank(dir);
    tg_loop(f, CHT_LOOP_ENTER, 50);
    tg_loop(f, CHT_LOOP_ITER, 50);
    tg_loop(f, CHT_LOOP_ENTER, 51);
    tg_rows_nest(f, rows, trips, starts, d, reenter, 0);
    /* the between records after the first record's last row, as records */
    uint64_t ab[2] = {7000, 7100};
    if (reenter)
        tg_loop(f, CHT_LOOP_EXIT, 51);
    tg_comp(f, 100, 2, ab);
    tg_loop(f, CHT_LOOP_ITER, 50);
    if (reenter)
        tg_loop(f, CHT_LOOP_ENTER, 51);
    tg_rows_nest(f, rows, trips, starts, d + 7, reenter, bad);
    static const int64_t s2[2] = {8, 4}, s6[4] = {16, -8, 8, 12};
    tg_repeat(f, 2, 3, 2, s2, 2);
    if (reenter && rows > 1 && trips[rows - 1] == 1)
        tg_repeat(f, 6, 2, 4, s6, 4);
    tg_end(f, 0, 1, 0);
    tg_close(f);
    int n = rows_runs_same();
    tg_rmdir(dir), free(dir), dir = tg_tmpdir();
    if (rows_end != (bad ? TRACE_ERR_FORMAT : 0))
        fail_msg("rows=%u bad=%d: the cursors ended with %d: %s", rows, bad, rows_end, rows_msg);
    return n;
}

/* The rows of a loop nest as runs of rows: the same events, iteration
 * vectors and statistics as expanding them, and a history that the
 * REPEATs after them read the same; a nest whose inner loop's count goes
 * on across rows comes record by record; a damaged record reports the
 * same error after the same events. */
static void test_rows_runs(void **state)
{
    static const uint8_t t5[5] = {3, 1, 4, 1, 5}, t6[6] = {2, 7, 1, 1, 3, 1}, t1[1] = {1}, t3[3] = {4, 4, 4};
    (void)state;
    assert_true(rows_nest_case(5, t5, true, 0) >= 2);
    assert_true(rows_nest_case(6, t6, true, 0) >= 2);
    assert_true(rows_nest_case(1, t1, true, 0) >= 2);
    assert_true(rows_nest_case(3, t3, true, 0) >= 2);
    assert_int_equal(rows_nest_case(5, t5, false, 0), 0); /* not re-entered: not affine in the row */
    /* damaged second record: a column cut short in its last row, code
     * after its last row, a trip count of 0 in its next row */
    assert_true(rows_nest_case(5, t5, true, 4) >= 1);
    assert_true(rows_nest_case(5, t5, true, -1) >= 1);
    assert_true(rows_nest_case(6, t6, true, 2 + 4 * 3 + 4) >= 1);
}

/* ---- computation events against the site table -------------------------- */

static void test_comp_unknown_site(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct tg_file *f;
    uint64_t a[3] = { 1, 2, 3 };
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    tg_comp(f, 7, 3, a); /* id outside every TU */
    tg_end(f, 0, 1, 0);
    tg_close(f);
    open_rank0(&t, &c, 0);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_null(ev->site_info);
    assert_int_equal(ev->site, 7);
    assert_int_equal(ev->nranges, 3);
    assert_int_equal(ev->ranges[2].addr, 3);
    assert_int_equal(ev->ranges[2].len, 0);
    assert_int_equal(trace_cursor_next(c, &ev), 0);
    trace_cursor_close(c);
    trace_close(t);
}

static void test_comp_naccess_mismatch(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct tg_file *f;
    uint64_t a[3] = { 1, 2, 3 };
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    tg_comp(f, 100, 3, a); /* site 100 has 2 accesses */
    tg_close(f);
    open_rank0(&t, &c, 0);
    assert_int_equal(trace_cursor_next(c, &ev), TRACE_ERR_FORMAT);
    ASSERT_HAS(trace_cursor_error(c), "site=100 has 3 addresses but the site has naccess=2");
    ASSERT_HAS(trace_cursor_error(c), "offset=64 record_offset=32");
    trace_cursor_close(c);
    trace_close(t);
}

/* A table that only appears in the rank stream (late-loaded code). */
static void test_site_table_in_rank_stream(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct tg_file *f;
    uint32_t size;
    uint8_t *blob = std_table(&size);
    uint64_t a[2] = { 1, 2 };
    (void)state;

    write_meta_with(dir, RUN_ID, NULL, 0);
    f = rank_file(dir, 0, RUN_ID);
    tg_tu(f, table_key(blob), 0, 3, 0, 2);
    tg_comp(f, 0, 2, a);
    tg_site_table(f, blob, size);
    tg_comp(f, 0, 2, a);
    tg_end(f, 0, 1, 0);
    tg_close(f);
    free(blob);
    open_rank0(&t, &c, 0);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_null(ev->site_info); /* table not known yet */
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_non_null(ev->site_info);
    assert_int_equal(ev->site_info->line, 10);
    assert_int_equal(ev->ranges[1].len, 4);
    trace_cursor_close(c);
    trace_close(t);
}

/* The cost of site 100 when the table is `blob` (version patched to
 * `version` unless 0). */
static uint32_t cost_with_table(uint8_t *blob, uint32_t size, uint16_t version)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct tg_file *f;
    uint64_t a[2] = { 1, 2 };
    uint32_t cost;

    if (version) {
        ((struct cht_tu_header *)blob)->version = version;
        tg_table_rekey(blob, size);
    }
    write_meta_with(dir, RUN_ID, blob, size);
    f = rank_file(dir, 0, RUN_ID);
    tg_tu(f, table_key(blob), 100, 3, 50, 2);
    tg_comp(f, 100, 2, a);
    tg_end(f, 1, 1, 0);
    tg_close(f);
    open_rank0(&t, &c, 0);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_non_null(ev->site_info);
    cost = ev->site_info->cost;
    trace_cursor_close(c);
    trace_close(t);
    return cost;
}

/* Site costs come from the cost section of a version-3 table; a table
 * without one, or of version 2 (where the field was reserved), gives
 * every site cost 1: the even split of older traces. */
static void test_site_costs(void **state)
{
    static const struct cht_site sites[3] = {
        { S_FILE, S_F, 10, 3, CHT_SITE_COMP, CHT_SOP_FADD, 1, 0, 0, 2 },
        { S_FILE, S_F, 20, 5, CHT_SITE_COMP, CHT_SOP_NONE, CHT_NONE, 0, 0, 1 },
        { S_FILE, S_G, 30, 7, CHT_SITE_CALL, CHT_SOP_NONE, 0, 0, 2, 0 },
    };
    static const struct cht_loop loops[2] = {
        { S_FILE, S_F, 5, 2, 1, CHT_NONE, 0 },
        { S_FILE, S_F, 6, 4, 2, 0, 0 },
    };
    static const struct cht_access acc[2] = { { 8, CHT_ACCESS_READ }, { 4, CHT_ACCESS_WRITE } };
    static const uint32_t costs[3] = { 123, 1, 0 };
    uint32_t size;
    uint8_t *blob;
    (void)state;

    blob = tg_table_costs(sites, 3, loops, 2, acc, 2, costs, table_strings, sizeof(table_strings), &size);
    assert_int_equal(cost_with_table(blob, size, 0), 123);
    free(blob);
    blob = tg_table(sites, 3, loops, 2, acc, 2, table_strings, sizeof(table_strings), &size);
    assert_int_equal(cost_with_table(blob, size, 0), 1);
    free(blob);
    blob = tg_table_costs(sites, 3, loops, 2, acc, 2, costs, table_strings, sizeof(table_strings), &size);
    assert_int_equal(cost_with_table(blob, size, 2), 1);
    free(blob);
}

static void test_tu_contradicts_table(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct tg_file *f;
    uint32_t size;
    uint8_t *blob = std_table(&size);
    (void)state;

    write_meta(dir);
    f = rank_file(dir, 0, RUN_ID);
    tg_tu(f, table_key(blob), 0, 4, 0, 2);
    tg_close(f);
    free(blob);
    open_rank0(&t, &c, 0);
    assert_int_equal(trace_cursor_next(c, &ev), TRACE_ERR_FORMAT);
    ASSERT_HAS(trace_cursor_error(c), "nsites=4 nloops=2 but its site table has nsites=3");
    ASSERT_HAS(trace_cursor_error(c), "offset=64 record_offset=0");
    trace_cursor_close(c);
    trace_close(t);
}

/* ---- site table validation ---------------------------------------------- */

enum { F_HDR, F_SITE0, F_LOOP1 };

struct table_case {
    const char *name;
    int where;      /* F_HDR: field of the header; F_SITE0 / F_LOOP1: entry */
    size_t off;     /* byte offset of the field in that struct */
    uint32_t value;
    int width;      /* 2 or 4 bytes */
    const char *expect;
};

static const struct table_case table_cases[] = {
    { "magic", F_HDR, offsetof(struct cht_tu_header, magic), 0x12345678, 4, "magic=0x12345678" },
    { "version", F_HDR, offsetof(struct cht_tu_header, version), 4, 2, "version=4" },
    { "old version", F_HDR, offsetof(struct cht_tu_header, version), 0, 2, "version=0" },
    { "deps_off", F_HDR, offsetof(struct cht_tu_header, deps_off), 12, 4, "deps_off=12" },
    { "costs_off", F_HDR, offsetof(struct cht_tu_header, costs_off), 12, 4, "costs_off=12 with 3 entries" },
    { "costs_off align", F_HDR, offsetof(struct cht_tu_header, costs_off), 66, 4,
      "costs_off=66 is not 4-byte aligned" },
    { "header_size", F_HDR, offsetof(struct cht_tu_header, header_size), 32, 2,
      "header_size=32" },
    { "total_size", F_HDR, offsetof(struct cht_tu_header, total_size), 100000, 4,
      "total_size=100000 exceeds blob_size" },
    { "nsites", F_HDR, offsetof(struct cht_tu_header, nsites), 1000, 4, "sites_off=64 with 1000" },
    { "sites_off", F_HDR, offsetof(struct cht_tu_header, sites_off), 250, 4,
      "sites_off=250" },
    { "nloops", F_HDR, offsetof(struct cht_tu_header, nloops), 0x10000000, 4, "loops_off=" },
    { "loops_off", F_HDR, offsetof(struct cht_tu_header, loops_off), 8, 4, "loops_off=8" },
    { "naccess", F_HDR, offsetof(struct cht_tu_header, naccess), 5000, 4, "access_off=" },
    { "access_off", F_HDR, offsetof(struct cht_tu_header, access_off), 0xfffffff0u, 4,
      "access_off=4294967280" },
    { "strings_off", F_HDR, offsetof(struct cht_tu_header, strings_off), 1000, 4,
      "strings_off=1000" },
    { "strings_size", F_HDR, offsetof(struct cht_tu_header, strings_size), 3, 4,
      "not NUL-terminated at strings_size=3" },
    { "strings_size0", F_HDR, offsetof(struct cht_tu_header, strings_size), 0, 4,
      "strings_size=0" },
    { "module_name", F_HDR, offsetof(struct cht_tu_header, module_name), 99, 4,
      "module_name=99" },
    { "site file", F_SITE0, offsetof(struct cht_site, file), 9, 4, "sites[0].file=9" },
    { "site func", F_SITE0, offsetof(struct cht_site, func), 1000, 4, "sites[0].func=1000" },
    { "site access", F_SITE0, offsetof(struct cht_site, access_first), 1, 4,
      "sites[0].access_first=1 + naccess=2 exceeds naccess=2" },
    { "site naccess", F_SITE0, offsetof(struct cht_site, naccess), 0xffffffffu, 4,
      "sites[0].access_first=0 + naccess=4294967295" },
    { "site loop", F_SITE0, offsetof(struct cht_site, loop), 2, 4, "sites[0].loop=2" },
    { "loop file", F_LOOP1, offsetof(struct cht_loop, file), 50, 4, "loops[1].file=50" },
    { "loop func", F_LOOP1, offsetof(struct cht_loop, func), 9, 4, "loops[1].func=9" },
    { "loop parent", F_LOOP1, offsetof(struct cht_loop, parent), 2, 4, "loops[1].parent=2" },
};

static void test_site_table_validation(void **state)
{
    size_t i;
    (void)state;

    for (i = 0; i < sizeof(table_cases) / sizeof(table_cases[0]); i++) {
        const struct table_case *tc = &table_cases[i];
        struct trace *t = NULL;
        struct trace_err err = { "" };
        uint32_t size;
        uint8_t *blob = std_table(&size);
        const struct cht_tu_header *h = (const void *)blob;
        size_t at = tc->off;
        int ret;

        if (tc->where == F_SITE0)
            at += h->sites_off;
        else if (tc->where == F_LOOP1)
            at += h->loops_off + sizeof(struct cht_loop);
        if (tc->width == 2) {
            uint16_t v = (uint16_t)tc->value;
            memcpy(blob + at, &v, 2);
        } else {
            memcpy(blob + at, &tc->value, 4);
        }
        tg_table_rekey(blob, size);
        write_meta_with(dir, RUN_ID, blob, size);
        free(blob);
        ret = trace_open(dir, &t, &err);
        if (ret != TRACE_ERR_FORMAT)
            fail_msg("case %s: status %d, message %s", tc->name, ret, err.msg);
        assert_null(t);
        ASSERT_HAS(err.msg, "bad site table: file=");
        ASSERT_HAS(err.msg, "commhint.meta offset=64 record_offset=");
        ASSERT_HAS(err.msg, tc->expect);
    }
}

static void test_site_table_short_blob(void **state)
{
    struct trace *t = NULL;
    struct trace_err err;
    uint8_t blob[40] = { 0 };
    (void)state;

    write_meta_with(dir, RUN_ID, blob, sizeof(blob));
    assert_int_equal(trace_open(dir, &t, &err), TRACE_ERR_FORMAT);
    ASSERT_HAS(err.msg, "blob_size=40 is smaller than the 64-byte header");
}

/* ---- damaged files ------------------------------------------------------ */

/* A rank stream with one chunk of two records, closed by an END chunk. */
static void simple_trace(void)
{
    struct tg_file *f;
    uint64_t a[2] = { 1, 2 };

    write_meta(dir);
    f = std_rank(dir);
    tg_comp(f, 100, 2, a);
    tg_flush(f);
    tg_end(f, 2, 1, 0);
    tg_close(f);
}

/* Opens rank 0 and reads it to the end; returns the final status. */
static int read_rank0(char *msg, size_t len, bool *cut)
{
    struct trace *t;
    struct trace_cursor *c;
    struct trace_err err = { "" };
    int ret;

    ret = trace_open(dir, &t, &err);
    if (ret) {
        snprintf(msg, len, "%s", err.msg);
        return ret;
    }
    ret = trace_cursor_open(t, 0, 0, &c, &err);
    if (ret) {
        snprintf(msg, len, "%s", err.msg);
        trace_close(t);
        return ret;
    }
    ret = drain(c);
    snprintf(msg, len, "%s", trace_cursor_error(c));
    if (cut)
        *cut = trace_cursor_cut_short(c);
    trace_cursor_close(c);
    trace_close(t);
    return ret;
}

static void test_bad_magic(void **state)
{
    char msg[512];
    (void)state;

    simple_trace();
    tg_patch(rank_path(dir, 0), 0, "CHTXXXX", 8);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "not a commhint trace file: file=");
    ASSERT_HAS(msg, "rank-00000.chtr offset=0 reason=bad magic");
}

static void test_meta_magic_in_rank_file(void **state)
{
    char msg[512];
    (void)state;

    simple_trace();
    tg_patch(rank_path(dir, 0), 0, CHT_MAGIC_META, 8);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "not a rank stream: file=");
    ASSERT_HAS(msg, "offset=0 reason=magic is not CHTRANK");
}

static void test_other_byte_order(void **state)
{
    char msg[512];
    uint16_t swapped = 0x0201;
    (void)state;

    simple_trace();
    tg_patch(rank_path(dir, 0), offsetof(struct cht_file_header, byte_order), &swapped, 2);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "file=");
    ASSERT_HAS(msg, "offset=14");
    ASSERT_HAS(msg, "written on a machine of the other byte order");
}

/* CHT_REC_PATH after an MPI record: its addresses reach the event; a path
 * record longer than CHT_PATH_MAX, or whose size disagrees with its frame
 * count, is a format error that names it. */
static void test_call_path(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct tg_file *f;
    struct cht_rec_mpi m;
    uint64_t addr[3] = {0x401000, 0x402000, 0x403000};
    uint64_t many[CHT_PATH_MAX + 1] = {0};
    char msg[512];
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    memset(&m, 0, sizeof(m));
    m.h.aux = CHT_MPI_BARRIER;
    m.site = CHT_NONE;
    tg_mpi(f, &m);
    tg_rec(f, CHT_REC_PATH, 3, addr, sizeof addr);
    tg_mpi(f, &m);                      /* no path */
    tg_end(f, 0, 1, 0);
    tg_close(f);
    open_rank0(&t, &c, TRACE_CURSOR_CONTEXTS);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->npath, 3);
    assert_int_equal(ev->path[0], 0x401000);
    assert_int_equal(ev->path[2], 0x403000);
    assert_null(ev->site_info);          /* no site: no context either */
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->npath, 0);
    assert_null(ev->path);
    assert_int_equal(trace_cursor_next(c, &ev), 0);
    trace_cursor_close(c);
    trace_close(t);

    write_meta(dir);
    f = std_rank(dir);
    tg_mpi(f, &m);
    tg_rec(f, CHT_REC_PATH, CHT_PATH_MAX + 1, many, sizeof many);
    tg_end(f, 0, 1, 0);
    tg_close(f);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "path record with 16 frames");

    write_meta(dir);
    f = std_rank(dir);
    tg_mpi(f, &m);
    tg_rec(f, CHT_REC_PATH, 2, addr, sizeof addr); /* 3 addresses, 2 said */
    tg_end(f, 0, 1, 0);
    tg_close(f);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "path record with 2 frames in 32 bytes");
}

static void test_future_version(void **state)
{
    char msg[512];
    uint16_t v[2] = { 12, 11 }; /* version 12, oldest readable 11 */
    (void)state;

    simple_trace();
    tg_patch(tg_path(dir, CHT_META_FILE), offsetof(struct cht_file_header, version), v, 4);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_VERSION);
    ASSERT_HAS(msg, "commhint.meta offset=8");
    ASSERT_HAS(msg, "written by a newer commhint: file version=11, this reader reads up to 10");
}

static void test_newer_but_readable_version(void **state)
{
    char msg[512];
    uint16_t v[2] = { 7, 6 }; /* newer writer, still readable by version 6 */
    bool cut = true;
    (void)state;

    simple_trace();
    tg_patch(rank_path(dir, 0), offsetof(struct cht_file_header, version), v, 4);
    assert_int_equal(read_rank0(msg, sizeof(msg), &cut), 0);
    assert_false(cut);
}

static void test_required_feature(void **state)
{
    char msg[512];
    uint64_t feat = CHT_FEAT_ZSTD | (1ull << 20);
    (void)state;

    simple_trace();
    tg_patch(rank_path(dir, 0), offsetof(struct cht_file_header, features), &feat, 8);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_VERSION);
    ASSERT_HAS(msg, "offset=16 reason=requires unknown features 0x0000000000100000");
}

static void test_small_header_size(void **state)
{
    char msg[512];
    uint16_t hs = 32;
    (void)state;

    simple_trace();
    tg_patch(rank_path(dir, 0), offsetof(struct cht_file_header, header_size), &hs, 2);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "offset=12 reason=header_size=32 is less than 64");
}

/* A rank file that ends inside its file header (or is empty) is a rank cut
 * short before its first record; a meta file so cut is an error. */
static void test_short_file_header(void **state)
{
    char msg[512];
    bool cut = false;
    (void)state;

    simple_trace();
    tg_truncate(rank_path(dir, 0), 40);
    assert_int_equal(read_rank0(msg, sizeof(msg), &cut), 0);
    assert_true(cut);
    ASSERT_HAS(msg, "file ends inside its file header: file=");
    ASSERT_HAS(msg, "offset=0 reason=40 of 64 bytes present");
    tg_truncate(rank_path(dir, 0), 0);
    cut = false;
    assert_int_equal(read_rank0(msg, sizeof(msg), &cut), 0);
    assert_true(cut);
    ASSERT_HAS(msg, "reason=0 of 64 bytes present");
    tg_truncate(tg_path(dir, CHT_META_FILE), 40);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "bad meta file: file ends inside its file header: file=");
}

static void test_truncated_mid_payload(void **state)
{
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct trace_cursor_stats st;
    uint64_t size;
    char want[64];
    (void)state;

    struct tg_file *f;
    uint64_t a[2] = { 1, 2 }, end_chunk;

    write_meta(dir);
    f = std_rank(dir);
    tg_comp(f, 100, 2, a);
    tg_flush(f);
    tg_end(f, 2, 1, 0);
    end_chunk = tg_flush(f);
    tg_close(f);
    size = tg_file_size(rank_path(dir, 0));
    /* cut inside the END chunk's payload */
    tg_truncate(rank_path(dir, 0), size - 3);
    open_rank0(&t, &c, 0);
    assert_int_equal(trace_cursor_next(c, &ev), 1);
    assert_int_equal(ev->kind, TRACE_EV_COMP);
    assert_int_equal(trace_cursor_next(c, &ev), 0); /* not an error */
    assert_true(trace_cursor_cut_short(c));
    ASSERT_HAS(trace_cursor_error(c), "file ends inside a chunk: file=");
    trace_cursor_stats(c, &st);
    assert_false(st.clean_end);
    assert_int_equal(st.comp_events, 1);
    snprintf(want, sizeof(want), "offset=%" PRIu64 " reason=chunk needs", end_chunk);
    ASSERT_HAS(trace_cursor_error(c), want);
    trace_cursor_close(c);
    trace_close(t);
}

static void test_truncated_mid_chunk_header(void **state)
{
    char msg[512];
    bool cut = false;
    uint64_t end_chunk;
    struct tg_file *f;
    uint64_t a[2] = { 1, 2 };
    char want[64];
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    tg_comp(f, 100, 2, a);
    tg_flush(f);
    tg_end(f, 2, 1, 0);
    end_chunk = tg_flush(f);
    tg_close(f);
    tg_truncate(rank_path(dir, 0), end_chunk + 10);
    assert_int_equal(read_rank0(msg, sizeof(msg), &cut), 0);
    assert_true(cut);
    snprintf(want, sizeof(want), "offset=%" PRIu64 " reason=10 of 32 bytes", end_chunk);
    ASSERT_HAS(msg, "file ends inside a chunk header: file=");
    ASSERT_HAS(msg, want);
}

static void test_no_end_record(void **state)
{
    char msg[512], want[64];
    bool cut = false;
    struct tg_file *f;
    uint64_t a[2] = { 1, 2 };
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    tg_comp(f, 100, 2, a);
    tg_close(f);
    assert_int_equal(read_rank0(msg, sizeof(msg), &cut), 0);
    assert_true(cut);
    ASSERT_HAS(msg, "stream ends without an end record: the rank was cut short: file=");
    snprintf(want, sizeof(want), "offset=%" PRIu64, tg_file_size(rank_path(dir, 0)));
    ASSERT_HAS(msg, want);
}

static void test_corrupt_zstd(void **state)
{
    char msg[512];
    (void)state;

    simple_trace();
    tg_patch(rank_path(dir, 0), 64 + 32 + 6, "\xff\xff\xff\xff\xff\xff", 6);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "cannot decompress chunk: file=");
    ASSERT_HAS(msg, "offset=64 reason=");
}

static void test_not_zstd(void **state)
{
    char msg[512];
    (void)state;

    simple_trace();
    tg_patch(rank_path(dir, 0), 64 + 32, "JUNKJUNK", 8);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "offset=64 reason=payload is not a zstd frame");
}

static void test_raw_size_lie(void **state)
{
    char msg[512];
    uint32_t raw;
    struct trace_stream *s;
    struct trace_err err;
    const struct cht_rec *r;
    (void)state;

    /* raw_size smaller than the content */
    simple_trace();
    assert_int_equal(trace_stream_open(rank_path(dir, 0), &s, &err), 0);
    assert_int_equal(trace_stream_next(s, &r), 1);
    raw = trace_stream_chunk(s)->raw_size;
    trace_stream_close(s);
    raw -= 8;
    tg_patch(rank_path(dir, 0), 64 + 12, &raw, 4);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "cannot decompress chunk: file=");
    ASSERT_HAS(msg, "offset=64 reason=payload holds");
    ASSERT_HAS(msg, "raw_size=");

    /* raw_size larger than the content */
    raw += 16;
    tg_patch(rank_path(dir, 0), 64 + 12, &raw, 4);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "offset=64 reason=payload holds");

    /* raw_size past the limit */
    raw = CHT_CHUNK_MAX_RAW + 8;
    tg_patch(rank_path(dir, 0), 64 + 12, &raw, 4);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "bad chunk header: file=");
    ASSERT_HAS(msg, "offset=64 reason=raw_size=67108872");
}

static void test_stored_size_limit(void **state)
{
    char msg[512];
    uint32_t stored = CHT_CHUNK_MAX_STORED + 1;
    (void)state;

    simple_trace();
    tg_patch(rank_path(dir, 0), 64 + 8, &stored, 4);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "offset=64 reason=stored_size=83886081 exceeds");
}

static void test_bad_chunk_magic(void **state)
{
    char msg[512];
    uint32_t magic = 0xdeadbeef;
    (void)state;

    simple_trace();
    tg_patch(rank_path(dir, 0), 64, &magic, 4);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "bad chunk header: file=");
    ASSERT_HAS(msg, "offset=64 reason=bad magic 0xdeadbeef");
}

static void test_record_past_chunk_end(void **state)
{
    char msg[512];
    struct tg_file *f;
    struct cht_rec bad = { CHT_REC_COMP, 0, 4096 };
    uint64_t pad = 0;
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    tg_raw(f, &bad, 8);
    tg_raw(f, &pad, 8);
    tg_close(f);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "malformed record: file=");
    ASSERT_HAS(msg, "offset=64 record_offset=32 reason=size=4096 runs past the chunk end "
                    "(16 bytes left)");
}

static void test_record_size_not_aligned(void **state)
{
    char msg[512];
    struct tg_file *f;
    struct cht_rec bad = { CHT_REC_LOOP, 1, 12 };
    uint64_t pad = 0;
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    tg_raw(f, &bad, 8);
    tg_raw(f, &pad, 8);
    tg_close(f);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "offset=64 record_offset=32 reason=size=12 is not a multiple of 8");
}

static void test_record_too_small(void **state)
{
    char msg[512], want[128];
    struct tg_file *f;
    uint64_t body[2] = { 0, 0 };
    (void)state;

    /* an MPI record of 24 bytes */
    write_meta(dir);
    f = std_rank(dir);
    tg_rec(f, CHT_REC_MPI, CHT_MPI_SEND, body, 16);
    tg_close(f);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    snprintf(want, sizeof(want), "record_offset=32 reason=type=4 aux=1 size=24 is less than the "
             "%zu bytes", sizeof(struct cht_rec_mpi));
    ASSERT_HAS(msg, want);

    /* a COMP record whose aux claims more addresses than it holds */
    f = std_rank(dir);
    tg_rec(f, CHT_REC_COMP, 5, body, 16);
    tg_close(f);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "type=1 aux=5 size=24 is less than the 56 bytes");

    /* a module path that is not terminated */
    f = std_rank(dir);
    {
        struct cht_rec_module m = { { CHT_REC_MODULE, 0, 48 }, 0, 0, 0, 0, 8 };
        tg_raw(f, &m, sizeof(m));
        tg_raw(f, "abcdefgh", 8);
    }
    tg_close(f);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    ASSERT_HAS(msg, "module path is not NUL-terminated");
}

static void test_seq_gap(void **state)
{
    char msg[512], want[80];
    struct tg_file *f;
    uint64_t a[2] = { 1, 2 }, off;
    (void)state;

    write_meta(dir);
    f = std_rank(dir);
    tg_comp(f, 100, 2, a);
    tg_flush(f);
    tg_set_seq(f, 2);
    tg_comp(f, 100, 2, a);
    off = tg_flush(f);
    tg_close(f);
    assert_int_equal(read_rank0(msg, sizeof(msg), NULL), TRACE_ERR_FORMAT);
    snprintf(want, sizeof(want), "offset=%" PRIu64 " reason=seq=2 but 1 expected", off);
    ASSERT_HAS(msg, "bad chunk header: file=");
    ASSERT_HAS(msg, want);
}

/* ---- directories and runs ----------------------------------------------- */

static void test_run_id_mismatch(void **state)
{
    struct trace *t;
    struct trace_cursor *c = NULL;
    struct trace_err err;
    struct tg_file *f;
    (void)state;

    write_meta(dir);
    f = rank_file(dir, 0, 0x99);
    tg_end(f, 0, 1, 0);
    tg_close(f);
    f = rank_file(dir, 1, 0); /* unknown run id: accepted */
    tg_end(f, 0, 1, 0);
    tg_close(f);
    assert_int_equal(trace_open(dir, &t, &err), 0);
    assert_int_equal(trace_cursor_open(t, 0, 0, &c, &err), TRACE_ERR_MISMATCH);
    assert_null(c);
    ASSERT_HAS(err.msg, "belongs to another run: file=");
    ASSERT_HAS(err.msg, "run_id=0x0000000000000099 meta run_id=0x1122334455667788");
    assert_int_equal(trace_cursor_open(t, 1, 0, &c, &err), 0);
    trace_cursor_close(c);
    trace_close(t);
}

static void test_wrong_rank_in_header(void **state)
{
    struct trace *t;
    struct trace_cursor *c = NULL;
    struct trace_err err;
    struct tg_file *f;
    (void)state;

    write_meta(dir);
    f = tg_create(rank_path(dir, 0), CHT_MAGIC_RANK, RUN_ID, 5, 2);
    tg_close(f);
    assert_int_equal(trace_open(dir, &t, &err), 0);
    assert_int_equal(trace_cursor_open(t, 0, 0, &c, &err), TRACE_ERR_MISMATCH);
    ASSERT_HAS(err.msg, "rank=5 expected=0");
    trace_close(t);
}

static void test_no_rank_file(void **state)
{
    struct trace *t;
    struct trace_cursor *c = NULL;
    struct trace_err err;
    (void)state;

    write_meta(dir);
    assert_int_equal(trace_open(dir, &t, &err), 0);
    assert_int_equal(trace_cursor_open(t, 3, 0, &c, &err), TRACE_ERR_NOT_FOUND);
    ASSERT_HAS(err.msg, "no stream file for this rank: file=");
    ASSERT_HAS(err.msg, "rank-00003.chtr rank=3");
    assert_int_equal(trace_cursor_open(t, -1, 0, &c, &err), TRACE_ERR_ARG);
    trace_close(t);
}

static void test_missing_meta(void **state)
{
    struct trace *t = NULL;
    struct trace_err err;
    struct tg_file *f;
    (void)state;

    f = rank_file(dir, 0, RUN_ID);
    tg_close(f);
    assert_int_equal(trace_open(dir, &t, &err), TRACE_ERR_NOT_TRACE);
    assert_null(t);
    ASSERT_HAS(err.msg, "not a commhint trace directory: dir=");
    ASSERT_HAS(err.msg, "reason=no commhint.meta but rank files are present");
}

static void test_empty_dir(void **state)
{
    struct trace *t = NULL;
    struct trace_err err;
    char buf[1100];
    (void)state;

    assert_int_equal(trace_open(dir, &t, &err), TRACE_ERR_NOT_TRACE);
    snprintf(buf, sizeof(buf), "not a commhint trace directory: dir=%s reason=no commhint.meta",
             dir);
    assert_string_equal(err.msg, buf);
    assert_null(t);
    snprintf(buf, sizeof(buf), "%s/nonexistent", dir);
    assert_int_equal(trace_open(buf, &t, &err), TRACE_ERR_NOT_TRACE);
    ASSERT_HAS(err.msg, "cannot open trace directory: dir=");
    ASSERT_HAS(err.msg, "reason=No such file or directory");
    /* a file, not a directory */
    write_meta(dir);
    assert_int_equal(trace_open(tg_path(dir, CHT_META_FILE), &t, &err), TRACE_ERR_NOT_TRACE);
    ASSERT_HAS(err.msg, "reason=not a directory");
}

static void test_bad_program_record(void **state)
{
    struct trace *t = NULL;
    struct trace_err err;
    struct tg_file *f;
    struct cht_rec_program p = { { CHT_REC_PROGRAM, 0, 32 }, 0, 2, 8, 2 };
    (void)state;

    f = tg_create(tg_path(dir, CHT_META_FILE), CHT_MAGIC_META, RUN_ID, -1, 2);
    tg_raw(f, &p, sizeof(p));
    tg_raw(f, "prog\0abc", 8); /* second argument not terminated */
    tg_close(f);
    assert_int_equal(trace_open(dir, &t, &err), TRACE_ERR_FORMAT);
    ASSERT_HAS(err.msg, "bad program record: file=");
    ASSERT_HAS(err.msg, "offset=64 record_offset=0 reason=argv[1] is not NUL-terminated");
}

static void test_cut_meta_is_kept(void **state)
{
    struct trace *t = NULL;
    struct trace_err err;
    (void)state;

    write_meta(dir);
    tg_truncate(tg_path(dir, CHT_META_FILE), tg_file_size(tg_path(dir, CHT_META_FILE)) - 1);
    assert_int_equal(trace_open(dir, &t, &err), 0);
    assert_string_equal(trace_program(t), "");
    assert_int_equal(trace_argc(t), 0);
    assert_non_null(trace_meta_cut_short(t)); /* for the caller's warning */
    ASSERT_HAS(trace_meta_cut_short(t), "commhint.meta offset=64");
    trace_close(t);
}

/* ---- robustness --------------------------------------------------------- */

/* Reads rank 0 to its end: must end with 0 or an error that names the file
 * and an offset, never crash (run it under ASan or valgrind). */
static void read_damaged(void)
{
    char msg[512];
    bool cut = false;
    int ret = read_rank0(msg, sizeof(msg), &cut);

    assert_true(ret <= 0);
    if (ret < 0 || cut) {
        ASSERT_HAS(msg, "file=");
        if (ret != TRACE_ERR_MISMATCH)
            ASSERT_HAS(msg, "offset=");
    }
}

/* Well-compressed chunks of random records with plausible headers. */
static void test_random_records(void **state)
{
    static const uint16_t types[] = { CHT_REC_COMP, CHT_REC_RANGES, CHT_REC_LOOP, CHT_REC_MPI,
                                      CHT_REC_COMPLETE, CHT_REC_BLOCKS, CHT_REC_COMM,
                                      CHT_REC_MODULE, CHT_REC_TU, CHT_REC_CLOCK, CHT_REC_LOST,
                                      CHT_REC_END, CHT_REC_SITE_TABLE, 77 };
    unsigned iter;
    (void)state;

    srand(12345);
    write_meta(dir);
    for (iter = 0; iter < 300; iter++) {
        struct tg_file *f = std_rank(dir);
        int i, n = 1 + rand() % 12;
        for (i = 0; i < n; i++) {
            uint8_t body[256];
            size_t len = (size_t)(rand() % 200), k;
            uint16_t type = types[rand() % (int)(sizeof(types) / sizeof(types[0]))];
            for (k = 0; k < len; k++)
                body[k] = (uint8_t)(rand() % 4 == 0 ? rand() : (k < 8 ? 100 + k : 0));
            tg_rec(f, type, (uint16_t)(rand() % 4), body, len);
            if (rand() % 5 == 0)
                tg_thread(f, (uint32_t)(rand() % 3));
        }
        tg_close(f);
        read_damaged();
    }
}

/* Bytes flipped anywhere in a valid stream. */
static void test_random_damage(void **state)
{
    unsigned iter;
    uint64_t size;
    (void)state;

    srand(777);
    for (iter = 0; iter < 300; iter++) {
        int k;
        simple_trace();
        size = tg_file_size(rank_path(dir, 0));
        for (k = 0; k < 1 + rand() % 3; k++) {
            uint8_t b = (uint8_t)rand();
            tg_patch(rank_path(dir, 0), (uint64_t)rand() % size, &b, 1);
        }
        if (rand() % 4 == 0)
            tg_truncate(rank_path(dir, 0), (uint64_t)rand() % size);
        read_damaged();
    }
}

/* ---- names -------------------------------------------------------------- */

static void test_names(void **state)
{
    static const int calls[] = {
        CHT_MPI_SEND, CHT_MPI_SSEND, CHT_MPI_BSEND, CHT_MPI_RSEND, CHT_MPI_RECV,
        CHT_MPI_ISEND, CHT_MPI_ISSEND, CHT_MPI_IBSEND, CHT_MPI_IRSEND, CHT_MPI_IRECV,
        CHT_MPI_SENDRECV, CHT_MPI_SENDRECV_REPLACE, CHT_MPI_PROBE, CHT_MPI_IPROBE,
        CHT_MPI_WAIT, CHT_MPI_WAITALL, CHT_MPI_WAITANY, CHT_MPI_WAITSOME, CHT_MPI_TEST,
        CHT_MPI_TESTALL, CHT_MPI_TESTANY, CHT_MPI_TESTSOME, CHT_MPI_REQUEST_FREE,
        CHT_MPI_CANCEL, CHT_MPI_BARRIER, CHT_MPI_BCAST, CHT_MPI_REDUCE, CHT_MPI_ALLREDUCE,
        CHT_MPI_GATHER, CHT_MPI_GATHERV, CHT_MPI_SCATTER, CHT_MPI_SCATTERV, CHT_MPI_ALLGATHER,
        CHT_MPI_ALLGATHERV, CHT_MPI_ALLTOALL, CHT_MPI_ALLTOALLV, CHT_MPI_REDUCE_SCATTER,
        CHT_MPI_REDUCE_SCATTER_BLOCK, CHT_MPI_SCAN, CHT_MPI_EXSCAN, CHT_MPI_COMM_DUP,
        CHT_MPI_COMM_SPLIT, CHT_MPI_COMM_CREATE, CHT_MPI_COMM_FREE, CHT_MPI_CART_CREATE,
        CHT_MPI_CART_SUB, CHT_MPI_COMM_SPLIT_TYPE, CHT_MPI_INTERCOMM_CREATE,
        CHT_MPI_GRAPH_CREATE, CHT_MPI_DIST_GRAPH_CREATE, CHT_MPI_DIST_GRAPH_CREATE_ADJACENT, CHT_MPI_INIT,
        CHT_MPI_INIT_THREAD, CHT_MPI_FINALIZE, CHT_MPI_ABORT,
    };
    size_t i;
    int op;
    (void)state;

    for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        const char *n = trace_mpi_call_name(calls[i]);
        if (strncmp(n, "MPI_", 4) || !strcmp(n, "MPI_?"))
            fail_msg("call %d has name %s", calls[i], n);
    }
    assert_string_equal(trace_mpi_call_name(CHT_MPI_SENDRECV_REPLACE), "MPI_Sendrecv_replace");
    assert_string_equal(trace_mpi_call_name(CHT_MPI_ALLTOALLV), "MPI_Alltoallv");
    assert_string_equal(trace_mpi_call_name(CHT_MPI_UNKNOWN), "MPI_?");
    assert_string_equal(trace_mpi_call_name(500), "MPI_?");
    for (op = CHT_OP_SUM; op <= CHT_OP_REPLACE; op++)
        assert_int_equal(strncmp(trace_mpi_op_name(op), "MPI_", 4), 0);
    assert_string_equal(trace_mpi_op_name(CHT_OP_MAXLOC), "MPI_MAXLOC");
    for (op = CHT_SOP_NONE; op <= CHT_SOP_OTHER; op++)
        assert_string_not_equal(trace_site_op_name(op), "?");
    assert_string_equal(trace_site_op_name(CHT_SOP_FADD), "fadd");
    assert_string_equal(trace_site_op_name(99), "?");
    assert_string_equal(trace_site_kind_name(CHT_SITE_COMP), "comp");
    assert_string_equal(trace_site_kind_name(CHT_SITE_MEMCPY), "memcpy");
    assert_string_equal(trace_site_kind_name(CHT_SITE_MEMSET), "memset");
    assert_string_equal(trace_site_kind_name(CHT_SITE_CALL), "call");
    assert_string_equal(trace_status_str(TRACE_ERR_FORMAT), "format error");
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_round_trip),
        T(test_stream_records),
        T(test_iteration_vectors),
        T(test_loop_events),
        T(test_loop_too_deep),
        T(test_bad_loop_kind),
        T(test_repeat_expands),
        T(test_repeat_damaged),
        T(test_pack_expands),
        T(test_pack_damaged),
        T(test_rows_expands),
        T(test_rows_damaged),
        T(test_rows_as_runs),
        T(test_rows_runs),
        T(test_rows_damaged_after_row),
        T(test_comp_unknown_site),
        T(test_comp_naccess_mismatch),
        T(test_site_table_in_rank_stream),
        T(test_tu_contradicts_table),
        T(test_site_costs),
        T(test_site_table_validation),
        T(test_site_table_short_blob),
        T(test_bad_magic),
        T(test_meta_magic_in_rank_file),
        T(test_other_byte_order),
        T(test_future_version),
        T(test_call_path),
        T(test_newer_but_readable_version),
        T(test_required_feature),
        T(test_small_header_size),
        T(test_short_file_header),
        T(test_truncated_mid_payload),
        T(test_truncated_mid_chunk_header),
        T(test_no_end_record),
        T(test_corrupt_zstd),
        T(test_not_zstd),
        T(test_raw_size_lie),
        T(test_stored_size_limit),
        T(test_bad_chunk_magic),
        T(test_record_past_chunk_end),
        T(test_record_size_not_aligned),
        T(test_record_too_small),
        T(test_seq_gap),
        T(test_run_id_mismatch),
        T(test_wrong_rank_in_header),
        T(test_no_rank_file),
        T(test_missing_meta),
        T(test_empty_dir),
        T(test_bad_program_record),
        T(test_cut_meta_is_kept),
        T(test_random_records),
        T(test_random_damage),
        T(test_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
