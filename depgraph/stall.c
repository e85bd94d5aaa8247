/* stall.c - would a changed run deadlock?  The matched logs of a run are
 * replayed with some records reached later than they were recorded (the
 * sends a hint delays, applied on every rank that has the hint), under
 * the blocking rules of dg_hb (hb.c): a receive waits until its matched
 * send has been reached; a blocking collective until every member has
 * reached it; a nonblocking collective's record (at its Wait) until every
 * member has passed its start.  Sends do not wait (eager), except a send
 * whose receive is moved: that one may wait until the receive is posted
 * (a synchronous send, or one too large to be buffered), and a receive is
 * posted once its rank reaches the records of the same call (a Sendrecv
 * posts its receive when it starts).  Unmatched receives and incomplete
 * collectives wait for nothing.  The replay ends when every rank is done,
 * or stalls: then every blocked rank says which record it cannot pass and
 * which record of another rank it waits for.
 *
 * Memory: for each rank with moves, its order and the inverse (8 bytes
 * per record); nothing per record for the others. */
#include <stdlib.h>
#include <string.h>

#include "depgraph.h"

struct order {
    uint32_t n;
    uint32_t *at;     /* slot -> log position (NULL: the identity) */
    uint32_t *slot;   /* log position -> slot */
    uint32_t *start;  /* slot -> first slot of the run of records of one event there */
};

/* Spread over the processes of a dg_xchg (dg_stall_check_dist), each
 * process replays its own ranks and learns what it needs of the others'
 * from notes, as the messages of the run would have told it:
 *   - a rank that passes a send notes it to the receive's process
 *     (PASSED): the receive may go;
 *   - a rank that posts a moved receive notes it to the send's process
 *     (POSTED): a send that may wait for its receive may go (which sends
 *     those are, the receives' processes say first: SYNC);
 *   - a rank that reaches a collective record, or passes the start of a
 *     nonblocking one, notes it to the process that owns the instance
 *     (REACHED, STARTED), which counts its members and lets each go once
 *     the members it waits for are there (RELEASE).
 * Notes to this process are taken at once; the others travel in rounds of
 * the exchange (bulk-synchronous steps), until a round where no process
 * has anything left to do or to say.  The replay's end is the same
 * whatever the order of its steps (a rank's progress only ever lets others
 * progress), so every number of processes gives the serial answer.  With
 * one process the same code runs in one round. */

enum { N_PASSED = 1, N_POSTED, N_SYNC, N_REACHED, N_STARTED, N_RELEASE, N_WAITS };

struct note {
    uint32_t kind;
    uint32_t inst;        /* REACHED, STARTED: the instance */
    struct dg_pos at;     /* the record the note is about */
    struct dg_pos waits;  /* WAITS: what it waits for */
};

/* A moved receive whose send may wait for it: posted once its rank's
 * slot reaches `start`. */
struct watch {
    uint32_t start;
    struct dg_pos send;
};

/* A member of an instance this process owns. */
enum { M_REACHED = 1, M_STARTED = 2, M_WAITING = 4, M_RELEASED = 8, M_QUALIFIES = 16 };

struct replay {
    const struct dg_mpilog *const *logs; /* this process's ranks */
    const struct dg_match *m;
    const int *owner;
    int P, K, me;
    struct order *o;
    uint32_t *cur;          /* per rank: its next slot */
    uint8_t **fact;         /* [rank][pos]: what the notes said of it (1: may go) */
    struct dg_pos *sync;    /* sends of this process that may wait for their receive, sorted */
    size_t nsync, csync;
    struct watch **watch;   /* [rank]: its moved receives with such a send, by start */
    uint32_t *nwatch, *wnext;
    struct dg_map starts;   /* (rank, start position) -> position of the nonblocking COLL record */
    /* instances lo .. hi - 1 */
    uint32_t lo, hi;
    uint32_t *base;         /* [hi - lo + 1]: index of the first member's flags */
    uint8_t *mflag;         /* per member */
    uint32_t *nreached, *nready;
    /* ranks with something to do */
    int *work;
    size_t nwork;
    uint8_t *queued;
    struct dg_bytes *out, *in;
    int rc;
};

static int pos_cmp(const void *pa, const void *pb)
{
    return dg_pos_cmp(*(const struct dg_pos *)pa, *(const struct dg_pos *)pb);
}

static int move_cmp(const void *pa, const void *pb)
{
    const struct dg_move *a = pa, *b = pb;
    if (a->after != b->after)
        return a->after < b->after ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int watch_cmp(const void *pa, const void *pb)
{
    const struct watch *a = pa, *b = pb;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return pos_cmp(&a->send, &b->send);
}

static uint64_t pos_key(struct dg_pos p)
{
    return (uint64_t)(uint32_t)p.rank << 32 | p.pos;
}

static uint32_t slot_of(const struct replay *R, struct dg_pos p)
{
    const struct order *o = &R->o[p.rank];
    return o->slot ? o->slot[p.pos] : p.pos;
}

static uint32_t pos_at(const struct replay *R, int r, uint32_t s)
{
    const struct order *o = &R->o[r];
    return o->at ? o->at[s] : s;
}

/* The first slot of the records of the event at slot s of rank r. */
static uint32_t event_start(const struct replay *R, int r, uint32_t s)
{
    const struct order *o = &R->o[r];
    if (o->start)
        return o->start[s];
    const struct dg_msgrec *rec = R->logs[r]->rec;
    while (s > 0 && rec[s - 1].index == rec[s].index)
        s--;
    return s;
}

static int rank_owner(const struct replay *R, int r)
{
    if (r < 0 || r >= R->P)
        return -1;
    return R->owner ? R->owner[r] : 0;
}

static bool is_sync(const struct replay *R, struct dg_pos p)
{
    return R->nsync && bsearch(&p, R->sync, R->nsync, sizeof *R->sync, pos_cmp);
}

static void wake(struct replay *R, int r)
{
    if (!R->queued[r]) {
        R->queued[r] = 1;
        R->work[R->nwork++] = r;
    }
}

static void deliver(struct replay *R, const struct note *n);

/* A note to the process of rank `to` (or of instance n->inst with
 * `inst`): taken at once here, sent otherwise. */
static void note(struct replay *R, int to_proc, const struct note *n)
{
    if (to_proc == R->me) {
        deliver(R, n);
        return;
    }
    if (to_proc < 0 || to_proc >= R->K)
        return; /* nobody holds it: nobody waits for it */
    if (!dg_bytes_put(&R->out[to_proc], n, sizeof *n))
        R->rc = TRACE_ERR_NOMEM;
}

static void note_rank(struct replay *R, int kind, struct dg_pos at)
{
    struct note n = {(uint32_t)kind, 0, at, DG_POS_NONE};
    note(R, rank_owner(R, at.rank), &n);
}

static void note_inst(struct replay *R, int kind, uint32_t inst, struct dg_pos member)
{
    struct note n = {(uint32_t)kind, inst, member, DG_POS_NONE};
    note(R, dg_match_coll_owner(R->m, inst), &n);
}

/* ---- the instances this process owns ------------------------------------------------- */

static uint32_t member_index(const struct replay *R, uint32_t inst, struct dg_pos p)
{
    return R->base[inst - R->lo] + dg_match_coll_place(R->m, inst, p.rank);
}

/* Whether a member is there for a nonblocking wait: started when its
 * own record is a nonblocking completion after its start, else reached. */
static bool member_ready(uint8_t f)
{
    return (f & M_QUALIFIES) ? (f & M_STARTED) != 0 : (f & M_REACHED) != 0;
}

/* Whether member k of instance i is there for a member that waits for
 * it: reached (a blocking wait), or for a nonblocking one, started when
 * k's own record is a nonblocking completion after its start. */
static bool member_there(const struct replay *R, uint32_t k, bool nb)
{
    uint8_t f = R->mflag[k];
    return nb ? member_ready(f) : (f & M_REACHED) != 0;
}

static void release(struct replay *R, uint32_t inst, uint32_t k)
{
    uint32_t n = 0;
    const struct dg_pos *mem = dg_match_coll(R->m, inst, &n);
    R->mflag[k] = (uint8_t)((R->mflag[k] & ~M_WAITING) | M_RELEASED);
    note_rank(R, N_RELEASE, mem[k - R->base[inst - R->lo]]);
}

static bool member_nb(const struct replay *R, struct dg_pos p)
{
    const struct dg_msgrec *x = dg_match_rec(R->m, p);
    return x && (x->flags & DG_MSGF_NONBLOCKING);
}

/* Whether waiting member k of instance i may go: every other member is
 * there (its own rank's record does not wait for itself; a moved start
 * may come after its completion). */
static bool may_go(const struct replay *R, uint32_t i, uint32_t k, uint32_t nm, bool nb)
{
    uint8_t f = R->mflag[k];
    uint32_t self = member_ready(f);
    return nb ? R->nready[i] - self == nm - 1 : R->nreached[i] - ((f & M_REACHED) != 0) == nm - 1;
}

/* The waiting members of instance inst that may go now. */
static void instance_sweep(struct replay *R, uint32_t inst)
{
    uint32_t i = inst - R->lo, n = 0;
    const struct dg_pos *mem = dg_match_coll(R->m, inst, &n);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t k = R->base[i] + j;
        if ((R->mflag[k] & M_WAITING) && may_go(R, i, k, n, member_nb(R, mem[j])))
            release(R, inst, k);
    }
}

/* A member reached its record or passed its start: it goes if the others
 * are there; the others waiting go once the counts of members there come
 * within one of all (each count crosses that line once: O(members) per
 * instance). */
static void instance_note(struct replay *R, const struct note *n)
{
    if (n->inst < R->lo || n->inst >= R->hi)
        return;
    uint32_t i = n->inst - R->lo, k = member_index(R, n->inst, n->at), nm = 0;
    dg_match_coll(R->m, n->inst, &nm);
    uint8_t *f = &R->mflag[k];
    uint32_t reached0 = R->nreached[i], ready0 = R->nready[i];
    bool was_ready = member_ready(*f);
    if (n->kind == N_STARTED) {
        *f |= M_STARTED;
    } else if (!(*f & (M_REACHED | M_RELEASED))) {
        R->nreached[i]++;
        *f |= M_REACHED | M_WAITING;
    }
    bool ready = member_ready(*f);
    if (ready && !was_ready)
        R->nready[i]++;
    if ((R->nreached[i] != reached0 && R->nreached[i] + 1 >= nm) || (R->nready[i] != ready0 && R->nready[i] + 1 >= nm))
        instance_sweep(R, n->inst);
    else if ((*f & M_WAITING) && may_go(R, i, k, nm, member_nb(R, n->at)))
        release(R, n->inst, k);
}

/* ---- notes ------------------------------------------------------------------------------ */

static void deliver(struct replay *R, const struct note *n)
{
    struct dg_pos p = n->at;
    switch (n->kind) {
    case N_REACHED:
    case N_STARTED:
        instance_note(R, n);
        return;
    case N_SYNC:
        if (R->nsync == R->csync) {
            size_t c = R->csync ? R->csync * 2 : 16;
            struct dg_pos *v = realloc(R->sync, c * sizeof *v);
            if (!v) {
                R->rc = TRACE_ERR_NOMEM;
                return;
            }
            R->sync = v;
            R->csync = c;
        }
        R->sync[R->nsync++] = p;
        return;
    }
    if (p.rank < 0 || p.rank >= R->P || !R->logs[p.rank] || p.pos >= R->logs[p.rank]->n)
        return;
    R->fact[p.rank][p.pos] = 1;
    /* the rank may be waiting right there */
    if (R->cur[p.rank] < R->o[p.rank].n && pos_at(R, p.rank, R->cur[p.rank]) == p.pos)
        wake(R, p.rank);
}

/* ---- a rank's replay -------------------------------------------------------------------- */

/* Whether rank r can pass the record at its next slot (the notes about it
 * have come). */
static bool can_pass(const struct replay *R, int r)
{
    struct dg_pos p = {r, pos_at(R, r, R->cur[r])};
    const struct dg_msgrec *x = &R->logs[r]->rec[p.pos];
    if (x->kind == DG_MSG_RECV)
        return dg_match_peer(R->m, p).rank < 0 || R->fact[r][p.pos];
    if (x->kind == DG_MSG_SEND)
        return !is_sync(R, p) || dg_match_peer(R->m, p).rank < 0 || R->fact[r][p.pos];
    if (x->kind == DG_MSG_COLL)
        return dg_match_coll_of(R->m, p) == UINT32_MAX || R->fact[r][p.pos];
    return true;
}

/* What the rank says on reaching slot cur: at a collective record, to the
 * instance; the moved receives it posts, to their sends. */
static void arrive(struct replay *R, int r)
{
    if (R->cur[r] >= R->o[r].n)
        return;
    struct dg_pos p = {r, pos_at(R, r, R->cur[r])};
    const struct dg_msgrec *x = &R->logs[r]->rec[p.pos];
    uint32_t inst;
    if (x->kind == DG_MSG_COLL && (inst = dg_match_coll_of(R->m, p)) != UINT32_MAX)
        note_inst(R, N_REACHED, inst, p);
    while (R->wnext[r] < R->nwatch[r] && R->watch[r][R->wnext[r]].start <= R->cur[r])
        note_rank(R, N_POSTED, R->watch[r][R->wnext[r]++].send);
}

/* What the rank says on passing the record at slot cur. */
static void leave(struct replay *R, int r)
{
    struct dg_pos p = {r, pos_at(R, r, R->cur[r])};
    const struct dg_msgrec *x = &R->logs[r]->rec[p.pos];
    if (x->kind == DG_MSG_SEND) {
        struct dg_pos q = dg_match_peer(R->m, p);
        if (q.rank >= 0)
            note_rank(R, N_PASSED, q);
    }
    const uint64_t *c = R->starts.n ? dg_map_get(&R->starts, pos_key(p)) : NULL;
    if (c) {
        struct dg_pos cp = {r, (uint32_t)*c};
        uint32_t inst = dg_match_coll_of(R->m, cp);
        if (inst != UINT32_MAX)
            note_inst(R, N_STARTED, inst, cp);
    }
}

/* Every rank with something to do, as far as it goes. */
static void run_local(struct replay *R)
{
    while (R->nwork && R->rc == 0) {
        int r = R->work[--R->nwork];
        R->queued[r] = 0;
        while (R->cur[r] < R->o[r].n && can_pass(R, r)) {
            leave(R, r);
            R->cur[r]++;
            arrive(R, r);
        }
    }
}

/* The order of rank r with its moves applied: every record not moved, in
 * trace order, each followed by the records moved right after it (and
 * theirs). */
static int order_build(const struct dg_mpilog *log, const struct dg_move *mv, uint32_t nmv, struct order *o)
{
    uint32_t n = log->n;
    o->n = n;
    struct dg_move *sorted = malloc(nmv * sizeof *sorted);
    uint8_t *moved = calloc(n ? n : 1, 1);
    uint32_t *stack = malloc((nmv + 1) * sizeof *stack);
    o->at = malloc((n ? n : 1) * sizeof *o->at);
    o->slot = malloc((n ? n : 1) * sizeof *o->slot);
    o->start = malloc((n ? n : 1) * sizeof *o->start);
    if (!sorted || !moved || !stack || !o->at || !o->slot || !o->start) {
        free(sorted);
        free(moved);
        free(stack);
        return TRACE_ERR_NOMEM;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < nmv; i++) {
        if (mv[i].pos >= n || mv[i].after >= n || mv[i].after <= mv[i].pos || moved[mv[i].pos])
            continue; /* not a later place, or moved twice: ignored */
        moved[mv[i].pos] = 1;
        sorted[k++] = mv[i];
    }
    qsort(sorted, k, sizeof *sorted, move_cmp);
    uint32_t s = 0;
    for (uint32_t p = 0; p < n; p++) {
        if (moved[p])
            continue;
        /* p, then what moves after it, depth first */
        uint32_t top = 0;
        stack[top++] = p;
        while (top) {
            uint32_t q = stack[--top];
            o->at[s] = q;
            o->slot[q] = s++;
            /* the moves after q, pushed in reverse to come out in order */
            size_t lo = 0, hi = k;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (sorted[mid].after < q)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            size_t end = lo;
            while (end < k && sorted[end].after == q)
                end++;
            for (size_t i = end; i-- > lo;)
                stack[top++] = sorted[i].pos;
        }
    }
    for (uint32_t i = 0; i < s; i++)
        o->start[i] = i > 0 && log->rec[o->at[i - 1]].index == log->rec[o->at[i]].index ? o->start[i - 1] : i;
    free(sorted);
    free(moved);
    free(stack);
    return 0;
}


/* ---- setting up ------------------------------------------------------------------------- */

/* Orders, facts, sends that may wait (SYNC notes to their processes) and
 * the posts that release them, nonblocking starts, instances. */
static int setup(struct replay *R, const struct dg_move *const *moves, const uint32_t *nmoves)
{
    int P = R->P;
    R->o = calloc(P ? P : 1, sizeof *R->o);
    R->cur = calloc(P ? P : 1, sizeof *R->cur);
    R->fact = calloc(P ? P : 1, sizeof *R->fact);
    R->watch = calloc(P ? P : 1, sizeof *R->watch);
    R->nwatch = calloc(P ? P : 1, sizeof *R->nwatch);
    R->wnext = calloc(P ? P : 1, sizeof *R->wnext);
    R->work = calloc(P ? P : 1, sizeof *R->work);
    R->queued = calloc(P ? P : 1, 1);
    R->out = dg_bytes_per_proc(R->K);
    R->in = dg_bytes_per_proc(R->K);
    if (!R->o || !R->cur || !R->fact || !R->watch || !R->nwatch || !R->wnext || !R->work || !R->queued ||
        !R->out || !R->in)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < P; r++) {
        const struct dg_mpilog *log = R->logs[r];
        if (!log)
            continue;
        R->o[r].n = log->n;
        if (!(R->fact[r] = calloc(log->n ? log->n : 1, 1)))
            return TRACE_ERR_NOMEM;
        if (moves && moves[r] && nmoves[r]) {
            int rc = order_build(log, moves[r], nmoves[r], &R->o[r]);
            if (rc < 0)
                return rc;
            /* a moved receive: its send may wait until it is posted */
            if (!(R->watch[r] = malloc(nmoves[r] * sizeof **R->watch)))
                return TRACE_ERR_NOMEM;
            for (uint32_t i = 0; i < nmoves[r]; i++) {
                struct dg_pos q = {r, moves[r][i].pos};
                if (q.pos >= log->n || log->rec[q.pos].kind != DG_MSG_RECV)
                    continue;
                struct dg_pos s = dg_match_peer(R->m, q);
                if (s.rank < 0)
                    continue;
                note_rank(R, N_SYNC, s);
                R->watch[r][R->nwatch[r]++] = (struct watch){event_start(R, r, slot_of(R, q)), s};
            }
            qsort(R->watch[r], R->nwatch[r], sizeof **R->watch, watch_cmp);
        }
        for (uint32_t i = 0; i < log->n; i++) {
            const struct dg_msgrec *x = &log->rec[i];
            if (x->kind == DG_MSG_COLL && (x->flags & DG_MSGF_NONBLOCKING) && x->fwd_pos < i &&
                !dg_map_put(&R->starts, pos_key((struct dg_pos){r, (uint32_t)x->fwd_pos}), i))
                return TRACE_ERR_NOMEM;
        }
    }
    dg_match_coll_here(R->m, &R->lo, &R->hi);
    uint32_t ni = R->hi - R->lo;
    R->base = malloc((ni + 1) * sizeof *R->base);
    R->nreached = calloc(ni ? ni : 1, sizeof *R->nreached);
    R->nready = calloc(ni ? ni : 1, sizeof *R->nready);
    if (!R->base || !R->nreached || !R->nready)
        return TRACE_ERR_NOMEM;
    uint32_t total = 0;
    for (uint32_t i = 0; i < ni; i++) {
        uint32_t n = 0;
        dg_match_coll(R->m, R->lo + i, &n);
        R->base[i] = total;
        total += n;
    }
    R->base[ni] = total;
    if (!(R->mflag = calloc(total ? total : 1, 1)))
        return TRACE_ERR_NOMEM;
    for (uint32_t i = 0; i < ni; i++) {
        uint32_t n = 0;
        const struct dg_pos *mem = dg_match_coll(R->m, R->lo + i, &n);
        for (uint32_t j = 0; j < n; j++) {
            const struct dg_msgrec *y = dg_match_rec(R->m, mem[j]);
            if (y && (y->flags & DG_MSGF_NONBLOCKING) && y->fwd_pos < mem[j].pos)
                R->mflag[R->base[i] + j] = M_QUALIFIES;
        }
    }
    return R->rc;
}

/* One round of the exchange: the notes for other processes go, theirs
 * for this one are taken.  Returns whether any process has anything left
 * to do, or a negative status. */
static int round_trip(struct replay *R, const struct dg_xchg *x)
{
    int rc = x->alltoall(x->ctx, R->rc, R->out, R->in);
    if (rc < 0)
        return rc;
    for (int q = 0; q < R->K; q++) {
        for (size_t off = 0; off + sizeof(struct note) <= R->in[q].len; off += sizeof(struct note)) {
            struct note n;
            memcpy(&n, R->in[q].p + off, sizeof n);
            deliver(R, &n);
        }
        dg_bytes_free(&R->in[q]);
    }
    /* every process ran out of work before this exchange: if nothing
     * travelled, nothing can start again */
    return rc;
}

/* Where this process's ranks stopped; what a collective record waits
 * for, its instance's owner says (WAITS). */
static int where_stopped(struct replay *R, const struct dg_xchg *x, struct dg_stall_wait *blocked)
{
    for (int r = 0; r < R->P; r++) {
        blocked[r].at = blocked[r].waits = DG_POS_NONE;
        if (!R->logs[r] || R->cur[r] >= R->o[r].n)
            continue;
        struct dg_pos p = {r, pos_at(R, r, R->cur[r])};
        blocked[r].at = p;
        if (R->logs[r]->rec[p.pos].kind != DG_MSG_COLL)
            blocked[r].waits = dg_match_peer(R->m, p);
    }
    for (uint32_t i = 0; i < R->hi - R->lo; i++) {
        uint32_t n = 0;
        const struct dg_pos *mem = dg_match_coll(R->m, R->lo + i, &n);
        for (uint32_t j = 0; j < n; j++) {
            if (!(R->mflag[R->base[i] + j] & M_WAITING))
                continue;
            bool nb = member_nb(R, mem[j]);
            for (uint32_t k = 0; k < n; k++)
                if (mem[k].rank != mem[j].rank && !member_there(R, R->base[i] + k, nb)) {
                    /* a start not passed yet is what it waits for */
                    struct dg_pos what = mem[k];
                    if (nb && (R->mflag[R->base[i] + k] & M_QUALIFIES))
                        what.pos = (uint32_t)dg_match_rec(R->m, mem[k])->fwd_pos;
                    struct note w = {N_WAITS, 0, mem[j], what};
                    int q = rank_owner(R, mem[j].rank);
                    if (q == R->me) {
                        blocked[mem[j].rank].waits = what;
                    } else if (q >= 0 && q < R->K && !dg_bytes_put(&R->out[q], &w, sizeof w)) {
                        R->rc = TRACE_ERR_NOMEM;
                    }
                    break;
                }
        }
    }
    int rc = x->alltoall(x->ctx, R->rc, R->out, R->in);
    if (rc < 0)
        return rc;
    for (int q = 0; q < R->K; q++) {
        for (size_t off = 0; off + sizeof(struct note) <= R->in[q].len; off += sizeof(struct note)) {
            struct note w;
            memcpy(&w, R->in[q].p + off, sizeof w);
            if (w.kind == N_WAITS && w.at.rank >= 0 && w.at.rank < R->P && R->logs[w.at.rank])
                blocked[w.at.rank].waits = w.waits;
        }
        dg_bytes_free(&R->in[q]);
    }
    return 0;
}

static void replay_free(struct replay *R)
{
    for (int r = 0; r < R->P; r++) {
        if (R->o) {
            free(R->o[r].at);
            free(R->o[r].slot);
            free(R->o[r].start);
        }
        if (R->fact)
            free(R->fact[r]);
        if (R->watch)
            free(R->watch[r]);
    }
    free(R->o);
    free(R->cur);
    free(R->fact);
    free(R->watch);
    free(R->nwatch);
    free(R->wnext);
    free(R->work);
    free(R->queued);
    dg_bytes_per_proc_free(R->out, R->K);
    dg_bytes_per_proc_free(R->in, R->K);
    free(R->sync);
    free(R->base);
    free(R->mflag);
    free(R->nreached);
    free(R->nready);
    dg_map_free(&R->starts);
}

int dg_stall_check_dist(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m, const int *owner,
                        const struct dg_xchg *x, const struct dg_move *const *moves, const uint32_t *nmoves,
                        struct dg_stall_wait *blocked, bool *stalled)
{
    struct replay R = {.logs = logs, .m = m, .owner = owner, .P = nranks, .K = x->nprocs, .me = x->proc};
    *stalled = false;
    int rc = setup(&R, moves, nmoves);
    /* the sends that may wait, known to their processes before anything moves */
    if ((rc = dg_xchg_agree(x, rc)) < 0 || (rc = round_trip(&R, x)) < 0)
        goto out;
    if (R.nsync > 1)
        qsort(R.sync, R.nsync, sizeof *R.sync, pos_cmp);
    for (int r = 0; r < R.P; r++)
        if (logs[r]) {
            wake(&R, r);
            arrive(&R, r);
        }
    do {
        run_local(&R);
    } while ((rc = round_trip(&R, x)) > 0);
    if (rc < 0)
        goto out;
    int64_t left = 0;
    for (int r = 0; r < R.P; r++)
        left += logs[r] && R.cur[r] < R.o[r].n;
    if (x->nprocs > 1 && (rc = x->allreduce(x->ctx, &left, 1, DG_XCHG_SUM)) < 0)
        goto out;
    *stalled = left > 0;
    if (blocked) {
        for (int r = 0; r < R.P; r++)
            blocked[r].at = blocked[r].waits = DG_POS_NONE;
        if (*stalled)
            rc = where_stopped(&R, x, blocked);
    } else if (*stalled) {
        /* the others ask: take part */
        struct dg_stall_wait *scratch = calloc(R.P ? (size_t)R.P : 1, sizeof *scratch);
        R.rc = scratch ? R.rc : TRACE_ERR_NOMEM;
        rc = scratch ? where_stopped(&R, x, scratch) : dg_xchg_agree(x, TRACE_ERR_NOMEM);
        free(scratch);
    }
out:
    replay_free(&R);
    return rc;
}

int dg_stall_check(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                   const struct dg_move *const *moves, const uint32_t *nmoves, struct dg_stall_wait *blocked,
                   bool *stalled)
{
    return dg_stall_check_dist(logs, nranks, m, NULL, dg_xchg_serial(), moves, nmoves, blocked, stalled);
}
