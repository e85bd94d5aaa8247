/* rma.c - one-sided communication (RMA) in the per-rank event model: the
 * builder's window table and the read/write sets, keys and roles of the
 * window calls (docs/dependence.md, "One-sided communication").
 *
 * Per window (by the id the runtime agreed across its members, the record's
 * seq) it keeps the local memory the window exposes (the creation's range,
 * or the ranges attached to a dynamic window) and the origin buffers of the
 * operations this rank started that no synchronisation has completed yet
 * (with their target).  Window memory can be read and written by other
 * ranks at any time while the window exists, so every synchronisation of a
 * window reads and writes its memory, and every MPI call made while windows
 * are open reads and writes the memory of all of them and carries their
 * keys (dg_rma_open_windows).  An origin buffer is in use from its
 * operation to the synchronisation that completes it, which reads (put
 * side) or writes (get side) it again.
 */
#include <stdlib.h>
#include <string.h>

#include "builder-private.h"

/* Origin ranges pending on one window before it becomes a fence (the list
 * coalesces ranges, so this is only reached by programs that start very
 * many operations on scattered buffers without synchronising). */
#define PEND_MAX 65536u

struct pend {
    uint64_t addr, len;
    int32_t target; /* world rank, or CHT_RANK_NONE if unknown */
    bool write;
};

struct win {
    uint64_t id, comm;
    struct dg_range *mem; /* local window memory */
    uint32_t nmem, cmem;
    struct pend *pend;    /* origin buffers of operations not completed yet */
    uint32_t npend, cpend;
    bool overflow;        /* pending ranges were lost: completions are fences */
};

struct dg_rma {
    struct win *w;
    uint32_t n, cap;
};

void dg_rma_destroy(struct dg_rma *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n; i++) {
        free(r->w[i].mem);
        free(r->w[i].pend);
    }
    free(r->w);
    free(r);
}

static struct win *win_find(struct dg_rma *r, uint64_t id)
{
    for (uint32_t i = 0; r && i < r->n; i++)
        if (r->w[i].id == id)
            return &r->w[i];
    return NULL;
}

static void win_drop(struct dg_rma *r, struct win *w)
{
    free(w->mem);
    free(w->pend);
    *w = r->w[--r->n];
}

/* A new window (an old one with the same id is replaced). */
static struct win *win_new(struct dg_builder *b, uint64_t id, uint64_t comm)
{
    struct dg_rma **rp = dg_builder_rma(b);
    if (!*rp && !(*rp = calloc(1, sizeof **rp)))
        return NULL;
    struct dg_rma *r = *rp;
    struct win *w = win_find(r, id);
    if (w)
        win_drop(r, w);
    if (r->n == r->cap) {
        uint32_t nc = r->cap ? 2 * r->cap : 4;
        struct win *p = realloc(r->w, nc * sizeof *p);
        if (!p)
            return NULL;
        r->w = p;
        r->cap = nc;
    }
    w = &r->w[r->n++];
    memset(w, 0, sizeof *w);
    w->id = id;
    w->comm = comm;
    return w;
}

static int mem_add(struct win *w, uint64_t addr, uint64_t len)
{
    if (!addr || !len)
        return 0;
    if (w->nmem == w->cmem) {
        uint32_t nc = w->cmem ? 2 * w->cmem : 4;
        struct dg_range *p = realloc(w->mem, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        w->mem = p;
        w->cmem = nc;
    }
    w->mem[w->nmem++] = (struct dg_range){addr, len, true};
    return 0;
}

/* The window's local memory, read and written by the event. */
static int touch_mem(struct dg_builder *b, const struct win *w)
{
    int rc = 0;
    for (uint32_t i = 0; !rc && i < w->nmem; i++)
        rc = dg_builder_add_range(b, w->mem[i].addr, w->mem[i].len, true);
    return rc;
}

/* Enters an origin range; merges it into an entry of the same target and
 * direction it overlaps or touches (among the last few). */
static int pend_add(struct win *w, uint64_t addr, uint64_t len, int32_t target, bool write)
{
    if (!addr || !len || w->overflow)
        return 0;
    for (uint32_t k = w->npend, seen = 0; k-- > 0 && seen < 8; seen++) {
        struct pend *p = &w->pend[k];
        if (p->target != target || p->write != write || addr > p->addr + p->len ||
            p->addr > addr + len)
            continue;
        uint64_t lo = p->addr < addr ? p->addr : addr;
        uint64_t hi = p->addr + p->len > addr + len ? p->addr + p->len : addr + len;
        p->addr = lo;
        p->len = hi - lo;
        return 0;
    }
    if (w->npend == PEND_MAX) {
        w->overflow = true;
        return 0;
    }
    if (w->npend == w->cpend) {
        uint32_t nc = w->cpend ? 2 * w->cpend : 8;
        struct pend *p = realloc(w->pend, nc * sizeof *p);
        if (!p)
            return TRACE_ERR_NOMEM;
        w->pend = p;
        w->cpend = nc;
    }
    w->pend[w->npend++] = (struct pend){addr, len, target, write};
    return 0;
}

/* Completes the pending operations to `target` (all of them if `all`):
 * their origin ranges go to the event, read or written as by the
 * operation.  With pending ranges lost, the event becomes a fence. */
static int complete(struct dg_builder *b, struct win *w, struct dg_event *e, bool all,
                    int32_t target)
{
    if (w->overflow) {
        e->role = DG_ROLE_FENCE;
        if (all) {
            w->overflow = false;
            w->npend = 0;
        }
        return 0;
    }
    uint32_t keep = 0;
    for (uint32_t k = 0; k < w->npend; k++) {
        const struct pend *p = &w->pend[k];
        /* an unknown target on either side: maybe this one, maybe not */
        bool maybe = all || target < 0 || p->target == target || p->target == CHT_RANK_NONE;
        bool done = all || (target >= 0 && p->target == target);
        int rc = maybe ? dg_builder_add_range(b, p->addr, p->len, p->write) : 0;
        if (rc < 0)
            return rc;
        if (!done)
            w->pend[keep++] = *p;
    }
    w->npend = keep;
    return 0;
}

/* Window creation: the window enters the table with its memory. */
static int created(struct dg_builder *b, const struct trace_event *tev, struct dg_event *e)
{
    const struct cht_rec_mpi *m = tev->mpi;
    e->role = DG_ROLE_SYNC;
    int rc = dg_builder_add_key(b, DG_KEY_COLL, m->comm, 0);
    if (rc < 0 || (m->flags & CHT_MPIF_ERROR))
        return rc; /* no window */
    struct win *w = win_new(b, m->seq, m->comm);
    if (!w)
        return TRACE_ERR_NOMEM;
    if ((rc = mem_add(w, m->rbuf, m->rbytes)) < 0)
        return rc;
    return touch_mem(b, w);
}

/* An operation: its origin buffers (the held ranges) stay in use until the
 * synchronisation that completes it; an R-operation also until its
 * request completes. */
static int operation(struct dg_builder *b, const struct trace_event *tev, struct dg_event *e,
                     struct win *w)
{
    const struct cht_rec_mpi *m = tev->mpi;
    int rc = 0;
    e->role = DG_ROLE_START;
    e->peer = m->peer;
    if (m->peer != CHT_RANK_PROC_NULL) /* an operation on MPI_PROC_NULL does nothing */
        for (uint32_t k = 0; !rc && k < tev->nheld; k++)
            rc = pend_add(w, tev->held[k].addr, tev->held[k].len,
                          m->peer >= 0 ? m->peer : CHT_RANK_NONE, tev->held[k].write);
    if (!rc && m->request)
        rc = dg_builder_request_start(b, m->request, tev);
    return rc;
}

/* Which pending operations a synchronisation completes: 1 all, 0 none,
 * -1 those to its target. */
static int completes(int call)
{
    switch (call) {
    case CHT_MPI_WIN_FENCE: case CHT_MPI_WIN_UNLOCK_ALL: case CHT_MPI_WIN_FLUSH_ALL:
    case CHT_MPI_WIN_FLUSH_LOCAL_ALL: case CHT_MPI_WIN_COMPLETE: case CHT_MPI_WIN_FREE:
        return 1;
    case CHT_MPI_WIN_UNLOCK: case CHT_MPI_WIN_FLUSH: case CHT_MPI_WIN_FLUSH_LOCAL:
        return -1;
    default:
        return 0;
    }
}

/* Win_attach / Win_detach: the range joins or leaves the window's memory,
 * and the call reads and writes it. */
static int attach(struct dg_builder *b, const struct cht_rec_mpi *m, struct win *w)
{
    int rc = 0;
    if (m->h.aux == CHT_MPI_WIN_ATTACH) {
        if (!(m->flags & CHT_MPIF_ERROR) && (rc = mem_add(w, m->rbuf, m->rbytes)) < 0)
            return rc;
        return dg_builder_add_range(b, m->rbuf, m->rbytes, true);
    }
    for (uint32_t k = 0; k < w->nmem; k++) {
        if (w->mem[k].addr != m->rbuf)
            continue;
        rc = dg_builder_add_range(b, w->mem[k].addr, w->mem[k].len, true);
        if (!(m->flags & CHT_MPIF_ERROR))
            w->mem[k] = w->mem[--w->nmem];
        break;
    }
    return rc;
}

int dg_rma_convert(struct dg_builder *b, const struct trace_event *tev, struct dg_event *e)
{
    const struct cht_rec_mpi *m = tev->mpi;
    int call = m->h.aux, rc;
    e->peer = CHT_RANK_NONE;
    if (!(m->seq & CHT_WIN_ID_BIT)) {
        e->role = DG_ROLE_FENCE; /* a window the runtime did not see created */
        return 0;
    }
    switch (call) {
    case CHT_MPI_WIN_CREATE: case CHT_MPI_WIN_ALLOCATE: case CHT_MPI_WIN_ALLOCATE_SHARED:
    case CHT_MPI_WIN_CREATE_DYNAMIC:
        return created(b, tev, e);
    default:
        break;
    }
    struct win *w = win_find(*dg_builder_rma(b), m->seq);
    if (!w) {
        e->role = DG_ROLE_FENCE; /* created before the trace, or freed */
        return 0;
    }
    if ((rc = dg_builder_add_key(b, DG_KEY_COLL, w->id, 0)) < 0)
        return rc;
    switch (call) {
    case CHT_MPI_PUT: case CHT_MPI_GET: case CHT_MPI_ACCUMULATE: case CHT_MPI_GET_ACCUMULATE:
    case CHT_MPI_FETCH_AND_OP: case CHT_MPI_COMPARE_AND_SWAP: case CHT_MPI_RPUT:
    case CHT_MPI_RGET: case CHT_MPI_RACCUMULATE: case CHT_MPI_RGET_ACCUMULATE:
        return operation(b, tev, e, w);
    case CHT_MPI_WIN_ATTACH: case CHT_MPI_WIN_DETACH:
        e->role = DG_ROLE_OTHER;
        return attach(b, m, w);
    default:
        break;
    }
    /* a synchronisation: fence, free, locks, flushes, PSCW, Win_sync */
    e->role = DG_ROLE_SYNC;
    if (call == CHT_MPI_WIN_FENCE || call == CHT_MPI_WIN_FREE)
        if ((rc = dg_builder_add_key(b, DG_KEY_COLL, m->comm, 0)) < 0)
            return rc;
    if ((rc = touch_mem(b, w)) < 0)
        return rc;
    int what = completes(call);
    if (what && (rc = complete(b, w, e, what > 0, m->peer)) < 0)
        return rc;
    if (call == CHT_MPI_WIN_FREE && !(m->flags & CHT_MPIF_ERROR))
        win_drop(*dg_builder_rma(b), w);
    return 0;
}

int dg_rma_open_windows(struct dg_builder *b)
{
    struct dg_rma *r = *dg_builder_rma(b);
    int rc = 0;
    for (uint32_t i = 0; r && !rc && i < r->n; i++) {
        rc = touch_mem(b, &r->w[i]);
        if (!rc)
            rc = dg_builder_add_key(b, DG_KEY_COLL, r->w[i].id, 0);
    }
    return rc;
}
