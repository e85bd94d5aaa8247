/* mpi-persist.c - persistent requests: the table of what each wrapped *_init
 * call made, and the MPI_Start / MPI_Startall wrappers.
 *
 * An init call (MPI_Send_init, MPI_Recv_init, MPI_Psend_init, MPI_Bcast_init,
 * MPI_Neighbor_alltoall_init, ...) is recorded as itself: it touches only
 * its request handle.  It also leaves here how to describe one start of the
 * operation (mpi_persist_add).  Each start is then recorded as the
 * nonblocking call it behaves as, under the init's id with CHT_MPIF_STARTED:
 * its buffers, its peer, a sequence number taken at the start (the channel's
 * next send number for a send; the communicator's next collective number for
 * a collective), and a new request id entered under the handle, which the
 * completion calls (mpi-wait.c) then complete like any other.  So a
 * persistent request matches across ranks per start, as MPI matches it.
 *
 * A start of a handle no wrapped init made (an untraced call's) is recorded
 * as MPI_Start / MPI_Startall without CHT_MPIF_STARTED: a fence for the
 * analysis, as is its completion (CHT_MPIF_UNKNOWN_REQUEST).
 *
 * MPI_Startall records one record per request, all with the Startall's
 * site, return address and times, in array order.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpi-private.h"

#define PERSIST_BUCKETS 1024

struct persist {
    struct persist *next;
    MPI_Request h;
    enum cht_mpi_call call;
    MPI_Comm comm;
    int is_recv;
    mpi_persist_fn describe;
    size_t size;
    /* params follow, aligned like a pointer or a double */
    max_align_t params[];
};

static pthread_mutex_t persist_lock = PTHREAD_MUTEX_INITIALIZER;
static struct persist *buckets[PERSIST_BUCKETS];

static size_t bucket_of(MPI_Request h)
{
    uint64_t k = 0;
    memcpy(&k, &h, sizeof h < sizeof k ? sizeof h : sizeof k);
    k ^= k >> 17;
    k *= 0x9e3779b97f4a7c15ull;
    return (size_t)(k >> 54) % PERSIST_BUCKETS;
}

/* The entry of h; call with persist_lock held. */
static struct persist **find(MPI_Request h)
{
    struct persist **p = &buckets[bucket_of(h)];
    while (*p != NULL && (*p)->h != h)
        p = &(*p)->next;
    return p;
}

int mpi_persist_add(MPI_Request h, enum cht_mpi_call call, MPI_Comm comm, int is_recv,
                    mpi_persist_fn describe, const void *params, size_t size)
{
    if (h == MPI_REQUEST_NULL)
        return 0;
    struct persist *e = malloc(sizeof *e + size);
    if (e == NULL) {
        rt_warn_once(RT_WARN_TABLES, "cannot remember a persistent request: its starts are "
                     "recorded as fences: reason=out of memory");
        return -1;
    }
    *e = (struct persist){NULL, h, call, comm, is_recv, describe, size};
    if (size)
        memcpy(e->params, params, size);
    pthread_mutex_lock(&persist_lock);
    struct persist **p = find(h);
    if (*p != NULL) { /* a stale entry: the handle was freed behind our back */
        struct persist *old = *p;
        *p = old->next;
        free(old);
    }
    e->next = buckets[bucket_of(h)];
    buckets[bucket_of(h)] = e;
    pthread_mutex_unlock(&persist_lock);
    return 0;
}

int mpi_persist_known(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return 0;
    pthread_mutex_lock(&persist_lock);
    int known = *find(h) != NULL;
    pthread_mutex_unlock(&persist_lock);
    return known;
}

void mpi_persist_forget(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL)
        return;
    pthread_mutex_lock(&persist_lock);
    struct persist **p = find(h);
    struct persist *e = *p;
    if (e != NULL)
        *p = e->next;
    pthread_mutex_unlock(&persist_lock);
    free(e);
}

/* A copy of h's entry (its params included), or NULL; the caller frees it.
 * Copying keeps the table unlocked while the describe function runs (it may
 * call MPI to query datatypes and communicators). */
static struct persist *lookup(MPI_Request h)
{
    struct persist *c = NULL;
    if (h == MPI_REQUEST_NULL)
        return NULL;
    pthread_mutex_lock(&persist_lock);
    struct persist *e = *find(h);
    if (e != NULL && (c = malloc(sizeof *c + e->size)) != NULL)
        memcpy(c, e, sizeof *c + e->size);
    pthread_mutex_unlock(&persist_lock);
    return c;
}

/* One start, described before PMPI_Start(all) so that sequence numbers are
 * taken in program order; finished by start_end. */
struct start {
    struct mpi_ev ev;
    struct persist *p; /* NULL: not ours */
};

static void start_begin(struct start *s, MPI_Request *req, const struct mpi_ev *first)
{
    s->p = lookup(*req);
    if (s->p == NULL)
        return;
    mpi_ev_begin_as(&s->ev, s->p->call, s->p->comm, first);
    s->ev.rec.flags |= CHT_MPIF_STARTED;
    s->p->describe(&s->ev, s->p->params);
    mpi_ev_arg(&s->ev, req, sizeof *req, 0, 0);
}

/* After PMPI: enters the started request (if the start succeeded) and
 * writes the record with the call's times and return code. */
static void start_end(struct start *s, const struct mpi_ev *call, MPI_Request h)
{
    if (s->p == NULL)
        return;
    s->ev.rec.t_enter = call->rec.t_enter;
    s->ev.rec.t_exit = call->rec.t_exit;
    s->ev.ret = call->ret;
    if (call->ret == MPI_SUCCESS) {
        struct mpi_req r = {.comm = s->ev.cv.id, .rseq = s->ev.rec.rseq,
                            .comm_handle = s->p->comm, .handle = h, .is_recv = s->p->is_recv,
                            .proc_null = s->p->is_recv && s->ev.rec.rpeer == CHT_RANK_PROC_NULL,
                            .persistent = 1};
        s->ev.rec.request = mpi_req_add(h, &r);
    }
    mpi_ev_end(&s->ev);
    free(s->p);
    s->p = NULL;
}

COMMHINT_EXPORT int MPI_Start(MPI_Request *request)
{
    struct mpi_ev ev;
    struct start s;
    MPI_EV_BEGIN(&ev, CHT_MPI_START, MPI_COMM_NULL);
    mpi_ev_arg(&ev, request, sizeof *request, 0, 0);
    MPI_Request h = *request;
    start_begin(&s, request, &ev);
    MPI_EV_CALL(&ev, PMPI_Start(request));
    if (s.p == NULL)
        return mpi_ev_end(&ev); /* not ours: a fence */
    start_end(&s, &ev, h);
    return ev.ret;
}

COMMHINT_EXPORT int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    struct mpi_ev ev;
    struct start one, *s = &one;
    int n = count > 0 ? count : 0, foreign = 0;
    MPI_EV_BEGIN(&ev, CHT_MPI_STARTALL, MPI_COMM_NULL);
    ev.rec.count = count;
    if (n > 0)
        mpi_ev_arg(&ev, array_of_requests, (size_t)n * sizeof(MPI_Request), 0, 0);
    MPI_Request *h = n > 1 ? malloc((size_t)n * (sizeof *h + sizeof *s)) : NULL;
    if (n > 1 && h == NULL) {
        rt_warn_once(RT_WARN_TABLES, "cannot record the starts of MPI_Startall: recorded as "
                     "a fence: reason=out of memory requests=%d", n);
        MPI_EV_CALL(&ev, PMPI_Startall(count, array_of_requests));
        return mpi_ev_end(&ev);
    }
    MPI_Request h1;
    if (n > 1)
        s = (struct start *)(h + n);
    else
        h = &h1;
    for (int i = 0; i < n; i++) {
        h[i] = array_of_requests[i];
        start_begin(&s[i], &array_of_requests[i], &ev);
        foreign |= s[i].p == NULL;
    }
    MPI_EV_CALL(&ev, PMPI_Startall(count, array_of_requests));
    for (int i = 0; i < n; i++)
        start_end(&s[i], &ev, h[i]);
    int ret = foreign || n == 0 ? mpi_ev_end(&ev) : ev.ret; /* a fence for what is not ours */
    if (n > 1)
        free(h);
    return ret;
}
