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

/* ---- closed groups -------------------------------------------------------------------- */

static bool ranges_meet(const struct dg_range *a, const struct dg_range *b)
{
    return a->len && b->len && a->addr < b->addr + b->len && b->addr < a->addr + a->len;
}

/* The first member range, in member order, that x meets as reason why:
 * FLOW (x reads, itself or through its companions, bytes a member wrote),
 * OUTPUT (x writes them), ANTI (x writes bytes a member read). */
static const struct search_ag_mrange *first_meet(const struct search_ag_open *g, const struct dg_event *x,
                                                 int why)
{
    for (size_t i = 0; i < g->nmr; i++) {
        const struct search_ag_mrange *m = &g->mr[i];
        if (m->r.write != (why != SEARCH_CLOSE_ANTI))
            continue;
        for (uint32_t j = 0; j < x->nranges; j++)
            if (x->ranges[j].write == (why != SEARCH_CLOSE_FLOW) && ranges_meet(&m->r, &x->ranges[j]))
                return m;
        for (uint32_t j = 0; why == SEARCH_CLOSE_FLOW && j < x->ncranges; j++)
            if (ranges_meet(&m->r, &x->cranges[j]))
                return m;
    }
    return NULL;
}

/* The reason x conflicts with the channel's keys (SEND to dest, RECV from
 * src for exchanges), OTHER if it does not; sends of the group's own kind
 * on its channel (movable sends on any) share the keys without conflict. */
static int key_why(const struct search_ag_open *g, const struct dg_event *x)
{
    int32_t d, src;
    uint64_t req;
    if ((g->family == SEARCH_AG_SEND && dg_is_movable_send(x)) ||
        (g->family == SEARCH_AG_EXCHANGE && search_ag_exchange(x, &d, &src) && x->comm == g->comm &&
         d == g->dest && src == g->src) ||
        (g->family == SEARCH_AG_ISEND && search_ag_isend(x, &d, &req) && x->comm == g->comm && d == g->dest))
        return SEARCH_CLOSE_OTHER;
    struct dg_key ks = {DG_KEY_SEND, g->dest, g->comm}, kr = {DG_KEY_RECV, g->src, g->comm};
    for (uint32_t i = 0; i < x->nkeys; i++)
        if (dg_keys_conflict(&ks, &x->keys[i]))
            return SEARCH_CLOSE_SEND_KEY;
    for (uint32_t i = 0; g->family == SEARCH_AG_EXCHANGE && i < x->nkeys; i++)
        if (dg_keys_conflict(&kr, &x->keys[i]))
            return x->keys[i].peer == DG_PEER_ANY ? SEARCH_CLOSE_RECV_ANY : SEARCH_CLOSE_RECV_KEY;
    return SEARCH_CLOSE_OTHER;
}

static void name_member(struct search_closed *out, uint32_t site, uint16_t call)
{
    out->member_site = site;
    out->member_call = call;
}

/* Reasons in a fixed order, so that an event with several names the same
 * one in both engines: requests acted on, fence, flow, output, keys,
 * needs-buffer group meeting a call that may wait, anti. */
void search_ag_close_why(const struct search_ag_open *g, const struct dg_event *x, struct search_closed *out)
{
    const struct search_ag_mrange *m;
    out->close_site = x->site;
    out->close_mpi = x->kind == DG_MPI;
    out->close_call = out->close_mpi ? x->call : 0;
    out->aux_site = CHT_NONE;
    out->aux_call = 0;
    out->aux_mpi = false;
    out->why = SEARCH_CLOSE_OTHER;
    name_member(out, g->last_site, g->last_call);
    size_t touched = 0;
    const struct search_ag_mreq *first = NULL;
    for (size_t i = 0; g->family == SEARCH_AG_ISEND && i < g->nmq; i++)
        if (search_ag_touches_req(x, g->mq[i].req) && touched++ == 0)
            first = &g->mq[i];
    if (first) {
        out->why = x->kind == DG_MPI && x->role == DG_ROLE_COMPLETE && touched == g->nmq ? SEARCH_CLOSE_REQ_ALL
                                                                                        : SEARCH_CLOSE_REQ_PART;
        if (out->why == SEARCH_CLOSE_REQ_PART)
            name_member(out, first->site, first->call);
    } else if (x->kind == DG_MPI && x->role == DG_ROLE_FENCE) {
        out->why = SEARCH_CLOSE_FENCE;
    } else if ((m = first_meet(g, x, SEARCH_CLOSE_FLOW))) {
        out->why = SEARCH_CLOSE_FLOW;
        name_member(out, m->site, m->call);
    } else if ((m = first_meet(g, x, SEARCH_CLOSE_OUTPUT))) {
        out->why = SEARCH_CLOSE_OUTPUT;
        name_member(out, m->site, m->call);
    } else if ((out->why = (uint8_t)key_why(g, x)) != SEARCH_CLOSE_OTHER) {
        /* every member carries the channel's keys: the last is named */
    } else if (g->family == SEARCH_AG_SEND && g->nb && search_blocks_groups(x)) {
        out->why = SEARCH_CLOSE_NB_WAIT;
        name_member(out, g->nb_buf, g->nb_buf_call);
        out->aux_site = g->nb_over;
        out->aux_call = g->nb_over_call;
        out->aux_mpi = g->nb_over_mpi;
    } else if ((m = first_meet(g, x, SEARCH_CLOSE_ANTI))) {
        out->why = g->family == SEARCH_AG_SEND && g->waited ? SEARCH_CLOSE_ANTI_WAITED : SEARCH_CLOSE_ANTI;
        name_member(out, m->site, m->call);
        if (out->why == SEARCH_CLOSE_ANTI_WAITED) {
            out->aux_site = g->wait_site;
            out->aux_call = g->wait_call;
            out->aux_mpi = true;
        }
    }
}

int search_closed_cmp(const struct search_closed *a, const struct search_closed *b)
{
    const uint64_t x[] = {a->site,        b->site,        a->next_site,   b->next_site, a->close_site,
                          b->close_site,  a->why,         b->why,         a->member_site, b->member_site,
                          a->aux_site,    b->aux_site,    a->call,        b->call,      a->next_call,
                          b->next_call,   a->member_call, b->member_call, a->close_call, b->close_call,
                          a->aux_call,    b->aux_call,    a->close_mpi,   b->close_mpi, a->aux_mpi,
                          b->aux_mpi};
    for (size_t i = 0; i < sizeof x / sizeof x[0]; i += 2)
        if (x[i] != x[i + 1])
            return x[i] < x[i + 1] ? -1 : 1;
    return 0;
}

int search_closed_add(struct search_closed_set *s, const struct search_closed *c)
{
    if (!s->v && !(s->v = malloc(SEARCH_CLOSED_MAX * sizeof *s->v)))
        return TRACE_ERR_NOMEM;
    for (uint32_t i = 0; i < s->n; i++)
        if (search_closed_cmp(&s->v[i], c) == 0) {
            s->v[i].count++;
            return 0;
        }
    uint32_t at = s->n;
    if (s->n == SEARCH_CLOSED_MAX) {
        /* full: c replaces the largest if smaller (an entry once left out
         * is larger than all kept from then on, and never comes back) */
        at = 0;
        for (uint32_t i = 1; i < s->n; i++)
            if (search_closed_cmp(&s->v[i], &s->v[at]) > 0)
                at = i;
        if (search_closed_cmp(c, &s->v[at]) > 0) {
            s->more++;
            return 0;
        }
        s->more += s->v[at].count;
    } else {
        s->n++;
    }
    s->v[at] = *c;
    s->v[at].count = 1;
    s->v[at].info = s->v[at].next_info = s->v[at].close_info = s->v[at].member_info = s->v[at].aux_info = NULL;
    return 0;
}

static int closed_qcmp(const void *a, const void *b)
{
    return search_closed_cmp(a, b);
}

void search_closed_result(struct search_closed_set *s, struct search_rank_result *r)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof *s->v, closed_qcmp);
    if (!s->n) {
        free(s->v);
        s->v = NULL;
    }
    r->closed = s->v;
    r->nclosed = s->n;
    r->closed_more = s->more;
    memset(s, 0, sizeof *s);
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
    free(r->check_moves);
    r->check_moves = NULL;
    r->ncheck_moves = 0;
    free(r->closed);
    free(r->spans);
    r->spans = NULL;
    r->nspans = 0;
    free(r->span_merged);
    free(r->site_sends);
    free(r->span_peers);
    r->span_merged = NULL;
    r->site_sends = NULL;
    r->span_peers = NULL;
    r->nspan_merged = r->nsite_sends = 0;
    r->groups = NULL;
    r->checks = NULL;
    r->closed = NULL;
    r->ngroups = r->nchecks = r->nclosed = 0;
    r->closed_more = 0;
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
            (x->ncross && memcmp(x->cross, y->cross, x->ncross * sizeof *x->cross)) ||
            x->move_off != y->move_off || x->nmoves != y->nmoves)
            return search_differ(why, size,
                                 "check %" PRIu32 ": group %" PRIu32 "/%" PRIu32 " members %" PRIu32
                                 "/%" PRIu32 " (first %" PRIu64 "/%" PRIu64 ") crossings %" PRIu32
                                 "/%" PRIu32 " (first %" PRIu64 "/%" PRIu64 ")",
                                 i, x->group, y->group, x->nmembers, y->nmembers,
                                 x->nmembers ? x->members[0] : 0, y->nmembers ? y->members[0] : 0, x->ncross,
                                 y->ncross, x->ncross ? x->cross[0] : 0, y->ncross ? y->cross[0] : 0);
    }
    if (a->ncheck_moves != b->ncheck_moves ||
        (a->ncheck_moves && memcmp(a->check_moves, b->check_moves, a->ncheck_moves * sizeof *a->check_moves)))
        return search_differ(why, size, "checks' moves %" PRIu32 " != %" PRIu32 " or their positions differ",
                             a->ncheck_moves, b->ncheck_moves);
    return true;
}

static bool closed_diff(const struct search_rank_result *a, const struct search_rank_result *b, char *why,
                        size_t size)
{
    if (a->nclosed != b->nclosed || a->closed_more != b->closed_more)
        return search_differ(why, size, "closed pairs %" PRIu32 " (+%" PRIu64 ") != %" PRIu32 " (+%" PRIu64 ")",
                             a->nclosed, a->closed_more, b->nclosed, b->closed_more);
    for (uint32_t i = 0; i < a->nclosed; i++) {
        const struct search_closed *x = &a->closed[i], *y = &b->closed[i];
        if (search_closed_cmp(x, y) || x->count != y->count)
            return search_differ(why, size,
                                 "closed pair %" PRIu32 ": sites %" PRIu32 "/%" PRIu32 " next %" PRIu32 "/%" PRIu32
                                 " closed at %" PRIu32 "/%" PRIu32 " why %d/%d member %" PRIu32 "/%" PRIu32
                                 " count %" PRIu64 "/%" PRIu64,
                                 i, x->site, y->site, x->next_site, y->next_site, x->close_site, y->close_site,
                                 x->why, y->why, x->member_site, y->member_site, x->count, y->count);
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
    if (a->nspans != b->nspans)
        return search_differ(why, size, "nspans %" PRIu32 " != %" PRIu32, a->nspans, b->nspans);
    for (uint32_t i = 0; i < a->nspans; i++) {
        const struct search_group_span *x = &a->spans[i], *y = &b->spans[i];
        if (x->group != y->group || x->first != y->first || x->last != y->last || x->carry != y->carry ||
            x->first_send != y->first_send || x->merge_off != y->merge_off || x->nmerged != y->nmerged)
            return search_differ(why, size,
                                 "span %" PRIu32 ": group %" PRIu32 "/%" PRIu32 " first %" PRIu64 "/%" PRIu64
                                 " last %" PRIu64 "/%" PRIu64,
                                 i, x->group, y->group, x->first, y->first, x->last, y->last);
    }
    if (a->nspan_merged != b->nspan_merged || a->nsite_sends != b->nsite_sends)
        return search_differ(why, size, "merged members %" PRIu32 " != %" PRIu32, a->nspan_merged,
                             b->nspan_merged);
    for (uint32_t i = 0; i < a->nspan_merged; i++)
        if (a->span_merged[i].pos != b->span_merged[i].pos || a->span_merged[i].t_enter != b->span_merged[i].t_enter ||
            a->span_merged[i].t_exit != b->span_merged[i].t_exit)
            return search_differ(why, size, "merged member %" PRIu32 ": at %" PRIu32 " != %" PRIu32 " or its times differ",
                                 i, a->span_merged[i].pos, b->span_merged[i].pos);
    for (uint32_t i = 0; i < a->nsite_sends; i++)
        if (a->site_sends[i].site != b->site_sends[i].site || a->site_sends[i].sends != b->site_sends[i].sends)
            return search_differ(why, size, "sends at site %" PRIu32 ": %" PRIu64 " != %" PRIu64,
                                 a->site_sends[i].site, a->site_sends[i].sends, b->site_sends[i].sends);
    return checks_diff(a, b, why, size) && closed_diff(a, b, why, size);
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
    for (uint32_t i = 0; i < r->nclosed && v->site; i++) {
        struct search_closed *c = &r->closed[i];
        if (v->site(v->ctx, c->site, &c->info) || v->site(v->ctx, c->next_site, &c->next_info) ||
            v->site(v->ctx, c->close_site, &c->close_info) || v->site(v->ctx, c->member_site, &c->member_info) ||
            (c->aux_site != CHT_NONE && v->site(v->ctx, c->aux_site, &c->aux_info)))
            return true;
    }
    return false;
}

/* ---- packing: the groups with their sites, then the checks with their
 * members and crossings, each array after its u32 count ------------------------------------ */

#define GROUP_MIN (8u + 4 + 4 + 4 + 4 * 8 + 2 * 4 + 3 * 4)
#define CHECK_MIN (4u + 4 + 4 + 4 + 4)
#define CLOSED_MIN (5 * 4u + 5 + 5 * 2 + 3 + 8)

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
        pk_u32(b, c->move_off);
        pk_u32(b, c->nmoves);
    }
    pk_u32(b, r->ncheck_moves);
    for (uint32_t i = 0; i < r->ncheck_moves; i++) {
        pk_u32(b, r->check_moves[i].pos);
        pk_u32(b, r->check_moves[i].after);
    }
    pk_u32(b, r->nspans);
    for (uint32_t i = 0; i < r->nspans; i++) {
        pk_u32(b, r->spans[i].group);
        pk_u64(b, r->spans[i].first);
        pk_u64(b, r->spans[i].last);
        pk_u32(b, r->spans[i].carry);
        pk_u32(b, r->spans[i].first_send);
        pk_u32(b, r->spans[i].merge_off);
        pk_u32(b, r->spans[i].nmerged);
    }
    pk_u32(b, r->nspan_merged);
    for (uint32_t i = 0; i < r->nspan_merged; i++) {
        pk_u32(b, r->span_merged[i].pos);
        pk_u64(b, r->span_merged[i].t_enter);
        pk_u64(b, r->span_merged[i].t_exit);
    }
    pk_u32(b, r->nsite_sends);
    for (uint32_t i = 0; i < r->nsite_sends; i++) {
        pk_u32(b, r->site_sends[i].site);
        pk_u64(b, r->site_sends[i].sends);
    }
    pk_u32(b, r->nclosed);
    pk_u64(b, r->closed_more);
    for (uint32_t i = 0; i < r->nclosed; i++) {
        const struct search_closed *c = &r->closed[i];
        const uint32_t sites[5] = {c->site, c->next_site, c->close_site, c->member_site, c->aux_site};
        const struct trace_site_info *infos[5] = {c->info, c->next_info, c->close_info, c->member_info,
                                                  c->aux_info};
        for (int k = 0; k < 5; k++) {
            pk_u32(b, sites[k]);
            pk_site_flag(b, infos[k]);
        }
        pk_u16(b, c->call);
        pk_u16(b, c->next_call);
        pk_u16(b, c->member_call);
        pk_u16(b, c->close_call);
        pk_u16(b, c->aux_call);
        pk_u8(b, c->why);
        pk_u8(b, c->close_mpi);
        pk_u8(b, c->aux_mpi);
        pk_u64(b, c->count);
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
        c->move_off = rd_u32(r);
        c->nmoves = rd_u32(r);
    }
    uint32_t nm = rd_count(r, 8);
    if (nm && (res->check_moves = rd_alloc(r, nm, sizeof *res->check_moves)))
        res->ncheck_moves = nm;
    for (uint32_t i = 0; i < res->ncheck_moves && !r->bad; i++) {
        res->check_moves[i].pos = rd_u32(r);
        res->check_moves[i].after = rd_u32(r);
        if (!r->bad && res->check_moves[i].pos >= res->check_moves[i].after)
            rd_fail(r, "a check's move that does not delay its record");
    }
    /* each check's moves inside the table (the positions are the log's:
     * the replay checks each move's) */
    for (uint32_t i = 0; i < res->nchecks && !r->bad; i++) {
        const struct search_group_check *c = &res->checks[i];
        if (c->move_off > res->ncheck_moves || c->nmoves > res->ncheck_moves - c->move_off)
            rd_fail(r, "check facts outside their table");
    }
}

static void rd_closed(struct pk_rd *r, struct search_rank_result *res)
{
    uint32_t n = rd_count(r, CLOSED_MIN);
    res->closed_more = rd_u64(r);
    if (!r->bad && n > SEARCH_CLOSED_MAX)
        rd_fail(r, "more closed pairs than a rank keeps");
    if (n && !r->bad && (res->closed = rd_alloc(r, n, sizeof *res->closed)))
        res->nclosed = n;
    for (uint32_t i = 0; i < res->nclosed && !r->bad; i++) {
        struct search_closed *c = &res->closed[i];
        uint32_t *sites[5] = {&c->site, &c->next_site, &c->close_site, &c->member_site, &c->aux_site};
        const struct trace_site_info **infos[5] = {&c->info, &c->next_info, &c->close_info, &c->member_info,
                                                   &c->aux_info};
        for (int k = 0; k < 5; k++) {
            *sites[k] = rd_u32(r);
            *infos[k] = rd_site_flag(r);
        }
        c->call = rd_u16(r);
        c->next_call = rd_u16(r);
        c->member_call = rd_u16(r);
        c->close_call = rd_u16(r);
        c->aux_call = rd_u16(r);
        c->why = rd_u8(r);
        c->close_mpi = rd_u8(r) != 0;
        c->aux_mpi = rd_u8(r) != 0;
        c->count = rd_u64(r);
        if (!r->bad && c->why >= SEARCH_CLOSE_WHY_COUNT)
            rd_fail(r, "closed pair with an unknown reason");
    }
}

static void rd_spans(struct pk_rd *r, struct search_rank_result *res)
{
    uint32_t n = rd_count(r, 36);
    if (n && (res->spans = rd_alloc(r, n, sizeof *res->spans)))
        res->nspans = n;
    for (uint32_t i = 0; i < res->nspans && !r->bad; i++) {
        struct search_group_span *s = &res->spans[i];
        s->group = rd_u32(r);
        s->first = rd_u64(r);
        s->last = rd_u64(r);
        s->carry = rd_u32(r);
        s->first_send = rd_u32(r);
        s->merge_off = rd_u32(r);
        s->nmerged = rd_u32(r);
        if (!r->bad && (s->group >= res->ngroups || s->last < s->first))
            rd_fail(r, "span of a group that does not exist");
    }
    uint32_t nm = rd_count(r, 20);
    if (nm && (res->span_merged = rd_alloc(r, nm, sizeof *res->span_merged)))
        res->nspan_merged = nm;
    for (uint32_t i = 0; i < res->nspan_merged && !r->bad; i++) {
        res->span_merged[i].pos = rd_u32(r);
        res->span_merged[i].t_enter = rd_u64(r);
        res->span_merged[i].t_exit = rd_u64(r);
    }
    /* each span's members inside the table, before its carrying send (the
     * positions are the log's: the replay checks each change's) */
    for (uint32_t i = 0; i < res->nspans && !r->bad; i++) {
        const struct search_group_span *s = &res->spans[i];
        if ((s->carry != UINT32_MAX && s->first_send > s->carry) || s->merge_off > res->nspan_merged ||
            s->nmerged > res->nspan_merged - s->merge_off)
            rd_fail(r, "span facts outside their table");
        for (uint32_t k = 0; k < s->nmerged && !r->bad; k++)
            if (res->span_merged[s->merge_off + k].pos >= s->carry)
                rd_fail(r, "a merged member after its carrying send");
    }
    uint32_t ns = rd_count(r, 12);
    if (ns && (res->site_sends = rd_alloc(r, ns, sizeof *res->site_sends)))
        res->nsite_sends = ns;
    for (uint32_t i = 0; i < res->nsite_sends && !r->bad; i++) {
        res->site_sends[i].site = rd_u32(r);
        res->site_sends[i].sends = rd_u64(r);
        if (i && res->site_sends[i].site <= res->site_sends[i - 1].site)
            rd_fail(r, "sends per site out of order");
    }
}

static void ag_unpack(struct pk_rd *r, struct search_rank_result *res)
{
    rd_groups(r, res);
    rd_checks(r, res);
    rd_spans(r, res);
    rd_closed(r, res);
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
    .log_facts = search_aggregate_log_facts,
    .peer_facts = search_aggregate_peer_facts,
    .peer_pack = search_aggregate_peer_pack,
    .peer_unpack = search_aggregate_peer_unpack,
    .merge = search_aggregate_merge,
    .message = search_aggregate_message,
};
