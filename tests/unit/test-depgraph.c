/* test-depgraph.c - unit tests of depgraph/: the builder (trace events to
 * dg_events by the table "Read and write sets of MPI calls" of
 * docs/dependence.md), the relation dg_depends, and the streaming
 * structures (shadow memory, watch set, key table, hash map).
 *
 * The builder is fed hand-made trace events (an MPI record, its COMPLETE and
 * BLOCKS followers), one test per row of the table, and the ranges, keys and
 * role it returns are checked one by one.  The streaming structures are
 * checked against naive models (a last writer/reader per byte, a list of
 * registered events, a list of keys, an array) on random operations from
 * fixed seeds, so a failure is reproducible; the message names the seed
 * and the step.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "depgraph.h"
#include "helpers/mpilog.h"
#include "trace-format.h"

/* ---- helpers ------------------------------------------------------------------ */

/* splitmix64: small, seedable, good enough for test inputs. */
static uint64_t rnd_state;

static void rnd_seed(uint64_t s)
{
    rnd_state = s * 0x9e3779b97f4a7c15ull + 1;
}

static uint64_t rnd(void)
{
    uint64_t z = (rnd_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static uint64_t rnd_below(uint64_t n)
{
    return rnd() % n;
}

/* An MPI record of `call` with every field "unused" (0, CHT_RANK_NONE,
 * CHT_TAG_NONE), as the runtime starts one. */
static struct cht_rec_mpi mpi_rec(int call)
{
    struct cht_rec_mpi m;
    memset(&m, 0, sizeof(m));
    m.h.type = CHT_REC_MPI;
    m.h.aux = (uint16_t)call;
    m.h.size = sizeof(m);
    m.site = 7;
    m.peer = m.rpeer = m.st_source = CHT_RANK_NONE;
    m.tag = m.rtag = m.st_tag = CHT_TAG_NONE;
    m.t_enter = 1000;
    m.t_exit = 1500;
    return m;
}

/* A trace event for the MPI record m. */
static struct trace_event mpi_ev(const struct cht_rec_mpi *m, uint64_t index)
{
    struct trace_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = TRACE_EV_MPI;
    ev.index = index;
    ev.site = m->site;
    ev.mpi = m;
    return ev;
}

/* A COMPLETE record. */
static struct cht_rec_complete completion(uint64_t request, bool recv, int32_t source, uint64_t st_bytes)
{
    struct cht_rec_complete c;
    memset(&c, 0, sizeof(c));
    c.h.type = CHT_REC_COMPLETE;
    c.h.aux = recv ? 1 : 0;
    c.h.size = sizeof(c);
    c.request = request;
    c.st_source = source;
    c.st_tag = recv ? 5 : CHT_TAG_NONE;
    c.st_bytes = st_bytes;
    return c;
}

/* A BLOCKS record with its blocks, laid out as in a trace. */
struct blocks4 {
    struct cht_rec_blocks h;
    struct cht_block b[4];
};

static struct blocks4 blocks(int side, const int64_t *off, const uint64_t *bytes, uint32_t n)
{
    struct blocks4 r;
    memset(&r, 0, sizeof(r));
    r.h.h.type = CHT_REC_BLOCKS;
    r.h.h.aux = (uint16_t)side;
    r.h.h.size = (uint32_t)(sizeof(r.h) + n * sizeof(struct cht_block));
    r.h.count = n;
    for (uint32_t i = 0; i < n; i++)
        r.b[i] = (struct cht_block){off[i], bytes[i]};
    return r;
}

/* Converts ev, which must give an event. */
static const struct dg_event *convert(struct dg_builder *b, const struct trace_event *ev)
{
    const struct dg_event *e = NULL;
    assert_int_equal(dg_builder_convert(b, ev, &e), 1);
    assert_non_null(e);
    return e;
}

static void check_range(const struct dg_event *e, uint32_t i, uint64_t addr, uint64_t len, bool write)
{
    assert_true(i < e->nranges);
    assert_int_equal(e->ranges[i].addr, addr);
    assert_int_equal(e->ranges[i].len, len);
    assert_int_equal(e->ranges[i].write, write);
}

static void check_key(const struct dg_event *e, uint32_t i, uint32_t cls, uint64_t comm, int32_t peer)
{
    assert_true(i < e->nkeys);
    assert_int_equal(e->keys[i].cls, cls);
    assert_int_equal(e->keys[i].comm, comm);
    assert_int_equal(e->keys[i].peer, peer);
}

static void check_shape(const struct dg_event *e, int role, uint32_t nranges, uint32_t nkeys)
{
    assert_int_equal(e->kind, DG_MPI);
    assert_int_equal(e->role, role);
    assert_int_equal(e->nranges, nranges);
    assert_int_equal(e->nkeys, nkeys);
}

static struct dg_builder *builder(void)
{
    struct dg_builder *b = NULL;
    assert_int_equal(dg_builder_create(&b), 0);
    assert_non_null(b);
    return b;
}

/* The builder of a test, destroyed even when the test fails. */
static int builder_setup(void **state)
{
    *state = builder();
    return 0;
}

static int builder_teardown(void **state)
{
    dg_builder_destroy(*state);
    return 0;
}

#define BUF_S 0x10000ull         /* a send buffer */
#define BUF_R 0x20000ull         /* a receive buffer */
#define COMM2 ((4ull << 32) | 1) /* a created communicator */

/* ---- the builder: point to point ------------------------------------------------ */

/* Send, Ssend, Bsend, Rsend: read the send buffer, SEND(comm, dest). */
/* The weight of a computation event: DG_WEIGHT_BASE plus its site's cost
 * (1 without one), plus what a memcpy or memset moves; saturated. */
static void test_comp_weight(void **state)
{
    struct trace_site_info comp = {.kind = CHT_SITE_COMP, .cost = 40};
    struct trace_site_info old = {.kind = CHT_SITE_COMP, .cost = 1};
    struct trace_site_info copy = {.kind = CHT_SITE_MEMCPY, .cost = CHT_COST_CALL};
    struct trace_site_info huge = {.kind = CHT_SITE_MEMSET, .cost = CHT_COST_CALL};
    struct trace_range moved[2] = {{0x1000, 64, false}, {0x2000, 64, true}};
    struct trace_range all = {0, 1ull << 40, true};
    (void)state;
    assert_int_equal(dg_comp_weight(&comp, 0, NULL), DG_WEIGHT_BASE + 40);
    /* a table without costs, or no table: every event weighs the same */
    assert_int_equal(dg_comp_weight(&old, 2, moved), DG_WEIGHT_BASE + 1);
    assert_int_equal(dg_comp_weight(NULL, 2, moved), DG_WEIGHT_BASE + 1);
    /* the ranges of a copy count, not those of a statement */
    assert_int_equal(dg_comp_weight(&copy, 2, moved), DG_WEIGHT_BASE + CHT_COST_CALL + 2 * 64 / DG_COPY_BYTES_PER_UNIT);
    assert_int_equal(dg_comp_weight(&huge, 1, &all), DG_WEIGHT_MAX);
}

static void test_builder_send(void **state)
{
    static const int calls[] = {CHT_MPI_SEND, CHT_MPI_SSEND, CHT_MPI_BSEND, CHT_MPI_RSEND};
    struct dg_builder *b = *state;
    for (int i = 0; i < 4; i++) {
        struct cht_rec_mpi m = mpi_rec(calls[i]);
        m.comm = COMM2;
        m.sbuf = BUF_S;
        m.sbytes = 96;
        m.count = 12;
        m.datatype = 8;
        m.peer = 3;
        m.tag = 9;
        struct trace_event ev = mpi_ev(&m, 40 + (uint64_t)i);
        const struct dg_event *e = convert(b, &ev);
        check_shape(e, DG_ROLE_SEND, 1, 1);
        check_range(e, 0, BUF_S, 96, false);
        check_key(e, 0, DG_KEY_SEND, COMM2, 3);
        assert_int_equal(e->index, 40 + i);
        assert_int_equal(e->site, 7);
        assert_int_equal(e->call, calls[i]);
        assert_int_equal(e->t_enter, 1000);
        assert_int_equal(e->t_exit, 1500);
        assert_int_equal(e->comm, COMM2);
        assert_int_equal(e->peer, 3);
        assert_int_equal(e->bytes, 96);
        assert_true(dg_is_movable_send(e));
    }
    assert_int_equal(dg_builder_open_requests(b), 0);
}

/* A send to MPI_PROC_NULL touches nothing and orders nothing. */
static void test_builder_send_proc_null(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_SEND);
    m.sbuf = BUF_S;
    m.sbytes = 96;
    m.peer = CHT_RANK_PROC_NULL;
    m.flags = CHT_MPIF_PROC_NULL;
    struct trace_event ev = mpi_ev(&m, 0);
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_OTHER, 0, 0);
    assert_false(dg_is_movable_send(e));
    /* a receive from MPI_PROC_NULL too */
    m = mpi_rec(CHT_MPI_RECV);
    m.rbuf = BUF_R;
    m.rbytes = 64;
    m.rpeer = CHT_RANK_PROC_NULL;
    m.flags = CHT_MPIF_PROC_NULL | CHT_MPIF_HAS_STATUS;
    m.st_source = CHT_RANK_PROC_NULL;
    ev = mpi_ev(&m, 1);
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_OTHER, 0, 0);
}

/* Recv with a status: a contiguous type (count * size == extent) writes the
 * bytes received; otherwise the whole extent; without a status the whole
 * extent. */
static void test_builder_recv(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_RECV);
    m.comm = COMM2;
    m.rbuf = BUF_R;
    m.rbytes = 80;
    m.count = 10;
    m.datatype = 8;
    m.rpeer = 2;
    m.rtag = 4;
    m.flags = CHT_MPIF_HAS_STATUS;
    m.st_source = 2;
    m.st_tag = 4;
    m.st_bytes = 24;
    struct trace_event ev = mpi_ev(&m, 5);
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_RECV, 1, 1);
    check_range(e, 0, BUF_R, 24, true);
    check_key(e, 0, DG_KEY_RECV, COMM2, 2);
    assert_int_equal(e->peer, CHT_RANK_NONE);
    assert_false(dg_is_movable_send(e));

    /* a strided type: 10 doubles with stride 2 span 152 bytes */
    m.rbytes = 152;
    m.st_bytes = 80;
    ev = mpi_ev(&m, 6);
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_RECV, 1, 1);
    check_range(e, 0, BUF_R, 152, true);

    /* no status: the posted extent */
    m.rbytes = 80;
    m.st_bytes = 0;
    m.st_source = CHT_RANK_NONE;
    m.flags = 0;
    ev = mpi_ev(&m, 7);
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_RECV, 1, 1);
    check_range(e, 0, BUF_R, 80, true);
}

/* Recv from MPI_ANY_SOURCE: RECV(comm, ANY). */
static void test_builder_recv_any(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_RECV);
    m.rbuf = BUF_R;
    m.rbytes = 64;
    m.count = 16;
    m.datatype = 4;
    m.rpeer = CHT_RANK_ANY;
    m.rtag = CHT_TAG_ANY;
    m.flags = CHT_MPIF_ANY_SOURCE | CHT_MPIF_ANY_TAG | CHT_MPIF_HAS_STATUS;
    m.st_source = 3;
    m.st_bytes = 64;
    struct trace_event ev = mpi_ev(&m, 0);
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_RECV, 1, 1);
    check_range(e, 0, BUF_R, 64, true);
    check_key(e, 0, DG_KEY_RECV, CHT_COMM_WORLD, DG_PEER_ANY);
}

/* Sendrecv: read sbuf, write the whole posted rbuf (the record's count and
 * type describe the send side, so the status count cannot be trusted to be
 * contiguous bytes), SEND and RECV keys.  Sendrecv_replace: the same buffer
 * read and written. */
static void test_builder_sendrecv(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_SENDRECV);
    m.sbuf = BUF_S;
    m.sbytes = 32;
    m.rbuf = BUF_R;
    m.rbytes = 32;
    m.count = 4;
    m.datatype = 8;
    m.peer = 1;
    m.rpeer = 3;
    m.flags = CHT_MPIF_HAS_STATUS;
    m.st_source = 3;
    m.st_bytes = 16;
    struct trace_event ev = mpi_ev(&m, 0);
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_SENDRECV, 2, 2);
    check_range(e, 0, BUF_S, 32, false);
    check_range(e, 1, BUF_R, 32, true);
    check_key(e, 0, DG_KEY_SEND, CHT_COMM_WORLD, 1);
    check_key(e, 1, DG_KEY_RECV, CHT_COMM_WORLD, 3);
    assert_int_equal(e->bytes, 32);
    assert_false(dg_is_movable_send(e));

    /* the send half to MPI_PROC_NULL: only the receive half */
    m.peer = CHT_RANK_PROC_NULL;
    ev = mpi_ev(&m, 1);
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_SENDRECV, 1, 1);
    check_range(e, 0, BUF_R, 32, true);
    check_key(e, 0, DG_KEY_RECV, CHT_COMM_WORLD, 3);

    /* both halves to MPI_PROC_NULL: nothing */
    m.rpeer = CHT_RANK_PROC_NULL;
    ev = mpi_ev(&m, 2);
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_OTHER, 0, 0);

    m = mpi_rec(CHT_MPI_SENDRECV_REPLACE);
    m.comm = COMM2;
    m.sbuf = m.rbuf = BUF_S;
    m.sbytes = m.rbytes = 48;
    m.count = 12;
    m.datatype = 4;
    m.peer = 0;
    m.rpeer = CHT_RANK_ANY;
    m.flags = CHT_MPIF_HAS_STATUS | CHT_MPIF_ANY_SOURCE;
    m.st_source = 2;
    m.st_bytes = 48;
    ev = mpi_ev(&m, 3);
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_SENDRECV, 2, 2);
    check_range(e, 0, BUF_S, 48, false);
    check_range(e, 1, BUF_S, 48, true);
    check_key(e, 0, DG_KEY_SEND, COMM2, 0);
    check_key(e, 1, DG_KEY_RECV, COMM2, DG_PEER_ANY);
}

/* Isend then Wait: the Wait carries the send buffer (read) and REQ key;
 * after it the request is forgotten. */
static void test_builder_isend_wait(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_ISEND);
    m.comm = COMM2;
    m.sbuf = BUF_S;
    m.sbytes = 40;
    m.count = 5;
    m.datatype = 8;
    m.peer = 2;
    m.request = 17;
    struct trace_event ev = mpi_ev(&m, 10);
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_START, 1, 2);
    check_range(e, 0, BUF_S, 40, false);
    check_key(e, 0, DG_KEY_SEND, COMM2, 2);
    check_key(e, 1, DG_KEY_REQ, 17, 0);
    assert_int_equal(e->bytes, 40);
    assert_false(dg_is_movable_send(e));
    assert_int_equal(dg_builder_open_requests(b), 1);

    /* unrelated events in between do not disturb the request */
    struct cht_rec_mpi bar = mpi_rec(CHT_MPI_BARRIER);
    ev = mpi_ev(&bar, 11);
    convert(b, &ev);
    assert_int_equal(dg_builder_open_requests(b), 1);

    struct cht_rec_mpi w = mpi_rec(CHT_MPI_WAIT);
    w.request = 17;
    w.comm = COMM2;
    struct cht_rec_complete c = completion(17, false, CHT_RANK_NONE, 0);
    const struct cht_rec_complete *cp[] = {&c};
    ev = mpi_ev(&w, 12);
    ev.ncomplete = 1;
    ev.complete = cp;
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_COMPLETE, 1, 1);
    check_range(e, 0, BUF_S, 40, false);
    check_key(e, 0, DG_KEY_REQ, 17, 0);
    assert_int_equal(e->index, 12);
    assert_int_equal(dg_builder_open_requests(b), 0);

    /* a second Wait on the same id finds nothing: only the key */
    ev = mpi_ev(&w, 13);
    ev.ncomplete = 1;
    ev.complete = cp;
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_COMPLETE, 0, 1);
    check_key(e, 0, DG_KEY_REQ, 17, 0);
}

/* Irecv then Wait: the Wait writes the bytes the status reports (contiguous
 * type), or the posted extent (strided type). */
static void test_builder_irecv_wait(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_IRECV);
    m.rbuf = BUF_R;
    m.rbytes = 80;
    m.count = 10;
    m.datatype = 8;
    m.rpeer = 1;
    m.request = 3;
    struct trace_event ev = mpi_ev(&m, 0);
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_START, 1, 2);
    check_range(e, 0, BUF_R, 80, true);
    check_key(e, 0, DG_KEY_RECV, CHT_COMM_WORLD, 1);
    check_key(e, 1, DG_KEY_REQ, 3, 0);
    assert_int_equal(e->bytes, 0);

    /* a strided one: 10 doubles with stride 2 span 152 bytes */
    m.rbuf = BUF_R + 0x1000;
    m.rbytes = 152;
    m.rpeer = CHT_RANK_ANY;
    m.request = 4;
    ev = mpi_ev(&m, 1);
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_START, 1, 2);
    check_range(e, 0, BUF_R + 0x1000, 152, true);
    check_key(e, 0, DG_KEY_RECV, CHT_COMM_WORLD, DG_PEER_ANY);
    check_key(e, 1, DG_KEY_REQ, 4, 0);
    assert_int_equal(dg_builder_open_requests(b), 2);

    struct cht_rec_mpi w = mpi_rec(CHT_MPI_WAIT);
    struct cht_rec_complete c = completion(3, true, 1, 24);
    const struct cht_rec_complete *cp[] = {&c};
    w.request = 3;
    w.flags = CHT_MPIF_HAS_STATUS;
    w.st_source = 1;
    w.st_bytes = 24;
    ev = mpi_ev(&w, 2);
    ev.ncomplete = 1;
    ev.complete = cp;
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_COMPLETE, 1, 1);
    check_range(e, 0, BUF_R, 24, true);
    check_key(e, 0, DG_KEY_REQ, 3, 0);
    assert_int_equal(dg_builder_open_requests(b), 1);

    c = completion(4, true, 2, 80);
    w.request = 4;
    w.st_bytes = 80;
    ev = mpi_ev(&w, 3);
    ev.ncomplete = 1;
    ev.complete = cp;
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_COMPLETE, 1, 1);
    check_range(e, 0, BUF_R + 0x1000, 152, true);
    check_key(e, 0, DG_KEY_REQ, 4, 0);
    assert_int_equal(dg_builder_open_requests(b), 0);
}

/* A receive request completed without a status (MPI_Request_free on an
 * Irecv, or a Wait that failed): the runtime writes the COMPLETE record with
 * st_source = CHT_RANK_NONE and st_bytes = 0 (tracelib/rt/mpi-wait.c,
 * complete_one).  Nothing says how many bytes arrive, so the completion
 * must write the posted extent, as a Recv without a status does
 * (docs/dependence.md: "the posted extent if there is no status"). */
static void test_builder_irecv_complete_without_status(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_IRECV);
    m.rbuf = BUF_R;
    m.rbytes = 80;
    m.count = 10;
    m.datatype = 8;
    m.rpeer = 1;
    m.request = 3;
    struct trace_event ev = mpi_ev(&m, 0);
    convert(b, &ev);

    struct cht_rec_mpi f = mpi_rec(CHT_MPI_REQUEST_FREE);
    f.request = 3;
    struct cht_rec_complete c = completion(3, true, CHT_RANK_NONE, 0);
    const struct cht_rec_complete *cp[] = {&c};
    ev = mpi_ev(&f, 1);
    ev.ncomplete = 1;
    ev.complete = cp;
    const struct dg_event *e = convert(b, &ev);
    assert_int_equal(e->role, DG_ROLE_COMPLETE);
    check_key(e, 0, DG_KEY_REQ, 3, 0);
    assert_int_equal(e->nranges, 1);
    check_range(e, 0, BUF_R, 80, true);
    assert_int_equal(dg_builder_open_requests(b), 0);
}

/* A Test that completed nothing touches nothing; the request stays open. */
static void test_builder_test_nothing(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_ISEND);
    m.sbuf = BUF_S;
    m.sbytes = 8;
    m.peer = 1;
    m.request = 5;
    struct trace_event ev = mpi_ev(&m, 0);
    convert(b, &ev);

    struct cht_rec_mpi t = mpi_rec(CHT_MPI_TEST);
    t.request = 5;
    t.flags = CHT_MPIF_NOT_FOUND;
    ev = mpi_ev(&t, 1);
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_OTHER, 0, 0);
    assert_int_equal(dg_builder_open_requests(b), 1);

    /* the Test that completes it then has the buffer */
    struct cht_rec_complete c = completion(5, false, CHT_RANK_NONE, 0);
    const struct cht_rec_complete *cp[] = {&c};
    t.flags = 0;
    ev = mpi_ev(&t, 2);
    ev.ncomplete = 1;
    ev.complete = cp;
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_COMPLETE, 1, 1);
    check_range(e, 0, BUF_S, 8, false);
    check_key(e, 0, DG_KEY_REQ, 5, 0);
    assert_int_equal(dg_builder_open_requests(b), 0);
}

/* Waitall completing two requests: both buffers, both REQ keys, in
 * completion order. */
static void test_builder_waitall(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_IRECV);
    m.rbuf = BUF_R;
    m.rbytes = 64;
    m.count = 8;
    m.datatype = 8;
    m.rpeer = 2;
    m.request = 1;
    struct trace_event ev = mpi_ev(&m, 0);
    convert(b, &ev);
    m = mpi_rec(CHT_MPI_ISSEND);
    m.sbuf = BUF_S;
    m.sbytes = 48;
    m.peer = 2;
    m.request = 2;
    ev = mpi_ev(&m, 1);
    convert(b, &ev);
    m.request = 9; /* a third one, left open */
    m.sbuf = BUF_S + 0x100;
    ev = mpi_ev(&m, 2);
    convert(b, &ev);
    assert_int_equal(dg_builder_open_requests(b), 3);

    struct cht_rec_mpi w = mpi_rec(CHT_MPI_WAITALL);
    w.count = 2;
    struct cht_rec_complete c0 = completion(2, false, CHT_RANK_NONE, 0);
    struct cht_rec_complete c1 = completion(1, true, 2, 64);
    const struct cht_rec_complete *cp[] = {&c0, &c1};
    ev = mpi_ev(&w, 3);
    ev.ncomplete = 2;
    ev.complete = cp;
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_COMPLETE, 2, 2);
    check_range(e, 0, BUF_S, 48, false);
    check_range(e, 1, BUF_R, 64, true);
    check_key(e, 0, DG_KEY_REQ, 2, 0);
    check_key(e, 1, DG_KEY_REQ, 1, 0);
    assert_int_equal(dg_builder_open_requests(b), 1);
}

/* A completion of a request never started in the trace: only the REQ key. */
static void test_builder_complete_unknown(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi w = mpi_rec(CHT_MPI_WAITANY);
    struct cht_rec_complete c = completion(77, true, 1, 16);
    const struct cht_rec_complete *cp[] = {&c};
    struct trace_event ev = mpi_ev(&w, 0);
    ev.ncomplete = 1;
    ev.complete = cp;
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_COMPLETE, 0, 1);
    check_key(e, 0, DG_KEY_REQ, 77, 0);
    assert_int_equal(dg_builder_open_requests(b), 0);
}

/* Probe and Iprobe: RECV(comm, source), no range. */
static void test_builder_probe(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_PROBE);
    m.comm = COMM2;
    m.rpeer = 2;
    m.rtag = 1;
    m.flags = CHT_MPIF_HAS_STATUS;
    m.st_source = 2;
    m.st_bytes = 400;
    struct trace_event ev = mpi_ev(&m, 0);
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_PROBE, 0, 1);
    check_key(e, 0, DG_KEY_RECV, COMM2, 2);

    m = mpi_rec(CHT_MPI_IPROBE);
    m.rpeer = CHT_RANK_ANY;
    ev = mpi_ev(&m, 1);
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_PROBE, 0, 1);
    check_key(e, 0, DG_KEY_RECV, CHT_COMM_WORLD, DG_PEER_ANY);
}

/* ---- the builder: collectives and the rest ------------------------------------- */

static void test_builder_barrier(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_BARRIER);
    m.comm = COMM2;
    struct trace_event ev = mpi_ev(&m, 0);
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_SYNC, 0, 1);
    check_key(e, 0, DG_KEY_COLL, COMM2, 0);
}

/* Bcast: the root reads the buffer (the runtime records it as sbuf), the
 * others write it (rbuf). */
static void test_builder_bcast(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_BCAST);
    m.comm = COMM2;
    m.peer = 0;
    m.flags = CHT_MPIF_ROOT;
    m.sbuf = BUF_S;
    m.sbytes = 256;
    m.count = 32;
    m.datatype = 8;
    struct trace_event ev = mpi_ev(&m, 0);
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_COLL, 1, 1);
    check_range(e, 0, BUF_S, 256, false);
    check_key(e, 0, DG_KEY_COLL, COMM2, 0);

    m = mpi_rec(CHT_MPI_BCAST);
    m.comm = COMM2;
    m.peer = 0;
    m.rbuf = BUF_R;
    m.rbytes = 256;
    m.count = 32;
    m.datatype = 8;
    ev = mpi_ev(&m, 1);
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_COLL, 1, 1);
    check_range(e, 0, BUF_R, 256, true);
    check_key(e, 0, DG_KEY_COLL, COMM2, 0);
}

/* Allreduce: reads sbuf, writes rbuf; with MPI_IN_PLACE it reads and writes
 * rbuf. */
static void test_builder_allreduce(void **state)
{
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_ALLREDUCE);
    m.sbuf = BUF_S;
    m.sbytes = 80;
    m.rbuf = BUF_R;
    m.rbytes = 80;
    m.count = 10;
    m.datatype = 8;
    m.op = CHT_OP_SUM;
    struct trace_event ev = mpi_ev(&m, 0);
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_COLL, 2, 1);
    check_range(e, 0, BUF_S, 80, false);
    check_range(e, 1, BUF_R, 80, true);
    check_key(e, 0, DG_KEY_COLL, CHT_COMM_WORLD, 0);

    m.flags = CHT_MPIF_SEND_IN_PLACE;
    m.sbuf = 0;
    m.sbytes = 0;
    ev = mpi_ev(&m, 1);
    e = convert(b, &ev);
    check_shape(e, DG_ROLE_COLL, 2, 1);
    check_range(e, 0, BUF_R, 80, false);
    check_range(e, 1, BUF_R, 80, true);
    check_key(e, 0, DG_KEY_COLL, CHT_COMM_WORLD, 0);
}

/* A nonblocking Ialltoallv: a start holding every block of both sides and
 * its 6 held arrays (more ranges than the 8 a request used to hold); the
 * Wait that completes it carries all of them again, then forgets them.  A
 * persistent start (STARTED under MPI_Alltoallv_init) is the same. */
static void test_builder_nonblocking_coll_ranges(void **state)
{
    static const int64_t off[] = {0, 16, 32, 48};
    static const uint64_t len[] = {16, 16, 16, 16};
    struct dg_builder *b = *state;
    for (int round = 0; round < 2; round++) {
        struct cht_rec_mpi m = mpi_rec(round ? CHT_MPI_ALLTOALLV_INIT : CHT_MPI_IALLTOALLV);
        if (round)
            m.flags |= CHT_MPIF_STARTED;
        m.comm = COMM2;
        m.sbuf = BUF_S;
        m.sbytes = 64;
        m.rbuf = BUF_R;
        m.rbytes = 64;
        m.comm_size = 4;
        m.request = 30 + (uint64_t)round;
        struct blocks4 sb = blocks(0, off, len, 4), rb = blocks(1, off, len, 4);
        struct trace_range held[6];
        for (int k = 0; k < 6; k++)
            held[k] = (struct trace_range){0x9000 + 64 * (uint64_t)k, 16, false};
        struct trace_event ev = mpi_ev(&m, 40 + 2 * (uint64_t)round);
        ev.blocks[0] = &sb.h;
        ev.blocks[1] = &rb.h;
        ev.nheld = 6;
        ev.held = held;
        const struct dg_event *e = convert(b, &ev);
        check_shape(e, DG_ROLE_START, 14, 2);
        for (uint32_t i = 0; i < 4; i++) {
            check_range(e, i, BUF_S + 16 * i, 16, false);
            check_range(e, 4 + i, BUF_R + 16 * i, 16, true);
        }
        check_range(e, 8, 0x9000, 16, false);
        check_key(e, 0, DG_KEY_COLL, COMM2, 0);
        check_key(e, 1, DG_KEY_REQ, m.request, 0);
        assert_int_equal(dg_builder_open_requests(b), 1);

        struct cht_rec_mpi w = mpi_rec(CHT_MPI_WAIT);
        struct cht_rec_complete c = completion(m.request, false, CHT_RANK_NONE, 0);
        const struct cht_rec_complete *cp[] = {&c};
        ev = mpi_ev(&w, 41 + 2 * (uint64_t)round);
        ev.ncomplete = 1;
        ev.complete = cp;
        e = convert(b, &ev);
        check_shape(e, DG_ROLE_COMPLETE, 14, 1);
        for (uint32_t i = 0; i < 4; i++) {
            check_range(e, i, BUF_S + 16 * i, 16, false);
            check_range(e, 4 + i, BUF_R + 16 * i, 16, true);
        }
        for (uint32_t k = 0; k < 6; k++)
            check_range(e, 8 + k, 0x9000 + 64 * k, 16, false);
        assert_int_equal(dg_builder_open_requests(b), 0);
    }
}

/* Scatter at the root with MPI_IN_PLACE as receive buffer: reads each block
 * of its send buffer, writes nothing. */
static void test_builder_scatter_root_in_place(void **state)
{
    static const int64_t off[] = {0, 16, 32, 48};
    static const uint64_t len[] = {16, 16, 16, 16};
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_SCATTER);
    m.comm = COMM2;
    m.peer = 1;
    m.flags = CHT_MPIF_ROOT | CHT_MPIF_RECV_IN_PLACE;
    m.sbuf = BUF_S;
    m.sbytes = 64;
    m.count = 4;
    m.datatype = 4;
    m.comm_size = 4;
    struct blocks4 s = blocks(0, off, len, 4);
    struct trace_event ev = mpi_ev(&m, 0);
    ev.blocks[0] = &s.h;
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_COLL, 4, 1);
    for (uint32_t i = 0; i < 4; i++)
        check_range(e, i, BUF_S + 16 * i, 16, false);
    check_key(e, 0, DG_KEY_COLL, COMM2, 0);
}

/* Gatherv at the root: reads its send buffer, writes one range per block at
 * rbuf + offset (the gaps between blocks are not touched). */
static void test_builder_gatherv_root(void **state)
{
    static const int64_t off[] = {0, 24, 100, 64};
    static const uint64_t len[] = {8, 16, 4, 12};
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_GATHERV);
    m.peer = 2;
    m.flags = CHT_MPIF_ROOT;
    m.sbuf = BUF_S;
    m.sbytes = 4;
    m.rbuf = BUF_R;
    m.rbytes = 104;
    m.count = 1;
    m.datatype = 4;
    m.comm_size = 4;
    struct blocks4 r = blocks(1, off, len, 4);
    struct trace_event ev = mpi_ev(&m, 0);
    ev.blocks[1] = &r.h;
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_COLL, 5, 1);
    check_range(e, 0, BUF_S, 4, false);
    for (uint32_t i = 0; i < 4; i++)
        check_range(e, 1 + i, BUF_R + (uint64_t)off[i], len[i], true);
    check_key(e, 0, DG_KEY_COLL, CHT_COMM_WORLD, 0);
}

/* Alltoallv: each send block read, each receive block written. */
static void test_builder_alltoallv(void **state)
{
    static const int64_t soff[] = {0, 8, 40};
    static const uint64_t slen[] = {8, 16, 8};
    static const int64_t roff[] = {64, 0, 32};
    static const uint64_t rlen[] = {4, 24, 8};
    struct dg_builder *b = *state;
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_ALLTOALLV);
    m.comm = COMM2;
    m.sbuf = BUF_S;
    m.sbytes = 48;
    m.rbuf = BUF_R;
    m.rbytes = 68;
    m.count = 2;
    m.datatype = 4;
    m.comm_size = 3;
    struct blocks4 s = blocks(0, soff, slen, 3), r = blocks(1, roff, rlen, 3);
    struct trace_event ev = mpi_ev(&m, 0);
    ev.blocks[0] = &s.h;
    ev.blocks[1] = &r.h;
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_COLL, 6, 1);
    for (uint32_t i = 0; i < 3; i++) {
        check_range(e, i, BUF_S + (uint64_t)soff[i], slen[i], false);
        check_range(e, 3 + i, BUF_R + (uint64_t)roff[i], rlen[i], true);
    }
    check_key(e, 0, DG_KEY_COLL, COMM2, 0);
}

/* Init, Finalize, communicator management: fences, no ranges, no keys. */
static void test_builder_fences(void **state)
{
    static const int calls[] = {CHT_MPI_INIT,      CHT_MPI_INIT_THREAD, CHT_MPI_FINALIZE,
                                CHT_MPI_ABORT,     CHT_MPI_COMM_SPLIT,  CHT_MPI_COMM_DUP,
                                CHT_MPI_COMM_FREE, CHT_MPI_CART_CREATE};
    struct dg_builder *b = *state;
    for (int i = 0; i < 8; i++) {
        struct cht_rec_mpi m = mpi_rec(calls[i]);
        m.comm = COMM2;
        struct trace_event ev = mpi_ev(&m, (uint64_t)i);
        const struct dg_event *e = convert(b, &ev);
        check_shape(e, DG_ROLE_FENCE, 0, 0);
        assert_int_equal(e->call, calls[i]);
    }
    /* an unknown call orders nothing */
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_CANCEL);
    struct trace_event ev = mpi_ev(&m, 9);
    const struct dg_event *e = convert(b, &ev);
    check_shape(e, DG_ROLE_OTHER, 0, 0);
}

/* A COMP event: its ranges (the reader's array itself), site flags from the
 * site table, iteration vector passed through; no keys. */
static void test_builder_comp(void **state)
{
    struct dg_builder *b = *state;
    struct trace_range rg[3] = {{0x1000, 8, false}, {0x2004, 4, true}, {0x3000, 0, false}};
    struct trace_iter it[2] = {{3, 0, 7}, {4, 0, 2}};
    struct trace_site_info si;
    memset(&si, 0, sizeof(si));
    si.id = 42;
    si.flags = CHT_SITEF_CONDITIONAL | CHT_SITEF_ACCUMULATE;
    struct trace_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = TRACE_EV_COMP;
    ev.index = 123;
    ev.site = 42;
    ev.site_info = &si;
    ev.depth = 2;
    ev.iters = it;
    ev.nranges = 3;
    ev.ranges = rg;
    const struct dg_event *e = convert(b, &ev);
    assert_int_equal(e->kind, DG_COMP);
    assert_int_equal(e->role, DG_ROLE_NONE);
    assert_int_equal(e->index, 123);
    assert_int_equal(e->site, 42);
    assert_int_equal(e->call, 0);
    assert_int_equal(e->site_flags, CHT_SITEF_CONDITIONAL | CHT_SITEF_ACCUMULATE);
    assert_int_equal(e->nranges, 3);
    check_range(e, 0, 0x1000, 8, false);
    check_range(e, 1, 0x2004, 4, true);
    check_range(e, 2, 0x3000, 0, false);
    assert_int_equal(e->nkeys, 0);
    assert_int_equal(e->depth, 2);
    assert_ptr_equal(e->iters, it);
    assert_int_equal(e->peer, CHT_RANK_NONE);
    assert_false(dg_is_movable_send(e));

    /* without site information: no flags */
    ev.site_info = NULL;
    ev.site = CHT_NONE;
    e = convert(b, &ev);
    assert_int_equal(e->site_flags, 0);
    assert_int_equal(e->site, CHT_NONE);

    /* an MPI event after it does not keep its ranges or iteration vector */
    struct cht_rec_mpi m = mpi_rec(CHT_MPI_BARRIER);
    struct trace_event me = mpi_ev(&m, 124);
    e = convert(b, &me);
    check_shape(e, DG_ROLE_SYNC, 0, 1);
    assert_int_equal(e->depth, 0);
    assert_int_equal(e->site_flags, 0);
}

/* LOOP events are not analysed: 0 and *out NULL. */
static void test_builder_loop(void **state)
{
    struct dg_builder *b = *state;
    struct trace_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.kind = TRACE_EV_LOOP;
    ev.index = 5;
    ev.loop_kind = CHT_LOOP_ITER;
    ev.loop = 3;
    const struct dg_event *e = (const struct dg_event *)&ev; /* anything non-NULL */
    assert_int_equal(dg_builder_convert(b, &ev, &e), 0);
    assert_null(e);
}

/* Request bookkeeping on random starts and completions: every completion
 * carries exactly the buffer of the request it completes (a reused id
 * keeps the newer start), every start is counted open until completed. */
struct open_req {
    bool open;
    struct dg_range r;
};

static void test_builder_requests_random(void **state)
{
    enum { NID = 24 };
    for (uint64_t seed = 1; seed <= 4; seed++) {
        rnd_seed(seed);
        struct dg_builder *b = builder();
        struct open_req model[NID + 1];
        memset(model, 0, sizeof(model));
        size_t nopen = 0;
        for (uint64_t step = 0; step < 3000; step++) {
            if (rnd_below(2) == 0) {
                uint64_t id = 1 + rnd_below(NID);
                bool recv = rnd_below(2);
                struct cht_rec_mpi m = mpi_rec(recv ? CHT_MPI_IRECV : CHT_MPI_ISEND);
                uint64_t addr = 0x100000 + step * 0x100 + rnd_below(64);
                uint64_t len = 8 * (1 + rnd_below(20));
                m.count = (int32_t)(len / 8);
                m.datatype = 8;
                m.request = id;
                if (recv) {
                    m.rbuf = addr;
                    m.rbytes = len;
                    m.rpeer = (int32_t)rnd_below(4);
                } else {
                    m.sbuf = addr;
                    m.sbytes = len;
                    m.peer = (int32_t)rnd_below(4);
                }
                struct trace_event ev = mpi_ev(&m, step);
                const struct dg_event *e = convert(b, &ev);
                check_shape(e, DG_ROLE_START, 1, 2);
                check_range(e, 0, addr, len, recv);
                check_key(e, 1, DG_KEY_REQ, id, 0);
                if (!model[id].open)
                    nopen++;
                model[id].open = true;
                model[id].r = (struct dg_range){addr, len, recv};
            } else {
                struct cht_rec_complete c[3];
                const struct cht_rec_complete *cp[3];
                uint64_t ids[3];
                uint32_t n = 1 + (uint32_t)rnd_below(3), nr = 0;
                struct dg_range want[3];
                for (uint32_t i = 0; i < n; i++) {
                    uint64_t id = 1 + rnd_below(NID);
                    for (uint32_t j = 0; j < i; j++)
                        if (ids[j] == id)
                            id = 0;
                    if (!id) { /* no request twice in one call */
                        n = i;
                        break;
                    }
                    ids[i] = id;
                    bool recv = model[id].open ? model[id].r.write : rnd_below(2);
                    uint64_t st = 0;
                    if (recv && model[id].open)
                        st = 1 + rnd_below(model[id].r.len);
                    c[i] = completion(id, recv, recv ? 1 : CHT_RANK_NONE, st);
                    cp[i] = &c[i];
                    if (model[id].open) {
                        want[nr] = model[id].r;
                        if (recv)
                            want[nr].len = st;
                        nr++;
                        model[id].open = false;
                        nopen--;
                    }
                }
                struct cht_rec_mpi w = mpi_rec(CHT_MPI_WAITSOME);
                struct trace_event ev = mpi_ev(&w, step);
                ev.ncomplete = n;
                ev.complete = cp;
                const struct dg_event *e = convert(b, &ev);
                check_shape(e, DG_ROLE_COMPLETE, nr, n);
                for (uint32_t i = 0; i < n; i++)
                    check_key(e, i, DG_KEY_REQ, ids[i], 0);
                for (uint32_t i = 0; i < nr; i++)
                    check_range(e, i, want[i].addr, want[i].len, want[i].write);
            }
            if (dg_builder_open_requests(b) != nopen)
                fail_msg("open requests: seed=%" PRIu64 " step=%" PRIu64 " got=%zu want=%zu", seed, step,
                         dg_builder_open_requests(b), nopen);
        }
        dg_builder_destroy(b);
    }
}

/* ---- the relation ------------------------------------------------------------------ */

/* An event with up to 4 ranges and 4 keys of its own. */
struct tev {
    struct dg_event e;
    struct dg_range r[4];
    struct dg_key k[4];
};

static void tev_init(struct tev *t, uint8_t kind, uint8_t role)
{
    memset(t, 0, sizeof(*t));
    t->e.kind = kind;
    t->e.role = role;
    t->e.peer = CHT_RANK_NONE;
    t->e.ranges = t->r;
    t->e.keys = t->k;
}

static void tev_range(struct tev *t, uint64_t addr, uint64_t len, bool write)
{
    t->r[t->e.nranges++] = (struct dg_range){addr, len, write};
}

static void tev_key(struct tev *t, uint32_t cls, uint64_t comm, int32_t peer)
{
    t->k[t->e.nkeys++] = (struct dg_key){cls, peer, comm};
}

/* A movable send (blocking, real destination). */
static void tev_send(struct tev *t, uint64_t comm, int32_t peer, uint64_t addr)
{
    tev_init(t, DG_MPI, DG_ROLE_SEND);
    t->e.comm = comm;
    t->e.peer = peer;
    tev_range(t, addr, 8, false);
    tev_key(t, DG_KEY_SEND, comm, peer);
}

/* dg_depends in both orders (the relation is symmetric). */
static bool depends(const struct tev *a, const struct tev *b, bool same_channel_sends)
{
    bool ab = dg_depends(&a->e, &b->e, same_channel_sends);
    bool ba = dg_depends(&b->e, &a->e, same_channel_sends);
    assert_int_equal(ab, ba);
    return ab;
}

static void test_depends_ranges(void **state)
{
    struct tev a, b;
    /* flow: a writes [100,108), b reads [104,112) */
    tev_init(&a, DG_COMP, DG_ROLE_NONE);
    tev_range(&a, 100, 8, true);
    tev_init(&b, DG_COMP, DG_ROLE_NONE);
    tev_range(&b, 104, 8, false);
    assert_true(depends(&a, &b, true));
    assert_true(depends(&a, &b, false));
    /* anti */
    a.r[0].write = false;
    b.r[0].write = true;
    assert_true(depends(&a, &b, true));
    /* output */
    a.r[0].write = true;
    assert_true(depends(&a, &b, true));
    /* read-read never */
    a.r[0].write = b.r[0].write = false;
    assert_false(depends(&a, &b, true));
    /* one overlapping byte is enough: [100,108) and [107,108) */
    b.r[0] = (struct dg_range){107, 1, true};
    assert_true(depends(&a, &b, true));
    /* touching but not overlapping: [0,8) and [8,16), both written */
    a.r[0] = (struct dg_range){0, 8, true};
    b.r[0] = (struct dg_range){8, 8, true};
    assert_false(depends(&a, &b, true));
    /* unknown length never conflicts, even at the same address */
    a.r[0] = (struct dg_range){8, 0, true};
    assert_false(depends(&a, &b, true));
    b.r[0] = (struct dg_range){8, 0, true};
    assert_false(depends(&a, &b, true));
    /* the conflict is found among several ranges on both sides */
    tev_init(&a, DG_COMP, DG_ROLE_NONE);
    tev_range(&a, 0, 4, false);
    tev_range(&a, 64, 4, false);
    tev_range(&a, 200, 8, true);
    tev_init(&b, DG_COMP, DG_ROLE_NONE);
    tev_range(&b, 2, 4, false);
    tev_range(&b, 204, 4, false);
    assert_true(depends(&a, &b, true));
    b.r[1].addr = 208;
    assert_false(depends(&a, &b, true));
    /* no ranges at all */
    tev_init(&b, DG_COMP, DG_ROLE_NONE);
    assert_false(depends(&a, &b, true));
}

static void test_depends_fence(void **state)
{
    struct tev f, c, g;
    tev_init(&f, DG_MPI, DG_ROLE_FENCE);
    tev_init(&c, DG_COMP, DG_ROLE_NONE); /* no ranges */
    assert_true(depends(&f, &c, true));
    assert_true(depends(&f, &c, false));
    tev_init(&g, DG_MPI, DG_ROLE_FENCE);
    assert_true(depends(&f, &g, false));
    tev_send(&c, 0, 1, 0x100);
    assert_true(depends(&f, &c, false));
    tev_init(&c, DG_MPI, DG_ROLE_OTHER);
    assert_true(depends(&f, &c, true));
    /* a computation event is never a fence, whatever its role field says */
    tev_init(&f, DG_COMP, DG_ROLE_FENCE);
    tev_init(&c, DG_COMP, DG_ROLE_NONE);
    assert_false(depends(&f, &c, true));
}

static void test_depends_keys(void **state)
{
    struct tev a, b;
    tev_init(&a, DG_MPI, DG_ROLE_RECV);
    tev_key(&a, DG_KEY_RECV, 5, 2);
    tev_init(&b, DG_MPI, DG_ROLE_PROBE);
    tev_key(&b, DG_KEY_RECV, 5, 2);
    assert_true(depends(&a, &b, true));
    assert_true(depends(&a, &b, false));
    /* another peer */
    b.k[0].peer = 3;
    assert_false(depends(&a, &b, true));
    /* a wildcard on either side */
    b.k[0].peer = DG_PEER_ANY;
    assert_true(depends(&a, &b, true));
    a.k[0].peer = DG_PEER_ANY;
    assert_true(depends(&a, &b, true));
    a.k[0].peer = 2;
    /* another communicator */
    b.k[0].comm = 6;
    assert_false(depends(&a, &b, true));
    /* another class, same comm and peer */
    b.k[0] = (struct dg_key){DG_KEY_SEND, 2, 5};
    assert_false(depends(&a, &b, true));
    b.k[0] = (struct dg_key){DG_KEY_COLL, 0, 5};
    a.k[0] = (struct dg_key){DG_KEY_REQ, 0, 5};
    assert_false(depends(&a, &b, true));
    /* a later key of a matches */
    tev_key(&a, DG_KEY_COLL, 5, 0);
    assert_true(depends(&a, &b, true));
    /* the inline helper agrees */
    struct dg_key k1 = {DG_KEY_SEND, 1, 0}, k2 = {DG_KEY_SEND, DG_PEER_ANY, 0}, k3 = {DG_KEY_SEND, 1, 1};
    assert_true(dg_keys_conflict(&k1, &k2));
    assert_true(dg_keys_conflict(&k2, &k1));
    assert_false(dg_keys_conflict(&k1, &k3));
}

/* With same_channel_sends false, two movable sends on one (comm, peer) do
 * not depend on each other; a movable send and an Isend on that channel
 * still do. */
static void test_depends_same_channel(void **state)
{
    struct tev a, b;
    tev_send(&a, 3, 1, 0x100);
    tev_send(&b, 3, 1, 0x100); /* same buffer: both only read it */
    assert_true(depends(&a, &b, true));
    assert_false(depends(&a, &b, false));
    /* another destination or communicator: no conflict either way */
    tev_send(&b, 3, 2, 0x200);
    assert_false(depends(&a, &b, true));
    tev_send(&b, 4, 1, 0x200);
    assert_false(depends(&a, &b, true));
    /* a send to PROC_NULL-like peer is not movable */
    tev_send(&b, 3, 1, 0x200);
    b.e.peer = -1;
    assert_true(depends(&a, &b, false));
    /* an Isend on the same channel */
    tev_init(&b, DG_MPI, DG_ROLE_START);
    tev_range(&b, 0x300, 8, false);
    tev_key(&b, DG_KEY_SEND, 3, 1);
    tev_key(&b, DG_KEY_REQ, 12, 0);
    b.e.comm = 3;
    assert_true(depends(&a, &b, false));
    assert_true(depends(&a, &b, true));
    /* the exception is about keys only: a data dependence still counts */
    tev_send(&b, 3, 1, 0x100);
    tev_init(&a, DG_COMP, DG_ROLE_NONE);
    tev_range(&a, 0x104, 4, true);
    assert_true(depends(&a, &b, false));
}

static void test_role_names(void **state)
{
    assert_string_equal(dg_role_name(DG_ROLE_SEND), "send");
    assert_string_equal(dg_role_name(DG_ROLE_NONE), "comp");
    assert_string_equal(dg_role_name(DG_ROLE_FENCE), "fence");
    assert_string_equal(dg_role_name(DG_ROLE_OTHER), "other");
    assert_string_equal(dg_role_name(-1), "?");
    assert_string_equal(dg_role_name(DG_ROLE_OTHER + 1), "?");
}

/* ---- shadow memory --------------------------------------------------------------- */

#define PG 4096ull
#define SH_W (3 * PG + 77)               /* model window, bytes */
#define SH_BASE (0x7f0000005000ull - 37) /* 37 bytes before a page boundary */
#define SH_MARGIN 64                     /* queries reach this far outside */

struct shadow_model {
    uint64_t w[SH_W], r[SH_W];
};

static void model_update(struct shadow_model *m, const struct dg_range *r, uint64_t index)
{
    for (uint64_t a = r->addr; a < r->addr + r->len; a++)
        (r->write ? m->w : m->r)[a - SH_BASE] = index + 1;
}

static uint64_t model_conflict(const struct shadow_model *m, const struct dg_range *r)
{
    uint64_t best = 0;
    for (uint64_t a = r->addr; a < r->addr + r->len; a++) {
        if (a < SH_BASE || a >= SH_BASE + SH_W)
            continue;
        uint64_t i = a - SH_BASE;
        if (m->w[i] > best)
            best = m->w[i];
        if (r->write && m->r[i] > best)
            best = m->r[i];
    }
    return best;
}

/* A random access inside the window: mostly short and unaligned, some
 * aligned ints and doubles, some granule-aligned runs, some over a page. */
static struct dg_range shadow_access(void)
{
    struct dg_range r;
    uint64_t kind = rnd_below(10), len;
    r.write = rnd_below(2);
    if (kind < 5) {
        len = 1 + rnd_below(40);
        r.addr = SH_BASE + rnd_below(SH_W - len + 1);
    } else if (kind < 8) {
        len = rnd_below(2) ? 4 : 8;
        uint64_t a = SH_BASE + rnd_below(SH_W - 2 * len);
        r.addr = (a + len - 1) & ~(len - 1);
    } else if (kind < 9) {
        len = 4 * (1 + rnd_below(24));
        uint64_t a = SH_BASE + rnd_below(SH_W - len - 4);
        r.addr = (a + 3) & ~3ull;
    } else {
        len = PG + rnd_below(2 * PG);
        r.addr = SH_BASE + rnd_below(SH_W - len + 1);
    }
    r.len = len;
    return r;
}

/* A random query, possibly reaching outside the window. */
static struct dg_range shadow_query(void)
{
    struct dg_range q;
    uint64_t len = rnd_below(8) ? 1 + rnd_below(64) : 1 + rnd_below(3 * PG);
    uint64_t lo = SH_BASE - SH_MARGIN, span = SH_W + 2 * SH_MARGIN;
    q.len = len;
    q.addr = lo + rnd_below(span);
    q.write = rnd_below(2);
    return q;
}

static void shadow_check(const struct dg_shadow *s, const struct shadow_model *m, const struct dg_range *q,
                         uint64_t seed, uint64_t step)
{
    uint64_t got = dg_shadow_last_conflict(s, q), want = model_conflict(m, q);
    if (got != want)
        fail_msg("shadow: seed=%" PRIu64 " step=%" PRIu64 " query addr=base%+" PRId64 " len=%" PRIu64
                 " write=%d got=%" PRIu64 " want=%" PRIu64,
                 seed, step, (int64_t)(q->addr - SH_BASE), q->len, q->write, got, want);
}

static void test_shadow_random(void **state)
{
    struct shadow_model *m = malloc(sizeof(*m));
    assert_non_null(m);
    for (uint64_t seed = 1; seed <= 4; seed++) {
        rnd_seed(100 + seed);
        memset(m, 0, sizeof(*m));
        struct dg_shadow *s = NULL;
        assert_int_equal(dg_shadow_create(&s), 0);
        uint64_t index = 0;
        for (uint64_t step = 0; step < 3000; step++) {
            index += rnd_below(4) ? 1 : 0; /* several ranges of one event now and then */
            struct dg_range r = shadow_access();
            assert_int_equal(dg_shadow_update(s, &r, index), 0);
            model_update(m, &r, index);
            /* the range just updated, then random ones */
            struct dg_range q = r;
            q.write = false;
            shadow_check(s, m, &q, seed, step);
            q.write = true;
            shadow_check(s, m, &q, seed, step);
            for (int i = 0; i < 12; i++) {
                q = shadow_query();
                shadow_check(s, m, &q, seed, step);
            }
            if (step % 500 == 499) { /* every byte, and the whole window */
                for (uint64_t a = SH_BASE - 8; a < SH_BASE + SH_W + 8; a++) {
                    q = (struct dg_range){a, 1, false};
                    shadow_check(s, m, &q, seed, step);
                    q.write = true;
                    shadow_check(s, m, &q, seed, step);
                }
                q = (struct dg_range){SH_BASE - 8, SH_W + 16, true};
                shadow_check(s, m, &q, seed, step);
                q.write = false;
                shadow_check(s, m, &q, seed, step);
            }
        }
        dg_shadow_destroy(s);
    }
    free(m);
}

/* Hand-picked cases: a granule split then covered again, a read after a
 * write, len 0. */
static void test_shadow_basic(void **state)
{
    struct dg_shadow *s = NULL;
    assert_int_equal(dg_shadow_create(&s), 0);
    const uint64_t a = 0x5000;
    struct dg_range q = {a, 8, true};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 0);
    /* event 0 writes byte a+1: splits the first granule */
    struct dg_range r = {a + 1, 1, true};
    assert_int_equal(dg_shadow_update(s, &r, 0), 0);
    q = (struct dg_range){a, 1, false};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 0);
    q = (struct dg_range){a + 1, 1, false};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 1);
    q = (struct dg_range){a, 4, false};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 1);
    /* event 1 reads a+2..a+9 (unaligned) */
    r = (struct dg_range){a + 2, 8, false};
    assert_int_equal(dg_shadow_update(s, &r, 1), 0);
    q = (struct dg_range){a + 1, 1, false}; /* a read depends on writers only */
    assert_int_equal(dg_shadow_last_conflict(s, &q), 1);
    q.write = true; /* a write on both */
    assert_int_equal(dg_shadow_last_conflict(s, &q), 1);
    q = (struct dg_range){a + 9, 1, true};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 2);
    q = (struct dg_range){a + 10, 1, true};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 0);
    /* event 2 writes the aligned double at a: unsplits */
    r = (struct dg_range){a, 8, true};
    assert_int_equal(dg_shadow_update(s, &r, 2), 0);
    q = (struct dg_range){a + 1, 1, false};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 3);
    q = (struct dg_range){a + 9, 1, false};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 0);
    q.write = true;
    assert_int_equal(dg_shadow_last_conflict(s, &q), 2);
    /* length 0: ignored and never conflicting */
    r = (struct dg_range){a, 0, true};
    assert_int_equal(dg_shadow_update(s, &r, 3), 0);
    q = (struct dg_range){a, 0, true};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 0);
    q = (struct dg_range){a, 8, true};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 3);
    dg_shadow_destroy(s);
}

/* A 1 MiB range, unaligned, updated and queried at its ends and inside. */
static void test_shadow_huge(void **state)
{
    struct dg_shadow *s = NULL;
    assert_int_equal(dg_shadow_create(&s), 0);
    const uint64_t a = 0x40000003, n = 1u << 20;
    struct dg_range r = {a, n, true};
    assert_int_equal(dg_shadow_update(s, &r, 10), 0);
    r = (struct dg_range){a + n / 2 + 1, 3, false};
    assert_int_equal(dg_shadow_update(s, &r, 11), 0);
    struct dg_range q = {a, n, false};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 11);
    q.write = true;
    assert_int_equal(dg_shadow_last_conflict(s, &q), 12);
    q = (struct dg_range){a - 1, 1, true};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 0);
    q = (struct dg_range){a + n, 1, true};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 0);
    q = (struct dg_range){a + n - 1, 1, true};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 11);
    q = (struct dg_range){a - 100, 101, false};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 11);
    q = (struct dg_range){a + n / 2 - 10, 11, true};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 11);
    q.len = 12;
    assert_int_equal(dg_shadow_last_conflict(s, &q), 12);
    /* a larger query over everything and beyond */
    q = (struct dg_range){a - 5 * PG, n + 10 * PG, true};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 12);
    /* overwrite the whole range again: the read is gone from a write query */
    r = (struct dg_range){a, n, true};
    assert_int_equal(dg_shadow_update(s, &r, 12), 0);
    q = (struct dg_range){a + n / 2 + 1, 1, true};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 13);
    dg_shadow_destroy(s);
}

/* Accesses longer than 16 MiB (a trace may claim up to 2^64 bytes) are
 * kept whole: exact answers, at once, with no page allocated for them. */
static void test_shadow_big(void **state)
{
    struct dg_shadow *s = NULL;
    assert_int_equal(dg_shadow_create(&s), 0);
    const uint64_t a = 0x10000, n = 1ull << 62;
    struct dg_range r = {0x20001, 4, true}; /* a page before the big ranges */
    assert_int_equal(dg_shadow_update(s, &r, 1), 0);
    size_t f0 = dg_shadow_footprint(s);
    r = (struct dg_range){a, n, false};
    assert_int_equal(dg_shadow_update(s, &r, 5), 0);
    assert_true(dg_shadow_footprint(s) - f0 < 4096);
    struct dg_range q = {a + (1ull << 40), 8, false}; /* a read depends on writers only */
    assert_int_equal(dg_shadow_last_conflict(s, &q), 0);
    q.write = true;
    assert_int_equal(dg_shadow_last_conflict(s, &q), 6);
    q = (struct dg_range){a - 8, 8, true}; /* just before it */
    assert_int_equal(dg_shadow_last_conflict(s, &q), 0);
    q = (struct dg_range){a + n, 8, true}; /* just after it */
    assert_int_equal(dg_shadow_last_conflict(s, &q), 0);
    /* a later small write inside wins there; the older page's value loses */
    r = (struct dg_range){a + 4096, 8, true};
    assert_int_equal(dg_shadow_update(s, &r, 7), 0);
    q = (struct dg_range){a + 4096, 4, false};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 8);
    q = (struct dg_range){0x20000, 8, true};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 6);
    /* a big write covering it supersedes the older big read for writers */
    r = (struct dg_range){0, UINT64_MAX, true};
    assert_int_equal(dg_shadow_update(s, &r, 9), 0);
    q = (struct dg_range){a + (1ull << 50), 1, false};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 10);
    /* a query over everything scans the pages held, not 2^52 of them */
    q = (struct dg_range){0, UINT64_MAX, false};
    assert_int_equal(dg_shadow_last_conflict(s, &q), 10);
    dg_shadow_destroy(s);
}

/* Memory follows the pages touched, not the address span. */
static void test_shadow_footprint(void **state)
{
    struct dg_shadow *s = NULL;
    assert_int_equal(dg_shadow_create(&s), 0);
    size_t f0 = dg_shadow_footprint(s);
    struct dg_range r = {0x1001, 1, true};
    assert_int_equal(dg_shadow_update(s, &r, 0), 0);
    r.addr = 0x7ffff0000123ull;
    assert_int_equal(dg_shadow_update(s, &r, 1), 0);
    size_t f2 = dg_shadow_footprint(s);
    assert_true(f2 > f0);
    assert_true(f2 - f0 < 512 * 1024); /* two pages, not 128 TiB */
    /* touching them again costs nothing */
    r.addr = 0x1002;
    assert_int_equal(dg_shadow_update(s, &r, 2), 0);
    r = (struct dg_range){0x7ffff0000000ull, 4096, false};
    assert_int_equal(dg_shadow_update(s, &r, 3), 0);
    assert_int_equal(dg_shadow_footprint(s), f2);
    /* one new page with an aligned double */
    r = (struct dg_range){0x90000008, 8, true};
    assert_int_equal(dg_shadow_update(s, &r, 4), 0);
    size_t f3 = dg_shadow_footprint(s);
    assert_true(f3 > f2);
    size_t page = f3 - f2;
    /* 256 new whole pages cost about 256 times that */
    r = (struct dg_range){0xa0000000, 256 * PG, true};
    assert_int_equal(dg_shadow_update(s, &r, 5), 0);
    size_t f4 = dg_shadow_footprint(s);
    assert_true(f4 - f3 >= 250 * page);
    assert_true(f4 - f3 <= 256 * page + 64 * 1024);
    dg_shadow_destroy(s);
}

/* ---- watch set --------------------------------------------------------------------- */

#define WA_BASE (0x50000000ull + 1234)
#define WA_SPAN (48 * PG)
#define WA_MAXEV 6000
#define WA_NOWN 40

/* A registered event in the model. */
struct wev {
    struct tev t;
    uint64_t owner;
    bool skip, alive;
};

static uint64_t owner_id(uint64_t i)
{
    return i * 0x100000001ull; /* 0 and large ids */
}

/* A random range: hot spots around page boundaries so that events meet,
 * some anywhere, some over a few pages, some over more than 16 pages. */
static void wa_range(struct tev *t, bool write)
{
    uint64_t kind = rnd_below(20), addr, len;
    if (kind < 12) {
        len = 1 + rnd_below(64);
        uint64_t boundary = WA_BASE - 1234 + (1 + rnd_below(4)) * 8 * PG;
        addr = boundary - 64 + rnd_below(128);
    } else if (kind < 15) {
        len = 1 + rnd_below(64);
        addr = WA_BASE + rnd_below(WA_SPAN - len);
    } else if (kind < 17) {
        len = PG + rnd_below(3 * PG);
        addr = WA_BASE + rnd_below(WA_SPAN - len);
    } else if (kind < 19) {
        len = 17 * PG + rnd_below(10 * PG);
        addr = WA_BASE + rnd_below(WA_SPAN - len);
    } else {
        len = 0;
        addr = WA_BASE + rnd_below(WA_SPAN);
    }
    tev_range(t, addr, len, write);
}

static int32_t wa_peer(bool any)
{
    return any && rnd_below(4) == 0 ? DG_PEER_ANY : (int32_t)rnd_below(3);
}

/* A random event of any role, with the ranges and keys the builder gives. */
static void wa_event(struct tev *t)
{
    uint64_t kind = rnd_below(100);
    uint64_t comm = rnd_below(2);
    if (kind < 35) {
        tev_init(t, DG_COMP, DG_ROLE_NONE);
        uint64_t n = 1 + rnd_below(3);
        for (uint64_t i = 0; i < n; i++)
            wa_range(t, rnd_below(2));
    } else if (kind < 60) {
        int32_t p = (int32_t)rnd_below(3);
        tev_init(t, DG_MPI, DG_ROLE_SEND);
        t->e.comm = comm;
        t->e.peer = p;
        wa_range(t, false);
        tev_key(t, DG_KEY_SEND, comm, p);
    } else if (kind < 68) {
        tev_init(t, DG_MPI, DG_ROLE_START);
        t->e.comm = comm;
        wa_range(t, false);
        tev_key(t, DG_KEY_SEND, comm, (int32_t)rnd_below(3));
        tev_key(t, DG_KEY_REQ, 1 + rnd_below(4), 0);
    } else if (kind < 76) {
        tev_init(t, DG_MPI, DG_ROLE_COMPLETE);
        wa_range(t, rnd_below(2));
        tev_key(t, DG_KEY_REQ, 1 + rnd_below(4), 0);
    } else if (kind < 86) {
        tev_init(t, DG_MPI, DG_ROLE_RECV);
        t->e.comm = comm;
        wa_range(t, true);
        tev_key(t, DG_KEY_RECV, comm, wa_peer(true));
    } else if (kind < 92) {
        tev_init(t, DG_MPI, DG_ROLE_COLL);
        t->e.comm = comm;
        wa_range(t, false);
        wa_range(t, true);
        tev_key(t, DG_KEY_COLL, comm, 0);
    } else if (kind < 95) {
        tev_init(t, DG_MPI, DG_ROLE_SENDRECV);
        t->e.comm = comm;
        wa_range(t, false);
        wa_range(t, true);
        tev_key(t, DG_KEY_SEND, comm, (int32_t)rnd_below(3));
        tev_key(t, DG_KEY_RECV, comm, wa_peer(true));
    } else if (kind < 98) {
        tev_init(t, DG_MPI, DG_ROLE_OTHER);
    } else {
        tev_init(t, DG_MPI, DG_ROLE_FENCE);
    }
}

/* The model's relation, written out from docs/dependence.md independently
 * of relation.c: does a registered event (skip: registered with
 * skip_channel_sends) conflict with a later query event? */
static bool model_depends(const struct tev *a, const struct tev *b, bool skip)
{
    if ((a->e.kind == DG_MPI && a->e.role == DG_ROLE_FENCE) ||
        (b->e.kind == DG_MPI && b->e.role == DG_ROLE_FENCE))
        return true;
    for (uint32_t i = 0; i < a->e.nranges; i++)
        for (uint32_t j = 0; j < b->e.nranges; j++) {
            const struct dg_range *x = &a->r[i], *y = &b->r[j];
            if (x->len && y->len && (x->write || y->write) && x->addr < y->addr + y->len &&
                y->addr < x->addr + x->len)
                return true;
        }
    bool mov_a = a->e.kind == DG_MPI && a->e.role == DG_ROLE_SEND && a->e.peer >= 0;
    bool mov_b = b->e.kind == DG_MPI && b->e.role == DG_ROLE_SEND && b->e.peer >= 0;
    if (skip && mov_a && mov_b && a->e.comm == b->e.comm && a->e.peer == b->e.peer)
        return false;
    for (uint32_t i = 0; i < a->e.nkeys; i++)
        for (uint32_t j = 0; j < b->e.nkeys; j++) {
            const struct dg_key *x = &a->k[i], *y = &b->k[j];
            if (x->cls == y->cls && x->comm == y->comm &&
                (x->peer == y->peer || x->peer == DG_PEER_ANY || y->peer == DG_PEER_ANY))
                return true;
        }
    return false;
}

static void test_watch_random(void **state)
{
    struct wev *ev = calloc(WA_MAXEV, sizeof(*ev));
    assert_non_null(ev);
    uint64_t hits = 0, queries = 0, big = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        rnd_seed(200 + seed);
        struct dg_watch *w = NULL;
        assert_int_equal(dg_watch_create(&w), 0);
        size_t nev = 0;
        bool registered[WA_NOWN] = {false};
        for (uint64_t step = 0; step < 3000; step++) {
            uint64_t op = rnd_below(100);
            if (op < 55 && nev < WA_MAXEV) {
                struct wev *x = &ev[nev++];
                uint64_t o = rnd_below(WA_NOWN);
                wa_event(&x->t);
                x->owner = owner_id(o);
                x->skip = rnd_below(2);
                x->alive = true;
                for (uint32_t i = 0; i < x->t.e.nranges; i++)
                    big += x->t.r[i].len > 16 * PG;
                assert_int_equal(dg_watch_add(w, x->owner, &x->t.e, x->skip), 0);
                registered[o] = true;
            } else if (op < 70) {
                uint64_t o = rnd_below(WA_NOWN);
                dg_watch_remove(w, owner_id(o));
                registered[o] = false;
                for (size_t i = 0; i < nev; i++)
                    if (ev[i].owner == owner_id(o))
                        ev[i].alive = false;
            }
            size_t nown = 0;
            for (int o = 0; o < WA_NOWN; o++)
                nown += registered[o];
            if (dg_watch_owners(w) != nown)
                fail_msg("watch owners: seed=%" PRIu64 " step=%" PRIu64 " got=%zu want=%zu", seed, step,
                         dg_watch_owners(w), nown);
            for (int qi = 0; qi < 2; qi++) {
                struct tev q;
                wa_event(&q);
                bool want[WA_NOWN] = {false}, got[WA_NOWN] = {false};
                for (size_t i = 0; i < nev; i++)
                    if (ev[i].alive && model_depends(&ev[i].t, &q, ev[i].skip))
                        want[ev[i].owner / owner_id(1)] = true;
                const uint64_t *owners = NULL;
                size_t n = dg_watch_conflicts(w, &q.e, &owners);
                for (size_t i = 0; i < n; i++) {
                    uint64_t o = owners[i] / owner_id(1);
                    if (owners[i] % owner_id(1) || o >= WA_NOWN || got[o])
                        fail_msg("watch: seed=%" PRIu64 " step=%" PRIu64 " bad or repeated owner %" PRIu64,
                                 seed, step, owners[i]);
                    got[o] = true;
                }
                for (int o = 0; o < WA_NOWN; o++)
                    if (got[o] != want[o])
                        fail_msg("watch: seed=%" PRIu64 " step=%" PRIu64 " query role=%d owner %d:"
                                 " got=%d want=%d",
                                 seed, step, q.e.role, o, got[o], want[o]);
                hits += n;
                queries++;
            }
        }
        dg_watch_destroy(w);
    }
    /* the inputs exercised what they are for */
    assert_true(hits > queries);
    assert_true(big > 100);
    free(ev);
}

/* A query range of more pages than the index holds (up to 2^52) finds
 * the registered ranges inside it without walking every page. */
static void test_watch_huge_query(void **state)
{
    struct dg_watch *w = NULL;
    assert_int_equal(dg_watch_create(&w), 0);
    const uint64_t *o = NULL;
    struct tev c, q;
    tev_init(&c, DG_COMP, DG_ROLE_NONE);
    tev_range(&c, 0x7000, 16, true);
    assert_int_equal(dg_watch_add(w, 5, &c.e, false), 0);
    tev_init(&q, DG_COMP, DG_ROLE_NONE);
    tev_range(&q, 0x1000, 1ull << 62, false);
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 1);
    assert_int_equal(o[0], 5);
    q.r[0].addr = 0x8000; /* starts after it */
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 0);
    dg_watch_destroy(w);
}

/* The first conflict of a run: arithmetic (a long stretch) and by lookups
 * (a short one) agree, also for a range of more pages than the index
 * holds, which neither may walk page by page. */
static void test_watch_run_first_conflict(void **state)
{
    struct dg_watch *w = NULL;
    struct tev c;
    (void)state;
    assert_int_equal(dg_watch_create(&w), 0);
    tev_init(&c, DG_COMP, DG_ROLE_NONE);
    tev_range(&c, 0x100000, 16, true); /* a written buffer, 1 MiB up */
    assert_int_equal(dg_watch_add(w, 7, &c.e, false), 0);

    struct dg_run r;
    struct dg_range rg[2] = {{0x1000, 8, false}, {0x10, 1ull << 44, false}};
    int64_t st[2] = {8, 0};
    memset(&r, 0, sizeof r);
    r.first = 100;
    r.reps = 1u << 20;
    r.period = 1;
    r.ph[0].ev.kind = DG_COMP;
    r.ph[0].ev.nranges = 1;
    r.ph[0].ev.ranges = rg;
    r.ph[0].stride = st;
    /* 0x1000 + 8 j meets [0x100000, 0x100010) first at j = (0x100000 - 0x1000 - 8) / 8 + 1 */
    uint64_t want = (0x100000 - 0x1000 - 8) / 8 + 1;
    assert_int_equal(dg_watch_first_conflict_run(w, &r, 0, r.reps), want);
    assert_int_equal(dg_watch_first_conflict_run(w, &r, want - 2, want + 1), want); /* lookups */
    assert_int_equal(dg_watch_first_conflict_run(w, &r, want + 2, r.reps), r.reps); /* past it */
    /* a huge read that covers the buffer from the start: the first event */
    r.ph[0].ev.nranges = 2;
    assert_int_equal(dg_watch_first_conflict_run(w, &r, 0, r.reps), 0);
    assert_int_equal(dg_watch_first_conflict_run(w, &r, 5, 7), 5);
    dg_watch_destroy(w);
}

/* Hand-made: skip_channel_sends, big ranges, owners with several events,
 * removal, fences both ways. */
static void test_watch_basic(void **state)
{
    struct dg_watch *w = NULL;
    assert_int_equal(dg_watch_create(&w), 0);
    const uint64_t *o = NULL;
    struct tev s1, s2, c, q;
    tev_send(&s1, 0, 1, 0x1000);
    assert_int_equal(dg_watch_add(w, 1, &s1.e, true), 0);
    tev_send(&s2, 0, 1, 0x2000);
    assert_int_equal(dg_watch_add(w, 2, &s2.e, false), 0);
    /* a later send on the channel: not owner 1 (skipped), owner 2 */
    tev_send(&q, 0, 1, 0x3000);
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 1);
    assert_int_equal(o[0], 2);
    /* an Isend on the channel conflicts with both */
    tev_init(&q, DG_MPI, DG_ROLE_START);
    tev_key(&q, DG_KEY_SEND, 0, 1);
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 2);
    /* owner 3: two computation events, one over 20 pages */
    tev_init(&c, DG_COMP, DG_ROLE_NONE);
    tev_range(&c, 0x100000, 20 * PG, false);
    assert_int_equal(dg_watch_add(w, 3, &c.e, false), 0);
    tev_init(&c, DG_COMP, DG_ROLE_NONE);
    tev_range(&c, 0x900000, 4, true);
    assert_int_equal(dg_watch_add(w, 3, &c.e, false), 0);
    assert_int_equal(dg_watch_owners(w), 3);
    tev_init(&q, DG_COMP, DG_ROLE_NONE);
    tev_range(&q, 0x100000 + 19 * PG + 7, 1, true);
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 1);
    assert_int_equal(o[0], 3);
    q.r[0].write = false; /* read-read */
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 0);
    q.r[0] = (struct dg_range){0x100000 + 20 * PG, 1, true}; /* just past it */
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 0);
    q.r[0] = (struct dg_range){0x900002, 1, false}; /* the other event of owner 3 */
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 1);
    assert_int_equal(o[0], 3);
    /* a write over both of owner 3's ranges and the send buffers: each owner once */
    q.r[0] = (struct dg_range){0x1000, 0x900000, true};
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 3);
    /* a fence query: every owner */
    tev_init(&q, DG_MPI, DG_ROLE_FENCE);
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 3);
    /* remove owner 3: its big and small ranges go */
    dg_watch_remove(w, 3);
    assert_int_equal(dg_watch_owners(w), 2);
    tev_init(&q, DG_COMP, DG_ROLE_NONE);
    tev_range(&q, 0x100000, 0x900000, true);
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 0);
    /* a registered fence conflicts with anything, even an empty event */
    struct tev f;
    tev_init(&f, DG_MPI, DG_ROLE_FENCE);
    assert_int_equal(dg_watch_add(w, 4, &f.e, false), 0);
    tev_init(&q, DG_MPI, DG_ROLE_OTHER);
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 1);
    assert_int_equal(o[0], 4);
    dg_watch_remove(w, 4);
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 0);
    dg_watch_remove(w, 1);
    dg_watch_remove(w, 2);
    dg_watch_remove(w, 2); /* unknown owner: nothing */
    assert_int_equal(dg_watch_owners(w), 0);
    tev_init(&q, DG_MPI, DG_ROLE_FENCE);
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 0);

    /* a query, then the removal of the only owner on its page, then the
     * same query: nothing is left there (no stale page lookup) */
    tev_init(&c, DG_COMP, DG_ROLE_NONE);
    tev_range(&c, 0x7000, 16, true);
    assert_int_equal(dg_watch_add(w, 5, &c.e, false), 0);
    tev_init(&c, DG_COMP, DG_ROLE_NONE);
    tev_range(&c, 0x3000, 16, true);
    assert_int_equal(dg_watch_add(w, 6, &c.e, false), 0);
    tev_init(&q, DG_COMP, DG_ROLE_NONE);
    tev_range(&q, 0x7008, 4, false);
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 1);
    assert_int_equal(o[0], 5);
    dg_watch_remove(w, 5);
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 0);
    q.r[0].addr = 0x3000;
    assert_int_equal(dg_watch_conflicts(w, &q.e, &o), 1);
    assert_int_equal(o[0], 6);
    dg_watch_destroy(w);
}

/* ---- key table --------------------------------------------------------------------- */

static void kt_query(const struct dg_keytab *t, uint32_t cls, uint64_t comm, int32_t peer, uint64_t *last,
                     uint64_t *value)
{
    struct dg_key k = {cls, peer, comm};
    dg_keytab_query(t, &k, last, value);
}

static int kt_update(struct dg_keytab *t, uint32_t cls, uint64_t comm, int32_t peer, uint64_t index,
                     uint64_t value)
{
    struct dg_key k = {cls, peer, comm};
    return dg_keytab_update(t, &k, index, value);
}

static void test_keytab_basic(void **state)
{
    struct dg_keytab *t = NULL;
    uint64_t l, v;
    assert_int_equal(dg_keytab_create(&t), 0);
    kt_query(t, DG_KEY_SEND, 0, 1, &l, &v);
    assert_int_equal(l, 0);
    assert_int_equal(v, 0);
    assert_int_equal(dg_keytab_entries(t), 0);

    assert_int_equal(kt_update(t, DG_KEY_SEND, 0, 1, 5, 2), 0);
    kt_query(t, DG_KEY_SEND, 0, 1, &l, &v);
    assert_int_equal(l, 6);
    assert_int_equal(v, 3);
    kt_query(t, DG_KEY_SEND, 0, 2, &l, &v); /* another peer */
    assert_int_equal(l, 0);
    assert_int_equal(v, 0);
    kt_query(t, DG_KEY_SEND, 0, DG_PEER_ANY, &l, &v); /* a wildcard sees it */
    assert_int_equal(l, 6);
    assert_int_equal(v, 3);
    kt_query(t, DG_KEY_RECV, 0, 1, &l, &v); /* another class */
    assert_int_equal(l, 0);
    kt_query(t, DG_KEY_SEND, 1, 1, &l, &v); /* another comm */
    assert_int_equal(l, 0);

    /* a wildcard receive is seen by every receive on its comm */
    assert_int_equal(kt_update(t, DG_KEY_RECV, 0, DG_PEER_ANY, 7, 4), 0);
    kt_query(t, DG_KEY_RECV, 0, 3, &l, &v);
    assert_int_equal(l, 8);
    assert_int_equal(v, 5);
    kt_query(t, DG_KEY_RECV, 1, 3, &l, &v);
    assert_int_equal(l, 0);

    /* the latest over peers for a wildcard query, the largest value */
    assert_int_equal(kt_update(t, DG_KEY_SEND, 0, 2, 9, 2), 0);
    kt_query(t, DG_KEY_SEND, 0, DG_PEER_ANY, &l, &v);
    assert_int_equal(l, 10);
    assert_int_equal(v, 3);
    kt_query(t, DG_KEY_SEND, 0, 1, &l, &v);
    assert_int_equal(l, 6);
    assert_int_equal(v, 3);
    /* a later event with the same key and a value that did not grow */
    assert_int_equal(kt_update(t, DG_KEY_SEND, 0, 1, 11, 2), 0);
    kt_query(t, DG_KEY_SEND, 0, 1, &l, &v);
    assert_int_equal(l, 12);
    assert_int_equal(v, 3);
    assert_int_equal(dg_keytab_entries(t), 3);

    /* a request key, then forgotten */
    assert_int_equal(kt_update(t, DG_KEY_REQ, 42, 0, 13, 6), 0);
    assert_int_equal(dg_keytab_entries(t), 4);
    kt_query(t, DG_KEY_REQ, 42, 0, &l, &v);
    assert_int_equal(l, 14);
    assert_int_equal(v, 7);
    struct dg_key k = {DG_KEY_REQ, 0, 42};
    dg_keytab_forget(t, &k);
    assert_int_equal(dg_keytab_entries(t), 3);
    kt_query(t, DG_KEY_REQ, 42, 0, &l, &v);
    assert_int_equal(l, 0);
    assert_int_equal(v, 0);
    /* forgetting an unknown key changes nothing */
    k.comm = 43;
    dg_keytab_forget(t, &k);
    assert_int_equal(dg_keytab_entries(t), 3);
    kt_query(t, DG_KEY_SEND, 0, 1, &l, &v);
    assert_int_equal(l, 12);
    /* a request id equal to a communicator id: its own key */
    assert_int_equal(kt_update(t, DG_KEY_REQ, 0, 0, 14, 6), 0);
    kt_query(t, DG_KEY_REQ, 0, 0, &l, &v);
    assert_int_equal(l, 15);
    k = (struct dg_key){DG_KEY_REQ, 0, 0};
    dg_keytab_forget(t, &k);
    kt_query(t, DG_KEY_REQ, 0, 0, &l, &v);
    assert_int_equal(l, 0);
    kt_query(t, DG_KEY_SEND, 0, 1, &l, &v);
    assert_int_equal(l, 12);
    assert_int_equal(v, 3);
    assert_int_equal(dg_keytab_entries(t), 3);
    dg_keytab_destroy(t);
}

/* Random updates, queries and forgets (of request keys, their documented
 * use) against a list of the keys carried so far. */
struct kt_entry {
    struct dg_key k;
    uint64_t index, value;
    bool alive;
};

static struct dg_key kt_random_key(void)
{
    static const uint32_t cls[] = {DG_KEY_SEND, DG_KEY_RECV, DG_KEY_COLL, DG_KEY_REQ};
    struct dg_key k;
    k.cls = cls[rnd_below(4)];
    if (k.cls == DG_KEY_REQ) {
        k.comm = 1 + rnd_below(6); /* request ids, colliding with comm ids 1..3 */
        k.peer = 0;
    } else if (k.cls == DG_KEY_COLL) {
        k.comm = rnd_below(4);
        k.peer = 0;
    } else {
        k.comm = rnd_below(4);
        k.peer = rnd_below(5) == 0 ? DG_PEER_ANY : (int32_t)rnd_below(4);
    }
    return k;
}

static void test_keytab_random(void **state)
{
    enum { MAXE = 4000 };
    struct kt_entry *ent = calloc(MAXE, sizeof(*ent));
    assert_non_null(ent);
    uint64_t nonzero = 0;
    for (uint64_t seed = 1; seed <= 4; seed++) {
        rnd_seed(300 + seed);
        struct dg_keytab *t = NULL;
        assert_int_equal(dg_keytab_create(&t), 0);
        size_t n = 0;
        uint64_t index = 0, value = 0;
        for (uint64_t step = 0; step < 3000; step++) {
            uint64_t op = rnd_below(10);
            struct dg_key k = kt_random_key();
            if (op < 5 && n < MAXE) {
                index++;
                value += rnd_below(3) == 0; /* values never decrease */
                assert_int_equal(dg_keytab_update(t, &k, index, value), 0);
                ent[n++] = (struct kt_entry){k, index, value, true};
            } else if (op < 7) {
                k.cls = DG_KEY_REQ;
                k.comm = 1 + rnd_below(6);
                k.peer = 0;
                dg_keytab_forget(t, &k);
                for (size_t i = 0; i < n; i++)
                    if (ent[i].k.cls == k.cls && ent[i].k.comm == k.comm && ent[i].k.peer == k.peer)
                        ent[i].alive = false;
            }
            /* a query, never a wildcard on requests */
            k = kt_random_key();
            uint64_t wl = 0, wv = 0, gl, gv;
            for (size_t i = 0; i < n; i++) {
                if (ent[i].alive && ent[i].k.cls == k.cls && ent[i].k.comm == k.comm &&
                    (ent[i].k.peer == k.peer || ent[i].k.peer == DG_PEER_ANY || k.peer == DG_PEER_ANY)) {
                    if (ent[i].index + 1 > wl)
                        wl = ent[i].index + 1;
                    if (ent[i].value + 1 > wv)
                        wv = ent[i].value + 1;
                }
            }
            dg_keytab_query(t, &k, &gl, &gv);
            if (gl != wl || gv != wv)
                fail_msg("keytab: seed=%" PRIu64 " step=%" PRIu64 " key cls=%u comm=%" PRIu64
                         " peer=%d got=%" PRIu64 ",%" PRIu64 " want=%" PRIu64 ",%" PRIu64,
                         seed, step, k.cls, k.comm, k.peer, gl, gv, wl, wv);
            nonzero += wl != 0;
            /* entries: distinct live keys */
            size_t distinct = 0;
            for (size_t i = 0; i < n; i++) {
                if (!ent[i].alive)
                    continue;
                bool first = true;
                for (size_t j = 0; j < i && first; j++)
                    if (ent[j].alive && ent[j].k.cls == ent[i].k.cls && ent[j].k.comm == ent[i].k.comm &&
                        ent[j].k.peer == ent[i].k.peer)
                        first = false;
                distinct += first;
            }
            if (dg_keytab_entries(t) != distinct)
                fail_msg("keytab entries: seed=%" PRIu64 " step=%" PRIu64 " got=%zu want=%zu", seed, step,
                         dg_keytab_entries(t), distinct);
        }
        dg_keytab_destroy(t);
    }
    assert_true(nonzero > 1000);
    free(ent);
}

/* ---- hash map ---------------------------------------------------------------------- */

/* The slot key lands in when inserted alone into an empty map of 16. */
static size_t home16(uint64_t key)
{
    struct dg_map m = {0};
    assert_non_null(dg_map_put(&m, key, 0));
    assert_int_equal(m.cap, 16);
    size_t slot = SIZE_MAX;
    for (size_t i = 0; i < m.cap; i++)
        if (dg_map_used(&m, i))
            slot = i;
    dg_map_free(&m);
    return slot;
}

/* A cluster that wraps around the end of the table, its head deleted: every
 * other key must move back and stay reachable. */
static void test_map_wraparound(void **state)
{
    uint64_t at15[3], at0 = 0;
    int n15 = 0;
    bool have0 = false;
    for (uint64_t k = 1; n15 < 3 || !have0; k++) {
        size_t h = home16(k);
        if (h == 15 && n15 < 3)
            at15[n15++] = k;
        else if (h == 0 && !have0) {
            at0 = k;
            have0 = true;
        }
    }
    struct dg_map m = {0};
    for (int i = 0; i < 3; i++)
        *dg_map_put(&m, at15[i], 0) = 100 + (uint64_t)i;
    *dg_map_put(&m, at0, 0) = 200;
    assert_int_equal(m.cap, 16);
    assert_int_equal(m.n, 4);
    /* slots 15, 0, 1 hold the three, 2 the one whose home is 0 */
    assert_int_equal(m.keys[15], at15[0]);
    assert_int_equal(m.keys[0], at15[1]);
    assert_int_equal(m.keys[1], at15[2]);
    assert_int_equal(m.keys[2], at0);
    dg_map_del(&m, at15[0]);
    assert_int_equal(m.n, 3);
    assert_null(dg_map_get(&m, at15[0]));
    assert_int_equal(*dg_map_get(&m, at15[1]), 101);
    assert_int_equal(*dg_map_get(&m, at15[2]), 102);
    assert_int_equal(*dg_map_get(&m, at0), 200);
    /* the cluster moved back by one */
    assert_int_equal(m.keys[15], at15[1]);
    assert_int_equal(m.keys[0], at15[2]);
    assert_int_equal(m.keys[1], at0);
    assert_false(dg_map_used(&m, 2));
    /* delete from the middle: the key at home stays */
    dg_map_del(&m, at15[2]);
    assert_int_equal(*dg_map_get(&m, at15[1]), 101);
    assert_int_equal(*dg_map_get(&m, at0), 200);
    assert_int_equal(m.keys[0], at0);
    assert_false(dg_map_used(&m, 1));
    dg_map_del(&m, at15[1]);
    dg_map_del(&m, at0);
    dg_map_del(&m, at0); /* absent: nothing */
    assert_int_equal(m.n, 0);
    for (size_t i = 0; i < m.cap; i++)
        assert_false(dg_map_used(&m, i));
    dg_map_free(&m);
    assert_int_equal(m.cap, 0);
    assert_null(dg_map_get(&m, 1));
    dg_map_del(&m, 1); /* on an empty map */
}

/* UINT64_MAX, the empty-slot marker, is a key like any other (traces
 * carry it: MPI_COMM_SELF's id, request ids): found, iterated, kept
 * through growth and the deletion of its neighbours, deleted. */
static void test_map_max_key(void **state)
{
    struct dg_map m = {0};
    *dg_map_put(&m, UINT64_MAX, 0) = 7;
    for (uint64_t k = 0; k < 100; k++)
        *dg_map_put(&m, k, 0) = k;
    assert_int_equal(m.n, 101);
    assert_int_equal(*dg_map_get(&m, UINT64_MAX), 7);
    size_t used = 0, max_seen = 0;
    for (size_t i = 0; i < m.cap; i++)
        if (dg_map_used(&m, i)) {
            used++;
            max_seen += m.keys[i] == UINT64_MAX;
        }
    assert_int_equal(used, 101);
    assert_int_equal(max_seen, 1);
    for (uint64_t k = 0; k < 100; k += 2)
        dg_map_del(&m, k);
    assert_int_equal(*dg_map_get(&m, UINT64_MAX), 7);
    assert_int_equal(*dg_map_get(&m, 51), 51);
    dg_map_del(&m, UINT64_MAX);
    assert_null(dg_map_get(&m, UINT64_MAX));
    assert_int_equal(m.n, 50);
    for (uint64_t k = 1; k < 100; k += 2)
        assert_int_equal(*dg_map_get(&m, k), k);
    for (size_t i = 0; i < m.cap; i++)
        assert_true(!dg_map_used(&m, i) || m.keys[i] != UINT64_MAX);
    dg_map_free(&m);

    /* ordering keys on MPI_COMM_SELF */
    struct dg_keytab *t;
    uint64_t last, value;
    struct dg_key k = {DG_KEY_SEND, 0, CHT_COMM_SELF};
    assert_int_equal(dg_keytab_create(&t), 0);
    assert_int_equal(dg_keytab_update(t, &k, 4, 9), 0);
    dg_keytab_query(t, &k, &last, &value);
    assert_int_equal(last, 5);
    assert_int_equal(value, 10);
    dg_keytab_destroy(t);
}

static void test_map_random(void **state)
{
    enum { NK = 6000 };
    uint64_t *key = malloc(NK * sizeof(*key)), *val = malloc(NK * sizeof(*val));
    bool *in = malloc(NK * sizeof(*in));
    assert_non_null(key);
    assert_non_null(val);
    assert_non_null(in);
    for (uint64_t seed = 1; seed <= 3; seed++) {
        rnd_seed(400 + seed);
        for (size_t i = 0; i < NK; i++) {
            if (i < NK / 2) {
                key[i] = i; /* dense small keys */
            } else {
                do
                    key[i] = rnd();
                while (key[i] == UINT64_MAX);
            }
            in[i] = false;
        }
        key[NK - 1] = UINT64_MAX - 1;
        key[NK - 2] = 1ull << 63;
        struct dg_map m = {0};
        size_t count = 0;
        /* phases: grow to ~3000, shrink to 0 (long deletion chains), regrow
         * among few keys (same slots reused), mixed */
        static const struct {
            int put, del; /* percent; the rest are gets */
            size_t keys;  /* keys in use: the first ones */
            int steps;
        } phase[] = {{70, 10, NK, 6000}, {5, 80, NK, 12000}, {50, 40, 64, 4000}, {40, 40, NK, 8000}};
        for (size_t ph = 0; ph < sizeof(phase) / sizeof(phase[0]); ph++) {
            for (int step = 0; step < phase[ph].steps; step++) {
                size_t i = phase[ph].keys == NK ? rnd_below(NK) : NK / 2 + rnd_below(phase[ph].keys);
                int op = (int)rnd_below(100);
                if (op < phase[ph].put) {
                    uint64_t v = rnd();
                    uint64_t *p = dg_map_put(&m, key[i], v);
                    assert_non_null(p);
                    if (in[i]) {
                        assert_int_equal(*p, val[i]); /* present: unchanged */
                    } else {
                        assert_int_equal(*p, v);
                        in[i] = true;
                        count++;
                    }
                    if (rnd_below(2)) {
                        *p = val[i] = rnd();
                    } else {
                        val[i] = *p;
                    }
                } else if (op < phase[ph].put + phase[ph].del) {
                    dg_map_del(&m, key[i]);
                    if (in[i])
                        count--;
                    in[i] = false;
                } else {
                    uint64_t *p = dg_map_get(&m, key[i]);
                    if (in[i]) {
                        assert_non_null(p);
                        assert_int_equal(*p, val[i]);
                    } else {
                        assert_null(p);
                    }
                }
                assert_int_equal(m.n, count);
            }
            /* every key: present ones with their values, the others absent;
             * the used slots are exactly the present keys */
            size_t used = 0;
            for (size_t i = 0; i < m.cap; i++)
                used += dg_map_used(&m, i);
            assert_int_equal(used, count);
            for (size_t i = 0; i < NK; i++) {
                uint64_t *p = dg_map_get(&m, key[i]);
                if (in[i]) {
                    if (!p)
                        fail_msg("map: seed=%" PRIu64 " phase=%zu key %" PRIu64 " lost", seed, ph, key[i]);
                    assert_int_equal(*p, val[i]);
                } else {
                    assert_null(p);
                }
            }
            if (ph == 0)
                assert_true(count > 2000);
        }
        /* delete everything, in an order unrelated to the slots */
        for (size_t j = 0; j < NK; j++) {
            size_t i = (j * 2749) % NK; /* 2749 is prime to NK */
            dg_map_del(&m, key[i]);
            if (in[i])
                count--;
            in[i] = false;
            assert_int_equal(m.n, count);
            if (j % 97 == 0)
                for (size_t l = 0; l < NK; l++)
                    if (in[l] && !dg_map_get(&m, key[l]))
                        fail_msg("map: seed=%" PRIu64 " key %" PRIu64 " lost while emptying", seed, key[l]);
        }
        assert_int_equal(count, 0);
        for (size_t i = 0; i < m.cap; i++)
            assert_false(dg_map_used(&m, i));
        dg_map_free(&m);
    }
    free(key);
    free(val);
    free(in);
}

/* ---- matching and happens-before ------------------------------------------------- */

static struct dg_msgrec *log_add(struct dg_mpilog *g, int kind, uint16_t call, int peer, int tag,
                                 uint64_t seq)
{
    struct dg_msgrec *r = mpilog_push(g);
    r->site = 0;
    r->kind = (uint8_t)kind;
    r->call = call;
    r->peer = peer;
    r->tag = tag;
    r->seq = seq;
    r->comm = CHT_COMM_WORLD;
    r->comm_size = 3;
    return r;
}

/* Rank 0: send(1,t1) recv(1,t2) send(1,t3); rank 1: recv(0,t1) send(0,t2)
 * recv(0,t3); rank 2: a wildcard receive of a message from rank 1 sent
 * after rank 1's first receive, then nothing.  The chain from rank 1's
 * receive of t1 to rank 0's receive of t2 is one message. */
static void test_match_hb(void **state)
{
    struct dg_mpilog l0 = {.rank = 0}, l1 = {.rank = 1}, l2 = {.rank = 2};
    log_add(&l0, DG_MSG_SEND, CHT_MPI_SEND, 1, 1, 1);   /* 0:0 */
    log_add(&l0, DG_MSG_RECV, CHT_MPI_RECV, 1, 2, 1);   /* 0:1 */
    log_add(&l0, DG_MSG_SEND, CHT_MPI_SEND, 1, 3, 1);   /* 0:2 */
    log_add(&l1, DG_MSG_RECV, CHT_MPI_RECV, 0, 1, 1);   /* 1:0 */
    log_add(&l1, DG_MSG_SEND, CHT_MPI_SEND, 2, 9, 1);   /* 1:1 to rank 2 */
    log_add(&l1, DG_MSG_SEND, CHT_MPI_SEND, 0, 2, 1);   /* 1:2 */
    log_add(&l1, DG_MSG_RECV, CHT_MPI_RECV, 0, 3, 1);   /* 1:3 */
    log_add(&l1, DG_MSG_SEND, CHT_MPI_SEND, 2, 9, 2);   /* 1:4 never received */
    log_add(&l2, DG_MSG_RECV, CHT_MPI_RECV, 1, 9, 1);   /* 2:0 (status resolved) */
    const struct dg_mpilog *logs[3] = {&l0, &l1, &l2};
    struct dg_match *m;
    assert_int_equal(dg_match_build(logs, 3, &m), 0);
    struct dg_pos p = dg_match_peer(m, (struct dg_pos){1, 0});
    assert_int_equal(p.rank, 0);
    assert_int_equal(p.pos, 0);
    p = dg_match_peer(m, (struct dg_pos){0, 1});
    assert_int_equal(p.rank, 1);
    assert_int_equal(p.pos, 2);
    p = dg_match_peer(m, (struct dg_pos){2, 0});
    assert_int_equal(p.rank, 1);
    assert_int_equal(p.pos, 1);
    assert_int_equal(dg_match_peer(m, (struct dg_pos){1, 4}).rank, -1);
    assert_int_equal(dg_match_unmatched_sends(m), 1);
    assert_int_equal(dg_match_unmatched_recvs(m), 0);

    struct dg_hb *h;
    assert_int_equal(dg_hb_build(logs, 3, m, NULL, 0, &h), 0);
    /* rank 1 receives t1 before it sends t2, which rank 0 receives */
    assert_int_equal(dg_hb_before(h, (struct dg_pos){1, 0}, (struct dg_pos){0, 1}), 1);
    assert_int_equal(dg_hb_before(h, (struct dg_pos){0, 0}, (struct dg_pos){2, 0}), 1);
    assert_int_equal(dg_hb_before(h, (struct dg_pos){0, 2}, (struct dg_pos){2, 0}), 0);
    assert_int_equal(dg_hb_before(h, (struct dg_pos){2, 0}, (struct dg_pos){0, 2}), 0);
    assert_int_equal(dg_hb_before(h, (struct dg_pos){0, 1}, (struct dg_pos){1, 0}), 0);
    struct dg_pos chain[8];
    size_t n = dg_hb_chain(h, (struct dg_pos){1, 0}, (struct dg_pos){0, 1}, chain, 8);
    assert_int_equal(n, 2);
    assert_int_equal(chain[0].rank, 1);
    assert_int_equal(chain[0].pos, 2);
    assert_int_equal(chain[1].rank, 0);
    assert_int_equal(chain[1].pos, 1);
    /* two hops: rank 0's first send reaches rank 2 through rank 1 */
    n = dg_hb_chain(h, (struct dg_pos){0, 0}, (struct dg_pos){2, 0}, chain, 8);
    assert_int_equal(n, 4);
    assert_int_equal(chain[0].rank, 0);
    assert_int_equal(chain[1].rank, 1);
    assert_int_equal(chain[2].rank, 1);
    assert_int_equal(chain[2].pos, 1);
    assert_int_equal(chain[3].rank, 2);
    dg_hb_destroy(h);
    dg_match_destroy(m);
    dg_mpilog_free(&l0);
    dg_mpilog_free(&l1);
    dg_mpilog_free(&l2);
}

/* Collectives pass clocks by their semantics: a Bcast from rank 0 orders
 * rank 0's earlier records before the others', not theirs before rank 0's;
 * a Barrier orders everything before it before everything after it. */
static void test_hb_collectives(void **state)
{
    struct dg_mpilog l[3] = {{.rank = 0}, {.rank = 1}, {.rank = 2}};
    for (int r = 0; r < 3; r++) {
        log_add(&l[r], DG_MSG_OTHER, CHT_MPI_TEST, -1, -1, 0);          /* r:0 */
        struct dg_msgrec *b = log_add(&l[r], DG_MSG_COLL, CHT_MPI_BCAST, 0, -1, 1); /* r:1 */
        if (r == 0)
            b->flags |= DG_MSGF_ROOT;
        log_add(&l[r], DG_MSG_OTHER, CHT_MPI_TEST, -1, -1, 0);          /* r:2 */
        log_add(&l[r], DG_MSG_COLL, CHT_MPI_BARRIER, -1, -1, 2);        /* r:3 */
        log_add(&l[r], DG_MSG_OTHER, CHT_MPI_TEST, -1, -1, 0);          /* r:4 */
    }
    const struct dg_mpilog *logs[3] = {&l[0], &l[1], &l[2]};
    struct dg_match *m;
    struct dg_hb *h;
    assert_int_equal(dg_match_build(logs, 3, &m), 0);
    assert_int_equal(dg_match_ncoll(m), 2);
    uint32_t n;
    dg_match_coll(m, 0, &n);
    assert_int_equal(n, 3);
    assert_int_equal(dg_match_incomplete_colls(m), 0);
    assert_int_equal(dg_hb_build(logs, 3, m, NULL, 0, &h), 0);
    assert_int_equal(dg_hb_before(h, (struct dg_pos){0, 0}, (struct dg_pos){1, 2}), 1);
    assert_int_equal(dg_hb_before(h, (struct dg_pos){1, 0}, (struct dg_pos){0, 2}), 0);
    assert_int_equal(dg_hb_before(h, (struct dg_pos){1, 0}, (struct dg_pos){2, 2}), 0);
    assert_int_equal(dg_hb_before(h, (struct dg_pos){1, 2}, (struct dg_pos){0, 4}), 1);
    assert_int_equal(dg_hb_before(h, (struct dg_pos){2, 0}, (struct dg_pos){1, 4}), 1);
    dg_hb_destroy(h);
    dg_match_destroy(m);
    for (int r = 0; r < 3; r++)
        dg_mpilog_free(&l[r]);
}

/* Random runs of sends, receives and collectives on 3-6 ranks: every pair
 * of records on two ranks, asked all at once and one by one, gets the
 * answer of a plain search of the graph of edges (program order, message,
 * and a collective's from each giving member's record before it to each
 * taking member's), and each chain is a path of matched messages. */
#define RH_MAXREC 40
static bool rh_reach(int P, const struct dg_mpilog *l, uint8_t (*edge)[RH_MAXREC][RH_MAXREC][6], struct dg_pos a,
                     struct dg_pos b)
{
    /* breadth-first from a's successors: edges go to later records only */
    static uint8_t seen[6][RH_MAXREC];
    struct dg_pos st[6 * RH_MAXREC];
    size_t n = 0;
    memset(seen, 0, sizeof seen);
    st[n++] = a;
    seen[a.rank][a.pos] = 1;
    while (n) {
        struct dg_pos p = st[--n];
        if (p.rank == b.rank && p.pos <= b.pos && !(p.rank == a.rank && p.pos == a.pos))
            return true;
        if (p.pos + 1 < l[p.rank].n && !seen[p.rank][p.pos + 1]) {
            seen[p.rank][p.pos + 1] = 1;
            st[n++] = (struct dg_pos){p.rank, p.pos + 1};
        }
        for (int q = 0; q < P; q++)
            for (uint32_t k = 0; k < l[q].n; k++)
                if (edge[p.rank][p.pos][k][q] && !seen[q][k]) {
                    seen[q][k] = 1;
                    st[n++] = (struct dg_pos){q, k};
                }
    }
    return false;
}

static void rh_nb_complete(struct dg_mpilog *l, int P, int r, bool *done, uint32_t *at, uint32_t start,
                           uint16_t call, int root, int dir, uint64_t seq)
{
    struct dg_msgrec *x = log_add(&l[r], DG_MSG_COLL, call, dir ? root : -1, -1, seq);
    x->comm_size = (uint32_t)P;
    x->flags |= DG_MSGF_NONBLOCKING;
    x->fwd_pos = start;
    if (dir && r == root)
        x->flags |= DG_MSGF_ROOT;
    *at = l[r].n - 1;
    *done = true;
}

/* a nonblocking collective passes what each giver knew at its start to
 * each taker's completion */
static void rh_nb_edges(uint8_t (*edge)[RH_MAXREC][RH_MAXREC][6], int P, const uint32_t *start,
                        const uint32_t *at, int root, int dir)
{
    for (int g = 0; g < P; g++)
        for (int t = 0; t < P; t++) {
            bool gives = dir == 0 || (dir == 1 && g == root) || (dir == 2 && g != root);
            bool takes = dir == 0 || (dir == 1 && t != root) || (dir == 2 && t == root);
            if (g != t && gives && takes)
                edge[g][start[g]][at[t]][t] = 1;
        }
}

static void test_hb_random(void **state)
{
    (void)state;
    static uint8_t edge[6][RH_MAXREC][RH_MAXREC][6]; /* [r][p][p'][r']: (r,p) -> (r',p') */
    srand(20261129);
    for (int round = 0; round < 60; round++) {
        int P = 3 + rand() % 4;
        struct dg_mpilog l[6];
        uint64_t chseq[6][6] = {{0}}, cseq = 0;
        /* messages in flight: (src, dst, seq, send pos) */
        struct rh_msg { int s, d; uint64_t seq; uint32_t pos; } fly[256];
        int nfly = 0;
        /* a nonblocking collective: started on every rank at once, completed
         * on each later */
        struct { bool on; uint16_t call; int root, dir, left; uint64_t seq; uint32_t start[6], at[6]; bool done[6]; } nb = {0};
        memset(l, 0, sizeof l);
        memset(edge, 0, sizeof edge);
        for (int r = 0; r < P; r++)
            l[r].rank = r;
        for (int step = 0; step < 60; step++) {
            int what = rand() % 12, r = rand() % P;
            bool room = true;
            for (int q = 0; q < P; q++)
                room &= l[q].n + 1 < RH_MAXREC;
            if (!room)
                break;
            if (what < 4) { /* a send */
                int d = (r + 1 + rand() % (P - 1)) % P;
                uint64_t sq = ++chseq[r][d];
                log_add(&l[r], DG_MSG_SEND, CHT_MPI_SEND, d, 7, sq)->comm_size = (uint32_t)P;
                fly[nfly++] = (struct rh_msg){r, d, sq, l[r].n - 1};
            } else if (what < 8 && nfly) { /* a receive of the oldest on a channel */
                int i = rand() % nfly;
                for (int j = 0; j < i; j++) /* channels keep their order */
                    if (fly[j].s == fly[i].s && fly[j].d == fly[i].d) {
                        i = j;
                        break;
                    }
                int d = fly[i].d;
                log_add(&l[d], DG_MSG_RECV, CHT_MPI_RECV, fly[i].s, 7, fly[i].seq)->comm_size = (uint32_t)P;
                edge[fly[i].s][fly[i].pos][l[d].n - 1][d] = 1;
                memmove(&fly[i], &fly[i + 1], (size_t)(nfly - i - 1) * sizeof fly[0]);
                nfly--;
            } else if (what == 8) { /* a collective on every rank */
                static const uint16_t calls[] = {CHT_MPI_BARRIER, CHT_MPI_BCAST, CHT_MPI_REDUCE, CHT_MPI_ALLREDUCE};
                uint16_t call = calls[rand() % 4];
                int root = rand() % P, dir = call == CHT_MPI_BCAST ? 1 : call == CHT_MPI_REDUCE ? 2 : 0;
                cseq++;
                uint32_t at[6];
                for (int q = 0; q < P; q++) {
                    struct dg_msgrec *x = log_add(&l[q], DG_MSG_COLL, call, dir ? root : -1, -1, cseq);
                    x->comm_size = (uint32_t)P;
                    if (dir && q == root)
                        x->flags |= DG_MSGF_ROOT;
                    at[q] = l[q].n - 1;
                }
                for (int g = 0; g < P; g++)
                    for (int t = 0; t < P; t++) {
                        bool gives = dir == 0 || (dir == 1 && g == root) || (dir == 2 && g != root);
                        bool takes = dir == 0 || (dir == 1 && t != root) || (dir == 2 && t == root);
                        if (g != t && gives && takes && at[g] > 0)
                            edge[g][at[g] - 1][at[t]][t] = 1;
                    }
            } else if (what == 9 && !nb.on) {
                static const uint16_t calls[] = {CHT_MPI_IBARRIER, CHT_MPI_IBCAST, CHT_MPI_IREDUCE, CHT_MPI_IALLREDUCE};
                nb.on = true;
                nb.call = calls[rand() % 4];
                nb.root = rand() % P;
                nb.dir = nb.call == CHT_MPI_IBCAST ? 1 : nb.call == CHT_MPI_IREDUCE ? 2 : 0;
                nb.seq = ++cseq;
                nb.left = P;
                for (int q = 0; q < P; q++) {
                    log_add(&l[q], DG_MSG_OTHER, nb.call, -1, -1, 0)->comm_size = (uint32_t)P;
                    nb.start[q] = l[q].n - 1;
                    nb.done[q] = false;
                }
            } else if (what == 10 && nb.on && !nb.done[r]) {
                rh_nb_complete(l, P, r, &nb.done[r], &nb.at[r], nb.start[r], nb.call, nb.root, nb.dir, nb.seq);
                if (--nb.left == 0) {
                    rh_nb_edges(edge, P, nb.start, nb.at, nb.root, nb.dir);
                    nb.on = false;
                }
            } else {
                log_add(&l[r], DG_MSG_OTHER, CHT_MPI_TEST, -1, -1, 0)->comm_size = (uint32_t)P;
            }
        }
        for (int q = 0; nb.on && q < P; q++)
            if (!nb.done[q])
                rh_nb_complete(l, P, q, &nb.done[q], &nb.at[q], nb.start[q], nb.call, nb.root, nb.dir, nb.seq);
        if (nb.on)
            rh_nb_edges(edge, P, nb.start, nb.at, nb.root, nb.dir);
        const struct dg_mpilog *logs[6];
        for (int q = 0; q < P; q++)
            logs[q] = &l[q];
        struct dg_match *m;
        assert_int_equal(dg_match_build(logs, P, &m), 0);
        /* every pair on two ranks, asked at once */
        struct dg_hb_query *qs = NULL;
        size_t nq = 0;
        for (int ra = 0; ra < P; ra++)
            for (uint32_t pa = 0; pa < l[ra].n; pa++)
                for (int rb = 0; rb < P; rb++)
                    for (uint32_t pb = 0; rb != ra && pb < l[rb].n; pb++) {
                        qs = realloc(qs, (nq + 1) * sizeof *qs);
                        qs[nq++] = (struct dg_hb_query){{ra, pa}, {rb, pb}};
                    }
        struct dg_hb *all, *none;
        assert_int_equal(dg_hb_build(logs, P, m, qs, nq, &all), 0);
        assert_int_equal(dg_hb_build(logs, P, m, NULL, 0, &none), 0);
        for (size_t i = 0; i < nq; i++) {
            int want = rh_reach(P, l, edge, qs[i].a, qs[i].b);
            assert_int_equal(dg_hb_before(all, qs[i].a, qs[i].b), want);
            if (i % 7 == 0)
                assert_int_equal(dg_hb_before(none, qs[i].a, qs[i].b), want);
            if (!want || i % 5)
                continue;
            struct dg_pos ch[64];
            size_t n = dg_hb_chain(all, qs[i].a, qs[i].b, ch, 64);
            assert_true(n >= 2 && n % 2 == 0);
            assert_int_equal(ch[0].rank, qs[i].a.rank);
            assert_true(ch[0].pos >= qs[i].a.pos);
            assert_int_equal(ch[n - 1].rank, qs[i].b.rank);
            assert_true(ch[n - 1].pos <= qs[i].b.pos);
            for (size_t k = 0; k + 1 < n; k += 2) {
                if (l[ch[k].rank].rec[ch[k].pos].kind == DG_MSG_SEND) {
                    struct dg_pos pr = dg_match_peer(m, ch[k + 1]);
                    assert_int_equal(pr.rank, ch[k].rank);
                    assert_int_equal(pr.pos, ch[k].pos);
                } else { /* a collective: both members of one instance */
                    assert_int_equal(dg_match_coll_of(m, ch[k]), dg_match_coll_of(m, ch[k + 1]));
                }
                if (k + 2 < n) {
                    assert_int_equal(ch[k + 2].rank, ch[k + 1].rank);
                    assert_true(ch[k + 2].pos >= ch[k + 1].pos);
                }
            }
        }
        free(qs);
        dg_hb_destroy(all);
        dg_hb_destroy(none);
        dg_match_destroy(m);
        for (int q = 0; q < P; q++)
            dg_mpilog_free(&l[q]);
    }
}

/* A stalled replay (a receive matched to a send that comes after a receive
 * of the sender's that nothing satisfies) still ends. */
static void test_hb_stall(void **state)
{
    struct dg_mpilog l0 = {.rank = 0}, l1 = {.rank = 1};
    log_add(&l0, DG_MSG_RECV, CHT_MPI_RECV, 1, 1, 1); /* waits for 1:1 */
    log_add(&l0, DG_MSG_SEND, CHT_MPI_SEND, 1, 2, 1);
    log_add(&l1, DG_MSG_RECV, CHT_MPI_RECV, 0, 2, 1); /* waits for 0:1 */
    log_add(&l1, DG_MSG_SEND, CHT_MPI_SEND, 0, 1, 1);
    const struct dg_mpilog *logs[2] = {&l0, &l1};
    struct dg_match *m;
    struct dg_hb *h;
    assert_int_equal(dg_match_build(logs, 2, &m), 0);
    assert_int_equal(dg_hb_build(logs, 2, m, NULL, 0, &h), 0);
    assert_int_equal(dg_hb_before(h, (struct dg_pos){1, 1}, (struct dg_pos){1, 0}), 0);
    dg_hb_destroy(h);
    dg_match_destroy(m);
    dg_mpilog_free(&l0);
    dg_mpilog_free(&l1);
}

/* A changed run (dg_stall_check): ranks 0 and 1 each send a (tag 1),
 * receive the other's a, send c (tag 2), receive the other's c.  Moving
 * rank 0's first send past its receive alone is safe (rank 1 sends first);
 * moving both ranks' first sends deadlocks, and each blocked rank names
 * its receive and the send it waits for.  A moved receive makes its
 * matched send wait until it is posted: rank 1's receive of tag 1 moved
 * past its own send of tag 1's reply stalls rank 0's send. */
static void test_stall_check(void **state)
{
    struct dg_mpilog l[2] = {{.rank = 0}, {.rank = 1}};
    for (int r = 0; r < 2; r++) {
        log_add(&l[r], DG_MSG_SEND, CHT_MPI_SEND, 1 - r, 1, 1); /* r:0 */
        log_add(&l[r], DG_MSG_RECV, CHT_MPI_RECV, 1 - r, 1, 1); /* r:1 */
        log_add(&l[r], DG_MSG_SEND, CHT_MPI_SEND, 1 - r, 2, 2); /* r:2 */
        log_add(&l[r], DG_MSG_RECV, CHT_MPI_RECV, 1 - r, 2, 2); /* r:3 */
    }
    const struct dg_mpilog *logs[2] = {&l[0], &l[1]};
    struct dg_match *m;
    assert_int_equal(dg_match_build(logs, 2, &m), 0);
    bool stalled = true;
    struct dg_stall_wait b[2];
    assert_int_equal(dg_stall_check(logs, 2, m, NULL, NULL, b, &stalled), 0);
    assert_false(stalled);
    assert_int_equal(b[0].at.rank, -1);

    struct dg_move mv[1] = {{0, 1}}; /* the first send right after the receive */
    const struct dg_move *one[2] = {mv, NULL};
    uint32_t n1[2] = {1, 0};
    assert_int_equal(dg_stall_check(logs, 2, m, one, n1, b, &stalled), 0);
    assert_false(stalled);

    const struct dg_move *both[2] = {mv, mv};
    uint32_t n2[2] = {1, 1};
    assert_int_equal(dg_stall_check(logs, 2, m, both, n2, b, &stalled), 0);
    assert_true(stalled);
    for (int r = 0; r < 2; r++) {
        assert_int_equal(b[r].at.rank, r);
        assert_int_equal(b[r].at.pos, 1);
        assert_int_equal(b[r].waits.rank, 1 - r);
        assert_int_equal(b[r].waits.pos, 0);
    }
    /* moves to an earlier place are ignored */
    struct dg_move back[1] = {{2, 0}};
    const struct dg_move *bk[2] = {back, back};
    assert_int_equal(dg_stall_check(logs, 2, m, bk, n2, b, &stalled), 0);
    assert_false(stalled);
    dg_match_destroy(m);
    for (int r = 0; r < 2; r++)
        dg_mpilog_free(&l[r]);

    /* rank 0 sends x, then receives y; rank 1 sends y, then receives x
     * (safe with eager sends).  Rank 1's receive of x moved past its own
     * send of y: the send of x may wait until the moved receive is posted,
     * which it is right after rank 1's send of y, so the run finishes;
     * moved past its receive of z, which rank 0 sends only after its
     * send of x, it stalls. */
    struct dg_mpilog k[2] = {{.rank = 0}, {.rank = 1}};
    log_add(&k[0], DG_MSG_SEND, CHT_MPI_SEND, 1, 1, 1); /* 0:0 x */
    log_add(&k[0], DG_MSG_RECV, CHT_MPI_RECV, 1, 2, 1); /* 0:1 y */
    log_add(&k[0], DG_MSG_SEND, CHT_MPI_SEND, 1, 3, 2); /* 0:2 z */
    log_add(&k[1], DG_MSG_RECV, CHT_MPI_RECV, 0, 1, 1); /* 1:0 x */
    log_add(&k[1], DG_MSG_SEND, CHT_MPI_SEND, 0, 2, 1); /* 1:1 y */
    log_add(&k[1], DG_MSG_RECV, CHT_MPI_RECV, 0, 3, 2); /* 1:2 z */
    const struct dg_mpilog *kl[2] = {&k[0], &k[1]};
    assert_int_equal(dg_match_build(kl, 2, &m), 0);
    struct dg_move after_send[1] = {{0, 1}}, after_z[1] = {{0, 2}};
    const struct dg_move *ms[2] = {NULL, after_send};
    uint32_t nm[2] = {0, 1};
    assert_int_equal(dg_stall_check(kl, 2, m, ms, nm, b, &stalled), 0);
    assert_false(stalled);
    ms[1] = after_z;
    assert_int_equal(dg_stall_check(kl, 2, m, ms, nm, b, &stalled), 0);
    assert_true(stalled);
    assert_int_equal(b[0].at.pos, 0);      /* rank 0's send of x waits ... */
    assert_int_equal(b[0].waits.rank, 1);  /* ... for rank 1 to post its receive */
    assert_int_equal(b[0].waits.pos, 0);
    assert_int_equal(b[1].at.pos, 2);      /* rank 1 waits for z */
    dg_match_destroy(m);
    for (int r = 0; r < 2; r++)
        dg_mpilog_free(&k[r]);
}

/* The timed replay (dg_replay_run): rank 0 computes 100 us, sends 64 bytes
 * to rank 1, computes 50 us and ends; rank 1 receives (posted at once),
 * computes 10 us and ends.  With L = 6 us (the receive's own 1 us
 * included), G = 0 and o = 1 us, rank 1's receive ends at 100 + 6 us and
 * rank 1 reaches its end at 116 us; rank 0 at 100 + 1 + 50 us.  The measured times say the same, so the
 * error is 0; a run whose rank 1 started 20 us late shifts only rank 1's
 * end (its receive still waits for the message). */
static void set_times(struct dg_msgrec *r, uint64_t enter, uint64_t exit)
{
    r->t_enter = enter;
    r->t_exit = exit;
}

static void test_replay_timed(void **state)
{
    (void)state;
    struct dg_mpilog l[2] = {{.rank = 0}, {.rank = 1}};
    const uint64_t us = 1000, base = 1000000;
    struct dg_msgrec *x;
    x = log_add(&l[0], DG_MSG_OTHER, CHT_MPI_INIT, -1, -1, 0);
    set_times(x, base - 10 * us, base);
    x = log_add(&l[0], DG_MSG_SEND, CHT_MPI_SEND, 1, 1, 1);
    x->bytes = 64;
    set_times(x, base + 100 * us, base + 101 * us);
    x = log_add(&l[0], DG_MSG_OTHER, CHT_MPI_FINALIZE, -1, -1, 0);
    set_times(x, base + 151 * us, base + 152 * us);
    x = log_add(&l[1], DG_MSG_OTHER, CHT_MPI_INIT, -1, -1, 0);
    set_times(x, base - 10 * us, base);
    x = log_add(&l[1], DG_MSG_RECV, CHT_MPI_RECV, 0, 1, 1);
    x->bytes = 64;
    set_times(x, base, base + 106 * us);
    x = log_add(&l[1], DG_MSG_OTHER, CHT_MPI_FINALIZE, -1, -1, 0);
    set_times(x, base + 116 * us, base + 117 * us);
    const struct dg_mpilog *logs[2] = {&l[0], &l[1]};
    struct dg_match *m;
    assert_int_equal(dg_match_build(logs, 2, &m), 0);
    struct dg_replay_params pp = {.lat_ns = 6 * us, .ns_per_byte = 0, .o_ns = 1 * us, .or_ns = 1 * us,
                                  .eager_max = 8192};
    struct dg_replay_rank rr[2];
    assert_int_equal(dg_replay_run(logs, 2, m, &pp, NULL, 0, rr), 0);
    assert_true(rr[0].valid && rr[1].valid);
    assert_true(fabs(rr[0].replayed_ns - 151.0 * us) < 1);
    assert_true(fabs(rr[0].measured_ns - 151.0 * us) < 1);
    assert_true(fabs(rr[1].replayed_ns - 116.0 * us) < 1);
    assert_true(fabs(rr[1].measured_ns - 116.0 * us) < 1);
    /* fitted from these logs: the receiver waited, the transfer took 6 us */
    struct dg_replay_params fit = {.eager_max = 8192};
    assert_int_equal(dg_replay_fit(logs, 2, m, &fit), 0);
    assert_true(fabs(fit.lat_ns - 6.0 * us) < 1);
    assert_true(fabs(fit.o_ns - 1.0 * us) < 1);
    assert_true(fit.samples == 1);

    /* the send made nonblocking, posted 60 us earlier (its backward
     * window starts at 40 us) and waited for 30 us into the computation
     * after it: the message arrives at 40 + 6 us, rank 1 ends at 56 us;
     * rank 0 no longer spends o in the call: 150 us */
    struct dg_change nb = {.kind = DG_CHANGE_NB, .rank = 0, .pos = 1, .t_post = base + 40 * us,
                           .t_wait = base + 131 * us};
    assert_int_equal(dg_replay_run(logs, 2, m, &pp, &nb, 1, rr), 0);
    assert_true(fabs(rr[0].replayed_ns - 150.0 * us) < 1);
    assert_true(fabs(rr[1].replayed_ns - 56.0 * us) < 1);

    /* the two calls made one collective of one step: both wait for the
     * later (rank 0 at 100 us), then 6 us; rank 0 ends at 156 us, rank 1
     * at 116 us */
    struct dg_change co[2] = {{.kind = DG_CHANGE_COLL, .rank = 0, .pos = 1, .id = 0, .steps = 1},
                              {.kind = DG_CHANGE_COLL, .rank = 1, .pos = 1, .id = 0, .steps = 1}};
    assert_int_equal(dg_replay_run(logs, 2, m, &pp, co, 2, rr), 0);
    assert_true(fabs(rr[0].replayed_ns - 156.0 * us) < 1);
    assert_true(fabs(rr[1].replayed_ns - 116.0 * us) < 1);

    /* computation at half its traced time (--plain-time): rank 0 sends at
     * 50 us and ends at 50 + 1 + 25; rank 1's receive ends at 56, then 5 */
    struct dg_replay_params half = pp;
    half.compute_scale = 0.5;
    assert_int_equal(dg_replay_run(logs, 2, m, &half, NULL, 0, rr), 0);
    assert_true(fabs(rr[0].replayed_ns - 76.0 * us) < 1);
    assert_true(fabs(rr[1].replayed_ns - 61.0 * us) < 1);

    /* on an ideal network messages cost nothing: rank 1 waits for the
     * send only, 100 us, then computes 10; rank 0 150 us */
    struct dg_replay_params ideal = pp;
    ideal.ideal = true;
    assert_int_equal(dg_replay_run(logs, 2, m, &ideal, NULL, 0, rr), 0);
    assert_true(fabs(rr[0].replayed_ns - 150.0 * us) < 1);
    assert_true(fabs(rr[1].replayed_ns - 110.0 * us) < 1);
    dg_match_destroy(m);
    for (int r = 0; r < 2; r++)
        dg_mpilog_free(&l[r]);
}

/* Two ranks on a host with one CPU (dg_mpilog.host, CPU times in the
 * calls): rank 1 waits from 0 to 4106 us for a message sent at 100 us but
 * used only 106 us of CPU: it was off [106, 4106) us (the stretch ends when
 * it noticed), and the replay keeps that turn: it notices at 4106 and ends
 * at 4116 as measured.  The send posted 60 us earlier arrives at 46 us,
 * before rank 1 lost its CPU: it ends at 56 us.  Rank 0 never lost its
 * CPU: it replays as before.  The fit finds the host oversubscribed and,
 * with one stretch off, takes the 4 ms default slice. */
static void test_replay_turns(void **state)
{
    (void)state;
    struct dg_mpilog l[2] = {{.rank = 0}, {.rank = 1}};
    const uint64_t us = 1000, base = 1000000;
    struct dg_msgrec *x;
    for (int r = 0; r < 2; r++)
        l[r].host = (struct dg_host){.cpus = 1, .node_ranks = 2, .host_id = 77};
    x = log_add(&l[0], DG_MSG_OTHER, CHT_MPI_INIT, -1, -1, 0);
    set_times(x, base - 10 * us, base);
    x = log_add(&l[0], DG_MSG_SEND, CHT_MPI_SEND, 1, 1, 1);
    x->bytes = 64;
    set_times(x, base + 100 * us, base + 101 * us);
    x = log_add(&l[0], DG_MSG_OTHER, CHT_MPI_FINALIZE, -1, -1, 0);
    set_times(x, base + 151 * us, base + 152 * us);
    x = log_add(&l[1], DG_MSG_OTHER, CHT_MPI_INIT, -1, -1, 0);
    set_times(x, base - 10 * us, base);
    x = log_add(&l[1], DG_MSG_RECV, CHT_MPI_RECV, 0, 1, 1);
    x->bytes = 64;
    set_times(x, base, base + 4106 * us);
    x = log_add(&l[1], DG_MSG_OTHER, CHT_MPI_FINALIZE, -1, -1, 0);
    set_times(x, base + 4116 * us, base + 4117 * us);
    /* the CPU times, beside the records (every record added first) */
    for (int r = 0; r < 2; r++)
        assert_non_null(l[r].cpu = calloc(l[r].cap, sizeof *l[r].cpu));
    l[0].cpu[1] = (struct dg_cputime){100 * us, 101 * us};
    l[0].cpu[2] = (struct dg_cputime){151 * us, 152 * us};
    l[1].cpu[1] = (struct dg_cputime){7 * us, 113 * us};
    l[1].cpu[2] = (struct dg_cputime){123 * us, 124 * us};
    const struct dg_mpilog *logs[2] = {&l[0], &l[1]};
    struct dg_match *m;
    assert_int_equal(dg_match_build(logs, 2, &m), 0);
    struct dg_replay_params pp = {.lat_ns = 6 * us, .o_ns = 1 * us, .or_ns = 1 * us, .eager_max = 8192,
                                  .slice_ns = 4000 * us};
    struct dg_replay_rank rr[2];
    assert_int_equal(dg_replay_run(logs, 2, m, &pp, NULL, 0, rr), 0);
    assert_true(fabs(rr[0].replayed_ns - 151.0 * us) < 1);
    assert_true(fabs(rr[1].replayed_ns - 4116.0 * us) < 1);
    struct dg_change nb = {.kind = DG_CHANGE_NB, .rank = 0, .pos = 1, .t_post = base + 40 * us,
                           .t_wait = base + 131 * us};
    assert_int_equal(dg_replay_run(logs, 2, m, &pp, &nb, 1, rr), 0);
    assert_true(fabs(rr[1].replayed_ns - 56.0 * us) < 1);
    /* without the CPUs modelled the wait is gone: 116 us */
    struct dg_replay_params flat = pp;
    flat.slice_ns = 0;
    assert_int_equal(dg_replay_run(logs, 2, m, &flat, NULL, 0, rr), 0);
    assert_true(fabs(rr[1].replayed_ns - 116.0 * us) < 1);
    struct dg_replay_params fit = {.eager_max = 8192};
    assert_int_equal(dg_replay_fit(logs, 2, m, &fit), 0);
    assert_true(fabs(fit.slice_ns - 4e6) < 1);
    assert_true(fit.slice_samples == 0);
    /* the transfer to a rank that lost its CPU meanwhile is no sample of L */
    assert_true(fit.samples == 0);
    /* the turns come from the CPU times (COMMHINT_CPU_TIMES=1 records them
     * on any host), not from the host's description */
    for (int r = 0; r < 2; r++)
        l[r].host = (struct dg_host){0};
    assert_int_equal(dg_replay_fit(logs, 2, m, &fit), 0);
    assert_true(fabs(fit.slice_ns - 4e6) < 1);
    assert_int_equal(dg_replay_run(logs, 2, m, &pp, NULL, 0, rr), 0);
    assert_true(fabs(rr[1].replayed_ns - 4116.0 * us) < 1);
    /* without CPU times there are no turns */
    for (int r = 0; r < 2; r++) {
        free(l[r].cpu);
        l[r].cpu = NULL;
    }
    assert_int_equal(dg_replay_fit(logs, 2, m, &fit), 0);
    assert_true(fit.slice_ns == 0);
    dg_match_destroy(m);
    for (int r = 0; r < 2; r++)
        dg_mpilog_free(&l[r]);
}

/* Small rooted collectives move data one way (MPICH's binomial trees):
 * rank 0 (the root) reaches a Gather at 10 us, rank 1 at 100 us.  Rank 1
 * only sends: it leaves after o (101 us); the root waits for it, then one
 * step of L (106 us).  In a Bcast from rank 0 the root leaves at once
 * (11 us) and rank 1 waits for the root only: 100 + 6 us.  A Barrier
 * waits for both everywhere (measured: both left at 106 us). */
static void test_replay_rooted(void **state)
{
    (void)state;
    const uint64_t us = 1000, base = 1000000;
    const uint16_t calls[3] = {CHT_MPI_GATHER, CHT_MPI_BCAST, CHT_MPI_BARRIER};
    const double want[3][2] = {{106, 101}, {11, 106}, {106, 106}};
    for (int c = 0; c < 3; c++) {
        struct dg_mpilog l[2] = {{.rank = 0}, {.rank = 1}};
        struct dg_msgrec *x;
        for (int r = 0; r < 2; r++) {
            x = log_add(&l[r], DG_MSG_OTHER, CHT_MPI_INIT, -1, -1, 0);
            set_times(x, base - 10 * us, base);
            x = log_add(&l[r], DG_MSG_COLL, calls[c], calls[c] == CHT_MPI_BARRIER ? -1 : 0, -1, 1);
            x->comm_size = 2;
            x->bytes = 8;
            uint64_t at = r ? 100 : 10;
            set_times(x, base + at * us, base + 106 * us);
            x = log_add(&l[r], DG_MSG_OTHER, CHT_MPI_FINALIZE, -1, -1, 0);
            set_times(x, base + 106 * us, base + 107 * us);
        }
        const struct dg_mpilog *logs[2] = {&l[0], &l[1]};
        struct dg_match *m;
        assert_int_equal(dg_match_build(logs, 2, &m), 0);
        struct dg_replay_params pp = {.lat_ns = 6 * us, .o_ns = 1 * us, .or_ns = 1 * us, .eager_max = 8192};
        struct dg_replay_rank rr[2];
        assert_int_equal(dg_replay_run(logs, 2, m, &pp, NULL, 0, rr), 0);
        for (int r = 0; r < 2; r++) /* the end: the call's end, then the burst of 0 us */
            if (fabs(rr[r].replayed_ns - want[c][r] * us) >= 1)
                fail_msg("call %u rank %d: replayed %.0f ns, want %.0f", calls[c], r, rr[r].replayed_ns,
                         want[c][r] * us);
        dg_match_destroy(m);
        for (int r = 0; r < 2; r++)
            dg_mpilog_free(&l[r]);
    }
}

/* Two sends merged into one message (DG_CHANGE_MERGE): rank 0 sends A at
 * 100 us and B at 120 us to rank 1, which receives both, then computes 10
 * us.  Merged, A costs nothing and travels with B: rank 0 reaches B 1 us
 * earlier (119 us), ends at 150 us; rank 1 gets both at 119 + 5 us, its
 * receives end at 125 and 126 us: it ends at 136 us as before. */
static void test_replay_merge(void **state)
{
    (void)state;
    struct dg_mpilog l[2] = {{.rank = 0}, {.rank = 1}};
    const uint64_t us = 1000, base = 1000000;
    struct dg_msgrec *x;
    x = log_add(&l[0], DG_MSG_OTHER, CHT_MPI_INIT, -1, -1, 0);
    set_times(x, base - 10 * us, base);
    x = log_add(&l[0], DG_MSG_SEND, CHT_MPI_SEND, 1, 1, 1);
    x->bytes = 64;
    set_times(x, base + 100 * us, base + 101 * us);
    x = log_add(&l[0], DG_MSG_SEND, CHT_MPI_SEND, 1, 1, 2);
    x->bytes = 64;
    set_times(x, base + 120 * us, base + 121 * us);
    x = log_add(&l[0], DG_MSG_OTHER, CHT_MPI_FINALIZE, -1, -1, 0);
    set_times(x, base + 151 * us, base + 152 * us);
    x = log_add(&l[1], DG_MSG_OTHER, CHT_MPI_INIT, -1, -1, 0);
    set_times(x, base - 10 * us, base);
    x = log_add(&l[1], DG_MSG_RECV, CHT_MPI_RECV, 0, 1, 1);
    x->bytes = 64;
    set_times(x, base, base + 106 * us);
    x = log_add(&l[1], DG_MSG_RECV, CHT_MPI_RECV, 0, 1, 2);
    x->bytes = 64;
    set_times(x, base + 106 * us, base + 126 * us);
    x = log_add(&l[1], DG_MSG_OTHER, CHT_MPI_FINALIZE, -1, -1, 0);
    set_times(x, base + 136 * us, base + 137 * us);
    const struct dg_mpilog *logs[2] = {&l[0], &l[1]};
    struct dg_match *m;
    assert_int_equal(dg_match_build(logs, 2, &m), 0);
    struct dg_replay_params pp = {.lat_ns = 6 * us, .o_ns = 1 * us, .or_ns = 1 * us, .eager_max = 8192};
    struct dg_replay_rank rr[2];
    assert_int_equal(dg_replay_run(logs, 2, m, &pp, NULL, 0, rr), 0);
    assert_true(fabs(rr[0].replayed_ns - 151.0 * us) < 1);
    assert_true(fabs(rr[1].replayed_ns - 136.0 * us) < 1);
    struct dg_change mg = {.kind = DG_CHANGE_MERGE, .rank = 0, .pos = 1, .into = 2};
    assert_int_equal(dg_replay_run(logs, 2, m, &pp, &mg, 1, rr), 0);
    assert_true(fabs(rr[0].replayed_ns - 150.0 * us) < 1);
    assert_true(fabs(rr[1].replayed_ns - 136.0 * us) < 1);
    dg_match_destroy(m);
    for (int r = 0; r < 2; r++)
        dg_mpilog_free(&l[r]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_builder_send, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_send_proc_null, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_recv, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_recv_any, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_sendrecv, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_isend_wait, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_nonblocking_coll_ranges, builder_setup,
                                        builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_irecv_wait, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_irecv_complete_without_status, builder_setup,
                                        builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_test_nothing, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_waitall, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_complete_unknown, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_probe, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_barrier, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_bcast, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_allreduce, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_scatter_root_in_place, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_gatherv_root, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_alltoallv, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_fences, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_comp, builder_setup, builder_teardown),
        cmocka_unit_test_setup_teardown(test_builder_loop, builder_setup, builder_teardown),
        cmocka_unit_test(test_builder_requests_random),
        cmocka_unit_test(test_comp_weight),
        cmocka_unit_test(test_depends_ranges),
        cmocka_unit_test(test_depends_fence),
        cmocka_unit_test(test_depends_keys),
        cmocka_unit_test(test_depends_same_channel),
        cmocka_unit_test(test_role_names),
        cmocka_unit_test(test_shadow_basic),
        cmocka_unit_test(test_shadow_random),
        cmocka_unit_test(test_shadow_huge),
        cmocka_unit_test(test_shadow_big),
        cmocka_unit_test(test_shadow_footprint),
        cmocka_unit_test(test_watch_basic),
        cmocka_unit_test(test_watch_huge_query),
        cmocka_unit_test(test_watch_run_first_conflict),
        cmocka_unit_test(test_watch_random),
        cmocka_unit_test(test_keytab_basic),
        cmocka_unit_test(test_keytab_random),
        cmocka_unit_test(test_map_wraparound),
        cmocka_unit_test(test_map_max_key),
        cmocka_unit_test(test_map_random),
        cmocka_unit_test(test_match_hb),
        cmocka_unit_test(test_hb_collectives),
        cmocka_unit_test(test_hb_stall),
        cmocka_unit_test(test_hb_random),
        cmocka_unit_test(test_stall_check),
        cmocka_unit_test(test_replay_timed),
        cmocka_unit_test(test_replay_merge),
        cmocka_unit_test(test_replay_turns),
        cmocka_unit_test(test_replay_rooted),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
