/* mpi-coll.c - wrappers of the blocking collectives.
 *
 * Every collective takes the next collective number of its communicator
 * (rec.seq), so calls match across ranks by (comm, seq).  Rooted ones record
 * the root as a world rank in rec.peer and set CHT_MPIF_ROOT on it.  Buffers
 * are recorded on the ranks that use them: Bcast's root reads (sbuf), the
 * others write (rbuf); Reduce: everyone reads sbuf, the root writes rbuf.
 * Calls with per-rank blocks (Gather(v) and Scatter(v) on the root,
 * Allgather(v) on the receive side, Alltoall(v) on both) are followed by
 * CHT_REC_BLOCKS records.  Arguments that MPI says are not significant on a
 * rank (e.g. recvtype of Gather on a non-root) are never looked at.
 *
 * Intercommunicators: the root passes MPI_ROOT and only receives (Reduce,
 * Gather) or only sends (Bcast, Scatter); its group passes MPI_PROC_NULL and
 * does nothing; per-rank blocks are per rank of the remote group.
 */
#include <limits.h>

#include "mpi-private.h"

typedef int (*reduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);

/* Ranks with a block in per-rank arrays: the remote group of an
 * intercommunicator, else the communicator. */
static int block_ranks(const struct mpi_ev *ev)
{
    return ev->cv.inter ? ev->cv.remote_size : ev->cv.size;
}

/* Whether a rank whose mpi_ev_root answer is r contributes data to (root 0)
 * or takes data from the root: non-roots, and the root of an
 * intracommunicator. */
static int non_root_side(const struct mpi_ev *ev, int r)
{
    return r == 0 || (r == 1 && !ev->cv.inter);
}

/* Allreduce, Scan and Exscan: every rank reads sbuf and writes rbuf. */
static int reduce_all(enum cht_mpi_call call, reduce_fn fn, void *ra, const void *sendbuf,
                      void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct mpi_ev ev;
    mpi_ev_begin(&ev, call, comm, ra);
    mpi_ev_coll(&ev);
    mpi_ev_op(&ev, op);
    mpi_ev_sbuf(&ev, sendbuf, count, datatype);
    mpi_ev_rbuf(&ev, recvbuf, count, datatype);
    MPI_EV_CALL(&ev, fn(sendbuf, recvbuf, count, datatype, op, comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_BARRIER, comm);
    mpi_ev_coll(&ev);
    MPI_EV_CALL(&ev, PMPI_Barrier(comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                              MPI_Comm comm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_BCAST, comm);
    int r = mpi_ev_root(&ev, root);
    if (r == 1)
        mpi_ev_sbuf(&ev, buffer, count, datatype);
    else if (r == 0)
        mpi_ev_rbuf(&ev, buffer, count, datatype);
    MPI_EV_CALL(&ev, PMPI_Bcast(buffer, count, datatype, root, comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_REDUCE, comm);
    int r = mpi_ev_root(&ev, root);
    mpi_ev_op(&ev, op);
    if (non_root_side(&ev, r))
        mpi_ev_sbuf(&ev, sendbuf, count, datatype);
    if (r == 1)
        mpi_ev_rbuf(&ev, recvbuf, count, datatype);
    MPI_EV_CALL(&ev, PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_all(CHT_MPI_ALLREDUCE, PMPI_Allreduce, __builtin_return_address(0), sendbuf,
                      recvbuf, count, datatype, op, comm);
}

COMMHINT_EXPORT int MPI_Scan(const void *sendbuf, void *recvbuf, int count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_all(CHT_MPI_SCAN, PMPI_Scan, __builtin_return_address(0), sendbuf, recvbuf,
                      count, datatype, op, comm);
}

COMMHINT_EXPORT int MPI_Exscan(const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_all(CHT_MPI_EXSCAN, PMPI_Exscan, __builtin_return_address(0), sendbuf,
                      recvbuf, count, datatype, op, comm);
}

/* A count or displacement array of n ints the call reads. */
static void ints_arg(struct mpi_ev *ev, const int *a, int n)
{
    if (n > 0)
        mpi_ev_arg(ev, a, (size_t)n * sizeof(int), 0, 0);
}

COMMHINT_EXPORT int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf,
                                       const int recvcounts[], MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm)
{
    struct mpi_ev ev;
    long long total = 0;
    MPI_EV_BEGIN(&ev, CHT_MPI_REDUCE_SCATTER, comm);
    mpi_ev_coll(&ev);
    mpi_ev_op(&ev, op);
    for (int i = 0; i < ev.cv.size; i++)
        total += recvcounts[i];
    ints_arg(&ev, recvcounts, ev.cv.size);
    mpi_ev_sbuf(&ev, sendbuf, total > INT_MAX ? INT_MAX : (int)total, datatype);
    if (ev.cv.rank >= 0)
        mpi_ev_rbuf(&ev, recvbuf, recvcounts[ev.cv.rank], datatype);
    MPI_EV_CALL(&ev, PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_REDUCE_SCATTER_BLOCK, comm);
    mpi_ev_coll(&ev);
    mpi_ev_op(&ev, op);
    long long total = (long long)recvcount * ev.cv.size;
    mpi_ev_sbuf(&ev, sendbuf, total > INT_MAX ? INT_MAX : (int)total, datatype);
    mpi_ev_rbuf(&ev, recvbuf, recvcount, datatype);
    MPI_EV_CALL(&ev, PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_GATHER, comm);
    int r = mpi_ev_root(&ev, root);
    if (non_root_side(&ev, r))
        mpi_ev_sbuf(&ev, sendbuf, sendcount, sendtype);
    if (r == 1)
        mpi_ev_blocks(&ev, 1, recvbuf, block_ranks(&ev), NULL, NULL, recvcount, recvtype);
    MPI_EV_CALL(&ev, PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 root, comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_GATHERV, comm);
    int r = mpi_ev_root(&ev, root);
    if (non_root_side(&ev, r))
        mpi_ev_sbuf(&ev, sendbuf, sendcount, sendtype);
    if (r == 1)
        mpi_ev_blocks(&ev, 1, recvbuf, block_ranks(&ev), recvcounts, displs, 0, recvtype);
    if (r == 1) {
        ints_arg(&ev, recvcounts, block_ranks(&ev));
        ints_arg(&ev, displs, block_ranks(&ev));
    }
    MPI_EV_CALL(&ev, PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, root, comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                MPI_Comm comm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_SCATTER, comm);
    int r = mpi_ev_root(&ev, root);
    if (r == 1)
        mpi_ev_blocks(&ev, 0, sendbuf, block_ranks(&ev), NULL, NULL, sendcount, sendtype);
    if (non_root_side(&ev, r))
        mpi_ev_rbuf(&ev, recvbuf, recvcount, recvtype);
    MPI_EV_CALL(&ev, PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                  root, comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                                 MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_SCATTERV, comm);
    int r = mpi_ev_root(&ev, root);
    if (r == 1)
        mpi_ev_blocks(&ev, 0, sendbuf, block_ranks(&ev), sendcounts, displs, 0, sendtype);
    if (r == 1) {
        ints_arg(&ev, sendcounts, block_ranks(&ev));
        ints_arg(&ev, displs, block_ranks(&ev));
    }
    if (non_root_side(&ev, r))
        mpi_ev_rbuf(&ev, recvbuf, recvcount, recvtype);
    MPI_EV_CALL(&ev, PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                   recvtype, root, comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_ALLGATHER, comm);
    mpi_ev_coll(&ev);
    mpi_ev_sbuf(&ev, sendbuf, sendcount, sendtype);
    mpi_ev_blocks(&ev, 1, recvbuf, block_ranks(&ev), NULL, NULL, recvcount, recvtype);
    MPI_EV_CALL(&ev, PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, const int recvcounts[], const int displs[],
                                   MPI_Datatype recvtype, MPI_Comm comm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_ALLGATHERV, comm);
    mpi_ev_coll(&ev);
    mpi_ev_sbuf(&ev, sendbuf, sendcount, sendtype);
    mpi_ev_blocks(&ev, 1, recvbuf, block_ranks(&ev), recvcounts, displs, 0, recvtype);
    ints_arg(&ev, recvcounts, block_ranks(&ev));
    ints_arg(&ev, displs, block_ranks(&ev));
    MPI_EV_CALL(&ev, PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                     recvtype, comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_ALLTOALL, comm);
    mpi_ev_coll(&ev);
    mpi_ev_blocks(&ev, 0, sendbuf, block_ranks(&ev), NULL, NULL, sendcount, sendtype);
    mpi_ev_blocks(&ev, 1, recvbuf, block_ranks(&ev), NULL, NULL, recvcount, recvtype);
    MPI_EV_CALL(&ev, PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm));
    return mpi_ev_end(&ev);
}

COMMHINT_EXPORT int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                                  const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_ALLTOALLV, comm);
    mpi_ev_coll(&ev);
    mpi_ev_blocks(&ev, 0, sendbuf, block_ranks(&ev), sendcounts, sdispls, 0, sendtype);
    mpi_ev_blocks(&ev, 1, recvbuf, block_ranks(&ev), recvcounts, rdispls, 0, recvtype);
    ints_arg(&ev, sendcounts, block_ranks(&ev));
    ints_arg(&ev, sdispls, block_ranks(&ev));
    ints_arg(&ev, recvcounts, block_ranks(&ev));
    ints_arg(&ev, rdispls, block_ranks(&ev));
    MPI_EV_CALL(&ev, PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                    rdispls, recvtype, comm));
    return mpi_ev_end(&ev);
}
