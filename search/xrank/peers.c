/* peers.c - the kinds' facts of other ranks' records (search_kind.
 * peer_facts): what a merge needs of the other ends of a rank's messages
 * and collectives, found on the process that holds the rank's log (the
 * match keeps copies of the other ends there) and gathered on process 0,
 * which merges, into its copies of the ranks' results; then the members
 * of the collective instances the kinds asked about
 * (search_xrank_want_coll), which only each instance's owner knows, sent
 * by the owners to process 0.  Serially the same code runs with every
 * rank here and nothing travels.
 */
#include <stdlib.h>
#include <string.h>

#include "search-private.h"
#include "parallel/pack-bytes.h"
#include "rank/kind.h"

int search_xrank_want_coll(struct search_xrank *x, uint32_t inst)
{
    if (x->nwant == x->capwant) {
        size_t nc = x->capwant ? 2 * x->capwant : 16;
        uint32_t *p = realloc(x->want, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        x->want = p;
        x->capwant = nc;
    }
    x->want[x->nwant++] = inst;
    return 0;
}

const struct search_coll_member *search_xrank_coll_sites(const struct search_xrank *x, uint32_t inst, uint32_t *n)
{
    *n = 0;
    if (x && x->dist) /* a completed context: its partial one asked */
        x = x->dist;
    size_t lo = 0, hi = x ? x->ncset : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->cset[mid].inst < inst)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!x || lo >= x->ncset || x->cset[lo].inst != inst)
        return NULL;
    *n = x->cset[lo].n;
    return x->cmem + x->cset[lo].off;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int set_cmp(const void *a, const void *b)
{
    const struct search_coll_set *x = a, *y = b;
    return x->inst < y->inst ? -1 : x->inst > y->inst;
}

/* The instances asked for, each once, in order. */
static void want_unique(struct search_xrank *x)
{
    if (x->nwant > 1)
        qsort(x->want, x->nwant, sizeof *x->want, u32_cmp);
    size_t m = 0;
    for (size_t i = 0; i < x->nwant; i++)
        if (!m || x->want[m - 1] != x->want[i])
            x->want[m++] = x->want[i];
    x->nwant = m;
}

/* Instance inst's members (which this process owns): its id, their
 * count, then each one's rank and site. */
static void pack_members(const struct search_xrank *x, uint32_t inst, struct pk_buf *b)
{
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(x->match, inst, &n);
    pk_u32(b, inst);
    pk_u32(b, mem ? n : 0);
    for (uint32_t k = 0; mem && k < n; k++) {
        const struct dg_msgrec *r = dg_match_rec(x->match, mem[k]);
        pk_i32(b, mem[k].rank);
        pk_u32(b, r ? r->site : CHT_NONE);
    }
}

/* Process 0: the members packed by pack_members into its table. */
static int read_members(struct search_xrank *x, const uint8_t *p, size_t len)
{
    struct pk_rd rd = {.p = p, .len = len};
    while (!rd.bad && rd.off < rd.len) {
        uint32_t inst = rd_u32(&rd), n = rd_count(&rd, 8);
        if (rd.bad)
            break;
        struct search_coll_set *cs = realloc(x->cset, (x->ncset + 1) * sizeof *cs);
        if (cs)
            x->cset = cs;
        struct search_coll_member *cm = realloc(x->cmem, (x->ncmem + n + 1) * sizeof *cm);
        if (cm)
            x->cmem = cm;
        if (!cs || !cm)
            return TRACE_ERR_NOMEM;
        x->cset[x->ncset++] = (struct search_coll_set){inst, (uint32_t)x->ncmem, n};
        for (uint32_t k = 0; k < n && !rd.bad; k++, x->ncmem++) {
            cm[x->ncmem].rank = rd_i32(&rd);
            cm[x->ncmem].site = rd_u32(&rd);
        }
    }
    return rd.bad ? TRACE_ERR_FORMAT : 0;
}

/* The members of the instances asked for, to process 0: each process's
 * requests go to the instances' owners, which send the members back. */
static int coll_members(struct search_xrank *x)
{
    const struct dg_xchg *xc = x->xchg;
    want_unique(x);
    struct pk_buf mine = {0}; /* the members of what this process owns, for process 0 */
    int rc = 0;
    if (xc->nprocs == 1) {
        for (size_t i = 0; i < x->nwant; i++)
            pack_members(x, x->want[i], &mine);
        rc = mine.nomem ? TRACE_ERR_NOMEM : read_members(x, mine.p, mine.len);
        free(mine.p);
        if (x->ncset > 1)
            qsort(x->cset, x->ncset, sizeof *x->cset, set_cmp);
        return rc;
    }
    struct dg_bytes *out = dg_bytes_per_proc(xc->nprocs), *in = out ? dg_bytes_per_proc(xc->nprocs) : NULL;
    int st = out && in ? 0 : TRACE_ERR_NOMEM;
    /* round 1: each instance asked for to its owner (this process's own
     * answered below, with what the others ask) */
    uint32_t *own = NULL;
    size_t nown = 0;
    for (size_t i = 0; st == 0 && i < x->nwant; i++) {
        int o = dg_match_coll_owner(x->match, x->want[i]);
        if (o < 0 || o >= xc->nprocs)
            continue;
        if (o == xc->proc) {
            uint32_t *p = realloc(own, (nown + 1) * sizeof *p);
            if (!p)
                st = TRACE_ERR_NOMEM;
            else
                (own = p)[nown++] = x->want[i];
        } else if (!dg_bytes_put(&out[o], &x->want[i], sizeof x->want[i])) {
            st = TRACE_ERR_NOMEM;
        }
    }
    if ((rc = dg_xchg_agree(xc, out && in ? 0 : TRACE_ERR_NOMEM)) == 0)
        rc = xc->alltoall(xc->ctx, st, out, in);
    /* round 2: the members of each instance asked for, once, to process 0 */
    for (int p = 0; rc >= 0 && p < xc->nprocs; p++)
        for (size_t off = 0; off + sizeof(uint32_t) <= in[p].len; off += sizeof(uint32_t)) {
            uint32_t *q = realloc(own, (nown + 1) * sizeof *q);
            if (!q) {
                st = TRACE_ERR_NOMEM;
                break;
            }
            own = q;
            memcpy(&own[nown++], in[p].p + off, sizeof *own);
        }
    if (nown > 1)
        qsort(own, nown, sizeof *own, u32_cmp);
    for (size_t i = 0; rc >= 0 && i < nown; i++) {
        uint32_t lo, hi;
        dg_match_coll_here(x->match, &lo, &hi);
        if ((i && own[i] == own[i - 1]) || own[i] < lo || own[i] >= hi)
            continue;
        pack_members(x, own[i], &mine);
    }
    free(own);
    if (mine.nomem)
        st = TRACE_ERR_NOMEM;
    if (rc >= 0) {
        for (int p = 0; p < xc->nprocs; p++) {
            dg_bytes_free(&in[p]);
            dg_bytes_free(&out[p]);
        }
        if (st == 0 && xc->proc != 0 && mine.len && !dg_bytes_put(&out[0], mine.p, mine.len))
            st = TRACE_ERR_NOMEM;
        if ((rc = dg_xchg_agree(xc, st)) == 0)
            rc = xc->alltoall(xc->ctx, 0, out, in);
    }
    if (rc >= 0 && xc->proc == 0) {
        rc = read_members(x, mine.p, mine.len);
        for (int p = 1; rc >= 0 && p < xc->nprocs; p++)
            rc = read_members(x, in[p].p, in[p].len);
        if (x->ncset > 1)
            qsort(x->cset, x->ncset, sizeof *x->cset, set_cmp);
    }
    free(mine.p);
    dg_bytes_per_proc_free(out, xc->nprocs);
    dg_bytes_per_proc_free(in, xc->nprocs);
    return dg_xchg_agree(xc, rc < 0 ? rc : 0);
}

int search_xrank_peer_facts(struct search_xrank *x)
{
    const struct dg_xchg *xc = x->xchg;
    int rc = 0;
    x->nwant = 0;
    for (int i = 0; i < x->n && rc == 0; i++) {
        struct search_rank_result *r = x->ranks[i];
        if (!r || r->rank < 0 || r->rank >= x->world_size || !x->logs[r->rank])
            continue;
        for (unsigned k = 0; k < search_kinds_count() && rc == 0; k++)
            if (search_kinds_get(k)->peer_facts)
                rc = search_kinds_get(k)->peer_facts(x, r);
    }
    if ((rc = dg_xchg_agree(xc, rc)) < 0)
        return rc;
    if (xc->nprocs > 1) {
        struct pk_buf b = {0};
        for (int i = 0; xc->proc != 0 && i < x->n; i++) {
            const struct search_rank_result *r = x->ranks[i];
            if (!r || r->rank < 0 || r->rank >= x->world_size || !x->logs[r->rank])
                continue;
            pk_u32(&b, (uint32_t)r->rank);
            for (unsigned k = 0; k < search_kinds_count(); k++)
                if (search_kinds_get(k)->peer_pack)
                    search_kinds_get(k)->peer_pack(&b, r);
        }
        struct dg_bytes *out = dg_bytes_per_proc(xc->nprocs), *in = out ? dg_bytes_per_proc(xc->nprocs) : NULL;
        int st = out && in && !b.nomem ? 0 : TRACE_ERR_NOMEM;
        if (st == 0 && b.len && !dg_bytes_put(&out[0], b.p, b.len))
            st = TRACE_ERR_NOMEM;
        free(b.p);
        if ((rc = dg_xchg_agree(xc, out && in ? 0 : TRACE_ERR_NOMEM)) == 0)
            rc = xc->alltoall(xc->ctx, st, out, in);
        for (int p = 1; rc >= 0 && xc->proc == 0 && p < xc->nprocs; p++) {
            struct pk_rd rd = {.p = in[p].p, .len = in[p].len};
            while (!rd.bad && rd.off < rd.len) {
                uint32_t r = rd_u32(&rd);
                struct search_rank_result *res = r < (uint32_t)x->world_size ? x->by_rank[r] : NULL;
                if (!res) {
                    rd_fail(&rd, "a rank without a result");
                    break;
                }
                for (unsigned k = 0; k < search_kinds_count(); k++)
                    if (search_kinds_get(k)->peer_unpack)
                        search_kinds_get(k)->peer_unpack(&rd, res);
            }
            if (rd.bad)
                rc = TRACE_ERR_FORMAT;
        }
        dg_bytes_per_proc_free(out, xc->nprocs);
        dg_bytes_per_proc_free(in, xc->nprocs);
        if ((rc = dg_xchg_agree(xc, rc < 0 ? rc : 0)) < 0)
            return rc;
    }
    return coll_members(x);
}
