/* hb-queries.c - what the happens-before replay (depgraph/hb.c) costs at
 * scale, on MPI logs made in memory: P ranks in a ring, each step a send to
 * each neighbour and the two receives, an MPI_Allreduce (blocking, or with
 * --nonblocking an MPI_Iallreduce started before the sends and completed
 * after the receives) every 10 steps.  The queries are the kind the
 * deadlock checks ask: does a rank's receive of step i happen before a
 * send two ranks away at step i + 1 (a chain of two messages), and before
 * a receive two ranks the other way at step i + 3 (across an Allreduce
 * every so often).
 *
 *   hb-queries P STEPS [--nonblocking] [--spread K]
 *
 * Prints one line: ranks, records, queries, the seconds of dg_hb_build,
 * the peak resident memory before and after it, how many of the queries
 * hold, and what vector clocks of every record would have needed
 * (ranks x records x 4 bytes).  With --spread K, a second line: the same
 * queries answered by the replay spread over K threads standing for K
 * processes (dg_hb_answer_dist, hb-dist.c; each holding the logs of P / K
 * ranks in a block, asking the queries of its ranks), its seconds
 * (matching included) and whether every answer is the serial one. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "depgraph.h"

/* --spread: what the threads share, and each one's part. */
struct spread {
    int P, K;
    const struct dg_mpilog *const *logs;
    const int *owner;
    const struct dg_hb_query *q;
    size_t nq;
    uint8_t *ans; /* [nq], each answered by the process of its a */
};

static int spread_proc(const struct dg_xchg *x, void *arg)
{
    const struct spread *S = arg;
    const struct dg_mpilog **mine = calloc((size_t)S->P, sizeof *mine);
    struct dg_hb_query *q = malloc((S->nq ? S->nq : 1) * sizeof *q);
    size_t *idx = malloc((S->nq ? S->nq : 1) * sizeof *idx), n = 0;
    uint8_t *ans = malloc(S->nq ? S->nq : 1);
    struct dg_match *m = NULL;
    int rc = mine && q && idx && ans ? 0 : TRACE_ERR_NOMEM;
    for (int r = 0; rc == 0 && r < S->P; r++)
        if (S->owner[r] == x->proc)
            mine[r] = S->logs[r];
    for (size_t i = 0; rc == 0 && i < S->nq; i++)
        if (S->owner[S->q[i].a.rank] == x->proc) {
            idx[n] = i;
            q[n++] = S->q[i];
        }
    rc = dg_xchg_agree(x, rc);
    if (rc == 0)
        rc = dg_match_build_dist(mine, S->P, S->owner, x, &m);
    if (rc == 0)
        rc = dg_hb_answer_dist(mine, S->P, m, S->owner, x, q, n, ans);
    for (size_t i = 0; rc == 0 && i < n; i++)
        S->ans[idx[i]] = ans[i];
    dg_match_destroy(m);
    free(mine);
    free(q);
    free(idx);
    free(ans);
    return rc;
}

static struct dg_msgrec *add(struct dg_mpilog *g, int kind, int call, int peer, int tag, uint64_t seq,
                             int P)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 1024;
        struct dg_msgrec *p = realloc(g->rec, g->cap * sizeof *p);
        if (!p) {
            fprintf(stderr, "hb-queries: out of memory\n");
            exit(1);
        }
        g->rec = p;
    }
    struct dg_msgrec *r = &g->rec[g->n];
    memset(r, 0, sizeof *r);
    r->index = g->n;
    r->kind = (uint8_t)kind;
    r->call = (uint16_t)call;
    r->peer = peer;
    r->tag = tag;
    r->seq = seq;
    r->comm = CHT_COMM_WORLD;
    r->comm_size = (uint32_t)P;
    g->n++;
    return r;
}

static long peak_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: hb-queries P STEPS [--nonblocking] [--spread K]\n");
        return 2;
    }
    int P = atoi(argv[1]), steps = atoi(argv[2]), K = 0;
    bool nb = false;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--nonblocking"))
            nb = true;
        else if (!strcmp(argv[i], "--spread") && i + 1 < argc)
            K = atoi(argv[++i]);
        else
            P = 0; /* the usage below */
    }
    if (P < 3 || steps < 4 || K < 0 || K > 64) {
        fprintf(stderr, "hb-queries: P must be 3 or more, STEPS 4 or more and K at most 64\n");
        return 2;
    }
    struct dg_mpilog *l = calloc((size_t)P, sizeof *l);
    const struct dg_mpilog **logs = malloc((size_t)P * sizeof *logs);
    uint32_t *rpos = malloc((size_t)P * steps * sizeof *rpos), *spos = malloc((size_t)P * steps * sizeof *spos);
    struct dg_hb_query *q = malloc((size_t)P * steps * 2 * sizeof *q);
    if (!l || !logs || !rpos || !spos || !q) {
        fprintf(stderr, "hb-queries: out of memory\n");
        return 1;
    }
    for (int r = 0; r < P; r++) {
        int left = (r + P - 1) % P, right = (r + 1) % P;
        uint32_t start = 0;
        l[r].rank = r;
        logs[r] = &l[r];
        for (int i = 0; i < steps; i++) {
            bool coll = i % 10 == 9;
            if (coll && nb) {
                start = l[r].n;
                add(&l[r], DG_MSG_OTHER, CHT_MPI_IALLREDUCE, -1, -1, 0, P);
            }
            spos[(size_t)r * steps + i] = l[r].n;
            add(&l[r], DG_MSG_SEND, CHT_MPI_SEND, right, 1, (uint64_t)i + 1, P);
            add(&l[r], DG_MSG_SEND, CHT_MPI_SEND, left, 2, (uint64_t)i + 1, P);
            rpos[(size_t)r * steps + i] = l[r].n;
            add(&l[r], DG_MSG_RECV, CHT_MPI_RECV, left, 1, (uint64_t)i + 1, P);
            add(&l[r], DG_MSG_RECV, CHT_MPI_RECV, right, 2, (uint64_t)i + 1, P);
            if (coll && nb) {
                struct dg_msgrec *x = add(&l[r], DG_MSG_COLL, CHT_MPI_IALLREDUCE, -1, -1, (uint64_t)i / 10 + 1, P);
                x->flags |= DG_MSGF_NONBLOCKING;
                x->fwd_pos = start;
            } else if (coll) {
                add(&l[r], DG_MSG_COLL, CHT_MPI_ALLREDUCE, -1, -1, (uint64_t)i / 10 + 1, P);
            }
        }
    }
    size_t nq = 0;
    for (int r = 0; r < P; r++)
        for (int i = 0; i + 1 < steps; i++) {
            int two_left = (r + P - 2) % P, two_right = (r + 2) % P;
            struct dg_pos a = {r, rpos[(size_t)r * steps + i]};
            q[nq++] = (struct dg_hb_query){a, {two_left, spos[(size_t)two_left * steps + i + 1]}};
            if (i + 3 < steps)
                q[nq++] = (struct dg_hb_query){a, {two_right, rpos[(size_t)two_right * steps + i + 3]}};
        }
    struct dg_match *m;
    if (dg_match_build(logs, P, &m) < 0) {
        fprintf(stderr, "hb-queries: out of memory matching\n");
        return 1;
    }
    long before = peak_mb();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct dg_hb *h;
    if (dg_hb_build(logs, P, m, q, nq, &h) < 0) {
        fprintf(stderr, "hb-queries: out of memory in the replay\n");
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    size_t yes = 0;
    for (size_t i = 0; i < nq; i++)
        yes += dg_hb_before(h, q[i].a, q[i].b) == 1;
    uint64_t recs = 0;
    for (int r = 0; r < P; r++)
        recs += l[r].n;
    printf("%d ranks, %" PRIu64 " records, %zu queries%s: %.2f s, peak %ld MB before, %ld MB after; "
           "%zu hold; vector clocks would take %.1f GB\n",
           P, recs, nq, nb ? " (Iallreduce)" : "",
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, before, peak_mb(), yes,
           (double)recs * (double)P * 4 / 1e9);
    if (K > 0) {
        int *owner = malloc((size_t)P * sizeof *owner);
        uint8_t *ans = malloc(nq ? nq : 1);
        struct spread S = {P, K, logs, owner, q, nq, ans};
        void **args = malloc((size_t)K * sizeof *args);
        if (!owner || !ans || !args) {
            fprintf(stderr, "hb-queries: out of memory\n");
            return 1;
        }
        for (int r = 0; r < P; r++)
            owner[r] = (int)((int64_t)r * K / P);
        for (int k = 0; k < K; k++)
            args[k] = &S;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int rc = dg_xchg_threads(K, spread_proc, args);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        size_t same = 0;
        for (size_t i = 0; rc == 0 && i < nq; i++)
            same += ans[i] == (dg_hb_before(h, q[i].a, q[i].b) == 1);
        printf("  spread over %d threads: %.2f s (matching included), %s\n", K,
               (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
               rc < 0 ? "failed" : same == nq ? "every answer the serial one" : "ANSWERS DIFFER");
        free(owner);
        free(ans);
        free(args);
        if (rc < 0 || same != nq)
            return 1;
    }
    dg_hb_destroy(h);
    dg_match_destroy(m);
    for (int r = 0; r < P; r++)
        dg_mpilog_free(&l[r]);
    free(l);
    free(logs);
    free(rpos);
    free(spos);
    free(q);
    return 0;
}
