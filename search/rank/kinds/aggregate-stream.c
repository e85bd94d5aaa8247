/* aggregate-stream.c - the aggregation kind in the streaming engine
 * (docs/dependence.md, "Message aggregation").
 *
 * Each channel (communicator, destination) has at most one open group.
 * A movable send's anchor (search_stream_deps) says where the
 * pre-processing would put it: it joins its channel's group if it lands
 * before the first event that depends on a member (found by watching the
 * members' accesses and keys); else it ends that group and seeds the next
 * one.  Groups of two or more sends are summed per (channel, member sites);
 * those that delay a send past a blocking call leave a check for the
 * cross-rank deadlock test.
 *
 * Exchanges (Sendrecv) do not move: each channel (communicator,
 * destination, source) of exchanges has at most one open group, which the
 * next exchange of the channel joins unless an event depended on a
 * member.  Their members are watched by their ranges; their keys, the
 * same for every member, are checked here (an exchange of the channel
 * does not conflict with them).  Nonblocking sends likewise, on channels
 * (communicator, destination) of their own; their group counts only if
 * the first event that acts on a member's request completes them all.
 */
#include "rank/kinds/aggregate.h"

struct chan {
    uint64_t comm;
    int32_t peer;
    int32_t src;         /* exchanges: the source; sends: CHAN_SEND; nonblocking: CHAN_ISEND */
    uint16_t call;       /* of the first member */
    struct search_ag_mreq *reqs; /* nonblocking: the members' requests */
    uint32_t nreqs, creqs;
    bool valid;          /* nonblocking: completed together */
    bool active;         /* a group exists */
    bool closed;         /* an event depended on a member */
    uint64_t closed_x;   /* index of that event */
    uint64_t owner;      /* watch owner of the members (sends: without their ranges) */
    uint64_t bowner;     /* sends: watch owner of the members' send buffers */
    /* sends: needs-buffer mode (docs/dependence.md, "Needs a buffer per
     * message"), entered at the first event nb_x that only overwrote a
     * member's buffer; nb_joined once a send lands after it */
    bool nb, nb_joined;
    uint64_t nb_x;
    uint32_t nb_buf, nb_over;
    uint16_t nb_buf_call, nb_over_call;
    bool nb_over_mpi;
    /* the members' ranges until the group closes (sends: until
     * needs-buffer mode), to name the buffer and say why it closed */
    struct search_ag_mrange *mr;
    uint32_t nmr, cmr;
    uint32_t last_site;  /* the last member */
    uint16_t last_call;
    uint32_t w_site;     /* the first blocking call after the first member */
    uint16_t w_call;
    bool has_cl;         /* the group closed: why, until the next group takes it */
    struct search_closed cl;
    uint32_t *sites;
    uint32_t nsites, csites;
    uint64_t members, bytes, send_ns;
    uint64_t anchor;     /* anchor (ea + 1) of the last member */
    uint64_t first_idx, last_idx; /* event indices of the first and last members */
    /* for the deadlock check: the first members and the blocking calls
     * after the first member (filtered to those before the send point when
     * the group ends) */
    uint64_t cmembers[SEARCH_CHECK_MAX], cross[SEARCH_CHECK_MAX];
    uint32_t ncm, ncross;
    bool crossed;        /* a call that may wait for another rank since the last member */
};

#define CHAN_SEND (-1)
#define CHAN_ISEND (-2)

struct ag_stream {
    struct dg_watch *watch;    /* the members of open groups, by owner */
    struct chan *ch;
    size_t nch, cch;
    struct dg_map chan_of;     /* hash(comm, peer) -> slot + 1 chain head */
    uint32_t *chan_next;       /* collision chains */
    struct dg_map chan_owner;  /* watch owner -> slot */
    uint64_t next_owner;
    struct search_group *groups;
    size_t ngroups, cgroups;
    struct search_group_check *checks;
    struct search_group_span *spans;
    size_t nspans, cspans;
    size_t nchecks, cchecks;
    struct search_closed_set closed;
    struct search_msgcost cost;
};

static uint64_t chan_hash(uint64_t comm, int32_t peer, int32_t src)
{
    uint64_t h = comm * 0x9e3779b97f4a7c15ull ^ (uint32_t)peer ^ (uint64_t)(uint32_t)src << 32;
    return h == UINT64_MAX ? 0 : h;
}

/* The channel of sends (src -1) or exchanges, made if new. */
static struct chan *chan_get(struct ag_stream *g, uint64_t comm, int32_t peer, int32_t src)
{
    uint64_t h = chan_hash(comm, peer, src);
    uint64_t *head = dg_map_get(&g->chan_of, h);
    for (uint64_t i = head ? *head : 0; i; i = g->chan_next[i - 1])
        if (g->ch[i - 1].comm == comm && g->ch[i - 1].peer == peer && g->ch[i - 1].src == src)
            return &g->ch[i - 1];
    if (g->nch == g->cch) {
        size_t nc = g->cch ? g->cch * 2 : 16;
        struct chan *p = realloc(g->ch, nc * sizeof *p);
        uint32_t *q = realloc(g->chan_next, nc * sizeof *q);
        if (p)
            g->ch = p;
        if (q)
            g->chan_next = q;
        if (!p || !q)
            return NULL;
        g->cch = nc;
    }
    head = dg_map_put(&g->chan_of, h, 0);
    if (!head)
        return NULL;
    struct chan *c = &g->ch[g->nch];
    memset(c, 0, sizeof *c);
    c->comm = comm;
    c->peer = peer;
    c->src = src;
    g->chan_next[g->nch] = (uint32_t)*head;
    *head = ++g->nch;
    return c;
}

/* The summary of the channel's group signature, made if new. */
static struct search_group *summary_get(struct ag_stream *g, const struct chan *c, bool nb)
{
    struct search_group key = {.comm = c->comm, .peer = c->peer, .call = c->call, .nsites = c->nsites,
                               .sites = c->sites, .needs_buffer = nb, .buf_site = nb ? c->nb_buf : CHT_NONE,
                               .over_site = nb ? c->nb_over : CHT_NONE};
    for (size_t i = g->ngroups; i-- > 0;) /* few signatures per rank */
        if (search_group_cmp(&g->groups[i], &key) == 0)
            return &g->groups[i];
    uint32_t *sites = malloc(c->nsites * sizeof *sites);
    if (!sites)
        return NULL;
    memcpy(sites, c->sites, c->nsites * sizeof *sites);
    key.sites = sites;
    key.min_size = UINT32_MAX;
    SEARCH_VEC_PUSH(g->groups, g->ngroups, g->cgroups, key, nomem);
    return &g->groups[g->ngroups - 1];
nomem:
    free(sites);
    return NULL;
}

/* The check of a group that delays a send past blocking calls: those up
 * to the send point, right after the last member's anchor. */
static int check_add(struct ag_stream *g, const struct chan *c, uint32_t group)
{
    uint32_t nx = 0;
    while (nx < c->ncross && c->cross[nx] < c->anchor)
        nx++;
    if (!nx)
        return 0;
    struct search_group_check chk = {.group = group, .nmembers = c->ncm, .ncross = nx};
    chk.members = malloc(c->ncm * sizeof *chk.members);
    chk.cross = malloc(nx * sizeof *chk.cross);
    if (!chk.members || !chk.cross)
        goto nomem;
    memcpy(chk.members, c->cmembers, c->ncm * sizeof *chk.members);
    memcpy(chk.cross, c->cross, nx * sizeof *chk.cross);
    SEARCH_VEC_PUSH(g->checks, g->nchecks, g->cchecks, chk, nomem);
    return 0;
nomem:
    free(chk.members);
    free(chk.cross);
    return TRACE_ERR_NOMEM;
}

/* Ends the channel's group: reported if it has two sends or more. */
static int chan_finish(struct ag_stream *g, struct chan *c)
{
    if (!c->active)
        return 0;
    if (!c->closed)
        dg_watch_remove(g->watch, c->owner);
    if (!c->closed && !c->nb)
        dg_watch_remove(g->watch, c->bowner);
    dg_map_del(&g->chan_owner, c->owner);
    dg_map_del(&g->chan_owner, c->bowner);
    c->active = false;
    if (c->members >= 2 && (c->src != CHAN_ISEND || c->valid)) {
        struct search_group *s = summary_get(g, c, c->nb && c->nb_joined);
        if (!s || check_add(g, c, (uint32_t)(s - g->groups)) < 0)
            return TRACE_ERR_NOMEM;
        struct search_group_span sp = {.group = (uint32_t)(s - g->groups), .first = c->first_idx, .last = c->last_idx};
        SEARCH_VEC_PUSH(g->spans, g->nspans, g->cspans, sp, nomem);
        s->groups++;
        s->members += c->members;
        s->bytes += c->bytes;
        s->send_ns += c->send_ns;
        uint32_t size = c->members > UINT32_MAX ? UINT32_MAX : (uint32_t)c->members;
        if (size < s->min_size)
            s->min_size = size;
        if (size > s->max_size)
            s->max_size = size;
    }
    c->nsites = c->nreqs = c->nmr = 0;
    c->valid = c->nb = c->nb_joined = false;
    c->members = c->bytes = c->send_ns = 0;
    c->ncm = c->ncross = 0;
    return 0;
nomem:
    return TRACE_ERR_NOMEM;
}

/* Keeps the ranges of member e. */
static int member_ranges(struct chan *c, const struct dg_event *e)
{
    for (uint32_t i = 0; i < e->nranges; i++) {
        struct search_ag_mrange m = {e->index, e->site, e->call, e->ranges[i]};
        SEARCH_VEC_PUSH(c->mr, c->nmr, c->cmr, m, nomem);
    }
    return 0;
nomem:
    return TRACE_ERR_NOMEM;
}

/* Watches a send of an open group: its keys and values under the
 * channel's owner, its send buffer under bowner (until needs-buffer
 * mode: then overwriting it no longer matters), and keeps its ranges to
 * name the buffer. */
static int send_watch(struct ag_stream *g, struct chan *c, const struct dg_event *e)
{
    struct dg_event k = *e, b = *e;
    k.nranges = 0;
    int rc = dg_watch_add(g->watch, c->owner, &k, true);
    if (rc < 0 || c->nb)
        return rc;
    b.nkeys = b.nvdeps = b.ncranges = 0;
    if ((rc = dg_watch_add(g->watch, c->bowner, &b, true)) < 0)
        return rc;
    return member_ranges(c, e);
}

/* Event e (index i) overwrote the send buffer of a member of c's open
 * group, and depends on no member otherwise: needs-buffer mode, with the
 * earliest member whose buffer e writes. */
static void send_overwritten(struct ag_stream *g, struct chan *c, const struct dg_event *e, uint64_t i)
{
    uint64_t best = UINT64_MAX;
    c->nb_buf = CHT_NONE;
    for (uint32_t k = 0; k < c->nmr; k++) {
        struct dg_event m = {.index = c->mr[k].index, .nranges = 1, .ranges = &c->mr[k].r};
        if (c->mr[k].index < best && search_ag_overwritten(&m, e)) {
            best = c->mr[k].index;
            c->nb_buf = c->mr[k].site;
            c->nb_buf_call = c->mr[k].call;
        }
    }
    c->nb = true;
    c->nb_x = i;
    c->nb_over = e->site;
    c->nb_over_mpi = e->kind == DG_MPI;
    c->nb_over_call = c->nb_over_mpi ? e->call : 0;
    c->nmr = 0;
    dg_watch_remove(g->watch, c->bowner);
}

static int chan_join(struct ag_stream *g, struct chan *c, const struct dg_event *e, uint64_t a)
{
    int32_t d;
    uint64_t req;
    if (!c->members) {
        c->call = e->call;
        c->first_idx = e->index;
    }
    c->last_idx = e->index;
    if (c->src == CHAN_ISEND && search_ag_isend(e, &d, &req)) {
        struct search_ag_mreq q = {req, e->site, e->call};
        SEARCH_VEC_PUSH(c->reqs, c->nreqs, c->creqs, q, nomem);
    }
    c->anchor = a;
    c->crossed = false;
    c->last_site = e->site;
    c->last_call = e->call;
    if (c->ncm < SEARCH_CHECK_MAX)
        c->cmembers[c->ncm++] = e->index;
    bool known = false;
    for (uint32_t i = 0; i < c->nsites && !known; i++)
        known = c->sites[i] == e->site;
    if (!known)
        SEARCH_VEC_PUSH(c->sites, c->nsites, c->csites, e->site, nomem);
    if (c->nb && a > c->nb_x)
        c->nb_joined = true;
    c->members++;
    c->bytes += e->bytes;
    c->send_ns += search_call_ns(e);
    if (!c->closed && c->src != CHAN_SEND) {
        struct dg_event r = *e; /* ranges only: the keys are the channel's */
        r.nkeys = 0;
        int rc = dg_watch_add(g->watch, c->owner, &r, true);
        return rc < 0 ? rc : member_ranges(c, e);
    }
    if (!c->closed)
        return send_watch(g, c, e);
    return 0;
nomem:
    return TRACE_ERR_NOMEM;
}

/* Whether a blocking send at `site` would join its group across a call
 * that may wait for another rank (one since the last member: no such call
 * comes between a send's anchor and the send) while its site is a member
 * already: the next round of a loop around that call. */
static bool next_round(const struct chan *c, uint32_t site)
{
    bool known = false;
    for (uint32_t k = 0; c->crossed && k < c->nsites && !known; k++)
        known = c->sites[k] == site;
    return known;
}

/* A movable send with anchor a (index + 1 of the last non-movable event it
 * depends on, 0 = none), or an exchange on channel c (a: its index + 1,
 * so that a closed group never takes it). */
static int aggregate_send(struct ag_stream *g, struct chan *c, const struct dg_event *e, uint64_t a)
{
    /* It joins the channel's group if it lands before the event that
     * closed it: anchor (ea + 1) <= closing index; a blocking send does
     * not join a group of an earlier execution of its own site across a
     * call that may wait for another rank (next_round). */
    bool lands = c->active && (!c->closed || a <= c->closed_x);
    if (lands && !(c->src == CHAN_SEND && next_round(c, e->site)))
        return chan_join(g, c, e, a);
    int rc = chan_finish(g, c);
    if (rc < 0)
        return rc;
    if (lands)
        c->has_cl = false; /* the next round, not a closed group */
    if (c->has_cl) { /* the closed group and this send: a closed pair */
        c->cl.site = c->last_site;
        c->cl.call = c->last_call;
        c->cl.next_site = e->site;
        c->cl.next_call = e->call;
        c->has_cl = false;
        if ((rc = search_closed_add(&g->closed, &c->cl)) < 0)
            return rc;
    }
    c->active = true;
    c->closed = false;
    c->owner = g->next_owner++;
    c->bowner = g->next_owner++;
    if (!dg_map_put(&g->chan_owner, c->owner, (uint64_t)(c - g->ch)) ||
        !dg_map_put(&g->chan_owner, c->bowner, (uint64_t)(c - g->ch)))
        return TRACE_ERR_NOMEM;
    return chan_join(g, c, e, a);
}

/* Says why event x closes (or ends) c's open group, if it is the first to. */
static void chan_why(struct chan *c, const struct dg_event *x)
{
    if (!c->active || c->closed)
        return;
    struct search_ag_open o = {
        .family = c->src == CHAN_SEND ? SEARCH_AG_SEND : c->src == CHAN_ISEND ? SEARCH_AG_ISEND : SEARCH_AG_EXCHANGE,
        .comm = c->comm, .dest = c->peer, .src = c->src, .mr = c->mr, .nmr = c->nmr, .mq = c->reqs,
        .nmq = c->nreqs, .nb = c->nb, .nb_buf = c->nb_buf, .nb_over = c->nb_over, .nb_buf_call = c->nb_buf_call,
        .nb_over_call = c->nb_over_call, .nb_over_mpi = c->nb_over_mpi, .waited = c->ncross > 0,
        .wait_site = c->w_site, .wait_call = c->w_call, .last_site = c->last_site, .last_call = c->last_call};
    search_ag_close_why(&o, x, &c->cl);
    c->has_cl = true;
}

static void chan_close(struct ag_stream *g, struct chan *c, const struct dg_event *x)
{
    uint64_t i = x->index;
    chan_why(c, x);
    c->closed = true;
    c->closed_x = i;
    dg_watch_remove(g->watch, c->owner);
    if (!c->nb)
        dg_watch_remove(g->watch, c->bowner);
}

/* Closes the open groups of exchanges and nonblocking sends whose
 * channel's keys conflict with e's, other than e's own channel xc (their
 * request keys are the completions' business: isend_completions). */
static void exchange_keys(struct ag_stream *g, const struct dg_event *e, const struct chan *xc)
{
    for (size_t k = 0; k < g->nch && e->nkeys; k++) {
        struct chan *c = &g->ch[k];
        if (c->src == CHAN_SEND || !c->active || c->closed || c == xc)
            continue;
        struct dg_key ks = {DG_KEY_SEND, c->peer, c->comm}, kr = {DG_KEY_RECV, c->src, c->comm};
        for (uint32_t j = 0; j < e->nkeys; j++)
            if (dg_keys_conflict(&ks, &e->keys[j]) || (c->src >= 0 && dg_keys_conflict(&kr, &e->keys[j]))) {
                chan_close(g, c, e);
                break;
            }
    }
}

/* Ends the groups of nonblocking sends a request of which e acts on:
 * counted if e completes them all. */
static int isend_completions(struct ag_stream *g, const struct dg_event *e)
{
    for (size_t k = 0; k < g->nch; k++) {
        struct chan *c = &g->ch[k];
        if (c->src != CHAN_ISEND || !c->active)
            continue;
        uint32_t touched = 0;
        for (uint32_t j = 0; j < c->nreqs; j++)
            touched += search_ag_touches_req(e, c->reqs[j].req);
        if (!touched)
            continue;
        c->valid = e->role == DG_ROLE_COMPLETE && touched == c->nreqs;
        chan_why(c, e);
        int rc = chan_finish(g, c);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int ag_event(void *state, struct search_stream *s, const struct dg_event *e)
{
    struct ag_stream *g = state;
    uint64_t i = e->index;
    int32_t xd, xs;
    uint64_t req;
    struct chan *xc = NULL; /* e's channel if it is an exchange or a nonblocking send */
    int rc;
    if (search_ag_exchange(e, &xd, &xs) && !(xc = chan_get(g, e->comm, xd, xs)))
        return TRACE_ERR_NOMEM;
    if (search_ag_isend(e, &xd, &req) && !(xc = chan_get(g, e->comm, xd, CHAN_ISEND)))
        return TRACE_ERR_NOMEM;
    if (e->kind == DG_MPI && e->nkeys && (rc = isend_completions(g, e)) < 0)
        return rc;
    if (search_blocks_groups(e)) {
        /* no send moves earlier across it (its anchor), but a group may
         * delay its sends past it: remember it for the deadlock check */
        for (size_t k = 0; k < g->nch; k++) {
            struct chan *c = &g->ch[k];
            if (c->active && c->ncross < SEARCH_CHECK_MAX && c != xc) {
                if (!c->ncross) {
                    c->w_site = e->site;
                    c->w_call = e->call;
                }
                c->cross[c->ncross++] = i;
            }
            c->crossed |= c->active && c != xc;
            if (c->active && c->src == CHAN_SEND && c->nb && !c->closed)
                chan_close(g, c, e); /* a needs-buffer group waits for no other rank */
        }
    }
    bool mov = dg_is_movable_send(e);
    /* the groups this event depends on are closed (a movable send closes
     * only groups of exchanges: it moves, sends do not) */
    const uint64_t *owners;
    size_t n = dg_watch_conflicts(g->watch, e, &owners);
    for (size_t k = 0; k < n; k++) {
        uint64_t *p = dg_map_get(&g->chan_owner, owners[k]);
        if (p && owners[k] != g->ch[*p].bowner && (!mov || g->ch[*p].src != CHAN_SEND))
            chan_close(g, &g->ch[*p], e);
    }
    /* an overwritten send buffer only: needs-buffer mode */
    for (size_t k = 0; k < n; k++) {
        uint64_t *p = dg_map_get(&g->chan_owner, owners[k]);
        struct chan *c = p ? &g->ch[*p] : NULL;
        if (!c || owners[k] != c->bowner || c->src != CHAN_SEND || mov || c->closed || c->nb)
            continue;
        if (c->ncross) /* it waited for another rank: as before */
            chan_close(g, c, e);
        else
            send_overwritten(g, c, e, i);
    }
    if (e->kind == DG_MPI)
        exchange_keys(g, e, xc);
    if (mov) {
        struct chan *c = chan_get(g, e->comm, e->peer, CHAN_SEND);
        search_msgcost_add(&g->cost, e->bytes, search_call_ns(e));
        if (!c || (rc = aggregate_send(g, c, e, search_stream_deps(s, e)->anchor)) < 0)
            return c ? rc : TRACE_ERR_NOMEM;
    }
    if (xc && (rc = aggregate_send(g, xc, e, i + 1)) < 0)
        return rc;
    if (e->kind == DG_MPI && e->role == DG_ROLE_FENCE) {
        for (size_t k = 0; k < g->nch; k++) {
            chan_why(&g->ch[k], e);
            if ((rc = chan_finish(g, &g->ch[k])) < 0)
                return rc;
        }
    }
    return 0;
}

/* The first event that closes a group. */
static uint64_t ag_run_alone(void *state, struct search_stream *s, const struct dg_run *r, uint64_t t,
                             uint64_t x)
{
    struct ag_stream *g = state;
    return dg_watch_first_conflict_run(g->watch, r, t, x);
}

static int ag_end(void *state, struct search_stream *s)
{
    struct ag_stream *g = state;
    for (size_t k = 0; k < g->nch; k++) {
        int rc = chan_finish(g, &g->ch[k]);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int cmp_group_ptr(const void *a, const void *b)
{
    return search_group_cmp(*(const struct search_group *const *)a, *(const struct search_group *const *)b);
}

/* Sorts the summaries into r, and renumbers the checks' groups. */
static int groups_result(struct ag_stream *g, struct search_rank_result *r)
{
    struct search_group **ord = malloc(g->ngroups * sizeof *ord);
    uint32_t *renum = malloc(g->ngroups * sizeof *renum);
    r->groups = malloc(g->ngroups * sizeof *r->groups);
    if (!ord || !renum || !r->groups) {
        free(ord);
        free(renum);
        return TRACE_ERR_NOMEM;
    }
    for (size_t k = 0; k < g->ngroups; k++)
        ord[k] = &g->groups[k];
    qsort(ord, g->ngroups, sizeof *ord, cmp_group_ptr);
    for (size_t k = 0; k < g->ngroups; k++) {
        r->groups[k] = *ord[k];
        renum[ord[k] - g->groups] = (uint32_t)k;
    }
    r->ngroups = (uint32_t)g->ngroups;
    for (size_t k = 0; k < g->nchecks; k++)
        g->checks[k].group = renum[g->checks[k].group];
    for (size_t k = 0; k < g->nspans; k++)
        g->spans[k].group = renum[g->spans[k].group];
    free(ord);
    free(renum);
    free(g->groups);
    g->groups = NULL;
    g->ngroups = 0;
    return 0;
}

static int ag_finish(void *state, struct search_stream *s, struct search_rank_result *r)
{
    struct ag_stream *g = state;
    int rc;
    r->msg_latency_ns = search_msgcost_latency(&g->cost);
    if (g->ngroups && (rc = groups_result(g, r)) < 0)
        return rc;
    r->checks = g->checks;
    r->nchecks = (uint32_t)g->nchecks;
    g->checks = NULL;
    g->nchecks = 0;
    if (r->nchecks > 1)
        qsort(r->checks, r->nchecks, sizeof *r->checks, search_check_cmp);
    r->spans = g->spans;
    r->nspans = (uint32_t)g->nspans;
    g->spans = NULL;
    g->nspans = 0;
    if (r->nspans > 1)
        qsort(r->spans, r->nspans, sizeof *r->spans, search_span_cmp);
    search_closed_result(&g->closed, r);
    return search_groups_make_info(r);
}

static void ag_destroy(void *state)
{
    struct ag_stream *g = state;
    if (!g)
        return;
    dg_watch_destroy(g->watch);
    for (size_t i = 0; i < g->nch; i++) {
        free(g->ch[i].sites);
        free(g->ch[i].reqs);
        free(g->ch[i].mr);
    }
    free(g->ch);
    free(g->chan_next);
    dg_map_free(&g->chan_of);
    dg_map_free(&g->chan_owner);
    for (size_t i = 0; i < g->ngroups; i++)
        free(g->groups[i].sites);
    free(g->groups);
    for (size_t i = 0; i < g->nchecks; i++) {
        free(g->checks[i].members);
        free(g->checks[i].cross);
    }
    free(g->checks);
    free(g->spans);
    free(g->closed.v);
    free(g);
}

static int ag_create(struct search_stream *s, void **state)
{
    struct ag_stream *g = calloc(1, sizeof *g);
    if (!g || dg_watch_create(&g->watch) < 0) {
        free(g);
        return TRACE_ERR_NOMEM;
    }
    g->next_owner = 1;
    *state = g;
    return 0;
}

const struct search_stream_methods search_aggregate_stream = {
    .create = ag_create,
    .destroy = ag_destroy,
    .event = ag_event,
    .run_alone = ag_run_alone,
    .end = ag_end,
    .finish = ag_finish,
};
