/* mpi-partitioned.c - partitioned point-to-point communication (MPI-4):
 * MPI_Psend_init, MPI_Precv_init, MPI_Pready, MPI_Pready_range,
 * MPI_Pready_list, MPI_Parrived.
 *
 * The inits are persistent requests (mpi-persist.c): each MPI_Start of one
 * is recorded as the nonblocking send (Isend) or receive (Irecv) of the
 * whole buffer, partitions * count elements, numbered on the channel
 * (communicator, peer, tag) at that start like any send or receive, so a
 * partitioned send started n times matches the n starts of its partitioned
 * receive.  MPI matches partitioned sends with partitioned receives only;
 * the numbering here shares the channel with ordinary messages, so a
 * program that mixes the two on one (communicator, peer, tag) is
 * misnumbered (docs/dependence.md).
 *
 * MPI_Pready* hand partitions of the send buffer to MPI: from then until the
 * request completes MPI reads them.  They are recorded with the bytes of
 * those partitions as sbuf/sbytes (the hull, for a list), read.
 * MPI_Parrived returns whether a partition of the receive buffer has been
 * written: when it says so, the record has that partition as rbuf/rbytes,
 * written.  Both carry the id of the request's current start (0 if it is
 * not active), so they stay between the start and the completion.  The
 * table here keeps, per request handle, the buffer layout they need.
 */
#include <pthread.h>
#include <stdlib.h>

#include "mpi-private.h"

#define PART_BUCKETS 64

/* A partitioned request: where its partitions are. */
struct part {
    struct part *next;
    MPI_Request h;
    MPI_Comm comm;
    struct mpi_comm_view cv;
    const char *buf;     /* buffer argument + true lower bound */
    int partitions;
    MPI_Count count;     /* elements per partition */
    struct mpi_type type;
};

/* What a start needs (mpi_persist_add copies it). */
struct part_params {
    const void *buf;
    MPI_Count count; /* partitions * count */
    MPI_Datatype type;
    int peer, tag;
};

static pthread_mutex_t part_lock = PTHREAD_MUTEX_INITIALIZER;
static struct part *parts[PART_BUCKETS];

static size_t part_bucket(MPI_Request h) { return (size_t)(uint32_t)h % PART_BUCKETS; }

static void part_add(MPI_Request h, MPI_Comm comm, const struct mpi_ev *ev, const void *buf,
                     int partitions, MPI_Count count, MPI_Datatype type)
{
    struct part *p = malloc(sizeof *p);
    if (p == NULL) {
        rt_warn_once(RT_WARN_TABLES, "cannot remember a partitioned request: its Pready and "
                     "Parrived calls are recorded without their partitions: reason=out of "
                     "memory");
        return;
    }
    *p = (struct part){NULL, h, comm, ev->cv, buf, partitions, count, {0, 0, 0, 0, 0}};
    mpi_type_describe(type, &p->type);
    p->buf = (const char *)buf + p->type.true_lb;
    pthread_mutex_lock(&part_lock);
    struct part **q = &parts[part_bucket(h)];
    while (*q != NULL && (*q)->h != h)
        q = &(*q)->next;
    if (*q != NULL) { /* stale: the handle was freed behind our back */
        struct part *old = *q;
        *q = old->next;
        free(old);
    }
    p->next = parts[part_bucket(h)];
    parts[part_bucket(h)] = p;
    pthread_mutex_unlock(&part_lock);
}

void mpi_part_forget(MPI_Request h)
{
    struct part *p = NULL;
    pthread_mutex_lock(&part_lock);
    for (struct part **q = &parts[part_bucket(h)]; *q != NULL; q = &(*q)->next)
        if ((*q)->h == h) {
            p = *q;
            *q = p->next;
            break;
        }
    pthread_mutex_unlock(&part_lock);
    free(p);
}

/* A copy of h's entry; 0 if h is not a partitioned request we know. */
static int part_get(MPI_Request h, struct part *out)
{
    int found = 0;
    pthread_mutex_lock(&part_lock);
    for (struct part *p = parts[part_bucket(h)]; p != NULL; p = p->next)
        if (p->h == h) {
            *out = *p;
            found = 1;
            break;
        }
    pthread_mutex_unlock(&part_lock);
    return found;
}

static void describe_send(struct mpi_ev *ev, const void *params)
{
    const struct part_params *p = params;
    mpi_ev_send_c(ev, p->buf, p->count, p->type, p->peer, p->tag);
}

static void describe_recv(struct mpi_ev *ev, const void *params)
{
    const struct part_params *p = params;
    mpi_ev_recv_c(ev, (void *)p->buf, p->count, p->type, p->peer, p->tag);
}

static int part_init(struct mpi_ev *ev, const void *buf, int partitions, MPI_Count count,
                     MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Request *req,
                     int is_recv)
{
    struct part_params pp = {buf, (MPI_Count)(partitions > 0 ? partitions : 0) * count, type,
                             peer, tag};
    if (ev->ret == MPI_SUCCESS) {
        mpi_persist_add(*req, (enum cht_mpi_call)ev->rec.h.aux, comm, is_recv,
                        is_recv ? describe_recv : describe_send, &pp, sizeof pp);
        part_add(*req, comm, ev, buf, partitions, count, type);
    }
    return mpi_ev_end(ev);
}

COMMHINT_EXPORT int MPI_Psend_init(const void *buf, int partitions, MPI_Count count,
                                   MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_PSEND_INIT, comm);
    ev.rec.count = partitions;
    mpi_ev_arg(&ev, request, sizeof *request, 1, 0);
    MPI_EV_CALL(&ev, PMPI_Psend_init(buf, partitions, count, datatype, dest, tag, comm, info,
                                     request));
    return part_init(&ev, buf, partitions, count, datatype, dest, tag, comm, request, 0);
}

COMMHINT_EXPORT int MPI_Precv_init(void *buf, int partitions, MPI_Count count,
                                   MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_PRECV_INIT, comm);
    ev.rec.count = partitions;
    mpi_ev_arg(&ev, request, sizeof *request, 1, 0);
    MPI_EV_CALL(&ev, PMPI_Precv_init(buf, partitions, count, datatype, source, tag, comm, info,
                                     request));
    return part_init(&ev, buf, partitions, count, datatype, source, tag, comm, request, 1);
}

/* The id of the current start of h (0 if none), without taking it. */
static uint64_t current_request(MPI_Request h)
{
    struct mpi_req r;
    mpi_req_take(h, &r);
    if (r.id != 0)
        mpi_req_put_back(&r);
    return r.id;
}

/* Begins the record of a call on partitioned request h: its communicator
 * and current start; fills *p and returns 1 if h is known. */
static int part_begin(struct mpi_ev *ev, MPI_Request h, struct part *p)
{
    if (!part_get(h, p))
        return 0;
    mpi_ev_comm_as(ev, p->comm, &p->cv);
    ev->rec.request = current_request(h);
    return 1;
}

/* Bytes of partitions lo..hi (inclusive) of p: *addr and the span. */
static uint64_t part_span(const struct part *p, int lo, int hi, uint64_t *addr)
{
    if (lo < 0 || hi < lo || hi >= p->partitions) {
        *addr = 0;
        return 0;
    }
    *addr = (uint64_t)(uintptr_t)p->buf + (uint64_t)((int64_t)lo * p->count * p->type.extent);
    return (uint64_t)mpi_type_span(&p->type, (int64_t)(hi - lo + 1) * p->count);
}

/* Pready of partitions lo..hi: read by MPI from now until completion. */
static void ready(struct mpi_ev *ev, const struct part *p, int known, int lo, int hi, int n)
{
    ev->rec.count = n;
    if (known)
        ev->rec.sbytes = part_span(p, lo, hi, &ev->rec.sbuf);
}

COMMHINT_EXPORT int MPI_Pready(int partition, MPI_Request request)
{
    struct mpi_ev ev;
    struct part p;
    MPI_EV_BEGIN(&ev, CHT_MPI_PREADY, MPI_COMM_NULL);
    ready(&ev, &p, part_begin(&ev, request, &p), partition, partition, 1);
    MPI_EV_CALL(&ev, PMPI_Pready(partition, request));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    struct mpi_ev ev;
    struct part p;
    MPI_EV_BEGIN(&ev, CHT_MPI_PREADY_RANGE, MPI_COMM_NULL);
    ready(&ev, &p, part_begin(&ev, request, &p), partition_low, partition_high,
          partition_high - partition_low + 1);
    MPI_EV_CALL(&ev, PMPI_Pready_range(partition_low, partition_high, request));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Pready_list(int length, int array_of_partitions[], MPI_Request request)
{
    struct mpi_ev ev;
    struct part p;
    int lo = 0, hi = -1;
    MPI_EV_BEGIN(&ev, CHT_MPI_PREADY_LIST, MPI_COMM_NULL);
    if (length > 0)
        mpi_ev_arg(&ev, array_of_partitions, (size_t)length * sizeof(int), 0, 0);
    /* the hull of the partitions listed: those between are read too (conservative) */
    for (int i = 0; i < length; i++) {
        lo = i == 0 || array_of_partitions[i] < lo ? array_of_partitions[i] : lo;
        hi = i == 0 || array_of_partitions[i] > hi ? array_of_partitions[i] : hi;
    }
    ready(&ev, &p, part_begin(&ev, request, &p), lo, hi, length);
    MPI_EV_CALL(&ev, PMPI_Pready_list(length, array_of_partitions, request));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Parrived(MPI_Request request, int partition, int *flag)
{
    struct mpi_ev ev;
    struct part p;
    MPI_EV_BEGIN(&ev, CHT_MPI_PARRIVED, MPI_COMM_NULL);
    mpi_ev_arg(&ev, flag, sizeof(int), 1, 0);
    int known = part_begin(&ev, request, &p);
    ev.rec.count = 1;
    MPI_EV_CALL(&ev, PMPI_Parrived(request, partition, flag));
    if (ev.ret == MPI_SUCCESS && !*flag)
        ev.rec.flags |= CHT_MPIF_NOT_FOUND;
    else if (ev.ret == MPI_SUCCESS && known)
        ev.rec.rbytes = part_span(&p, partition, partition, &ev.rec.rbuf);
    return mpi_ev_end(&ev);
}
