/* mpi-p2p.c - wrappers of MPI point-to-point calls: blocking and nonblocking
 * sends and receives, Sendrecv(_replace), Isendrecv(_replace) (MPI-4),
 * Probe and Iprobe, and the MPI-4 large-count (_c) forms of all but the
 * probes.
 *
 * Each family is one macro instantiated for the int form and the _c form
 * (count an MPI_Count, CHT_MPIF_LARGE_COUNT set; mpi-record.c clamps
 * rec.count and keeps byte fields exact), so a _c call is recorded exactly
 * as its int form.  The return address is taken in each wrapper, where it
 * points into user code.
 */
#include "mpi-private.h"

/* Picks the status PMPI fills: the user's, or `mine` if the user ignores it
 * (we read it, the user never sees it). */
static MPI_Status *status_ptr(MPI_Status *user, MPI_Status *mine)
{
    return user == MPI_STATUS_IGNORE ? mine : user;
}

void mpi_ev_request(struct mpi_ev *ev, MPI_Request *req, int kind, int peer, int tag)
{
    int is_recv = kind != MPI_REQ_SEND;
    mpi_ev_arg(ev, req, sizeof(MPI_Request), 1, 0);
    if (ev->ret != MPI_SUCCESS)
        return;
    struct mpi_req r = {.comm = ev->cv.id, .rseq = ev->rec.rseq, .comm_handle = ev->comm,
                        .handle = *req, .is_recv = is_recv,
                        .proc_null = is_recv && ev->rec.rpeer == CHT_RANK_PROC_NULL,
                        .numbered = peer >= 0 && (is_recv ? ev->rec.rseq : ev->rec.seq) != 0,
                        .chan_peer = peer, .chan_tag = tag, .seq = ev->rec.seq,
                        .no_status = kind == MPI_REQ_RECV_NO_STATUS,
                        .posted_source = ev->rec.rpeer, .posted_tag = ev->rec.rtag,
                        .posted_bytes = ev->rec.rbytes};
    ev->rec.request = mpi_req_add(*req, &r);
}

#define LARGE_int 0
#define LARGE_MPI_Count CHT_MPIF_LARGE_COUNT

/* MPI_Send and its modes. */
#define SEND_CALL(NAME, CALL, CT)                                                             \
    COMMHINT_EXPORT int MPI_##NAME(const void *buf, CT count, MPI_Datatype datatype, int dest, \
                                   int tag, MPI_Comm comm)                                    \
    {                                                                                         \
        struct mpi_ev ev;                                                                     \
        MPI_EV_BEGIN(&ev, CALL, comm);                                                        \
        ev.rec.flags |= LARGE_##CT;                                                           \
        mpi_ev_send_c(&ev, buf, count, datatype, dest, tag);                                  \
        MPI_EV_CALL(&ev, PMPI_##NAME(buf, count, datatype, dest, tag, comm));                 \
        return mpi_ev_end(&ev);                                                               \
    }

/* MPI_Isend and its modes. */
#define ISEND_CALL(NAME, CALL, CT)                                                            \
    COMMHINT_EXPORT int MPI_##NAME(const void *buf, CT count, MPI_Datatype datatype, int dest, \
                                   int tag, MPI_Comm comm, MPI_Request *request)              \
    {                                                                                         \
        struct mpi_ev ev;                                                                     \
        MPI_EV_BEGIN(&ev, CALL, comm);                                                        \
        ev.rec.flags |= LARGE_##CT;                                                           \
        mpi_ev_send_c(&ev, buf, count, datatype, dest, tag);                                  \
        MPI_EV_CALL(&ev, PMPI_##NAME(buf, count, datatype, dest, tag, comm, request));        \
        mpi_ev_request(&ev, request, MPI_REQ_SEND, dest, tag);                                \
        return mpi_ev_end(&ev);                                                               \
    }

#define RECV_CALL(NAME, CT)                                                                   \
    COMMHINT_EXPORT int MPI_##NAME(void *buf, CT count, MPI_Datatype datatype, int source,    \
                                   int tag, MPI_Comm comm, MPI_Status *status)                \
    {                                                                                         \
        struct mpi_ev ev;                                                                     \
        MPI_Status mine, *st = status_ptr(status, &mine);                                     \
        MPI_EV_BEGIN(&ev, CHT_MPI_RECV, comm);                                                \
        ev.rec.flags |= LARGE_##CT;                                                           \
        mpi_ev_status_arg(&ev, status);                                                       \
        mpi_ev_recv_c(&ev, buf, count, datatype, source, tag);                                \
        MPI_EV_CALL(&ev, PMPI_##NAME(buf, count, datatype, source, tag, comm, st));           \
        mpi_ev_status(&ev, st, 1);                                                            \
        return mpi_ev_end(&ev);                                                               \
    }

#define IRECV_CALL(NAME, CT)                                                                  \
    COMMHINT_EXPORT int MPI_##NAME(void *buf, CT count, MPI_Datatype datatype, int source,    \
                                   int tag, MPI_Comm comm, MPI_Request *request)              \
    {                                                                                         \
        struct mpi_ev ev;                                                                     \
        MPI_EV_BEGIN(&ev, CHT_MPI_IRECV, comm);                                               \
        ev.rec.flags |= LARGE_##CT;                                                           \
        mpi_ev_recv_c(&ev, buf, count, datatype, source, tag);                                \
        MPI_EV_CALL(&ev, PMPI_##NAME(buf, count, datatype, source, tag, comm, request));      \
        mpi_ev_request(&ev, request, MPI_REQ_RECV, source, tag);                              \
        return mpi_ev_end(&ev);                                                               \
    }

/* MPI_Sendrecv; the nonblocking MPI_Isendrecv is recorded the same way plus
 * its request, a receive request whose completion's status is not read
 * (MPICH 4.0 leaves it unfilled: source 0, tag 0, count 0): the posted
 * source and tag stand for it, so a wildcard one is not matched across
 * ranks.  The record's count and datatype are the send side's. */
#define SENDRECV_CALL(NAME, CT)                                                               \
    COMMHINT_EXPORT int MPI_##NAME(const void *sendbuf, CT sendcount, MPI_Datatype sendtype,  \
                                   int dest, int sendtag, void *recvbuf, CT recvcount,        \
                                   MPI_Datatype recvtype, int source, int recvtag,            \
                                   MPI_Comm comm, MPI_Status *status)                         \
    {                                                                                         \
        struct mpi_ev ev;                                                                     \
        MPI_Status mine, *st = status_ptr(status, &mine);                                     \
        MPI_EV_BEGIN(&ev, CHT_MPI_SENDRECV, comm);                                            \
        ev.rec.flags |= LARGE_##CT;                                                           \
        mpi_ev_status_arg(&ev, status);                                                       \
        mpi_ev_send_c(&ev, sendbuf, sendcount, sendtype, dest, sendtag);                      \
        mpi_ev_recv_c(&ev, recvbuf, recvcount, recvtype, source, recvtag);                    \
        MPI_EV_CALL(&ev, PMPI_##NAME(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,    \
                                     recvcount, recvtype, source, recvtag, comm, st));        \
        mpi_ev_status(&ev, st, 1);                                                            \
        return mpi_ev_end(&ev);                                                               \
    }

#define ISENDRECV_CALL(NAME, CT)                                                              \
    COMMHINT_EXPORT int MPI_##NAME(const void *sendbuf, CT sendcount, MPI_Datatype sendtype,  \
                                   int dest, int sendtag, void *recvbuf, CT recvcount,        \
                                   MPI_Datatype recvtype, int source, int recvtag,            \
                                   MPI_Comm comm, MPI_Request *request)                       \
    {                                                                                         \
        struct mpi_ev ev;                                                                     \
        MPI_EV_BEGIN(&ev, CHT_MPI_ISENDRECV, comm);                                           \
        ev.rec.flags |= LARGE_##CT;                                                           \
        mpi_ev_send_c(&ev, sendbuf, sendcount, sendtype, dest, sendtag);                      \
        mpi_ev_recv_c(&ev, recvbuf, recvcount, recvtype, source, recvtag);                    \
        MPI_EV_CALL(&ev, PMPI_##NAME(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,    \
                                     recvcount, recvtype, source, recvtag, comm, request));   \
        mpi_ev_request(&ev, request, MPI_REQ_RECV_NO_STATUS, source, recvtag);                \
        return mpi_ev_end(&ev);                                                               \
    }

#define SENDRECV_REPLACE_CALL(NAME, CT)                                                       \
    COMMHINT_EXPORT int MPI_##NAME(void *buf, CT count, MPI_Datatype datatype, int dest,      \
                                   int sendtag, int source, int recvtag, MPI_Comm comm,       \
                                   MPI_Status *status)                                        \
    {                                                                                         \
        struct mpi_ev ev;                                                                     \
        MPI_Status mine, *st = status_ptr(status, &mine);                                     \
        MPI_EV_BEGIN(&ev, CHT_MPI_SENDRECV_REPLACE, comm);                                    \
        ev.rec.flags |= LARGE_##CT;                                                           \
        mpi_ev_status_arg(&ev, status);                                                       \
        mpi_ev_send_c(&ev, buf, count, datatype, dest, sendtag);                              \
        mpi_ev_recv_c(&ev, buf, count, datatype, source, recvtag);                            \
        MPI_EV_CALL(&ev, PMPI_##NAME(buf, count, datatype, dest, sendtag, source, recvtag,    \
                                     comm, st));                                              \
        mpi_ev_status(&ev, st, 1);                                                            \
        return mpi_ev_end(&ev);                                                               \
    }

#define ISENDRECV_REPLACE_CALL(NAME, CT)                                                      \
    COMMHINT_EXPORT int MPI_##NAME(void *buf, CT count, MPI_Datatype datatype, int dest,      \
                                   int sendtag, int source, int recvtag, MPI_Comm comm,       \
                                   MPI_Request *request)                                      \
    {                                                                                         \
        struct mpi_ev ev;                                                                     \
        MPI_EV_BEGIN(&ev, CHT_MPI_ISENDRECV_REPLACE, comm);                                   \
        ev.rec.flags |= LARGE_##CT;                                                           \
        mpi_ev_send_c(&ev, buf, count, datatype, dest, sendtag);                              \
        mpi_ev_recv_c(&ev, buf, count, datatype, source, recvtag);                            \
        MPI_EV_CALL(&ev, PMPI_##NAME(buf, count, datatype, dest, sendtag, source, recvtag,    \
                                     comm, request));                                         \
        mpi_ev_request(&ev, request, MPI_REQ_RECV_NO_STATUS, source, recvtag);                \
        return mpi_ev_end(&ev);                                                               \
    }

SEND_CALL(Send, CHT_MPI_SEND, int)
SEND_CALL(Ssend, CHT_MPI_SSEND, int)
SEND_CALL(Bsend, CHT_MPI_BSEND, int)
SEND_CALL(Rsend, CHT_MPI_RSEND, int)
SEND_CALL(Send_c, CHT_MPI_SEND, MPI_Count)
SEND_CALL(Ssend_c, CHT_MPI_SSEND, MPI_Count)
SEND_CALL(Bsend_c, CHT_MPI_BSEND, MPI_Count)
SEND_CALL(Rsend_c, CHT_MPI_RSEND, MPI_Count)
ISEND_CALL(Isend, CHT_MPI_ISEND, int)
ISEND_CALL(Issend, CHT_MPI_ISSEND, int)
ISEND_CALL(Ibsend, CHT_MPI_IBSEND, int)
ISEND_CALL(Irsend, CHT_MPI_IRSEND, int)
ISEND_CALL(Isend_c, CHT_MPI_ISEND, MPI_Count)
ISEND_CALL(Issend_c, CHT_MPI_ISSEND, MPI_Count)
ISEND_CALL(Ibsend_c, CHT_MPI_IBSEND, MPI_Count)
ISEND_CALL(Irsend_c, CHT_MPI_IRSEND, MPI_Count)
RECV_CALL(Recv, int)
RECV_CALL(Recv_c, MPI_Count)
IRECV_CALL(Irecv, int)
IRECV_CALL(Irecv_c, MPI_Count)
SENDRECV_CALL(Sendrecv, int)
SENDRECV_CALL(Sendrecv_c, MPI_Count)
SENDRECV_REPLACE_CALL(Sendrecv_replace, int)
SENDRECV_REPLACE_CALL(Sendrecv_replace_c, MPI_Count)
ISENDRECV_CALL(Isendrecv, int)
ISENDRECV_CALL(Isendrecv_c, MPI_Count)
ISENDRECV_REPLACE_CALL(Isendrecv_replace, int)
ISENDRECV_REPLACE_CALL(Isendrecv_replace_c, MPI_Count)

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
