/* aggregate-merge.c - aggregation hints across ranks (docs/dependence.md,
 * "From ranks to hints" and "Deadlock safety"), and their message.
 *
 * Groups merge by the set of their member sends' locations and the
 * communicator (the destination is relative to the rank, so it is not
 * part of the key).  Decisions beyond the document:
 *   - the location is the first member site of the lowest rank's group
 *     (lowest destination first); the other member sites are related lines
 *     with role MEMBER, without counts (events, total, time 0);
 *   - the call is the one the rank's overlap results give for that site
 *     (every blocking send and Sendrecv is an overlap candidate), else
 *     MPI_Send; for nonblocking sends and exchanges the group's own call
 *     (its first member's); the
 *     hint is conditional if any member site is;
 *   - a hint with a dynamic group on any rank that could deadlock
 *     (search_group_unsafe), or that deadlocks once applied on all its
 *     ranks at once (search_hint_unsafe), goes to the dropped hints, with
 *     its explain.
 */
#include "rank/kinds/aggregate.h"

struct ag_ent {
    struct search_loc *locs; /* the member sites' locations, sorted (owned) */
    uint32_t nlocs;
    uint64_t comm;
    int rank;
    const struct search_rank_result *res;
    const struct search_group *g;
};

static int loc_qcmp(const void *a, const void *b)
{
    return search_loc_cmp(a, b, false);
}

static int ag_key_cmp(const struct ag_ent *a, const struct ag_ent *b)
{
    int c;
    if ((c = search_cmp_u64(a->nlocs, b->nlocs)))
        return c;
    for (uint32_t k = 0; k < a->nlocs; k++)
        if ((c = search_loc_cmp(&a->locs[k], &b->locs[k], false)))
            return c;
    if ((c = search_cmp_u64(a->comm, b->comm)))
        return c;
    if ((c = search_cmp_u64(a->g->call, b->g->call))) /* sends and exchanges at unknown sites */
        return c;
    if ((c = search_cmp_u64(a->g->needs_buffer, b->g->needs_buffer)) || !a->g->needs_buffer)
        return c;
    struct search_loc x, y;
    search_loc_of(a->g->buf_info, a->g->buf_site, &x);
    search_loc_of(b->g->buf_info, b->g->buf_site, &y);
    if ((c = search_loc_cmp(&x, &y, false)))
        return c;
    search_loc_of(a->g->over_info, a->g->over_site, &x);
    search_loc_of(b->g->over_info, b->g->over_site, &y);
    return search_loc_cmp(&x, &y, false);
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

/* The member sites other than the first as related lines of h. */
static int member_lines(struct search_hint *h, const struct search_group *g0)
{
    if (g0->nsites > 1 && !(h->related = calloc(g0->nsites - 1, sizeof *h->related)))
        return TRACE_ERR_NOMEM;
    for (uint32_t s = 1; s < g0->nsites; s++) {
        const struct trace_site_info *info = group_info(g0, s);
        if (!info || !info->file || !info->file[0] || !info->line)
            continue;
        struct search_related *r = &h->related[h->nrelated++];
        r->file = info->file;
        r->func = search_nz(info->func);
        r->line = info->line;
        r->col = info->col;
        r->role = SEARCH_REL_MEMBER;
        r->conditional = (info->flags & CHT_SITEF_CONDITIONAL) != 0;
        if (r->conditional)
            h->flags |= SEARCH_HINT_CONDITIONAL;
    }
    if (h->nrelated)
        qsort(h->related, h->nrelated, sizeof *h->related, search_related_cmp);
    return 0;
}

/* Sums the entries [i, j) of one key into h: counts over ranks, the
 * saving and the send time of the rank that gains most. */
static void group_sums(struct search_hint *h, const struct ag_ent *e, size_t i, size_t j)
{
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
}

/* The hint of the entries [i, j), which have the same key: kept, or
 * dropped if a group could deadlock. */
static int group_hint(const struct search_merge *m, const struct ag_ent *e, size_t i, size_t j)
{
    const struct search_group *g0 = e[i].g;
    struct search_hint *h = search_hints_push(m->hints);
    if (!h || search_hint_alloc_ranks(h, j - i) < 0)
        return TRACE_ERR_NOMEM;
    struct search_loc first;
    search_loc_of(group_info(g0, 0), g0->sites[0], &first);
    h->kind = m->kind;
    /* nonblocking sends are no overlap candidates, and exchanges at an
     * unknown site neither: their group knows */
    bool own = (g0->call >= CHT_MPI_ISEND && g0->call <= CHT_MPI_IRSEND) || g0->call == CHT_MPI_SENDRECV ||
               g0->call == CHT_MPI_SENDRECV_REPLACE;
    h->call = own ? g0->call : send_call(e[i].res, g0->sites[0]);
    h->file = first.file;
    h->func = first.func;
    h->line = first.line;
    h->col = first.col;
    for (size_t k = i; k < j; k++)
        search_hint_add_rank(h, e[k].rank);
    group_sums(h, e, i, j);
    const struct trace_site_info *fi = group_info(g0, 0);
    if (fi && (fi->flags & CHT_SITEF_CONDITIONAL))
        h->flags |= SEARCH_HINT_CONDITIONAL;
    if (member_lines(h, g0) < 0)
        return TRACE_ERR_NOMEM;
    if (g0->needs_buffer) {
        struct search_loc b, o;
        search_loc_of(g0->buf_info, g0->buf_site, &b);
        search_loc_of(g0->over_info, g0->over_site, &o);
        h->flags |= SEARCH_HINT_NEEDS_BUFFER;
        h->buf_file = b.file;
        h->buf_line = b.line;
        h->over_file = o.file;
        h->over_line = o.line;
    }
    struct search_loc at = {h->file, h->func, h->line, h->col, CHT_NONE};
    int running = search_ranks_running(m->ranks, m->n, &at);
    if (h->nranks < (running ? running : m->nanalysed))
        h->flags |= SEARCH_HINT_SOME_RANKS;
    /* across ranks: a group that delays a send past a call waiting for
     * something that needs the delayed message deadlocks */
    for (size_t k = i; m->xr && k < j && !h->explain; k++) {
        uint32_t gi = (uint32_t)(e[k].g - e[k].res->groups);
        if (search_group_unsafe(m->xr, e[k].rank, gi, &h->explain) < 0)
            return TRACE_ERR_NOMEM;
    }
    /* and on all its ranks at once: the change is to the source */
    if (m->xr && !h->explain) {
        int *rk = malloc((j - i) * sizeof *rk);
        uint32_t *gs = malloc((j - i) * sizeof *gs);
        int rc = rk && gs ? 0 : TRACE_ERR_NOMEM;
        for (size_t k = i; rc == 0 && k < j; k++) {
            rk[k - i] = e[k].rank;
            gs[k - i] = (uint32_t)(e[k].g - e[k].res->groups);
        }
        if (rc == 0)
            rc = search_hint_unsafe(m->xr, rk, gs, j - i, &h->explain);
        free(rk);
        free(gs);
        if (rc < 0)
            return rc;
    }
    if (h->explain) {
        struct search_hint *d = search_hints_push(m->dropped);
        if (!d)
            return TRACE_ERR_NOMEM;
        *d = *h;
        memset(h, 0, sizeof *h);
        m->hints->n--;
    }
    return 0;
}

int search_aggregate_merge(const struct search_merge *m)
{
    size_t cap = 0, ne = 0;
    struct ag_ent *e = NULL;
    int rc = 0;

    for (int r = 0; r < m->n; r++)
        if (m->ranks[r])
            cap += m->ranks[r]->ngroups;
    if (!cap)
        return 0;
    e = calloc(cap, sizeof *e);
    if (!e)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < m->n && rc == 0; r++) {
        const struct search_rank_result *res = m->ranks[r];
        for (uint32_t k = 0; res && k < res->ngroups; k++) {
            const struct search_group *g = &res->groups[k];
            if (!g->nsites || !g->groups)
                continue;
            struct ag_ent *x = &e[ne++];
            if (!(x->locs = malloc(g->nsites * sizeof *x->locs))) {
                rc = TRACE_ERR_NOMEM;
                break;
            }
            for (uint32_t s = 0; s < g->nsites; s++)
                search_loc_of(group_info(g, s), g->sites[s], &x->locs[s]);
            qsort(x->locs, g->nsites, sizeof *x->locs, loc_qcmp);
            x->nlocs = g->nsites;
            x->comm = g->comm;
            x->rank = res->rank;
            x->res = res;
            x->g = g;
        }
    }
    if (rc == 0)
        qsort(e, ne, sizeof *e, ag_ent_cmp);
    for (size_t i = 0; i < ne && rc == 0;) {
        size_t j = i + 1;
        while (j < ne && !ag_key_cmp(&e[j], &e[i]))
            j++;
        rc = group_hint(m, e, i, j);
        i = j;
    }
    for (size_t k = 0; k < ne; k++)
        free(e[k].locs);
    free(e);
    return rc;
}

/* Average sends per group: "3", "2.5". */
static void text_avg(struct search_text *b, uint64_t members, uint64_t groups)
{
    if (groups && members % groups == 0)
        search_text_printf(b, "%" PRIu64, members / groups);
    else
        search_text_printf(b, "%.1f", groups ? (double)members / (double)groups : 0.0);
}

/* "3 MPI_Send calls to the same rank at lines 40, 42, 44 can be sent as
 * one message (ranks 0-3, 150 groups, est. saving 400 us)"; for
 * exchanges "2 MPI_Sendrecv calls with the same ranks at lines 40, 42
 * can be one MPI_Sendrecv of their packed buffers (...)"; for nonblocking
 * sends "2 MPI_Isend calls to the same rank at lines 40, 42, completed
 * together, can be one MPI_Isend of their packed buffers (...)"; when the
 * groups are not one send of each site "MPI_Send calls to the same rank
 * at lines 133-134, 5 per group, can be ..." ("consecutive MPI_Send
 * calls" for one site, "2.5 per group on average" when sizes vary). */
char *search_aggregate_message(const struct search_hint *h, bool with_times)
{
    struct search_text b = {0};
    const char *call = trace_mpi_call_name(h->call);
    uint64_t nsites = (uint64_t)h->nrelated + 1;
    bool one_each = h->members == h->instances * nsites;

    /* exchanges (Sendrecv) have the same destination and source */
    bool exchange = h->call == CHT_MPI_SENDRECV || h->call == CHT_MPI_SENDRECV_REPLACE;
    bool nb = h->call >= CHT_MPI_ISEND && h->call <= CHT_MPI_IRSEND;
    const char *to = exchange ? "with the same ranks" : "to the same rank";

    if (one_each && nsites > 1)
        search_text_printf(&b, "%" PRIu64 " %s calls %s at ", nsites, call, to);
    else
        search_text_printf(&b, "%s%s calls %s at ", nsites > 1 ? "" : "consecutive ", call, to);
    search_text_lines(&b, h, true);
    if (!one_each) {
        search_text_printf(&b, ", ");
        text_avg(&b, h->members, h->instances);
        search_text_printf(&b, " per group%s,",
                           h->instances && h->members % h->instances ? " on average" : "");
    }
    if (nb)
        search_text_printf(&b, "%s completed together, can be one %s of their packed buffers (",
                           one_each ? "," : "", call);
    else if (exchange)
        search_text_printf(&b, " can be one %s of their packed buffers (", call);
    else
        search_text_printf(&b, " can be sent as one message%s (",
                           h->flags & SEARCH_HINT_NEEDS_BUFFER ? " if each gets its own buffer" : "");
    if (h->flags & SEARCH_HINT_NEEDS_BUFFER) {
        search_text_printf(&b, "needs a buffer per message: ");
        if (h->buf_line)
            search_text_printf(&b, "the send buffer at line %" PRIu32, h->buf_line);
        else
            search_text_printf(&b, "a send buffer");
        if (h->over_file && h->over_line) {
            const char *base = strrchr(h->over_file, '/');
            search_text_printf(&b, " is overwritten at %s:%" PRIu32 "; ", base ? base + 1 : h->over_file,
                               h->over_line);
        }
        else
            search_text_printf(&b, " is overwritten at an unknown statement; ");
    }
    search_text_ranks(&b, h->ranks, h->nranks);
    search_text_printf(&b, ", %" PRIu64 " group%s", h->instances, h->instances == 1 ? "" : "s");
    if (with_times) {
        search_text_printf(&b, ", est. saving ");
        search_text_time(&b, h->saving_ns);
    }
    search_text_printf(&b, ")");
    return search_text_take(&b);
}
