/* shadow.c - shadow memory: the last writer and last reader of every byte
 * touched, in 4 KiB pages allocated on first touch.
 *
 * A page keeps one writer and one reader per 4-byte granule (16 bytes of
 * shadow per 4 bytes of memory); a granule that an access covers only in
 * part is "split" and keeps its bytes' values in a per-page byte table
 * allocated on first need.  The granule's own value is always the latest
 * access to any of its bytes, which is also their maximum, since indices
 * only grow: a query that covers a whole granule never looks at its bytes.
 * So aligned int and double accesses cost one or two stores, and the
 * results are exact to the byte.  An access over more than 16 MiB is kept
 * as one range instead (a trace may claim any length), and a query wider
 * than the pages held scans them, so no access costs more than that.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "depgraph.h"

#define PAGE_SHIFT 12
#define PAGE_SIZE (1u << PAGE_SHIFT)
#define GRAN 4u
#define NGRAN (PAGE_SIZE / GRAN)
#define CACHE 1024 /* direct-mapped cache of pages (4 MiB of consecutive memory): programs
                    * alternate arrays, and gather from vectors of megabytes */
#define CHUNK ((size_t)32 << 20) /* bytes: shadow pages are cut from mappings of this size */
#define HUGE ((size_t)2 << 20)   /* bytes: a huge page, the mappings' alignment */
#define PAGE_BYTES ((sizeof(struct shadow_page) + 63) & ~(size_t)63) /* a page in a chunk */
#define BIG_PAGES 4096 /* an access over more pages (16 MiB) is kept whole, not in pages */

struct byte_table {
    uint64_t v[2][PAGE_SIZE]; /* [0] writer, [1] reader: index + 1 */
};

struct shadow_page {
    uint64_t v[2][NGRAN];          /* [0] writer, [1] reader of each granule */
    uint64_t split[2][NGRAN / 64]; /* granules whose bytes differ */
    bool any_split[2];             /* a split bit was ever set */
    struct byte_table *bytes;
};

/* An access too long for pages (a trace can claim any length, up to 2^64
 * bytes): one entry for all its bytes.  Values only grow, so the value of
 * a byte is the largest of its page's and of the big ranges over it. */
struct big_range {
    uint64_t lo, hi; /* bytes [lo, hi) */
    uint64_t v;      /* index + 1 */
    int k;           /* 0 writer, 1 reader */
};

/* A store of the common case, made later (see dg_shadow_update): v into
 * the granule at g0 and the one at g1 (the same one for a 4-byte access). */
struct pending {
    uint64_t *g0, *g1;
    uint64_t v; /* index + 1 */
};

#define PENDING 16 /* stores in flight: a gather's shadow misses the caches */

struct dg_shadow {
    struct dg_map pages; /* page number -> struct shadow_page * */
    struct pending pend[PENDING]; /* a ring, oldest at pend_head; a free entry stores
                                   * into sink */
    unsigned pend_head, npend; /* npend: the entries not free, the last pushed */
    uint64_t sink;
    bool split_seen[2];  /* some page's any_split[k] was ever set */
    struct {
        uint64_t pno;
        struct shadow_page *page;
    } cache[CACHE]; /* a page number beside its page: one cache line per look-up */
    size_t npages, nbytetables;
    char *arena;       /* the unused rest of the last chunk */
    size_t arena_left; /* bytes */
    void **chunk;      /* the mappings pages are cut from (CHUNK + HUGE bytes each) */
    size_t nchunk;
    struct big_range *big;
    size_t nbig, cbig;
};

/* ---- the limit over all shadows of the process ----------------------------------------- */

static size_t limit_bytes; /* 0 until set or first used */
static size_t held_bytes;  /* pages and byte tables of every shadow, atomic */

void dg_shadow_set_limit(size_t bytes)
{
    __atomic_store_n(&limit_bytes, bytes, __ATOMIC_RELAXED);
}

size_t dg_shadow_limit(void)
{
    size_t l = __atomic_load_n(&limit_bytes, __ATOMIC_RELAXED);
    if (!l) {
        long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        l = DG_SHADOW_LIMIT_DEFAULT;
        if (pages > 0 && psize > 0 && (size_t)pages / 2 * (size_t)psize < l)
            l = (size_t)pages / 2 * (size_t)psize;
        __atomic_store_n(&limit_bytes, l, __ATOMIC_RELAXED);
    }
    return l;
}

int dg_shadow_limit_from_env(const char **bad)
{
    const char *v = getenv("COMMHINT_MAX_MEMORY");
    char *end;
    unsigned long long n;
    unsigned shift = 0;

    if (!v || !*v)
        return 0;
    errno = 0;
    n = strtoull(v, &end, 10);
    if (end != v && *end && !end[1]) {
        const char *units = "KMGT", *u = strchr(units, *end == 'k' ? 'K' : *end);
        if (u && *u) {
            shift = 10 * (unsigned)(u - units + 1);
            end++;
        }
    }
    if (errno || end == v || *end || *v == '-' || n == 0 || (shift && n > (SIZE_MAX >> shift))) {
        *bad = v;
        return -1;
    }
    dg_shadow_set_limit((size_t)n << shift);
    return 0;
}

/* Takes n bytes of the limit: false if they would pass it. */
static bool take(size_t n)
{
    size_t l = dg_shadow_limit();
    size_t now = __atomic_add_fetch(&held_bytes, n, __ATOMIC_RELAXED);
    if (now > l) {
        __atomic_sub_fetch(&held_bytes, n, __ATOMIC_RELAXED);
        return false;
    }
    return true;
}

static void give_back(size_t n)
{
    __atomic_sub_fetch(&held_bytes, n, __ATOMIC_RELAXED);
}

int dg_shadow_create(struct dg_shadow **out)
{
    struct dg_shadow *s = calloc(1, sizeof *s);
    if (!s)
        return TRACE_ERR_NOMEM;
    for (int i = 0; i < CACHE; i++)
        s->cache[i].pno = UINT64_MAX;
    for (int i = 0; i < PENDING; i++)
        s->pend[i] = (struct pending){&s->sink, &s->sink, 0};
    *out = s;
    return 0;
}

void dg_shadow_destroy(struct dg_shadow *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->pages.cap; i++) {
        if (dg_map_used(&s->pages, i)) {
            struct shadow_page *p = (struct shadow_page *)(uintptr_t)s->pages.vals[i];
            free(p->bytes);
        }
    }
    for (size_t i = 0; i < s->nchunk; i++)
        munmap(s->chunk[i], CHUNK + HUGE);
    free(s->chunk);
    give_back(s->npages * sizeof(struct shadow_page) + s->nbytetables * sizeof(struct byte_table));
    dg_map_free(&s->pages);
    free(s->big);
    free(s);
}

static inline struct shadow_page *page_get(const struct dg_shadow *s, uint64_t pno)
{
    unsigned slot = (unsigned)(pno % CACHE);
    if (s->cache[slot].pno == pno)
        return s->cache[slot].page;
    uint64_t *v = dg_map_get(&s->pages, pno);
    if (!v)
        return NULL;
    struct dg_shadow *m = (struct dg_shadow *)s; /* the cache is not state */
    m->cache[slot].pno = pno;
    m->cache[slot].page = (struct shadow_page *)(uintptr_t)*v;
    return m->cache[slot].page;
}

/* Room for a page at s->arena, zeroed: pages are cut from mappings of
 * CHUNK bytes in huge pages (THP on request).  A gather touches its
 * shadow pages at random: in 4 KiB pages, spmv's vector alone spans about
 * 3,200 of them per rank, a TLB miss (two-level, under a hypervisor) on
 * most of its accesses.  0, or TRACE_ERR_NOMEM. */
static int arena_room(struct dg_shadow *s)
{
    if (s->arena_left >= PAGE_BYTES)
        return 0;
    void **nc = realloc(s->chunk, (s->nchunk + 1) * sizeof *nc);
    if (!nc)
        return TRACE_ERR_NOMEM;
    s->chunk = nc;
    void *m = mmap(NULL, CHUNK + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return TRACE_ERR_NOMEM;
    s->chunk[s->nchunk++] = m;
    s->arena = (char *)(((uintptr_t)m + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
    s->arena_left = CHUNK;
#ifdef MADV_HUGEPAGE
    madvise(s->arena, CHUNK, MADV_HUGEPAGE); /* a hint: without it, 4 KiB pages */
#endif
    return 0;
}

/* The page pno, made if new: NULL with *rc set (TRACE_ERR_NOMEM or
 * TRACE_ERR_LIMIT) if it cannot be. */
static struct shadow_page *page_make(struct dg_shadow *s, uint64_t pno, int *rc)
{
    struct shadow_page *p = page_get(s, pno);
    if (p)
        return p;
    if (!take(sizeof *p)) {
        *rc = TRACE_ERR_LIMIT;
        return NULL;
    }
    *rc = TRACE_ERR_NOMEM;
    if (arena_room(s) < 0) {
        give_back(sizeof *p);
        return NULL;
    }
    p = (struct shadow_page *)(void *)s->arena;
    if (!dg_map_put(&s->pages, pno, (uint64_t)(uintptr_t)p)) {
        give_back(sizeof *p);
        return NULL;
    }
    s->arena += PAGE_BYTES;
    s->arena_left -= PAGE_BYTES;
    s->npages++;
    s->cache[pno % CACHE].pno = pno;
    s->cache[pno % CACHE].page = p;
    return p;
}

/* page_make with the cache's hit inline: a gather leaves its page at
 * almost every access. */
static inline struct shadow_page *page_at(struct dg_shadow *s, uint64_t pno, int *rc)
{
    unsigned slot = (unsigned)(pno % CACHE);
    return s->cache[slot].pno == pno ? s->cache[slot].page : page_make(s, pno, rc);
}

/* Queues the store of v into the n granules (1 or 2) at address a of page
 * p (kind k), after a prefetch of their line, and makes the oldest pending
 * store (a free entry's goes to the sink).  A split bit is cleared at once:
 * nothing sets one while stores are pending (every other update flushes
 * them first), and only a query, after a flush, reads them. */
static inline void pending_push(struct dg_shadow *s, struct shadow_page *p, uint64_t a, int k,
                                unsigned n, uint64_t v)
{
    unsigned g = (unsigned)(a & (PAGE_SIZE - 1)) / GRAN;
    uint64_t *at = &p->v[k][g];
    __builtin_prefetch(at, 1, 3);
    if (s->split_seen[k] && p->any_split[k]) /* the page's flag is a miss for a gather: rarely read */
        for (unsigned q = g; q < g + n; q++)
            p->split[k][q / 64] &= ~(1ull << (q % 64));
    struct pending *x = &s->pend[s->pend_head];
    *x->g0 = x->v;
    *x->g1 = x->v;
    *x = (struct pending){at, at + n - 1, v};
    s->pend_head = (s->pend_head + 1) % PENDING;
    s->npend += s->npend < PENDING;
}

/* Makes every pending store, oldest first, and frees the entries: before
 * anything else reads or writes the shadow.  Const for the queries: what
 * is pending is part of the shadow's value, not of its state. */
static void pending_flush(const struct dg_shadow *cs)
{
    struct dg_shadow *s = (struct dg_shadow *)cs;
    for (unsigned i = s->npend; i > 0; i--) {
        struct pending *x = &s->pend[(s->pend_head - i) % PENDING];
        *x->g0 = x->v;
        *x->g1 = x->v;
        *x = (struct pending){&s->sink, &s->sink, 0};
    }
    s->npend = 0;
}

static inline bool is_split(const struct shadow_page *p, int k, unsigned g)
{
    return p->split[k][g / 64] >> (g % 64) & 1;
}

/* Writes v into the bytes [lo, hi) of granule g (a part of it). */
static int granule_set_part(struct dg_shadow *s, struct shadow_page *p, int k, unsigned g,
                            unsigned lo, unsigned hi, uint64_t v)
{
    if (!p->bytes) {
        if (!take(sizeof *p->bytes))
            return TRACE_ERR_LIMIT;
        p->bytes = malloc(sizeof *p->bytes);
        if (!p->bytes) {
            give_back(sizeof *p->bytes);
            return TRACE_ERR_NOMEM;
        }
        s->nbytetables++;
    }
    uint64_t *b = p->bytes->v[k];
    unsigned g0 = g * GRAN;
    if (!is_split(p, k, g)) {
        for (unsigned i = g0; i < g0 + GRAN; i++)
            b[i] = p->v[k][g];
        p->split[k][g / 64] |= 1ull << (g % 64);
        p->any_split[k] = true;
        s->split_seen[k] = true;
    }
    for (unsigned i = lo; i < hi; i++)
        b[i] = v;
    p->v[k][g] = v;
    return 0;
}

/* Writes v into bytes [lo, hi) of one page (offsets in the page) for kind k:
 * partial granules at the ends, a fill of whole granules between. */
static int page_set(struct dg_shadow *s, struct shadow_page *p, int k, unsigned lo, unsigned hi,
                    uint64_t v)
{
    unsigned first = (lo + GRAN - 1) / GRAN, last = hi / GRAN; /* whole granules [first, last) */
    if (first >= last) { /* within one granule, or two partial ones */
        for (unsigned g = lo / GRAN; g * GRAN < hi; g++) {
            unsigned g0 = g * GRAN;
            unsigned a = lo > g0 ? lo : g0, e = hi < g0 + GRAN ? hi : g0 + GRAN;
            int rc = a == g0 && e == g0 + GRAN ? 0 : granule_set_part(s, p, k, g, a, e, v);
            if (rc < 0)
                return rc;
            if (a == g0 && e == g0 + GRAN) {
                p->v[k][g] = v;
                p->split[k][g / 64] &= ~(1ull << (g % 64));
            }
        }
        return 0;
    }
    int rc = 0;
    if (lo % GRAN)
        rc = granule_set_part(s, p, k, lo / GRAN, lo, first * GRAN, v);
    if (!rc && hi % GRAN)
        rc = granule_set_part(s, p, k, last, last * GRAN, hi, v);
    if (rc < 0)
        return rc;
    uint64_t *dst = p->v[k];
    for (unsigned g = first; g < last; g++)
        dst[g] = v;
    for (unsigned w = first / 64; w <= (last - 1) / 64; w++) {
        unsigned b0 = w == first / 64 ? first % 64 : 0;
        unsigned b1 = w == (last - 1) / 64 ? (last - 1) % 64 : 63;
        uint64_t mask = (b1 == 63 ? ~0ull : (1ull << (b1 + 1)) - 1) & ~((1ull << b0) - 1);
        p->split[k][w] &= ~mask;
    }
    return 0;
}

/* The largest value of kind k over bytes [lo, hi) of one page. */
static uint64_t page_max(const struct shadow_page *p, int k, unsigned lo, unsigned hi)
{
    uint64_t best = 0;
    for (unsigned g = lo / GRAN; g * GRAN < hi; g++) {
        unsigned g0 = g * GRAN, g1 = g0 + GRAN;
        uint64_t v = p->v[k][g];
        if ((lo > g0 || hi < g1) && is_split(p, k, g)) {
            const uint64_t *b = p->bytes->v[k];
            unsigned a = lo > g0 ? lo : g0, e = hi < g1 ? hi : g1;
            v = 0;
            for (unsigned i = a; i < e; i++)
                if (b[i] > v)
                    v = b[i];
        }
        if (v > best)
            best = v;
    }
    return best;
}

int dg_shadow_update(struct dg_shadow *s, const struct dg_range *r, uint64_t index)
{
    uint64_t a = r->addr, end = r->addr + r->len;
    if (!r->len || end < a)
        return 0;
    int k = r->write ? 0 : 1;
    uint64_t v = index + 1;
    if (r->len > (uint64_t)BIG_PAGES << PAGE_SHIFT) {
        pending_flush(s);
        /* older big ranges of the same kind inside it are superseded */
        size_t j = 0;
        for (size_t i = 0; i < s->nbig; i++)
            if (s->big[i].k != k || s->big[i].lo < a || s->big[i].hi > end)
                s->big[j++] = s->big[i];
        s->nbig = j;
        if (s->nbig == s->cbig) {
            size_t nc = s->cbig ? 2 * s->cbig : 8;
            struct big_range *nb = realloc(s->big, nc * sizeof *nb);
            if (!nb)
                return TRACE_ERR_NOMEM;
            s->big = nb;
            s->cbig = nc;
        }
        s->big[s->nbig++] = (struct big_range){a, end, v, k};
        return 0;
    }
    /* The common case, an aligned double or int: its page is made now (so
     * that a limit is met at the same event), its store PENDING updates
     * later, after a prefetch.  A gather's shadow (x[col[j]]) misses the
     * caches, and x86 commits stores in order: made at once, each miss
     * held up every later store of the analysis (in perf, the stall showed
     * in the reader's stores, at 30% of the samples). */
    if ((r->len == 8 || r->len == 4) && (a & (r->len - 1)) == 0) {
        int rc;
        struct shadow_page *p = page_at(s, a >> PAGE_SHIFT, &rc);
        if (!p)
            return rc;
        pending_push(s, p, a, k, (unsigned)(r->len / GRAN), v);
        return 0;
    }
    pending_flush(s);
    while (a < end) {
        uint64_t pno = a >> PAGE_SHIFT;
        uint64_t pend = (pno + 1) << PAGE_SHIFT;
        uint64_t stop = end < pend || pend == 0 ? end : pend;
        int rc;
        struct shadow_page *p = page_make(s, pno, &rc);
        if (!p)
            return rc;
        unsigned lo = (unsigned)(a & (PAGE_SIZE - 1));
        rc = page_set(s, p, k, lo, lo + (unsigned)(stop - a), v);
        if (rc < 0)
            return rc;
        a = stop;
    }
    return 0;
}

/* ---- runs ----------------------------------------------------------------------------- */

/* A run with irregular addresses (a column's): its accesses in event order
 * as dg_shadow_update would make them, so that the stores of the irregular
 * ones (a gather's, which miss) stay in flight with the others, in order;
 * an aligned int or double finds its page without a look-up while it stays
 * in the page it was in. */
static int update_run_events(struct dg_shadow *s, const struct dg_run *r, uint64_t t0, uint64_t t1,
                             bool writes_only)
{
    const uint32_t P = r->period;
    uint32_t p = (uint32_t)(t0 % P), n = 0, off[DG_RUN_PERIOD_MAX + 1];
    uint64_t j = t0 / P;
    /* the accesses to make, phase by phase, each with the page it was in last time */
    struct {
        const uint64_t *col; /* its address in each repetition, or NULL: strided */
        uint64_t addr, len, pno;
        int64_t stride;
        struct shadow_page *page;
        bool write;
    } acc[DG_RUN_PERIOD_MAX * DG_RUN_MAX_ADDRS];
    for (uint32_t q = 0; q < P; q++) {
        const struct dg_run_phase *ph = &r->ph[q];
        off[q] = n;
        for (uint32_t k = 0; k < ph->ev.nranges; k++) {
            const struct dg_range *x = &ph->ev.ranges[k];
            if (!x->len || (writes_only && !x->write))
                continue;
            acc[n].col = ph->addr ? ph->addr[k] : NULL;
            acc[n].addr = x->addr;
            acc[n].len = x->len;
            acc[n].pno = UINT64_MAX;
            acc[n].stride = ph->stride[k];
            acc[n++].write = x->write;
        }
    }
    off[P] = n;
    for (uint64_t t = t0; t < t1; t++) {
        for (uint32_t i = off[p]; i < off[p + 1]; i++) {
            uint64_t a = acc[i].col ? acc[i].col[j] : acc[i].addr + j * (uint64_t)acc[i].stride;
            uint64_t len = acc[i].len;
            int rc;
            if ((len == 8 || len == 4) && (a & (len - 1)) == 0) {
                if (a >> PAGE_SHIFT != acc[i].pno) {
                    if (!(acc[i].page = page_at(s, a >> PAGE_SHIFT, &rc)))
                        return rc;
                    acc[i].pno = a >> PAGE_SHIFT;
                }
                pending_push(s, acc[i].page, a, acc[i].write ? 0 : 1, (unsigned)(len / GRAN),
                             r->first + t + 1);
            } else {
                struct dg_range x = {a, len, acc[i].write};
                if ((rc = dg_shadow_update(s, &x, r->first + t)) < 0)
                    return rc;
            }
        }
        if (++p == P)
            p = 0, j++;
    }
    return 0;
}

/* An access of a run of rows' phase to make: where its address comes
 * from, and the page it was in last time. */
struct rows_acc {
    const uint64_t *col;  /* an irregular one's, by iteration */
    const uint64_t *row;  /* an inner strided one's, by row (NULL: a between one) */
    uint64_t base;        /* a between one's in row 0 */
    int64_t stride;       /* per iteration (inner) or row (between) */
    uint64_t len, pno;
    uint64_t align;       /* an aligned int or double: len - 1; else all bits (never) */
    struct shadow_page *page;
    int kind;             /* 0 write, 1 read */
    bool write;
};

/* Makes access x of a run of rows at address a, by event index. */
static inline __attribute__((always_inline)) int rows_store(struct dg_shadow *s, struct rows_acc *x, uint64_t a,
                                                            uint64_t index)
{
    int rc;
    if ((a & x->align) == 0) {
        if (a >> PAGE_SHIFT != x->pno) {
            if (!(x->page = page_at(s, a >> PAGE_SHIFT, &rc)))
                return rc;
            x->pno = a >> PAGE_SHIFT;
        }
        pending_push(s, x->page, a, x->kind, (unsigned)(x->len / GRAN), index + 1);
        return 0;
    }
    struct dg_range y = {a, x->len, x->write};
    return dg_shadow_update(s, &y, index);
}

/* A run of rows: its accesses in event order (as update_run_events makes a
 * run's), row by row, each inner iteration's phases, then the row's
 * between phases; a row's inner part whose phases have nothing to make
 * (writes_only: spmv's gather) is stepped over at once. */
static int update_rows(struct dg_shadow *s, const struct dg_run *r, uint64_t t0, uint64_t t1, bool writes_only)
{
    const struct trace_rows *w = r->rows;
    const uint32_t nb = w->nb, P = r->period;
    struct rows_acc acc[DG_RUN_PERIOD_MAX][DG_RUN_MAX_ADDRS];
    uint32_t nacc[DG_RUN_PERIOD_MAX], inner_n = 0, any = 0;
    int rc;
    for (uint32_t p = 0; p < P; p++) {
        const struct dg_run_phase *ph = &r->ph[p];
        nacc[p] = 0;
        for (uint32_t k = 0; k < ph->ev.nranges; k++) {
            const struct dg_range *rg = &ph->ev.ranges[k];
            if (!rg->len || (writes_only && !rg->write))
                continue;
            struct rows_acc *x = &acc[p][nacc[p]++];
            x->col = ph->row_addr && !ph->row_addr[k] ? ph->addr[k] : NULL;
            x->row = ph->row_addr ? ph->row_addr[k] : NULL;
            x->base = rg->addr;
            x->stride = ph->stride[k];
            x->len = rg->len;
            x->align = rg->len == 8 || rg->len == 4 ? rg->len - 1 : UINT64_MAX;
            x->pno = UINT64_MAX;
            x->kind = rg->write ? 0 : 1;
            x->write = rg->write;
        }
        any += nacc[p];
        if (p >= nb)
            inner_n += nacc[p];
    }
    if (!any)
        return 0;
    struct dg_rows_pos x = dg_rows_at(r, t0);
    uint64_t t = t0;
    while (t < t1) {
        const uint64_t i = x.i;
        if (x.p >= nb) { /* the inner part of row i, from iteration x.m, phase x.p */
            const uint64_t trips = w->trips[i], g0 = w->itb[i];
            uint64_t m = x.m;
            uint32_t q = x.p;
            if (!inner_n) {
                uint64_t left = (trips - m) * (P - nb) - (q - nb);
                if (left > t1 - t) {
                    t = t1;
                    break;
                }
                t += left;
            } else {
                for (;;) {
                    for (uint32_t j = 0; j < nacc[q]; j++) {
                        struct rows_acc *y = &acc[q][j];
                        uint64_t a = y->col ? y->col[g0 + m] : y->row[i] + m * (uint64_t)y->stride;
                        if ((rc = rows_store(s, y, a, r->first + t)) < 0)
                            return rc;
                    }
                    t++;
                    if (dg_rows_inner_next(&q, &m, nb, P, trips))
                        break;
                    if (t == t1)
                        return 0;
                }
            }
            if (t == t1)
                break;
            if (!nb || (i + 1 == w->nrows && !w->between_last)) {
                x.i++, x.p = nb, x.m = 0;
                continue;
            }
            x.p = 0;
        }
        /* the between part of row i, from phase x.p */
        for (uint32_t q = x.p; q < nb && t < t1; q++, t++)
            for (uint32_t j = 0; j < nacc[q]; j++)
                if ((rc = rows_store(s, &acc[q][j], acc[q][j].base + i * (uint64_t)acc[q][j].stride, r->first + t)) < 0)
                    return rc;
        x.i++, x.p = nb, x.m = 0;
    }
    return 0;
}

int dg_shadow_update_run(struct dg_shadow *s, const struct dg_run *r, uint64_t t0, uint64_t t1,
                         bool writes_only)
{
    const uint32_t P = r->period;
    uint32_t p = (uint32_t)(t0 % P);
    uint64_t j = t0 / P;
    /* per access of the period, the page it was in last time */
    uint64_t pno_of[DG_RUN_PERIOD_MAX][DG_RUN_MAX_ADDRS];
    struct shadow_page *page_of[DG_RUN_PERIOD_MAX][DG_RUN_MAX_ADDRS];
    if (writes_only) {
        /* most runs write nothing (a gather, a reduction into a register) */
        bool any = false;
        for (uint32_t q = 0; q < P; q++)
            for (uint32_t k = 0; k < r->ph[q].ev.nranges; k++)
                any |= r->ph[q].ev.ranges[k].write && r->ph[q].ev.ranges[k].len;
        if (!any)
            return 0;
    }
    if (r->rows)
        return update_rows(s, r, t0, t1, writes_only);
    if (r->irregular)
        return update_run_events(s, r, t0, t1, writes_only);
    memset(pno_of, 0xff, sizeof pno_of);
    pending_flush(s);
    /* In event order, as dg_shadow_update would store them; whole granules
     * (a granular run) are stored right here, a page lookup only when an
     * access leaves the page it was in. */
    for (uint64_t t = t0; t < t1; t++) {
        const struct dg_run_phase *ph = &r->ph[p];
        uint64_t v = r->first + t + 1;
        for (uint32_t k = 0; k < ph->ev.nranges; k++) {
            struct dg_range x = ph->ev.ranges[k];
            if (!x.len || (writes_only && !x.write))
                continue;
            x.addr += j * (uint64_t)ph->stride[k];
            unsigned off = (unsigned)(x.addr & (PAGE_SIZE - 1));
            if (!r->granular || off + x.len > PAGE_SIZE) {
                int rc = dg_shadow_update(s, &x, r->first + t);
                if (rc < 0)
                    return rc;
                continue;
            }
            uint64_t pno = x.addr >> PAGE_SHIFT;
            struct shadow_page *pg = page_of[p][k];
            if (pno != pno_of[p][k]) {
                int rc;
                if (!(pg = page_make(s, pno, &rc)))
                    return rc;
                pno_of[p][k] = pno;
                page_of[p][k] = pg;
            }
            int kind = x.write ? 0 : 1;
            unsigned g = off / GRAN, g1 = g + (unsigned)(x.len / GRAN);
            uint64_t *dst = pg->v[kind];
            for (unsigned q = g; q < g1; q++)
                dst[q] = v;
            if (pg->any_split[kind])
                for (unsigned q = g; q < g1; q++)
                    pg->split[kind][q / 64] &= ~(1ull << (q % 64));
        }
        if (++p == P)
            p = 0, j++;
    }
    return 0;
}

/* The last conflicting value in bytes [lo, hi) of one page. */
static uint64_t page_conflict(const struct shadow_page *p, unsigned lo, unsigned hi, bool write)
{
    uint64_t best = page_max(p, 0, lo, hi);
    if (write) {
        uint64_t rd = page_max(p, 1, lo, hi);
        if (rd > best)
            best = rd;
    }
    return best;
}

uint64_t dg_shadow_last_conflict(const struct dg_shadow *s, const struct dg_range *r)
{
    uint64_t a = r->addr, end = r->addr + r->len, best = 0;
    if (!r->len || end < a)
        return 0;
    pending_flush(s);
    for (size_t i = 0; i < s->nbig; i++)
        if ((s->big[i].k == 0 || r->write) && s->big[i].lo < end && a < s->big[i].hi &&
            s->big[i].v > best)
            best = s->big[i].v;
    uint64_t p0 = a >> PAGE_SHIFT, p1 = (end - 1) >> PAGE_SHIFT;
    if (p1 - p0 >= s->pages.cap) {
        /* more pages than the map has slots: scan the map instead */
        for (size_t i = 0; i < s->pages.cap; i++) {
            if (!dg_map_used(&s->pages, i) || s->pages.keys[i] < p0 || s->pages.keys[i] > p1)
                continue;
            uint64_t pa = s->pages.keys[i] << PAGE_SHIFT;
            unsigned lo = a > pa ? (unsigned)(a - pa) : 0;
            unsigned hi = end - pa < PAGE_SIZE ? (unsigned)(end - pa) : PAGE_SIZE;
            uint64_t w = page_conflict((const struct shadow_page *)(uintptr_t)s->pages.vals[i],
                                       lo, hi, r->write);
            if (w > best)
                best = w;
        }
        return best;
    }
    while (a < end) {
        uint64_t pno = a >> PAGE_SHIFT;
        uint64_t pend = (pno + 1) << PAGE_SHIFT;
        uint64_t stop = end < pend || pend == 0 ? end : pend;
        const struct shadow_page *p = page_get(s, pno);
        if (p) {
            unsigned lo = (unsigned)(a & (PAGE_SIZE - 1)), hi = lo + (unsigned)(stop - a);
            uint64_t w = page_conflict(p, lo, hi, r->write);
            if (w > best)
                best = w;
        }
        a = stop;
    }
    return best;
}

size_t dg_shadow_footprint(const struct dg_shadow *s)
{
    return s->npages * sizeof(struct shadow_page) + s->nbytetables * sizeof(struct byte_table) +
           s->pages.cap * 16 + s->cbig * sizeof *s->big + sizeof *s;
}
