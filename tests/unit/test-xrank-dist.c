/* test-xrank-dist.c - the cross-rank stage spread over K processes
 * (depgraph's struct dg_xchg; K threads of this process stand for the
 * processes): on random runs, every process holding the logs of some ranks
 * only, the distributed matching (dg_match_build_dist) gives each process
 * the answers the serial dg_match_build gives about its ranks, and the
 * distributed wait states (search_waitstates) give the serial report,
 * the distributed replay of a changed run finds the serial stall, and the
 * distributed happens-before (dg_hb_answer_dist) gives each process the
 * serial answers to its own queries and every process the serial chain of
 * an explanation (dg_hb_chain_dist), and the distributed timed replay
 * (dg_replay_run_dist) ends each rank where the serial one does, to the
 * bit, with the parameters the serial fit gives (dg_replay_fit_dist), and
 * the kinds' facts of other ranks' records gathered on process 0
 * (search_xrank_peer_facts) and the aggregation checks' verdicts
 * (search_deadlock_verdicts) are the serial ones.
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

#include "helpers/candidates-oracle.h"
#include "helpers/fit-oracle.h"
#include "helpers/mpilog.h"
#include "helpers/replay-oracle.h"
#include "helpers/stall-oracle.h"
#include "replay-private.h"
#include "search-private.h"
#include "xrank/collectives/collectives-private.h"

/* ---- random runs -------------------------------------------------------------------- */

#define MAXP 12

static struct dg_msgrec *add(struct dg_mpilog *g, uint8_t kind, uint16_t call)
{
    struct dg_msgrec *r = mpilog_push(g);
    r->kind = kind;
    r->call = call;
    return r;
}

static uint64_t rnd(uint64_t n)
{
    return (uint64_t)rand() % n;
}

/* Messages on random channels (two communicators, three tags, some never
 * received or never sent, some sent to a rank without a log), collectives
 * on the world and on a communicator of the even ranks (some members
 * missing), and random times. */
#define MONO0 1000000000ull          /* a rank's monotonic clock at its first sample, ns */
#define REAL0 1700000000000000000ull /* CLOCK_REALTIME then, ns */

/* A record at global time T on rank r, whose monotonic clock is off[r]
 * behind the others'. */
static void at(struct dg_msgrec *x, uint64_t T, int64_t off)
{
    x->t_enter = (uint64_t)((int64_t)(MONO0 + T + rnd(400)) - off);
    x->t_exit = x->t_enter + rnd(500);
}

/* offs: each rank's clock offset (0 on one host, up to 5 ms otherwise);
 * with `skew`, one receive ends long before its send starts, so that the
 * clocks cannot be trusted. */
struct pending {
    uint64_t comm, seq;
    uint32_t size, start;
};

static void complete(struct dg_mpilog *g, const struct pending *p, uint64_t T, int64_t off)
{
    struct dg_msgrec *x = add(g, DG_MSG_COLL, CHT_MPI_IALLREDUCE);
    x->comm = p->comm;
    x->seq = p->seq;
    x->comm_size = p->size;
    x->flags |= DG_MSGF_NONBLOCKING;
    x->fwd_pos = p->start;
    x->bytes = x->rbytes = 8;
    at(x, T, off);
}

static void random_run_nb(struct dg_mpilog *l, int P, int nops, const int64_t *off, bool skew, bool nb)
{
    static uint64_t chan[2][MAXP][MAXP][3];
    static struct pending pend[MAXP][8];
    int npend[MAXP] = {0};
    uint64_t cseq[2] = {0, 0}, T = 10000;
    memset(chan, 0, sizeof chan);
    for (int r = 0; r < P; r++)
        l[r] = (struct dg_mpilog){.rank = r};
    for (int op = 0; op < nops; op++, T += 1000) {
        int c = (int)rnd(2);
        uint64_t comm = c ? 0x77 : CHT_COMM_WORLD;
        if (nb && rnd(6) == 0) {
            /* a nonblocking collective: starts now, each member completes
             * it at a later op (an OTHER record, then a COLL record whose
             * fwd_pos is the start) */
            uint64_t seq = cseq[c]++;
            for (int r = 0; r < P; r++) {
                if ((c && r % 2) || npend[r] == 8)
                    continue;
                struct dg_msgrec *st = add(&l[r], DG_MSG_OTHER, CHT_MPI_IALLREDUCE);
                at(st, T, off[r]);
                pend[r][npend[r]++] = (struct pending){comm, seq, c ? (uint32_t)(P + 1) / 2 : (uint32_t)P,
                                                       l[r].n - 1};
            }
            continue;
        }
        if (nb && rnd(3) == 0) {
            int r = (int)rnd((uint64_t)P);
            if (npend[r])
                complete(&l[r], &pend[r][0], T, off[r]), memmove(pend[r], pend[r] + 1, --npend[r] * sizeof **pend);
            continue;
        }
        if (rnd(4) == 0) {
            uint64_t seq = cseq[c]++;
            uint16_t call = rnd(2) ? CHT_MPI_ALLREDUCE : CHT_MPI_BCAST;
            uint32_t size = c ? (uint32_t)(P + 1) / 2 : (uint32_t)P;
            for (int r = 0; r < P; r++) {
                if ((c && r % 2) || rnd(10) == 0)
                    continue;
                struct dg_msgrec *x = add(&l[r], DG_MSG_COLL, call);
                x->comm = comm;
                x->seq = seq;
                x->comm_size = size;
                x->peer = call == CHT_MPI_BCAST ? 0 : -1;
                x->bytes = x->rbytes = 8;
                if (call == CHT_MPI_BCAST && r == 0)
                    x->flags |= DG_MSGF_ROOT;
                at(x, T, off[r]);
            }
            continue;
        }
        int s = (int)rnd((uint64_t)P), d = (int)rnd((uint64_t)P), tag = (int)rnd(3);
        uint64_t seq = chan[c][s][d][tag]++;
        int what = (int)rnd(12); /* 0: never received, 1: never sent */
        if (what != 1) {
            struct dg_msgrec *x = add(&l[s], DG_MSG_SEND, rnd(2) ? CHT_MPI_SEND : CHT_MPI_ISEND);
            x->comm = comm;
            x->peer = d;
            x->tag = tag;
            x->seq = seq;
            x->bytes = 8 * (1 + rnd(4));
            if (x->call == CHT_MPI_ISEND)
                x->flags |= DG_MSGF_NONBLOCKING;
            at(x, T, off[s]);
        }
        if (what != 0) {
            struct dg_msgrec *x = add(&l[d], DG_MSG_RECV, CHT_MPI_RECV);
            x->comm = comm;
            x->peer = s;
            x->tag = tag;
            x->seq = seq;
            x->flags |= DG_MSGF_BLOCKS;
            x->bytes = 8;
            /* a receive waits from its rank's time for the send */
            at(x, T - rnd(3) * 300, off[d]);
            x->t_exit = (uint64_t)((int64_t)(MONO0 + T + 450) - off[d]) + rnd(300);
            if (skew && op == nops / 2)
                x->t_exit -= 1000000;
        }
    }
    for (int r = 0; r < P; r++)
        for (int k = 0; k < npend[r]; k++)
            complete(&l[r], &pend[r][k], T + 500, off[r]);
    /* sites by call (site 5 has no source location), clock samples */
    for (int r = 0; r < P; r++) {
        for (uint32_t i = 0; i < l[r].n; i++)
            l[r].rec[i].site = 1 + (l[r].rec[i].call + i % 2) % 5;
        uint64_t m0 = (uint64_t)((int64_t)MONO0 - off[r]), m1 = m0 + T + 5000;
        l[r].clock[0] = (struct dg_clock){m0, REAL0, true};
        l[r].clock[1] = (struct dg_clock){m1, REAL0 + T + 5000, true};
    }
}

static void random_run(struct dg_mpilog *l, int P, int nops, const int64_t *off, bool skew)
{
    random_run_nb(l, P, nops, off, skew, false);
}

/* ---- the matching ---------------------------------------------------------------------- */

/* What the processes found, gathered for the comparison: per record, the
 * instance its process was told; per instance, its members. */
struct shared {
    int P, K;
    const struct dg_mpilog *logs; /* [P]: all ranks' logs (NULL entries: ranks without one) */
    const bool *has;              /* [P] */
    const int *owner;             /* [P] */
    const struct dg_match *serial;
    uint32_t *inst_of[MAXP];      /* [rank][pos], as told to the rank's process */
    struct dg_pos **members;      /* [instance]: as the owner holds them */
    uint32_t *nmembers;
    uint64_t counts[3];
    uint32_t ncoll;
};

struct proc_arg {
    struct shared *sh;
    int failed; /* the line of the first check that failed, 0 if none */
};

#define CHECK(cond)                                                                                        \
    do {                                                                                                   \
        if (!(cond) && !a->failed)                                                                         \
            a->failed = __LINE__;                                                                          \
    } while (0)

static int match_proc(const struct dg_xchg *x, void *arg)
{
    struct proc_arg *a = arg;
    struct shared *sh = a->sh;
    const struct dg_mpilog *mine[MAXP] = {0};
    for (int r = 0; r < sh->P; r++)
        if (sh->has[r] && sh->owner[r] == x->proc)
            mine[r] = &sh->logs[r];
    struct dg_match *m = NULL;
    int rc = dg_match_build_dist(mine, sh->P, sh->owner, x, &m);
    if (rc < 0)
        return rc;
    for (int r = 0; r < sh->P; r++) {
        if (!mine[r])
            continue;
        for (uint32_t i = 0; i < mine[r]->n; i++) {
            struct dg_pos p = {r, i}, q = dg_match_peer(m, p), s = dg_match_peer(sh->serial, p);
            CHECK(q.rank == s.rank && q.pos == s.pos);
            if (q.rank >= 0) {
                const struct dg_msgrec *got = dg_match_rec(m, q);
                CHECK(got && !memcmp(got, &sh->logs[q.rank].rec[q.pos], sizeof *got));
            }
            sh->inst_of[r][i] = dg_match_coll_of(m, p);
        }
    }
    uint32_t lo, hi;
    dg_match_coll_here(m, &lo, &hi);
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t n = 0;
        const struct dg_pos *v = dg_match_coll(m, i, &n);
        sh->members[i] = malloc((n ? n : 1) * sizeof *v);
        memcpy(sh->members[i], v, n * sizeof *v);
        sh->nmembers[i] = n;
        for (uint32_t k = 0; k < n; k++) {
            const struct dg_msgrec *got = dg_match_rec(m, v[k]);
            CHECK(got && !memcmp(got, &sh->logs[v[k].rank].rec[v[k].pos], sizeof *got));
        }
    }
    if (x->proc == 0) {
        sh->counts[0] = dg_match_unmatched_sends(m);
        sh->counts[1] = dg_match_unmatched_recvs(m);
        sh->counts[2] = dg_match_incomplete_colls(m);
        sh->ncoll = dg_match_ncoll(m);
    }
    CHECK(dg_match_ncoll(m) == dg_match_ncoll(sh->serial));
    dg_match_destroy(m);
    return 0;
}

static void test_match_random(void **state)
{
    (void)state;
    srand(20261130);
    static const int Ks[] = {1, 2, 3, 4, 8};
    for (int round = 0; round < 150; round++) {
        int P = 2 + (int)rnd(MAXP - 1), K = Ks[round % 5];
        struct dg_mpilog l[MAXP];
        bool has[MAXP];
        int owner[MAXP];
        int64_t off[MAXP] = {0};
        random_run(l, P, 20 + (int)rnd(200), off, false);
        const struct dg_mpilog *all[MAXP];
        for (int r = 0; r < P; r++) {
            has[r] = rnd(12) != 0; /* some ranks without a log */
            all[r] = has[r] ? &l[r] : NULL;
            owner[r] = has[r] ? (int)rnd((uint64_t)K) : (rnd(2) ? -1 : (int)rnd((uint64_t)K));
        }
        struct dg_match *serial = NULL;
        assert_int_equal(dg_match_build(all, P, &serial), 0);
        uint32_t nc = dg_match_ncoll(serial);
        struct shared sh = {.P = P, .K = K, .logs = l, .has = has, .owner = owner, .serial = serial, .inst_of = {0}};
        sh.members = calloc(nc ? nc : 1, sizeof *sh.members);
        sh.nmembers = calloc(nc ? nc : 1, sizeof *sh.nmembers);
        for (int r = 0; r < P; r++) {
            sh.inst_of[r] = malloc((l[r].n ? l[r].n : 1) * sizeof **sh.inst_of);
            for (uint32_t i = 0; i < l[r].n; i++)
                sh.inst_of[r][i] = UINT32_MAX;
        }
        struct proc_arg pa[8];
        void *args[8];
        for (int k = 0; k < K; k++) {
            pa[k] = (struct proc_arg){&sh, 0};
            args[k] = &pa[k];
        }
        assert_int_equal(dg_xchg_threads(K, match_proc, args), 0);
        for (int k = 0; k < K; k++)
            if (pa[k].failed)
                fail_msg("round %d, K=%d, process %d: check at line %d failed", round, K, k, pa[k].failed);
        assert_int_equal(sh.counts[0], dg_match_unmatched_sends(serial));
        assert_int_equal(sh.counts[1], dg_match_unmatched_recvs(serial));
        assert_int_equal(sh.counts[2], dg_match_incomplete_colls(serial));
        assert_int_equal(sh.ncoll, nc);
        /* the same instances, each member told the one that holds it */
        uint32_t *seen = calloc(nc ? nc : 1, sizeof *seen);
        for (uint32_t i = 0; i < nc; i++) {
            assert_true(sh.nmembers[i] > 0);
            uint32_t s = dg_match_coll_of(serial, sh.members[i][0]), n = 0;
            assert_int_not_equal(s, UINT32_MAX);
            const struct dg_pos *v = dg_match_coll(serial, s, &n);
            assert_int_equal(n, sh.nmembers[i]);
            assert_memory_equal(v, sh.members[i], n * sizeof *v);
            seen[s]++;
            for (uint32_t k = 0; k < n; k++)
                assert_int_equal(sh.inst_of[v[k].rank][v[k].pos], i);
        }
        for (uint32_t i = 0; i < nc; i++)
            assert_int_equal(seen[i], 1);
        free(seen);
        for (uint32_t i = 0; i < nc; i++)
            free(sh.members[i]);
        free(sh.members);
        free(sh.nmembers);
        for (int r = 0; r < P; r++) {
            free(sh.inst_of[r]);
            dg_mpilog_free(&l[r]);
        }
        dg_match_destroy(serial);
    }
}

/* ---- the wait states ------------------------------------------------------------------- */

static struct trace_site_info site_tab[7];
static struct search_siteinfo site_list[6];

static void sites_init(void)
{
    for (uint32_t s = 1; s <= 6; s++) {
        struct trace_site_info *i = &site_tab[s];
        memset(i, 0, sizeof *i);
        i->id = s;
        i->file = s == 5 ? "" : "/src/dist.c"; /* site 5: no location */
        i->func = "main";
        i->line = 10 * s + (s == 6 ? -50 : 0);  /* site 6 shares site 1's line */
        i->col = 3;
        i->kind = CHT_SITE_CALL;
        i->loop = CHT_NONE;
        site_list[s - 1] = (struct search_siteinfo){s, i};
    }
}

struct ws_shared {
    int P, K;
    struct search_rank_result **all; /* [P], NULL: no log */
    const int *owner;
    const struct search_report *serial;
};

struct ws_arg {
    struct ws_shared *sh;
    int failed;
};

static bool same_waits(const struct search_report *a, const struct search_report *b)
{
    if (a->nwaits != b->nwaits || a->clocks_aligned != b->clocks_aligned || a->imbalance != b->imbalance ||
        a->comp_mean_ns != b->comp_mean_ns || a->comp_max_ns != b->comp_max_ns ||
        a->unmatched_sends != b->unmatched_sends || a->unmatched_recvs != b->unmatched_recvs ||
        a->incomplete_colls != b->incomplete_colls)
        return false;
    for (uint32_t i = 0; i < a->nwaits; i++) {
        const struct search_waitsite *x = &a->waits[i], *y = &b->waits[i];
        if (strcmp(x->file, y->file) || x->line != y->line || x->col != y->col || x->call != y->call ||
            x->nranks != y->nranks || x->calls != y->calls || x->time_ns != y->time_ns ||
            x->late_sender_ns != y->late_sender_ns || x->late_receiver_ns != y->late_receiver_ns ||
            x->wait_collective_ns != y->wait_collective_ns)
            return false;
    }
    return true;
}

static int ws_proc(const struct dg_xchg *x, void *arg)
{
    struct ws_arg *a = arg;
    struct ws_shared *sh = a->sh;
    /* process 0 knows every rank's result (their sites), the others
     * their own ranks' */
    struct search_rank_result *known[MAXP];
    int n = 0;
    for (int r = 0; r < sh->P; r++)
        if (sh->all[r] && (x->proc == 0 || sh->owner[r] == x->proc))
            known[n++] = sh->all[r];
    struct search_xrank *xr = NULL;
    int rc = search_xrank_build_dist(known, n, sh->P, sh->owner, x, &xr);
    if (rc < 0)
        return rc;
    CHECK(xr->partial == (sh->K > 1));
    struct search_report rep;
    memset(&rep, 0, sizeof rep);
    rc = search_waitstates(xr, &rep);
    if (rc == 0 && x->proc == 0)
        CHECK(same_waits(&rep, sh->serial));
    if (x->proc != 0)
        CHECK(rep.nwaits == 0);
    free(rep.waits);
    search_xrank_destroy(xr);
    return rc;
}

static void test_waitstates_random(void **state)
{
    (void)state;
    sites_init();
    srand(20261131);
    static const int Ks[] = {2, 3, 4, 8, 1};
    int aligned = 0, realtime = 0, waits = 0;
    for (int round = 0; round < 120; round++) {
        int P = 2 + (int)rnd(MAXP - 1), K = Ks[round % 5];
        struct dg_mpilog l[MAXP];
        int64_t off[MAXP] = {0};
        bool hosts = round % 3 == 1;
        for (int r = 0; r < P && hosts; r++)
            off[r] = (int64_t)rnd(5000000);
        random_run(l, P, 20 + (int)rnd(200), off, round % 7 == 3);
        struct search_rank_result *all[MAXP] = {0}, *dense[MAXP];
        int owner[MAXP], n = 0;
        for (int r = 0; r < P; r++) {
            bool has = rnd(12) != 0;
            owner[r] = has ? (int)rnd((uint64_t)K) : -1;
            if (!has) {
                dg_mpilog_free(&l[r]);
                continue;
            }
            all[r] = calloc(1, sizeof *all[r]);
            assert_non_null(all[r]);
            all[r]->rank = r;
            all[r]->log = l[r];
            all[r]->siteinfo = malloc(sizeof site_list);
            memcpy(all[r]->siteinfo, site_list, sizeof site_list);
            all[r]->nsiteinfo = 6;
            dense[n++] = all[r];
        }
        struct search_xrank *xr = NULL;
        assert_int_equal(search_xrank_build(dense, n, P, &xr), 0);
        struct search_report serial;
        memset(&serial, 0, sizeof serial);
        assert_int_equal(search_waitstates(xr, &serial), 0);
        aligned += serial.clocks_aligned;
        realtime += xr->clocks.mode == SEARCH_CLOCK_REALTIME;
        for (uint32_t i = 0; i < serial.nwaits; i++)
            waits += serial.waits[i].late_sender_ns + serial.waits[i].wait_collective_ns > 0;
        search_xrank_destroy(xr);

        struct ws_shared sh = {P, K, all, owner, &serial};
        struct ws_arg wa[8];
        void *args[8];
        for (int k = 0; k < K; k++) {
            wa[k] = (struct ws_arg){&sh, 0};
            args[k] = &wa[k];
        }
        assert_int_equal(dg_xchg_threads(K, ws_proc, args), 0);
        for (int k = 0; k < K; k++)
            if (wa[k].failed)
                fail_msg("round %d, K=%d, process %d: check at line %d failed", round, K, k, wa[k].failed);
        free(serial.waits);
        for (int r = 0; r < P; r++)
            search_rank_result_free(all[r]);
    }
    /* the runs exercise what they are meant to */
    assert_true(aligned > 60);
    assert_true(aligned < 120);
    assert_true(realtime > 20);
    assert_true(waits > 100);
}

/* ---- the kinds' peer facts ----------------------------------------------------------- */

/* A rank's result over its log as the engines would leave it for the
 * kinds' facts: one overlap entry per call site of its blocking sends,
 * blocking receives and collectives (every such call a lead), and a group
 * span from each send to the next one to the same peer; then the facts of
 * its own log (search_rank_result_log_facts). */
static bool fake_checks; /* fake_result gives its result aggregation checks */

/* Random aggregation checks of a result (group 0): a few sends delayed
 * past a few later receives and collectives of its log (event indices),
 * now and then one over the cap (truncated: not judged). */
static void add_checks(struct search_rank_result *res, const struct dg_mpilog *l)
{
    uint32_t n = 1 + (uint32_t)rnd(5);
    res->checks = calloc(n, sizeof *res->checks);
    assert_non_null(res->checks);
    for (uint32_t c = 0; c < n && l->n; c++) {
        struct search_group_check *chk = &res->checks[res->nchecks];
        bool big = rnd(10) == 0;
        uint32_t want = big ? SEARCH_CHECK_MAX : 1 + (uint32_t)rnd(4), start = (uint32_t)rnd(l->n);
        chk->members = calloc(SEARCH_CHECK_MAX, sizeof *chk->members);
        chk->cross = calloc(SEARCH_CHECK_MAX, sizeof *chk->cross);
        assert_true(chk->members && chk->cross);
        uint32_t p = start;
        for (; p < l->n && chk->nmembers < want; p++)
            if (l->rec[p].kind == DG_MSG_SEND && rnd(2))
                chk->members[chk->nmembers++] = l->rec[p].index;
        for (; p < l->n && chk->ncross < (big ? want : 3); p++)
            if ((l->rec[p].kind == DG_MSG_RECV || l->rec[p].kind == DG_MSG_COLL) && rnd(2) &&
                (!chk->ncross || chk->cross[chk->ncross - 1] != l->rec[p].index))
                chk->cross[chk->ncross++] = l->rec[p].index;
        if (big) /* over the cap, whatever it found */
            chk->nmembers = chk->ncross = SEARCH_CHECK_MAX;
        res->nchecks++;
    }
}

static struct search_rank_result *fake_result(int r, struct dg_mpilog *l)
{
    struct search_rank_result *res = calloc(1, sizeof *res);
    assert_non_null(res);
    res->rank = r;
    res->log = *l;
    res->siteinfo = malloc(sizeof site_list);
    memcpy(res->siteinfo, site_list, sizeof site_list);
    res->nsiteinfo = 6;
    res->overlaps = calloc(8, sizeof *res->overlaps);
    assert_non_null(res->overlaps);
    for (uint32_t p = 0; p < l->n; p++) {
        const struct dg_msgrec *a = &l->rec[p];
        bool lead = (a->kind == DG_MSG_SEND && !(a->flags & DG_MSGF_NONBLOCKING)) ||
                    (a->kind == DG_MSG_RECV && (a->flags & DG_MSGF_BLOCKS)) || a->kind == DG_MSG_COLL;
        if (!lead)
            continue;
        uint32_t o = 0;
        while (o < res->noverlaps && res->overlaps[o].site != a->site)
            o++;
        assert_true(o < 8);
        struct search_overlap *ov = &res->overlaps[o];
        if (o == res->noverlaps) {
            res->noverlaps++;
            ov->site = a->site;
            ov->leads = malloc(l->n * sizeof *ov->leads);
            assert_non_null(ov->leads);
        }
        ov->leads[ov->nleads++] = (struct search_lead){.index = a->index, .span_ns = 100 + rnd(200000),
                                                       .fw_end = a->index};
    }
    res->ngroups = 1;
    res->groups = calloc(1, sizeof *res->groups);
    res->spans = calloc(l->n ? l->n : 1, sizeof *res->spans);
    assert_non_null(res->spans);
    for (uint32_t p = 0; p < l->n; p++)
        for (uint32_t q = p + 1; l->rec[p].kind == DG_MSG_SEND && q < l->n; q++)
            if (l->rec[q].kind == DG_MSG_SEND && l->rec[q].comm == l->rec[p].comm &&
                l->rec[q].peer == l->rec[p].peer) {
                res->spans[res->nspans++] = (struct search_group_span){.first = p, .last = q};
                break;
            }
    if (fake_checks)
        add_checks(res, l);
    assert_int_equal(search_rank_result_log_facts(res), 0);
    return res;
}

/* The ranks of one random run with their results (NULL: no log) and
 * their processes, the same for one seed. */
static void peer_run(unsigned seed, int P, int K, struct search_rank_result **all, int *owner)
{
    srand(seed);
    struct dg_mpilog l[MAXP];
    int64_t off[MAXP] = {0};
    random_run(l, P, 20 + (int)rnd(200), off, false);
    for (int r = 0; r < P; r++) {
        bool has = rnd(12) != 0;
        owner[r] = has ? (int)rnd((uint64_t)K) : -1;
        all[r] = has ? fake_result(r, &l[r]) : NULL;
        if (!has)
            dg_mpilog_free(&l[r]);
    }
}

/* What the peer facts of a rank's overlap entry say, the instance's
 * members named by their sites (instances are numbered otherwise spread). */
static bool same_overlap_peers(const struct search_overlap *a, const struct search_xrank *xa,
                               const struct search_overlap *b, const struct search_xrank *xb)
{
    if (a->npartner != b->npartner ||
        (a->npartner && memcmp(a->partner, b->partner, a->npartner * sizeof *a->partner)) ||
        (a->coll_inst == UINT32_MAX) != (b->coll_inst == UINT32_MAX))
        return false;
    uint32_t na = 0, nb = 0;
    const struct search_coll_member *ma = search_xrank_coll_sites(xa, a->coll_inst, &na);
    const struct search_coll_member *mb = search_xrank_coll_sites(xb, b->coll_inst, &nb);
    return na == nb && (a->coll_inst == UINT32_MAX || (ma && mb)) && (!na || !memcmp(ma, mb, na * sizeof *ma));
}

struct peer_shared {
    int P, K;
    struct search_rank_result **mine;   /* [P]: the owners' copies */
    struct search_rank_result **whole;  /* [P]: process 0's copies of every result */
    struct search_rank_result **serial; /* [P]: facts found serially */
    const struct search_xrank *sxr;     /* the serial stage (its instances' members) */
    const int *owner;
    int *checked;
};

struct peer_arg {
    void *sh;
    int failed;
};

/* One random run's results three times over (the serial stage's, the
 * owners' copies, process 0's: no copy is shared between the threads),
 * and the serial stage. */
struct three {
    struct search_rank_result *serial[MAXP], *mine[MAXP], *whole[MAXP];
    int owner[MAXP];
    struct search_xrank *sxr;
};

static void three_make(struct three *t, unsigned seed, int P, int K)
{
    struct search_rank_result *dense[MAXP];
    int n = 0;
    peer_run(seed, P, K, t->serial, t->owner);
    peer_run(seed, P, K, t->mine, t->owner);
    peer_run(seed, P, K, t->whole, t->owner);
    for (int r = 0; r < P; r++)
        if (t->serial[r])
            dense[n++] = t->serial[r];
    t->sxr = NULL;
    assert_int_equal(search_xrank_build(dense, n, P, &t->sxr), 0);
}

static void three_free(struct three *t, int P)
{
    search_xrank_destroy(t->sxr);
    for (int r = 0; r < P; r++) {
        search_rank_result_free(t->serial[r]);
        search_rank_result_free(t->mine[r]);
        search_rank_result_free(t->whole[r]);
    }
}

/* fn run by K processes (threads) on sh; fails the test with the first
 * check that failed. */
static void run_procs(int K, int (*fn)(const struct dg_xchg *, void *), void *sh, int round)
{
    struct peer_arg pa[8];
    void *args[8];
    for (int k = 0; k < K; k++) {
        pa[k] = (struct peer_arg){sh, 0};
        args[k] = &pa[k];
    }
    assert_int_equal(dg_xchg_threads(K, fn, args), 0);
    for (int k = 0; k < K; k++)
        if (pa[k].failed)
            fail_msg("round %d, K=%d, process %d: check at line %d failed", round, K, k, pa[k].failed);
}

/* Process x's stage over the results it knows: process 0 every one (its
 * copies, whole), the others those they own (their copies, mine).  The
 * stage keeps the table known[MAXP] of them: it must outlive the stage. */
static int build_known(const struct dg_xchg *x, int P, struct search_rank_result **whole,
                       struct search_rank_result **mine, const int *owner, struct search_rank_result **known,
                       struct search_xrank **xr)
{
    int n = 0;
    for (int r = 0; r < P; r++) {
        struct search_rank_result *res = x->proc == 0 ? whole[r] : mine[r];
        if (res && (x->proc == 0 || owner[r] == x->proc))
            known[n++] = res;
    }
    return search_xrank_build_dist(known, n, P, owner, x, xr);
}

/* A process's stage for jobs: the others serve process 0's jobs until it
 * ends them (*done set, their status returned); process 0 completes the
 * stage as report.c does (one process: the stage is whole) into *whole,
 * its partial one in *xr (NULL with one process). */
static int jobs_begin(const struct dg_xchg *x, int P, struct search_rank_result **whole_res,
                      struct search_rank_result **mine, const int *owner, struct search_rank_result **known,
                      struct search_xrank **xr, struct search_xrank **whole, bool *done)
{
    *xr = *whole = NULL;
    *done = false;
    int rc = build_known(x, P, whole_res, mine, owner, known, xr);
    if (rc < 0)
        return rc;
    if (x->proc != 0) {
        rc = search_xrank_serve(*xr); /* until process 0 ends the jobs */
        search_xrank_destroy(*xr);
        *done = true;
        return rc;
    }
    if (!(*xr)->partial) {
        *whole = *xr;
        *xr = NULL;
    } else if ((rc = search_xrank_complete(*xr, whole)) == 0) {
        (*whole)->dist = *xr;
    }
    return rc;
}

/* Process 0: the jobs ended (with rc), the stages destroyed. */
static int jobs_end(struct search_xrank *xr, struct search_xrank *whole, int rc)
{
    if (xr)
        rc = search_xrank_end(xr, rc);
    if (whole)
        search_xrank_destroy(whole); /* and its partial context */
    else
        search_xrank_destroy(xr);
    return rc;
}

static int peer_proc(const struct dg_xchg *x, void *arg)
{
    struct peer_arg *a = arg;
    struct peer_shared *sh = a->sh;
    struct search_rank_result *known[MAXP];
    struct search_xrank *xr = NULL;
    int rc = build_known(x, sh->P, sh->whole, sh->mine, sh->owner, known, &xr);
    if (rc < 0)
        return rc;
    for (int r = 0; x->proc == 0 && r < sh->P; r++) {
        const struct search_rank_result *got = sh->whole[r], *want = sh->serial[r];
        if (!got)
            continue;
        CHECK(got->noverlaps == want->noverlaps);
        for (uint32_t o = 0; o < got->noverlaps && o < want->noverlaps; o++) {
            CHECK(same_overlap_peers(&got->overlaps[o], xr, &want->overlaps[o], sh->sxr));
            *sh->checked += got->overlaps[o].npartner + (got->overlaps[o].coll_inst != UINT32_MAX);
        }
        CHECK(got->nspans == want->nspans && (!got->nspans || (got->span_peers && want->span_peers &&
                                                               !memcmp(got->span_peers, want->span_peers,
                                                                       got->nspans * sizeof *got->span_peers))));
    }
    search_xrank_destroy(xr);
    return 0;
}

/* The kinds' facts of other ranks' records found where each rank's log is
 * (search_xrank_peer_facts) and gathered on process 0 are the serial ones:
 * the partner waits, the collective instances' members, where the spans'
 * messages are received. */
static void test_peer_facts_random(void **state)
{
    (void)state;
    sites_init();
    srand(20261130);
    static const int Ks[] = {2, 3, 4, 8, 1};
    int checked = 0;
    for (int round = 0; round < 60; round++) {
        int P = 2 + (int)rnd(MAXP - 1), K = Ks[round % 5];
        unsigned seed = 7000u + (unsigned)round;
        struct three t;
        three_make(&t, seed, P, K);
        struct peer_shared sh = {P, K, t.mine, t.whole, t.serial, t.sxr, t.owner, &checked};
        run_procs(K, peer_proc, &sh, round);
        three_free(&t, P);
        srand(seed * 31u);
    }
    assert_true(checked > 500); /* the runs have partner waits and collectives */
}

/* ---- records described where their logs are ------------------------------------------- */

struct desc_shared {
    int P;
    struct search_rank_result **mine, **whole; /* [P]: the owners' copies, process 0's */
    const struct dg_pos *pos;
    size_t n;
    const struct search_rec_desc *want;
    const int *owner;
};

static int desc_proc(const struct dg_xchg *x, void *arg)
{
    struct peer_arg *a = arg;
    struct desc_shared *sh = a->sh;
    struct search_rank_result *known[MAXP];
    struct search_xrank *xr, *whole;
    bool done;
    int rc = jobs_begin(x, sh->P, sh->whole, sh->mine, sh->owner, known, &xr, &whole, &done);
    if (done)
        return rc;
    /* process 0 asks twice (two jobs in a row), then for none */
    if (rc == 0) {
        struct search_rec_desc got[64];
        for (int k = 0; k < 2 && rc == 0; k++) {
            size_t m = k ? sh->n / 2 : sh->n;
            memset(got, 0x5a, sizeof got);
            rc = search_xrank_describe(whole, sh->pos, m, got);
            for (size_t i = 0; rc == 0 && i < m; i++)
                CHECK(!memcmp(&got[i], &sh->want[i], sizeof got[i]));
        }
        if (rc == 0)
            rc = search_xrank_describe(whole, sh->pos, 0, got);
    }
    return jobs_end(xr, whole, rc);
}

/* Records named by position (any rank, some outside the logs or on ranks
 * without one) described on process 0 by the processes holding their
 * logs (search_xrank_describe, the DESCRIBE job) are what the serial
 * stage reads from the logs. */
static void test_describe_random(void **state)
{
    (void)state;
    sites_init();
    static const int Ks[] = {2, 3, 4, 8, 1};
    int known = 0, unknown = 0;
    for (int round = 0; round < 40; round++) {
        int P = 2 + (int)rnd(MAXP - 1), K = Ks[round % 5];
        unsigned seed = 9100u + (unsigned)round;
        struct three t;
        three_make(&t, seed, P, K);
        struct search_rank_result **serial = t.serial;
        struct dg_pos pos[64];
        struct search_rec_desc want[64];
        size_t np = 1 + rnd(63);
        for (size_t i = 0; i < np; i++) {
            int r = (int)rnd((uint64_t)P + 1) - (rnd(8) == 0); /* now and then no rank */
            uint32_t len = r >= 0 && r < P && serial[r] ? serial[r]->log.n : 4;
            pos[i] = (struct dg_pos){r, (uint32_t)rnd(len + 2)};
        }
        assert_int_equal(search_xrank_describe(t.sxr, pos, np, want), 0);
        for (size_t i = 0; i < np; i++) {
            bool in = pos[i].rank >= 0 && pos[i].rank < P && serial[pos[i].rank] &&
                      pos[i].pos < serial[pos[i].rank]->log.n;
            assert_int_equal(want[i].known, in);
            if (in) {
                const struct dg_msgrec *a = &serial[pos[i].rank]->log.rec[pos[i].pos];
                assert_true(want[i].kind == a->kind && want[i].call == a->call && want[i].site == a->site);
            }
            known += in;
            unknown += !in;
        }
        struct desc_shared sh = {P, t.mine, t.whole, pos, np, want, t.owner};
        run_procs(K, desc_proc, &sh, round);
        three_free(&t, P);
    }
    assert_true(known > 300 && unknown > 50);
}

/* ---- two-rank messages scanned where their logs are ---------------------------------------- */

struct two_shared {
    int P;
    struct search_rank_result **mine, **whole;
    const int *owner;
    const uint8_t *const *claimed;      /* [P][n]: records left out */
    const struct dg_match *m;           /* the serial match: whose peers */
    const struct search_tworanks_ent *want;
    size_t nwant;
};

static int two_ent_cmp(const void *pa, const void *pb)
{
    return memcmp(pa, pb, sizeof(struct search_tworanks_ent));
}

/* Sorted, the wide entries once: what process 0 reads of the answers. */
static size_t two_norm(struct search_tworanks_ent *e, size_t n)
{
    size_t k = 0;
    if (n)
        qsort(e, n, sizeof *e, two_ent_cmp);
    for (size_t i = 0; i < n; i++)
        if (!k || two_ent_cmp(&e[k - 1], &e[i]))
            e[k++] = e[i];
    return k;
}

/* The serial oracle: every log scanned with every claim known. */
static size_t two_oracle(const struct search_xrank *x, const uint8_t *const *cl, struct search_tworanks_ent *out,
                         size_t max)
{
    size_t n = 0;
    for (int s = 0; s < x->world_size; s++) {
        const struct dg_mpilog *g = x->logs[s];
        for (uint32_t i = 0; g && i < g->n; i++) {
            const struct dg_msgrec *a = &g->rec[i];
            if ((a->kind != DG_MSG_SEND && a->kind != DG_MSG_RECV) || cl[s][i])
                continue;
            struct dg_pos p = dg_match_peer(x->match, (struct dg_pos){s, i});
            bool matched = p.rank >= 0 && !cl[p.rank][p.pos];
            const struct dg_msgrec *b = matched ? &x->logs[p.rank]->rec[p.pos] : NULL;
            struct search_tworanks_ent w = {s, a->site, -1, 0, 0, 0, 0, 0};
            if (a->comm_size != 2 && (a->kind == DG_MSG_SEND || !matched))
                out[n++] = w;
            if (a->comm_size != 2 && a->kind == DG_MSG_SEND && matched)
                out[n++] = (struct search_tworanks_ent){p.rank, b->site, -1, 0, 0, 0, 0, 0};
            if (a->comm_size == 2 && a->kind == DG_MSG_SEND && matched) {
                struct search_tworanks_ent e = {s, a->site, p.rank, b->site, a->call, b->call, 0, 1};
                size_t k = 0;
                while (k < n && !(out[k].n && out[k].srank == s && out[k].ssite == e.ssite &&
                                  out[k].rrank == e.rrank && out[k].rsite == e.rsite))
                    k++;
                if (k < n)
                    out[k].n++;
                else
                    out[n++] = e;
            }
            assert_true(n + 2 < max);
        }
    }
    return two_norm(out, n);
}

static int two_proc(const struct dg_xchg *x, void *arg)
{
    struct peer_arg *a = arg;
    struct two_shared *sh = a->sh;
    struct search_rank_result *known[MAXP];
    struct search_xrank *xr, *whole;
    bool done;
    int rc = jobs_begin(x, sh->P, sh->whole, sh->mine, sh->owner, known, &xr, &whole, &done);
    if (done)
        return rc;
    /* the question, as process 0 asks it */
    int K = x->nprocs;
    struct dg_bytes *part = dg_bytes_per_proc(K), all = {0};
    CHECK(part != NULL);
    for (int r = 0; rc == 0 && part && r < sh->P; r++)
        for (uint32_t i = 0; sh->whole[r] && i < sh->whole[r]->log.n; i++) {
            if (!sh->claimed[r][i])
                continue;
            struct dg_pos w = {r, i}, p = dg_match_peer(sh->m, w);
            CHECK(search_coll_tworanks_ask(whole, w, p.rank, part) == 0);
        }
    if (rc == 0 && part)
        rc = search_xrank_coll_tworanks(whole, part, 0, &all);
    if (rc == 0) {
        size_t n = all.len / sizeof(struct search_tworanks_ent);
        CHECK(all.len % sizeof(struct search_tworanks_ent) == 0);
        struct search_tworanks_ent *got = malloc((n ? n : 1) * sizeof *got);
        CHECK(got != NULL);
        if (got) {
            if (n)
                memcpy(got, all.p, n * sizeof *got);
            n = two_norm(got, n);
            CHECK(n == sh->nwant && (!n || !memcmp(got, sh->want, n * sizeof *got)));
        }
        free(got);
    }
    dg_bytes_per_proc_free(part, K);
    dg_bytes_free(&all);
    return jobs_end(xr, whole, rc);
}

/* Gives p2p records of communicator 0x77 two ranks, the others the world's. */
static void two_sizes(struct search_rank_result **res, int P)
{
    for (int r = 0; r < P; r++)
        for (uint32_t i = 0; res[r] && i < res[r]->log.n; i++) {
            struct dg_msgrec *a = &res[r]->log.rec[i];
            if (a->kind == DG_MSG_SEND || a->kind == DG_MSG_RECV)
                a->comm_size = a->comm == 0x77 ? 2 : (uint32_t)P;
        }
}

/* --explain's two-rank pairs of call sites (the TWORANKS job): each
 * process scans its ranks' logs, leaving out the records claimed on them
 * and on their messages' other ends (some claimed at one end only), and
 * process 0 reads what the serial scan of every log finds. */
static void test_tworanks_random(void **state)
{
    (void)state;
    sites_init();
    static const int Ks[] = {2, 3, 4, 8, 1};
    size_t pairs = 0, wide = 0;
    static struct search_tworanks_ent want[4 * 4096];
    for (int round = 0; round < 60; round++) {
        int P = 3 + (int)rnd(MAXP - 2), K = Ks[round % 5];
        unsigned seed = 9700u + (unsigned)round;
        struct three t;
        three_make(&t, seed, P, K);
        two_sizes(t.serial, P);
        two_sizes(t.mine, P);
        two_sizes(t.whole, P);
        uint8_t *cl[MAXP];
        for (int r = 0; r < P; r++) {
            uint32_t n = t.serial[r] ? t.serial[r]->log.n : 0;
            cl[r] = calloc(n ? n : 1, 1);
            assert_non_null(cl[r]);
            for (uint32_t i = 0; i < n; i++)
                cl[r][i] = rnd(5) == 0;
        }
        size_t nw = two_oracle(t.sxr, (const uint8_t *const *)cl, want, sizeof want / sizeof *want);
        for (size_t i = 0; i < nw; i++) {
            pairs += want[i].n != 0;
            wide += want[i].n == 0;
        }
        struct two_shared sh = {P, t.mine, t.whole, t.owner, (const uint8_t *const *)cl, t.sxr->match, want, nw};
        run_procs(K, two_proc, &sh, round);
        for (int r = 0; r < P; r++)
            free(cl[r]);
        three_free(&t, P);
    }
    assert_true(pairs > 300 && wide > 300);
}

/* Who replays the predictions: COMMHINT_SPREAD_REPLAY=1 or 0 says so;
 * unset, the processes when there are several and the exchange says so. */
static void test_spread_default(void **state)
{
    (void)state;
    const char *old = getenv("COMMHINT_SPREAD_REPLAY");
    char *keep = old ? strdup(old) : NULL;
    struct dg_xchg cheap = *dg_xchg_serial(), slow = *dg_xchg_serial(), one = *dg_xchg_serial();
    cheap.nprocs = slow.nprocs = 2;
    cheap.spread = one.spread = true;
    unsetenv("COMMHINT_SPREAD_REPLAY");
    assert_true(search_xrank_spread_replay(&cheap));
    assert_false(search_xrank_spread_replay(&slow));
    assert_false(search_xrank_spread_replay(&one));
    assert_false(search_xrank_spread_replay(NULL));
    assert_true(search_xrank_replay_may_spread());
    setenv("COMMHINT_SPREAD_REPLAY", "0", 1);
    assert_false(search_xrank_spread_replay(&cheap));
    assert_false(search_xrank_replay_may_spread());
    setenv("COMMHINT_SPREAD_REPLAY", "1", 1);
    assert_true(search_xrank_spread_replay(&slow));
    assert_true(search_xrank_replay_may_spread());
    if (keep)
        setenv("COMMHINT_SPREAD_REPLAY", keep, 1);
    else
        unsetenv("COMMHINT_SPREAD_REPLAY");
    free(keep);
}

/* ---- the checks' verdicts ---------------------------------------------------------------- */

/* The serial verdict of one check: its first delay whose other end
 * happens before (dg_hb_before of a dg_hb over every log) or comes before
 * on one rank what the crossed call waits for. */
struct oracle {
    struct dg_hb *h;
    int rank;
    uint32_t check;
    struct search_check_verdict v;
    bool found;
};

static int oracle_delay(const struct search_xrank *x, struct dg_pos own, struct dg_pos w, const struct dg_pos *what,
                        size_t nw, void *ctx)
{
    struct oracle *O = ctx;
    int kind = x->logs[own.rank]->rec[own.pos].kind;
    struct dg_pos other = kind == DG_MSG_SEND || kind == DG_MSG_RECV ? dg_match_peer(x->match, own) : DG_POS_NONE;
    for (size_t i = 0; other.rank >= 0 && i < nw; i++) {
        int b = dg_hb_before(O->h, other, what[i]);
        assert_true(b == 0 || b == 1);
        if (b || (other.rank == what[i].rank && other.pos < what[i].pos)) {
            O->v = (struct search_check_verdict){O->rank, O->check, own, other, w, what[i]};
            O->found = true;
            return 1;
        }
    }
    return 0;
}

/* Every verdict the oracle finds over the serial stage's logs, in (rank,
 * check) order; *nv of them. */
static struct search_check_verdict *oracle_verdicts(const struct search_xrank *x, size_t *nv)
{
    struct oracle O = {0};
    assert_int_equal(dg_hb_build(x->logs, x->world_size, x->match, NULL, 0, &O.h), 0);
    struct search_check_verdict *v = malloc(MAXP * 8 * sizeof *v);
    assert_non_null(v);
    *nv = 0;
    for (int r = 0; r < x->world_size; r++) {
        const struct search_rank_result *res = x->logs[r] ? x->by_rank[r] : NULL;
        for (uint32_t c = 0; res && c < res->nchecks; c++) {
            O.rank = r;
            O.check = c;
            O.found = false;
            if (!search_check_truncated(&res->checks[c]))
                assert_true(search_each_delay(x, r, &res->checks[c], oracle_delay, &O) >= 0);
            if (O.found)
                v[(*nv)++] = O.v;
        }
    }
    dg_hb_destroy(O.h);
    return v;
}

static bool same_verdicts(const struct search_xrank *x, const struct search_check_verdict *want, size_t n)
{
    return x->nverdicts == n && (!n || !memcmp(x->verdicts, want, n * sizeof *want));
}

struct verdict_shared {
    int P;
    struct search_rank_result **mine, **whole;
    const int *owner;
    const struct search_check_verdict *want;
    size_t nwant;
};

static int verdict_proc(const struct dg_xchg *x, void *arg)
{
    struct peer_arg *a = arg;
    struct verdict_shared *sh = a->sh;
    struct search_rank_result *known[MAXP];
    struct search_xrank *xr = NULL;
    int rc = build_known(x, sh->P, sh->whole, sh->mine, sh->owner, known, &xr);
    if (rc < 0)
        return rc;
    if (x->proc == 0)
        CHECK(same_verdicts(xr, sh->want, sh->nwant));
    else
        CHECK(xr->nverdicts == 0); /* they are process 0's */
    search_xrank_destroy(xr);
    return 0;
}

/* Random runs with random aggregation checks: the verdicts every process
 * finds for its ranks (a collective's delays judged by the instance's
 * owner) and gathers on process 0 are, check for check, the serial
 * oracle's (the first delay whose other end happens before what the
 * crossed call waits for), and so are the serial stage's. */
static void test_verdicts_random(void **state)
{
    (void)state;
    sites_init();
    static const int Ks[] = {2, 3, 4, 8, 1};
    size_t forbidden = 0, checks = 0;
    fake_checks = true;
    for (int round = 0; round < 60; round++) {
        int P = 2 + (int)rnd(MAXP - 1), K = Ks[round % 5];
        struct three t;
        three_make(&t, 12000u + (unsigned)round, P, K);
        size_t nwant = 0;
        struct search_check_verdict *want = oracle_verdicts(t.sxr, &nwant);
        if (!same_verdicts(t.sxr, want, nwant))
            fail_msg("round %d: the serial stage has %zu verdicts, the oracle %zu", round, t.sxr->nverdicts, nwant);
        for (int r = 0; r < P; r++)
            checks += t.serial[r] ? t.serial[r]->nchecks : 0;
        forbidden += nwant;
        struct verdict_shared sh = {P, t.mine, t.whole, t.owner, want, nwant};
        run_procs(K, verdict_proc, &sh, round);
        free(want);
        three_free(&t, P);
    }
    fake_checks = false;
    assert_true(forbidden > 50 && checks > 2 * forbidden); /* 403 of 1,329 at these seeds */
}

/* ---- the replay of a changed run ------------------------------------------------------- */

/* Process x's logs (mine: of the ranks it owns among all[0..P)) and their
 * distributed matching. */
static int proc_match(const struct dg_mpilog *const *all, int P, const int *owner, const struct dg_xchg *x,
                      const struct dg_mpilog **mine, struct dg_match **m)
{
    for (int r = 0; r < P; r++)
        if (all[r] && owner[r] == x->proc)
            mine[r] = all[r];
    return dg_match_build_dist(mine, P, owner, x, m);
}

struct st_shared {
    int P, K;
    const struct dg_mpilog *all[MAXP];
    const int *owner;
    const struct dg_move *const *moves;
    const uint32_t *nmoves;
    bool stalled;
    const struct dg_stall_wait *want;
};

static int stall_proc(const struct dg_xchg *x, void *arg)
{
    struct proc_arg *a = arg;
    struct st_shared *sh = (struct st_shared *)a->sh;
    const struct dg_mpilog *mine[MAXP] = {0};
    struct dg_match *m = NULL;
    int rc = proc_match(sh->all, sh->P, sh->owner, x, mine, &m);
    if (rc < 0)
        return rc;
    struct dg_stall_wait b[MAXP];
    bool stalled = false;
    /* every other process without the blocked ranks: they still take part */
    rc = dg_stall_check_dist(mine, sh->P, m, sh->owner, x, sh->moves, sh->nmoves, x->proc % 2 ? NULL : b, &stalled);
    if (rc == 0) {
        CHECK(stalled == sh->stalled);
        for (int r = 0; r < sh->P && x->proc % 2 == 0; r++) {
            if (!mine[r]) {
                CHECK(b[r].at.rank < 0 && b[r].waits.rank < 0);
                continue;
            }
            CHECK(b[r].at.rank == sh->want[r].at.rank && b[r].at.pos == sh->want[r].at.pos);
            CHECK(b[r].waits.rank == sh->want[r].waits.rank && b[r].waits.pos == sh->want[r].waits.pos);
        }
    }
    dg_match_destroy(m);
    return rc;
}

/* Random runs, with nonblocking collectives, replayed with random moves
 * (records reached later, on some ranks): the processes together find the
 * stall, and where each rank stopped, that the serial replay finds. */
static void test_stall_random(void **state)
{
    (void)state;
    srand(20261201);
    static const int Ks[] = {1, 2, 3, 4, 8};
    int stalls = 0, clean = 0;
    for (int round = 0; round < 300; round++) {
        int P = 2 + (int)rnd(MAXP - 1), K = Ks[round % 5];
        struct dg_mpilog l[MAXP];
        int64_t off[MAXP] = {0};
        random_run_nb(l, P, 10 + (int)rnd(80), off, false, true);
        struct st_shared sh = {.P = P, .K = K};
        int owner[MAXP];
        struct dg_move *mv[MAXP] = {0};
        uint32_t nmv[MAXP] = {0};
        for (int r = 0; r < P; r++) {
            sh.all[r] = rnd(15) ? &l[r] : NULL;
            owner[r] = (int)rnd((uint64_t)K);
            if (round % 4 == 0 || l[r].n < 2 || rnd(2))
                continue;
            uint32_t k = 1 + (uint32_t)rnd(3);
            mv[r] = malloc(k * sizeof *mv[r]);
            for (uint32_t i = 0; i < k; i++) {
                uint32_t pos = (uint32_t)rnd(l[r].n - 1);
                mv[r][nmv[r]++] = (struct dg_move){pos, pos + 1 + (uint32_t)rnd(l[r].n - 1 - pos)};
            }
        }
        struct dg_match *m = NULL;
        assert_int_equal(dg_match_build(sh.all, P, &m), 0);
        struct dg_stall_wait want[MAXP];
        bool stalled = false;
        assert_int_equal(oracle_stall_check(sh.all, P, m, (const struct dg_move *const *)mv, nmv, want, &stalled), 0);
        dg_match_destroy(m);
        stalls += stalled;
        clean += !stalled;
        sh.owner = owner;
        sh.moves = (const struct dg_move *const *)mv;
        sh.nmoves = nmv;
        sh.stalled = stalled;
        sh.want = want;
        struct proc_arg pa[8];
        void *args[8];
        for (int k = 0; k < K; k++) {
            pa[k] = (struct proc_arg){(struct shared *)&sh, 0};
            args[k] = &pa[k];
        }
        assert_int_equal(dg_xchg_threads(K, stall_proc, args), 0);
        for (int k = 0; k < K; k++)
            if (pa[k].failed) {
                for (int r = 0; r < P; r++) {
                    fprintf(stderr, "rank %d owner %d log %d want at %d:%u waits %d:%u moves:", r, owner[r], sh.all[r] != NULL, want[r].at.rank, want[r].at.pos, want[r].waits.rank, want[r].waits.pos);
                    for (uint32_t i = 0; i < nmv[r]; i++) fprintf(stderr, " %u->%u", mv[r][i].pos, mv[r][i].after);
                    fprintf(stderr, "\n");
                    for (uint32_t i = 0; i < l[r].n && i < 12; i++) fprintf(stderr, "   %u: kind %d call %d peer %d tag %d seq %lu comm %lx flags %x fwd %lu\n", i, l[r].rec[i].kind, l[r].rec[i].call, l[r].rec[i].peer, l[r].rec[i].tag, (unsigned long)l[r].rec[i].seq, (unsigned long)l[r].rec[i].comm, l[r].rec[i].flags, (unsigned long)l[r].rec[i].fwd_pos);
                }
                fail_msg("round %d, K=%d, process %d: check at line %d failed", round, K, k, pa[k].failed);
            }
        for (int r = 0; r < P; r++) {
            free(mv[r]);
            dg_mpilog_free(&l[r]);
        }
    }
    assert_true(stalls > 40);
    assert_true(clean > 40);
}

/* ---- happens-before ------------------------------------------------------------------ */

/* Each process's own queries and the answers it got. */
struct hb_shared {
    int P, K;
    const struct dg_mpilog *all[MAXP];
    const int *owner;
    struct dg_hb_query *q[8];
    size_t nq[8];
    uint8_t *ans[8];
};

static int hb_proc(const struct dg_xchg *x, void *arg)
{
    struct proc_arg *a = arg;
    struct hb_shared *sh = (struct hb_shared *)a->sh;
    const struct dg_mpilog *mine[MAXP] = {0};
    struct dg_match *m = NULL;
    int rc = proc_match(sh->all, sh->P, sh->owner, x, mine, &m);
    if (rc < 0)
        return rc;
    rc = dg_hb_answer_dist(mine, sh->P, m, sh->owner, x, sh->q[x->proc], sh->nq[x->proc], sh->ans[x->proc]);
    dg_match_destroy(m);
    return rc;
}

static bool hb_valid(const struct dg_mpilog *const *all, int P, struct dg_pos p)
{
    return p.rank >= 0 && p.rank < P && all[p.rank] && p.pos < all[p.rank]->n;
}

/* A random record of a random rank with a log (DG_POS_NONE if none found). */
static struct dg_pos any_rec(const struct dg_mpilog *const *all, int P)
{
    for (int tries = 0; tries < 4 * P; tries++) {
        int r = (int)rnd((uint64_t)P);
        if (all[r] && all[r]->n)
            return (struct dg_pos){r, (uint32_t)rnd(all[r]->n)};
    }
    return DG_POS_NONE;
}

/* The first record of `kind` in g from a random place on (wrapping
 * around), UINT32_MAX if none. */
static uint32_t find_kind(const struct dg_mpilog *g, uint8_t kind)
{
    uint32_t s = (uint32_t)rnd(g->n);
    for (uint32_t i = 0; i < g->n; i++)
        if (g->rec[(s + i) % g->n].kind == kind)
            return (s + i) % g->n;
    return UINT32_MAX;
}

/* A query whose answer is often 1: a at or before a SEND (or a COLL) of
 * its rank, b at or after the record that receives it (the matched RECV,
 * or another member's record of the instance); now and then b is the
 * record just before that one.  False if none was found. */
static bool chain_query(const struct dg_mpilog *const *all, int P, const struct dg_match *m, struct dg_hb_query *q)
{
    struct dg_pos s = any_rec(all, P), t = DG_POS_NONE;
    if (s.rank < 0)
        return false;
    bool coll = rnd(3) == 0;
    uint32_t k = find_kind(all[s.rank], coll ? DG_MSG_COLL : DG_MSG_SEND);
    if (k == UINT32_MAX)
        return false;
    s.pos = k;
    if (!coll) {
        t = dg_match_peer(m, s);
    } else {
        uint32_t ci = dg_match_coll_of(m, s), n = 0;
        const struct dg_pos *mem = ci != UINT32_MAX ? dg_match_coll(m, ci, &n) : NULL;
        if (n) {
            uint32_t j = (uint32_t)rnd(n);
            t = mem[j].rank == s.rank ? mem[(j + 1) % n] : mem[j];
        }
    }
    if (!hb_valid(all, P, t))
        return false;
    q->a = rnd(2) ? s : (struct dg_pos){s.rank, (uint32_t)rnd(s.pos + 1)};
    if (t.pos > 0 && rnd(8) == 0)
        q->b = (struct dg_pos){t.rank, t.pos - 1};
    else
        q->b = (struct dg_pos){t.rank, t.pos + (uint32_t)rnd(all[t.rank]->n - t.pos)};
    return true;
}

/* One query of a process: records on two ranks, a third of them along a
 * message or a collective (chain_query), some early on one rank and late
 * on another; now and then a repeat of an earlier one, both on one rank,
 * past the end of a log, on a rank without a log, or outside the ranks
 * (what the serial order says of those: 0, or the log order). */
static struct dg_hb_query random_query(const struct dg_mpilog *const *all, int P, const struct dg_match *m,
                                       const struct dg_hb_query *prev, size_t nprev)
{
    struct dg_hb_query q = {any_rec(all, P), any_rec(all, P)};
    int what = (int)rnd(24);
    if (what == 0 && nprev)
        return prev[rnd(nprev)];
    if (what < 9 && chain_query(all, P, m, &q))
        return q;
    if (q.a.rank < 0)
        return q;
    uint32_t na = all[q.a.rank]->n;
    switch (what) {
    case 9: case 10: /* one rank */
        q.b = (struct dg_pos){q.a.rank, (uint32_t)rnd(na)};
        return q;
    case 11: /* past the end */
        if (rnd(2))
            q.a.pos = na + (uint32_t)rnd(3);
        else if (q.b.rank >= 0)
            q.b.pos = all[q.b.rank]->n + (uint32_t)rnd(3);
        return q;
    case 12: /* a rank without a log */
        for (int i = 0, s = (int)rnd((uint64_t)P); i < P; i++)
            if (!all[(s + i) % P]) {
                struct dg_pos n = {(s + i) % P, (uint32_t)rnd(5)};
                *(rnd(2) ? &q.a : &q.b) = n;
                break;
            }
        return q;
    case 13: /* outside the ranks */
        *(rnd(2) ? &q.a : &q.b) = (struct dg_pos){rnd(2) ? -1 : P, (uint32_t)rnd(3)};
        return q;
    default:
        break;
    }
    for (int tries = 0; tries < 8 && q.b.rank == q.a.rank; tries++)
        q.b = any_rec(all, P);
    if (what < 17 && q.b.rank >= 0) { /* early on a's rank, late on b's */
        uint32_t nb = all[q.b.rank]->n;
        q.a.pos = (uint32_t)rnd(na / 3 + 1);
        q.b.pos = nb - 1 - (uint32_t)rnd(nb / 3 + 1 < nb ? nb / 3 + 1 : nb);
    }
    return q;
}

/* The round, for a failure: ranks, owners and records. */
static void hb_dump(const struct hb_shared *sh, const struct dg_mpilog *l)
{
    fprintf(stderr, "P=%d K=%d\n", sh->P, sh->K);
    for (int r = 0; r < sh->P; r++) {
        fprintf(stderr, "rank %d owner %d log %d n %u\n", r, sh->owner[r], sh->all[r] != NULL, l[r].n);
        for (uint32_t i = 0; i < l[r].n; i++) {
            const struct dg_msgrec *x = &l[r].rec[i];
            fprintf(stderr, "   %u: kind %d call %d peer %d tag %d seq %lu comm %lx size %u flags %x fwd %lu\n", i,
                    x->kind, x->call, x->peer, x->tag, (unsigned long)x->seq, (unsigned long)x->comm, x->comm_size,
                    x->flags, (unsigned long)x->fwd_pos);
        }
    }
}

/* Every answer of every process is the serial one; counts the answers
 * about records on two ranks (cnt[0]: 0, cnt[1]: 1). */
static void hb_check_answers(const struct hb_shared *sh, const struct dg_mpilog *l, const struct dg_hb *h,
                             int round, uint64_t cnt[2])
{
    for (int k = 0; k < sh->K; k++)
        for (size_t i = 0; i < sh->nq[k]; i++) {
            const struct dg_hb_query *q = &sh->q[k][i];
            int want = dg_hb_before(h, q->a, q->b);
            assert_true(want == 0 || want == 1);
            if (sh->ans[k][i] != want) {
                hb_dump(sh, l);
                fail_msg("round %d, K=%d, process %d: query %zu (%d:%u before %d:%u?) answered %d, serially %d",
                         round, sh->K, k, i, q->a.rank, q->a.pos, q->b.rank, q->b.pos, sh->ans[k][i], want);
            }
            if (q->a.rank != q->b.rank && hb_valid(sh->all, sh->P, q->a) && hb_valid(sh->all, sh->P, q->b))
                cnt[want]++;
        }
}

/* Random runs (nonblocking collectives in half of them, some ranks
 * without a log): each process asks its own queries (dg_hb_answer_dist)
 * and gets what the serial dg_hb over every process's queries says.
 * Enough answers are 1 and 0 that neither passes by chance. */
static void test_hb_random(void **state)
{
    (void)state;
    srand(20261202);
    static const int Ks[] = {1, 2, 3, 4, 8};
    uint64_t cnt[2] = {0, 0};
    for (int round = 0; round < 300; round++) {
        int P = 2 + (int)rnd(MAXP - 1), K = Ks[round % 5];
        struct dg_mpilog l[MAXP];
        int64_t off[MAXP] = {0};
        random_run_nb(l, P, 10 + (int)rnd(120), off, false, rnd(2));
        struct hb_shared sh = {.P = P, .K = K};
        int owner[MAXP];
        for (int r = 0; r < P; r++) {
            sh.all[r] = rnd(15) ? &l[r] : NULL;
            owner[r] = sh.all[r] ? (int)rnd((uint64_t)K) : (rnd(2) ? -1 : (int)rnd((uint64_t)K));
        }
        sh.owner = owner;
        struct dg_match *m = NULL;
        assert_int_equal(dg_match_build(sh.all, P, &m), 0);
        size_t nall = 0;
        for (int k = 0; k < K; k++) {
            sh.nq[k] = (size_t)rnd(41);
            sh.q[k] = malloc((sh.nq[k] ? sh.nq[k] : 1) * sizeof *sh.q[k]);
            sh.ans[k] = malloc(sh.nq[k] ? sh.nq[k] : 1);
            assert_true(sh.q[k] && sh.ans[k]);
            memset(sh.ans[k], 0xa5, sh.nq[k]); /* neither 0 nor 1: each must be written */
            for (size_t i = 0; i < sh.nq[k]; i++)
                sh.q[k][i] = random_query(sh.all, P, m, sh.q[k], i);
            nall += sh.nq[k];
        }
        struct dg_hb_query *Q = malloc((nall ? nall : 1) * sizeof *Q);
        assert_non_null(Q);
        for (int k = 0, n = 0; k < K; n += (int)sh.nq[k], k++)
            memcpy(Q + n, sh.q[k], sh.nq[k] * sizeof *Q);
        struct dg_hb *h = NULL;
        assert_int_equal(dg_hb_build(sh.all, P, m, Q, nall, &h), 0);
        struct proc_arg pa[8];
        void *args[8];
        for (int k = 0; k < K; k++) {
            pa[k] = (struct proc_arg){(struct shared *)&sh, 0};
            args[k] = &pa[k];
        }
        assert_int_equal(dg_xchg_threads(K, hb_proc, args), 0);
        hb_check_answers(&sh, l, h, round, cnt);
        dg_hb_destroy(h);
        dg_match_destroy(m);
        free(Q);
        for (int k = 0; k < K; k++) {
            free(sh.q[k]);
            free(sh.ans[k]);
        }
        for (int r = 0; r < P; r++)
            dg_mpilog_free(&l[r]);
    }
    assert_true(cnt[0] > 1000); /* 6094 and 10744 at this seed */
    assert_true(cnt[1] > 1000);
}

/* ---- the chain of an explanation ---------------------------------------------------------- */

struct chain_shared {
    int P;
    const struct dg_mpilog *const *all;
    const int *owner;
    struct dg_pos a, b;
    const struct dg_pos *want; /* the serial chain */
    size_t nwant;
};

static int chain_proc(const struct dg_xchg *x, void *arg)
{
    struct peer_arg *a = arg;
    const struct chain_shared *sh = a->sh;
    const struct dg_mpilog *mine[MAXP] = {0};
    struct dg_match *m = NULL;
    int rc = proc_match(sh->all, sh->P, sh->owner, x, mine, &m);
    if (rc < 0)
        return rc;
    struct dg_pos got[64];
    size_t n = 99;
    rc = dg_hb_chain_dist(mine, sh->P, m, sh->owner, x, sh->a, sh->b, got, 64, &n);
    CHECK(rc == 0);
    CHECK(n == sh->nwant);
    for (size_t i = 0; i < n && i < sh->nwant; i++)
        CHECK(got[i].rank == sh->want[i].rank && got[i].pos == sh->want[i].pos);
    dg_match_destroy(m);
    return rc;
}

/* Random runs (nonblocking collectives in half of them, some ranks
 * without a log): the chain every process gets from the spread replay
 * (dg_hb_chain_dist) is the serial one (dg_hb_chain), record for record,
 * for pairs along messages and collectives (mostly chains), random pairs
 * (mostly none), pairs on one rank and outside the logs. */
static void test_chain_random(void **state)
{
    (void)state;
    srand(20261203);
    static const int Ks[] = {1, 2, 3, 4, 8};
    uint64_t chains = 0, multi = 0, none = 0;
    for (int round = 0; round < 200; round++) {
        int P = 2 + (int)rnd(MAXP - 1), K = Ks[round % 5];
        struct dg_mpilog l[MAXP];
        int64_t off[MAXP] = {0};
        random_run_nb(l, P, 10 + (int)rnd(120), off, false, rnd(2));
        const struct dg_mpilog *all[MAXP] = {0};
        int owner[MAXP];
        for (int r = 0; r < P; r++) {
            all[r] = rnd(15) ? &l[r] : NULL;
            owner[r] = all[r] ? (int)rnd((uint64_t)K) : (rnd(2) ? -1 : (int)rnd((uint64_t)K));
        }
        struct dg_match *m = NULL;
        assert_int_equal(dg_match_build(all, P, &m), 0);
        struct dg_hb *h = NULL;
        assert_int_equal(dg_hb_build(all, P, m, NULL, 0, &h), 0);
        for (int t = 0; t < 4; t++) {
            struct dg_hb_query q = random_query(all, P, m, NULL, 0);
            if (rnd(2))
                chain_query(all, P, m, &q);
            struct dg_pos want[64];
            size_t nwant = dg_hb_chain(h, q.a, q.b, want, 64);
            chains += nwant > 0;
            multi += nwant > 2;
            none += nwant == 0;
            struct chain_shared sh = {P, all, owner, q.a, q.b, want, nwant};
            run_procs(K, chain_proc, &sh, round);
        }
        dg_hb_destroy(h);
        dg_match_destroy(m);
        for (int r = 0; r < P; r++)
            dg_mpilog_free(&l[r]);
    }
    fprintf(stderr, "chains %lu multi %lu none %lu\n", (unsigned long)chains, (unsigned long)multi, (unsigned long)none);
    assert_true(chains > 150 && none > 150);
    assert_true(multi > 40); /* chains of several messages too */
}

/* ---- the timed replay ----------------------------------------------------------------- */

struct rp_shared {
    int P, K;
    const struct dg_mpilog *all[MAXP];
    const int *owner;
    const struct dg_replay_params *pp;
    const struct dg_change *ch;
    size_t nch;
    const struct dg_replay_rank *want;
    const struct turns *tn; /* a crowded run's turns, serial (NULL: none) */
    uint64_t t0;
};

static int replay_proc(const struct dg_xchg *x, void *arg)
{
    struct proc_arg *a = arg;
    struct rp_shared *sh = (struct rp_shared *)a->sh;
    const struct dg_mpilog *mine[MAXP] = {0};
    struct dg_match *m = NULL;
    int rc = proc_match(sh->all, sh->P, sh->owner, x, mine, &m);
    if (rc < 0)
        return rc;
    if (sh->tn) {
        /* the turns: each process's ranks' as the serial ones */
        struct turns tn[MAXP];
        rc = dg_turns_of_dist(mine, sh->P, x, sh->pp->slice_ns, sh->t0, tn);
        for (int r = 0; rc == 0 && r < sh->P; r++)
            if (mine[r]) {
                const struct turns *w = &sh->tn[r];
                CHECK(tn[r].on == w->on && tn[r].a == w->a && tn[r].b == w->b && tn[r].phase == w->phase);
                CHECK(tn[r].noff == w->noff && tn[r].last == w->last);
                CHECK(!tn[r].noff || !memcmp(tn[r].off, w->off, 2 * w->noff * sizeof *w->off));
            }
        if (rc == 0)
            dg_turns_free(tn, sh->P);
    }
    struct dg_replay_rank out[MAXP];
    memset(out, 0xff, sizeof out);
    rc = dg_replay_run_dist(mine, sh->P, m, sh->owner, x, sh->pp, sh->ch, sh->nch, out);
    for (int r = 0; rc == 0 && r < sh->P; r++) {
        if (!mine[r]) {
            CHECK(!out[r].valid && out[r].measured_ns == 0 && out[r].replayed_ns == 0);
            continue;
        }
        /* the same doubles, to the bit */
        CHECK(out[r].valid == sh->want[r].valid);
        CHECK(!memcmp(&out[r].measured_ns, &sh->want[r].measured_ns, sizeof(double)));
        CHECK(!memcmp(&out[r].replayed_ns, &sh->want[r].replayed_ns, sizeof(double)));
    }
    dg_match_destroy(m);
    return rc;
}

/* The log's table of CPU times, all zero, one per record it has room for
 * (the records are all there: the table does not grow with them). */
static void cpu_room(struct dg_mpilog *l)
{
    free(l->cpu);
    l->cpu = calloc(l->cap > l->n ? l->cap : l->n ? l->n : 1, sizeof *l->cpu);
    assert_non_null(l->cpu);
}

/* A random run made fit for the timed replay: times 100 times as long (so
 * that ranks of a crowded host are off their CPU for long stretches), a
 * receive now and then in its send's call (a Sendrecv), broadcasts of odd
 * call numbers made reductions (both binomial trees), a collective now and
 * then too large for a tree; with `crowded`, two hosts of one CPU and the
 * calls' CPU times (half their wall times). */
static void timed_run(struct dg_mpilog *l, int P, bool crowded)
{
    for (int r = 0; r < P; r++) {
        uint64_t t0 = l[r].n ? l[r].rec[0].t_enter : 0;
        if (crowded)
            cpu_room(&l[r]);
        for (uint32_t i = 0; i < l[r].n; i++) {
            struct dg_msgrec *x = &l[r].rec[i];
            x->t_enter = t0 + (x->t_enter - t0) * 100;
            x->t_exit = t0 + (x->t_exit - t0) * 100;
            if (x->t_exit < x->t_enter)
                x->t_exit = x->t_enter;
            if (i && x->kind == DG_MSG_RECV && l[r].rec[i - 1].kind == DG_MSG_SEND && rnd(4) == 0)
                x->index = l[r].rec[i - 1].index;
            if (x->kind == DG_MSG_COLL && x->call == CHT_MPI_BCAST && x->seq % 2)
                x->call = CHT_MPI_REDUCE;
            if (x->kind == DG_MSG_COLL && x->seq % 7 == 3)
                x->bytes = x->rbytes = 4096;
            if (crowded)
                l[r].cpu[i] = (struct dg_cputime){x->t_enter / 2, x->t_exit / 2};
        }
        if (crowded)
            l[r].host = (struct dg_host){.cpus = 1, .host_id = 1 + (uint32_t)(r % 2)};
    }
}

/* Random changes: calls made nonblocking (posted earlier, waited for
 * later), sends merged into a later send of their rank, point-to-point
 * calls joined into four collective instances. */
static size_t random_changes(const struct dg_mpilog *const *all, int P, struct dg_change *ch, size_t max)
{
    size_t n = 0;
    for (int r = 0; r < P; r++) {
        const struct dg_mpilog *g = all[r];
        if (!g || g->n < 3)
            continue;
        for (int k = (int)rnd(4); k > 0 && n < max; k--) {
            uint32_t p = 1 + (uint32_t)rnd(g->n - 2);
            const struct dg_msgrec *x = &g->rec[p];
            int what = (int)rnd(3);
            if (what == 0) {
                uint64_t back = rnd(5) * 100000, fwd = rnd(5) * 100000;
                ch[n++] = (struct dg_change){.kind = DG_CHANGE_NB, .rank = r, .pos = p,
                                             .t_post = x->t_enter > back ? x->t_enter - back : 0,
                                             .t_wait = x->t_exit + fwd};
            } else if (what == 1 && x->kind == DG_MSG_SEND) {
                /* half of them into a send to another rank: its receive may
                 * come first */
                bool other = rnd(2);
                for (uint32_t c = p + 1; c < g->n; c++)
                    if (g->rec[c].kind == DG_MSG_SEND && (!other || g->rec[c].peer != x->peer) && rnd(2)) {
                        ch[n++] = (struct dg_change){.kind = DG_CHANGE_MERGE, .rank = r, .pos = p, .into = c};
                        break;
                    }
            } else if (x->kind == DG_MSG_SEND || x->kind == DG_MSG_RECV) {
                ch[n++] = (struct dg_change){.kind = DG_CHANGE_COLL, .rank = r, .pos = p,
                                             .id = (uint32_t)rnd(4), .steps = 1 + (uint32_t)rnd(3)};
            }
        }
    }
    return n;
}

/* Random runs replayed with random parameters and changes, on K
 * processes: every rank ends where the serial replay (as it was before it
 * was spread) ends it, to the bit. */
static void test_replay_random(void **state)
{
    (void)state;
    srand(20261130);
    static const int Ks[] = {1, 2, 3, 4, 8};
    int stalled = 0, rdv = 0, crowded_runs = 0, merged_rdv = 0, turned = 0;
    for (int round = 0; round < 300; round++) {
        int P = 2 + (int)rnd(MAXP - 1), K = Ks[round % 5];
        struct dg_mpilog l[MAXP];
        int64_t off[MAXP] = {0};
        random_run_nb(l, P, 10 + (int)rnd(80), off, false, true);
        bool crowded = round % 3 == 1;
        timed_run(l, P, crowded);
        struct rp_shared sh = {.P = P, .K = K};
        int owner[MAXP];
        for (int r = 0; r < P; r++) {
            sh.all[r] = rnd(15) ? &l[r] : NULL;
            owner[r] = (int)rnd((uint64_t)K);
        }
        struct dg_change ch[64];
        size_t nch = round % 4 == 0 ? 0 : random_changes(sh.all, P, ch, 64);
        struct dg_replay_params pp = {.lat_ns = (double)rnd(5000), .ns_per_byte = (double)rnd(4) / 2,
                                      .o_ns = (double)rnd(800), .or_ns = (double)rnd(800),
                                      .eager_max = rnd(2) ? 16 : 1 << 20, .compute_scale = rnd(3) ? 0 : 0.5,
                                      .ideal = rnd(6) == 0, .slice_ns = crowded ? 200000 : 0,
                                      .slice_phase_ns = crowded ? (double)rnd(200000) : 0};
        struct dg_match *m = NULL;
        assert_int_equal(dg_match_build(sh.all, P, &m), 0);
        struct dg_replay_rank want[MAXP];
        assert_int_equal(oracle_replay_run(sh.all, P, m, &pp, ch, nch, want), 0);
        /* what the run exercised: a rank that never reached its end (a stall
         * let it go on), a rendezvous */
        for (int r = 0; r < P; r++)
            for (uint32_t i = 0; sh.all[r] && i < l[r].n; i++)
                rdv += l[r].rec[i].kind == DG_MSG_SEND && l[r].rec[i].bytes > pp.eager_max &&
                       dg_match_peer(m, (struct dg_pos){r, i}).rank >= 0;
        for (size_t i = 0; i < nch; i++) /* merged into a message that waits for its receive */
            merged_rdv += ch[i].kind == DG_CHANGE_MERGE &&
                          l[ch[i].rank].rec[ch[i].into].bytes + l[ch[i].rank].rec[ch[i].pos].bytes > pp.eager_max &&
                          dg_match_peer(m, (struct dg_pos){ch[i].rank, ch[i].into}).rank >= 0 &&
                          dg_match_peer(m, (struct dg_pos){ch[i].rank, ch[i].pos}).rank >= 0;
        struct turns tn[MAXP];
        uint64_t t0 = dg_run_start(sh.all, P);
        if (crowded) {
            assert_true(dg_turns_of(sh.all, P, pp.slice_ns, t0, tn));
            for (int r = 0; r < P; r++)
                turned += tn[r].on;
        }
        struct dg_replay_rank again[MAXP];
        assert_int_equal(dg_replay_run(sh.all, P, m, &pp, ch, nch, again), 0);
        assert_memory_equal(again, want, P * sizeof *want);
        dg_match_destroy(m);
        stalled += nch > 0;
        crowded_runs += crowded;
        sh.owner = owner;
        sh.pp = &pp;
        sh.ch = ch;
        sh.nch = nch;
        sh.want = want;
        sh.tn = crowded ? tn : NULL;
        sh.t0 = t0;
        struct proc_arg pa[8];
        void *args[8];
        for (int k = 0; k < K; k++) {
            pa[k] = (struct proc_arg){(struct shared *)&sh, 0};
            args[k] = &pa[k];
        }
        assert_int_equal(dg_xchg_threads(K, replay_proc, args), 0);
        for (int k = 0; k < K; k++)
            if (pa[k].failed)
                fail_msg("round %d, K=%d, process %d: check at line %d failed", round, K, k, pa[k].failed);
        for (int r = 0; r < P; r++)
            dg_mpilog_free(&l[r]);
        if (crowded)
            dg_turns_free(tn, P);
    }
    assert_true(rdv > 100);
    assert_true(merged_rdv > 5);
    assert_true(turned > 100);
    assert_true(stalled > 100);
    assert_true(crowded_runs == 100);
}

/* ---- the fit of the replay's parameters ---------------------------------------------- */

struct fit_shared {
    int P;
    const struct dg_mpilog *all[MAXP];
    const int *owner;
    uint64_t eager_max;
    const struct dg_replay_params *want;
};

static int fit_proc(const struct dg_xchg *x, void *arg)
{
    struct proc_arg *a = arg;
    struct fit_shared *sh = (struct fit_shared *)a->sh;
    const struct dg_mpilog *mine[MAXP] = {0};
    struct dg_match *m = NULL;
    int rc = proc_match(sh->all, sh->P, sh->owner, x, mine, &m);
    if (rc < 0)
        return rc;
    struct dg_replay_params pp;
    memset(&pp, 0xff, sizeof pp);
    pp.eager_max = sh->eager_max;
    pp.compute_scale = 0;
    pp.ideal = false;
    rc = dg_replay_fit_dist(mine, sh->P, m, x, &pp);
    const struct dg_replay_params *w = sh->want;
#define SAME(f) CHECK(!memcmp(&pp.f, &w->f, sizeof pp.f))
    if (rc == 0) { /* every field it fits, to the bit */
        SAME(lat_ns);
        SAME(ns_per_byte);
        SAME(o_ns);
        SAME(or_ns);
        SAME(samples);
        SAME(slice_ns);
        SAME(slice_phase_ns);
        SAME(slice_samples);
    }
#undef SAME
    dg_match_destroy(m);
    return rc;
}

/* A random run made a sample of a network: blocking sends of 8 bytes to
 * 256 KiB, times `scale` times as long (ms between calls, so that
 * receivers wait a millisecond and more), and on crowded runs CPU times
 * that cover a call's whole time or a third of it.  With p2p_only, only
 * the messages are left: the samples of the slices' phase outnumber the
 * room the fit keeps for them (twice the longest log). */
static void fit_run(struct dg_mpilog *l, int P, uint64_t scale, bool crowded, bool p2p_only)
{
    for (int r = 0; r < P; r++) {
        uint32_t k = 0;
        for (uint32_t i = 0; p2p_only && i < l[r].n; i++)
            if (l[r].rec[i].kind == DG_MSG_SEND || l[r].rec[i].kind == DG_MSG_RECV)
                l[r].rec[k++] = l[r].rec[i];
        if (p2p_only)
            l[r].n = k;
        uint64_t t0 = MONO0; /* one time for all ranks: who waited for whom stays */
        if (crowded)
            cpu_room(&l[r]);
        for (uint32_t i = 0; i < l[r].n; i++) {
            struct dg_msgrec *x = &l[r].rec[i];
            x->t_enter = t0 + (x->t_enter - t0) * scale;
            x->t_exit = t0 + (x->t_exit - t0) * scale;
            if (x->t_exit < x->t_enter)
                x->t_exit = x->t_enter;
            if (x->kind == DG_MSG_SEND && rnd(3)) {
                x->call = rnd(8) ? CHT_MPI_SEND : CHT_MPI_SENDRECV;
                x->flags &= (uint8_t)~DG_MSGF_NONBLOCKING;
                x->bytes = rnd(3) ? 1ull << rnd(19) : 8 + rnd(300000);
            }
            if (crowded) {
                uint64_t c0 = x->t_enter / 2;
                l[r].cpu[i] = (struct dg_cputime){c0, c0 + (rnd(2) ? x->t_exit - x->t_enter : (x->t_exit - x->t_enter) / 3)};
            }
        }
        if (crowded)
            l[r].host = (struct dg_host){.cpus = 1, .host_id = 1 + (uint32_t)(r % 2)};
    }
}

/* Random runs fitted on K processes: every process gets the parameters
 * the serial fit (as it was before it was spread: double sums, the
 * samples sorted) gives, to the bit. */
static void test_fit_random(void **state)
{
    (void)state;
    srand(20261202);
    static const int Ks[] = {1, 2, 3, 4, 8};
    int g = 0, phased = 0, sliced = 0, rdv = 0;
    for (int round = 0; round < 300; round++) {
        int P = 2 + (int)rnd(MAXP - 1), K = Ks[round % 5];
        struct dg_mpilog l[MAXP];
        int64_t off[MAXP] = {0};
        random_run_nb(l, P, 10 + (int)rnd(120), off, false, rnd(2));
        bool crowded = round % 3 == 1;
        bool p2p_only = crowded && rnd(2);
        fit_run(l, P, p2p_only ? 10000 : rnd(2) ? 100 : 3000, crowded, p2p_only);
        struct fit_shared sh = {.P = P, .eager_max = rnd(3) == 0 ? 16 : rnd(2) ? 4096 : 1 << 20};
        int owner[MAXP];
        for (int r = 0; r < P; r++) {
            sh.all[r] = rnd(15) ? &l[r] : NULL;
            owner[r] = (int)rnd((uint64_t)K);
        }
        struct dg_match *m = NULL;
        assert_int_equal(dg_match_build(sh.all, P, &m), 0);
        struct dg_replay_params want, again;
        memset(&want, 0, sizeof want);
        want.eager_max = sh.eager_max;
        again = want;
        assert_int_equal(oracle_replay_fit(sh.all, P, m, &want), 0);
        assert_int_equal(dg_replay_fit(sh.all, P, m, &again), 0);
        assert_memory_equal(&again, &want, sizeof want);
        dg_match_destroy(m);
        g += want.ns_per_byte > 0;
        phased += want.slice_phase_ns > 0;
        sliced += want.slice_samples > 0;
        rdv += sh.eager_max == 16 && want.samples > 0;
        sh.owner = owner;
        sh.want = &want;
        struct proc_arg pa[8];
        void *args[8];
        for (int k = 0; k < K; k++) {
            pa[k] = (struct proc_arg){(struct shared *)&sh, 0};
            args[k] = &pa[k];
        }
        assert_int_equal(dg_xchg_threads(K, fit_proc, args), 0);
        for (int k = 0; k < K; k++)
            if (pa[k].failed)
                fail_msg("round %d, K=%d, process %d: check at line %d failed", round, K, k, pa[k].failed);
        for (int r = 0; r < P; r++)
            dg_mpilog_free(&l[r]);
    }
    /* what the runs exercised: G fitted, a slice and its phase, L from
     * rendezvous transfers */
    assert_true(g > 150);
    assert_true(phased > 30);
    assert_true(sliced > 60);
    assert_true(rdv > 40);
}

/* ---- the collective search's candidates ------------------------------------------------- */

struct cand_shared {
    int P, K;
    const struct dg_mpilog *all[MAXP];
    const int *owner;
    uint8_t *want[MAXP]; /* [rank][pos]: the oracle's marks */
};

static bool cand_p2p(const struct dg_msgrec *x, int P)
{
    return (x->kind == DG_MSG_SEND || x->kind == DG_MSG_RECV) && x->peer >= 0 && x->peer < P;
}

/* The records of instance i of m, mapped to whole positions by orig (NULL:
 * as they are), against those of instance j of w. */
static bool same_members(const struct dg_match *m, uint32_t i, uint32_t *const *orig, const struct dg_match *w,
                         uint32_t j)
{
    uint32_t n, nw;
    const struct dg_pos *v = dg_match_coll(m, i, &n), *vw = dg_match_coll(w, j, &nw);
    if (n != nw)
        return false;
    for (uint32_t k = 0; k < n; k++)
        if (v[k].rank != vw[k].rank || orig[v[k].rank][v[k].pos] != vw[k].pos)
            return false;
    return true;
}

/* Process 0's sparse logs (search_coll_sparse_dist) against the whole
 * logs and the oracle's marks: per rank, the collective records and the
 * candidates in log order, their whole positions, the kinds left out right
 * before each, a forwarded receive's position, and the messages and
 * instances matched among them those of the whole logs; the fastest call
 * of each class over every log; each rank's records per call site. */
static void sparse_check(struct proc_arg *a, const struct cand_shared *sh, const struct coll_sparse *sp)
{
    struct dg_match *w = NULL;
    CHECK(sp && dg_match_build(sh->all, sh->P, &w) == 0);
    /* the fastest call of each class, reduced over the processes */
    int64_t fastest[COLL_NCLASS];
    coll_fastest_of(sh->all, sh->P, fastest);
    CHECK(sp && sp->has_fastest && !memcmp(sp->fastest, fastest, sizeof fastest));
    for (int r = 0; r < sh->P && sp && w; r++) {
        const struct dg_mpilog *g = sh->all[r], *o = sp->logs[r];
        CHECK(!g == !o);
        uint32_t k = 0;
        uint8_t gap = 0;
        for (uint32_t i = 0; g && o && i < g->n && k < o->n; i++) {
            const struct dg_msgrec *x = &g->rec[i], *y = &o->rec[k];
            if (x->kind != DG_MSG_COLL && !sh->want[r][i]) {
                gap |= x->kind == DG_MSG_SEND ? GAP_SEND : x->kind == DG_MSG_OTHER ? 0 : GAP_OTHER_KIND;
                continue;
            }
            CHECK(sp->orig[r][k] == i && sp->gap[r][k] == gap);
            CHECK(y->index == x->index && y->kind == x->kind && y->seq == x->seq && y->peer == x->peer);
            if (x->flags & DG_MSGF_FORWARD)
                CHECK(y->fwd_pos == UINT32_MAX ? !sh->want[r][x->fwd_pos] : sp->orig[r][y->fwd_pos] == x->fwd_pos);
            if (x->kind == DG_MSG_SEND || x->kind == DG_MSG_RECV) {
                struct dg_pos pw = dg_match_peer(w, (struct dg_pos){r, i});
                struct dg_pos ps = dg_match_peer(sp->m, (struct dg_pos){r, k});
                CHECK(ps.rank == pw.rank && (ps.rank < 0 || sp->orig[ps.rank][ps.pos] == pw.pos));
            } else {
                uint32_t iw = dg_match_coll_of(w, (struct dg_pos){r, i});
                uint32_t is = dg_match_coll_of(sp->m, (struct dg_pos){r, k});
                CHECK((iw == UINT32_MAX) == (is == UINT32_MAX));
                CHECK(iw == UINT32_MAX || same_members(sp->m, is, sp->orig, w, iw));
            }
            k++;
            gap = 0;
        }
        CHECK(!o || k == o->n);
        /* the whole log's records per call site */
        struct coll_sitecount *sc = NULL;
        uint32_t nsc = 0;
        CHECK(!g || coll_site_counts(g, &sc, &nsc) == 0);
        CHECK(!g == !sp->sites[r] && nsc == sp->nsites[r]);
        CHECK(!nsc || !memcmp(sc, sp->sites[r], nsc * sizeof *sc));
        free(sc);
    }
    dg_match_destroy(w);
}

static int cand_proc(const struct dg_xchg *x, void *arg)
{
    struct proc_arg *a = arg;
    struct cand_shared *sh = (struct cand_shared *)a->sh;
    const struct dg_mpilog *mine[MAXP] = {0};
    struct dg_match *m = NULL;
    int rc = proc_match(sh->all, sh->P, sh->owner, x, mine, &m);
    if (rc < 0)
        return rc;
    uint8_t *mk[MAXP] = {0};
    for (int r = 0; r < sh->P; r++)
        if (mine[r])
            mk[r] = calloc(mine[r]->n ? mine[r]->n : 1, 1);
    rc = search_coll_candidates(mine, sh->P, sh->owner, x, m, mk);
    for (int r = 0; r < sh->P && rc == 0; r++)
        for (uint32_t i = 0; mine[r] && i < mine[r]->n; i++)
            if (cand_p2p(&mine[r]->rec[i], sh->P))
                CHECK(!mk[r][i] == !sh->want[r][i]);
    /* the sparse logs of the collective search, gathered on process 0 */
    struct search_xrank xr = {.world_size = sh->P, .logs = mine, .owner = sh->owner, .xchg = x, .match = m};
    if (rc == 0)
        rc = search_coll_sparse_dist(&xr);
    if (rc == 0 && x->proc == 0)
        sparse_check(a, sh, xr.csparse);
    CHECK(rc < 0 || !xr.csparse == (x->proc != 0));
    search_coll_sparse_destroy(xr.csparse);
    for (int r = 0; r < sh->P; r++)
        free(mk[r]);
    dg_match_destroy(m);
    return rc;
}

/* Gives a random run what the candidates' rules read: sends of a few
 * buffers and versions (groups of the same bytes), sends that forward an
 * earlier receive of their rank, receives whose value the next call uses
 * (control messages), a few call sites. */
static void cand_decorate(struct dg_mpilog *l, int P)
{
    for (int r = 0; r < P; r++) {
        int32_t last_recv = -1;
        for (uint32_t i = 0; i < l[r].n; i++) {
            struct dg_msgrec *x = &l[r].rec[i];
            x->site = 1 + (uint32_t)rnd(3);
            if (x->kind == DG_MSG_SEND) {
                x->buf = 0x1000 * (1 + rnd(2));
                x->bytes = 8;
                x->version = rnd(2);
                if (last_recv >= 0 && rnd(4) == 0) {
                    x->flags |= DG_MSGF_FORWARD;
                    x->fwd_pos = (uint32_t)last_recv;
                }
            } else if (x->kind == DG_MSG_RECV) {
                last_recv = (int32_t)i;
                if (i + 1 < l[r].n && rnd(3) == 0) {
                    x->flags |= DG_MSGF_ARG;
                    x->use_site = 0; /* set below, once the next record's site is drawn */
                }
            }
        }
        for (uint32_t i = 0; i + 1 < l[r].n; i++)
            if (l[r].rec[i].flags & DG_MSGF_ARG)
                l[r].rec[i].use_site = rnd(4) ? l[r].rec[i + 1].site : 9;
    }
}

/* Random runs on 2 to 12 ranks (two communicators, ranks without a log,
 * nonblocking collectives) with forwarded sends, groups of the same bytes
 * and control messages: every process marks, for its ranks, the
 * candidates the serial search marks over every log (the oracle), and
 * process 0 gathers the sparse logs of those (sparse_check). */
static void test_candidates_random(void **state)
{
    (void)state;
    srand(20261202);
    static const int Ks[] = {1, 2, 3, 4, 8};
    uint64_t kept = 0, left = 0;
    for (int round = 0; round < 300; round++) {
        int P = 2 + (int)rnd(MAXP - 1), K = Ks[round % 5];
        struct dg_mpilog l[MAXP];
        int64_t off[MAXP] = {0};
        random_run_nb(l, P, 10 + (int)rnd(80), off, false, round % 2 == 0);
        cand_decorate(l, P);
        struct cand_shared sh = {.P = P, .K = K};
        int owner[MAXP];
        for (int r = 0; r < P; r++) {
            sh.all[r] = rnd(15) ? &l[r] : NULL;
            owner[r] = sh.all[r] ? (int)rnd((uint64_t)K) : -1;
            sh.want[r] = sh.all[r] ? calloc(l[r].n ? l[r].n : 1, 1) : NULL;
        }
        sh.owner = owner;
        struct dg_match *m = NULL;
        assert_int_equal(dg_match_build(sh.all, P, &m), 0);
        assert_int_equal(oracle_coll_candidates(sh.all, P, m, sh.want), 0);
        dg_match_destroy(m);
        for (int r = 0; r < P; r++)
            for (uint32_t i = 0; sh.all[r] && i < l[r].n; i++)
                if (cand_p2p(&l[r].rec[i], P)) {
                    kept += sh.want[r][i] != 0;
                    left += sh.want[r][i] == 0;
                }
        struct proc_arg pa[8];
        void *args[8];
        for (int k = 0; k < K; k++) {
            pa[k] = (struct proc_arg){(struct shared *)&sh, 0};
            args[k] = &pa[k];
        }
        assert_int_equal(dg_xchg_threads(K, cand_proc, args), 0);
        for (int k = 0; k < K; k++)
            if (pa[k].failed)
                fail_msg("round %d, K=%d, process %d: check at line %d failed", round, K, k, pa[k].failed);
        for (int r = 0; r < P; r++) {
            free(sh.want[r]);
            dg_mpilog_free(&l[r]);
        }
    }
    print_message("candidates: %" PRIu64 " point-to-point records kept, %" PRIu64 " left out\n", kept, left);
    assert_true(kept > 1000);
    assert_true(left > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_random),
        cmocka_unit_test(test_waitstates_random),
        cmocka_unit_test(test_peer_facts_random),
        cmocka_unit_test(test_describe_random),
        cmocka_unit_test(test_tworanks_random),
        cmocka_unit_test(test_spread_default),
        cmocka_unit_test(test_verdicts_random),
        cmocka_unit_test(test_stall_random),
        cmocka_unit_test(test_hb_random),
        cmocka_unit_test(test_chain_random),
        cmocka_unit_test(test_replay_random),
        cmocka_unit_test(test_fit_random),
        cmocka_unit_test(test_candidates_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
