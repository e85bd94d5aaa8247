/* counts.c - the rounds left at the collective hints' main call sites,
 * counted where the whole logs are (docs/collectives.md, "Sparse logs").
 *
 * A hint's instances are the rounds at its main call site on its roots
 * that a pattern claimed; the rounds there that none claimed (those left
 * out of the sparse logs too) are iterations the hint does not cover
 * ("some-iterations").  Rounds are built over a rank's whole log without
 * the claimed records (rounds.c), so the search (collectives.c, on process
 * 0) asks, per rank: the records its hints claimed, by their positions in
 * the whole log, and the rank's call sites that are a hint's main one
 * where the rank is one of the hint's roots, with the kind of round counted
 * there.  The process that holds the rank's log builds its rounds and
 * counts, per hint, the rounds with a record at such a site; the counts
 * are summed over the processes (jobs.c, the COUNTS job).  With one
 * process the same code runs on every log.
 */
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

/* One rank's question: nclaims whole positions (uint32_t), then nentries
 * struct coll_cq_entry. */
struct coll_cq_rank {
    int32_t rank;
    uint32_t nclaims, nentries;
};
struct coll_cq_entry {
    uint32_t site, hint, kind; /* a call site of the rank that is hint's main one; its round kind */
};

static int entry_cmp(const void *pa, const void *pb)
{
    const struct coll_cq_entry *a = pa, *b = pb;
    return (a->site > b->site) - (a->site < b->site);
}

/* ---- the question (process 0) ------------------------------------------------------------- */

/* The round kind a hint's main call site is counted in, 0 if none is. */
static uint32_t primary_kind(const struct hacc *h)
{
    switch (h->pat->main_call) {
    case LM_SEND: return DG_MSG_SEND;
    case LM_RECV: return DG_MSG_RECV;
    }
    return 0;
}

/* Rank r's part of the question, appended to b (nothing if no call site of
 * the rank is a hint's main one there). */
static int ask_rank(const struct cx *c, int r, const struct coll_sitecount *sc, uint32_t nsc, struct dg_bytes *b)
{
    struct coll_cq_entry *e = NULL;
    uint32_t ne = 0, cap = 0;
    int rc = 0;
    for (uint32_t s = 0; s < nsc && rc >= 0; s++) {
        struct loc l;
        coll_loc_of(c, r, sc[s].site, &l);
        for (uint32_t j = 0; j < c->nh && rc >= 0; j++) {
            const struct hacc *h = &c->h[j];
            if (!primary_kind(h) || !h->roots[r] || coll_loc_cmp(&l, &h->locs[h->primary].loc))
                continue;
            if ((rc = coll_grow(&e, &cap, (uint64_t)ne + 1, sizeof *e)) >= 0)
                e[ne++] = (struct coll_cq_entry){sc[s].site, j, primary_kind(h)};
        }
    }
    if (rc < 0 || !ne) {
        free(e);
        return rc;
    }
    /* the records claimed, by their positions in the whole log */
    struct coll_cq_rank hd = {r, 0, ne};
    const struct dg_mpilog *g = c->logs[r];
    for (uint32_t i = 0; g && i < g->n; i++)
        hd.nclaims += c->claimed[r][i] != 0;
    bool ok = dg_bytes_put(b, &hd, sizeof hd);
    for (uint32_t i = 0; ok && g && i < g->n; i++) {
        uint32_t pos = coll_orig_pos(c, r, i);
        ok = !c->claimed[r][i] || dg_bytes_put(b, &pos, sizeof pos);
    }
    ok = ok && dg_bytes_put(b, e, ne * sizeof *e);
    free(e);
    return ok ? 0 : TRACE_ERR_NOMEM;
}

int coll_count_unmatched(struct cx *c)
{
    const struct coll_sparse *sp = c->x->csparse;
    int K = search_xrank_nprocs(c->x);
    struct dg_bytes *part = dg_bytes_per_proc(K);
    int64_t *sums = calloc(c->nh ? c->nh : 1, sizeof *sums);
    int rc = part && sums ? 0 : TRACE_ERR_NOMEM;
    for (int r = 0; r < c->P && rc >= 0; r++) {
        struct coll_sitecount *mine = NULL, *sc = sp && sp->sites[r] ? sp->sites[r] : NULL;
        uint32_t n = sc ? sp->nsites[r] : 0;
        const struct dg_mpilog *whole = c->x->logs[r];
        if (!sc && whole && (rc = coll_site_counts(whole, &mine, &n)) < 0)
            break;
        if (sc || mine)
            rc = ask_rank(c, r, sc ? sc : mine, n, &part[search_xrank_proc_of(c->x, r)]);
        free(mine);
    }
    rc = search_xrank_coll_counts(c->x, part, rc, c->nh, sums);
    for (uint32_t j = 0; rc >= 0 && j < c->nh; j++)
        c->h[j].unmatched_rounds = (uint64_t)sums[j];
    dg_bytes_per_proc_free(part, K);
    free(sums);
    return rc;
}

/* ---- the answer (every process) ------------------------------------------------------------ */

/* Reads the question into c (claims of the ranks asked about, their logs)
 * and ent/nent; 0, TRACE_ERR_FORMAT or TRACE_ERR_NOMEM. */
static int read_question(struct cx *c, const struct search_xrank *d, const uint8_t *p, size_t len, uint32_t nslots,
                         struct coll_cq_entry **ent, uint32_t *nent)
{
    size_t off = 0;
    while (off < len) {
        struct coll_cq_rank hd;
        if (len - off < sizeof hd)
            return TRACE_ERR_FORMAT;
        memcpy(&hd, p + off, sizeof hd);
        off += sizeof hd;
        int r = hd.rank;
        if (r < 0 || r >= c->P || !d->logs[r] || c->logs[r] ||
            (len - off) / sizeof(uint32_t) < hd.nclaims ||
            (len - off - (size_t)hd.nclaims * sizeof(uint32_t)) / sizeof **ent < hd.nentries)
            return TRACE_ERR_FORMAT;
        const struct dg_mpilog *g = d->logs[r];
        c->logs[r] = g;
        c->claimed[r] = calloc(g->n ? g->n : 1, 1);
        ent[r] = malloc((hd.nentries ? hd.nentries : 1) * sizeof **ent);
        if (!c->claimed[r] || !ent[r])
            return TRACE_ERR_NOMEM;
        for (uint32_t k = 0; k < hd.nclaims; k++, off += sizeof(uint32_t)) {
            uint32_t pos;
            memcpy(&pos, p + off, sizeof pos);
            if (pos >= g->n)
                return TRACE_ERR_FORMAT;
            c->claimed[r][pos] = CLAIM_FOUND;
        }
        memcpy(ent[r], p + off, hd.nentries * sizeof **ent);
        off += hd.nentries * sizeof **ent;
        nent[r] = hd.nentries;
        for (uint32_t k = 0; k < hd.nentries; k++)
            if (ent[r][k].hint >= nslots || (ent[r][k].kind != DG_MSG_SEND && ent[r][k].kind != DG_MSG_RECV))
                return TRACE_ERR_FORMAT;
        qsort(ent[r], nent[r], sizeof **ent, entry_cmp);
    }
    return 0;
}

/* Per hint, the rounds of the ranks asked about with a record at one of
 * the hint's entries. */
static int count_rounds(struct cx *c, struct coll_cq_entry **ent, const uint32_t *nent, uint32_t nslots,
                        int64_t *sums)
{
    struct rounds rs;
    uint32_t *last = malloc((nslots ? nslots : 1) * sizeof *last);
    int rc = last ? coll_rounds_build(c, false, &rs) : TRACE_ERR_NOMEM;
    if (rc < 0) {
        free(last);
        return rc;
    }
    for (uint32_t j = 0; j < nslots; j++)
        last[j] = UINT32_MAX;
    for (uint32_t i = 0; i < rs.n; i++) {
        const struct round *ro = &rs.v[i];
        const struct coll_cq_entry *e = ent[ro->rank];
        for (uint32_t k = 0; k < ro->n; k++) {
            struct coll_cq_entry key = {coll_rec(c, ro->rank, rs.pos[ro->first + k])->site, 0, 0};
            /* the first entry of the site, then the others */
            uint32_t lo = 0, hi = nent[ro->rank];
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (e[mid].site < key.site)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; lo < nent[ro->rank] && e[lo].site == key.site; lo++)
                if (e[lo].kind == ro->kind && last[e[lo].hint] != i) {
                    last[e[lo].hint] = i;
                    sums[e[lo].hint]++;
                }
        }
    }
    coll_rounds_free(&rs, c->P);
    free(last);
    return 0;
}

int search_coll_counts_local(const struct search_xrank *d, const uint8_t *p, size_t len, uint32_t nslots,
                             int64_t *sums)
{
    struct cx c;
    memset(&c, 0, sizeof c);
    c.x = d;
    c.P = d->world_size;
    c.logs = calloc(c.P ? (size_t)c.P : 1, sizeof *c.logs);
    c.claimed = calloc(c.P ? (size_t)c.P : 1, sizeof *c.claimed);
    struct coll_cq_entry **ent = calloc(c.P ? (size_t)c.P : 1, sizeof *ent);
    uint32_t *nent = calloc(c.P ? (size_t)c.P : 1, sizeof *nent);
    int rc = c.logs && c.claimed && ent && nent ? 0 : TRACE_ERR_NOMEM;
    memset(sums, 0, (nslots ? nslots : 1) * sizeof *sums);
    if (rc >= 0)
        rc = read_question(&c, d, p, len, nslots, ent, nent);
    if (rc >= 0)
        rc = count_rounds(&c, ent, nent, nslots, sums);
    for (int r = 0; r < c.P && c.claimed; r++) {
        free(c.claimed[r]);
        if (ent)
            free(ent[r]);
    }
    free(c.claimed);
    free(ent);
    free(nent);
    free((void *)c.logs);
    return rc;
}
