/* stats-model.c - time per MPI call site and per rank, for the statistics
 * pane (stats-model.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats-model.h"

/* One call: its site id on its rank. */
struct call_time {
    uint32_t site;
    uint16_t call;
    uint64_t ns;
    const struct trace_site_info *info;
};

/* One site of one rank, resolved to its location. */
struct site_rank {
    struct cv_stats_site s;
    int rank;
};

static bool is_init(int call)
{
    return call == CHT_MPI_INIT || call == CHT_MPI_INIT_THREAD;
}

static int call_time_cmp(const void *pa, const void *pb)
{
    const struct call_time *a = pa, *b = pb;
    if (a->site != b->site)
        return a->site < b->site ? -1 : 1;
    return (int)a->call - (int)b->call;
}

static int loc_cmp(const struct cv_stats_site *a, const struct cv_stats_site *b)
{
    if (a->call != b->call)
        return (int)a->call - (int)b->call;
    int c = strcmp(a->file, b->file);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    if (a->col != b->col)
        return a->col < b->col ? -1 : 1;
    return 0;
}

static int site_rank_cmp(const void *pa, const void *pb)
{
    const struct site_rank *a = pa, *b = pb;
    int c = loc_cmp(&a->s, &b->s);
    if (c)
        return c;
    return a->rank - b->rank;
}

static int site_time_cmp(const void *pa, const void *pb)
{
    const struct cv_stats_site *a = pa, *b = pb;
    if (a->time_ns != b->time_ns)
        return a->time_ns > b->time_ns ? -1 : 1;
    return loc_cmp(a, b);
}

/* The run of a rank (the analysis' search_rank_run) and its calls in it;
 * appends its sites to *all. */
static int rank_stats(const struct search_analysis *an, int rank, struct cv_stats_rank *out,
                      struct site_rank **all, size_t *nall, size_t *call)
{
    uint32_t ncalls = search_analysis_ncalls(an, rank);
    struct call_time *ct = NULL;
    struct search_rank_run run;
    size_t n = 0;
    int rc = TRACE_ERR_NOMEM;

    search_analysis_rank_run(an, rank, &run);
    if (!run.timed)
        return 0; /* no call with times */
    out->run_ns = run.run_ns;
    out->mpi_ns = run.mpi_ns;
    out->comp_ns = run.comp_ns;
    out->calls = run.calls;

    if (ncalls && !(ct = malloc(ncalls * sizeof *ct)))
        goto out;
    for (uint32_t i = 0; i < ncalls; i++) {
        const struct search_call *c = search_analysis_call(an, rank, i);
        if (!c->timed || is_init(c->call) || c->call == CHT_MPI_FINALIZE)
            continue;
        ct[n++] = (struct call_time){c->site, c->call, c->t_exit - c->t_enter, c->info};
    }

    if (n > 1)
        qsort(ct, n, sizeof *ct, call_time_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        struct site_rank sr;
        memset(&sr, 0, sizeof sr);
        sr.rank = rank;
        sr.s.call = ct[i].call;
        for (; j < n && ct[j].site == ct[i].site && ct[j].call == ct[i].call; j++) {
            sr.s.time_ns += ct[j].ns;
            sr.s.calls++;
        }
        const struct trace_site_info *info = ct[i].info;
        sr.s.file = info && info->file ? info->file : "";
        sr.s.func = info && info->func ? info->func : "";
        sr.s.line = info ? info->line : 0;
        sr.s.col = info ? info->col : 0;
        if (*nall == *call) {
            size_t cap = *call ? 2 * *call : 64;
            struct site_rank *p = realloc(*all, cap * sizeof *p);
            if (!p)
                goto out;
            *all = p;
            *call = cap;
        }
        (*all)[(*nall)++] = sr;
        i = j;
    }
    rc = 0;
out:
    free(ct);
    return rc;
}

int cv_stats_model_build(const struct cv_document *doc, struct cv_stats_model **out)
{
    struct cv_stats_model *s = NULL;
    struct site_rank *all = NULL;
    size_t nall = 0, cap = 0;
    int rc = TRACE_ERR_NOMEM;

    if (!out)
        return TRACE_ERR_ARG;
    *out = NULL;
    if (!doc || doc->world_size < 0)
        return TRACE_ERR_ARG;
    if (!(s = calloc(1, sizeof *s)))
        goto fail;
    s->nranks = doc->world_size;
    if (s->nranks && !(s->ranks = calloc((size_t)s->nranks, sizeof *s->ranks)))
        goto fail;
    for (int r = 0; r < s->nranks; r++) {
        s->ranks[r].rank = r;
        if (!search_analysis_rank(doc->analysis, r))
            continue;
        s->ranks[r].present = true;
        if ((rc = rank_stats(doc->analysis, r, &s->ranks[r], &all, &nall, &cap)) < 0)
            goto fail;
        s->run_ns += s->ranks[r].run_ns;
        if (s->ranks[r].run_ns > s->max_run_ns)
            s->max_run_ns = s->ranks[r].run_ns;
    }

    /* merge the ranks' sites by location */
    rc = TRACE_ERR_NOMEM;
    if (nall > 1)
        qsort(all, nall, sizeof *all, site_rank_cmp);
    if (nall && !(s->sites = malloc(nall * sizeof *s->sites)))
        goto fail;
    for (size_t i = 0; i < nall;) {
        struct cv_stats_site m = all[i].s;
        m.time_ns = m.calls = m.max_rank_ns = 0;
        m.nranks = 0;
        size_t j = i;
        while (j < nall && !loc_cmp(&all[j].s, &all[i].s)) {
            /* one rank may have several site ids at one location */
            uint64_t rank_ns = 0;
            int rank = all[j].rank;
            for (; j < nall && !loc_cmp(&all[j].s, &all[i].s) && all[j].rank == rank; j++) {
                rank_ns += all[j].s.time_ns;
                m.calls += all[j].s.calls;
            }
            m.time_ns += rank_ns;
            if (rank_ns > m.max_rank_ns)
                m.max_rank_ns = rank_ns;
            m.nranks++;
        }
        s->sites[s->nsites++] = m;
        s->mpi_ns += m.time_ns;
        i = j;
    }
    if (s->nsites > 1)
        qsort(s->sites, s->nsites, sizeof *s->sites, site_time_cmp);
    free(all);
    *out = s;
    return 0;

fail:
    free(all);
    cv_stats_model_free(s);
    return rc < 0 ? rc : TRACE_ERR_NOMEM;
}

void cv_stats_model_free(struct cv_stats_model *s)
{
    if (!s)
        return;
    free(s->sites);
    free(s->ranks);
    free(s);
}

char *cv_stats_site_label(const struct cv_stats_site *s, char *buf, size_t size)
{
    const char *base = s->file ? strrchr(s->file, '/') : NULL;
    base = base ? base + 1 : s->file;
    if (base && *base && s->line)
        snprintf(buf, size, "%s %s:%u", trace_mpi_call_name(s->call), base, s->line);
    else
        snprintf(buf, size, "%s (unknown site)", trace_mpi_call_name(s->call));
    return buf;
}
