/* fit-oracle.c - the serial fit of the timed replay's parameters
 * (depgraph's dg_replay_fit) before it was spread over processes, as an
 * oracle for the tests: double sums, medians of all the samples sorted. */
#include <math.h>
#include <stdlib.h>

#include "fit-oracle.h"
#include "replay-private.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Whether a call ran on its CPU throughout (or its CPU times are not
 * known): a call that lost its CPU to other ranks' turns is no sample of
 * the network. */
static bool in_one_turn(const struct dg_msgrec *x, struct dg_cputime c)
{
    if (!c.exit || c.exit < c.enter || x->t_exit <= x->t_enter)
        return true;
    return (double)(c.exit - c.enter) >= 0.9 * (double)(x->t_exit - x->t_enter);
}

/* The slice of the kernel's rotation when ranks whose calls carry CPU
 * times lost their CPU (none: 0): the shortest of the ranks' median
 * stretches off their CPU (dg_off_stats) among the ranks with TURN_SAMPLES
 * of them; 4 ms (Linux's tick at 250 Hz) if none has. */
static int fit_slice(const struct dg_mpilog *const *logs, int P, const struct dg_match *m,
                     struct dg_replay_params *pp)
{
    pp->slice_ns = 0;
    pp->slice_phase_ns = 0;
    pp->slice_samples = 0;
    size_t cap = dg_off_capacity(logs, P);
    bool *crowded = malloc((P ? P : 1) * sizeof *crowded);
    double *tmp = malloc(cap * sizeof *tmp);
    if (!crowded || !tmp) {
        free(crowded);
        free(tmp);
        return TRACE_ERR_NOMEM;
    }
    for (int r = 0; r < P; r++) /* (dg_crowded's `over`, as it was) */
        crowded[r] = logs[r] && dg_has_cpu_times(logs[r]);
    bool over = false;
    double q = INFINITY;
    for (int r = 0; r < P; r++) {
        const struct dg_mpilog *log = logs[r];
        if (!crowded[r])
            continue;
        double med, share;
        size_t n;
        dg_off_stats(log, tmp, &med, &n, &share);
        over |= n > 0; /* a rank lost its CPU: the turns matter */
        if (n >= TURN_SAMPLES && share < 0.95) {
            q = fmin(q, med);
            pp->slice_samples += n;
        }
    }
    if (over)
        pp->slice_ns = isfinite(q) ? q : 4e6;
    /* the phase: a rank off its CPU when its message came notices it just
     * after its turn starts: the slices start 20 us before the densest
     * 200 us of those times modulo the slice (the earliest of them) */
    uint64_t t0 = dg_run_start(logs, P);
    size_t nx = 0;
    for (int r = 0; over && r < P; r++) {
        const struct dg_mpilog *log = logs[r];
        for (uint32_t p = 0; log && p < log->n; p++) {
            const struct dg_msgrec *s = &log->rec[p];
            if (s->kind != DG_MSG_SEND || s->t_enter < t0)
                continue;
            struct dg_pos o = dg_match_peer(m, (struct dg_pos){r, p});
            if (o.rank < 0)
                continue;
            const struct dg_msgrec *v = &logs[o.rank]->rec[o.pos];
            if ((v->flags & DG_MSGF_NONBLOCKING) || !dg_cpu_of(logs[o.rank], o.pos).exit || v->t_enter > s->t_enter ||
                v->t_exit < s->t_enter + 1000000 || nx == cap)
                continue;
            tmp[nx++] = fmod((double)(v->t_exit - t0), pp->slice_ns);
        }
    }
    if (nx) {
        qsort(tmp, nx, sizeof *tmp, cmp_double);
        size_t best = 0, most = 0;
        for (size_t i = 0, j = 0; i < nx; i++) { /* j: first past tmp[i] + 200 us, circularly */
            while (j < i + nx && (j < nx ? tmp[j] : tmp[j - nx] + pp->slice_ns) < tmp[i] + 200e3)
                j++;
            if (j - i > most) {
                most = j - i;
                best = i;
            }
        }
        pp->slice_phase_ns = fmod(tmp[best] - 20e3 + pp->slice_ns, pp->slice_ns);
    }
    free(crowded);
    free(tmp);
    return 0;
}

/* L is the mean time of an eager transfer to a receiver that was already
 * waiting (from the send's entry to the receive's exit), less its bytes'
 * cost (of every such transfer if fewer than 8 are eager: a run of rendezvous
 * messages); G the lower envelope of those times per size class from 1 KiB on;
 * o the median time of a small eager blocking send, o_r the median time
 * of a small blocking receive whose send had returned before it was
 * posted (the message was there or on its way). */
int oracle_replay_fit(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                      struct dg_replay_params *pp)
{
    enum { NB = 40 };
    double best[NB];
    uint64_t size[NB];
    for (int i = 0; i < NB; i++) {
        best[i] = INFINITY;
        size[i] = 0;
    }
    double lsum = 0, lbytes = 0, rsum = 0, rbytes = 0;
    uint64_t lnum = 0, rnum = 0;
    size_t ns = 0, nr = 0, cap = 0;
    for (int r = 0; r < nranks; r++)
        cap += logs[r] ? logs[r]->n : 0;
    double *os = malloc((cap ? cap : 1) * sizeof *os), *orr = malloc((cap ? cap : 1) * sizeof *orr);
    if (!os || !orr) {
        free(os);
        free(orr);
        return TRACE_ERR_NOMEM;
    }
    for (int r = 0; r < nranks; r++) {
        const struct dg_mpilog *log = logs[r];
        for (uint32_t p = 0; log && p < log->n; p++) {
            const struct dg_msgrec *s = &log->rec[p];
            if (s->kind != DG_MSG_SEND || (s->flags & DG_MSGF_NONBLOCKING) || !s->t_exit || !s->t_enter ||
                s->t_exit < s->t_enter || !in_one_turn(s, dg_cpu_of(log, p)))
                continue;
            bool sr = s->call == CHT_MPI_SENDRECV || s->call == CHT_MPI_SENDRECV_REPLACE;
            if (s->bytes < 1024 && !sr) /* a Sendrecv's time is its receive's too */
                os[ns++] = (double)(s->t_exit - s->t_enter);
            struct dg_pos q = dg_match_peer(m, (struct dg_pos){r, p});
            if (q.rank < 0)
                continue;
            const struct dg_msgrec *v = &logs[q.rank]->rec[q.pos];
            if ((v->flags & DG_MSGF_NONBLOCKING) || !v->t_exit || v->t_exit < v->t_enter ||
                !in_one_turn(v, dg_cpu_of(logs[q.rank], q.pos)))
                continue; /* (a receiver that lost its CPU meanwhile: the slices' share) */
            bool vsr = v->call == CHT_MPI_SENDRECV || v->call == CHT_MPI_SENDRECV_REPLACE;
            if (v->t_enter > s->t_exit && s->bytes < 1024 && !vsr)
                orr[nr++] = (double)(v->t_exit - v->t_enter); /* the message was there or on its way */
            if (v->t_enter > s->t_enter || v->t_exit < s->t_enter)
                continue; /* the receiver was not waiting already */
            double t = (double)(v->t_exit - s->t_enter);
            if (s->bytes <= pp->eager_max) {
                lsum += t;
                lbytes += (double)s->bytes;
                lnum++;
            } else {
                rsum += t;
                rbytes += (double)s->bytes;
                rnum++;
            }
            int b = 0;
            while ((1ull << b) < s->bytes && b < NB - 1)
                b++;
            if (t < best[b]) {
                best[b] = t;
                size[b] = s->bytes;
            }
        }
    }
    pp->o_ns = dg_median(os, ns, 0);
    double lo = INFINITY, any = INFINITY;
    for (int i = 0; i < NB; i++) {
        any = fmin(any, best[i]);
        if (size[i] < 1024)
            lo = fmin(lo, best[i]);
    }
    double lmin = isfinite(lo) ? lo : isfinite(any) ? any : 0;
    double g = INFINITY;
    for (int i = 0; i < NB; i++)
        if (isfinite(best[i]) && size[i] >= 1024 && best[i] > lmin)
            g = fmin(g, (best[i] - lmin) / (double)size[i]);
    pp->ns_per_byte = isfinite(g) ? g : 0;
    /* the mean, not the fastest: a replay of many messages needs their
     * typical cost (on an oversubscribed host that is a scheduling delay) */
    if (lnum < 8 && rnum) { /* (almost) every message goes by rendezvous: L from them */
        lsum += rsum;
        lbytes += rbytes;
        lnum += rnum;
    }
    pp->lat_ns = lnum ? fmax(lmin, (lsum - lbytes * pp->ns_per_byte) / (double)lnum) : lmin;
    pp->samples = lnum;
    /* the receive's own time is part of L */
    pp->or_ns = fmin(dg_median(orr, nr, 0), pp->lat_ns);
    free(os);
    free(orr);
    return fit_slice(logs, nranks, m, pp);
}
