/* match.c - matching the ranks' MPI logs: every receive with its send, every
 * collective call with the calls of the other members.
 *
 * The runtime numbers the messages of each channel (communicator, sender,
 * receiver, tag) on both ends in the same order (MPI's non-overtaking rule;
 * a wildcard receive takes the numbers of the message its status names), so
 * matching is an exact join on (comm, source, destination, tag, number).
 * Collectives are numbered per communicator: (comm, number) is an instance.
 */
#include <stdlib.h>
#include <string.h>

#include "depgraph.h"

/* With K processes (struct dg_xchg) each holds the logs of some ranks:
 * a send's envelope travels to the process of its destination, which joins
 * it with its receives and answers with the receive's position; a
 * collective record travels to the process that owns its instance (by a
 * hash of communicator and number), which groups the instance and answers
 * each member with its instance's number.  The record at the other end
 * travels with each envelope and answer between different processes and is
 * kept as a copy (a ghost), so that what is asked of a matched pair or an
 * instance is answered where it is held.  Instances are numbered owner by
 * owner, each owner's in (communicator, number) order: with one process,
 * the order of (communicator, number). */

/* A send, on its way to the process of its destination; followed by the
 * send's record between different processes. */
struct envelope {
    uint64_t comm, seq;
    int32_t src, dst, tag;
    uint32_t pos;
};

/* A record as it travels to another process (after an envelope, an
 * answer or a collective record) and is kept there as a copy: the record
 * and its CPU times. */
struct wrec {
    struct dg_msgrec rec;
    struct dg_cputime cpu;
};

/* The receive matched to a send, on its way back; followed by the
 * receive's record. */
struct answer {
    int32_t src;
    uint32_t pos;
    struct dg_pos recv;
};

/* A collective record, on its way to its instance's owner; followed by the
 * record between different processes. */
struct coll_ent {
    uint64_t comm, seq;
    struct dg_pos pos;
    const struct dg_msgrec *rec; /* the log's, or the start of a struct wrec */
};

/* An instance's number, on its way back to a member. */
struct coll_answer {
    struct dg_pos pos;
    uint32_t inst;
};

struct chain_ent {
    const struct envelope *e;
    const struct dg_msgrec *rec; /* the start of a struct wrec; NULL: a local send */
    uint32_t next;               /* next entry with the same hash + 1, 0 = none */
    int from;                    /* the process it came from */
    bool used;
};

struct dg_match {
    int nranks;
    const struct dg_mpilog *const *logs;
    struct dg_pos **peer;     /* [rank][pos]: the other end, or DG_POS_NONE */
    uint32_t **coll_of;       /* [rank][pos]: instance, UINT32_MAX */
    uint32_t *nrec;           /* [rank] */
    struct dg_pos *coll;      /* members of this process's instances, instance by instance */
    uint32_t *coll_start;     /* [nhere + 1] */
    uint32_t coll_lo, nhere;  /* this process's instances: coll_lo .. coll_lo + nhere - 1 */
    uint32_t ncoll;           /* instances of all processes */
    uint32_t *coll_first;     /* [K + 1]: the first instance of each process, then ncoll */
    int nprocs;
    struct wrec *ghost;       /* records held by other processes */
    size_t nghost, cghost;
    struct dg_map ghost_at;   /* (rank << 32 | pos) -> ghost index */
    uint64_t unmatched_sends, unmatched_recvs, incomplete;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t msg_hash(uint64_t comm, int32_t src, int32_t dst, int32_t tag, uint64_t seq)
{
    uint64_t h = mix(mix(mix(mix(comm, (uint32_t)src), (uint32_t)dst), (uint32_t)tag), seq);
    return h == UINT64_MAX ? 0 : h;
}

static uint64_t pos_key(struct dg_pos p)
{
    return (uint64_t)(uint32_t)p.rank << 32 | p.pos;
}

void dg_match_destroy(struct dg_match *m)
{
    if (!m)
        return;
    for (int r = 0; r < m->nranks; r++) {
        if (m->peer)
            free(m->peer[r]);
        if (m->coll_of)
            free(m->coll_of[r]);
    }
    free(m->peer);
    free(m->coll_of);
    free(m->nrec);
    free(m->coll);
    free(m->coll_start);
    free(m->coll_first);
    free(m->ghost);
    dg_map_free(&m->ghost_at);
    free(m);
}

static int coll_cmp(const void *a, const void *b)
{
    const struct coll_ent *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    if (x->pos.rank != y->pos.rank)
        return x->pos.rank < y->pos.rank ? -1 : 1;
    return x->pos.pos < y->pos.pos ? -1 : x->pos.pos > y->pos.pos;
}

/* The process that holds rank r (-1: none), and the one that owns the
 * instance (comm, seq). */
static int owner_of(const int *owner, int P, int r)
{
    if (r < 0 || r >= P)
        return -1;
    return owner ? owner[r] : 0;
}

static int inst_owner(uint64_t comm, uint64_t seq, int K)
{
    return K == 1 ? 0 : (int)(mix(mix(0, comm), seq) % (uint64_t)K);
}

/* Keeps a copy of another process's record at p (wire: a struct wrec). */
static bool ghost_add(struct dg_match *m, struct dg_pos p, const void *wire)
{
    if (m->nghost == m->cghost) {
        size_t c = m->cghost ? m->cghost * 2 : 64;
        struct wrec *g = realloc(m->ghost, c * sizeof *g);
        if (!g)
            return false;
        m->ghost = g;
        m->cghost = c;
    }
    uint64_t *v = dg_map_put(&m->ghost_at, pos_key(p), m->nghost);
    if (!v)
        return false;
    memcpy(&m->ghost[*v], wire, sizeof m->ghost[*v]);
    if (*v == m->nghost)
        m->nghost++;
    return true;
}

/* Appends a fixed part and, to another process, record pos of log after
 * it (a struct wrec). */
static bool put_with(struct dg_bytes *b, const void *head, size_t n, const struct dg_mpilog *log, uint32_t pos,
                     bool remote)
{
    struct wrec w = {log->rec[pos], dg_cpu_of(log, pos)};
    return dg_bytes_put(b, head, n) && (!remote || dg_bytes_put(b, &w, sizeof w));
}

/* The per-rank tables of this process's ranks. */
static int tables_new(struct dg_match *m, const struct dg_mpilog *const *logs)
{
    int P = m->nranks;
    m->peer = calloc(P ? P : 1, sizeof *m->peer);
    m->coll_of = calloc(P ? P : 1, sizeof *m->coll_of);
    m->nrec = calloc(P ? P : 1, sizeof *m->nrec);
    if (!m->peer || !m->coll_of || !m->nrec)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < P; r++) {
        const struct dg_mpilog *g = logs[r];
        if (!g)
            continue;
        m->nrec[r] = g->n;
        m->peer[r] = malloc((g->n ? g->n : 1) * sizeof **m->peer);
        m->coll_of[r] = malloc((g->n ? g->n : 1) * sizeof **m->coll_of);
        if (!m->peer[r] || !m->coll_of[r])
            return TRACE_ERR_NOMEM;
        for (uint32_t i = 0; i < g->n; i++) {
            m->peer[r][i] = DG_POS_NONE;
            m->coll_of[r][i] = UINT32_MAX;
        }
    }
    return 0;
}

/* Step 1: every send to its destination's process, every collective
 * record to its instance's owner. */
static int post_envelopes(struct dg_match *m, const int *owner, int K, int me, struct dg_bytes *env,
                          struct dg_bytes *col)
{
    for (int r = 0; r < m->nranks; r++) {
        const struct dg_mpilog *g = m->logs[r];
        for (uint32_t i = 0; g && i < g->n; i++) {
            const struct dg_msgrec *x = &g->rec[i];
            if (x->kind == DG_MSG_COLL) {
                int q = inst_owner(x->comm, x->seq, K);
                struct coll_ent c = {x->comm, x->seq, {r, i}, NULL};
                if (!put_with(&col[q], &c, sizeof c, g, i, q != me))
                    return TRACE_ERR_NOMEM;
                continue;
            }
            if (x->kind != DG_MSG_SEND)
                continue;
            int q = owner_of(owner, m->nranks, x->peer);
            if (q < 0 || q >= K) {
                m->unmatched_sends++; /* nobody holds its destination */
                continue;
            }
            struct envelope e = {x->comm, x->seq, r, x->peer, x->tag, i};
            if (!put_with(&env[q], &e, sizeof e, g, i, q != me))
                return TRACE_ERR_NOMEM;
        }
    }
    return 0;
}

/* Step 2, at the destinations: the envelopes into a hash table, then each
 * receive of this process's ranks looks its send up; answers for sends of
 * other processes. */
static int join(struct dg_match *m, int K, int me, const struct dg_bytes *in, struct dg_bytes *ans)
{
    size_t n = 0;
    for (int q = 0; q < K; q++)
        n += in[q].len / (sizeof(struct envelope) + (q != me ? sizeof(struct wrec) : 0));
    struct chain_ent *ents = malloc((n ? n : 1) * sizeof *ents);
    struct dg_map heads = {0};
    int rc = TRACE_ERR_NOMEM;
    if (!ents)
        return rc;
    size_t k = 0;
    for (int q = 0; q < K; q++) {
        size_t step = sizeof(struct envelope) + (q != me ? sizeof(struct wrec) : 0);
        for (size_t off = 0; off + step <= in[q].len; off += step) {
            const struct envelope *e = (const void *)(in[q].p + off);
            ents[k] = (struct chain_ent){e, q != me ? (const void *)(e + 1) : NULL, 0, q, false};
            uint64_t *h = dg_map_put(&heads, msg_hash(e->comm, e->src, e->dst, e->tag, e->seq), 0);
            if (!h)
                goto out;
            ents[k].next = (uint32_t)*h;
            *h = ++k;
        }
    }
    for (int r = 0; r < m->nranks; r++) {
        const struct dg_mpilog *g = m->logs[r];
        for (uint32_t i = 0; g && i < g->n; i++) {
            const struct dg_msgrec *x = &g->rec[i];
            if (x->kind != DG_MSG_RECV)
                continue;
            const uint64_t *h = dg_map_get(&heads, msg_hash(x->comm, x->peer, r, x->tag, x->seq));
            struct chain_ent *found = NULL;
            for (uint32_t j = h ? (uint32_t)*h : 0; j && !found; j = ents[j - 1].next) {
                struct chain_ent *c = &ents[j - 1];
                const struct envelope *e = c->e;
                if (e->comm == x->comm && e->src == x->peer && e->dst == r && e->tag == x->tag &&
                    e->seq == x->seq && !c->used)
                    found = c;
            }
            if (!found) {
                m->unmatched_recvs++;
                continue;
            }
            found->used = true;
            struct dg_pos s = {found->e->src, found->e->pos};
            m->peer[r][i] = s;
            if (!found->rec) {
                m->peer[s.rank][s.pos] = (struct dg_pos){r, i};
                continue;
            }
            /* the answer goes back to the process the envelope came from */
            struct answer a = {s.rank, s.pos, {r, i}};
            if (!ghost_add(m, s, found->rec) || !put_with(&ans[found->from], &a, sizeof a, g, i, true))
                goto out;
        }
    }
    for (size_t j = 0; j < k; j++)
        m->unmatched_sends += !ents[j].used;
    rc = 0;
out:
    free(ents);
    dg_map_free(&heads);
    return rc;
}

/* Step 3, at the senders: the answers of the other processes. */
static int take_answers(struct dg_match *m, int K, const struct dg_bytes *in)
{
    const size_t step = sizeof(struct answer) + sizeof(struct wrec);
    for (int q = 0; q < K; q++)
        for (size_t off = 0; off + step <= in[q].len; off += step) {
            struct answer a;
            memcpy(&a, in[q].p + off, sizeof a);
            if (a.src < 0 || a.src >= m->nranks || !m->peer[a.src] || a.pos >= m->nrec[a.src])
                return TRACE_ERR_FORMAT;
            m->peer[a.src][a.pos] = a.recv;
            if (!ghost_add(m, a.recv, (const void *)(in[q].p + off + sizeof a)))
                return TRACE_ERR_NOMEM;
        }
    return 0;
}

/* At the owners: the collective records received, grouped into instances
 * sorted by (comm, seq, rank); *answers for the members of other
 * processes, local ones numbered at once once the numbering is known (in
 * group_number). */
static int group(struct dg_match *m, int K, int me, const struct dg_bytes *in, struct coll_ent **out,
                 size_t *nout)
{
    size_t n = 0;
    for (int q = 0; q < K; q++)
        n += in[q].len / (sizeof(struct coll_ent) + (q != me ? sizeof(struct wrec) : 0));
    struct coll_ent *c = malloc((n ? n : 1) * sizeof *c);
    if (!c)
        return TRACE_ERR_NOMEM;
    size_t k = 0;
    for (int q = 0; q < K; q++) {
        size_t step = sizeof(struct coll_ent) + (q != me ? sizeof(struct wrec) : 0);
        for (size_t off = 0; off + step <= in[q].len; off += step, k++) {
            memcpy(&c[k], in[q].p + off, sizeof c[k]);
            const struct dg_pos p = c[k].pos;
            if (q == me) {
                if (p.rank < 0 || p.rank >= m->nranks || !m->logs[p.rank] || p.pos >= m->logs[p.rank]->n) {
                    free(c);
                    return TRACE_ERR_FORMAT;
                }
                c[k].rec = &m->logs[p.rank]->rec[p.pos];
            } else {
                c[k].rec = (const void *)(in[q].p + off + sizeof c[k]);
            }
        }
    }
    if (k > 1)
        qsort(c, k, sizeof *c, coll_cmp);
    m->coll = malloc((k ? k : 1) * sizeof *m->coll);
    m->coll_start = malloc((k + 1) * sizeof *m->coll_start);
    if (!m->coll || !m->coll_start) {
        free(c);
        return TRACE_ERR_NOMEM;
    }
    m->nhere = 0;
    for (size_t a = 0; a < k;) {
        size_t b = a;
        while (b < k && c[b].comm == c[a].comm && c[b].seq == c[a].seq)
            b++;
        m->coll_start[m->nhere] = (uint32_t)a;
        for (size_t j = a; j < b; j++)
            m->coll[j] = c[j].pos;
        if (c[a].rec->comm_size && b - a < c[a].rec->comm_size)
            m->incomplete++;
        m->nhere++;
        a = b;
    }
    m->coll_start[m->nhere] = (uint32_t)k;
    *out = c;
    *nout = k;
    return 0;
}

/* The instances numbered owner by owner; each member told its instance
 * (the records of other processes' members kept as ghosts). */
static int number(struct dg_match *m, const int *owner, const struct dg_xchg *x, const struct coll_ent *c,
                  size_t nc)
{
    int K = x->nprocs, me = x->proc, rc = TRACE_ERR_NOMEM;
    int64_t *counts = calloc((size_t)K, sizeof *counts);
    struct dg_bytes *out = dg_bytes_per_proc(K), *in = dg_bytes_per_proc(K);
    m->coll_first = calloc((size_t)K + 1, sizeof *m->coll_first);
    m->nprocs = K;
    if (counts && out && in && m->coll_first) {
        counts[me] = m->nhere;
        rc = 0;
    }
    rc = dg_xchg_agree(x, rc);
    if (rc == 0)
        rc = x->allreduce(x->ctx, counts, K, DG_XCHG_SUM);
    if (rc < 0)
        goto out;
    int64_t lo = 0, total = 0;
    for (int q = 0; q < K; q++) {
        lo += q < me ? counts[q] : 0;
        m->coll_first[q] = (uint32_t)(total < UINT32_MAX ? total : UINT32_MAX);
        total += counts[q];
    }
    m->coll_first[K] = (uint32_t)(total < UINT32_MAX ? total : UINT32_MAX);
    if (total > UINT32_MAX - 1) {
        rc = TRACE_ERR_LIMIT;
    } else {
        m->coll_lo = (uint32_t)lo;
        m->ncoll = (uint32_t)total;
    }
    for (uint32_t i = 0; i < m->nhere && rc == 0; i++)
        for (uint32_t j = m->coll_start[i]; j < m->coll_start[i + 1]; j++) {
            struct coll_answer a = {c[j].pos, m->coll_lo + i};
            int q = owner_of(owner, m->nranks, a.pos.rank);
            if (q == me && m->logs[a.pos.rank]) {
                m->coll_of[a.pos.rank][a.pos.pos] = a.inst;
            } else if (q < 0 || q >= K || !ghost_add(m, a.pos, c[j].rec) ||
                       !dg_bytes_put(&out[q], &a, sizeof a)) {
                rc = q < 0 || q >= K ? TRACE_ERR_FORMAT : TRACE_ERR_NOMEM;
            }
        }
    if ((rc = x->alltoall(x->ctx, rc, out, in)) < 0)
        goto out;
    rc = 0;
    for (int q = 0; q < K && rc == 0; q++)
        for (size_t off = 0; off + sizeof(struct coll_answer) <= in[q].len; off += sizeof(struct coll_answer)) {
            struct coll_answer a;
            memcpy(&a, in[q].p + off, sizeof a);
            if (a.pos.rank < 0 || a.pos.rank >= m->nranks || !m->coll_of[a.pos.rank] ||
                a.pos.pos >= m->nrec[a.pos.rank]) {
                rc = TRACE_ERR_FORMAT;
                break;
            }
            m->coll_of[a.pos.rank][a.pos.pos] = a.inst;
        }
    rc = dg_xchg_agree(x, rc);
out:
    free(counts);
    dg_bytes_per_proc_free(out, K);
    dg_bytes_per_proc_free(in, K);
    return rc;
}

int dg_match_build_dist(const struct dg_mpilog *const *logs, int nranks, const int *owner,
                        const struct dg_xchg *x, struct dg_match **out)
{
    int K = x->nprocs, me = x->proc, rc = TRACE_ERR_NOMEM;
    struct dg_match *m = calloc(1, sizeof *m);
    struct dg_bytes *env = dg_bytes_per_proc(K), *col = dg_bytes_per_proc(K), *ein = dg_bytes_per_proc(K), *cin = dg_bytes_per_proc(K);
    struct dg_bytes *ans = dg_bytes_per_proc(K), *ain = dg_bytes_per_proc(K);
    struct coll_ent *c = NULL;
    size_t nc = 0;
    if (m && env && col && ein && cin && ans && ain) {
        m->nranks = nranks;
        m->logs = logs;
        rc = tables_new(m, logs);
    }
    if (rc == 0)
        rc = post_envelopes(m, owner, K, me, env, col);
    if ((rc = x->alltoall(x->ctx, rc, env, ein)) < 0 || (rc = x->alltoall(x->ctx, 0, col, cin)) < 0)
        goto out;
    rc = join(m, K, me, ein, ans);
    if ((rc = x->alltoall(x->ctx, rc, ans, ain)) < 0)
        goto out;
    rc = take_answers(m, K, ain);
    if (rc == 0)
        rc = group(m, K, me, cin, &c, &nc);
    if ((rc = dg_xchg_agree(x, rc)) < 0 || (rc = number(m, owner, x, c, nc)) < 0)
        goto out;
    /* the counts of all processes */
    int64_t v[3] = {(int64_t)m->unmatched_sends, (int64_t)m->unmatched_recvs, (int64_t)m->incomplete};
    if ((rc = x->allreduce(x->ctx, v, 3, DG_XCHG_SUM)) < 0)
        goto out;
    m->unmatched_sends = (uint64_t)v[0];
    m->unmatched_recvs = (uint64_t)v[1];
    m->incomplete = (uint64_t)v[2];
    *out = m;
    m = NULL;
out:
    free(c);
    dg_bytes_per_proc_free(env, K);
    dg_bytes_per_proc_free(col, K);
    dg_bytes_per_proc_free(ein, K);
    dg_bytes_per_proc_free(cin, K);
    dg_bytes_per_proc_free(ans, K);
    dg_bytes_per_proc_free(ain, K);
    dg_match_destroy(m);
    return rc;
}

int dg_match_build(const struct dg_mpilog *const *logs, int nranks, struct dg_match **out)
{
    return dg_match_build_dist(logs, nranks, NULL, dg_xchg_serial(), out);
}

const struct dg_msgrec *dg_match_rec(const struct dg_match *m, struct dg_pos p)
{
    if (p.rank < 0 || p.rank >= m->nranks)
        return NULL;
    const struct dg_mpilog *g = m->logs[p.rank];
    if (g)
        return p.pos < g->n ? &g->rec[p.pos] : NULL;
    const uint64_t *v = dg_map_get(&m->ghost_at, pos_key(p));
    return v ? &m->ghost[*v].rec : NULL;
}

struct dg_cputime dg_match_cpu(const struct dg_match *m, struct dg_pos p)
{
    if (p.rank < 0 || p.rank >= m->nranks)
        return (struct dg_cputime){0, 0};
    const struct dg_mpilog *g = m->logs[p.rank];
    if (g)
        return dg_cpu_of(g, p.pos);
    const uint64_t *v = dg_map_get(&m->ghost_at, pos_key(p));
    return v ? m->ghost[*v].cpu : (struct dg_cputime){0, 0};
}

struct dg_pos dg_match_peer(const struct dg_match *m, struct dg_pos p)
{
    if (p.rank < 0 || p.rank >= m->nranks || !m->peer[p.rank] || p.pos >= m->nrec[p.rank])
        return DG_POS_NONE;
    return m->peer[p.rank][p.pos];
}

uint32_t dg_match_ncoll(const struct dg_match *m)
{
    return m->ncoll;
}

const struct dg_pos *dg_match_coll(const struct dg_match *m, uint32_t i, uint32_t *n)
{
    if (i < m->coll_lo || i - m->coll_lo >= m->nhere) {
        *n = 0;
        return NULL;
    }
    i -= m->coll_lo;
    *n = m->coll_start[i + 1] - m->coll_start[i];
    return &m->coll[m->coll_start[i]];
}

int dg_match_coll_owner(const struct dg_match *m, uint32_t i)
{
    if (i >= m->ncoll || !m->coll_first)
        return -1;
    int lo = 0, hi = m->nprocs; /* the last process whose first instance is <= i */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (m->coll_first[mid] <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void dg_match_coll_here(const struct dg_match *m, uint32_t *lo, uint32_t *hi)
{
    *lo = m->coll_lo;
    *hi = m->coll_lo + m->nhere;
}

uint32_t dg_match_coll_place(const struct dg_match *m, uint32_t i, int rank)
{
    uint32_t n = 0;
    const struct dg_pos *v = dg_match_coll(m, i, &n);
    uint32_t lo = 0, hi = n;
    while (lo < hi) { /* members are in rank order (coll_cmp) */
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint32_t dg_match_coll_of(const struct dg_match *m, struct dg_pos p)
{
    if (p.rank < 0 || p.rank >= m->nranks || !m->coll_of[p.rank] || p.pos >= m->nrec[p.rank])
        return UINT32_MAX;
    return m->coll_of[p.rank][p.pos];
}

uint64_t dg_match_unmatched_sends(const struct dg_match *m)
{
    return m->unmatched_sends;
}

uint64_t dg_match_unmatched_recvs(const struct dg_match *m)
{
    return m->unmatched_recvs;
}

uint64_t dg_match_incomplete_colls(const struct dg_match *m)
{
    return m->incomplete;
}
