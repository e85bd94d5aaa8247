/* collectives.c - hand-written point-to-point patterns that one MPI
 * collective would do better (docs/collectives.md): the entry of the
 * search.  It runs the patterns of the table below in its order, each
 * claiming the records of what it finds, then makes one hint of every
 * pattern and set of participating call sites.  The patterns are one file
 * each (collectives-private.h says what they implement); the broadcasts
 * and rounds they are found in, the hint accumulator and the messages are
 * in broadcasts.c, rounds.c, emit.c and message.c.
 *
 * Everything works on the ranks' MPI logs (struct dg_mpilog) and the matched
 * messages (dg_match); the patterns read only the records they can use
 * (candidates.c), in sparse logs (sparse.c), the hints' counts the whole
 * logs.  Hint fields as set here: instances = rounds at the
 * hint's main call site (matched or not), with_window = rounds that match
 * (the collective's instances), members = point-to-point messages (for
 * repeated collectives: the calls), bytes = bytes they carry, comm_ns =
 * time of the calls, saving_ns = the estimated saving (emit.c), root = the
 * root if every instance has the same one, else -1.  File and function
 * strings are borrowed from the ranks' site tables.
 */
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

/* The patterns, in the order they run: each claims the records of what it
 * finds, so an earlier one wins a record two could use.  Hints come in the
 * order of their first instance. */
static const struct coll_pattern *const patterns[] = {
    &coll_repeat,
    /* broadcasts first: their receives would look like gathers into slices */
    &coll_allreduce,
    &coll_allgather,
    &coll_bcast,
    /* then rounds per stream, and per stream and call site for sends of
     * several kinds interleaved on one tag */
    &coll_reduce,
    &coll_alltoall,
    &coll_scatter,
    &coll_gather,
    /* after both: the offset, length, block protocol claims its control
     * messages first */
    &coll_gather_control,
};
#define NPATTERNS (sizeof patterns / sizeof *patterns)

/* ---- running the patterns ------------------------------------------------------------------ */

/* Patterns of one stage read the same input. */
static int stage_of(enum coll_input in)
{
    return in == COLL_IN_EACH_ROUND ? COLL_IN_ROUNDS : (int)in;
}

/* Runs patterns[a, b) on src: a run of COLL_IN_EACH_ROUND patterns in one
 * pass over the rounds, each round to each pattern in turn. */
static int run_patterns(struct cx *c, size_t a, size_t b, struct coll_in *src)
{
    int rc = 0;
    for (size_t i = a, j; i < b && rc >= 0; i = j) {
        j = i + 1;
        if (patterns[i]->input != COLL_IN_EACH_ROUND) {
            rc = patterns[i]->find(c, src);
            continue;
        }
        while (j < b && patterns[j]->input == COLL_IN_EACH_ROUND)
            j++;
        for (uint32_t r = 0; r < src->rs->n && rc >= 0; r++) {
            src->ro = &src->rs->v[r];
            for (size_t k = i; k < j && rc >= 0; k++)
                rc = patterns[k]->find(c, src);
        }
        src->ro = NULL;
    }
    return rc;
}

/* Builds the input of the stage patterns[a, b), runs it, frees it. */
static int run_stage(struct cx *c, size_t a, size_t b)
{
    struct bcasts bc = {0};
    struct rounds rs = {0};
    struct coll_in src = {&bc, &rs, NULL};
    int rc = 0;
    switch (stage_of(patterns[a]->input)) {
    case COLL_IN_CALLS: rc = run_patterns(c, a, b, &src); break;
    case COLL_IN_BCASTS:
        if ((rc = coll_bcasts_build(c, &bc)) >= 0 && (rc = coll_rounds_build(c, false, &rs)) >= 0 &&
            (rc = coll_rounds_classify(c, &rs)) >= 0)
            rc = run_patterns(c, a, b, &src);
        break;
    case COLL_IN_ROUNDS:
        for (int by_site = 0; by_site < 2 && rc >= 0; by_site++) {
            if ((rc = coll_rounds_build(c, by_site, &rs)) >= 0 && (rc = coll_rounds_classify(c, &rs)) >= 0)
                rc = run_patterns(c, a, b, &src);
            coll_rounds_free(&rs, c->P);
        }
        break;
    }
    coll_rounds_free(&rs, c->P);
    coll_bcasts_free(&bc);
    return rc;
}

/* ---- hints --------------------------------------------------------------------------------- */

/* The call site a hint points at: the root's first call of the pattern's
 * main kind; else the first of that kind. */
static void choose_primary(struct hacc *h)
{
    unsigned want = h->pat->main_call;
    h->primary = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < h->nlocs; i++)
            if ((h->locs[i].mask & want) && (pass || (h->locs[i].mask & LM_ROOT))) {
                h->primary = i;
                return;
            }
}

/* Records at each hint call site, over all ranks (each MPI event once):
 * from the records per call site that came with the sparse logs, or
 * counted here in the whole logs. */
static int count_totals(struct cx *c, uint64_t **totals)
{
    const struct coll_sparse *sp = c->x->csparse;
    for (int r = 0; r < c->P; r++) {
        struct coll_sitecount *mine = NULL, *sc = sp && sp->sites[r] ? sp->sites[r] : NULL;
        uint32_t n = sc ? sp->nsites[r] : 0;
        if (!sc && c->x->logs[r] && coll_site_counts(c->x->logs[r], &mine, &n) < 0)
            return TRACE_ERR_NOMEM;
        for (uint32_t s = 0; s < n; s++) {
            const struct coll_sitecount *e = sc ? &sc[s] : &mine[s];
            struct loc l;
            coll_loc_of(c, r, e->site, &l);
            for (uint32_t j = 0; j < c->nh; j++)
                for (uint32_t k = 0; k < c->h[j].nlocs; k++)
                    if (!coll_loc_cmp(&l, &c->h[j].locs[k].loc))
                        totals[j][k] += e->n;
        }
        free(mine);
    }
    return 0;
}

/* The related lines of a hint: its call sites but the main one. */
static void hint_related(const struct hacc *h, const uint64_t *totals, struct search_hint *sh)
{
    for (uint32_t i = 0; i < h->nlocs; i++) {
        if (i == h->primary)
            continue;
        const struct iloc *l = &h->locs[i];
        struct search_related *rl = &sh->related[sh->nrelated++];
        memset(rl, 0, sizeof *rl);
        rl->file = l->loc.file;
        rl->func = l->loc.func;
        rl->line = l->loc.line;
        rl->col = l->loc.col;
        rl->role = (l->mask & LM_COLL)   ? SEARCH_REL_COLL
                   : (l->mask & LM_SEND) ? SEARCH_REL_SEND
                                         : SEARCH_REL_RECV;
        rl->events = l->events;
        rl->total = totals[i] > l->events ? totals[i] : l->events;
    }
}

static int build_hint(struct cx *c, struct hacc *h, const uint64_t *totals, int nanalysed,
                      struct search_hint *sh)
{
    memset(sh, 0, sizeof *sh);
    const struct iloc *pl = &h->locs[h->primary];
    sh->kind = SEARCH_HINT_COLLECTIVE;
    sh->call = pl->call;
    sh->file = pl->loc.file;
    sh->func = pl->loc.func;
    sh->line = pl->loc.line;
    sh->col = pl->loc.col;
    sh->ctx = pl->loc.ctx;
    int nr = coll_set_count(h->ranks, c->P);
    sh->ranks = malloc((nr ? (size_t)nr : 1) * sizeof *sh->ranks);
    sh->related = malloc((h->nlocs ? h->nlocs : 1) * sizeof *sh->related);
    if (!sh->ranks || !sh->related)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < c->P; r++)
        if (h->ranks[r])
            sh->ranks[sh->nranks++] = r;
    hint_related(h, totals, sh);
    int roots = coll_set_count(h->roots, c->P);
    sh->root = -1;
    for (int r = 0; roots == 1 && r < c->P; r++)
        if (h->roots[r])
            sh->root = r;
    sh->collective = coll_collective_name(h, pl->call);
    sh->comm_ns = h->comm_ns;
    sh->saving_ns = h->saving_ns;
    sh->with_window = h->matched;
    sh->instances = h->matched + h->unmatched_rounds;
    sh->members = h->members;
    sh->bytes = h->bytes;
    if (sh->instances > sh->with_window)
        sh->flags |= SEARCH_HINT_SOME_ITERATIONS;
    if (sh->nranks < nanalysed)
        sh->flags |= SEARCH_HINT_SOME_RANKS;
    if (!(sh->message = coll_hint_message(h, sh, c->P)))
        return TRACE_ERR_NOMEM;
    if (h->pat->fix) {
        struct search_text b = {0};
        h->pat->fix(&b, h, sh);
        if (!(sh->coll_fix = search_text_take(&b)))
            return TRACE_ERR_NOMEM;
        /* a repeated collective's calls may be in a loop that runs more
         * of them than a chain holds: no loop is named */
        sh->coll_loop = h->pat->mpi ? coll_fix_loop(h) : NULL;
    }
    if (!h->unpredicted) { /* the hint takes the changes */
        sh->changes = h->ch;
        sh->nchanges = h->nch;
        h->ch = NULL;
        h->nch = h->capch = 0;
    }
    return 0;
}

/* The hints of everything emitted, in the order of their first instance. */
static int build_hints(struct cx *c, struct search_hint **out, uint32_t *nout)
{
    uint64_t **totals = NULL;
    struct search_hint *hints = NULL;
    uint32_t nhints = 0;
    int rc = TRACE_ERR_NOMEM;
    totals = calloc(c->nh ? c->nh : 1, sizeof *totals);
    if (!totals)
        goto out;
    for (uint32_t i = 0; i < c->nh; i++)
        if (!(totals[i] = calloc(c->h[i].nlocs ? c->h[i].nlocs : 1, sizeof **totals)))
            goto out;
    if ((rc = count_totals(c, totals)) < 0)
        goto out;
    int nanalysed = 0;
    for (int r = 0; r < c->P; r++)
        nanalysed += c->logs[r] != NULL;
    rc = TRACE_ERR_NOMEM;
    hints = calloc(c->nh ? c->nh : 1, sizeof *hints);
    if (!hints)
        goto out;
    for (uint32_t i = 0; i < c->nh; i++, nhints++)
        if ((rc = build_hint(c, &c->h[i], totals[i], nanalysed, &hints[i])) < 0) {
            nhints++;
            goto out;
        }
    *out = hints;
    *nout = nhints;
    hints = NULL;
    nhints = 0;
    rc = 0;
out:
    for (uint32_t i = 0; i < nhints; i++)
        search_hint_clear(&hints[i]);
    free(hints);
    if (totals)
        for (uint32_t i = 0; i < c->nh; i++)
            free(totals[i]);
    free(totals);
    return rc;
}

/* ---- the search ---------------------------------------------------------------------------- */

int search_collectives(const struct search_xrank *x, struct search_hint **out, uint32_t *nout)
{
    return search_collectives_explain(x, out, nout, NULL, NULL);
}

int search_collectives_explain(const struct search_xrank *x, struct search_hint **out, uint32_t *nout,
                               struct search_hint **dropped, uint32_t *ndropped)
{
    struct cx c;
    struct coll_sparse sp = {0};
    bool sparse = false;
    int rc;
    if (!out || !nout || !x || (dropped && !ndropped))
        return TRACE_ERR_ARG;
    *out = NULL;
    *nout = 0;
    if (dropped) {
        *dropped = NULL;
        *ndropped = 0;
    }
    if (!x->match || !x->logs || x->world_size <= 0)
        return 0;
    /* the fastest calls of the whole run (coll_cx_init); then the
     * patterns read the sparse logs, the hints' counts the whole ones */
    if ((rc = coll_cx_init(&c, x)) < 0 ||
        (rc = coll_candidates_sparse(&c, &sp, &sparse)) < 0 ||
        (sparse && (rc = coll_cx_sparse(&c, x->csparse ? x->csparse : &sp)) < 0))
        goto out;
    for (size_t a = 0, b; a < NPATTERNS; a = b) {
        for (b = a + 1; b < NPATTERNS && stage_of(patterns[b]->input) == stage_of(patterns[a]->input); b++)
            ;
        if ((rc = run_stage(&c, a, b)) < 0)
            goto out;
    }
    /* the hints' main call sites, and the rounds left there (counts.c,
     * where the whole logs are) */
    for (uint32_t i = 0; i < c.nh; i++)
        choose_primary(&c.h[i]);
    if ((rc = coll_count_unmatched(&c)) < 0)
        goto out;
    if ((rc = build_hints(&c, out, nout)) >= 0 && dropped &&
        (rc = coll_rejects_hints(&c, dropped, ndropped)) >= 0 &&
        (rc = coll_repeat_rejects_hints(&c, dropped, ndropped)) >= 0)
        rc = coll_two_ranks_hints(&c, dropped, ndropped);
out:
    coll_cx_free(&c);
    coll_sparse_free(&sp);
    return rc;
}
