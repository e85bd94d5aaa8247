/* deps.c - the dependence section of site tables (version 2): checking it,
 * and resolving a site's register and control dependences into the sites
 * of its rank they name (docs/dependence.md, "Register and control
 * dependences").
 *
 * A site row names sites of its own table and symbols: a parameter of a
 * function, the value a function returns, the conditions under which a
 * function is called.  Symbols are resolved by name over every table the
 * rank has loaded (a caller and its callee may be in different translation
 * units), transitively, so the result is the closed set of sites whose
 * most recent execution the site depends on.  It is computed on the first
 * request for a site and kept; a rank that loads more code later (dlopen)
 * resolves again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader-private.h"

#define WHY(...) do { snprintf(why, whylen, __VA_ARGS__); return TRACE_ERR_FORMAT; } while (0)

int rd_validate_deps(const uint8_t *b, const struct cht_tu_header *h, char *why, size_t whylen)
{
    if (h->version < 2 || h->deps_off == 0)
        return 0;
    if (h->deps_off % 8 || h->deps_off < h->header_size ||
        (uint64_t)h->deps_off + sizeof(struct cht_tu_deps) > h->total_size)
        WHY("deps_off=%u is misaligned or overflows total_size=%u", h->deps_off, h->total_size);
    const struct cht_tu_deps *d = (const void *)(b + h->deps_off);
    if (d->nrows < h->nsites)
        WHY("deps nrows=%u is less than nsites=%u", d->nrows, h->nsites);
    if (d->rows_off % 4 || d->rows_off < h->header_size ||
        (uint64_t)d->rows_off + (uint64_t)d->nrows * sizeof(struct cht_dep_row) > h->total_size)
        WHY("deps rows_off=%u with nrows=%u overflows total_size=%u", d->rows_off, d->nrows,
            h->total_size);
    if (d->entries_off % 4 || d->entries_off < h->header_size ||
        (uint64_t)d->entries_off + (uint64_t)d->nentries * sizeof(struct cht_dep) > h->total_size)
        WHY("deps entries_off=%u with nentries=%u overflows total_size=%u", d->entries_off,
            d->nentries, h->total_size);
    const struct cht_dep_row *rows = (const void *)(b + d->rows_off);
    const struct cht_dep *ent = (const void *)(b + d->entries_off);
    for (uint32_t i = 0; i < d->nrows; i++) {
        const struct cht_dep_row *r = &rows[i];
        if ((uint64_t)r->first + r->n > d->nentries)
            WHY("deps rows[%u].first=%u + n=%u exceeds nentries=%u", i, r->first, r->n,
                d->nentries);
        if (i < h->nsites ? r->arg != CHT_DEP_ARG_SITE
                          : r->arg < CHT_DEP_ARG_ENTRY || r->func == 0 ||
                                r->func >= h->strings_size)
            WHY("deps rows[%u] has func=%u arg=%d, not a %s row", i, r->func, r->arg,
                i < h->nsites ? "site" : "symbol");
    }
    for (uint32_t i = 0; i < d->nentries; i++) {
        const struct cht_dep *e = &ent[i];
        bool sym = e->kind == CHT_DEP_SYM_VALUE || e->kind == CHT_DEP_SYM_CONTROL;
        if (e->kind < CHT_DEP_VALUE || e->kind > CHT_DEP_SYM_CONTROL)
            WHY("deps entries[%u].kind=%u is unknown", i, e->kind);
        if (sym ? e->target == 0 || e->target >= h->strings_size || e->arg < CHT_DEP_ARG_ENTRY
                : e->target >= h->nsites)
            WHY("deps entries[%u] has kind=%u target=%u arg=%d out of range", i, e->kind,
                e->target, e->arg);
    }
    return 0;
}

/* ---- resolving ---------------------------------------------------------------- */

static int sym_cmp(const char *fa, int32_t aa, const char *fb, int32_t ab)
{
    int c = strcmp(fa, fb);
    return c ? c : (aa > ab) - (aa < ab);
}

static int sym_sort(const void *a, const void *b)
{
    const struct rd_sym *x = a, *y = b;
    int c = sym_cmp(x->func, x->arg, y->func, y->arg);
    return c ? c : x->tu != y->tu ? (x->tu > y->tu) - (x->tu < y->tu) : (x->row > y->row) - (x->row < y->row);
}

/* The symbol rows of every TU of the rank, sorted. */
static int build_syms(struct rd_rank *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->ntus; i++) {
        const struct rd_table *t = r->tus[i].table;
        if (t && t->deps)
            n += t->deps->nrows - t->hdr->nsites;
    }
    struct rd_sym *s = malloc((n ? n : 1) * sizeof *s);
    if (!s)
        return TRACE_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < r->ntus; i++) {
        const struct rd_table *t = r->tus[i].table;
        if (!t || !t->deps)
            continue;
        for (uint32_t row = t->hdr->nsites; row < t->deps->nrows; row++)
            s[k++] = (struct rd_sym){t->strings + t->rows[row].func, t->rows[row].arg,
                                     (uint32_t)i, row};
    }
    qsort(s, n, sizeof *s, sym_sort);
    free(r->syms);
    r->syms = s;
    r->nsyms = n;
    r->syms_gen = r->ntus + 1;
    return 0;
}

/* A growable array of uint64 with a membership test by sorting on demand
 * is too slow for deep closures; a small open-addressing set. */
struct u64set {
    uint64_t *slot; /* key + 1, 0 = empty */
    size_t cap, n;
};

static int set_add(struct u64set *s, uint64_t key)
{
    if (2 * (s->n + 1) > s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 64;
        uint64_t *p = calloc(nc, sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        for (size_t i = 0; i < s->cap; i++)
            if (s->slot[i])
                for (size_t j = (s->slot[i] * 0x9e3779b97f4a7c15ull) & (nc - 1);; j = (j + 1) & (nc - 1))
                    if (!p[j]) {
                        p[j] = s->slot[i];
                        break;
                    }
        free(s->slot);
        s->slot = p;
        s->cap = nc;
    }
    for (size_t j = ((key + 1) * 0x9e3779b97f4a7c15ull) & (s->cap - 1);; j = (j + 1) & (s->cap - 1)) {
        if (s->slot[j] == key + 1)
            return 0;
        if (!s->slot[j]) {
            s->slot[j] = key + 1;
            s->n++;
            return 1;
        }
    }
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Closure from row `row` of TU `tu`: global ids into *out (malloc'd). */
static int resolve(struct rd_rank *r, uint32_t tu, uint32_t row, uint32_t self, uint32_t **out,
                   uint32_t *nout)
{
    struct u64set seen = {0};
    uint64_t *work = NULL;
    size_t nwork = 0, capwork = 0;
    uint32_t *ids = NULL;
    size_t nids = 0, capids = 0;
    int rc = TRACE_ERR_NOMEM;

#define PUSH(arr, n, cap, v)                                              \
    do {                                                                  \
        if (n == cap) {                                                   \
            size_t nc_ = cap ? 2 * cap : 16;                              \
            void *p_ = realloc(arr, nc_ * sizeof *arr);                   \
            if (!p_)                                                      \
                goto out;                                                 \
            arr = p_;                                                     \
            cap = nc_;                                                    \
        }                                                                 \
        arr[n++] = v;                                                     \
    } while (0)

    if (set_add(&seen, (uint64_t)tu << 32 | row) < 0)
        goto out;
    PUSH(work, nwork, capwork, (uint64_t)tu << 32 | row);
    while (nwork) {
        uint64_t item = work[--nwork];
        const struct rd_tu *u = &r->tus[item >> 32];
        const struct rd_table *t = u->table;
        const struct cht_dep_row *rw = &t->rows[(uint32_t)item];
        for (uint32_t k = 0; k < rw->n; k++) {
            const struct cht_dep *e = &t->entries[rw->first + k];
            if (e->kind == CHT_DEP_VALUE || e->kind == CHT_DEP_CONTROL) {
                uint32_t g = u->site_base + e->target;
                int a = set_add(&seen, (uint64_t)1 << 63 | g);
                if (a < 0)
                    goto out;
                if (a && g != self)
                    PUSH(ids, nids, capids, g);
                continue;
            }
            /* a symbol: every row of that name and arg in the rank */
            const char *f = t->strings + e->target;
            size_t lo = 0, hi = r->nsyms;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (sym_cmp(r->syms[mid].func, r->syms[mid].arg, f, e->arg) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; lo < r->nsyms && !sym_cmp(r->syms[lo].func, r->syms[lo].arg, f, e->arg); lo++) {
                uint64_t key = (uint64_t)r->syms[lo].tu << 32 | r->syms[lo].row;
                int a = set_add(&seen, key);
                if (a < 0)
                    goto out;
                if (a)
                    PUSH(work, nwork, capwork, key);
            }
        }
    }
#undef PUSH
    if (nids)
        qsort(ids, nids, sizeof *ids, u32_cmp);
    *out = ids;
    *nout = (uint32_t)nids;
    ids = NULL;
    rc = 0;
out:
    free(ids);
    free(work);
    free(seen.slot);
    return rc;
}

int rd_rank_producers(struct rd_rank *r, uint32_t id, const uint32_t **ids, uint32_t *n)
{
    *ids = NULL;
    *n = 0;
    if (!r || id == CHT_NONE)
        return 0;
    for (size_t i = 0; i < r->ntus; i++) {
        struct rd_tu *u = &r->tus[i];
        if (id < u->site_base || id - u->site_base >= u->nsites)
            continue;
        if (!u->table || !u->table->deps)
            return 0;
        uint32_t local = id - u->site_base;
        if (!u->prod) {
            u->prod = calloc(u->nsites, sizeof *u->prod);
            u->nprod = calloc(u->nsites, sizeof *u->nprod);
            u->prod_gen = calloc(u->nsites, sizeof *u->prod_gen);
            if (!u->prod || !u->nprod || !u->prod_gen)
                return TRACE_ERR_NOMEM;
        }
        if (u->prod_gen[local] != r->ntus + 1) {
            if (r->syms_gen != r->ntus + 1 && build_syms(r) < 0)
                return TRACE_ERR_NOMEM;
            free(u->prod[local]);
            u->prod[local] = NULL;
            int rc = resolve(r, (uint32_t)i, local, id, &u->prod[local], &u->nprod[local]);
            if (rc < 0)
                return rc;
            u->prod_gen[local] = r->ntus + 1;
        }
        *ids = u->prod[local];
        *n = u->nprod[local];
        return 1;
    }
    return 0;
}

void rd_rank_free(struct rd_rank *r)
{
    for (size_t j = 0; j < r->ntus; j++) {
        struct rd_tu *u = &r->tus[j];
        free(u->sites);
        free(u->loops);
        if (u->prod)
            for (uint32_t k = 0; k < u->nsites; k++)
                free(u->prod[k]);
        free(u->prod);
        free(u->nprod);
        free(u->prod_gen);
    }
    free(r->tus);
    free(r->syms);
    free(r->path);
    rd_ctx_free(r->ctx);
    free(r);
}
