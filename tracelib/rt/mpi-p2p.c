/* mpi-p2p.c - wrappers of MPI point-to-point calls: blocking and nonblocking
 * sends and receives, Sendrecv(_replace), Probe and Iprobe.
 *
 * The four send modes share one helper each for the blocking and the
 * nonblocking form; the wrappers only pass the PMPI function to call.  The
 * return address is taken in each wrapper, where it points into user code.
 */
#include "mpi-private.h"

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

/* Picks the status PMPI fills: the user's, or `mine` if the user ignores it
 * (we read it, the user never sees it). */
static MPI_Status *status_ptr(MPI_Status *user, MPI_Status *mine)
{
    return user == MPI_STATUS_IGNORE ? mine : user;
}

/* Enters the request a nonblocking call returned, if the call succeeded. */
static void post_request(struct mpi_ev *ev, MPI_Request *req, int is_recv)
{
    mpi_ev_arg(ev, req, sizeof(MPI_Request), 1, 0);
    if (ev->ret != MPI_SUCCESS)
        return;
    struct mpi_req r = {0, ev->cv.id, ev->rec.rseq, ev->comm, *req, is_recv,
                        is_recv && ev->rec.rpeer == CHT_RANK_PROC_NULL, 0};
    ev->rec.request = mpi_req_add(*req, &r);
}

static int blocking_send(enum cht_mpi_call call, send_fn fn, void *ra, const void *buf,
                         int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    struct mpi_ev ev;
    mpi_ev_begin(&ev, call, comm, ra);
    mpi_ev_send(&ev, buf, count, type, dest, tag);
    MPI_EV_CALL(&ev, fn(buf, count, type, dest, tag, comm));
    return mpi_ev_end(&ev);
}

static int nonblocking_send(enum cht_mpi_call call, isend_fn fn, void *ra, const void *buf,
                            int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                            MPI_Request *req)
{
    struct mpi_ev ev;
    mpi_ev_begin(&ev, call, comm, ra);
    mpi_ev_send(&ev, buf, count, type, dest, tag);
    MPI_EV_CALL(&ev, fn(buf, count, type, dest, tag, comm, req));
    post_request(&ev, req, 0);
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                             MPI_Comm comm)
{
    return blocking_send(CHT_MPI_SEND, PMPI_Send, __builtin_return_address(0), buf, count,
                         datatype, dest, tag, comm);
}

COMMHINT_EXPORT int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm)
{
    return blocking_send(CHT_MPI_SSEND, PMPI_Ssend, __builtin_return_address(0), buf, count,
                         datatype, dest, tag, comm);
}

COMMHINT_EXPORT int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm)
{
    return blocking_send(CHT_MPI_BSEND, PMPI_Bsend, __builtin_return_address(0), buf, count,
                         datatype, dest, tag, comm);
}

COMMHINT_EXPORT int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm)
{
    return blocking_send(CHT_MPI_RSEND, PMPI_Rsend, __builtin_return_address(0), buf, count,
                         datatype, dest, tag, comm);
}

COMMHINT_EXPORT int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest,
                              int tag, MPI_Comm comm, MPI_Request *request)
{
    return nonblocking_send(CHT_MPI_ISEND, PMPI_Isend, __builtin_return_address(0), buf, count,
                            datatype, dest, tag, comm, request);
}

COMMHINT_EXPORT int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest,
                               int tag, MPI_Comm comm, MPI_Request *request)
{
    return nonblocking_send(CHT_MPI_ISSEND, PMPI_Issend, __builtin_return_address(0), buf, count,
                            datatype, dest, tag, comm, request);
}

COMMHINT_EXPORT int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                               int tag, MPI_Comm comm, MPI_Request *request)
{
    return nonblocking_send(CHT_MPI_IBSEND, PMPI_Ibsend, __builtin_return_address(0), buf, count,
                            datatype, dest, tag, comm, request);
}

COMMHINT_EXPORT int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest,
                               int tag, MPI_Comm comm, MPI_Request *request)
{
    return nonblocking_send(CHT_MPI_IRSEND, PMPI_Irsend, __builtin_return_address(0), buf, count,
                            datatype, dest, tag, comm, request);
}

COMMHINT_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                             MPI_Comm comm, MPI_Status *status)
{
    struct mpi_ev ev;
    MPI_Status mine, *st = status_ptr(status, &mine);
    MPI_EV_BEGIN(&ev, CHT_MPI_RECV, comm);
    mpi_ev_status_arg(&ev, status);
    mpi_ev_recv(&ev, buf, count, datatype, source, tag);
    MPI_EV_CALL(&ev, PMPI_Recv(buf, count, datatype, source, tag, comm, st));
    mpi_ev_status(&ev, st, 1);
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                              MPI_Comm comm, MPI_Request *request)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_IRECV, comm);
    mpi_ev_recv(&ev, buf, count, datatype, source, tag);
    MPI_EV_CALL(&ev, PMPI_Irecv(buf, count, datatype, source, tag, comm, request));
    post_request(&ev, request, 1);
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 int dest, int sendtag, void *recvbuf, int recvcount,
                                 MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                                 MPI_Status *status)
{
    struct mpi_ev ev;
    MPI_Status mine, *st = status_ptr(status, &mine);
    MPI_EV_BEGIN(&ev, CHT_MPI_SENDRECV, comm);
    mpi_ev_status_arg(&ev, status);
    mpi_ev_send(&ev, sendbuf, sendcount, sendtype, dest, sendtag);
    mpi_ev_recv(&ev, recvbuf, recvcount, recvtype, source, recvtag);
    MPI_EV_CALL(&ev, PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                                   recvcount, recvtype, source, recvtag, comm, st));
    mpi_ev_status(&ev, st, 1);
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest,
                                         int sendtag, int source, int recvtag, MPI_Comm comm,
                                         MPI_Status *status)
{
    struct mpi_ev ev;
    MPI_Status mine, *st = status_ptr(status, &mine);
    MPI_EV_BEGIN(&ev, CHT_MPI_SENDRECV_REPLACE, comm);
    mpi_ev_status_arg(&ev, status);
    mpi_ev_send(&ev, buf, count, datatype, dest, sendtag);
    mpi_ev_recv(&ev, buf, count, datatype, source, recvtag);
    MPI_EV_CALL(&ev, PMPI_Sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag,
                                           comm, st));
    mpi_ev_status(&ev, st, 1);
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    struct mpi_ev ev;
    MPI_Status mine, *st = status_ptr(status, &mine);
    MPI_EV_BEGIN(&ev, CHT_MPI_PROBE, comm);
    mpi_ev_status_arg(&ev, status);
    mpi_ev_probe(&ev, source, tag);
    MPI_EV_CALL(&ev, PMPI_Probe(source, tag, comm, st));
    mpi_ev_status(&ev, st, 0);
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    struct mpi_ev ev;
    MPI_Status mine, *st = status_ptr(status, &mine);
    MPI_EV_BEGIN(&ev, CHT_MPI_IPROBE, comm);
    mpi_ev_arg(&ev, flag, sizeof(int), 1, 0);
    mpi_ev_status_arg(&ev, status);
    mpi_ev_probe(&ev, source, tag);
    MPI_EV_CALL(&ev, PMPI_Iprobe(source, tag, comm, flag, st));
    if (ev.ret == MPI_SUCCESS && !*flag)
        ev.rec.flags |= CHT_MPIF_NOT_FOUND;
    else
        mpi_ev_status(&ev, st, 0);
    return mpi_ev_end(&ev);
}
