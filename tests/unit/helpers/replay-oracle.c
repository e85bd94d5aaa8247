/* replay-oracle.c - the timed replay of depgraph/replay.c as it was before
 * it was spread over processes (every rank in one process, swept in rank
 * order until nothing moves; a stall lets the earliest blocked rank go
 * on): the oracle the distributed replay is checked against
 * (tests/unit/test-xrank-dist.c).  Its model is docs/prediction.md's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay-oracle.h"
#include "replay-private.h"



struct item {
    uint8_t kind;
    uint32_t call;  /* IT_CALL, IT_POST, IT_WAIT: the call (index in the rank's calls) */
    double ns;      /* IT_COMP */
};

/* A rank's calls: the first record of each, in log order. */
struct rank {
    struct turns tn;
    uint32_t ncalls;
    uint32_t *first;  /* log position of the call's first record */
    struct item *it;
    size_t nit, cit;
    size_t next;      /* next item */
    double t;         /* its clock */
    double *at;       /* per log position: when the record was posted (NAN: not yet) */
    double *done;     /* per log position: a SEND's arrival at its receiver (NAN: not known) */
    uint32_t *into;   /* per log position: MERGE target (UINT32_MAX: none) */
    uint64_t *extra;  /* per log position: bytes carried for merged sends */
    uint32_t *coll;   /* per log position: collective instance + 1 (0: none) */
    bool *lead;       /* per log position: the rank's first member of its instance */
};

/* A recorded collective instance, computed once for all its members. */
struct coll_cache {
    uint32_t scan[2];   /* members scanned, blocking [0] and nonblocking [1] */
    double ready[2];    /* the latest post among them */
    double least;       /* the least time a member spent in it */
    bool least_known;
};

struct rstate {
    const struct dg_mpilog *const *logs;
    const struct dg_match *m;
    const struct dg_replay_params *pp;
    int P;
    struct rank *rk;
    uint32_t ninst;
    uint32_t *inst_steps;
    uint64_t *inst_bytes;
    uint32_t *inst_ranks;
    double *inst_ready;   /* max of the members' posts so far */
    uint32_t *inst_posted; /* members posted so far */
    struct coll_cache *cc; /* [dg_match_ncoll] */
};

static uint32_t call_end(const struct dg_mpilog *log, const struct rank *c, uint32_t k)
{
    return k + 1 < c->ncalls ? c->first[k + 1] : log->n;
}

static double coll_steps(int call, uint32_t p)
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

static double xfer(const struct dg_replay_params *pp, uint64_t bytes)
{
    return pp->ideal ? 0 : pp->lat_ns + (double)bytes * pp->ns_per_byte;
}

static int push(struct rank *k, struct item it)
{
    if (k->nit == k->cit) {
        size_t nc = k->cit ? 2 * k->cit : 64;
        struct item *p = realloc(k->it, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        k->it = p;
        k->cit = nc;
    }
    k->it[k->nit++] = it;
    return 0;
}

/* ---- posting and completing records ------------------------------------------------- */

static const struct dg_msgrec *rec(const struct rstate *S, struct dg_pos p)
{
    return &S->logs[p.rank]->rec[p.pos];
}

/* The send's bytes, with those of the sends merged into it. */
static uint64_t send_bytes(const struct rstate *S, struct dg_pos p)
{
    return rec(S, p)->bytes + S->rk[p.rank].extra[p.pos];
}

/* Arrival of the message of SEND p at its receiver, NAN if not known yet. */
static double arrival(struct rstate *S, struct dg_pos p)
{
    struct rank *k = &S->rk[p.rank];
    if (k->into[p.pos] != UINT32_MAX)
        return arrival(S, (struct dg_pos){p.rank, k->into[p.pos]});
    if (!isnan(k->done[p.pos]) || isnan(k->at[p.pos]))
        return k->done[p.pos];
    uint64_t bytes = send_bytes(S, p);
    struct dg_pos q = dg_match_peer(S->m, p);
    if (bytes > S->pp->eager_max && q.rank >= 0 && !(rec(S, q)->flags & DG_MSGF_NONBLOCKING)) {
        double post = S->rk[q.rank].at[q.pos];
        if (isnan(post))
            return NAN; /* rendezvous: the receive is not posted yet */
        /* the receiver pulls the message in when it runs (its turns on
         * shared CPUs); the sender learns it in its own turn (complete) */
        double t = dg_turns_notice(&S->rk[q.rank].tn, S->pp, fmax(k->at[p.pos], post));
        k->done[p.pos] = t + xfer(S->pp, bytes);
    } else {
        k->done[p.pos] = k->at[p.pos] + fmax(0, xfer(S->pp, bytes) - S->pp->or_ns); /* L includes the
                                                                                     receive's own time */
    }
    return k->done[p.pos];
}

/* When collective instance i completes (NAN: a member is not there yet). */
static double inst_done(struct rstate *S, uint32_t i)
{
    if (S->inst_posted[i] < S->inst_ranks[i])
        return NAN;
    return S->inst_ready[i] + (double)S->inst_steps[i] * xfer(S->pp, S->inst_bytes[i]);
}

/* The latest post of the members of instance ci (a nonblocking call's
 * members at their starts, variant nb), scanned once per instance: where
 * a scan stopped at a member not posted yet, the next one goes on. */
static double members_ready(struct rstate *S, uint32_t ci, const struct dg_pos *mem, uint32_t n, bool nb)
{
    struct coll_cache *c = &S->cc[ci];
    for (; c->scan[nb] < n; c->scan[nb]++) {
        struct dg_pos at = mem[c->scan[nb]];
        const struct dg_msgrec *y = rec(S, at);
        if (nb && (y->flags & DG_MSGF_NONBLOCKING) && y->fwd_pos < at.pos)
            at.pos = (uint32_t)y->fwd_pos;
        double a = S->rk[at.rank].at[at.pos];
        if (isnan(a))
            return NAN;
        c->ready[nb] = c->scan[nb] ? fmax(c->ready[nb], a) : a;
    }
    return c->ready[nb];
}

/* A small rooted collective (at most eager_max bytes), as MPICH runs it: a
 * binomial tree over the members' places relative to the root.  A gather
 * or reduce waits for the members of its subtree (the root: for all), a
 * broadcast or scatter for its ancestors up to the root.  Returns when
 * those of member v (its place) have posted (NAN: not yet); *steps is the
 * tree's depth below or above it. */
static double tree_ready(struct rstate *S, const struct dg_pos *mem, uint32_t n, uint32_t v, uint32_t root,
                         bool up, double *steps)
{
    double ready = -INFINITY;
    uint32_t span = up ? (v ? (v & -v) : n) : 0, end = v + span < n ? v + span : n;
    double d = 0;
    if (up)
        *steps = end - v > 1 ? ceil(log2((double)(end - v))) : 0;
    else
        for (uint32_t w = v; w; w -= w & -w)
            d++;
    /* gather, reduce: the subtree [v, end); broadcast, scatter: v and its
     * ancestors */
    for (uint32_t u = v, w = v, i = 0;; i++) {
        if (up ? u >= end : i > d)
            break;
        double a = S->rk[mem[(u + root) % n].rank].at[mem[(u + root) % n].pos];
        if (isnan(a))
            return NAN;
        ready = fmax(ready, a);
        if (up) {
            u++;
        } else if (w) {
            u = w - (w & -w);
            w -= w & -w;
        }
    }
    if (!up)
        *steps = d;
    return ready;
}

/* When the recorded collective of record p completes (NAN: not yet). */
static double coll_done(struct rstate *S, struct dg_pos me)
{
    const struct dg_msgrec *x = rec(S, me);
    uint32_t n = 0, ci = dg_match_coll_of(S->m, me);
    const struct dg_pos *mem = dg_match_coll(S->m, ci, &n);
    bool nb = x->flags & DG_MSGF_NONBLOCKING;
    double ready = S->rk[me.rank].at[me.pos];
    uint64_t bytes = x->bytes > x->rbytes ? x->bytes : x->rbytes;
    uint32_t members = x->comm_size ? x->comm_size : n;
    int base = trace_mpi_call_base(x->call);
    int tree = 0; /* 1: up (gather, reduce), 2: down (broadcast, scatter) */
    if (bytes <= S->pp->eager_max && x->peer >= 0 && !nb) {
        if (base == CHT_MPI_GATHER || base == CHT_MPI_GATHERV || base == CHT_MPI_REDUCE)
            tree = 1;
        else if (base == CHT_MPI_BCAST || base == CHT_MPI_SCATTER || base == CHT_MPI_SCATTERV)
            tree = 2;
    }
    double steps = coll_steps(x->call, members);
    if (!n)
        return ready + steps * xfer(S->pp, bytes);
    if (tree) {
        /* members' places: their order by world rank (the communicator's,
         * as a split keeps it), from the root */
        uint32_t v = dg_match_coll_place(S->m, ci, me.rank), root = dg_match_coll_place(S->m, ci, x->peer);
        double a = tree_ready(S, mem, n, (v + n - root) % n, root, tree == 1, &steps);
        if (isnan(a))
            return NAN;
        ready = fmax(ready, a);
        double cost = steps * xfer(S->pp, bytes);
        return ready + fmax(cost, S->pp->ideal ? 0 : S->pp->o_ns);
    }
    double a = members_ready(S, ci, mem, n, nb);
    if (isnan(a))
        return NAN;
    ready = fmax(ready, a);
    double cost = steps * xfer(S->pp, bytes);
    /* the member that arrived last waited least: its time in the call is
     * the collective's own cost, if larger (a first call that sets up the
     * communicator's collectives costs ms) */
    struct coll_cache *c = &S->cc[ci];
    if (!nb && !c->least_known) {
        c->least = INFINITY;
        for (uint32_t i = 0; i < n; i++) {
            const struct dg_msgrec *y = rec(S, mem[i]);
            if (y->t_exit >= y->t_enter && y->t_exit)
                c->least = fmin(c->least, (double)(y->t_exit - y->t_enter));
        }
        c->least_known = true;
    }
    if (!nb && isfinite(c->least) && !S->pp->ideal)
        cost = fmax(cost, c->least);
    return ready + cost;
}

/* Posts the records of call c of rank r at time t (records already posted
 * keep their time). */
static void post(struct rstate *S, int r, uint32_t c, double t)
{
    struct rank *k = &S->rk[r];
    const struct dg_mpilog *log = S->logs[r];
    for (uint32_t p = k->first[c]; p < call_end(log, k, c); p++) {
        if (!isnan(k->at[p]))
            continue;
        k->at[p] = t;
        uint32_t i = k->coll[p];
        if (i && k->lead[p]) {
            S->inst_ready[i - 1] = S->inst_posted[i - 1] ? fmax(S->inst_ready[i - 1], t) : t;
            S->inst_posted[i - 1]++;
        }
    }
}

/* When call c of rank r (posted) completes: NAN if it waits for another
 * rank that has not got far enough. */
static double complete(struct rstate *S, int r, uint32_t c)
{
    struct rank *k = &S->rk[r];
    const struct dg_mpilog *log = S->logs[r];
    const struct dg_replay_params *pp = S->pp;
    double end = -INFINITY, own = 0;
    bool modelled = false;
    for (uint32_t p = k->first[c]; p < call_end(log, k, c); p++) {
        const struct dg_msgrec *x = &log->rec[p];
        struct dg_pos me = {r, p};
        double start = k->at[p];
        end = fmax(end, start);
        if (k->coll[p]) {
            modelled = true;
            if (k->lead[p]) {
                double d = inst_done(S, k->coll[p] - 1);
                if (isnan(d))
                    return NAN;
                end = fmax(end, d);
            }
            continue;
        }
        if (x->kind == DG_MSG_SEND) {
            modelled = true;
            if (k->into[p] != UINT32_MAX)
                continue; /* travels later, in another message */
            if (x->flags & DG_MSGF_NONBLOCKING) {
                /* its own time; the message goes on without it (whether
                 * its arrival is known yet does not change the call) */
                end = fmax(end, start + (pp->ideal ? 0 : pp->o_ns));
                continue;
            }
            double a = arrival(S, me);
            if (isnan(a))
                return NAN;
            bool rdv = send_bytes(S, me) > pp->eager_max;
            end = fmax(end, rdv ? a : start + (pp->ideal ? 0 : pp->o_ns));
        } else if (x->kind == DG_MSG_RECV) {
            modelled = true;
            struct dg_pos s = dg_match_peer(S->m, me);
            double a = start;
            if (s.rank >= 0) {
                if (S->rk[s.rank].coll[s.pos])
                    a = inst_done(S, S->rk[s.rank].coll[s.pos] - 1);
                else
                    a = arrival(S, s);
                if (isnan(a))
                    return NAN; /* its send has not left yet */
            }
            end = fmax(end, fmax(start, a) + (pp->ideal ? 0 : pp->or_ns));
        } else if (x->kind == DG_MSG_COLL) {
            modelled = true;
            double d = coll_done(S, me);
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

/* Runs rank r's items as far as it can; true if it progressed. */
static bool advance(struct rstate *S, int r)
{
    struct rank *k = &S->rk[r];
    bool progress = false;
    while (k->next < k->nit) {
        const struct item *it = &k->it[k->next];
        if (it->kind == IT_COMP) {
            k->t = dg_turns_run(&k->tn, S->pp, k->t, it->ns);
        } else if (it->kind == IT_POST) {
            post(S, r, it->call, k->t);
        } else {
            if (it->kind == IT_CALL)
                post(S, r, it->call, k->t);
            double d = complete(S, r, it->call);
            if (isnan(d))
                return progress;
            k->t = dg_turns_notice(&k->tn, S->pp, fmax(k->t, d));
        }
        k->next++;
        progress = true;
    }
    return progress;
}

/* ---- building the items ------------------------------------------------------------- */

/* The call whose gap (from the previous call's exit to its entry) holds
 * measured time t, and the offset in it; the last call if t is later. */
static uint32_t gap_of(const struct dg_mpilog *log, const struct rank *k, uint64_t t, double *off)
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
static int build_items(struct rstate *S, int r, struct action *acts, size_t n, const bool *moved)
{
    struct rank *k = &S->rk[r];
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
            if (off > done && push(k, (struct item){IT_COMP, 0, off - done}) < 0)
                return TRACE_ERR_NOMEM;
            done = fmax(done, off);
            if (push(k, (struct item){acts[a].kind, acts[a].call, 0}) < 0)
                return TRACE_ERR_NOMEM;
        }
        if (gap > done && push(k, (struct item){IT_COMP, 0, gap - done}) < 0)
            return TRACE_ERR_NOMEM;
        if (c + 1 == k->ncalls)
            break; /* the last call's entry is the end */
        if (!moved[c] && push(k, (struct item){IT_CALL, c, 0}) < 0)
            return TRACE_ERR_NOMEM;
    }
    return 0;
}

/* The call (index in the rank's calls) holding log position p. */
static uint32_t call_of(const struct rank *k, uint32_t p)
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

static void state_free(struct rstate *S)
{
    for (int r = 0; S->rk && r < S->P; r++) {
        struct rank *k = &S->rk[r];
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
    free(S->inst_steps);
    free(S->inst_bytes);
    free(S->inst_ranks);
    free(S->inst_ready);
    free(S->cc);
    free(S->inst_posted);
}

static int state_init(struct rstate *S, const struct dg_change *ch, size_t nch)
{
    int P = S->P;
    uint32_t ncoll = dg_match_ncoll(S->m);
    if (!(S->rk = calloc(P ? P : 1, sizeof *S->rk)) || !(S->cc = calloc(ncoll ? ncoll : 1, sizeof *S->cc)))
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < P; r++) {
        struct rank *k = &S->rk[r];
        const struct dg_mpilog *log = S->logs[r];
        uint32_t n = log ? log->n : 0;
        k->first = malloc((n ? n : 1) * sizeof *k->first);
        k->at = malloc((n ? n : 1) * sizeof *k->at);
        k->done = malloc((n ? n : 1) * sizeof *k->done);
        k->into = malloc((n ? n : 1) * sizeof *k->into);
        k->extra = calloc(n ? n : 1, sizeof *k->extra);
        k->coll = calloc(n ? n : 1, sizeof *k->coll);
        k->lead = calloc(n ? n : 1, sizeof *k->lead);
        if (!k->first || !k->at || !k->done || !k->into || !k->extra || !k->coll || !k->lead)
            return TRACE_ERR_NOMEM;
        for (uint32_t p = 0; p < n; p++) {
            if (p == 0 || log->rec[p].index != log->rec[p - 1].index)
                k->first[k->ncalls++] = p;
            k->at[p] = k->done[p] = NAN;
            k->into[p] = UINT32_MAX;
        }
    }
    /* collective instances: ids as given, compacted */
    uint32_t maxid = 0;
    for (size_t i = 0; i < nch; i++)
        if (ch[i].kind == DG_CHANGE_COLL && ch[i].id + 1 > maxid)
            maxid = ch[i].id + 1;
    S->ninst = maxid;
    if (maxid) {
        S->inst_steps = calloc(maxid, sizeof *S->inst_steps);
        S->inst_bytes = calloc(maxid, sizeof *S->inst_bytes);
        S->inst_ranks = calloc(maxid, sizeof *S->inst_ranks);
        S->inst_ready = calloc(maxid, sizeof *S->inst_ready);
        S->inst_posted = calloc(maxid, sizeof *S->inst_posted);
        if (!S->inst_steps || !S->inst_bytes || !S->inst_ranks || !S->inst_ready || !S->inst_posted)
            return TRACE_ERR_NOMEM;
    }
    for (size_t i = 0; i < nch; i++) {
        const struct dg_change *c = &ch[i];
        if (c->rank < 0 || c->rank >= P || !S->logs[c->rank] || c->pos >= S->logs[c->rank]->n)
            continue;
        struct rank *k = &S->rk[c->rank];
        const struct dg_msgrec *x = &S->logs[c->rank]->rec[c->pos];
        if (c->kind == DG_CHANGE_MERGE && x->kind == DG_MSG_SEND && c->into < S->logs[c->rank]->n &&
            c->into != c->pos) {
            k->into[c->pos] = c->into;
            k->extra[c->into] += x->bytes;
        } else if (c->kind == DG_CHANGE_COLL) {
            k->coll[c->pos] = c->id + 1;
            uint64_t b = x->bytes > x->rbytes ? x->bytes : x->rbytes;
            if (b > S->inst_bytes[c->id])
                S->inst_bytes[c->id] = b;
            S->inst_steps[c->id] = c->steps;
        }
    }
    /* each rank's first member of an instance leads it there */
    uint32_t *seen = maxid ? calloc(maxid, sizeof *seen) : NULL; /* rank + 1 that has a lead */
    if (maxid && !seen)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < P; r++) {
        const struct dg_mpilog *log = S->logs[r];
        struct rank *k = &S->rk[r];
        for (uint32_t p = 0; log && p < log->n; p++) {
            uint32_t i = k->coll[p];
            if (i && seen[i - 1] != (uint32_t)r + 1) {
                seen[i - 1] = (uint32_t)r + 1;
                k->lead[p] = true;
                S->inst_ranks[i - 1]++;
            }
        }
    }
    free(seen);
    return 0;
}

int oracle_replay_run(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                      const struct dg_replay_params *pp, const struct dg_change *ch, size_t nch,
                      struct dg_replay_rank *out)
{
    int P = nranks, rc;
    struct rstate S = {.logs = logs, .m = m, .pp = pp, .P = P};
    bool *moved = NULL;
    struct action *acts = NULL;
    if ((rc = state_init(&S, ch, nch)) < 0)
        goto out;
    uint64_t t0 = dg_run_start(logs, P);
    if (pp->slice_ns > 0) {
        struct turns *tn = malloc((P ? P : 1) * sizeof *tn);
        if (!tn || !dg_turns_of(logs, P, pp->slice_ns, t0, tn)) {
            free(tn);
            rc = TRACE_ERR_NOMEM;
            goto out;
        }
        for (int r = 0; r < P; r++)
            S.rk[r].tn = tn[r]; /* state_free frees their windows */
        free(tn);
    }
    /* per rank: the posts and waits of the calls made nonblocking */
    size_t na = 0;
    if (nch && !(acts = malloc(2 * nch * sizeof *acts))) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (int r = 0; r < P; r++) {
        const struct dg_mpilog *log = logs[r];
        struct rank *k = &S.rk[r];
        if (!log || k->ncalls < 2)
            continue;
        free(moved);
        if (!(moved = calloc(k->ncalls, sizeof *moved))) {
            rc = TRACE_ERR_NOMEM;
            goto out;
        }
        na = 0;
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
        if ((rc = build_items(&S, r, acts, na, moved)) < 0)
            goto out;
    }
    /* ranks start when their MPI_Init returns, on one clock (the ranks'
     * CLOCK_MONOTONIC: one host), their offsets scaled as bursts are */
    double scale = pp->compute_scale > 0 ? pp->compute_scale : 1;
    for (int r = 0; r < P; r++)
        if (logs[r] && logs[r]->n && logs[r]->rec[0].t_exit)
            S.rk[r].t = (double)(logs[r]->rec[0].t_exit - t0) * scale;
    for (;;) {
        bool progress = false, left = false;
        for (int r = 0; r < P; r++) {
            progress |= advance(&S, r);
            left |= S.rk[r].next < S.rk[r].nit;
        }
        if (!left)
            break;
        if (!progress) {
            /* the logs (or a change) do not replay: let the blocked rank
             * that is earliest go on as if its wait were over */
            int best = -1;
            for (int r = 0; r < P; r++)
                if (S.rk[r].next < S.rk[r].nit && (best < 0 || S.rk[r].t < S.rk[best].t))
                    best = r;
            S.rk[best].next++;
        }
    }
    for (int r = 0; r < P; r++) {
        memset(&out[r], 0, sizeof out[r]);
        const struct dg_mpilog *log = logs[r];
        struct rank *k = &S.rk[r];
        if (!log || k->ncalls < 2)
            continue;
        const struct dg_msgrec *first = &log->rec[0], *last = &log->rec[k->first[k->ncalls - 1]];
        out[r].valid = first->t_exit && last->t_enter >= first->t_exit && t0;
        out[r].measured_ns = out[r].valid ? (double)(last->t_enter - t0) : 0;
        out[r].replayed_ns = k->t;
    }
    rc = 0;
out:
    free(moved);
    free(acts);
    state_free(&S);
    return rc;
}

