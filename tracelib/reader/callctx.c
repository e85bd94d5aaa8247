/* callctx.c - calling contexts of MPI calls: the site an MPI event gets
 * under TRACE_CURSOR_CONTEXTS, from its return address and its CHT_REC_PATH
 * (docs/trace-format.md, "Call paths").
 *
 * A context is the list of source frames from the call up: the call's own
 * line (its pass site's), the calls it was inlined into (from the DWARF of
 * its return address), then for each recorded frame above it the call
 * there and what that was inlined into.  A recorded frame is read from the
 * frame record of the function before it, which is right only if that
 * function keeps a frame pointer: every function the pass built does, so
 * the walk goes on only while the function a frame lies in has sites in
 * the rank's tables that say so (CHT_SITEF_FRAME_PTR: built by a pass that
 * keeps frame pointers), and ends after `main`.
 *
 * Each rank keeps a cache from what was recorded (site, return address,
 * path) to its context, and its contexts by id; equal frames give the same
 * context however they were reached.  Ids are given in the order contexts
 * first appear in the rank's stream, so every process that reads the rank
 * gives the same ids (search/parallel resolves them again that way).
 */
#include <stdlib.h>
#include <string.h>

#include "reader-private.h"

#define CTX_MAX_FRAMES 32

struct rd_ctx {
    struct trace_site_info info;
    struct trace_callctx cc;
    uint64_t hash;
    struct trace_srcframe frames[];
};

/* What was recorded for one call: the key of the cache. */
struct ctx_raw {
    uint64_t hash;
    uint32_t site, n;
    uint64_t ret;
    uint64_t *path;          /* n addresses */
    uint32_t id;             /* context site id, 0: the call has none */
};

struct rd_ctxtab {
    struct ctx_raw *raw;     /* open addressing, hash 0 = empty */
    size_t nraw, usedraw;
    struct rd_ctx **ctx;     /* by id - TRACE_CTX_SITE_BASE */
    size_t nctx, capctx;
    const char **own;        /* functions with sites in the rank's tables, sorted */
    size_t nown, own_gen;    /* own_gen: TUs with a table they were collected from + 1 */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        h = (h ^ (v & 0xff)) * CHT_FNV64_PRIME;
    return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
    while (s && *s)
        h = (h ^ (unsigned char)*s++) * CHT_FNV64_PRIME;
    return (h ^ 0xff) * CHT_FNV64_PRIME;
}

void rd_ctx_free(struct rd_ctxtab *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->nraw; i++)
        free(x->raw[i].path);
    free(x->raw);
    for (size_t i = 0; i < x->nctx; i++)
        free(x->ctx[i]);
    free(x->ctx);
    free(x->own);
    free(x);
}

const struct trace_site_info *rd_ctx_site(const struct rd_rank *r, uint32_t id)
{
    if (!r->ctx || id < TRACE_CTX_SITE_BASE || id - TRACE_CTX_SITE_BASE >= r->ctx->nctx)
        return NULL;
    return &r->ctx->ctx[id - TRACE_CTX_SITE_BASE]->info;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The functions of the rank's own code: those with a site in its tables. */
static int own_collect(struct rd_rank *r, struct rd_ctxtab *x)
{
    size_t n = 0, tables = 0;

    /* tables attach as they become known: collect again when one did */
    for (size_t i = 0; i < r->ntus; i++)
        if (r->tus[i].table) {
            n += r->tus[i].nsites;
            tables++;
        }
    if (x->own_gen == tables + 1)
        return 0;
    const char **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return TRACE_ERR_NOMEM;
    n = 0;
    for (size_t i = 0; i < r->ntus; i++) {
        const struct rd_table *tab = r->tus[i].table;
        if (!tab)
            continue;
        /* the functions built to keep a frame pointer: sites of their own
         * code (an inlined site names the function it came from) */
        for (uint32_t k = 0; k < r->tus[i].nsites; k++)
            if ((tab->sites[k].flags & CHT_SITEF_FRAME_PTR) && !(tab->sites[k].flags & CHT_SITEF_INLINED))
                v[n++] = tab->strings + tab->sites[k].func;
    }
    qsort(v, n, sizeof *v, str_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || strcmp(v[m - 1], v[i]))
            v[m++] = v[i];
    free(x->own);
    x->own = v;
    x->nown = m;
    x->own_gen = tables + 1;
    return 0;
}

static bool own_func(const struct rd_ctxtab *x, const char *f)
{
    return f && *f && bsearch(&f, x->own, x->nown, sizeof *x->own, str_cmp);
}

static bool frame_eq(const struct trace_srcframe *a, const struct trace_srcframe *b)
{
    return a->line == b->line && a->col == b->col && !strcmp(a->file ? a->file : "", b->file ? b->file : "") &&
           !strcmp(a->func ? a->func : "", b->func ? b->func : "");
}

/* The frames of one call into f (room for CTX_MAX_FRAMES); returns their
 * number, 1 if only the call's own line is known. */
static uint32_t ctx_frames(struct trace_cursor *c, const struct rd_ctxtab *x,
                           const struct trace_site_info *si, unsigned depth, uint64_t ret,
                           const uint64_t *path, uint32_t n, struct trace_srcframe *f)
{
    struct trace_srcloc loc;
    struct trace_err err;
    uint32_t nf = 0, max = depth + 1 < CTX_MAX_FRAMES ? depth + 1 : CTX_MAX_FRAMES;
    int rc;

    f[nf++] = (struct trace_srcframe){si->file, si->func, si->line, si->col};
    if (max < 2)
        return nf;
    rc = trace_cursor_symbolize(c, ret, &loc, &err);
    if ((rc != 1 && rc != TRACE_ERR_MISMATCH) || !loc.nframes)
        return nf;
    /* frame 0 is the call's own line: the pass's location stands for it,
     * in the function the DWARF names (the inlined one, where the pass
     * saw the function it was inlined into) */
    if (loc.frames[0].func && *loc.frames[0].func)
        f[0].func = loc.frames[0].func;
    for (unsigned k = 1; k < loc.nframes && nf < max; k++)
        f[nf++] = loc.frames[k];
    for (uint32_t p = 0; p < n && nf < max; p++) {
        const char *fn = loc.frames[loc.nframes - 1].func;
        /* the frame above was read from this function's frame record */
        if (!own_func(x, fn) || !strcmp(fn, "main"))
            break;
        rc = trace_cursor_symbolize(c, path[p], &loc, &err);
        if ((rc != 1 && rc != TRACE_ERR_MISMATCH) || !loc.nframes)
            break;
        for (unsigned k = 0; k < loc.nframes && nf < max; k++)
            f[nf++] = loc.frames[k];
    }
    return nf;
}

/* The context with frames f[0..nf) of pass site si, made if new; its id. */
static int ctx_intern(struct rd_ctxtab *x, const struct trace_site_info *si, uint32_t site,
                      const struct trace_srcframe *f, uint32_t nf, uint32_t *id)
{
    uint64_t h = mix(CHT_FNV64_OFFSET, site);
    for (uint32_t k = 0; k < nf; k++)
        h = mix(mix(mix_str(mix_str(h, f[k].file), f[k].func), f[k].line), f[k].col);
    for (size_t i = 0; i < x->nctx; i++) {
        const struct rd_ctx *o = x->ctx[i];
        if (o->hash != h || o->cc.site != site || o->cc.nframes != nf)
            continue;
        uint32_t k = 0;
        while (k < nf && frame_eq(&o->frames[k], &f[k]))
            k++;
        if (k == nf) {
            *id = TRACE_CTX_SITE_BASE + (uint32_t)i;
            return 0;
        }
    }
    if (x->nctx >= UINT32_MAX - TRACE_CTX_SITE_BASE)
        return TRACE_ERR_NOMEM;
    if (x->nctx == x->capctx) {
        size_t cap = x->capctx ? 2 * x->capctx : 16;
        struct rd_ctx **p = realloc(x->ctx, cap * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        x->ctx = p;
        x->capctx = cap;
    }
    struct rd_ctx *o = calloc(1, sizeof *o + nf * sizeof *f);
    if (!o)
        return TRACE_ERR_NOMEM;
    memcpy(o->frames, f, nf * sizeof *f);
    o->hash = h;
    o->cc = (struct trace_callctx){site, nf, o->frames, 0};
    o->info = *si;
    o->info.id = TRACE_CTX_SITE_BASE + (uint32_t)x->nctx;
    o->info.ctx = &o->cc;
    x->ctx[x->nctx++] = o;
    *id = o->info.id;
    return 0;
}

static int raw_grow(struct rd_ctxtab *x)
{
    size_t n = x->nraw ? 2 * x->nraw : 64;
    struct ctx_raw *v = calloc(n, sizeof *v);
    if (!v)
        return TRACE_ERR_NOMEM;
    for (size_t i = 0; i < x->nraw; i++) {
        if (!x->raw[i].hash)
            continue;
        size_t j = x->raw[i].hash & (n - 1);
        while (v[j].hash)
            j = (j + 1) & (n - 1);
        v[j] = x->raw[i];
    }
    free(x->raw);
    x->raw = v;
    x->nraw = n;
    return 0;
}

const struct trace_site_info *rd_ctx_of(struct trace_cursor *c, struct rd_rank *r, unsigned depth,
                                        uint32_t site, uint64_t ret_addr, const uint64_t *path,
                                        uint32_t n, int *rc)
{
    const struct trace_site_info *si = rd_rank_site(r, site);
    struct rd_ctxtab *x = r->ctx;

    *rc = 0;
    if (!si || !ret_addr || !depth || site >= TRACE_CTX_SITE_BASE)
        return NULL;
    if (!x && !(x = r->ctx = calloc(1, sizeof *x))) {
        *rc = TRACE_ERR_NOMEM;
        return NULL;
    }
    uint64_t h = mix(mix(mix(CHT_FNV64_OFFSET, site), ret_addr), n);
    for (uint32_t k = 0; k < n; k++)
        h = mix(h, path[k]);
    if (!h)
        h = 1;
    if (x->nraw) {
        for (size_t j = h & (x->nraw - 1); x->raw[j].hash; j = (j + 1) & (x->nraw - 1)) {
            const struct ctx_raw *e = &x->raw[j];
            if (e->hash == h && e->site == site && e->ret == ret_addr && e->n == n &&
                (!n || !memcmp(e->path, path, n * sizeof *path)))
                return e->id ? rd_ctx_site(r, e->id) : NULL;
        }
    }
    /* a new path: its frames */
    struct trace_srcframe f[CTX_MAX_FRAMES];
    uint32_t nf, id = 0;
    if ((*rc = own_collect(r, x)) < 0)
        return NULL;
    nf = ctx_frames(c, x, si, depth, ret_addr, path, n, f);
    if (nf > 1 && (*rc = ctx_intern(x, si, site, f, nf, &id)) < 0)
        return NULL;
    if (2 * (x->usedraw + 1) > x->nraw && (*rc = raw_grow(x)) < 0)
        return NULL;
    struct ctx_raw e = {h, site, n, ret_addr, NULL, id};
    if (n && !(e.path = malloc(n * sizeof *path))) {
        *rc = TRACE_ERR_NOMEM;
        return NULL;
    }
    if (n)
        memcpy(e.path, path, n * sizeof *path);
    size_t j = h & (x->nraw - 1);
    while (x->raw[j].hash)
        j = (j + 1) & (x->nraw - 1);
    x->raw[j] = e;
    x->usedraw++;
    return id ? rd_ctx_site(r, id) : NULL;
}
