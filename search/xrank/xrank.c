/* xrank.c - the cross-rank context of search_report_build: the ranks'
 * results by world rank, their MPI logs matched (dg_match), the verdicts
 * of the aggregation checks by the happens-before order (delays.c),
 * whether the recorded run replays without a stall (dg_stall_check: the
 * base of the deadlock checks of deadlock.c) and the ranks on one clock
 * (clocks.c).
 *
 * Spread over processes (search_xrank_build_dist), each process holds the
 * logs of its ranks only; the matching, the clocks, the stall check of
 * the recorded run, the checks' verdicts and the collective search's
 * sparse logs are built together (the verdicts and the sparse logs
 * gathered on process 0), and the rest is not spread yet, so
 * such a context is partial: the wait states run on it, and process 0
 * completes it for the rest (search_xrank_complete, over every rank's
 * log, taking the verdicts). */
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

int search_xrank_build(struct search_rank_result *const *ranks, int n, int world_size,
                       struct search_xrank **out)
{
    return search_xrank_build_dist(ranks, n, world_size, NULL, dg_xchg_serial(), out);
}

/* With `from` (a partial context), the stall check's answer and the
 * checks' verdicts are taken from it instead of replayed again. */
static int build(struct search_rank_result *const *ranks, int n, int world_size, const int *owner,
                 const struct dg_xchg *xc, const struct search_xrank *from, struct search_xrank **out)
{
    struct search_xrank *x = calloc(1, sizeof *x);
    if (!x) {
        dg_xchg_agree(xc, TRACE_ERR_NOMEM); /* the others leave with this process */
        return TRACE_ERR_NOMEM;
    }
    int P = world_size;
    for (int i = 0; i < n; i++)
        if (ranks[i] && ranks[i]->rank >= P)
            P = ranks[i]->rank + 1;
    x->world_size = P;
    x->xchg = xc;
    x->owner = owner;
    x->ranks = ranks;
    x->n = n;
    x->by_rank = calloc(P ? P : 1, sizeof *x->by_rank);
    x->logs = calloc(P ? P : 1, sizeof *x->logs);
    if (xc->nprocs > 1) {
        x->jout = dg_bytes_per_proc(xc->nprocs);
        x->jin = dg_bytes_per_proc(xc->nprocs);
    }
    bool jobs = xc->nprocs == 1 || (x->jout && x->jin);
    if (dg_xchg_agree(xc, x->by_rank && x->logs && jobs ? 0 : TRACE_ERR_NOMEM) < 0)
        goto nomem;
    for (int i = 0; i < n; i++) {
        if (!ranks[i] || ranks[i]->rank < 0)
            continue;
        int r = ranks[i]->rank;
        x->by_rank[r] = ranks[i];
        if (!owner || (r < world_size && owner[r] == xc->proc))
            x->logs[r] = &ranks[i]->log;
    }
    int rc = dg_match_build_dist(x->logs, P, owner, xc, &x->match);
    if (rc == 0)
        rc = search_clocks_build_dist(x->logs, P, xc, &x->clocks);
    if (rc == 0 && !from) /* a completed context has them from its partial one */
        rc = search_xrank_peer_facts(x);
    if (rc == 0 && !from) /* the collective search's input, on process 0 */
        rc = search_coll_sparse_dist(x);
    if (from) {
        x->csparse = from->csparse;
        x->csparse_borrowed = true;
    }
    if (rc < 0) {
        search_xrank_destroy(x);
        return rc;
    }
    /* the aggregation checks judge changed runs against this one (the
     * processes' checks together) */
    int64_t checks = 0;
    for (int i = 0; i < n; i++)
        checks |= ranks[i] && ranks[i]->nchecks;
    if (xc->nprocs > 1 && (rc = xc->allreduce(xc->ctx, &checks, 1, DG_XCHG_MAX)) < 0) {
        search_xrank_destroy(x);
        return rc;
    }
    if (from)
        x->stalls = from->stalls;
    else if (checks && (rc = dg_stall_check_dist(x->logs, P, x->match, owner, xc, NULL, NULL, NULL, &x->stalls)) < 0) {
        search_xrank_destroy(x);
        return rc;
    }
    /* the checks judged by the happens-before order, the verdicts on
     * process 0 */
    if (from && from->nverdicts) {
        if (!(x->verdicts = malloc(from->nverdicts * sizeof *x->verdicts))) {
            search_xrank_destroy(x);
            return TRACE_ERR_NOMEM;
        }
        memcpy(x->verdicts, from->verdicts, from->nverdicts * sizeof *x->verdicts);
        x->nverdicts = from->nverdicts;
    } else if (!from && checks && (rc = search_deadlock_verdicts(x)) < 0) {
        search_xrank_destroy(x);
        return rc;
    }
    /* spread: the rest is not yet, what needs it refuses a partial stage */
    x->partial = xc->nprocs > 1;
    *out = x;
    return 0;
nomem:
    search_xrank_destroy(x);
    return TRACE_ERR_NOMEM;
}

int search_xrank_build_dist(struct search_rank_result *const *ranks, int n, int world_size, const int *owner,
                            const struct dg_xchg *xc, struct search_xrank **out)
{
    return build(ranks, n, world_size, owner, xc, NULL, out);
}

int search_xrank_complete(const struct search_xrank *partial, struct search_xrank **out)
{
    return build(partial->ranks, partial->n, partial->world_size, NULL, dg_xchg_serial(), partial, out);
}

void search_xrank_destroy(struct search_xrank *x)
{
    if (!x)
        return;
    search_clocks_free(&x->clocks);
    free(x->verdicts);
    if (x->xchg) {
        dg_bytes_per_proc_free(x->jout, x->xchg->nprocs);
        dg_bytes_per_proc_free(x->jin, x->xchg->nprocs);
    }
    search_xrank_destroy(x->dist);
    if (!x->csparse_borrowed)
        search_coll_sparse_destroy(x->csparse);
    free(x->want);
    free(x->cset);
    free(x->cmem);
    dg_match_destroy(x->match);
    free(x->by_rank);
    free((void *)x->logs);
    free(x);
}
