/* hb-private.h - what the serial happens-before replay (hb.c) and the
 * spread one (hb-dist.c) share: sorted token sets, per-rank lists of
 * positions, and which way a collective passes what its members know. */
#ifndef COMMHINT_HB_PRIVATE_H
#define COMMHINT_HB_PRIVATE_H

#include <stdlib.h>

#include "depgraph.h"

/* A set of tokens, sorted. */
struct tokset {
    uint32_t *v;
    uint32_t n, cap;
};

/* Positions of a rank with something to do there, sorted by position. */
struct ev {
    uint32_t pos, id;
};
struct evlist {
    struct ev *e;
    uint32_t n, cap, at;
};

/* Room for one more of n elements of size `size` in *p (*cap of them):
 * false if memory ran out (*p unchanged). */
static inline bool room(void **p, uint32_t n, uint32_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    uint32_t nc = *cap ? *cap * 2 : 64;
    void *q = realloc(*p, (size_t)nc * size);
    if (!q)
        return false;
    *p = q;
    *cap = nc;
    return true;
}

/* The index of the first token of s at or above t. */
static inline uint32_t ts_lower(const struct tokset *s, uint32_t t)
{
    uint32_t lo = 0, hi = s->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (s->v[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static inline bool ts_has(const struct tokset *s, uint32_t t)
{
    uint32_t i = ts_lower(s, t);
    return i < s->n && s->v[i] == t;
}

static inline bool ts_reserve(struct tokset *s, uint32_t n)
{
    if (n <= s->cap)
        return true;
    uint32_t nc = s->cap ? s->cap : 4;
    while (nc < n)
        nc *= 2;
    uint32_t *p = realloc(s->v, nc * sizeof *p);
    if (!p)
        return false;
    s->v = p;
    s->cap = nc;
    return true;
}

/* t into s (kept sorted); false if memory ran out. */
static inline bool ts_insert(struct tokset *s, uint32_t t)
{
    if (ts_has(s, t))
        return true;
    if (!ts_reserve(s, s->n + 1))
        return false;
    uint32_t k = s->n;
    while (k > 0 && s->v[k - 1] > t) {
        s->v[k] = s->v[k - 1];
        k--;
    }
    s->v[k] = t;
    s->n++;
    return true;
}

/* dst |= v[0..n) (sorted), keeping the tokens keep(ctx, t) says: merged
 * into *tmp, which then swaps with dst; false if memory ran out. */
static inline bool ts_merge_keep(struct tokset *dst, const uint32_t *v, uint32_t n, struct tokset *tmp,
                                 bool (*keep)(const void *ctx, uint32_t t), const void *ctx)
{
    if (!n)
        return true;
    if (!ts_reserve(tmp, dst->n + n))
        return false;
    uint32_t i = 0, j = 0, k = 0, *o = tmp->v;
    while (i < dst->n || j < n) {
        uint32_t t;
        if (j >= n || (i < dst->n && dst->v[i] < v[j]))
            t = dst->v[i++];
        else if (i >= dst->n || v[j] < dst->v[i])
            t = v[j++];
        else
            t = dst->v[i++], j++;
        if (keep(ctx, t))
            o[k++] = t;
    }
    struct tokset sw = *dst;
    *dst = *tmp;
    dst->n = k;
    *tmp = sw;
    return true;
}

/* Which way a collective passes what its members know: 1 root -> others,
 * 2 others -> root, 0 all to all (every form of the call: Ibcast and
 * Bcast_init as Bcast).  Neighbourhood collectives pass all to all: more
 * edges than the neighbours alone give, which is the safe side for the
 * deadlock check, the one user of this order (it refuses a delay when a
 * receive happens before what a call waits for: an extra edge can only
 * refuse more). */
static inline int coll_dir(int call)
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

static inline bool gives(int dir, bool root)
{
    return dir == 0 || (dir == 1 && root) || (dir == 2 && !root);
}

static inline bool takes(int dir, bool root)
{
    return dir == 0 || (dir == 1 && !root) || (dir == 2 && root);
}

static inline int ev_push(struct evlist *L, uint32_t pos, uint32_t id)
{
    if (!room((void **)&L->e, L->n, &L->cap, sizeof *L->e))
        return TRACE_ERR_NOMEM;
    L->e[L->n++] = (struct ev){pos, id};
    return 0;
}

static inline int ev_cmp(const void *pa, const void *pb)
{
    const struct ev *a = pa, *b = pb;
    return a->pos != b->pos ? (a->pos < b->pos ? -1 : 1) : (a->id < b->id ? -1 : a->id > b->id);
}

static inline void ev_sort(struct evlist *L)
{
    if (L->n > 1)
        qsort(L->e, L->n, sizeof *L->e, ev_cmp);
}

/* hb.c: the chain from a to b of a replay in chain mode, where at[r] is
 * the first record of rank r that knew of a and from[r] the record it
 * learnt it from (DG_POS_NONE: never); up to max positions into out, in
 * pairs from a's rank on (dg_hb_chain). */
size_t hb_chain_walk(const struct dg_pos *at, const struct dg_pos *from, struct dg_pos a, struct dg_pos b,
                     struct dg_pos *out, size_t max);

#endif
