/* report.c - merging the per-rank results of the searches into hints, ranked
 * by estimated saving (docs/dependence.md, "From ranks to hints").
 *
 * Overlap results merge by the source location of the call (file, line,
 * column, function); aggregation groups by the set of their member sends'
 * locations and the communicator (the destination is relative to the rank,
 * so it is not part of the key).  Counts are summed over ranks, times and
 * savings are the largest of any rank (ranks run at the same time: the job
 * gains what its slowest rank gains).
 *
 * Decisions beyond the document:
 *   - a call site present on a rank without any window does not count for
 *     that rank (it is not in the hint's ranks, its counts are not summed);
 *   - the statements of an overlap hint merge into one related line per
 *     (file, line): its role is AFTER if some merged statement was in a
 *     forward window, else BEFORE; its column and function are those of the
 *     merged statement with the smallest column; events and totals are
 *     summed, the time is summed per rank and the largest rank's is kept;
 *     the iterations are those of the lowest rank's statement with the
 *     smallest column;
 *   - statements without a site info, a file or a line (code without a
 *     debug location) are left out, and an overlap hint without any related
 *     line is dropped (it names nothing to move);
 *   - aggregation: the location is the first member site of the lowest
 *     rank's group (lowest destination first); the other member sites are
 *     related lines with role MEMBER, without counts (events, total, time 0);
 *     the call is the one the rank's overlap results give for that site
 *     (every blocking send is an overlap candidate), else MPI_Send; the hint
 *     is conditional if any member site is;
 *   - "some ranks" compares a hint's ranks with the ranks analysed (the
 *     non-NULL results), not with world_size: a rank that could not be read
 *     does not make every hint partial;
 *   - results of several entries of one rank with the same key (the same
 *     location reached through two site ids, or groups to several
 *     destinations) are added up for that rank before the maximum is taken.
 *
 * Everything a report holds is owned by it, except the file and function
 * strings, which point into the trace's site tables (valid until
 * trace_close) or to static "".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

static const char *nz(const char *s)
{
    return s ? s : "";
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

/* ---- locations ------------------------------------------------------------------ */

/* A source location as a merge key.  Sites without info are keyed by their
 * id (site is CHT_NONE for every site that has info). */
struct loc {
    const char *file, *func;
    uint32_t line, col;
    uint32_t site;
};

static void loc_of(const struct trace_site_info *info, uint32_t site, struct loc *l)
{
    if (info) {
        l->file = nz(info->file);
        l->func = nz(info->func);
        l->line = info->line;
        l->col = info->col;
        l->site = CHT_NONE;
    } else {
        l->file = l->func = "";
        l->line = l->col = 0;
        l->site = site;
    }
}

/* file, line, column, site id; with func, the function too. */
static int loc_cmp(const struct loc *a, const struct loc *b, bool func)
{
    int c = strcmp(a->file, b->file);
    if (c)
        return c;
    if ((c = cmp_u64(a->line, b->line)) || (c = cmp_u64(a->col, b->col)) || (c = cmp_u64(a->site, b->site)))
        return c;
    return func ? strcmp(a->func, b->func) : 0;
}

/* ---- iteration boxes ---------------------------------------------------------------- */

static int boxes_copy(struct search_boxes *dst, const struct search_boxes *src)
{
    memset(dst, 0, sizeof *dst);
    dst->more = src->more;
    if (!src->n)
        return 0;
    dst->box = malloc(src->n * sizeof *dst->box);
    if (!dst->box)
        return TRACE_ERR_NOMEM;
    memcpy(dst->box, src->box, src->n * sizeof *dst->box);
    dst->n = dst->cap = src->n;
    return 0;
}

/* ---- message text ------------------------------------------------------------------ */

/* Sorted integers as "0-3", "0, 2", "1-2, 5". */
static void sb_ranges(struct search_text *b, const uint32_t *v, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        if (j > i)
            search_text_printf(b, "%s%u-%u", i ? ", " : "", v[i], v[j]);
        else
            search_text_printf(b, "%s%u", i ? ", " : "", v[i]);
        i = j + 1;
    }
}

static void sb_ranks(struct search_text *b, const int *ranks, int n)
{
    uint32_t *v = malloc((n ? (size_t)n : 1) * sizeof *v);
    if (!v) {
        b->failed = true;
        return;
    }
    for (int i = 0; i < n; i++)
        v[i] = (uint32_t)ranks[i];
    search_text_printf(b, n == 1 ? "rank " : "ranks ");
    sb_ranges(b, v, (size_t)n);
    free(v);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

struct fline {
    const char *file;
    uint32_t line;
    bool other; /* not the hint's file */
};

static int fline_cmp(const void *pa, const void *pb)
{
    const struct fline *a = pa, *b = pb;
    int c;
    if (a->other != b->other)
        return a->other ? 1 : -1;
    if ((c = strcmp(a->file, b->file)))
        return c;
    return cmp_u64(a->line, b->line);
}

/* The lines of the related statements (and, with self, the hint's own
 * line): "line 27", "lines 27-28, 40", lines of other files as
 * "util.c:12-14" (base name: the message is shown next to the hint's
 * location, and must not hold absolute paths). */
static void sb_lines(struct search_text *b, const struct search_hint *h, bool self)
{
    size_t n = 0;
    struct fline *v = malloc((h->nrelated + 1) * sizeof *v);
    if (!v) {
        b->failed = true;
        return;
    }
    if (self)
        v[n++] = (struct fline){nz(h->file), h->line, false};
    for (uint32_t i = 0; i < h->nrelated; i++) {
        const char *f = nz(h->related[i].file);
        v[n++] = (struct fline){f, h->related[i].line, strcmp(f, nz(h->file)) != 0};
    }
    qsort(v, n, sizeof *v, fline_cmp);
    uint32_t *lines = malloc((n ? n : 1) * sizeof *lines);
    if (!lines) {
        free(v);
        b->failed = true;
        return;
    }
    size_t nown = 0;
    for (size_t i = 0; i < n && !v[i].other; i++)
        if (!nown || lines[nown - 1] != v[i].line)
            lines[nown++] = v[i].line;
    if (nown) {
        search_text_printf(b, nown == 1 ? "line " : "lines ");
        sb_ranges(b, lines, nown);
    }
    /* Other files, each as a run of ranges. */
    bool first = nown == 0;
    for (size_t i = 0; i < n;) {
        if (!v[i].other) {
            i++;
            continue;
        }
        size_t j = i;
        while (j + 1 < n && !strcmp(v[j + 1].file, v[i].file))
            j++;
        for (size_t k = i; k <= j;) {
            size_t e = k;
            while (e + 1 <= j && (v[e + 1].line == v[e].line || v[e + 1].line == v[e].line + 1))
                e++;
            if (v[e].line != v[k].line)
                search_text_printf(b, "%s%s:%u-%u", first ? "" : ", ", base_name(v[k].file), v[k].line, v[e].line);
            else
                search_text_printf(b, "%s%s:%u", first ? "" : ", ", base_name(v[k].file), v[k].line);
            first = false;
            k = e + 1;
        }
        i = j + 1;
    }
    free(lines);
    free(v);
}

/* Average sends per group: "3", "2.5". */
static void sb_avg(struct search_text *b, uint64_t members, uint64_t groups)
{
    if (groups && members % groups == 0)
        search_text_printf(b, "%" PRIu64, members / groups);
    else
        search_text_printf(b, "%.1f", groups ? (double)members / (double)groups : 0.0);
}

/* The one-sentence message of a hint (without its location), as stored in
 * search_hint.message; without times (with_times false) for outputs that
 * are compared across runs.  Returns a string the caller frees, or NULL if
 * out of memory.
 *   overlap:   "MPI_Recv can overlap with the computation at lines 27-28
 *               (ranks 0-3, est. saving 1.2 ms = 38% of its time)"
 *   aggregate: "3 MPI_Send calls to the same rank at lines 40, 42, 44 can
 *               be sent as one message (ranks 0-3, 150 groups, est. saving
 *               400 us)"; when the groups are not one send of each site
 *               "MPI_Send calls to the same rank at lines 133-134, 5 per
 *               group, can be ..." ("consecutive MPI_Send calls" for one
 *               site, "2.5 per group on average" when sizes vary). */

char *search_hint_message(const struct search_hint *h, bool with_times)
{
    struct search_text b = {0};
    const char *call = trace_mpi_call_name(h->call);

    if (h->kind == SEARCH_HINT_COLLECTIVE && h->message)
        return search_collective_message(h, with_times);

    if (h->kind == SEARCH_HINT_AGGREGATE) {
        uint64_t nsites = (uint64_t)h->nrelated + 1;
        bool one_each = h->members == h->instances * nsites;
        if (one_each && nsites > 1)
            search_text_printf(&b, "%" PRIu64 " %s calls to the same rank at ", nsites, call);
        else
            search_text_printf(&b, "%s%s calls to the same rank at ", nsites > 1 ? "" : "consecutive ", call);
        sb_lines(&b, h, true);
        if (!one_each) {
            search_text_printf(&b, ", ");
            sb_avg(&b, h->members, h->instances);
            search_text_printf(&b, " per group%s,", h->instances && h->members % h->instances ? " on average" : "");
        }
        search_text_printf(&b, " can be sent as one message (");
        sb_ranks(&b, h->ranks, h->nranks);
        search_text_printf(&b, ", %" PRIu64 " group%s", h->instances, h->instances == 1 ? "" : "s");
        if (with_times) {
            search_text_printf(&b, ", est. saving ");
            search_text_time(&b, h->saving_ns);
        }
        search_text_printf(&b, ")");
    } else if (h->kind == SEARCH_HINT_COLLECTIVE) {
        search_text_printf(&b, "the %s calls at ", call);
        sb_lines(&b, h, true);
        search_text_printf(&b, " can be one %s (", h->collective ? h->collective : "collective call");
        sb_ranks(&b, h->ranks, h->nranks);
        if (with_times) {
            search_text_printf(&b, ", est. saving ");
            search_text_time(&b, h->saving_ns);
        }
        search_text_printf(&b, ")");
    } else {
        search_text_printf(&b, "%s can overlap with the computation at ", call);
        sb_lines(&b, h, false);
        search_text_printf(&b, " (");
        sb_ranks(&b, h->ranks, h->nranks);
        if (with_times) {
            uint64_t mine = h->saving_ns - (h->partner_ns < h->saving_ns ? h->partner_ns : h->saving_ns);
            search_text_printf(&b, ", est. saving ");
            search_text_time(&b, h->saving_ns);
            if (h->partner_ns) {
                search_text_printf(&b, ": ");
                if (mine) {
                    search_text_time(&b, mine);
                    if (h->comm_ns)
                        search_text_printf(&b, " = %.0f%% of its time, ", 100.0 * (double)mine / (double)h->comm_ns);
                    else
                        search_text_printf(&b, " of its time, ");
                }
                search_text_time(&b, h->partner_ns);
                search_text_printf(&b, " less waiting for it on other ranks");
            } else if (h->comm_ns) {
                search_text_printf(&b, " = %.0f%% of its time", 100.0 * (double)h->saving_ns / (double)h->comm_ns);
            }
        }
        search_text_printf(&b, ")");
    }
    return search_text_take(&b);
}

/* ---- hints ------------------------------------------------------------------------ */

void search_hint_clear(struct search_hint *h)
{
    free(h->ranks);
    free(h->explain);
    for (uint32_t i = 0; i < h->nrelated; i++)
        search_boxes_free(&h->related[i].iters);
    free(h->related);
    free(h->by_rank);
    search_boxes_free(&h->iters);
    free(h->message);
    memset(h, 0, sizeof *h);
}

/* A growing array of hints. */
struct hints {
    struct search_hint *v;
    uint32_t n, cap;
};

static struct search_hint *hints_push(struct hints *hs)
{
    if (hs->n == hs->cap) {
        uint32_t cap = hs->cap ? hs->cap * 2 : 16;
        struct search_hint *v = realloc(hs->v, cap * sizeof *v);
        if (!v)
            return NULL;
        hs->v = v;
        hs->cap = cap;
    }
    struct search_hint *h = &hs->v[hs->n++];
    memset(h, 0, sizeof *h);
    return h;
}

/* Collects the distinct ranks of entries [i, j) (sorted by rank within a
 * key) into h->ranks. */
#define COLLECT_RANKS(h, ents, i, j)                                                                         \
    do {                                                                                                     \
        (h)->ranks = malloc(((j) - (i)) * sizeof *(h)->ranks);                                               \
        if (!(h)->ranks)                                                                                     \
            goto nomem;                                                                                      \
        for (size_t k_ = (i); k_ < (j); k_++)                                                                \
            if (!(h)->nranks || (h)->ranks[(h)->nranks - 1] != (ents)[k_].rank)                              \
                (h)->ranks[(h)->nranks++] = (ents)[k_].rank;                                                 \
    } while (0)

/* ---- overlap ---------------------------------------------------------------------- */

struct ov_ent {
    struct loc key;
    int rank;
    const struct search_rank_result *res;
    const struct search_overlap *ov;
};

static int ov_ent_cmp(const void *pa, const void *pb)
{
    const struct ov_ent *a = pa, *b = pb;
    int c = loc_cmp(&a->key, &b->key, true);
    if (c)
        return c;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return cmp_u64(a->ov->site, b->ov->site);
}

struct st_ent {
    const char *file;
    uint32_t line;
    int rank;
    const struct search_stmt *st;
};

static int st_ent_cmp(const void *pa, const void *pb)
{
    const struct st_ent *a = pa, *b = pb;
    int c = strcmp(a->file, b->file);
    if (c || (c = cmp_u64(a->line, b->line)))
        return c;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if ((c = cmp_u64(a->st->info->col, b->st->info->col)))
        return c;
    return cmp_u64(a->st->site, b->st->site);
}

static int related_cmp(const void *pa, const void *pb)
{
    const struct search_related *a = pa, *b = pb;
    int c = strcmp(nz(a->file), nz(b->file));
    if (c || (c = cmp_u64(a->line, b->line)) || (c = cmp_u64(a->col, b->col)))
        return c;
    return a->role - b->role;
}

/* The related lines of the overlap entries [i, j) into h.  Returns 0 or
 * TRACE_ERR_NOMEM. */
static int overlap_related(struct search_hint *h, const struct ov_ent *e, size_t i, size_t j)
{
    size_t n = 0, cap = 0;
    struct st_ent *v = NULL;
    int rc = 0;

    for (size_t k = i; k < j; k++)
        cap += e[k].ov->nstmts;
    if (!cap)
        return 0;
    v = malloc(cap * sizeof *v);
    if (!v)
        return TRACE_ERR_NOMEM;
    for (size_t k = i; k < j; k++)
        for (uint32_t s = 0; s < e[k].ov->nstmts; s++) {
            const struct search_stmt *st = &e[k].ov->stmts[s];
            if (!st->info || !st->info->file || !st->info->file[0] || !st->info->line)
                continue;
            v[n++] = (struct st_ent){st->info->file, st->info->line, e[k].rank, st};
        }
    if (!n)
        goto out;
    qsort(v, n, sizeof *v, st_ent_cmp);
    h->related = calloc(n, sizeof *h->related);
    if (!h->related) {
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b + 1 < n && !strcmp(v[b + 1].file, v[a].file) && v[b + 1].line == v[a].line)
            b++;
        struct search_related *r = &h->related[h->nrelated++];
        const struct search_stmt *best = v[a].st;
        uint64_t rank_time = 0;
        bool after = false;
        r->file = v[a].file;
        r->line = v[a].line;
        for (size_t k = a; k <= b; k++) {
            const struct search_stmt *st = v[k].st;
            if (st->info->col < best->info->col)
                best = st;
            after |= (st->flags & SEARCH_STMT_AFTER) != 0;
            r->events += st->events;
            r->total += st->total;
            r->conditional |= (st->site_flags & CHT_SITEF_CONDITIONAL) != 0;
            rank_time += st->time_ns;
            if (k == b || v[k + 1].rank != v[k].rank) {
                if (rank_time > r->time_ns)
                    r->time_ns = rank_time;
                rank_time = 0;
            }
        }
        r->col = best->info->col;
        r->func = nz(best->info->func);
        r->role = after ? SEARCH_REL_AFTER : SEARCH_REL_BEFORE;
        /* v[a] is the lowest rank's statement with the smallest column. */
        if ((rc = boxes_copy(&r->iters, &v[a].st->iters)) < 0)
            goto out;
        a = b + 1;
    }
    qsort(h->related, h->nrelated, sizeof *h->related, related_cmp);
out:
    free(v);
    return rc;
}

/* Ranks on which the call at l ran at all (an overlap entry with
 * instances): "some ranks" is relative to them, so that a call only the
 * even ranks make is not flagged for holding on the even ranks only. */
static int ranks_running(struct search_rank_result *const *ranks, int n, const struct loc *l)
{
    int count = 0;
    for (int r = 0; r < n; r++) {
        if (!ranks[r])
            continue;
        for (uint32_t k = 0; k < ranks[r]->noverlaps; k++) {
            const struct search_overlap *ov = &ranks[r]->overlaps[k];
            struct loc x;
            loc_of(ov->info, ov->site, &x);
            if (ov->instances && !loc_cmp(&x, l, false)) {
                count++;
                break;
            }
        }
    }
    return count;
}

/* Shorter waits of other ranks for the calls of one overlap entry of rank
 * r whose start can move earlier (docs/dependence.md, "Estimated saving"):
 * for each lead, the matched receive of a send waited min(late sender, lead)
 * less; the matched blocking send of a receive, min(late receiver, lead)
 * less (as search_waitstates measures them).  Added to partner[rank of the
 * waiting call].  cm: the ranks' clock maps (clocks aligned). */
static void partner_waits(const struct search_xrank *x, const struct dg_clockmap *cm, int r,
                          const struct search_overlap *ov, uint64_t *partner)
{
    const struct dg_mpilog *log = r >= 0 && r < x->world_size ? x->logs[r] : NULL;
    if (!log || !x->match)
        return;
    for (uint32_t k = 0; k < ov->nleads; k++) {
        const struct search_lead *l = &ov->leads[k];
        for (uint32_t p = dg_mpilog_find(log, l->index); p < log->n && log->rec[p].index == l->index; p++) {
            const struct dg_msgrec *a = &log->rec[p];
            bool send = a->kind == DG_MSG_SEND && !(a->flags & DG_MSGF_NONBLOCKING);
            bool recv = a->kind == DG_MSG_RECV && (a->flags & DG_MSGF_BLOCKS) &&
                        !(a->flags & DG_MSGF_NONBLOCKING);
            if ((!send && !recv) || !a->t_enter)
                continue;
            struct dg_pos q = dg_match_peer(x->match, (struct dg_pos){r, p});
            if (q.rank < 0 || q.rank >= x->world_size || !x->logs[q.rank])
                continue;
            const struct dg_msgrec *b = &x->logs[q.rank]->rec[q.pos];
            if (!b->t_enter || b->t_exit < b->t_enter)
                continue;
            int64_t gap = dg_clock_at(&cm[r], a->t_enter) - dg_clock_at(&cm[q.rank], b->t_enter);
            uint64_t dur = b->t_exit - b->t_enter, wait = 0;
            if (send && (b->flags & DG_MSGF_BLOCKS)) {
                /* late sender: the receive entered first and waited */
                if (gap > 0)
                    wait = (uint64_t)gap < dur ? (uint64_t)gap : dur;
            } else if (recv && !(b->flags & DG_MSGF_NONBLOCKING) &&
                       (b->call == CHT_MPI_SEND || b->call == CHT_MPI_SSEND)) {
                /* late receiver: the send entered first and was still in the
                 * call when the receive was posted */
                if (gap > 0 && dur > (uint64_t)gap)
                    wait = (uint64_t)gap;
            }
            partner[q.rank] += wait < l->span_ns ? wait : l->span_ns;
        }
    }
}

static int build_overlaps(struct search_rank_result *const *ranks, int n, int nanalysed, struct hints *hs,
                          const struct search_xrank *xr, bool aligned)
{
    size_t cap = 0, ne = 0;
    struct ov_ent *e = NULL;
    struct dg_clockmap *cm = NULL;
    uint64_t *own = NULL, *partner = NULL;
    int P = xr ? xr->world_size : 0;
    int rc = 0;

    for (int r = 0; r < n; r++)
        if (ranks[r])
            cap += ranks[r]->noverlaps;
    if (!cap)
        return 0;
    e = malloc(cap * sizeof *e);
    own = calloc(P ? P : 1, sizeof *own);
    partner = calloc(P ? P : 1, sizeof *partner);
    if (!e || !own || !partner)
        goto nomem;
    if (aligned && P) {
        /* as search_waitstates: the base is the first rank's real - mono,
         * so that aligned times stay near the monotonic ones */
        if (!(cm = calloc(P, sizeof *cm)))
            goto nomem;
        int64_t base = 0;
        for (int r = 0; r < P; r++) {
            const struct dg_mpilog *log = xr->logs[r];
            if (log && (log->clock[0].valid || log->clock[1].valid)) {
                base = dg_clock_delta(log->clock[0].valid ? &log->clock[0] : &log->clock[1]);
                break;
            }
        }
        for (int r = 0; r < P; r++)
            if (xr->logs[r])
                dg_clockmap_init(&cm[r], xr->logs[r], base);
    }
    for (int r = 0; r < n; r++) {
        const struct search_rank_result *res = ranks[r];
        if (!res)
            continue;
        for (uint32_t k = 0; k < res->noverlaps; k++) {
            const struct search_overlap *ov = &res->overlaps[k];
            if (!ov->with_window)
                continue;
            struct ov_ent *x = &e[ne++];
            loc_of(ov->info, ov->site, &x->key);
            x->rank = res->rank;
            x->res = res;
            x->ov = ov;
        }
    }
    qsort(e, ne, sizeof *e, ov_ent_cmp);
    for (size_t i = 0; i < ne;) {
        size_t j = i + 1;
        while (j < ne && !loc_cmp(&e[j].key, &e[i].key, true))
            j++;
        struct search_hint *h = hints_push(hs);
        if (!h)
            goto nomem;
        h->kind = SEARCH_HINT_OVERLAP;
        h->call = e[i].ov->call;
        h->file = e[i].key.file;
        h->func = e[i].key.func;
        h->line = e[i].key.line;
        h->col = e[i].key.col;
        COLLECT_RANKS(h, e, i, j);
        uint64_t comm = 0, comp = 0, truncated = 0;
        for (size_t k = i; k < j; k++) {
            const struct search_overlap *ov = e[k].ov;
            comm += ov->comm_ns;
            comp += ov->comp_ns;
            if (e[k].rank >= 0 && e[k].rank < P)
                own[e[k].rank] += ov->saving_ns;
            if (cm)
                partner_waits(xr, cm, e[k].rank, ov, partner);
            h->instances += ov->instances;
            h->with_window += ov->with_window;
            truncated += ov->truncated;
            if (k + 1 == j || e[k + 1].rank != e[k].rank) {
                if (comm > h->comm_ns)
                    h->comm_ns = comm;
                if (comp > h->comp_ns)
                    h->comp_ns = comp;
                comm = comp = 0;
            }
        }
        /* per rank: its calls' own saving and its shorter waits for the
         * calls of the others; the hint gains what its best rank gains */
        int nb = 0;
        for (int r = 0; r < P; r++)
            nb += own[r] + partner[r] > 0;
        if (nb && !(h->by_rank = calloc(nb, sizeof *h->by_rank)))
            goto nomem;
        for (int r = 0; r < P; r++) {
            uint64_t t = own[r] + partner[r];
            if (!t)
                continue;
            h->by_rank[h->nby_rank++] = (struct search_rank_saving){r, t, partner[r]};
            if (t > h->saving_ns || (t == h->saving_ns && partner[r] < h->partner_ns)) {
                h->saving_ns = t;
                h->partner_ns = partner[r];
            }
            own[r] = partner[r] = 0;
        }
        if (boxes_copy(&h->iters, &e[i].ov->iters) < 0 || overlap_related(h, e, i, j) < 0)
            goto nomem;
        if (!h->nrelated) {
            search_hint_clear(h);
            hs->n--;
            i = j;
            continue;
        }
        for (uint32_t k = 0; k < h->nrelated; k++)
            if (h->related[k].conditional)
                h->flags |= SEARCH_HINT_CONDITIONAL;
        if (h->nranks < ranks_running(ranks, n, &e[i].key))
            h->flags |= SEARCH_HINT_SOME_RANKS;
        if (h->with_window < h->instances)
            h->flags |= SEARCH_HINT_SOME_ITERATIONS;
        if (truncated)
            h->flags |= SEARCH_HINT_TRUNCATED;
        i = j;
    }
    goto out;
nomem:
    rc = TRACE_ERR_NOMEM;
out:
    free(cm);
    free(partner);
    free(own);
    free(e);
    return rc;
}

/* ---- aggregation -------------------------------------------------------------------- */

struct ag_ent {
    struct loc *locs; /* the member sites' locations, sorted (owned) */
    uint32_t nlocs;
    uint64_t comm;
    int rank;
    const struct search_rank_result *res;
    const struct search_group *g;
};

static int loc_qcmp(const void *a, const void *b)
{
    return loc_cmp(a, b, false);
}

static int ag_key_cmp(const struct ag_ent *a, const struct ag_ent *b)
{
    int c;
    if ((c = cmp_u64(a->nlocs, b->nlocs)))
        return c;
    for (uint32_t k = 0; k < a->nlocs; k++)
        if ((c = loc_cmp(&a->locs[k], &b->locs[k], false)))
            return c;
    return cmp_u64(a->comm, b->comm);
}

static int ag_ent_cmp(const void *pa, const void *pb)
{
    const struct ag_ent *a = pa, *b = pb;
    int c = ag_key_cmp(a, b);
    if (c)
        return c;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->g->peer < b->g->peer ? -1 : a->g->peer > b->g->peer;
}

static const struct trace_site_info *group_info(const struct search_group *g, uint32_t k)
{
    return g->info ? g->info[k] : NULL;
}

/* The MPI call of a send site: from the rank's overlap results, which hold
 * every blocking send site (sorted by site). */
static uint16_t send_call(const struct search_rank_result *res, uint32_t site)
{
    uint32_t lo = 0, hi = res->noverlaps;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (res->overlaps[mid].site < site)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < res->noverlaps && res->overlaps[lo].site == site)
        return res->overlaps[lo].call;
    return CHT_MPI_SEND;
}

static int build_groups(struct search_rank_result *const *ranks, int n, int nanalysed, struct hints *hs,
                        const struct search_xrank *xr, struct hints *dropped)
{
    size_t cap = 0, ne = 0;
    struct ag_ent *e = NULL;
    int rc = 0;

    for (int r = 0; r < n; r++)
        if (ranks[r])
            cap += ranks[r]->ngroups;
    if (!cap)
        return 0;
    e = calloc(cap, sizeof *e);
    if (!e)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < n; r++) {
        const struct search_rank_result *res = ranks[r];
        if (!res)
            continue;
        for (uint32_t k = 0; k < res->ngroups; k++) {
            const struct search_group *g = &res->groups[k];
            if (!g->nsites || !g->groups)
                continue;
            struct ag_ent *x = &e[ne++];
            x->locs = malloc(g->nsites * sizeof *x->locs);
            if (!x->locs)
                goto nomem;
            for (uint32_t s = 0; s < g->nsites; s++)
                loc_of(group_info(g, s), g->sites[s], &x->locs[s]);
            qsort(x->locs, g->nsites, sizeof *x->locs, loc_qcmp);
            x->nlocs = g->nsites;
            x->comm = g->comm;
            x->rank = res->rank;
            x->res = res;
            x->g = g;
        }
    }
    qsort(e, ne, sizeof *e, ag_ent_cmp);
    for (size_t i = 0; i < ne;) {
        size_t j = i + 1;
        while (j < ne && !ag_key_cmp(&e[j], &e[i]))
            j++;
        const struct search_group *g0 = e[i].g;
        struct search_hint *h = hints_push(hs);
        if (!h)
            goto nomem;
        struct loc first;
        loc_of(group_info(g0, 0), g0->sites[0], &first);
        h->kind = SEARCH_HINT_AGGREGATE;
        h->call = send_call(e[i].res, g0->sites[0]);
        h->file = first.file;
        h->func = first.func;
        h->line = first.line;
        h->col = first.col;
        COLLECT_RANKS(h, e, i, j);
        double saving = 0;
        uint64_t send_ns = 0;
        for (size_t k = i; k < j; k++) {
            const struct search_group *g = e[k].g;
            h->instances += g->groups;
            h->members += g->members;
            h->bytes += g->bytes;
            send_ns += g->send_ns;
            if (g->members > g->groups)
                saving += (double)(g->members - g->groups) * e[k].res->msg_latency_ns;
            if (k + 1 == j || e[k + 1].rank != e[k].rank) {
                uint64_t s = saving > 0 ? (uint64_t)(saving + 0.5) : 0;
                if (s > h->saving_ns)
                    h->saving_ns = s;
                if (send_ns > h->comm_ns)
                    h->comm_ns = send_ns;
                saving = 0;
                send_ns = 0;
            }
        }
        const struct trace_site_info *fi = group_info(g0, 0);
        if (fi && (fi->flags & CHT_SITEF_CONDITIONAL))
            h->flags |= SEARCH_HINT_CONDITIONAL;
        if (g0->nsites > 1) {
            h->related = calloc(g0->nsites - 1, sizeof *h->related);
            if (!h->related)
                goto nomem;
        }
        for (uint32_t s = 1; s < g0->nsites; s++) {
            const struct trace_site_info *info = group_info(g0, s);
            if (!info || !info->file || !info->file[0] || !info->line)
                continue;
            struct search_related *r = &h->related[h->nrelated++];
            r->file = info->file;
            r->func = nz(info->func);
            r->line = info->line;
            r->col = info->col;
            r->role = SEARCH_REL_MEMBER;
            r->conditional = (info->flags & CHT_SITEF_CONDITIONAL) != 0;
            if (r->conditional)
                h->flags |= SEARCH_HINT_CONDITIONAL;
        }
        if (h->nrelated)
            qsort(h->related, h->nrelated, sizeof *h->related, related_cmp);
        struct loc at = {h->file, h->func, h->line, h->col, CHT_NONE};
        int running = ranks_running(ranks, n, &at);
        if (h->nranks < (running ? running : nanalysed))
            h->flags |= SEARCH_HINT_SOME_RANKS;
        /* across ranks: a group that delays a send past a call waiting for
         * something that needs the delayed message deadlocks */
        for (size_t k = i; xr && k < j && !h->explain; k++) {
            uint32_t gi = (uint32_t)(e[k].g - e[k].res->groups);
            int u = search_group_unsafe(xr, e[k].rank, gi, &h->explain);
            if (u < 0)
                goto nomem;
        }
        if (h->explain) {
            struct search_hint *d = hints_push(dropped);
            if (!d)
                goto nomem;
            *d = *h;
            memset(h, 0, sizeof *h);
            hs->n--;
        }
        i = j;
    }
    goto out;
nomem:
    rc = TRACE_ERR_NOMEM;
out:
    for (size_t k = 0; k < ne; k++)
        free(e[k].locs);
    free(e);
    return rc;
}

/* ---- ranking and filters -------------------------------------------------------------- */

static int hint_rank_cmp(const void *pa, const void *pb)
{
    const struct search_hint *a = pa, *b = pb;
    int c;
    if (a->saving_ns != b->saving_ns)
        return a->saving_ns > b->saving_ns ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if ((c = strcmp(nz(a->file), nz(b->file))) || (c = cmp_u64(a->line, b->line)) ||
        (c = cmp_u64(a->col, b->col)) || (c = strcmp(nz(a->func), nz(b->func))) ||
        (c = cmp_u64(a->call, b->call)))
        return c;
    /* Same location and kind: aggregation hints on different communicators
     * or member sets; keep the order deterministic. */
    if (a->nrelated != b->nrelated)
        return a->nrelated < b->nrelated ? -1 : 1;
    for (uint32_t k = 0; k < a->nrelated; k++) {
        const struct search_related *x = &a->related[k], *y = &b->related[k];
        if ((c = strcmp(nz(x->file), nz(y->file))) || (c = cmp_u64(x->line, y->line)) ||
            (c = cmp_u64(x->col, y->col)))
            return c;
    }
    if (a->nranks != b->nranks)
        return a->nranks > b->nranks ? -1 : 1;
    for (int k = 0; k < a->nranks; k++)
        if (a->ranks[k] != b->ranks[k])
            return a->ranks[k] < b->ranks[k] ? -1 : 1;
    return cmp_u64(a->instances, b->instances);
}

static bool hint_has_rank(const struct search_hint *h, int rank)
{
    for (int k = 0; k < h->nranks; k++)
        if (h->ranks[k] == rank)
            return true;
    return false;
}

static bool hint_passes(const struct search_hint *h, const struct search_report_opts *o)
{
    if (!o)
        return true;
    if (o->kinds && !(o->kinds & (1u << h->kind)))
        return false;
    if (o->rank >= 0 && !hint_has_rank(h, o->rank))
        return false;
    return h->saving_ns >= o->min_saving_ns;
}

/* ---- the report ------------------------------------------------------------------------ */

void search_report_free(struct search_report *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->nhints; i++)
        search_hint_clear(&r->hints[i]);
    free(r->hints);
    for (uint32_t i = 0; i < r->ndropped; i++)
        search_hint_clear(&r->dropped[i]);
    free(r->dropped);
    free(r->waits);
    free(r);
}

/* The wait states of a hint's call site (same location), if measured. */
static void copy_waits(const struct search_report *rep, struct search_hint *h)
{
    for (uint32_t i = 0; i < rep->nwaits; i++) {
        const struct search_waitsite *w = &rep->waits[i];
        if (w->line == h->line && w->col == h->col && w->file && h->file &&
            !strcmp(w->file, h->file)) {
            h->late_sender_ns = w->late_sender_ns;
            h->late_receiver_ns = w->late_receiver_ns;
            h->wait_collective_ns = w->wait_collective_ns;
            return;
        }
    }
}

/* Severity and message of hints built here. */
static int finish_hints(const struct search_report *rep, struct hints *hs)
{
    for (uint32_t i = 0; i < hs->n; i++) {
        struct search_hint *h = &hs->v[i];
        h->severity = rep->run_ns ? (double)h->saving_ns / (double)rep->run_ns : 0.0;
        if (h->severity > 1.0)
            h->severity = 1.0;
        copy_waits(rep, h);
        if (!h->message && !(h->message = search_hint_message(h, true)))
            return TRACE_ERR_NOMEM;
    }
    return 0;
}

int search_report_build(struct search_rank_result *const *ranks, int n, int world_size,
                        const struct search_report_opts *o, struct search_report **out)
{
    struct hints hs = {0}, dropped = {0};
    struct search_report *rep = NULL;
    struct search_xrank *xr = NULL;
    struct search_hint *coll = NULL;
    uint32_t ncoll = 0;
    int rc;

    if (!out || n < 0 || (n > 0 && !ranks))
        return TRACE_ERR_ARG;
    *out = NULL;
    rep = calloc(1, sizeof *rep);
    if (!rep)
        return TRACE_ERR_NOMEM;
    rep->world_size = world_size;
    for (int r = 0; r < n; r++) {
        const struct search_rank_result *res = ranks[r];
        if (!res)
            continue;
        rep->nranks++;
        rep->events += res->events;
        if (res->t_last > res->t_first && res->t_last - res->t_first > rep->run_ns)
            rep->run_ns = res->t_last - res->t_first;
    }
    if ((rc = search_xrank_build(ranks, n, world_size, &xr)) < 0)
        goto fail;
    rep->unmatched_sends = dg_match_unmatched_sends(xr->match);
    rep->unmatched_recvs = dg_match_unmatched_recvs(xr->match);
    rep->incomplete_colls = dg_match_incomplete_colls(xr->match);
    if ((rc = search_waitstates(xr, rep)) < 0 ||
        (rc = build_overlaps(ranks, n, rep->nranks, &hs, xr, rep->clocks_aligned)) < 0 ||
        (rc = build_groups(ranks, n, rep->nranks, &hs, xr, &dropped)) < 0 ||
        (rc = search_collectives(xr, &coll, &ncoll)) < 0)
        goto fail;
    for (uint32_t i = 0; i < hs.n; i++)
        hs.v[i].root = -1;
    for (uint32_t i = 0; i < dropped.n; i++)
        dropped.v[i].root = -1;
    for (uint32_t i = 0; i < ncoll; i++) {
        struct search_hint *h = hints_push(&hs);
        if (!h) {
            rc = TRACE_ERR_NOMEM;
            goto fail;
        }
        *h = coll[i];
        memset(&coll[i], 0, sizeof coll[i]);
    }
    if ((rc = finish_hints(rep, &hs)) < 0 || (rc = finish_hints(rep, &dropped)) < 0)
        goto fail;
    if (hs.n)
        qsort(hs.v, hs.n, sizeof *hs.v, hint_rank_cmp);
    if (dropped.n)
        qsort(dropped.v, dropped.n, sizeof *dropped.v, hint_rank_cmp);

    uint32_t kept = 0;
    for (uint32_t i = 0; i < hs.n; i++) {
        if (hint_passes(&hs.v[i], o) && (!o || !o->top || kept < o->top)) {
            if (kept != i)
                hs.v[kept] = hs.v[i];
            kept++;
        } else {
            search_hint_clear(&hs.v[i]);
            rep->nfiltered++;
        }
    }
    hs.n = kept;
    rep->nhints = hs.n;
    rep->hints = hs.v;
    rep->ndropped = dropped.n;
    rep->dropped = dropped.v;
    search_xrank_destroy(xr);
    free(coll);
    *out = rep;
    return 0;
fail:
    for (uint32_t i = 0; i < hs.n; i++)
        search_hint_clear(&hs.v[i]);
    free(hs.v);
    for (uint32_t i = 0; i < dropped.n; i++)
        search_hint_clear(&dropped.v[i]);
    free(dropped.v);
    for (uint32_t i = 0; i < ncoll; i++)
        search_hint_clear(&coll[i]);
    free(coll);
    search_xrank_destroy(xr);
    search_report_free(rep);
    return rc;
}
