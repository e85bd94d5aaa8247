/* xrank.c - the cross-rank context of search_report_build: the ranks'
 * results by world rank, their MPI logs matched (dg_match), the
 * happens-before order of the pairs deadlock.c asks about (dg_hb), whether
 * the recorded run replays without a stall (dg_stall_check: the base of the deadlock checks of
 * deadlock.c) and the ranks on one clock (clocks.c). */
#include <stdlib.h>

#include "search-private.h"

int search_xrank_build(struct search_rank_result *const *ranks, int n, int world_size,
                       struct search_xrank **out)
{
    struct search_xrank *x = calloc(1, sizeof *x);
    if (!x)
        return TRACE_ERR_NOMEM;
    int P = world_size;
    for (int i = 0; i < n; i++)
        if (ranks[i] && ranks[i]->rank >= P)
            P = ranks[i]->rank + 1;
    x->world_size = P;
    x->ranks = ranks;
    x->n = n;
    x->by_rank = calloc(P ? P : 1, sizeof *x->by_rank);
    x->logs = calloc(P ? P : 1, sizeof *x->logs);
    if (!x->by_rank || !x->logs)
        goto nomem;
    for (int i = 0; i < n; i++) {
        if (!ranks[i] || ranks[i]->rank < 0)
            continue;
        x->by_rank[ranks[i]->rank] = ranks[i];
        x->logs[ranks[i]->rank] = &ranks[i]->log;
    }
    int rc = dg_match_build(x->logs, P, &x->match);
    if (rc == 0)
        rc = search_clocks_build(x->logs, P, &x->clocks);
    if (rc < 0) {
        search_xrank_destroy(x);
        return rc;
    }
    /* happens-before, for the pairs the deadlock checks ask about */
    struct dg_hb_query *q = NULL;
    size_t nq = 0;
    if ((rc = search_deadlock_queries(x, &q, &nq)) == 0)
        rc = dg_hb_build(x->logs, P, x->match, q, nq, &x->hb);
    free(q);
    if (rc < 0) {
        search_xrank_destroy(x);
        return rc;
    }
    /* the aggregation checks judge changed runs against this one */
    bool checks = false;
    for (int i = 0; i < n; i++)
        checks |= ranks[i] && ranks[i]->nchecks;
    if (checks && (rc = dg_stall_check(x->logs, P, x->match, NULL, NULL, NULL, &x->stalls)) < 0) {
        search_xrank_destroy(x);
        return rc;
    }
    *out = x;
    return 0;
nomem:
    search_xrank_destroy(x);
    return TRACE_ERR_NOMEM;
}

void search_xrank_destroy(struct search_xrank *x)
{
    if (!x)
        return;
    search_clocks_free(&x->clocks);
    dg_hb_destroy(x->hb);
    dg_match_destroy(x->match);
    free(x->by_rank);
    free((void *)x->logs);
    free(x);
}
