/* test-collectives.c - unit tests of search_collectives (search/xrank/collectives/):
 * MPI logs of 4 ranks written by hand, matched with dg_match_build, for
 * every pattern (flat, rotating-root, ring and tree broadcast, scatter(v),
 * gather(v), reduce with an accumulator in memory or in a local variable,
 * reduce + broadcast, alltoall with Sendrecv, ring allgather, repeated
 * independent collectives) and near misses that must give no hint (a
 * broadcast that misses a rank, a ring that stops early, overlapping
 * slices, a gather into one address, a reduce with two ops, an alltoall
 * with a block sent after the exchange began, collectives whose second
 * buffer was written in between...), and the --explain entry of call sites
 * whose messages all travel on communicators of two ranks.  Site ids double
 * as line numbers.
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

char *search_collective_message(const struct search_hint *h, bool with_times);

#define P 4
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

/* ---- a run written by hand --------------------------------------------------------- */

struct world {
    struct search_rank_result res[P];
    struct dg_mpilog logs[P];
    uint64_t next_index[P];
    uint64_t seq[P][P][8]; /* channel numbers: [src][dst][tag] */
    uint64_t rseq[P][P][8];
    uint64_t coll_seq;
};

static struct world *w_new(void)
{
    struct world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    for (int r = 0; r < P; r++) {
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
    for (int r = 0; r < P; r++)
        dg_mpilog_free(&w->logs[r]);
    free(w);
}

/* A new record of rank r at a fresh event index (10 apart: computation
 * fits between), 1 us long. */
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
    x->comm_size = P;
    x->peer = -1;
    x->tag = -1;
    x->t_enter = x->index * 1000;
    x->t_exit = x->t_enter + 1000;
    return x;
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

/* A Sendrecv: a SEND and a RECV record of one event. */
static void w_sendrecv(struct world *w, int r, uint32_t site, int dst, uint64_t sbuf, uint64_t sbytes,
                       uint64_t version, int src, uint64_t rbuf, uint64_t rbytes, uint32_t *spos,
                       uint32_t *rpos)
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
    if (spos)
        *spos = a;
    if (rpos)
        *rpos = b;
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

/* The send at spos of rank r sends the bytes the receive at rpos wrote. */
static void w_forward(struct world *w, int r, uint32_t spos, uint32_t rpos)
{
    struct dg_msgrec *s = &w->logs[r].rec[spos];
    s->flags |= DG_MSGF_FORWARD;
    s->fwd_pos = rpos;
    s->version = w->logs[r].rec[rpos].index + 1;
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

/* Index the next record of rank r will get. */
static uint64_t w_next(const struct world *w, int r)
{
    return w->next_index[r];
}

/* Runs the search on the world; ranks listed in `missing` have no trace. */
static void w_search(struct world *w, struct search_hint **h, uint32_t *n)
{
    struct search_rank_result *by_rank[P];
    const struct dg_mpilog *logs[P];
    struct search_xrank x;
    memset(&x, 0, sizeof x);
    for (int r = 0; r < P; r++) {
        by_rank[r] = &w->res[r];
        logs[r] = &w->logs[r];
    }
    x.world_size = P;
    x.by_rank = by_rank;
    x.logs = logs;
    assert_int_equal(dg_match_build(logs, P, &x.match), 0);
    /* every search runs twice: looking at every record, and at the
     * candidates only (candidates.c), which must find the same */
    struct search_hint *every;
    uint32_t nevery;
    assert_int_equal(setenv("COMMHINT_COLL_EVERY_RECORD", "1", 1), 0);
    assert_int_equal(search_collectives(&x, &every, &nevery), 0);
    assert_int_equal(unsetenv("COMMHINT_COLL_EVERY_RECORD"), 0);
    assert_int_equal(search_collectives(&x, h, n), 0);
    dg_match_destroy(x.match);
    assert_int_equal(*n, nevery);
    for (uint32_t i = 0; i < nevery; i++) {
        const struct search_hint *a = &every[i], *b = &(*h)[i];
        assert_string_equal(a->message, b->message);
        assert_int_equal(a->line, b->line);
        assert_int_equal(a->nranks, b->nranks);
        assert_memory_equal(a->ranks, b->ranks, (size_t)a->nranks * sizeof *a->ranks);
        assert_int_equal(a->instances, b->instances);
        assert_int_equal(a->saving_ns, b->saving_ns);
        assert_int_equal(a->nrelated, b->nrelated);
        for (uint32_t k = 0; k < a->nrelated; k++) {
            assert_int_equal(a->related[k].line, b->related[k].line);
            assert_int_equal(a->related[k].role, b->related[k].role);
        }
        /* the changes name records of the whole logs (sparse.c maps them back) */
        assert_int_equal(a->nchanges, b->nchanges);
        for (uint32_t k = 0; k < a->nchanges; k++) {
            assert_int_equal(a->changes[k].kind, b->changes[k].kind);
            assert_int_equal(a->changes[k].rank, b->changes[k].rank);
            assert_int_equal(a->changes[k].pos, b->changes[k].pos);
            assert_int_equal(a->changes[k].id, b->changes[k].id);
            assert_int_equal(a->changes[k].steps, b->changes[k].steps);
        }
        search_hint_clear(&every[i]);
    }
    free(every);
}

static void hints_free(struct search_hint *h, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        search_hint_clear(&h[i]);
    free(h);
}

static const struct search_hint *find(const struct search_hint *h, uint32_t n, const char *coll)
{
    const struct search_hint *f = NULL;
    for (uint32_t i = 0; i < n; i++)
        if (h[i].collective && !strcmp(h[i].collective, coll)) {
            assert_null(f); /* one hint per pattern and sites here */
            f = &h[i];
        }
    return f;
}

static bool has_related(const struct search_hint *h, uint32_t line, int role)
{
    for (uint32_t i = 0; i < h->nrelated; i++)
        if (h->related[i].line == line && h->related[i].role == role)
            return true;
    return false;
}

/* No hint at all; frees the world. */
static void expect_none(struct world *w)
{
    struct search_hint *h;
    uint32_t n;
    w_search(w, &h, &n);
    for (uint32_t i = 0; i < n; i++)
        print_message("unexpected hint: %s: %s\n", h[i].collective, h[i].message);
    assert_int_equal(n, 0);
    hints_free(h, n);
    w_free(w);
}

/* ---- broadcast --------------------------------------------------------------------- */

#define BUF(r) (0x100000ull * ((r) + 1)) /* each rank's memory */


/* Root sends buf (version v) to every other rank from site 10; they
 * receive at site 20.  skip: a rank left out, or -1. */
static void flat_bcast(struct world *w, int root, uint64_t v, int skip)
{
    for (int d = 0; d < P; d++)
        if (d != root && d != skip)
            w_send(w, root, 10, d, 1, BUF(root), 64, v);
    for (int d = 0; d < P; d++)
        if (d != root && d != skip)
            w_recv(w, d, 20, root, 1, BUF(d) + 0x1000, 64);
}

static void test_bcast_flat(void **state)
{
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    flat_bcast(w, 0, 5, -1);
    flat_bcast(w, 0, 50, -1); /* the buffer changed: a second instance */
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Bcast");
    assert_int_equal(h[0].kind, SEARCH_HINT_COLLECTIVE);
    assert_int_equal(h[0].line, 10);
    assert_int_equal(h[0].call, CHT_MPI_SEND);
    assert_int_equal(h[0].root, 0);
    assert_int_equal(h[0].nranks, 4);
    assert_int_equal(h[0].with_window, 2);
    assert_int_equal(h[0].instances, 2);
    assert_int_equal(h[0].members, 6);
    assert_int_equal(h[0].bytes, 6 * 64);
    assert_false(h[0].flags & SEARCH_HINT_SOME_ITERATIONS);
    assert_int_equal(h[0].nrelated, 1);
    assert_true(has_related(&h[0], 20, SEARCH_REL_RECV));
    assert_int_equal(h[0].related[0].events, 6);
    assert_int_equal(h[0].related[0].total, 6);
    assert_non_null(strstr(h[0].message, "the MPI_Send calls at line 10 and the MPI_Recv calls at line 20 "
                                         "send the same bytes from the root to every rank: use MPI_Bcast "
                                         "(root = rank 0; ranks 0-3, 2 instances, est. saving "));
    /* 3 us of sends on the root, model 2 x 1 us: 1 us per instance */
    assert_int_equal(h[0].comm_ns, 2 * 3000);
    assert_int_equal(h[0].saving_ns, 2 * 1000);
    char *s = search_collective_message(&h[0], false);
    assert_string_equal(s,
                        "the MPI_Send calls at line 10 and the MPI_Recv calls at line 20 send the same bytes "
                        "from the root to every rank: use MPI_Bcast (root = rank 0; ranks 0-3, 2 instances)");
    free(s);
    hints_free(h, n);
    w_free(w);
    (void)state;
}

/* The hand-written calls are nonblocking (the root's MPI_Isend calls, or
 * the receivers' MPI_Irecv): the hint names MPI_Ibcast, which keeps the
 * overlap they allow; blocking calls keep MPI_Bcast (test_bcast_flat). */
static void test_bcast_nonblocking(void **state)
{
    for (int which = 0; which < 2; which++) {
        struct world *w = w_new();
        struct search_hint *h;
        uint32_t n;
        flat_bcast(w, 0, 5, -1);
        for (int r = 0; r < P; r++)
            for (uint32_t i = 0; i < w->logs[r].n; i++) {
                struct dg_msgrec *x = &w->logs[r].rec[i];
                if (which == 0 && x->kind == DG_MSG_SEND)
                    x->call = CHT_MPI_ISEND;
                if (which == 1 && x->kind == DG_MSG_RECV)
                    x->call = CHT_MPI_IRECV;
            }
        w_search(w, &h, &n);
        assert_int_equal(n, 1);
        assert_string_equal(h[0].collective, "MPI_Ibcast");
        assert_non_null(strstr(h[0].message, "use MPI_Ibcast ("));
        hints_free(h, n);
        w_free(w);
    }
}

static void test_saving_wait_free(void **state)
{
    /* rank 2 waits 0.5 ms for the root in the second broadcast: that time
     * is in comm_ns, but no collective would save it */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    flat_bcast(w, 0, 5, -1);
    flat_bcast(w, 0, 50, -1);
    struct dg_msgrec *late = &w->logs[2].rec[w->logs[2].n - 1];
    late->t_exit = late->t_enter + 500000;
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_int_equal(h[0].comm_ns, 3000 + 500000);
    assert_int_equal(h[0].saving_ns, 2 * 1000);
    hints_free(h, n);
    w_free(w);

    /* every call twice as slow as the fastest of its size: the fastest is
     * what a message costs, the model is 2 of them */
    w = w_new();
    flat_bcast(w, 0, 5, -1);
    for (int r = 0; r < P; r++)
        for (uint32_t i = 0; i < w->logs[r].n; i++)
            w->logs[r].rec[i].t_exit += r == 0 && i == 0 ? 0 : 1000;
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_int_equal(h[0].comm_ns, 1000 + 2000 + 2000);
    assert_int_equal(h[0].saving_ns, 3 * 1000 - 2 * 1000);
    hints_free(h, n);
    w_free(w);
    (void)state;
}

static void test_bcast_misses_a_rank(void **state)
{
    struct world *w = w_new();
    flat_bcast(w, 0, 5, 3);
    expect_none(w);

    /* three good rounds and one that misses rank 2: some iterations */
    w = w_new();
    struct search_hint *h;
    uint32_t n;
    flat_bcast(w, 0, 5, -1);
    flat_bcast(w, 0, 6, -1);
    flat_bcast(w, 0, 7, 2);
    flat_bcast(w, 0, 8, -1);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Bcast");
    assert_int_equal(h[0].with_window, 3);
    assert_int_equal(h[0].instances, 4);
    assert_true(h[0].flags & SEARCH_HINT_SOME_ITERATIONS);
    hints_free(h, n);
    w_free(w);
    (void)state;
}

static void test_bcast_bytes_change(void **state)
{
    /* the root changes the buffer between two of the sends: not the same bytes */
    struct world *w = w_new();
    w_send(w, 0, 10, 1, 1, BUF(0), 64, 5);
    w_send(w, 0, 10, 2, 1, BUF(0), 64, 5);
    w_send(w, 0, 10, 3, 1, BUF(0), 64, 9);
    for (int d = 1; d < P; d++)
        w_recv(w, d, 20, 0, 1, BUF(d), 64);
    expect_none(w);
    (void)state;
}

static void test_bcast_rotating_root(void **state)
{
    /* gauss: the owner of step k sends the pivot row to every other rank */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int k = 0; k < 8; k++)
        flat_bcast(w, k % P, 100 + k, -1);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Bcast");
    assert_int_equal(h[0].root, -1);
    assert_int_equal(h[0].with_window, 8);
    assert_int_equal(h[0].instances, 8);
    assert_non_null(strstr(h[0].message, "root = the sending rank, ranks 0-3 in turn;"));
    hints_free(h, n);
    w_free(w);
    (void)state;
}

/* 0 -> 1 -> 2 -> 3 along a ring, each rank forwarding what it received
 * (sites 11 send, 21 receive); stop: the last rank that forwards. */
static void ring_bcast(struct world *w, uint64_t v, int stop)
{
    uint32_t rpos = 0;
    for (int r = 0; r < P; r++) {
        if (r > 0) {
            if (r - 1 > stop)
                break;
            rpos = w_recv(w, r, 21, r - 1, 2, BUF(r), 128);
        }
        if (r + 1 < P && r <= stop) {
            uint32_t s = w_send(w, r, 11, r + 1, 2, BUF(r), 128, v);
            if (r > 0)
                w_forward(w, r, s, rpos);
        }
    }
}

static void test_bcast_ring(void **state)
{
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    ring_bcast(w, 7, P);
    ring_bcast(w, 8, P);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Bcast");
    assert_int_equal(h[0].root, 0);
    assert_int_equal(h[0].line, 11);
    assert_int_equal(h[0].with_window, 2);
    assert_int_equal(h[0].members, 6);
    assert_true(has_related(&h[0], 21, SEARCH_REL_RECV));
    assert_non_null(strstr(h[0].message, "forwarded from rank to rank: use MPI_Bcast (root = rank 0;"));
    hints_free(h, n);
    w_free(w);

    /* the ring stops at rank 2: rank 3 never gets the bytes */
    w = w_new();
    ring_bcast(w, 7, 1);
    expect_none(w);
    (void)state;
}

static void test_bcast_tree(void **state)
{
    /* binomial tree: 0 -> 2, 0 -> 1, then 2 -> 3 forwarding */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    w_send(w, 0, 12, 2, 3, BUF(0), 32, 4);
    w_send(w, 0, 12, 1, 3, BUF(0), 32, 4);
    uint32_t r2 = w_recv(w, 2, 22, 0, 3, BUF(2), 32);
    w_recv(w, 1, 22, 0, 3, BUF(1), 32);
    uint32_t s2 = w_send(w, 2, 13, 3, 3, BUF(2), 32, 0);
    w_forward(w, 2, s2, r2);
    w_recv(w, 3, 22, 2, 3, BUF(3), 32);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Bcast");
    assert_int_equal(h[0].line, 12);
    assert_true(has_related(&h[0], 13, SEARCH_REL_SEND));
    assert_true(has_related(&h[0], 22, SEARCH_REL_RECV));
    assert_non_null(
        strstr(h[0].message, "the MPI_Send calls at lines 12, 13 and the MPI_Recv calls at line 22"));
    hints_free(h, n);
    w_free(w);

    /* a partial forward (half the bytes) is not the same bytes */
    w = w_new();
    w_send(w, 0, 12, 2, 3, BUF(0), 32, 4);
    w_send(w, 0, 12, 1, 3, BUF(0), 32, 4);
    r2 = w_recv(w, 2, 22, 0, 3, BUF(2), 32);
    w_recv(w, 1, 22, 0, 3, BUF(1), 32);
    s2 = w_send(w, 2, 13, 3, 3, BUF(2), 16, 0);
    w_forward(w, 2, s2, r2);
    w_recv(w, 3, 22, 2, 3, BUF(3), 16);
    expect_none(w);
    (void)state;
}

/* A broadcast whose root sends each rank its message on a tag of its own
 * (no stream of the root reaches every rank: its sends are candidates as
 * one group of the same bytes), beside a ring exchange whose records no
 * pattern can use (withheld from the search: w_search checks it finds the
 * same). */
static void test_bcast_tag_per_rank(void **state)
{
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int d = 1; d < P; d++)
        w_send(w, 0, 14, d, d, BUF(0), 48, 9);
    for (int d = 1; d < P; d++)
        w_recv(w, d, 24, 0, d, BUF(d), 48);
    for (int r = 0; r < P; r++)
        w_send(w, r, 30, (r + 1) % P, 5, BUF(r) + 0x800, 8, 0);
    for (int r = 0; r < P; r++)
        w_recv(w, r, 31, (r + P - 1) % P, 5, BUF(r) + 0x900, 8);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Bcast");
    assert_int_equal(h[0].line, 14);
    hints_free(h, n);
    w_free(w);
    (void)state;
}

/* ---- scatter and gather ------------------------------------------------------------- */

static void test_scatter(void **state)
{
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int it = 0; it < 3; it++) {
        for (int d = 1; d < P; d++) /* slice d of 16 bytes; rank 0 keeps slice 0 */
            w_send(w, 0, 30, d, 4, BUF(0) + 16 * d, 16, 1 + it);
        for (int d = 1; d < P; d++)
            w_recv(w, d, 31, 0, 4, BUF(d), 16);
    }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Scatter");
    assert_int_equal(h[0].root, 0);
    assert_int_equal(h[0].line, 30);
    assert_int_equal(h[0].with_window, 3);
    assert_true(has_related(&h[0], 31, SEARCH_REL_RECV));
    assert_non_null(
        strstr(h[0].message, "slices of one buffer from the root to every rank: use MPI_Scatter"));
    /* the fix: every rank calls it where the calls are; the slices start
     * at rank 0's slot, which the root keeps (MPI_IN_PLACE) */
    assert_non_null(h[0].coll_fix);
    assert_non_null(strstr(h[0].coll_fix, "every rank of the pattern calls one MPI_Scatter in place of, on the "
                                          "root, the MPI_Send calls at line 30, and on the other ranks, the "
                                          "MPI_Recv calls at line 31; root = rank 0; sendbuf (read at the root "
                                          "only) = the buffer the sends take the slices from, from the root's "
                                          "own slot, one slice (16 bytes) before the slice of rank 1"));
    assert_non_null(strstr(h[0].coll_fix, "recvbuf = the one received into, MPI_IN_PLACE at the root"));
    assert_null(h[0].coll_loop); /* no site tables: no loop known */
    hints_free(h, n);
    w_free(w);

    /* a root in the middle: the buffer starts at rank 0's slice */
    w = w_new();
    for (int d = 0; d < P; d++)
        if (d != 2)
            w_send(w, 2, 30, d, 4, BUF(2) + 16 * d, 16, 1);
    for (int d = 0; d < P; d++)
        if (d != 2)
            w_recv(w, d, 31, 2, 4, BUF(d), 16);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Scatter");
    assert_int_equal(h[0].root, 2);
    assert_non_null(strstr(h[0].coll_fix, "root = rank 2; sendbuf (read at the root only) = the buffer the sends "
                                          "take the slices from, from the slice of rank 0, a slice per rank"));
    hints_free(h, n);
    w_free(w);

    /* slices of different sizes: Scatterv */
    w = w_new();
    w_send(w, 0, 30, 1, 4, BUF(0), 8, 1);
    w_send(w, 0, 30, 2, 4, BUF(0) + 8, 16, 1);
    w_send(w, 0, 30, 3, 4, BUF(0) + 24, 24, 1);
    for (int d = 1; d < P; d++)
        w_recv(w, d, 31, 0, 4, BUF(d), 8 * d);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Scatterv");
    hints_free(h, n);
    w_free(w);

    /* slices out of rank order: Scatterv too */
    w = w_new();
    w_send(w, 0, 30, 1, 4, BUF(0) + 32, 16, 1);
    w_send(w, 0, 30, 2, 4, BUF(0) + 16, 16, 1);
    w_send(w, 0, 30, 3, 4, BUF(0) + 48, 16, 1);
    for (int d = 1; d < P; d++)
        w_recv(w, d, 31, 0, 4, BUF(d), 16);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Scatterv");
    hints_free(h, n);
    w_free(w);
    (void)state;
}

static void test_scatter_near_misses(void **state)
{
    /* overlapping slices */
    struct world *w = w_new();
    w_send(w, 0, 30, 1, 4, BUF(0), 16, 1);
    w_send(w, 0, 30, 2, 4, BUF(0) + 8, 16, 1);
    w_send(w, 0, 30, 3, 4, BUF(0) + 24, 16, 1);
    for (int d = 1; d < P; d++)
        w_recv(w, d, 31, 0, 4, BUF(d), 16);
    expect_none(w);

    /* slices of different buffers far apart */
    w = w_new();
    for (int d = 1; d < P; d++)
        w_send(w, 0, 30, d, 4, BUF(0) + 0x1000 * d, 16, 1);
    for (int d = 1; d < P; d++)
        w_recv(w, d, 31, 0, 4, BUF(d), 16);
    expect_none(w);

    /* only two of the three other ranks */
    w = w_new();
    for (int d = 1; d < P - 1; d++)
        w_send(w, 0, 30, d, 4, BUF(0) + 16 * d, 16, 1);
    for (int d = 1; d < P - 1; d++)
        w_recv(w, d, 31, 0, 4, BUF(d), 16);
    expect_none(w);
    (void)state;
}

static void test_scatter_interleaved(void **state)
{
    /* one tag for the parameters (same bytes) and the slices, interleaved
     * per worker: the per-site rounds find the scatter, the broadcast is
     * found by where the bytes come from */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int d = 1; d < P; d++) {
        w_send(w, 0, 32, d, 0, BUF(0) + 0x800, 64, 3);
        w_send(w, 0, 33, d, 0, BUF(0) + 16 * d, 16, 1);
    }
    for (int d = 1; d < P; d++) {
        w_recv(w, d, 34, 0, 0, BUF(d) + 0x800, 64);
        w_recv(w, d, 35, 0, 0, BUF(d), 16);
    }
    w_search(w, &h, &n);
    assert_int_equal(n, 2);
    const struct search_hint *b = find(h, n, "MPI_Bcast"), *s = find(h, n, "MPI_Scatter");
    assert_non_null(b);
    assert_non_null(s);
    assert_int_equal(b->line, 32);
    assert_true(has_related(b, 34, SEARCH_REL_RECV));
    assert_int_equal(s->line, 33);
    assert_true(has_related(s, 35, SEARCH_REL_RECV));
    hints_free(h, n);
    w_free(w);
    (void)state;
}

static void test_gather(void **state)
{
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int it = 0; it < 2; it++) {
        for (int q = 1; q < P; q++)
            w_send(w, q, 40, 0, 5, BUF(q), 24, 1 + it);
        for (int q = 1; q < P; q++)
            w_recv(w, 0, 41, q, 5, BUF(0) + 24 * q, 24);
    }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Gather");
    assert_int_equal(h[0].line, 41);
    assert_int_equal(h[0].call, CHT_MPI_RECV);
    assert_int_equal(h[0].root, 0);
    assert_int_equal(h[0].with_window, 2);
    assert_true(has_related(&h[0], 40, SEARCH_REL_SEND));
    assert_non_null(strstr(h[0].message,
                           "the MPI_Send calls at line 40 and the MPI_Recv calls at line 41 receive "
                           "a block from every rank into distinct slices of one buffer at the root: "
                           "use MPI_Gather (root = rank 0;"));
    hints_free(h, n);
    w_free(w);

    /* a third iteration receives at the same call site from one rank only,
     * on a tag of its own: a round no pattern can use (withheld from the
     * search), still an iteration the hint does not cover */
    w = w_new();
    for (int it = 0; it < 3; it++) {
        int last = it < 2 ? P - 1 : 1;
        for (int q = 1; q <= last; q++)
            w_send(w, q, 40, 0, it < 2 ? 5 : 6, BUF(q), 24, 1 + it);
        for (int q = 1; q <= last; q++)
            w_recv(w, 0, 41, q, it < 2 ? 5 : 6, BUF(0) + 24 * q, 24);
    }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Gather");
    assert_int_equal(h[0].with_window, 2);
    assert_int_equal(h[0].instances, 3);
    hints_free(h, n);
    w_free(w);

    /* blocks of different sizes: Gatherv */
    w = w_new();
    for (int q = 1; q < P; q++)
        w_send(w, q, 40, 0, 5, BUF(q), 8 * q, 1);
    uint64_t at = BUF(0);
    for (int q = 1; q < P; q++) {
        w_recv(w, 0, 41, q, 5, at, 8 * q);
        at += 8 * q;
    }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Gatherv");
    hints_free(h, n);
    w_free(w);
    (void)state;
}

static void test_gather_same_address(void **state)
{
    /* every block lands at one address and is not accumulated (copied
     * elsewhere, or never read): neither a gather nor a reduce */
    struct world *w = w_new();
    for (int q = 1; q < P; q++)
        w_send(w, q, 40, 0, 5, BUF(q), 24, 1);
    for (int q = 1; q < P; q++) {
        uint32_t rp = w_recv(w, 0, 41, q, 5, BUF(0), 24);
        w_consume(w, 0, rp, 42, CHT_SOP_COPY, 0, BUF(0) + 0x100 * q, 24);
    }
    expect_none(w);

    w = w_new();
    for (int q = 1; q < P; q++)
        w_send(w, q, 40, 0, 5, BUF(q), 24, 1);
    for (int q = 1; q < P; q++)
        w_recv(w, 0, 41, q, 5, BUF(0), 24);
    expect_none(w);
    (void)state;
}

/* ---- reduce --------------------------------------------------------------------------- */

#define ACC (BUF(0) + 0x4000)

/* Every other rank sends 8 bytes to rank 0, which adds each into ACC at
 * site 52 (ops[q-1]); returns the last receive's consumer index. */
static uint64_t reduce_round(struct world *w, const int *ops, uint64_t v)
{
    for (int q = 1; q < P; q++)
        w_send(w, q, 50, 0, 6, BUF(q) + 0x200, 8, v);
    uint64_t last = 0;
    for (int q = 1; q < P; q++) {
        uint32_t rp = w_recv(w, 0, 51, q, 6, BUF(0) + 0x200, 8);
        w_consume(w, 0, rp, 52, ops[q - 1], CHT_SITEF_ACCUMULATE, ACC, 8);
        last = dg_consumer_of(&w->logs[0], rp)->index;
    }
    return last;
}

static void test_reduce(void **state)
{
    static const int sum[] = {CHT_SOP_FADD, CHT_SOP_FADD, CHT_SOP_FADD};
    static const int max[] = {CHT_SOP_MAX, CHT_SOP_MAX, CHT_SOP_MAX};
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    reduce_round(w, sum, 1);
    reduce_round(w, sum, 2);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Reduce");
    assert_int_equal(h[0].line, 51);
    assert_int_equal(h[0].root, 0);
    assert_int_equal(h[0].with_window, 2);
    assert_true(has_related(&h[0], 50, SEARCH_REL_SEND));
    assert_non_null(strstr(h[0].message,
                           "combine a value from every rank into one accumulator at the root with "
                           "line 52 (fadd): use MPI_Reduce with MPI_SUM (root = rank 0;"));
    /* the root's own value is its send buffer, not added again */
    assert_non_null(strstr(h[0].coll_fix, "with the statement at line 52 (fadd) that combines the values, and on "
                                          "the other ranks, the MPI_Send calls at line 50; root = rank 0; op = "
                                          "MPI_SUM; sendbuf = the value sent, and at the root the value its "
                                          "accumulator holds before the first receive (its own contribution"));
    hints_free(h, n);
    w_free(w);

    w = w_new();
    reduce_round(w, max, 1);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_non_null(strstr(h[0].message, "use MPI_Reduce with MPI_MAX"));
    hints_free(h, n);
    w_free(w);
    (void)state;
}

static void test_reduce_near_misses(void **state)
{
    /* two different ops into one accumulator */
    static const int mixed[] = {CHT_SOP_FADD, CHT_SOP_FMUL, CHT_SOP_FADD};
    struct world *w = w_new();
    reduce_round(w, mixed, 1);
    expect_none(w);

    /* an op MPI has no predefined op for */
    static const int sub[] = {CHT_SOP_FSUB, CHT_SOP_FSUB, CHT_SOP_FSUB};
    w = w_new();
    reduce_round(w, sub, 1);
    expect_none(w);

    /* each value into its own accumulator */
    w = w_new();
    for (int q = 1; q < P; q++)
        w_send(w, q, 50, 0, 6, BUF(q), 8, 1);
    for (int q = 1; q < P; q++) {
        uint32_t rp = w_recv(w, 0, 51, q, 6, BUF(0) + 0x200, 8);
        w_consume(w, 0, rp, 52, CHT_SOP_FADD, CHT_SITEF_ACCUMULATE, ACC + 8 * q, 8);
    }
    expect_none(w);
    (void)state;
}

static void test_reduce_local(void **state)
{
    /* master_worker: acc += sums[1], acc a local the pass does not trace */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int q = 1; q < P; q++)
        w_send(w, q, 50, 0, 6, BUF(q), 8, 1);
    for (int q = 1; q < P; q++) {
        uint32_t rp = w_recv(w, 0, 51, q, 6, BUF(0) + 0x200, 8);
        w_consume(w, 0, rp, 53, CHT_SOP_NONE, 0, 0, 0);
    }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Reduce");
    assert_non_null(strstr(h[0].message,
                           "combine a value from every rank in a local variable at the root with "
                           "line 53: use MPI_Reduce with the MPI op of that statement"));
    hints_free(h, n);
    w_free(w);

    /* read by different statements: not one combination */
    w = w_new();
    for (int q = 1; q < P; q++)
        w_send(w, q, 50, 0, 6, BUF(q), 8, 1);
    for (int q = 1; q < P; q++) {
        uint32_t rp = w_recv(w, 0, 51, q, 6, BUF(0) + 0x200, 8);
        w_consume(w, 0, rp, 53 + q, CHT_SOP_NONE, 0, 0, 0);
    }
    expect_none(w);
    (void)state;
}

/* The local rule with values used, not combined: each received value
 * read by one statement that writes nothing traced, and that statement's
 * value is a count or an offset of a later MPI call (DG_MSGF_ARG), only
 * an argument of a call (ARGS_ONLY) or a loop bound (LOOP_TEST): no
 * reduce, and the candidate is reported as dropped with why. */
static void offset_round(struct world *w, uint32_t flags, uint32_t msgf)
{
    for (int q = 1; q < P; q++)
        w_send(w, q, 60, 0, 7, BUF(q), 4, 1);
    for (int q = 1; q < P; q++) {
        uint32_t rp = w_recv(w, 0, 61, q, 7, BUF(0) + 0x300, 4);
        w_consume(w, 0, rp, 62, CHT_SOP_NONE, flags, 0, 0);
        w->logs[0].rec[rp].flags |= msgf;
        w->logs[0].rec[rp].use_site = 63;
    }
}

/* The search with --explain's dropped hints, on the first np ranks of the
 * world (a run of np ranks). */
static void explain_search_np(struct world *w, int np, struct search_hint **h, uint32_t *n,
                              struct search_hint **d, uint32_t *nd)
{
    struct search_rank_result *by_rank[P];
    const struct dg_mpilog *logs[P];
    struct search_xrank x;
    memset(&x, 0, sizeof x);
    for (int r = 0; r < np; r++) {
        by_rank[r] = &w->res[r];
        logs[r] = &w->logs[r];
    }
    x.world_size = np;
    x.by_rank = by_rank;
    x.logs = logs;
    assert_int_equal(dg_match_build(logs, np, &x.match), 0);
    assert_int_equal(search_collectives_explain(&x, h, n, d, nd), 0);
    dg_match_destroy(x.match);
}

static void explain_search(struct world *w, struct search_hint **h, uint32_t *n, struct search_hint **d,
                           uint32_t *nd)
{
    explain_search_np(w, P, h, n, d, nd);
}

static void test_reduce_used_not_combined(void **state)
{
    static const struct {
        uint32_t flags, msgf;
        const char *why;
    } cases[] = {
        {0, DG_MSGF_ARG, "used as an offset/count at coll.c:63 (an argument of a later MPI call), not combined"},
        {CHT_SITEF_ARGS_ONLY, 0, "used as an offset/count at coll.c:62 (only passed to a call), not combined"},
        {CHT_SITEF_LOOP_TEST, 0, "used as a loop bound at coll.c:62, not combined"},
    };
    for (unsigned k = 0; k < sizeof cases / sizeof *cases; k++) {
        struct world *w = w_new();
        struct search_hint *h, *d;
        uint32_t n, nd;
        offset_round(w, cases[k].flags, cases[k].msgf);
        explain_search(w, &h, &n, &d, &nd);
        assert_null(find(h, n, "MPI_Reduce"));
        assert_int_equal(nd, 1);
        assert_string_equal(d[0].collective, "MPI_Reduce");
        assert_int_equal(d[0].line, 61);
        assert_non_null(strstr(d[0].message, "not a reduction"));
        assert_non_null(d[0].explain);
        assert_non_null(strstr(d[0].explain, cases[k].why));
        hints_free(h, n);
        hints_free(d, nd);
        w_free(w);
    }
    /* the same round, values combined: a local reduce, nothing dropped */
    struct world *w = w_new();
    struct search_hint *h, *d;
    uint32_t n, nd;
    offset_round(w, 0, 0);
    explain_search(w, &h, &n, &d, &nd);
    assert_non_null(find(h, n, "MPI_Reduce"));
    assert_int_equal(nd, 0);
    hints_free(h, n);
    hints_free(d, nd);
    w_free(w);
    (void)state;
}

static void test_reduce_blocks_summed(void **state)
{
    /* blocks of different sizes into slices, each first read by a sum into
     * one scalar: a gather (then a local sum), not a reduce */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    uint64_t at = BUF(0);
    for (int q = 1; q < P; q++)
        w_send(w, q, 40, 0, 5, BUF(q), 16 * q, 1);
    for (int q = 1; q < P; q++) {
        uint32_t rp = w_recv(w, 0, 41, q, 5, at, 16 * q);
        w_consume(w, 0, rp, 42, CHT_SOP_FADD, CHT_SITEF_ACCUMULATE, ACC, 8);
        at += 16 * q;
    }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Gatherv");
    hints_free(h, n);
    w_free(w);
    (void)state;
}

/* ---- the offset, length, block protocol -------------------------------------------------- */

/* Rank 0 receives from every worker q its offset (site 70) and length (71)
 * into one variable each, used by the call of the block (72, DG_MSGF_ARG),
 * then the block of 16 * q bytes at that offset; workers send from 73-75.
 * With `skip`, worker `skip` sends no offset or length; worker `between`
 * sends a message of its own on tag 5 (77 to 78) before its block. */
static void gatherv_protocol(struct world *w, int skip, int between)
{
    uint64_t at = BUF(0);
    for (int q = 1; q < P; q++) {
        if (q != skip) {
            w_send(w, q, 73, 0, 1, BUF(q), 4, 1);
            w_send(w, q, 74, 0, 2, BUF(q) + 4, 4, 1);
        }
        if (q == between)
            w_send(w, q, 77, 0, 5, BUF(q) + 8, 4, 1);
        w_send(w, q, 75, 0, 3, BUF(q) + 0x100, 16 * q, 1);
    }
    for (int q = 1; q < P; q++) {
        if (q != skip) {
            for (int k = 0; k < 2; k++) {
                uint32_t rp = w_recv(w, 0, 70 + k, q, 1 + k, BUF(0) + 0x800 + 4 * k, 4);
                w_consume(w, 0, rp, 76, CHT_SOP_NONE, 0, 0, 0);
                w->logs[0].rec[rp].flags |= DG_MSGF_ARG;
                w->logs[0].rec[rp].use_site = 72;
            }
        }
        if (q == between)
            w_recv(w, 0, 78, q, 5, BUF(0) + 0x900, 4);
        w_recv(w, 0, 72, q, 3, at, 16 * q);
        at += 16 * q;
    }
}

static void test_gatherv_protocol(void **state)
{
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    gatherv_protocol(w, 0, -1);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Gatherv");
    assert_int_equal(h[0].line, 70);
    assert_true(has_related(&h[0], 71, SEARCH_REL_RECV));
    assert_true(has_related(&h[0], 72, SEARCH_REL_RECV));
    assert_true(has_related(&h[0], 73, SEARCH_REL_SEND));
    assert_true(has_related(&h[0], 75, SEARCH_REL_SEND));
    assert_non_null(strstr(h[0].message, "the offsets and lengths become its displs and recvcounts arrays, "
                                         "needed on the root only"));
    hints_free(h, n);
    w_free(w);

    /* one worker sends its block alone: a gatherv of the blocks, the
     * offsets and lengths are not part of it; so when worker 1's block
     * follows a message of its own that no pattern can use (one peer only:
     * left out of the sparse logs, sparse.c), as its offset and length are
     * not right before its block */
    for (int k = 0; k < 2; k++) {
        w = w_new();
        gatherv_protocol(w, k ? 0 : 2, k ? 1 : -1);
        w_search(w, &h, &n);
        const struct search_hint *g = find(h, n, "MPI_Gatherv");
        assert_non_null(g);
        assert_int_equal(g->line, 72);
        assert_false(has_related(g, 70, SEARCH_REL_RECV));
        assert_null(strstr(g->message, "displs"));
        hints_free(h, n);
        w_free(w);
    }
    (void)state;
}

static void test_scatterv_protocol(void **state)
{
    /* rank 0 sends every worker its offset (80) and length (81), which the
     * call of the block (82) loads, then the block at that offset */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    uint64_t at = BUF(0);
    for (int q = 1; q < P; q++) {
        for (int k = 0; k < 2; k++) {
            uint32_t sp = w_send(w, 0, 80 + k, q, 1 + k, BUF(0) + 0x800 + 4 * k, 4, 1 + q);
            w->logs[0].rec[sp].flags |= DG_MSGF_ARG;
            w->logs[0].rec[sp].use_site = 82;
        }
        w_send(w, 0, 82, q, 3, at, 16 * q, 1);
        at += 16 * q;
    }
    for (int q = 1; q < P; q++) {
        w_recv(w, q, 83, 0, 1, BUF(q), 4);
        w_recv(w, q, 84, 0, 2, BUF(q) + 4, 4);
        w_recv(w, q, 85, 0, 3, BUF(q) + 0x100, 16 * q);
    }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Scatterv");
    assert_int_equal(h[0].line, 80);
    assert_true(has_related(&h[0], 81, SEARCH_REL_SEND));
    assert_true(has_related(&h[0], 82, SEARCH_REL_SEND));
    assert_true(has_related(&h[0], 85, SEARCH_REL_RECV));
    assert_non_null(strstr(h[0].message, "displs and sendcounts arrays, needed on the root only"));
    hints_free(h, n);
    w_free(w);
    (void)state;
}

static void test_control_values(void **state)
{
    /* rank 0 receives a count from every worker into one variable (90),
     * each the count of the next receive (91) into one scratch buffer:
     * MPI_Gather of the counts; the blocks are neither gather nor reduce */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int q = 1; q < P; q++) {
        w_send(w, q, 93, 0, 1, BUF(q), 4, 1);
        w_send(w, q, 94, 0, 2, BUF(q) + 0x100, 8 * q, 1);
    }
    for (int q = 1; q < P; q++) {
        uint32_t rp = w_recv(w, 0, 90, q, 1, BUF(0) + 0x800, 4);
        w_consume(w, 0, rp, 92, CHT_SOP_NONE, CHT_SITEF_ARGS_ONLY, 0, 0);
        w->logs[0].rec[rp].flags |= DG_MSGF_ARG;
        w->logs[0].rec[rp].use_site = 91;
        w_recv(w, 0, 91, q, 2, BUF(0) + 0x900, 8 * q);
    }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Gather");
    assert_int_equal(h[0].line, 90);
    assert_true(has_related(&h[0], 93, SEARCH_REL_SEND));
    assert_non_null(strstr(h[0].message, "receive one value from every rank into one variable, each a count or an "
                                         "offset of the MPI call at line 91, not combined: use MPI_Gather into "
                                         "an array of one value per rank"));
    hints_free(h, n);
    w_free(w);

    /* the same without DG_MSGF_ARG on one of them: nothing */
    w = w_new();
    for (int q = 1; q < P; q++)
        w_send(w, q, 93, 0, 1, BUF(q), 4, 1);
    for (int q = 1; q < P; q++) {
        uint32_t rp = w_recv(w, 0, 90, q, 1, BUF(0) + 0x800, 4);
        if (q != 2) {
            w->logs[0].rec[rp].flags |= DG_MSGF_ARG;
            w->logs[0].rec[rp].use_site = 91;
        }
    }
    expect_none(w);

    /* rank 0 sends every worker a count from one variable, rewritten for
     * each (versions differ): MPI_Scatter */
    w = w_new();
    for (int q = 1; q < P; q++) {
        uint32_t sp = w_send(w, 0, 95, q, 1, BUF(0) + 0x800, 4, 10 + q);
        w->logs[0].rec[sp].flags |= DG_MSGF_ARG;
        w->logs[0].rec[sp].use_site = 96;
    }
    for (int q = 1; q < P; q++)
        w_recv(w, q, 97, 0, 1, BUF(q), 4);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Scatter");
    assert_int_equal(h[0].line, 95);
    assert_non_null(strstr(h[0].message, "use MPI_Scatter from an array of one value per rank"));
    hints_free(h, n);
    w_free(w);
    (void)state;
}

static void test_allreduce(void **state)
{
    static const int sum[] = {CHT_SOP_FADD, CHT_SOP_FADD, CHT_SOP_FADD};
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    uint64_t last = reduce_round(w, sum, 1);
    assert_true(w_next(w, 0) > last);
    for (int d = 1; d < P; d++) /* the accumulator, as left by the last addition */
        w_send(w, 0, 55, d, 7, ACC, 8, last + 1);
    for (int d = 1; d < P; d++)
        w_recv(w, d, 56, 0, 7, BUF(d) + 0x300, 8);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Allreduce");
    assert_int_equal(h[0].line, 51);
    assert_true(has_related(&h[0], 50, SEARCH_REL_SEND));
    assert_true(has_related(&h[0], 55, SEARCH_REL_SEND));
    assert_true(has_related(&h[0], 56, SEARCH_REL_RECV));
    assert_non_null(
        strstr(h[0].message, "and send the result back to every rank: use MPI_Allreduce with MPI_SUM"));
    hints_free(h, n);
    w_free(w);

    /* the root sends something else back: a reduce and a broadcast */
    w = w_new();
    last = reduce_round(w, sum, 1);
    for (int d = 1; d < P; d++)
        w_send(w, 0, 55, d, 7, ACC + 64, 8, last + 1);
    for (int d = 1; d < P; d++)
        w_recv(w, d, 56, 0, 7, BUF(d) + 0x300, 8);
    w_search(w, &h, &n);
    assert_int_equal(n, 2);
    assert_non_null(find(h, n, "MPI_Reduce"));
    assert_non_null(find(h, n, "MPI_Bcast"));
    hints_free(h, n);
    w_free(w);

    /* records no pattern can use between the reduce and the broadcast
     * (left out of the sparse logs, sparse.c): a wait lets the result go
     * back as one MPI_Allreduce; a send of the root to one rank does not */
    for (int with_send = 0; with_send < 2; with_send++) {
        w = w_new();
        last = reduce_round(w, sum, 1);
        uint32_t wpos;
        w_rec(w, 0, 57, DG_MSG_OTHER, &wpos);
        if (with_send) {
            w_send(w, 0, 58, 1, 5, ACC + 64, 8, 1);
            w_recv(w, 1, 59, 0, 5, BUF(1) + 0x400, 8);
        }
        for (int d = 1; d < P; d++)
            w_send(w, 0, 55, d, 7, ACC, 8, last + 1);
        for (int d = 1; d < P; d++)
            w_recv(w, d, 56, 0, 7, BUF(d) + 0x300, 8);
        w_search(w, &h, &n);
        assert_int_equal(n, with_send ? 2 : 1);
        assert_true(with_send ? find(h, n, "MPI_Reduce") && find(h, n, "MPI_Bcast") && !find(h, n, "MPI_Allreduce")
                              : find(h, n, "MPI_Allreduce") != NULL);
        /* its changes name the calls' records in the whole logs */
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t k = 0; k < h[i].nchanges; k++) {
                const struct dg_change *ch = &h[i].changes[k];
                assert_true(ch->pos < w->logs[ch->rank].n);
                uint32_t site = w->logs[ch->rank].rec[ch->pos].site;
                assert_true(site == 50 || site == 51 || site == 55 || site == 56);
            }
        hints_free(h, n);
        w_free(w);
    }
    (void)state;
}

/* ---- alltoall and allgather ------------------------------------------------------------ */

#define SBUF(r) (BUF(r) + 0x8000)
#define RBUF(r) (BUF(r) + 0x9000)

static void test_alltoall(void **state)
{
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int r = 0; r < P; r++)
        for (int i = 1; i < P; i++) {
            int dst = (r + i) % P, src = (r - i + P) % P;
            w_sendrecv(w, r, 60, dst, SBUF(r) + 32 * dst, 32, 1, src, RBUF(r) + 32 * src, 32, NULL, NULL);
        }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Alltoall");
    assert_int_equal(h[0].line, 60);
    assert_int_equal(h[0].call, CHT_MPI_SENDRECV);
    assert_int_equal(h[0].root, -1);
    assert_int_equal(h[0].nranks, 4);
    assert_int_equal(h[0].members, 12);
    assert_int_equal(h[0].nrelated, 0);
    assert_non_null(strstr(h[0].message,
                           "the MPI_Sendrecv calls at line 60 exchange a distinct block between "
                           "every pair of ranks: use MPI_Alltoall (ranks 0-3, 1 instance"));
    hints_free(h, n);
    w_free(w);
    (void)state;
}

static void test_alltoall_send_recv_sites(void **state)
{
    /* dft: the lower rank of each pair sends first, from another line */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int r = 0; r < P; r++)
        for (int q = 0; q < P; q++) {
            if (q == r)
                continue;
            if (r < q) {
                w_send(w, r, 61, q, 1, SBUF(r) + 32 * q, 32, 1);
                w_recv(w, r, 62, q, 1, RBUF(r) + 32 * q, 32);
            } else {
                w_recv(w, r, 63, q, 1, RBUF(r) + 32 * q, 32);
                w_send(w, r, 64, q, 1, SBUF(r) + 32 * q, 32, 1);
            }
        }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Alltoall");
    assert_int_equal(h[0].line, 61);
    assert_true(has_related(&h[0], 62, SEARCH_REL_RECV));
    assert_true(has_related(&h[0], 63, SEARCH_REL_RECV));
    assert_true(has_related(&h[0], 64, SEARCH_REL_SEND));
    hints_free(h, n);
    w_free(w);
    (void)state;
}

static void test_alltoall_partners_by_site(void **state)
{
    /* a neighbour exchange (LULESH): each partner direction from a call
     * site of its own, one block each; with 4 ranks the directions happen
     * to reach every other rank.  The hint says it is every pair only with
     * this run's ranks, and names the neighbourhood collective. */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int r = 0; r < P; r++) {
        for (int i = 1; i < P; i++) {
            int src = (r - i + P) % P;
            w_recv(w, r, 70 + (uint32_t)i, src, 1, RBUF(r) + 32 * src, 32);
        }
        for (int i = 1; i < P; i++) {
            int dst = (r + i) % P;
            w_send(w, r, 80 + (uint32_t)i, dst, 1, SBUF(r) + 32 * dst, 32, 1);
        }
    }
    w_search(w, &h, &n);
    const struct search_hint *a = find(h, n, "MPI_Alltoall");
    assert_non_null(a);
    assert_non_null(strstr(a->message, "each block from a call site of its own (3 send sites, one partner each): "
                                       "that is every pair with this run's 4 ranks, not necessarily with others; "
                                       "use MPI_Alltoall if the code runs on 4 ranks only, else "
                                       "MPI_Neighbor_alltoallv"));
    hints_free(h, n);
    w_free(w);
    /* test_alltoall's one call site in a loop over the ranks: no such words */
    w = w_new();
    for (int r = 0; r < P; r++)
        for (int i = 1; i < P; i++) {
            int dst = (r + i) % P, src = (r - i + P) % P;
            w_sendrecv(w, r, 60, dst, SBUF(r) + 32 * dst, 32, 1, src, RBUF(r) + 32 * src, 32, NULL, NULL);
        }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_null(strstr(h[0].message, "call site of its own"));
    hints_free(h, n);
    w_free(w);
    (void)state;
}

static void test_alltoall_near_misses(void **state)
{
    /* rank 2 sends the same block to everyone: not distinct slices */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int r = 0; r < P; r++)
        for (int i = 1; i < P; i++) {
            int dst = (r + i) % P, src = (r - i + P) % P;
            uint64_t sb = r == 2 ? SBUF(r) : SBUF(r) + 32 * dst;
            w_sendrecv(w, r, 60, dst, sb, 32, 1, src, RBUF(r) + 32 * src, 32, NULL, NULL);
        }
    w_search(w, &h, &n);
    assert_null(find(h, n, "MPI_Alltoall"));
    assert_null(find(h, n, "MPI_Alltoallv"));
    hints_free(h, n);
    w_free(w);

    /* rank 1 writes a block it sends after its first receive of the exchange */
    w = w_new();
    for (int r = 0; r < P; r++)
        for (int i = 1; i < P; i++) {
            int dst = (r + i) % P, src = (r - i + P) % P;
            uint64_t v = r == 1 && i == 3 ? w_next(w, r) - 1 : 1;
            w_sendrecv(w, r, 60, dst, SBUF(r) + 32 * dst, 32, v, src, RBUF(r) + 32 * src, 32, NULL, NULL);
        }
    w_search(w, &h, &n);
    assert_null(find(h, n, "MPI_Alltoall"));
    hints_free(h, n);
    w_free(w);
    (void)state;
}

/* Ring allgather in place: block j of every rank's buffer is rank j's; at
 * step s rank r sends block (r - s) to r + 1 and receives block (r - s - 1)
 * from r - 1, forwarding from step 1 on.  steps: how many. */
static void ring_allgather(struct world *w, int steps, uint64_t own_version)
{
    uint32_t last_recv[P] = {0};
    for (int s = 0; s < steps; s++)
        for (int r = 0; r < P; r++) {
            int right = (r + 1) % P, left = (r + P - 1) % P;
            int sblk = (r - s + P) % P, rblk = (r - s - 1 + 2 * P) % P;
            uint32_t sp, rp;
            w_sendrecv(w, r, 70, right, RBUF(r) + 16 * sblk, 16, own_version, left, RBUF(r) + 16 * rblk, 16,
                       &sp, &rp);
            if (s > 0)
                w_forward(w, r, sp, last_recv[r]);
            last_recv[r] = rp;
        }
}

static void test_allgather_ring(void **state)
{
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    ring_allgather(w, P - 1, 1);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Allgather");
    assert_int_equal(h[0].line, 70);
    assert_int_equal(h[0].root, -1);
    assert_int_equal(h[0].with_window, 1);
    assert_int_equal(h[0].members, P * (P - 1));
    assert_non_null(
        strstr(h[0].message, "pass every rank's block to every other rank along a ring: use MPI_Allgather"));
    hints_free(h, n);
    w_free(w);

    /* the ring stops one step early: nobody has every block */
    w = w_new();
    ring_allgather(w, P - 2, 1);
    expect_none(w);
    (void)state;
}

static void test_allgather_flat_and_dependent(void **state)
{
    /* every rank sends its block to every other rank, into slices */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int r = 0; r < P; r++)
        for (int d = 0; d < P; d++)
            if (d != r)
                w_send(w, r, 71, d, 0, RBUF(r) + 8 * r, 8, 1);
    for (int r = 0; r < P; r++)
        for (int q = 0; q < P; q++)
            if (q != r)
                w_recv(w, r, 72, q, 0, RBUF(r) + 8 * q, 8);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Allgather");
    assert_non_null(strstr(h[0].message, "pass every rank's block to every other rank: use MPI_Allgather"));
    hints_free(h, n);
    w_free(w);

    /* gauss back substitution: x[i] is computed from the x received before
     * it, so the broadcasts depend on each other: broadcasts, no allgather */
    w = w_new();
    for (int i = 7; i >= 0; i--) {
        int root = i % P;
        uint64_t v = w_next(w, root) - 1; /* written just now */
        for (int d = 0; d < P; d++)
            if (d != root)
                w_send(w, root, 73, d, 2, RBUF(root) + 8 * i, 8, v);
        for (int d = 0; d < P; d++)
            if (d != root)
                w_recv(w, d, 74, root, 2, RBUF(d) + 8 * i, 8);
    }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Bcast");
    assert_int_equal(h[0].with_window, 8);
    hints_free(h, n);
    w_free(w);
    (void)state;
}

/* ---- repeated collectives ----------------------------------------------------------------- */

/* Two back-to-back Gathers to root 0 on every rank, at sites a and b, of
 * separate 8-byte send and 32-byte receive buffers. */
static void two_gathers(struct world *w, uint32_t a, uint32_t b)
{
    for (int r = 0; r < P; r++) {
        w_coll(w, r, a, CHT_MPI_GATHER, 0, 0, BUF(r), 8, r == 0 ? BUF(r) + 0x100 : 0, r == 0 ? 32 : 0, 1);
        w_coll(w, r, b, CHT_MPI_GATHER, 0, 1, BUF(r) + 8, 8, r == 0 ? BUF(r) + 0x200 : 0, r == 0 ? 32 : 0,
               1);
    }
}

static void test_repeat(void **state)
{
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    two_gathers(w, 80, 81);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Gather");
    assert_int_equal(h[0].call, CHT_MPI_GATHER);
    assert_int_equal(h[0].line, 80);
    assert_int_equal(h[0].root, 0);
    assert_int_equal(h[0].with_window, 1);
    assert_true(has_related(&h[0], 81, SEARCH_REL_COLL));
    assert_non_null(strstr(h[0].message,
                           "the 2 MPI_Gather calls at lines 80, 81 can be one MPI_Gather of their "
                           "concatenated buffers (ranks 0-3, 1 instance, est. saving 1.0 us)"));
    hints_free(h, n);
    w_free(w);
    (void)state;
}

/* Calls whose site has no line (line 0: at -O2 LLVM gives the calls it
 * merges from both branches of an if line 0) are named by their function,
 * not as "line 0". */
static void test_repeat_unknown_line(void **state)
{
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (uint32_t s = 150; s <= 151; s++) {
        infos[s].line = infos[s].col = 0;
        infos[s].func = "stats";
    }
    two_gathers(w, 150, 151);
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_non_null(strstr(h[0].message, "the 2 MPI_Gather calls at an unknown line in stats() can be one "
                                         "MPI_Gather of their concatenated buffers"));
    assert_null(strstr(h[0].message, "line 0"));
    hints_free(h, n);
    w_free(w);
    setup(state); /* the site table as the other tests have it */
}

static void test_repeat_near_misses(void **state)
{
    /* the second send buffer is written between the calls */
    struct world *w = w_new();
    for (int r = 0; r < P; r++) {
        w_coll(w, r, 80, CHT_MPI_BCAST, 0, 0, BUF(r), 8, 0, 0, 1);
        w_coll(w, r, 81, CHT_MPI_BCAST, 0, 1, BUF(r) + 8, 8, 0, 0, w_next(w, r) - 5);
    }
    expect_none(w);

    /* the second sends what the first received */
    w = w_new();
    for (int r = 0; r < P; r++) {
        w_coll(w, r, 80, CHT_MPI_ALLREDUCE, -1, 0, BUF(r), 8, BUF(r) + 8, 8, 1);
        w_coll(w, r, 81, CHT_MPI_ALLREDUCE, -1, 1, BUF(r) + 8, 8, BUF(r) + 16, 8, 1);
    }
    expect_none(w);

    /* different roots */
    w = w_new();
    for (int r = 0; r < P; r++) {
        w_coll(w, r, 80, CHT_MPI_BCAST, 0, 0, BUF(r), 8, 0, 0, 1);
        w_coll(w, r, 81, CHT_MPI_BCAST, 1, 1, BUF(r) + 8, 8, 0, 0, 1);
    }
    expect_none(w);

    /* a message between them on rank 2 */
    w = w_new();
    for (int r = 0; r < P; r++) {
        w_coll(w, r, 80, CHT_MPI_BCAST, 0, 0, BUF(r), 8, 0, 0, 1);
        if (r == 2)
            w_send(w, 2, 90, 3, 0, BUF(2) + 64, 8, 1);
        if (r == 3)
            w_recv(w, 3, 91, 2, 0, BUF(3) + 64, 8);
        w_coll(w, r, 81, CHT_MPI_BCAST, 0, 1, BUF(r) + 8, 8, 0, 0, 1);
    }
    expect_none(w);

    /* reductions with two operators (MPI_MIN, then MPI_SUM) */
    w = w_new();
    for (int r = 0; r < P; r++) {
        uint32_t a = w_coll(w, r, 80, CHT_MPI_ALLREDUCE, -1, 0, BUF(r), 8, BUF(r) + 8, 8, 1);
        w->logs[r].rec[a].mpi_op = CHT_OP_MIN;
        w_coll(w, r, 81, CHT_MPI_ALLREDUCE, -1, 1, BUF(r) + 16, 8, BUF(r) + 24, 8, 1);
    }
    expect_none(w);

    /* one operator, two datatypes (a long, then a double) */
    w = w_new();
    for (int r = 0; r < P; r++) {
        uint32_t a = w_coll(w, r, 80, CHT_MPI_REDUCE, 0, 0, BUF(r), 8, r ? 0 : BUF(r) + 8, r ? 0 : 8, 1);
        w->logs[r].rec[a].dtype = CHT_DT_LONG;
        w_coll(w, r, 81, CHT_MPI_REDUCE, 0, 1, BUF(r) + 16, 8, r ? 0 : BUF(r) + 24, r ? 0 : 8, 1);
    }
    expect_none(w);

    /* a datatype that is not predefined (or a trace without datatypes) */
    w = w_new();
    for (int r = 0; r < P; r++) {
        uint32_t a = w_coll(w, r, 80, CHT_MPI_ALLREDUCE, -1, 0, BUF(r), 8, BUF(r) + 8, 8, 1);
        uint32_t b = w_coll(w, r, 81, CHT_MPI_ALLREDUCE, -1, 1, BUF(r) + 16, 8, BUF(r) + 24, 8, 1);
        w->logs[r].rec[a].dtype = w->logs[r].rec[b].dtype = CHT_DT_UNKNOWN;
    }
    expect_none(w);

    /* the first result is used (its first consumer) before the second call:
     * a count or a buffer computed from it */
    w = w_new();
    for (int r = 0; r < P; r++) {
        uint32_t a = w_coll(w, r, 80, CHT_MPI_BCAST, 0, 0, r ? 0 : BUF(r), r ? 0 : 4, r ? BUF(r) : 0,
                            r ? 4 : 0, 1);
        struct dg_msgrec *x = &w->logs[r].rec[a];
        if (r) {
            x->flags |= DG_MSGF_CONSUMED;
            struct dg_consumer c = {.index = x->index + 5, .pos = a};
            assert_int_equal(dg_mpilog_set_consumer(&w->logs[r], &c), 0);
        }
        w_coll(w, r, 81, CHT_MPI_BCAST, 0, 1, r ? 0 : BUF(r) + 8, r ? 0 : 8, r ? BUF(r) + 8 : 0,
               r ? 8 : 0, 1);
    }
    expect_none(w);

    /* nothing moves (count 0 everywhere) */
    w = w_new();
    for (int r = 0; r < P; r++) {
        w_coll(w, r, 80, CHT_MPI_BCAST, 0, 0, 0, 0, 0, 0, 1);
        w_coll(w, r, 81, CHT_MPI_BCAST, 0, 1, 0, 0, 0, 0, 1);
    }
    expect_none(w);
    (void)state;
}

static void test_repeat_mixed_types(void **state)
{
    /* broadcasts of an int array and a double array: one MPI_Bcast with a
     * derived datatype */
    struct world *w = w_new();
    struct search_hint *h;
    uint32_t n;
    for (int r = 0; r < P; r++) {
        uint32_t a = w_coll(w, r, 80, CHT_MPI_BCAST, 0, 0, r ? 0 : BUF(r), r ? 0 : 16,
                            r ? BUF(r) : 0, r ? 16 : 0, 1);
        w->logs[r].rec[a].dtype = CHT_DT_INT;
        w_coll(w, r, 81, CHT_MPI_BCAST, 0, 1, r ? 0 : BUF(r) + 32, r ? 0 : 32, r ? BUF(r) + 32 : 0,
               r ? 32 : 0, 1);
    }
    w_search(w, &h, &n);
    assert_int_equal(n, 1);
    assert_string_equal(h[0].collective, "MPI_Bcast");
    assert_non_null(strstr(h[0].message, "the 2 MPI_Bcast calls at lines 80, 81 can be one MPI_Bcast "
                                         "with a derived datatype (or a struct) covering their buffers"));
    hints_free(h, n);
    w_free(w);
    (void)state;
}

/* ---- ordinary point-to-point traffic ------------------------------------------------------- */

static void test_halo_exchange(void **state)
{
    /* a periodic 1-D halo exchange: each rank sends different boundary
     * values to its two neighbours; nothing collective about it */
    struct world *w = w_new();
    for (int it = 0; it < 3; it++)
        for (int r = 0; r < P; r++) {
            int left = (r + P - 1) % P, right = (r + 1) % P;
            w_sendrecv(w, r, 95, left, BUF(r) + 8, 8, 1 + it, right, BUF(r) + 0x100, 8, NULL, NULL);
            w_sendrecv(w, r, 96, right, BUF(r) + 0x80, 8, 1 + it, left, BUF(r), 8, NULL, NULL);
        }
    expect_none(w);
    (void)state;
}

/* ---- communicators of two ranks ------------------------------------------------------------ */

/* The record at pos of rank r travels on communicator comm of size ranks. */
static void w_on_comm(struct world *w, int r, uint32_t pos, uint64_t comm, uint32_t size)
{
    w->logs[r].rec[pos].comm = comm;
    w->logs[r].rec[pos].comm_size = size;
}

/* A row broadcast on a 2x2 grid: rank 0 sends to rank 1 and rank 2 to
 * rank 3, each pair a communicator of two ranks (10 and 11), from site 90
 * into site 91, three times. */
static void grid_rows(struct world *w)
{
    for (int it = 0; it < 3; it++)
        for (int r = 0; r < P; r += 2) {
            w_on_comm(w, r, w_send(w, r, 90, r + 1, 1, BUF(r), 64, 1 + it), 10 + r / 2, 2);
            w_on_comm(w, r + 1, w_recv(w, r + 1, 91, r, 1, BUF(r + 1), 64), 10 + r / 2, 2);
        }
}

/* The dropped hints of a world, which gets no collective hint (freed). */
static void two_ranks_search(struct world *w, int np, struct search_hint **d, uint32_t *nd)
{
    struct search_hint *h;
    uint32_t n;
    explain_search_np(w, np, &h, &n, d, nd);
    assert_int_equal(n, 0);
    hints_free(h, n);
    w_free(w);
}

static void test_two_ranks(void **state)
{
    struct search_hint *d;
    uint32_t nd;
    /* one entry for the pair of sites, at the send, over both rows */
    struct world *w = w_new();
    grid_rows(w);
    two_ranks_search(w, P, &d, &nd);
    assert_int_equal(nd, 1);
    assert_int_equal(d[0].kind, SEARCH_HINT_COLLECTIVE);
    assert_int_equal(d[0].line, 90);
    assert_int_equal(d[0].call, CHT_MPI_SEND);
    assert_null(d[0].collective);
    assert_int_equal(d[0].root, -1);
    assert_int_equal(d[0].instances, 6);
    assert_int_equal(d[0].nranks, 4);
    assert_string_equal(d[0].message, "the MPI_Send calls at line 90 and the MPI_Recv calls at line 91 move data "
                                      "only between the two ranks of their communicator (6 messages)");
    assert_non_null(strstr(d[0].explain, "each round is one message"));
    assert_non_null(strstr(d[0].explain, "with 3 or more ranks per communicator these sites are checked"));
    hints_free(d, nd);

    /* the send site also sends on the world communicator: it is searched */
    w = w_new();
    grid_rows(w);
    w_send(w, 0, 90, 2, 2, BUF(0), 64, 1);
    w_recv(w, 2, 92, 0, 2, BUF(2), 64);
    two_ranks_search(w, P, &d, &nd);
    assert_int_equal(nd, 0);
    hints_free(d, nd);

    /* a run of two ranks in all: nothing (every message would be listed) */
    w = w_new();
    grid_rows(w);
    two_ranks_search(w, 2, &d, &nd);
    assert_int_equal(nd, 0);
    hints_free(d, nd);

    /* a Sendrecv exchange within each pair: one site, named once */
    w = w_new();
    for (int r = 0; r < P; r++) {
        uint32_t a, b;
        w_sendrecv(w, r, 93, r ^ 1, BUF(r), 8, 1, r ^ 1, BUF(r) + 0x100, 8, &a, &b);
        w_on_comm(w, r, a, 10 + r / 2, 2);
        w_on_comm(w, r, b, 10 + r / 2, 2);
    }
    two_ranks_search(w, P, &d, &nd);
    assert_int_equal(nd, 1);
    assert_string_equal(d[0].message, "the MPI_Sendrecv calls at line 93 move data only between the two ranks of "
                                      "their communicator (4 messages)");
    hints_free(d, nd);

    /* the halo exchange of the world: searched, nothing to say */
    w = w_new();
    for (int r = 0; r < P; r++)
        w_sendrecv(w, r, 95, (r + P - 1) % P, BUF(r) + 8, 8, 1, (r + 1) % P, BUF(r) + 0x100, 8, NULL, NULL);
    two_ranks_search(w, P, &d, &nd);
    assert_int_equal(nd, 0);
    hints_free(d, nd);
    (void)state;
}

static void test_empty(void **state)
{
    struct world *w = w_new();
    expect_none(w);
    struct search_xrank x;
    memset(&x, 0, sizeof x);
    struct search_hint *h = (void *)1;
    uint32_t n = 1;
    assert_int_equal(search_collectives(&x, &h, &n), 0);
    assert_null(h);
    assert_int_equal(n, 0);
    (void)state;
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, setup)
    const struct CMUnitTest tests[] = {
        T(test_bcast_flat),
        T(test_bcast_nonblocking),
        T(test_saving_wait_free),
        T(test_bcast_misses_a_rank),
        T(test_bcast_bytes_change),
        T(test_bcast_rotating_root),
        T(test_bcast_ring),
        T(test_bcast_tree),
        T(test_bcast_tag_per_rank),
        T(test_scatter),
        T(test_scatter_near_misses),
        T(test_scatter_interleaved),
        T(test_gather),
        T(test_gather_same_address),
        T(test_reduce),
        T(test_reduce_near_misses),
        T(test_reduce_local),
        T(test_reduce_used_not_combined),
        T(test_reduce_blocks_summed),
        T(test_gatherv_protocol),
        T(test_scatterv_protocol),
        T(test_control_values),
        T(test_allreduce),
        T(test_alltoall),
        T(test_alltoall_send_recv_sites),
        T(test_alltoall_near_misses),
        T(test_alltoall_partners_by_site),
        T(test_allgather_ring),
        T(test_allgather_flat_and_dependent),
        T(test_repeat),
        T(test_repeat_unknown_line),
        T(test_repeat_near_misses),
        T(test_repeat_mixed_types),
        T(test_halo_exchange),
        T(test_two_ranks),
        T(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
