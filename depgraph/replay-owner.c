/* replay-owner.c - the collective instances a process owns in a timed
 * replay (replay.c): their members' posts come as notes (REACHED, and a
 * nonblocking member's start, STARTED), and each member is told when its
 * record completes (DONE) once the members it waits for are there, by
 * docs/prediction.md's model:
 *   - most collectives: every member (a nonblocking one's: its start),
 *     then steps * (L + bytes * G), but no less than the fastest member's
 *     measured time in a blocking one;
 *   - a small rooted one (gather, reduce: up; broadcast, scatter: down) as
 *     MPICH's binomial tree over the members' places from the root: a
 *     member waits for its subtree (up) or for its ancestors (down).
 * A member's time is computed once, when the last post it needs comes:
 * each instance keeps how many members have posted (flat), or per member
 * how many of those it waits for have not (trees: a post counts down its
 * ancestors, up, or its subtree, down; O(members log members) per
 * instance).  An instance whose members disagree on their shape (no
 * valid trace does that) checks every waiting member at every post.
 *
 * The changed instances (DG_CHANGE_COLL) are owned by process id mod K:
 * it counts the ranks' first members (LEAD) and tells every process when
 * the instance completes (INSTDONE). */
#include <math.h>
#include <stdlib.h>

#include "replay-private.h"

static uint32_t lowbit(uint32_t v)
{
    return v & -v;
}

static const struct dg_msgrec *member_rec(const struct rp_state *S, uint32_t inst, uint32_t j)
{
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(S->m, inst, &n);
    return j < n ? dg_match_rec(S->m, mem[j]) : NULL;
}

/* How a member's record waits: SHAPE_FLAT, SHAPE_UP or SHAPE_DOWN, and a
 * tree's root's place. */
static uint8_t shape_of(const struct rp_state *S, uint32_t inst, const struct dg_msgrec *x, uint32_t *root)
{
    uint64_t bytes = x->bytes > x->rbytes ? x->bytes : x->rbytes;
    int base = trace_mpi_call_base(x->call);
    *root = 0;
    if (bytes > S->pp->eager_max || x->peer < 0 || (x->flags & DG_MSGF_NONBLOCKING))
        return SHAPE_FLAT;
    *root = dg_match_coll_place(S->m, inst, x->peer);
    if (base == CHT_MPI_GATHER || base == CHT_MPI_GATHERV || base == CHT_MPI_REDUCE)
        return SHAPE_UP;
    if (base == CHT_MPI_BCAST || base == CHT_MPI_SCATTER || base == CHT_MPI_SCATTERV)
        return SHAPE_DOWN;
    *root = 0;
    return SHAPE_FLAT;
}

/* Whether member j's start counts for a nonblocking wait: its record is a
 * nonblocking completion after its start. */
static bool qualifies(const struct dg_msgrec *y, uint32_t pos)
{
    return (y->flags & DG_MSGF_NONBLOCKING) && y->fwd_pos < pos;
}

int rp_owner_setup(struct rp_state *S)
{
    dg_match_coll_here(S->m, &S->lo, &S->hi);
    uint32_t ni = S->hi - S->lo;
    size_t total = 0;
    for (uint32_t i = 0; i < ni; i++) {
        uint32_t n = 0;
        dg_match_coll(S->m, S->lo + i, &n);
        total += n;
    }
    if (total > UINT32_MAX)
        return TRACE_ERR_NOMEM;
    S->ri = calloc(ni ? ni : 1, sizeof *S->ri);
    S->mem = calloc(total ? total : 1, sizeof *S->mem);
    if (!S->ri || !S->mem)
        return TRACE_ERR_NOMEM;
    uint32_t base = 0;
    for (uint32_t i = 0; i < ni; i++) {
        struct rp_inst *c = &S->ri[i];
        uint32_t inst = S->lo + i, n = 0;
        dg_match_coll(S->m, inst, &n);
        c->base = base;
        c->ready[0] = c->ready[1] = -INFINITY;
        c->least = NAN;
        for (uint32_t j = 0; j < n; j++) {
            uint32_t root;
            uint8_t s = shape_of(S, inst, member_rec(S, inst, j), &root);
            if (j == 0) {
                c->shape = s;
                c->root = root;
            } else if (s != c->shape || root != c->root) {
                c->shape = SHAPE_ODD;
            }
        }
        for (uint32_t j = 0; j < n; j++) {
            struct rp_member *k = &S->mem[base + j];
            k->reached = k->started = NAN;
            uint32_t v = (j + n - c->root) % n; /* its place from the root */
            if (c->shape == SHAPE_UP)
                k->pending = (v ? (v + lowbit(v) < n ? v + lowbit(v) : n) : n) - v;
            else if (c->shape == SHAPE_DOWN)
                k->pending = (uint32_t)__builtin_popcount(v) + 1;
        }
        base += n;
    }
    return 0;
}

void rp_owner_free(struct rp_state *S)
{
    free(S->ri);
    free(S->mem);
}

/* Members of a tree (places from the root, n of them): the latest post of
 * those member v waits for (its subtree, up; itself and its ancestors,
 * down) and the tree's depth below or above it (*steps); NAN if one has
 * not posted. */
static double tree_ready(const struct rp_member *mem, uint32_t n, uint32_t v, uint32_t root, bool up,
                         double *steps)
{
    double ready = -INFINITY;
    if (up) {
        uint32_t end = v ? (v + lowbit(v) < n ? v + lowbit(v) : n) : n;
        *steps = end - v > 1 ? ceil(log2((double)(end - v))) : 0;
        for (uint32_t u = v; u < end; u++) {
            double a = mem[(u + root) % n].reached;
            if (isnan(a))
                return NAN;
            ready = fmax(ready, a);
        }
        return ready;
    }
    *steps = 0;
    for (uint32_t w = v;; w -= lowbit(w)) {
        double a = mem[(w + root) % n].reached;
        if (isnan(a))
            return NAN;
        ready = fmax(ready, a);
        if (!w)
            break;
        *steps += 1;
    }
    return ready;
}

/* The least time a member of a blocking instance spent in it. */
static double least_of(struct rp_state *S, uint32_t inst)
{
    struct rp_inst *c = &S->ri[inst - S->lo];
    if (isnan(c->least)) {
        uint32_t n = 0;
        dg_match_coll(S->m, inst, &n);
        c->least = INFINITY;
        for (uint32_t i = 0; i < n; i++) {
            const struct dg_msgrec *y = member_rec(S, inst, i);
            if (y && y->t_exit >= y->t_enter && y->t_exit)
                c->least = fmin(c->least, (double)(y->t_exit - y->t_enter));
        }
    }
    return c->least;
}

/* Member j of instance inst: if the members it waits for have posted,
 * its completion goes to its process. */
static void try_member(struct rp_state *S, uint32_t inst, uint32_t j)
{
    struct rp_inst *c = &S->ri[inst - S->lo];
    struct rp_member *k = &S->mem[c->base + j];
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(S->m, inst, &n);
    const struct dg_msgrec *x = dg_match_rec(S->m, mem[j]);
    if (k->done || isnan(k->reached) || !x)
        return;
    const struct dg_replay_params *pp = S->pp;
    bool nb = x->flags & DG_MSGF_NONBLOCKING;
    uint64_t bytes = x->bytes > x->rbytes ? x->bytes : x->rbytes;
    uint32_t members = x->comm_size ? x->comm_size : n, root;
    double ready = k->reached, steps = rp_coll_steps(x->call, members), done;
    uint8_t shape = shape_of(S, inst, x, &root);
    if (shape != SHAPE_FLAT) {
        double a = tree_ready(&S->mem[c->base], n, (j + n - root) % n, root, shape == SHAPE_UP, &steps);
        if (isnan(a))
            return;
        ready = fmax(ready, a);
        done = ready + fmax(steps * rp_xfer(pp, bytes), pp->ideal ? 0 : pp->o_ns);
    } else {
        if (c->cnt[nb] < n)
            return;
        ready = fmax(ready, c->ready[nb]);
        double cost = steps * rp_xfer(pp, bytes);
        /* the member that arrived last waited least: its time in the call
         * is the collective's own cost, if larger (a first call that sets
         * up the communicator's collectives costs ms) */
        if (!nb && !pp->ideal) {
            double least = least_of(S, inst);
            if (isfinite(least))
                cost = fmax(cost, least);
        }
        done = ready + cost;
    }
    k->done = true;
    struct rp_note d = {RN_DONE, 0, mem[j], done, 0};
    rp_note(S, S->owner ? S->owner[mem[j].rank] : 0, &d);
}

/* A post of member j came (REACHED or STARTED): the members that may
 * complete now. */
static void member_posted(struct rp_state *S, const struct rp_note *no)
{
    uint32_t inst = no->inst, n = 0;
    if (inst < S->lo || inst >= S->hi)
        return;
    struct rp_inst *c = &S->ri[inst - S->lo];
    const struct dg_pos *mem = dg_match_coll(S->m, inst, &n);
    uint32_t j = dg_match_coll_place(S->m, inst, no->at.rank);
    if (j >= n || mem[j].rank != no->at.rank || mem[j].pos != no->at.pos)
        return;
    struct rp_member *k = &S->mem[c->base + j];
    const struct dg_msgrec *y = dg_match_rec(S->m, mem[j]);
    bool q = y && qualifies(y, mem[j].pos), reached = no->kind == RN_REACHED;
    uint32_t cnt0 = c->cnt[0], cnt1 = c->cnt[1];
    if (reached ? !isnan(k->reached) : !isnan(k->started))
        return;
    if (reached) {
        k->reached = no->t;
        c->cnt[0]++;
        c->ready[0] = fmax(c->ready[0], no->t);
    } else {
        k->started = no->t;
    }
    if (reached != q) { /* the post a nonblocking wait counts */
        c->cnt[1]++;
        c->ready[1] = fmax(c->ready[1], no->t);
    }
    uint32_t v = (j + n - c->root) % n;
    switch (c->shape) {
    case SHAPE_FLAT:
        if ((c->cnt[0] == n && cnt0 < n) || (c->cnt[1] == n && cnt1 < n)) {
            for (uint32_t i = 0; i < n; i++)
                try_member(S, inst, i);
        } else if (reached) {
            try_member(S, inst, j);
        }
        return;
    case SHAPE_UP:
        if (!reached)
            return;
        for (uint32_t a = v;; a -= lowbit(a)) {
            if (--S->mem[c->base + (a + c->root) % n].pending == 0)
                try_member(S, inst, (a + c->root) % n);
            if (!a)
                break;
        }
        return;
    case SHAPE_DOWN:
        if (!reached)
            return;
        for (uint32_t w = v, end = v ? (v + lowbit(v) < n ? v + lowbit(v) : n) : n; w < end; w++)
            if (--S->mem[c->base + (w + c->root) % n].pending == 0)
                try_member(S, inst, (w + c->root) % n);
        return;
    default:
        for (uint32_t i = 0; i < n; i++)
            try_member(S, inst, i);
    }
}

/* A rank's first member of changed instance id posted: once every rank's
 * has, every process learns when the instance completes. */
static void lead_posted(struct rp_state *S, const struct rp_note *no)
{
    uint32_t i = no->inst;
    if (i >= S->ninst)
        return;
    S->inst_ready[i] = S->inst_posted[i] ? fmax(S->inst_ready[i], no->t) : no->t;
    if (++S->inst_posted[i] != S->inst_ranks[i])
        return;
    struct rp_note d = {RN_INSTDONE, i, DG_POS_NONE,
                        S->inst_ready[i] + (double)S->inst_steps[i] * rp_xfer(S->pp, S->inst_bytes[i]), 0};
    for (int q = 0; q < S->K; q++)
        rp_note(S, q, &d);
}

void rp_owner_take(struct rp_state *S, const struct rp_note *n)
{
    if (n->kind == RN_LEAD)
        lead_posted(S, n);
    else
        member_posted(S, n);
}
