/* hb-dist.c - dg_hb's answers (hb.c) by a replay spread over the
 * processes of a dg_xchg, the way dg_stall_check_dist (stall.c) spreads
 * the stall check: each process replays its own ranks under hb.c's rules,
 * and what a rank learns from another rank travels as a note carrying the
 * tokens the other knew:
 *   - a rank that passes a send notes what it knew to the receive's
 *     process (MSG): the receive may go, and takes it;
 *   - a member of a collective notes its arrival to the instance's owner
 *     (REACHED, with what it knew: the blocking rule passes the union of
 *     the givers), and a member of a nonblocking instance what it knew at
 *     its contribution (CONTRIB); the owner lets each member go (RELEASE)
 *     with what it takes: the givers' union, or the instance's group,
 *     built when its first taker may go, as hb.c builds it;
 *   - when no process has work or notes left and some rank is not done,
 *     the stall is broken as hb.c breaks it: the blocked rank with the
 *     lowest position over every process (an all-reduce MIN of position
 *     and rank) goes on without its edge, telling its instance's owner
 *     (STALLED).
 * Between two stalls every process ends where the serial replay ends
 * (a rank's progress only ever lets others progress), so the answers are
 * the serial ones for any number of processes.  The sets are hb.c's up to
 * their form: a collective over every rank puts its union into each
 * member's set instead of marking it known everywhere, and a group is
 * copied into its takers' sets.  A token retires through its home (the
 * process of its record): each answer of a query about it is told there
 * (DONE), and once none is left every process is told (RETIRED) and drops
 * it from the sets it merges.
 *
 * The queries travel first: each to its b's process (REG), which asks a's
 * process for a's token (TOK, answered by TOKANS: numbered by that
 * process, then globally once an all-reduce has summed the counts) and,
 * once b is passed, answers the asker (ANS).  The owner of a nonblocking
 * instance tells the members whose contribution is their record itself,
 * and in an instance that mixes blocking and nonblocking members the
 * nonblocking ones that must carry their set when they arrive (SETUP).
 * Memory per process: its ranks' records, arrays of the world size, the
 * members of the instances it owns, and the tokens in flight. */
#include <stdlib.h>
#include <string.h>

#include "hb-private.h"

enum {
    H_REG = 1, H_TOK, H_TOKANS, H_ANS, H_SETUP, /* before the replay */
    H_MSG, H_REACHED, H_CONTRIB, H_STALLED, H_RELEASE, H_DONE, H_RETIRED
};
enum { SET_CONTRIB = 1, SET_CARRY = 2 };

/* A note; ntok tokens (uint32_t) follow it. */
struct hnote {
    uint32_t kind, ntok;
    uint32_t inst, id;
    int32_t proc;
    uint32_t flags;
    struct dg_pos at, b;
};

/* A query answered here (its b is on one of this process's ranks). */
struct lq {
    struct dg_pos a, b;
    int32_t asker, home;
    uint32_t aid, tok;
    uint8_t live;
};

/* A member of an instance this process owns. */
enum { MB_ARRIVED = 1, MB_WAITING = 2, MB_CONTRIB = 4, MB_GONE = 8, MB_NB = 16, MB_ROOT = 32 };
struct inst {
    uint32_t base, n, narrived, ncontrib;
    uint8_t blocking, nb, broken, built;
    struct tokset group;
};

struct hd {
    const struct dg_mpilog *const *logs; /* this process's ranks */
    const struct dg_match *m;
    const int *owner;
    int P, K, me;
    uint8_t *ans;
    struct lq *lq;
    uint32_t nlq, clq;
    struct dg_map tokmap;  /* pos_key(a) -> this process's token number + 1 */
    struct dg_pos *tokpos; /* [ntok] */
    uint32_t *tokleft;     /* [ntok]: its queries not answered yet */
    uint32_t ntok, ctok, ntotal, *tokbase; /* tokbase [K + 1] */
    uint8_t *retired;      /* a bit per token */
    uint32_t *cur, *relpos; /* per rank: its next record; where it was released */
    uint8_t *rel;
    struct tokset *know;      /* per rank: the tokens it knows */
    struct evlist *src, *tgt;  /* per rank: tokens made, queries answered, by position */
    struct dg_map contrib;  /* pos_key(contribution) -> position of its COLL record */
    struct dg_map carry;    /* pos_key(COLL record): arrives with its set */
    struct dg_map inbox;    /* pos_key(receive) -> slot + 1 of what its send knew */
    struct tokset *slot;
    uint32_t nslot, cslot, *freed, nfreed, cfreed;
    uint32_t lo, hi;        /* instances this process owns */
    struct inst *in;
    uint8_t *mflag;
    uint16_t *mcall;
    struct tokset *mset, *cset; /* per member: what it knew on arriving, at its contribution */
    int *work;
    size_t nwork;
    uint8_t *queued;
    struct dg_bytes *out, *inb;
    struct tokset tmp;
    int rc;
};

static uint64_t pos_key(struct dg_pos p)
{
    return (uint64_t)(uint32_t)p.rank << 32 | p.pos;
}

/* ---- token sets ----------------------------------------------------------------------- */

static bool is_retired(const struct hd *R, uint32_t t)
{
    return t < R->ntotal && (R->retired[t >> 3] >> (t & 7) & 1);
}

static bool live(const void *ctx, uint32_t t)
{
    return !is_retired(ctx, t);
}

/* dst |= v[0..n) (sorted), without the retired tokens. */
static void ts_merge(struct hd *R, struct tokset *dst, const uint32_t *v, uint32_t n)
{
    if (!ts_merge_keep(dst, v, n, &R->tmp, live, R))
        R->rc = TRACE_ERR_NOMEM;
}

static void ts_add(struct hd *R, struct tokset *s, uint32_t t)
{
    if (!is_retired(R, t) && !ts_insert(s, t))
        R->rc = TRACE_ERR_NOMEM;
}

static void ts_free(struct tokset *s)
{
    free(s->v);
    *s = (struct tokset){0};
}

/* ---- notes ------------------------------------------------------------------------------ */

static int rank_owner(const struct hd *R, int r)
{
    if (r < 0 || r >= R->P)
        return -1;
    return R->owner ? R->owner[r] : 0;
}

static bool here(const struct hd *R, struct dg_pos p)
{
    return p.rank >= 0 && p.rank < R->P && R->logs[p.rank] && p.pos < R->logs[p.rank]->n;
}

static void deliver(struct hd *R, const struct hnote *n, const uint32_t *tok);

/* A note (and tokens tok[0..n->ntok)) to process `to`: taken at once
 * here, sent otherwise; to nobody if no process holds it. */
static void note(struct hd *R, int to, const struct hnote *n, const uint32_t *tok)
{
    if (to == R->me) {
        deliver(R, n, tok);
        return;
    }
    if (to < 0 || to >= R->K)
        return;
    if (!dg_bytes_put(&R->out[to], n, sizeof *n) ||
        (n->ntok && !dg_bytes_put(&R->out[to], tok, n->ntok * sizeof *tok)))
        R->rc = TRACE_ERR_NOMEM;
}

static void note_simple(struct hd *R, int to, uint32_t kind, uint32_t inst, uint32_t id, struct dg_pos at)
{
    struct hnote n = {kind, 0, inst, id, R->me, 0, at, DG_POS_NONE};
    note(R, to, &n, NULL);
}

static void note_set(struct hd *R, int to, uint32_t kind, uint32_t inst, struct dg_pos at, const struct tokset *s)
{
    struct hnote n = {kind, s ? s->n : 0, inst, 0, R->me, 0, at, DG_POS_NONE};
    note(R, to, &n, s ? s->v : NULL);
}

static void wake(struct hd *R, int r)
{
    if (!R->queued[r]) {
        R->queued[r] = 1;
        R->work[R->nwork++] = r;
    }
}

/* ---- before the replay: the queries' way to their tokens -------------------------------- */

static void answer(struct hd *R, int asker, uint32_t aid, bool yes)
{
    note_simple(R, asker, H_ANS, yes, aid, DG_POS_NONE);
}

static void on_reg(struct hd *R, const struct hnote *n)
{
    struct dg_pos a = n->at, b = n->b;
    if (!here(R, b)) {
        answer(R, n->proc, n->id, false);
    } else if (a.rank == b.rank) {
        answer(R, n->proc, n->id, a.pos < b.pos);
    } else if (rank_owner(R, a.rank) < 0 || rank_owner(R, a.rank) >= R->K) {
        answer(R, n->proc, n->id, false);
    } else if (!room((void **)&R->lq, R->nlq, &R->clq, sizeof *R->lq)) {
        R->rc = TRACE_ERR_NOMEM;
    } else {
        R->lq[R->nlq] = (struct lq){a, b, n->proc, -1, n->id, 0, 0};
        note_simple(R, rank_owner(R, a.rank), H_TOK, 0, R->nlq++, a);
    }
}

static void on_tok(struct hd *R, const struct hnote *n)
{
    if (!here(R, n->at)) {
        note_simple(R, n->proc, H_TOKANS, UINT32_MAX, n->id, n->at);
        return;
    }
    uint64_t *t = dg_map_put(&R->tokmap, pos_key(n->at), 0);
    if (!t) {
        R->rc = TRACE_ERR_NOMEM;
        return;
    }
    if (!*t) {
        if (!room((void **)&R->tokpos, R->ntok, &R->ctok, sizeof *R->tokpos) ||
            !(R->tokleft = realloc(R->tokleft, R->ctok * sizeof *R->tokleft))) {
            R->rc = TRACE_ERR_NOMEM;
            return;
        }
        R->tokpos[R->ntok] = n->at;
        R->tokleft[R->ntok] = 0;
        *t = ++R->ntok;
    }
    R->tokleft[*t - 1]++;
    note_simple(R, n->proc, H_TOKANS, (uint32_t)*t - 1, n->id, n->at);
}

static void on_tokans(struct hd *R, const struct hnote *n)
{
    if (n->id >= R->nlq)
        return;
    struct lq *q = &R->lq[n->id];
    if (n->inst == UINT32_MAX) {
        answer(R, q->asker, q->aid, false);
        return;
    }
    q->home = n->proc;
    q->tok = n->inst;
    q->live = 1;
}

/* ---- the instances this process owns ------------------------------------------------------ */

static void release(struct hd *R, uint32_t inst, uint32_t j, const struct tokset *s)
{
    struct inst *I = &R->in[inst - R->lo];
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(R->m, inst, &n);
    R->mflag[I->base + j] = (uint8_t)((R->mflag[I->base + j] & ~MB_WAITING) | MB_GONE);
    note_set(R, rank_owner(R, mem[j].rank), H_RELEASE, inst, mem[j], s);
}

/* Every member has arrived at a blocking instance: the givers' union (by
 * the call of member k, the one that resolves it) to the takers, unless a
 * member went past it in a stall (then it passes nothing). */
static void resolve_blocking(struct hd *R, uint32_t inst, uint32_t k)
{
    struct inst *I = &R->in[inst - R->lo];
    struct tokset all = {0};
    int dir = coll_dir(R->mcall[I->base + k]);
    for (uint32_t j = 0; j < I->n && !I->broken; j++)
        if (gives(dir, R->mflag[I->base + j] & MB_ROOT))
            ts_merge(R, &all, R->mset[I->base + j].v, R->mset[I->base + j].n);
    for (uint32_t j = 0; j < I->n; j++) {
        uint8_t f = R->mflag[I->base + j];
        ts_free(&R->mset[I->base + j]);
        if (f & MB_GONE)
            continue;
        release(R, inst, j, !I->broken && takes(dir, f & MB_ROOT) ? &all : NULL);
    }
    ts_free(&all);
}

/* Whether waiting nonblocking member j may go: every other member has
 * contributed. */
static bool nb_ready(const struct hd *R, const struct inst *I, uint32_t j)
{
    return I->ncontrib - ((R->mflag[I->base + j] & MB_CONTRIB) ? 1 : 0) + 1 >= I->n;
}

static void release_nb(struct hd *R, uint32_t inst, uint32_t j)
{
    struct inst *I = &R->in[inst - R->lo];
    int dir = coll_dir(R->mcall[I->base + j]);
    if (!takes(dir, R->mflag[I->base + j] & MB_ROOT)) {
        release(R, inst, j, NULL);
        return;
    }
    if (!I->built) { /* what its givers knew at their contributions, so far */
        I->built = 1;
        for (uint32_t i = 0; i < I->n; i++) {
            if ((R->mflag[I->base + i] & MB_CONTRIB) && gives(dir, R->mflag[I->base + i] & MB_ROOT))
                ts_merge(R, &I->group, R->cset[I->base + i].v, R->cset[I->base + i].n);
            ts_free(&R->cset[I->base + i]);
        }
    }
    struct tokset g = I->group; /* released to this process: merged into another set */
    release(R, inst, j, &g);
}

static void sweep_nb(struct hd *R, uint32_t inst)
{
    struct inst *I = &R->in[inst - R->lo];
    for (uint32_t j = 0; j < I->n; j++) {
        uint8_t f = R->mflag[I->base + j];
        if ((f & MB_WAITING) && (f & MB_NB) && nb_ready(R, I, j))
            release_nb(R, inst, j);
    }
}

static void on_member(struct hd *R, const struct hnote *n, const uint32_t *tok)
{
    if (n->inst < R->lo || n->inst >= R->hi)
        return;
    struct inst *I = &R->in[n->inst - R->lo];
    uint32_t j = dg_match_coll_place(R->m, n->inst, n->at.rank);
    if (j >= I->n)
        return;
    uint8_t *f = &R->mflag[I->base + j];
    if (n->kind == H_STALLED) {
        I->broken = 1;
        *f = (uint8_t)((*f & ~MB_WAITING) | MB_GONE);
        return;
    }
    if (n->kind == H_CONTRIB) {
        if (*f & MB_CONTRIB)
            return;
        *f |= MB_CONTRIB;
        I->ncontrib++;
        if (!I->built) {
            struct tokset *c = &R->cset[I->base + j];
            ts_merge(R, c, tok, n->ntok);
        }
        if (I->ncontrib + 1 >= I->n)
            sweep_nb(R, n->inst);
        return;
    }
    /* reached */
    if (*f & (MB_ARRIVED | MB_GONE))
        return;
    *f |= MB_ARRIVED | MB_WAITING;
    I->narrived++;
    if (I->blocking)
        ts_merge(R, &R->mset[I->base + j], tok, n->ntok);
    if (I->blocking && I->narrived == I->n) {
        uint32_t k = j;
        for (uint32_t i = 0; (*f & MB_NB) && i < I->n; i++)
            if (!(R->mflag[I->base + i] & MB_NB)) {
                k = i; /* a blocking member resolves it */
                break;
            }
        resolve_blocking(R, n->inst, k);
    } else if ((*f & MB_NB) && nb_ready(R, I, j)) {
        release_nb(R, n->inst, j);
    }
}

/* Members, their flags and calls; the SETUP notes of nonblocking instances. */
static int inst_setup(struct hd *R)
{
    dg_match_coll_here(R->m, &R->lo, &R->hi);
    uint32_t ni = R->hi - R->lo, total = 0;
    if (!(R->in = calloc(ni ? ni : 1, sizeof *R->in)))
        return TRACE_ERR_NOMEM;
    for (uint32_t i = 0; i < ni; i++) {
        dg_match_coll(R->m, R->lo + i, &R->in[i].n);
        R->in[i].base = total;
        total += R->in[i].n;
    }
    R->mflag = calloc(total ? total : 1, 1);
    R->mcall = calloc(total ? total : 1, sizeof *R->mcall);
    R->mset = calloc(total ? total : 1, sizeof *R->mset);
    R->cset = calloc(total ? total : 1, sizeof *R->cset);
    if (!R->mflag || !R->mcall || !R->mset || !R->cset)
        return TRACE_ERR_NOMEM;
    for (uint32_t i = 0; i < ni; i++) {
        struct inst *I = &R->in[i];
        uint32_t n = 0;
        const struct dg_pos *mem = dg_match_coll(R->m, R->lo + i, &n);
        for (uint32_t j = 0; j < n; j++) {
            const struct dg_msgrec *y = dg_match_rec(R->m, mem[j]);
            bool nb = y && (y->flags & DG_MSGF_NONBLOCKING);
            R->mflag[I->base + j] = (uint8_t)((nb ? MB_NB : 0) | (y && (y->flags & DG_MSGF_ROOT) ? MB_ROOT : 0));
            R->mcall[I->base + j] = y ? y->call : 0;
            I->nb |= nb;
            I->blocking |= !nb;
        }
        for (uint32_t j = 0; I->nb && j < n; j++) {
            const struct dg_msgrec *y = dg_match_rec(R->m, mem[j]);
            bool nb = R->mflag[I->base + j] & MB_NB;
            uint32_t fl = (nb && y && y->fwd_pos < mem[j].pos ? 0 : SET_CONTRIB) | (nb && I->blocking ? SET_CARRY : 0);
            if (fl) {
                struct hnote s = {H_SETUP, 0, R->lo + i, 0, R->me, fl, mem[j], DG_POS_NONE};
                note(R, rank_owner(R, mem[j].rank), &s, NULL);
            }
        }
    }
    return R->rc;
}

/* ---- a rank's replay ---------------------------------------------------------------------- */

static uint32_t slot_new(struct hd *R)
{
    if (R->nfreed)
        return R->freed[--R->nfreed];
    if (!room((void **)&R->slot, R->nslot, &R->cslot, sizeof *R->slot) ||
        !room((void **)&R->freed, R->nslot, &R->cfreed, sizeof *R->freed)) {
        R->rc = TRACE_ERR_NOMEM;
        return UINT32_MAX;
    }
    R->slot[R->nslot] = (struct tokset){0};
    return R->nslot++;
}

static void slot_free(struct hd *R, uint32_t s)
{
    ts_free(&R->slot[s]);
    R->freed[R->nfreed++] = s; /* freed has room for every slot */
}

static void on_msg(struct hd *R, const struct hnote *n, const uint32_t *tok)
{
    struct dg_pos p = n->at;
    if (!here(R, p) || R->cur[p.rank] > p.pos)
        return; /* passed in a stall: nobody takes it */
    uint64_t *v = dg_map_put(&R->inbox, pos_key(p), 0);
    if (!v) {
        R->rc = TRACE_ERR_NOMEM;
        return;
    }
    if (!*v) {
        uint32_t s = slot_new(R);
        if (s == UINT32_MAX)
            return;
        *v = (uint64_t)s + 1;
    }
    ts_merge(R, &R->slot[*v - 1], tok, n->ntok);
    if (R->cur[p.rank] == p.pos)
        wake(R, p.rank);
}

static void on_release(struct hd *R, const struct hnote *n, const uint32_t *tok)
{
    struct dg_pos p = n->at;
    if (!here(R, p) || R->cur[p.rank] != p.pos)
        return; /* it went past in a stall */
    ts_merge(R, &R->know[p.rank], tok, n->ntok);
    R->rel[p.rank] = 1;
    R->relpos[p.rank] = p.pos;
    wake(R, p.rank);
}

static void deliver(struct hd *R, const struct hnote *n, const uint32_t *tok)
{
    switch (n->kind) {
    case H_REG: on_reg(R, n); break;
    case H_TOK: on_tok(R, n); break;
    case H_TOKANS: on_tokans(R, n); break;
    case H_ANS: R->ans[n->id] = (uint8_t)(n->inst != 0); break;
    case H_SETUP:
        if (here(R, n->at)) {
            if ((n->flags & SET_CONTRIB) && !dg_map_put(&R->contrib, pos_key(n->at), n->at.pos))
                R->rc = TRACE_ERR_NOMEM;
            if ((n->flags & SET_CARRY) && !dg_map_put(&R->carry, pos_key(n->at), 1))
                R->rc = TRACE_ERR_NOMEM;
        }
        break;
    case H_MSG: on_msg(R, n, tok); break;
    case H_REACHED: case H_CONTRIB: case H_STALLED: on_member(R, n, tok); break;
    case H_RELEASE: on_release(R, n, tok); break;
    case H_DONE: {
        uint32_t t = n->id - R->tokbase[R->me];
        if (n->id >= R->tokbase[R->me] && t < R->ntok && R->tokleft[t] && --R->tokleft[t] == 0)
            for (int q = 0; q < R->K; q++)
                note_simple(R, q, H_RETIRED, 0, n->id, DG_POS_NONE);
        break;
    }
    case H_RETIRED:
        if (n->id < R->ntotal)
            R->retired[n->id >> 3] |= (uint8_t)(1u << (n->id & 7));
        break;
    }
}

/* What rank r says on reaching its record cur: its arrival, to the
 * instance's owner, with what it knows (a blocking member's, or a
 * nonblocking one's in an instance with blocking members). */
static void arrive(struct hd *R, int r)
{
    uint32_t p = R->cur[r];
    if (p >= R->logs[r]->n)
        return;
    const struct dg_msgrec *x = &R->logs[r]->rec[p];
    struct dg_pos at = {r, p};
    uint32_t inst;
    if (x->kind != DG_MSG_COLL || (inst = dg_match_coll_of(R->m, at)) == UINT32_MAX)
        return;
    bool carry = !(x->flags & DG_MSGF_NONBLOCKING) || (R->carry.n && dg_map_get(&R->carry, pos_key(at)));
    note_set(R, dg_match_coll_owner(R->m, inst), H_REACHED, inst, at, carry ? &R->know[r] : NULL);
}

/* Rank r passes its record cur: the queries asked there are answered,
 * the tokens made there join what it knows, a send and a contribution
 * tell what it knows. */
static void pass(struct hd *R, int r)
{
    uint32_t p = R->cur[r];
    struct dg_pos at = {r, p};
    struct tokset *k = &R->know[r];
    for (struct evlist *L = &R->tgt[r]; L->at < L->n && L->e[L->at].pos == p; L->at++) {
        struct lq *q = &R->lq[L->e[L->at].id];
        answer(R, q->asker, q->aid, ts_has(k, q->tok));
        note_simple(R, q->home, H_DONE, 0, q->tok, DG_POS_NONE);
    }
    for (struct evlist *L = &R->src[r]; L->at < L->n && L->e[L->at].pos == p; L->at++)
        ts_add(R, k, L->e[L->at].id);
    const struct dg_msgrec *x = &R->logs[r]->rec[p];
    if (x->kind == DG_MSG_SEND) {
        struct dg_pos q = dg_match_peer(R->m, at);
        if (q.rank >= 0)
            note_set(R, rank_owner(R, q.rank), H_MSG, 0, q, k);
    }
    const uint64_t *c = R->contrib.n ? dg_map_get(&R->contrib, pos_key(at)) : NULL;
    if (c) {
        struct dg_pos cp = {r, (uint32_t)*c};
        uint32_t inst = dg_match_coll_of(R->m, cp);
        if (inst != UINT32_MAX)
            note_set(R, dg_match_coll_owner(R->m, inst), H_CONTRIB, inst, cp, k);
    }
    R->cur[r]++;
    arrive(R, r);
}

static bool can_pass(struct hd *R, int r)
{
    struct dg_pos p = {r, R->cur[r]};
    const struct dg_msgrec *x = &R->logs[r]->rec[p.pos];
    if (x->kind == DG_MSG_RECV) {
        if (dg_match_peer(R->m, p).rank < 0)
            return true;
        uint64_t *v = R->inbox.n ? dg_map_get(&R->inbox, pos_key(p)) : NULL;
        if (!v)
            return false;
        ts_merge(R, &R->know[r], R->slot[*v - 1].v, R->slot[*v - 1].n);
        slot_free(R, (uint32_t)*v - 1);
        dg_map_del(&R->inbox, pos_key(p));
        return true;
    }
    if (x->kind == DG_MSG_COLL && dg_match_coll_of(R->m, p) != UINT32_MAX)
        return R->rel[r] && R->relpos[r] == p.pos;
    return true;
}

static void run_local(struct hd *R)
{
    while (R->nwork && R->rc == 0) {
        int r = R->work[--R->nwork];
        R->queued[r] = 0;
        while (R->cur[r] < R->logs[r]->n && R->rc == 0 && can_pass(R, r))
            pass(R, r);
    }
}

/* A stall broken at rank r: it passes its record without the edge. */
static void stall_pass(struct hd *R, int r)
{
    struct dg_pos p = {r, R->cur[r]};
    const struct dg_msgrec *x = &R->logs[r]->rec[p.pos];
    uint32_t inst;
    if (x->kind == DG_MSG_COLL && (inst = dg_match_coll_of(R->m, p)) != UINT32_MAX)
        note_simple(R, dg_match_coll_owner(R->m, inst), H_STALLED, inst, 0, p);
    pass(R, r);
    wake(R, r);
}

/* ---- rounds ------------------------------------------------------------------------------- */

/* One round of the exchange: the notes for other processes go, theirs for
 * this one are taken.  Returns whether any process sent anything, or a
 * negative status. */
static int round_trip(struct hd *R, const struct dg_xchg *x)
{
    int rc = x->alltoall(x->ctx, R->rc, R->out, R->inb);
    if (rc < 0)
        return rc;
    for (int q = 0; q < R->K; q++) {
        size_t off = 0;
        while (off + sizeof(struct hnote) <= R->inb[q].len) {
            struct hnote n;
            memcpy(&n, R->inb[q].p + off, sizeof n);
            off += sizeof n;
            size_t tb = (size_t)n.ntok * sizeof(uint32_t);
            if (tb > R->inb[q].len - off)
                break; /* cannot happen: the notes are ours */
            uint32_t *tok = NULL;
            if (n.ntok && !(tok = malloc(tb))) {
                R->rc = TRACE_ERR_NOMEM;
                break;
            }
            if (tb)
                memcpy(tok, R->inb[q].p + off, tb);
            off += tb;
            deliver(R, &n, tok);
            free(tok);
        }
        dg_bytes_free(&R->inb[q]);
    }
    return rc;
}

/* The tokens numbered over every process; each query's token, each
 * token's record, by position. */
static int number_tokens(struct hd *R, const struct dg_xchg *x)
{
    int64_t *cnt = calloc((size_t)R->K, sizeof *cnt);
    int rc = dg_xchg_agree(x, cnt ? 0 : TRACE_ERR_NOMEM);
    if (rc < 0) {
        free(cnt);
        return rc;
    }
    cnt[R->me] = R->ntok;
    if (R->K > 1 && (rc = x->allreduce(x->ctx, cnt, R->K, DG_XCHG_SUM)) < 0) {
        free(cnt);
        return rc;
    }
    if (!(R->tokbase = malloc(((size_t)R->K + 1) * sizeof *R->tokbase)))
        rc = TRACE_ERR_NOMEM;
    for (int q = 0; rc == 0 && q <= R->K; q++) {
        uint64_t b = q ? R->tokbase[q - 1] + (uint64_t)cnt[q - 1] : 0;
        if (b > UINT32_MAX - 1)
            rc = TRACE_ERR_ARG; /* more than 4 G tokens */
        else
            R->tokbase[q] = (uint32_t)b;
    }
    free(cnt);
    if (rc == 0) {
        R->ntotal = R->tokbase[R->K];
        if (!(R->retired = calloc(R->ntotal / 8 + 1, 1)))
            rc = TRACE_ERR_NOMEM;
    }
    for (uint32_t i = 0; rc == 0 && i < R->nlq; i++) {
        struct lq *q = &R->lq[i];
        if (!q->live)
            continue;
        q->tok += R->tokbase[q->home];
        rc = ev_push(&R->tgt[q->b.rank], q->b.pos, i);
    }
    for (uint32_t t = 0; rc == 0 && t < R->ntok; t++)
        rc = ev_push(&R->src[R->tokpos[t].rank], R->tokpos[t].pos, R->tokbase[R->me] + t);
    for (int r = 0; rc == 0 && r < R->P; r++) {
        ev_sort(&R->tgt[r]);
        ev_sort(&R->src[r]);
    }
    return dg_xchg_agree(x, rc);
}

static int hd_init(struct hd *R)
{
    size_t np = R->P > 0 ? (size_t)R->P : 1;
    R->cur = calloc(np, sizeof *R->cur);
    R->relpos = calloc(np, sizeof *R->relpos);
    R->rel = calloc(np, 1);
    R->know = calloc(np, sizeof *R->know);
    R->src = calloc(np, sizeof *R->src);
    R->tgt = calloc(np, sizeof *R->tgt);
    R->work = calloc(np, sizeof *R->work);
    R->queued = calloc(np, 1);
    R->out = dg_bytes_per_proc(R->K);
    R->inb = dg_bytes_per_proc(R->K);
    if (!R->cur || !R->relpos || !R->rel || !R->know || !R->src || !R->tgt || !R->work || !R->queued ||
        !R->out || !R->inb)
        return TRACE_ERR_NOMEM;
    /* nonblocking members that contribute at their start */
    for (int r = 0; r < R->P; r++) {
        const struct dg_mpilog *log = R->logs[r];
        for (uint32_t i = 0; log && i < log->n; i++) {
            const struct dg_msgrec *y = &log->rec[i];
            if (y->kind == DG_MSG_COLL && (y->flags & DG_MSGF_NONBLOCKING) && y->fwd_pos < i &&
                dg_match_coll_of(R->m, (struct dg_pos){r, i}) != UINT32_MAX &&
                !dg_map_put(&R->contrib, pos_key((struct dg_pos){r, (uint32_t)y->fwd_pos}), i))
                return TRACE_ERR_NOMEM;
        }
    }
    return inst_setup(R);
}

static void hd_free(struct hd *R)
{
    for (int r = 0; r < R->P; r++) {
        if (R->know)
            ts_free(&R->know[r]);
        if (R->src)
            free(R->src[r].e);
        if (R->tgt)
            free(R->tgt[r].e);
    }
    for (uint32_t s = 0; s < R->nslot; s++)
        free(R->slot[s].v);
    uint32_t total = R->in && R->hi > R->lo ? R->in[R->hi - R->lo - 1].base + R->in[R->hi - R->lo - 1].n : 0;
    for (uint32_t k = 0; k < total; k++) {
        if (R->mset)
            free(R->mset[k].v);
        if (R->cset)
            free(R->cset[k].v);
    }
    for (uint32_t i = 0; R->in && i < R->hi - R->lo; i++)
        free(R->in[i].group.v);
    free(R->in);
    free(R->mflag);
    free(R->mcall);
    free(R->mset);
    free(R->cset);
    free(R->slot);
    free(R->freed);
    free(R->cur);
    free(R->relpos);
    free(R->rel);
    free(R->know);
    free(R->src);
    free(R->tgt);
    free(R->work);
    free(R->queued);
    dg_bytes_per_proc_free(R->out, R->K);
    dg_bytes_per_proc_free(R->inb, R->K);
    free(R->lq);
    free(R->tokpos);
    free(R->tokleft);
    free(R->tokbase);
    free(R->retired);
    free(R->tmp.v);
    dg_map_free(&R->tokmap);
    dg_map_free(&R->contrib);
    dg_map_free(&R->carry);
    dg_map_free(&R->inbox);
}

/* Until no process has work or notes left; then, while some rank is not
 * done, the stall is broken at the lowest (position, rank) of all. */
static int replay(struct hd *R, const struct dg_xchg *x)
{
    for (int r = 0; r < R->P; r++)
        if (R->logs[r] && R->logs[r]->n) {
            wake(R, r);
            arrive(R, r);
        }
    for (;;) {
        int rc;
        do
            run_local(R);
        while ((rc = round_trip(R, x)) > 0);
        if (rc < 0)
            return rc;
        /* the lowest position of a rank not done, then the lowest such rank */
        int64_t low[2] = {INT64_MAX, INT64_MAX};
        for (int r = 0; r < R->P; r++)
            if (R->logs[r] && R->cur[r] < R->logs[r]->n && R->cur[r] < low[0])
                low[0] = R->cur[r];
        if (R->K > 1 && (rc = x->allreduce(x->ctx, low, 1, DG_XCHG_MIN)) < 0)
            return rc;
        if (low[0] == INT64_MAX)
            return 0;
        for (int r = 0; r < R->P && low[1] == INT64_MAX; r++)
            if (R->logs[r] && R->cur[r] < R->logs[r]->n && R->cur[r] == low[0])
                low[1] = r;
        if (R->K > 1 && (rc = x->allreduce(x->ctx, &low[1], 1, DG_XCHG_MIN)) < 0)
            return rc;
        int r = (int)low[1];
        if (r < R->P && R->logs[r])
            stall_pass(R, r);
    }
}

int dg_hb_answer_dist(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m, const int *owner,
                      const struct dg_xchg *x, const struct dg_hb_query *q, size_t nq, uint8_t *ans)
{
    struct hd R = {.logs = logs, .m = m, .owner = owner, .P = nranks, .K = x->nprocs, .me = x->proc, .ans = ans};
    if (nq)
        memset(ans, 0, nq);
    int rc = dg_xchg_agree(x, nq > UINT32_MAX ? TRACE_ERR_ARG : hd_init(&R));
    if (rc < 0) {
        hd_free(&R);
        return rc; /* every process leaves with it */
    }
    /* the queries to their b's processes, and on to their tokens (a
     * failure here travels as this process's status) */
    for (size_t i = 0; R.rc == 0 && i < nq; i++) {
        int to = rank_owner(&R, q[i].b.rank);
        if (q[i].a.rank < 0 || q[i].a.rank >= nranks || to < 0 || to >= R.K)
            continue; /* 0: outside the logs */
        struct hnote n = {H_REG, 0, 0, (uint32_t)i, R.me, 0, q[i].a, q[i].b};
        note(&R, to, &n, NULL);
    }
    while ((rc = round_trip(&R, x)) > 0)
        ;
    if (rc == 0)
        rc = number_tokens(&R, x);
    if (rc == 0)
        rc = replay(&R, x);
    hd_free(&R);
    return rc;
}
