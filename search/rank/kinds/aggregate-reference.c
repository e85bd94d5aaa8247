/* aggregate-reference.c - the aggregation kind in the reference engine:
 * the paper's Fig. 5 with the fixes of docs/dependence.md ("Message
 * aggregation", "Defects of the paper's pseudo-code").  It computes every
 * movable send's anchor by scanning backward, builds the pre-processed
 * order by a stable sort on the anchors, and walks it to classify sends
 * into groups; no send moves across a call that may wait for another
 * rank.  Exchanges (Sendrecv) and nonblocking sends do not move earlier:
 * they are grouped in trace order, each group sent at the place of its
 * last member.
 */
#include "rank/kinds/aggregate.h"

/* Pre-processed order sort key: non-movable event i -> (i, 0, i), movable
 * send s -> (ea(s), 1, s). */
struct order_key {
    int64_t anchor;
    int kind;
    uint64_t index;
};

static int cmp_order(const void *a, const void *b)
{
    const struct order_key *x = a, *y = b;

    if (x->anchor != y->anchor)
        return x->anchor < y->anchor ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* One dynamic group of two or more sends, before summarising. */
struct ref_group {
    struct search_group key; /* comm, peer and sites (nsites of size allocated) */
    uint32_t size;
    uint64_t bytes, ns;
    uint64_t first, last; /* event indices of the first and last members */
    /* the blocking calls a member is delayed past (docs/dependence.md,
     * "Deadlock safety"): the first SEARCH_CHECK_MAX members and crossings */
    uint64_t *cmembers, *cross;
    uint32_t ncm, ncross;
};

static int cmp_group(const void *a, const void *b)
{
    return search_group_cmp(&((const struct ref_group *)a)->key, &((const struct ref_group *)b)->key);
}

/* A channel's last group, if an event closed it: why, until the next
 * group of the channel (docs/dependence.md, "What --explain says of
 * closed groups"). */
struct pending {
    uint8_t family;         /* enum search_ag_family */
    uint64_t comm;
    int32_t dest, src;
    bool has;
    struct search_closed cl; /* with site and call: the group's last member */
};

/* What the classification works with. */
struct ag_ref {
    struct search_ref *x;
    int64_t *ea;            /* anchors of the movable sends */
    struct order_key *ord;  /* the pre-processed order */
    uint8_t *grouped;
    uint64_t *members;      /* of the group being made */
    struct ref_group *grp;
    size_t ngrp, capgrp;
    struct pending *pend;
    size_t npend, cpend;
    struct search_ag_mrange *mr; /* the members' ranges, for search_ag_close_why */
    size_t nmr, cmr;
    struct search_ag_mreq *mq;
    size_t nmq, cmq;
    struct search_closed_set closed;
};

/* The pending closure of a channel, made if new (NULL if out of memory). */
static struct pending *pending_of(struct ag_ref *a, uint8_t family, uint64_t comm, int32_t dest, int32_t src)
{
    for (size_t i = 0; i < a->npend; i++) {
        struct pending *p = &a->pend[i];
        if (p->family == family && p->comm == comm && p->dest == dest && p->src == src)
            return p;
    }
    struct pending p = {.family = family, .comm = comm, .dest = dest, .src = src};
    SEARCH_VEC_PUSH(a->pend, a->npend, a->cpend, p, nomem);
    return &a->pend[a->npend - 1];
nomem:
    return NULL;
}

/* Send `seed` begins a group of its channel: if an event closed the
 * channel's last group, the two make a closed pair. */
static int pair_seed(struct ag_ref *a, struct pending *p, const struct dg_event *seed)
{
    if (!p->has)
        return 0;
    p->has = false;
    p->cl.next_site = seed->site;
    p->cl.next_call = seed->call;
    return search_closed_add(&a->closed, &p->cl);
}

/* The open group of the nm members in a->members, of channel p, as the
 * event that closes it finds it; with_ranges false leaves their ranges
 * out (sends in needs-buffer mode). */
static int open_view(struct ag_ref *a, size_t nm, bool with_ranges, const struct pending *p,
                     struct search_ag_open *o)
{
    const struct dg_event *ev = a->x->ev;
    int32_t d;
    uint64_t req;
    a->nmr = a->nmq = 0;
    for (size_t m = 0; m < nm; m++) {
        const struct dg_event *e = &ev[a->members[m]];
        for (uint32_t k = 0; with_ranges && k < e->nranges; k++) {
            struct search_ag_mrange r = {e->index, e->site, e->call, e->ranges[k]};
            SEARCH_VEC_PUSH(a->mr, a->nmr, a->cmr, r, nomem);
        }
        if (p->family == SEARCH_AG_ISEND && search_ag_isend(e, &d, &req)) {
            struct search_ag_mreq q = {req, e->site, e->call};
            SEARCH_VEC_PUSH(a->mq, a->nmq, a->cmq, q, nomem);
        }
    }
    memset(o, 0, sizeof *o);
    o->family = p->family;
    o->comm = p->comm;
    o->dest = p->dest;
    o->src = p->src;
    o->mr = a->mr;
    o->nmr = a->nmr;
    o->mq = a->mq;
    o->nmq = a->nmq;
    o->last_site = ev[a->members[nm - 1]].site;
    o->last_call = ev[a->members[nm - 1]].call;
    return 0;
nomem:
    return TRACE_ERR_NOMEM;
}

/* Event y closed the group of the nm members of channel p: why, kept
 * until the channel's next group (o: the view, made by open_view). */
static void pending_close(struct ag_ref *a, size_t nm, struct pending *p, const struct search_ag_open *o,
                          size_t y)
{
    const struct dg_event *ev = a->x->ev;
    search_ag_close_why(o, &ev[y], &p->cl);
    p->has = true;
    p->cl.site = ev[a->members[nm - 1]].site;
    p->cl.call = ev[a->members[nm - 1]].call;
}

/* ea(s) for every movable send s (other entries unused): the largest of,
 * over the events e_j before s with e_j -> s, j when e_j is not a movable
 * send and ea(e_j) when it is; -1 if none.  A send also depends on every
 * earlier blocking call that may wait for another rank
 * (search_blocks_groups).  Every term is at most j, so the scan can stop
 * once j is not above the best term found. */
static void anchors(const struct dg_event *ev, size_t n, int64_t *ea)
{
    for (size_t s = 0; s < n; s++) {
        int64_t best = -1;

        if (!dg_is_movable_send(&ev[s]))
            continue;
        for (int64_t j = (int64_t)s - 1; j > best; j--) {
            int64_t term;
            if (!search_blocks_groups(&ev[j]) && !dg_depends(&ev[j], &ev[s], true))
                continue;
            term = dg_is_movable_send(&ev[j]) ? ea[j] : j;
            if (term > best)
                best = term;
        }
        ea[s] = best;
    }
}

/* What a walk found beyond its members: the first event that overwrote a
 * member's send buffer (needs-buffer mode), and that member. */
struct walk_nb {
    int64_t over;   /* event index, -1 if none */
    bool blocked;   /* the walk passed a call that may wait for another rank */
    size_t wait;    /* the first such call */
    size_t buf;     /* the member's event index */
    size_t prefix;  /* members before it */
    int64_t closed; /* the event that closed the group, -1 if none */
};

/* Whether event y closes the group of the nm members: some member
 * depends on it other than through its send buffer; the first member
 * whose buffer y overwrites goes to nb (if not there yet). */
static bool walk_closes(struct ag_ref *a, size_t nm, size_t y, struct walk_nb *nb)
{
    const struct dg_event *ev = a->x->ev;
    int64_t buf = -1;
    if (search_blocks_groups(&ev[y])) {
        if (nb->over >= 0)
            return true; /* a needs-buffer group waits for no other rank */
        if (!nb->blocked)
            nb->wait = y;
        nb->blocked = true;
    }
    for (size_t m = 0; m < nm; m++) {
        const struct dg_event *me = &ev[a->members[m]];
        if (!dg_depends(me, &ev[y], false))
            continue;
        if (nb->blocked || !search_ag_buffer_only(me, &ev[y]))
            return true;
        if (buf < 0 || a->members[m] < (size_t)buf)
            buf = (int64_t)a->members[m];
    }
    if (buf >= 0 && nb->over < 0) {
        nb->over = (int64_t)y;
        nb->buf = (size_t)buf;
        nb->prefix = nm;
    }
    return false;
}

/* The members of the group the send at order position p seeds: the walk
 * continues until an event depends on a member other than by overwriting
 * its send buffer; movable sends of the seed's channel not grouped yet
 * join.  If a member joins after such an overwrite, the group needs a
 * buffer per message (nb); else it ends at that overwrite.  A group that
 * needs a buffer waits for no other rank: an overwrite after a call that
 * may wait closes it, and past an overwrite such a call closes it (the
 * caller drops the overwrite if no member joined after it).  Returns the
 * number of members; nb->closed is the event that closed the group. */
static size_t walk(struct ag_ref *a, size_t p, struct walk_nb *nb)
{
    const struct dg_event *ev = a->x->ev;
    size_t n = a->x->n, seed = a->ord[p].index, nm = 0;

    nb->over = nb->closed = -1;
    nb->blocked = false;
    a->members[nm++] = seed;
    a->grouped[seed] = 1;
    bool crossed = false; /* a call that may wait for another rank since the last member */
    for (size_t q = p + 1; q < n; q++) {
        size_t y = a->ord[q].index;
        if (walk_closes(a, nm, y, nb)) {
            nb->closed = (int64_t)y;
            break;
        }
        if (dg_is_movable_send(&ev[y]) && !a->grouped[y] && ev[y].comm == ev[seed].comm &&
            ev[y].peer == ev[seed].peer) {
            /* the next round of a loop around that call: a group of its own */
            bool known = false;
            for (size_t m = 0; crossed && m < nm && !known; m++)
                known = ev[a->members[m]].site == ev[y].site;
            if (known)
                break;
            a->members[nm++] = y;
            a->grouped[y] = 1;
            crossed = false;
        }
        crossed |= search_blocks_groups(&ev[y]);
    }
    return nm;
}

/* The walk's group of nm sends was closed (nb->closed): why.  Its
 * members' ranges count until needs-buffer mode (the over-th event). */
static int send_closed(struct ag_ref *a, size_t nm, struct pending *pd, const struct walk_nb *nb)
{
    const struct dg_event *ev = a->x->ev;
    struct search_ag_open o;
    int rc = open_view(a, nm, nb->over < 0, pd, &o);
    if (rc < 0)
        return rc;
    if (nb->over >= 0) {
        o.nb = true;
        o.nb_buf = ev[nb->buf].site;
        o.nb_buf_call = ev[nb->buf].call;
        o.nb_over = ev[nb->over].site;
        o.nb_over_mpi = ev[nb->over].kind == DG_MPI;
        o.nb_over_call = o.nb_over_mpi ? ev[nb->over].call : 0;
    }
    if ((o.waited = nb->blocked)) {
        o.wait_site = ev[nb->wait].site;
        o.wait_call = ev[nb->wait].call;
    }
    pending_close(a, nm, pd, &o, (size_t)nb->closed);
    return 0;
}

/* Records the group of the nm sends or exchanges in a->members, sent
 * right after event `until`. */
static int group_add(struct ag_ref *a, size_t nm, int64_t until, const struct walk_nb *nb)
{
    struct search_ref *x = a->x;
    const struct dg_event *ev = x->ev;
    int rc = search_ref_grow(x, (void **)&a->grp, &a->capgrp, a->ngrp + 1, sizeof(*a->grp));
    if (rc < 0)
        return rc;
    struct ref_group *g = &a->grp[a->ngrp++];
    memset(g, 0, sizeof(*g));
    g->key.comm = ev[a->members[0]].comm;
    g->key.peer = ev[a->members[0]].peer;
    g->key.call = ev[a->members[0]].call;
    int32_t d, src;
    uint64_t req;
    if (search_ag_exchange(&ev[a->members[0]], &d, &src) || search_ag_isend(&ev[a->members[0]], &d, &req))
        g->key.peer = d; /* these events have no peer: their destination */
    g->key.buf_site = g->key.over_site = CHT_NONE;
    if (nb && nb->over >= 0) {
        g->key.needs_buffer = true;
        g->key.buf_site = ev[nb->buf].site;
        g->key.over_site = ev[nb->over].site;
    }
    g->size = (uint32_t)nm;
    g->first = ev[a->members[0]].index;
    g->last = ev[a->members[nm - 1]].index;
    if (!(g->key.sites = search_ref_alloc(x, nm, sizeof(*g->key.sites))))
        return TRACE_ERR_NOMEM;
    for (size_t m = 0; m < nm; m++) {
        const struct dg_event *e = &ev[a->members[m]];
        bool seen = false;
        for (uint32_t k = 0; k < g->key.nsites && !seen; k++)
            seen = g->key.sites[k] == e->site;
        if (!seen)
            g->key.sites[g->key.nsites++] = e->site;
        g->bytes += e->bytes;
        g->ns += search_call_ns(e);
    }
    /* sent together right after event `until` (ea(last member) for sends,
     * the one before the last member for exchanges): the members are
     * delayed past the blocking calls between the first of them and
     * that point (the members of one channel keep their trace order, so
     * members[0] is the first), other than the group's own exchanges */
    for (int64_t w = (int64_t)a->members[0] + 1; w <= until; w++) {
        if (!search_blocks_groups(&ev[w]) || search_ag_same_exchange(&ev[w], &ev[a->members[0]]))
            continue;
        if (!g->cross) {
            g->cross = search_ref_alloc(x, SEARCH_CHECK_MAX, sizeof(*g->cross));
            g->cmembers = search_ref_alloc(x, SEARCH_CHECK_MAX, sizeof(*g->cmembers));
            if (!g->cross || !g->cmembers)
                return TRACE_ERR_NOMEM;
            for (size_t m = 0; m < nm && m < SEARCH_CHECK_MAX; m++)
                g->cmembers[g->ncm++] = ev[a->members[m]].index;
        }
        if (g->ncross < SEARCH_CHECK_MAX)
            g->cross[g->ncross++] = ev[w].index;
    }
    return 0;
}

/* The check of dynamic group g, which belongs to the last summary. */
static int check_add(struct search_rank_result *res, const struct ref_group *g)
{
    struct search_group_check *nc = realloc(res->checks, (res->nchecks + 1) * sizeof(*nc));
    if (!nc)
        return TRACE_ERR_NOMEM;
    res->checks = nc;
    struct search_group_check *c = &res->checks[res->nchecks];
    memset(c, 0, sizeof(*c));
    c->members = malloc(g->ncm * sizeof(*c->members));
    c->cross = malloc(g->ncross * sizeof(*c->cross));
    if (!c->members || !c->cross) {
        free(c->members);
        free(c->cross);
        return TRACE_ERR_NOMEM;
    }
    res->nchecks++;
    c->group = res->ngroups - 1;
    c->nmembers = g->ncm;
    c->ncross = g->ncross;
    memcpy(c->members, g->cmembers, g->ncm * sizeof(*c->members));
    memcpy(c->cross, g->cross, g->ncross * sizeof(*c->cross));
    return 0;
}

/* The summary of the dynamic groups grp[0..n), which have the same
 * signature. */
static int summarise(struct search_rank_result *res, const struct ref_group *grp, size_t n)
{
    struct search_group *ng = realloc(res->groups, (res->ngroups + 1) * sizeof(*ng));
    if (!ng)
        return TRACE_ERR_NOMEM;
    res->groups = ng;
    struct search_group *s = &res->groups[res->ngroups];
    memset(s, 0, sizeof(*s));
    if (!(s->sites = malloc(grp[0].key.nsites * sizeof(*s->sites))))
        return TRACE_ERR_NOMEM;
    res->ngroups++;
    memcpy(s->sites, grp[0].key.sites, grp[0].key.nsites * sizeof(*s->sites));
    s->nsites = grp[0].key.nsites;
    s->comm = grp[0].key.comm;
    s->peer = grp[0].key.peer;
    s->call = grp[0].key.call;
    s->needs_buffer = grp[0].key.needs_buffer;
    s->buf_site = grp[0].key.buf_site;
    s->over_site = grp[0].key.over_site;
    s->min_size = UINT32_MAX;
    for (size_t k = 0; k < n; k++) {
        int rc;
        if (grp[k].ncross && (rc = check_add(res, &grp[k])) < 0)
            return rc;
        struct search_group_span *sp = realloc(res->spans, (res->nspans + 1) * sizeof *sp);
        if (!sp)
            return TRACE_ERR_NOMEM;
        res->spans = sp;
        res->spans[res->nspans++] =
            (struct search_group_span){.group = res->ngroups - 1, .first = grp[k].first, .last = grp[k].last};
        s->groups++;
        s->members += grp[k].size;
        s->bytes += grp[k].bytes;
        s->send_ns += grp[k].ns;
        if (grp[k].size < s->min_size)
            s->min_size = grp[k].size;
        if (grp[k].size > s->max_size)
            s->max_size = grp[k].size;
    }
    return 0;
}

/* The groups of exchanges, in trace order: each exchange not grouped yet
 * seeds a group; the walk goes on until an event depends on a member
 * (search_ag_depends); the exchanges of the seed's channel before it join. */
static int exchanges(struct ag_ref *a)
{
    const struct dg_event *ev = a->x->ev;
    size_t n = a->x->n;
    int32_t d, src;
    int rc;

    for (size_t s = 0; s < n; s++) {
        if (a->grouped[s] || !search_ag_exchange(&ev[s], &d, &src))
            continue;
        size_t nm = 0;
        struct pending *pd = pending_of(a, SEARCH_AG_EXCHANGE, ev[s].comm, d, src);
        if (!pd || (rc = pair_seed(a, pd, &ev[s])) < 0)
            return pd ? rc : TRACE_ERR_NOMEM;
        a->members[nm++] = s;
        a->grouped[s] = 1;
        for (size_t y = s + 1; y < n; y++) {
            bool closes = false;
            for (size_t m = 0; m < nm && !closes; m++)
                closes = search_ag_depends(&ev[a->members[m]], &ev[y]);
            if (closes) {
                struct search_ag_open o;
                if ((rc = open_view(a, nm, true, pd, &o)) < 0)
                    return rc;
                pending_close(a, nm, pd, &o, y);
                break;
            }
            if (search_ag_same_exchange(&ev[y], &ev[s])) {
                a->members[nm++] = y;
                a->grouped[y] = 1;
            }
        }
        if (nm >= 2 && (rc = group_add(a, nm, (int64_t)a->members[nm - 1] - 1, NULL)) < 0)
            return rc;
    }
    return 0;
}

/* Whether y completes every member of the group in a->members[0..nm):
 * it is a completion carrying all their requests. */
static bool completes_all(const struct ag_ref *a, size_t nm, const struct dg_event *y)
{
    int32_t d;
    uint64_t req;
    if (y->kind != DG_MPI || y->role != DG_ROLE_COMPLETE)
        return false;
    for (size_t m = 0; m < nm; m++)
        if (!search_ag_isend(&a->x->ev[a->members[m]], &d, &req) || !search_ag_touches_req(y, req))
            return false;
    return true;
}

/* Whether y acts on the request of a member in a->members[0..nm). */
static bool touches_member(const struct ag_ref *a, size_t nm, const struct dg_event *y)
{
    int32_t d;
    uint64_t req;
    for (size_t m = 0; m < nm; m++)
        if (search_ag_isend(&a->x->ev[a->members[m]], &d, &req) && search_ag_touches_req(y, req))
            return true;
    return false;
}

/* The groups of nonblocking sends, in trace order: each one not grouped
 * yet seeds a group; nonblocking sends of its channel join until an event
 * depends on a member; the group counts only if the first event that acts
 * on a member's request completes all of them, with no fence and no other
 * nonblocking send of the channel before it. */
static int isends(struct ag_ref *a)
{
    const struct dg_event *ev = a->x->ev;
    size_t n = a->x->n;
    int32_t d;
    uint64_t req;
    int rc;

    for (size_t s = 0; s < n; s++) {
        if (a->grouped[s] || !search_ag_isend(&ev[s], &d, &req))
            continue;
        size_t nm = 0;
        bool joining = true, valid = false;
        struct pending *pd = pending_of(a, SEARCH_AG_ISEND, ev[s].comm, d, -1);
        if (!pd || (rc = pair_seed(a, pd, &ev[s])) < 0)
            return pd ? rc : TRACE_ERR_NOMEM;
        a->members[nm++] = s;
        a->grouped[s] = 1;
        for (size_t y = s + 1; y < n; y++) {
            bool touches = touches_member(a, nm, &ev[y]);
            bool fence = ev[y].kind == DG_MPI && ev[y].role == DG_ROLE_FENCE;
            bool was = joining;
            for (size_t m = 0; m < nm && joining && !touches && !fence; m++)
                joining = !search_ag_depends(&ev[a->members[m]], &ev[y]);
            if (was && (touches || fence || !joining)) { /* y stops the group taking members */
                struct search_ag_open o;
                if ((rc = open_view(a, nm, true, pd, &o)) < 0)
                    return rc;
                pending_close(a, nm, pd, &o, y);
                joining = false;
            }
            if (touches) {
                valid = completes_all(a, nm, &ev[y]);
                break;
            }
            if (fence)
                break;
            if (search_ag_same_isend(&ev[y], &ev[s])) {
                if (!joining)
                    break; /* a second group of the channel before this one completes */
                a->members[nm++] = y;
                a->grouped[y] = 1;
            }
        }
        if (valid && nm >= 2 && (rc = group_add(a, nm, (int64_t)a->members[nm - 1] - 1, NULL)) < 0)
            return rc;
    }
    return 0;
}

/* Anchors, the pre-processed order, and the dynamic groups in a->grp. */
static int classify(struct ag_ref *a)
{
    const struct dg_event *ev = a->x->ev;
    size_t n = a->x->n;
    int rc;

    anchors(ev, n, a->ea);
    for (size_t i = 0; i < n; i++) {
        bool mv = dg_is_movable_send(&ev[i]);
        a->ord[i].anchor = mv ? a->ea[i] : (int64_t)i;
        a->ord[i].kind = mv ? 1 : 0;
        a->ord[i].index = i;
    }
    qsort(a->ord, n, sizeof(*a->ord), cmp_order);
    /* every ungrouped movable send seeds a group, which the first event
     * that depends on a member closes */
    for (size_t p = 0; p < n; p++) {
        size_t seed = a->ord[p].index;
        if (!dg_is_movable_send(&ev[seed]) || a->grouped[seed])
            continue;
        struct walk_nb nb;
        struct pending *pd = pending_of(a, SEARCH_AG_SEND, ev[seed].comm, ev[seed].peer, -1);
        if (!pd || (rc = pair_seed(a, pd, &ev[seed])) < 0)
            return pd ? rc : TRACE_ERR_NOMEM;
        size_t nm = walk(a, p, &nb);
        if (nb.closed >= 0 && (rc = send_closed(a, nm, pd, &nb)) < 0)
            return rc;
        if (nb.over >= 0 && nm == nb.prefix)
            nb.over = -1; /* nothing joined past the overwrite: as before */
        if (nm >= 2 && (rc = group_add(a, nm, a->ea[a->members[nm - 1]], &nb)) < 0)
            return rc;
    }
    if ((rc = exchanges(a)) < 0)
        return rc;
    return isends(a);
}

int search_aggregate_reference(struct search_ref *x, struct search_rank_result *res)
{
    struct ag_ref a = {.x = x};
    struct search_msgcost mc = {0};
    size_t n = x->n;
    int rc = TRACE_ERR_NOMEM;

    for (size_t i = 0; i < n; i++)
        if (dg_is_movable_send(&x->ev[i]))
            search_msgcost_add(&mc, x->ev[i].bytes, search_call_ns(&x->ev[i]));
    res->msg_latency_ns = search_msgcost_latency(&mc);
    a.ea = search_ref_alloc(x, n, sizeof(*a.ea));
    a.ord = search_ref_alloc(x, n, sizeof(*a.ord));
    a.grouped = search_ref_alloc(x, n, sizeof(*a.grouped));
    a.members = search_ref_alloc(x, n, sizeof(*a.members));
    if (!a.ea || !a.ord || !a.grouped || !a.members || (rc = classify(&a)) < 0)
        goto out;
    search_closed_result(&a.closed, res);
    /* summaries per (comm, peer, sites) */
    if (a.ngrp > 1)
        qsort(a.grp, a.ngrp, sizeof(*a.grp), cmp_group);
    for (size_t i = 0; i < a.ngrp;) {
        size_t j = i;
        while (j < a.ngrp && cmp_group(&a.grp[i], &a.grp[j]) == 0)
            j++;
        if ((rc = summarise(res, a.grp + i, j - i)) < 0)
            goto out;
        i = j;
    }
    rc = search_groups_make_info(res);
out:
    for (size_t k = 0; k < a.ngrp; k++) {
        search_ref_free(x, a.grp[k].key.sites, a.grp[k].size, sizeof(*a.grp[k].key.sites));
        search_ref_free(x, a.grp[k].cross, SEARCH_CHECK_MAX, sizeof(*a.grp[k].cross));
        search_ref_free(x, a.grp[k].cmembers, SEARCH_CHECK_MAX, sizeof(*a.grp[k].cmembers));
    }
    if (res->nchecks > 1)
        qsort(res->checks, res->nchecks, sizeof(*res->checks), search_check_cmp);
    if (res->nspans > 1)
        qsort(res->spans, res->nspans, sizeof(*res->spans), search_span_cmp);
    search_ref_free(x, a.grp, a.capgrp, sizeof(*a.grp));
    search_ref_free(x, a.members, n, sizeof(*a.members));
    search_ref_free(x, a.grouped, n, sizeof(*a.grouped));
    search_ref_free(x, a.ord, n, sizeof(*a.ord));
    search_ref_free(x, a.ea, n, sizeof(*a.ea));
    free(a.pend);
    free(a.mr);
    free(a.mq);
    free(a.closed.v);
    return rc;
}
