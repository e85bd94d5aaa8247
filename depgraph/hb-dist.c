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
 * the serial ones for any number of processes.  The sets take hb.c's
 * forms: a blocking collective over every rank that passes all to all (or
 * from a root) sends its union once to each process, which marks its ranks
 * as knowing it from their record of it on (WORLD) and empties the
 * givers' sets; a nonblocking instance's group goes once to every process
 * (GROUP), and a taker's set holds the group's token (ntotal
 * + instance) while a token in it lives; every process gets each group
 * (before any set with its token), so sets travel with group tokens.  A
 * token retires through its home (the
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
 * members of the instances it owns, and the tokens in flight.
 *
 * A chain (dg_hb_chain_dist) is the same replay with one query, asked by
 * process 0, whose token never retires: where each rank first learns it,
 * and from which record, is noted by the rank's process (the sources of
 * what a collective passes are chosen by its owner and travel in the
 * notes' b), then reduced to every process and walked back from b. */
#include <stdlib.h>
#include <string.h>

#include "hb-dist-private.h"
static uint64_t pos_key(struct dg_pos p)
{
    return (uint64_t)(uint32_t)p.rank << 32 | p.pos;
}

/* ---- token sets ----------------------------------------------------------------------- */

static const struct group *group_of(const struct hd *R, uint32_t g)
{
    const uint64_t *v = R->gmap.n ? dg_map_get(&R->gmap, g - R->ntotal) : NULL;
    return v ? &R->grp[*v - 1] : NULL;
}

/* A record token no query needs any more, or a group none of whose
 * tokens lives. */
static bool is_retired(const struct hd *R, uint32_t t)
{
    if (t < R->ntotal)
        return R->retired[t >> 3] >> (t & 7) & 1;
    const struct group *g = group_of(R, t);
    return !g || !g->live;
}

static bool live(const void *ctx, uint32_t t)
{
    return !is_retired(ctx, t);
}

/* dst |= v[0..n) (sorted), without the retired tokens. */
void hd_ts_merge(struct hd *R, struct tokset *dst, const uint32_t *v, uint32_t n)
{
    if (!ts_merge_keep(dst, v, n, &R->tmp, live, R))
        R->rc = TRACE_ERR_NOMEM;
}

static void ts_add(struct hd *R, struct tokset *s, uint32_t t)
{
    if (!is_retired(R, t) && !ts_insert(s, t))
        R->rc = TRACE_ERR_NOMEM;
}

/* dst |= v[0..n) with its groups opened (record tokens only). */
void hd_ts_merge_flat(struct hd *R, struct tokset *dst, const uint32_t *v, uint32_t n)
{
    uint32_t k = 0;
    while (k < n && v[k] < R->ntotal)
        k++;
    hd_ts_merge(R, dst, v, k);
    for (; k < n; k++) {
        const struct group *g = group_of(R, v[k]);
        if (g && g->live)
            hd_ts_merge(R, dst, g->s.v, g->s.n);
    }
}

void hd_ts_free(struct tokset *s)
{
    free(s->v);
    *s = (struct tokset){0};
}

/* ---- notes ------------------------------------------------------------------------------ */

int hd_rank_owner(const struct hd *R, int r)
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
static void chain_arrive(struct hd *R, int r, uint32_t p, struct dg_pos from);

/* A note (and tokens tok[0..n->ntok)) to process `to`: taken at once
 * here, sent otherwise; to nobody if no process holds it. */
void hd_note(struct hd *R, int to, const struct hnote *n, const uint32_t *tok)
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

void hd_note_simple(struct hd *R, int to, uint32_t kind, uint32_t inst, uint32_t id, struct dg_pos at)
{
    struct hnote n = {kind, 0, inst, id, R->me, 0, at, DG_POS_NONE};
    hd_note(R, to, &n, NULL);
}

void hd_note_set(struct hd *R, int to, uint32_t kind, uint32_t inst, struct dg_pos at, const struct tokset *s)
{
    struct hnote n = {kind, s ? s->n : 0, inst, 0, R->me, 0, at, DG_POS_NONE};
    hd_note(R, to, &n, s ? s->v : NULL);
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
    hd_note_simple(R, asker, H_ANS, yes, aid, DG_POS_NONE);
}

static void on_reg(struct hd *R, const struct hnote *n)
{
    struct dg_pos a = n->at, b = n->b;
    if (!here(R, b)) {
        answer(R, n->proc, n->id, false);
    } else if (a.rank == b.rank) {
        answer(R, n->proc, n->id, a.pos < b.pos);
    } else if (hd_rank_owner(R, a.rank) < 0 || hd_rank_owner(R, a.rank) >= R->K) {
        answer(R, n->proc, n->id, false);
    } else if (!room((void **)&R->lq, R->nlq, &R->clq, sizeof *R->lq)) {
        R->rc = TRACE_ERR_NOMEM;
    } else {
        R->lq[R->nlq] = (struct lq){a, b, n->proc, -1, n->id, 0, 0};
        hd_note_simple(R, hd_rank_owner(R, a.rank), H_TOK, 0, R->nlq++, a);
    }
}

static void on_tok(struct hd *R, const struct hnote *n)
{
    if (!here(R, n->at)) {
        hd_note_simple(R, n->proc, H_TOKANS, UINT32_MAX, n->id, n->at);
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
    hd_note_simple(R, n->proc, H_TOKANS, (uint32_t)*t - 1, n->id, n->at);
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
    hd_ts_free(&R->slot[s]);
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
    hd_ts_merge(R, &R->slot[*v - 1], tok, n->ntok);
    if (R->cur[p.rank] == p.pos)
        wake(R, p.rank);
}

static void on_release(struct hd *R, const struct hnote *n, const uint32_t *tok)
{
    struct dg_pos p = n->at;
    if (!here(R, p) || R->cur[p.rank] != p.pos)
        return; /* it went past in a stall */
    if (n->flags & 1) {
        uint32_t g = R->ntotal + n->inst;
        if (!is_retired(R, g))
            ts_add(R, &R->know[p.rank], g);
    } else {
        hd_ts_merge(R, &R->know[p.rank], tok, n->ntok);
    }
    chain_arrive(R, p.rank, p.pos, n->b);
    R->rel[p.rank] = 1;
    R->relpos[p.rank] = p.pos;
    wake(R, p.rank);
}

/* Collective w over every rank passed tok[0..ntok) all to all (or from
 * its root): each rank here, at its record of it, knows them from there
 * on, and a giver's own set is in them. */
static void on_world(struct hd *R, const struct hnote *n, const uint32_t *tok)
{
    if (!room((void **)&R->wset, R->nworld, &R->cworld, sizeof *R->wset) ||
        !(R->wbits = realloc(R->wbits, (size_t)R->cworld * R->wbytes))) {
        R->rc = TRACE_ERR_NOMEM;
        return;
    }
    uint32_t w = R->nworld++;
    uint8_t *bits = &R->wbits[(size_t)w * R->wbytes];
    memset(bits, 0, R->wbytes);
    R->wset[w] = (struct tokset){0};
    hd_ts_merge(R, &R->wset[w], tok, n->ntok);
    for (uint32_t i = 0; i < n->ntok && R->rc == 0; i++) {
        uint64_t *h = dg_map_put(&R->wfirst, tok[i], 0);
        if (!h || !room((void **)&R->wn, R->nwn, &R->cwn, sizeof *R->wn)) {
            R->rc = TRACE_ERR_NOMEM;
            return;
        }
        R->wn[R->nwn] = (struct wnode){w, (uint32_t)*h};
        *h = ++R->nwn;
    }
    bool traced = R->arr_at && ts_has(&R->wset[w], 0);
    for (int r = 0; r < R->P; r++) {
        struct dg_pos p = {r, R->cur[r]};
        if (!here(R, p) || dg_match_coll_of(R->m, p) != n->inst)
            continue;
        bits[r >> 3] |= (uint8_t)(1u << (r & 7));
        if (traced && R->arr_at[r].rank < 0) {
            R->arr_at[r] = p;
            R->arr_from[r] = n->b;
        }
        if (gives((int)n->flags, R->logs[r]->rec[p.pos].flags & DG_MSGF_ROOT))
            R->know[r].n = 0; /* all it knew is in the collective's */
        R->rel[r] = 1;
        R->relpos[r] = p.pos;
        wake(R, r);
    }
}

/* Instance n->inst's group: kept once here, for its takers. */
static void on_group(struct hd *R, const struct hnote *n, const uint32_t *tok)
{
    uint64_t *v = dg_map_put(&R->gmap, n->inst, 0);
    if (!v || *v || !room((void **)&R->grp, R->ngrp, &R->cgrp, sizeof *R->grp)) {
        R->rc = v && *v ? R->rc : TRACE_ERR_NOMEM; /* (sent once) */
        return;
    }
    uint32_t k = R->ngrp++;
    *v = (uint64_t)k + 1;
    struct group *g = &R->grp[k];
    *g = (struct group){{0}, 0};
    hd_ts_merge(R, &g->s, tok, n->ntok);
    g->live = g->s.n;
    for (uint32_t i = 0; i < g->s.n && R->rc == 0; i++) {
        uint64_t *h = dg_map_put(&R->gfirst, g->s.v[i], 0);
        if (!h || !room((void **)&R->gn, R->ngn, &R->cgn, sizeof *R->gn)) {
            R->rc = TRACE_ERR_NOMEM;
            return;
        }
        R->gn[R->ngn] = (struct wnode){k, (uint32_t)*h};
        *h = ++R->ngn;
    }
}

/* Record token t retired: the groups holding it lose one, and a group
 * none of whose tokens lives is dropped. */
static void retire(struct hd *R, uint32_t t)
{
    R->retired[t >> 3] |= (uint8_t)(1u << (t & 7));
    const uint64_t *h = R->gfirst.n ? dg_map_get(&R->gfirst, t) : NULL;
    for (uint32_t k = h ? (uint32_t)*h : 0; k; k = R->gn[k - 1].next) {
        struct group *g = &R->grp[R->gn[k - 1].w];
        if (g->live && --g->live == 0)
            hd_ts_free(&g->s);
    }
}

bool hd_set_knows(const struct hd *R, const struct tokset *s, uint32_t t)
{
    if (ts_has(s, t))
        return true;
    for (uint32_t i = ts_lower(s, R->ntotal); i < s->n; i++) {
        const struct group *g = group_of(R, s->v[i]);
        if (g && g->live && ts_has(&g->s, t))
            return true;
    }
    return false;
}

/* Chain mode: rank r, at its record p, has taken what record `from`
 * passed; if that told it token 0 first, it arrived there. */
static void chain_arrive(struct hd *R, int r, uint32_t p, struct dg_pos from)
{
    if (R->arr_at && R->arr_at[r].rank < 0 && hd_set_knows(R, &R->know[r], 0)) {
        R->arr_at[r] = (struct dg_pos){r, p};
        R->arr_from[r] = from;
    }
}

/* Does rank r know token t (its set and the groups in it, or a
 * collective over every rank it has passed)? */
static bool knows(const struct hd *R, int r, uint32_t t)
{
    if (hd_set_knows(R, &R->know[r], t))
        return true;
    const uint64_t *h = R->wfirst.n ? dg_map_get(&R->wfirst, t) : NULL;
    for (uint32_t k = h ? (uint32_t)*h : 0; k; k = R->wn[k - 1].next)
        if (R->wbits[(size_t)R->wn[k - 1].w * R->wbytes + (r >> 3)] >> (r & 7) & 1)
            return true;
    return false;
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
    case H_REACHED: case H_CONTRIB: case H_STALLED: hd_on_member(R, n, tok); break;
    case H_RELEASE: on_release(R, n, tok); break;
    case H_WORLD: on_world(R, n, tok); break;
    case H_GROUP: on_group(R, n, tok); break;
    case H_DONE: {
        uint32_t t = n->id - R->tokbase[R->me];
        if (n->id >= R->tokbase[R->me] && t < R->ntok && R->tokleft[t] && --R->tokleft[t] == 0)
            for (int q = 0; q < R->K; q++)
                hd_note_simple(R, q, H_RETIRED, 0, n->id, DG_POS_NONE);
        break;
    }
    case H_RETIRED:
        if (n->id < R->ntotal)
            retire(R, n->id);
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
    hd_note_set(R, dg_match_coll_owner(R->m, inst), H_REACHED, inst, at, carry ? &R->know[r] : NULL);
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
        answer(R, q->asker, q->aid, knows(R, r, q->tok));
        if (!R->arr_at) /* chain mode: it goes as far as it can */
            hd_note_simple(R, q->home, H_DONE, 0, q->tok, DG_POS_NONE);
    }
    for (struct evlist *L = &R->src[r]; L->at < L->n && L->e[L->at].pos == p; L->at++) {
        ts_add(R, k, L->e[L->at].id);
        if (R->arr_at && L->e[L->at].id == 0)
            R->arr_at[r] = R->arr_from[r] = at;
    }
    const struct dg_msgrec *x = &R->logs[r]->rec[p];
    if (x->kind == DG_MSG_SEND) {
        struct dg_pos q = dg_match_peer(R->m, at);
        if (q.rank >= 0)
            hd_note_set(R, hd_rank_owner(R, q.rank), H_MSG, 0, q, k);
    }
    const uint64_t *c = R->contrib.n ? dg_map_get(&R->contrib, pos_key(at)) : NULL;
    if (c) {
        struct dg_pos cp = {r, (uint32_t)*c};
        uint32_t inst = dg_match_coll_of(R->m, cp);
        if (inst != UINT32_MAX)
            hd_note_set(R, dg_match_coll_owner(R->m, inst), H_CONTRIB, inst, cp, k);
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
        hd_ts_merge(R, &R->know[r], R->slot[*v - 1].v, R->slot[*v - 1].n);
        slot_free(R, (uint32_t)*v - 1);
        dg_map_del(&R->inbox, pos_key(p));
        chain_arrive(R, r, p.pos, dg_match_peer(R->m, p));
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
        hd_note_simple(R, dg_match_coll_owner(R->m, inst), H_STALLED, inst, 0, p);
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
            if (!ts_reserve(&R->note_tok, n.ntok)) {
                R->rc = TRACE_ERR_NOMEM;
                break;
            }
            if (tb)
                memcpy(R->note_tok.v, R->inb[q].p + off, tb);
            off += tb;
            deliver(R, &n, R->note_tok.v);
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
    if (rc == 0 && (uint64_t)R->tokbase[R->K] + dg_match_ncoll(R->m) > UINT32_MAX)
        rc = TRACE_ERR_ARG; /* the groups' tokens follow the records' */
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
    R->wbytes = (uint32_t)(np / 8 + 1);
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
    return hd_inst_setup(R);
}

static void hd_free(struct hd *R)
{
    for (int r = 0; r < R->P; r++) {
        if (R->know)
            hd_ts_free(&R->know[r]);
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
    free(R->note_tok.v);
    for (uint32_t g = 0; g < R->ngrp; g++)
        free(R->grp[g].s.v);
    free(R->grp);
    free(R->gn);
    dg_map_free(&R->gmap);
    dg_map_free(&R->gfirst);
    for (uint32_t w = 0; w < R->nworld; w++)
        free(R->wset[w].v);
    free(R->wset);
    free(R->wbits);
    free(R->wn);
    dg_map_free(&R->wfirst);
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

/* The queries q[0..nq) of this process asked and the run replayed (R set
 * up by the caller). */
static int answer_run(struct hd *R, const struct dg_xchg *x, const struct dg_hb_query *q, size_t nq)
{
    int rc = dg_xchg_agree(x, nq > UINT32_MAX ? TRACE_ERR_ARG : hd_init(R));
    if (rc < 0)
        return rc; /* every process leaves with it */
    /* the queries to their b's processes, and on to their tokens (a
     * failure here travels as this process's status) */
    for (size_t i = 0; R->rc == 0 && i < nq; i++) {
        int to = hd_rank_owner(R, q[i].b.rank);
        if (q[i].a.rank < 0 || q[i].a.rank >= R->P || to < 0 || to >= R->K)
            continue; /* 0: outside the logs */
        struct hnote n = {H_REG, 0, 0, (uint32_t)i, R->me, 0, q[i].a, q[i].b};
        hd_note(R, to, &n, NULL);
    }
    while ((rc = round_trip(R, x)) > 0)
        ;
    if (rc == 0)
        rc = number_tokens(R, x);
    if (rc == 0)
        rc = replay(R, x);
    return rc;
}

int dg_hb_answer_dist(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m, const int *owner,
                      const struct dg_xchg *x, const struct dg_hb_query *q, size_t nq, uint8_t *ans)
{
    struct hd R = {.logs = logs, .m = m, .owner = owner, .P = nranks, .K = x->nprocs, .me = x->proc, .ans = ans};
    if (nq)
        memset(ans, 0, nq);
    int rc = answer_run(&R, x, q, nq);
    hd_free(&R);
    return rc;
}

/* ---- a chain ------------------------------------------------------------------------------ */

static int64_t chain_key(struct dg_pos p)
{
    return p.rank < 0 ? INT64_MAX : (int64_t)p.rank << 32 | p.pos;
}

static struct dg_pos chain_pos(int64_t k)
{
    return k == INT64_MAX ? DG_POS_NONE : (struct dg_pos){(int32_t)(k >> 32), (uint32_t)k};
}

int dg_hb_chain_dist(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m, const int *owner,
                     const struct dg_xchg *x, struct dg_pos a, struct dg_pos b, struct dg_pos *out, size_t max,
                     size_t *nout)
{
    *nout = 0;
    if (a.rank == b.rank || nranks <= 0)
        return 0; /* on every process alike */
    size_t P = (size_t)nranks;
    uint8_t ans = 0;
    struct hd R = {.logs = logs, .m = m, .owner = owner, .P = nranks, .K = x->nprocs, .me = x->proc, .ans = &ans};
    R.arr_at = malloc(P * sizeof *R.arr_at);
    R.arr_from = malloc(P * sizeof *R.arr_from);
    int64_t *v = malloc((2 * P + 1) * sizeof *v);
    int rc = dg_xchg_agree(x, R.arr_at && R.arr_from && v ? 0 : TRACE_ERR_NOMEM);
    for (size_t r = 0; rc == 0 && r < P; r++)
        R.arr_at[r] = R.arr_from[r] = DG_POS_NONE;
    struct dg_hb_query q = {a, b};
    if (rc == 0) /* process 0 asks: its answer is whether a happens before b */
        rc = answer_run(&R, x, &q, x->proc == 0 ? 1 : 0);
    if (rc == 0) {
        /* each rank's arrival and source from its process, the answer
         * from process 0, to every process */
        for (size_t r = 0; r < P; r++) {
            bool mine = logs[r] != NULL;
            v[2 * r] = mine ? chain_key(R.arr_at[r]) : INT64_MAX;
            v[2 * r + 1] = mine ? chain_key(R.arr_from[r]) : INT64_MAX;
        }
        v[2 * P] = x->proc == 0 && ans == 1 ? 0 : 1;
        if (x->nprocs > 1)
            rc = x->allreduce(x->ctx, v, (int)(2 * P + 1), DG_XCHG_MIN);
    }
    if (rc == 0 && v[2 * P] == 0) {
        for (size_t r = 0; r < P; r++) {
            R.arr_at[r] = chain_pos(v[2 * r]);
            R.arr_from[r] = chain_pos(v[2 * r + 1]);
        }
        *nout = hb_chain_walk(R.arr_at, R.arr_from, a, b, out, max);
    }
    free(v);
    free(R.arr_at);
    free(R.arr_from);
    R.arr_at = R.arr_from = NULL;
    hd_free(&R);
    return rc < 0 ? rc : 0;
}
