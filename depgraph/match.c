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

struct chain_ent {
    uint64_t comm, seq;
    int32_t src, dst, tag;
    struct dg_pos pos;
    uint32_t next;  /* next entry with the same hash + 1, 0 = none */
};

struct dg_match {
    int nranks;
    struct dg_pos **peer;     /* [rank][pos]: the other end, or DG_POS_NONE */
    uint32_t **coll_of;       /* [rank][pos]: instance, UINT32_MAX */
    uint32_t *nrec;           /* [rank] */
    struct dg_pos *coll;      /* members of all instances, instance by instance */
    uint32_t *coll_start;     /* [ncoll + 1] */
    uint32_t ncoll;
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
    free(m);
}

/* Collective instances: sort (comm, seq, rank) and cut. */
struct coll_ent {
    uint64_t comm, seq;
    struct dg_pos pos;
};

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

int dg_match_build(const struct dg_mpilog *const *logs, int nranks, struct dg_match **out)
{
    struct dg_match *m = calloc(1, sizeof *m);
    struct chain_ent *ents = NULL;
    struct coll_ent *colls = NULL;
    struct dg_map heads = {0};
    size_t nents = 0, ncolls = 0;
    int rc = TRACE_ERR_NOMEM;
    if (!m)
        return rc;
    m->nranks = nranks;
    m->peer = calloc(nranks ? nranks : 1, sizeof *m->peer);
    m->coll_of = calloc(nranks ? nranks : 1, sizeof *m->coll_of);
    m->nrec = calloc(nranks ? nranks : 1, sizeof *m->nrec);
    if (!m->peer || !m->coll_of || !m->nrec)
        goto out;
    size_t nsend = 0, ncoll_rec = 0;
    for (int r = 0; r < nranks; r++) {
        const struct dg_mpilog *g = logs[r];
        if (!g)
            continue;
        m->nrec[r] = g->n;
        m->peer[r] = malloc((g->n ? g->n : 1) * sizeof **m->peer);
        m->coll_of[r] = malloc((g->n ? g->n : 1) * sizeof **m->coll_of);
        if (!m->peer[r] || !m->coll_of[r])
            goto out;
        for (uint32_t i = 0; i < g->n; i++) {
            m->peer[r][i] = DG_POS_NONE;
            m->coll_of[r][i] = UINT32_MAX;
            nsend += g->rec[i].kind == DG_MSG_SEND;
            ncoll_rec += g->rec[i].kind == DG_MSG_COLL;
        }
    }
    ents = malloc((nsend ? nsend : 1) * sizeof *ents);
    colls = malloc((ncoll_rec ? ncoll_rec : 1) * sizeof *colls);
    if (!ents || !colls)
        goto out;
    /* sends into the hash table */
    for (int r = 0; r < nranks; r++) {
        const struct dg_mpilog *g = logs[r];
        for (uint32_t i = 0; g && i < g->n; i++) {
            const struct dg_msgrec *x = &g->rec[i];
            if (x->kind == DG_MSG_COLL) {
                colls[ncolls++] = (struct coll_ent){x->comm, x->seq, {r, i}};
                continue;
            }
            if (x->kind != DG_MSG_SEND)
                continue;
            struct chain_ent *e = &ents[nents];
            *e = (struct chain_ent){x->comm, x->seq, r, x->peer, x->tag, {r, i}, 0};
            uint64_t *h = dg_map_put(&heads, msg_hash(x->comm, r, x->peer, x->tag, x->seq), 0);
            if (!h)
                goto out;
            e->next = (uint32_t)*h;
            *h = ++nents;
        }
    }
    /* receives look their send up */
    for (int r = 0; r < nranks; r++) {
        const struct dg_mpilog *g = logs[r];
        for (uint32_t i = 0; g && i < g->n; i++) {
            const struct dg_msgrec *x = &g->rec[i];
            if (x->kind != DG_MSG_RECV)
                continue;
            const uint64_t *h = dg_map_get(&heads, msg_hash(x->comm, x->peer, r, x->tag, x->seq));
            struct chain_ent *found = NULL;
            for (uint32_t k = h ? (uint32_t)*h : 0; k && !found; k = ents[k - 1].next) {
                struct chain_ent *e = &ents[k - 1];
                if (e->comm == x->comm && e->src == x->peer && e->dst == r && e->tag == x->tag &&
                    e->seq == x->seq && m->peer[e->pos.rank][e->pos.pos].rank < 0)
                    found = e;
            }
            if (!found) {
                m->unmatched_recvs++;
                continue;
            }
            m->peer[r][i] = found->pos;
            m->peer[found->pos.rank][found->pos.pos] = (struct dg_pos){r, i};
        }
    }
    for (size_t k = 0; k < nents; k++)
        if (m->peer[ents[k].pos.rank][ents[k].pos.pos].rank < 0)
            m->unmatched_sends++;
    /* collectives */
    if (ncolls > 1)
        qsort(colls, ncolls, sizeof *colls, coll_cmp);
    m->coll = malloc((ncolls ? ncolls : 1) * sizeof *m->coll);
    m->coll_start = malloc((ncolls + 1) * sizeof *m->coll_start);
    if (!m->coll || !m->coll_start)
        goto out;
    for (size_t a = 0; a < ncolls;) {
        size_t b = a;
        while (b < ncolls && colls[b].comm == colls[a].comm && colls[b].seq == colls[a].seq)
            b++;
        m->coll_start[m->ncoll] = (uint32_t)a;
        for (size_t k = a; k < b; k++) {
            m->coll[k] = colls[k].pos;
            m->coll_of[colls[k].pos.rank][colls[k].pos.pos] = m->ncoll;
        }
        const struct dg_msgrec *x = &logs[colls[a].pos.rank]->rec[colls[a].pos.pos];
        if (x->comm_size && b - a < x->comm_size)
            m->incomplete++;
        m->ncoll++;
        a = b;
    }
    m->coll_start[m->ncoll] = (uint32_t)ncolls;
    *out = m;
    m = NULL;
    rc = 0;
out:
    free(ents);
    free(colls);
    dg_map_free(&heads);
    dg_match_destroy(m);
    return rc;
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
    if (i >= m->ncoll) {
        *n = 0;
        return NULL;
    }
    *n = m->coll_start[i + 1] - m->coll_start[i];
    return &m->coll[m->coll_start[i]];
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
