/* test-waitstates.c - unit tests of search_waitstates (search/xrank/waitstates.c,
 * docs/waitstates.md): MPI logs made by hand with known times, matched by
 * depgraph's dg_match through search_xrank_build, give the expected late
 * sender, late receiver and wait-at-collective times per call site, the
 * load-imbalance severity, clock alignment across ranks with different
 * CLOCK_REALTIME - CLOCK_MONOTONIC offsets (and drift), the fallback when
 * the clocks cannot be trusted, and the unmatched counts.
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

#define MS 1000000ull
#define T0 (1000 * MS)               /* monotonic time of MPI_Init on every rank, ns */
#define REAL0 1700000000000000000ull /* CLOCK_REALTIME at T0 on rank 0, ns */
#define RUN (10000 * MS)             /* MPI_Finalize sample, ns after T0 */

/* ---- call sites ------------------------------------------------------------- */

#define SRC "/src/ws.c"

enum {
    S_RECV = 1,
    S_SEND,
    S_SSEND,
    S_IRECV,
    S_WAIT,
    S_BARRIER,
    S_BCAST,
    S_REDUCE,
    S_INIT,
    S_FIN,
    S_NOINFO,
    S_RECV_B,
    S_SCAN,
    S_WORK, /* a statement before the calls */
    S_MAX
};
static struct trace_site_info sites[S_MAX];

static void mk(uint32_t id, uint32_t line, uint16_t col)
{
    struct trace_site_info *i = &sites[id];
    memset(i, 0, sizeof *i);
    i->id = id;
    i->file = SRC;
    i->func = "main";
    i->line = line;
    i->col = col;
    i->kind = CHT_SITE_CALL;
    i->loop = CHT_NONE;
}

static int setup(void **state)
{
    mk(S_RECV, 10, 5);
    mk(S_SEND, 20, 5);
    mk(S_SSEND, 25, 5);
    mk(S_IRECV, 30, 5);
    mk(S_WAIT, 31, 5);
    mk(S_BARRIER, 40, 5);
    mk(S_BCAST, 50, 5);
    mk(S_REDUCE, 60, 5);
    mk(S_INIT, 1, 1);
    mk(S_FIN, 99, 1);
    mk(S_RECV_B, 10, 5); /* another site id at the location of S_RECV */
    mk(S_SCAN, 70, 5);
    mk(S_WORK, 5, 5);
    (void)state;
    return 0;
}

/* ---- hand-made logs ------------------------------------------------------------ */

/* A rank whose MPI_Init and MPI_Finalize samples relate its monotonic
 * clock to CLOCK_REALTIME: real = mono + (REAL0 - T0) + off at Init and
 * + off + drift at Finalize. */
static struct search_rank_result *new_rank(int rank, int64_t off, int64_t drift)
{
    struct search_rank_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->rank = rank;
    r->log.rank = rank;
    r->log.clock[0] = (struct dg_clock){T0, (uint64_t)((int64_t)REAL0 + off), true};
    r->log.clock[1] = (struct dg_clock){T0 + RUN, (uint64_t)((int64_t)(REAL0 + RUN) + off + drift), true};
    /* every site known on every rank (sorted by site id) */
    r->siteinfo = calloc(S_MAX, sizeof *r->siteinfo);
    assert_non_null(r->siteinfo);
    for (uint32_t s = 1; s < S_MAX; s++)
        if (s != S_NOINFO)
            r->siteinfo[r->nsiteinfo++] = (struct search_siteinfo){s, &sites[s]};
    return r;
}

/* Appends a record; t_in and t_out are ns after T0 on the rank's own
 * monotonic clock. */
static struct dg_msgrec *add(struct search_rank_result *r, uint64_t index, uint32_t site, uint16_t call,
                             int kind, uint32_t flags, int peer, int tag, uint64_t seq, uint64_t t_in,
                             uint64_t t_out)
{
    struct dg_mpilog *g = &r->log;
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 16;
        g->rec = realloc(g->rec, g->cap * sizeof *g->rec);
        assert_non_null(g->rec);
    }
    struct dg_msgrec *x = &g->rec[g->n++];
    memset(x, 0, sizeof *x);
    x->index = index;
    x->site = site;
    x->call = call;
    x->kind = (uint8_t)kind;
    x->flags = flags;
    x->peer = peer;
    x->tag = tag;
    x->comm = CHT_COMM_WORLD;
    x->seq = seq;
    x->t_enter = T0 + t_in;
    x->t_exit = T0 + t_out;
    return x;
}

static void send(struct search_rank_result *r, uint64_t index, uint32_t site, uint16_t call, int to,
                 uint64_t seq, uint64_t t_in, uint64_t t_out)
{
    add(r, index, site, call, DG_MSG_SEND, 0, to, 0, seq, t_in, t_out);
}

static void recv(struct search_rank_result *r, uint64_t index, uint32_t site, int from, uint64_t seq,
                 uint64_t t_in, uint64_t t_out)
{
    add(r, index, site, CHT_MPI_RECV, DG_MSG_RECV, DG_MSGF_BLOCKS, from, 0, seq, t_in, t_out);
}

static void coll(struct search_rank_result *r, uint64_t index, uint32_t site, uint16_t call, int root,
                 uint64_t seq, uint32_t size, uint64_t t_in, uint64_t t_out)
{
    struct dg_msgrec *x =
        add(r, index, site, call, DG_MSG_COLL, DG_MSGF_BLOCKS | (root == r->rank ? DG_MSGF_ROOT : 0), root,
            -1, seq, t_in, t_out);
    x->comm_size = size;
    x->bytes = call == CHT_MPI_BARRIER ? 0 : 8;
    x->rbytes = call == CHT_MPI_BARRIER ? 0 : 8;
}

/* MPI_Init at 0..1 ms and MPI_Finalize at `end`..end + 1 ms. */
static void init(struct search_rank_result *r)
{
    add(r, 0, S_INIT, CHT_MPI_INIT, DG_MSG_OTHER, 0, -1, -1, 0, 0, 1 * MS);
}

static void fin(struct search_rank_result *r, uint64_t index, uint64_t end)
{
    add(r, index, S_FIN, CHT_MPI_FINALIZE, DG_MSG_OTHER, 0, -1, -1, 0, end, end + 1 * MS);
}

/* Runs search_waitstates on the ranks; the report is the caller's to free
 * with free_report. */
static struct search_report *run(struct search_rank_result **r, int n)
{
    struct search_xrank *x = NULL;
    assert_int_equal(search_xrank_build(r, n, n, &x), 0);
    struct search_report *rep = calloc(1, sizeof *rep);
    assert_non_null(rep);
    assert_int_equal(search_waitstates(x, rep), 0);
    search_xrank_destroy(x);
    return rep;
}

static void free_all(struct search_report *rep, struct search_rank_result **r, int n)
{
    free(rep->waits);
    free(rep);
    for (int k = 0; k < n; k++)
        search_rank_result_free(r[k]);
}

static const struct search_waitsite *site_at(const struct search_report *rep, uint32_t line)
{
    for (uint32_t i = 0; i < rep->nwaits; i++)
        if (rep->waits[i].line == line)
            return &rep->waits[i];
    return NULL;
}

/* ---- late sender ------------------------------------------------------------------ */

/* Rank 0 receives at once (0 .. 20 ms); rank 1 sends at 15 ms (eager: back
 * at once).  Then rank 0 posts an Irecv and waits from 30 to 40 ms for a
 * message rank 1 sends at 34 ms. */
static void test_late_sender(void **state)
{
    struct search_rank_result *r[2] = {new_rank(0, 0, 0), new_rank(1, 0, 0)};
    init(r[0]);
    init(r[1]);
    recv(r[0], 1, S_RECV, 1, 1, 1 * MS, 20 * MS);
    send(r[1], 1, S_SEND, CHT_MPI_SEND, 0, 1, 15 * MS, 15 * MS + 10000);
    add(r[0], 2, S_IRECV, CHT_MPI_IRECV, DG_MSG_OTHER, 0, -1, -1, 0, 25 * MS, 25 * MS + 1000);
    add(r[0], 3, S_WAIT, CHT_MPI_WAIT, DG_MSG_OTHER, DG_MSGF_BLOCKS, -1, -1, 0, 30 * MS, 40 * MS);
    add(r[0], 3, S_IRECV, CHT_MPI_WAIT, DG_MSG_RECV, DG_MSGF_BLOCKS | DG_MSGF_NONBLOCKING, 1, 0, 2, 30 * MS,
        40 * MS);
    send(r[1], 2, S_SEND, CHT_MPI_SEND, 0, 2, 34 * MS, 34 * MS + 10000);
    fin(r[0], 4, 50 * MS);
    fin(r[1], 3, 50 * MS);
    struct search_report *rep = run(r, 2);

    assert_true(rep->clocks_aligned);
    assert_int_equal(rep->unmatched_sends, 0);
    assert_int_equal(rep->unmatched_recvs, 0);
    /* Sorted by total wait: the Recv (14 ms), the Wait (4 ms), then the
     * sends, which waited for nothing. */
    assert_int_equal(rep->nwaits, 3);
    const struct search_waitsite *w = &rep->waits[0];
    assert_string_equal(w->file, SRC);
    assert_int_equal(w->line, 10);
    assert_int_equal(w->col, 5);
    assert_string_equal(w->func, "main");
    assert_int_equal(w->call, CHT_MPI_RECV);
    assert_int_equal(w->nranks, 1);
    assert_int_equal(w->calls, 1);
    assert_int_equal(w->time_ns, 19 * MS);
    assert_int_equal(w->late_sender_ns, 14 * MS); /* send enter 15 - receive enter 1 */
    assert_int_equal(w->late_receiver_ns, 0);
    assert_int_equal(w->wait_collective_ns, 0);
    w = &rep->waits[1];
    assert_int_equal(w->line, 31); /* at the Wait, not the Irecv */
    assert_int_equal(w->call, CHT_MPI_WAIT);
    assert_int_equal(w->late_sender_ns, 4 * MS);
    w = &rep->waits[2];
    assert_int_equal(w->line, 20);
    assert_int_equal(w->call, CHT_MPI_SEND);
    assert_int_equal(w->calls, 2);
    assert_int_equal(w->time_ns, 20000);
    assert_int_equal(w->late_sender_ns + w->late_receiver_ns + w->wait_collective_ns, 0);
    assert_null(site_at(rep, 1)); /* MPI_Init cannot wait for a message */
    free_all(rep, r, 2);
}

/* The wait is bounded by the receive's duration: a receive that returned
 * before the send entered (within the clock tolerance) waited its whole
 * duration at most. */
static void test_late_sender_bounded(void **state)
{
    struct search_rank_result *r[2] = {new_rank(0, 0, 0), new_rank(1, 0, 0)};
    recv(r[0], 0, S_RECV, 1, 1, 1 * MS, 1 * MS + 5000);
    send(r[1], 0, S_SEND, CHT_MPI_SEND, 0, 1, 1 * MS + 15000, 1 * MS + 16000);
    struct search_report *rep = run(r, 2);
    assert_true(rep->clocks_aligned);
    const struct search_waitsite *w = site_at(rep, 10);
    assert_non_null(w);
    assert_int_equal(w->late_sender_ns, 5000);
    free_all(rep, r, 2);
}

/* ---- late receiver ------------------------------------------------------------------ */

/* Rank 0: an Ssend from 0 to 12 ms whose receive is posted at 10 ms (it
 * waited 10 ms), then an eager Send at 20 ms, back at once, whose receive
 * is posted at 30 ms (no wait), then a Send whose message is received by a
 * Wait (posting time unknown: no wait counted). */
static void test_late_receiver(void **state)
{
    struct search_rank_result *r[2] = {new_rank(0, 0, 0), new_rank(1, 0, 0)};
    send(r[0], 0, S_SSEND, CHT_MPI_SSEND, 1, 1, 0, 12 * MS);
    recv(r[1], 0, S_RECV, 0, 1, 10 * MS, 12 * MS);
    send(r[0], 1, S_SEND, CHT_MPI_SEND, 1, 2, 20 * MS, 20 * MS + 5000);
    recv(r[1], 1, S_RECV, 0, 2, 30 * MS, 30 * MS + 5000);
    send(r[0], 2, S_SEND, CHT_MPI_SEND, 1, 3, 40 * MS, 49 * MS);
    add(r[1], 2, S_WAIT, CHT_MPI_WAIT, DG_MSG_OTHER, DG_MSGF_BLOCKS, -1, -1, 0, 48 * MS, 49 * MS);
    add(r[1], 2, S_IRECV, CHT_MPI_WAIT, DG_MSG_RECV, DG_MSGF_BLOCKS | DG_MSGF_NONBLOCKING, 0, 0, 3, 48 * MS,
        49 * MS);
    /* an Isend waits for nothing (its Wait is not measured) */
    add(r[0], 3, S_SEND, CHT_MPI_ISEND, DG_MSG_SEND, DG_MSGF_NONBLOCKING, 1, 0, 4, 50 * MS, 50 * MS + 1000);
    recv(r[1], 3, S_RECV, 0, 4, 60 * MS, 60 * MS + 1000);
    struct search_report *rep = run(r, 2);

    assert_true(rep->clocks_aligned);
    const struct search_waitsite *w = site_at(rep, 25);
    assert_non_null(w);
    assert_int_equal(w->call, CHT_MPI_SSEND);
    assert_int_equal(w->late_receiver_ns, 10 * MS);
    assert_int_equal(w->late_sender_ns, 0);
    w = site_at(rep, 20);
    assert_non_null(w);
    assert_int_equal(w->calls, 2); /* the two Sends; an Isend cannot wait and is not listed */
    assert_int_equal(w->late_receiver_ns, 0);
    /* the receives did not wait either: their sends came first */
    w = site_at(rep, 10);
    assert_non_null(w);
    assert_int_equal(w->late_sender_ns, 0);
    assert_ptr_equal(&rep->waits[0], site_at(rep, 25));
    free_all(rep, r, 2);
}

/* ---- wait at collectives --------------------------------------------------------------- */

/* Three ranks:
 *   Barrier entered at 0, 5, 8 ms, all leave at 8.1 ms: 8 + 3 + 0 ms;
 *   Bcast from rank 2 entered at 10, 16 and (root) 12 ms, leaving at
 *   16.2 ms: rank 0 waits 2 ms for the root, rank 1 came after it and
 *   the root waits for nobody (though rank 1 came later);
 *   Reduce to rank 0 entered (root) at 20, 23, 27 ms: the root waits
 *   7 ms, the others nothing even though they stay in the call;
 *   Scan entered at 30 (rank 0), 34 (rank 1), 31 (rank 2), leaving at
 *   34.1: rank 1 waits for nobody later than itself, rank 2 for rank 1
 *   (3 ms), rank 0 for nobody. */
static void test_collectives(void **state)
{
    struct search_rank_result *r[3] = {new_rank(0, 0, 0), new_rank(1, 0, 0), new_rank(2, 0, 0)};
    static const uint64_t bar[] = {0, 5 * MS, 8 * MS};
    static const uint64_t bc[] = {10 * MS, 16 * MS, 12 * MS};
    static const uint64_t red[] = {20 * MS, 23 * MS, 27 * MS};
    static const uint64_t scan[] = {30 * MS, 34 * MS, 31 * MS};
    for (int k = 0; k < 3; k++) {
        coll(r[k], 0, S_BARRIER, CHT_MPI_BARRIER, -1, 1, 3, bar[k], 8 * MS + 100000);
        coll(r[k], 1, S_BCAST, CHT_MPI_BCAST, 2, 2, 3, bc[k], 16 * MS + 200000);
        coll(r[k], 2, S_REDUCE, CHT_MPI_REDUCE, 0, 3, 3, red[k], 27 * MS + 300000);
        coll(r[k], 3, S_SCAN, CHT_MPI_SCAN, -1, 4, 3, scan[k], 34 * MS + 100000);
    }
    struct search_report *rep = run(r, 3);

    assert_true(rep->clocks_aligned);
    assert_int_equal(rep->incomplete_colls, 0);
    assert_int_equal(rep->nwaits, 4);
    const struct search_waitsite *w = &rep->waits[0];
    assert_int_equal(w->line, 40);
    assert_int_equal(w->call, CHT_MPI_BARRIER);
    assert_int_equal(w->nranks, 3);
    assert_int_equal(w->calls, 3);
    assert_int_equal(w->wait_collective_ns, 11 * MS);
    assert_int_equal(w->late_sender_ns + w->late_receiver_ns, 0);
    w = &rep->waits[1];
    assert_int_equal(w->line, 60);
    assert_int_equal(w->wait_collective_ns, 7 * MS);
    w = &rep->waits[2];
    assert_int_equal(w->line, 70);
    assert_int_equal(w->wait_collective_ns, 3 * MS);
    w = &rep->waits[3];
    assert_int_equal(w->line, 50);
    assert_int_equal(w->wait_collective_ns, 2 * MS);
    free_all(rep, r, 3);
}

/* A collective with a member missing is measured over the members present
 * and counted as incomplete; a Bcast whose root is missing waits for
 * nobody it can see. */
static void test_collective_incomplete(void **state)
{
    struct search_rank_result *r[2] = {new_rank(0, 0, 0), new_rank(1, 0, 0)};
    coll(r[0], 0, S_BARRIER, CHT_MPI_BARRIER, -1, 1, 3, 0, 9 * MS);
    coll(r[1], 0, S_BARRIER, CHT_MPI_BARRIER, -1, 1, 3, 4 * MS, 9 * MS);
    coll(r[0], 1, S_BCAST, CHT_MPI_BCAST, 2, 2, 3, 10 * MS, 20 * MS);
    coll(r[1], 1, S_BCAST, CHT_MPI_BCAST, 2, 2, 3, 10 * MS, 20 * MS);
    struct search_report *rep = run(r, 2);
    assert_true(rep->clocks_aligned);
    assert_int_equal(rep->incomplete_colls, 2);
    assert_int_equal(site_at(rep, 40)->wait_collective_ns, 4 * MS);
    assert_int_equal(site_at(rep, 50)->wait_collective_ns, 0);
    free_all(rep, r, 2);
}

/* ---- load imbalance ---------------------------------------------------------------------- */

/* Four ranks computing 10, 20, 30 and 40 ms between MPI_Init and
 * MPI_Finalize (spans less MPI time): mean 25, max 40,
 * severity (1 - 25/40) / (1 - 1/4) = 0.5. */
static void test_imbalance(void **state)
{
    struct search_rank_result *r[4];
    for (int k = 0; k < 4; k++) {
        r[k] = new_rank(k, 0, 0);
        /* MPI_Init 0 .. 1 ms, then 5(k+1) ms of computation before the
         * barrier (which all leave at 21 ms) and 5(k+1) ms after it */
        init(r[k]);
        coll(r[k], 1, S_BARRIER, CHT_MPI_BARRIER, -1, 1, 4, (uint64_t)(k + 1) * 5 * MS + 1 * MS,
             21 * MS + 1000);
        fin(r[k], 2, 21 * MS + 1000 + (uint64_t)(k + 1) * 5 * MS);
    }
    struct search_report *rep = run(r, 4);
    assert_int_equal(rep->comp_mean_ns, 25 * MS);
    assert_int_equal(rep->comp_max_ns, 40 * MS);
    assert_true(rep->imbalance > 0.5 - 1e-9 && rep->imbalance < 0.5 + 1e-9);
    free_all(rep, r, 4);

    /* one rank: no imbalance by definition */
    struct search_rank_result *one[1] = {new_rank(0, 0, 0)};
    init(one[0]);
    fin(one[0], 1, 30 * MS);
    rep = run(one, 1);
    assert_int_equal(rep->comp_mean_ns, 29 * MS);
    assert_int_equal(rep->comp_max_ns, 29 * MS);
    assert_true(rep->imbalance == 0.0);
    free_all(rep, one, 1);

    /* equal ranks: 0 */
    for (int k = 0; k < 2; k++) {
        r[k] = new_rank(k, 0, 0);
        init(r[k]);
        fin(r[k], 1, 30 * MS);
    }
    rep = run(r, 2);
    assert_true(rep->imbalance == 0.0);
    free_all(rep, r, 2);
}

/* ---- clocks -------------------------------------------------------------------------------- */

/* Rank 1's monotonic clock started 1000 s before rank 0's: the same real
 * instant reads 1000 s more on it, so its real - mono offset is 1000 s
 * smaller.  Rank 1's records are written in its own clock.  Its offset
 * also drifts by +1 ms over the run: a message in the middle of the run
 * (5 s after Init) has 0.5 ms of drift. */
static void test_clock_offset(void **state)
{
    const uint64_t skew = 1000000 * MS; /* 1000 s */
    struct search_rank_result *r[2] = {new_rank(0, 0, 0), new_rank(1, 0, 1 * (int64_t)MS)};
    /* rank 1's samples: the same real times as rank 0's (+ drift), its
     * monotonic clock reading skew more */
    r[1]->log.clock[0].mono_ns += skew;
    r[1]->log.clock[1].mono_ns += skew;
    /* Receive at 5000 ms on rank 0; rank 1 sends at what its clock reads
     * as skew + 5020 ms, which is 20 ms later in real time plus the drift
     * of its offset by then. */
    recv(r[0], 0, S_RECV, 1, 1, 5000 * MS, 5030 * MS);
    send(r[1], 0, S_SEND, CHT_MPI_SEND, 0, 1, skew + 5020 * MS, skew + 5020 * MS + 1000);
    struct search_report *rep = run(r, 2);
    assert_true(rep->clocks_aligned);
    const struct search_waitsite *w = site_at(rep, 10);
    assert_non_null(w);
    /* 20 ms and the drift at 5020 ms (1 ms * 5020 / 10000), give or take
     * the rounding of the interpolation */
    assert_true(w->late_sender_ns >= 20 * MS + 502000 - 10 && w->late_sender_ns <= 20 * MS + 502000 + 10);
    free_all(rep, r, 2);

    /* Without alignment the raw clocks would say the send came 1000 s
     * later: the same logs with rank 1's samples removed are not trusted
     * and give no wait. */
    r[0] = new_rank(0, 0, 0);
    r[1] = new_rank(1, 0, 0);
    r[1]->log.clock[0].valid = r[1]->log.clock[1].valid = false;
    recv(r[0], 0, S_RECV, 1, 1, 5000 * MS, 5030 * MS);
    send(r[1], 0, S_SEND, CHT_MPI_SEND, 0, 1, skew + 5020 * MS, skew + 5020 * MS + 1000);
    rep = run(r, 2);
    assert_false(rep->clocks_aligned);
    w = site_at(rep, 10);
    assert_non_null(w); /* still listed, with calls and time */
    assert_int_equal(w->calls, 1);
    assert_int_equal(w->time_ns, 30 * MS);
    assert_int_equal(w->late_sender_ns, 0);
    free_all(rep, r, 2);

    /* A rank cut short (no Finalize sample) uses its Init offset. */
    r[0] = new_rank(0, 0, 0);
    r[1] = new_rank(1, 7 * (int64_t)MS, 0);
    r[1]->log.clock[1].valid = false;
    recv(r[0], 0, S_RECV, 1, 1, 100 * MS, 130 * MS);
    send(r[1], 0, S_SEND, CHT_MPI_SEND, 0, 1, 100 * MS, 100 * MS + 1000); /* real: 107 ms */
    rep = run(r, 2);
    assert_true(rep->clocks_aligned);
    assert_int_equal(site_at(rep, 10)->late_sender_ns, 7 * MS);
    free_all(rep, r, 2);
}

/* The one clock rule (search/xrank/clocks.c): ranks whose offsets are
 * within 1 ms of each other ran on one host and are compared on their
 * monotonic clocks as recorded (the 0.4 ms offset and the drift, NTP's
 * doing, change nothing); 1 ms or more apart they are mapped to real time. */
static void test_clock_one_host(void **state)
{
    (void)state;
    struct search_rank_result *r[2] = {new_rank(0, 0, 0), new_rank(1, 400000, 3 * (int64_t)MS)};
    recv(r[0], 0, S_RECV, 1, 1, 5000 * MS, 5030 * MS);
    send(r[1], 0, S_SEND, CHT_MPI_SEND, 0, 1, 5020 * MS, 5020 * MS + 1000);
    const struct dg_mpilog *logs[2] = {&r[0]->log, &r[1]->log};
    struct search_clocks c;
    assert_int_equal(search_clocks_build(logs, 2, &c), 0);
    assert_int_equal(c.mode, SEARCH_CLOCK_MONOTONIC);
    assert_true(c.sampled);
    assert_int_equal(search_clocks_at(&c, 1, 5020 * MS), 5020 * MS);
    search_clocks_free(&c);
    struct search_report *rep = run(r, 2);
    assert_true(rep->clocks_aligned);
    assert_int_equal(site_at(rep, 10)->late_sender_ns, 20 * MS); /* exactly: no offset, no drift */
    free_all(rep, r, 2);

    /* 1.5 ms apart: two hosts, real time (rank 1's times + 1.5 ms, less the
     * smallest offset, 0) */
    r[0] = new_rank(0, 0, 0);
    r[1] = new_rank(1, 1500000, 0);
    logs[0] = &r[0]->log;
    logs[1] = &r[1]->log;
    assert_int_equal(search_clocks_build(logs, 2, &c), 0);
    assert_int_equal(c.mode, SEARCH_CLOCK_REALTIME);
    assert_int_equal(search_clocks_at(&c, 1, 5020 * MS) - search_clocks_at(&c, 0, 5020 * MS), 1500000);
    search_clocks_free(&c);
    /* a rank without samples: not sampled, times as recorded */
    r[1]->log.clock[0].valid = r[1]->log.clock[1].valid = false;
    assert_int_equal(search_clocks_build(logs, 2, &c), 0);
    assert_false(c.sampled);
    assert_int_equal(c.mode, SEARCH_CLOCK_MONOTONIC);
    search_clocks_free(&c);
    search_rank_result_free(r[0]);
    search_rank_result_free(r[1]);
}

/* Clocks that contradict the messages: with rank 1's offset wrong by 1 s,
 * a message would be received 1 s before it was sent; with the collective
 * wrong, a Barrier member would leave before another entered.  Either way
 * the clocks are not trusted and every wait is 0. */
static void test_untrustworthy(void **state)
{
    struct search_rank_result *r[2] = {new_rank(0, 0, 0), new_rank(1, 1000 * (int64_t)MS, 0)};
    recv(r[0], 0, S_RECV, 1, 1, 100 * MS, 130 * MS);
    send(r[1], 0, S_SEND, CHT_MPI_SEND, 0, 1, 120 * MS, 120 * MS + 1000);
    struct search_report *rep = run(r, 2);
    assert_false(rep->clocks_aligned);
    assert_int_equal(site_at(rep, 10)->late_sender_ns, 0);
    assert_int_equal(site_at(rep, 10)->calls, 1);
    free_all(rep, r, 2);

    r[0] = new_rank(0, 0, 0);
    r[1] = new_rank(1, 0, 0);
    coll(r[0], 0, S_BARRIER, CHT_MPI_BARRIER, -1, 1, 2, 0, 1 * MS);
    coll(r[1], 0, S_BARRIER, CHT_MPI_BARRIER, -1, 1, 2, 5 * MS, 6 * MS); /* enters after rank 0 left */
    rep = run(r, 2);
    assert_false(rep->clocks_aligned);
    assert_int_equal(site_at(rep, 40)->wait_collective_ns, 0);
    free_all(rep, r, 2);

    /* Within the tolerance (a receive 5 us "before" its send) they are. */
    r[0] = new_rank(0, 0, 0);
    r[1] = new_rank(1, 0, 0);
    recv(r[0], 0, S_RECV, 1, 1, 100 * MS, 100 * MS + 10000);
    send(r[1], 0, S_SEND, CHT_MPI_SEND, 0, 1, 100 * MS + 15000, 100 * MS + 16000);
    rep = run(r, 2);
    assert_true(rep->clocks_aligned);
    free_all(rep, r, 2);
}

/* ---- unmatched, merging, sites without location ---------------------------------------------- */

/* A send nobody received, a receive whose send is missing (the sender was
 * cut short) and a Barrier one member never reached. */
static void test_unmatched(void **state)
{
    struct search_rank_result *r[2] = {new_rank(0, 0, 0), new_rank(1, 0, 0)};
    send(r[0], 0, S_SEND, CHT_MPI_SEND, 1, 1, 0, 1000);
    recv(r[0], 1, S_RECV, 1, 1, 1 * MS, 2 * MS);
    coll(r[0], 2, S_BARRIER, CHT_MPI_BARRIER, -1, 1, 2, 3 * MS, 4 * MS);
    struct search_report *rep = run(r, 2);
    assert_int_equal(rep->unmatched_sends, 1);
    assert_int_equal(rep->unmatched_recvs, 1);
    assert_int_equal(rep->incomplete_colls, 1);
    assert_true(rep->clocks_aligned);
    assert_int_equal(site_at(rep, 10)->late_sender_ns, 0);
    assert_int_equal(site_at(rep, 40)->wait_collective_ns, 0);
    free_all(rep, r, 2);
}

/* Two site ids at one location merge (their ranks and calls add up); a
 * site without a source location is left out. */
static void test_merge_and_skip(void **state)
{
    struct search_rank_result *r[2] = {new_rank(0, 0, 0), new_rank(1, 0, 0)};
    recv(r[0], 0, S_RECV, 1, 1, 0, 10 * MS);
    send(r[1], 0, S_SEND, CHT_MPI_SEND, 0, 1, 4 * MS, 4 * MS + 1000);
    recv(r[1], 1, S_RECV_B, 0, 1, 20 * MS, 30 * MS);
    send(r[0], 1, S_SEND, CHT_MPI_SEND, 1, 1, 23 * MS, 23 * MS + 1000);
    recv(r[0], 2, S_NOINFO, 1, 2, 40 * MS, 50 * MS);
    send(r[1], 2, S_SEND, CHT_MPI_SEND, 0, 2, 45 * MS, 45 * MS + 1000);
    recv(r[0], 3, CHT_NONE, 1, 3, 60 * MS, 70 * MS);
    send(r[1], 3, S_SEND, CHT_MPI_SEND, 0, 3, 65 * MS, 65 * MS + 1000);
    struct search_report *rep = run(r, 2);
    assert_int_equal(rep->nwaits, 2);
    const struct search_waitsite *w = site_at(rep, 10);
    assert_int_equal(w->nranks, 2);
    assert_int_equal(w->calls, 2);
    assert_int_equal(w->time_ns, 20 * MS);
    assert_int_equal(w->late_sender_ns, 7 * MS); /* 4 + 3, not the unlocated 5 + 5 */
    free_all(rep, r, 2);
}

/* Through search_report_build: the report owns rep->waits (freed by
 * search_report_free, checked under ASan). */
static void test_report(void **state)
{
    struct search_rank_result *r[2] = {new_rank(0, 0, 0), new_rank(1, 0, 0)};
    recv(r[0], 0, S_RECV, 1, 1, 0, 10 * MS);
    send(r[1], 0, S_SEND, CHT_MPI_SEND, 0, 1, 4 * MS, 4 * MS + 1000);
    struct search_report *rep = NULL;
    assert_int_equal(search_report_build(r, 2, 2, NULL, &rep), 0);
    assert_true(rep->clocks_aligned);
    assert_int_equal(rep->nwaits, 2);
    assert_int_equal(rep->waits[0].late_sender_ns, 4 * MS);
    search_report_free(rep);
    for (int k = 0; k < 2; k++)
        search_rank_result_free(r[k]);
}

/* An overlap result at `site` of rank r, with one related statement (at
 * line 5, before the calls: the fix starts them before it) and the given
 * leads. */
static void add_overlap(struct search_rank_result *r, uint32_t site, uint16_t call, uint64_t saving,
                        const struct search_lead *leads, uint32_t nleads)
{
    r->overlaps = realloc(r->overlaps, (r->noverlaps + 1) * sizeof *r->overlaps);
    assert_non_null(r->overlaps);
    struct search_overlap *o = &r->overlaps[r->noverlaps++];
    memset(o, 0, sizeof *o);
    o->site = site;
    o->call = call;
    o->info = &sites[site];
    o->instances = o->with_window = 2;
    o->comm_ns = o->comp_ns = o->saving_ns = saving;
    o->nstmts = 1;
    o->stmts = calloc(1, sizeof *o->stmts);
    assert_non_null(o->stmts);
    o->stmts[0] = (struct search_stmt){.site = S_WORK, .flags = SEARCH_STMT_BEFORE, .events = 2,
                                       .total = 2, .time_ns = saving, .info = &sites[S_WORK]};
    o->leads = malloc(nleads * sizeof *o->leads);
    assert_non_null(o->leads);
    memcpy(o->leads, leads, nleads * sizeof *o->leads);
    o->nleads = nleads;
    /* the log is complete: what the merge reads of it, as search_run_rank */
    assert_int_equal(search_rank_result_log_facts(r), 0);
}

static const struct search_hint *hint_at(const struct search_report *rep, uint32_t line)
{
    for (uint32_t i = 0; i < rep->nhints; i++)
        if (rep->hints[i].kind == SEARCH_HINT_OVERLAP && rep->hints[i].line == line)
            return &rep->hints[i];
    return NULL;
}

/* Overlap savings on other ranks (docs/dependence.md, "Estimated saving"):
 * rank 1's sends at line 20 can start 10 ms and 2 ms earlier; the receive
 * of the first waited 14 ms for it (late sender), the Wait of the second
 * 4 ms: rank 0 waits min(14, 10) + min(4, 2) = 12 ms less.  Rank 0's
 * receive at line 10 can start 5 ms earlier; rank 1's Ssend waited 8 ms
 * for it (late receiver): rank 1 waits min(8, 5) = 5 ms less, and its own
 * saving there is 1 ms more. */
static void test_partner_saving(void **state)
{
    struct search_rank_result *r[2] = {new_rank(0, 0, 0), new_rank(1, 0, 0)};
    init(r[0]);
    init(r[1]);
    recv(r[0], 1, S_RECV, 1, 1, 1 * MS, 20 * MS);
    send(r[1], 1, S_SEND, CHT_MPI_SEND, 0, 1, 15 * MS, 15 * MS + 10000);
    add(r[0], 2, S_IRECV, CHT_MPI_IRECV, DG_MSG_OTHER, 0, -1, -1, 0, 25 * MS, 25 * MS + 1000);
    add(r[0], 3, S_WAIT, CHT_MPI_WAIT, DG_MSG_OTHER, DG_MSGF_BLOCKS, -1, -1, 0, 30 * MS, 40 * MS);
    add(r[0], 3, S_IRECV, CHT_MPI_WAIT, DG_MSG_RECV, DG_MSGF_BLOCKS | DG_MSGF_NONBLOCKING, 1, 0, 2, 30 * MS,
        40 * MS);
    send(r[1], 2, S_SEND, CHT_MPI_SEND, 0, 2, 34 * MS, 34 * MS + 10000);
    send(r[1], 3, S_SSEND, CHT_MPI_SSEND, 0, 3, 60 * MS, 70 * MS);
    recv(r[0], 4, S_RECV, 1, 3, 68 * MS, 70 * MS);
    fin(r[0], 5, 80 * MS);
    fin(r[1], 4, 80 * MS);
    add_overlap(r[1], S_SEND, CHT_MPI_SEND, 20000,
                (struct search_lead[]){{.index = 1, .span_ns = 10 * MS, .fw_end = 1},
                                       {.index = 2, .span_ns = 2 * MS, .fw_end = 2},
                                       {.index = 99, .span_ns = 1 * MS, .fw_end = 99}},
                3);
    add_overlap(r[0], S_RECV, CHT_MPI_RECV, 1 * MS,
                (struct search_lead[]){{.index = 4, .span_ns = 5 * MS, .fw_end = 4}}, 1);
    struct search_report *rep = NULL;
    assert_int_equal(search_report_build(r, 2, 2, NULL, &rep), 0);
    assert_true(rep->clocks_aligned);

    const struct search_hint *h = hint_at(rep, 20);
    assert_non_null(h);
    /* the kind's estimate, kept beside the replay's prediction */
    assert_true(h->predicted);
    assert_int_equal(h->saving_ns, h->predicted_ns);
    assert_int_equal(h->estimated_ns, 12 * MS); /* rank 0's; rank 1 itself: 20 us */
    assert_int_equal(h->partner_ns, 12 * MS);
    assert_int_equal(h->nby_rank, 2);
    assert_int_equal(h->by_rank[0].rank, 0);
    assert_int_equal(h->by_rank[0].saving_ns, 12 * MS);
    assert_int_equal(h->by_rank[0].partner_ns, 12 * MS);
    assert_int_equal(h->by_rank[1].rank, 1);
    assert_int_equal(h->by_rank[1].saving_ns, 20000);
    assert_int_equal(h->by_rank[1].partner_ns, 0);
    assert_non_null(strstr(h->message, "(rank 1, predicted saving "));
    /* its changes carry their records' times (the bound on what they save
     * is taken from them, not from the logs): leads 1 and 2, not 99 */
    assert_int_equal(h->nchanges, 2);
    uint64_t bound = 0;
    for (uint32_t c = 0; c < h->nchanges; c++) {
        const struct dg_change *k = &h->changes[c];
        assert_true(k->timed);
        assert_int_equal(k->rank, 1);
        assert_true(k->pos < r[1]->log.n);
        assert_int_equal(k->t_enter, r[1]->log.rec[k->pos].t_enter);
        assert_int_equal(k->t_exit, r[1]->log.rec[k->pos].t_exit);
        bound += (k->t_post && k->t_post < k->t_enter ? k->t_enter - k->t_post : 0) +
                 (k->t_wait > k->t_exit ? k->t_wait - k->t_exit : 0);
    }
    assert_true(h->predicted_ns <= bound);

    h = hint_at(rep, 10);
    assert_non_null(h);
    assert_int_equal(h->estimated_ns, 5 * MS); /* rank 1's; rank 0 itself: 1 ms */
    assert_int_equal(h->partner_ns, 5 * MS);
    assert_int_equal(h->nby_rank, 2);
    assert_int_equal(h->by_rank[0].saving_ns, 1 * MS);
    assert_int_equal(h->by_rank[1].saving_ns, 5 * MS);
    search_report_free(rep);
    for (int k = 0; k < 2; k++)
        search_rank_result_free(r[k]);
}

/* Without trustworthy clocks the waits are not known: the saving is the
 * calls' own. */
static void test_partner_saving_unaligned(void **state)
{
    struct search_rank_result *r[2] = {new_rank(0, 0, 0), new_rank(1, 0, 0)};
    r[0]->log.clock[0].valid = r[0]->log.clock[1].valid = false;
    recv(r[0], 1, S_RECV, 1, 1, 1 * MS, 20 * MS);
    send(r[1], 1, S_SEND, CHT_MPI_SEND, 0, 1, 15 * MS, 15 * MS + 10000);
    add_overlap(r[1], S_SEND, CHT_MPI_SEND, 20000,
                (struct search_lead[]){{.index = 1, .span_ns = 10 * MS, .fw_end = 1}}, 1);
    struct search_report *rep = NULL;
    assert_int_equal(search_report_build(r, 2, 2, NULL, &rep), 0);
    assert_false(rep->clocks_aligned);
    const struct search_hint *h = hint_at(rep, 20);
    assert_non_null(h);
    assert_int_equal(h->estimated_ns, 20000);
    assert_int_equal(h->partner_ns, 0);
    search_report_free(rep);
    for (int k = 0; k < 2; k++)
        search_rank_result_free(r[k]);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, setup)
    const struct CMUnitTest tests[] = {
        T(test_late_sender),
        T(test_late_sender_bounded),
        T(test_late_receiver),
        T(test_collectives),
        T(test_collective_incomplete),
        T(test_imbalance),
        T(test_clock_offset),
        T(test_clock_one_host),
        T(test_untrustworthy),
        T(test_unmatched),
        T(test_merge_and_skip),
        T(test_report),
        T(test_partner_saving),
        T(test_partner_saving_unaligned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
