/* replay.c - a timed replay of a run's matched MPI logs, as recorded or
 * with changes applied (docs/prediction.md).  In the spirit of Dimemas
 * and LogGOPSim: each rank is its sequence of computation bursts (the
 * measured gap between one call's exit and the next call's entry) and
 * MPI calls, and a call costs what a few parameters fitted from the run
 * say it costs:
 *   - a send: the overhead o; its message leaves then and arrives after
 *     L + bytes * G (eager), or, above the eager limit, once the receive is
 *     posted, when the receiver runs (rendezvous): a blocking send then
 *     waits for the transfer;
 *   - a receive: it ends at max(its post, the message's arrival) + o; a
 *     receive completed by a Wait was posted long before (its Irecv is not
 *     linked to it in the log): the arrival alone decides;
 *   - a collective: every member has reached it (a nonblocking one: every
 *     member has passed its start), then steps * (L + bytes * G), steps =
 *     ceil(log2 p), twice that for Allreduce, p - 1 for Alltoall(v/w), but
 *     no less than the fastest member's measured time in it; a small
 *     rooted one (gather, reduce, broadcast, scatter) as a binomial tree:
 *     a member waits only for its subtree (gather, reduce) or its
 *     ancestors (broadcast, scatter);
 *   - anything else: its measured time.
 * Every rank starts when its MPI_Init returns, on the ranks' common
 * CLOCK_MONOTONIC (one host), and ends at its last call's entry.
 *
 * A host with more ranks than CPUs (the trace says so, and its calls carry
 * the thread's CPU time): a burst is its CPU time, done only in the rank's
 * turns on a CPU, and a rank notices that a call it waits in is complete
 * only in its turn; the turns are the run's own (cpu-turns.c).
 *
 * Changes (struct dg_change) are what hints ask for:
 *   - DG_CHANGE_NB: a blocking call becomes nonblocking, posted at a
 *     measured time of the rank (the start of its backward window) and
 *     waited for at another (the end of its forward window); the MPI calls
 *     in between stay where they were;
 *   - DG_CHANGE_MERGE: a send travels in the message of a later send of
 *     the same channel (into): it costs nothing, the carrying message
 *     carries its bytes too, and its receive completes when that message
 *     arrives;
 *   - DG_CHANGE_COLL: a point-to-point call belongs to a collective
 *     instance: the rank's first member call is the collective (it waits
 *     for every rank's first member, then costs the collective's steps),
 *     the other member calls cost nothing (steps * (L + bytes * G), bytes
 *     the largest message of the instance).
 * A rank is replayed as a list of items (computation, a call, a post, a
 * wait) built from its log and the changes; an item that waits for
 * another rank leaves the rank blocked until that rank has progressed.
 * A replay that stalls (the logs, or a change, do not replay) lets the
 * blocked rank that is earliest (then lowest) go on as if its wait were
 * over.
 *
 * Spread over the processes of a dg_xchg (dg_replay_run_dist), each
 * process replays its own ranks and learns what it needs of the others'
 * from notes (struct rp_note), as the messages of the run would have told
 * it:
 *   - a posted send's arrival goes to its receive's process (ARRIVAL), and
 *     to the receives of the sends it carries (merged); above the eager
 *     limit its post goes there instead (SENT), the receive's process
 *     computes the arrival once the receive is posted, in the receiver's
 *     turns, and tells the send (PULLED);
 *   - a member's post of a recorded collective (and a nonblocking one's
 *     start) goes to the process that owns the instance (REACHED,
 *     STARTED), which computes each member's completion once the members
 *     it waits for are there (replay-owner.c) and tells it (DONE);
 *   - a rank's first member of a changed instance (DG_CHANGE_COLL) goes to
 *     the instance's owner (LEAD, owner id mod K), which tells every
 *     process when it completes (INSTDONE).
 * Every value is a function of posts only, so the ranks end where the
 * serial replay ends them whatever the order of the steps: rounds of the
 * exchange until nobody has work or notes, then a stall is broken at the
 * lowest (clock, rank) of all processes, by two all-reduces.  With one
 * process the same code runs with nothing travelling. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay-private.h"

uint64_t rp_key(struct dg_pos p)
{
    return (uint64_t)(uint32_t)p.rank << 32 | p.pos;
}

double rp_coll_steps(int call, uint32_t p)
{
    double lg = p > 1 ? ceil(log2((double)p)) : 0;
    switch (trace_mpi_call_base(call)) {
    case CHT_MPI_ALLREDUCE:
        return 2 * lg;
    case CHT_MPI_ALLTOALL: case CHT_MPI_ALLTOALLV: case CHT_MPI_ALLTOALLW:
    case CHT_MPI_ALLGATHER: case CHT_MPI_ALLGATHERV:
        return p > 1 ? (double)(p - 1) : 0;
    default:
        return lg;
    }
}

double rp_xfer(const struct dg_replay_params *pp, uint64_t bytes)
{
    return pp->ideal ? 0 : pp->lat_ns + (double)bytes * pp->ns_per_byte;
}

static uint32_t call_end(const struct dg_mpilog *log, const struct rp_rank *c, uint32_t k)
{
    return k + 1 < c->ncalls ? c->first[k + 1] : log->n;
}

/* A rank's changes per log position: arrays only for the ranks a change
 * touches (changes_init), none otherwise. */
static inline uint32_t into_of(const struct rp_rank *k, uint32_t p)
{
    return k->into ? k->into[p] : UINT32_MAX;
}

static inline uint32_t changed_inst(const struct rp_rank *k, uint32_t p)
{
    return k->coll ? k->coll[p] : 0;
}

static int push(struct rp_rank *k, struct rp_item it)
{
    if (k->nit == k->cit) {
        size_t nc = k->cit ? 2 * k->cit : 64;
        struct rp_item *p = realloc(k->it, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        k->it = p;
        k->cit = nc;
    }
    k->it[k->nit++] = it;
    return 0;
}

static int rank_proc(const struct rp_state *S, int r)
{
    if (r < 0 || r >= S->P)
        return -1;
    return S->owner ? S->owner[r] : 0;
}

static bool mine(const struct rp_state *S, struct dg_pos p)
{
    return p.rank >= 0 && p.rank < S->P && S->logs[p.rank] && p.pos < S->logs[p.rank]->n;
}

static void wake(struct rp_state *S, int r)
{
    struct rp_rank *k = &S->rk[r];
    if (!k->queued && k->next < k->nit) {
        k->queued = true;
        S->work[S->nwork++] = r;
    }
}

/* The changed instance of record p of any rank (0: none), else id + 1. */
static uint32_t coll_of(const struct rp_state *S, struct dg_pos p)
{
    const uint64_t *v = S->collof.n ? dg_map_get(&S->collof, rp_key(p)) : NULL;
    return v ? (uint32_t)*v : 0;
}

/* ---- notes ------------------------------------------------------------------------------- */

static void deliver(struct rp_state *S, const struct rp_note *n);

void rp_note(struct rp_state *S, int q, const struct rp_note *n)
{
    if (q == S->me) {
        deliver(S, n);
        return;
    }
    if (q < 0 || q >= S->K)
        return; /* nobody holds it: nobody waits for it */
    if (!dg_bytes_put(&S->out[q], n, sizeof *n))
        S->rc = TRACE_ERR_NOMEM;
}

static void note_rank(struct rp_state *S, int kind, struct dg_pos at, double t, uint64_t bytes)
{
    struct rp_note n = {(uint32_t)kind, 0, at, t, bytes};
    rp_note(S, rank_proc(S, at.rank), &n);
}

/* Send p's arrival is known (done[p]): its receive and those of the sends
 * it carries learn it (not those of sends in a changed instance: theirs is
 * the instance's end). */
static void arrived(struct rp_state *S, struct dg_pos p, bool self)
{
    double t = S->rk[p.rank].done[p.pos];
    struct dg_pos q = dg_match_peer(S->m, p);
    if (self && q.rank >= 0 && !coll_of(S, p))
        note_rank(S, RN_ARRIVAL, q, t, 0);
    size_t lo = 0, hi = S->ncarried;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        struct dg_pos c = S->carried[2 * mid];
        if (c.rank < p.rank || (c.rank == p.rank && c.pos < p.pos))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < S->ncarried && S->carried[2 * lo].rank == p.rank && S->carried[2 * lo].pos == p.pos; lo++) {
        struct dg_pos s = S->carried[2 * lo + 1];
        q = dg_match_peer(S->m, s);
        if (q.rank >= 0 && !coll_of(S, s))
            note_rank(S, RN_ARRIVAL, q, t, 0);
    }
}

/* The send's bytes, with those of the sends merged into it. */
static uint64_t send_bytes(const struct rp_state *S, struct dg_pos p)
{
    const struct rp_rank *k = &S->rk[p.rank];
    return S->logs[p.rank]->rec[p.pos].bytes + (k->extra ? k->extra[p.pos] : 0);
}

/* Send p was posted: eager, its arrival is known now; a rendezvous waits
 * for its receive's post, on the receive's process. */
static void send_posted(struct rp_state *S, struct dg_pos p)
{
    struct rp_rank *k = &S->rk[p.rank];
    if (into_of(k, p.pos) != UINT32_MAX)
        return; /* travels in its carrier's message */
    uint64_t bytes = send_bytes(S, p);
    struct dg_pos q = dg_match_peer(S->m, p);
    const struct dg_msgrec *y = q.rank >= 0 ? dg_match_rec(S->m, q) : NULL;
    if (bytes > S->pp->eager_max && y && !(y->flags & DG_MSGF_NONBLOCKING)) {
        note_rank(S, RN_SENT, q, k->at[p.pos], bytes);
        return;
    }
    /* L includes the receive's own time */
    k->done[p.pos] = k->at[p.pos] + fmax(0, rp_xfer(S->pp, bytes) - S->pp->or_ns);
    arrived(S, p, true);
}

/* Receive q, posted, pulls in a rendezvous message posted at ts: when the
 * receiver runs (its turns on shared CPUs); the send learns it. */
static void pull(struct rp_state *S, struct dg_pos q, double ts, double x)
{
    struct rp_rank *k = &S->rk[q.rank];
    double t = dg_turns_notice(&k->tn, S->pp, fmax(ts, k->at[q.pos]));
    k->done[q.pos] = t + x;
    note_rank(S, RN_PULLED, dg_match_peer(S->m, q), k->done[q.pos], 0);
    wake(S, q.rank);
}

static void deliver(struct rp_state *S, const struct rp_note *n)
{
    struct dg_pos p = n->at;
    switch (n->kind) {
    case RN_REACHED: case RN_STARTED: case RN_LEAD:
        rp_owner_take(S, n);
        return;
    case RN_INSTDONE:
        if (n->inst < S->ninst && isnan(S->inst_done[n->inst])) {
            S->inst_done[n->inst] = n->t;
            for (int r = 0; r < S->P; r++)
                if (S->logs[r])
                    wake(S, r);
        }
        return;
    }
    if (!mine(S, p))
        return;
    struct rp_rank *k = &S->rk[p.rank];
    switch (n->kind) {
    case RN_ARRIVAL: case RN_DONE:
        k->done[p.pos] = n->t;
        wake(S, p.rank);
        return;
    case RN_PULLED:
        k->done[p.pos] = n->t;
        arrived(S, p, false);
        wake(S, p.rank);
        return;
    case RN_SENT: {
        double x = rp_xfer(S->pp, n->bytes);
        if (!isnan(k->at[p.pos])) {
            pull(S, p, n->t, x);
            return;
        }
        if (S->npend == S->cpend) {
            size_t c = S->cpend ? 2 * S->cpend : 16;
            double *v = realloc(S->pend, 2 * c * sizeof *v);
            if (!v) {
                S->rc = TRACE_ERR_NOMEM;
                return;
            }
            S->pend = v;
            S->cpend = c;
        }
        uint64_t *slot = dg_map_put(&S->rdv, rp_key(p), S->npend);
        if (!slot) {
            S->rc = TRACE_ERR_NOMEM;
            return;
        }
        S->pend[2 * S->npend] = n->t;
        S->pend[2 * S->npend + 1] = x;
        S->npend++;
        return;
    }
    }
}

/* ---- posting and completing records ------------------------------------------------- */

/* Posts the records of call c of rank r at time t (records already posted
 * keep their time), and says so to those who wait for them. */
static void post(struct rp_state *S, int r, uint32_t c, double t)
{
    struct rp_rank *k = &S->rk[r];
    const struct dg_mpilog *log = S->logs[r];
    for (uint32_t p = k->first[c]; p < call_end(log, k, c); p++) {
        if (!isnan(k->at[p]))
            continue;
        k->at[p] = t;
        struct dg_pos me = {r, p};
        const struct dg_msgrec *x = &log->rec[p];
        uint32_t i = changed_inst(k, p);
        if (i && k->lead[p]) {
            struct rp_note n = {RN_LEAD, i - 1, me, t, 0};
            rp_note(S, (int)((i - 1) % (uint32_t)S->K), &n);
        }
        if (x->kind == DG_MSG_SEND) {
            send_posted(S, me);
        } else if (x->kind == DG_MSG_RECV) {
            const uint64_t *v = S->rdv.n ? dg_map_get(&S->rdv, rp_key(me)) : NULL;
            if (v)
                pull(S, me, S->pend[2 * *v], S->pend[2 * *v + 1]);
        } else if (x->kind == DG_MSG_COLL) {
            uint32_t ci = dg_match_coll_of(S->m, me);
            if (ci != UINT32_MAX) {
                struct rp_note n = {RN_REACHED, ci, me, t, 0};
                rp_note(S, dg_match_coll_owner(S->m, ci), &n);
            }
        }
        const uint64_t *cp = S->starts.n ? dg_map_get(&S->starts, rp_key(me)) : NULL;
        if (cp) {
            struct dg_pos w = {r, (uint32_t)*cp};
            uint32_t ci = dg_match_coll_of(S->m, w);
            struct rp_note n = {RN_STARTED, ci, w, t, 0};
            rp_note(S, dg_match_coll_owner(S->m, ci), &n);
        }
    }
}

/* When the recorded collective at p completes, with no instance (no other
 * member is known). */
static double coll_alone(const struct rp_state *S, struct dg_pos me)
{
    const struct dg_msgrec *x = &S->logs[me.rank]->rec[me.pos];
    uint64_t bytes = x->bytes > x->rbytes ? x->bytes : x->rbytes;
    return S->rk[me.rank].at[me.pos] + rp_coll_steps(x->call, x->comm_size) * rp_xfer(S->pp, bytes);
}

/* When call c of rank r (posted) completes: NAN if it waits for another
 * rank that has not got far enough. */
static double complete(struct rp_state *S, int r, uint32_t c)
{
    struct rp_rank *k = &S->rk[r];
    const struct dg_mpilog *log = S->logs[r];
    const struct dg_replay_params *pp = S->pp;
    double end = -INFINITY, own = 0;
    bool modelled = false;
    for (uint32_t p = k->first[c]; p < call_end(log, k, c); p++) {
        const struct dg_msgrec *x = &log->rec[p];
        struct dg_pos me = {r, p};
        double start = k->at[p];
        end = fmax(end, start);
        if (changed_inst(k, p)) {
            modelled = true;
            if (k->lead[p]) {
                double d = S->inst_done[k->coll[p] - 1];
                if (isnan(d))
                    return NAN;
                end = fmax(end, d);
            }
            continue;
        }
        if (x->kind == DG_MSG_SEND) {
            modelled = true;
            if (into_of(k, p) != UINT32_MAX)
                continue; /* travels later, in another message */
            if (x->flags & DG_MSGF_NONBLOCKING) {
                /* its own time; the message goes on without it */
                end = fmax(end, start + (pp->ideal ? 0 : pp->o_ns));
                continue;
            }
            double a = k->done[p];
            if (isnan(a))
                return NAN;
            bool rdv = send_bytes(S, me) > pp->eager_max;
            end = fmax(end, rdv ? a : start + (pp->ideal ? 0 : pp->o_ns));
        } else if (x->kind == DG_MSG_RECV) {
            modelled = true;
            struct dg_pos s = dg_match_peer(S->m, me);
            double a = start;
            if (s.rank >= 0) {
                uint32_t i = coll_of(S, s);
                a = i ? S->inst_done[i - 1] : k->done[p];
                if (isnan(a))
                    return NAN; /* its send has not left yet */
            }
            end = fmax(end, fmax(start, a) + (pp->ideal ? 0 : pp->or_ns));
        } else if (x->kind == DG_MSG_COLL) {
            modelled = true;
            double d = dg_match_coll_of(S->m, me) == UINT32_MAX ? coll_alone(S, me) : k->done[p];
            if (isnan(d))
                return NAN;
            end = fmax(end, (x->flags & DG_MSGF_NONBLOCKING) ? fmax(start, d) : d);
        } else if (x->t_exit > x->t_enter && !pp->ideal) {
            double t = (double)(x->t_exit - x->t_enter);
            struct dg_cputime cx = dg_cpu_of(log, p);
            if (k->tn.on && cx.exit > cx.enter)
                t = (double)(cx.exit - cx.enter); /* its wall time has others' turns */
            own = fmax(own, t);
        }
    }
    if (!modelled)
        return dg_turns_run(&k->tn, S->pp, k->at[k->first[c]], own);
    return end;
}

/* Runs rank r's items as far as it can. */
static void advance(struct rp_state *S, int r)
{
    struct rp_rank *k = &S->rk[r];
    while (k->next < k->nit && S->rc == 0) {
        const struct rp_item *it = &k->it[k->next];
        if (it->kind == IT_COMP) {
            k->t = dg_turns_run(&k->tn, S->pp, k->t, it->ns);
        } else if (it->kind == IT_POST) {
            post(S, r, it->call, k->t);
        } else {
            if (it->kind == IT_CALL)
                post(S, r, it->call, k->t);
            double d = complete(S, r, it->call);
            if (isnan(d))
                return;
            k->t = dg_turns_notice(&k->tn, S->pp, fmax(k->t, d));
        }
        k->next++;
    }
}

static void run_local(struct rp_state *S)
{
    while (S->nwork && S->rc == 0) {
        int r = S->work[--S->nwork];
        S->rk[r].queued = false;
        advance(S, r);
    }
}
/* ---- building the items ------------------------------------------------------------- */

/* The call whose gap (from the previous call's exit to its entry) holds
 * measured time t, and the offset in it; the last call if t is later. */
static uint32_t gap_of(const struct dg_mpilog *log, const struct rp_rank *k, uint64_t t, double *off)
{
    uint32_t lo = 1, hi = k->ncalls - 1; /* first call with t_enter >= t */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (log->rec[k->first[mid]].t_enter >= t)
            hi = mid;
        else
            lo = mid + 1;
    }
    uint64_t from = log->rec[k->first[lo - 1]].t_exit;
    *off = t > from ? (double)(t - from) : 0;
    return lo;
}

struct action {
    uint32_t gap;   /* before this call */
    double off;     /* ns into the gap */
    uint8_t kind;   /* IT_POST or IT_WAIT */
    uint32_t call;
};

static int action_cmp(const void *a, const void *b)
{
    const struct action *x = a, *y = b;
    if (x->gap != y->gap)
        return x->gap < y->gap ? -1 : 1;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return (int)x->kind - (int)y->kind; /* a post before a wait at the same time */
}

/* Rank r's items: its gaps and calls, with the posts and waits of the
 * calls made nonblocking (acts: n of them) placed in the gaps. */
static int build_items(struct rp_state *S, int r, struct action *acts, size_t n, const bool *moved)
{
    struct rp_rank *k = &S->rk[r];
    const struct dg_mpilog *log = S->logs[r];
    if (n)
        qsort(acts, n, sizeof *acts, action_cmp);
    size_t a = 0;
    for (uint32_t c = 1; c < k->ncalls; c++) {
        const struct dg_msgrec *prev = &log->rec[k->first[c - 1]], *cur = &log->rec[k->first[c]];
        double gap = prev->t_exit && cur->t_enter > prev->t_exit ? (double)(cur->t_enter - prev->t_exit) : 0;
        double scale = S->pp->compute_scale > 0 ? S->pp->compute_scale : 1;
        if (k->tn.on && gap > 0) {
            /* the burst is its CPU time (the rest of its wall time was other
             * ranks' turns): the share of its wall time, moves included */
            struct dg_cputime cp = dg_cpu_of(log, k->first[c - 1]), cc = dg_cpu_of(log, k->first[c]);
            double cpu = cp.exit && cc.enter >= cp.exit
                             ? (double)(cc.enter - cp.exit)
                             : gap * (double)k->tn.a / (double)(k->tn.a + k->tn.b);
            scale *= fmin(1, cpu / gap);
        }
        gap *= scale;
        double done = 0;
        for (; a < n && acts[a].gap == c; a++) {
            double off = fmin(acts[a].off * scale, gap);
            if (off > done && push(k, (struct rp_item){IT_COMP, 0, off - done}) < 0)
                return TRACE_ERR_NOMEM;
            done = fmax(done, off);
            if (push(k, (struct rp_item){acts[a].kind, acts[a].call, 0}) < 0)
                return TRACE_ERR_NOMEM;
        }
        if (gap > done && push(k, (struct rp_item){IT_COMP, 0, gap - done}) < 0)
            return TRACE_ERR_NOMEM;
        if (c + 1 == k->ncalls)
            break; /* the last call's entry is the end */
        if (!moved[c] && push(k, (struct rp_item){IT_CALL, c, 0}) < 0)
            return TRACE_ERR_NOMEM;
    }
    return 0;
}

/* The call (index in the rank's calls) holding log position p. */
static uint32_t call_of(const struct rp_rank *k, uint32_t p)
{
    uint32_t lo = 0, hi = k->ncalls;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (k->first[mid] <= p)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void state_free(struct rp_state *S)
{
    for (int r = 0; S->rk && r < S->P; r++) {
        struct rp_rank *k = &S->rk[r];
        free(k->first);
        free(k->it);
        free(k->at);
        free(k->done);
        free(k->into);
        free(k->extra);
        free(k->coll);
        free(k->lead);
        free(k->tn.off);
    }
    free(S->rk);
    free(S->work);
    dg_bytes_per_proc_free(S->out, S->K);
    dg_bytes_per_proc_free(S->in, S->K);
    dg_map_free(&S->starts);
    dg_map_free(&S->rdv);
    dg_map_free(&S->collof);
    free(S->pend);
    free(S->carried);
    free(S->inst_steps);
    free(S->inst_ranks);
    free(S->inst_posted);
    free(S->inst_bytes);
    free(S->inst_ready);
    free(S->inst_done);
    rp_owner_free(S);
}

/* This process's ranks' arrays, each with no change yet. */
static int ranks_init(struct rp_state *S)
{
    int P = S->P;
    if (!(S->rk = calloc(P ? P : 1, sizeof *S->rk)) || !(S->work = malloc((P ? P : 1) * sizeof *S->work)) ||
        !(S->out = dg_bytes_per_proc(S->K)) || !(S->in = dg_bytes_per_proc(S->K)))
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < P; r++) {
        struct rp_rank *k = &S->rk[r];
        const struct dg_mpilog *log = S->logs[r];
        if (!log)
            continue;
        uint32_t n = log->n;
        k->first = malloc((n ? n : 1) * sizeof *k->first);
        k->at = malloc((n ? n : 1) * sizeof *k->at);
        k->done = malloc((n ? n : 1) * sizeof *k->done);
        if (!k->first || !k->at || !k->done)
            return TRACE_ERR_NOMEM;
        for (uint32_t p = 0; p < n; p++) {
            if (p == 0 || log->rec[p].index != log->rec[p - 1].index)
                k->first[k->ncalls++] = p;
            k->at[p] = k->done[p] = NAN;
            const struct dg_msgrec *x = &log->rec[p];
            struct dg_pos me = {r, p};
            if (x->kind == DG_MSG_COLL && (x->flags & DG_MSGF_NONBLOCKING) && x->fwd_pos < p &&
                dg_match_coll_of(S->m, me) != UINT32_MAX &&
                !dg_map_put(&S->starts, rp_key((struct dg_pos){r, (uint32_t)x->fwd_pos}), p))
                return TRACE_ERR_NOMEM;
        }
    }
    return 0;
}

static int carried_cmp(const void *a, const void *b)
{
    const struct dg_pos *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The changes of this process's ranks applied (a merged send travels in
 * its carrier's message; a call joins a changed instance), every rank's
 * changed instances known, and each merged send's last carrier. */
static int changes_init(struct rp_state *S, const struct dg_change *ch, size_t nch, int64_t *lastv)
{
    for (size_t i = 0; i < nch; i++) {
        const struct dg_change *c = &ch[i];
        if (c->kind == DG_CHANGE_COLL) { /* the last change of a record is its own */
            uint64_t *v = dg_map_put(&S->collof, rp_key((struct dg_pos){c->rank, c->pos}), 0);
            if (!v)
                return TRACE_ERR_NOMEM;
            *v = c->id + 1;
        }
        if (!mine(S, (struct dg_pos){c->rank, c->pos}))
            continue;
        struct rp_rank *k = &S->rk[c->rank];
        const struct dg_msgrec *x = &S->logs[c->rank]->rec[c->pos];
        uint32_t n = S->logs[c->rank]->n;
        if (c->kind == DG_CHANGE_MERGE && x->kind == DG_MSG_SEND && c->into < n && c->into != c->pos) {
            if (!k->into) {
                k->into = malloc(n * sizeof *k->into);
                k->extra = calloc(n, sizeof *k->extra);
                if (!k->into || !k->extra)
                    return TRACE_ERR_NOMEM;
                for (uint32_t p = 0; p < n; p++)
                    k->into[p] = UINT32_MAX;
            }
            k->into[c->pos] = c->into;
            k->extra[c->into] += x->bytes;
        } else if (c->kind == DG_CHANGE_COLL) {
            if (!k->coll && (!(k->coll = calloc(n, sizeof *k->coll)) || !(k->lead = calloc(n, sizeof *k->lead))))
                return TRACE_ERR_NOMEM;
            k->coll[c->pos] = c->id + 1;
            uint64_t b = x->bytes > x->rbytes ? x->bytes : x->rbytes;
            if ((int64_t)b > lastv[2 * c->id])
                lastv[2 * c->id] = (int64_t)b;
            lastv[2 * c->id + 1] = (int64_t)i + 1; /* its steps: the last change's */
        }
    }
    /* each merged send's last carrier (a cycle of merges carries nothing) */
    size_t n = 0, cap = 0;
    for (int r = 0; r < S->P; r++) {
        const struct dg_mpilog *log = S->logs[r];
        struct rp_rank *k = &S->rk[r];
        for (uint32_t p = 0; log && k->into && p < log->n; p++) {
            if (k->into[p] == UINT32_MAX)
                continue;
            uint32_t f = k->into[p], hops = 0;
            while (k->into[f] != UINT32_MAX && hops++ < log->n)
                f = k->into[f];
            if (k->into[f] != UINT32_MAX)
                continue;
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                struct dg_pos *v = realloc(S->carried, 2 * cap * sizeof *v);
                if (!v)
                    return TRACE_ERR_NOMEM;
                S->carried = v;
            }
            S->carried[2 * n] = (struct dg_pos){r, f};
            S->carried[2 * n + 1] = (struct dg_pos){r, p};
            n++;
        }
    }
    S->ncarried = n;
    if (n > 1)
        qsort(S->carried, n, 2 * sizeof *S->carried, carried_cmp);
    return 0;
}

/* Each rank's first member of a changed instance leads it there; the
 * instances' members, bytes and steps agreed over the processes. */
static int instances_init(struct rp_state *S, const struct dg_change *ch, size_t nch, const struct dg_xchg *x)
{
    uint32_t maxid = 0;
    for (size_t i = 0; i < nch; i++)
        if (ch[i].kind == DG_CHANGE_COLL && ch[i].id + 1 > maxid)
            maxid = ch[i].id + 1;
    S->ninst = maxid;
    size_t ni = maxid ? maxid : 1;
    int64_t *v = calloc(3 * ni, sizeof *v); /* [2i]: bytes, [2i+1]: last change + 1; [2 ni + i]: ranks */
    S->inst_steps = calloc(ni, sizeof *S->inst_steps);
    S->inst_ranks = calloc(ni, sizeof *S->inst_ranks);
    S->inst_posted = calloc(ni, sizeof *S->inst_posted);
    S->inst_bytes = calloc(ni, sizeof *S->inst_bytes);
    S->inst_ready = calloc(ni, sizeof *S->inst_ready);
    S->inst_done = malloc(ni * sizeof *S->inst_done);
    uint32_t *seen = calloc(ni, sizeof *seen); /* rank + 1 that has a lead */
    int rc = v && S->inst_steps && S->inst_ranks && S->inst_posted && S->inst_bytes && S->inst_ready &&
                     S->inst_done && seen
                 ? 0
                 : TRACE_ERR_NOMEM;
    if (rc == 0)
        rc = changes_init(S, ch, nch, v);
    for (int r = 0; rc == 0 && r < S->P; r++) {
        const struct dg_mpilog *log = S->logs[r];
        struct rp_rank *k = &S->rk[r];
        for (uint32_t p = 0; log && k->coll && p < log->n; p++) {
            uint32_t i = k->coll[p];
            if (i && seen[i - 1] != (uint32_t)r + 1) {
                seen[i - 1] = (uint32_t)r + 1;
                k->lead[p] = true;
                v[2 * ni + i - 1]++;
            }
        }
    }
    if ((rc = dg_xchg_agree(x, rc)) == 0 && maxid && x->nprocs > 1 &&
        ((rc = x->allreduce(x->ctx, v, 2 * (int)ni, DG_XCHG_MAX)) == 0))
        rc = x->allreduce(x->ctx, v + 2 * ni, (int)ni, DG_XCHG_SUM);
    for (uint32_t i = 0; rc == 0 && i < maxid; i++) {
        S->inst_bytes[i] = (uint64_t)v[2 * i];
        S->inst_steps[i] = v[2 * i + 1] ? ch[v[2 * i + 1] - 1].steps : 0;
        S->inst_ranks[i] = (uint32_t)v[2 * ni + i];
        S->inst_done[i] = NAN;
    }
    free(v);
    free(seen);
    return rc;
}

/* Rank r's items: the posts and waits of its calls made nonblocking
 * placed in its gaps. */
static int rank_items(struct rp_state *S, int r, const struct dg_change *ch, size_t nch)
{
    const struct dg_mpilog *log = S->logs[r];
    struct rp_rank *k = &S->rk[r];
    if (!log || k->ncalls < 2)
        return 0;
    bool *moved = calloc(k->ncalls, sizeof *moved);
    struct action *acts = nch ? malloc(2 * nch * sizeof *acts) : NULL;
    if (!moved || (nch && !acts)) {
        free(moved);
        free(acts);
        return TRACE_ERR_NOMEM;
    }
    size_t na = 0;
    for (size_t i = 0; i < nch; i++) {
        const struct dg_change *c = &ch[i];
        if (c->kind != DG_CHANGE_NB || c->rank != r || c->pos >= log->n)
            continue;
        uint32_t call = call_of(k, c->pos);
        const struct dg_msgrec *x = &log->rec[k->first[call]];
        if (call == 0 || call + 1 >= k->ncalls || moved[call] || !x->t_enter || !x->t_exit)
            continue;
        uint64_t tp = c->t_post && c->t_post < x->t_enter ? c->t_post : x->t_enter;
        uint64_t tw = c->t_wait > x->t_exit ? c->t_wait : x->t_exit;
        struct action p = {0, 0, IT_POST, call}, w = {0, 0, IT_WAIT, call};
        if (tp == x->t_enter) {
            p.gap = call;
            p.off = INFINITY; /* at the end of its own gap: where it was */
        } else {
            p.gap = gap_of(log, k, tp, &p.off);
        }
        w.gap = gap_of(log, k, tw, &w.off);
        if (w.gap <= call) {
            w.gap = call + 1;
            w.off = 0;
        }
        acts[na++] = p;
        acts[na++] = w;
        moved[call] = true;
    }
    int rc = build_items(S, r, acts, na, moved);
    free(moved);
    free(acts);
    return rc;
}

/* One round of the exchange: the notes for other processes go, theirs
 * for this one are taken.  Returns whether any process sent anything, or
 * a negative status. */
static int round_trip(struct rp_state *S, const struct dg_xchg *x)
{
    int rc = x->alltoall(x->ctx, S->rc, S->out, S->in);
    if (rc < 0)
        return rc;
    for (int q = 0; q < S->K; q++) {
        for (size_t off = 0; off + sizeof(struct rp_note) <= S->in[q].len; off += sizeof(struct rp_note)) {
            struct rp_note n;
            memcpy(&n, S->in[q].p + off, sizeof n);
            deliver(S, &n);
        }
        dg_bytes_free(&S->in[q]);
    }
    return rc;
}

/* A blocked rank's clock as bits (non-negative doubles order as their
 * bits), INT64_MAX for a rank that is not here or has ended. */
static int64_t blocked_at(const struct rp_state *S, int r)
{
    const struct rp_rank *k = &S->rk[r];
    if (!S->logs[r] || k->next >= k->nit)
        return INT64_MAX;
    double t = k->t > 0 ? k->t : 0; /* no -0: its bits would be lowest */
    int64_t b;
    memcpy(&b, &t, sizeof b);
    return b;
}

/* The replay, to its end: rounds until nobody has work or notes; a stall
 * lets the earliest blocked rank (then the lowest) go on. */
static int run(struct rp_state *S, const struct dg_xchg *x)
{
    for (;;) {
        int rc;
        do {
            run_local(S);
        } while ((rc = round_trip(S, x)) > 0);
        if (rc < 0)
            return rc;
        int64_t v = INT64_MAX, w = INT64_MAX;
        for (int r = 0; r < S->P; r++)
            if (blocked_at(S, r) < v)
                v = blocked_at(S, r);
        if (x->nprocs > 1 && (rc = x->allreduce(x->ctx, &v, 1, DG_XCHG_MIN)) < 0)
            return rc;
        if (v == INT64_MAX)
            return 0;
        for (int r = 0; r < S->P && w == INT64_MAX; r++)
            if (blocked_at(S, r) == v)
                w = r;
        if (x->nprocs > 1 && (rc = x->allreduce(x->ctx, &w, 1, DG_XCHG_MIN)) < 0)
            return rc;
        if (w == INT64_MAX)
            return TRACE_ERR_ARG; /* a process's ranks changed under it: no rank is there to go on */
        if (w >= 0 && w < S->P && S->logs[w]) {
            S->rk[w].next++;
            wake(S, (int)w);
        }
    }
}

int dg_replay_run_dist(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m, const int *owner,
                       const struct dg_xchg *x, const struct dg_replay_params *pp, const struct dg_change *ch,
                       size_t nch, struct dg_replay_rank *out)
{
    int P = nranks, rc;
    struct rp_state S = {.logs = logs, .m = m, .pp = pp, .owner = owner, .P = P, .K = x->nprocs, .me = x->proc};
    struct turns *tn = NULL;
    rc = ranks_init(&S);
    if (rc == 0 && pp->slice_ns > 0 && !(tn = malloc((P ? P : 1) * sizeof *tn)))
        rc = TRACE_ERR_NOMEM;
    if ((rc = dg_xchg_agree(x, rc)) < 0 || (rc = instances_init(&S, ch, nch, x)) < 0)
        goto out;
    /* the run's start: the first MPI_Init return of all */
    int64_t t0v = (int64_t)dg_run_start(logs, P);
    t0v = t0v ? t0v : INT64_MAX;
    if (x->nprocs > 1 && (rc = x->allreduce(x->ctx, &t0v, 1, DG_XCHG_MIN)) < 0)
        goto out;
    uint64_t t0 = t0v == INT64_MAX ? 0 : (uint64_t)t0v;
    if (tn) {
        rc = dg_turns_of_dist(logs, P, x, pp->slice_ns, t0, tn);
        for (int r = 0; rc == 0 && r < P; r++)
            S.rk[r].tn = tn[r]; /* state_free frees their windows */
        if (rc < 0)
            goto out;
    }
    for (int r = 0; rc == 0 && r < P; r++)
        rc = rank_items(&S, r, ch, nch);
    if (rc == 0)
        rc = rp_owner_setup(&S);
    if ((rc = dg_xchg_agree(x, rc)) < 0)
        goto out;
    /* ranks start when their MPI_Init returns, on one clock (the ranks'
     * CLOCK_MONOTONIC: one host), their offsets scaled as bursts are */
    double scale = pp->compute_scale > 0 ? pp->compute_scale : 1;
    for (int r = 0; r < P; r++) {
        if (logs[r] && logs[r]->n && logs[r]->rec[0].t_exit)
            S.rk[r].t = (double)(logs[r]->rec[0].t_exit - t0) * scale;
        if (logs[r])
            wake(&S, r);
    }
    if ((rc = run(&S, x)) < 0)
        goto out;
    for (int r = 0; r < P; r++) {
        memset(&out[r], 0, sizeof out[r]);
        const struct dg_mpilog *log = logs[r];
        struct rp_rank *k = &S.rk[r];
        if (!log || k->ncalls < 2)
            continue;
        const struct dg_msgrec *first = &log->rec[0], *last = &log->rec[k->first[k->ncalls - 1]];
        out[r].valid = first->t_exit && last->t_enter >= first->t_exit && t0;
        out[r].measured_ns = out[r].valid ? (double)(last->t_enter - t0) : 0;
        out[r].replayed_ns = k->t;
    }
    rc = 0;
out:
    free(tn);
    state_free(&S);
    return rc;
}

int dg_replay_run(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                  const struct dg_replay_params *pp, const struct dg_change *ch, size_t nch,
                  struct dg_replay_rank *out)
{
    return dg_replay_run_dist(logs, nranks, m, NULL, dg_xchg_serial(), pp, ch, nch, out);
}
