/* builder.c - trace events to dg_events: the read/write sets and ordering
 * keys of MPI calls (the table in docs/dependence.md), and the link from a
 * nonblocking call to the Wait/Test that completes it (by request id). */
#include <stdlib.h>
#include <string.h>

#include "builder-private.h"

_Static_assert(sizeof(struct dg_range) == sizeof(struct trace_range) &&
                   offsetof(struct dg_range, write) == offsetof(struct trace_range, write),
               "dg_range has the layout of trace_range");

#define RECENT 16       /* computation events the companion walk looks back at most */
#define RECENT_RANGES 8  /* read ranges a companion may have */

/* A started request: its buffer range (len 0 if none) and direction, and
 * every other range it holds until completion: the buffers and per-rank
 * blocks of a nonblocking collective, the argument ranges held (count,
 * displacement and datatype arrays).  `held` has room for `cheld` ranges and
 * is kept when the slot is reused; there is no cap (out of memory is an
 * error, never a lost range). */
struct request {
    struct dg_range r;
    bool contiguous;  /* receive: count * type size == extent, so the status bytes are exact */
    uint32_t nheld, cheld;
    struct dg_range *held;
};

struct dg_builder {
    struct dg_event ev;
    struct dg_run run;
    struct dg_range *ranges;
    uint32_t nranges, cranges;
    struct dg_key *keys;
    uint32_t nkeys, ckeys;
    struct dg_map reqs;           /* request id -> index in req + 1 */
    struct request *req;          /* slots, free ones chained by r.addr */
    uint32_t nreq, creq, free_req;
    /* per site id, index + 1 of its latest event (dense below LAST_DENSE) */
    uint64_t *last;
    size_t nlast;
    struct dg_map last_big;
    uint64_t *vdeps;
    uint32_t cvdeps;
    uint64_t unknown_producers;
    const struct trace_cursor *cursor;
    struct dg_rma *rma;           /* open windows (rma.c), NULL until the first */
    /* the last RECENT computation events, for the companions of a call */
    struct recent {
        uint64_t index;
        uint32_t site;
        uint32_t nranges;      /* RECENT_RANGES + 1: more, or a write: never a companion */
        struct dg_range r[RECENT_RANGES];
    } recent[RECENT];
    struct dg_range comp_ranges[RECENT * RECENT_RANGES];
};

#define LAST_DENSE (1u << 22)

#define NO_SLOT UINT32_MAX

int dg_builder_create(struct dg_builder **out)
{
    struct dg_builder *b = calloc(1, sizeof *b);
    if (!b)
        return TRACE_ERR_NOMEM;
    b->free_req = NO_SLOT;
    *out = b;
    return 0;
}

void dg_builder_destroy(struct dg_builder *b)
{
    if (!b)
        return;
    free(b->ranges);
    free(b->keys);
    for (uint32_t i = 0; i < b->nreq; i++)
        free(b->req[i].held);
    free(b->req);
    dg_map_free(&b->reqs);
    free(b->last);
    dg_map_free(&b->last_big);
    free(b->vdeps);
    dg_rma_destroy(b->rma);
    free(b);
}

uint64_t dg_builder_unknown_producers(const struct dg_builder *b)
{
    return b->unknown_producers;
}

void dg_builder_set_cursor(struct dg_builder *b, const struct trace_cursor *c)
{
    b->cursor = c;
}

/* Remembers a computation event for the companion walk: its reads, or
 * that it cannot be a companion (it writes, or has too many ranges). */
static void recent_add(struct dg_builder *b, uint64_t index, uint32_t site, uint32_t n,
                       const struct dg_range *r)
{
    struct recent *x = &b->recent[index % RECENT];
    x->index = index + 1; /* 0 = empty */
    x->site = site;
    x->nranges = n <= RECENT_RANGES ? n : RECENT_RANGES + 1;
    for (uint32_t k = 0; k < n && x->nranges <= RECENT_RANGES; k++) {
        if (r[k].write)
            x->nranges = RECENT_RANGES + 1;
        else
            x->r[k] = r[k];
    }
}

/* ---- the latest event of each site ------------------------------------------------ */

static int set_last(struct dg_builder *b, uint32_t site, uint64_t index)
{
    if (site == CHT_NONE)
        return 0;
    if (site < b->nlast) {
        b->last[site] = index + 1;
        return 0;
    }
    if (site < LAST_DENSE) {
        size_t nc = b->nlast ? b->nlast : 256;
        while (nc <= site)
            nc *= 2;
        uint64_t *p = realloc(b->last, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        memset(p + b->nlast, 0, (nc - b->nlast) * sizeof *p);
        b->last = p;
        b->nlast = nc;
        b->last[site] = index + 1;
        return 0;
    }
    uint64_t *v = dg_map_put(&b->last_big, site, 0);
    if (!v)
        return TRACE_ERR_NOMEM;
    *v = index + 1;
    return 0;
}

static uint64_t get_last(const struct dg_builder *b, uint32_t site)
{
    if (site < b->nlast)
        return b->last[site];
    const uint64_t *v = dg_map_get(&b->last_big, site);
    return v ? *v : 0;
}

static bool in_set(const uint64_t *v, uint32_t n, uint64_t x)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

/* Adds the latest event of each of a site's producers to b->vdeps (n in
 * use, room grown); false if one of them is at or after `before` (a later
 * execution than the one the site used: the caller stops there). */
static int add_producers(struct dg_builder *b, const uint32_t *ids, uint32_t nids, uint64_t before,
                         uint32_t *n)
{
    for (uint32_t i = 0; i < nids; i++) {
        uint64_t l = get_last(b, ids[i]);
        if (!l)
            continue;
        if (l - 1 >= before)
            return 0;
        if (in_set(b->vdeps, *n, l - 1))
            continue;
        if (*n == b->cvdeps) {
            uint32_t nc = b->cvdeps ? 2 * b->cvdeps : 16;
            uint64_t *p = realloc(b->vdeps, nc * sizeof *p);
            if (!p)
                return TRACE_ERR_NOMEM;
            b->vdeps = p;
            b->cvdeps = nc;
        }
        b->vdeps[(*n)++] = l - 1;
    }
    return 1;
}

static bool reads_overlap_writes(const struct recent *x, const struct dg_event *e)
{
    for (uint32_t k = 0; k < x->nranges; k++)
        for (uint32_t j = 0; j < e->nranges; j++) {
            const struct dg_range *a = &x->r[k], *w = &e->ranges[j];
            if (w->write && a->len && w->len && a->addr < w->addr + w->len &&
                w->addr < a->addr + a->len)
                return true;
        }
    return false;
}

/* The companions of MPI event e (its ranges and vdeps set): walking back
 * over the computation events right before it, each that only reads, is
 * the latest event of a producer (of the call or of a companion already
 * taken) and reads nothing the call writes joins; its own producers join
 * the call's vdeps (all of them executed before it, or the walk stops:
 * the site used an older execution than the latest), and its reads go to
 * cranges.  The walk stops at the first event that does not join. */
static int companions(struct dg_builder *b, struct dg_event *e)
{
    uint32_t n = e->nvdeps, nc = 0, nr = 0;
    if (!b->cursor || !n)
        return 0;
    for (uint64_t i = e->index; i-- > 0 && e->index - i <= RECENT;) {
        const struct recent *x = &b->recent[i % RECENT];
        if (x->index != i + 1 || x->nranges > RECENT_RANGES || !in_set(b->vdeps, n, i) ||
            reads_overlap_writes(x, e))
            break;
        const uint32_t *ids;
        uint32_t nids;
        int rc = trace_cursor_site_producers(b->cursor, x->site, &ids, &nids);
        if (rc < 0)
            return rc;
        if (rc == 0)
            break;
        uint32_t keep = n;
        if ((rc = add_producers(b, ids, nids, i, &n)) < 0)
            return rc;
        if (rc == 0) {
            n = keep;
            break;
        }
        /* joins: out of vdeps, its reads into cranges */
        for (uint32_t k = 0; k < n; k++)
            if (b->vdeps[k] == i) {
                b->vdeps[k] = b->vdeps[--n];
                break;
            }
        for (uint32_t k = 0; k < x->nranges; k++)
            b->comp_ranges[nr++] = x->r[k];
        nc++;
    }
    e->nvdeps = n;
    e->vdeps = n ? b->vdeps : NULL;
    e->ncompanions = nc;
    e->ncranges = nr;
    e->cranges = nr ? b->comp_ranges : NULL;
    return 0;
}

/* The call's register and control dependences: the latest event of each
 * site the trace names as its producer. */
static int resolve_vdeps(struct dg_builder *b, const struct trace_event *tev, struct dg_event *e)
{
    if (!tev->producers_known) {
        /* a table without a dependence section (a table that is missing
         * altogether is reported by the reader) */
        if (tev->site_info)
            b->unknown_producers++;
        return 0;
    }
    if (tev->nproducers > b->cvdeps) {
        uint64_t *p = realloc(b->vdeps, tev->nproducers * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        b->vdeps = p;
        b->cvdeps = tev->nproducers;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < tev->nproducers; i++) {
        uint64_t l = get_last(b, tev->producers[i]);
        if (l)
            b->vdeps[n++] = l - 1;
    }
    e->nvdeps = n;
    e->vdeps = n ? b->vdeps : NULL;
    return 0;
}

size_t dg_builder_open_requests(const struct dg_builder *b)
{
    return b->reqs.n;
}

static int add_range(struct dg_builder *b, uint64_t addr, uint64_t len, bool write)
{
    if (!addr || !len)
        return 0;
    if (b->nranges == b->cranges) {
        uint32_t nc = b->cranges ? b->cranges * 2 : 16;
        struct dg_range *p = realloc(b->ranges, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        b->ranges = p;
        b->cranges = nc;
    }
    b->ranges[b->nranges++] = (struct dg_range){addr, len, write};
    return 0;
}

static int add_key(struct dg_builder *b, uint32_t cls, uint64_t comm, int32_t peer)
{
    if (b->nkeys == b->ckeys) {
        uint32_t nc = b->ckeys ? b->ckeys * 2 : 8;
        struct dg_key *p = realloc(b->keys, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        b->keys = p;
        b->ckeys = nc;
    }
    b->keys[b->nkeys++] = (struct dg_key){cls, peer, comm};
    return 0;
}

/* A world rank as a key peer: wildcard for MPI_ANY_SOURCE, -1 for none. */
static int32_t key_peer(int32_t rank)
{
    if (rank == CHT_RANK_ANY)
        return DG_PEER_ANY;
    return rank >= 0 ? rank : -1;
}

/* The bytes a receive wrote: the status count when the datatype is
 * contiguous (count * size == extent), else the whole extent. */
static uint64_t recv_bytes(const struct cht_rec_mpi *m, uint64_t st_bytes, bool has_status)
{
    bool contiguous = (uint64_t)(m->count > 0 ? m->count : 0) * m->datatype == m->rbytes;
    if (has_status && contiguous && st_bytes < m->rbytes)
        return st_bytes;
    return m->rbytes;
}

static int add_blocks(struct dg_builder *b, uint64_t base, const struct cht_rec_blocks *blk,
                      bool write)
{
    const struct cht_block *bl = (const struct cht_block *)(blk + 1);
    for (uint32_t i = 0; i < blk->count; i++) {
        int rc = add_range(b, base + (uint64_t)bl[i].offset, bl[i].bytes, write);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Makes room for n ranges in request slot q. */
static int request_room(struct request *q, uint32_t n)
{
    if (n <= q->cheld)
        return 0;
    uint32_t nc = q->cheld ? q->cheld : 8;
    while (nc < n)
        nc *= 2;
    struct dg_range *p = realloc(q->held, nc * sizeof *p);
    if (!p)
        return TRACE_ERR_NOMEM;
    q->held = p;
    q->cheld = nc;
    return 0;
}

/* Enters request `id`: its buffer range r, the `nextra` ranges at `extra`
 * (a nonblocking collective's buffers and blocks) and the argument ranges
 * the start holds. */
static int request_start(struct dg_builder *b, uint64_t id, const struct dg_range *r,
                         bool contiguous, const struct trace_event *tev,
                         const struct dg_range *extra, uint32_t nextra)
{
    uint32_t slot;
    if (b->free_req != NO_SLOT) {
        slot = b->free_req;
        b->free_req = (uint32_t)b->req[slot].r.addr;
    } else {
        if (b->nreq == b->creq) {
            uint32_t nc = b->creq ? b->creq * 2 : 16;
            struct request *p = realloc(b->req, nc * sizeof *p);
            if (!p)
                return TRACE_ERR_NOMEM;
            b->req = p;
            b->creq = nc;
        }
        slot = b->nreq++;
        b->req[slot].held = NULL;
        b->req[slot].cheld = 0;
    }
    struct request *q = &b->req[slot];
    q->r = *r;
    q->contiguous = contiguous;
    q->nheld = 0;
    if (request_room(q, nextra + tev->nheld) < 0) {
        q->r.addr = b->free_req; /* back on the free list */
        b->free_req = slot;
        return TRACE_ERR_NOMEM;
    }
    for (uint32_t k = 0; k < nextra; k++)
        q->held[q->nheld++] = extra[k];
    for (uint32_t k = 0; k < tev->nheld; k++)
        q->held[q->nheld++] = (struct dg_range){tev->held[k].addr, tev->held[k].len,
                                                tev->held[k].write};
    uint64_t *v = dg_map_put(&b->reqs, id, slot + 1);
    if (!v)
        return TRACE_ERR_NOMEM;
    if (*v != (uint64_t)slot + 1) { /* id reused while open: keep the newer */
        uint32_t old = (uint32_t)(*v - 1);
        b->req[old].r.addr = b->free_req;
        b->free_req = old;
        *v = slot + 1;
    }
    return 0;
}

/* Adds the ranges of completed requests and their REQ keys. */
static int complete_requests(struct dg_builder *b, const struct trace_event *ev)
{
    for (uint32_t i = 0; i < ev->ncomplete; i++) {
        const struct cht_rec_complete *c = ev->complete[i];
        int rc = add_key(b, DG_KEY_REQ, c->request, 0);
        if (rc < 0)
            return rc;
        uint64_t *v = dg_map_get(&b->reqs, c->request);
        if (!v)
            continue; /* started before the trace or never seen */
        uint32_t slot = (uint32_t)(*v - 1);
        struct dg_range r = b->req[slot].r;
        /* the status count, when there is a status (Request_free and failed
         * calls complete without one: the posted extent then) */
        if (r.write && b->req[slot].contiguous && c->st_source != CHT_RANK_NONE &&
            c->st_bytes < r.len)
            r.len = c->st_bytes;
        rc = add_range(b, r.addr, r.len, r.write);
        for (uint32_t k = 0; !rc && k < b->req[slot].nheld; k++)
            rc = add_range(b, b->req[slot].held[k].addr, b->req[slot].held[k].len,
                           b->req[slot].held[k].write);
        if (rc < 0)
            return rc;
        dg_map_del(&b->reqs, c->request);
        b->req[slot].r.addr = b->free_req;
        b->free_req = slot;
    }
    return 0;
}

/* Isendrecv(_replace): a start that sends (the send buffer is read now and
 * until completion: a held range of its request) and receives (the receive
 * buffer, written at completion: the request's range, the whole extent,
 * since count and datatype are the send side's). */
static int convert_isendrecv(struct dg_builder *b, const struct trace_event *tev,
                             struct dg_event *e, int32_t speer, int32_t rpeer)
{
    const struct cht_rec_mpi *m = tev->mpi;
    struct dg_range r = {0, 0, true};
    int rc = 0;
    e->role = DG_ROLE_START;
    e->bytes = speer >= 0 ? m->sbytes : 0;
    if (rpeer != -1)
        r = (struct dg_range){m->rbuf, m->rbytes, true};
    if (speer >= 0)
        rc = add_range(b, m->sbuf, m->sbytes, false);
    if (!rc)
        rc = add_range(b, r.addr, r.len, true);
    if (!rc && speer >= 0)
        rc = add_key(b, DG_KEY_SEND, m->comm, speer);
    if (!rc && rpeer != -1)
        rc = add_key(b, DG_KEY_RECV, m->comm, rpeer);
    if (rc || !m->request)
        return rc;
    /* the send buffer is held too: read until completion */
    struct dg_range send = {m->sbuf, m->sbytes, false};
    bool sends = speer >= 0 && m->sbuf && m->sbytes;
    if ((rc = add_key(b, DG_KEY_REQ, m->request, 0)) < 0)
        return rc;
    return request_start(b, m->request, &r, false, tev, sends ? &send : NULL, sends ? 1 : 0);
}

/* Calls on an active request: MPI_Pready* (the partitions handed to MPI,
 * read from now until completion, whose request reads the whole buffer
 * again), MPI_Parrived (the partition found arrived, written) and
 * MPI_Cancel (marks it).  Their REQ key keeps them between the request's
 * start and its completion. */
static int convert_on_request(struct dg_builder *b, const struct cht_rec_mpi *m,
                              struct dg_event *e)
{
    int rc = 0;
    if (m->h.aux == CHT_MPI_CANCEL && (m->flags & CHT_MPIF_UNKNOWN_REQUEST)) {
        e->role = DG_ROLE_FENCE; /* a request no wrapper made */
        return 0;
    }
    rc = add_range(b, m->sbuf, m->sbytes, false);
    if (!rc)
        rc = add_range(b, m->rbuf, m->rbytes, true);
    if (!rc && m->request)
        rc = add_key(b, DG_KEY_REQ, m->request, 0);
    return rc;
}

/* The buffers of a collective: its per-rank blocks where it has them, else
 * the buffer (MPI_IN_PLACE: the receive buffer is read and written). */
static int coll_ranges(struct dg_builder *b, const struct trace_event *tev)
{
    const struct cht_rec_mpi *m = tev->mpi;
    int rc;
    if (m->flags & CHT_MPIF_SEND_IN_PLACE)
        rc = add_range(b, m->rbuf, m->rbytes, false);
    else if (tev->blocks[0])
        rc = add_blocks(b, m->sbuf, tev->blocks[0], false);
    else
        rc = add_range(b, m->sbuf, m->sbytes, false);
    if (!rc && !(m->flags & CHT_MPIF_RECV_IN_PLACE)) {
        if (tev->blocks[1])
            rc = add_blocks(b, m->rbuf, tev->blocks[1], true);
        else
            rc = add_range(b, m->rbuf, m->rbytes, true);
    }
    return rc;
}

/* A nonblocking collective (or a start of a persistent one): ordered with
 * the collectives of its communicator; its buffers are read (send side) and
 * written (receive side) from the start until the request completes, so
 * the start and the completion both carry them. */
static int nonblocking_coll(struct dg_builder *b, const struct trace_event *tev)
{
    const struct cht_rec_mpi *m = tev->mpi;
    uint32_t first = b->nranges;
    int rc = coll_ranges(b, tev);
    if (!rc)
        rc = add_key(b, DG_KEY_COLL, m->comm, 0);
    if (!rc && m->request)
        rc = add_key(b, DG_KEY_REQ, m->request, 0);
    if (!rc && m->request) {
        struct dg_range none = {0, 0, false};
        rc = request_start(b, m->request, &none, false, tev, b->ranges + first,
                           b->nranges - first);
    }
    return rc;
}

static int convert_mpi(struct dg_builder *b, const struct trace_event *tev)
{
    const struct cht_rec_mpi *m = tev->mpi;
    struct dg_event *e = &b->ev;
    /* a start of a persistent request is the nonblocking call it behaves
     * as, a clock read is not an untraced MPI call */
    int call = trace_event_call(tev), rc = 0;
    bool has_status = m->flags & CHT_MPIF_HAS_STATUS;
    e->call = (uint16_t)call;
    e->t_enter = m->t_enter;
    e->t_exit = m->t_exit;
    e->comm = m->comm;
    e->peer = CHT_RANK_NONE;
    e->role = DG_ROLE_OTHER;
    int32_t speer = key_peer(m->peer), rpeer = key_peer(m->rpeer);

    switch (call) {
    case CHT_MPI_SEND: case CHT_MPI_SSEND: case CHT_MPI_BSEND: case CHT_MPI_RSEND:
        if (speer < 0)
            break;
        e->role = DG_ROLE_SEND;
        e->peer = m->peer;
        e->bytes = m->sbytes;
        rc = add_range(b, m->sbuf, m->sbytes, false);
        if (!rc)
            rc = add_key(b, DG_KEY_SEND, m->comm, speer);
        break;
    case CHT_MPI_RECV: case CHT_MPI_MRECV: /* Mrecv: rpeer is the probed message's source */
        if (rpeer == -1)
            break;
        e->role = DG_ROLE_RECV;
        rc = add_range(b, m->rbuf, recv_bytes(m, m->st_bytes, has_status), true);
        if (!rc)
            rc = add_key(b, DG_KEY_RECV, m->comm, rpeer);
        break;
    case CHT_MPI_SENDRECV: case CHT_MPI_SENDRECV_REPLACE:
        if (speer < 0 && rpeer == -1)
            break;
        e->role = DG_ROLE_SENDRECV;
        e->bytes = m->sbytes;
        if (speer >= 0) {
            rc = add_range(b, m->sbuf, m->sbytes, false);
            if (!rc)
                rc = add_key(b, DG_KEY_SEND, m->comm, speer);
        }
        if (!rc && rpeer != -1) {
            /* count and datatype describe the send side: the whole extent */
            rc = add_range(b, m->rbuf, m->rbytes, true);
            if (!rc)
                rc = add_key(b, DG_KEY_RECV, m->comm, rpeer);
        }
        break;
    case CHT_MPI_ISEND: case CHT_MPI_ISSEND: case CHT_MPI_IBSEND: case CHT_MPI_IRSEND:
    case CHT_MPI_IRECV: case CHT_MPI_IMRECV: {
        bool recv = call == CHT_MPI_IRECV || call == CHT_MPI_IMRECV;
        int32_t p = recv ? rpeer : speer;
        struct dg_range r = {0, 0, recv};
        if (p != -1)
            r = recv ? (struct dg_range){m->rbuf, m->rbytes, true}
                     : (struct dg_range){m->sbuf, m->sbytes, false};
        e->role = DG_ROLE_START;
        e->bytes = recv ? 0 : m->sbytes;
        rc = add_range(b, r.addr, r.len, r.write);
        if (!rc && p != -1)
            rc = add_key(b, recv ? DG_KEY_RECV : DG_KEY_SEND, m->comm, p);
        if (!rc && m->request)
            rc = add_key(b, DG_KEY_REQ, m->request, 0);
        if (!rc && m->request) {
            /* a partitioned receive's completion: the whole buffer (conservative) */
            bool contiguous = (uint64_t)(m->count > 0 ? m->count : 0) * m->datatype == m->rbytes &&
                              m->h.aux != CHT_MPI_PRECV_INIT;
            rc = request_start(b, m->request, &r, contiguous, tev, NULL, 0);
        }
        break;
    }
    case CHT_MPI_ISENDRECV: case CHT_MPI_ISENDRECV_REPLACE:
        rc = convert_isendrecv(b, tev, e, speer, rpeer);
        break;
    case CHT_MPI_PREADY: case CHT_MPI_PREADY_RANGE: case CHT_MPI_PREADY_LIST:
    case CHT_MPI_PARRIVED: case CHT_MPI_CANCEL:
        rc = convert_on_request(b, m, e);
        break;
    case CHT_MPI_MPROBE: case CHT_MPI_IMPROBE: /* the message handle: an argument range */
    case CHT_MPI_PROBE: case CHT_MPI_IPROBE:
        if (rpeer == -1)
            break;
        e->role = DG_ROLE_PROBE;
        rc = add_key(b, DG_KEY_RECV, m->comm, rpeer);
        break;
    case CHT_MPI_WAIT: case CHT_MPI_WAITALL: case CHT_MPI_WAITANY: case CHT_MPI_WAITSOME:
    case CHT_MPI_TEST: case CHT_MPI_TESTALL: case CHT_MPI_TESTANY: case CHT_MPI_TESTSOME:
    case CHT_MPI_REQUEST_FREE:
        if (m->flags & CHT_MPIF_UNKNOWN_REQUEST)
            e->role = DG_ROLE_FENCE; /* it completes something we cannot see */
        else if (tev->ncomplete)
            e->role = DG_ROLE_COMPLETE;
        if (tev->ncomplete)
            rc = complete_requests(b, tev);
        break;
    case CHT_MPI_BARRIER:
        e->role = DG_ROLE_SYNC;
        rc = add_key(b, DG_KEY_COLL, m->comm, 0);
        break;
    case CHT_MPI_BCAST: case CHT_MPI_REDUCE: case CHT_MPI_ALLREDUCE: case CHT_MPI_GATHER:
    case CHT_MPI_GATHERV: case CHT_MPI_SCATTER: case CHT_MPI_SCATTERV: case CHT_MPI_ALLGATHER:
    case CHT_MPI_ALLGATHERV: case CHT_MPI_ALLTOALL: case CHT_MPI_ALLTOALLV:
    case CHT_MPI_REDUCE_SCATTER: case CHT_MPI_REDUCE_SCATTER_BLOCK: case CHT_MPI_SCAN:
    case CHT_MPI_EXSCAN: case CHT_MPI_ALLTOALLW: case CHT_MPI_NEIGHBOR_ALLGATHER:
    case CHT_MPI_NEIGHBOR_ALLGATHERV: case CHT_MPI_NEIGHBOR_ALLTOALL:
    case CHT_MPI_NEIGHBOR_ALLTOALLV: case CHT_MPI_NEIGHBOR_ALLTOALLW:
        e->role = DG_ROLE_COLL;
        rc = coll_ranges(b, tev);
        if (!rc)
            rc = add_key(b, DG_KEY_COLL, m->comm, 0);
        break;
    case CHT_MPI_IBARRIER: case CHT_MPI_IBCAST: case CHT_MPI_IREDUCE: case CHT_MPI_IALLREDUCE:
    case CHT_MPI_IGATHER: case CHT_MPI_IGATHERV: case CHT_MPI_ISCATTER: case CHT_MPI_ISCATTERV:
    case CHT_MPI_IALLGATHER: case CHT_MPI_IALLGATHERV: case CHT_MPI_IALLTOALL:
    case CHT_MPI_IALLTOALLV: case CHT_MPI_IALLTOALLW: case CHT_MPI_IREDUCE_SCATTER:
    case CHT_MPI_IREDUCE_SCATTER_BLOCK: case CHT_MPI_ISCAN: case CHT_MPI_IEXSCAN:
    case CHT_MPI_INEIGHBOR_ALLGATHER: case CHT_MPI_INEIGHBOR_ALLGATHERV:
    case CHT_MPI_INEIGHBOR_ALLTOALL: case CHT_MPI_INEIGHBOR_ALLTOALLV:
    case CHT_MPI_INEIGHBOR_ALLTOALLW:
        e->role = DG_ROLE_START;
        rc = nonblocking_coll(b, tev);
        break;
    case CHT_MPI_COMM_DUP: case CHT_MPI_COMM_SPLIT: case CHT_MPI_COMM_CREATE:
    case CHT_MPI_COMM_FREE: case CHT_MPI_CART_CREATE: case CHT_MPI_CART_SUB:
    case CHT_MPI_COMM_SPLIT_TYPE: case CHT_MPI_INTERCOMM_CREATE: case CHT_MPI_GRAPH_CREATE:
    case CHT_MPI_DIST_GRAPH_CREATE: case CHT_MPI_DIST_GRAPH_CREATE_ADJACENT: case CHT_MPI_INIT:
    case CHT_MPI_INIT_THREAD: case CHT_MPI_FINALIZE: case CHT_MPI_ABORT:
    case CHT_MPI_UNTRACED: /* what it touches is unknown */
    case CHT_MPI_CLOCK: case CHT_MPI_EXTERN: /* a clock read; code built without the pass */
    case CHT_MPI_START: case CHT_MPI_STARTALL: /* of a request no wrapped init made */
        e->role = DG_ROLE_FENCE;
        break;
    default:
        if (call >= CHT_MPI_WIN_CREATE && call <= CHT_MPI_WIN_SYNC)
            rc = dg_rma_convert(b, tev, e); /* one-sided: rma.c */
        break;
    }
    if (!rc && b->rma) /* window memory: docs/dependence.md, "One-sided communication" */
        rc = dg_rma_open_windows(b);
    /* what it touches through its other arguments: statuses, count and
     * displacement arrays, request handles, flags (held ones too: the
     * call itself reads them, and so does everything until completion) */
    for (uint32_t k = 0; !rc && k < tev->nargs; k++)
        rc = add_range(b, tev->args[k].addr, tev->args[k].len, tev->args[k].write);
    for (uint32_t k = 0; !rc && k < tev->nheld; k++)
        rc = add_range(b, tev->held[k].addr, tev->held[k].len, tev->held[k].write);
    return rc;
}

/* ---- for the other parts of the builder (builder-private.h) ------------------------ */

int dg_builder_add_range(struct dg_builder *b, uint64_t addr, uint64_t len, bool write)
{
    return add_range(b, addr, len, write);
}

int dg_builder_add_key(struct dg_builder *b, uint32_t cls, uint64_t comm, int32_t peer)
{
    return add_key(b, cls, comm, peer);
}

int dg_builder_request_start(struct dg_builder *b, uint64_t id, const struct trace_event *tev)
{
    struct dg_range none = {0, 0, false};
    int rc = add_key(b, DG_KEY_REQ, id, 0);
    return rc < 0 ? rc : request_start(b, id, &none, false, tev, NULL, 0);
}

struct dg_rma **dg_builder_rma(struct dg_builder *b)
{
    return &b->rma;
}

uint32_t dg_comp_weight(const struct trace_site_info *si, uint32_t nranges, const struct trace_range *ranges)
{
    uint64_t w = DG_WEIGHT_BASE + (si && si->cost ? si->cost : 1);
    if (si && (si->kind == CHT_SITE_MEMCPY || si->kind == CHT_SITE_MEMSET) && !(si->flags & CHT_SITEF_HEAP)) {
        /* what the copy moves is known only at run time */
        for (uint32_t k = 0; k < nranges; k++)
            w += ranges[k].len / DG_COPY_BYTES_PER_UNIT;
    }
    return w < DG_WEIGHT_MAX ? (uint32_t)w : DG_WEIGHT_MAX;
}

/* What every event takes from its trace event; a computation event is
 * then complete (its ranges are the trace event's: same layout). */
static void convert_common(struct dg_event *e, const struct trace_event *tev)
{
    memset(e, 0, sizeof *e);
    e->index = tev->index;
    e->site = tev->site;
    e->site_flags = tev->site_info ? tev->site_info->flags : 0;
    e->site_op = tev->site_info ? tev->site_info->op : 0;
    e->depth = tev->depth;
    e->iters = tev->iters;
    e->peer = CHT_RANK_NONE;
    if (tev->kind == TRACE_EV_COMP) {
        e->kind = DG_COMP;
        e->role = DG_ROLE_NONE;
        e->nranges = tev->nranges;
        e->ranges = (const struct dg_range *)tev->ranges;
        e->weight = dg_comp_weight(tev->site_info, tev->nranges, tev->ranges);
    }
}

int dg_builder_convert(struct dg_builder *b, const struct trace_event *tev,
                       const struct dg_event **out)
{
    *out = NULL;
    if (tev->kind != TRACE_EV_COMP && tev->kind != TRACE_EV_MPI)
        return 0;
    struct dg_event *e = &b->ev;
    b->nranges = b->nkeys = 0;
    convert_common(e, tev);
    int rc;
    if (tev->kind == TRACE_EV_COMP) {
        if ((rc = set_last(b, tev->site, tev->index)) < 0)
            return rc;
        recent_add(b, tev->index, tev->site, e->nranges, e->ranges);
        *out = e;
        return 1;
    }
    e->kind = DG_MPI;
    if ((rc = resolve_vdeps(b, tev, e)) < 0 || (rc = convert_mpi(b, tev)) < 0)
        return rc;
    e->nranges = b->nranges;
    e->ranges = b->ranges;
    e->nkeys = b->nkeys;
    e->keys = b->keys;
    if ((rc = companions(b, e)) < 0 || (rc = set_last(b, tev->site, tev->index)) < 0)
        return rc;
    *out = e;
    return 1;
}

/* ---- runs --------------------------------------------------------------------------- */

/* Whether range r moved by stride s over reps repetitions stays inside the
 * address space (no wrap around), so its bytes are those of each event. */
static bool run_range_fits(const struct trace_range *r, int64_t s, uint64_t reps)
{
    if (!r->len)
        return true; /* never conflicts, never recorded */
    __int128 a = (__int128)r->addr, last = a + (__int128)(reps - 1) * s;
    __int128 lo = a < last ? a : last, hi = a < last ? last : a;
    return lo >= 0 && hi + (__int128)r->len <= ((__int128)1 << 64);
}

/* Whether no range of len bytes at the addresses a[0 .. reps) wraps around. */
static bool run_column_fits(const uint64_t *a, uint64_t len, uint64_t reps)
{
    for (uint64_t j = 0; len && j < reps; j++)
        if (a[j] + len < a[j])
            return false;
    return true;
}

/* Whether no address of a run of rows' phase p wraps around: a between
 * phase's strided over its rows, an inner one's over each row's
 * iterations, or each of its column's. */
static bool rows_phase_fits(const struct trace_run *r, uint32_t p)
{
    const struct trace_rows *w = r->rows;
    const struct trace_run_phase *ph = &r->ph[p];
    for (uint32_t k = 0; k < ph->ev.nranges; k++) {
        const struct trace_range *x = &ph->ev.ranges[k];
        if (!ph->row_addr) {
            uint64_t n = w->nrows - 1 + w->between_last;
            if (n && !run_range_fits(x, ph->stride[k], n))
                return false;
        } else if (!ph->row_addr[k]) {
            if (!run_column_fits(ph->addr[k], x->len, w->itb[w->nrows]))
                return false;
        } else {
            for (uint64_t i = 0; i < w->nrows; i++) {
                struct trace_range y = {ph->row_addr[k][i], x->len, x->write};
                if (!run_range_fits(&y, ph->stride[k], w->trips[i]))
                    return false;
            }
        }
    }
    return true;
}

/* The index of the last event of a run of rows' phase p (UINT64_MAX if it
 * has none: a between phase of a run of one row without them). */
static uint64_t rows_last(const struct trace_rows *w, uint32_t p)
{
    uint64_t i = w->nrows - 1;
    if (p >= w->nb)
        return w->at[i] + (w->trips[i] - 1) * w->ni + (p - w->nb);
    if (!w->between_last) {
        if (!i)
            return UINT64_MAX;
        i--;
    }
    return w->at[i] + w->trips[i] * w->ni + p;
}

/* dg_builder_convert_run of a run of rows. */
static int convert_rows(struct dg_builder *b, const struct trace_run *r, const struct dg_run **out)
{
    const struct trace_rows *w = r->rows;
    struct dg_run *d = &b->run;
    if (r->period != w->nb + w->ni || r->period > DG_RUN_PERIOD_MAX)
        return 0;
    d->first = r->first;
    d->reps = 1;
    d->period = r->period;
    d->granular = false;
    d->irregular = false;
    d->rows = w;
    for (uint32_t p = 0; p < r->period; p++) {
        const struct trace_event *tev = &r->ph[p].ev;
        if (tev->kind != TRACE_EV_COMP || tev->nranges > DG_RUN_MAX_ADDRS || !rows_phase_fits(r, p))
            return 0;
        convert_common(&d->ph[p].ev, tev);
        d->ph[p].stride = r->ph[p].stride;
        d->ph[p].diter = r->ph[p].diter;
        d->ph[p].addr = r->ph[p].addr;
        d->ph[p].row_addr = r->ph[p].row_addr;
        d->ph[p].row_diter = r->ph[p].row_diter;
        d->irregular |= r->ph[p].addr != NULL;
    }
    /* the latest event of each phase's site, in event order */
    uint64_t last[DG_RUN_PERIOD_MAX];
    uint32_t ord[DG_RUN_PERIOD_MAX], n = 0;
    for (uint32_t p = 0; p < r->period; p++) {
        last[p] = rows_last(w, p);
        if (last[p] == UINT64_MAX)
            continue;
        uint32_t at = n++;
        for (; at > 0 && last[ord[at - 1]] > last[p]; at--)
            ord[at] = ord[at - 1];
        ord[at] = p;
    }
    for (uint32_t k = 0; k < n; k++) {
        int rc = set_last(b, r->ph[ord[k]].ev.site, r->first + last[ord[k]]);
        if (rc < 0)
            return rc;
    }
    /* its last events, for the companions of a call right after it */
    uint64_t total = dg_run_events(d), t = total > RECENT ? total - RECENT : 0;
    struct dg_rows_pos x = dg_rows_at(d, t);
    for (; t < total; t++, dg_rows_next(w, &x)) {
        const struct dg_run_phase *ph = &d->ph[x.p];
        struct dg_range rg[DG_RUN_MAX_ADDRS];
        for (uint32_t k = 0; k < ph->ev.nranges; k++)
            rg[k] = (struct dg_range){dg_rows_addr(d, ph, k, &x), ph->ev.ranges[k].len, ph->ev.ranges[k].write};
        recent_add(b, r->first + t, ph->ev.site, ph->ev.nranges, rg);
    }
    *out = d;
    return 1;
}

int dg_builder_convert_run(struct dg_builder *b, const struct trace_run *r,
                           const struct dg_run **out)
{
    *out = NULL;
    if (r->rows)
        return convert_rows(b, r, out);
    if (!r->reps || !r->period || r->period > DG_RUN_PERIOD_MAX)
        return 0;
    struct dg_run *d = &b->run;
    d->rows = NULL;
    d->first = r->first;
    d->reps = r->reps;
    d->period = r->period;
    d->granular = true;
    d->irregular = false;
    for (uint32_t p = 0; p < r->period; p++) {
        const struct trace_event *tev = &r->ph[p].ev;
        if (tev->kind != TRACE_EV_COMP || tev->nranges > DG_RUN_MAX_ADDRS)
            return 0;
        for (uint32_t k = 0; k < tev->nranges; k++) {
            const struct trace_range *x = &tev->ranges[k];
            int64_t st = r->ph[p].stride[k];
            if (r->ph[p].addr && r->ph[p].addr[k]) {
                /* each event's own address: the shadow takes them one by one */
                if (!run_column_fits(r->ph[p].addr[k], x->len, r->reps))
                    return 0;
                d->irregular = true;
                continue;
            }
            if (!run_range_fits(x, st, r->reps))
                return 0;
            if (x->len && (x->addr % 4 || x->len % 4 || x->len > 4096 || (uint64_t)st % 4))
                d->granular = false;
        }
        convert_common(&d->ph[p].ev, tev);
        d->ph[p].stride = r->ph[p].stride;
        d->ph[p].diter = r->ph[p].diter;
        d->ph[p].addr = r->ph[p].addr;
        d->ph[p].row_addr = NULL;
        d->ph[p].row_diter = NULL;
    }
    /* the latest event of each phase's site: its last repetition (phases
     * later in the period come later, so a site in two phases ends at the
     * later one) */
    for (uint32_t p = 0; p < r->period; p++) {
        int rc = set_last(b, r->ph[p].ev.site, r->first + (r->reps - 1) * r->period + p);
        if (rc < 0)
            return rc;
    }
    /* its last events, for the companions of a call right after it */
    uint64_t total = r->reps * r->period;
    uint64_t t = total > RECENT ? total - RECENT : 0, j = t / r->period;
    for (uint32_t p = (uint32_t)(t % r->period); t < total; t++) {
        const struct dg_run_phase *ph = &d->ph[p];
        struct dg_range rg[DG_RUN_MAX_ADDRS];
        for (uint32_t k = 0; k < ph->ev.nranges; k++)
            rg[k] = (struct dg_range){dg_run_addr(ph, k, j), ph->ev.ranges[k].len, ph->ev.ranges[k].write};
        recent_add(b, r->first + t, ph->ev.site, ph->ev.nranges, rg);
        if (++p == r->period)
            p = 0, j++;
    }
    *out = d;
    return 1;
}

void dg_run_event(const struct dg_run *r, uint64_t t, struct dg_event *ev,
                  struct dg_range *ranges, struct trace_iter *iters)
{
    if (r->rows) {
        struct dg_rows_pos x = dg_rows_at(r, t);
        const struct dg_run_phase *ph = &r->ph[x.p];
        uint64_t j = x.p < r->rows->nb ? x.i : x.m;
        *ev = ph->ev;
        ev->index = r->first + t;
        for (uint32_t k = 0; k < ev->nranges; k++) {
            ranges[k] = ev->ranges[k];
            ranges[k].addr = dg_rows_addr(r, ph, k, &x);
        }
        for (uint32_t k = 0; k < ev->depth; k++) {
            iters[k] = ev->iters[k];
            iters[k].iter += j * ph->diter[k] + (ph->row_diter ? x.i * ph->row_diter[k] : 0);
        }
        ev->ranges = ranges;
        ev->iters = iters;
        return;
    }
    uint64_t j = t / r->period;
    const struct dg_run_phase *ph = &r->ph[t % r->period];
    *ev = ph->ev;
    ev->index = r->first + t;
    for (uint32_t k = 0; k < ev->nranges; k++) {
        ranges[k] = ev->ranges[k];
        ranges[k].addr = dg_run_addr(ph, k, j);
    }
    for (uint32_t k = 0; k < ev->depth; k++) {
        iters[k] = ev->iters[k];
        iters[k].iter += j * ph->diter[k];
    }
    ev->ranges = ranges;
    ev->iters = iters;
}
