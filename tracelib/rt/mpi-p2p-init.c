/* mpi-p2p-init.c - wrappers of the persistent point-to-point inits
 * (MPI_Send_init, MPI_Ssend_init, MPI_Bsend_init, MPI_Rsend_init,
 * MPI_Recv_init).
 *
 * The init itself moves no data: it is recorded with the request handle it
 * writes and nothing else.  Each start (mpi-persist.c) is then recorded as
 * the nonblocking send or receive it behaves as: buffer, peer, and the
 * channel's next sequence number at that start, so that a persistent send
 * started n times matches n receives of any kind.
 */
#include "mpi-private.h"

typedef int (*send_init_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm,
                            MPI_Request *);

/* What a start needs of the init's arguments. */
struct p2p_params {
    const void *buf;
    int count;
    MPI_Datatype type;
    int peer, tag;
};

static void describe_send(struct mpi_ev *ev, const void *params)
{
    const struct p2p_params *p = params;
    mpi_ev_send(ev, p->buf, p->count, p->type, p->peer, p->tag);
}

static void describe_recv(struct mpi_ev *ev, const void *params)
{
    const struct p2p_params *p = params;
    mpi_ev_recv(ev, (void *)p->buf, p->count, p->type, p->peer, p->tag);
}

/* Records the init call (its request handle) and remembers the request. */
static int p2p_init(enum cht_mpi_call call, void *ra, const struct p2p_params *p,
                    MPI_Comm comm, MPI_Request *req, int is_recv, send_init_fn send_fn)
{
    struct mpi_ev ev;
    mpi_ev_begin(&ev, call, comm, ra);
    ev.rec.count = p->count;
    mpi_ev_arg(&ev, req, sizeof *req, 1, 0);
    if (is_recv)
        MPI_EV_CALL(&ev, PMPI_Recv_init((void *)p->buf, p->count, p->type, p->peer, p->tag, comm,
                                        req));
    else
        MPI_EV_CALL(&ev, send_fn(p->buf, p->count, p->type, p->peer, p->tag, comm, req));
    if (ev.ret == MPI_SUCCESS)
        mpi_persist_add(*req, call, comm, is_recv, is_recv ? describe_recv : describe_send, p,
                        sizeof *p);
    return mpi_ev_end(&ev);
}

#define SEND_INIT(NAME, CALL)                                                                 \
    COMMHINT_EXPORT int MPI_##NAME(const void *buf, int count, MPI_Datatype datatype, int dest, \
                                   int tag, MPI_Comm comm, MPI_Request *request)               \
    {                                                                                          \
        struct p2p_params p = {buf, count, datatype, dest, tag};                               \
        return p2p_init(CALL, __builtin_return_address(0), &p, comm, request, 0,           \
                        PMPI_##NAME);                                                          \
    }

SEND_INIT(Send_init, CHT_MPI_SEND_INIT)
SEND_INIT(Ssend_init, CHT_MPI_SSEND_INIT)
SEND_INIT(Bsend_init, CHT_MPI_BSEND_INIT)
SEND_INIT(Rsend_init, CHT_MPI_RSEND_INIT)

COMMHINT_EXPORT int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source,
                                  int tag, MPI_Comm comm, MPI_Request *request)
{
    struct p2p_params p = {buf, count, datatype, source, tag};
    return p2p_init(CHT_MPI_RECV_INIT, __builtin_return_address(0), &p, comm, request, 1,
                    NULL);
}
