/* jobs.c - process 0 asks, every process answers.  Once the spread part of
 * the cross-rank stage is done (search_xrank_build_dist, the wait states),
 * process 0 merges the hints over the whole context it completed, and the
 * questions about the whole run its merges ask are jobs for every process:
 * the other processes wait for them (search_xrank_serve) until process 0
 * says it is done (search_xrank_end), and each job is one exchange that
 * hands each process its part of the question (the moves of its ranks),
 * the spread replay, and one exchange that brings the answers to process 0.
 *
 * Jobs:
 *   - STALL: would the run deadlock with these records moved (the changed
 *     run of a hint's groups on all its ranks, deadlock.c)?  Every process
 *     replays its ranks (dg_stall_check_dist); where each rank stopped goes
 *     to process 0.
 *   - REPLAY: the run replayed with a hint's changes (its prediction,
 *     predict.c).  Every process gets the parameters and all the changes
 *     (a change names any rank, and a receive's process must know that
 *     its send joined a collective), replays its ranks
 *     (dg_replay_run_dist), and each rank's end goes to process 0.
 *   - FIT: the replay's parameters and the ranks' useful times fitted to
 *     the run (predict.c, search_predict_fit): every process gets the
 *     eager limit, samples its ranks, and the reductions give every
 *     process the fit.
 *   - DESCRIBE: what records are (kind, call, site) for an explanation
 *     (deadlock.c): each process gets the positions on its ranks and
 *     sends their descriptions back to process 0, in the order asked.
 *   - CHAIN: the messages that make a record happen before another, for an
 *     explanation (deadlock.c): every process gets the pair, replays its
 *     ranks tracing the first (dg_hb_chain_dist), and every process gets
 *     the chain.
 *   - COUNTS: the rounds left at the collective hints' main call sites
 *     (collectives/counts.c): each process gets the question about its
 *     ranks, counts over their whole logs, and the counts are summed
 *     (an all-reduce), for process 0.
 *   - TWORANKS: --explain's call sites that move data only on communicators
 *     of two ranks (collectives/tworanks.c): each process gets the
 *     claimed records it must leave out, scans its ranks' whole logs, and
 *     its answer goes to process 0.
 *   - END: process 0 is done (its status: a failure there is the others'
 *     too). */
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

enum {
    JOB_END = 1,
    JOB_STALL = 2,
    JOB_REPLAY = 3,
    JOB_FIT = 4,
    JOB_DESCRIBE = 5,
    JOB_CHAIN = 6,
    JOB_COUNTS = 7,
    JOB_TWORANKS = 8
};

struct job {
    uint32_t kind;
    int32_t status;
};

/* The moves of one rank, followed by n struct dg_move. */
struct job_moves {
    int32_t rank;
    uint32_t n;
};

/* Process 0: the job's header to every other process (its payload is
 * appended to d->jout[q] after it); *st turns negative if memory ran out. */
static void job_begin(struct search_xrank *d, uint32_t kind, int *st)
{
    struct job j = {kind, 0};
    for (int q = 1; *st == 0 && q < d->xchg->nprocs; q++)
        if (!dg_bytes_put(&d->jout[q], &j, sizeof j))
            *st = TRACE_ERR_NOMEM;
}

/* Process 0: the job goes (a negative status goes instead: the others
 * leave with it).  After a failure every process has left the jobs. */
static int job_send(struct search_xrank *d, int st)
{
    const struct dg_xchg *xc = d->xchg;
    int rc = xc->alltoall(xc->ctx, st, d->jout, d->jin);
    for (int q = 0; q < xc->nprocs; q++)
        dg_bytes_free(&d->jin[q]);
    if (rc < 0)
        d->jobs_over = true;
    return rc < 0 ? rc : 0;
}

/* Every process: its ranks' entries of v (P entries of `size` bytes) go
 * to process 0, which gets every rank's in all (NULL elsewhere; its own
 * ranks' are v's).  Each travels behind its rank (8 bytes). */
static int gather_ranks(struct search_xrank *d, const void *v, size_t size, void *all)
{
    const struct dg_xchg *xc = d->xchg;
    int P = d->world_size, st = 0;
    struct dg_bytes *out = d->jout, *in = d->jin;
    const uint8_t *src = v;
    for (int r = 0; r < P && xc->proc != 0 && st == 0; r++) {
        int64_t rank = r;
        if (d->logs[r] && (!dg_bytes_put(&out[0], &rank, sizeof rank) || !dg_bytes_put(&out[0], src + r * size, size)))
            st = TRACE_ERR_NOMEM;
    }
    int rc = xc->alltoall(xc->ctx, st, out, in);
    if (rc >= 0 && all) {
        memcpy(all, v, (size_t)P * size);
        for (int q = 1; q < xc->nprocs; q++)
            for (size_t off = 0; off + sizeof(int64_t) + size <= in[q].len; off += sizeof(int64_t) + size) {
                int64_t rank;
                memcpy(&rank, in[q].p + off, sizeof rank);
                if (rank >= 0 && rank < P)
                    memcpy((uint8_t *)all + rank * size, in[q].p + off + sizeof rank, size);
            }
    }
    for (int q = 0; q < xc->nprocs; q++)
        dg_bytes_free(&in[q]);
    return rc < 0 ? rc : 0;
}

/* Every process: the moves of its ranks replayed together; process 0
 * gets where every rank stopped (blocked, or NULL elsewhere). */
static int stall_run(struct search_xrank *d, struct dg_move **mv, uint32_t *nmv, struct dg_stall_wait *blocked,
                     bool *stalled, int st)
{
    const struct dg_xchg *xc = d->xchg;
    int P = d->world_size;
    struct dg_stall_wait *b = calloc(P ? (size_t)P : 1, sizeof *b);
    int rc = dg_xchg_agree(xc, st < 0 ? st : b ? 0 : TRACE_ERR_NOMEM);
    if (rc == 0)
        rc = dg_stall_check_dist(d->logs, P, d->match, d->owner, xc, (const struct dg_move *const *)mv, nmv, b,
                                 stalled);
    if (rc == 0)
        rc = gather_ranks(d, b, sizeof *b, blocked); /* DG_POS_NONE for ranks without a log */
    free(b);
    if (rc < 0)
        d->jobs_over = true;
    return rc;
}

int search_xrank_stall_job(struct search_xrank *d, struct dg_move *const *mv, const uint32_t *nmv,
                           struct dg_stall_wait *blocked, bool *stalled)
{
    const struct dg_xchg *xc = d->xchg;
    int P = d->world_size, st = 0;
    if (d->jobs_over)
        return TRACE_ERR_ARG;
    job_begin(d, JOB_STALL, &st);
    for (int r = 0; r < P && st == 0; r++) {
        int q = d->owner ? d->owner[r] : 0;
        if (!nmv[r] || q <= 0 || q >= xc->nprocs)
            continue;
        struct job_moves h = {r, nmv[r]};
        if (!dg_bytes_put(&d->jout[q], &h, sizeof h) || !dg_bytes_put(&d->jout[q], mv[r], nmv[r] * sizeof *mv[r]))
            st = TRACE_ERR_NOMEM;
    }
    int rc = job_send(d, st);
    if (rc < 0)
        return rc;
    /* process 0 replays only the moves of its own ranks */
    struct dg_move **own = calloc(P ? (size_t)P : 1, sizeof *own);
    uint32_t *nown = calloc(P ? (size_t)P : 1, sizeof *nown);
    for (int r = 0; r < P && own && nown; r++)
        if (d->logs[r]) {
            own[r] = mv[r];
            nown[r] = nmv[r];
        }
    rc = stall_run(d, own, nown, blocked, stalled, own && nown ? 0 : TRACE_ERR_NOMEM);
    free(own);
    free(nown);
    return rc;
}

/* Another process: the moves of its ranks from a STALL job, replayed. */
static int serve_stall(struct search_xrank *d, const struct dg_bytes *in)
{
    int P = d->world_size;
    struct dg_move **mv = calloc(P ? (size_t)P : 1, sizeof *mv);
    uint32_t *nmv = calloc(P ? (size_t)P : 1, sizeof *nmv);
    int st = mv && nmv ? 0 : TRACE_ERR_NOMEM;
    size_t off = sizeof(struct job);
    while (st == 0 && off + sizeof(struct job_moves) <= in->len) {
        struct job_moves h;
        memcpy(&h, in->p + off, sizeof h);
        off += sizeof h;
        size_t bytes = (size_t)h.n * sizeof(struct dg_move);
        if (h.rank < 0 || h.rank >= P || bytes > in->len - off || mv[h.rank])
            break; /* cannot happen: the jobs are ours */
        if (!(mv[h.rank] = malloc(bytes ? bytes : 1))) {
            st = TRACE_ERR_NOMEM;
            break;
        }
        memcpy(mv[h.rank], in->p + off, bytes);
        nmv[h.rank] = h.n;
        off += bytes;
    }
    bool stalled = false;
    int rc = stall_run(d, mv, nmv, NULL, &stalled, st);
    for (int r = 0; mv && r < P; r++)
        free(mv[r]);
    free(mv);
    free(nmv);
    return rc;
}

/* Every process: the run replayed with the changes; process 0 gets every
 * rank's end (rr, NULL elsewhere). */
static int replay_run(struct search_xrank *d, const struct dg_replay_params *pp, const struct dg_change *ch,
                      size_t nch, struct dg_replay_rank *rr, int st)
{
    const struct dg_xchg *xc = d->xchg;
    int P = d->world_size;
    struct dg_replay_rank *e = calloc(P ? (size_t)P : 1, sizeof *e);
    int rc = dg_xchg_agree(xc, st < 0 ? st : e ? 0 : TRACE_ERR_NOMEM);
    if (rc == 0)
        rc = dg_replay_run_dist(d->logs, P, d->match, d->owner, xc, pp, ch, nch, e);
    if (rc == 0)
        rc = gather_ranks(d, e, sizeof *e, rr); /* zero for ranks without a log */
    free(e);
    if (rc < 0)
        d->jobs_over = true;
    return rc;
}

int search_xrank_replay_job(struct search_xrank *d, const struct dg_replay_params *pp, const struct dg_change *ch,
                            size_t nch, struct dg_replay_rank *rr)
{
    const struct dg_xchg *xc = d->xchg;
    int st = 0;
    if (d->jobs_over)
        return TRACE_ERR_ARG;
    job_begin(d, JOB_REPLAY, &st);
    uint64_t n = nch;
    for (int q = 1; q < xc->nprocs && st == 0; q++)
        if (!dg_bytes_put(&d->jout[q], pp, sizeof *pp) || !dg_bytes_put(&d->jout[q], &n, sizeof n) ||
            (nch && !dg_bytes_put(&d->jout[q], ch, nch * sizeof *ch)))
            st = TRACE_ERR_NOMEM;
    int rc = job_send(d, st);
    if (rc < 0)
        return rc;
    return replay_run(d, pp, ch, nch, rr, 0);
}

/* Another process: the parameters and changes of a REPLAY job, replayed. */
static int serve_replay(struct search_xrank *d, const struct dg_bytes *in)
{
    struct dg_replay_params pp;
    uint64_t n = 0;
    size_t off = sizeof(struct job);
    int st = 0;
    if (in->len < off + sizeof pp + sizeof n)
        st = TRACE_ERR_ARG; /* cannot happen: the jobs are ours */
    else {
        memcpy(&pp, in->p + off, sizeof pp);
        memcpy(&n, in->p + off + sizeof pp, sizeof n);
        off += sizeof pp + sizeof n;
        if (n > (in->len - off) / sizeof(struct dg_change))
            st = TRACE_ERR_ARG;
    }
    struct dg_change *ch = st == 0 && n ? malloc(n * sizeof *ch) : NULL;
    if (st == 0 && n && !ch)
        st = TRACE_ERR_NOMEM;
    if (ch)
        memcpy(ch, in->p + off, n * sizeof *ch);
    int rc = replay_run(d, &pp, ch, st == 0 ? n : 0, NULL, st);
    free(ch);
    return rc;
}

/* Every process: the fit of its ranks, reduced (f->pp.eager_max given). */
static int fit_run(struct search_xrank *d, struct search_fit *f, int st)
{
    int rc = dg_xchg_agree(d->xchg, st);
    if (rc == 0)
        rc = search_predict_fit(d->logs, d->world_size, d->match, d->xchg, f);
    if (rc < 0)
        d->jobs_over = true;
    return rc;
}

int search_xrank_fit_job(struct search_xrank *d, struct search_fit *f)
{
    const struct dg_xchg *xc = d->xchg;
    int st = 0;
    if (d->jobs_over)
        return TRACE_ERR_ARG;
    job_begin(d, JOB_FIT, &st);
    for (int q = 1; q < xc->nprocs && st == 0; q++)
        if (!dg_bytes_put(&d->jout[q], &f->pp.eager_max, sizeof f->pp.eager_max))
            st = TRACE_ERR_NOMEM;
    int rc = job_send(d, st);
    return rc < 0 ? rc : fit_run(d, f, 0);
}

/* Another process: the eager limit of a FIT job, and its ranks fitted. */
static int serve_fit(struct search_xrank *d, const struct dg_bytes *in)
{
    struct search_fit f = {0};
    int st = in->len < sizeof(struct job) + sizeof f.pp.eager_max ? TRACE_ERR_ARG : 0; /* cannot happen */
    if (st == 0)
        memcpy(&f.pp.eager_max, in->p + sizeof(struct job), sizeof f.pp.eager_max);
    return fit_run(d, &f, st);
}

/* The process that holds rank r's log (0 if none: process 0 answers). */
static int rank_proc(const struct search_xrank *d, int r)
{
    int q = r >= 0 && r < d->world_size && d->owner ? d->owner[r] : 0;
    return q > 0 && q < d->xchg->nprocs ? q : 0;
}

/* The record at p of this process's logs. */
static struct search_rec_desc describe_one(const struct search_xrank *d, struct dg_pos p)
{
    const struct dg_mpilog *log = p.rank >= 0 && p.rank < d->world_size ? d->logs[p.rank] : NULL;
    if (!log || p.pos >= log->n)
        return (struct search_rec_desc){false, 0, 0, CHT_NONE};
    const struct dg_msgrec *a = &log->rec[p.pos];
    return (struct search_rec_desc){true, a->kind, a->call, a->site};
}

/* Every process: the descriptions of the positions asked of it (p[0..n))
 * go to process 0, in that order. */
static int describe_run(struct search_xrank *d, const struct dg_pos *p, size_t n, int st)
{
    const struct dg_xchg *xc = d->xchg;
    for (size_t i = 0; i < n && st == 0 && xc->proc != 0; i++) {
        struct search_rec_desc e = describe_one(d, p[i]);
        if (!dg_bytes_put(&d->jout[0], &e, sizeof e))
            st = TRACE_ERR_NOMEM;
    }
    int rc = xc->alltoall(xc->ctx, st, d->jout, d->jin);
    if (rc < 0)
        d->jobs_over = true;
    return rc < 0 ? rc : 0;
}

static int describe_job(struct search_xrank *d, const struct dg_pos *pos, size_t n, struct search_rec_desc *out)
{
    const struct dg_xchg *xc = d->xchg;
    int st = 0;
    if (d->jobs_over)
        return TRACE_ERR_ARG;
    job_begin(d, JOB_DESCRIBE, &st);
    size_t *took = calloc((size_t)xc->nprocs, sizeof *took); /* answers read per process */
    if (!took)
        st = TRACE_ERR_NOMEM;
    for (size_t i = 0; i < n && st == 0; i++) {
        int q = rank_proc(d, pos[i].rank);
        if (q && !dg_bytes_put(&d->jout[q], &pos[i], sizeof pos[i]))
            st = TRACE_ERR_NOMEM;
    }
    int rc = job_send(d, st);
    if (rc == 0)
        rc = describe_run(d, NULL, 0, 0);
    for (size_t i = 0; i < n && rc == 0; i++) {
        int q = rank_proc(d, pos[i].rank);
        out[i] = (struct search_rec_desc){false, 0, 0, CHT_NONE};
        if (!q)
            out[i] = describe_one(d, pos[i]);
        else if (d->jin[q].len >= (took[q] + 1) * sizeof *out)
            memcpy(&out[i], d->jin[q].p + took[q]++ * sizeof *out, sizeof *out);
    }
    for (int q = 0; q < xc->nprocs; q++)
        dg_bytes_free(&d->jin[q]);
    free(took);
    return rc;
}

int search_xrank_describe(const struct search_xrank *x, const struct dg_pos *pos, size_t n,
                          struct search_rec_desc *out)
{
    if (x->dist)
        return describe_job(x->dist, pos, n, out);
    for (size_t i = 0; i < n; i++)
        out[i] = describe_one(x, pos[i]);
    return 0;
}

/* Another process: the positions of a DESCRIBE job, described. */
static int serve_describe(struct search_xrank *d, const struct dg_bytes *in)
{
    size_t off = sizeof(struct job), n = (in->len - off) / sizeof(struct dg_pos);
    struct dg_pos *p = n ? malloc(n * sizeof *p) : NULL;
    int st = n && !p ? TRACE_ERR_NOMEM : 0;
    if (p)
        memcpy(p, in->p + off, n * sizeof *p);
    int rc = describe_run(d, p, st == 0 ? n : 0, st);
    free(p);
    return rc;
}

/* Every process: the chain from a to b (out[0..*n), max at most). */
static int chain_run(struct search_xrank *d, struct dg_pos a, struct dg_pos b, struct dg_pos *out, size_t max,
                     size_t *n, int st)
{
    *n = 0;
    int rc = dg_xchg_agree(d->xchg, st);
    if (rc == 0)
        rc = dg_hb_chain_dist(d->logs, d->world_size, d->match, d->owner, d->xchg, a, b, out, max, n);
    if (rc < 0)
        d->jobs_over = true;
    return rc;
}

int search_xrank_chain(const struct search_xrank *x, struct dg_pos a, struct dg_pos b, struct dg_pos *out,
                       size_t max, size_t *n)
{
    *n = 0;
    if (!x->dist)
        return dg_hb_chain_dist(x->logs, x->world_size, x->match, x->owner, x->xchg, a, b, out, max, n);
    struct search_xrank *d = x->dist;
    if (d->jobs_over)
        return TRACE_ERR_ARG;
    int st = 0;
    job_begin(d, JOB_CHAIN, &st);
    for (int q = 1; q < d->xchg->nprocs && st == 0; q++)
        if (!dg_bytes_put(&d->jout[q], &a, sizeof a) || !dg_bytes_put(&d->jout[q], &b, sizeof b))
            st = TRACE_ERR_NOMEM;
    int rc = job_send(d, st);
    return rc < 0 ? rc : chain_run(d, a, b, out, max, n, 0);
}

/* Another process: the pair of a CHAIN job, traced. */
static int serve_chain(struct search_xrank *d, const struct dg_bytes *in)
{
    struct dg_pos ab[2] = {DG_POS_NONE, DG_POS_NONE}, out[64];
    size_t n = 0;
    int st = in->len < sizeof(struct job) + sizeof ab ? TRACE_ERR_ARG : 0; /* cannot happen */
    if (st == 0)
        memcpy(ab, in->p + sizeof(struct job), sizeof ab);
    return chain_run(d, ab[0], ab[1], out, 64, &n, st);
}

int search_xrank_proc_of(const struct search_xrank *x, int r)
{
    return x->dist ? rank_proc(x->dist, r) : 0;
}

int search_xrank_nprocs(const struct search_xrank *x)
{
    return x->dist ? x->dist->xchg->nprocs : 1;
}

/* Every process: its part of a COUNTS job counted, then summed over the
 * processes (every process gets the sums). */
static int counts_run(struct search_xrank *d, const uint8_t *p, size_t len, uint32_t nslots, int64_t *sums, int st)
{
    if (st == 0)
        st = search_coll_counts_local(d, p, len, nslots, sums);
    int rc = dg_xchg_agree(d->xchg, st);
    if (rc == 0 && nslots)
        rc = d->xchg->allreduce(d->xchg->ctx, sums, (int)nslots, DG_XCHG_SUM);
    if (rc < 0)
        d->jobs_over = true;
    return rc < 0 ? rc : 0;
}

int search_xrank_coll_counts(const struct search_xrank *x, const struct dg_bytes *part, int st, uint32_t nslots,
                             int64_t *sums)
{
    if (!x->dist)
        return st < 0 ? st : search_coll_counts_local(x, part[0].p, part[0].len, nslots, sums);
    struct search_xrank *d = x->dist;
    if (d->jobs_over)
        return TRACE_ERR_ARG;
    if (nslots > INT32_MAX)
        st = st < 0 ? st : TRACE_ERR_LIMIT;
    job_begin(d, JOB_COUNTS, &st);
    for (int q = 1; q < d->xchg->nprocs && st == 0; q++)
        if (!dg_bytes_put(&d->jout[q], &nslots, sizeof nslots) || (part[q].len && !dg_bytes_put(&d->jout[q], part[q].p, part[q].len)))
            st = TRACE_ERR_NOMEM;
    int rc = job_send(d, st);
    return rc < 0 ? rc : counts_run(d, part[0].p, part[0].len, nslots, sums, 0);
}

/* Another process: the question of a COUNTS job about its ranks, counted. */
static int serve_counts(struct search_xrank *d, const struct dg_bytes *in)
{
    uint32_t nslots = 0;
    size_t off = sizeof(struct job) + sizeof nslots;
    int st = in->len < off ? TRACE_ERR_ARG : 0; /* cannot happen */
    if (st == 0)
        memcpy(&nslots, in->p + sizeof(struct job), sizeof nslots);
    int64_t *sums = calloc(nslots ? nslots : 1, sizeof *sums);
    if (!sums)
        st = TRACE_ERR_NOMEM;
    int rc = counts_run(d, st == 0 ? in->p + off : NULL, st == 0 ? in->len - off : 0, st == 0 ? nslots : 0, sums, st);
    free(sums);
    return rc;
}

/* Every process: its part of a TWORANKS job answered; process 0 gets
 * every process's answer, its own first, appended to *all (NULL
 * elsewhere). */
static int tworanks_run(struct search_xrank *d, const uint8_t *p, size_t len, struct dg_bytes *all, int st)
{
    const struct dg_xchg *xc = d->xchg;
    struct dg_bytes mine = {0};
    if (st == 0)
        st = search_coll_tworanks_local(d, p, len, &mine);
    if (st == 0 && xc->proc != 0 && mine.len && !dg_bytes_put(&d->jout[0], mine.p, mine.len))
        st = TRACE_ERR_NOMEM;
    int rc = xc->alltoall(xc->ctx, st, d->jout, d->jin);
    for (int q = 0; rc >= 0 && all && q < xc->nprocs; q++) {
        const struct dg_bytes *b = q ? &d->jin[q] : &mine;
        if (b->len && !dg_bytes_put(all, b->p, b->len))
            rc = TRACE_ERR_NOMEM;
    }
    for (int q = 0; q < xc->nprocs; q++)
        dg_bytes_free(&d->jin[q]);
    dg_bytes_free(&mine);
    if (rc < 0)
        d->jobs_over = true;
    return rc < 0 ? rc : 0;
}

int search_xrank_coll_tworanks(const struct search_xrank *x, const struct dg_bytes *part, int st,
                               struct dg_bytes *all)
{
    if (!x->dist)
        return st < 0 ? st : search_coll_tworanks_local(x, part[0].p, part[0].len, all);
    struct search_xrank *d = x->dist;
    if (d->jobs_over)
        return TRACE_ERR_ARG;
    job_begin(d, JOB_TWORANKS, &st);
    for (int q = 1; q < d->xchg->nprocs && st == 0; q++)
        if (part[q].len && !dg_bytes_put(&d->jout[q], part[q].p, part[q].len))
            st = TRACE_ERR_NOMEM;
    int rc = job_send(d, st);
    return rc < 0 ? rc : tworanks_run(d, part[0].p, part[0].len, all, 0);
}

/* Another process: the claimed records of a TWORANKS job, and its ranks
 * scanned. */
static int serve_tworanks(struct search_xrank *d, const struct dg_bytes *in)
{
    size_t off = sizeof(struct job);
    return tworanks_run(d, in->p + off, in->len - off, NULL, 0);
}

int search_xrank_serve(struct search_xrank *d)
{
    const struct dg_xchg *xc = d->xchg;
    for (;;) {
        int rc = xc->alltoall(xc->ctx, 0, d->jout, d->jin);
        struct dg_bytes got = d->jin[0]; /* the job: the jobs' exchanges reuse jin */
        d->jin[0] = (struct dg_bytes){0};
        for (int q = 1; q < xc->nprocs; q++)
            dg_bytes_free(&d->jin[q]);
        struct job j = {0, 0};
        if (rc >= 0 && got.len >= sizeof j)
            memcpy(&j, got.p, sizeof j);
        if (rc >= 0 && j.kind == JOB_STALL)
            rc = serve_stall(d, &got);
        else if (rc >= 0 && j.kind == JOB_REPLAY)
            rc = serve_replay(d, &got);
        else if (rc >= 0 && j.kind == JOB_FIT)
            rc = serve_fit(d, &got);
        else if (rc >= 0 && j.kind == JOB_DESCRIBE)
            rc = serve_describe(d, &got);
        else if (rc >= 0 && j.kind == JOB_CHAIN)
            rc = serve_chain(d, &got);
        else if (rc >= 0 && j.kind == JOB_COUNTS)
            rc = serve_counts(d, &got);
        else if (rc >= 0 && j.kind == JOB_TWORANKS)
            rc = serve_tworanks(d, &got);
        dg_bytes_free(&got);
        if (rc < 0 || j.kind < JOB_STALL || j.kind > JOB_TWORANKS) {
            d->jobs_over = true;
            return rc < 0 ? rc : j.kind == JOB_END ? 0 : TRACE_ERR_ARG;
        }
    }
}

int search_xrank_end(struct search_xrank *d, int rc)
{
    if (d->jobs_over)
        return rc;
    int st = 0;
    job_begin(d, JOB_END, &st);
    int got = job_send(d, rc < 0 ? rc : st);
    d->jobs_over = true;
    return rc < 0 ? rc : got;
}
