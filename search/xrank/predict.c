/* predict.c - what each hint saves, predicted by replaying the run with
 * the hint applied (docs/prediction.md).  The kinds describe their hints
 * as changes to the matched MPI logs (struct dg_change: a call made
 * nonblocking, sends merged, point-to-point calls made a collective);
 * depgraph's replay model (depgraph/replay.c), its parameters fitted from
 * the same logs, replays the run as recorded and with each hint's changes,
 * and a hint saves how much earlier the last rank finishes.  Hints
 * interact (one removed wait can expose the next), so the hints of each
 * kind, and all hints, are also replayed together. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

int search_hint_add_change(struct search_hint *h, const struct dg_change *c)
{
    if ((h->nchanges & (h->nchanges - 1)) == 0) { /* full at 0, 1, 2, 4...: doubled */
        size_t cap = h->nchanges ? 2 * (size_t)h->nchanges : 4;
        struct dg_change *p = realloc(h->changes, cap * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        h->changes = p;
    }
    h->changes[h->nchanges++] = *c;
    return 0;
}

int search_change_overlap(const struct search_xrank *x, int r, const struct search_overlap *ov, double back,
                          double fwd, struct search_hint *h)
{
    if (!x || r < 0 || r >= x->world_size)
        return 0;
    for (uint32_t k = 0; k < ov->nleads; k++) {
        const struct search_lead *l = &ov->leads[k];
        if (l->pos == UINT32_MAX) /* not in the log, or its times unknown */
            continue;
        struct dg_change c = {.kind = DG_CHANGE_NB, .rank = r, .pos = l->pos, .timed = true, .t_enter = l->t_enter,
                              .t_exit = l->t_exit};
        uint64_t span = (uint64_t)((double)l->span_ns * back), after = (uint64_t)((double)l->after_ns * fwd);
        c.t_post = span && span < l->t_enter ? l->t_enter - span : 0;
        c.t_wait = after ? l->t_exit + after : 0;
        /* the wait goes after the MPI calls its forward window crosses
         * (their order stays): no earlier than the last one's exit */
        if (fwd > 0 && l->fw_exit > c.t_wait)
            c.t_wait = l->fw_exit;
        int rc = search_hint_add_change(h, &c);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Where a receive is: rank's call site (search_span_peers; unchanged if
 * not matched or at no known line). */
static void recv_loc(const struct search_xrank *x, int32_t rank, uint32_t site, const char **file,
                     uint32_t *line)
{
    const struct search_rank_result *rr = rank >= 0 && rank < x->world_size ? x->by_rank[rank] : NULL;
    const struct trace_site_info *si = rr && site != CHT_NONE ? search_site_info(rr, site) : NULL;
    if (si && si->file && *si->file && si->line) {
        struct search_loc l;
        search_loc_at_call(si, si->id, &l);
        *file = l.file;
        *line = l.line;
    }
}

int search_change_group(const struct search_xrank *x, int r, const struct search_rank_result *res, uint32_t g,
                        struct search_hint *h)
{
    if (!x || r < 0 || r >= x->world_size)
        return 0;
    for (uint32_t k = 0; k < res->nspans; k++) {
        const struct search_group_span *sp = &res->spans[k];
        if (sp->group != g || sp->carry == UINT32_MAX) /* the carrying send is not in the log */
            continue;
        const struct search_span_peers *pp = res->span_peers ? &res->span_peers[k] : NULL;
        if (pp && !h->recv_file) { /* where the receiver takes the first member's message and the last's */
            recv_loc(x, pp->carry_rank, pp->carry_site, &h->recv_file, &h->recv_line);
            recv_loc(x, pp->first_rank, pp->first_site, &h->recv_first_file, &h->recv_first_line);
        }
        /* on the receiver, a member's receive took its count or its
         * buffer's place from a value an earlier member's receive brought
         * (DG_MSGF_ARG): merged, the one receive cannot know them before
         * the message comes (mpi_mm's rows, then rows * NCA doubles) */
        if (pp && !h->recv_arg_file && pp->arg_rank[0] >= 0) {
            const char *ff = NULL, *uf = NULL;
            uint32_t fl = 0, ul = 0;
            recv_loc(x, pp->arg_rank[0], pp->arg_site[0], &ff, &fl);
            recv_loc(x, pp->arg_rank[1], pp->arg_site[1], &uf, &ul);
            if (ff && uf) {
                h->recv_arg_file = ff;
                h->recv_arg_line = fl;
                h->recv_arg_use_file = uf;
                h->recv_arg_use_line = ul;
            }
        }
        for (uint32_t p = 0; p < sp->nmerged; p++) {
            const struct search_merged_send *m = &res->span_merged[sp->merge_off + p];
            struct dg_change ch = {.kind = DG_CHANGE_MERGE, .rank = r, .pos = m->pos, .into = sp->carry,
                                   .timed = true, .t_enter = m->t_enter, .t_exit = m->t_exit};
            int rc = search_hint_add_change(h, &ch);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

/* COMMHINT_SPREAD_REPLAY: 1, 0, or -1 when unset (or another value). */
static int spread_env(void)
{
    const char *spread = getenv("COMMHINT_SPREAD_REPLAY");
    return !spread ? -1 : !strcmp(spread, "1") ? 1 : !strcmp(spread, "0") ? 0 : -1;
}

bool search_xrank_spread_replay(const struct dg_xchg *x)
{
    int e = spread_env();
    return e >= 0 ? e == 1 : x && x->nprocs > 1 && x->spread;
}

bool search_xrank_replay_may_spread(void)
{
    return spread_env() != 0;
}

/* The end of the run replayed with changes: the last rank's end. */
static int replay_end(const struct search_xrank *x, const struct dg_replay_params *pp, const struct dg_change *ch,
                      size_t n, struct dg_replay_rank *rr, double *end)
{
    /* Spread, every process replays its ranks (a job of process 0), at a
     * round of the exchange per message between two processes on the
     * critical path: by default when the driver says so (every process
     * has a core, so a round takes microseconds, or the logs are too
     * large to gather); otherwise process 0, which then holds every
     * rank's log, replays them itself */
    int rc = x->dist && search_xrank_spread_replay(x->dist->xchg) ? search_xrank_replay_job(x->dist, pp, ch, n, rr)
                     : dg_replay_run(x->logs, x->world_size, x->match, pp, ch, n, rr);
    if (rc < 0)
        return rc;
    *end = 0;
    for (int r = 0; r < x->world_size; r++)
        if (rr[r].valid && rr[r].replayed_ns > *end)
            *end = rr[r].replayed_ns;
    return 0;
}

/* A rank's time outside MPI calls, from its MPI_Init's return to its
 * last call's entry (ns). */
static uint64_t useful_ns(const struct dg_mpilog *log)
{
    uint64_t u = 0;
    uint32_t prev = 0;
    for (uint32_t p = 1; log && p < log->n; p++) {
        if (log->rec[p].index == log->rec[prev].index)
            continue;
        const struct dg_msgrec *a = &log->rec[prev], *b = &log->rec[p];
        if (a->t_exit && b->t_enter > a->t_exit)
            u += b->t_enter - a->t_exit;
        prev = p;
    }
    return u;
}

int search_predict_fit(const struct dg_mpilog *const *logs, int P, const struct dg_match *m, const struct dg_xchg *x,
                       struct search_fit *f)
{
    int rc = dg_replay_fit_dist(logs, P, m, x, &f->pp);
    if (rc < 0)
        return rc;
    int64_t v[2] = {0, 0}, max = 0; /* whole nanoseconds: the sum is the same in any order */
    for (int r = 0; r < P; r++) {
        if (!logs[r] || logs[r]->n < 2)
            continue;
        int64_t u = (int64_t)useful_ns(logs[r]);
        v[0] += u;
        v[1]++;
        max = u > max ? u : max;
    }
    if (x->nprocs > 1 &&
        ((rc = x->allreduce(x->ctx, v, 2, DG_XCHG_SUM)) < 0 || (rc = x->allreduce(x->ctx, &max, 1, DG_XCHG_MAX)) < 0))
        return rc;
    f->useful_sum = v[0];
    f->useful_ranks = v[1];
    f->useful_max = max;
    return 0;
}

/* The POP efficiencies of the run (measured ns), with the replay on an
 * ideal network. */
static int pop(const struct search_xrank *x, const struct search_fit *f, const struct dg_replay_params *pp,
               struct dg_replay_rank *rr, double measured, struct search_prediction *pr)
{
    double scale = pp->compute_scale > 0 ? pp->compute_scale : 1, ideal = 0;
    double sum = (double)f->useful_sum * scale, max = (double)f->useful_max * scale;
    int64_t n = f->useful_ranks;
    struct dg_replay_params ip = *pp;
    ip.ideal = true;
    int rc = replay_end(x, &ip, NULL, 0, rr, &ideal);
    if (rc < 0 || !n || max <= 0 || measured <= 0)
        return rc;
    pr->useful_avg_ns = search_round_u64(sum / (double)n);
    pr->useful_max_ns = search_round_u64(max);
    pr->ideal_ns = search_round_u64(ideal);
    pr->load_balance = sum / (double)n / max;
    pr->comm_eff = fmin(1, max / measured);
    pr->parallel_eff = pr->load_balance * pr->comm_eff;
    pr->serial_eff = ideal > 0 ? fmin(1, max / ideal) : 1;
    pr->transfer_eff = fmin(1, ideal / measured);
    return 0;
}

/* The scale of bursts for which the unchanged run replays in `plain` ns:
 * the traced run's computation carries the tracing's cost, its MPI calls
 * hardly (bisection; the replay's end grows with the scale). */
static int fit_scale(const struct search_xrank *x, struct dg_replay_params *pp, struct dg_replay_rank *rr,
                     double plain)
{
    double lo = 0.001, hi = 1, end;
    pp->compute_scale = hi;
    int rc = replay_end(x, pp, NULL, 0, rr, &end);
    if (rc < 0 || end <= plain)
        return rc; /* the plain run is no faster: keep the bursts */
    pp->compute_scale = lo;
    if ((rc = replay_end(x, pp, NULL, 0, rr, &end)) < 0)
        return rc;
    if (end > plain) { /* its messages alone take longer: the model cannot be the plain run */
        pp->compute_scale = 1;
        return 1;
    }
    for (int i = 0; i < 40 && hi - lo > 1e-6; i++) {
        pp->compute_scale = (lo + hi) / 2;
        if ((rc = replay_end(x, pp, NULL, 0, rr, &end)) < 0)
            return rc;
        if (end > plain)
            hi = pp->compute_scale;
        else
            lo = pp->compute_scale;
    }
    pp->compute_scale = (lo + hi) / 2;
    return 0;
}

static uint64_t saved(double base, double end)
{
    return end < base ? search_round_u64(base - end) : 0;
}

/* Whether h is named by the apply list s ("overlap:84,aggregate:jacobi.c:92"). */
static bool applied(const struct search_hint *h, const char *s)
{
    const char *kind = search_kind_name(h->kind);
    while (s && *s) {
        const char *end = strchr(s, ',');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        size_t k = strlen(kind);
        if (n > k && !strncmp(s, kind, k) && s[k] == ':') {
            const char *rest = s + k + 1, *colon = memchr(rest, ':', n - k - 1);
            const char *num = colon ? colon + 1 : rest;
            bool file_ok = true;
            if (colon) { /* FILE: the end of the hint's path */
                size_t fl = (size_t)(colon - rest), hl = h->file ? strlen(h->file) : 0;
                file_ok = fl <= hl && !strncmp(h->file + hl - fl, rest, fl) &&
                          (fl == hl || h->file[hl - fl - 1] == '/');
            }
            char *e;
            unsigned long line = strtoul(num, &e, 10);
            if (file_ok && e == s + n && line == h->line)
                return true;
        }
        s = end ? end + 1 : NULL;
    }
    return false;
}

/* Whether h is selected: by kind (0: every hint), or by an apply list. */
static bool selected(const struct search_hint *h, int kind, const char *apply)
{
    return apply ? applied(h, apply) : !kind || h->kind == kind;
}

/* The hints selected, applied together: how many (*count) and what they
 * save (*ns, 0 if they change nothing). */
/* What a set of changes can save at most when every one of them is a
 * call made nonblocking or a send merged into another's message (true
 * with *bound set; false if another kind is among them): a call made
 * nonblocking hides how much earlier it starts and how much later it is
 * waited for; a send merged away saves its own time (its overhead, and its
 * wait for a rendezvous) and what its receive costs the receiver, o_r (not
 * L: the latencies of messages sent one after the other overlap; and a
 * receiver that waited for the sender still waits for the one message,
 * which leaves no earlier).  On an oversubscribed host a shift
 * of a few ns can move the ranks' turns on the CPUs, and with them the
 * replayed end, by a whole slice: that is not the hint's (sized-parts on
 * 4 ranks and 2 cores: a merge of 12 length messages was credited with
 * 99% of the run). */
static bool change_bound(const struct dg_replay_params *pp, const struct dg_change *ch, uint32_t n,
                         uint64_t *bound)
{
    double b = 0;
    for (uint32_t c = 0; c < n; c++) {
        const struct dg_change *k = &ch[c];
        if ((k->kind != DG_CHANGE_NB && k->kind != DG_CHANGE_MERGE) || !k->timed)
            return false; /* the record's times: the change's, taken from the log with the facts */
        if (k->kind == DG_CHANGE_MERGE) {
            if (k->t_exit > k->t_enter)
                b += (double)(k->t_exit - k->t_enter);
            b += pp->or_ns; /* the latencies of messages sent back to back overlap: not saved */
            continue;
        }
        if (k->t_post && k->t_post < k->t_enter)
            b += (double)(k->t_enter - k->t_post);
        if (k->t_wait > k->t_exit)
            b += (double)(k->t_wait - k->t_exit);
    }
    *bound = search_round_u64(b);
    return true;
}

static int together(const struct search_xrank *x, const struct dg_replay_params *pp, struct dg_replay_rank *rr,
                    double base, const struct search_hint *v, uint32_t n, int kind, const char *apply,
                    uint32_t *count, uint64_t *ns)
{
    size_t m = 0, nch = 0;
    *count = 0;
    *ns = 0;
    for (uint32_t i = 0; i < n; i++)
        if (selected(&v[i], kind, apply)) {
            ++*count;
            m += v[i].nchanges;
        }
    if (!m)
        return 0;
    struct dg_change *ch = malloc(m * sizeof *ch);
    if (!ch)
        return TRACE_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++)
        if (v[i].nchanges && selected(&v[i], kind, apply)) {
            memcpy(ch + nch, v[i].changes, v[i].nchanges * sizeof *ch);
            nch += v[i].nchanges;
        }
    double end;
    uint64_t bound;
    int rc = replay_end(x, pp, ch, nch, rr, &end);
    if (rc == 0) {
        *ns = saved(base, end);
        if (change_bound(pp, ch, (uint32_t)nch, &bound) && *ns > bound)
            *ns = bound;
    }
    free(ch);
    return rc;
}

int search_predict(const struct search_xrank *x, const struct search_report_opts *o, struct search_report *rep,
                   struct search_hint *v, uint32_t n)
{
    struct search_prediction *pr = &rep->predict;
    memset(pr, 0, sizeof *pr);
    for (uint32_t i = 0; i < n; i++)
        v[i].estimated_ns = v[i].saving_ns;
    if (!x || !x->match || !x->world_size)
        return 0;
    /* the fit: spread, each process fits to its ranks (a job of process 0) */
    struct search_fit fit = {.pp = {.eager_max = o && o->model_eager ? o->model_eager : 8192}};
    int rc = x->dist ? search_xrank_fit_job(x->dist, &fit)
                     : search_predict_fit(x->logs, x->world_size, x->match, dg_xchg_serial(), &fit);
    if (rc < 0)
        return rc;
    struct dg_replay_params pp = fit.pp;
    if (o && (o->model_set & 1))
        pp.lat_ns = o->model_lat_ns;
    if (o && (o->model_set & 2))
        pp.ns_per_byte = o->model_ns_per_byte;
    if (o && (o->model_set & 4))
        pp.o_ns = o->model_o_ns;
    if (o && (o->model_set & 8))
        pp.or_ns = o->model_or_ns;
    if (o && (o->model_set & 16))
        pp.slice_ns = o->model_slice_ns; /* 0: the CPUs not modelled */
    struct dg_replay_rank *rr = calloc(x->world_size, sizeof *rr);
    if (!rr)
        return TRACE_ERR_NOMEM;
    double base = 0, measured = 0, end;
    pp.compute_scale = 1;
    bool plain = o && o->plain_ns;
    if (plain && (rc = fit_scale(x, &pp, rr, (double)o->plain_ns)) != 0) {
        if (rc < 0)
            goto out;
        plain = false;
        pr->plain_unfit = true;
    }
    if ((rc = replay_end(x, &pp, NULL, 0, rr, &base)) < 0)
        goto out;
    for (int r = 0; r < x->world_size; r++) {
        if (!rr[r].valid || rr[r].measured_ns <= 0)
            continue;
        measured = fmax(measured, rr[r].measured_ns);
        double e = (rr[r].replayed_ns - rr[r].measured_ns) / rr[r].measured_ns;
        if (fabs(e) > fabs(pr->rank_error))
            pr->rank_error = e;
    }
    if (measured <= 0)
        goto out; /* no times to replay */
    if (plain) {
        measured = (double)o->plain_ns; /* the run predicted is the plain one */
        pr->rank_error = 0;            /* the ranks' plain times are not known */
    }
    pr->ok = true;
    pr->lat_ns = pp.lat_ns;
    pr->ns_per_byte = pp.ns_per_byte;
    pr->o_ns = pp.o_ns;
    pr->or_ns = pp.or_ns;
    pr->slice_ns = pp.slice_ns;
    pr->slice_samples = pp.slice_samples;
    if (getenv("COMMHINT_REPLAY_DEBUG")) { /* per rank: for working on the model */
        fprintf(stderr, "replay: L=%.0f ns G=%.4f ns/B o=%.0f ns o_r=%.0f ns eager<=%" PRIu64 " samples=%" PRIu64
                " slice=%.0f ns phase=%.0f ns (%" PRIu64 " samples)\n",
                pp.lat_ns, pp.ns_per_byte, pp.o_ns, pp.or_ns, pp.eager_max, pp.samples, pp.slice_ns,
                pp.slice_phase_ns, pp.slice_samples);
        for (int r = 0; r < x->world_size; r++)
            if (rr[r].valid)
                fprintf(stderr, "replay: rank %d measured %.3f ms replayed %.3f ms (%+.1f%%)\n", r,
                        rr[r].measured_ns / 1e6, rr[r].replayed_ns / 1e6,
                        100 * (rr[r].replayed_ns - rr[r].measured_ns) / rr[r].measured_ns);
    }
    pr->eager_max = pp.eager_max;
    pr->compute_scale = pp.compute_scale;
    pr->samples = pp.samples;
    pr->measured_ns = search_round_u64(measured);
    pr->replayed_ns = search_round_u64(base);
    pr->error = (base - measured) / measured;
    if ((rc = pop(x, &fit, &pp, rr, measured, pr)) < 0)
        goto out;
    for (uint32_t i = 0; i < n; i++) {
        if (!v[i].nchanges)
            continue;
        if ((rc = replay_end(x, &pp, v[i].changes, v[i].nchanges, rr, &end)) < 0)
            goto out;
        v[i].predicted = true;
        v[i].predicted_ns = saved(base, end);
        /* a hint cannot save more than its changes can (change_bound) */
        uint64_t bound;
        if (change_bound(&pp, v[i].changes, v[i].nchanges, &bound) && v[i].predicted_ns > bound)
            v[i].predicted_ns = bound;
        v[i].slower_ns = saved(end, base);
        v[i].estimated_ns = v[i].saving_ns;
        v[i].saving_ns = v[i].predicted_ns; /* what it is ranked by */
    }
    uint32_t count;
    if (o && o->apply && /* the hints named, together */
        (rc = together(x, &pp, rr, base, v, n, 0, o->apply, &pr->applied, &pr->applied_ns)) < 0)
        goto out;
    for (int kind = 0; kind <= SEARCH_HINT_COLLECTIVE; kind++) {
        uint64_t ns;
        if ((rc = together(x, &pp, rr, base, v, n, kind, NULL, &count, &ns)) < 0)
            goto out;
        if (kind)
            pr->kind_ns[kind] = ns;
        else
            pr->all_ns = ns;
    }
    rc = 0;
out:
    free(rr);
    return rc;
}
