/* mpi-p2p-init.c - wrappers of the persistent point-to-point inits
 * (MPI_Send_init, MPI_Ssend_init, MPI_Bsend_init, MPI_Rsend_init,
 * MPI_Recv_init).
 *
 * The init itself moves no data: it is recorded with the request handle it
 * writes and nothing else.  Each start (mpi-persist.c) is then recorded as
 * the nonblocking send or receive it behaves as: buffer, peer, and the
 * channel's next sequence number at that start, so that a persistent send
 * started n times matches n receives of any kind.  The large-count forms
 * (MPI_Send_init_c, ...) are recorded under the same ids with
 * CHT_MPIF_LARGE_COUNT, on the init and on each start.
 */
#include "mpi-private.h"

/* What a start needs of the init's arguments. */
struct p2p_params {
    const void *buf;
    MPI_Count count;
    MPI_Datatype type;
    int peer, tag;
    uint32_t flags; /* CHT_MPIF_LARGE_COUNT for the _c forms */
};

static void describe_send(struct mpi_ev *ev, const void *params)
{
    const struct p2p_params *p = params;
    ev->rec.flags |= p->flags;
    mpi_ev_send_c(ev, p->buf, p->count, p->type, p->peer, p->tag);
}

static void describe_recv(struct mpi_ev *ev, const void *params)
{
    const struct p2p_params *p = params;
    ev->rec.flags |= p->flags;
    mpi_ev_recv_c(ev, (void *)p->buf, p->count, p->type, p->peer, p->tag);
}

/* Records the init call (its request handle) and remembers the request:
 * the part of each init wrapper before and after its PMPI call.  The _c
 * forms set CHT_MPIF_LARGE_COUNT, which their starts keep. */
static void p2p_init_begin(struct mpi_ev *ev, enum cht_mpi_call call, void *ra,
                           const struct p2p_params *p, MPI_Comm comm, MPI_Request *req)
{
    mpi_ev_begin(ev, call, comm, ra);
    ev->rec.flags |= p->flags;
    ev->rec.count = p->count > INT32_MAX ? INT32_MAX : (int32_t)p->count;
    mpi_ev_arg(ev, req, sizeof *req, 1, 0);
}

static int p2p_init_end(struct mpi_ev *ev, const struct p2p_params *p, MPI_Comm comm,
                        MPI_Request *req, int is_recv)
{
    if (ev->ret == MPI_SUCCESS)
        mpi_persist_add(*req, (enum cht_mpi_call)ev->rec.h.aux, comm, is_recv,
                        is_recv ? describe_recv : describe_send, p, sizeof *p);
    return mpi_ev_end(ev);
}

#define LARGE_int 0
#define LARGE_MPI_Count CHT_MPIF_LARGE_COUNT

#define P2P_INIT(NAME, CALL, CT, IS_RECV, CONST)                                              \
    COMMHINT_EXPORT int MPI_##NAME(CONST void *buf, CT count, MPI_Datatype datatype, int peer, \
                                   int tag, MPI_Comm comm, MPI_Request *request)              \
    {                                                                                         \
        struct mpi_ev ev;                                                                     \
        struct p2p_params p = {buf, count, datatype, peer, tag, LARGE_##CT};                  \
        p2p_init_begin(&ev, CALL, __builtin_return_address(0), &p, comm, request);            \
        MPI_EV_CALL(&ev, PMPI_##NAME(buf, count, datatype, peer, tag, comm, request));        \
        return p2p_init_end(&ev, &p, comm, request, IS_RECV);                                 \
    }

P2P_INIT(Send_init, CHT_MPI_SEND_INIT, int, 0, const)
P2P_INIT(Ssend_init, CHT_MPI_SSEND_INIT, int, 0, const)
P2P_INIT(Bsend_init, CHT_MPI_BSEND_INIT, int, 0, const)
P2P_INIT(Rsend_init, CHT_MPI_RSEND_INIT, int, 0, const)
P2P_INIT(Recv_init, CHT_MPI_RECV_INIT, int, 1, )
P2P_INIT(Send_init_c, CHT_MPI_SEND_INIT, MPI_Count, 0, const)
P2P_INIT(Ssend_init_c, CHT_MPI_SSEND_INIT, MPI_Count, 0, const)
P2P_INIT(Bsend_init_c, CHT_MPI_BSEND_INIT, MPI_Count, 0, const)
P2P_INIT(Rsend_init_c, CHT_MPI_RSEND_INIT, MPI_Count, 0, const)
P2P_INIT(Recv_init_c, CHT_MPI_RECV_INIT, MPI_Count, 1, )
