/* cpu-turns.c - the ranks' turns on the CPUs of a host with more ranks
 * than CPUs, for the timed replay (replay.c, docs/prediction.md).
 *
 * MPI libraries wait by polling, so every rank of such a host is always
 * runnable and the kernel hands the CPUs round in slices.  The run's own
 * turns are kept (a replay with changes keeps the kernel's rotation, which
 * is the kernel's whatever the ranks do): between two times a rank was on
 * its CPU - it entered or left a call - it was off for the wall time less
 * the CPU time it used (its calls record both on such a host), a stretch
 * taken to end at the later time (a rank that waits notices its message as
 * soon as it runs again).  After its last time a rank is on for a slots of
 * the fitted slice and off for b, from its median stretch off and its
 * share of the CPU, the host's ranks taking turns in rank order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "replay-private.h"

uint64_t dg_run_start(const struct dg_mpilog *const *logs, int P)
{
    uint64_t t0 = 0;
    for (int r = 0; r < P; r++)
        if (logs[r] && logs[r]->n && logs[r]->rec[0].t_exit && (!t0 || logs[r]->rec[0].t_exit < t0))
            t0 = logs[r]->rec[0].t_exit;
    return t0;
}

bool dg_has_cpu_times(const struct dg_mpilog *log)
{
    for (uint32_t p = 0; log->cpu && p < log->n; p++)
        if (log->cpu[p].exit)
            return true;
    return false;
}

uint64_t dg_slot_at(double t, double q, double phase)
{
    t -= phase - q; /* slot 0 starts a slice early: times from 0 on are in slots >= 0 */
    uint64_t j = t > 0 ? (uint64_t)(t / q) : 0;
    if ((double)(j + 1) * q <= t)
        j++;
    return j;
}

static bool turn_in(const struct turns *t, uint64_t slot)
{
    return (slot + t->phase) % (t->a + t->b) < t->a;
}

size_t dg_off_capacity(const struct dg_mpilog *const *logs, int P)
{
    size_t cap = 1;
    for (int r = 0; r < P; r++)
        if (logs[r] && 2 * (size_t)logs[r]->n > cap)
            cap = 2 * (size_t)logs[r]->n;
    return cap;
}

struct host_key {
    uint32_t id;
    int rank;
};

static int host_key_cmp(const void *a, const void *b)
{
    const struct host_key *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->rank - y->rank;
}

/* What the turns need to know of every rank's host (its log's). */
struct host_fact {
    int32_t rank;
    uint32_t id;    /* 0: the log does not say */
    uint32_t cpus;
};

/* Each rank's host (host[P]): ranks with the same host id share one, in
 * 0..n-1; -1 if its log does not say.  Returns n, or -1 if out of memory. */
static int hosts_of(const struct host_fact *f, int P, int *host)
{
    struct host_key *k = malloc((P ? (size_t)P : 1) * sizeof *k);
    if (!k)
        return -1;
    size_t n = 0;
    for (int r = 0; r < P; r++) {
        host[r] = -1;
        if (f[r].id)
            k[n++] = (struct host_key){f[r].id, r};
    }
    qsort(k, n, sizeof *k, host_key_cmp);
    int nh = 0;
    for (size_t i = 0; i < n; i++) {
        if (i && k[i].id != k[i - 1].id)
            nh++;
        host[k[i].rank] = nh;
    }
    free(k);
    return n ? nh + 1 : 0;
}

/* Each rank's host (host[P]) and share of a CPU (fair[P]) from every
 * rank's host fact (f[P]; id 0 for ranks without a log); false if out of
 * memory. */
static bool crowd_of(const struct host_fact *f, int P, double *fair, int *host)
{
    size_t np = P ? (size_t)P : 1;
    uint32_t *count = calloc(np, sizeof *count), *cpus = calloc(np, sizeof *cpus);
    if (!count || !cpus || hosts_of(f, P, host) < 0) {
        free(count);
        free(cpus);
        return false;
    }
    for (int r = 0; r < P; r++) {
        int x = host[r];
        if (x < 0 || !f[r].cpus)
            continue;
        count[x]++;
        if (!cpus[x] || f[r].cpus < cpus[x])
            cpus[x] = f[r].cpus;
    }
    for (int r = 0; r < P; r++) {
        int x = host[r];
        fair[r] = x >= 0 && cpus[x] && count[x] > cpus[x] ? (double)cpus[x] / count[x] : 1;
    }
    free(count);
    free(cpus);
    return true;
}

static struct host_fact fact_of(const struct dg_mpilog *const *logs, int r)
{
    struct host_fact f = {r, 0, 0};
    if (logs[r]) {
        f.id = logs[r]->host.host_id;
        f.cpus = logs[r]->host.cpus;
    }
    return f;
}

/* A stretch off is a burst's or a call's wall time less its CPU time. */
void dg_off_stats(const struct dg_mpilog *log, double *tmp, double *med, size_t *count, double *share)
{
    size_t n = 0;
    const struct dg_msgrec *prev = NULL, *first = NULL;
    struct dg_cputime cprev = {0, 0}, cfirst = {0, 0};
    for (uint32_t p = 0; p < log->n; p++) {
        const struct dg_msgrec *x = &log->rec[p];
        struct dg_cputime c = dg_cpu_of(log, p);
        if (!c.exit || c.exit < c.enter || x->t_exit < x->t_enter)
            continue;
        double w = (double)(x->t_exit - x->t_enter) - (double)(c.exit - c.enter);
        if (w >= 100e3)
            tmp[n++] = w;
        if (prev && x->t_enter >= prev->t_exit && c.enter >= cprev.exit) {
            w = (double)(x->t_enter - prev->t_exit) - (double)(c.enter - cprev.exit);
            if (w >= 100e3)
                tmp[n++] = w;
        }
        if (!first) {
            first = x;
            cfirst = c;
        }
        prev = x;
        cprev = c;
    }
    *count = n;
    *med = dg_median(tmp, n, 0);
    *share = first && prev->t_exit > first->t_enter && cprev.exit >= cfirst.enter
                 ? (double)(cprev.exit - cfirst.enter) / (double)(prev->t_exit - first->t_enter)
                 : 1;
}

/* Rank k's turns during the run, as the run shows them (sets k->off,
 * k->last): the kernel's rotation is the kernel's, whatever the ranks do,
 * so a replay with changes keeps it.  Between two times the rank was on
 * its CPU (it entered or left a call), t1 < t2, it was off for (t2 - t1)
 * less the CPU time it used; that stretch is taken to end at t2 (a rank
 * that waits notices its message as soon as it runs again).  Returns
 * false if out of memory. */
static bool schedule_rank(const struct dg_mpilog *log, uint64_t t0, struct turns *k)
{
    size_t cap = 0;
    uint64_t pt = 0, pc = 0;
    for (uint32_t p = 0; p < log->n; p++)
        for (int e = 0; e < 2; e++) {
            const struct dg_msgrec *x = &log->rec[p];
            struct dg_cputime c = dg_cpu_of(log, p);
            uint64_t tt = e ? x->t_exit : x->t_enter, cc = e ? c.exit : c.enter;
            if (tt < t0 || !c.exit || c.exit < c.enter)
                continue;
            if (pt && tt > pt && cc >= pc && (double)(tt - pt) - (double)(cc - pc) >= 50e3) {
                if (k->noff == cap) {
                    size_t nc = cap ? 2 * cap : 64;
                    double *q = realloc(k->off, 2 * nc * sizeof *q);
                    if (!q)
                        return false;
                    k->off = q;
                    cap = nc;
                }
                double end = (double)(tt - t0), len = (double)(tt - pt) - (double)(cc - pc);
                k->off[2 * k->noff] = end - len;
                k->off[2 * k->noff + 1] = end;
                k->noff++;
            }
            if (tt > pt) {
                pt = tt;
                pc = cc;
            }
        }
    k->last = pt > t0 ? (double)(pt - t0) : 0;
    return true;
}

void dg_turns_free(struct turns *t, int P)
{
    for (int r = 0; t && r < P; r++) {
        free(t[r].off);
        t[r].off = NULL;
        t[r].noff = 0;
    }
}

/* Each rank's turns (t[P]; dg_turns_free frees them), for slices of q ns;
 * false if out of memory.  Ranks whose calls carry CPU times (an
 * oversubscribed host, or COMMHINT_CPU_TIMES=1) and were ever off their
 * CPU have turns.  Ranks are put on a host by its leader (the
 * lowest world rank on it).  A rank of an oversubscribed host that was
 * off its CPU has the turns the run shows (schedule_rank), and after its
 * last time is on for a slots and off for b, from its median stretch off
 * and its share of the CPU, the host's ranks taking turns in rank order. */
/* A rank's turns after its last time: on for a slots, off for b. */
struct turn_fact {
    int32_t rank;
    uint32_t a;   /* 0: the rank has no turns */
};

int dg_turns_of_dist(const struct dg_mpilog *const *logs, int P, const struct dg_xchg *x, double q, uint64_t t0,
                     struct turns *t)
{
    size_t np = P ? (size_t)P : 1, nmine = 0;
    double *fair = malloc(np * sizeof *fair), *tmp = malloc(dg_off_capacity(logs, P) * sizeof *tmp);
    uint32_t *slot = calloc(np, sizeof *slot); /* per host: slots handed out so far */
    int *host = malloc(np * sizeof *host);
    struct host_fact *f = calloc(np, sizeof *f), *mine = malloc(np * sizeof *mine);
    struct turn_fact *tf = malloc(np * sizeof *tf);
    struct dg_bytes all = {0};
    int rc = fair && tmp && slot && host && f && mine && tf ? 0 : TRACE_ERR_NOMEM;
    for (int r = 0; r < P; r++) {
        t[r] = (struct turns){false, NULL, 0, 0, 1, 0, 0};
        if (rc == 0 && logs[r])
            mine[nmine++] = fact_of(logs, r);
    }
    /* every rank's host, then each rank's share of a CPU */
    if ((rc = dg_xchg_allgather(x, rc, mine, nmine * sizeof *mine, &all)) < 0)
        goto out;
    for (size_t i = 0; i + sizeof *f <= all.len; i += sizeof *f) {
        struct host_fact h;
        memcpy(&h, all.p + i, sizeof h);
        if (h.rank >= 0 && h.rank < P)
            f[h.rank] = h;
    }
    dg_bytes_free(&all);
    rc = q > 0 && crowd_of(f, P, fair, host) ? 0 : TRACE_ERR_NOMEM;
    /* this process's ranks: their turns after the run */
    nmine = 0;
    for (int r = 0; rc == 0 && r < P; r++) {
        if (!logs[r] || !dg_has_cpu_times(logs[r]))
            continue;
        double med, share;
        size_t noff;
        dg_off_stats(logs[r], tmp, &med, &noff, &share);
        if (!noff)
            continue; /* never off its CPU */
        if (noff < TURN_SAMPLES || share >= 0.95) { /* too few stretches: the host's fair share */
            med = q;
            share = fair[r];
        }
        uint32_t a = 1, b = 0; /* after the run: always on */
        if (share < 0.95) {
            b = (uint32_t)fmax(1, fmin(TURN_MAX, round(med / q)));
            a = (uint32_t)fmax(1, fmin(TURN_MAX, round(b * share / (1 - share))));
        }
        t[r] = (struct turns){true, NULL, 0, 0, a, b, 0};
        tf[nmine++] = (struct turn_fact){r, a};
    }
    /* the host's ranks take turns in rank order: each rank's phase is the
     * slots of the ranks before it */
    if ((rc = dg_xchg_allgather(x, rc, tf, nmine * sizeof *tf, &all)) < 0)
        goto out;
    memset(tf, 0, np * sizeof *tf);
    for (size_t i = 0; i + sizeof *tf <= all.len; i += sizeof *tf) {
        struct turn_fact h;
        memcpy(&h, all.p + i, sizeof h);
        if (h.rank >= 0 && h.rank < P)
            tf[h.rank] = h;
    }
    for (int r = 0; r < P; r++) {
        if (!tf[r].a)
            continue;
        int hx = host[r] < 0 ? 0 : host[r];
        if (t[r].on)
            t[r].phase = slot[hx] % (t[r].a + t[r].b);
        slot[hx] += tf[r].a;
    }
    for (int r = 0; rc == 0 && r < P; r++)
        if (t[r].on && !schedule_rank(logs[r], t0, &t[r]))
            rc = TRACE_ERR_NOMEM;
    rc = dg_xchg_agree(x, rc);
out:
    if (rc < 0)
        dg_turns_free(t, P);
    dg_bytes_free(&all);
    free(fair);
    free(slot);
    free(tmp);
    free(host);
    free(f);
    free(mine);
    free(tf);
    return rc;
}

bool dg_turns_of(const struct dg_mpilog *const *logs, int P, double q, uint64_t t0, struct turns *t)
{
    return dg_turns_of_dist(logs, P, dg_xchg_serial(), q, t0, t) == 0;
}

/* The first stretch off of rank k that ends after t (noff if none). */
static size_t off_after(const struct turns *k, double t)
{
    size_t lo = 0, hi = k->noff;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->off[2 * mid + 1] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first time from t at which the rank of turns k runs. */
double dg_turns_notice(const struct turns *k, const struct dg_replay_params *pp, double t)
{
    double q = pp->slice_ns;
    if (!k->on || !isfinite(t))
        return t;
    if (t < k->last) { /* the run's own turns */
        size_t i = off_after(k, t);
        while (i < k->noff && k->off[2 * i] <= t) {
            t = k->off[2 * i + 1];
            i++;
        }
        return t;
    }
    if (!(q > 0))
        return t;
    double ph = pp->slice_phase_ns - q;
    uint64_t j = dg_slot_at(t, q, pp->slice_phase_ns);
    if (turn_in(k, j))
        return t;
    for (uint64_t x = j + 1; x <= j + k->a + k->b; x++)
        if (turn_in(k, x))
            return ph + (double)x * q;
    return t;
}

/* When the rank of turns k, from t, has had w ns of CPU. */
double dg_turns_run(const struct turns *k, const struct dg_replay_params *pp, double t, double w)
{
    double q = pp->slice_ns;
    if (!k->on || !(w > 0) || !isfinite(t))
        return t + (w > 0 ? w : 0);
    while (t < k->last) { /* the run's own turns */
        t = dg_turns_notice(k, pp, t);
        size_t i = off_after(k, t);
        double lim = fmin(i < k->noff ? k->off[2 * i] : INFINITY, k->last);
        if (t + w <= lim)
            return t + w;
        if (lim > t) {
            w -= lim - t;
            t = lim;
        }
        if (t >= k->last)
            break;
        if (i < k->noff && k->off[2 * i] <= t)
            t = k->off[2 * i + 1];
    }
    if (!(q > 0))
        return t + w;
    t = dg_turns_notice(k, pp, t);
    double per = (double)k->a * q; /* CPU time per a + b slots */
    if (w > 2 * per) {
        double whole = floor(w / per) - 1;
        t += whole * (double)(k->a + k->b) * q;
        w -= whole * per;
    }
    for (;;) {
        uint64_t j = dg_slot_at(t, q, pp->slice_phase_ns);
        if (!turn_in(k, j)) {
            t = dg_turns_notice(k, pp, t);
            continue;
        }
        double end = pp->slice_phase_ns - q + (double)(j + 1) * q;
        if (w <= end - t)
            return t + w;
        w -= end - t;
        t = end;
    }
}

