/* cost-check.c - how well the static site costs split the time between two
 * MPI calls among the computation events, against what a validation run
 * measured (docs/dependence.md, "Estimated time of computation events").
 *
 *   cost-check TRACE_DIR [O L]
 *   cost-check --calibrate TRACE_DIR      prints O L
 *
 * TRACE_DIR is a trace of a run with COMMHINT_STMT_CLOCK=1: every
 * computation record carries a stamp of when it was made (time-stamp
 * counter ticks modulo 2^32), so an event's *interval*, from the record
 * before it to its own, is what its statement took plus one recording.
 *
 * What is measured, per gap (the computation events between two MPI
 * calls; thread 0, at least two events):
 *   - the recording costs the same for every event (O ticks), and so does
 *     that of each loop record (entry, iteration, exit) between two events
 *     (L): O + L times the loop records are subtracted from each interval;
 *     what is left is what the program itself did, as it would without
 *     tracing (an event's residual may be negative: the clock is coarse,
 *     only sums mean something).  O and L are given, or measured on the
 *     trace itself: O is the mean interval of the cheapest statements
 *     (static cost 1: one load or store) with no loop record before them,
 *     O + L that of those with one.  bench/cost-calib.c is a program of
 *     such statements only: `--calibrate` on its trace gives the O and L
 *     to use for other programs on the same machine.  Means, not
 *     percentiles: on some machines (virtual ones) the counter moves in
 *     steps of tens of ticks, longer than a cheap statement, and only
 *     averages see below a step;
 *   - an interval that also holds something else is replaced by the median
 *     interval of its site: the first event of a gap (its interval would
 *     start in the MPI wrapper, which records the call after taking
 *     t_exit) and any interval over 20 times its site's median plus 2000
 *     ticks (a buffer flush, an interrupt, a page fault);
 *   - the gap's measured time m is the sum of what remains, and the true
 *     time of a set of its events their part of m.  The estimates split m
 *     by the analysis's rule, floor(m*k/n), k and n event counts (even) or
 *     weights (dg_comp_weight: weighted).  So the figures are the error of
 *     the split alone, not of the gap's duration.
 * Reported (markdown on stdout), for even and weighted:
 *   - statements: the time put on the wrong statement, sum over gaps and
 *     sites of |estimate - true| / 2, as a share of all gap time;
 *   - windows: for every prefix of a gap (its first k events: a window that
 *     starts or ends at the gap's edge), |estimate - true| / m; mean
 *     (weighted by m) and maximum over gaps of at least 10 events and 1000
 *     ticks;
 *   - totals: per site, its time over the whole rank; mean and largest
 *     relative error over the sites with at least 1% of the gap time;
 *   - per site (largest first): cost, events, measured ticks per event.
 * Memory: one gap at a time, and one entry per site. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "depgraph.h"
#include "trace-reader.h"

struct ev {
    uint32_t site, w;
    int64_t iv;     /* interval, ticks; then what the statement took */
    uint32_t loops; /* loop records in it */
    bool first;     /* the first event of its gap */
};

#define LBINS 128 /* log-scale bins of a site's intervals: 4 per octave */

struct site_acc {
    uint32_t id;
    const struct trace_site_info *si;
    uint64_t events, median; /* pass 0: intervals seen (first events aside) */
    uint64_t counted;        /* pass 1: events in the gaps counted */
    uint32_t bins[LBINS];
    double meas, true_t, even_t, weighted_t; /* ticks */
};

struct acc {
    double gap_t;                   /* all measured gap time, ticks */
    double stmt_err[2];             /* even, weighted */
    double win_err_sum[2], win_max[2];
    uint64_t gaps, events, replaced;
};

static struct site_acc *sites;
static size_t nsites;
#define HIST 4096
static double cheap_sum[2], cheap_n[2]; /* intervals of cost-1 sites after 0 and 1 loop records */
static uint64_t overhead, loop_overhead;
static uint64_t base = DG_WEIGHT_BASE; /* COST_CHECK_BASE: try another DG_WEIGHT_BASE */

static unsigned lbin(uint64_t v)
{
    unsigned b = (unsigned)(4 * log2((double)v + 1));
    return b < LBINS ? b : LBINS - 1;
}

static struct site_acc *site_get(uint32_t id, const struct trace_site_info *si)
{
    if (id >= nsites) {
        size_t n = nsites ? nsites : 1024;
        while (n <= id)
            n *= 2;
        struct site_acc *p = realloc(sites, n * sizeof *p);
        if (!p) {
            fprintf(stderr, "cost-check: out of memory\n");
            exit(1);
        }
        memset(p + nsites, 0, (n - nsites) * sizeof *p);
        sites = p;
        nsites = n;
    }
    sites[id].id = id;
    if (!sites[id].si)
        sites[id].si = si;
    return &sites[id];
}

/* floor(d*k/n) as the engines compute it */
static uint64_t share(uint64_t d, uint64_t k, uint64_t n)
{
    return n ? (uint64_t)((unsigned __int128)d * k / n) : 0;
}

/* What event e took: its interval less the recording, or its site's
 * median if the interval holds more than the statement. */
static int64_t took(const struct ev *e, struct acc *a)
{
    const struct site_acc *s = &sites[e->site];
    int64_t iv = e->iv;
    if (e->first || (uint64_t)iv > 20 * s->median + 2000) {
        /* a typical interval of the site (the recording's for a site that
         * only ever opens gaps: no interval of its own is known) */
        a->replaced++;
        iv = s->events ? (int64_t)s->median : (int64_t)(overhead + e->loops * loop_overhead);
    }
    return iv - (int64_t)(overhead + e->loops * loop_overhead);
}

static int cmp_site_id(const void *a, const void *b)
{
    uint32_t x = ((const struct ev *)a)->site, y = ((const struct ev *)b)->site;
    return x < y ? -1 : x > y;
}

/* One closed gap of n events. */
static void gap_done(struct acc *a, struct ev *g, size_t n)
{
    if (n < 2)
        return;
    int64_t sm = 0;
    uint64_t W = 0;
    for (size_t i = 0; i < n; i++) {
        g[i].iv = took(&g[i], a);
        g[i].first = false;
        sm += g[i].iv;
        W += g[i].w;
    }
    if (sm <= 0)
        return;
    uint64_t m = (uint64_t)sm;
    a->gaps++;
    a->events += n;
    a->gap_t += (double)m;
    /* prefixes: windows at the gap's edge */
    double werr[2] = {0, 0}, wmax[2] = {0, 0};
    int64_t tp = 0;
    uint64_t wp = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        tp += g[i].iv;
        wp += g[i].w;
        double e[2] = {fabs((double)share(m, i + 1, n) - (double)tp), fabs((double)share(m, wp, W) - (double)tp)};
        for (int k = 0; k < 2; k++) {
            werr[k] += e[k];
            if (e[k] > wmax[k])
                wmax[k] = e[k];
        }
    }
    for (int k = 0; k < 2; k++) {
        a->win_err_sum[k] += werr[k] / (double)(n - 1); /* mean error of the gap */
        if (m >= 1000 && n >= 10 && wmax[k] / (double)m > a->win_max[k])
            a->win_max[k] = wmax[k] / (double)m;
    }
    /* statements */
    qsort(g, n, sizeof *g, cmp_site_id);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        uint64_t k = 0, w = 0;
        int64_t t = 0;
        while (j < n && g[j].site == g[i].site) {
            k++;
            w += g[j].w;
            t += g[j].iv;
            j++;
        }
        double ev_ = (double)share(m, k, n), we = (double)share(m, w, W);
        a->stmt_err[0] += fabs(ev_ - (double)t) / 2;
        a->stmt_err[1] += fabs(we - (double)t) / 2;
        struct site_acc *s = &sites[g[i].site];
        s->meas += (double)t;
        s->counted += k;
        s->true_t += (double)t;
        s->even_t += ev_;
        s->weighted_t += we;
        i = j;
    }
}

/* Reads rank r; pass 0 only collects intervals, pass 1 measures. */
static int read_rank(struct trace *t, int r, int pass, struct acc *a)
{
    struct trace_cursor *c;
    struct trace_err err;
    const struct trace_event *e;
    struct ev *g = NULL;
    size_t n = 0, cap = 0;
    bool in_gap = false, stamped = true;
    uint32_t last = 0, loops = 0;
    int rc;
    if (trace_cursor_open(t, r, TRACE_CURSOR_LOOPS, &c, &err)) {
        fprintf(stderr, "cost-check: %s\n", err.msg);
        return -1;
    }
    while ((rc = trace_cursor_next(c, &e)) > 0) {
        if (e->thread != 0)
            continue;
        if (e->kind == TRACE_EV_LOOP) {
            loops++;
            continue;
        }
        if (e->kind == TRACE_EV_MPI) {
            if (pass && in_gap && stamped)
                gap_done(a, g, n);
            n = 0;
            stamped = in_gap = true;
            continue;
        }
        if (e->kind != TRACE_EV_COMP || e->site == CHT_NONE)
            continue;
        if (!e->stamp)
            stamped = false;
        uint64_t iv = (uint32_t)(e->stamp - last); /* modulo 2^32 */
        bool first = n == 0;
        uint32_t nl = loops;
        last = e->stamp;
        loops = 0;
        struct site_acc *s = site_get(e->site, e->site_info);
        if (!in_gap)
            continue; /* before the first MPI call: not a gap */
        if (pass == 0) {
            if (!first) {
                if (nl < 2 && iv < HIST && e->site_info && e->site_info->kind == CHT_SITE_COMP &&
                    e->site_info->cost <= 1) {
                    cheap_sum[nl] += (double)iv;
                    cheap_n[nl]++;
                }
                s->bins[lbin(iv)]++;
                s->events++;
            }
            n++;
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            g = realloc(g, cap * sizeof *g);
            if (!g)
                exit(1);
        }
        uint64_t w = dg_comp_weight(e->site_info, e->nranges, e->ranges) - DG_WEIGHT_BASE + base;
        g[n++] = (struct ev){e->site, (uint32_t)w, iv, nl, first};
    }
    free(g);
    if (rc < 0)
        fprintf(stderr, "cost-check: %s\n", trace_cursor_error(c));
    trace_cursor_close(c);
    return rc < 0 ? -1 : 0;
}

static int cmp_site(const void *a, const void *b)
{
    const struct site_acc *x = a, *y = b;
    return x->true_t < y->true_t ? 1 : x->true_t > y->true_t ? -1 : 0;
}

int main(int argc, char **argv)
{
    struct trace *t;
    struct trace_err err;
    struct acc a = {0};
    bool calibrate = argc == 3 && strcmp(argv[1], "--calibrate") == 0;
    if (argc != 2 && argc != 4 && !calibrate) {
        fprintf(stderr, "usage: cost-check TRACE_DIR [O L] | cost-check --calibrate TRACE_DIR\n");
        return 2;
    }
    if (calibrate)
        argv++;
    if (getenv("COST_CHECK_BASE"))
        base = strtoull(getenv("COST_CHECK_BASE"), NULL, 10);
    if (trace_open(argv[1], &t, &err)) {
        fprintf(stderr, "cost-check: %s\n", err.msg);
        return 1;
    }
    int ws = trace_world_size(t);
    for (int r = 0; r < ws; r++)
        if (trace_has_rank(t, r) && read_rank(t, r, 0, &a) < 0)
            return 1;
    if (argc == 4) {
        overhead = strtoull(argv[2], NULL, 10);
        loop_overhead = strtoull(argv[3], NULL, 10);
    } else if (!cheap_n[0]) {
        fprintf(stderr, "cost-check: no statement of cost 1 outside loops: cannot tell the recording's cost\n");
        return 1;
    } else {
        double o = cheap_sum[0] / cheap_n[0];
        overhead = (uint64_t)(o + 0.5);
        if (cheap_n[1] && cheap_sum[1] / cheap_n[1] > o)
            loop_overhead = (uint64_t)(cheap_sum[1] / cheap_n[1] - o + 0.5);
    }
    if (calibrate) {
        printf("%" PRIu64 " %" PRIu64 "\n", overhead, loop_overhead);
        return 0;
    }
    for (size_t i = 0; i < nsites; i++) {
        uint64_t half = 0, k = 0;
        for (unsigned b = 0; b < LBINS && half * 2 < sites[i].events; b++)
            half += sites[i].bins[k = b];
        sites[i].median = sites[i].events ? (uint64_t)exp2((double)k / 4 + 0.125) : overhead;
    }
    for (int r = 0; r < ws; r++)
        if (trace_has_rank(t, r) && read_rank(t, r, 1, &a) < 0)
            return 1;

    printf("| | even | weighted |\n|---|---|---|\n");
    printf("| time on the wrong statement | %.1f%% | %.1f%% |\n", 100 * a.stmt_err[0] / a.gap_t,
           100 * a.stmt_err[1] / a.gap_t);
    printf("| windows at a gap's edge: mean error / gap | %.1f%% | %.1f%% |\n", 100 * a.win_err_sum[0] / a.gap_t,
           100 * a.win_err_sum[1] / a.gap_t);
    printf("| windows: largest error / gap (gaps of 10 events and 1000 ticks or more) | %.1f%% | %.1f%% |\n",
           100 * a.win_max[0], 100 * a.win_max[1]);
    double big = 0.01 * a.gap_t, sum[2] = {0, 0}, mx[2] = {0, 0};
    unsigned nbig = 0;
    for (size_t i = 0; i < nsites; i++) {
        if (sites[i].true_t < big)
            continue;
        nbig++;
        double e[2] = {fabs(sites[i].even_t - sites[i].true_t) / sites[i].true_t,
                       fabs(sites[i].weighted_t - sites[i].true_t) / sites[i].true_t};
        for (int k = 0; k < 2; k++) {
            sum[k] += e[k];
            if (e[k] > mx[k])
                mx[k] = e[k];
        }
    }
    if (nbig) {
        printf("| statement totals: mean relative error (%u statements >= 1%%) | %.0f%% | %.0f%% |\n", nbig,
               100 * sum[0] / nbig, 100 * sum[1] / nbig);
        printf("| statement totals: largest relative error | %.0f%% | %.0f%% |\n", 100 * mx[0], 100 * mx[1]);
    }
    /* statements measured below zero: the recording varies more than
     * they take, and the figures above are not to be trusted */
    unsigned nneg = 0;
    double neg = 0;
    for (size_t i = 0; i < nsites; i++)
        if (sites[i].true_t < 0) {
            nneg++;
            neg += sites[i].true_t;
        }
    if (nneg && -neg >= 0.05 * a.gap_t)
        printf("\n**%u statements measured below zero, %.1f%% of the gap time: the recording's cost varies more "
               "than they take; the figures above do not hold.**\n",
               nneg, -100 * neg / a.gap_t);
    else if (nneg)
        printf("\n%u statements measured below zero, %.1f%% of the gap time.\n", nneg, -100 * neg / a.gap_t);
    printf("\n%" PRIu64 " gaps, %" PRIu64 " events (%" PRIu64 " intervals replaced by their site's median), "
           "%.0f ticks of gap time; recording %" PRIu64 " ticks per event, %" PRIu64 " per loop record%s\n\n",
           a.gaps, a.events, a.replaced, a.gap_t, overhead, loop_overhead, argc == 4 ? " (given)" : "");
    qsort(sites, nsites, sizeof *sites, cmp_site);
    printf("| site | cost | events | ticks/event | true %% | even %% | weighted %% |\n|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < nsites && i < 15 && sites[i].true_t > 0; i++) {
        const struct site_acc *s = &sites[i];
        const char *f = s->si ? strrchr(s->si->file, '/') : NULL;
        printf("| %s:%u:%u | %u | %" PRIu64 " | %.1f | %.1f | %.1f | %.1f |\n", f ? f + 1 : s->si ? s->si->file : "?",
               s->si ? s->si->line : 0, s->si ? s->si->col : 0, s->si ? s->si->cost : 0, s->counted,
               s->counted ? s->meas / (double)s->counted : 0, 100 * s->true_t / a.gap_t,
               100 * s->even_t / a.gap_t, 100 * s->weighted_t / a.gap_t);
    }
    free(sites);
    trace_close(t);
    return 0;
}
