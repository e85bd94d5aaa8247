/* replay-fit.c - fitting the timed replay's parameters to the run
 * (docs/prediction.md, "Parameters"): L, G, o and o_r from the matched
 * messages, and on a host with more ranks than CPUs the slice and phase
 * of the kernel's rotation (cpu-turns.c).
 *
 * Spread over the processes of a dg_xchg (dg_replay_fit_dist), each
 * process samples its own ranks' sends (the receive at the other end is
 * the match's copy), and what the fit takes of the samples is reduced:
 * sums as integers (the times are whole nanoseconds, so the order of the
 * additions cannot change them), each size class's fastest transfer with
 * the lowest (rank, position) of the ties, and the medians exactly, by
 * bisection over the values with the counts below each guess summed.  The
 * slice's phase needs the densest stretch of the samples of one slice:
 * they go to process 0 (at most as many as the serial fit keeps, in rank
 * order), which tells the others the phase.  With one process the same
 * code runs with nothing travelling, so every process gets the serial
 * fit's parameters to the bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay-private.h"

enum { NB = 40 }; /* size classes of the fastest transfers: powers of two */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double dg_median(double *v, size_t n, double fallback)
{
    if (!n)
        return fallback;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* v[n] combined over the processes (nothing to do with one). */
static int reduce(const struct dg_xchg *x, int64_t *v, int n, enum dg_xchg_op op)
{
    return x->nprocs > 1 ? x->allreduce(x->ctx, v, n, op) : 0;
}

/* A non-negative double as an integer that orders as it does (and back). */
static int64_t dbits(double d)
{
    int64_t b;
    d = d > 0 ? d : 0; /* no -0: its bits would be lowest */
    memcpy(&b, &d, sizeof b);
    return b;
}

static double bits_d(int64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* How many of the sorted v[n] are at most t. */
static size_t count_le(const int64_t *v, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The median of every process's values (v[n] here, non-negative; sorted
 * in place), as dg_median gives it for all of them together: the two
 * middle order statistics by bisection over the values, the counts at or
 * below each guess summed over the processes. */
static int median_dist(const struct dg_xchg *x, int64_t *v, size_t n, double fallback, double *out)
{
    qsort(v, n, sizeof *v, cmp_i64);
    int64_t N = (int64_t)n, range[2] = {n ? v[0] : INT64_MAX, n ? -v[n - 1] : INT64_MAX};
    int rc;
    if ((rc = reduce(x, &N, 1, DG_XCHG_SUM)) < 0 || (rc = reduce(x, range, 2, DG_XCHG_MIN)) < 0)
        return rc;
    if (!N) {
        *out = fallback;
        return 0;
    }
    int64_t k[2] = {(N - 1) / 2, N / 2}, lo[2] = {range[0], range[0]}, hi[2] = {-range[1], -range[1]};
    while (lo[0] < hi[0] || lo[1] < hi[1]) { /* the same steps on every process */
        int64_t mid[2], c[2];
        for (int i = 0; i < 2; i++) {
            mid[i] = lo[i] + (hi[i] - lo[i]) / 2;
            c[i] = (int64_t)count_le(v, n, mid[i]);
        }
        if ((rc = reduce(x, c, 2, DG_XCHG_SUM)) < 0)
            return rc;
        for (int i = 0; i < 2; i++) {
            if (lo[i] >= hi[i])
                continue;
            if (c[i] >= k[i] + 1)
                hi[i] = mid[i];
            else
                lo[i] = mid[i] + 1;
        }
    }
    *out = N % 2 ? (double)lo[1] : ((double)lo[0] + (double)lo[1]) / 2;
    return 0;
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

/* A sample of the slice's phase: the rank it came from, its place among
 * that rank's, and the time modulo the slice. */
struct phase_sample {
    int32_t rank;
    uint32_t i;
    double t;
};

static int cmp_sample(const void *a, const void *b)
{
    const struct phase_sample *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* A rank off its CPU when its message came notices it just after its
 * turn starts: the times (modulo the slice q, from t0) when receivers
 * that waited 1 ms or more for a blocking send had their message, of this
 * process's ranks; at most cap of them (the serial fit's room). */
static void phase_samples(const struct dg_mpilog *const *logs, int P, const struct dg_match *m, double q,
                          uint64_t t0, size_t cap, struct dg_bytes *b, bool *ok)
{
    size_t nx = 0;
    for (int r = 0; r < P; r++) {
        const struct dg_mpilog *log = logs[r];
        uint32_t i = 0;
        for (uint32_t p = 0; log && p < log->n && nx < cap; p++) {
            const struct dg_msgrec *s = &log->rec[p];
            if (s->kind != DG_MSG_SEND || s->t_enter < t0)
                continue;
            struct dg_pos o = dg_match_peer(m, (struct dg_pos){r, p});
            const struct dg_msgrec *v = o.rank >= 0 ? dg_match_rec(m, o) : NULL;
            if (!v || (v->flags & DG_MSGF_NONBLOCKING) || !dg_match_cpu(m, o).exit || v->t_enter > s->t_enter ||
                v->t_exit < s->t_enter + 1000000)
                continue;
            struct phase_sample x = {r, i++, fmod((double)(v->t_exit - t0), q)};
            *ok = *ok && dg_bytes_put(b, &x, sizeof x);
            nx++;
        }
    }
}

/* The phase from every process's samples (process 0; the first cap in
 * rank order, as the serial fit keeps them): the slices start 20 us
 * before the densest 200 us of them (the earliest of those stretches). */
static double phase_of(const struct dg_bytes *in, int K, double q, size_t cap, bool *ok)
{
    size_t n = 0;
    for (int k = 0; k < K; k++)
        n += in[k].len / sizeof(struct phase_sample);
    struct phase_sample *s = malloc((n ? n : 1) * sizeof *s);
    double *tmp = malloc((n ? n : 1) * sizeof *tmp);
    double phase = 0;
    if (!s || !tmp) {
        *ok = false;
        n = 0;
    }
    for (int k = 0, j = 0; s && k < K; k++)
        for (size_t off = 0; off + sizeof *s <= in[k].len; off += sizeof *s)
            memcpy(&s[j++], in[k].p + off, sizeof *s);
    if (n)
        qsort(s, n, sizeof *s, cmp_sample);
    size_t nx = n < cap ? n : cap;
    for (size_t i = 0; i < nx; i++)
        tmp[i] = s[i].t;
    if (nx) {
        qsort(tmp, nx, sizeof *tmp, cmp_double);
        size_t best = 0, most = 0;
        for (size_t i = 0, j = 0; i < nx; i++) { /* j: first past tmp[i] + 200 us, circularly */
            while (j < i + nx && (j < nx ? tmp[j] : tmp[j - nx] + q) < tmp[i] + 200e3)
                j++;
            if (j - i > most) {
                most = j - i;
                best = i;
            }
        }
        phase = fmod(tmp[best] - 20e3 + q, q);
    }
    free(s);
    free(tmp);
    return phase;
}

/* The slice of the kernel's rotation when ranks whose calls carry CPU
 * times lost their CPU (none: 0): the shortest of the ranks' median
 * stretches off their CPU (dg_off_stats) among the ranks with TURN_SAMPLES
 * of them; 4 ms (Linux's tick at 250 Hz) if none has; then its phase. */
static int fit_slice(const struct dg_mpilog *const *logs, int P, const struct dg_match *m, const struct dg_xchg *x,
                     struct dg_replay_params *pp)
{
    pp->slice_ns = 0;
    pp->slice_phase_ns = 0;
    pp->slice_samples = 0;
    size_t cap = dg_off_capacity(logs, P);
    double *tmp = malloc(cap * sizeof *tmp);
    /* most: whether a rank lost its CPU, the room for samples; least: the
     * slice (as bits), the run's start (dg_run_start) */
    int64_t most[2] = {0, (int64_t)cap}, least[2] = {INT64_MAX, INT64_MAX}, samples = 0;
    for (int r = 0; tmp && r < P; r++) {
        const struct dg_mpilog *log = logs[r];
        if (log && log->n && log->rec[0].t_exit && (int64_t)log->rec[0].t_exit < least[1])
            least[1] = (int64_t)log->rec[0].t_exit;
        if (!log || !dg_has_cpu_times(log))
            continue;
        double med, share;
        size_t n;
        dg_off_stats(log, tmp, &med, &n, &share);
        most[0] |= n > 0; /* a rank lost its CPU: the turns matter */
        if (n >= TURN_SAMPLES && share < 0.95) {
            least[0] = dbits(med) < least[0] ? dbits(med) : least[0];
            samples += (int64_t)n;
        }
    }
    int rc = dg_xchg_agree(x, tmp ? 0 : TRACE_ERR_NOMEM);
    free(tmp);
    if (rc < 0 || (rc = reduce(x, most, 2, DG_XCHG_MAX)) < 0 || (rc = reduce(x, least, 2, DG_XCHG_MIN)) < 0 ||
        (rc = reduce(x, &samples, 1, DG_XCHG_SUM)) < 0)
        return rc;
    pp->slice_samples = (uint64_t)samples;
    if (!most[0])
        return 0; /* no rank lost its CPU */
    pp->slice_ns = least[0] != INT64_MAX ? bits_d(least[0]) : 4e6;
    uint64_t t0 = least[1] != INT64_MAX ? (uint64_t)least[1] : 0;
    cap = (size_t)most[1];
    int K = x->nprocs;
    struct dg_bytes *out = dg_bytes_per_proc(K), *in = dg_bytes_per_proc(K);
    bool ok = out && in;
    if (ok)
        phase_samples(logs, P, m, pp->slice_ns, t0, cap, &out[0], &ok);
    rc = x->alltoall(x->ctx, ok ? 0 : TRACE_ERR_NOMEM, out, in);
    int64_t phase = rc >= 0 && x->proc == 0 ? dbits(phase_of(in, K, pp->slice_ns, cap, &ok)) : 0;
    dg_bytes_per_proc_free(out, K);
    dg_bytes_per_proc_free(in, K);
    if (rc < 0 || (rc = dg_xchg_agree(x, ok ? 0 : TRACE_ERR_NOMEM)) < 0 ||
        (rc = reduce(x, &phase, 1, DG_XCHG_MAX)) < 0)
        return rc;
    pp->slice_phase_ns = bits_d(phase);
    return 0;
}

/* What a process's ranks' sends say of the network. */
struct fit_acc {
    int64_t *os, *orr;  /* small eager blocking sends' times; small receives' whose message was on its way */
    size_t ns, nr;
    int64_t best[NB];   /* per size class: the fastest transfer to a waiting receiver, */
    int64_t key[NB];    /* its (rank, position), */
    int64_t size[NB];   /* its bytes */
    int64_t sum[6];     /* eager: time, bytes, count; rendezvous: time, bytes, count */
};

/* The samples of this process's ranks (the receives are the match's). */
static void fit_collect(const struct dg_mpilog *const *logs, int P, const struct dg_match *m,
                        const struct dg_replay_params *pp, struct fit_acc *a)
{
    for (int r = 0; r < P; r++) {
        const struct dg_mpilog *log = logs[r];
        for (uint32_t p = 0; log && p < log->n; p++) {
            const struct dg_msgrec *s = &log->rec[p];
            if (s->kind != DG_MSG_SEND || (s->flags & DG_MSGF_NONBLOCKING) || !s->t_exit || !s->t_enter ||
                s->t_exit < s->t_enter || !in_one_turn(s, dg_cpu_of(log, p)))
                continue;
            bool sr = s->call == CHT_MPI_SENDRECV || s->call == CHT_MPI_SENDRECV_REPLACE;
            if (s->bytes < 1024 && !sr) /* a Sendrecv's time is its receive's too */
                a->os[a->ns++] = (int64_t)(s->t_exit - s->t_enter);
            struct dg_pos q = dg_match_peer(m, (struct dg_pos){r, p});
            const struct dg_msgrec *v = q.rank >= 0 ? dg_match_rec(m, q) : NULL;
            if (!v || (v->flags & DG_MSGF_NONBLOCKING) || !v->t_exit || v->t_exit < v->t_enter ||
                !in_one_turn(v, dg_match_cpu(m, q)))
                continue; /* (a receiver that lost its CPU meanwhile: the slices' share) */
            bool vsr = v->call == CHT_MPI_SENDRECV || v->call == CHT_MPI_SENDRECV_REPLACE;
            if (v->t_enter > s->t_exit && s->bytes < 1024 && !vsr)
                a->orr[a->nr++] = (int64_t)(v->t_exit - v->t_enter); /* the message was there or on its way */
            if (v->t_enter > s->t_enter || v->t_exit < s->t_enter)
                continue; /* the receiver was not waiting already */
            int64_t t = (int64_t)(v->t_exit - s->t_enter), *sum = a->sum + (s->bytes <= pp->eager_max ? 0 : 3);
            sum[0] += t;
            sum[1] += (int64_t)s->bytes;
            sum[2]++;
            int b = 0;
            while ((1ull << b) < s->bytes && b < NB - 1)
                b++;
            if (t < a->best[b]) { /* the first of the fastest: the lowest (rank, position) */
                a->best[b] = t;
                a->key[b] = (int64_t)r << 32 | p;
                a->size[b] = (int64_t)s->bytes;
            }
        }
    }
}

/* Each size class's fastest transfer of all processes (the lowest
 * (rank, position) of the ties, as the serial fit's first), and its bytes. */
static int fit_fastest(const struct dg_xchg *x, struct fit_acc *a)
{
    int64_t t[NB], key[NB];
    memcpy(t, a->best, sizeof t);
    int rc = reduce(x, a->best, NB, DG_XCHG_MIN);
    for (int b = 0; b < NB; b++) {
        if (t[b] != a->best[b])
            a->key[b] = INT64_MAX; /* another process's is faster */
        key[b] = a->key[b];
    }
    if (rc == 0)
        rc = reduce(x, a->key, NB, DG_XCHG_MIN);
    for (int b = 0; b < NB; b++) /* the holder's bytes, 0 from the others */
        a->size[b] = a->best[b] != INT64_MAX && key[b] == a->key[b] ? a->size[b] : 0;
    return rc == 0 ? reduce(x, a->size, NB, DG_XCHG_MAX) : rc;
}

int dg_replay_fit_dist(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                       const struct dg_xchg *x, struct dg_replay_params *pp)
{
    struct fit_acc a = {0};
    size_t cap = 0;
    for (int r = 0; r < nranks; r++)
        cap += logs[r] ? logs[r]->n : 0;
    a.os = malloc((cap ? cap : 1) * sizeof *a.os);
    a.orr = malloc((cap ? cap : 1) * sizeof *a.orr);
    for (int b = 0; b < NB; b++)
        a.best[b] = a.key[b] = INT64_MAX;
    if (a.os && a.orr)
        fit_collect(logs, nranks, m, pp, &a);
    int rc = dg_xchg_agree(x, a.os && a.orr ? 0 : TRACE_ERR_NOMEM);
    double o = 0, orr = 0;
    if (rc == 0 && (rc = reduce(x, a.sum, 6, DG_XCHG_SUM)) == 0 && (rc = fit_fastest(x, &a)) == 0 &&
        (rc = median_dist(x, a.os, a.ns, 0, &o)) == 0)
        rc = median_dist(x, a.orr, a.nr, 0, &orr);
    free(a.os);
    free(a.orr);
    if (rc < 0)
        return rc;
    pp->o_ns = o;
    double lo = INFINITY, any = INFINITY;
    for (int i = 0; i < NB; i++) {
        if (a.best[i] == INT64_MAX)
            continue;
        any = fmin(any, (double)a.best[i]);
        if (a.size[i] < 1024)
            lo = fmin(lo, (double)a.best[i]);
    }
    double lmin = isfinite(lo) ? lo : isfinite(any) ? any : 0;
    double g = INFINITY;
    for (int i = 0; i < NB; i++)
        if (a.best[i] != INT64_MAX && a.size[i] >= 1024 && (double)a.best[i] > lmin)
            g = fmin(g, ((double)a.best[i] - lmin) / (double)a.size[i]);
    pp->ns_per_byte = isfinite(g) ? g : 0;
    /* the mean, not the fastest: a replay of many messages needs their
     * typical cost (on an oversubscribed host that is a scheduling delay) */
    int64_t lsum = a.sum[0], lbytes = a.sum[1], lnum = a.sum[2];
    if (lnum < 8 && a.sum[5]) { /* (almost) every message goes by rendezvous: L from them */
        lsum += a.sum[3];
        lbytes += a.sum[4];
        lnum += a.sum[5];
    }
    pp->lat_ns = lnum ? fmax(lmin, ((double)lsum - (double)lbytes * pp->ns_per_byte) / (double)lnum) : lmin;
    pp->samples = (uint64_t)lnum;
    /* the receive's own time is part of L */
    pp->or_ns = fmin(orr, pp->lat_ns);
    return fit_slice(logs, nranks, m, x, pp);
}

/* L is the mean time of an eager transfer to a receiver that was already
 * waiting (from the send's entry to the receive's exit), less its bytes'
 * cost (of every such transfer if fewer than 8 are eager: a run of rendezvous
 * messages); G the lower envelope of those times per size class from 1 KiB on;
 * o the median time of a small eager blocking send, o_r the median time
 * of a small blocking receive whose send had returned before it was
 * posted (the message was there or on its way). */
int dg_replay_fit(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                  struct dg_replay_params *pp)
{
    return dg_replay_fit_dist(logs, nranks, m, dg_xchg_serial(), pp);
}
