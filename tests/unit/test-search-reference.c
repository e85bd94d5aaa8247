/* test-search-reference.c - unit tests of the reference engine
 * (search/rank/reference.c) and the shared result helpers (search/rank/result.c):
 * hand-made event sequences whose results are computed by hand from
 * docs/dependence.md, so that the definition itself is pinned down (the
 * property test then holds the streaming engine to the reference).
 *
 * Each sequence is written as a list of events with their ranges, keys,
 * times and iteration vectors; the comment above it gives the windows and
 * gaps the expected numbers come from.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "search-private.h"
#include "trace-format.h"

/* ---- building event sequences ----------------------------------------------- */

#define MAXEV 256
#define MAXR 4

struct seq {
    size_t n;
    struct dg_event ev[MAXEV];
    struct dg_range rg[MAXEV][MAXR];
    struct dg_key ky[MAXEV][MAXR];
    struct trace_iter it[MAXEV][SEARCH_BOX_DEPTH + 2];
    /* iteration vector given to new events */
    uint32_t depth;
    struct trace_iter cur[SEARCH_BOX_DEPTH + 2];
};

static struct dg_event *add_ev(struct seq *s, uint8_t kind, uint32_t site)
{
    struct dg_event *e;

    assert_true(s->n < MAXEV);
    e = &s->ev[s->n];
    memset(e, 0, sizeof(*e));
    e->index = s->n;
    e->site = site;
    e->kind = kind;
    e->peer = CHT_RANK_NONE;
    e->ranges = s->rg[s->n];
    e->keys = s->ky[s->n];
    e->depth = s->depth;
    memcpy(s->it[s->n], s->cur, sizeof(s->cur));
    e->iters = s->it[s->n];
    s->n++;
    return e;
}

static void range(struct seq *s, struct dg_event *e, uint64_t addr, uint64_t len, bool write)
{
    struct dg_range *r = &s->rg[e->index][e->nranges++];

    assert_true(e->nranges <= MAXR);
    r->addr = addr;
    r->len = len;
    r->write = write;
}

static void key(struct seq *s, struct dg_event *e, uint32_t cls, uint64_t comm, int32_t peer)
{
    struct dg_key *k = &s->ky[e->index][e->nkeys++];

    assert_true(e->nkeys <= MAXR);
    k->cls = cls;
    k->comm = comm;
    k->peer = peer;
}

/* Sets the iteration vector of the events added next: loop ids 1, 2, ...
 * outermost first. */
static void iv(struct seq *s, uint32_t depth, ...)
{
    va_list ap;

    va_start(ap, depth);
    s->depth = depth;
    for (uint32_t k = 0; k < depth; k++) {
        s->cur[k].loop = k + 1;
        s->cur[k].iter = va_arg(ap, uint64_t);
    }
    va_end(ap);
}

/* A computation event reading rlen bytes at raddr and writing wlen bytes
 * at waddr (len 0: no such range). */
static struct dg_event *comp(struct seq *s, uint32_t site, uint64_t raddr, uint64_t rlen,
                             uint64_t waddr, uint64_t wlen)
{
    struct dg_event *e = add_ev(s, DG_COMP, site);

    if (rlen)
        range(s, e, raddr, rlen, false);
    if (wlen)
        range(s, e, waddr, wlen, true);
    return e;
}

static struct dg_event *mpi(struct seq *s, uint32_t site, uint8_t role, uint16_t call,
                            uint64_t t0, uint64_t t1)
{
    struct dg_event *e = add_ev(s, DG_MPI, site);

    e->role = role;
    e->call = call;
    e->t_enter = t0;
    e->t_exit = t1;
    return e;
}

static struct dg_event *send(struct seq *s, uint32_t site, uint64_t comm, int32_t dest,
                             uint64_t addr, uint64_t len, uint64_t t0, uint64_t t1)
{
    struct dg_event *e = mpi(s, site, DG_ROLE_SEND, CHT_MPI_SEND, t0, t1);

    range(s, e, addr, len, false);
    key(s, e, DG_KEY_SEND, comm, dest);
    e->comm = comm;
    e->peer = dest;
    e->bytes = len;
    return e;
}

static struct dg_event *recv(struct seq *s, uint32_t site, uint64_t comm, int32_t src,
                             uint64_t addr, uint64_t len, uint64_t t0, uint64_t t1)
{
    struct dg_event *e = mpi(s, site, DG_ROLE_RECV, CHT_MPI_RECV, t0, t1);

    range(s, e, addr, len, true);
    key(s, e, DG_KEY_RECV, comm, src);
    e->comm = comm;
    return e;
}

static struct dg_event *fence(struct seq *s, uint32_t site, uint16_t call, uint64_t t0,
                              uint64_t t1)
{
    return mpi(s, site, DG_ROLE_FENCE, call, t0, t1);
}

static struct dg_event *barrier(struct seq *s, uint32_t site, uint64_t comm, uint64_t t0,
                                uint64_t t1)
{
    struct dg_event *e = mpi(s, site, DG_ROLE_SYNC, CHT_MPI_BARRIER, t0, t1);

    key(s, e, DG_KEY_COLL, comm, 0);
    e->comm = comm;
    return e;
}

/* Runs the reference engine on s. */
static struct search_rank_result *run_ref(const struct seq *s, uint64_t horizon,
                                          unsigned max_boxes)
{
    struct search_opts o = { .engine = SEARCH_ENGINE_REFERENCE, .horizon = horizon,
                             .max_boxes = max_boxes };
    const struct search_engine_ops *ops;
    struct search_rank_result *res = NULL;
    void *st;

    assert_int_equal(search_reference_create(&o, 3, &st, &ops), 0);
    for (size_t i = 0; i < s->n; i++)
        assert_int_equal(ops->feed(st, &s->ev[i]), 0);
    assert_int_equal(ops->finish(st, &res), 0);
    assert_non_null(res);
    assert_int_equal(res->rank, 3);
    assert_int_equal(res->events, s->n);
    return res;
}

static const struct search_overlap *find_ov(const struct search_rank_result *r, uint32_t site)
{
    for (uint32_t i = 0; i < r->noverlaps; i++)
        if (r->overlaps[i].site == site)
            return &r->overlaps[i];
    fail_msg("no overlap for site %" PRIu32, site);
    return NULL;
}

static const struct search_stmt *find_stmt(const struct search_overlap *o, uint32_t site)
{
    for (uint32_t i = 0; i < o->nstmts; i++)
        if (o->stmts[i].site == site)
            return &o->stmts[i];
    fail_msg("overlap site %" PRIu32 " has no stmt site %" PRIu32, o->site, site);
    return NULL;
}

/* The boxes of l as "(..) (..)" followed by "+N" if more. */
static const char *boxes_text(const struct search_boxes *l)
{
    static char buf[4][512];
    static int which;
    char *out = buf[which++ % 4], one[128];

    out[0] = '\0';
    for (uint32_t i = 0; i < l->n; i++) {
        if (i)
            strcat(out, " ");
        strcat(out, search_box_format(&l->box[i], one, sizeof(one)));
    }
    if (l->more) {
        snprintf(one, sizeof(one), " +%" PRIu64, l->more);
        strcat(out, one);
    }
    return out;
}

static void check_stmt(const struct search_overlap *o, uint32_t site, uint32_t flags,
                       uint64_t events, uint64_t total, uint64_t time_ns, const char *iters)
{
    const struct search_stmt *st = find_stmt(o, site);

    if (st->flags != flags || st->events != events || st->total != total ||
        st->time_ns != time_ns || (iters && strcmp(boxes_text(&st->iters), iters) != 0))
        fail_msg("overlap site=%" PRIu32 " stmt site=%" PRIu32
                 ": flags=%" PRIu32 " events=%" PRIu64 " total=%" PRIu64 " time=%" PRIu64
                 " iters=%s; expected flags=%" PRIu32 " events=%" PRIu64 " total=%" PRIu64
                 " time=%" PRIu64 " iters=%s",
                 o->site, site, st->flags, st->events, st->total, st->time_ns,
                 boxes_text(&st->iters), flags, events, total, time_ns, iters ? iters : "*");
}

static void check_ov(const struct search_overlap *o, uint64_t instances, uint64_t with_window,
                     uint64_t truncated, uint64_t comm_ns, uint64_t comp_ns, uint64_t saving_ns,
                     uint32_t nstmts)
{
    if (o->instances != instances || o->with_window != with_window ||
        o->truncated != truncated || o->comm_ns != comm_ns || o->comp_ns != comp_ns ||
        o->saving_ns != saving_ns || o->nstmts != nstmts)
        fail_msg("overlap site=%" PRIu32 ": instances=%" PRIu64 " with_window=%" PRIu64
                 " truncated=%" PRIu64 " comm=%" PRIu64 " comp=%" PRIu64 " saving=%" PRIu64
                 " nstmts=%" PRIu32 "; expected %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                 " %" PRIu64 " %" PRIu64 " %" PRIu32,
                 o->site, o->instances, o->with_window, o->truncated, o->comm_ns, o->comp_ns,
                 o->saving_ns, o->nstmts, instances, with_window, truncated, comm_ns, comp_ns,
                 saving_ns, nstmts);
    for (uint32_t i = 1; i < o->nstmts; i++)
        assert_true(o->stmts[i - 1].site < o->stmts[i].site);
}

static void check_group(const struct search_group *g, uint64_t comm, int32_t peer,
                        const char *sites, uint64_t groups, uint64_t members, uint64_t bytes,
                        uint64_t send_ns, uint32_t min_size, uint32_t max_size)
{
    char buf[128] = "";
    size_t off = 0;

    for (uint32_t i = 0; i < g->nsites; i++)
        off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%" PRIu32, i ? "," : "",
                                g->sites[i]);
    if (g->comm != comm || g->peer != peer || strcmp(buf, sites) != 0 || g->groups != groups ||
        g->members != members || g->bytes != bytes || g->send_ns != send_ns ||
        g->min_size != min_size || g->max_size != max_size)
        fail_msg("group comm=%" PRIu64 " peer=%" PRId32 " sites=[%s] groups=%" PRIu64
                 " members=%" PRIu64 " bytes=%" PRIu64 " ns=%" PRIu64 " size=%" PRIu32
                 "..%" PRIu32 "; expected comm=%" PRIu64 " peer=%" PRId32 " sites=[%s] %" PRIu64
                 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu32 "..%" PRIu32,
                 g->comm, g->peer, buf, g->groups, g->members, g->bytes, g->send_ns,
                 g->min_size, g->max_size, comm, peer, sites, groups, members, bytes, send_ns,
                 min_size, max_size);
}

/* A Sendrecv sending len bytes at saddr to dest and receiving rlen bytes
 * at raddr from src. */
static struct dg_event *sendrecv(struct seq *s, uint32_t site, uint64_t comm, int32_t dest, int32_t src,
                                 uint64_t saddr, uint64_t len, uint64_t raddr, uint64_t rlen, uint64_t t0,
                                 uint64_t t1)
{
    struct dg_event *e = mpi(s, site, DG_ROLE_SENDRECV, CHT_MPI_SENDRECV, t0, t1);

    range(s, e, saddr, len, false);
    key(s, e, DG_KEY_SEND, comm, dest);
    range(s, e, raddr, rlen, true);
    key(s, e, DG_KEY_RECV, comm, src);
    e->comm = comm;
    e->bytes = len;
    return e;
}

/* An Isend of len bytes at addr to dest with request req. */
static struct dg_event *isend(struct seq *s, uint32_t site, uint64_t comm, int32_t dest, uint64_t req,
                              uint64_t addr, uint64_t len, uint64_t t0, uint64_t t1)
{
    struct dg_event *e = mpi(s, site, DG_ROLE_START, CHT_MPI_ISEND, t0, t1);

    range(s, e, addr, len, false);
    key(s, e, DG_KEY_SEND, comm, dest);
    key(s, e, DG_KEY_REQ, req, 0);
    e->comm = comm;
    e->bytes = len;
    return e;
}

/* A Wait/Waitall completing requests r1 and, if not 0, r2. */
static struct dg_event *waitreq(struct seq *s, uint32_t site, uint64_t r1, uint64_t r2, uint64_t t0, uint64_t t1)
{
    struct dg_event *e = mpi(s, site, DG_ROLE_COMPLETE, r2 ? CHT_MPI_WAITALL : CHT_MPI_WAIT, t0, t1);

    key(s, e, DG_KEY_REQ, r1, 0);
    if (r2)
        key(s, e, DG_KEY_REQ, r2, 0);
    return e;
}

/* ---- overlap -------------------------------------------------------------------- */

/* A Jacobi-like halo exchange, two iterations of loop 1 (s3 in inner
 * loop 2).  Halo H=[0,8), rows R1=[8,16), R2=[16,24).
 *
 *  0 Init (10..20)
 *  it t (base b = 1 + 7(t-1)):
 *  b+0 s1 W R1          b+1 s2 W R2
 *  b+2 Send s10 R R1    b+3 Recv s11 W H
 *  b+4 s3 R R2 (t,1)    b+5 s3 R R2 (t,2)   b+6 s4 R H
 * 15 Finalize (900..910)
 *
 * send@3:  back stops at 1 (writes R1): {2};  fwd stops at 8 (anti on R1): {5,6,7}
 * recv@4:  back stops at 0 (fence): {1,2};    fwd stops at 7 (reads H): {5,6}
 * send@10: back stops at 8: {9};              fwd stops at 15 (fence): {12,13,14}
 * recv@11: back stops at 7 (anti on H): {8,9}; fwd stops at 14: {12,13}
 * Gaps: [1,2] 100-20 = 80; [5..9] 500-300 = 200; [12,13,14] 900-700 = 200.
 * k events of a gap of n events and duration d are worth floor(d*k/n). */
static void build_jacobi(struct seq *s)
{
    memset(s, 0, sizeof(*s));
    iv(s, 0);
    fence(s, 100, CHT_MPI_INIT, 10, 20);
    for (uint64_t t = 1; t <= 2; t++) {
        iv(s, 1, t);
        comp(s, 1, 0, 0, 8, 8);
        comp(s, 2, 0, 0, 16, 8);
        send(s, 10, 1, 1, 8, 8, t == 1 ? 100 : 500, t == 1 ? 150 : 520);
        recv(s, 11, 1, 1, 0, 8, t == 1 ? 200 : 600, t == 1 ? 300 : 700);
        iv(s, 2, t, (uint64_t)1);
        comp(s, 3, 16, 8, 40 + 16 * (t - 1), 8);
        iv(s, 2, t, (uint64_t)2);
        comp(s, 3, 16, 8, 48 + 16 * (t - 1), 8);
        iv(s, 1, t);
        comp(s, 4, 0, 8, 80 + 8 * (t - 1), 8);
    }
    iv(s, 0);
    fence(s, 101, CHT_MPI_FINALIZE, 900, 910);
}

static void test_jacobi_halo(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    const struct search_overlap *o;

    build_jacobi(&s);
    assert_int_equal(s.n, 16);
    r = run_ref(&s, 0, 0);

    assert_int_equal(r->comp_events, 10);
    assert_int_equal(r->mpi_events, 6);
    assert_int_equal(r->t_first, 10);
    assert_int_equal(r->t_last, 910);
    /* fences are not candidates; the send has a needs-buffer variant
     * (test_overlap_needs_buffer) */
    assert_int_equal(r->noverlaps, 3);

    o = find_ov(r, 10);
    assert_false(o->needs_buffer);
    assert_int_equal(o->call, CHT_MPI_SEND);
    assert_int_equal(o->role, DG_ROLE_SEND);
    /* comm 50 + 20; windows 80/2 + 200*3/5 and 200/5 + 200 */
    check_ov(o, 2, 2, 0, 70, 160 + 240, 50 + 20, 3);
    assert_string_equal(boxes_text(&o->iters), "(1..2)");
    check_stmt(o, 2, SEARCH_STMT_BEFORE, 2, 2, 40 + 40, "(1..2)");
    /* s3: 2 of the 5 events of gap 2, 2 of the 3 of gap 3: 80 + 133 */
    check_stmt(o, 3, SEARCH_STMT_AFTER, 4, 4, 213, "(1..2, 1..2)");
    check_stmt(o, 4, SEARCH_STMT_AFTER, 2, 2, 40 + 66, "(1..2)");

    o = find_ov(r, 11);
    assert_int_equal(o->role, DG_ROLE_RECV);
    /* windows {1,2,5,6}: 80 + 80, {8,9,12,13}: 80 + floor(400/3) */
    check_ov(o, 2, 2, 0, 200, 160 + 213, 200, 3);
    check_stmt(o, 1, SEARCH_STMT_BEFORE, 2, 2, 80, "(1..2)");
    check_stmt(o, 2, SEARCH_STMT_BEFORE, 2, 2, 80, "(1..2)");
    check_stmt(o, 3, SEARCH_STMT_AFTER, 4, 4, 213, "(1..2, 1..2)");

    /* the two sends are separated by the write of R1 (anti dependence on
     * the first): no group; one message size, so the latency is the
     * fastest send */
    assert_int_equal(r->ngroups, 0);
    assert_true(r->msg_latency_ns == 20.0);
    search_rank_result_free(r);
}

/* The backward window ends at the last writer of the send buffer; reads of
 * it do not end it.
 *  0 s1 W [0,8)   1 s2 W [0,8)   2 s3 W [8,16)   3 s4 R [0,8)   4 Send s10 R [0,8)
 * back: {2,3}; fwd: nothing after it (end of trace, not truncated). */
static void test_backward_last_writer(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    const struct search_overlap *o;

    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 0, 8);
    comp(&s, 2, 0, 0, 0, 8);
    comp(&s, 3, 0, 0, 8, 8);
    comp(&s, 4, 0, 8, 0, 0);
    send(&s, 10, 1, 1, 0, 8, 100, 130);
    r = run_ref(&s, 0, 0);
    o = find_ov(r, 10);
    /* no MPI event before the gap: times 0 */
    check_ov(o, 1, 1, 0, 30, 0, 0, 2);
    check_stmt(o, 3, SEARCH_STMT_BEFORE, 1, 1, 0, "()");
    check_stmt(o, 4, SEARCH_STMT_BEFORE, 1, 1, 0, "()");
    assert_string_equal(boxes_text(&o->iters), "()");
    assert_int_equal(r->t_first, 100);
    assert_int_equal(r->t_last, 130);
    search_rank_result_free(r);
}

/* Anti dependence (a write of bytes the send reads) ends the send's forward
 * window; output dependence (a write of bytes the receive writes) ends the
 * receive's, backward and forward.
 *  0 Send s10 R [0,8)  1 s1 R [0,8) W [16,24)  2 s2 W [4,6)  3 s3 W [24,32)
 *  4 s5 W [66,67)      5 Recv s11 W [64,72)    6 s6 W [72,80)  7 s7 W [70,71)  8 s8 */
static void test_anti_output(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    const struct search_overlap *o;

    memset(&s, 0, sizeof(s));
    send(&s, 10, 1, 1, 0, 8, 100, 110);
    comp(&s, 1, 0, 8, 16, 8);
    comp(&s, 2, 0, 0, 4, 2);
    comp(&s, 3, 0, 0, 24, 8);
    comp(&s, 5, 0, 0, 66, 1);
    recv(&s, 11, 1, 2, 64, 8, 200, 300);
    comp(&s, 6, 0, 0, 72, 8);
    comp(&s, 7, 0, 0, 70, 1);
    comp(&s, 8, 0, 0, 96, 8);
    r = run_ref(&s, 0, 0);

    /* send: back empty (event 0); fwd {1} (2 writes [4,6)).  Gap [1..4]
     * between the send and the recv: 200-110 = 90; one event of four: 22 */
    o = find_ov(r, 10);
    check_ov(o, 1, 1, 0, 10, 22, 10, 1);
    check_stmt(o, 1, SEARCH_STMT_AFTER, 1, 1, 22, "()");
    /* recv: back stops at 4 (writes [66,67)): empty; fwd {6}, 7 writes
     * [70,71); after the last MPI event times are 0 */
    o = find_ov(r, 11);
    check_ov(o, 1, 1, 0, 100, 0, 0, 1);
    check_stmt(o, 6, SEARCH_STMT_AFTER, 1, 1, 0, "()");
    search_rank_result_free(r);

    /* A read after the receive (flow dependence) ends its forward window, a
     * read before it (anti dependence) its backward window. */
    memset(&s, 0, sizeof(s));
    comp(&s, 1, 64, 8, 0, 0);
    recv(&s, 11, 1, 2, 64, 8, 200, 300);
    comp(&s, 2, 0, 0, 0, 8);
    comp(&s, 3, 68, 1, 0, 0);
    r = run_ref(&s, 0, 0);
    o = find_ov(r, 11);
    /* back: event 1 reads [64,72), the recv writes it: anti -> stops, empty */
    check_ov(o, 1, 1, 0, 100, 0, 0, 1);
    check_stmt(o, 2, SEARCH_STMT_AFTER, 1, 1, 0, "()");
    search_rank_result_free(r);
}

/* Fences end windows on both sides; a Barrier (COLL key on comm 1) and a
 * send without a site to another rank are crossed; computation without a
 * site is a statement like any other (sorted last, CHT_NONE); site flags
 * are copied; a statement's time is that of its events in the windows.
 *  0 s1 W [100,108)  1 Comm_dup  2 NONE W [108,116)  3 Send s10 R [0,8) d1
 *  4 s3 W [116,124) (conditional)  5 Send NONE d2 R [8,16)  6 Barrier s30
 *  7 s4 W [124,132)  8 Comm_free  9 s4 W [0,8)  10 Barrier s31 */
static void test_fences(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    const struct search_overlap *o;

    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 100, 8);
    fence(&s, 101, CHT_MPI_COMM_DUP, 10, 20);
    comp(&s, CHT_NONE, 0, 0, 108, 8);
    send(&s, 10, 1, 1, 0, 8, 30, 60);
    comp(&s, 3, 0, 0, 116, 8)->site_flags = CHT_SITEF_CONDITIONAL;
    send(&s, CHT_NONE, 1, 2, 8, 8, 70, 80);
    barrier(&s, 30, 1, 90, 95);
    comp(&s, 4, 0, 0, 124, 8);
    fence(&s, 102, CHT_MPI_COMM_FREE, 100, 105);
    comp(&s, 4, 0, 0, 0, 8);
    barrier(&s, 31, 1, 200, 210);
    r = run_ref(&s, 0, 0);

    /* only the send with a site is a candidate */
    assert_int_equal(r->noverlaps, 1);
    o = find_ov(r, 10);
    /* gaps: [2] 30-20 = 10; [4] 70-60 = 10; [7] 100-95 = 5 */
    check_ov(o, 1, 1, 0, 30, 25, 25, 3);
    assert_int_equal(o->stmts[2].site, CHT_NONE);
    check_stmt(o, CHT_NONE, SEARCH_STMT_BEFORE, 1, 1, 10, "()");
    check_stmt(o, 3, SEARCH_STMT_AFTER, 1, 1, 10, "()");
    /* s4's event 9 (gap of 95 ns) is outside the windows */
    check_stmt(o, 4, SEARCH_STMT_AFTER, 1, 2, 5, "()");
    assert_int_equal(find_stmt(o, 3)->site_flags, CHT_SITEF_CONDITIONAL);
    assert_int_equal(find_stmt(o, 4)->site_flags, 0);
    assert_int_equal(r->ngroups, 0);
    search_rank_result_free(r);
}

/* Ordering keys.  Two sends to the same rank: the second's backward window
 * stops at the first and the first's forward window at the second; a send
 * to another rank is crossed.
 *  0 s1 W [0,8)  1 Send s10 d1 R [0,8)  2 s2 W [100,108)  3 Send s12 d2 R [8,16)
 *  4 s3 W [108,116)  5 Send s10 d1 R [0,8)  6 s4 W [116,124)
 * send@1: back {} fwd {2,3,4} -> comps {2,4}; send@5: back {2,3,4}, fwd {6}
 * send@3: back {0,1,2}, fwd {4,5,6}: comps 0,2 / 4,6 */
static void test_keys_sends(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    const struct search_overlap *o;

    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 0, 8);
    send(&s, 10, 1, 1, 0, 8, 100, 110);
    comp(&s, 2, 0, 0, 100, 8);
    send(&s, 12, 1, 2, 8, 8, 120, 125);
    comp(&s, 3, 0, 0, 108, 8);
    send(&s, 10, 1, 1, 0, 8, 135, 150);
    comp(&s, 4, 0, 0, 116, 8);
    r = run_ref(&s, 0, 0);
    assert_int_equal(r->noverlaps, 2);

    /* gaps: [2] 120-110 = 10, [4] 135-125 = 10; 0 and 6 are outside */
    o = find_ov(r, 10);
    check_ov(o, 2, 2, 0, 10 + 15, 20 + 20, 10 + 15, 3);
    /* event 2 is in both windows: counted once, both flags */
    check_stmt(o, 2, SEARCH_STMT_BEFORE | SEARCH_STMT_AFTER, 1, 1, 10, "()");
    check_stmt(o, 3, SEARCH_STMT_BEFORE | SEARCH_STMT_AFTER, 1, 1, 10, "()");
    check_stmt(o, 4, SEARCH_STMT_AFTER, 1, 1, 0, "()");

    o = find_ov(r, 12);
    check_ov(o, 1, 1, 0, 5, 20, 5, 4);
    check_stmt(o, 1, SEARCH_STMT_BEFORE, 1, 1, 0, "()");
    check_stmt(o, 2, SEARCH_STMT_BEFORE, 1, 1, 10, "()");
    check_stmt(o, 3, SEARCH_STMT_AFTER, 1, 1, 10, "()");
    check_stmt(o, 4, SEARCH_STMT_AFTER, 1, 1, 0, "()");

    /* aggregation: ea(1) = 0, ea(3) = -1, ea(5) = ea(1) = 0 (through the
     * SEND key): order 3 0 1 5 2 4 6; sends 1 and 5 form a group (the
     * first send's buffer is not written again), send 3 stays alone */
    assert_int_equal(r->ngroups, 1);
    check_group(&r->groups[0], 1, 1, "10", 1, 2, 16, 10 + 15, 2, 2);
    search_rank_result_free(r);
}

/* Receive keys: a wildcard receive is ordered with every receive on its
 * communicator; a collective with collectives (and barriers) on its
 * communicator only.
 *  0 Recv s11 src2 W [0,8)  1 s1 W [100,108)  2 Recv s13 ANY W [8,16)
 *  3 s2 W [108,116)  4 Allreduce s14 R [16,24) W [24,32)  5 s3 W [116,124)
 *  6 Barrier s15 comm 2  7 s4 W [124,132)  8 Barrier s16 comm 1  9 s5 W [132,140) */
static void test_keys_recv_coll(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    const struct search_overlap *o;
    struct dg_event *e;

    memset(&s, 0, sizeof(s));
    recv(&s, 11, 1, 2, 0, 8, 0, 0);
    comp(&s, 1, 0, 0, 100, 8);
    recv(&s, 13, 1, DG_PEER_ANY, 8, 8, 0, 0);
    comp(&s, 2, 0, 0, 108, 8);
    e = mpi(&s, 14, DG_ROLE_COLL, CHT_MPI_ALLREDUCE, 0, 0);
    range(&s, e, 16, 8, false);
    range(&s, e, 24, 8, true);
    key(&s, e, DG_KEY_COLL, 1, 0);
    e->comm = 1;
    comp(&s, 3, 0, 0, 116, 8);
    barrier(&s, 15, 2, 0, 0);
    comp(&s, 4, 0, 0, 124, 8);
    barrier(&s, 16, 1, 0, 0);
    comp(&s, 5, 0, 0, 132, 8);
    r = run_ref(&s, 0, 0);

    /* barriers are never candidates */
    assert_int_equal(r->noverlaps, 3);
    assert_int_equal(r->t_first, 0); /* no time known */
    o = find_ov(r, 11);
    check_ov(o, 1, 1, 0, 0, 0, 0, 1);
    check_stmt(o, 1, SEARCH_STMT_AFTER, 1, 1, 0, "()");
    o = find_ov(r, 13);
    check_ov(o, 1, 1, 0, 0, 0, 0, 5);
    check_stmt(o, 1, SEARCH_STMT_BEFORE, 1, 1, 0, "()");
    check_stmt(o, 5, SEARCH_STMT_AFTER, 1, 1, 0, "()");
    o = find_ov(r, 14);
    assert_int_equal(o->role, DG_ROLE_COLL);
    assert_int_equal(o->call, CHT_MPI_ALLREDUCE);
    check_ov(o, 1, 1, 0, 0, 0, 0, 4);
    check_stmt(o, 1, SEARCH_STMT_BEFORE, 1, 1, 0, "()");
    check_stmt(o, 2, SEARCH_STMT_BEFORE, 1, 1, 0, "()");
    check_stmt(o, 3, SEARCH_STMT_AFTER, 1, 1, 0, "()");
    check_stmt(o, 4, SEARCH_STMT_AFTER, 1, 1, 0, "()");
    search_rank_result_free(r);
}

/* A Wait gets only a forward window, which ends at the next use of its
 * request id (REQ key) or at a write of its buffer; the Isend is not a
 * candidate.
 *  0 Isend s20 R [0,8) REQ77   1 s1 W [16,24)   2 Wait s21 R [0,8) REQ77
 *  3 s3 W [32,40)   4 Isend s20 R [8,16) REQ77   5 s4 W [40,48)
 *  6 Wait s21 R [8,16) REQ77   7 s5 W [8,16)   8 s6 W [48,56) */
static void test_wait_request(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    const struct search_overlap *o;
    struct dg_event *e;

    memset(&s, 0, sizeof(s));
    for (int k = 0; k < 2; k++) {
        e = mpi(&s, 20, DG_ROLE_START, CHT_MPI_ISEND, 10 + 100 * k, 11 + 100 * k);
        range(&s, e, 8 * k, 8, false);
        key(&s, e, DG_KEY_SEND, 1, 1);
        key(&s, e, DG_KEY_REQ, 77, 0);
        e->comm = 1;
        e->peer = 1;
        e->bytes = 8;
        comp(&s, k ? 4 : 1, 0, 0, k ? 40 : 16, 8);
        e = mpi(&s, 21, DG_ROLE_COMPLETE, CHT_MPI_WAIT, 20 + 100 * k, 50 + 100 * k);
        range(&s, e, 8 * k, 8, false);
        key(&s, e, DG_KEY_REQ, 77, 0);
        if (!k)
            comp(&s, 3, 0, 0, 32, 8);
    }
    comp(&s, 5, 0, 0, 8, 8);
    comp(&s, 6, 0, 0, 48, 8);
    r = run_ref(&s, 0, 0);

    assert_int_equal(r->noverlaps, 1);
    o = find_ov(r, 21);
    assert_int_equal(o->role, DG_ROLE_COMPLETE);
    /* wait@2: fwd {3} (4 reuses the request); gap [3]: 110-50 = 60.
     * wait@6: fwd {} (7 writes its buffer) */
    check_ov(o, 2, 1, 0, 60, 60, 30, 1);
    check_stmt(o, 3, SEARCH_STMT_AFTER, 1, 1, 60, "()");
    /* nonblocking sends are not movable sends */
    assert_int_equal(r->ngroups, 0);
    assert_true(r->msg_latency_ns == 0.0);
    search_rank_result_free(r);
}

/* A call site whose instances have no window at all is still listed, with
 * no statements. */
static void test_no_window(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    const struct search_overlap *o;

    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 0, 8);
    send(&s, 10, 1, 1, 0, 8, 10, 20);
    comp(&s, 2, 0, 0, 0, 8);
    r = run_ref(&s, 0, 0);
    o = find_ov(r, 10);
    check_ov(o, 1, 0, 0, 10, 0, 0, 0);
    assert_int_equal(o->iters.n, 0);
    search_rank_result_free(r);
}

/* Horizon truncation on both sides.
 *  0..4 s1 (disjoint writes)  5 Send s10 R [0,8)  6..11 s2 (disjoint writes)
 * H=3: back scans 4,3,2 -> {2,3,4} truncated (5-3-1 >= 0); fwd {6,7,8} truncated.
 * H=5: back reaches event 0 -> {0..4}, not truncated; fwd {6..10}, truncated
 *      (5+5+1 = 11 <= 11).
 * H=6: neither truncated.
 * With event 0 writing the send buffer and H=5, the dependence is found at
 * the last event scanned: {1..4}, not truncated. */
static void test_horizon(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    const struct search_overlap *o;
    static const struct {
        uint64_t h;
        bool dep0;
        uint64_t trunc, before, after;
    } cases[] = {
        { 3, false, 1, 3, 3 },  { 4, false, 1, 4, 4 }, { 5, false, 1, 5, 5 },
        { 6, false, 0, 5, 6 },  { 1000, false, 0, 5, 6 }, { 5, true, 1, 4, 5 },
        { 6, true, 0, 4, 6 },   { 1, false, 1, 1, 1 },
    };

    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        memset(&s, 0, sizeof(s));
        for (int k = 0; k < 5; k++)
            comp(&s, 1, 0, 0, k == 0 && cases[c].dep0 ? 0 : 100 + 8 * k, 8);
        send(&s, 10, 1, 1, 0, 8, 10, 20);
        for (int k = 0; k < 6; k++)
            comp(&s, 2, 0, 0, 200 + 8 * k, 8);
        r = run_ref(&s, cases[c].h, 0);
        o = find_ov(r, 10);
        if (o->truncated != cases[c].trunc || o->nstmts != 2 ||
            o->stmts[0].events != cases[c].before || o->stmts[1].events != cases[c].after)
            fail_msg("horizon=%" PRIu64 " dep0=%d: truncated=%" PRIu64 " before=%" PRIu64
                     " after=%" PRIu64 "; expected %" PRIu64 " %" PRIu64 " %" PRIu64,
                     cases[c].h, cases[c].dep0, o->truncated,
                     o->nstmts > 0 ? o->stmts[0].events : 0,
                     o->nstmts > 1 ? o->stmts[1].events : 0, cases[c].trunc, cases[c].before,
                     cases[c].after);
        assert_int_equal(o->stmts[0].flags, SEARCH_STMT_BEFORE);
        assert_int_equal(o->stmts[1].flags, SEARCH_STMT_AFTER);
        assert_int_equal(o->stmts[1].total, 6);
        search_rank_result_free(r);
    }
}

/* The gap rule: a gap's duration d is t_enter of the MPI event after it
 * minus t_exit of the one before; 0 before the first and after the last
 * MPI event, when negative, and when a time is unknown (0).  k of its n
 * events are worth floor(d*k/n), so a whole gap is worth d but its parts
 * may add up to less.
 *  0 s1 | 1 Barrier 1000..1010 | 2 s2 3 s2 4 s4 (d = 1021-1010 = 11)
 *  5 Send s10 1021..1030 | 6 s5 (d = 10) | 7 Recv s11 1040..1100
 *  8 s6 (d = 1090-1100 < 0: 0) | 9 Barrier 1090..1200 | 10 s7 (next enter
 *  unknown: 0) | 11 Barrier 0..0 | 12 s8 13 s8 (after the last: 0)
 *  14 Recv s12 W [0,8) | 15 s9 16 s9 17 s9 W [0,8) 18 s9 | 19 Barrier 2000..2010
 *  with 14 at 1500..1600, 17 ending the recv's forward window: d = 400,
 *  window {15,16}: floor(400*2/4) = 200 */
static void test_gap_times(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    const struct search_overlap *o;

    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 100, 8);
    barrier(&s, 30, 1, 1000, 1010);
    comp(&s, 2, 0, 0, 108, 8);
    comp(&s, 2, 0, 0, 116, 8);
    comp(&s, 4, 0, 0, 124, 8);
    send(&s, 10, 1, 1, 0, 8, 1021, 1030);
    comp(&s, 5, 0, 0, 132, 8);
    recv(&s, 11, 1, 1, 64, 8, 1040, 1100);
    comp(&s, 6, 0, 0, 140, 8);
    barrier(&s, 31, 1, 1090, 1200);
    comp(&s, 7, 0, 0, 148, 8);
    barrier(&s, 32, 1, 0, 0);
    comp(&s, 8, 0, 0, 156, 8);
    comp(&s, 8, 0, 0, 164, 8);
    recv(&s, 12, 1, 2, 0, 8, 1500, 1600); /* writes the send buffer */
    comp(&s, 9, 0, 0, 200, 8);
    comp(&s, 9, 0, 0, 208, 8);
    comp(&s, 9, 0, 0, 0, 8);
    comp(&s, 9, 0, 0, 216, 8);
    barrier(&s, 33, 1, 2000, 2010);
    r = run_ref(&s, 0, 0);

    assert_int_equal(r->t_first, 1000);
    assert_int_equal(r->t_last, 2010);
    o = find_ov(r, 10);
    /* the send's windows: every computation event before the recv at 14 */
    check_ov(o, 1, 1, 0, 9, 11 + 10, 9, 7);
    check_stmt(o, 1, SEARCH_STMT_BEFORE, 1, 1, 0, NULL);
    check_stmt(o, 2, SEARCH_STMT_BEFORE, 2, 2, 7, NULL); /* floor(11*2/3) */
    check_stmt(o, 4, SEARCH_STMT_BEFORE, 1, 1, 3, NULL); /* floor(11/3) */
    check_stmt(o, 5, SEARCH_STMT_AFTER, 1, 1, 10, NULL);
    check_stmt(o, 6, SEARCH_STMT_AFTER, 1, 1, 0, NULL);
    check_stmt(o, 7, SEARCH_STMT_AFTER, 1, 1, 0, NULL);
    check_stmt(o, 8, SEARCH_STMT_AFTER, 2, 2, 0, "()");
    /* recv at 7: its windows hold every computation event; the saving is
     * bounded by the call's time */
    o = find_ov(r, 11);
    check_ov(o, 1, 1, 0, 60, 11 + 10 + 400, 60, 8);
    check_stmt(o, 9, SEARCH_STMT_AFTER, 4, 4, 400, "()");
    /* recv at 14: back stops at the send (anti): {6,8,10,12,13}, 10 ns;
     * fwd {15,16} */
    o = find_ov(r, 12);
    check_ov(o, 1, 1, 0, 100, 10 + 200, 100, 5);
    check_stmt(o, 9, SEARCH_STMT_AFTER, 2, 4, 200, "()");
    /* leads: the recv at 14 can start at event 6, which starts its gap
     * (t_exit 1030 of the send before it): 1500 - 1030 = 470 ns earlier,
     * and wait after its forward window's 200 ns; the windows of the send
     * at 5 and the recv at 7 start at event 0, before the first MPI event:
     * no known time, no lead, but their forward windows' time (the send's
     * statements after it: 10 ns; the recv's: 400) */
    assert_int_equal(o->nleads, 1);
    assert_int_equal(o->leads[0].index, 14);
    assert_int_equal(o->leads[0].span_ns, 470);
    assert_int_equal(o->leads[0].after_ns, 200);
    assert_int_equal(find_ov(r, 10)->nleads, 1);
    assert_int_equal(find_ov(r, 10)->leads[0].span_ns, 0);
    assert_int_equal(find_ov(r, 10)->leads[0].after_ns, 10);
    assert_int_equal(find_ov(r, 11)->nleads, 1);
    assert_int_equal(find_ov(r, 11)->leads[0].span_ns, 0);
    assert_int_equal(find_ov(r, 11)->leads[0].after_ns, 400);
    search_rank_result_free(r);
}

/* Weights split a gap unevenly: events of weight k among a gap's events
 * of weight W are worth floor(d*k/W), and an event starts at t_exit of the
 * MPI event before its gap plus floor(d*(weight before it)/W).
 *  0 Recv s11 W [0,8) 1000..1100
 *  1 s1 weight 2 W [100,8) (trivial)   2..5 s2 weight 100 W [108 + 8j, 8)
 *  6 s3 weight 3 R [0,8) W [200,8)     7 Send s10 R [108,8) 2000..2010
 * Gap [1..6]: d = 900, W = 405.  recv: fwd {1..5} (6 reads the message):
 * floor(900*402/405) = 893; s1 floor(1800/405) = 4, s2 floor(360000/405)
 * = 888 (the even split would give s1 150).  send: back {3..6} (2 wrote
 * its buffer): floor(900*303/405) = 673; s2 floor(270000/405) = 666, s3
 * floor(2700/405) = 6; its lead: 3 starts at 1100 + floor(900*102/405) =
 * 1326, so 2000 - 1326 = 674.  Both engines give the same. */
static void test_weighted_gap_times(void **state)
{
    static struct seq s;
    struct search_rank_result *r, *rs;
    const struct search_overlap *o;
    struct search_opts so = { .engine = SEARCH_ENGINE_STREAMING };
    const struct search_engine_ops *ops;
    void *st;
    char why[256];

    (void)state;
    memset(&s, 0, sizeof(s));
    recv(&s, 11, 1, 1, 0, 8, 1000, 1100);
    comp(&s, 1, 0, 0, 100, 8)->weight = 2;
    for (uint64_t j = 0; j < 4; j++)
        comp(&s, 2, 0, 0, 108 + 8 * j, 8)->weight = 100;
    comp(&s, 3, 0, 8, 200, 8)->weight = 3;
    send(&s, 10, 1, 1, 108, 8, 2000, 2010);
    r = run_ref(&s, 0, 0);

    o = find_ov(r, 11);
    check_ov(o, 1, 1, 0, 100, 893, 100, 2);
    check_stmt(o, 1, SEARCH_STMT_AFTER, 1, 1, 4, "()");
    check_stmt(o, 2, SEARCH_STMT_AFTER, 4, 4, 888, "()");
    o = find_ov(r, 10);
    check_ov(o, 1, 1, 0, 10, 673, 10, 2);
    check_stmt(o, 2, SEARCH_STMT_BEFORE, 3, 4, 666, "()");
    check_stmt(o, 3, SEARCH_STMT_BEFORE, 1, 1, 6, "()");
    assert_int_equal(o->nleads, 1);
    assert_int_equal(o->leads[0].index, 7);
    assert_int_equal(o->leads[0].span_ns, 674);

    assert_int_equal(search_stream_create(&so, 3, &st, &ops), 0);
    for (size_t i = 0; i < s.n; i++)
        assert_int_equal(ops->feed(st, &s.ev[i]), 0);
    assert_int_equal(ops->finish(st, &rs), 0);
    if (!search_rank_result_equal(r, rs, why, sizeof(why)))
        fail_msg("streaming and reference engines differ: %s", why);
    search_rank_result_free(rs);
    search_rank_result_free(r);
}

/* ---- message aggregation -------------------------------------------------------------- */

/* The paper's Fig. 6 situation: send B joins A's group only because
 * pre-processing moves it before the write that ends the group.
 *  0 s1 W [0,8)  1 Send A s10 d1 R [0,8)  2 s3 W [16,24)  3 s2 W [0,8)
 *  4 Send B s11 d1 R [16,24)
 * ea(A) = 0, ea(B) = max(2, ea(A)) = 2: order 0 A 2 B 3; A's group takes B
 * and is closed by 3 (anti dependence on A's buffer).  In trace order 3
 * would close it before B. */
static void test_fig6_preprocessing(void **state)
{
    static struct seq s;
    struct search_rank_result *r;

    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 0, 8);
    send(&s, 10, 1, 1, 0, 8, 100, 110);
    comp(&s, 3, 0, 0, 16, 8);
    comp(&s, 2, 0, 0, 0, 8);
    send(&s, 11, 1, 1, 16, 16, 200, 230);
    r = run_ref(&s, 0, 0);
    assert_int_equal(r->ngroups, 1);
    check_group(&r->groups[0], 1, 1, "10,11", 1, 2, 24, 40, 2, 2);
    /* sizes 8 and 16, times 10 and 30: small messages, so the fastest send */
    assert_true(r->msg_latency_ns == 10.0);
    search_rank_result_free(r);
}

/* A send whose buffer is overwritten before the next send to the same rank
 * is merged with it only if each gets its own buffer: the group needs a
 * buffer per message, with the first send's site and the overwriting
 * statement's (docs/dependence.md, "Needs a buffer per message").
 *  0 s1 W [0,8)  1 Send s10 d1 R [0,8)  2 s2 W [0,8)  3 Send s10 d1 R [0,8)
 *  4 Send s12 d3 R [64,72) */
static void test_overwritten_needs_buffer(void **state)
{
    static struct seq s;
    struct search_rank_result *r;

    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 0, 8);
    send(&s, 10, 1, 1, 0, 8, 100, 110);
    comp(&s, 2, 0, 0, 0, 8);
    send(&s, 10, 1, 1, 0, 8, 200, 210);
    send(&s, 12, 1, 3, 64, 8, 300, 310);
    r = run_ref(&s, 0, 0);
    assert_int_equal(r->ngroups, 1);
    check_group(&r->groups[0], 1, 1, "10", 1, 2, 16, 20, 2, 2);
    assert_true(r->groups[0].needs_buffer);
    assert_int_equal(r->groups[0].buf_site, 10);
    assert_int_equal(r->groups[0].over_site, 2);
    search_rank_result_free(r);
}

/* Sends from distinct buffers make the group they always made, without
 * the flag; a send whose buffer is computed from what a receive brought
 * (a flow dependence) is never merged, and an overwrite after a call that
 * may wait for another rank closes the group as before.
 *  0 s1 W [0,16)  1 Send s10 d1 R [0,8)  2 Send s11 d1 R [8,16)
 *  3 Recv s20 from 1 W [32,40)  4 s3 R [32,40) W [0,8)  5 Send s12 d1 R [0,8) */
static void test_buffer_flow_not_merged(void **state)
{
    static struct seq s;
    struct search_rank_result *r;

    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 0, 16);
    send(&s, 10, 1, 1, 0, 8, 100, 110);
    send(&s, 11, 1, 1, 8, 8, 200, 210);
    recv(&s, 20, 1, 1, 32, 8, 300, 310);
    comp(&s, 3, 32, 8, 0, 8);
    send(&s, 12, 1, 1, 0, 8, 400, 410);
    r = run_ref(&s, 0, 0);
    assert_int_equal(r->ngroups, 1);
    check_group(&r->groups[0], 1, 1, "10,11", 1, 2, 16, 20, 2, 2);
    assert_false(r->groups[0].needs_buffer);
    assert_int_equal(r->groups[0].buf_site, CHT_NONE);
    search_rank_result_free(r);
}

/* Sends to two ranks interleaved form two groups, one per channel; the
 * groups of three iterations are summarised per (comm, dest, sites).
 *  per iteration: s1 W [0,32), Send s10 d1, Send s11 d2, Send s12 d1,
 *  Send s13 d2 (disjoint 8-byte blocks), then in iteration 3 one more
 *  Send s12 d1; a fence ends every iteration. */
static void test_two_destinations(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    uint64_t t = 100;

    memset(&s, 0, sizeof(s));
    for (int it = 0; it < 3; it++) {
        comp(&s, 1, 0, 0, 0, 40);
        send(&s, 10, 1, 1, 0, 8, t, t + 10), t += 20;
        send(&s, 11, 1, 2, 8, 8, t, t + 10), t += 20;
        send(&s, 12, 1, 1, 16, 8, t, t + 10), t += 20;
        send(&s, 13, 1, 2, 24, 8, t, t + 10), t += 20;
        if (it == 2)
            send(&s, 12, 1, 1, 32, 4, t, t + 10), t += 20;
        fence(&s, 100, CHT_MPI_COMM_DUP, t, t + 1), t += 20;
    }
    /* and one send to rank 5 on another communicator: a group of one */
    send(&s, 14, 7, 5, 0, 8, t, t + 10);
    r = run_ref(&s, 0, 0);
    assert_int_equal(r->ngroups, 2);
    check_group(&r->groups[0], 1, 1, "10,12", 3, 7, 6 * 8 + 4, 70, 2, 3);
    check_group(&r->groups[1], 1, 2, "11,13", 3, 6, 48, 60, 2, 2);
    /* sizes 8 and 4: slope 0 (all sends take 10 ns), intercept 10 */
    assert_true(r->msg_latency_ns == 10.0);
    search_rank_result_free(r);
}

/* The pre-processed order puts a send that depends on nothing at the very
 * front, and a send that depends on an earlier send moves with it.
 *  0 s1 W [0,8)  1 Send s10 d1 R [0,8)  2 s2 W [0,8)  3 Send s11 d2 R [8,16)
 *  4 Send s12 d2 R [16,24)  5 s3 W [8,24)
 * ea(3) = -1, ea(4) = ea(3) = -1: order 3 4 0 1 2 5: {3,4} merged (closed by
 * 5), 1 alone (2 closes it). */
static void test_anchor_front(void **state)
{
    static struct seq s;
    struct search_rank_result *r;

    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 0, 8);
    send(&s, 10, 1, 1, 0, 8, 100, 110);
    comp(&s, 2, 0, 0, 0, 8);
    send(&s, 11, 1, 2, 8, 8, 200, 210);
    send(&s, 12, 1, 2, 16, 8, 300, 310);
    comp(&s, 3, 0, 0, 8, 16);
    r = run_ref(&s, 0, 0);
    assert_int_equal(r->ngroups, 1);
    check_group(&r->groups[0], 1, 2, "11,12", 1, 2, 16, 20, 2, 2);
    search_rank_result_free(r);
}

/* No send moves earlier across a blocking call that may wait for another
 * rank (receive, Sendrecv, collective, barrier, probe, completing
 * Wait/Test); a group may delay a send past one, and records it for the
 * cross-rank deadlock check.  Nonblocking starts and calls of role OTHER
 * do not block.
 *  0 s1 W [0,16)  1 Send s10 d1 R [0,8)  2 <call>  3 Send s12 d1 R [8,16)
 * Blocking call: ea(3) = 2, {1,3} sent after event 2, delaying 1 past it:
 * a check {members 1, 3; crossed 2}.  Otherwise ea(3) = 0: no check. */
static void test_blocking_calls(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    struct dg_event *e;
    static const struct {
        uint8_t role;
        uint16_t call;
        uint32_t cls;
        uint64_t checks;
    } cases[] = {
        { DG_ROLE_RECV, CHT_MPI_RECV, DG_KEY_RECV, 1 },
        { DG_ROLE_SENDRECV, CHT_MPI_SENDRECV, DG_KEY_RECV, 1 },
        { DG_ROLE_COLL, CHT_MPI_ALLREDUCE, DG_KEY_COLL, 1 },
        { DG_ROLE_SYNC, CHT_MPI_BARRIER, DG_KEY_COLL, 1 },
        { DG_ROLE_PROBE, CHT_MPI_PROBE, DG_KEY_RECV, 1 },
        { DG_ROLE_COMPLETE, CHT_MPI_WAIT, DG_KEY_REQ, 1 },
        { DG_ROLE_START, CHT_MPI_IRECV, DG_KEY_RECV, 0 },
        { DG_ROLE_OTHER, CHT_MPI_TEST, 0, 0 },
    };

    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        memset(&s, 0, sizeof(s));
        comp(&s, 1, 0, 0, 0, 16);
        send(&s, 10, 1, 1, 0, 8, 100, 110);
        e = mpi(&s, 11, cases[c].role, cases[c].call, 200, 300);
        if (cases[c].cls)
            key(&s, e, cases[c].cls, 1, 2);
        if (cases[c].role != DG_ROLE_PROBE && cases[c].role != DG_ROLE_OTHER)
            range(&s, e, 32, 8, true);
        send(&s, 12, 1, 1, 8, 8, 400, 410);
        r = run_ref(&s, 0, 0);
        if (r->ngroups != 1 || r->nchecks != cases[c].checks)
            fail_msg("role %s: %" PRIu32 " groups and %" PRIu32 " checks, expected 1 and %" PRIu64,
                     dg_role_name(cases[c].role), r->ngroups, r->nchecks, cases[c].checks);
        check_group(&r->groups[0], 1, 1, "10,12", 1, 2, 16, 20, 2, 2);
        if (r->nchecks) {
            const struct search_group_check *k = &r->checks[0];
            assert_int_equal(k->group, 0);
            assert_int_equal(k->nmembers, 2);
            assert_int_equal(k->members[0], 1);
            assert_int_equal(k->members[1], 3);
            assert_int_equal(k->ncross, 1);
            assert_int_equal(k->cross[0], 2);
        }
        search_rank_result_free(r);
    }

    /* sends after a receive are not moved before it, but still merge:
     *  0 s1 W [0,8)  1 Recv s11  2 s2 W [8,16)  3 Send s13 d1 R [16,24)
     *  4 Send s14 d1 R [8,16)
     * ea(3) = 1, ea(4) = 2: order 0 1 3 2 4, {3,4}.  (Were send 3 moved
     * to the front, the receive would close its group.) */
    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 0, 8);
    recv(&s, 11, 1, 2, 32, 8, 100, 200);
    comp(&s, 2, 0, 0, 8, 8);
    send(&s, 13, 1, 1, 16, 8, 300, 305);
    send(&s, 14, 1, 1, 8, 8, 310, 315);
    r = run_ref(&s, 0, 0);
    assert_int_equal(r->ngroups, 1);
    check_group(&r->groups[0], 1, 1, "13,14", 1, 2, 16, 10, 2, 2);
    search_rank_result_free(r);
}

/* ---- boxes, cost, comparison ------------------------------------------------------------ */

static void add_vec(struct search_boxes *b, unsigned max, uint32_t depth, ...)
{
    struct trace_iter it[16];
    va_list ap;

    va_start(ap, depth);
    for (uint32_t k = 0; k < depth; k++) {
        it[k].loop = k + 1;
        it[k].reserved = 0;
        it[k].iter = va_arg(ap, uint64_t);
    }
    va_end(ap);
    assert_int_equal(search_boxes_add(b, depth, it, max), 0);
}

#define U(x) ((uint64_t)(x))

static void test_boxes(void **state)
{
    struct search_boxes b = { 0 };
    struct trace_iter deep[10];
    char buf[64];

    /* the first ten iterations of the innermost of three loops */
    for (uint64_t j = 1; j <= 10; j++)
        add_vec(&b, 8, 3, U(1), U(1), j);
    assert_int_equal(b.n, 1);
    assert_string_equal(search_box_format(&b.box[0], buf, sizeof(buf)), "(1, 1, 1..10)");
    /* the next row: a new box, which merges into the first once complete */
    for (uint64_t j = 1; j <= 9; j++)
        add_vec(&b, 8, 3, U(1), U(2), j);
    assert_string_equal(boxes_text(&b), "(1, 1, 1..10) (1, 2, 1..9)");
    add_vec(&b, 8, 3, U(1), U(2), U(10));
    assert_string_equal(boxes_text(&b), "(1, 1..2, 1..10)");
    /* a different depth or loop does not merge */
    add_vec(&b, 8, 2, U(1), U(3));
    assert_string_equal(boxes_text(&b), "(1, 1..2, 1..10) (1, 3)");
    b.box[0].dim[0].line = 42; /* lines are not compared */
    search_boxes_free(&b);
    assert_int_equal(b.n, 0);

    /* two levels changing at once do not merge; a repeat is a new box */
    add_vec(&b, 8, 2, U(1), U(1));
    add_vec(&b, 8, 2, U(2), U(2));
    add_vec(&b, 8, 2, U(2), U(2));
    assert_string_equal(boxes_text(&b), "(1, 1) (2, 2) (2, 2)");
    search_boxes_free(&b);

    /* the `more` counter: max 2 */
    add_vec(&b, 2, 1, U(1));
    add_vec(&b, 2, 1, U(3));
    add_vec(&b, 2, 1, U(5));
    add_vec(&b, 2, 1, U(7));
    assert_string_equal(boxes_text(&b), "(1) (3) +2");
    add_vec(&b, 2, 1, U(4)); /* continues the last box: still fits */
    assert_string_equal(boxes_text(&b), "(1) (3..4) +2");
    add_vec(&b, 2, 1, U(2)); /* would continue the first box only: counted */
    assert_string_equal(boxes_text(&b), "(1) (3..4) +3");
    search_boxes_free(&b);

    /* consecutive iterations of one loop make one box */
    add_vec(&b, 8, 1, U(1));
    add_vec(&b, 8, 1, U(2));
    add_vec(&b, 8, 1, U(3));
    assert_string_equal(boxes_text(&b), "(1..3)");
    search_boxes_free(&b);

    /* depth 0: one box, repeats are not counted */
    add_vec(&b, 1, 0);
    add_vec(&b, 1, 0);
    assert_string_equal(boxes_text(&b), "()");
    add_vec(&b, 1, 1, U(4));
    add_vec(&b, 1, 0);
    assert_string_equal(boxes_text(&b), "() +1");
    search_boxes_free(&b);
    add_vec(&b, 3, 1, U(4));
    add_vec(&b, 3, 0);
    add_vec(&b, 3, 1, U(5));
    add_vec(&b, 3, 0);
    assert_string_equal(boxes_text(&b), "(4) () (5)");
    search_boxes_free(&b);

    /* deeper than SEARCH_BOX_DEPTH: the innermost levels are kept */
    for (uint32_t k = 0; k < 10; k++) {
        deep[k].loop = 100 + k;
        deep[k].iter = k + 1;
    }
    assert_int_equal(search_boxes_add(&b, 10, deep, 8), 0);
    assert_int_equal(b.box[0].depth, SEARCH_BOX_DEPTH);
    assert_int_equal(b.box[0].dim[0].loop, 102);
    assert_string_equal(boxes_text(&b), "(3, 4, 5, 6, 7, 8, 9, 10)");
    deep[9].iter = 11;
    assert_int_equal(search_boxes_add(&b, 10, deep, 8), 0);
    assert_string_equal(boxes_text(&b), "(3, 4, 5, 6, 7, 8, 9, 10..11)");

    /* equality: ranges and more, not lines */
    {
        struct search_boxes c = { 0 };
        deep[9].iter = 10;
        assert_int_equal(search_boxes_add(&c, 10, deep, 8), 0);
        assert_false(search_boxes_equal(&b, &c));
        deep[9].iter = 11;
        assert_int_equal(search_boxes_add(&c, 10, deep, 8), 0);
        c.box[0].dim[3].line = 7;
        assert_true(search_boxes_equal(&b, &c));
        c.more = 1;
        assert_false(search_boxes_equal(&b, &c));
        search_boxes_free(&c);
    }
    search_boxes_free(&b);

    /* small buffers are cut, never overrun */
    add_vec(&b, 8, 3, U(1), U(1), U(1));
    add_vec(&b, 8, 3, U(1), U(1), U(2));
    assert_string_equal(search_box_format(&b.box[0], buf, 6), "(1, 1");
    search_boxes_free(&b);
}

static void test_msgcost(void **state)
{
    struct search_msgcost m;

    memset(&m, 0, sizeof(m));
    assert_true(search_msgcost_latency(&m) == 0.0);
    /* one message size: the fastest send */
    search_msgcost_add(&m, 64, 900);
    search_msgcost_add(&m, 64, 700);
    search_msgcost_add(&m, 64, 800);
    assert_true(search_msgcost_latency(&m) == 700.0);
    search_msgcost_add(&m, 1u << 20, 2000000); /* big message size, very slow */
    assert_true(search_msgcost_latency(&m) >= 0.0 && search_msgcost_latency(&m) <= 700.0);

    /* exact line: 1000 + bytes, from 2000 bytes on: the bytes are subtracted */
    memset(&m, 0, sizeof(m));
    search_msgcost_add(&m, 2000, 3000);
    search_msgcost_add(&m, 3000, 4000);
    search_msgcost_add(&m, 4000, 5000);
    assert_true(search_msgcost_latency(&m) > 999.999 && search_msgcost_latency(&m) < 1000.001);
    /* bytes of the fastest send cost more than it took: 0 */
    memset(&m, 0, sizeof(m));
    search_msgcost_add(&m, 2000, 100);
    search_msgcost_add(&m, 4000, 300);
    assert_true(search_msgcost_latency(&m) == 0.0);
    /* below 1 KiB the bytes are not subtracted: the fastest send */
    memset(&m, 0, sizeof(m));
    search_msgcost_add(&m, 100, 100);
    search_msgcost_add(&m, 200, 300);
    assert_true(search_msgcost_latency(&m) == 100.0);
    /* intercept above the fastest send */
    memset(&m, 0, sizeof(m));
    search_msgcost_add(&m, 100, 500);
    search_msgcost_add(&m, 200, 400);
    assert_true(search_msgcost_latency(&m) == 400.0);
    /* large equal sizes: rounding noise is not a spread */
    memset(&m, 0, sizeof(m));
    for (int k = 0; k < 1000; k++)
        search_msgcost_add(&m, 123456789, 5000 + (uint64_t)k);
    assert_true(search_msgcost_latency(&m) == 5000.0);
}

static void test_result_equal(void **state)
{
    static struct seq s;
    struct search_rank_result *a, *b;
    char why[256];

    build_jacobi(&s);
    a = run_ref(&s, 0, 0);
    b = run_ref(&s, 0, 0);
    assert_true(search_rank_result_equal(a, b, why, sizeof(why)));
    assert_string_equal(why, "");

    /* engine facts and lines are not compared */
    b->peak_bytes++;
    b->cut_short = true;
    b->overlaps[0].stmts[0].iters.box[0].dim[0].line = 99;
    assert_true(search_rank_result_equal(a, b, why, sizeof(why)));

    b->overlaps[0].stmts[1].events++;
    assert_false(search_rank_result_equal(a, b, why, sizeof(why)));
    assert_string_equal(why, "overlap site=10 stmt site=3: events 4 != 5");
    b->overlaps[0].stmts[1].events--;

    /* overlaps[1] is the send's needs-buffer variant */
    b->overlaps[2].stmts[2].iters.box[0].dim[1].hi = 3;
    assert_false(search_rank_result_equal(a, b, why, sizeof(why)));
    assert_string_equal(why, "overlap site=11 stmt site=3 iters box 0: (1..2, 1..2) != (1..2, 1..3)");
    b->overlaps[2].stmts[2].iters.box[0].dim[1].hi = 2;

    b->overlaps[2].truncated = 1;
    assert_false(search_rank_result_equal(a, b, why, sizeof(why)));
    assert_string_equal(why, "overlap site=11: truncated 0 != 1");
    b->overlaps[2].truncated = 0;

    b->overlaps[1].over_site = 2;
    assert_false(search_rank_result_equal(a, b, why, sizeof(why)));
    assert_string_equal(why, "overlap site=10: over_site 1 != 2");
    b->overlaps[1].over_site = 1;
    b->overlaps[1].needs_buffer = false;
    assert_false(search_rank_result_equal(a, b, why, sizeof(why)));
    assert_string_equal(why, "overlap 1: site=10 needs_buffer=1 != site=10 needs_buffer=0");
    b->overlaps[1].needs_buffer = true;

    b->noverlaps = 2;
    assert_false(search_rank_result_equal(a, b, NULL, 0));
    assert_false(search_rank_result_equal(a, b, why, sizeof(why)));
    assert_string_equal(why, "noverlaps 3 != 2 (first extra site=11)");
    b->noverlaps = 3;

    b->msg_latency_ns = 21;
    assert_false(search_rank_result_equal(a, b, why, sizeof(why)));
    assert_string_equal(why, "msg_latency_ns 20 != 21");
    search_rank_result_free(b);

    /* groups */
    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 0, 8);
    send(&s, 10, 1, 1, 0, 8, 100, 110);
    send(&s, 12, 1, 1, 8, 8, 120, 130);
    search_rank_result_free(a);
    a = run_ref(&s, 0, 0);
    b = run_ref(&s, 0, 0);
    assert_int_equal(a->ngroups, 1);
    b->groups[0].bytes = 17;
    assert_false(search_rank_result_equal(a, b, why, sizeof(why)));
    assert_string_equal(why, "group comm=1 peer=1 sites=[10,12]: bytes 16 != 17");
    b->groups[0].bytes = 16;
    b->groups[0].sites[1] = 13;
    assert_false(search_rank_result_equal(a, b, why, sizeof(why)));
    assert_string_equal(why, "group comm=1 peer=1 sites=[10,12] != group comm=1 peer=1 sites=[10,13]");
    search_rank_result_free(a);
    search_rank_result_free(b);
    search_rank_result_free(NULL);
}

/* Events fed out of order are refused. */
static void test_feed_order(void **state)
{
    static struct seq s;
    struct search_opts o = { .engine = SEARCH_ENGINE_REFERENCE };
    const struct search_engine_ops *ops;
    void *st;

    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 0, 8);
    comp(&s, 1, 0, 0, 0, 8);
    assert_int_equal(search_reference_create(&o, 0, &st, &ops), 0);
    assert_int_equal(ops->feed(st, &s.ev[1]), TRACE_ERR_ARG);
    assert_int_equal(ops->feed(st, &s.ev[0]), 0);
    ops->destroy(st);
}

/* A larger sequence in the shape of a real trace: the reference must stay
 * fast when windows stop early (200k events in well under a few seconds). */
static void test_large(void **state)
{
    struct search_opts o = { .engine = SEARCH_ENGINE_REFERENCE };
    const struct search_engine_ops *ops;
    struct search_rank_result *r = NULL;
    struct dg_range rg[2];
    struct dg_key ky;
    struct trace_iter it;
    struct dg_event e;
    void *st;
    uint64_t idx = 0, steps = 20000;

    assert_int_equal(search_reference_create(&o, 0, &st, &ops), 0);
    for (uint64_t t = 0; t < steps; t++) {
        it.loop = 1;
        it.iter = t + 1;
        /* 8 computation events, a send and a recv */
        for (int k = 0; k < 10; k++) {
            memset(&e, 0, sizeof(e));
            e.index = idx++;
            e.depth = 1;
            e.iters = &it;
            e.ranges = rg;
            e.keys = &ky;
            e.peer = CHT_RANK_NONE;
            if (k < 8) {
                e.kind = DG_COMP;
                e.site = 1 + (uint32_t)k;
                rg[0] = (struct dg_range){ .addr = 64 + 8 * (uint64_t)k, .len = 8, .write = true };
                rg[1] = (struct dg_range){ .addr = 0, .len = 8, .write = false };
                e.nranges = k == 7 ? 2 : 1; /* the last reads the halo */
            } else {
                e.kind = DG_MPI;
                e.site = 10 + (uint32_t)k;
                e.t_enter = 1000 * t + 100 * (uint64_t)k;
                e.t_exit = e.t_enter + 50;
                e.nranges = 1;
                e.nkeys = 1;
                e.comm = 1;
                if (k == 8) {
                    e.role = DG_ROLE_SEND;
                    e.call = CHT_MPI_SEND;
                    e.peer = 1;
                    e.bytes = 8;
                    rg[0] = (struct dg_range){ .addr = 64, .len = 8, .write = false };
                    ky = (struct dg_key){ DG_KEY_SEND, 1, 1 };
                } else {
                    e.role = DG_ROLE_RECV;
                    e.call = CHT_MPI_RECV;
                    rg[0] = (struct dg_range){ .addr = 0, .len = 8, .write = true };
                    ky = (struct dg_key){ DG_KEY_RECV, 1, 1 };
                }
            }
            assert_int_equal(ops->feed(st, &e), 0);
        }
    }
    assert_int_equal(ops->finish(st, &r), 0);
    assert_int_equal(r->events, steps * 10);
    assert_int_equal(r->noverlaps, 3); /* the send's needs-buffer variant too */
    /* send: back {comps 2..8 of its step} (comp 1 writes its buffer) - 7 events;
     * fwd: recv, then comp 1 of the next step (anti): {} */
    assert_int_equal(r->overlaps[0].site, 18);
    assert_int_equal(r->overlaps[0].with_window, steps);
    assert_int_equal(r->overlaps[0].nstmts, 7);
    assert_string_equal(boxes_text(&r->overlaps[0].iters), "(1..20000)");
    assert_true(r->peak_bytes > 0);
    search_rank_result_free(r);
}

/* Exchanges (docs/dependence.md, "Exchanges"): two Sendrecv with the same
 * destination and source, and nothing between that uses the first, are
 * one group, recorded with the destination as peer; a statement reading
 * what the first received closes the group; another source, or a
 * receive from the same source between, keeps them apart.
 *  0 SR s10 d1<-1 R[0,8) W[64,72)  1 s1 W[200,208)  2 SR s11 d1<-1 R[8,16) W[72,80)
 *  3 SR s12 d1<-1 R[16,24) W[80,88)  4 s2 R[80,88) W[24,32)
 *  5 SR s13 d1<-1 R[24,32) W[88,96)  6 SR s14 d1<-2 R[32,40) W[96,104)
 *  7 Recv s15 <-1 W[300,308)  8 SR s16 d1<-1 R[40,48) W[104,112)
 *  9 Recv s17 <-2 W[310,318)  10 SR s18 d1<-1 R[48,56) W[112,120) */
static void test_exchanges(void **state)
{
    static struct seq s;
    struct search_rank_result *r;

    memset(&s, 0, sizeof(s));
    sendrecv(&s, 10, 1, 1, 1, 0, 8, 64, 8, 100, 110);
    comp(&s, 1, 0, 0, 200, 8);
    sendrecv(&s, 11, 1, 1, 1, 8, 8, 72, 8, 200, 220);
    sendrecv(&s, 12, 1, 1, 1, 16, 8, 80, 8, 300, 330);
    comp(&s, 2, 80, 8, 24, 8);
    sendrecv(&s, 13, 1, 1, 1, 24, 8, 88, 8, 400, 440);
    sendrecv(&s, 14, 1, 1, 2, 32, 8, 96, 8, 500, 550);
    recv(&s, 15, 1, 1, 300, 8, 600, 660);
    sendrecv(&s, 16, 1, 1, 1, 40, 8, 104, 8, 700, 770);
    recv(&s, 17, 1, 2, 310, 8, 800, 880);
    sendrecv(&s, 18, 1, 1, 1, 48, 8, 112, 8, 900, 990);
    r = run_ref(&s, 0, 0);
    /* {0,2,3} (4 reads what 3 received: closed); 5 alone (the receive at 7
     * from the same source closes it); {8,10}: crosses the receive at 9,
     * from another rank, so it leaves a check */
    assert_int_equal(r->ngroups, 2);
    check_group(&r->groups[0], 1, 1, "16,18", 1, 2, 16, 70 + 90, 2, 2); /* fewer sites first */
    check_group(&r->groups[1], 1, 1, "10,11,12", 1, 3, 24, 10 + 20 + 30, 3, 3);
    assert_int_equal(r->nchecks, 1);
    assert_int_equal(r->checks[0].group, 0);
    assert_int_equal(r->checks[0].nmembers, 2);
    assert_int_equal(r->checks[0].members[0], 8);
    assert_int_equal(r->checks[0].ncross, 1);
    assert_int_equal(r->checks[0].cross[0], 9);
    search_rank_result_free(r);
}

/* Nonblocking sends (docs/dependence.md, "Nonblocking sends"): two Isend
 * to rank 1 completed by one Waitall are one group (call MPI_Isend, peer
 * 1); two completed by one Wait each are not; nor are two with a blocking
 * send to the same rank between (it closes the group, and the second
 * Isend of the channel comes before the group's completion).
 *  0 Isend s20 d1 q1  1 Isend s21 d1 q2  2 Waitall q1 q2
 *  3 Isend s22 d1 q3  4 Isend s23 d1 q4  5 Wait q3  6 Wait q4
 *  7 Isend s24 d1 q5  8 Send s25 d1  9 Isend s26 d1 q6  10 Waitall q5 q6 */
static void test_isends(void **state)
{
    static struct seq s;
    struct search_rank_result *r;

    memset(&s, 0, sizeof(s));
    isend(&s, 20, 1, 1, 1, 0, 8, 100, 101);
    isend(&s, 21, 1, 1, 2, 8, 8, 200, 203);
    waitreq(&s, 30, 1, 2, 300, 400);
    isend(&s, 22, 1, 1, 3, 16, 8, 500, 501);
    isend(&s, 23, 1, 1, 4, 24, 8, 600, 601);
    waitreq(&s, 31, 3, 0, 700, 800);
    waitreq(&s, 32, 4, 0, 900, 950);
    isend(&s, 24, 1, 1, 5, 32, 8, 1000, 1001);
    send(&s, 25, 1, 1, 40, 8, 1100, 1110);
    isend(&s, 26, 1, 1, 6, 48, 8, 1200, 1201);
    waitreq(&s, 33, 5, 6, 1300, 1400);
    r = run_ref(&s, 0, 0);
    assert_int_equal(r->ngroups, 1);
    check_group(&r->groups[0], 1, 1, "20,21", 1, 2, 16, 1 + 3, 2, 2);
    assert_int_equal(r->groups[0].call, CHT_MPI_ISEND);
    assert_int_equal(r->nchecks, 0);
    search_rank_result_free(r);
}

/* ---- closed groups (docs/dependence.md, "What --explain says of closed groups") ---- */

/* Runs both engines on s, checks they agree, and returns the reference's
 * result. */
static struct search_rank_result *run_both(const struct seq *s)
{
    struct search_opts o = {.engine = SEARCH_ENGINE_STREAMING};
    const struct search_engine_ops *ops;
    struct search_rank_result *st = NULL, *ref = run_ref(s, 0, 0);
    char why[512] = "";
    void *state;

    assert_int_equal(search_stream_create(&o, 3, &state, &ops), 0);
    for (size_t i = 0; i < s->n; i++)
        assert_int_equal(ops->feed(state, &s->ev[i]), 0);
    assert_int_equal(ops->finish(state, &st), 0);
    if (!search_rank_result_equal(st, ref, why, sizeof why))
        fail_msg("engines differ: %s", why);
    search_rank_result_free(st);
    return ref;
}

/* Init, a write of [0, 8) (site 1), and a send of it (site 10) to rank 1. */
static void write_and_send(struct seq *s)
{
    memset(s, 0, sizeof(*s));
    fence(s, 100, CHT_MPI_INIT, 10, 20);
    comp(s, 1, 0, 0, 0, 8);
    send(s, 10, 1, 1, 0, 8, 100, 200);
}

/* r (freed) has no needs-buffer variant. */
static void no_variant(struct search_rank_result *r)
{
    for (uint32_t i = 0; i < r->noverlaps; i++)
        assert_false(r->overlaps[i].needs_buffer);
    search_rank_result_free(r);
}

/* The needs-buffer variant of overlap (docs/dependence.md, "Needs a buffer
 * per message"), both engines. */
static void test_overlap_needs_buffer(void **state)
{
    static struct seq s;
    struct search_rank_result *r;
    const struct search_overlap *o;

    /* build_jacobi: the forward window of send@3 ends at 8, which only
     * writes R1, its send buffer; with a buffer per message it runs to the
     * next send of the channel (10): {5..9}.  send@10's is the plain one
     * (the fence), so 1 of 2 instances grew: the variant is reported. */
    build_jacobi(&s);
    r = run_both(&s);
    assert_int_equal(r->noverlaps, 3);
    o = &r->overlaps[0];
    assert_int_equal(o->site, 10);
    assert_false(o->needs_buffer);
    check_ov(o, 2, 2, 0, 70, 160 + 240, 50 + 20, 3); /* the plain one as before */
    o = &r->overlaps[1];
    assert_int_equal(o->site, 10);
    assert_true(o->needs_buffer);
    assert_int_equal(o->over_site, 1);
    /* windows {2} + {5..9}: 40 + 200, {9} + {12,13,14}: 40 + 200 */
    check_ov(o, 2, 2, 0, 70, 240 + 240, 50 + 20, 4);
    assert_int_equal(o->nleads, r->overlaps[0].nleads);
    check_stmt(o, 1, SEARCH_STMT_AFTER, 1, 2, 40, "(2)");
    check_stmt(o, 2, SEARCH_STMT_BEFORE | SEARCH_STMT_AFTER, 2, 2, 80, "(1..2)");
    check_stmt(o, 3, SEARCH_STMT_AFTER, 4, 4, 213, "(1..2, 1..2)");
    check_stmt(o, 4, SEARCH_STMT_AFTER, 2, 2, 40 + 66, "(1..2)");
    assert_int_equal(r->overlaps[2].site, 11);
    assert_false(r->overlaps[2].needs_buffer);
    search_rank_result_free(r);

    /* distinct buffers: nothing overwrites the send buffer (a read of it
     * is no dependence), no variant */
    write_and_send(&s);
    comp(&s, 2, 0, 8, 8, 8);
    comp(&s, 3, 0, 0, 16, 8);
    fence(&s, 101, CHT_MPI_FINALIZE, 300, 310);
    r = run_both(&s);
    assert_int_equal(r->noverlaps, 1);
    no_variant(r);

    /* the buffer is overwritten by a receive, then the next send of the
     * channel: the longer window holds no computation, no variant */
    write_and_send(&s);
    recv(&s, 11, 1, 2, 0, 8, 200, 300);
    send(&s, 12, 1, 1, 0, 8, 300, 400);
    comp(&s, 2, 0, 8, 8, 8);
    fence(&s, 101, CHT_MPI_FINALIZE, 500, 510);
    no_variant(run_both(&s));

    /* the pack of the next message overwrites the staging buffer: the
     * variant names it, and its window reaches the wait-like receive */
    memset(&s, 0, sizeof(s));
    fence(&s, 100, CHT_MPI_INIT, 10, 20);
    comp(&s, 1, 32, 8, 0, 8);  /* pack field 1 */
    send(&s, 10, 1, 1, 0, 8, 100, 200);
    comp(&s, 1, 40, 8, 0, 8);  /* pack field 2: overwrites */
    comp(&s, 2, 48, 8, 48, 8); /* unrelated computation */
    recv(&s, 11, 1, 1, 56, 8, 300, 400);
    comp(&s, 3, 56, 8, 64, 8); /* reads what was received */
    fence(&s, 101, CHT_MPI_FINALIZE, 500, 510);
    r = run_both(&s);
    o = find_ov(r, 10);
    assert_false(o->needs_buffer);
    assert_int_equal(o->nstmts, 0); /* pack 1 writes the buffer, pack 2 overwrites it */
    o++;
    assert_int_equal(o->site, 10);
    assert_true(o->needs_buffer);
    assert_int_equal(o->over_site, 1);
    assert_int_equal(o->with_window, 1);
    assert_int_equal(o->nstmts, 3); /* pack 2, site 2, and site 3 past the receive */
    search_rank_result_free(r);
}

/* The one closed pair of r. */
static void check_closed(const struct search_rank_result *r, uint32_t site, uint32_t next, uint32_t close,
                         int why, uint32_t member, uint32_t aux, uint64_t count)
{
    assert_int_equal(r->nclosed, 1);
    const struct search_closed *c = &r->closed[0];
    if (c->site != site || c->next_site != next || c->close_site != close || c->why != why ||
        c->member_site != member || c->aux_site != aux || c->count != count)
        fail_msg("closed pair %u->%u at %u why %d member %u aux %u count %" PRIu64
                 ", expected %u->%u at %u why %d member %u aux %u count %" PRIu64,
                 c->site, c->next_site, c->close_site, c->why, c->member_site, c->aux_site, c->count, site, next,
                 close, why, member, aux, count);
}

/* A statement reading what an exchange received closes its group: a flow
 * dependence on that member.  Two iterations of
 *  SR s10 d1<-1 R[0,8) W[64,72)  s2 R[64,72) W[200,208)
 *  SR s11 d1<-1 R[8,16) W[72,80)  s3 R[72,80) W[208,216)
 * make the pairs 10 -> 11 (twice) and 11 -> 10 (once). */
static void test_closed_flow(void **state)
{
    static struct seq s;
    struct search_rank_result *r;

    memset(&s, 0, sizeof(s));
    for (int it = 0; it < 2; it++) {
        sendrecv(&s, 10, 1, 1, 1, 0, 8, 64, 8, 100, 110);
        comp(&s, 2, 64, 8, 200, 8);
        sendrecv(&s, 11, 1, 1, 1, 8, 8, 72, 8, 200, 220);
        comp(&s, 3, 72, 8, 208, 8);
    }
    r = run_both(&s);
    assert_int_equal(r->ngroups, 0);
    /* 10 -> 11 (closed at 2), 11 -> 10 (closed at 3), 10 -> 11 again */
    assert_int_equal(r->nclosed, 2);
    const struct search_closed *a = &r->closed[0], *b = &r->closed[1];
    assert_int_equal(a->site, 10);
    assert_int_equal(a->next_site, 11);
    assert_int_equal(a->close_site, 2);
    assert_int_equal(a->why, SEARCH_CLOSE_FLOW);
    assert_int_equal(a->member_site, 10);
    assert_int_equal(a->member_call, CHT_MPI_SENDRECV);
    assert_false(a->close_mpi);
    assert_int_equal(a->count, 2);
    assert_int_equal(b->site, 11);
    assert_int_equal(b->next_site, 10);
    assert_int_equal(b->close_site, 3);
    assert_int_equal(b->why, SEARCH_CLOSE_FLOW);
    assert_int_equal(b->count, 1);
    search_rank_result_free(r);
}

/* A fence between two sends to one rank: nothing moves across it.
 *  0 Send s10 d1 R[0,8)  1 fence s5  2 Send s11 d1 R[8,16) */
static void test_closed_fence(void **state)
{
    static struct seq s;
    struct search_rank_result *r;

    memset(&s, 0, sizeof(s));
    send(&s, 10, 1, 1, 0, 8, 100, 110);
    fence(&s, 5, CHT_MPI_UNTRACED, 200, 210);
    send(&s, 11, 1, 1, 8, 8, 300, 310);
    r = run_both(&s);
    assert_int_equal(r->ngroups, 0);
    check_closed(r, 10, 11, 5, SEARCH_CLOSE_FENCE, 10, CHT_NONE, 1);
    assert_true(r->closed[0].close_mpi);
    assert_int_equal(r->closed[0].close_call, CHT_MPI_UNTRACED);
    search_rank_result_free(r);
}

/* An Isend to the same rank between two sends: message order (SEND key).
 *  0 Send s10 d1 R[0,8)  1 Isend s20 d1 q1 R[16,24)  2 Send s11 d1 R[8,16)
 *  3 Wait q1 */
static void test_closed_send_key(void **state)
{
    static struct seq s;
    struct search_rank_result *r;

    memset(&s, 0, sizeof(s));
    send(&s, 10, 1, 1, 0, 8, 100, 110);
    isend(&s, 20, 1, 1, 1, 16, 8, 200, 201);
    send(&s, 11, 1, 1, 8, 8, 300, 310);
    waitreq(&s, 30, 1, 0, 400, 410);
    r = run_both(&s);
    assert_int_equal(r->ngroups, 0);
    check_closed(r, 10, 11, 20, SEARCH_CLOSE_SEND_KEY, 10, CHT_NONE, 1);
    assert_int_equal(r->closed[0].close_call, CHT_MPI_ISEND);
    search_rank_result_free(r);
}

/* A send buffer overwritten after the group passed a receive (which may
 * wait for another rank): the needs-buffer variant does not apply; and a
 * needs-buffer group closed by a receive.
 *  0 s1 W[0,8)  1 Send s10 d1 R[0,8)  2 Recv s15 <-2 W[100,108)
 *  3 s2 W[0,8)  4 Send s11 d1 R[0,8)
 *  5 s3 W[32,40)  6 Send s12 d4 R[32,40)  7 s4 W[32,40)
 *  8 Recv s16 <-2 W[100,108)  9 Send s13 d4 R[32,40) */
static void test_closed_buffer(void **state)
{
    static struct seq s;
    struct search_rank_result *r;

    memset(&s, 0, sizeof(s));
    comp(&s, 1, 0, 0, 0, 8);
    send(&s, 10, 1, 1, 0, 8, 100, 110);
    recv(&s, 15, 1, 2, 100, 8, 200, 210);
    comp(&s, 2, 0, 0, 0, 8);
    send(&s, 11, 1, 1, 0, 8, 300, 310);
    comp(&s, 3, 0, 0, 32, 8);
    send(&s, 12, 1, 4, 32, 8, 400, 410);
    comp(&s, 4, 0, 0, 32, 8);
    recv(&s, 16, 1, 2, 100, 8, 500, 510);
    send(&s, 13, 1, 4, 32, 8, 600, 610);
    r = run_both(&s);
    assert_int_equal(r->ngroups, 0);
    assert_int_equal(r->nclosed, 2);
    const struct search_closed *a = &r->closed[0], *b = &r->closed[1];
    assert_int_equal(a->site, 10);
    assert_int_equal(a->next_site, 11);
    assert_int_equal(a->close_site, 2);
    assert_int_equal(a->why, SEARCH_CLOSE_ANTI_WAITED);
    assert_int_equal(a->member_site, 10);
    assert_int_equal(a->aux_site, 15);
    assert_int_equal(a->aux_call, CHT_MPI_RECV);
    assert_int_equal(b->site, 12);
    assert_int_equal(b->next_site, 13);
    assert_int_equal(b->close_site, 16);
    assert_int_equal(b->why, SEARCH_CLOSE_NB_WAIT);
    assert_int_equal(b->member_site, 12);
    assert_int_equal(b->aux_site, 4);
    assert_false(b->aux_mpi);
    search_rank_result_free(r);
}

/* Nonblocking sends: a Wait that completes one member alone, then the
 * next Isend of the channel seeds its own group; a Waitall completing
 * both, likewise.
 *  0 Isend s20 d1 q1  1 Isend s21 d1 q2  2 Wait q1 s30  3 Wait q2 s31
 *  4 Isend s22 d1 q3  5 Waitall q3 s32  6 Isend s23 d1 q4  7 Wait q4 s33 */
static void test_closed_requests(void **state)
{
    static struct seq s;
    struct search_rank_result *r;

    memset(&s, 0, sizeof(s));
    isend(&s, 20, 1, 1, 1, 0, 8, 100, 101);
    isend(&s, 21, 1, 1, 2, 8, 8, 200, 201);
    waitreq(&s, 30, 1, 0, 300, 310);
    waitreq(&s, 31, 2, 0, 400, 410);
    isend(&s, 22, 1, 1, 3, 16, 8, 500, 501);
    waitreq(&s, 32, 3, 0, 600, 610);
    isend(&s, 23, 1, 1, 4, 24, 8, 700, 701);
    waitreq(&s, 33, 4, 0, 800, 810);
    r = run_both(&s);
    assert_int_equal(r->ngroups, 0);
    assert_int_equal(r->nclosed, 2);
    const struct search_closed *a = &r->closed[0], *b = &r->closed[1];
    assert_int_equal(a->site, 21);
    assert_int_equal(a->next_site, 22);
    assert_int_equal(a->close_site, 30);
    assert_int_equal(a->why, SEARCH_CLOSE_REQ_PART);
    assert_int_equal(a->member_site, 20);
    assert_int_equal(b->site, 22);
    assert_int_equal(b->next_site, 23);
    assert_int_equal(b->close_site, 32);
    assert_int_equal(b->why, SEARCH_CLOSE_REQ_ALL);
    search_rank_result_free(r);
}

/* At most SEARCH_CLOSED_MAX distinct pairs: the smallest, the rest counted.
 * Sends at sites 100.. to rank 1, each apart from the next by a fence at
 * site 5: 69 distinct pairs. */
static void test_closed_cap(void **state)
{
    static struct seq s;
    struct search_rank_result *r;

    memset(&s, 0, sizeof(s));
    for (uint32_t k = 0; k < 70; k++) {
        if (k)
            fence(&s, 5, CHT_MPI_UNTRACED, 10 * k + 3, 10 * k + 4);
        send(&s, 100 + k, 1, 1, 0, 8, 10 * k + 5, 10 * k + 6);
    }
    r = run_both(&s);
    assert_int_equal(r->nclosed, SEARCH_CLOSED_MAX);
    assert_int_equal(r->closed_more, 69 - SEARCH_CLOSED_MAX);
    assert_int_equal(r->closed[0].site, 100);
    assert_int_equal(r->closed[SEARCH_CLOSED_MAX - 1].site, 100 + SEARCH_CLOSED_MAX - 1);
    search_rank_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jacobi_halo),
        cmocka_unit_test(test_closed_flow),
        cmocka_unit_test(test_closed_fence),
        cmocka_unit_test(test_closed_send_key),
        cmocka_unit_test(test_closed_buffer),
        cmocka_unit_test(test_closed_requests),
        cmocka_unit_test(test_closed_cap),
        cmocka_unit_test(test_backward_last_writer),
        cmocka_unit_test(test_anti_output),
        cmocka_unit_test(test_fences),
        cmocka_unit_test(test_keys_sends),
        cmocka_unit_test(test_keys_recv_coll),
        cmocka_unit_test(test_wait_request),
        cmocka_unit_test(test_no_window),
        cmocka_unit_test(test_horizon),
        cmocka_unit_test(test_gap_times),
        cmocka_unit_test(test_weighted_gap_times),
        cmocka_unit_test(test_fig6_preprocessing),
        cmocka_unit_test(test_exchanges),
        cmocka_unit_test(test_isends),
        cmocka_unit_test(test_overwritten_needs_buffer), cmocka_unit_test(test_buffer_flow_not_merged),
        cmocka_unit_test(test_overlap_needs_buffer),
        cmocka_unit_test(test_two_destinations),
        cmocka_unit_test(test_anchor_front),
        cmocka_unit_test(test_blocking_calls),
        cmocka_unit_test(test_boxes),
        cmocka_unit_test(test_msgcost),
        cmocka_unit_test(test_result_equal),
        cmocka_unit_test(test_feed_order),
        cmocka_unit_test(test_large),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
