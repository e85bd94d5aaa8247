/* candidates-oracle.c - the collective search's candidates
 * (search/xrank/collectives/candidates.c, docs/collectives.md
 * "Candidates") by their definition, the plain way: every log at once,
 * distinct peers counted pair by pair, the messages followed by passes
 * over every record until nothing changes.  Quadratic: for the small
 * random runs of tests/unit/test-xrank-dist.c. */
#include <stdlib.h>

#include "candidates-oracle.h"

static bool is_p2p(const struct dg_msgrec *x, int P)
{
    return (x->kind == DG_MSG_SEND || x->kind == DG_MSG_RECV) && x->peer >= 0 && x->peer < P;
}

static bool same_stream(const struct dg_msgrec *a, const struct dg_msgrec *b)
{
    return a->kind == b->kind && a->comm == b->comm && a->tag == b->tag;
}

static bool same_bytes(const struct dg_msgrec *a, const struct dg_msgrec *b)
{
    return a->kind == DG_MSG_SEND && b->kind == DG_MSG_SEND && a->comm == b->comm && a->buf == b->buf &&
           a->bytes == b->bytes && a->version == b->version;
}

/* Whether the records of g like record i (same(i, j)) have every other
 * rank of i's communicator among their peers. */
static bool covers(const struct dg_mpilog *g, int rank, int P, uint32_t i,
                   bool (*same)(const struct dg_msgrec *, const struct dg_msgrec *))
{
    uint32_t distinct = 0;
    for (uint32_t j = 0; j < g->n; j++) {
        const struct dg_msgrec *y = &g->rec[j];
        if (!is_p2p(y, P) || !same(&g->rec[i], y) || y->peer == rank)
            continue;
        bool seen = false;
        for (uint32_t k = 0; k < j && !seen; k++)
            seen = is_p2p(&g->rec[k], P) && same(&g->rec[i], &g->rec[k]) && g->rec[k].peer == y->peer;
        distinct += !seen;
    }
    uint32_t size = g->rec[i].comm_size;
    return size >= 2 && distinct + 1 >= size;
}

static bool valid(const struct dg_mpilog *const *logs, int P, struct dg_pos p)
{
    return p.rank >= 0 && p.rank < P && logs[p.rank] && p.pos < logs[p.rank]->n;
}

int oracle_coll_candidates(const struct dg_mpilog *const *logs, int P, const struct dg_match *m, uint8_t **mk)
{
    /* rules 1-3 */
    for (int r = 0; r < P; r++) {
        const struct dg_mpilog *g = logs[r];
        for (uint32_t i = 0; g && i < g->n; i++) {
            const struct dg_msgrec *x = &g->rec[i];
            if (!is_p2p(x, P))
                continue;
            if (covers(g, r, P, i, same_stream) || (x->kind == DG_MSG_SEND && covers(g, r, P, i, same_bytes)))
                mk[r][i] = 1;
            if (x->kind == DG_MSG_SEND && (x->flags & DG_MSGF_FORWARD) && x->fwd_pos < g->n &&
                is_p2p(&g->rec[x->fwd_pos], P))
                mk[r][i] = mk[r][x->fwd_pos] = 1;
        }
    }
    /* rule 4 */
    for (int r = 0; r < P; r++) {
        const struct dg_mpilog *g = logs[r];
        for (uint32_t i = 0; g && i < g->n; i++) {
            const struct dg_msgrec *x = &g->rec[i];
            if (x->kind != DG_MSG_SEND || !(x->flags & DG_MSGF_FORWARD) || x->fwd_pos >= g->n)
                continue;
            struct dg_pos s = dg_match_peer(m, (struct dg_pos){r, x->fwd_pos});
            if (!valid(logs, P, s) || logs[s.rank]->rec[s.pos].kind != DG_MSG_SEND)
                continue;
            const struct dg_mpilog *h = logs[s.rank];
            for (uint32_t j = 0; j < h->n; j++)
                if (same_bytes(&h->rec[s.pos], &h->rec[j]))
                    mk[s.rank][j] = 1;
        }
    }
    /* rules 5 and 6, to a fixed point */
    for (bool changed = true; changed;) {
        changed = false;
        for (int r = 0; r < P; r++) {
            const struct dg_mpilog *g = logs[r];
            for (uint32_t i = 0; g && i < g->n; i++) {
                const struct dg_msgrec *x = &g->rec[i];
                if (!mk[r][i] || !is_p2p(x, P))
                    continue;
                struct dg_pos o = dg_match_peer(m, (struct dg_pos){r, i});
                if (valid(logs, P, o) && is_p2p(&logs[o.rank]->rec[o.pos], P) && !mk[o.rank][o.pos]) {
                    mk[o.rank][o.pos] = 1;
                    changed = true;
                }
                for (uint32_t j = i; j-- > 0;) {
                    const struct dg_msgrec *y = &g->rec[j];
                    if (y->kind != x->kind || y->peer != x->peer || y->comm != x->comm ||
                        !(y->flags & DG_MSGF_ARG) || y->use_site != x->site)
                        break;
                    if (!mk[r][j]) {
                        mk[r][j] = 1;
                        changed = true;
                    }
                }
            }
        }
    }
    return 0;
}
