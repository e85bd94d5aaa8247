/* mpi-local.c - wrappers of local calls that touch memory the analysis must
 * see: MPI_Get_count and MPI_Get_elements read a status a receive filled and
 * write a count; MPI_Test_cancelled reads one; MPI_Request_get_status reads a
 * request and writes a flag and a status without completing anything;
 * MPI_Pack / MPI_Unpack (and their external forms) copy between a buffer
 * and a packing buffer at *position; MPI_Reduce_local combines one buffer
 * into another.  They are recorded with those ranges (CHT_REC_ARGS,
 * docs/dependence.md) and move no data between ranks.  Large-count (_c)
 * forms share the id and set CHT_MPIF_LARGE_COUNT.
 */
#include <limits.h>

#include "mpi-private.h"

#define LOCAL_STATUS_CALL(name, call, ctype, fl) \
    COMMHINT_EXPORT int name(const MPI_Status *status, MPI_Datatype datatype, ctype *count) \
    {                                                                                     \
        struct mpi_ev ev;                                                                 \
        MPI_EV_BEGIN(&ev, call, MPI_COMM_NULL);                                           \
        ev.rec.flags |= (fl);                                                          \
        mpi_ev_arg(&ev, status, sizeof(MPI_Status), 0, 0);                                \
        mpi_ev_arg(&ev, count, sizeof(ctype), 1, 0);                                      \
        MPI_EV_CALL(&ev, P##name(status, datatype, count));                               \
        return mpi_ev_end(&ev);                                                           \
    }

LOCAL_STATUS_CALL(MPI_Get_count, CHT_MPI_GET_COUNT, int, 0)
LOCAL_STATUS_CALL(MPI_Get_count_c, CHT_MPI_GET_COUNT, MPI_Count, CHT_MPIF_LARGE_COUNT)
LOCAL_STATUS_CALL(MPI_Get_elements, CHT_MPI_GET_ELEMENTS, int, 0)
LOCAL_STATUS_CALL(MPI_Get_elements_c, CHT_MPI_GET_ELEMENTS, MPI_Count, CHT_MPIF_LARGE_COUNT)
LOCAL_STATUS_CALL(MPI_Get_elements_x, CHT_MPI_GET_ELEMENTS, MPI_Count, CHT_MPIF_LARGE_COUNT)

COMMHINT_EXPORT int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_TEST_CANCELLED, MPI_COMM_NULL);
    mpi_ev_arg(&ev, status, sizeof(MPI_Status), 0, 0);
    mpi_ev_arg(&ev, flag, sizeof(int), 1, 0);
    MPI_EV_CALL(&ev, PMPI_Test_cancelled(status, flag));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_REQUEST_GET_STATUS, MPI_COMM_NULL);
    mpi_ev_arg(&ev, flag, sizeof(int), 1, 0);
    mpi_ev_status_arg(&ev, status);
    MPI_EV_CALL(&ev, PMPI_Request_get_status(request, flag, status));
    return mpi_ev_end(&ev);
}

/* `count` elements of `type` at buf, read or written. */
static void elements(struct mpi_ev *ev, const void *buf, int64_t count, MPI_Datatype type,
                     int write)
{
    struct mpi_type t;
    if (buf == NULL || count <= 0)
        return;
    mpi_type_describe(type, &t);
    mpi_ev_arg(ev, (const char *)buf + t.true_lb, (size_t)mpi_type_span(&t, count), write, 0);
}

/* The packing buffer from *position to its end (what a pack may write or an
 * unpack may read: the exact part is known only after the call), and the
 * position itself, read and written. */
static void packed(struct mpi_ev *ev, const void *buf, int64_t size, const void *position,
                   int64_t pos, size_t pos_bytes, int write)
{
    if (buf != NULL && pos >= 0 && size > pos)
        mpi_ev_arg(ev, (const char *)buf + pos, (size_t)(size - pos), write, 0);
    mpi_ev_arg(ev, position, pos_bytes, 0, 0);
    mpi_ev_arg(ev, position, pos_bytes, 1, 0);
}

static int32_t clamp_count(int64_t n) { return n > INT32_MAX ? INT32_MAX : (int32_t)n; }

#define PACK(name, ctype, fl) \
    COMMHINT_EXPORT int name(const void *inbuf, ctype incount, MPI_Datatype datatype,          \
                             void *outbuf, ctype outsize, ctype *position, MPI_Comm comm)      \
    {                                                                                         \
        struct mpi_ev ev;                                                                     \
        MPI_EV_BEGIN(&ev, CHT_MPI_PACK, MPI_COMM_NULL);                                       \
        ev.rec.flags |= (fl);                                                              \
        ev.rec.count = clamp_count(incount);                                                  \
        elements(&ev, inbuf, incount, datatype, 0);                                           \
        packed(&ev, outbuf, outsize, position, *position, sizeof(ctype), 1);                  \
        MPI_EV_CALL(&ev, P##name(inbuf, incount, datatype, outbuf, outsize, position, comm)); \
        return mpi_ev_end(&ev);                                                               \
    }

#define UNPACK(name, ctype, fl) \
    COMMHINT_EXPORT int name(const void *inbuf, ctype insize, ctype *position, void *outbuf,    \
                             ctype outcount, MPI_Datatype datatype, MPI_Comm comm)              \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        MPI_EV_BEGIN(&ev, CHT_MPI_UNPACK, MPI_COMM_NULL);                                      \
        ev.rec.flags |= (fl);                                                               \
        ev.rec.count = clamp_count(outcount);                                                  \
        packed(&ev, inbuf, insize, position, *position, sizeof(ctype), 0);                     \
        elements(&ev, outbuf, outcount, datatype, 1);                                          \
        MPI_EV_CALL(&ev, P##name(inbuf, insize, position, outbuf, outcount, datatype, comm));  \
        return mpi_ev_end(&ev);                                                                \
    }

PACK(MPI_Pack, int, 0)
PACK(MPI_Pack_c, MPI_Count, CHT_MPIF_LARGE_COUNT)
UNPACK(MPI_Unpack, int, 0)
UNPACK(MPI_Unpack_c, MPI_Count, CHT_MPIF_LARGE_COUNT)

#define PACK_EXTERNAL(name, ctype, fl) \
    COMMHINT_EXPORT int name(const char *datarep, const void *inbuf, ctype incount,             \
                             MPI_Datatype datatype, void *outbuf, MPI_Aint outsize,             \
                             MPI_Aint *position)                                                \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        MPI_EV_BEGIN(&ev, CHT_MPI_PACK_EXTERNAL, MPI_COMM_NULL);                               \
        ev.rec.flags |= (fl);                                                               \
        ev.rec.count = clamp_count(incount);                                                   \
        elements(&ev, inbuf, incount, datatype, 0);                                            \
        packed(&ev, outbuf, outsize, position, *position, sizeof(MPI_Aint), 1);                \
        MPI_EV_CALL(&ev, P##name(datarep, inbuf, incount, datatype, outbuf, outsize, position)); \
        return mpi_ev_end(&ev);                                                                \
    }

#define UNPACK_EXTERNAL(name, ctype, fl) \
    COMMHINT_EXPORT int name(const char *datarep, const void *inbuf, MPI_Aint insize,           \
                             MPI_Aint *position, void *outbuf, ctype outcount,                  \
                             MPI_Datatype datatype)                                             \
    {                                                                                          \
        struct mpi_ev ev;                                                                      \
        MPI_EV_BEGIN(&ev, CHT_MPI_UNPACK_EXTERNAL, MPI_COMM_NULL);                             \
        ev.rec.flags |= (fl);                                                               \
        ev.rec.count = clamp_count(outcount);                                                  \
        packed(&ev, inbuf, insize, position, *position, sizeof(MPI_Aint), 0);                  \
        elements(&ev, outbuf, outcount, datatype, 1);                                          \
        MPI_EV_CALL(&ev, P##name(datarep, inbuf, insize, position, outbuf, outcount, datatype)); \
        return mpi_ev_end(&ev);                                                                \
    }

PACK_EXTERNAL(MPI_Pack_external, int, 0)
PACK_EXTERNAL(MPI_Pack_external_c, MPI_Count, CHT_MPIF_LARGE_COUNT)
UNPACK_EXTERNAL(MPI_Unpack_external, int, 0)
UNPACK_EXTERNAL(MPI_Unpack_external_c, MPI_Count, CHT_MPIF_LARGE_COUNT)

#define REDUCE_LOCAL(name, ctype, fl) \
    COMMHINT_EXPORT int name(const void *inbuf, void *inoutbuf, ctype count,                  \
                             MPI_Datatype datatype, MPI_Op op)                                \
    {                                                                                        \
        struct mpi_ev ev;                                                                    \
        MPI_EV_BEGIN(&ev, CHT_MPI_REDUCE_LOCAL, MPI_COMM_NULL);                              \
        ev.rec.flags |= (fl);                                                             \
        ev.rec.count = clamp_count(count);                                                   \
        mpi_ev_op(&ev, op);                                                                  \
        elements(&ev, inbuf, count, datatype, 0);                                            \
        elements(&ev, inoutbuf, count, datatype, 0);                                         \
        elements(&ev, inoutbuf, count, datatype, 1);                                         \
        MPI_EV_CALL(&ev, P##name(inbuf, inoutbuf, count, datatype, op));                     \
        return mpi_ev_end(&ev);                                                              \
    }

REDUCE_LOCAL(MPI_Reduce_local, int, 0)
REDUCE_LOCAL(MPI_Reduce_local_c, MPI_Count, CHT_MPIF_LARGE_COUNT)
