/* collectives.c - hand-written point-to-point patterns that one MPI
 * collective would do better (docs/collectives.md): a root that sends the
 * same bytes to every rank, directly or forwarded along a ring or a tree
 * (MPI_Bcast), distinct slices of one buffer to every rank (MPI_Scatter(v)),
 * every rank's block received into distinct slices (MPI_Gather(v)), every
 * rank's value combined into one accumulator (MPI_Reduce, and
 * MPI_Allreduce when the result is then broadcast), blocks exchanged between
 * every pair of ranks (MPI_Alltoall(v)), every rank's block passed to every
 * other rank (MPI_Allgather(v)), and consecutive independent calls of the
 * same collective (one call of their concatenated buffers).
 *
 * Everything works on the ranks' MPI logs (struct dg_mpilog) and the matched
 * messages (dg_match).  One hint per pattern and set of participating call
 * sites, with the instances found, the messages and bytes involved, and an
 * estimated saving: per instance, the largest time a rank spent in the
 * point-to-point calls involved (each call at most as long as the fastest
 * call of its kind and size in the run: waiting for another rank is not
 * saved by a collective), less a model of the collective's cost (rounds of
 * messages x the instance's fastest call); never below 0.
 *
 * Hint fields as set here: instances = rounds at the hint's main call site
 * (matched or not), with_window = rounds that match (the collective's
 * instances), members = point-to-point messages (for repeated collectives:
 * the calls), bytes = bytes they carry, comm_ns = time of the calls,
 * root = the root if every instance has the same one, else -1.  File and
 * function strings are borrowed from the ranks' site tables.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

/* Patterns, in the order hints of equal saving are listed. */
enum pat {
    PAT_BCAST = 1,
    PAT_SCATTER,
    PAT_GATHER,
    PAT_REDUCE,
    PAT_ALLREDUCE,
    PAT_ALLTOALL,
    PAT_ALLGATHER,
    PAT_REPEAT
};

enum var {
    VAR_V = 1u << 0,       /* slices of different sizes or out of rank order: the v-variant */
    VAR_FORWARD = 1u << 1, /* some bytes were forwarded by a rank that received them */
    VAR_LOCAL = 1u << 2    /* reduce: combined into a variable that is not traced */
};

/* Masks of a call site in an instance. */
enum {
    LM_SEND = 1u << 0,
    LM_RECV = 1u << 1,
    LM_COLL = 1u << 2,
    LM_ROOT = 1u << 3 /* a call of the root */
};

#define NOT_SET (-2)
#define IN_PROGRESS (-3)
#define NO_ROUND UINT32_MAX

/* ---- small helpers -------------------------------------------------------------------- */

static const char *nz(const char *s)
{
    return s ? s : "";
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

/* Grows *p (elements of size sz) to hold at least need; 0 or NOMEM. */
static int grow(void *pp, uint32_t *cap, uint64_t need, size_t sz)
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

static uint64_t rec_ns(const struct dg_msgrec *r)
{
    return r->t_exit > r->t_enter && r->t_enter ? r->t_exit - r->t_enter : 0;
}

static bool overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return alen && blen && a < b + blen && b < a + alen;
}

static unsigned ceil_log2(uint32_t p)
{
    unsigned s = 0;
    while ((1ull << s) < p)
        s++;
    return s;
}

/* The MPI call a record stands for: a receive completed by a Wait is its Irecv. */
static uint16_t rec_call(const struct dg_msgrec *r)
{
    if (r->kind == DG_MSG_RECV && (r->flags & DG_MSGF_NONBLOCKING))
        return CHT_MPI_IRECV;
    return r->call;
}

/* MPI op of a statement's arithmetic, or NULL if no predefined op fits. */
static const char *mpi_op(int op)
{
    switch (op) {
    case CHT_SOP_ADD:
    case CHT_SOP_FADD: return "MPI_SUM";
    case CHT_SOP_MUL:
    case CHT_SOP_FMUL: return "MPI_PROD";
    case CHT_SOP_MIN:
    case CHT_SOP_FMIN: return "MPI_MIN";
    case CHT_SOP_MAX:
    case CHT_SOP_FMAX: return "MPI_MAX";
    case CHT_SOP_AND: return "MPI_BAND";
    case CHT_SOP_OR: return "MPI_BOR";
    case CHT_SOP_XOR: return "MPI_BXOR";
    }
    return NULL;
}

/* ---- source locations ------------------------------------------------------------------ */

/* A call site as a merge key across ranks: file, line, column, function;
 * sites without a location by their id. */
struct loc {
    const char *file, *func;
    uint32_t line, col;
    uint32_t site; /* CHT_NONE when the site has a location */
};

static int loc_cmp(const struct loc *a, const struct loc *b)
{
    int c = strcmp(a->file, b->file);
    if (c || (c = cmp_u64(a->line, b->line)) || (c = cmp_u64(a->col, b->col)) ||
        (c = cmp_u64(a->site, b->site)))
        return c;
    return strcmp(a->func, b->func);
}

/* ---- the context ------------------------------------------------------------------------ */

/* One call site of an instance. */
struct iloc {
    struct loc loc;
    uint16_t call;
    uint8_t mask; /* LM_* */
    uint64_t events;
};

/* A part of an instance: one log record. */
struct part {
    int32_t rank;
    uint32_t pos;
    bool root; /* a record of the root */
};

/* An instance of a pattern, being built. */
struct inst {
    int pat;
    unsigned var;
    int root;            /* world rank, -1 if none */
    uint32_t p;          /* communicator size */
    uint8_t op;          /* reduce: enum cht_site_op of the accumulation */
    struct loc consumer; /* reduce: the accumulating statement */
    bool has_consumer;
    uint32_t ngroup;    /* repeat: calls merged */
    uint64_t saving_ns; /* repeat: computed by the finder */
    uint32_t n, cap;
    struct part *v;
};

/* A hint being accumulated over instances with the same signature. */
struct hacc {
    int pat;
    unsigned var; /* union over instances */
    uint8_t op;
    struct loc consumer;
    bool has_consumer;
    uint32_t nlocs;
    struct iloc *locs; /* sorted by loc: the signature */
    uint8_t *ranks;    /* [P] */
    uint8_t *roots;    /* [P] */
    uint32_t p;
    uint64_t matched, unmatched_rounds, members, bytes, comm_ns, saving_ns;
    uint64_t group_sum, group_min, group_max; /* repeat */
    uint32_t primary;                         /* index in locs */
};

/* A round: one rank's sends (or receives) of one stream between two
 * repetitions of a peer. */
struct round {
    int32_t rank;
    uint8_t kind; /* DG_MSG_SEND or DG_MSG_RECV */
    uint64_t comm;
    uint32_t p;        /* communicator size */
    uint32_t first, n; /* positions in rounds.pos */
    unsigned cls;      /* RC_* */
    int32_t comp;      /* alltoall component, -1 */
};

enum {
    RC_COMPLETE = 1u << 0, /* every other rank of the communicator is a peer */
    RC_MATCHED = 1u << 1,  /* every record has its other end */
    RC_SLICES = 1u << 2,   /* disjoint slices of one span */
    RC_REGULAR = 1u << 3,  /* equal slices in rank order */
    RC_SAME = 1u << 4      /* all the same range and version */
};

struct rounds {
    struct round *v;
    uint32_t n, cap;
    uint32_t *pos; /* log positions, round after round */
    uint32_t npos, cappos;
    uint32_t **round_of; /* [rank][log pos] */
};

struct cx {
    const struct search_xrank *x;
    int P;
    const struct dg_mpilog **logs;
    const struct dg_match *m;
    uint8_t **claimed;     /* [rank][log pos] */
    struct dg_map fastest; /* class_key -> fastest call of the class (ns) */
    struct hacc *h;
    uint32_t nh, caph;
    struct inst in; /* scratch instance */
    int *stamp;     /* [P] scratch */
    int stamp_now;
};

static const struct dg_msgrec *rec_at(const struct cx *c, int rank, uint32_t pos)
{
    return &c->logs[rank]->rec[pos];
}

static bool valid_pos(const struct cx *c, struct dg_pos p)
{
    return p.rank >= 0 && p.rank < c->P && c->logs[p.rank] && p.pos < c->logs[p.rank]->n;
}

static void loc_of(const struct cx *c, int rank, uint32_t site, struct loc *l)
{
    const struct search_rank_result *r = c->x->by_rank ? c->x->by_rank[rank] : NULL;
    const struct trace_site_info *i = r && site != CHT_NONE ? search_site_info(r, site) : NULL;
    if (i && (i->line || (i->file && *i->file))) {
        l->file = nz(i->file);
        l->func = nz(i->func);
        l->line = i->line;
        l->col = i->col;
        l->site = CHT_NONE;
    } else {
        l->file = l->func = "";
        l->line = l->col = 0;
        l->site = site;
    }
}

static int next_stamp(struct cx *c)
{
    if (c->stamp_now == INT32_MAX) {
        memset(c->stamp, 0, (size_t)c->P * sizeof *c->stamp);
        c->stamp_now = 0;
    }
    return ++c->stamp_now;
}

/* ---- slices ------------------------------------------------------------------------------ */

struct slice {
    uint64_t addr, len;
    int32_t member; /* the peer it goes to or comes from */
};

static int slice_cmp(const void *pa, const void *pb)
{
    const struct slice *a = pa, *b = pb;
    int c = cmp_u64(a->addr, b->addr);
    return c ? c : cmp_u64(a->len, b->len);
}

/* Whether the slices are disjoint pieces of one span: none empty, none
 * overlapping, and no gap between neighbours wider than the widest slice
 * (room for one block that does not travel, e.g. the root's own).  Sorts v. */
static bool slices_disjoint(struct slice *v, uint32_t n)
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

static int i32_cmp(const void *pa, const void *pb)
{
    int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;
    return a < b ? -1 : a > b;
}

/* Whether equal-sized slices sit where MPI puts rank i's block: at base +
 * i * size, i being the member's rank in the communicator, taken as its
 * position among the members' world ranks (exact for MPI_COMM_WORLD and
 * for communicators that keep the world order).  members: all ranks of the
 * communicator, sorted. */
static bool slices_regular(const struct slice *v, uint32_t n, const int32_t *members, uint32_t nmem)
{
    if (!n)
        return false;
    uint64_t len = v[0].len;
    int64_t base = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i].len != len)
            return false;
        const int32_t *at = bsearch(&v[i].member, members, nmem, sizeof *members, i32_cmp);
        if (!at)
            return false;
        int64_t b = (int64_t)v[i].addr - (int64_t)(at - members) * (int64_t)len;
        if (i && b != base)
            return false;
        base = b;
    }
    return true;
}

/* ---- instances and hints ------------------------------------------------------------------ */

static void inst_reset(struct inst *in, int pat, int root, uint32_t p)
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

static int inst_add(struct inst *in, int rank, uint32_t pos, bool root)
{
    if (grow(&in->v, &in->cap, (uint64_t)in->n + 1, sizeof *in->v) < 0)
        return TRACE_ERR_NOMEM;
    in->v[in->n++] = (struct part){rank, pos, root};
    return 0;
}

static int part_cmp(const void *pa, const void *pb)
{
    const struct part *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return cmp_u64(a->pos, b->pos);
}

static bool inst_unclaimed(const struct cx *c, const struct inst *in)
{
    for (uint32_t i = 0; i < in->n; i++)
        if (c->claimed[in->v[i].rank][in->v[i].pos])
            return false;
    return true;
}

static int iloc_cmp(const void *pa, const void *pb)
{
    const struct iloc *a = pa, *b = pb;
    return loc_cmp(&a->loc, &b->loc);
}

/* The instance's call sites, merged by location (sorted, masks or-ed,
 * events counted once per MPI event). */
static int inst_locs(const struct cx *c, const struct inst *in, struct iloc **out, uint32_t *nout)
{
    struct iloc *v = malloc((in->n ? in->n : 1) * sizeof *v);
    if (!v)
        return TRACE_ERR_NOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < in->n; i++) {
        const struct part *pt = &in->v[i];
        const struct dg_msgrec *r = rec_at(c, pt->rank, pt->pos);
        /* the second record of one event (Sendrecv's receive half, or a
         * receive completed by the same Wait) is not another execution */
        bool again = i && in->v[i - 1].rank == pt->rank &&
                     rec_at(c, pt->rank, in->v[i - 1].pos)->index == r->index &&
                     rec_at(c, pt->rank, in->v[i - 1].pos)->site == r->site;
        struct iloc *l = &v[n++];
        loc_of(c, pt->rank, r->site, &l->loc);
        l->call = rec_call(r);
        l->mask = (uint8_t)(r->kind == DG_MSG_SEND ? LM_SEND : r->kind == DG_MSG_RECV ? LM_RECV : LM_COLL);
        if (pt->root)
            l->mask |= LM_ROOT;
        l->events = again ? 0 : 1;
    }
    qsort(v, n, sizeof *v, iloc_cmp);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (k && !loc_cmp(&v[k - 1].loc, &v[i].loc)) {
            v[k - 1].mask |= v[i].mask;
            v[k - 1].events += v[i].events;
            if (v[i].call == CHT_MPI_SENDRECV || v[i].call == CHT_MPI_SENDRECV_REPLACE)
                v[k - 1].call = v[i].call;
        } else {
            v[k++] = v[i];
        }
    }
    *out = v;
    *nout = k;
    return 0;
}

/* Class of a call for its wait-free time: kind and size within a factor
 * of two (the bit length of its byte count), over all ranks. */
static uint64_t class_key(const struct dg_msgrec *r)
{
    uint64_t bits = 0;
    for (uint64_t b = r->bytes; b; b >>= 1)
        bits++;
    return (uint64_t)r->kind << 8 | bits;
}

/* The fastest call of every class: what a point-to-point call of that kind
 * and size costs when it does not wait for another rank (the fastest one
 * waited least; the same reasoning as search_msgcost_latency). */
static int fastest_build(struct cx *c)
{
    for (int r = 0; r < c->P; r++) {
        const struct dg_mpilog *g = c->logs[r];
        for (uint32_t i = 0; g && i < g->n; i++) {
            const struct dg_msgrec *x = &g->rec[i];
            uint64_t ns = rec_ns(x);
            if ((x->kind != DG_MSG_SEND && x->kind != DG_MSG_RECV) || !ns)
                continue;
            uint64_t *v = dg_map_put(&c->fastest, class_key(x), ns);
            if (!v)
                return TRACE_ERR_NOMEM;
            if (ns < *v)
                *v = ns;
        }
    }
    return 0;
}

static uint64_t wait_free_ns(const struct cx *c, const struct dg_msgrec *r)
{
    const uint64_t *v = dg_map_get(&c->fastest, class_key(r));
    uint64_t ns = rec_ns(r);
    return v && *v < ns ? *v : ns;
}

/* Per rank, the time in the instance's calls (each MPI event once), as
 * measured (*raw) and wait-free (*wfree: no call slower than the fastest
 * of its class); the largest over ranks of each; and the fastest call of
 * the instance, wait-free (*fastest). */
static void inst_times(const struct cx *c, const struct inst *in, uint64_t *raw, uint64_t *wfree,
                       uint64_t *fastest)
{
    *raw = *wfree = *fastest = 0;
    uint64_t sum = 0, fsum = 0;
    for (uint32_t i = 0; i < in->n; i++) {
        const struct part *pt = &in->v[i];
        const struct dg_msgrec *r = rec_at(c, pt->rank, pt->pos);
        if (i && in->v[i - 1].rank != pt->rank)
            sum = fsum = 0;
        bool again =
            i && in->v[i - 1].rank == pt->rank && rec_at(c, pt->rank, in->v[i - 1].pos)->index == r->index;
        uint64_t ns = wait_free_ns(c, r);
        if (!again) {
            sum += rec_ns(r);
            fsum += ns;
        }
        if (sum > *raw)
            *raw = sum;
        if (fsum > *wfree)
            *wfree = fsum;
        if ((r->kind == DG_MSG_SEND || r->kind == DG_MSG_RECV) && ns && (!*fastest || ns < *fastest))
            *fastest = ns;
    }
}

/* Largest message of an instance (bytes). */
static uint64_t inst_block(const struct cx *c, const struct inst *in)
{
    uint64_t m = 0;
    for (uint32_t i = 0; i < in->n; i++) {
        const struct dg_msgrec *r = rec_at(c, in->v[i].rank, in->v[i].pos);
        if (r->bytes > m)
            m = r->bytes;
    }
    return m;
}

static void hacc_free(struct hacc *h)
{
    free(h->locs);
    free(h->ranks);
    free(h->roots);
}

static bool same_signature(const struct hacc *h, const struct inst *in, const struct iloc *locs, uint32_t n)
{
    if (h->pat != in->pat || h->nlocs != n || h->has_consumer != in->has_consumer)
        return false;
    if ((in->pat == PAT_REDUCE || in->pat == PAT_ALLREDUCE) &&
        (h->op != in->op || ((h->var ^ in->var) & VAR_LOCAL)))
        return false;
    if (h->has_consumer && loc_cmp(&h->consumer, &in->consumer))
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (loc_cmp(&h->locs[i].loc, &locs[i].loc) || h->locs[i].mask != locs[i].mask)
            return false;
    return true;
}

/* Adds a found instance to its hint and claims its records. */
static int emit(struct cx *c, struct inst *in)
{
    struct iloc *locs = NULL;
    uint32_t nlocs = 0;
    int rc;
    if (!in->n)
        return 0;
    qsort(in->v, in->n, sizeof *in->v, part_cmp);
    if ((rc = inst_locs(c, in, &locs, &nlocs)) < 0)
        return rc;
    struct hacc *h = NULL;
    for (uint32_t i = 0; i < c->nh && !h; i++)
        if (same_signature(&c->h[i], in, locs, nlocs))
            h = &c->h[i];
    if (!h) {
        if ((rc = grow(&c->h, &c->caph, (uint64_t)c->nh + 1, sizeof *c->h)) < 0) {
            free(locs);
            return rc;
        }
        h = &c->h[c->nh];
        memset(h, 0, sizeof *h);
        h->ranks = calloc((size_t)c->P, 1);
        h->roots = calloc((size_t)c->P, 1);
        if (!h->ranks || !h->roots) {
            hacc_free(h);
            free(locs);
            return TRACE_ERR_NOMEM;
        }
        c->nh++;
        h->pat = in->pat;
        h->op = in->op;
        h->consumer = in->consumer;
        h->has_consumer = in->has_consumer;
        h->locs = locs;
        h->nlocs = nlocs;
        h->p = in->p;
        h->group_min = UINT64_MAX;
    } else {
        for (uint32_t i = 0; i < nlocs; i++)
            h->locs[i].events += locs[i].events;
        free(locs);
    }
    h->var |= in->var;
    h->matched++;
    if (in->root >= 0)
        h->roots[in->root] = 1;
    if (in->pat == PAT_REPEAT) {
        h->group_sum += in->ngroup;
        if (in->ngroup < h->group_min)
            h->group_min = in->ngroup;
        if (in->ngroup > h->group_max)
            h->group_max = in->ngroup;
        h->members += in->n;
        h->saving_ns += in->saving_ns;
    }
    uint64_t raw, wfree, fastest;
    inst_times(c, in, &raw, &wfree, &fastest);
    h->comm_ns += raw;
    if (in->pat != PAT_REPEAT) {
        /* rounds of messages a collective takes: a tree or recursive
         * doubling, two for a reduce then broadcast; alltoall pairwise above
         * MPICH's short-message threshold (256 bytes a block), Bruck below */
        uint64_t steps = ceil_log2(in->p);
        if (in->pat == PAT_ALLREDUCE)
            steps *= 2;
        else if (in->pat == PAT_ALLTOALL && inst_block(c, in) > 256)
            steps = in->p - 1;
        uint64_t model = steps * fastest;
        h->saving_ns += wfree > model ? wfree - model : 0;
    }
    for (uint32_t i = 0; i < in->n; i++) {
        const struct part *pt = &in->v[i];
        const struct dg_msgrec *r = rec_at(c, pt->rank, pt->pos);
        h->ranks[pt->rank] = 1;
        c->claimed[pt->rank][pt->pos] = 1;
        if (in->pat != PAT_REPEAT && r->kind == DG_MSG_SEND) {
            h->members++;
            h->bytes += r->bytes;
        }
        if (in->pat == PAT_REPEAT)
            h->bytes += r->bytes + r->rbytes;
    }
    return 0;
}

/* ---- repeated collectives ------------------------------------------------------------------ */

struct cinst {
    uint64_t comm, seq;
    uint32_t i;
};

static int cinst_cmp(const void *pa, const void *pb)
{
    const struct cinst *a = pa, *b = pb;
    int c = cmp_u64(a->comm, b->comm);
    return c ? c : cmp_u64(a->seq, b->seq);
}

static bool data_collective(int call)
{
    return call >= CHT_MPI_BCAST && call <= CHT_MPI_EXSCAN;
}

/* The record of rank r in collective instance i (pos set), or NULL. */
static const struct dg_msgrec *coll_member(const struct cx *c, uint32_t i, int r, uint32_t *pos)
{
    uint32_t n;
    const struct dg_pos *v = dg_match_coll(c->m, i, &n);
    /* members come sorted by rank from dg_match; search, then scan in case */
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid].rank < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && v[lo].rank == r && valid_pos(c, v[lo])) {
        *pos = v[lo].pos;
        return rec_at(c, r, v[lo].pos);
    }
    for (uint32_t k = 0; k < n; k++)
        if (v[k].rank == r && valid_pos(c, v[k])) {
            *pos = v[k].pos;
            return rec_at(c, r, v[k].pos);
        }
    return NULL;
}

/* Whether instance b can join the chain first..a (b right after a on
 * every member: same call and root, nothing but OTHER records between,
 * b's send buffer last written before the chain's first call, no buffer
 * of b overlapping an output of the chain or the other way round). */
static bool coll_joins(const struct cx *c, const uint32_t *chain, uint32_t nchain, uint32_t b)
{
    uint32_t n;
    const struct dg_pos *mem = dg_match_coll(c->m, b, &n);
    const struct dg_msgrec *r0 = valid_pos(c, mem[0]) ? rec_at(c, mem[0].rank, mem[0].pos) : NULL;
    if (!r0 || n != r0->comm_size)
        return false;
    uint32_t na;
    (void)dg_match_coll(c->m, chain[0], &na);
    if (na != n)
        return false;
    for (uint32_t k = 0; k < n; k++) {
        if (!valid_pos(c, mem[k]))
            return false;
        int r = mem[k].rank;
        const struct dg_msgrec *rb = rec_at(c, r, mem[k].pos);
        uint32_t pa, pfirst;
        const struct dg_msgrec *ra = coll_member(c, chain[nchain - 1], r, &pa);
        const struct dg_msgrec *rf = coll_member(c, chain[0], r, &pfirst);
        if (!ra || !rf || ra->call != rb->call || ra->peer != rb->peer || pa >= mem[k].pos)
            return false;
        for (uint32_t q = pa + 1; q < mem[k].pos; q++)
            if (rec_at(c, r, q)->kind != DG_MSG_OTHER)
                return false;
        if (rb->version > rf->index)
            return false;
        for (uint32_t j = 0; j < nchain; j++) {
            uint32_t pj;
            const struct dg_msgrec *rj = coll_member(c, chain[j], r, &pj);
            if (!rj || overlap(rb->buf, rb->bytes, rj->rbuf, rj->rbytes) ||
                overlap(rb->rbuf, rb->rbytes, rj->rbuf, rj->rbytes) ||
                overlap(rb->rbuf, rb->rbytes, rj->buf, rj->bytes))
                return false;
        }
    }
    return true;
}

static int emit_chain(struct cx *c, const uint32_t *chain, uint32_t nchain)
{
    struct inst *in = &c->in;
    uint32_t n;
    const struct dg_pos *mem = dg_match_coll(c->m, chain[0], &n);
    const struct dg_msgrec *r0 = rec_at(c, mem[0].rank, mem[0].pos);
    inst_reset(in, PAT_REPEAT, r0->peer >= 0 ? r0->peer : -1, r0->comm_size);
    in->ngroup = nchain;
    uint64_t saving = 0;
    int rc;
    for (uint32_t k = 0; k < n; k++) {
        int r = mem[k].rank;
        uint64_t fastest = 0;
        for (uint32_t j = 0; j < nchain; j++) {
            uint32_t pj;
            const struct dg_msgrec *rj = coll_member(c, chain[j], r, &pj);
            if (!rj)
                continue;
            if ((rc = inst_add(in, r, pj, r == in->root)) < 0)
                return rc;
            uint64_t ns = rec_ns(rj);
            if (ns && (!fastest || ns < fastest))
                fastest = ns;
        }
        uint64_t s = (uint64_t)(nchain - 1) * fastest;
        if (s > saving)
            saving = s;
    }
    in->saving_ns = saving;
    return emit(c, in);
}

static int find_repeats(struct cx *c)
{
    uint32_t nc = dg_match_ncoll(c->m);
    struct cinst *v = malloc((nc ? nc : 1) * sizeof *v);
    uint32_t *chain = malloc((nc ? nc : 1) * sizeof *chain);
    uint32_t nv = 0;
    int rc = 0;
    if (!v || !chain) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t n;
        const struct dg_pos *mem = dg_match_coll(c->m, i, &n);
        if (!n || !valid_pos(c, mem[0]))
            continue;
        const struct dg_msgrec *r = rec_at(c, mem[0].rank, mem[0].pos);
        if (!data_collective(r->call) || n != r->comm_size || r->comm_size < 2)
            continue;
        v[nv++] = (struct cinst){r->comm, r->seq, i};
    }
    qsort(v, nv, sizeof *v, cinst_cmp);
    for (uint32_t a = 0; a < nv;) {
        uint32_t nchain = 1;
        chain[0] = v[a].i;
        uint32_t b = a + 1;
        while (b < nv && v[b].comm == v[a].comm && v[b].seq == v[b - 1].seq + 1 &&
               coll_joins(c, chain, nchain, v[b].i))
            chain[nchain++] = v[b++].i;
        if (nchain >= 2 && (rc = emit_chain(c, chain, nchain)) < 0)
            goto out;
        a = b;
    }
out:
    free(v);
    free(chain);
    return rc;
}

/* ---- rounds --------------------------------------------------------------------------------- */

/* Key of a stream: kind, communicator, tag, and (second pass) call site. */
struct skey {
    uint64_t comm;
    int32_t tag;
    uint32_t site;
    uint8_t kind;
};

struct sent {
    struct skey k;
    uint32_t round;
    bool used;
};

struct stab {
    struct sent *e;
    size_t cap, n;
};

static uint64_t skey_hash(const struct skey *k)
{
    uint64_t h = 1469598103934665603ull;
    uint64_t w[4] = {k->comm, (uint32_t)k->tag, k->site, k->kind};
    for (int i = 0; i < 4; i++) {
        h ^= w[i];
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

static bool skey_eq(const struct skey *a, const struct skey *b)
{
    return a->comm == b->comm && a->tag == b->tag && a->site == b->site && a->kind == b->kind;
}

/* Pointer to the entry of k (inserted with round NO_ROUND), or NULL. */
static struct sent *stab_get(struct stab *t, const struct skey *k)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 64;
        struct sent *e = calloc(nc, sizeof *e);
        if (!e)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->e[i].used)
                continue;
            size_t j = skey_hash(&t->e[i].k) & (nc - 1);
            while (e[j].used)
                j = (j + 1) & (nc - 1);
            e[j] = t->e[i];
        }
        free(t->e);
        t->e = e;
        t->cap = nc;
    }
    size_t j = skey_hash(k) & (t->cap - 1);
    while (t->e[j].used) {
        if (skey_eq(&t->e[j].k, k))
            return &t->e[j];
        j = (j + 1) & (t->cap - 1);
    }
    t->e[j].used = true;
    t->e[j].k = *k;
    t->e[j].round = NO_ROUND;
    t->n++;
    return &t->e[j];
}

static void rounds_free(struct rounds *rs, int P)
{
    if (rs->round_of)
        for (int r = 0; r < P; r++)
            free(rs->round_of[r]);
    free(rs->round_of);
    free(rs->v);
    free(rs->pos);
    memset(rs, 0, sizeof *rs);
}

/* Splits every rank's unclaimed SEND and RECV records into rounds: per
 * stream (kind, communicator, tag, and with by_site the call site), a
 * round ends where a peer comes again. */
static int rounds_build(struct cx *c, bool by_site, struct rounds *rs)
{
    struct stab t = {0};
    struct dg_map peers = {0}; /* round * (P + 1) + peer -> 1 */
    uint32_t *count = NULL;
    int rc = TRACE_ERR_NOMEM;
    memset(rs, 0, sizeof *rs);
    rs->round_of = calloc((size_t)c->P, sizeof *rs->round_of);
    if (!rs->round_of)
        goto out;
    for (int r = 0; r < c->P; r++) {
        const struct dg_mpilog *g = c->logs[r];
        if (!g)
            continue;
        rs->round_of[r] = malloc((g->n ? g->n : 1) * sizeof **rs->round_of);
        if (!rs->round_of[r])
            goto out;
        free(t.e);
        memset(&t, 0, sizeof t);
        for (uint32_t i = 0; i < g->n; i++) {
            const struct dg_msgrec *x = &g->rec[i];
            rs->round_of[r][i] = NO_ROUND;
            if ((x->kind != DG_MSG_SEND && x->kind != DG_MSG_RECV) || c->claimed[r][i] || x->peer < 0 ||
                x->peer >= c->P)
                continue;
            struct skey k = {x->comm, x->tag, by_site ? x->site : 0, x->kind};
            struct sent *e = stab_get(&t, &k);
            if (!e)
                goto out;
            uint64_t pk = 0;
            if (e->round != NO_ROUND) {
                pk = (uint64_t)e->round * ((uint64_t)c->P + 1) + (uint64_t)x->peer;
                if (dg_map_get(&peers, pk))
                    e->round = NO_ROUND;
            }
            if (e->round == NO_ROUND) {
                if (grow(&rs->v, &rs->cap, (uint64_t)rs->n + 1, sizeof *rs->v) < 0)
                    goto out;
                e->round = rs->n;
                rs->v[rs->n++] = (struct round){r, x->kind, x->comm, x->comm_size, 0, 0, 0, -1};
                pk = (uint64_t)e->round * ((uint64_t)c->P + 1) + (uint64_t)x->peer;
            }
            if (!dg_map_put(&peers, pk, 1))
                goto out;
            rs->round_of[r][i] = e->round;
            rs->v[e->round].n++;
        }
    }
    /* positions, round after round */
    uint64_t total = 0;
    for (uint32_t i = 0; i < rs->n; i++) {
        rs->v[i].first = (uint32_t)total;
        total += rs->v[i].n;
    }
    if (total > UINT32_MAX)
        goto out;
    rs->pos = malloc((total ? total : 1) * sizeof *rs->pos);
    count = calloc(rs->n ? rs->n : 1, sizeof *count);
    if (!rs->pos || !count)
        goto out;
    rs->npos = rs->cappos = (uint32_t)total;
    for (int r = 0; r < c->P; r++) {
        const struct dg_mpilog *g = c->logs[r];
        for (uint32_t i = 0; g && i < g->n; i++) {
            uint32_t ro = rs->round_of[r][i];
            if (ro != NO_ROUND)
                rs->pos[rs->v[ro].first + count[ro]++] = i;
        }
    }
    rc = 0;
out:
    free(t.e);
    free(count);
    dg_map_free(&peers);
    if (rc < 0)
        rounds_free(rs, c->P);
    return rc;
}

/* Sorted members of a round's communicator: its peers and its rank. */
static int round_members(const struct cx *c, const struct rounds *rs, const struct round *ro, int32_t **out,
                         uint32_t *n)
{
    int32_t *v = malloc(((size_t)ro->n + 1) * sizeof *v);
    if (!v)
        return TRACE_ERR_NOMEM;
    uint32_t k = 0;
    v[k++] = ro->rank;
    for (uint32_t i = 0; i < ro->n; i++) {
        const struct dg_msgrec *x = rec_at(c, ro->rank, rs->pos[ro->first + i]);
        if (x->peer != ro->rank)
            v[k++] = x->peer;
    }
    qsort(v, k, sizeof *v, i32_cmp);
    *out = v;
    *n = k;
    return 0;
}

/* Sets each round's RC_* class. */
static int rounds_classify(const struct cx *c, struct rounds *rs)
{
    struct slice *sl = NULL;
    uint32_t cap = 0;
    int rc = 0;
    for (uint32_t i = 0; i < rs->n; i++) {
        struct round *ro = &rs->v[i];
        unsigned cls = 0;
        uint32_t others = 0;
        bool matched = true, same = true;
        if ((rc = grow(&sl, &cap, ro->n, sizeof *sl)) < 0)
            break;
        const struct dg_msgrec *x0 = rec_at(c, ro->rank, rs->pos[ro->first]);
        for (uint32_t k = 0; k < ro->n; k++) {
            uint32_t pos = rs->pos[ro->first + k];
            const struct dg_msgrec *x = rec_at(c, ro->rank, pos);
            others += x->peer != ro->rank;
            struct dg_pos pp = dg_match_peer(c->m, (struct dg_pos){ro->rank, pos});
            if (!valid_pos(c, pp) || c->claimed[pp.rank][pp.pos])
                matched = false;
            if (x->buf != x0->buf || x->bytes != x0->bytes || x->version != x0->version)
                same = false;
            sl[k] = (struct slice){x->buf, x->bytes, x->peer};
        }
        if (ro->p >= 3 && others == ro->p - 1)
            cls |= RC_COMPLETE;
        if (matched)
            cls |= RC_MATCHED;
        if (same && ro->n > 1)
            cls |= RC_SAME;
        if (ro->n > 1 && slices_disjoint(sl, ro->n)) {
            cls |= RC_SLICES;
            int32_t *mem;
            uint32_t nmem;
            if ((rc = round_members(c, rs, ro, &mem, &nmem)) < 0)
                break;
            if (slices_regular(sl, ro->n, mem, nmem))
                cls |= RC_REGULAR;
            free(mem);
        }
        ro->cls = cls;
    }
    free(sl);
    return rc;
}

/* ---- broadcasts: where the bytes of each message come from ------------------------------------ */

/* origin[rank][pos] of every RECV record: the SEND record whose bytes it
 * received, through the ranks that forwarded them unchanged. */
static int origins_build(const struct cx *c, struct dg_pos ***out)
{
    struct dg_pos **o = calloc((size_t)c->P, sizeof *o);
    struct dg_pos *path = NULL;
    uint32_t npath = 0, cappath = 0;
    uint64_t total = 0;
    int rc = TRACE_ERR_NOMEM;
    if (!o)
        return rc;
    for (int r = 0; r < c->P; r++) {
        const struct dg_mpilog *g = c->logs[r];
        if (!g)
            continue;
        total += g->n;
        o[r] = malloc((g->n ? g->n : 1) * sizeof **o);
        if (!o[r])
            goto out;
        for (uint32_t i = 0; i < g->n; i++)
            o[r][i] = (struct dg_pos){NOT_SET, 0};
    }
    for (int r = 0; r < c->P; r++) {
        const struct dg_mpilog *g = c->logs[r];
        for (uint32_t i = 0; g && i < g->n; i++) {
            if (g->rec[i].kind != DG_MSG_RECV || o[r][i].rank != NOT_SET)
                continue;
            struct dg_pos cur = {r, i}, res = DG_POS_NONE;
            npath = 0;
            for (uint64_t steps = 0;; steps++) {
                if (o[cur.rank][cur.pos].rank != NOT_SET && o[cur.rank][cur.pos].rank != IN_PROGRESS) {
                    res = o[cur.rank][cur.pos];
                    break;
                }
                if (grow(&path, &cappath, (uint64_t)npath + 1, sizeof *path) < 0)
                    goto out;
                path[npath++] = cur;
                o[cur.rank][cur.pos].rank = IN_PROGRESS;
                struct dg_pos s = dg_match_peer(c->m, cur);
                if (!valid_pos(c, s))
                    break;
                const struct dg_msgrec *sr = rec_at(c, s.rank, s.pos);
                res = s;
                if (!(sr->flags & DG_MSGF_FORWARD) || sr->fwd_pos >= c->logs[s.rank]->n || steps > total)
                    break;
                const struct dg_msgrec *pr = rec_at(c, s.rank, (uint32_t)sr->fwd_pos);
                struct dg_pos prev = {s.rank, (uint32_t)sr->fwd_pos};
                if (pr->kind != DG_MSG_RECV || pr->bytes != sr->bytes || pr->comm != sr->comm ||
                    o[prev.rank][prev.pos].rank == IN_PROGRESS)
                    break;
                cur = prev;
            }
            for (uint32_t k = 0; k < npath; k++)
                o[path[k].rank][path[k].pos] = res;
        }
    }
    rc = 0;
out:
    free(path);
    if (rc < 0) {
        for (int r = 0; r < c->P; r++)
            free(o[r]);
        free(o);
        o = NULL;
    }
    *out = o;
    return rc;
}

/* A complete broadcast: a root's sends of one range and version whose
 * bytes reach every other rank of the communicator once. */
struct binst {
    int32_t root;
    uint32_t first_pos; /* the root's first send */
    uint32_t s0, ns;    /* its sends: positions in bc.osend */
    uint64_t comm, buf, bytes, version;
    uint32_t p;
    uint64_t sig; /* hash of its call sites */
    bool forwarded, used;
};

/* A message received: its origin send and the receive. */
struct oent {
    struct dg_pos origin, recv;
};

/* A root's send that is the origin of some messages: its chain of receives. */
struct osend {
    int32_t root;
    uint32_t pos;
    uint32_t e0, ne;                    /* its receives in bc.ents */
    uint64_t comm, buf, bytes, version; /* of the send */
};

struct bcasts {
    struct oent *ents;
    uint32_t nents;
    struct osend *os;
    uint32_t nos;
    struct binst *b;
    uint32_t nb, capb;
    uint32_t *by_root; /* indices of b sorted by (root, first_pos) */
};

static int oent_cmp(const void *pa, const void *pb)
{
    const struct oent *a = pa, *b = pb;
    if (a->origin.rank != b->origin.rank)
        return a->origin.rank < b->origin.rank ? -1 : 1;
    int c = cmp_u64(a->origin.pos, b->origin.pos);
    if (c)
        return c;
    if (a->recv.rank != b->recv.rank)
        return a->recv.rank < b->recv.rank ? -1 : 1;
    return cmp_u64(a->recv.pos, b->recv.pos);
}

static int osend_key_cmp(const void *pa, const void *pb)
{
    const struct osend *a = pa, *b = pb;
    if (a->root != b->root)
        return a->root < b->root ? -1 : 1;
    int c;
    if ((c = cmp_u64(a->comm, b->comm)) || (c = cmp_u64(a->buf, b->buf)) ||
        (c = cmp_u64(a->bytes, b->bytes)) || (c = cmp_u64(a->version, b->version)))
        return c;
    return cmp_u64(a->pos, b->pos);
}

static void bcasts_free(struct bcasts *bc)
{
    free(bc->ents);
    free(bc->os);
    free(bc->b);
    free(bc->by_root);
    memset(bc, 0, sizeof *bc);
}

/* The parts of a broadcast: the root's sends, the forwarding sends, the receives. */
static int binst_parts(struct cx *c, const struct bcasts *bc, const struct binst *b, struct inst *in)
{
    int rc;
    for (uint32_t s = b->s0; s < b->s0 + b->ns; s++) {
        const struct osend *os = &bc->os[s];
        if ((rc = inst_add(in, os->root, os->pos, true)) < 0)
            return rc;
        for (uint32_t e = os->e0; e < os->e0 + os->ne; e++) {
            struct dg_pos rv = bc->ents[e].recv;
            struct dg_pos sd = dg_match_peer(c->m, rv);
            if ((rc = inst_add(in, rv.rank, rv.pos, false)) < 0)
                return rc;
            if (valid_pos(c, sd) && !(sd.rank == os->root && sd.pos == os->pos) &&
                (rc = inst_add(in, sd.rank, sd.pos, false)) < 0)
                return rc;
        }
    }
    return 0;
}

static uint64_t sig_hash(const struct iloc *l, uint32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; i++) {
        for (const char *s = l[i].loc.file; *s; s++)
            h = (h ^ (uint8_t)*s) * 1099511628211ull;
        uint64_t w[4] = {l[i].loc.line, l[i].loc.col, l[i].loc.site, l[i].mask & (LM_SEND | LM_RECV)};
        for (int k = 0; k < 4; k++)
            h = (h ^ w[k]) * 1099511628211ull;
    }
    return h;
}

/* Finishes a broadcast candidate: kept if its receivers are every other
 * rank of the communicator, each once. */
static int binst_close(struct cx *c, struct bcasts *bc, uint32_t s0, uint32_t ns, bool bad, uint32_t nrecv)
{
    const struct osend *os = &bc->os[s0];
    const struct dg_msgrec *x = rec_at(c, os->root, os->pos);
    if (bad || x->comm_size < 3 || nrecv != x->comm_size - 1 || !x->bytes)
        return 0;
    int rc;
    if ((rc = grow(&bc->b, &bc->capb, (uint64_t)bc->nb + 1, sizeof *bc->b)) < 0)
        return rc;
    struct binst *b = &bc->b[bc->nb];
    *b = (struct binst){os->root, os->pos,    s0,           ns, x->comm, x->buf,
                        x->bytes, x->version, x->comm_size, 0,  false,   false};
    for (uint32_t s = s0; s < s0 + ns; s++) {
        if (bc->os[s].pos < b->first_pos)
            b->first_pos = bc->os[s].pos;
        for (uint32_t e = bc->os[s].e0; e < bc->os[s].e0 + bc->os[s].ne; e++) {
            struct dg_pos sd = dg_match_peer(c->m, bc->ents[e].recv);
            if (sd.rank != os->root)
                b->forwarded = true;
        }
    }
    /* its signature, for grouping broadcasts into allgathers */
    struct inst tmp = {0};
    if ((rc = binst_parts(c, bc, b, &tmp)) < 0) {
        free(tmp.v);
        return rc;
    }
    qsort(tmp.v, tmp.n, sizeof *tmp.v, part_cmp);
    struct iloc *locs;
    uint32_t nlocs;
    if ((rc = inst_locs(c, &tmp, &locs, &nlocs)) < 0) {
        free(tmp.v);
        return rc;
    }
    b->sig = sig_hash(locs, nlocs) ^ b->comm;
    free(locs);
    free(tmp.v);
    bc->nb++;
    return 0;
}

/* A broadcast by (signature, root, first send), for sorting. */
struct bref {
    uint64_t sig;
    int32_t root;
    uint32_t first_pos;
    uint32_t b;
};

static int bref_cmp(const void *pa, const void *pb)
{
    const struct bref *a = pa, *b = pb;
    int c = cmp_u64(a->sig, b->sig);
    if (c)
        return c;
    if (a->root != b->root)
        return a->root < b->root ? -1 : 1;
    return cmp_u64(a->first_pos, b->first_pos);
}

/* Finds the complete broadcasts among the unclaimed records. */
static int bcasts_build(struct cx *c, struct bcasts *bc)
{
    struct dg_pos **origin = NULL;
    int rc;
    memset(bc, 0, sizeof *bc);
    if ((rc = origins_build(c, &origin)) < 0)
        return rc;
    rc = TRACE_ERR_NOMEM;
    uint64_t n = 0;
    for (int r = 0; r < c->P; r++)
        for (uint32_t i = 0; c->logs[r] && i < c->logs[r]->n; i++)
            n += origin[r][i].rank >= 0;
    bc->ents = malloc((n ? n : 1) * sizeof *bc->ents);
    bc->os = malloc((n ? n : 1) * sizeof *bc->os);
    if (!bc->ents || !bc->os)
        goto out;
    for (int r = 0; r < c->P; r++)
        for (uint32_t i = 0; c->logs[r] && i < c->logs[r]->n; i++) {
            struct dg_pos o = origin[r][i];
            if (o.rank < 0 || !valid_pos(c, o) || c->claimed[r][i] || c->claimed[o.rank][o.pos])
                continue;
            bc->ents[bc->nents++] = (struct oent){o, {r, i}};
        }
    qsort(bc->ents, bc->nents, sizeof *bc->ents, oent_cmp);
    for (uint32_t e = 0; e < bc->nents;) {
        uint32_t f = e;
        while (f < bc->nents && bc->ents[f].origin.rank == bc->ents[e].origin.rank &&
               bc->ents[f].origin.pos == bc->ents[e].origin.pos)
            f++;
        const struct dg_msgrec *x = rec_at(c, bc->ents[e].origin.rank, bc->ents[e].origin.pos);
        bc->os[bc->nos++] = (struct osend){
            bc->ents[e].origin.rank, bc->ents[e].origin.pos, e, f - e, x->comm, x->buf, x->bytes, x->version};
        e = f;
    }
    qsort(bc->os, bc->nos, sizeof *bc->os, osend_key_cmp);
    /* per root and (comm, range, version), in send order: a broadcast
     * closes where a receiver would come again */
    for (uint32_t a = 0; a < bc->nos;) {
        uint32_t b = a;
        const struct osend *xa = &bc->os[a];
        while (b < bc->nos && bc->os[b].root == xa->root && bc->os[b].comm == xa->comm &&
               bc->os[b].buf == xa->buf && bc->os[b].bytes == xa->bytes && bc->os[b].version == xa->version)
            b++;
        int root = bc->os[a].root;
        uint32_t s0 = a, nrecv = 0;
        bool bad = false;
        int st = next_stamp(c);
        for (uint32_t s = a; s < b; s++) {
            bool again = false;
            for (uint32_t e = bc->os[s].e0; e < bc->os[s].e0 + bc->os[s].ne; e++) {
                int q = bc->ents[e].recv.rank;
                if (q == root || c->stamp[q] == st)
                    again = true;
            }
            if (again && s > s0) {
                if ((rc = binst_close(c, bc, s0, s - s0, bad, nrecv)) < 0)
                    goto out;
                s0 = s;
                nrecv = 0;
                bad = false;
                st = next_stamp(c);
            }
            for (uint32_t e = bc->os[s].e0; e < bc->os[s].e0 + bc->os[s].ne; e++) {
                int q = bc->ents[e].recv.rank;
                if (q == root || c->stamp[q] == st)
                    bad = true; /* a rank gets the bytes twice within one send's chain */
                else {
                    c->stamp[q] = st;
                    nrecv++;
                }
            }
        }
        if ((rc = binst_close(c, bc, s0, b - s0, bad, nrecv)) < 0)
            goto out;
        a = b;
    }
    /* index by (root, first send) */
    bc->by_root = malloc((bc->nb ? bc->nb : 1) * sizeof *bc->by_root);
    if (!bc->by_root)
        goto out;
    {
        struct bref *t = malloc((bc->nb ? bc->nb : 1) * sizeof *t);
        if (!t)
            goto out;
        for (uint32_t i = 0; i < bc->nb; i++)
            t[i] = (struct bref){0, bc->b[i].root, bc->b[i].first_pos, i};
        qsort(t, bc->nb, sizeof *t, bref_cmp);
        for (uint32_t i = 0; i < bc->nb; i++)
            bc->by_root[i] = t[i].b;
        free(t);
    }
    rc = 0;
out:
    for (int r = 0; r < c->P; r++)
        free(origin[r]);
    free(origin);
    if (rc < 0)
        bcasts_free(bc);
    return rc;
}

static int emit_binst(struct cx *c, struct bcasts *bc, struct binst *b)
{
    struct inst *in = &c->in;
    inst_reset(in, PAT_BCAST, b->root, b->p);
    if (b->forwarded)
        in->var |= VAR_FORWARD;
    int rc = binst_parts(c, bc, b, in);
    if (rc < 0)
        return rc;
    if (!inst_unclaimed(c, in))
        return 0;
    b->used = true;
    return emit(c, in);
}

/* ---- allgather: one broadcast from every rank, into distinct slices ------------------------------ */

/* A block a rank received in a candidate allgather. */
struct agrecv {
    int32_t rank;    /* the receiving rank */
    struct slice sl; /* member: the root of the block */
    uint64_t index;  /* event index of the receive */
};

static int agrecv_cmp(const void *pa, const void *pb)
{
    const struct agrecv *a = pa, *b = pb;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return cmp_u64(a->sl.addr, b->sl.addr);
}

/* Whether the broadcasts set[0..n) (one per rank of the communicator) are
 * an allgather: on every rank the blocks received are disjoint slices of
 * one span, its own block overlaps none of them and was written before
 * it received any (the blocks do not depend on each other).  *v set when
 * they are not equal blocks in rank order. */
static int allgather_check(struct cx *c, struct bcasts *bc, const uint32_t *set, uint32_t n, bool *ok,
                           bool *v)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t s = bc->b[set[i]].s0; s < bc->b[set[i]].s0 + bc->b[set[i]].ns; s++)
            total += bc->os[s].ne;
    struct agrecv *rv = malloc((total ? total : 1) * sizeof *rv);
    struct slice *sl = malloc((n ? n : 1) * sizeof *sl);
    int32_t *mem = malloc((n ? n : 1) * sizeof *mem);
    const struct binst **own = calloc(n ? n : 1, sizeof *own);
    int rc = 0;
    *ok = false;
    *v = false;
    if (!rv || !sl || !mem || !own) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++)
        mem[i] = bc->b[set[i]].root;
    qsort(mem, n, sizeof *mem, i32_cmp);
    for (uint32_t i = 0; i < n; i++) {
        const struct binst *b = &bc->b[set[i]];
        const int32_t *at = bsearch(&b->root, mem, n, sizeof *mem, i32_cmp);
        own[at - mem] = b;
    }
    uint64_t nrv = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct binst *b = &bc->b[set[i]];
        for (uint32_t s = b->s0; s < b->s0 + b->ns; s++)
            for (uint32_t e = bc->os[s].e0; e < bc->os[s].e0 + bc->os[s].ne; e++) {
                struct dg_pos p = bc->ents[e].recv;
                const struct dg_msgrec *x = rec_at(c, p.rank, p.pos);
                rv[nrv++] = (struct agrecv){p.rank, {x->buf, x->bytes, b->root}, x->index};
            }
    }
    qsort(rv, nrv, sizeof *rv, agrecv_cmp);
    for (uint64_t a = 0, qi = 0; qi < n; qi++) {
        int q = mem[qi];
        uint64_t b = a;
        while (b < nrv && rv[b].rank == q)
            b++;
        if (a < nrv && rv[a].rank < q)
            goto out; /* a rank outside the communicator received a block */
        uint32_t nsl = 0;
        uint64_t first_recv = UINT64_MAX;
        for (uint64_t k = a; k < b; k++) {
            sl[nsl++] = rv[k].sl;
            if (rv[k].index < first_recv)
                first_recv = rv[k].index;
            if (nsl > n - 1)
                goto out;
        }
        a = b;
        const struct binst *mine = own[qi];
        if (nsl != n - 1 || !slices_disjoint(sl, nsl))
            goto out;
        for (uint32_t i = 0; i < nsl; i++)
            if (overlap(sl[i].addr, sl[i].len, mine->buf, mine->bytes))
                goto out;
        if (mine->version > first_recv)
            goto out;
        if (!slices_regular(sl, nsl, mem, n))
            *v = true;
    }
    *ok = true;
out:
    free(rv);
    free(sl);
    free(mem);
    free(own);
    return rc;
}

static int find_allgathers(struct cx *c, struct bcasts *bc)
{
    struct bref *v = malloc((bc->nb ? bc->nb : 1) * sizeof *v);
    uint32_t *set = NULL, *start = NULL, nv = 0;
    int rc = 0;
    if (!v)
        return TRACE_ERR_NOMEM;
    for (uint32_t i = 0; i < bc->nb; i++)
        if (!bc->b[i].used)
            v[nv++] = (struct bref){bc->b[i].sig, bc->b[i].root, bc->b[i].first_pos, i};
    qsort(v, nv, sizeof *v, bref_cmp);
    set = malloc((nv ? nv : 1) * sizeof *set);
    start = malloc(((size_t)nv + 1) * sizeof *start);
    if (!set || !start) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (uint32_t a = 0; a < nv;) {
        uint32_t b = a;
        while (b < nv && v[b].sig == v[a].sig)
            b++;
        /* per root, its broadcasts of this signature in order; the k-th of
         * every root make round k */
        uint32_t p = bc->b[v[a].b].p;
        uint32_t nroots = 0;
        for (uint32_t i = a; i < b; i++)
            if (i == a || v[i].root != v[i - 1].root)
                start[nroots++] = i;
        start[nroots] = b;
        if (nroots == p) {
            for (uint32_t k = 0;; k++) {
                uint32_t nset = 0;
                for (uint32_t i = 0; i < nroots; i++)
                    if (start[i] + k < start[i + 1])
                        set[nset++] = v[start[i] + k].b;
                if (nset < p)
                    break;
                bool ok, isv;
                if ((rc = allgather_check(c, bc, set, nset, &ok, &isv)) < 0)
                    goto out;
                if (!ok)
                    continue;
                struct inst *in = &c->in;
                inst_reset(in, PAT_ALLGATHER, -1, p);
                for (uint32_t i = 0; i < nset; i++) {
                    if (bc->b[set[i]].forwarded)
                        in->var |= VAR_FORWARD;
                    if ((rc = binst_parts(c, bc, &bc->b[set[i]], in)) < 0)
                        goto out;
                }
                if (isv)
                    in->var |= VAR_V;
                if (!inst_unclaimed(c, in))
                    continue;
                for (uint32_t i = 0; i < nset; i++)
                    bc->b[set[i]].used = true;
                if ((rc = emit(c, in)) < 0)
                    goto out;
            }
        }
        a = b;
    }
out:
    free(v);
    free(set);
    free(start);
    return rc;
}

/* ---- reduce ------------------------------------------------------------------------------------ */

/* Whether a complete receive round combines every value into one
 * accumulator: every receive consumed by the same statement, which stores
 * op(load of the same address, x) with an op MPI has, into the same
 * range (strong); or, values received into one range and each read by the
 * same statement that writes nothing traced before the next arrives
 * (local: the accumulator is a variable the pass does not trace). */
static bool round_reduce(const struct cx *c, const struct rounds *rs, const struct round *ro, struct inst *in,
                         uint64_t *last_use, uint64_t *acc, uint64_t *acc_len)
{
    const struct dg_msgrec *x0 = rec_at(c, ro->rank, rs->pos[ro->first]);
    bool strong = true, local = ro->n >= 2;
    *last_use = 0;
    for (uint32_t k = 0; k < ro->n; k++) {
        const struct dg_msgrec *x = rec_at(c, ro->rank, rs->pos[ro->first + k]);
        if (!(x->flags & DG_MSGF_CONSUMED) || x->consumer_kind != DG_COMP ||
            x->consumer_site != x0->consumer_site) {
            strong = local = false;
            break;
        }
        if (!(x->consumer_flags & CHT_SITEF_ACCUMULATE) || !mpi_op(x->consumer_op) ||
            x->consumer_op != x0->consumer_op || !x->consumer_len || x->consumer_addr != x0->consumer_addr ||
            x->consumer_len != x0->consumer_len)
            strong = false;
        if (x->consumer_len || x->buf != x0->buf || x->bytes != x0->bytes)
            local = false;
        if (x->consumer_index > *last_use)
            *last_use = x->consumer_index;
    }
    if (!strong && !local)
        return false;
    in->op = strong ? x0->consumer_op : CHT_SOP_NONE;
    if (!strong)
        in->var |= VAR_LOCAL;
    loc_of(c, ro->rank, x0->consumer_site, &in->consumer);
    in->has_consumer = true;
    *acc = strong ? x0->consumer_addr : 0;
    *acc_len = strong ? x0->consumer_len : 0;
    return true;
}

/* The parts of a rooted round: its records (the root's) and their other ends. */
static int round_parts(struct cx *c, const struct rounds *rs, const struct round *ro, struct inst *in)
{
    int rc;
    for (uint32_t k = 0; k < ro->n; k++) {
        uint32_t pos = rs->pos[ro->first + k];
        struct dg_pos pp = dg_match_peer(c->m, (struct dg_pos){ro->rank, pos});
        if ((rc = inst_add(in, ro->rank, pos, true)) < 0 ||
            (valid_pos(c, pp) && (rc = inst_add(in, pp.rank, pp.pos, pp.rank == ro->rank)) < 0))
            return rc;
    }
    return 0;
}

/* Reduce then broadcast of the accumulator: the first broadcast the root
 * starts after the round's last receive, of bytes that overlap the
 * accumulator and were written after the last accumulation. */
static int find_allreduces(struct cx *c, struct rounds *rs, struct bcasts *bc)
{
    int rc;
    for (uint32_t i = 0; i < rs->n; i++) {
        struct round *ro = &rs->v[i];
        if (ro->kind != DG_MSG_RECV || (ro->cls & (RC_COMPLETE | RC_MATCHED)) != (RC_COMPLETE | RC_MATCHED))
            continue;
        struct inst *in = &c->in;
        inst_reset(in, PAT_ALLREDUCE, ro->rank, ro->p);
        uint64_t last_use, acc, acc_len;
        if (!round_reduce(c, rs, ro, in, &last_use, &acc, &acc_len) || (in->var & VAR_LOCAL))
            continue;
        uint32_t last_pos = rs->pos[ro->first + ro->n - 1];
        /* first broadcast of the root after the round: by_root is sorted */
        uint32_t lo = 0, hi = bc->nb;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            const struct binst *b = &bc->b[bc->by_root[mid]];
            if (b->root < ro->rank || (b->root == ro->rank && b->first_pos <= last_pos))
                lo = mid + 1;
            else
                hi = mid;
        }
        const struct binst *next =
            lo < bc->nb && bc->b[bc->by_root[lo]].root == ro->rank ? &bc->b[bc->by_root[lo]] : NULL;
        if (!next || next->used || next->comm != ro->comm || !overlap(next->buf, next->bytes, acc, acc_len) ||
            next->version <= last_use)
            continue;
        /* no other send of the root between the reduce and the broadcast */
        bool between = false;
        for (uint32_t q = last_pos + 1; q < next->first_pos; q++)
            if (rec_at(c, ro->rank, q)->kind == DG_MSG_SEND)
                between = true;
        if (between)
            continue;
        if ((rc = round_parts(c, rs, ro, in)) < 0 || (rc = binst_parts(c, bc, next, in)) < 0)
            return rc;
        if (next->forwarded)
            in->var |= VAR_FORWARD;
        if (!inst_unclaimed(c, in))
            continue;
        ((struct binst *)next)->used = true;
        if ((rc = emit(c, in)) < 0)
            return rc;
    }
    return 0;
}

/* ---- alltoall ------------------------------------------------------------------------------------ */

static bool a2a_candidate(const struct round *ro)
{
    unsigned need = RC_COMPLETE | RC_MATCHED | RC_SLICES;
    return (ro->cls & need) == need;
}

/* Every rank sends distinct slices of one buffer to every other rank and
 * receives distinct slices of one buffer from every other rank: the send
 * rounds and receive rounds linked by their messages, one of each per rank
 * of the communicator, nothing else linked to them. */
static int find_alltoalls(struct cx *c, struct rounds *rs)
{
    uint32_t *queue = malloc((rs->n ? rs->n : 1) * sizeof *queue);
    uint64_t *first_recv = malloc((size_t)c->P * sizeof *first_recv);
    int32_t *sends = NULL, *recvs = NULL;
    int rc = 0;
    if (!queue || !first_recv) {
        free(queue);
        free(first_recv);
        return TRACE_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < rs->n; i++)
        rs->v[i].comp = -1;
    for (uint32_t s = 0; s < rs->n; s++) {
        struct round *start = &rs->v[s];
        if (start->kind != DG_MSG_SEND || start->comp >= 0 || !a2a_candidate(start))
            continue;
        uint32_t nq = 0, head = 0;
        bool ok = true;
        queue[nq++] = s;
        start->comp = (int32_t)s;
        while (head < nq && ok) {
            struct round *ro = &rs->v[queue[head++]];
            for (uint32_t k = 0; k < ro->n && ok; k++) {
                struct dg_pos pp = dg_match_peer(c->m, (struct dg_pos){ro->rank, rs->pos[ro->first + k]});
                uint32_t other = valid_pos(c, pp) ? rs->round_of[pp.rank][pp.pos] : NO_ROUND;
                if (other == NO_ROUND || !a2a_candidate(&rs->v[other]) || rs->v[other].p != start->p ||
                    (rs->v[other].comp >= 0 && rs->v[other].comp != (int32_t)s)) {
                    ok = false;
                    break;
                }
                if (rs->v[other].comp < 0) {
                    rs->v[other].comp = (int32_t)s;
                    queue[nq++] = other;
                }
            }
        }
        if (!ok)
            continue;
        /* one send round and one receive round per rank */
        free(sends);
        free(recvs);
        sends = malloc(nq * sizeof *sends);
        recvs = malloc(nq * sizeof *recvs);
        if (!sends || !recvs) {
            rc = TRACE_ERR_NOMEM;
            goto out;
        }
        uint32_t ns = 0, nr = 0;
        for (uint32_t k = 0; k < nq; k++) {
            const struct round *ro = &rs->v[queue[k]];
            if (ro->kind == DG_MSG_SEND)
                sends[ns++] = ro->rank;
            else
                recvs[nr++] = ro->rank;
        }
        qsort(sends, ns, sizeof *sends, i32_cmp);
        qsort(recvs, nr, sizeof *recvs, i32_cmp);
        if (ns != start->p || nr != start->p)
            continue;
        for (uint32_t k = 0; k < ns && ok; k++)
            if (sends[k] != recvs[k] || (k && sends[k] == sends[k - 1]))
                ok = false;
        /* independence: every block sent was written before the rank
         * received anything of the exchange */
        bool isv = false;
        for (uint32_t k = 0; k < nq && ok; k++) {
            const struct round *rr = &rs->v[queue[k]];
            if (rr->kind == DG_MSG_RECV)
                first_recv[rr->rank] = rec_at(c, rr->rank, rs->pos[rr->first])->index;
        }
        for (uint32_t k = 0; k < nq && ok; k++) {
            const struct round *ro = &rs->v[queue[k]];
            if (!(ro->cls & RC_REGULAR))
                isv = true;
            if (ro->kind != DG_MSG_SEND)
                continue;
            for (uint32_t j = 0; j < ro->n; j++)
                if (rec_at(c, ro->rank, rs->pos[ro->first + j])->version > first_recv[ro->rank])
                    ok = false;
        }
        if (!ok)
            continue;
        struct inst *in = &c->in;
        inst_reset(in, PAT_ALLTOALL, -1, start->p);
        if (isv)
            in->var |= VAR_V;
        for (uint32_t k = 0; k < nq; k++) {
            const struct round *ro = &rs->v[queue[k]];
            for (uint32_t j = 0; j < ro->n; j++)
                if ((rc = inst_add(in, ro->rank, rs->pos[ro->first + j], false)) < 0)
                    goto out;
        }
        if (inst_unclaimed(c, in) && (rc = emit(c, in)) < 0)
            goto out;
    }
out:
    free(queue);
    free(first_recv);
    free(sends);
    free(recvs);
    return rc;
}

/* ---- the round patterns: reduce, alltoall, scatter, gather ---------------------------------------- */

static int round_patterns(struct cx *c, bool by_site)
{
    struct rounds rs;
    int rc;
    if ((rc = rounds_build(c, by_site, &rs)) < 0)
        return rc;
    if ((rc = rounds_classify(c, &rs)) < 0)
        goto out;
    const unsigned cm = RC_COMPLETE | RC_MATCHED;
    /* reduce */
    for (uint32_t i = 0; i < rs.n; i++) {
        struct round *ro = &rs.v[i];
        if (ro->kind != DG_MSG_RECV || (ro->cls & cm) != cm)
            continue;
        struct inst *in = &c->in;
        inst_reset(in, PAT_REDUCE, ro->rank, ro->p);
        uint64_t last_use, acc, acc_len;
        if (!round_reduce(c, &rs, ro, in, &last_use, &acc, &acc_len))
            continue;
        if ((rc = round_parts(c, &rs, ro, in)) < 0)
            goto out;
        if (inst_unclaimed(c, in) && (rc = emit(c, in)) < 0)
            goto out;
    }
    if ((rc = find_alltoalls(c, &rs)) < 0)
        goto out;
    /* scatter, gather */
    for (uint32_t i = 0; i < rs.n; i++) {
        struct round *ro = &rs.v[i];
        if ((ro->cls & (cm | RC_SLICES)) != (cm | RC_SLICES))
            continue;
        struct inst *in = &c->in;
        inst_reset(in, ro->kind == DG_MSG_SEND ? PAT_SCATTER : PAT_GATHER, ro->rank, ro->p);
        if (!(ro->cls & RC_REGULAR))
            in->var |= VAR_V;
        if ((rc = round_parts(c, &rs, ro, in)) < 0)
            goto out;
        if (inst_unclaimed(c, in) && (rc = emit(c, in)) < 0)
            goto out;
    }
out:
    rounds_free(&rs, c->P);
    return rc;
}

/* ---- hints ------------------------------------------------------------------------------------------ */

/* The round kind a hint's main call site is counted in, 0 if none is. */
static int primary_kind(const struct hacc *h)
{
    switch (h->pat) {
    case PAT_BCAST:
    case PAT_SCATTER: return DG_MSG_SEND;
    case PAT_GATHER:
    case PAT_REDUCE:
    case PAT_ALLREDUCE: return DG_MSG_RECV;
    }
    return 0;
}

static void choose_primary(struct hacc *h)
{
    int kind = primary_kind(h);
    unsigned want = h->pat == PAT_REPEAT ? LM_COLL : kind == DG_MSG_RECV ? LM_RECV : LM_SEND;
    h->primary = 0;
    /* the root's first call of the main kind; else the first of that kind */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < h->nlocs; i++)
            if ((h->locs[i].mask & want) && (pass || (h->locs[i].mask & LM_ROOT))) {
                h->primary = i;
                return;
            }
}

/* Rounds left unmatched at a hint's main call site (on its roots): the
 * instances that do not match. */
static int count_unmatched(struct cx *c)
{
    struct rounds rs;
    int rc = rounds_build(c, false, &rs);
    if (rc < 0)
        return rc;
    for (uint32_t i = 0; i < rs.n; i++) {
        const struct round *ro = &rs.v[i];
        for (uint32_t j = 0; j < c->nh; j++) {
            struct hacc *h = &c->h[j];
            if (primary_kind(h) != ro->kind || !h->roots[ro->rank])
                continue;
            for (uint32_t k = 0; k < ro->n; k++) {
                const struct dg_msgrec *x = rec_at(c, ro->rank, rs.pos[ro->first + k]);
                struct loc l;
                loc_of(c, ro->rank, x->site, &l);
                if (!loc_cmp(&l, &h->locs[h->primary].loc)) {
                    h->unmatched_rounds++;
                    break;
                }
            }
        }
    }
    rounds_free(&rs, c->P);
    return 0;
}

/* Records at each hint call site, over all ranks (each MPI event once). */
static int count_totals(struct cx *c, uint64_t **totals)
{
    for (int r = 0; r < c->P; r++) {
        const struct dg_mpilog *g = c->logs[r];
        struct dg_map sites = {0};
        for (uint32_t i = 0; g && i < g->n; i++) {
            const struct dg_msgrec *x = &g->rec[i];
            if (i && g->rec[i - 1].index == x->index && g->rec[i - 1].site == x->site)
                continue;
            uint64_t *v = dg_map_put(&sites, x->site, 0);
            if (!v) {
                dg_map_free(&sites);
                return TRACE_ERR_NOMEM;
            }
            ++*v;
        }
        for (size_t s = 0; s < sites.cap; s++) {
            if (!dg_map_used(&sites, s))
                continue;
            struct loc l;
            loc_of(c, r, (uint32_t)sites.keys[s], &l);
            for (uint32_t j = 0; j < c->nh; j++)
                for (uint32_t k = 0; k < c->h[j].nlocs; k++)
                    if (!loc_cmp(&l, &c->h[j].locs[k].loc))
                        totals[j][k] += sites.vals[s];
        }
        dg_map_free(&sites);
    }
    return 0;
}

/* ---- messages ------------------------------------------------------------------------------------------ */

/* Set members of a [P] byte map as "0-3", "0, 2". */
static void sb_set(struct search_text *b, const uint8_t *set, int P)
{
    bool first = true;
    for (int i = 0; i < P;) {
        if (!set[i]) {
            i++;
            continue;
        }
        int j = i;
        while (j + 1 < P && set[j + 1])
            j++;
        search_text_printf(b, "%s", first ? "" : ", ");
        if (j > i)
            search_text_printf(b, "%d-%d", i, j);
        else
            search_text_printf(b, "%d", i);
        first = false;
        i = j + 1;
    }
}

static int set_count(const uint8_t *set, int P)
{
    int n = 0;
    for (int i = 0; i < P; i++)
        n += set[i] != 0;
    return n;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* "line 12" / "lines 12, 14" of the sites with this call and mask bit, as
 * "file.c:12" when not in the hint's file. */
static void sb_lines_of(struct search_text *b, const struct hacc *h, uint16_t call, unsigned bit, const char *file)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->nlocs; i++)
        n += h->locs[i].call == call && (h->locs[i].mask & bit);
    search_text_printf(b, n == 1 ? "line " : "lines ");
    bool first = true;
    uint32_t last_line = 0;
    const char *last_file = NULL;
    for (uint32_t i = 0; i < h->nlocs; i++) {
        const struct iloc *l = &h->locs[i];
        if (l->call != call || !(l->mask & bit))
            continue;
        if (last_file && !strcmp(last_file, l->loc.file) && last_line == l->loc.line)
            continue;
        search_text_printf(b, "%s", first ? "" : ", ");
        if (strcmp(l->loc.file, file))
            search_text_printf(b, "%s:", *l->loc.file ? base_name(l->loc.file) : "??");
        search_text_printf(b, "%u", l->loc.line);
        first = false;
        last_file = l->loc.file;
        last_line = l->loc.line;
    }
}

/* "the MPI_Send calls at line 129 and the MPI_Recv calls at line 131": the
 * calls of each kind (sends, then receives, then collectives) in order of
 * their first site. */
static void sb_calls(struct search_text *b, const struct hacc *h, const char *file)
{
    struct callgroup {
        uint16_t call;
        unsigned bit;
    } g[64];
    uint32_t ng = 0;
    static const unsigned bits[] = {LM_SEND, LM_RECV, LM_COLL};
    for (unsigned k = 0; k < 3; k++)
        for (uint32_t i = 0; i < h->nlocs && ng < 64; i++) {
            const struct iloc *l = &h->locs[i];
            if (!(l->mask & bits[k]))
                continue;
            /* a Sendrecv site is named once, with the sends */
            if (bits[k] == LM_RECV && (l->mask & LM_SEND))
                continue;
            bool seen = false;
            for (uint32_t j = 0; j < ng; j++)
                if (g[j].call == l->call)
                    seen = true;
            if (!seen)
                g[ng++] = (struct callgroup){l->call, bits[k]};
        }
    for (uint32_t j = 0; j < ng; j++) {
        search_text_printf(b, "%s", j == 0 ? "the " : j + 1 == ng ? " and the " : ", the ");
        search_text_printf(b, "%s calls at ", trace_mpi_call_name(g[j].call));
        sb_lines_of(b, h, g[j].call, g[j].bit == LM_SEND ? LM_SEND : g[j].bit, file);
    }
}

static const char *collective_name(const struct hacc *h, uint16_t repeat_call)
{
    bool v = h->var & VAR_V;
    switch (h->pat) {
    case PAT_BCAST: return "MPI_Bcast";
    case PAT_SCATTER: return v ? "MPI_Scatterv" : "MPI_Scatter";
    case PAT_GATHER: return v ? "MPI_Gatherv" : "MPI_Gather";
    case PAT_REDUCE: return "MPI_Reduce";
    case PAT_ALLREDUCE: return "MPI_Allreduce";
    case PAT_ALLTOALL: return v ? "MPI_Alltoallv" : "MPI_Alltoall";
    case PAT_ALLGATHER: return v ? "MPI_Allgatherv" : "MPI_Allgather";
    case PAT_REPEAT: return trace_mpi_call_name(repeat_call);
    }
    return NULL;
}

/* The accumulating statement: "line 152 (fadd)". */
static void sb_consumer(struct search_text *b, const struct hacc *h, const char *file)
{
    if (!h->has_consumer || !h->consumer.line) {
        search_text_printf(b, "a statement");
        return;
    }
    if (strcmp(h->consumer.file, file))
        search_text_printf(b, "%s:%u", base_name(h->consumer.file), h->consumer.line);
    else
        search_text_printf(b, "line %u", h->consumer.line);
    if (!(h->var & VAR_LOCAL))
        search_text_printf(b, " (%s)", trace_site_op_name(h->op));
}

static char *hint_message(const struct hacc *h, const struct search_hint *sh, int P)
{
    struct search_text b = {0};
    const char *file = sh->file ? sh->file : "";
    const char *coll = sh->collective;
    if (h->pat == PAT_REPEAT) {
        bool one_size = h->group_min == h->group_max;
        if (one_size)
            search_text_printf(&b, "the %" PRIu64 " %s calls at ", h->group_min, coll);
        else
            search_text_printf(&b, "consecutive %s calls at ", coll);
        sb_lines_of(&b, h, sh->call, LM_COLL, file);
        if (!one_size)
            search_text_printf(&b, ", %.1f per group on average,", (double)h->group_sum / (double)h->matched);
        search_text_printf(&b, " can be one %s of their concatenated buffers (", coll);
    } else {
        sb_calls(&b, h, file);
        switch (h->pat) {
        case PAT_BCAST:
            search_text_printf(&b, " send the same bytes from the root to every rank%s: use %s (",
                      h->var & VAR_FORWARD ? ", forwarded from rank to rank" : "", coll);
            break;
        case PAT_SCATTER:
            search_text_printf(&b, " send distinct slices of one buffer%s from the root to every rank: use %s (",
                      h->var & VAR_V ? " (of different sizes or out of rank order)" : "", coll);
            break;
        case PAT_GATHER:
            search_text_printf(
                &b,
                " receive a block from every rank into distinct slices of one buffer%s at the root: use %s (",
                h->var & VAR_V ? " (of different sizes or out of rank order)" : "", coll);
            break;
        case PAT_REDUCE:
        case PAT_ALLREDUCE:
            search_text_printf(&b, " combine a value from every rank %s at the root with ",
                      h->var & VAR_LOCAL ? "in a local variable" : "into one accumulator");
            sb_consumer(&b, h, file);
            if (h->pat == PAT_ALLREDUCE)
                search_text_printf(&b, " and send the result back to every rank");
            if (h->var & VAR_LOCAL)
                search_text_printf(&b, ": use %s with the MPI op of that statement (", coll);
            else
                search_text_printf(&b, ": use %s with %s (", coll, mpi_op(h->op));
            break;
        case PAT_ALLTOALL:
            search_text_printf(&b, " exchange a distinct block between every pair of ranks: use %s (", coll);
            break;
        case PAT_ALLGATHER:
            search_text_printf(&b, " pass every rank's block to every other rank%s: use %s (",
                      h->var & VAR_FORWARD ? " along a ring" : "", coll);
            break;
        }
        if (h->pat != PAT_ALLTOALL && h->pat != PAT_ALLGATHER) {
            int nroots = set_count(h->roots, P);
            const char *who = h->pat == PAT_BCAST || h->pat == PAT_SCATTER ? "sending" : "receiving";
            if (nroots == 1) {
                search_text_printf(&b, "root = rank ");
                sb_set(&b, h->roots, P);
            } else {
                search_text_printf(&b, "root = the %s rank, ranks ", who);
                sb_set(&b, h->roots, P);
                search_text_printf(&b, " in turn");
            }
            search_text_printf(&b, "; ");
        }
    }
    search_text_printf(&b, "%s ", sh->nranks == 1 ? "rank" : "ranks");
    for (int i = 0; i < sh->nranks;) {
        int j = i;
        while (j + 1 < sh->nranks && sh->ranks[j + 1] == sh->ranks[j] + 1)
            j++;
        if (j > i)
            search_text_printf(&b, "%s%d-%d", i ? ", " : "", sh->ranks[i], sh->ranks[j]);
        else
            search_text_printf(&b, "%s%d", i ? ", " : "", sh->ranks[i]);
        i = j + 1;
    }
    search_text_printf(&b, ", %" PRIu64 " instance%s", sh->with_window, sh->with_window == 1 ? "" : "s");
    search_text_printf(&b, ", est. saving ");
    search_text_time(&b, sh->saving_ns);
    search_text_printf(&b, ")");
    return search_text_take(&b);
}

/* The message of a collective hint as stored (with_times) or without its
 * estimated saving, for outputs compared across runs.  Malloc'ed. */
char *search_collective_message(const struct search_hint *h, bool with_times)
{
    if (!h->message)
        return NULL;
    char *s = strdup(h->message);
    if (!s || with_times)
        return s;
    char *at = strstr(s, ", est. saving ");
    if (at) {
        char *end = strchr(at + 2, ')');
        memmove(at, end ? end : at + strlen(at), strlen(end ? end : at + strlen(at)) + 1);
    }
    return s;
}

static int build_hint(struct cx *c, struct hacc *h, const uint64_t *totals, int nanalysed,
                      struct search_hint *sh)
{
    memset(sh, 0, sizeof *sh);
    const struct iloc *pl = &h->locs[h->primary];
    sh->kind = SEARCH_HINT_COLLECTIVE;
    sh->call = pl->call;
    sh->file = pl->loc.file;
    sh->func = pl->loc.func;
    sh->line = pl->loc.line;
    sh->col = pl->loc.col;
    int nr = set_count(h->ranks, c->P);
    sh->ranks = malloc((nr ? (size_t)nr : 1) * sizeof *sh->ranks);
    sh->related = malloc((h->nlocs ? h->nlocs : 1) * sizeof *sh->related);
    if (!sh->ranks || !sh->related)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < c->P; r++)
        if (h->ranks[r])
            sh->ranks[sh->nranks++] = r;
    for (uint32_t i = 0; i < h->nlocs; i++) {
        if (i == h->primary)
            continue;
        const struct iloc *l = &h->locs[i];
        struct search_related *rl = &sh->related[sh->nrelated++];
        memset(rl, 0, sizeof *rl);
        rl->file = l->loc.file;
        rl->func = l->loc.func;
        rl->line = l->loc.line;
        rl->col = l->loc.col;
        rl->role = (l->mask & LM_COLL)   ? SEARCH_REL_COLL
                   : (l->mask & LM_SEND) ? SEARCH_REL_SEND
                                         : SEARCH_REL_RECV;
        rl->events = l->events;
        rl->total = totals[i] > l->events ? totals[i] : l->events;
    }
    int roots = set_count(h->roots, c->P);
    sh->root = -1;
    for (int r = 0; roots == 1 && r < c->P; r++)
        if (h->roots[r])
            sh->root = r;
    sh->collective = collective_name(h, pl->call);
    sh->comm_ns = h->comm_ns;
    sh->saving_ns = h->saving_ns;
    sh->with_window = h->matched;
    sh->instances = h->matched + h->unmatched_rounds;
    sh->members = h->members;
    sh->bytes = h->bytes;
    if (sh->instances > sh->with_window)
        sh->flags |= SEARCH_HINT_SOME_ITERATIONS;
    if (sh->nranks < nanalysed)
        sh->flags |= SEARCH_HINT_SOME_RANKS;
    if (!(sh->message = hint_message(h, sh, c->P)))
        return TRACE_ERR_NOMEM;
    return 0;
}

/* ---- the search ----------------------------------------------------------------------------------- */

int search_collectives(const struct search_xrank *x, struct search_hint **out, uint32_t *nout)
{
    struct cx c = {0};
    struct bcasts bc = {0};
    struct rounds rs = {0};
    uint64_t **totals = NULL;
    struct search_hint *hints = NULL;
    uint32_t nhints = 0;
    int rc = TRACE_ERR_NOMEM;

    if (!out || !nout || !x)
        return TRACE_ERR_ARG;
    *out = NULL;
    *nout = 0;
    if (!x->match || !x->logs || x->world_size <= 0)
        return 0;
    c.x = x;
    c.P = x->world_size;
    c.logs = x->logs;
    c.m = x->match;
    c.claimed = calloc((size_t)c.P, sizeof *c.claimed);
    c.stamp = calloc((size_t)c.P, sizeof *c.stamp);
    if (!c.claimed || !c.stamp)
        goto out;
    for (int r = 0; r < c.P; r++)
        if (c.logs[r] && !(c.claimed[r] = calloc(c.logs[r]->n ? c.logs[r]->n : 1, 1)))
            goto out;

    if ((rc = fastest_build(&c)) < 0 || (rc = find_repeats(&c)) < 0)
        goto out;
    /* broadcasts first: their receives would look like gathers into slices */
    if ((rc = bcasts_build(&c, &bc)) < 0 || (rc = rounds_build(&c, false, &rs)) < 0 ||
        (rc = rounds_classify(&c, &rs)) < 0 || (rc = find_allreduces(&c, &rs, &bc)) < 0 ||
        (rc = find_allgathers(&c, &bc)) < 0)
        goto out;
    for (uint32_t i = 0; i < bc.nb; i++)
        if (!bc.b[i].used && (rc = emit_binst(&c, &bc, &bc.b[i])) < 0)
            goto out;
    /* then rounds per stream, and per stream and call site for sends of
     * several kinds interleaved on one tag */
    if ((rc = round_patterns(&c, false)) < 0 || (rc = round_patterns(&c, true)) < 0)
        goto out;

    for (uint32_t i = 0; i < c.nh; i++)
        choose_primary(&c.h[i]);
    if ((rc = count_unmatched(&c)) < 0)
        goto out;
    rc = TRACE_ERR_NOMEM;
    totals = calloc(c.nh ? c.nh : 1, sizeof *totals);
    if (!totals)
        goto out;
    for (uint32_t i = 0; i < c.nh; i++)
        if (!(totals[i] = calloc(c.h[i].nlocs ? c.h[i].nlocs : 1, sizeof **totals)))
            goto out;
    if ((rc = count_totals(&c, totals)) < 0)
        goto out;
    int nanalysed = 0;
    for (int r = 0; r < c.P; r++)
        nanalysed += c.logs[r] != NULL;
    rc = TRACE_ERR_NOMEM;
    hints = calloc(c.nh ? c.nh : 1, sizeof *hints);
    if (!hints)
        goto out;
    for (uint32_t i = 0; i < c.nh; i++, nhints++)
        if ((rc = build_hint(&c, &c.h[i], totals[i], nanalysed, &hints[i])) < 0) {
            nhints++;
            goto out;
        }
    *out = hints;
    *nout = nhints;
    hints = NULL;
    nhints = 0;
    rc = 0;
out:
    for (uint32_t i = 0; i < nhints; i++)
        search_hint_clear(&hints[i]);
    free(hints);
    if (totals)
        for (uint32_t i = 0; i < c.nh; i++)
            free(totals[i]);
    free(totals);
    rounds_free(&rs, c.P);
    bcasts_free(&bc);
    for (uint32_t i = 0; i < c.nh; i++)
        hacc_free(&c.h[i]);
    free(c.h);
    free(c.in.v);
    if (c.claimed)
        for (int r = 0; r < c.P; r++)
            free(c.claimed[r]);
    free(c.claimed);
    free(c.stamp);
    dg_map_free(&c.fastest);
    return rc;
}
