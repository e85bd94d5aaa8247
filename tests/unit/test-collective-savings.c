/* test-collective-savings.c - unit tests that pin the estimated saving of
 * every collective hint of search_collectives (search/collectives.c, the
 * model of docs/collectives.md, "Estimated saving"), on communicators of
 * 2 to 5 ranks where the rounding of log2 matters.
 *
 * The model, per instance of a pattern:
 *   wfree(r) = sum over rank r's MPI events in the instance (a Sendrecv's two
 *              records once) of min(t, fastest call of the record's class in
 *              the whole run), the class being kind (send or receive) and
 *              byte count within a factor of two;
 *   W        = max over ranks of wfree(r);
 *   F        = the fastest send or receive record of the instance, wait-free;
 *   S        = steps: ceil(log2 p) for broadcast, scatter, gather, reduce and
 *              allgather; 2 ceil(log2 p) for allreduce; for alltoall
 *              ceil(log2 p) with blocks up to 256 bytes, p - 1 above;
 *   saving   = max(0, W - S * F), summed over instances;
 *   comm_ns  = max over ranks of the measured time, summed over instances.
 * Repeated collectives: (N - 1) x the rank's fastest (measured) call of the
 * group, the largest over ranks.
 *
 * Every expected value below is that arithmetic, written out; call times
 * are chosen so that the busiest rank, the raw and wait-free times, the
 * fastest call and the number of steps all differ, so that a change to any
 * term of the model changes the result.  MPI logs are written by hand as in
 * test-collectives.c (site ids double as line numbers), with a world of
 * np ranks that is also the communicator.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "search-private.h"

#define MAXP 8
#define MAXSITE 200
#define FILE_C "/src/coll.c"

/* ---- site table: site id s is line s of coll.c ---------------------------------- */

static struct trace_site_info infos[MAXSITE];
static struct search_siteinfo sitetab[MAXSITE];

static int setup(void **state)
{
    for (uint32_t s = 0; s < MAXSITE; s++) {
        memset(&infos[s], 0, sizeof infos[s]);
        infos[s].id = s;
        infos[s].file = FILE_C;
        infos[s].func = "main";
        infos[s].line = s;
        infos[s].col = 5;
        infos[s].loop = CHT_NONE;
        sitetab[s] = (struct search_siteinfo){s, &infos[s]};
    }
    (void)state;
    return 0;
}

/* ---- a run of np ranks written by hand ------------------------------------------------ */

struct world {
    int np;
    struct search_rank_result res[MAXP];
    struct dg_mpilog logs[MAXP];
    uint64_t next_index[MAXP];
    uint64_t seq[MAXP][MAXP][8]; /* channel numbers: [src][dst][tag] */
    uint64_t rseq[MAXP][MAXP][8];
};

static struct world *w_new(int np)
{
    assert_true(np >= 1 && np <= MAXP);
    struct world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    w->np = np;
    for (int r = 0; r < np; r++) {
        w->res[r].rank = r;
        w->res[r].nsiteinfo = MAXSITE;
        w->res[r].siteinfo = sitetab;
        w->logs[r].rank = r;
        w->next_index[r] = 1;
    }
    return w;
}

static void w_free(struct world *w)
{
    for (int r = 0; r < w->np; r++)
        dg_mpilog_free(&w->logs[r]);
    free(w);
}

/* A new record of rank r at a fresh event index (10 apart), 1 us long
 * unless w_dur says otherwise; the communicator is the world. */
static struct dg_msgrec *w_rec(struct world *w, int r, uint32_t site, int kind, uint32_t *pos)
{
    struct dg_mpilog *g = &w->logs[r];
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 64;
        g->rec = realloc(g->rec, g->cap * sizeof *g->rec);
        assert_non_null(g->rec);
    }
    struct dg_msgrec *x = &g->rec[g->n];
    memset(x, 0, sizeof *x);
    if (pos)
        *pos = g->n;
    g->n++;
    x->index = w->next_index[r];
    w->next_index[r] += 10;
    x->site = site;
    x->kind = (uint8_t)kind;
    x->comm = 0;
    x->comm_size = (uint32_t)w->np;
    x->peer = -1;
    x->tag = -1;
    x->t_enter = x->index * 1000;
    x->t_exit = x->t_enter + 1000;
    return x;
}

/* The record at pos of rank r takes ns (both records of a Sendrecv). */
static void w_dur(struct world *w, int r, uint32_t pos, uint64_t ns)
{
    struct dg_mpilog *g = &w->logs[r];
    struct dg_msgrec *x = &g->rec[pos];
    x->t_exit = x->t_enter + ns;
    if (pos + 1 < g->n && g->rec[pos + 1].index == x->index)
        g->rec[pos + 1].t_exit = x->t_exit;
}

static uint32_t w_send(struct world *w, int r, uint32_t site, int dst, int tag, uint64_t buf, uint64_t bytes,
                       uint64_t version)
{
    uint32_t pos;
    struct dg_msgrec *x = w_rec(w, r, site, DG_MSG_SEND, &pos);
    x->call = CHT_MPI_SEND;
    x->role = DG_ROLE_SEND;
    x->peer = dst;
    x->tag = tag;
    x->seq = w->seq[r][dst][tag]++;
    x->buf = buf;
    x->bytes = bytes;
    x->version = version;
    return pos;
}

static uint32_t w_recv(struct world *w, int r, uint32_t site, int src, int tag, uint64_t buf, uint64_t bytes)
{
    uint32_t pos;
    struct dg_msgrec *x = w_rec(w, r, site, DG_MSG_RECV, &pos);
    x->call = CHT_MPI_RECV;
    x->role = DG_ROLE_RECV;
    x->flags = DG_MSGF_BLOCKS;
    x->peer = src;
    x->tag = tag;
    x->seq = w->rseq[src][r][tag]++;
    x->buf = buf;
    x->bytes = bytes;
    return pos;
}

/* A Sendrecv: a SEND and a RECV record of one event; returns the SEND's position. */
static uint32_t w_sendrecv(struct world *w, int r, uint32_t site, int dst, uint64_t sbuf, uint64_t sbytes,
                           uint64_t version, int src, uint64_t rbuf, uint64_t rbytes)
{
    uint32_t a = w_send(w, r, site, dst, 0, sbuf, sbytes, version);
    uint32_t b = w_recv(w, r, site, src, 0, rbuf, rbytes);
    struct dg_msgrec *x = &w->logs[r].rec[a], *y = &w->logs[r].rec[b];
    x->call = y->call = CHT_MPI_SENDRECV;
    x->role = y->role = DG_ROLE_SENDRECV;
    y->index = x->index;
    y->t_enter = x->t_enter;
    y->t_exit = x->t_exit;
    w->next_index[r] -= 10;
    return a;
}

/* The receive at rpos of rank r was first touched by statement `site`
 * (op, flags), which wrote [addr, addr + len), right after it. */
static void w_consume(struct world *w, int r, uint32_t rpos, uint32_t site, int op, uint32_t flags,
                      uint64_t addr, uint64_t len)
{
    struct dg_msgrec *x = &w->logs[r].rec[rpos];
    x->flags |= DG_MSGF_CONSUMED;
    struct dg_consumer c = {.index = x->index + 1, .addr = addr, .len = len, .pos = rpos, .site = site,
                            .flags = flags, .op = (uint8_t)op, .kind = DG_COMP};
    assert_int_equal(dg_mpilog_set_consumer(&w->logs[r], &c), 0);
}

static uint32_t w_coll(struct world *w, int r, uint32_t site, int call, int root, uint64_t seq, uint64_t buf,
                       uint64_t bytes, uint64_t rbuf, uint64_t rbytes, uint64_t version)
{
    uint32_t pos;
    struct dg_msgrec *x = w_rec(w, r, site, DG_MSG_COLL, &pos);
    x->call = (uint16_t)call;
    x->role = DG_ROLE_COLL;
    x->flags = DG_MSGF_BLOCKS | (r == root ? DG_MSGF_ROOT : 0);
    x->peer = root;
    x->seq = seq;
    x->buf = buf;
    x->bytes = bytes;
    x->rbuf = rbuf;
    x->rbytes = rbytes;
    x->version = version;
    x->dtype = CHT_DT_DOUBLE; /* one predefined datatype and operator unless a test says */
    x->mpi_op = CHT_OP_SUM;
    return pos;
}

static void w_search(struct world *w, struct search_hint **h, uint32_t *n)
{
    struct search_rank_result *by_rank[MAXP];
    const struct dg_mpilog *logs[MAXP];
    struct search_xrank x;
    memset(&x, 0, sizeof x);
    for (int r = 0; r < w->np; r++) {
        by_rank[r] = &w->res[r];
        logs[r] = &w->logs[r];
    }
    x.world_size = w->np;
    x.by_rank = by_rank;
    x.logs = logs;
    assert_int_equal(dg_match_build(logs, w->np, &x.match), 0);
    assert_int_equal(search_collectives(&x, h, n), 0);
    dg_match_destroy(x.match);
}

static void hints_free(struct search_hint *h, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        search_hint_clear(&h[i]);
    free(h);
}

/* Runs the search and checks it gives exactly one hint, of collective coll,
 * with this saving, comm_ns, root and message (NULL: not checked); frees
 * the world. */
static void expect_one(struct world *w, const char *coll, uint64_t saving_ns, uint64_t comm_ns, int root,
                       const char *message)
{
    struct search_hint *h;
    uint32_t n;
    w_search(w, &h, &n);
    for (uint32_t i = 0; n != 1 && i < n; i++)
        print_message("hint %u: %s: %s\n", i, h[i].collective, h[i].message);
    assert_int_equal(n, 1);
    if (strcmp(h[0].collective, coll) || h[0].saving_ns != saving_ns || h[0].comm_ns != comm_ns)
        print_message("got %s, saving %" PRIu64 " ns, comm %" PRIu64 " ns: %s\n", h[0].collective,
                      h[0].saving_ns, h[0].comm_ns, h[0].message);
    assert_int_equal(h[0].kind, SEARCH_HINT_COLLECTIVE);
    assert_string_equal(h[0].collective, coll);
    assert_int_equal(h[0].saving_ns, saving_ns);
    assert_int_equal(h[0].comm_ns, comm_ns);
    assert_int_equal(h[0].root, root);
    if (message)
        assert_string_equal(h[0].message, message);
    hints_free(h, n);
    w_free(w);
}

/* Runs the search and checks it gives one hint, of collective coll, with
 * these members, bytes and instances (matched, and in all); the world
 * stays the caller's. */
static void expect_counts(struct world *w, const char *coll, uint64_t members, uint64_t bytes,
                          uint64_t instances)
{
    struct search_hint *h;
    uint32_t n;
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, coll);
    assert_int_equal(h[0].members, members);
    assert_int_equal(h[0].bytes, bytes);
    assert_int_equal(h[0].with_window, instances);
    assert_int_equal(h[0].instances, instances);
    hints_free(h, n);
}

#define BUF(r) (0x100000ull * ((r) + 1)) /* each rank's memory */
#define SBUF(r) (BUF(r) + 0x8000)
#define RBUF(r) (BUF(r) + 0x9000)
#define ACC (BUF(0) + 0x4000)

/* ---- two ranks: no pattern ------------------------------------------------------------- */

static void test_two_ranks_no_hint(void **state)
{
    /* "Every pattern needs a communicator of 3 ranks or more: with 2, every
     * message is a broadcast": a send from 0 to 1 is not an MPI_Bcast */
    struct world *w = w_new(2);
    struct search_hint *h;
    uint32_t n;
    w_send(w, 0, 10, 1, 1, BUF(0), 64, 5);
    w_recv(w, 1, 20, 0, 1, BUF(1), 64);
    w_search(w, &h, &n);
    assert_int_equal(n, 0);
    hints_free(h, n);
    w_free(w);

    /* nor is an exchange of two blocks an MPI_Alltoall */
    w = w_new(2);
    w_sendrecv(w, 0, 60, 1, SBUF(0) + 32, 32, 1, 1, RBUF(0) + 32, 32);
    w_sendrecv(w, 1, 60, 0, SBUF(1), 32, 1, 0, RBUF(1), 32);
    w_search(w, &h, &n);
    assert_int_equal(n, 0);
    hints_free(h, n);
    w_free(w);
    (void)state;
}

/* ---- broadcast ------------------------------------------------------------------------- */

/* Root sends 64 bytes (one version) to every other rank from site 10, each
 * send taking 3 us; rank d receives at site 20 in recv_ns[d]. */
static void bcast_world(struct world *w, int root, const uint64_t *recv_ns)
{
    for (int d = 0; d < w->np; d++)
        if (d != root)
            w_dur(w, root, w_send(w, root, 10, d, 1, BUF(root), 64, 5), 3000);
    for (int d = 0; d < w->np; d++)
        if (d != root)
            w_dur(w, d, w_recv(w, d, 20, root, 1, BUF(d) + 0x1000, 64), recv_ns[d]);
}

static void test_bcast_saving_p3(void **state)
{
    /* classes: sends of 64 B fastest 3 us (only the root's); receives of 64 B
     * fastest 2 us (rank 1), so rank 2's 9 us receive counts 2 us.
     * W = root: 2 sends x 3 us = 6 us (ranks 1, 2: 2 us);
     * F = 2 us; S = ceil(log2 3) = 2; comm = max(6 us, 2 us, 9 us) = 9 us */
    static const uint64_t recv_ns[] = {0, 2000, 9000};
    struct world *w = w_new(3);
    bcast_world(w, 0, recv_ns);
    expect_one(
        w, "MPI_Bcast", 2 * 3000 - 2 * 2000, 9000, 0,
        "the MPI_Send calls at line 10 and the MPI_Recv calls at line 20 send the same bytes from the "
        "root to every rank: use MPI_Bcast (root = rank 0; ranks 0-2, 1 instance, est. saving 2.0 us)");
    w = w_new(3);
    bcast_world(w, 0, recv_ns);
    expect_counts(w, "MPI_Bcast", 2, 2 * 64, 1);
    w_free(w);
    (void)state;
}

static void test_bcast_saving_p4(void **state)
{
    /* W = root: 3 x 3 us = 9 us; receives capped at 2 us; F = 2 us;
     * S = ceil(log2 4) = 2 (not 3); comm = rank 3's 12 us receive */
    static const uint64_t recv_ns[] = {0, 2000, 2000, 12000};
    struct world *w = w_new(4);
    bcast_world(w, 0, recv_ns);
    expect_one(
        w, "MPI_Bcast", 3 * 3000 - 2 * 2000, 12000, 0,
        "the MPI_Send calls at line 10 and the MPI_Recv calls at line 20 send the same bytes from the "
        "root to every rank: use MPI_Bcast (root = rank 0; ranks 0-3, 1 instance, est. saving 5.0 us)");
    (void)state;
}

static void test_bcast_saving_p5(void **state)
{
    /* root 2: W = 4 x 3 us = 12 us; F = 2 us; S = ceil(log2 5) = 3;
     * comm = rank 4's 15 us receive */
    static const uint64_t recv_ns[] = {2000, 2000, 0, 2000, 15000};
    struct world *w = w_new(5);
    bcast_world(w, 2, recv_ns);
    expect_one(
        w, "MPI_Bcast", 4 * 3000 - 3 * 2000, 15000, 2,
        "the MPI_Send calls at line 10 and the MPI_Recv calls at line 20 send the same bytes from the "
        "root to every rank: use MPI_Bcast (root = rank 2; ranks 0-4, 1 instance, est. saving 6.0 us)");
    (void)state;
}

/* ---- allreduce: reduce into an accumulator, then broadcast it ---------------------------- */

/* Ranks 1..p-1 send 8 bytes to rank 0 (site 50, 1.5 us), which receives
 * them (site 51, 2.5 us) and adds each into ACC (site 52), then sends ACC
 * back (site 55, 1.5 us); rank 1 receives it in 1 us (site 56), the others
 * in 6 us. */
static struct world *allreduce_world(int p)
{
    struct world *w = w_new(p);
    for (int q = 1; q < p; q++)
        w_dur(w, q, w_send(w, q, 50, 0, 6, BUF(q) + 0x200, 8, 1), 1500);
    uint64_t last = 0;
    for (int q = 1; q < p; q++) {
        uint32_t rp = w_recv(w, 0, 51, q, 6, BUF(0) + 0x200, 8);
        w_consume(w, 0, rp, 52, CHT_SOP_FADD, CHT_SITEF_ACCUMULATE, ACC, 8);
        w_dur(w, 0, rp, 2500);
        last = dg_consumer_of(&w->logs[0], rp)->index;
    }
    for (int d = 1; d < p; d++) /* the accumulator, as left by the last addition */
        w_dur(w, 0, w_send(w, 0, 55, d, 7, ACC, 8, last + 1), 1500);
    for (int d = 1; d < p; d++)
        w_dur(w, d, w_recv(w, d, 56, 0, 7, BUF(d) + 0x300, 8), d == 1 ? 1000 : 6000);
    return w;
}

/* Classes: sends of 8 B fastest 1.5 us, receives of 8 B fastest 1 us
 * (rank 1's), so the root's receives count 1 us each.  W = root: (p - 1)
 * receives x 1 us + (p - 1) sends x 1.5 us = (p - 1) x 2.5 us (a worker:
 * 1.5 + 1 = 2.5 us); F = 1 us; S = 2 ceil(log2 p).  comm = the root's
 * (p - 1) x (2.5 + 1.5) us, against a worker's 1.5 + 6 = 7.5 us. */
static const char *const allreduce_msg =
    "the MPI_Send calls at lines 50, 55 and the MPI_Recv calls at lines 51, 56 combine a value from every "
    "rank into one accumulator at the root with line 52 (fadd) and send the result back to every rank: use "
    "MPI_Allreduce with MPI_SUM (root = rank 0; ";

static void test_allreduce_saving_p3(void **state)
{
    /* S = 2 x ceil(log2 3) = 4; comm = max(2 x 4 us, 7.5 us) */
    char msg[512];
    snprintf(msg, sizeof msg, "%sranks 0-2, 1 instance, est. saving 1.0 us)", allreduce_msg);
    expect_one(allreduce_world(3), "MPI_Allreduce", 2 * 2500 - 2 * 2 * 1000, 2 * 4000, 0, msg);
    (void)state;
}

static void test_allreduce_saving_p4(void **state)
{
    /* S = 2 x ceil(log2 4) = 4; comm = 3 x 4 us */
    char msg[512];
    snprintf(msg, sizeof msg, "%sranks 0-3, 1 instance, est. saving 3.5 us)", allreduce_msg);
    expect_one(allreduce_world(4), "MPI_Allreduce", 3 * 2500 - 2 * 2 * 1000, 3 * 4000, 0, msg);
    struct world *w = allreduce_world(4);
    expect_counts(w, "MPI_Allreduce", 3 + 3, 6 * 8, 1); /* 3 sends to the root, 3 back */
    w_free(w);
    (void)state;
}

static void test_allreduce_saving_p5(void **state)
{
    /* S = 2 x ceil(log2 5) = 6 (2 + ceil(log2 5) would be 5); comm = 4 x 4 us */
    char msg[512];
    snprintf(msg, sizeof msg, "%sranks 0-4, 1 instance, est. saving 4.0 us)", allreduce_msg);
    expect_one(allreduce_world(5), "MPI_Allreduce", 4 * 2500 - 2 * 3 * 1000, 4 * 4000, 0, msg);
    (void)state;
}

/* ---- alltoall --------------------------------------------------------------------------- */

static void test_alltoall_saving_sendrecv_p4(void **state)
{
    /* a Sendrecv per pair and step, 32 B blocks; rank 2's calls take 5 us,
     * the others' 1 us.  A Sendrecv is one event: counted once (its send
     * record, 1 us wait-free).  W = 3 events x 1 us = 3 us on every rank;
     * F = 1 us; S = ceil(log2 4) = 2 (32 B <= 256 B: Bruck);
     * comm = rank 2's 3 x 5 us */
    struct world *w = w_new(4);
    for (int r = 0; r < 4; r++)
        for (int i = 1; i < 4; i++) {
            int dst = (r + i) % 4, src = (r - i + 4) % 4;
            uint32_t sp = w_sendrecv(w, r, 60, dst, SBUF(r) + 32 * dst, 32, 1, src, RBUF(r) + 32 * src, 32);
            w_dur(w, r, sp, r == 2 ? 5000 : 1000);
        }
    expect_one(w, "MPI_Alltoall", 3 * 1000 - 2 * 1000, 3 * 5000, -1,
               "the MPI_Sendrecv calls at line 60 exchange a distinct block between every pair of ranks: use "
               "MPI_Alltoall (ranks 0-3, 1 instance, est. saving 1.0 us)");
    (void)state;
}

/* dft: for every other rank q, the lower of the pair sends first (sites
 * 61, 62), the higher receives first (63, 64); blocks of `bytes` into
 * slices in rank order.  Sends take 1 us, receives 2 us, but rank 1's
 * first receive 7 us (it waits). */
static struct world *alltoall_world(int p, uint64_t bytes)
{
    struct world *w = w_new(p);
    for (int r = 0; r < p; r++) {
        bool first = true;
        for (int q = 0; q < p; q++) {
            if (q == r)
                continue;
            uint32_t sp, rp;
            if (r < q) {
                sp = w_send(w, r, 61, q, 1, SBUF(r) + bytes * q, bytes, 1);
                rp = w_recv(w, r, 62, q, 1, RBUF(r) + bytes * q, bytes);
            } else {
                rp = w_recv(w, r, 63, q, 1, RBUF(r) + bytes * q, bytes);
                sp = w_send(w, r, 64, q, 1, SBUF(r) + bytes * q, bytes, 1);
            }
            w_dur(w, r, sp, 1000);
            w_dur(w, r, rp, r == 1 && first ? 7000 : 2000);
            first = false;
        }
    }
    return w;
}

/* In alltoall_world: every rank has p - 1 sends (1 us) and p - 1 receives
 * (2 us, rank 1's 7 us one capped at the fastest receive, 2 us):
 * W = (p - 1) x 3 us; F = 1 us (a send); comm = rank 1's (p - 1) x 3 us + 5 us. */

static void test_alltoall_saving_small_p3(void **state)
{
    /* 32 B: S = ceil(log2 3) = 2 */
    expect_one(
        alltoall_world(3, 32), "MPI_Alltoall", 2 * 3000 - 2 * 1000, 2 * 3000 + 5000, -1,
        "the MPI_Send calls at lines 61, 64 and the MPI_Recv calls at lines 62, 63 exchange a distinct "
        "block between every pair of ranks: use MPI_Alltoall (ranks 0-2, 1 instance, est. saving "
        "4.0 us)");
    (void)state;
}

static void test_alltoall_saving_small_p5(void **state)
{
    /* 32 B: S = ceil(log2 5) = 3 (not p - 1 = 4) */
    expect_one(alltoall_world(5, 32), "MPI_Alltoall", 4 * 3000 - 3 * 1000, 4 * 3000 + 5000, -1, NULL);
    struct world *w = alltoall_world(5, 32);
    expect_counts(w, "MPI_Alltoall", 5 * 4, 5 * 4 * 32, 1);
    w_free(w);
    (void)state;
}

static void test_alltoall_saving_large_p4(void **state)
{
    /* 512 B > 256 B: pairwise, S = p - 1 = 3 */
    expect_one(
        alltoall_world(4, 512), "MPI_Alltoall", 3 * 3000 - 3 * 1000, 3 * 3000 + 5000, -1,
        "the MPI_Send calls at lines 61, 64 and the MPI_Recv calls at lines 62, 63 exchange a distinct "
        "block between every pair of ranks: use MPI_Alltoall (ranks 0-3, 1 instance, est. saving "
        "6.0 us)");
    (void)state;
}

static void test_alltoall_saving_threshold(void **state)
{
    /* MPICH's short-message limit is inclusive: 256 B blocks still take
     * S = ceil(log2 4) = 2, 257 B blocks S = p - 1 = 3 */
    expect_one(alltoall_world(4, 256), "MPI_Alltoall", 3 * 3000 - 2 * 1000, 3 * 3000 + 5000, -1, NULL);
    expect_one(alltoall_world(4, 257), "MPI_Alltoall", 3 * 3000 - 3 * 1000, 3 * 3000 + 5000, -1, NULL);
    (void)state;
}

/* ---- scatter, gather, reduce, allgather ------------------------------------------------- */

static void test_scatter_saving_p3(void **state)
{
    /* root 0 sends 16 B slices 1, 2 (2 us each); rank 1 receives in 1 us,
     * rank 2 in 8 us.  Classes: sends of 16 B 2 us, receives 1 us.
     * W = root: 2 x 2 us; F = 1 us; S = ceil(log2 3) = 2;
     * comm = max(4 us, 8 us) */
    struct world *w = w_new(3);
    for (int d = 1; d < 3; d++)
        w_dur(w, 0, w_send(w, 0, 30, d, 4, BUF(0) + 16 * d, 16, 1), 2000);
    for (int d = 1; d < 3; d++)
        w_dur(w, d, w_recv(w, d, 31, 0, 4, BUF(d), 16), d == 1 ? 1000 : 8000);
    expect_one(w, "MPI_Scatter", 2 * 2000 - 2 * 1000, 8000, 0,
               "the MPI_Send calls at line 30 and the MPI_Recv calls at line 31 send distinct slices of one "
               "buffer from the root to every rank: use MPI_Scatter (root = rank 0; ranks 0-2, 1 instance, "
               "est. saving 2.0 us)");
    (void)state;
}

static void test_gather_saving_p5(void **state)
{
    /* ranks 1-4 send 24 B (1 us; rank 4's 3 us, capped at 1 us) to root 0,
     * which receives them into slices in 1.5, 1.5, 9 (waiting) and 1.5 us.
     * Classes: sends of 24 B 1 us, receives 1.5 us.
     * W = root: 4 x 1.5 us (the 9 us one capped); F = 1 us (a send);
     * S = ceil(log2 5) = 3; comm = the root's 3 x 1.5 us + 9 us */
    static const uint64_t recv_ns[] = {0, 1500, 1500, 9000, 1500};
    struct world *w = w_new(5);
    for (int q = 1; q < 5; q++)
        w_dur(w, q, w_send(w, q, 40, 0, 5, BUF(q), 24, 1), q == 4 ? 3000 : 1000);
    for (int q = 1; q < 5; q++)
        w_dur(w, 0, w_recv(w, 0, 41, q, 5, BUF(0) + 24 * q, 24), recv_ns[q]);
    expect_one(w, "MPI_Gather", 4 * 1500 - 3 * 1000, 3 * 1500 + 9000, 0,
               "the MPI_Send calls at line 40 and the MPI_Recv calls at line 41 receive a block from every "
               "rank into distinct slices of one buffer at the root: use MPI_Gather (root = rank 0; ranks "
               "0-4, 1 instance, est. saving 3.0 us)");
    (void)state;
}

/* Ranks 1, 2 send 8 B to root 0 (1 us), which receives them into one
 * buffer in recv_ns[0], recv_ns[1] and adds each into ACC. */
static void reduce_round(struct world *w, const uint64_t *recv_ns, uint64_t v)
{
    for (int q = 1; q < 3; q++)
        w_send(w, q, 50, 0, 6, BUF(q) + 0x200, 8, v);
    for (int q = 1; q < 3; q++) {
        uint32_t rp = w_recv(w, 0, 51, q, 6, BUF(0) + 0x200, 8);
        w_consume(w, 0, rp, 52, CHT_SOP_FADD, CHT_SITEF_ACCUMULATE, ACC, 8);
        w_dur(w, 0, rp, recv_ns[q - 1]);
    }
}

static void test_reduce_saving_p3(void **state)
{
    /* two rounds: the root's receives take 3 and 2 us, then 1.5 and 1.5 us.
     * The class of a receive of 8 B is capped at its fastest in the whole
     * run, 1.5 us (from the second round), in both instances.
     * Per instance: W = root: 2 x 1.5 us; F = 1 us (a send);
     * S = ceil(log2 3) = 2.  comm = (3 + 2) us + (1.5 + 1.5) us */
    static const uint64_t first[] = {3000, 2000}, second[] = {1500, 1500};
    struct world *w = w_new(3);
    reduce_round(w, first, 1);
    reduce_round(w, second, 2);
    expect_one(w, "MPI_Reduce", 2 * (2 * 1500 - 2 * 1000), (3000 + 2000) + (1500 + 1500), 0,
               "the MPI_Send calls at line 50 and the MPI_Recv calls at line 51 combine a value from every "
               "rank into one accumulator at the root with line 52 (fadd): use MPI_Reduce with MPI_SUM (root "
               "= rank 0; ranks 0-2, 2 instances, est. saving 2.0 us)");
    (void)state;
}

/* Every rank sends its 8 B block to every other rank (site 71, 1 us) and
 * receives theirs into slices (site 72, 2 us; the last rank's 5 us). */
static struct world *allgather_world(int p)
{
    struct world *w = w_new(p);
    for (int r = 0; r < p; r++)
        for (int d = 0; d < p; d++)
            if (d != r)
                w_send(w, r, 71, d, 0, RBUF(r) + 8 * r, 8, 1);
    for (int r = 0; r < p; r++)
        for (int q = 0; q < p; q++)
            if (q != r)
                w_dur(w, r, w_recv(w, r, 72, q, 0, RBUF(r) + 8 * q, 8), r == p - 1 ? 5000 : 2000);
    return w;
}

/* In allgather_world: W = (p - 1) x (1 + 2) us on every rank (the slow
 * receives capped at 2 us); F = 1 us; comm = the last rank's
 * (p - 1) x (1 + 5) us. */

static void test_allgather_saving_p3(void **state)
{
    /* S = ceil(log2 3) = 2 */
    expect_one(allgather_world(3), "MPI_Allgather", 2 * 3000 - 2 * 1000, 2 * 6000, -1,
               "the MPI_Send calls at line 71 and the MPI_Recv calls at line 72 pass every rank's block to "
               "every other rank: use MPI_Allgather (ranks 0-2, 1 instance, est. saving 4.0 us)");
    (void)state;
}

static void test_allgather_saving_p4(void **state)
{
    /* S = ceil(log2 4) = 2 */
    expect_one(allgather_world(4), "MPI_Allgather", 3 * 3000 - 2 * 1000, 3 * 6000, -1,
               "the MPI_Send calls at line 71 and the MPI_Recv calls at line 72 pass every rank's block to "
               "every other rank: use MPI_Allgather (ranks 0-3, 1 instance, est. saving 7.0 us)");
    struct world *w = allgather_world(4);
    expect_counts(w, "MPI_Allgather", 4 * 3, 4 * 3 * 8, 1);
    w_free(w);
    (void)state;
}

/* ---- repeated collectives ---------------------------------------------------------------- */

static void test_repeat_saving_p4(void **state)
{
    /* three independent MPI_Bcast calls from root 0 at sites 80-82; per
     * rank the calls take:  rank 0: 1, 2, 3 us (fastest 1 us);
     * rank 1: 4, 5, 2.5 us (2.5); rank 2: 1, 1, 1 us (1); rank 3: 6, 3,
     * 3.5 us (3).  saving = max over ranks of (3 - 1) x fastest = 2 x 3 us
     * (rank 3; measured times, not wait-free); comm = max of the sums =
     * rank 3's 6 + 3 + 3.5 us (rank 1: 11.5 us) */
    static const uint64_t ns[4][3] = {
        {1000, 2000, 3000}, {4000, 5000, 2500}, {1000, 1000, 1000}, {6000, 3000, 3500}};
    struct world *w = w_new(4);
    for (int r = 0; r < 4; r++)
        for (int k = 0; k < 3; k++)
            w_dur(w, r,
                  w_coll(w, r, 80 + (uint32_t)k, CHT_MPI_BCAST, 0, (uint64_t)k, BUF(r) + 8 * k, 8, 0, 0, 1),
                  ns[r][k]);
    expect_one(w, "MPI_Bcast", (3 - 1) * 3000, 6000 + 3000 + 3500, 0,
               "the 3 MPI_Bcast calls at lines 80, 81, 82 can be one MPI_Bcast of their concatenated buffers "
               "(ranks 0-3, 1 instance, est. saving 6.0 us)");
    (void)state;
}

static void test_repeat_saving_p2(void **state)
{
    /* the one pattern a communicator of 2 has: two independent
     * MPI_Allreduce calls; rank 0's take 2, 3 us, rank 1's 4, 1.5 us.
     * saving = (2 - 1) x max(2 us, 1.5 us); comm = max(5 us, 5.5 us) */
    static const uint64_t ns[2][2] = {{2000, 3000}, {4000, 1500}};
    struct world *w = w_new(2);
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < 2; k++)
            w_dur(w, r,
                  w_coll(w, r, 80 + (uint32_t)k, CHT_MPI_ALLREDUCE, -1, (uint64_t)k, BUF(r) + 8 * k, 8,
                         BUF(r) + 0x100 + 8 * k, 8, 1),
                  ns[r][k]);
    expect_one(w, "MPI_Allreduce", (2 - 1) * 2000, 4000 + 1500, -1,
               "the 2 MPI_Allreduce calls at lines 80, 81 can be one MPI_Allreduce of their concatenated "
               "buffers (ranks 0-1, 1 instance, est. saving 2.0 us)");
    (void)state;
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, setup)
    const struct CMUnitTest tests[] = {
        T(test_two_ranks_no_hint),
        T(test_bcast_saving_p3),
        T(test_bcast_saving_p4),
        T(test_bcast_saving_p5),
        T(test_allreduce_saving_p3),
        T(test_allreduce_saving_p4),
        T(test_allreduce_saving_p5),
        T(test_alltoall_saving_sendrecv_p4),
        T(test_alltoall_saving_small_p3),
        T(test_alltoall_saving_small_p5),
        T(test_alltoall_saving_large_p4),
        T(test_alltoall_saving_threshold),
        T(test_scatter_saving_p3),
        T(test_gather_saving_p5),
        T(test_reduce_saving_p3),
        T(test_allgather_saving_p3),
        T(test_allgather_saving_p4),
        T(test_repeat_saving_p4),
        T(test_repeat_saving_p2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
