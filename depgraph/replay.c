/* replay.c - a timed replay of a run's matched MPI logs (issue 17, first
 * step; docs to follow once the model is validated).  Each rank is its
 * sequence of MPI calls (the records of one event are one call) with the
 * computation between them as measured (the gap between one call's exit
 * and the next call's entry).  A call costs:
 *   - a send: the overhead o; its message leaves then and arrives after
 *     L + bytes * G (eager), or, above the eager limit, once the receive is
 *     posted (rendezvous): the sender then waits until the transfer ends;
 *   - a receive: it ends at max(its post, the message's arrival) + o; a
 *     receive completed by a Wait was posted long before (its Irecv is not
 *     linked to it in the log): the arrival alone decides;
 *   - a collective: every member has reached it (a nonblocking one: every
 *     member has passed its start), then steps * (L + bytes * G), steps =
 *     ceil(log2 p), twice that for Allreduce, p - 1 for Alltoall(v/w);
 *   - anything else: its measured time.
 * Every rank starts at 0 when its MPI_Init returns (MPI_Init synchronises
 * the ranks, roughly); the replay gives each rank's time at its last
 * call's entry, set beside the measured one.  The parameters are fitted
 * from the logs (dg_replay_fit). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "depgraph.h"

/* Per rank: the first record of each call, in log order. */
struct calls {
    uint32_t n;
    uint32_t *first; /* log position of the call's first record */
};

static int calls_build(const struct dg_mpilog *log, struct calls *c)
{
    c->n = 0;
    c->first = malloc((log->n ? log->n : 1) * sizeof *c->first);
    if (!c->first)
        return TRACE_ERR_NOMEM;
    for (uint32_t p = 0; p < log->n; p++)
        if (p == 0 || log->rec[p].index != log->rec[p - 1].index)
            c->first[c->n++] = p;
    return 0;
}

static uint32_t call_end(const struct dg_mpilog *log, const struct calls *c, uint32_t k)
{
    return k + 1 < c->n ? c->first[k + 1] : log->n;
}

static double coll_steps(int call, uint32_t p)
{
    double lg = p > 1 ? ceil(log2((double)p)) : 0;
    switch (trace_mpi_call_base(call)) {
    case CHT_MPI_ALLREDUCE:
        return 2 * lg;
    case CHT_MPI_ALLTOALL: case CHT_MPI_ALLTOALLV: case CHT_MPI_ALLTOALLW:
        return p > 1 ? (double)(p - 1) : 0;
    default:
        return lg;
    }
}

struct rstate {
    const struct dg_mpilog *const *logs;
    const struct dg_match *m;
    const struct dg_replay_params *pp;
    int P;
    struct calls *c;
    uint32_t *next;  /* per rank: next call */
    double *t;       /* per rank: its clock */
    double *issued;  /* per rank, per log position: when a SEND left / a call was reached (NAN: not yet) */
    double **at;     /* at[r][pos]: time the record's call was reached, NAN if not yet */
    double **done;   /* done[r][pos]: time a SEND's message arrives, NAN if not known */
};

static double xfer(const struct dg_replay_params *pp, uint64_t bytes)
{
    return pp->lat_ns + (double)bytes * pp->ns_per_byte;
}

/* Tries to complete rank r's next call; false if it waits for another rank. */
static bool step(struct rstate *S, int r)
{
    const struct dg_mpilog *log = S->logs[r];
    const struct calls *c = &S->c[r];
    uint32_t k = S->next[r], lo = c->first[k], hi = call_end(log, c, k);
    const struct dg_replay_params *pp = S->pp;
    /* the computation before it */
    double start = S->t[r];
    if (k > 0) {
        const struct dg_msgrec *prev = &log->rec[c->first[k - 1]], *cur = &log->rec[lo];
        if (cur->t_enter > prev->t_exit && prev->t_exit)
            start += (double)(cur->t_enter - prev->t_exit);
    }
    for (uint32_t p = lo; p < hi; p++)
        if (isnan(S->at[r][p]))
            S->at[r][p] = start;
    double end = start, own = 0;
    bool modelled = false;
    for (uint32_t p = lo; p < hi; p++) {
        const struct dg_msgrec *x = &log->rec[p];
        struct dg_pos me = {r, p};
        if (x->kind == DG_MSG_SEND) {
            modelled = true;
            struct dg_pos q = dg_match_peer(S->m, me);
            double leave = start + pp->o_ns;
            if (x->bytes > pp->eager_max && q.rank >= 0 && !(S->logs[q.rank]->rec[q.pos].flags & DG_MSGF_NONBLOCKING)) {
                double post = S->at[q.rank][q.pos];
                if (isnan(post))
                    return false; /* rendezvous: the receive is not posted yet */
                double arrive = fmax(start, post) + xfer(pp, x->bytes);
                S->done[r][p] = arrive;
                if (!(x->flags & DG_MSGF_NONBLOCKING))
                    leave = fmax(leave, arrive);
            } else {
                S->done[r][p] = start + xfer(pp, x->bytes);
            }
            end = fmax(end, leave);
        } else if (x->kind == DG_MSG_RECV) {
            modelled = true;
            struct dg_pos s = dg_match_peer(S->m, me);
            double arrive = start;
            if (s.rank >= 0) {
                if (isnan(S->done[s.rank][s.pos]))
                    return false; /* its send has not left yet */
                arrive = S->done[s.rank][s.pos];
            }
            end = fmax(end, fmax(start, arrive) + pp->o_ns);
        } else if (x->kind == DG_MSG_COLL) {
            modelled = true;
            uint32_t n = 0;
            const struct dg_pos *mem = dg_match_coll(S->m, dg_match_coll_of(S->m, me), &n);
            double ready = start;
            bool nb = x->flags & DG_MSGF_NONBLOCKING;
            for (uint32_t i = 0; i < n; i++) {
                if (mem[i].rank == r)
                    continue;
                const struct dg_msgrec *y = &S->logs[mem[i].rank]->rec[mem[i].pos];
                struct dg_pos at = mem[i];
                if (nb && (y->flags & DG_MSGF_NONBLOCKING) && y->fwd_pos < mem[i].pos)
                    at.pos = (uint32_t)y->fwd_pos;
                double a = S->at[at.rank][at.pos];
                if (isnan(a))
                    return false;
                ready = fmax(ready, a);
            }
            if (nb && x->fwd_pos < p && !isnan(S->at[r][x->fwd_pos]))
                ready = fmax(ready - 0, S->at[r][x->fwd_pos]);
            uint64_t bytes = x->bytes > x->rbytes ? x->bytes : x->rbytes;
            uint32_t members = x->comm_size ? x->comm_size : n;
            double cost = coll_steps(x->call, members) * xfer(pp, bytes);
            /* the member that arrived last waited least: its time in the
             * call is the collective's own cost, if larger (a first call
             * that sets up the communicator's collectives costs ms) */
            double least = INFINITY;
            for (uint32_t i = 0; !nb && i < n; i++) {
                const struct dg_msgrec *y = &S->logs[mem[i].rank]->rec[mem[i].pos];
                if (y->t_exit >= y->t_enter && y->t_exit)
                    least = fmin(least, (double)(y->t_exit - y->t_enter));
            }
            if (isfinite(least))
                cost = fmax(cost, least);
            double fin = ready + cost;
            end = fmax(end, nb ? fmax(start, fin) : fin);
        } else if (x->t_exit > x->t_enter) {
            own = fmax(own, (double)(x->t_exit - x->t_enter));
        }
    }
    if (!modelled)
        end = start + own;
    S->t[r] = end;
    S->next[r]++;
    return true;
}

int dg_replay_run(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                  const struct dg_replay_params *pp, struct dg_replay_rank *out)
{
    int P = nranks, rc = TRACE_ERR_NOMEM;
    struct rstate S = {.logs = logs, .m = m, .pp = pp, .P = P};
    S.c = calloc(P ? P : 1, sizeof *S.c);
    S.next = calloc(P ? P : 1, sizeof *S.next);
    S.t = calloc(P ? P : 1, sizeof *S.t);
    S.at = calloc(P ? P : 1, sizeof *S.at);
    S.done = calloc(P ? P : 1, sizeof *S.done);
    if (!S.c || !S.next || !S.t || !S.at || !S.done)
        goto out;
    for (int r = 0; r < P; r++) {
        uint32_t n = logs[r] ? logs[r]->n : 0;
        if (logs[r] && calls_build(logs[r], &S.c[r]) < 0)
            goto out;
        S.at[r] = malloc((n ? n : 1) * sizeof **S.at);
        S.done[r] = malloc((n ? n : 1) * sizeof **S.done);
        if (!S.at[r] || !S.done[r])
            goto out;
        for (uint32_t p = 0; p < n; p++)
            S.at[r][p] = S.done[r][p] = NAN;
        /* the call MPI_Init returns from is the start: skip it */
        if (S.c[r].n)
            S.next[r] = 1;
    }
    /* ranks start when their MPI_Init returns, on one clock (the ranks'
     * CLOCK_MONOTONIC: one host) */
    uint64_t t0 = 0;
    for (int r = 0; r < P; r++)
        if (logs[r] && logs[r]->n && logs[r]->rec[0].t_exit && (!t0 || logs[r]->rec[0].t_exit < t0))
            t0 = logs[r]->rec[0].t_exit;
    for (int r = 0; r < P; r++)
        if (logs[r] && logs[r]->n && logs[r]->rec[0].t_exit)
            S.t[r] = (double)(logs[r]->rec[0].t_exit - t0);
    for (;;) {
        bool progress = false, left = false;
        for (int r = 0; r < P; r++) {
            /* up to the last call (MPI_Finalize): its entry is the end */
            while (logs[r] && S.next[r] + 1 < S.c[r].n && step(&S, r))
                progress = true;
            left |= logs[r] && S.next[r] + 1 < S.c[r].n;
        }
        if (!left)
            break;
        if (!progress) {
            /* inconsistent logs: let the lowest blocked rank go on */
            int best = -1;
            for (int r = 0; r < P; r++)
                if (logs[r] && S.next[r] + 1 < S.c[r].n && (best < 0 || S.t[r] < S.t[best]))
                    best = r;
            S.next[best]++;
        }
    }
    for (int r = 0; r < P; r++) {
        memset(&out[r], 0, sizeof out[r]);
        const struct dg_mpilog *log = logs[r];
        if (!log || S.c[r].n < 2)
            continue;
        const struct dg_msgrec *first = &log->rec[0], *last = &log->rec[S.c[r].first[S.c[r].n - 1]];
        out[r].valid = first->t_exit && last->t_enter >= first->t_exit && t0;
        out[r].measured_ns = out[r].valid ? (double)(last->t_enter - t0) : 0;
        /* the replayed time at the last call's entry */
        const struct dg_msgrec *pl = &log->rec[S.c[r].first[S.c[r].n - 2]];
        double gap = pl->t_exit && last->t_enter > pl->t_exit ? (double)(last->t_enter - pl->t_exit) : 0;
        out[r].replayed_ns = S.t[r] + gap;
    }
    rc = 0;
out:
    for (int r = 0; r < P; r++) {
        if (S.c)
            free(S.c[r].first);
        if (S.at)
            free(S.at[r]);
        if (S.done)
            free(S.done[r]);
    }
    free(S.c);
    free(S.next);
    free(S.t);
    free(S.at);
    free(S.done);
    return rc;
}

/* ---- fitting ------------------------------------------------------------------- */

int dg_replay_fit(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                  struct dg_replay_params *pp)
{
    enum { NB = 40 };
    double best[NB];
    uint64_t size[NB];
    for (int i = 0; i < NB; i++) {
        best[i] = INFINITY;
        size[i] = 0;
    }
    double o = INFINITY, lsum = 0, lbytes = 0;
    uint64_t lnum = 0;
    for (int r = 0; r < nranks; r++) {
        const struct dg_mpilog *log = logs[r];
        for (uint32_t p = 0; log && p < log->n; p++) {
            const struct dg_msgrec *s = &log->rec[p];
            if (s->kind != DG_MSG_SEND || (s->flags & DG_MSGF_NONBLOCKING) || !s->t_exit)
                continue;
            if (s->bytes <= pp->eager_max && s->t_exit >= s->t_enter)
                o = fmin(o, (double)(s->t_exit - s->t_enter));
            struct dg_pos q = dg_match_peer(m, (struct dg_pos){r, p});
            if (q.rank < 0)
                continue;
            const struct dg_msgrec *v = &logs[q.rank]->rec[q.pos];
            if ((v->flags & DG_MSGF_NONBLOCKING) || !v->t_exit || v->t_enter > s->t_enter || v->t_exit < s->t_enter)
                continue; /* the receiver was not waiting already */
            double t = (double)(v->t_exit - s->t_enter);
            int b = 0;
            while ((1ull << b) < s->bytes && b < NB - 1)
                b++;
            if (s->bytes <= pp->eager_max) {
                lsum += t;
                lbytes += (double)s->bytes;
                lnum++;
            }
            if (t < best[b]) {
                best[b] = t;
                size[b] = s->bytes;
            }
        }
    }
    pp->o_ns = isfinite(o) ? o : 0;
    /* L: the fastest transfer of a message below 1 KiB (their bytes cost
     * nothing measurable); G: the lower envelope above, the smallest
     * (time - L) / bytes of the size classes from 1 KiB on */
    double lo = INFINITY, any = INFINITY;
    for (int i = 0; i < NB; i++) {
        any = fmin(any, best[i]);
        if (size[i] < 1024)
            lo = fmin(lo, best[i]);
    }
    pp->lat_ns = isfinite(lo) ? lo : isfinite(any) ? any : 0;

    double g = INFINITY;
    for (int i = 0; i < NB; i++)
        if (isfinite(best[i]) && size[i] >= 1024 && best[i] > pp->lat_ns)
            g = fmin(g, (best[i] - pp->lat_ns) / (double)size[i]);
    pp->ns_per_byte = isfinite(g) ? g : 0;
    if (getenv("COMMHINT_REPLAY_MEAN") && lnum)
        pp->lat_ns = fmax(pp->lat_ns, (lsum - lbytes * pp->ns_per_byte) / (double)lnum);
    return 0;
}
