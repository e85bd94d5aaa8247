/* mpi-mprobe.c - matched probes: MPI_Mprobe, MPI_Improbe, MPI_Mrecv,
 * MPI_Imrecv (and MPI_Mrecv_c, MPI_Imrecv_c).
 *
 * A matched probe takes the message out of matching: no later receive can
 * get it, only the MPI_Mrecv/MPI_Imrecv given the message handle the probe
 * returned.  So the probe is where the message is numbered on its channel
 * (from the status, as a wildcard receive is numbered at completion), and
 * the table here remembers, per message handle, the message's communicator,
 * source, tag, size and number until the receive that takes it.  The probe
 * is recorded as a probe (its status and message handle written); the
 * receive is recorded as MPI_Recv / MPI_Irecv of that message, with the
 * probe's number (rseq), its communicator and its source and tag as if
 * posted with them.  MPI_MESSAGE_NO_PROC (a probe of MPI_PROC_NULL) stands
 * for no message: its receive is a receive from MPI_PROC_NULL.
 *
 * A message handle no wrapped probe returned (PMPI_Mprobe called directly)
 * is received on an unknown communicator from an unknown source: the
 * buffer is recorded, the matching is not (warned once).
 */
#include <pthread.h>
#include <stdlib.h>

#include "mpi-private.h"

/* What a matched probe found. */
struct msg {
    struct msg *next;
    MPI_Message h;
    struct mpi_comm_view cv;
    MPI_Comm comm;
    int32_t source, tag; /* world rank, tag */
    uint64_t rseq;       /* its number on the channel */
};

static pthread_mutex_t msg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct msg *msgs; /* newest first; few are outstanding at a time */

static MPI_Status *status_ptr(MPI_Status *user, MPI_Status *mine)
{
    return user == MPI_STATUS_IGNORE ? mine : user;
}

/* Remembers the message a probe described in ev returned as h. */
static void msg_add(MPI_Message h, const struct mpi_ev *ev)
{
    struct msg *m = malloc(sizeof *m);
    if (m == NULL) {
        rt_warn_once(RT_WARN_TABLES, "cannot remember a matched message: its receive is "
                     "recorded without its source: reason=out of memory");
        return;
    }
    *m = (struct msg){NULL, h, ev->cv, ev->comm, ev->rec.st_source, ev->rec.st_tag,
                      ev->rec.rseq};
    pthread_mutex_lock(&msg_lock);
    m->next = msgs;
    msgs = m;
    pthread_mutex_unlock(&msg_lock);
}

/* Takes the message entered under h out of the table into *out; 0 if none. */
static int msg_take(MPI_Message h, struct msg *out)
{
    struct msg *m = NULL;
    pthread_mutex_lock(&msg_lock);
    for (struct msg **p = &msgs; *p != NULL; p = &(*p)->next)
        if ((*p)->h == h) {
            m = *p;
            *p = m->next;
            break;
        }
    pthread_mutex_unlock(&msg_lock);
    if (m == NULL)
        return 0;
    *out = *m;
    free(m);
    return 1;
}

/* After a matched probe: numbers the message (if the probe found one) and
 * remembers it under the handle the probe returned. */
static void probe_end(struct mpi_ev *ev, const MPI_Status *st, MPI_Message h)
{
    if (ev->ret != MPI_SUCCESS)
        return;
    mpi_ev_status(ev, st, 1);
    if (h != MPI_MESSAGE_NO_PROC && h != MPI_MESSAGE_NULL && ev->rec.st_source >= 0)
        msg_add(h, ev);
}

COMMHINT_EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message,
                               MPI_Status *status)
{
    struct mpi_ev ev;
    MPI_Status mine, *st = status_ptr(status, &mine);
    MPI_EV_BEGIN(&ev, CHT_MPI_MPROBE, comm);
    mpi_ev_arg(&ev, message, sizeof *message, 1, 0);
    mpi_ev_status_arg(&ev, status);
    mpi_ev_probe(&ev, source, tag);
    MPI_EV_CALL(&ev, PMPI_Mprobe(source, tag, comm, message, st));
    probe_end(&ev, st, *message);
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag,
                                MPI_Message *message, MPI_Status *status)
{
    struct mpi_ev ev;
    MPI_Status mine, *st = status_ptr(status, &mine);
    MPI_EV_BEGIN(&ev, CHT_MPI_IMPROBE, comm);
    mpi_ev_arg(&ev, flag, sizeof(int), 1, 0);
    mpi_ev_arg(&ev, message, sizeof *message, 1, 0);
    mpi_ev_status_arg(&ev, status);
    mpi_ev_probe(&ev, source, tag);
    MPI_EV_CALL(&ev, PMPI_Improbe(source, tag, comm, flag, message, st));
    if (ev.ret == MPI_SUCCESS && !*flag)
        ev.rec.flags |= CHT_MPIF_NOT_FOUND;
    else
        probe_end(&ev, st, *message);
    return mpi_ev_end(&ev);
}

/* Begins the record of a receive of message *message: its communicator,
 * source, tag and number from the table, the handle read and reset, the
 * buffer.  Called before PMPI (which resets the handle). */
static void mrecv_begin(struct mpi_ev *ev, MPI_Message *message, void *buf, MPI_Count count,
                        MPI_Datatype type)
{
    struct msg m;
    struct cht_rec_mpi *r = &ev->rec;
    mpi_ev_arg(ev, message, sizeof *message, 1, 0);
    if (*message == MPI_MESSAGE_NO_PROC) {
        r->rpeer = CHT_RANK_PROC_NULL;
        r->flags |= CHT_MPIF_PROC_NULL;
    } else if (msg_take(*message, &m)) {
        mpi_ev_comm_as(ev, m.comm, &m.cv);
        r->rpeer = m.source;
        r->rtag = m.tag;
        r->rseq = m.rseq;
    } else {
        rt_warn_once(MPI_WARN_REQUEST, "message not returned by a wrapped matched probe: its "
                     "receive is recorded without its source: handle=0x%x", (unsigned)*message);
        r->comm = CHT_COMM_UNKNOWN;
        r->rpeer = CHT_RANK_ANY;
        r->rtag = CHT_TAG_ANY;
        r->flags |= CHT_MPIF_ANY_SOURCE | CHT_MPIF_ANY_TAG;
    }
    mpi_ev_rbuf_c(ev, buf, count, type);
}

#define LARGE_int 0
#define LARGE_MPI_Count CHT_MPIF_LARGE_COUNT

#define MRECV_CALL(NAME, CT)                                                                  \
    COMMHINT_EXPORT int MPI_##NAME(void *buf, CT count, MPI_Datatype datatype,                \
                                   MPI_Message *message, MPI_Status *status)                  \
    {                                                                                         \
        struct mpi_ev ev;                                                                     \
        MPI_Status mine, *st = status_ptr(status, &mine);                                     \
        MPI_EV_BEGIN(&ev, CHT_MPI_MRECV, MPI_COMM_NULL);                                      \
        ev.rec.flags |= LARGE_##CT;                                                           \
        mpi_ev_status_arg(&ev, status);                                                       \
        mrecv_begin(&ev, message, buf, count, datatype);                                      \
        MPI_EV_CALL(&ev, PMPI_##NAME(buf, count, datatype, message, st));                     \
        if (ev.rec.comm != CHT_COMM_UNKNOWN)                                                  \
            mpi_ev_status(&ev, st, 0);                                                        \
        return mpi_ev_end(&ev);                                                               \
    }

#define IMRECV_CALL(NAME, CT)                                                                 \
    COMMHINT_EXPORT int MPI_##NAME(void *buf, CT count, MPI_Datatype datatype,                \
                                   MPI_Message *message, MPI_Request *request)                \
    {                                                                                         \
        struct mpi_ev ev;                                                                     \
        MPI_EV_BEGIN(&ev, CHT_MPI_IMRECV, MPI_COMM_NULL);                                     \
        ev.rec.flags |= LARGE_##CT;                                                           \
        mrecv_begin(&ev, message, buf, count, datatype);                                      \
        MPI_EV_CALL(&ev, PMPI_##NAME(buf, count, datatype, message, request));                \
        mpi_ev_request(&ev, request, MPI_REQ_RECV, -1, 0);                                    \
        return mpi_ev_end(&ev);                                                               \
    }

MRECV_CALL(Mrecv, int)
MRECV_CALL(Mrecv_c, MPI_Count)
IMRECV_CALL(Imrecv, int)
IMRECV_CALL(Imrecv_c, MPI_Count)
