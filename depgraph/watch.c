/* watch.c - the watch set: ranges and keys of registered events, grouped
 * by owner, and the query "which owners does this new event conflict
 * with".  Ranges are indexed by 4 KiB page (ranges over more than
 * BIG_PAGES pages go to a list scanned on every query); keys are few and
 * scanned.  Memory is proportional to what is registered. */
#include <stdlib.h>
#include <string.h>

#include "depgraph.h"

#define PAGE_SHIFT 12
#define BIG_PAGES 16
#define NIL UINT32_MAX

struct item {
    uint64_t owner;
    uint32_t next;       /* next item of the same owner, or free list */
    uint32_t pos;        /* index in keys/big list when there */
    uint8_t is_key, big, skip_chan, alive;
    struct dg_range r;
    struct dg_key k;
    uint64_t chan_comm;  /* for skip_chan: the registered movable send's channel */
    int32_t chan_peer;
};

struct bucket {
    uint32_t n, cap;
    uint32_t id[];
};

struct dg_watch {
    struct item *items;
    uint32_t nitems, cap, free_head;
    struct dg_map owners;     /* owner -> first item + 1 (0: fence-only owner) */
    struct dg_map fence_owners; /* owners that registered a fence */
    struct dg_map pages;      /* page -> struct bucket * */
    uint32_t *keys, nkeys, ckeys;  /* item ids of keys */
    uint32_t *big, nbig, cbig;     /* item ids of big ranges */
    size_t nranges;
    uint64_t *out;
    size_t nout, cout;
    struct dg_map seen;       /* owner -> query stamp */
    uint64_t cache_page;      /* the last page looked up, and its bucket (NULL: none) */
    const struct bucket *cache_bucket;
    uint64_t stamp;
};

int dg_watch_create(struct dg_watch **out)
{
    struct dg_watch *w = calloc(1, sizeof *w);
    if (!w)
        return TRACE_ERR_NOMEM;
    w->free_head = NIL;
    w->cache_page = UINT64_MAX;
    *out = w;
    return 0;
}

void dg_watch_destroy(struct dg_watch *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->pages.cap; i++)
        if (dg_map_used(&w->pages, i))
            free((void *)(uintptr_t)w->pages.vals[i]);
    dg_map_free(&w->pages);
    dg_map_free(&w->owners);
    dg_map_free(&w->fence_owners);
    dg_map_free(&w->seen);
    free(w->items);
    free(w->keys);
    free(w->big);
    free(w->out);
    free(w);
}

static int push_id(uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t id)
{
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 16;
        uint32_t *p = realloc(*v, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        *v = p;
        *cap = nc;
    }
    (*v)[(*n)++] = id;
    return 0;
}

static uint32_t item_new(struct dg_watch *w)
{
    if (w->free_head != NIL) {
        uint32_t id = w->free_head;
        w->free_head = w->items[id].next;
        return id;
    }
    if (w->nitems == w->cap) {
        uint32_t nc = w->cap ? w->cap * 2 : 64;
        struct item *p = realloc(w->items, nc * sizeof *p);
        if (!p)
            return NIL;
        w->items = p;
        w->cap = nc;
    }
    return w->nitems++;
}

static int bucket_add(struct dg_watch *w, uint64_t page, uint32_t id)
{
    w->cache_page = UINT64_MAX;
    uint64_t *slot = dg_map_put(&w->pages, page, 0);
    if (!slot)
        return TRACE_ERR_NOMEM;
    struct bucket *b = (struct bucket *)(uintptr_t)*slot;
    if (!b || b->n == b->cap) {
        uint32_t nc = b ? b->cap * 2 : 4;
        struct bucket *nb = realloc(b, sizeof *nb + nc * sizeof(uint32_t));
        if (!nb)
            return TRACE_ERR_NOMEM;
        if (!b)
            nb->n = 0;
        nb->cap = nc;
        b = nb;
        *slot = (uint64_t)(uintptr_t)b;
    }
    b->id[b->n++] = id;
    return 0;
}

static void bucket_remove(struct dg_watch *w, uint64_t page, uint32_t id)
{
    w->cache_page = UINT64_MAX;
    uint64_t *slot = dg_map_get(&w->pages, page);
    if (!slot)
        return;
    struct bucket *b = (struct bucket *)(uintptr_t)*slot;
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->id[i] == id) {
            b->id[i] = b->id[--b->n];
            break;
        }
    }
    if (!b->n) {
        free(b);
        dg_map_del(&w->pages, page);
    }
}

static void range_pages(const struct dg_range *r, uint64_t *first, uint64_t *last)
{
    *first = r->addr >> PAGE_SHIFT;
    *last = (r->addr + r->len - 1) >> PAGE_SHIFT;
}

int dg_watch_add(struct dg_watch *w, uint64_t owner, const struct dg_event *e,
                 bool skip_channel_sends)
{
    uint64_t *head = dg_map_put(&w->owners, owner, 0);
    if (!head)
        return TRACE_ERR_NOMEM;
    if (e->kind == DG_MPI && e->role == DG_ROLE_FENCE &&
        !dg_map_put(&w->fence_owners, owner, 1))
        return TRACE_ERR_NOMEM;
    bool skip = skip_channel_sends && dg_is_movable_send(e);
    uint32_t total = e->nranges + e->nkeys;
    for (uint32_t i = 0; i < total; i++) {
        bool is_key = i >= e->nranges;
        if (!is_key && (!e->ranges[i].len || e->ranges[i].addr + e->ranges[i].len < e->ranges[i].addr))
            continue;
        uint32_t id = item_new(w);
        if (id == NIL)
            return TRACE_ERR_NOMEM;
        struct item *it = &w->items[id];
        memset(it, 0, sizeof *it);
        it->owner = owner;
        it->alive = 1;
        it->is_key = is_key;
        it->skip_chan = skip;
        it->chan_comm = e->comm;
        it->chan_peer = e->peer;
        int rc = 0;
        if (is_key) {
            it->k = e->keys[i - e->nranges];
            it->pos = w->nkeys;
            rc = push_id(&w->keys, &w->nkeys, &w->ckeys, id);
        } else {
            it->r = e->ranges[i];
            w->nranges++;
            uint64_t p0, p1;
            range_pages(&it->r, &p0, &p1);
            if (p1 - p0 >= BIG_PAGES) {
                it->big = 1;
                it->pos = w->nbig;
                rc = push_id(&w->big, &w->nbig, &w->cbig, id);
            } else {
                for (uint64_t p = p0; p <= p1 && !rc; p++)
                    rc = bucket_add(w, p, id);
            }
        }
        if (rc < 0)
            return rc;
        /* dg_map_put may have moved the value: look the head up again. */
        head = dg_map_get(&w->owners, owner);
        it->next = *head ? (uint32_t)(*head - 1) : NIL;
        *head = (uint64_t)id + 1;
    }
    return 0;
}

static void list_remove(uint32_t *v, uint32_t *n, struct item *items, uint32_t pos)
{
    uint32_t last = v[--*n];
    v[pos] = last;
    items[last].pos = pos;
}

void dg_watch_remove(struct dg_watch *w, uint64_t owner)
{
    uint64_t *head = dg_map_get(&w->owners, owner);
    if (!head)
        return;
    uint32_t id = *head ? (uint32_t)(*head - 1) : NIL;
    while (id != NIL) {
        struct item *it = &w->items[id];
        uint32_t next = it->next;
        if (it->is_key) {
            list_remove(w->keys, &w->nkeys, w->items, it->pos);
        } else {
            w->nranges--;
            if (it->big) {
                list_remove(w->big, &w->nbig, w->items, it->pos);
            } else {
                uint64_t p0, p1;
                range_pages(&it->r, &p0, &p1);
                for (uint64_t p = p0; p <= p1; p++)
                    bucket_remove(w, p, id);
            }
        }
        it->alive = 0;
        it->next = w->free_head;
        w->free_head = id;
        id = next;
    }
    dg_map_del(&w->owners, owner);
    dg_map_del(&w->fence_owners, owner);
}

static int emit(struct dg_watch *w, uint64_t owner)
{
    uint64_t *s = dg_map_put(&w->seen, owner, 0);
    if (!s)
        return TRACE_ERR_NOMEM;
    if (*s == w->stamp)
        return 0;
    *s = w->stamp;
    if (w->nout == w->cout) {
        size_t nc = w->cout ? w->cout * 2 : 16;
        uint64_t *p = realloc(w->out, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        w->out = p;
        w->cout = nc;
    }
    w->out[w->nout++] = owner;
    return 0;
}

/* The bucket of a page (NULL: none), through a one-page cache. */
static const struct bucket *page_bucket(struct dg_watch *w, uint64_t p)
{
    if (p != w->cache_page) {
        const uint64_t *slot = dg_map_get(&w->pages, p);
        w->cache_page = p;
        w->cache_bucket = slot ? (const struct bucket *)(uintptr_t)*slot : NULL;
    }
    return w->cache_bucket;
}

static bool range_hits(const struct item *it, const struct dg_range *r)
{
    return (it->r.write || r->write) && it->r.addr < r->addr + r->len &&
           r->addr < it->r.addr + it->r.len;
}

/* The registered ranges an access r conflicts with: with all, emits the
 * owner of each and returns whether there was any; else returns at the
 * first one. */
static bool range_visit(struct dg_watch *w, const struct dg_range *r, bool all)
{
    bool any = false;
    if (!r->len || r->addr + r->len < r->addr)
        return false;
    for (uint32_t j = 0; j < w->nbig; j++) {
        if (range_hits(&w->items[w->big[j]], r)) {
            if (!all)
                return true;
            any = true;
            emit(w, w->items[w->big[j]].owner);
        }
    }
    if (w->pages.n == 0)
        return any;
    uint64_t p0, p1;
    range_pages(r, &p0, &p1);
    bool scan = p1 - p0 >= w->pages.cap;
    /* more pages than the index has slots (a huge range, up to 2^52 pages):
     * scan the index instead of the range */
    for (uint64_t k = scan ? 0 : p0; scan ? k < w->pages.cap : k <= p1; k++) {
        const struct bucket *b;
        if (scan) {
            if (!dg_map_used(&w->pages, k) || w->pages.keys[k] < p0 || w->pages.keys[k] > p1)
                continue;
            b = (const struct bucket *)(uintptr_t)w->pages.vals[k];
        } else if (!(b = page_bucket(w, k))) {
            continue;
        }
        for (uint32_t j = 0; j < b->n; j++) {
            if (range_hits(&w->items[b->id[j]], r)) {
                if (!all)
                    return true;
                any = true;
                emit(w, w->items[b->id[j]].owner);
            }
        }
    }
    return any;
}

size_t dg_watch_conflicts(struct dg_watch *w, const struct dg_event *e, const uint64_t **owners)
{
    w->nout = 0;
    *owners = w->out;
    if (!w->owners.n)
        return 0;
    w->stamp++;
    if (w->seen.n > 4 * w->owners.n + 64) {
        dg_map_free(&w->seen); /* forget owners removed long ago */
        w->stamp = 1;
    }
    if (e->kind == DG_MPI && e->role == DG_ROLE_FENCE) {
        for (size_t i = 0; i < w->owners.cap; i++)
            if (dg_map_used(&w->owners, i))
                emit(w, w->owners.keys[i]);
        *owners = w->out;
        return w->nout;
    }
    for (size_t i = 0; i < w->fence_owners.cap; i++)
        if (dg_map_used(&w->fence_owners, i))
            emit(w, w->fence_owners.keys[i]);
    if (w->nranges)
        for (uint32_t i = 0; i < e->nranges; i++)
            range_visit(w, &e->ranges[i], true);
    if (w->nkeys && e->nkeys) {
        bool mov = dg_is_movable_send(e);
        for (uint32_t j = 0; j < w->nkeys; j++) {
            const struct item *it = &w->items[w->keys[j]];
            if (it->skip_chan && mov && it->chan_comm == e->comm && it->chan_peer == e->peer)
                continue;
            for (uint32_t i = 0; i < e->nkeys; i++) {
                if (dg_keys_conflict(&it->k, &e->keys[i])) {
                    emit(w, it->owner);
                    break;
                }
            }
        }
    }
    *owners = w->out;
    return w->nout;
}

size_t dg_watch_owners(const struct dg_watch *w)
{
    return w->owners.n;
}

/* ---- runs ---------------------------------------------------------------------------- */

#define NO_J UINT64_MAX

/* The first j in jl .. jh at which the access [a + j*st, + len) meets the
 * bytes [lo, hi), or NO_J (all in 128 bits: the run's addresses do not wrap). */
static uint64_t first_meet(uint64_t a, int64_t st, uint64_t len, uint64_t lo, uint64_t hi,
                           uint64_t jl, uint64_t jh)
{
    __int128 A = (__int128)a + (__int128)jl * st, LO = lo, HI = hi, L = len, need;
    uint64_t n = jh - jl, j;
    if (st == 0)
        return A < HI && A + L > LO ? jl : NO_J;
    if (st > 0)
        need = LO - L - A; /* j * st > need */
    else
        need = A - HI;     /* j * -st > need */
    if (need < 0) {
        j = 0;
    } else {
        __int128 q = need / (st > 0 ? (__int128)st : -(__int128)st);
        if (q >= (__int128)n)
            return NO_J;
        j = (uint64_t)q + 1;
    }
    if (j > n)
        return NO_J;
    __int128 x = A + (__int128)j * st;
    return x < HI && x + L > LO ? jl + j : NO_J;
}

uint64_t dg_watch_first_conflict_run(struct dg_watch *w, const struct dg_run *r, uint64_t t0,
                                     uint64_t t1)
{
    const uint64_t P = r->period;
    if (t0 >= t1 || !w->owners.n)
        return t1;
    if (w->fence_owners.n)
        return t0; /* a fence conflicts with every event */
    if (!w->nranges)
        return t1; /* keys only: computation carries none */
    if (r->rows) {
        /* a run of rows: each event's accesses looked up */
        struct dg_rows_pos x = dg_rows_at(r, t0);
        for (uint64_t t = t0; t < t1; t++, dg_rows_next(r->rows, &x)) {
            const struct dg_run_phase *ph = &r->ph[x.p];
            for (uint32_t k = 0; k < ph->ev.nranges; k++) {
                struct dg_range y = ph->ev.ranges[k];
                y.addr = dg_rows_addr(r, ph, k, &x);
                if (range_visit(w, &y, false))
                    return t;
            }
        }
        return t1;
    }
    if ((uint64_t)w->nranges * P > 4 * (t1 - t0)) {
        /* few events for many ranges: look each event's accesses up */
        for (uint64_t t = t0; t < t1; t++) {
            const struct dg_run_phase *ph = &r->ph[t % P];
            uint64_t j = t / P;
            for (uint32_t k = 0; k < ph->ev.nranges; k++) {
                struct dg_range x = ph->ev.ranges[k];
                x.addr = dg_run_addr(ph, k, j);
                if (range_visit(w, &x, false))
                    return t;
            }
        }
        return t1;
    }
    /* where each strided access first meets each registered range */
    uint64_t best = t1;
    for (uint64_t p = 0; p < P && p < best; p++) {
        /* its repetitions jl .. jh lie in [t0, best) */
        uint64_t jl = t0 <= p ? 0 : (t0 - p + P - 1) / P;
        uint64_t jh = (best - 1 - p) / P;
        if (jl > jh)
            continue;
        const struct dg_run_phase *ph = &r->ph[p];
        for (uint32_t k = 0; k < ph->ev.nranges; k++) {
            const struct dg_range *x = &ph->ev.ranges[k];
            if (!x->len)
                continue;
            if (ph->addr && ph->addr[k]) {
                /* no stride: each repetition's address looked up */
                for (uint64_t j = jl; j <= jh && j * P + p < best; j++) {
                    struct dg_range y = {ph->addr[k][j], x->len, x->write};
                    if (range_visit(w, &y, false)) {
                        best = j * P + p;
                        if (best == t0)
                            return best;
                        jh = j;
                    }
                }
                continue;
            }
            for (uint32_t i = 0; i < w->nitems; i++) {
                const struct item *it = &w->items[i];
                if (!it->alive || it->is_key || !(it->r.write || x->write))
                    continue;
                uint64_t j = first_meet(x->addr, ph->stride[k], x->len, it->r.addr,
                                        it->r.addr + it->r.len, jl, jh);
                if (j != NO_J && j * P + p < best) {
                    best = j * P + p;
                    if (best == t0)
                        return best;
                    jh = j; /* only an earlier repetition can do better */
                }
            }
        }
    }
    return best;
}
