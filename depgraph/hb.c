/* hb.c - the happens-before order of a run, as vector clocks of every log
 * record, computed by replaying the matched logs: each rank advances through
 * its records in order; a receive waits until its matched send has been
 * replayed and takes its clock; a collective waits until every member has
 * reached it, then takes the clocks its semantics pass (root to members for
 * Bcast and Scatter, members to root for Reduce and Gather, everyone to
 * everyone for the others).  A record's own component is its log position
 * + 1, so a -> b iff vc(b)[rank(a)] > pos(a).  A nonblocking collective's
 * COLL record sits at the Wait/Test that completed it (its data is
 * delivered there) and remembers its start: it waits only until every
 * member has replayed its start, and takes the clocks the members had at
 * their starts (what a member does between its start and its completion
 * does not happen before the others' completions).  Unmatched receives and
 * incomplete collectives (a rank cut short) pass no clock; if the replay
 * ever stalls (inconsistent logs), the blocked rank with the lowest
 * position goes on without the edge, so the replay always ends.
 */
#include <stdlib.h>
#include <string.h>

#include "depgraph.h"

struct dg_hb {
    int nranks;
    uint32_t *nrec;
    uint32_t **vc;      /* [rank][pos * nranks + r] */
    const struct dg_mpilog *const *logs;
    const struct dg_match *m;
};

void dg_hb_destroy(struct dg_hb *h)
{
    if (!h)
        return;
    for (int r = 0; r < h->nranks; r++)
        free(h->vc ? h->vc[r] : NULL);
    free(h->vc);
    free(h->nrec);
    free(h);
}

static uint32_t *vc_of(const struct dg_hb *h, struct dg_pos p)
{
    return &h->vc[p.rank][(size_t)p.pos * (size_t)h->nranks];
}

static void vc_max(uint32_t *dst, const uint32_t *src, int n)
{
    for (int i = 0; i < n; i++)
        if (src[i] > dst[i])
            dst[i] = src[i];
}

/* Which way a collective passes clocks: 1 root -> others, 2 others -> root,
 * 0 all to all (every form of the call: Ibcast and Bcast_init as Bcast).
 * Neighbourhood collectives pass all to all: more edges than the
 * neighbours alone give, which is the safe side for the deadlock check,
 * the one user of this order (it refuses a delay when a receive happens
 * before what a call waits for: an extra edge can only refuse more). */
static int coll_dir(int call)
{
    switch (trace_mpi_call_base(call)) {
    case CHT_MPI_BCAST: case CHT_MPI_SCATTER: case CHT_MPI_SCATTERV:
        return 1;
    case CHT_MPI_REDUCE: case CHT_MPI_GATHER: case CHT_MPI_GATHERV:
        return 2;
    default:
        return 0;
    }
}

/* Where member record y of a collective at position p gave its clock:
 * its start for a nonblocking collective, else the record itself. */
static struct dg_pos contribution(const struct dg_msgrec *y, struct dg_pos p)
{
    if ((y->flags & DG_MSGF_NONBLOCKING) && y->fwd_pos < p.pos)
        return (struct dg_pos){p.rank, (uint32_t)y->fwd_pos};
    return p;
}

/* Rank p.rank reaches the COLL record of a nonblocking collective: false if
 * a member has not replayed its contribution yet; else merges into its
 * clock cr the clocks of the members it takes data from, at their starts. */
static bool nonblocking_coll(const struct dg_hb *h, const struct dg_match *m, const uint32_t *pos,
                             uint32_t *cr, struct dg_pos p, uint32_t *tmp)
{
    const struct dg_msgrec *x = &h->logs[p.rank]->rec[p.pos];
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(m, dg_match_coll_of(m, p), &n);
    int P = h->nranks, dir = coll_dir(x->call);
    for (uint32_t k = 0; k < n; k++) {
        if (mem[k].rank == p.rank)
            continue;
        struct dg_pos c = contribution(&h->logs[mem[k].rank]->rec[mem[k].pos], mem[k]);
        /* a blocking member (a mismatch) must have passed its record */
        if (pos[c.rank] <= c.pos)
            return false;
    }
    bool root = x->flags & DG_MSGF_ROOT;
    if ((dir == 1 && root) || (dir == 2 && !root))
        return true; /* it takes nothing */
    memset(tmp, 0, P * sizeof *tmp);
    for (uint32_t k = 0; k < n; k++) {
        if (mem[k].rank == p.rank)
            continue;
        const struct dg_msgrec *y = &h->logs[mem[k].rank]->rec[mem[k].pos];
        bool yroot = y->flags & DG_MSGF_ROOT;
        if (dir == 0 || (dir == 1 && yroot) || (dir == 2 && !yroot))
            vc_max(tmp, vc_of(h, contribution(y, mem[k])), P);
    }
    vc_max(cr, tmp, P);
    return true;
}

int dg_hb_build(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                struct dg_hb **out)
{
    int P = nranks, rc = TRACE_ERR_NOMEM;
    uint32_t *pos = NULL, *cur = NULL, *tmp = NULL;
    struct dg_hb *h = calloc(1, sizeof *h);
    if (!h)
        return rc;
    h->nranks = P;
    h->logs = logs;
    h->m = m;
    h->nrec = calloc(P ? P : 1, sizeof *h->nrec);
    h->vc = calloc(P ? P : 1, sizeof *h->vc);
    pos = calloc(P ? P : 1, sizeof *pos);
    cur = calloc((size_t)(P ? P : 1) * (P ? P : 1), sizeof *cur); /* current clock per rank */
    tmp = calloc(P ? P : 1, sizeof *tmp);
    if (!h->nrec || !h->vc || !pos || !cur || !tmp)
        goto out;
    for (int r = 0; r < P; r++) {
        h->nrec[r] = logs[r] ? logs[r]->n : 0;
        h->vc[r] = malloc(((size_t)h->nrec[r] * P ? (size_t)h->nrec[r] * P : 1) * sizeof(uint32_t));
        if (!h->vc[r])
            goto out;
    }

    for (;;) {
        bool progress = false, left = false;
        for (int r = 0; r < P; r++) {
            uint32_t *cr = &cur[(size_t)r * P];
            while (pos[r] < h->nrec[r]) {
                struct dg_pos p = {r, pos[r]};
                const struct dg_msgrec *x = &logs[r]->rec[pos[r]];
                if (x->kind == DG_MSG_RECV) {
                    struct dg_pos s = dg_match_peer(m, p);
                    if (s.rank >= 0) {
                        if (pos[s.rank] <= s.pos)
                            break; /* its send has not been replayed yet */
                        vc_max(cr, vc_of(h, s), P);
                    }
                } else if (x->kind == DG_MSG_COLL && (x->flags & DG_MSGF_NONBLOCKING)) {
                    if (!nonblocking_coll(h, m, pos, cr, p, tmp))
                        break; /* a member has not started it yet */
                } else if (x->kind == DG_MSG_COLL) {
                    uint32_t ci = dg_match_coll_of(m, p), n = 0;
                    const struct dg_pos *mem = dg_match_coll(m, ci, &n);
                    bool all = true;
                    for (uint32_t k = 0; k < n && all; k++)
                        all = pos[mem[k].rank] >= mem[k].pos;
                    if (!all)
                        break;
                    /* every member waits at it (or has passed: then the
                     * instance was resolved when it passed) */
                    bool resolved = false;
                    for (uint32_t k = 0; k < n; k++)
                        resolved |= pos[mem[k].rank] > mem[k].pos;
                    if (!resolved) {
                        int dir = coll_dir(x->call);
                        memset(tmp, 0, P * sizeof *tmp);
                        for (uint32_t k = 0; k < n; k++) {
                            const struct dg_msgrec *y = &logs[mem[k].rank]->rec[mem[k].pos];
                            bool root = y->flags & DG_MSGF_ROOT;
                            if (dir == 0 || (dir == 1 && root) || (dir == 2 && !root))
                                vc_max(tmp, &cur[(size_t)mem[k].rank * P], P);
                        }
                        for (uint32_t k = 0; k < n; k++) {
                            int q = mem[k].rank;
                            const struct dg_msgrec *y = &logs[q]->rec[mem[k].pos];
                            bool root = y->flags & DG_MSGF_ROOT;
                            if (dir == 0 || (dir == 1 && !root) || (dir == 2 && root))
                                vc_max(&cur[(size_t)q * P], tmp, P);
                            if (q != r) { /* the others pass it now too */
                                uint32_t *cq = &cur[(size_t)q * P];
                                cq[q] = mem[k].pos + 1;
                                memcpy(vc_of(h, mem[k]), cq, P * sizeof *cq);
                                pos[q] = mem[k].pos + 1;
                            }
                        }
                    }
                }
                cr[r] = pos[r] + 1;
                memcpy(vc_of(h, p), cr, P * sizeof *cr);
                pos[r]++;
                progress = true;
            }
            left |= pos[r] < h->nrec[r];
        }
        if (!left)
            break;
        if (!progress) {
            /* stalled: let the blocked rank with the lowest position pass */
            int best = -1;
            for (int r = 0; r < P; r++)
                if (pos[r] < h->nrec[r] && (best < 0 || pos[r] < pos[best]))
                    best = r;
            uint32_t *cb = &cur[(size_t)best * P];
            struct dg_pos p = {best, pos[best]};
            cb[best] = pos[best] + 1;
            memcpy(vc_of(h, p), cb, P * sizeof *cb);
            pos[best]++;
        }
    }
    *out = h;
    h = NULL;
    rc = 0;
out:
    free(pos);
    free(cur);
    free(tmp);
    dg_hb_destroy(h);
    return rc;
}

bool dg_hb_before(const struct dg_hb *h, struct dg_pos a, struct dg_pos b)
{
    if (a.rank < 0 || b.rank < 0 || a.rank >= h->nranks || b.rank >= h->nranks ||
        a.pos >= h->nrec[a.rank] || b.pos >= h->nrec[b.rank])
        return false;
    if (a.rank == b.rank)
        return a.pos < b.pos;
    return vc_of(h, b)[a.rank] > a.pos;
}

size_t dg_hb_chain(const struct dg_hb *h, struct dg_pos a, struct dg_pos b, struct dg_pos *out,
                   size_t max)
{
    size_t n = 0;
    struct dg_pos rev[256];
    size_t nrev = 0;
    if (a.rank == b.rank || !dg_hb_before(h, a, b))
        return 0;
    /* walk back from b: on b's rank, the first record that knew of a is
     * where the knowledge arrived; its source is one step closer to a */
    while (b.rank != a.rank && nrev + 2 <= sizeof rev / sizeof rev[0]) {
        uint32_t first = b.pos;
        while (first > 0 && vc_of(h, (struct dg_pos){b.rank, first - 1})[a.rank] > a.pos)
            first--;
        struct dg_pos arrive = {b.rank, first};
        const struct dg_msgrec *x = &h->logs[b.rank]->rec[first];
        struct dg_pos from = DG_POS_NONE;
        if (x->kind == DG_MSG_RECV) {
            from = dg_match_peer(h->m, arrive);
        } else if (x->kind == DG_MSG_COLL) {
            uint32_t k, nm = 0;
            const struct dg_pos *mem = dg_match_coll(h->m, dg_match_coll_of(h->m, arrive), &nm);
            for (k = 0; k < nm; k++) { /* a member that knew of a (at its start, if nonblocking) */
                struct dg_pos c = contribution(&h->logs[mem[k].rank]->rec[mem[k].pos], mem[k]);
                if (mem[k].rank != b.rank && (c.rank == a.rank ? c.pos > a.pos
                                                               : vc_of(h, c)[a.rank] > a.pos))
                    break;
            }
            if (k < nm)
                from = mem[k];
        }
        if (from.rank < 0)
            break;
        rev[nrev++] = arrive;
        rev[nrev++] = from;
        b = from;
    }
    /* pairs in order from a to b: (send, receive) */
    for (size_t i = nrev; i >= 2 && n + 2 <= max; i -= 2) {
        out[n++] = rev[i - 1];
        out[n++] = rev[i - 2];
    }
    return n;
}
