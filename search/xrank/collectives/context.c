/* context.c - the context of the search for hand-written collectives
 * (struct cx: the ranks' logs, their matches, the records claimed so far),
 * the call sites as merge keys across ranks, slices of a buffer, and the
 * instances a pattern builds before it emits them (emit.c).
 */
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

static uint8_t **claims_new(const struct cx *c);
static void claims_free(uint8_t **cl, int P);

int coll_cx_init(struct cx *c, const struct search_xrank *x)
{
    memset(c, 0, sizeof *c);
    c->x = x;
    c->P = x->world_size;
    c->logs = x->logs;
    c->m = x->match;
    if (x->csparse && x->csparse->has_fastest) /* reduced over the processes */
        memcpy(c->fastest, x->csparse->fastest, sizeof c->fastest);
    else
        coll_fastest_of(c->logs, c->P, c->fastest);
    c->claimed = claims_new(c);
    c->stamp = calloc((size_t)c->P, sizeof *c->stamp);
    return c->claimed && c->stamp ? 0 : TRACE_ERR_NOMEM;
}

/* Fresh claims of the records of c->logs. */
static uint8_t **claims_new(const struct cx *c)
{
    uint8_t **cl = calloc((size_t)c->P, sizeof *cl);
    for (int r = 0; cl && r < c->P; r++)
        if (c->logs[r] && !(cl[r] = calloc(c->logs[r]->n ? c->logs[r]->n : 1, 1))) {
            while (r-- > 0)
                free(cl[r]);
            free(cl);
            return NULL;
        }
    return cl;
}

static void claims_free(uint8_t **cl, int P)
{
    for (int r = 0; cl && r < P; r++)
        free(cl[r]);
    free(cl);
}

int coll_cx_sparse(struct cx *c, const struct coll_sparse *sp)
{
    c->logs = sp->logs;
    c->m = sp->m;
    c->orig = sp->orig;
    c->gap = sp->gap;
    uint8_t **cl = claims_new(c);
    if (!cl)
        return TRACE_ERR_NOMEM;
    claims_free(c->claimed, c->P);
    c->claimed = cl;
    return 0;
}

void coll_cx_free(struct cx *c)
{
    for (uint32_t i = 0; i < c->nh; i++)
        coll_hacc_free(&c->h[i]);
    free(c->h);
    for (uint32_t i = 0; i < c->nrej; i++)
        free(c->rej[i].ranks);
    free(c->rej);
    dg_map_free(&c->rej_seen);
    for (uint32_t i = 0; i < c->nreprej; i++)
        free(c->reprej[i].ranks);
    free(c->reprej);
    free(c->in.v);
    claims_free(c->claimed, c->P);
    free(c->stamp);
    memset(c, 0, sizeof *c);
}

/* ---- small helpers -------------------------------------------------------------------- */


int coll_grow(void *pp, uint32_t *cap, uint64_t need, size_t sz)
{
    void **p = pp;
    if (need <= *cap)
        return 0;
    uint64_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    if (nc > UINT32_MAX)
        return TRACE_ERR_NOMEM;
    void *q = realloc(*p, (size_t)nc * sz);
    if (!q)
        return TRACE_ERR_NOMEM;
    *p = q;
    *cap = (uint32_t)nc;
    return 0;
}

int coll_i32_cmp(const void *pa, const void *pb)
{
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    return a < b ? -1 : a > b;
}

uint16_t coll_rec_call(const struct dg_msgrec *r)
{
    if (r->kind == DG_MSG_RECV && (r->flags & DG_MSGF_NONBLOCKING))
        return CHT_MPI_IRECV;
    return r->call;
}

int coll_next_stamp(struct cx *c)
{
    if (c->stamp_now == INT32_MAX) {
        memset(c->stamp, 0, (size_t)c->P * sizeof *c->stamp);
        c->stamp_now = 0;
    }
    return ++c->stamp_now;
}

/* ---- source locations ------------------------------------------------------------------ */

int coll_loc_cmp(const struct loc *a, const struct loc *b)
{
    int c = strcmp(a->file, b->file);
    if (c || (c = coll_cmp_u64(a->line, b->line)) || (c = coll_cmp_u64(a->col, b->col)) ||
        (c = coll_cmp_u64(a->site, b->site)) || (c = search_ctx_cmp(a->ctx, b->ctx)))
        return c;
    return strcmp(a->func, b->func);
}

void coll_loc_of(const struct cx *c, int rank, uint32_t site, struct loc *l)
{
    const struct search_rank_result *r = c->x->by_rank ? c->x->by_rank[rank] : NULL;
    const struct trace_site_info *i = r && site != CHT_NONE ? search_site_info(r, site) : NULL;
    if (i && (i->line || (i->file && *i->file))) {
        struct search_loc s;
        search_loc_at_call(i, site, &s);
        l->file = s.file;
        l->func = s.func;
        l->line = s.line;
        l->col = s.col;
        l->site = CHT_NONE;
        l->ctx = s.ctx;
    } else {
        l->file = l->func = "";
        l->line = l->col = 0;
        l->site = site;
        l->ctx = NULL;
    }
}

/* ---- slices ------------------------------------------------------------------------------ */

static int slice_cmp(const void *pa, const void *pb)
{
    const struct slice *a = pa, *b = pb;
    int c = coll_cmp_u64(a->addr, b->addr);
    return c ? c : coll_cmp_u64(a->len, b->len);
}

/* Whether the slices are disjoint pieces of one span: none empty, none
 * overlapping, and no gap between neighbours wider than the widest slice
 * (room for one block that does not travel, e.g. the root's own).  Sorts v. */
bool coll_slices_disjoint(struct slice *v, uint32_t n)
{
    if (!n)
        return false;
    qsort(v, n, sizeof *v, slice_cmp);
    uint64_t widest = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!v[i].len)
            return false;
        if (v[i].len > widest)
            widest = v[i].len;
    }
    for (uint32_t i = 1; i < n; i++) {
        uint64_t end = v[i - 1].addr + v[i - 1].len;
        if (v[i].addr < end || v[i].addr - end > widest)
            return false;
    }
    return true;
}

/* Whether equal-sized slices sit where MPI puts rank i's block: at base +
 * i * size, i being the member's rank in the communicator, taken as its
 * position among the members' world ranks (exact for MPI_COMM_WORLD and
 * for communicators that keep the world order).  members: all ranks of the
 * communicator, sorted. */
bool coll_slices_regular(const struct slice *v, uint32_t n, const int32_t *members, uint32_t nmem)
{
    if (!n)
        return false;
    uint64_t len = v[0].len;
    int64_t base = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i].len != len)
            return false;
        const int32_t *at = bsearch(&v[i].member, members, nmem, sizeof *members, coll_i32_cmp);
        if (!at)
            return false;
        int64_t b = (int64_t)v[i].addr - (int64_t)(at - members) * (int64_t)len;
        if (i && b != base)
            return false;
        base = b;
    }
    return true;
}

/* ---- instances ----------------------------------------------------------------------------- */

void coll_inst_reset(struct inst *in, const struct coll_pattern *pat, int root, uint32_t p)
{
    struct part *v = in->v;
    uint32_t cap = in->cap;
    memset(in, 0, sizeof *in);
    in->v = v;
    in->cap = cap;
    in->pat = pat;
    in->root = root;
    in->p = p;
}

int coll_inst_add(struct inst *in, int rank, uint32_t pos, bool root)
{
    if (coll_grow(&in->v, &in->cap, (uint64_t)in->n + 1, sizeof *in->v) < 0)
        return TRACE_ERR_NOMEM;
    in->v[in->n++] = (struct part){rank, pos, root};
    return 0;
}

int coll_part_cmp(const void *pa, const void *pb)
{
    const struct part *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return coll_cmp_u64(a->pos, b->pos);
}

bool coll_inst_unclaimed(const struct cx *c, const struct inst *in)
{
    for (uint32_t i = 0; i < in->n; i++)
        if (c->claimed[in->v[i].rank][in->v[i].pos])
            return false;
    return true;
}

/* A call site of one part, with the part's rank, while they are merged. */
struct rloc {
    struct iloc l;
    int32_t rank;
};

static int rloc_cmp(const void *pa, const void *pb)
{
    const struct rloc *a = pa, *b = pb;
    int c = coll_loc_cmp(&a->l.loc, &b->l.loc);
    return c ? c : coll_i32_cmp(&a->rank, &b->rank);
}

/* The instance's call sites, merged by location (sorted, masks or-ed,
 * events counted once per MPI event, the most events of one rank). */
int coll_inst_locs(const struct cx *c, const struct inst *in, struct iloc **out, uint32_t *nout)
{
    struct rloc *v = malloc((in->n ? in->n : 1) * sizeof *v);
    struct iloc *o = malloc((in->n ? in->n : 1) * sizeof *o);
    if (!v || !o) {
        free(v);
        free(o);
        return TRACE_ERR_NOMEM;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < in->n; i++) {
        const struct part *pt = &in->v[i];
        const struct dg_msgrec *r = coll_rec(c, pt->rank, pt->pos);
        /* the second record of one event (Sendrecv's receive half, or a
         * receive completed by the same Wait) is not another execution */
        bool again = i && in->v[i - 1].rank == pt->rank &&
                     coll_rec(c, pt->rank, in->v[i - 1].pos)->index == r->index &&
                     coll_rec(c, pt->rank, in->v[i - 1].pos)->site == r->site;
        struct rloc *rl = &v[n++];
        struct iloc *l = &rl->l;
        rl->rank = pt->rank;
        coll_loc_of(c, pt->rank, r->site, &l->loc);
        l->call = coll_rec_call(r);
        l->mask = (uint8_t)(r->kind == DG_MSG_SEND ? LM_SEND : r->kind == DG_MSG_RECV ? LM_RECV : LM_COLL);
        if (pt->root)
            l->mask |= LM_ROOT;
        l->events = again ? 0 : 1;
        const struct search_rank_result *res = c->x->by_rank ? c->x->by_rank[pt->rank] : NULL;
        const struct trace_site_info *si = res && r->site != CHT_NONE ? search_site_info(res, r->site) : NULL;
        l->loop = si ? si->loop_info : NULL;
        l->per_rank = 0;
        l->nonroot = !pt->root;
    }
    qsort(v, n, sizeof *v, rloc_cmp);
    uint32_t k = 0, run = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct iloc *l = &v[i].l;
        bool same_loc = k && !coll_loc_cmp(&o[k - 1].loc, &l->loc);
        run = same_loc && v[i - 1].rank == v[i].rank ? run + l->events : l->events;
        if (same_loc) {
            o[k - 1].mask |= l->mask;
            o[k - 1].events += l->events;
            if (l->call == CHT_MPI_SENDRECV || l->call == CHT_MPI_SENDRECV_REPLACE)
                o[k - 1].call = l->call;
            if (!o[k - 1].loop)
                o[k - 1].loop = l->loop;
            o[k - 1].nonroot |= l->nonroot;
        } else {
            o[k++] = *l;
        }
        if (run > o[k - 1].per_rank)
            o[k - 1].per_rank = run;
    }
    free(v);
    *out = o;
    *nout = k;
    return 0;
}

int coll_dropped_add(const struct cx *c, struct search_hint **out, uint32_t *nout, const struct loc *at,
                     uint16_t call, const char *collective, int root, uint64_t instances,
                     const uint8_t *ranks, char *message, char *explain)
{
    struct search_hint *v = message && explain ? realloc(*out, ((size_t)*nout + 1) * sizeof *v) : NULL;
    if (!v) {
        free(message);
        free(explain);
        return TRACE_ERR_NOMEM;
    }
    *out = v;
    struct search_hint *sh = &v[(*nout)++];
    memset(sh, 0, sizeof *sh);
    sh->kind = SEARCH_HINT_COLLECTIVE;
    sh->call = call;
    sh->file = at->file;
    sh->func = at->func;
    sh->line = at->line;
    sh->col = at->col;
    sh->ctx = at->ctx;
    sh->collective = collective;
    sh->root = root;
    sh->instances = instances;
    sh->message = message;
    sh->explain = explain;
    int nr = coll_set_count(ranks, c->P);
    if (!(sh->ranks = malloc((nr ? (size_t)nr : 1) * sizeof *sh->ranks)))
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < c->P; r++)
        if (ranks[r])
            sh->ranks[sh->nranks++] = r;
    return 0;
}
