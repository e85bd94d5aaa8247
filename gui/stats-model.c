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

/* The run of a rank and its calls in it; appends its sites to *all. */
static int rank_stats(const struct search_rank_result *res, struct cv_stats_rank *out, struct site_rank **all,
                      size_t *nall, size_t *call)
{
    const struct dg_mpilog *log = &res->log;
    uint64_t first = UINT64_MAX, last = 0, init_end = 0, fin_start = UINT64_MAX;
    struct call_time *ct = NULL;
    size_t n = 0;
    int rc = TRACE_ERR_NOMEM;

    for (uint32_t i = 0; i < log->n; i++) {
        const struct dg_msgrec *r = &log->rec[i];
        if (!r->t_enter)
            continue;
        if (r->t_enter < first)
            first = r->t_enter;
        if (r->t_exit > last)
            last = r->t_exit;
        if (is_init(r->call) && r->t_exit > init_end)
            init_end = r->t_exit;
        if (r->call == CHT_MPI_FINALIZE && r->t_enter < fin_start)
            fin_start = r->t_enter;
    }
    if (first == UINT64_MAX)
        return 0; /* no call with times */
    uint64_t start = init_end ? init_end : first, end = fin_start != UINT64_MAX ? fin_start : last;
    if (end < start)
        end = start;
    out->run_ns = end - start;

    if (log->n && !(ct = malloc(log->n * sizeof *ct)))
        goto out;
    for (uint32_t i = 0; i < log->n; i++) {
        const struct dg_msgrec *r = &log->rec[i];
        if (i > 0 && r->index == log->rec[i - 1].index)
            continue; /* one event, several records */
        if (!r->t_enter || is_init(r->call) || r->call == CHT_MPI_FINALIZE)
            continue;
        uint64_t a = r->t_enter, z = r->t_exit > a ? r->t_exit : a;
        ct[n++] = (struct call_time){r->site, r->call, z - a};
        /* the rank's MPI time: the part inside its run */
        if (a < start)
            a = start;
        if (z > end)
            z = end;
        if (z > a)
            out->mpi_ns += z - a;
        out->calls++;
    }
    out->comp_ns = out->run_ns > out->mpi_ns ? out->run_ns - out->mpi_ns : 0;

    if (n > 1)
        qsort(ct, n, sizeof *ct, call_time_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        struct site_rank sr;
        memset(&sr, 0, sizeof sr);
        sr.rank = res->rank;
        sr.s.call = ct[i].call;
        for (; j < n && ct[j].site == ct[i].site && ct[j].call == ct[i].call; j++) {
            sr.s.time_ns += ct[j].ns;
            sr.s.calls++;
        }
        const struct trace_site_info *info = search_site_info(res, ct[i].site);
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
        const struct search_rank_result *res = doc->rank ? doc->rank[r] : NULL;
        s->ranks[r].rank = r;
        if (!res)
            continue;
        s->ranks[r].present = true;
        if ((rc = rank_stats(res, &s->ranks[r], &all, &nall, &cap)) < 0)
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
