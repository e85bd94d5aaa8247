/* aggregate.c - the aggregation kind (docs/dependence.md, "Message
 * aggregation"): groups of blocking sends to the same rank, of Sendrecv
 * calls with the same peers, or of nonblocking sends to the same rank
 * completed together, that can be sent as one message.  This file is the kind itself and its per-rank
 * result (search_rank_result.groups, .checks and .msg_latency_ns):
 * freeing, comparing, walking the sites and packing it.  The engines'
 * parts are in aggregate-stream.c and aggregate-reference.c, the merge
 * into hints in aggregate-merge.c.
 */
#include <stdio.h>

#include "rank/kinds/aggregate.h"

#include "parallel/pack-bytes.h"

int search_group_cmp(const struct search_group *a, const struct search_group *b)
{
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    if (a->peer != b->peer)
        return a->peer < b->peer ? -1 : 1;
    if (a->nsites != b->nsites)
        return a->nsites < b->nsites ? -1 : 1;
    for (uint32_t i = 0; i < a->nsites; i++)
        if (a->sites[i] != b->sites[i])
            return a->sites[i] < b->sites[i] ? -1 : 1;
    /* sends, exchanges and nonblocking sends at the same (unknown) sites
     * stay apart */
    if (a->call != b->call)
        return a->call < b->call ? -1 : 1;
    /* needs-buffer groups apart, by buffer and overwriting statement */
    if (a->needs_buffer != b->needs_buffer)
        return a->needs_buffer ? 1 : -1;
    if (a->buf_site != b->buf_site)
        return a->buf_site < b->buf_site ? -1 : 1;
    if (a->over_site != b->over_site)
        return a->over_site < b->over_site ? -1 : 1;
    return 0;
}

int search_groups_make_info(struct search_rank_result *r)
{
    for (uint32_t i = 0; i < r->ngroups; i++) {
        struct search_group *g = &r->groups[i];
        if (!g->info && !(g->info = calloc(g->nsites ? g->nsites : 1, sizeof *g->info)))
            return TRACE_ERR_NOMEM;
    }
    return 0;
}

/* ---- freeing and comparing ------------------------------------------------------------ */

static void ag_result_free(struct search_rank_result *r)
{
    for (uint32_t i = 0; i < r->ngroups; i++) {
        free(r->groups[i].sites);
        free((void *)r->groups[i].info);
    }
    free(r->groups);
    for (uint32_t i = 0; i < r->nchecks; i++) {
        free(r->checks[i].members);
        free(r->checks[i].cross);
    }
    free(r->checks);
    r->groups = NULL;
    r->checks = NULL;
    r->ngroups = r->nchecks = 0;
}

/* "comm=1 peer=2 sites=[3,4]" into buf. */
static const char *group_name(const struct search_group *g, char *buf, size_t size)
{
    size_t off = 0;
    int w = snprintf(buf, size, "comm=%" PRIu64 " peer=%" PRId32 " sites=[", g->comm, g->peer);

    if (w < 0 || (size_t)w >= size)
        return buf;
    off = (size_t)w;
    for (uint32_t i = 0; i < g->nsites; i++) {
        w = snprintf(buf + off, size - off, "%s%" PRIu32, i ? "," : "", g->sites[i]);
        if (w < 0 || (size_t)w >= size - off)
            return buf;
        off += (size_t)w;
    }
    snprintf(buf + off, size - off, "]");
    return buf;
}

static bool group_diff(const struct search_group *a, const struct search_group *b, char *why, size_t size)
{
    char na[160], nb[160], prefix[176];

    group_name(a, na, sizeof(na));
    group_name(b, nb, sizeof(nb));
    if (strcmp(na, nb) != 0 || a->nsites != b->nsites)
        return search_differ(why, size, "group %s != group %s", na, nb);
    for (uint32_t i = 0; i < a->nsites; i++)
        if (a->sites[i] != b->sites[i])
            return search_differ(why, size, "group %s != group %s", na, nb);
    snprintf(prefix, sizeof(prefix), "group %s: ", na);
#define CMP(field) SEARCH_CMP_FIELD(prefix, field)
    CMP(call);
    CMP(groups);
    CMP(members);
    CMP(bytes);
    CMP(send_ns);
    CMP(min_size);
    CMP(max_size);
    CMP(needs_buffer);
    CMP(buf_site);
    CMP(over_site);
#undef CMP
    return true;
}

static bool checks_diff(const struct search_rank_result *a, const struct search_rank_result *b, char *why,
                        size_t size)
{
    if (a->nchecks != b->nchecks)
        return search_differ(why, size, "nchecks %" PRIu32 " != %" PRIu32, a->nchecks, b->nchecks);
    for (uint32_t i = 0; i < a->nchecks; i++) {
        const struct search_group_check *x = &a->checks[i], *y = &b->checks[i];
        if (x->group != y->group || x->nmembers != y->nmembers || x->ncross != y->ncross ||
            (x->nmembers && memcmp(x->members, y->members, x->nmembers * sizeof *x->members)) ||
            (x->ncross && memcmp(x->cross, y->cross, x->ncross * sizeof *x->cross)))
            return search_differ(why, size,
                                 "check %" PRIu32 ": group %" PRIu32 "/%" PRIu32 " members %" PRIu32
                                 "/%" PRIu32 " (first %" PRIu64 "/%" PRIu64 ") crossings %" PRIu32
                                 "/%" PRIu32 " (first %" PRIu64 "/%" PRIu64 ")",
                                 i, x->group, y->group, x->nmembers, y->nmembers,
                                 x->nmembers ? x->members[0] : 0, y->nmembers ? y->members[0] : 0, x->ncross,
                                 y->ncross, x->ncross ? x->cross[0] : 0, y->ncross ? y->cross[0] : 0);
    }
    return true;
}

/* msg_latency_ns is compared with the rank's facts. */
static bool ag_result_equal(const struct search_rank_result *a, const struct search_rank_result *b, char *why,
                            size_t size)
{
    for (uint32_t i = 0; i < a->ngroups && i < b->ngroups; i++)
        if (!group_diff(&a->groups[i], &b->groups[i], why, size))
            return false;
    if (a->ngroups != b->ngroups) {
        char n[160];
        const struct search_group *x =
            a->ngroups > b->ngroups ? &a->groups[b->ngroups] : &b->groups[a->ngroups];
        return search_differ(why, size, "ngroups %" PRIu32 " != %" PRIu32 " (first extra group %s)",
                             a->ngroups, b->ngroups, group_name(x, n, sizeof(n)));
    }
    return checks_diff(a, b, why, size);
}

/* The member sites of each group that has its infos. */
static bool ag_visit(struct search_rank_result *r, const struct search_site_visitor *v)
{
    for (uint32_t i = 0; i < r->ngroups && v->site; i++)
        for (uint32_t j = 0; r->groups[i].info && j < r->groups[i].nsites; j++)
            if (v->site(v->ctx, r->groups[i].sites[j], &r->groups[i].info[j]))
                return true;
    for (uint32_t i = 0; i < r->ngroups && v->site; i++)
        if (r->groups[i].needs_buffer && (v->site(v->ctx, r->groups[i].buf_site, &r->groups[i].buf_info) ||
                                          v->site(v->ctx, r->groups[i].over_site, &r->groups[i].over_info)))
            return true;
    return false;
}

/* ---- packing: the groups with their sites, then the checks with their
 * members and crossings, each array after its u32 count ------------------------------------ */

#define GROUP_MIN (8u + 4 + 4 + 4 + 4 * 8 + 2 * 4 + 3 * 4)
#define CHECK_MIN (4u + 4 + 4)

static void ag_pack(struct pk_buf *b, const struct search_rank_result *r)
{
    pk_u32(b, r->ngroups);
    for (uint32_t i = 0; i < r->ngroups; i++) {
        const struct search_group *g = &r->groups[i];
        pk_u64(b, g->comm);
        pk_i32(b, g->peer);
        pk_u32(b, g->call);
        pk_u64(b, g->groups);
        pk_u64(b, g->members);
        pk_u64(b, g->bytes);
        pk_u64(b, g->send_ns);
        pk_u32(b, g->min_size);
        pk_u32(b, g->max_size);
        pk_u32(b, g->nsites);
        for (uint32_t j = 0; j < g->nsites; j++) {
            pk_u32(b, g->sites[j]);
            pk_site_flag(b, g->info ? g->info[j] : NULL);
        }
        pk_u32(b, g->needs_buffer);
        pk_u32(b, g->buf_site);
        pk_u32(b, g->over_site);
        if (g->needs_buffer) {
            pk_site_flag(b, g->buf_info);
            pk_site_flag(b, g->over_info);
        }
    }
    pk_u32(b, r->nchecks);
    for (uint32_t i = 0; i < r->nchecks; i++) {
        const struct search_group_check *c = &r->checks[i];
        pk_u32(b, c->group);
        pk_u32(b, c->nmembers);
        for (uint32_t j = 0; j < c->nmembers; j++)
            pk_u64(b, c->members[j]);
        pk_u32(b, c->ncross);
        for (uint32_t j = 0; j < c->ncross; j++)
            pk_u64(b, c->cross[j]);
    }
}

static void rd_groups(struct pk_rd *r, struct search_rank_result *res)
{
    uint32_t n = rd_count(r, GROUP_MIN);
    if (n && (res->groups = rd_alloc(r, n, sizeof *res->groups)))
        res->ngroups = n;
    for (uint32_t i = 0; i < res->ngroups && !r->bad; i++) {
        struct search_group *g = &res->groups[i];
        g->comm = rd_u64(r);
        g->peer = rd_i32(r);
        g->call = (uint16_t)rd_u32(r);
        g->groups = rd_u64(r);
        g->members = rd_u64(r);
        g->bytes = rd_u64(r);
        g->send_ns = rd_u64(r);
        g->min_size = rd_u32(r);
        g->max_size = rd_u32(r);
        uint32_t ns = rd_count(r, 5);
        /* info is always allocated (nsites entries), as the engines do */
        g->info = rd_alloc(r, ns, sizeof *g->info);
        if (ns && (g->sites = rd_alloc(r, ns, sizeof *g->sites)))
            g->nsites = ns;
        for (uint32_t j = 0; j < g->nsites && !r->bad; j++) {
            g->sites[j] = rd_u32(r);
            g->info[j] = rd_site_flag(r);
        }
        g->needs_buffer = rd_u32(r) != 0;
        g->buf_site = rd_u32(r);
        g->over_site = rd_u32(r);
        if (g->needs_buffer) {
            g->buf_info = rd_site_flag(r);
            g->over_info = rd_site_flag(r);
        }
    }
}

static void rd_checks(struct pk_rd *r, struct search_rank_result *res)
{
    uint32_t n = rd_count(r, CHECK_MIN);
    if (n && (res->checks = rd_alloc(r, n, sizeof *res->checks)))
        res->nchecks = n;
    for (uint32_t i = 0; i < res->nchecks && !r->bad; i++) {
        struct search_group_check *c = &res->checks[i];
        c->group = rd_u32(r);
        if (!r->bad && c->group >= res->ngroups)
            rd_fail(r, "check of a group that does not exist");
        /* both arrays allocated even when empty, as the engines do */
        uint32_t nm = rd_count(r, 8);
        if ((c->members = rd_alloc(r, nm, sizeof *c->members)))
            c->nmembers = nm;
        for (uint32_t j = 0; j < c->nmembers && !r->bad; j++)
            c->members[j] = rd_u64(r);
        uint32_t nc = rd_count(r, 8);
        if ((c->cross = rd_alloc(r, nc, sizeof *c->cross)))
            c->ncross = nc;
        for (uint32_t j = 0; j < c->ncross && !r->bad; j++)
            c->cross[j] = rd_u64(r);
    }
}

static void ag_unpack(struct pk_rd *r, struct search_rank_result *res)
{
    rd_groups(r, res);
    rd_checks(r, res);
}

const struct search_kind search_kind_aggregate = {
    .desc = {SEARCH_HINT_AGGREGATE, "aggregate", "MessageAggregation",
             "Sends to the same rank that can be sent as one message"},
    .stream = &search_aggregate_stream,
    .reference = search_aggregate_reference,
    .result_free = ag_result_free,
    .result_equal = ag_result_equal,
    .visit = ag_visit,
    .pack = ag_pack,
    .unpack = ag_unpack,
    .merge = search_aggregate_merge,
    .message = search_aggregate_message,
};
