/* hb.c - the happens-before order of a run, answered for the pairs of
 * records asked (the queries), by one replay of the matched logs: each rank
 * advances through its records in order; a receive waits until its matched
 * send has been replayed and takes what the send knew; a collective waits
 * until every member has reached it, then passes what its semantics pass
 * (root to members for Bcast and Scatter, members to root for Reduce and
 * Gather, everyone to everyone for the others).  A nonblocking collective's
 * COLL record sits at the Wait/Test that completed it (its data is
 * delivered there) and remembers its start: it waits only until every
 * member has replayed its start, and takes what the members knew at their
 * starts.  Unmatched receives and incomplete collectives (a rank cut short)
 * pass nothing; if the replay ever stalls (inconsistent logs), the blocked
 * rank with the lowest position goes on without the edge, so the replay
 * always ends.
 *
 * What travels is not a vector clock of every rank but a token per record
 * some query starts from (a of "a before b?"): a rank's set of tokens is
 * what it knows of those records.  A token is made when its record is
 * replayed and dropped once every query that asks about it is answered (at
 * its b), so the sets hold only the tokens between their a and their b:
 * memory grows with the records and the queries in flight, not with the
 * ranks times the records (vector clocks took ranks x records x 4 bytes:
 * 40 GB for 1,024 ranks of 10,000 calls).  A blocking collective over
 * every rank marks what it passes as known everywhere from each rank's
 * record of it on, and a nonblocking one keeps what it passes once, as a
 * group that a member's set holds by one token, so that neither copies a
 * set into every rank's.  A rank blocked on another waits
 * in that rank's list and is woken when it moves; the last member to reach
 * a collective resolves it for all, so no step scans every rank.
 */
#include <stdlib.h>
#include <string.h>

#include "hb-private.h"

struct dg_hb {
    int nranks;
    const struct dg_mpilog *const *logs;
    const struct dg_match *m;
    struct dg_hb_query *q; /* sorted, distinct */
    uint8_t *ans;
    size_t nq;
};

struct wnode {
    int32_t rank;
    uint32_t next; /* + 1, 0 none */
};

struct run {
    int P;
    const struct dg_mpilog *const *logs;
    const struct dg_match *m;
    uint32_t *pos, *nrec, *counted;
    struct tokset *cur; /* [P]: what each rank knows now */
    struct evlist *src, *tgt, *contrib; /* [P]: tokens made, queries answered, contributions */
    uint32_t ntok;                      /* tokens of records; ntok + ci: instance ci's group */
    uint32_t *pending;                  /* [ntok + ncoll]: a record's queries left, a group's
                                           live tokens; 0: dropped */
    uint32_t *rghead;                   /* [ntok]: the groups holding the token (gnode + 1) */
    struct gnode *rgn;
    uint32_t nrgn, caprgn;
    uint32_t *gfirst;                   /* [tokens]: first of its world instances + 1, 0 none */
    struct gnode {                      /* the collectives over every rank that passed it on */
        uint32_t ci, next;              /* next + 1, 0 none */
    } *gn;
    uint32_t ngn, capgn;
    struct tokset *iu;                  /* [ncoll]: a nonblocking instance's group: what its
                                           givers knew at their starts, record tokens only */
    uint8_t *iu_done;                   /* [ncoll] */
    struct dg_pos *iu_from;             /* [ncoll], chain mode: a giver that knew token 0 */
    const uint32_t *qtok;               /* [queries]: the token asked about */
    uint8_t *ans;
    uint32_t **snap;                    /* [P][pos]: pool slot + 1 of a kept set */
    struct tokset *pool;
    uint32_t npool, cappool, *freed, nfreed, capfreed;
    uint32_t ncoll, *arrived, *passed, *contributed, *iwait; /* [ncoll] */
    struct wnode *wn;
    uint32_t nwn, capwn, freewn, *rwait; /* [P] */
    uint32_t *queue, qhead, qlen;
    uint8_t *queued;
    struct dg_pos *arr_at, *arr_from; /* [P], chain mode: where token 0 arrived, from where */
    struct tokset tmp;
    int err;
};

/* ---- token sets ------------------------------------------------------------- */

static bool pending(const void *ctx, uint32_t t)
{
    return ((const struct run *)ctx)->pending[t] != 0;
}

/* dst |= src, dropping the tokens no query needs any more. */
static void ts_union(struct run *R, struct tokset *dst, const struct tokset *src)
{
    if (src && !ts_merge_keep(dst, src->v, src->n, &R->tmp, pending, R))
        R->err = TRACE_ERR_NOMEM;
}

static void ts_add(struct run *R, struct tokset *s, uint32_t t)
{
    if (!ts_insert(s, t))
        R->err = TRACE_ERR_NOMEM;
}

/* ---- groups ------------------------------------------------------------------
 * A nonblocking collective gives each taker, at its completion, what the
 * givers knew at their starts.  That set is kept once, as the instance's
 * group (record tokens only), and a taker's set gets the group's token:
 * one entry, not the whole set per member.  A group is dropped once every
 * token in it is. */

/* Whether set s holds record token t, itself or in one of its groups. */
static bool set_knows(const struct run *R, const struct tokset *s, uint32_t t)
{
    if (!s)
        return false;
    if (ts_has(s, t))
        return true;
    for (uint32_t i = ts_lower(s, R->ntok); i < s->n; i++)
        if (R->pending[s->v[i]] && ts_has(&R->iu[s->v[i] - R->ntok], t))
            return true;
    return false;
}

/* dst |= the record tokens of src, its groups opened. */
static void ts_union_flat(struct run *R, struct tokset *dst, const struct tokset *src)
{
    if (!src)
        return;
    uint32_t k = ts_lower(src, R->ntok);
    struct tokset own = {src->v, k, k};
    ts_union(R, dst, &own);
    for (uint32_t i = k; i < src->n; i++)
        if (R->pending[src->v[i]])
            ts_union(R, dst, &R->iu[src->v[i] - R->ntok]);
}

/* Record token t has no query left: the groups holding it lose one. */
static void retire(struct run *R, uint32_t t)
{
    for (uint32_t k = R->rghead[t]; k; k = R->rgn[k - 1].next) {
        uint32_t ci = R->rgn[k - 1].ci;
        if (R->pending[R->ntok + ci] && --R->pending[R->ntok + ci] == 0) {
            free(R->iu[ci].v);
            R->iu[ci] = (struct tokset){0};
        }
    }
}

/* ---- what every rank knows ----------------------------------------------------
 * A collective over every rank that passes all to all (or from a root)
 * tells every rank, at its record of it, all that its givers knew: rather
 * than copying those tokens into every rank's set (P times the set), each
 * token remembers the instances that made it known everywhere, and a rank
 * knows it from its own record of one of them on. */

/* Whether instance ci has every rank once (members are in rank order). */
static bool every_rank(const struct run *R, const struct dg_pos *mem, uint32_t n)
{
    if (n != (uint32_t)R->P)
        return false;
    for (uint32_t k = 0; k < n; k++)
        if (mem[k].rank != (int32_t)k)
            return false;
    return true;
}

/* Does rank r, at its record p, know token t? */
static bool knows(const struct run *R, int r, uint32_t p, uint32_t t)
{
    if (set_knows(R, &R->cur[r], t))
        return true;
    for (uint32_t g = R->gfirst[t]; g; g = R->gn[g - 1].next) {
        uint32_t n = 0;
        const struct dg_pos *mem = dg_match_coll(R->m, R->gn[g - 1].ci, &n);
        if (mem[r].pos <= p)
            return true;
    }
    return false;
}

/* The tokens of s are known by every rank from its record of instance ci
 * (every_rank) on; in chain mode token 0 arrives there from `from`. */
static void known_everywhere(struct run *R, const struct tokset *s, uint32_t ci, struct dg_pos from)
{
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(R->m, ci, &n);
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t t = s->v[i];
        if (R->arr_at && t == 0)
            for (int q = 0; q < R->P; q++)
                if (R->arr_at[q].rank < 0 || R->arr_at[q].pos > mem[q].pos) {
                    R->arr_at[q] = (struct dg_pos){q, mem[q].pos};
                    R->arr_from[q] = from;
                }
        if (!room((void **)&R->gn, R->ngn, &R->capgn, sizeof *R->gn)) {
            R->err = TRACE_ERR_NOMEM;
            return;
        }
        R->gn[R->ngn] = (struct gnode){ci, R->gfirst[t]};
        R->gfirst[t] = ++R->ngn;
    }
}

/* ---- kept sets: what a send or a contribution knew ---------------------------- */

static void snap_keep(struct run *R, int r, uint32_t p)
{
    struct tokset *c = &R->cur[r];
    if (!c->n || (R->snap[r] && R->snap[r][p]))
        return;
    if (!R->snap[r] && !(R->snap[r] = calloc(R->nrec[r], sizeof **R->snap))) {
        R->err = TRACE_ERR_NOMEM;
        return;
    }
    uint32_t slot;
    if (R->nfreed) {
        slot = R->freed[--R->nfreed];
    } else {
        /* freed: room for every slot, so that a drop cannot fail */
        if (!room((void **)&R->pool, R->npool, &R->cappool, sizeof *R->pool) ||
            !room((void **)&R->freed, R->npool, &R->capfreed, sizeof *R->freed)) {
            R->err = TRACE_ERR_NOMEM;
            return;
        }
        slot = R->npool++;
        R->pool[slot] = (struct tokset){0};
    }
    struct tokset *s = &R->pool[slot];
    if (!ts_reserve(s, c->n)) {
        R->freed[R->nfreed++] = slot;
        R->err = TRACE_ERR_NOMEM;
        return;
    }
    memcpy(s->v, c->v, c->n * sizeof *s->v);
    s->n = c->n;
    R->snap[r][p] = slot + 1;
}

static const struct tokset *snap_of(const struct run *R, struct dg_pos p)
{
    uint32_t s = R->snap[p.rank] ? R->snap[p.rank][p.pos] : 0;
    return s ? &R->pool[s - 1] : NULL;
}

static void snap_drop(struct run *R, struct dg_pos p)
{
    uint32_t s = R->snap[p.rank] ? R->snap[p.rank][p.pos] : 0;
    if (!s)
        return;
    R->pool[s - 1].n = 0;
    R->freed[R->nfreed++] = s - 1;
    R->snap[p.rank][p.pos] = 0;
}

/* ---- waking ranks ------------------------------------------------------------- */

static void enqueue(struct run *R, int r)
{
    if (R->queued[r] || R->pos[r] >= R->nrec[r])
        return;
    R->queued[r] = 1;
    R->queue[(R->qhead + R->qlen++) % (uint32_t)R->P] = (uint32_t)r;
}

static void wait_on(struct run *R, uint32_t *head, int r)
{
    uint32_t k;
    if (R->freewn) {
        k = R->freewn - 1;
        R->freewn = R->wn[k].next;
    } else {
        if (!room((void **)&R->wn, R->nwn, &R->capwn, sizeof *R->wn)) {
            R->err = TRACE_ERR_NOMEM;
            return;
        }
        k = R->nwn++;
    }
    R->wn[k] = (struct wnode){r, *head};
    *head = k + 1;
}

static void wake(struct run *R, uint32_t *head)
{
    while (*head) {
        uint32_t k = *head - 1;
        *head = R->wn[k].next;
        enqueue(R, R->wn[k].rank);
        R->wn[k].next = R->freewn;
        R->freewn = k + 1;
    }
}

/* ---- the replay ---------------------------------------------------------------- */

/* Where member record y of a collective at position p gave what it knew:
 * its start for a nonblocking collective, else the record itself. */
static struct dg_pos contribution(const struct dg_msgrec *y, struct dg_pos p)
{
    if ((y->flags & DG_MSGF_NONBLOCKING) && y->fwd_pos < p.pos)
        return (struct dg_pos){p.rank, (uint32_t)y->fwd_pos};
    return p;
}

static const struct dg_msgrec *rec_at(const struct run *R, struct dg_pos p)
{
    return &R->logs[p.rank]->rec[p.pos];
}

/* Rank q takes set s, received at its record `at` from record `from`. */
static void take(struct run *R, int q, const struct tokset *s, uint32_t at, struct dg_pos from)
{
    ts_union(R, &R->cur[q], s);
    if (R->arr_at && R->arr_at[q].rank < 0 && set_knows(R, &R->cur[q], 0)) {
        R->arr_at[q] = (struct dg_pos){q, at};
        R->arr_from[q] = from;
    }
}

/* Rank r passes its record at pos[r]: the queries asked there are
 * answered, the tokens made there join its set, what a send or a
 * contribution knew is kept. */
static void pass(struct run *R, int r)
{
    uint32_t p = R->pos[r];
    struct tokset *c = &R->cur[r];
    struct evlist *L = &R->tgt[r];
    for (; L->at < L->n && L->e[L->at].pos == p; L->at++) {
        uint32_t qi = L->e[L->at].id, t = R->qtok[qi];
        R->ans[qi] = knows(R, r, p, t);
        if (R->pending[t] && --R->pending[t] == 0)
            retire(R, t);
    }
    for (L = &R->src[r]; L->at < L->n && L->e[L->at].pos == p; L->at++) {
        uint32_t t = L->e[L->at].id;
        if (R->pending[t]) {
            ts_add(R, c, t);
            if (R->arr_at)
                R->arr_at[r] = R->arr_from[r] = (struct dg_pos){r, p};
        }
    }
    const struct dg_msgrec *x = &R->logs[r]->rec[p];
    if (x->kind == DG_MSG_SEND)
        snap_keep(R, r, p);
    for (L = &R->contrib[r]; L->at < L->n && L->e[L->at].pos == p; L->at++) {
        snap_keep(R, r, p);
        R->contributed[L->e[L->at].id]++;
        wake(R, &R->iwait[L->e[L->at].id]);
    }
    if (x->kind == DG_MSG_COLL) {
        uint32_t ci = dg_match_coll_of(R->m, (struct dg_pos){r, p}), n = 0;
        if (ci < R->ncoll) {
            const struct dg_pos *mem = dg_match_coll(R->m, ci, &n);
            if (++R->passed[ci] == n) { /* nobody takes its contributions any more */
                for (uint32_t k = 0; k < n; k++)
                    snap_drop(R, contribution(rec_at(R, mem[k]), mem[k]));
            }
            wake(R, &R->iwait[ci]);
        }
    }
    R->pos[r]++;
}

/* Instance ci's group, once: what its givers knew at their starts. */
static bool group_build(struct run *R, uint32_t ci, const struct dg_pos *mem, uint32_t n, int dir)
{
    R->iu_done[ci] = 1;
    R->iu_from[ci] = DG_POS_NONE;
    for (uint32_t k = 0; k < n; k++) {
        const struct dg_msgrec *y = rec_at(R, mem[k]);
        const struct tokset *c = gives(dir, y->flags & DG_MSGF_ROOT) ? snap_of(R, contribution(y, mem[k])) : NULL;
        if (R->arr_at && c && R->iu_from[ci].rank < 0 && set_knows(R, c, 0))
            R->iu_from[ci] = mem[k];
        ts_union_flat(R, &R->iu[ci], c);
    }
    /* the group lives while a token in it does */
    const struct tokset *u = &R->iu[ci];
    for (uint32_t i = 0; i < u->n && !R->err; i++) {
        uint32_t t = u->v[i];
        if (!room((void **)&R->rgn, R->nrgn, &R->caprgn, sizeof *R->rgn)) {
            R->err = TRACE_ERR_NOMEM;
            break;
        }
        R->rgn[R->nrgn] = (struct gnode){ci, R->rghead[t]};
        R->rghead[t] = ++R->nrgn;
    }
    R->pending[R->ntok + ci] = u->n;
    return !R->err;
}

/* A nonblocking collective at p: false (waiting) until every other member
 * has replayed its contribution; then rank p.rank takes theirs. */
static bool coll_nonblocking(struct run *R, struct dg_pos p, uint32_t ci)
{
    const struct dg_msgrec *x = rec_at(R, p);
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(R->m, ci, &n);
    uint32_t others = R->contributed[ci] - (contribution(x, p).pos < p.pos ? 1 : 0);
    if (others + 1 < n) {
        wait_on(R, &R->iwait[ci], p.rank);
        return false;
    }
    int dir = coll_dir(x->call);
    if (!takes(dir, x->flags & DG_MSGF_ROOT))
        return true;
    if (!R->iu_done[ci] && !group_build(R, ci, mem, n, dir))
        return true; /* out of memory: R->err says so */
    uint32_t g = R->ntok + ci;
    if (!R->pending[g])
        return true; /* nothing it knew is asked about (any more) */
    ts_add(R, &R->cur[p.rank], g);
    if (R->arr_at && R->arr_at[p.rank].rank < 0 && ts_has(&R->iu[ci], 0)) {
        R->arr_at[p.rank] = p;
        R->arr_from[p.rank] = R->iu_from[ci];
    }
    return true;
}

/* A blocking collective at p: false (waiting) until every member has
 * reached it; the last one passes what the semantics pass and moves the
 * others past it. */
static bool coll_blocking(struct run *R, struct dg_pos p, uint32_t ci)
{
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(R->m, ci, &n);
    if (R->arrived[ci] < n) {
        wait_on(R, &R->iwait[ci], p.rank);
        return false;
    }
    if (R->passed[ci])
        return true; /* a member went past it without (a stall): it passes nothing */
    int dir = coll_dir(rec_at(R, p)->call);
    struct tokset all = {0};
    struct dg_pos from = DG_POS_NONE;
    for (uint32_t k = 0; k < n; k++) {
        int q = mem[k].rank;
        if (!gives(dir, rec_at(R, mem[k])->flags & DG_MSGF_ROOT) || !R->cur[q].n)
            continue;
        if (R->arr_at && from.rank < 0 && set_knows(R, &R->cur[q], 0))
            from = mem[k];
        ts_union(R, &all, &R->cur[q]);
    }
    /* over every rank, to every rank: known everywhere from there on (all
     * pass it now), and nobody's set needs those tokens any more */
    bool world = dir != 2 && all.n && every_rank(R, mem, n);
    if (world) {
        struct tokset flat = {0};
        ts_union_flat(R, &flat, &all);
        known_everywhere(R, &flat, ci, from);
        free(flat.v);
        for (uint32_t k = 0; k < n; k++)
            if (gives(dir, rec_at(R, mem[k])->flags & DG_MSGF_ROOT))
                R->cur[mem[k].rank].n = 0;
    }
    for (uint32_t k = 0; k < n; k++) {
        int q = mem[k].rank;
        if (!world && takes(dir, rec_at(R, mem[k])->flags & DG_MSGF_ROOT))
            take(R, q, &all, mem[k].pos, from);
        if (q != p.rank) { /* the others pass it now too */
            pass(R, q);
            enqueue(R, q);
        }
    }
    free(all.v);
    return true;
}

/* Runs rank r as far as it goes; true if it moved. */
static bool advance(struct run *R, int r)
{
    uint32_t start = R->pos[r];
    while (R->pos[r] < R->nrec[r] && !R->err) {
        struct dg_pos p = {r, R->pos[r]};
        const struct dg_msgrec *x = rec_at(R, p);
        if (x->kind == DG_MSG_RECV) {
            struct dg_pos s = dg_match_peer(R->m, p);
            if (s.rank >= 0) {
                if (R->pos[s.rank] <= s.pos) { /* its send has not been replayed yet */
                    wait_on(R, &R->rwait[s.rank], r);
                    break;
                }
                take(R, r, snap_of(R, s), p.pos, s);
                snap_drop(R, s);
            }
        } else if (x->kind == DG_MSG_COLL) {
            uint32_t ci = dg_match_coll_of(R->m, p), n = 0;
            if (ci < R->ncoll && R->counted[r] != p.pos) { /* it reaches it */
                R->counted[r] = p.pos;
                dg_match_coll(R->m, ci, &n);
                if (++R->arrived[ci] == n)
                    wake(R, &R->iwait[ci]);
            }
            if (ci < R->ncoll && !((x->flags & DG_MSGF_NONBLOCKING) ? coll_nonblocking(R, p, ci)
                                                                   : coll_blocking(R, p, ci)))
                break;
        }
        pass(R, r);
    }
    if (R->pos[r] == start)
        return false;
    wake(R, &R->rwait[r]);
    return true;
}

static void run_all(struct run *R)
{
    for (int r = 0; r < R->P; r++)
        enqueue(R, r);
    for (;;) {
        while (R->qlen && !R->err) {
            int r = (int)R->queue[R->qhead];
            R->qhead = (R->qhead + 1) % (uint32_t)R->P;
            R->qlen--;
            R->queued[r] = 0;
            advance(R, r);
        }
        if (R->err)
            return;
        /* stalled (or done): the blocked rank with the lowest position
         * goes on without its edge */
        int best = -1;
        for (int r = 0; r < R->P; r++)
            if (R->pos[r] < R->nrec[r] && (best < 0 || R->pos[r] < R->pos[best]))
                best = r;
        if (best < 0)
            return;
        pass(R, best);
        wake(R, &R->rwait[best]);
        enqueue(R, best);
    }
}

/* ---- setting up a replay -------------------------------------------------------- */

static void run_free(struct run *R)
{
    for (int r = 0; R->cur && r < R->P; r++) {
        free(R->cur[r].v);
        free(R->src[r].e);
        free(R->tgt[r].e);
        free(R->contrib[r].e);
        free(R->snap[r]);
    }
    for (uint32_t k = 0; k < R->npool; k++)
        free(R->pool[k].v);
    free(R->pool);
    free(R->freed);
    free(R->cur);
    free(R->src);
    free(R->tgt);
    free(R->contrib);
    free(R->snap);
    free(R->pos);
    free(R->nrec);
    free(R->counted);
    free(R->arrived);
    free(R->passed);
    free(R->contributed);
    free(R->iwait);
    for (uint32_t ci = 0; R->iu && ci < R->ncoll; ci++)
        free(R->iu[ci].v);
    free(R->iu);
    free(R->iu_done);
    free(R->iu_from);
    free(R->gn);
    free(R->rgn);
    free(R->wn);
    free(R->rwait);
    free(R->queue);
    free(R->queued);
    free(R->tmp.v);
}

static int run_init(struct run *R, const struct dg_mpilog *const *logs, int P, const struct dg_match *m)
{
    size_t np = P > 0 ? (size_t)P : 1;
    R->P = P;
    R->logs = logs;
    R->m = m;
    R->ncoll = dg_match_ncoll(m);
    size_t nc = R->ncoll ? R->ncoll : 1;
    R->pos = calloc(np, sizeof *R->pos);
    R->nrec = calloc(np, sizeof *R->nrec);
    R->counted = malloc(np * sizeof *R->counted);
    R->cur = calloc(np, sizeof *R->cur);
    R->src = calloc(np, sizeof *R->src);
    R->tgt = calloc(np, sizeof *R->tgt);
    R->contrib = calloc(np, sizeof *R->contrib);
    R->snap = calloc(np, sizeof *R->snap);
    R->rwait = calloc(np, sizeof *R->rwait);
    R->queue = calloc(np, sizeof *R->queue);
    R->queued = calloc(np, 1);
    R->arrived = calloc(nc, sizeof *R->arrived);
    R->passed = calloc(nc, sizeof *R->passed);
    R->contributed = calloc(nc, sizeof *R->contributed);
    R->iwait = calloc(nc, sizeof *R->iwait);
    R->iu = calloc(nc, sizeof *R->iu);
    R->iu_done = calloc(nc, 1);
    R->iu_from = calloc(nc, sizeof *R->iu_from);
    if (!R->pos || !R->nrec || !R->counted || !R->cur || !R->src || !R->tgt || !R->contrib ||
        !R->snap || !R->rwait || !R->queue || !R->queued || !R->arrived || !R->passed ||
        !R->contributed || !R->iwait || !R->iu || !R->iu_done || !R->iu_from)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < P; r++) {
        R->nrec[r] = logs[r] ? logs[r]->n : 0;
        R->counted[r] = UINT32_MAX;
    }
    /* the contributions of the nonblocking collectives */
    for (uint32_t ci = 0; ci < R->ncoll; ci++) {
        uint32_t n = 0;
        const struct dg_pos *mem = dg_match_coll(m, ci, &n);
        bool nb = false;
        for (uint32_t k = 0; k < n && !nb; k++)
            nb = rec_at(R, mem[k])->flags & DG_MSGF_NONBLOCKING;
        for (uint32_t k = 0; nb && k < n; k++) {
            struct dg_pos c = contribution(rec_at(R, mem[k]), mem[k]);
            if (ev_push(&R->contrib[c.rank], c.pos, ci) < 0)
                return TRACE_ERR_NOMEM;
        }
    }
    for (int r = 0; r < P; r++)
        ev_sort(&R->contrib[r]);
    return 0;
}

/* ---- queries -------------------------------------------------------------------- */

static int query_cmp(const void *pa, const void *pb)
{
    const struct dg_hb_query *a = pa, *b = pb;
    int c = dg_pos_cmp(a->a, b->a);
    return c ? c : dg_pos_cmp(a->b, b->b);
}

static bool valid(const struct dg_mpilog *const *logs, int P, struct dg_pos p)
{
    return p.rank >= 0 && p.rank < P && logs[p.rank] && p.pos < logs[p.rank]->n;
}

/* Answers queries q[0..nq) (sorted, distinct, a and b valid and on
 * different ranks) into ans by one replay; with arr_at and arr_from
 * (chain mode: one token, q[0].a) also says where it arrived on each rank. */
static int replay(const struct dg_mpilog *const *logs, int P, const struct dg_match *m,
                  const struct dg_hb_query *q, size_t nq, uint8_t *ans, struct dg_pos *arr_at,
                  struct dg_pos *arr_from)
{
    struct run R = {0};
    uint32_t *qtok = malloc((nq ? nq : 1) * sizeof *qtok);
    uint32_t *pending = calloc(nq + dg_match_ncoll(m) + 1, sizeof *pending);
    uint32_t *gfirst = calloc(nq ? nq : 1, sizeof *gfirst), *rghead = calloc(nq ? nq : 1, sizeof *rghead);
    int rc = qtok && pending && gfirst && rghead ? run_init(&R, logs, P, m) : TRACE_ERR_NOMEM;
    R.gfirst = gfirst;
    R.rghead = rghead;
    R.qtok = qtok;
    R.pending = pending;
    R.ans = ans;
    R.arr_at = arr_at;
    R.arr_from = arr_from;
    uint32_t ntok = 0;
    for (size_t i = 0; rc == 0 && i < nq; i++) {
        if (i == 0 || dg_pos_cmp(q[i].a, q[i - 1].a)) {
            rc = ev_push(&R.src[q[i].a.rank], q[i].a.pos, ntok);
            ntok++;
        }
        qtok[i] = ntok - 1;
        pending[ntok - 1]++;
        ans[i] = 0;
        if (rc == 0 && !arr_at)
            rc = ev_push(&R.tgt[q[i].b.rank], q[i].b.pos, (uint32_t)i);
    }
    R.ntok = ntok;
    if (arr_at && nq)
        pending[0] = 1; /* never answered: it goes as far as it can */
    for (int r = 0; rc == 0 && r < P; r++) {
        ev_sort(&R.src[r]);
        ev_sort(&R.tgt[r]);
    }
    if (rc == 0) {
        run_all(&R);
        rc = R.err;
    }
    run_free(&R);
    free(qtok);
    free(pending);
    free(gfirst);
    free(rghead);
    return rc;
}

int dg_hb_build(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                const struct dg_hb_query *q, size_t nq, struct dg_hb **out)
{
    struct dg_hb *h = calloc(1, sizeof *h);
    if (!h)
        return TRACE_ERR_NOMEM;
    h->nranks = nranks;
    h->logs = logs;
    h->m = m;
    h->q = malloc((nq ? nq : 1) * sizeof *h->q);
    int rc = h->q ? 0 : TRACE_ERR_NOMEM;
    for (size_t i = 0; rc == 0 && i < nq; i++)
        if (valid(logs, nranks, q[i].a) && valid(logs, nranks, q[i].b) && q[i].a.rank != q[i].b.rank)
            h->q[h->nq++] = q[i];
    if (rc == 0) {
        if (h->nq > 1)
            qsort(h->q, h->nq, sizeof *h->q, query_cmp);
        size_t k = 0;
        for (size_t i = 0; i < h->nq; i++)
            if (k == 0 || query_cmp(&h->q[k - 1], &h->q[i]))
                h->q[k++] = h->q[i];
        h->nq = k;
        h->ans = malloc(h->nq ? h->nq : 1);
        rc = !h->ans ? TRACE_ERR_NOMEM : h->nq ? replay(logs, nranks, m, h->q, h->nq, h->ans, NULL, NULL) : 0;
    }
    if (rc < 0) {
        dg_hb_destroy(h);
        return rc;
    }
    *out = h;
    return 0;
}

void dg_hb_destroy(struct dg_hb *h)
{
    if (!h)
        return;
    free(h->q);
    free(h->ans);
    free(h);
}

int dg_hb_before(const struct dg_hb *h, struct dg_pos a, struct dg_pos b)
{
    if (!valid(h->logs, h->nranks, a) || !valid(h->logs, h->nranks, b))
        return 0;
    if (a.rank == b.rank)
        return a.pos < b.pos;
    struct dg_hb_query key = {a, b};
    const struct dg_hb_query *f = bsearch(&key, h->q, h->nq, sizeof key, query_cmp);
    if (f)
        return h->ans[f - h->q];
    uint8_t ans = 0; /* not asked: a replay of its own */
    int rc = replay(h->logs, h->nranks, h->m, &key, 1, &ans, NULL, NULL);
    return rc < 0 ? rc : ans;
}

size_t hb_chain_walk(const struct dg_pos *at, const struct dg_pos *from, struct dg_pos a, struct dg_pos b,
                     struct dg_pos *out, size_t max)
{
    /* walk back from b: on b's rank, the first record that knew of a is
     * where the knowledge arrived; its source is one step closer to a */
    struct dg_pos rev[256];
    size_t nrev = 0, n = 0;
    while (b.rank != a.rank && nrev + 2 <= sizeof rev / sizeof rev[0]) {
        struct dg_pos arrive = at[b.rank], src = from[b.rank];
        if (arrive.rank < 0 || arrive.pos > b.pos || src.rank < 0 || src.rank == b.rank)
            break;
        rev[nrev++] = arrive;
        rev[nrev++] = src;
        b = src;
    }
    /* pairs in order from a to b: (send, receive) */
    for (size_t i = nrev; i >= 2 && n + 2 <= max; i -= 2) {
        out[n++] = rev[i - 1];
        out[n++] = rev[i - 2];
    }
    return n;
}

size_t dg_hb_chain(const struct dg_hb *h, struct dg_pos a, struct dg_pos b, struct dg_pos *out,
                   size_t max)
{
    if (a.rank == b.rank || dg_hb_before(h, a, b) != 1)
        return 0;
    int P = h->nranks;
    struct dg_pos *at = malloc((size_t)P * sizeof *at), *from = malloc((size_t)P * sizeof *from);
    struct dg_hb_query key = {a, b};
    uint8_t ans;
    for (int r = 0; at && from && r < P; r++)
        at[r] = from[r] = DG_POS_NONE;
    size_t n = 0;
    if (at && from && replay(h->logs, P, h->m, &key, 1, &ans, at, from) == 0)
        n = hb_chain_walk(at, from, a, b, out, max);
    free(at);
    free(from);
    return n;
}
