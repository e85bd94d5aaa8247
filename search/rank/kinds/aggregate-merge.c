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
 *     its explain;
 *   - closed pairs (two sends of a channel an event kept apart) merge by
 *     the locations of their five sites, their calls and reason, into
 *     dropped hints flagged not-merged, unless some group on some rank has
 *     both sends' locations among its members (docs/dependence.md, "What
 *     --explain says of closed groups").
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
    search_loc_at_call(a->g->buf_info, a->g->buf_site, &x);
    search_loc_at_call(b->g->buf_info, b->g->buf_site, &y);
    if ((c = search_loc_cmp(&x, &y, false)))
        return c;
    search_loc_at_call(a->g->over_info, a->g->over_site, &x);
    search_loc_at_call(b->g->over_info, b->g->over_site, &y);
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
            uint64_t s = search_round_u64(saving);
            if (s > h->saving_ns)
                h->saving_ns = s;
            if (send_ns > h->comm_ns)
                h->comm_ns = send_ns;
            saving = 0;
            send_ns = 0;
        }
    }
}

/* The sends made at the member sites of the entries [i, j) on their ranks
 * (search_rank_result.site_sends: the rank's sends per site), into
 * *calls: the groups hold h->members of them.  Returns false without the
 * cross-rank stage. */
static bool member_site_calls(const struct search_merge *m, const struct ag_ent *e, size_t i, size_t j,
                              uint64_t *calls)
{
    *calls = 0;
    if (!m->xr)
        return false;
    for (size_t k = i; k < j;) {
        size_t z = k; /* the entries of one rank: its destinations and calling contexts */
        while (z < j && e[z].rank == e[k].rank)
            z++;
        const struct search_rank_result *res = e[k].res;
        /* each site of the entries once: a send counts once */
        for (size_t y = k; y < z; y++)
            for (uint32_t s = 0; s < e[y].g->nsites; s++) {
                uint32_t site = e[y].g->sites[s];
                bool seen = false;
                for (size_t w = k; w <= y && !seen; w++)
                    for (uint32_t t = 0; t < (w < y ? e[w].g->nsites : s) && !seen; t++)
                        seen = e[w].g->sites[t] == site;
                size_t lo = 0, hi = res->nsite_sends;
                while (!seen && lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (res->site_sends[mid].site < site)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (!seen && lo < res->nsite_sends && res->site_sends[lo].site == site)
                    *calls += res->site_sends[lo].sends;
            }
        k = z;
    }
    return true;
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
    search_loc_at_call(group_info(g0, 0), g0->sites[0], &first);
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
    h->ctx = first.ctx;
    for (size_t k = i; k < j; k++)
        search_hint_add_rank(h, e[k].rank);
    group_sums(h, e, i, j);
    /* the edit is made to the member lines: it holds for all their calls
     * only if the groups hold every send made there (gauss's pivot row
     * and x[n-1] go to the same rank one after the other only at the end
     * of one loop and the start of the next) */
    if (member_site_calls(m, e, i, j, &h->site_calls) && h->site_calls > h->members)
        h->flags |= SEARCH_HINT_SOME_ITERATIONS;
    /* on 2 ranks every send goes to the other rank: sends to `up` and to
     * `down` look alike (heat_helpers' two Sendrecv), which larger runs
     * tell apart */
    if (m->xr && m->xr->world_size == 2)
        h->flags |= SEARCH_HINT_TWO_RANKS;
    for (size_t k = i; m->xr && k < j; k++)
        if (search_change_group(m->xr, e[k].rank, e[k].res, (uint32_t)(e[k].g - e[k].res->groups), h) < 0)
            return TRACE_ERR_NOMEM;
    const struct trace_site_info *fi = group_info(g0, 0);
    if (fi && (fi->flags & CHT_SITEF_CONDITIONAL))
        h->flags |= SEARCH_HINT_CONDITIONAL;
    if (member_lines(h, g0) < 0)
        return TRACE_ERR_NOMEM;
    const struct trace_site_info *li = g0->nsites > 1 ? group_info(g0, g0->nsites - 1) : NULL;
    if (li && li->file && li->file[0] && li->line) {
        h->last_file = li->file;
        h->last_line = li->line;
        h->last_wraps = fi && fi->file && !strcmp(fi->file, li->file) && !strcmp(search_nz(fi->func), search_nz(li->func)) &&
                        li->line < fi->line;
    }
    if (g0->needs_buffer) {
        struct search_loc b, o;
        search_loc_at_call(g0->buf_info, g0->buf_site, &b);
        search_loc_at_call(g0->over_info, g0->over_site, &o);
        h->flags |= SEARCH_HINT_NEEDS_BUFFER;
        h->buf_file = b.file;
        h->buf_line = b.line;
        h->over_file = o.file;
        h->over_line = o.line;
        h->over_frees = g0->over_info && (g0->over_info->flags & CHT_SITEF_HEAP);
    }
    struct search_loc at = {h->file, h->func, h->line, h->col, CHT_NONE, h->ctx};
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

/* ---- closed pairs ------------------------------------------------------------------- */

struct cl_ent {
    struct search_loc l[5]; /* site, next, close, member, aux */
    int rank;
    const struct search_closed *c;
};

static int cl_key_cmp(const struct cl_ent *a, const struct cl_ent *b)
{
    int c;
    for (int k = 0; k < 5; k++)
        if ((c = search_loc_cmp(&a->l[k], &b->l[k], false)))
            return c;
    const struct search_closed *x = a->c, *y = b->c;
    const uint64_t v[] = {x->why,       y->why,       x->call,       y->call,       x->next_call,
                          y->next_call, x->member_call, y->member_call, x->close_call, y->close_call,
                          x->aux_call,  y->aux_call,  x->close_mpi,  y->close_mpi,  x->aux_mpi,
                          y->aux_mpi};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i += 2)
        if ((c = search_cmp_u64(v[i], v[i + 1])))
            return c;
    return 0;
}

static int cl_ent_cmp(const void *pa, const void *pb)
{
    const struct cl_ent *a = pa, *b = pb;
    int c = cl_key_cmp(a, b);
    return c ? c : a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* Whether some group has both locations among its members. */
static bool merged_somewhere(const struct ag_ent *e, size_t ne, const struct search_loc *a,
                             const struct search_loc *b)
{
    for (size_t i = 0; i < ne; i++) {
        bool fa = false, fb = false;
        for (uint32_t k = 0; k < e[i].nlocs; k++) {
            fa = fa || !search_loc_cmp(&e[i].locs[k], a, false);
            fb = fb || !search_loc_cmp(&e[i].locs[k], b, false);
        }
        if (fa && fb)
            return true;
    }
    return false;
}

/* " at a.c:20" */
static void text_at(struct search_text *b, const struct search_loc *l)
{
    if (l->file && l->file[0] && l->line) {
        const char *base = strrchr(l->file, '/');
        search_text_printf(b, " at %s:%" PRIu32, base ? base + 1 : l->file, l->line);
    } else {
        search_text_printf(b, " at an unknown line");
    }
}

/* "the MPI_Send at a.c:20", "the statement at a.c:22" */
static void text_event(struct search_text *b, bool mpi, uint16_t call, const struct search_loc *l)
{
    if (!mpi)
        search_text_printf(b, "the statement");
    else if (call == CHT_MPI_UNTRACED)
        search_text_printf(b, "the untraced MPI call");
    else if (call == CHT_MPI_CLOCK)
        search_text_printf(b, "the clock read");
    else if (call == CHT_MPI_EXTERN)
        search_text_printf(b, "the call into code built without commhint's pass");
    else
        search_text_printf(b, "the %s", trace_mpi_call_name(call));
    text_at(b, l);
}

#define KEEP_ORDER " on its communicator (messages between two ranks keep their order)"

/* Why the pair is apart, one sentence (enum search_close_why): the
 * closing event, then for most reasons words around the member named. */
static char *closed_explain(const struct cl_ent *x)
{
    static const struct {
        const char *pre, *post;
    } around[SEARCH_CLOSE_WHY_COUNT] = {
        [SEARCH_CLOSE_OTHER] = {" depends on ", ""},
        [SEARCH_CLOSE_FLOW] = {" reads what ", " received (a flow dependence)"},
        [SEARCH_CLOSE_OUTPUT] = {" writes the receive buffer of ", " (an output dependence)"},
        [SEARCH_CLOSE_ANTI] = {" overwrites the send buffer of ",
                               " (an anti dependence; such groups have no needs-buffer variant)"},
        [SEARCH_CLOSE_ANTI_WAITED] = {" overwrites the send buffer of ", ""},
        [SEARCH_CLOSE_NB_WAIT] = {" may wait for another rank, and the group needs a buffer per message (the "
                                  "send buffer of ",
                                  " is overwritten by "},
        [SEARCH_CLOSE_SEND_KEY] = {" also sends to the destination of ", KEEP_ORDER},
        [SEARCH_CLOSE_RECV_KEY] = {" receives from the source of ", KEEP_ORDER},
        [SEARCH_CLOSE_RECV_ANY] = {" receives from any rank, so maybe from the source of ", KEEP_ORDER},
        [SEARCH_CLOSE_REQ_PART] = {" acts on the request of ",
                                   " without completing every request of the group (a group of nonblocking "
                                   "sends counts only if one call completes them all)"},
    };
    const struct search_closed *c = x->c;
    struct search_text b = {0};
    text_event(&b, c->close_mpi, c->close_call, &x->l[2]);
    if (c->why == SEARCH_CLOSE_FENCE) {
        search_text_printf(&b, "%s", c->close_call == CHT_MPI_UNTRACED
                                         ? " is a fence: what it reads, writes and waits for is unknown, so no "
                                           "send moves across it"
                                     : c->close_call == CHT_MPI_EXTERN
                                         ? " is a fence: what that code reads and writes is not in the trace, "
                                           "so no send moves across it"
                                     : c->close_call == CHT_MPI_CLOCK
                                         ? " is a fence: the program measures time there, and a send moved "
                                           "across it would change what it measures"
                                         : " is a fence: no send moves across it");
    } else if (c->why == SEARCH_CLOSE_REQ_ALL) {
        search_text_printf(&b, " completes the requests of the group first (a nonblocking send joins a group "
                               "before its completion only)");
    } else {
        unsigned w = c->why < SEARCH_CLOSE_WHY_COUNT && around[c->why].pre ? c->why : SEARCH_CLOSE_OTHER;
        const char *pre = around[w].pre, *post = around[w].post;
        /* what a nonblocking send writes is its request handle, not a message */
        bool isend = c->member_call != CHT_MPI_SENDRECV && c->member_call != CHT_MPI_SENDRECV_REPLACE;
        if (isend && w == SEARCH_CLOSE_FLOW) {
            pre = " reads the request handle that ";
            post = " set (a flow dependence)";
        } else if (isend && w == SEARCH_CLOSE_OUTPUT) {
            pre = " overwrites the request handle that ";
            post = " set (an output dependence)";
        }
        search_text_printf(&b, "%s", pre);
        text_event(&b, true, c->member_call, &x->l[3]);
        search_text_printf(&b, "%s", post);
    }
    if (c->why == SEARCH_CLOSE_ANTI_WAITED) {
        if (search_loc_cmp(&x->l[4], &x->l[2], false)) {
            search_text_printf(&b, " after the group passed ");
            text_event(&b, c->aux_mpi, c->aux_call, &x->l[4]);
            search_text_printf(&b, ", which");
        } else {
            search_text_printf(&b, ", and it");
        }
        search_text_printf(&b, " may wait for another rank (an anti dependence; a group that needs a buffer "
                               "per message waits for no other rank)");
    } else if (c->why == SEARCH_CLOSE_NB_WAIT) {
        text_event(&b, c->aux_mpi, c->aux_call, &x->l[4]);
        search_text_printf(&b, "): such a group waits for no other rank");
    }
    return search_text_take(&b);
}

/* "the MPI_Send at a.c:20 and the MPI_Send at a.c:24 (to the same rank)
 * are not one message (ranks 0-3, 12 times)"; "two consecutive MPI_Send
 * calls at a.c:20 ..." when both are at one place. */
static char *closed_message(const struct search_hint *h, const struct cl_ent *x)
{
    const struct search_closed *c = x->c;
    struct search_text b = {0};
    bool exchange = c->call == CHT_MPI_SENDRECV || c->call == CHT_MPI_SENDRECV_REPLACE;
    if (!search_loc_cmp(&x->l[0], &x->l[1], false) && c->call == c->next_call) {
        search_text_printf(&b, "two consecutive %s calls", trace_mpi_call_name(c->call));
        text_at(&b, &x->l[0]);
    } else {
        text_event(&b, true, c->call, &x->l[0]);
        search_text_printf(&b, " and ");
        text_event(&b, true, c->next_call, &x->l[1]);
    }
    search_text_printf(&b, " (%s) are not one message (", exchange ? "with the same ranks" : "to the same rank");
    search_text_ranks(&b, h->ranks, h->nranks);
    search_text_printf(&b, ", %" PRIu64 " time%s)", h->instances, h->instances == 1 ? "" : "s");
    return search_text_take(&b);
}

/* The dropped hint of the entries [i, j), which have the same key. */
static int closed_hint(const struct search_merge *m, const struct cl_ent *x, size_t i, size_t j)
{
    struct search_hint *h = search_hints_push(m->dropped);
    if (!h || search_hint_alloc_ranks(h, j - i) < 0)
        return TRACE_ERR_NOMEM;
    const struct search_closed *c = x[i].c;
    h->kind = m->kind;
    h->call = c->call;
    h->file = x[i].l[0].file;
    h->func = x[i].l[0].func;
    h->line = x[i].l[0].line;
    h->col = x[i].l[0].col;
    h->ctx = x[i].l[0].ctx;
    h->flags = SEARCH_HINT_NOT_MERGED;
    h->next_file = x[i].l[1].file;
    h->next_line = x[i].l[1].line;
    h->next_call = c->next_call;
    h->close_file = x[i].l[2].file;
    h->close_line = x[i].l[2].line;
    h->why = c->why;
    for (size_t k = i; k < j; k++) {
        search_hint_add_rank(h, x[k].rank);
        h->instances += x[k].c->count;
    }
    if (!(h->message = closed_message(h, &x[i])) || !(h->explain = closed_explain(&x[i])))
        return TRACE_ERR_NOMEM;
    return 0;
}

/* The closed pairs of every rank that no group merged anywhere. */
static int closed_hints(const struct search_merge *m, const struct ag_ent *e, size_t ne)
{
    size_t cap = 0, n = 0;
    int rc = 0;
    for (int r = 0; r < m->n; r++)
        if (m->ranks[r])
            cap += m->ranks[r]->nclosed;
    if (!cap)
        return 0;
    struct cl_ent *x = calloc(cap, sizeof *x);
    if (!x)
        return TRACE_ERR_NOMEM;
    for (int r = 0; r < m->n; r++) {
        const struct search_rank_result *res = m->ranks[r];
        for (uint32_t k = 0; res && k < res->nclosed; k++) {
            const struct search_closed *c = &res->closed[k];
            struct cl_ent *y = &x[n];
            search_loc_at_call(c->info, c->site, &y->l[0]);
            search_loc_at_call(c->next_info, c->next_site, &y->l[1]);
            search_loc_at_call(c->close_info, c->close_site, &y->l[2]);
            search_loc_at_call(c->member_info, c->member_site, &y->l[3]);
            search_loc_at_call(c->aux_info, c->aux_site, &y->l[4]);
            y->rank = res->rank;
            y->c = c;
            if (!merged_somewhere(e, ne, &y->l[0], &y->l[1]))
                n++;
        }
    }
    if (n)
        qsort(x, n, sizeof *x, cl_ent_cmp);
    for (size_t i = 0; i < n && rc == 0;) {
        size_t j = i + 1;
        while (j < n && !cl_key_cmp(&x[j], &x[i]))
            j++;
        rc = closed_hint(m, x, i, j);
        i = j;
    }
    free(x);
    return rc;
}

int search_aggregate_merge(const struct search_merge *m)
{
    size_t cap = 0, ne = 0;
    struct ag_ent *e = NULL;
    int rc = 0;

    for (int r = 0; r < m->n; r++)
        if (m->ranks[r])
            cap += m->ranks[r]->ngroups;
    e = calloc(cap ? cap : 1, sizeof *e);
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
                search_loc_at_call(group_info(g, s), g->sites[s], &x->locs[s]);
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
    if (rc == 0)
        rc = closed_hints(m, e, ne);
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
    if (h->flags & SEARCH_HINT_NOT_MERGED) /* made whole by the merge (closed_message) */
        return strdup(h->message ? h->message : "");
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
    if (h->flags & SEARCH_HINT_NEEDS_BUFFER)
        search_text_needs_buffer(&b, h);
    search_text_ranks(&b, h->ranks, h->nranks);
    search_text_printf(&b, ", %" PRIu64 " group%s", h->instances, h->instances == 1 ? "" : "s");
    if (with_times) {
        search_text_printf(&b, ", est. saving ");
        search_text_time(&b, h->saving_ns);
    }
    search_text_printf(&b, ")");
    return search_text_take(&b);
}
