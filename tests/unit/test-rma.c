/* test-rma.c - unit tests of one-sided communication in depgraph/: the
 * builder's window table and the read/write sets, keys and roles of window
 * calls (depgraph/rma.c, docs/dependence.md "One-sided communication"), and
 * their records in a rank's MPI log (window collectives match across
 * ranks, the rest have no partner).
 *
 * The builder is fed hand-made trace events (an MPI record with its held
 * argument ranges and COMPLETE records, as the runtime writes them) and the
 * ranges, keys and role it returns are checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "depgraph.h"
#include "trace-format.h"

#define WIN ((CHT_WIN_ID_BIT | 1ull << 32) | 1) /* the first window rank 0 named */
#define MEM 0x100000ull  /* its local memory */
#define MEM_LEN 512u
#define BUF_A 0x200000ull /* origin buffers */
#define BUF_B 0x300000ull
#define BUF_S 0x400000ull /* a send buffer */

static struct cht_rec_mpi rec(int call, int32_t peer)
{
    struct cht_rec_mpi m;
    memset(&m, 0, sizeof(m));
    m.h.type = CHT_REC_MPI;
    m.h.aux = (uint16_t)call;
    m.h.size = sizeof(m);
    m.site = 7;
    m.peer = peer;
    m.rpeer = m.st_source = CHT_RANK_NONE;
    m.tag = m.rtag = m.st_tag = CHT_TAG_NONE;
    m.comm = CHT_COMM_WORLD;
    m.comm_size = 4;
    m.seq = WIN;
    return m;
}

/* The trace event of m with `nheld` held ranges. */
static struct trace_event tev(const struct cht_rec_mpi *m, uint64_t index,
                              const struct trace_range *held, uint32_t nheld)
{
    struct trace_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = TRACE_EV_MPI;
    ev.index = index;
    ev.site = m->site;
    ev.mpi = m;
    ev.held = held;
    ev.nheld = nheld;
    return ev;
}

static const struct dg_event *convert(struct dg_builder *b, const struct trace_event *ev)
{
    const struct dg_event *e = NULL;
    assert_int_equal(dg_builder_convert(b, ev, &e), 1);
    assert_non_null(e);
    return e;
}

/* Whether e has the range [addr, addr + len) with that direction. */
static bool has_range(const struct dg_event *e, uint64_t addr, uint64_t len, bool write)
{
    for (uint32_t i = 0; i < e->nranges; i++)
        if (e->ranges[i].addr == addr && e->ranges[i].len == len && e->ranges[i].write == write)
            return true;
    return false;
}

static bool has_key(const struct dg_event *e, uint32_t cls, uint64_t comm)
{
    for (uint32_t i = 0; i < e->nkeys; i++)
        if (e->keys[i].cls == cls && e->keys[i].comm == comm)
            return true;
    return false;
}

static int setup(void **state)
{
    struct dg_builder *b = NULL;
    assert_int_equal(dg_builder_create(&b), 0);
    *state = b;
    return 0;
}

static int teardown(void **state)
{
    dg_builder_destroy(*state);
    return 0;
}

/* Creates the window WIN with MEM as event `index`. */
static void create(struct dg_builder *b, uint64_t index)
{
    struct cht_rec_mpi m = rec(CHT_MPI_WIN_CREATE, CHT_RANK_NONE);
    m.rbuf = MEM;
    m.rbytes = MEM_LEN;
    m.rseq = 1;
    struct trace_event ev = tev(&m, index, NULL, 0);
    const struct dg_event *e = convert(b, &ev);
    assert_int_equal(e->role, DG_ROLE_SYNC);
    assert_true(has_range(e, MEM, MEM_LEN, true));
    assert_true(has_key(e, DG_KEY_COLL, CHT_COMM_WORLD));
    assert_true(has_key(e, DG_KEY_COLL, WIN));
}

/* An operation of `call` to target `peer` with one held range. */
static const struct dg_event *op(struct dg_builder *b, int call, int32_t peer, uint64_t buf,
                                 bool write, uint64_t index, uint64_t request)
{
    static struct cht_rec_mpi m;
    static struct trace_range held;
    m = rec(call, peer);
    m.request = request;
    held = (struct trace_range){buf, 64, write};
    struct trace_event ev = tev(&m, index, &held, 1);
    return convert(b, &ev);
}

static const struct dg_event *sync_call(struct dg_builder *b, int call, int32_t peer,
                                        uint64_t index)
{
    static struct cht_rec_mpi m;
    m = rec(call, peer);
    if (call == CHT_MPI_WIN_FENCE || call == CHT_MPI_WIN_FREE)
        m.rseq = 2;
    struct trace_event ev = tev(&m, index, NULL, 0);
    return convert(b, &ev);
}

/* A send while the window is open (or not). */
static const struct dg_event *send(struct dg_builder *b, uint64_t index)
{
    static struct cht_rec_mpi m;
    m = rec(CHT_MPI_SEND, 1);
    m.seq = 1;
    m.sbuf = BUF_S;
    m.sbytes = 8;
    struct trace_event ev = tev(&m, index, NULL, 0);
    return convert(b, &ev);
}

/* Put, then Win_fence: the Put reads its origin, the fence reads it again
 * (the origin is in use until the fence) and reads and writes the window
 * memory; the next fence no longer has the origin. */
static void test_fence_completes_put(void **state)
{
    struct dg_builder *b = *state;
    create(b, 0);
    const struct dg_event *e = op(b, CHT_MPI_PUT, 1, BUF_A, false, 1, 0);
    assert_int_equal(e->role, DG_ROLE_START);
    assert_true(has_range(e, BUF_A, 64, false));
    assert_true(has_range(e, MEM, MEM_LEN, true));
    assert_true(has_key(e, DG_KEY_COLL, WIN));
    e = sync_call(b, CHT_MPI_WIN_FENCE, CHT_RANK_NONE, 2);
    assert_int_equal(e->role, DG_ROLE_SYNC);
    assert_true(has_range(e, BUF_A, 64, false));
    assert_true(has_range(e, MEM, MEM_LEN, true));
    assert_true(has_key(e, DG_KEY_COLL, CHT_COMM_WORLD));
    assert_true(has_key(e, DG_KEY_COLL, WIN));
    e = sync_call(b, CHT_MPI_WIN_FENCE, CHT_RANK_NONE, 3);
    assert_false(has_range(e, BUF_A, 64, false));
}

/* Get writes its result buffer; the synchronisation writes it again. */
static void test_get_result_written_until_flush(void **state)
{
    struct dg_builder *b = *state;
    create(b, 0);
    op(b, CHT_MPI_GET, 2, BUF_A, true, 1, 0);
    const struct dg_event *e = sync_call(b, CHT_MPI_WIN_LOCK, 2, 2);
    assert_false(has_range(e, BUF_A, 64, true)); /* a lock completes nothing */
    e = sync_call(b, CHT_MPI_WIN_FLUSH_LOCAL, 2, 3);
    assert_true(has_range(e, BUF_A, 64, true));
}

/* Win_unlock(target) completes the operations to that target only;
 * Win_unlock_all the rest. */
static void test_unlock_per_target(void **state)
{
    struct dg_builder *b = *state;
    create(b, 0);
    op(b, CHT_MPI_PUT, 1, BUF_A, false, 1, 0);
    op(b, CHT_MPI_ACCUMULATE, 2, BUF_B, false, 2, 0);
    const struct dg_event *e = sync_call(b, CHT_MPI_WIN_UNLOCK, 1, 3);
    assert_true(has_range(e, BUF_A, 64, false));
    assert_false(has_range(e, BUF_B, 64, false));
    e = sync_call(b, CHT_MPI_WIN_UNLOCK, 1, 4);
    assert_false(has_range(e, BUF_A, 64, false));
    e = sync_call(b, CHT_MPI_WIN_UNLOCK_ALL, CHT_RANK_NONE, 5);
    assert_true(has_range(e, BUF_B, 64, false));
}

/* Operations on consecutive buffers to one target coalesce into one range. */
static void test_pending_coalesce(void **state)
{
    struct dg_builder *b = *state;
    create(b, 0);
    for (uint64_t k = 0; k < 4; k++)
        op(b, CHT_MPI_PUT, 1, BUF_A + 64 * k, false, 1 + k, 0);
    const struct dg_event *e = sync_call(b, CHT_MPI_WIN_FLUSH, 1, 5);
    assert_true(has_range(e, BUF_A, 256, false));
}

/* Every MPI call while the window is open reads and writes its memory and
 * carries its key; not after Win_free. */
static void test_open_window_rule(void **state)
{
    struct dg_builder *b = *state;
    const struct dg_event *e = send(b, 0);
    assert_false(has_range(e, MEM, MEM_LEN, true));
    create(b, 1);
    e = send(b, 2);
    assert_int_equal(e->role, DG_ROLE_SEND);
    assert_true(has_range(e, BUF_S, 8, false));
    assert_true(has_range(e, MEM, MEM_LEN, true));
    assert_true(has_key(e, DG_KEY_COLL, WIN));
    e = sync_call(b, CHT_MPI_WIN_FREE, CHT_RANK_NONE, 3);
    assert_int_equal(e->role, DG_ROLE_SYNC);
    assert_true(has_range(e, MEM, MEM_LEN, true));
    e = send(b, 4);
    assert_false(has_range(e, MEM, MEM_LEN, true));
    assert_false(has_key(e, DG_KEY_COLL, WIN));
}

/* An R-operation: its buffer is in use until its request completes (the
 * Wait has it) and until the window synchronisation. */
static void test_request_operation(void **state)
{
    struct dg_builder *b = *state;
    create(b, 0);
    const struct dg_event *e = op(b, CHT_MPI_RGET, 1, BUF_A, true, 1, 42);
    assert_true(has_key(e, DG_KEY_REQ, 42));
    struct cht_rec_mpi w = rec(CHT_MPI_WAIT, CHT_RANK_NONE);
    w.seq = 0;
    struct cht_rec_complete c;
    memset(&c, 0, sizeof(c));
    c.h = (struct cht_rec){CHT_REC_COMPLETE, 0, sizeof(c)};
    c.request = 42;
    c.st_source = CHT_RANK_NONE;
    const struct cht_rec_complete *cs[1] = {&c};
    struct trace_event ev = tev(&w, 2, NULL, 0);
    ev.complete = cs;
    ev.ncomplete = 1;
    e = convert(b, &ev);
    assert_int_equal(e->role, DG_ROLE_COMPLETE);
    assert_true(has_range(e, BUF_A, 64, true));
    assert_true(has_key(e, DG_KEY_REQ, 42));
    e = sync_call(b, CHT_MPI_WIN_UNLOCK_ALL, CHT_RANK_NONE, 3);
    assert_true(has_range(e, BUF_A, 64, true));
}

/* Dynamic windows: attached memory is window memory until detached. */
static void test_dynamic_window(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = rec(CHT_MPI_WIN_CREATE_DYNAMIC, CHT_RANK_NONE);
    m.rseq = 1;
    struct trace_event ev = tev(&m, 0, NULL, 0);
    convert(b, &ev);
    m = rec(CHT_MPI_WIN_ATTACH, CHT_RANK_NONE);
    m.rbuf = BUF_B;
    m.rbytes = 128;
    ev = tev(&m, 1, NULL, 0);
    const struct dg_event *e = convert(b, &ev);
    assert_true(has_range(e, BUF_B, 128, true));
    e = send(b, 2);
    assert_true(has_range(e, BUF_B, 128, true));
    m = rec(CHT_MPI_WIN_DETACH, CHT_RANK_NONE);
    m.rbuf = BUF_B;
    ev = tev(&m, 3, NULL, 0);
    e = convert(b, &ev);
    assert_true(has_range(e, BUF_B, 128, true));
    e = send(b, 4);
    assert_false(has_range(e, BUF_B, 128, true));
    assert_true(has_key(e, DG_KEY_COLL, WIN)); /* the window is still open */
}

/* A window the runtime did not see created, or one not in the table: a
 * fence. */
static void test_unknown_window(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = rec(CHT_MPI_PUT, 1);
    m.seq = 0;
    struct trace_event ev = tev(&m, 0, NULL, 0);
    assert_int_equal(convert(b, &ev)->role, DG_ROLE_FENCE);
    const struct dg_event *e = sync_call(b, CHT_MPI_WIN_FENCE, CHT_RANK_NONE, 1);
    assert_int_equal(e->role, DG_ROLE_FENCE);
}

/* More pending origin ranges than the window keeps: the completing
 * synchronisations become fences until a window-wide one. */
static void test_pending_overflow(void **state)
{
    struct dg_builder *b = *state;
    create(b, 0);
    uint64_t i = 1;
    for (; i <= 65537; i++) /* scattered buffers: nothing coalesces */
        op(b, CHT_MPI_PUT, 1, BUF_A + 1024 * i, false, i, 0);
    const struct dg_event *e = sync_call(b, CHT_MPI_WIN_FLUSH, 1, i++);
    assert_int_equal(e->role, DG_ROLE_FENCE);
    e = sync_call(b, CHT_MPI_WIN_FENCE, CHT_RANK_NONE, i++);
    assert_int_equal(e->role, DG_ROLE_FENCE);
    op(b, CHT_MPI_PUT, 1, BUF_A, false, i++, 0);
    e = sync_call(b, CHT_MPI_WIN_FENCE, CHT_RANK_NONE, i++);
    assert_int_equal(e->role, DG_ROLE_SYNC);
    assert_true(has_range(e, BUF_A, 64, false));
}

/* The log: creation and fences are COLL records of the window (comm = its
 * id, seq = their number), a Put and a lock are OTHER; two ranks' fences
 * match into one instance. */
static void test_log_and_match(void **state)
{
    (void)state;
    struct dg_mpilog logs[2];
    for (int r = 0; r < 2; r++) {
        struct dg_builder *b = NULL;
        struct dg_logger *l = NULL;
        assert_int_equal(dg_builder_create(&b), 0);
        assert_int_equal(dg_logger_create(r, &l), 0);
        struct cht_rec_mpi m[4] = {rec(CHT_MPI_WIN_CREATE, CHT_RANK_NONE),
                                   rec(CHT_MPI_PUT, 1 - r), rec(CHT_MPI_WIN_FENCE, CHT_RANK_NONE),
                                   rec(CHT_MPI_WIN_LOCK, 1 - r)};
        m[0].rbuf = MEM;
        m[0].rbytes = MEM_LEN;
        m[0].rseq = 1;
        m[2].rseq = 2;
        m[0].comm_size = m[1].comm_size = m[2].comm_size = m[3].comm_size = 2;
        for (uint64_t k = 0; k < 4; k++) {
            struct trace_event ev = tev(&m[k], k, NULL, 0);
            const struct dg_event *e = convert(b, &ev);
            assert_int_equal(dg_logger_feed(l, &ev, e), 0);
        }
        assert_int_equal(dg_logger_take(l, &logs[r]), 0);
        assert_int_equal(logs[r].n, 4);
        assert_int_equal(logs[r].rec[0].kind, DG_MSG_COLL);
        assert_int_equal(logs[r].rec[0].comm, WIN);
        assert_int_equal(logs[r].rec[0].seq, 1);
        assert_int_equal(logs[r].rec[1].kind, DG_MSG_OTHER);
        assert_int_equal(logs[r].rec[2].kind, DG_MSG_COLL);
        assert_int_equal(logs[r].rec[2].seq, 2);
        assert_int_equal(logs[r].rec[3].kind, DG_MSG_OTHER);
        dg_logger_destroy(l);
        dg_builder_destroy(b);
    }
    const struct dg_mpilog *lp[2] = {&logs[0], &logs[1]};
    struct dg_match *mt = NULL;
    assert_int_equal(dg_match_build(lp, 2, &mt), 0);
    assert_int_equal(dg_match_ncoll(mt), 2);
    assert_int_equal(dg_match_incomplete_colls(mt), 0);
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(mt, dg_match_coll_of(mt, (struct dg_pos){0, 2}), &n);
    assert_int_equal(n, 2);
    assert_int_equal(mem[0].pos, 2);
    assert_int_equal(mem[1].pos, 2);
    struct dg_hb *hb = NULL;
    assert_int_equal(dg_hb_build(lp, 2, mt, NULL, 0, &hb), 0);
    /* the fence passes clocks all to all; a Put passes none */
    assert_int_equal(dg_hb_before(hb, (struct dg_pos){0, 0}, (struct dg_pos){1, 2}), 1);
    assert_int_equal(dg_hb_before(hb, (struct dg_pos){0, 3}, (struct dg_pos){1, 3}), 0);
    dg_hb_destroy(hb);
    dg_match_destroy(mt);
    dg_mpilog_free(&logs[0]);
    dg_mpilog_free(&logs[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fence_completes_put, setup, teardown),
        cmocka_unit_test_setup_teardown(test_get_result_written_until_flush, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unlock_per_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pending_coalesce, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_window_rule, setup, teardown),
        cmocka_unit_test_setup_teardown(test_request_operation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dynamic_window, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_window, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pending_overflow, setup, teardown),
        cmocka_unit_test(test_log_and_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
