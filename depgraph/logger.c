/* logger.c - a rank's MPI log, built while its events stream by: one
 * record per message end, collective or other MPI call, with what the
 * cross-rank analyses need and a single rank cannot know the use of: the
 * version of the bytes a send sends (the last event that wrote them, from a
 * shadow of written bytes), whether they are bytes it received (forwarding),
 * and the first event that touched the bytes a receive wrote (its consumer,
 * from a watch set of unconsumed receive buffers). */
#include <stdlib.h>
#include <string.h>

#include "depgraph.h"

/* A receive request in flight: where the completion will write. */
struct pending_recv {
    uint64_t rbuf, rbytes, comm;
    uint32_t site;
    bool contiguous;
    uint32_t comm_size; /* the start's: the completion has no communicator */
};

/* A nonblocking collective in flight: its COLL record as it will be
 * written at the completion (comm, number, root, buffers, the version of
 * the send side at the start, the start's log position in fwd_pos). */
struct pending_coll {
    struct dg_msgrec rec;
    uint32_t next_free;
};

struct dg_logger {
    int rank;
    struct dg_mpilog log;
    struct dg_shadow *written;  /* last writer of every byte written */
    struct dg_watch *unread;    /* receive buffers not consumed yet: owner = log position */
    struct dg_map recv_at;      /* event index of a RECV record -> its log position */
    uint64_t unknown_at;        /* index + 1 of the last call whose writes the trace does not
                                   hold (an untraced MPI call, code built without the pass),
                                   0 if none: it may have written any send buffer */
    struct dg_map used_by;      /* event index of a computation that consumed received bytes
                                   -> log position + 1 of the last such RECV record */
    uint32_t *same_consumer;    /* [log position]: the previous RECV record with the same
                                   consumer, + 1 (0: none) */
    uint32_t csame;
    struct dg_map reqs;         /* request id -> index in pend + 1 */
    struct pending_recv *pend;
    uint32_t npend, cpend, free_pend;
    struct dg_map colls;        /* request id -> index in pcoll + 1 */
    struct pending_coll *pcoll;
    uint32_t npcoll, cpcoll, free_pcoll;
};

#define NO_SLOT UINT32_MAX

void dg_mpilog_free(struct dg_mpilog *log)
{
    if (!log)
        return;
    free(log->rec);
    free(log->cpu);
    free(log->cons);
    log->rec = NULL;
    log->cpu = NULL;
    log->cons = NULL;
    log->n = log->cap = 0;
    log->ncons = log->capcons = 0;
}

/* The first consumer at or after pos in cons (ncons if none). */
static uint32_t cons_lower(const struct dg_mpilog *log, uint32_t pos)
{
    uint32_t lo = 0, hi = log->ncons;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (log->cons[mid].pos < pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const struct dg_consumer *dg_consumer_of(const struct dg_mpilog *log, uint32_t pos)
{
    static const struct dg_consumer none;
    uint32_t i = log && log->cons ? cons_lower(log, pos) : 0;
    return log && i < log->ncons && log->cons[i].pos == pos ? &log->cons[i] : &none;
}

static int cons_grow(struct dg_mpilog *log)
{
    if (log->ncons < log->capcons)
        return 0;
    uint32_t nc = log->capcons ? log->capcons * 2 : 64;
    if (nc <= log->capcons)
        return TRACE_ERR_NOMEM;
    struct dg_consumer *p = realloc(log->cons, (size_t)nc * sizeof *p);
    if (!p)
        return TRACE_ERR_NOMEM;
    log->cons = p;
    log->capcons = nc;
    return 0;
}

int dg_mpilog_set_consumer(struct dg_mpilog *log, const struct dg_consumer *c)
{
    uint32_t i = cons_lower(log, c->pos);
    if (i < log->ncons && log->cons[i].pos == c->pos) {
        log->cons[i] = *c;
        return 0;
    }
    if (cons_grow(log) < 0)
        return TRACE_ERR_NOMEM;
    memmove(&log->cons[i + 1], &log->cons[i], (size_t)(log->ncons - i) * sizeof *log->cons);
    log->cons[i] = *c;
    log->ncons++;
    return 0;
}

static int cons_cmp(const void *a, const void *b)
{
    uint32_t x = ((const struct dg_consumer *)a)->pos, y = ((const struct dg_consumer *)b)->pos;
    return x < y ? -1 : x > y;
}

uint32_t dg_mpilog_find(const struct dg_mpilog *log, uint64_t index)
{
    uint32_t lo = 0, hi = log->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (log->rec[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < log->n && log->rec[lo].index == index ? lo : log->n;
}

int dg_logger_create(int rank, struct dg_logger **out)
{
    struct dg_logger *l = calloc(1, sizeof *l);
    if (!l)
        return TRACE_ERR_NOMEM;
    l->rank = rank;
    l->log.rank = rank;
    l->free_pend = NO_SLOT;
    l->free_pcoll = NO_SLOT;
    if (dg_shadow_create(&l->written) < 0 || dg_watch_create(&l->unread) < 0) {
        dg_logger_destroy(l);
        return TRACE_ERR_NOMEM;
    }
    *out = l;
    return 0;
}

void dg_logger_destroy(struct dg_logger *l)
{
    if (!l)
        return;
    dg_mpilog_free(&l->log);
    dg_shadow_destroy(l->written);
    dg_watch_destroy(l->unread);
    dg_map_free(&l->recv_at);
    dg_map_free(&l->used_by);
    free(l->same_consumer);
    dg_map_free(&l->reqs);
    free(l->pend);
    dg_map_free(&l->colls);
    free(l->pcoll);
    free(l);
}

static struct dg_msgrec *rec_new(struct dg_logger *l, const struct trace_event *tev,
                                 const struct dg_event *ev, int kind)
{
    struct dg_mpilog *g = &l->log;
    if (g->n == g->cap) {
        uint32_t nc = g->cap ? g->cap * 2 : 64;
        struct dg_msgrec *p = realloc(g->rec, nc * sizeof *p);
        if (!p)
            return NULL;
        g->rec = p;
        if (g->cpu) {
            struct dg_cputime *c = realloc(g->cpu, nc * sizeof *c);
            if (!c)
                return NULL; /* rec grew: g->cap stays, so both are at least g->cap */
            memset(c + g->cap, 0, (size_t)(nc - g->cap) * sizeof *c);
            g->cpu = c;
        }
        g->cap = nc;
    }
    if ((tev->cpu_enter || tev->cpu_exit) && !g->cpu && !(g->cpu = calloc(g->cap, sizeof *g->cpu)))
        return NULL;
    if (g->cpu)
        g->cpu[g->n] = (struct dg_cputime){tev->cpu_enter, tev->cpu_exit};
    struct dg_msgrec *r = &g->rec[g->n++];
    const struct cht_rec_mpi *m = tev->mpi;
    memset(r, 0, sizeof *r);
    r->index = tev->index;
    r->site = tev->site;
    r->call = trace_event_call(tev);
    r->kind = (uint8_t)kind;
    r->role = ev ? ev->role : DG_ROLE_OTHER;
    r->peer = -1;
    r->tag = -1;
    r->comm = m->comm;
    r->comm_size = m->comm_size;
    r->t_enter = m->t_enter;
    r->t_exit = m->t_exit;
    return r;
}

/* Version of the bytes [buf, buf + bytes), and whether they all come from
 * one receive of this log. */
static void send_bytes(struct dg_logger *l, struct dg_msgrec *r, uint64_t buf, uint64_t bytes)
{
    r->buf = buf;
    r->bytes = bytes;
    if (!buf || !bytes)
        return;
    struct dg_range q = {buf, bytes, false};
    r->version = dg_shadow_last_conflict(l->written, &q);
    if (l->unknown_at > r->version) { /* maybe written since, by code the trace does not see */
        r->version = l->unknown_at;
        return;
    }
    if (!r->version)
        return;
    const uint64_t *pos = dg_map_get(&l->recv_at, r->version - 1);
    if (!pos)
        return;
    /* the receive wrote the last byte to be written: if it covers the whole
     * range, every byte is its (nothing wrote any of them later) */
    const struct dg_msgrec *rv = &l->log.rec[*pos];
    if (rv->buf <= buf && buf + bytes <= rv->buf + rv->bytes) {
        r->flags |= DG_MSGF_FORWARD;
        r->fwd_pos = (uint32_t)*pos; /* a log position (n is 32 bits) */
    }
}

/* A RECV record for bytes written at [buf, buf + bytes): watched until its
 * first consumer. */
static int recv_record(struct dg_logger *l, struct dg_msgrec *r, uint64_t buf, uint64_t bytes)
{
    uint32_t pos = (uint32_t)(r - l->log.rec);
    r->buf = buf;
    r->bytes = bytes;
    if (!dg_map_put(&l->recv_at, r->index, pos))
        return TRACE_ERR_NOMEM;
    if (!buf || !bytes)
        return 0;
    struct dg_range range = {buf, bytes, true};
    struct dg_event w = {.kind = DG_MPI, .role = DG_ROLE_RECV, .nranges = 1, .ranges = &range};
    return dg_watch_add(l->unread, pos, &w, false);
}

static bool contiguous(const struct cht_rec_mpi *m)
{
    return (uint64_t)(m->count > 0 ? m->count : 0) * m->datatype == m->rbytes;
}

static uint64_t status_bytes(const struct cht_rec_mpi *m, uint64_t st_bytes, bool has_status)
{
    return has_status && contiguous(m) && st_bytes < m->rbytes ? st_bytes : m->rbytes;
}

static int pend_add(struct dg_logger *l, uint64_t request, const struct pending_recv *p)
{
    uint32_t slot;
    if (l->free_pend != NO_SLOT) {
        slot = l->free_pend;
        l->free_pend = (uint32_t)l->pend[slot].rbuf;
    } else {
        if (l->npend == l->cpend) {
            uint32_t nc = l->cpend ? l->cpend * 2 : 16;
            struct pending_recv *q = realloc(l->pend, nc * sizeof *q);
            if (!q)
                return TRACE_ERR_NOMEM;
            l->pend = q;
            l->cpend = nc;
        }
        slot = l->npend++;
    }
    l->pend[slot] = *p;
    uint64_t *v = dg_map_put(&l->reqs, request, slot + 1);
    if (!v)
        return TRACE_ERR_NOMEM;
    *v = slot + 1;
    return 0;
}

/* One-sided calls (docs/dependence.md, "One-sided communication"): the
 * window's collective calls (its creation, Win_fence, Win_free) are COLL
 * records of an instance of the window, comm = the window id (never a
 * communicator id), seq = their number on the window, so they match across
 * its members and pass clocks all to all; every other one-sided call is an
 * OTHER record: it has no partner call to match (a Put's target makes no
 * call), so the happens-before order has no edge for it. */
static int log_rma(struct dg_logger *l, const struct trace_event *tev, const struct dg_event *ev)
{
    const struct cht_rec_mpi *m = tev->mpi;
    bool coll = m->rseq && (m->seq & CHT_WIN_ID_BIT);
    struct dg_msgrec *r = rec_new(l, tev, ev, coll ? DG_MSG_COLL : DG_MSG_OTHER);
    if (!r)
        return TRACE_ERR_NOMEM;
    if (coll) {
        r->flags |= DG_MSGF_BLOCKS;
        r->comm = m->seq;
        r->seq = m->rseq;
    }
    return 0;
}

/* The buffers, root and number of a collective into its COLL record r
 * (the version of the send side is read now). */
static void coll_fields(struct dg_logger *l, struct dg_msgrec *r, const struct cht_rec_mpi *m)
{
    r->flags |= DG_MSGF_BLOCKS;
    if (m->flags & CHT_MPIF_ROOT)
        r->flags |= DG_MSGF_ROOT;
    r->seq = m->seq;
    r->peer = m->peer >= 0 ? m->peer : -1;
    if (m->flags & CHT_MPIF_SEND_IN_PLACE)
        send_bytes(l, r, m->rbuf, m->rbytes);
    else
        send_bytes(l, r, m->sbuf, m->sbytes);
    r->flags &= ~(uint32_t)DG_MSGF_FORWARD;
    r->rbuf = m->flags & CHT_MPIF_RECV_IN_PLACE ? 0 : m->rbuf;
    r->rbytes = m->flags & CHT_MPIF_RECV_IN_PLACE ? 0 : m->rbytes;
    r->mpi_op = (uint8_t)(m->op > 0 && m->op < 256 ? m->op : 0);
    r->dtype = (uint8_t)(m->tag > 0 && m->tag < CHT_DT_MAX ? m->tag : CHT_DT_UNKNOWN);
}

/* A blocking collective's receive side (in place: the receive buffer it
 * reads and writes) is watched until its first consumer, as a receive's
 * is, so that merging it with a later collective can be refused when its
 * result is used in between. */
static int coll_watch(struct dg_logger *l, struct dg_msgrec *r, const struct cht_rec_mpi *m)
{
    uint64_t buf = m->rbuf, bytes = m->rbytes;
    if (!buf || !bytes)
        return 0;
    struct dg_range range = {buf, bytes, true};
    struct dg_event w = {.kind = DG_MPI, .role = DG_ROLE_COLL, .nranges = 1, .ranges = &range};
    return dg_watch_add(l->unread, (uint64_t)(r - l->log.rec), &w, false);
}

/* The start of a nonblocking collective: an OTHER record now; its COLL
 * record is written where its data is delivered, at the Wait/Test that
 * completes it (as the RECV record of an Irecv), so that it joins its
 * collective instance there. */
static int nb_coll_start(struct dg_logger *l, const struct trace_event *tev,
                         const struct dg_event *ev)
{
    const struct cht_rec_mpi *m = tev->mpi;
    struct dg_msgrec *r = rec_new(l, tev, ev, DG_MSG_OTHER);
    if (!r)
        return TRACE_ERR_NOMEM;
    if (!m->request)
        return 0; /* failed: it never completes */
    struct pending_coll p = {*r, NO_SLOT};
    p.rec.kind = DG_MSG_COLL;
    p.rec.flags |= DG_MSGF_NONBLOCKING;
    p.rec.fwd_pos = (uint32_t)(r - l->log.rec);
    coll_fields(l, &p.rec, m);
    uint32_t slot;
    if (l->free_pcoll != NO_SLOT) {
        slot = l->free_pcoll;
        l->free_pcoll = l->pcoll[slot].next_free;
    } else {
        if (l->npcoll == l->cpcoll) {
            uint32_t nc = l->cpcoll ? l->cpcoll * 2 : 16;
            struct pending_coll *q = realloc(l->pcoll, nc * sizeof *q);
            if (!q)
                return TRACE_ERR_NOMEM;
            l->pcoll = q;
            l->cpcoll = nc;
        }
        slot = l->npcoll++;
    }
    l->pcoll[slot] = p;
    uint64_t *v = dg_map_put(&l->colls, m->request, slot + 1);
    if (!v)
        return TRACE_ERR_NOMEM;
    if (*v != (uint64_t)slot + 1) { /* id reused while open: keep the newer */
        l->pcoll[*v - 1].next_free = l->free_pcoll;
        l->free_pcoll = (uint32_t)(*v - 1);
        *v = slot + 1;
    }
    return 0;
}

/* Isendrecv(_replace): its send is a nonblocking send at the start, its
 * receive is logged when the request completes (a pending receive, the
 * whole extent: count and datatype are the send side's). */
static int log_isendrecv(struct dg_logger *l, const struct trace_event *tev,
                         const struct dg_event *ev)
{
    const struct cht_rec_mpi *m = tev->mpi;
    struct dg_msgrec *r = rec_new(l, tev, ev, m->peer >= 0 ? DG_MSG_SEND : DG_MSG_OTHER);
    if (!r)
        return TRACE_ERR_NOMEM;
    if (m->peer >= 0) {
        r->flags |= DG_MSGF_NONBLOCKING;
        r->peer = m->peer;
        r->tag = m->tag;
        r->seq = m->seq;
        send_bytes(l, r, m->sbuf, m->sbytes);
    }
    if (m->rpeer == CHT_RANK_PROC_NULL || !m->request)
        return 0;
    struct pending_recv p = {m->rbuf, m->rbytes, m->comm, tev->site, false, m->comm_size};
    return pend_add(l, m->request, &p);
}

/* A completed request that was a nonblocking collective: its COLL record
 * at the completion (wait = the completion's own record).  0 if it was
 * not one, 1 if written, or an error. */
static int nb_coll_complete(struct dg_logger *l, const struct trace_event *tev, uint32_t wait,
                            uint64_t request)
{
    uint64_t *v = dg_map_get(&l->colls, request);
    if (!v)
        return 0;
    uint32_t slot = (uint32_t)(*v - 1);
    dg_map_del(&l->colls, request);
    struct dg_msgrec *r = rec_new(l, tev, NULL, DG_MSG_COLL);
    if (!r)
        return TRACE_ERR_NOMEM;
    struct dg_msgrec x = l->pcoll[slot].rec;
    l->pcoll[slot].next_free = l->free_pcoll;
    l->free_pcoll = slot;
    /* the completion's place and times, the start's site (where the
     * buffers were given), call and fields */
    x.index = r->index;
    x.role = DG_ROLE_COMPLETE;
    x.t_enter = r->t_enter;
    x.t_exit = r->t_exit; /* its CPU times are the completion's already (by position) */
    *r = x;
    l->log.rec[wait].flags |= DG_MSGF_BLOCKS;
    return 1;
}

static int log_mpi(struct dg_logger *l, const struct trace_event *tev, const struct dg_event *ev)
{
    const struct cht_rec_mpi *m = tev->mpi;
    int call = trace_event_call(tev);
    int role = ev ? ev->role : DG_ROLE_OTHER;
    bool has_status = m->flags & CHT_MPIF_HAS_STATUS;
    struct dg_msgrec *r;

    if (call >= CHT_MPI_WIN_CREATE && call <= CHT_MPI_WIN_SYNC)
        return log_rma(l, tev, ev);
    if (role == DG_ROLE_START && dg_call_nonblocking_coll(call))
        return nb_coll_start(l, tev, ev);
    switch (role) {
    case DG_ROLE_SEND:
        if (!(r = rec_new(l, tev, ev, DG_MSG_SEND)))
            return TRACE_ERR_NOMEM;
        r->peer = m->peer;
        r->tag = m->tag;
        r->seq = m->seq;
        send_bytes(l, r, m->sbuf, m->sbytes);
        return 0;
    case DG_ROLE_RECV:
        if (!(r = rec_new(l, tev, ev, DG_MSG_RECV)))
            return TRACE_ERR_NOMEM;
        r->flags |= DG_MSGF_BLOCKS;
        r->peer = m->st_source;
        r->tag = m->st_tag;
        r->seq = m->rseq;
        return recv_record(l, r, m->rbuf, status_bytes(m, m->st_bytes, has_status));
    case DG_ROLE_SENDRECV:
        if (m->peer >= 0) {
            if (!(r = rec_new(l, tev, ev, DG_MSG_SEND)))
                return TRACE_ERR_NOMEM;
            r->peer = m->peer;
            r->tag = m->tag;
            r->seq = m->seq;
            send_bytes(l, r, m->sbuf, m->sbytes);
        }
        if (m->rpeer != CHT_RANK_PROC_NULL && m->st_source >= 0) {
            if (!(r = rec_new(l, tev, ev, DG_MSG_RECV)))
                return TRACE_ERR_NOMEM;
            r->flags |= DG_MSGF_BLOCKS;
            r->peer = m->st_source;
            r->tag = m->st_tag;
            r->seq = m->rseq;
            return recv_record(l, r, m->rbuf, m->rbytes);
        }
        return 0;
    case DG_ROLE_START:
        if (call == CHT_MPI_ISENDRECV || call == CHT_MPI_ISENDRECV_REPLACE)
            return log_isendrecv(l, tev, ev);
        if (call == CHT_MPI_IRECV || call == CHT_MPI_IMRECV) {
            if (!(r = rec_new(l, tev, ev, DG_MSG_OTHER)))
                return TRACE_ERR_NOMEM;
            if (m->rpeer == CHT_RANK_PROC_NULL || !m->request)
                return 0;
            struct pending_recv p = {m->rbuf, m->rbytes, m->comm, tev->site, contiguous(m), m->comm_size};
            return pend_add(l, m->request, &p);
        }
        if (m->peer < 0) {
            if (!(r = rec_new(l, tev, ev, DG_MSG_OTHER)))
                return TRACE_ERR_NOMEM;
            return 0;
        }
        if (!(r = rec_new(l, tev, ev, DG_MSG_SEND)))
            return TRACE_ERR_NOMEM;
        r->flags |= DG_MSGF_NONBLOCKING;
        r->peer = m->peer;
        r->tag = m->tag;
        r->seq = m->seq;
        send_bytes(l, r, m->sbuf, m->sbytes);
        if (m->h.aux == CHT_MPI_PSEND_INIT) {
            /* a partitioned send reads its partitions from their Pready on,
             * not at the start: what they hold now says nothing */
            r->version = 0;
            r->flags &= ~(uint32_t)DG_MSGF_FORWARD;
        }
        return 0;
    case DG_ROLE_COMPLETE: {
        if (!(r = rec_new(l, tev, ev, DG_MSG_OTHER)))
            return TRACE_ERR_NOMEM;
        uint32_t wait = (uint32_t)(r - l->log.rec);
        for (uint32_t i = 0; i < tev->ncomplete; i++) {
            const struct cht_rec_complete *c = tev->complete[i];
            int rc = nb_coll_complete(l, tev, wait, c->request);
            if (rc != 0) {
                if (rc < 0)
                    return rc;
                continue;
            }
            uint64_t *v = dg_map_get(&l->reqs, c->request);
            if (!(c->h.aux & CHT_COMPLETE_RECV) || !v)
                continue; /* a send request, or one we never saw start */
            uint32_t slot = (uint32_t)(*v - 1);
            struct pending_recv p = l->pend[slot];
            dg_map_del(&l->reqs, c->request);
            l->pend[slot].rbuf = l->free_pend;
            l->free_pend = slot;
            if (c->st_source < 0)
                continue; /* freed, failed or cancelled: no message */
            l->log.rec[wait].flags |= DG_MSGF_BLOCKS;
            if (!(r = rec_new(l, tev, ev, DG_MSG_RECV)))
                return TRACE_ERR_NOMEM;
            r->flags |= DG_MSGF_BLOCKS | DG_MSGF_NONBLOCKING;
            r->site = p.site; /* the Irecv's line: where the buffer was given */
            r->comm = p.comm;
            r->comm_size = p.comm_size;
            r->peer = c->st_source;
            r->tag = c->st_tag;
            r->seq = c->rseq;
            uint64_t bytes = p.contiguous && c->st_bytes < p.rbytes ? c->st_bytes : p.rbytes;
            rc = recv_record(l, r, p.rbuf, bytes);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    case DG_ROLE_COLL:
    case DG_ROLE_SYNC:
        if (!(r = rec_new(l, tev, ev, DG_MSG_COLL)))
            return TRACE_ERR_NOMEM;
        coll_fields(l, r, m);
        return coll_watch(l, r, m);
    case DG_ROLE_PROBE:
        if (!(r = rec_new(l, tev, ev, DG_MSG_OTHER)))
            return TRACE_ERR_NOMEM;
        if (call == CHT_MPI_PROBE || call == CHT_MPI_MPROBE)
            r->flags |= DG_MSGF_BLOCKS;
        return 0;
    default:
        return rec_new(l, tev, ev, DG_MSG_OTHER) ? 0 : TRACE_ERR_NOMEM;
    }
}

/* Remembers that computation event `index` consumed the receive at pos, so
 * that an MPI call whose value dependences include that event marks it. */
static int consumed_by_comp(struct dg_logger *l, uint64_t index, uint32_t pos)
{
    if (pos >= l->csame) {
        uint32_t nc = l->csame ? l->csame : 64;
        while (nc <= pos)
            nc *= 2;
        uint32_t *p = realloc(l->same_consumer, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        l->same_consumer = p;
        l->csame = nc;
    }
    uint64_t *head = dg_map_put(&l->used_by, index, 0);
    if (!head)
        return TRACE_ERR_NOMEM;
    l->same_consumer[pos] = (uint32_t)*head;
    *head = (uint64_t)pos + 1;
    return 0;
}

/* Marks the receives whose consumer was event `index` as used by MPI
 * call site `site`. */
static void mark_used(struct dg_logger *l, uint64_t index, uint32_t site)
{
    uint64_t *head = dg_map_get(&l->used_by, index);
    if (!head)
        return;
    for (uint32_t p = (uint32_t)*head; p; p = l->same_consumer[p - 1]) {
        struct dg_msgrec *r = &l->log.rec[p - 1];
        r->flags |= DG_MSGF_ARG;
        r->use_site = site;
    }
    dg_map_del(&l->used_by, index);
}

/* An MPI event that uses values computed by consumers of received bytes
 * (its vdeps, and its companions: the events right before it that only
 * compute its arguments): those receives are used as an argument of that
 * call (a count, an offset in an address), not only combined. */
static void mark_args(struct dg_logger *l, const struct dg_event *ev)
{
    for (uint32_t i = 0; i < ev->nvdeps; i++)
        mark_used(l, ev->vdeps[i], ev->site);
    for (uint32_t k = 1; k <= ev->ncompanions && k <= ev->index; k++)
        mark_used(l, ev->index - k, ev->site);
}

/* How far back a call's companions are matched with the sends before it. */
#define ARG_SENDS_BACK 8

/* An MPI call to a peer whose companions (the loads of its arguments) read
 * every byte an earlier send to the same peer sent, unchanged since: that
 * send carried a value the call uses (the offset and the length a root
 * sends before the block at that offset).  Looks at the sends right before
 * the call, to that peer, at most ARG_SENDS_BACK. */
static void mark_sent_args(struct dg_logger *l, const struct trace_event *tev, const struct dg_event *ev)
{
    int32_t peer = tev->mpi->peer;
    uint32_t seen = 0;
    for (uint32_t i = l->log.n; i-- > 0 && seen < ARG_SENDS_BACK; seen++) {
        struct dg_msgrec *r = &l->log.rec[i];
        if (r->kind != DG_MSG_SEND || r->peer != peer || r->comm != tev->mpi->comm)
            break;
        if (!r->bytes || !r->version)
            continue;
        bool covered = false;
        for (uint32_t k = 0; k < ev->ncranges && !covered; k++) {
            const struct dg_range *c = &ev->cranges[k];
            covered = !c->write && c->addr <= r->buf && r->buf + r->bytes <= c->addr + c->len;
        }
        struct dg_range q = {r->buf, r->bytes, false};
        if (covered && dg_shadow_last_conflict(l->written, &q) == r->version) {
            r->flags |= DG_MSGF_ARG;
            r->use_site = ev->site;
        }
    }
}

int dg_logger_feed(struct dg_logger *l, const struct trace_event *tev, const struct dg_event *ev)
{
    if (tev->kind != TRACE_EV_COMP && tev->kind != TRACE_EV_MPI)
        return 0;
    int rc;
    /* the first consumer of unconsumed receive buffers */
    if (ev && dg_watch_owners(l->unread)) {
        const uint64_t *owners;
        size_t n = dg_watch_conflicts(l->unread, ev, &owners);
        for (size_t k = 0; k < n; k++) {
            uint64_t pos = owners[k];
            struct dg_msgrec *r = &l->log.rec[pos];
            /* appended in the order found, sorted by dg_logger_take */
            if ((rc = cons_grow(&l->log)) < 0)
                return rc;
            struct dg_consumer *cs = &l->log.cons[l->log.ncons++];
            *cs = (struct dg_consumer){.index = ev->index, .pos = (uint32_t)pos, .site = ev->site,
                                       .flags = ev->site_flags, .op = ev->site_op, .kind = (uint8_t)ev->kind};
            r->flags |= DG_MSGF_CONSUMED;
            for (uint32_t j = 0; j < ev->nranges; j++) {
                if (ev->ranges[j].write && ev->ranges[j].len) {
                    cs->addr = ev->ranges[j].addr;
                    cs->len = ev->ranges[j].len;
                    break;
                }
            }
            if (ev->kind == DG_COMP && (rc = consumed_by_comp(l, ev->index, (uint32_t)pos)) < 0)
                return rc;
        }
        for (size_t k = 0; k < n; k++)
            dg_watch_remove(l->unread, owners[k]);
    }
    if (tev->kind == TRACE_EV_MPI && ev && l->used_by.n)
        mark_args(l, ev);
    if (tev->kind == TRACE_EV_MPI && ev && ev->ncranges && tev->mpi->peer >= 0 &&
        (ev->role == DG_ROLE_SEND || ev->role == DG_ROLE_START))
        mark_sent_args(l, tev, ev);
    if (tev->kind == TRACE_EV_MPI && (rc = log_mpi(l, tev, ev)) < 0)
        return rc;
    if (ev && ev->kind == DG_MPI && (ev->call == CHT_MPI_UNTRACED || ev->call == CHT_MPI_EXTERN))
        l->unknown_at = ev->index + 1;
    /* then what the event wrote (after the send versions were read) */
    if (ev)
        for (uint32_t j = 0; j < ev->nranges; j++)
            if (ev->ranges[j].write && (rc = dg_shadow_update(l->written, &ev->ranges[j], ev->index)) < 0)
                return rc;
    return 0;
}

int dg_logger_feed_run(struct dg_logger *l, const struct dg_run *r)
{
    const uint64_t n = dg_run_events(r);
    static const struct trace_event comp = {.kind = TRACE_EV_COMP};
    struct dg_event ev;
    struct dg_range ranges[DG_RUN_MAX_ADDRS];
    static _Thread_local struct trace_iter iters[TRACE_MAX_LOOP_DEPTH];
    uint64_t t = 0;
    while (t < n) {
        /* the events before the next one that reads an unread buffer only
         * update what was written */
        uint64_t x = dg_watch_owners(l->unread) ? dg_watch_first_conflict_run(l->unread, r, t, n) : n;
        int rc = dg_shadow_update_run(l->written, r, t, x, true);
        if (rc < 0)
            return rc;
        if (x == n)
            break;
        dg_run_event(r, x, &ev, ranges, iters);
        if ((rc = dg_logger_feed(l, &comp, &ev)) < 0)
            return rc;
        t = x + 1;
    }
    return 0;
}

int dg_logger_take(struct dg_logger *l, struct dg_mpilog *out)
{
    /* the log is kept until the report is built, for every rank: without
     * the room it grew into (up to half of it) */
    if (l->log.n && l->log.n < l->log.cap) {
        struct dg_msgrec *p = realloc(l->log.rec, l->log.n * sizeof *p);
        struct dg_cputime *c = l->log.cpu ? realloc(l->log.cpu, l->log.n * sizeof *c) : NULL;
        if (p)
            l->log.rec = p;
        if (c)
            l->log.cpu = c;
        if (p || c) /* cap: the room both have */
            l->log.cap = l->log.n;
    }
    if (l->log.ncons > 1)
        qsort(l->log.cons, l->log.ncons, sizeof *l->log.cons, cons_cmp);
    if (l->log.ncons && l->log.ncons < l->log.capcons) {
        struct dg_consumer *p = realloc(l->log.cons, l->log.ncons * sizeof *p);
        if (p) {
            l->log.cons = p;
            l->log.capcons = l->log.ncons;
        }
    }
    *out = l->log;
    memset(&l->log, 0, sizeof l->log);
    l->log.rank = l->rank;
    return 0;
}
