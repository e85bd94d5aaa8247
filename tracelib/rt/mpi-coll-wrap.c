/* mpi-coll-wrap.c - the wrappers of the collectives over all members of a
 * communicator, in every form: blocking, nonblocking (MPI_Ibcast...) and
 * persistent (MPI_Bcast_init...), each with int counts and, except Barrier,
 * as the MPI-4 large-count variant (MPI_Bcast_c, MPI_Ibcast_c,
 * MPI_Bcast_init_c: MPI_Count counts, MPI_Aint displacements; recorded
 * under the same call id with CHT_MPIF_LARGE_COUNT).
 *
 * One macro per collective spells its parameter list once and makes the
 * three forms from it (FORMS); each wrapper is only its arguments packed
 * into a struct coll_args and the PMPI call (mpi-coll.h), the describe
 * function (mpi-coll.c) doing the rest.
 */
#include "mpi-coll.h"

FORMS(Barrier, Ibarrier, , CHT_MPI_BARRIER, CHT_MPI_IBARRIER, CHT_MPI_BARRIER_INIT, mpi_desc_barrier,
      MPI_Comm comm, COLL_ARGS(.root = 0), comm)

/* ---- reductions ---------------------------------------------------------------------- */

#define P_BCAST(CNT) void *buffer, CNT count, MPI_Datatype datatype, int root, MPI_Comm comm
#define BCAST(S, CNT, L)                                                                      \
    FORMS(Bcast, Ibcast, S, CHT_MPI_BCAST, CHT_MPI_IBCAST, CHT_MPI_BCAST_INIT, mpi_desc_bcast,    \
          P_BCAST(CNT),                                  \
          COLL_ARGS(.rbuf = buffer, .rcount = count, .rtype = datatype, .root = root, .large = L,     \
            .aint = L), buffer, count, datatype, root, comm)
BCAST(, int, 0)
BCAST(_c, MPI_Count, 1)

#define P_REDUCE(CNT) \
    const void *sendbuf, void *recvbuf, CNT count, MPI_Datatype datatype, MPI_Op op, int root, \
        MPI_Comm comm
#define REDUCE(S, CNT, L)                                                                     \
    FORMS(Reduce, Ireduce, S, CHT_MPI_REDUCE, CHT_MPI_IREDUCE, CHT_MPI_REDUCE_INIT,           \
          mpi_desc_reduce, P_REDUCE(CNT),      \
          COLL_ARGS(.sbuf = sendbuf, .rbuf = recvbuf, .scount = count, .stype = datatype, .op = op,   \
            .root = root, .large = L, .aint = L), sendbuf, recvbuf, count, datatype, op, root, comm)
REDUCE(, int, 0)
REDUCE(_c, MPI_Count, 1)

/* Allreduce, Scan, Exscan */
#define P_REDUCE_ALL(CNT) \
    const void *sendbuf, void *recvbuf, CNT count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm
#define REDUCE_ALL(NAME, INAME, CALL, S, CNT, L)                                              \
    FORMS(NAME, INAME, S, CHT_MPI_##CALL, CHT_MPI_I##CALL, CHT_MPI_##CALL##_INIT,             \
          mpi_desc_reduce_all, P_REDUCE_ALL(CNT),    \
          COLL_ARGS(.sbuf = sendbuf, .rbuf = recvbuf, .scount = count, .stype = datatype, .op = op,   \
            .large = L, .aint = L), sendbuf, recvbuf, count, datatype, op, comm)
REDUCE_ALL(Allreduce, Iallreduce, ALLREDUCE, , int, 0)
REDUCE_ALL(Allreduce, Iallreduce, ALLREDUCE, _c, MPI_Count, 1)
REDUCE_ALL(Scan, Iscan, SCAN, , int, 0)
REDUCE_ALL(Scan, Iscan, SCAN, _c, MPI_Count, 1)
REDUCE_ALL(Exscan, Iexscan, EXSCAN, , int, 0)
REDUCE_ALL(Exscan, Iexscan, EXSCAN, _c, MPI_Count, 1)

#define P_REDUCE_SCATTER(CNT)                                                                 \
    const void *sendbuf, void *recvbuf, const CNT recvcounts[], MPI_Datatype datatype,       \
        MPI_Op op, MPI_Comm comm
#define REDUCE_SCATTER(S, CNT, L)                                                             \
    FORMS(Reduce_scatter, Ireduce_scatter, S, CHT_MPI_REDUCE_SCATTER,                         \
          CHT_MPI_IREDUCE_SCATTER, CHT_MPI_REDUCE_SCATTER_INIT, mpi_desc_reduce_scatter,          \
          P_REDUCE_SCATTER(CNT),            \
          COLL_ARGS(.sbuf = sendbuf, .rbuf = recvbuf, .rcounts = recvcounts, .stype = datatype,       \
            .op = op, .large = L, .aint = L), sendbuf, recvbuf, recvcounts, datatype, op, comm)
REDUCE_SCATTER(, int, 0)
REDUCE_SCATTER(_c, MPI_Count, 1)

#define P_REDUCE_SCATTER_BLOCK(CNT)                                                           \
    const void *sendbuf, void *recvbuf, CNT recvcount, MPI_Datatype datatype, MPI_Op op,      \
        MPI_Comm comm
#define REDUCE_SCATTER_BLOCK(S, CNT, L)                                                       \
    FORMS(Reduce_scatter_block, Ireduce_scatter_block, S, CHT_MPI_REDUCE_SCATTER_BLOCK,       \
          CHT_MPI_IREDUCE_SCATTER_BLOCK, CHT_MPI_REDUCE_SCATTER_BLOCK_INIT,                   \
          mpi_desc_reduce_scatter_block, P_REDUCE_SCATTER_BLOCK(CNT),                                                      \
          COLL_ARGS(.sbuf = sendbuf, .rbuf = recvbuf, .rcount = recvcount, .stype = datatype,         \
            .op = op, .large = L, .aint = L), sendbuf, recvbuf,           \
          recvcount, datatype, op, comm)
REDUCE_SCATTER_BLOCK(, int, 0)
REDUCE_SCATTER_BLOCK(_c, MPI_Count, 1)

/* ---- rooted data movement -------------------------------------------------------------- */

/* Gather and Scatter */
#define P_ROOTED(CNT)                                                                         \
    const void *sendbuf, CNT sendcount, MPI_Datatype sendtype, void *recvbuf, CNT recvcount,  \
        MPI_Datatype recvtype, int root, MPI_Comm comm
#define ROOTED(NAME, INAME, CALL, DESCRIBE, S, CNT, L)                                        \
    FORMS(NAME, INAME, S, CHT_MPI_##CALL, CHT_MPI_I##CALL, CHT_MPI_##CALL##_INIT, DESCRIBE,   \
          P_ROOTED(CNT),                                                                               \
          COLL_ARGS(.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,         \
            .rcount = recvcount, .rtype = recvtype, .root = root, .large = L, .aint = L), sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,    \
          comm)
ROOTED(Gather, Igather, GATHER, mpi_desc_gather, , int, 0)
ROOTED(Gather, Igather, GATHER, mpi_desc_gather, _c, MPI_Count, 1)
ROOTED(Scatter, Iscatter, SCATTER, mpi_desc_scatter, , int, 0)
ROOTED(Scatter, Iscatter, SCATTER, mpi_desc_scatter, _c, MPI_Count, 1)

#define P_GATHERV(CNT, DSP)                                                                   \
    const void *sendbuf, CNT sendcount, MPI_Datatype sendtype, void *recvbuf,                 \
        const CNT recvcounts[], const DSP displs[], MPI_Datatype recvtype, int root,          \
        MPI_Comm comm
#define GATHERV(S, CNT, DSP, L)                                                               \
    FORMS(Gatherv, Igatherv, S, CHT_MPI_GATHERV, CHT_MPI_IGATHERV, CHT_MPI_GATHERV_INIT,      \
          mpi_desc_gatherv, P_GATHERV(CNT, DSP),                                           \
          COLL_ARGS(.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,         \
            .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype, .root = root,        \
            .large = L, .aint = L), sendbuf, sendcount, sendtype, recvbuf,           \
          recvcounts, displs, recvtype, root, comm)
GATHERV(, int, int, 0)
GATHERV(_c, MPI_Count, MPI_Aint, 1)

#define P_SCATTERV(CNT, DSP)                                                                  \
    const void *sendbuf, const CNT sendcounts[], const DSP displs[], MPI_Datatype sendtype,   \
        void *recvbuf, CNT recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm
#define SCATTERV(S, CNT, DSP, L)                                                              \
    FORMS(Scatterv, Iscatterv, S, CHT_MPI_SCATTERV, CHT_MPI_ISCATTERV, CHT_MPI_SCATTERV_INIT, \
          mpi_desc_scatterv, P_SCATTERV(CNT, DSP),                                           \
          COLL_ARGS(.sbuf = sendbuf, .scounts = sendcounts, .sdispls = displs, .stype = sendtype,     \
            .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .root = root,            \
            .large = L, .aint = L), sendbuf, sendcounts, displs, sendtype,         \
          recvbuf, recvcount, recvtype, root, comm)
SCATTERV(, int, int, 0)
SCATTERV(_c, MPI_Count, MPI_Aint, 1)

/* ---- all to all ------------------------------------------------------------------------- */

/* Allgather and Alltoall */
#define P_ALL(CNT)                                                                            \
    const void *sendbuf, CNT sendcount, MPI_Datatype sendtype, void *recvbuf, CNT recvcount,  \
        MPI_Datatype recvtype, MPI_Comm comm
#define ALL(NAME, INAME, CALL, DESCRIBE, S, CNT, L)                                           \
    FORMS(NAME, INAME, S, CHT_MPI_##CALL, CHT_MPI_I##CALL, CHT_MPI_##CALL##_INIT, DESCRIBE,   \
          P_ALL(CNT),       \
          COLL_ARGS(.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,         \
            .rcount = recvcount, .rtype = recvtype, .large = L, .aint = L), sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)
ALL(Allgather, Iallgather, ALLGATHER, mpi_desc_allgather, , int, 0)
ALL(Allgather, Iallgather, ALLGATHER, mpi_desc_allgather, _c, MPI_Count, 1)
ALL(Alltoall, Ialltoall, ALLTOALL, mpi_desc_alltoall, , int, 0)
ALL(Alltoall, Ialltoall, ALLTOALL, mpi_desc_alltoall, _c, MPI_Count, 1)

#define P_ALLGATHERV(CNT, DSP)                                                                \
    const void *sendbuf, CNT sendcount, MPI_Datatype sendtype, void *recvbuf,                 \
        const CNT recvcounts[], const DSP displs[], MPI_Datatype recvtype, MPI_Comm comm
#define ALLGATHERV(S, CNT, DSP, L)                                                            \
    FORMS(Allgatherv, Iallgatherv, S, CHT_MPI_ALLGATHERV, CHT_MPI_IALLGATHERV,                \
          CHT_MPI_ALLGATHERV_INIT, mpi_desc_allgatherv, P_ALLGATHERV(CNT, DSP),                   \
          COLL_ARGS(.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,         \
            .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype, .large = L,          \
            .aint = L), sendbuf,          \
          sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm)
ALLGATHERV(, int, int, 0)
ALLGATHERV(_c, MPI_Count, MPI_Aint, 1)

#define P_ALLTOALLV(CNT, DSP)                                                                 \
    const void *sendbuf, const CNT sendcounts[], const DSP sdispls[], MPI_Datatype sendtype,  \
        void *recvbuf, const CNT recvcounts[], const DSP rdispls[], MPI_Datatype recvtype,    \
        MPI_Comm comm
#define ALLTOALLV(S, CNT, DSP, L)                                                             \
    FORMS(Alltoallv, Ialltoallv, S, CHT_MPI_ALLTOALLV, CHT_MPI_IALLTOALLV,                    \
          CHT_MPI_ALLTOALLV_INIT, mpi_desc_alltoallv, P_ALLTOALLV(CNT, DSP),                    \
          COLL_ARGS(.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls, .stype = sendtype,    \
            .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls, .rtype = recvtype,    \
            .large = L, .aint = L), sendbuf, sendcounts, \
          sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm)
ALLTOALLV(, int, int, 0)
ALLTOALLV(_c, MPI_Count, MPI_Aint, 1)

/* Alltoallw: per-rank datatypes, displacements in bytes */
#define P_ALLTOALLW(CNT, DSP)                                                                 \
    const void *sendbuf, const CNT sendcounts[], const DSP sdispls[],                         \
        const MPI_Datatype sendtypes[], void *recvbuf, const CNT recvcounts[],                \
        const DSP rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm
#define ALLTOALLW(S, CNT, DSP, L)                                                             \
    FORMS(Alltoallw, Ialltoallw, S, CHT_MPI_ALLTOALLW, CHT_MPI_IALLTOALLW,                    \
          CHT_MPI_ALLTOALLW_INIT, mpi_desc_alltoallw, P_ALLTOALLW(CNT, DSP),                  \
          COLL_ARGS(.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls, .stypes = sendtypes,  \
            .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls, .rtypes = recvtypes,  \
            .large = L, .aint = L), sendbuf, sendcounts, \
          sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm)
ALLTOALLW(, int, int, 0)
ALLTOALLW(_c, MPI_Count, MPI_Aint, 1)
