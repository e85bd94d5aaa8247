/* mpi-coll-neighbor.c - the neighbourhood collectives (MPI_Neighbor_allgather(v),
 * MPI_Neighbor_alltoall(v,w)) in every form: blocking, nonblocking,
 * persistent, int and large-count.
 *
 * A neighbourhood collective is collective over the whole communicator (every
 * member calls it), so it takes the communicator's next collective number
 * like any collective.  Its blocks are one per neighbour, in MPI's
 * neighbour order, queried from the communicator's topology when the call
 * (or the start of a persistent one) is described:
 *   Cartesian   for each dimension d, the source then the destination of
 *               MPI_Cart_shift(comm, d, 1); the same list for sending and
 *               receiving; a neighbour that is MPI_PROC_NULL (a non-periodic
 *               border) keeps its block, which moves no bytes
 *   graph       MPI_Graph_neighbors of this rank, for both directions
 *   dist graph  MPI_Dist_graph_neighbors: sources receive, destinations send
 * Allgather(v) sends one buffer to every destination (recorded as that
 * buffer) and receives one block per source; Alltoall(v,w) sends one block
 * per destination and receives one per source.  Alltoallw's displacements
 * are MPI_Aint bytes in both forms.
 */
#include <stdlib.h>

#include "mpi-coll.h"

#define NBR_STACK 32

/* This rank's neighbours in the communicator's topology. */
struct nbrs {
    int nin, nout;
    int *in, *out;         /* sources (receive blocks), destinations (send blocks) */
    int *heap;
    int buf[2 * NBR_STACK];
};

/* Room for the lists; 0 or -1 (out of memory). */
static int nbrs_room(struct nbrs *n)
{
    n->heap = NULL;
    n->in = n->buf;
    n->out = n->buf + NBR_STACK;
    if (n->nin <= NBR_STACK && n->nout <= NBR_STACK)
        return 0;
    n->heap = malloc(((size_t)n->nin + (size_t)n->nout + 2) * sizeof(int));
    if (n->heap == NULL)
        return -1;
    n->in = n->heap;
    n->out = n->heap + n->nin + 1;
    return 0;
}

static int cart_nbrs(MPI_Comm comm, struct nbrs *n)
{
    int nd;
    if (PMPI_Cartdim_get(comm, &nd) != MPI_SUCCESS || nd < 0)
        return -1;
    n->nin = n->nout = 2 * nd;
    if (nbrs_room(n) < 0)
        return -1;
    for (int d = 0; d < nd; d++) {
        if (PMPI_Cart_shift(comm, d, 1, &n->in[2 * d], &n->in[2 * d + 1]) != MPI_SUCCESS)
            return -1;
        n->out[2 * d] = n->in[2 * d];
        n->out[2 * d + 1] = n->in[2 * d + 1];
    }
    return 0;
}

static int graph_nbrs(MPI_Comm comm, int rank, struct nbrs *n)
{
    int k;
    if (PMPI_Graph_neighbors_count(comm, rank, &k) != MPI_SUCCESS || k < 0)
        return -1;
    n->nin = n->nout = k;
    if (nbrs_room(n) < 0 || PMPI_Graph_neighbors(comm, rank, k, n->in) != MPI_SUCCESS)
        return -1;
    for (int i = 0; i < k; i++)
        n->out[i] = n->in[i];
    return 0;
}

static int dist_graph_nbrs(MPI_Comm comm, struct nbrs *n)
{
    int weighted;
    if (PMPI_Dist_graph_neighbors_count(comm, &n->nin, &n->nout, &weighted) != MPI_SUCCESS ||
        n->nin < 0 || n->nout < 0 || nbrs_room(n) < 0)
        return -1;
    int *w = malloc(((size_t)n->nin + (size_t)n->nout + 2) * sizeof(int));
    if (w == NULL)
        return -1;
    int rc = PMPI_Dist_graph_neighbors(comm, n->nin, n->in, w, n->nout, n->out, w + n->nin + 1);
    free(w);
    return rc == MPI_SUCCESS ? 0 : -1;
}

/* Fills *n for `comm`; -1 if it has no topology or a query failed. */
static int nbrs_get(MPI_Comm comm, int rank, struct nbrs *n)
{
    int topo;
    n->heap = NULL;
    n->nin = n->nout = 0;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return -1;
    switch (topo) {
    case MPI_CART: return cart_nbrs(comm, n);
    case MPI_GRAPH: return graph_nbrs(comm, rank, n);
    case MPI_DIST_GRAPH: return dist_graph_nbrs(comm, n);
    default: return -1;
    }
}

/* Blocks of one side: n neighbours, `count` each at consecutive places or
 * the arrays; per-neighbour types for Alltoallw. */
static struct mpi_blockspec nbr_blocks(const struct coll_args *a, int n, const int *peers,
                                       const void *counts, const void *displs, int64_t count,
                                       MPI_Datatype type, const MPI_Datatype *types)
{
    return (struct mpi_blockspec){n, counts, displs, count, a->large, a->aint, types != NULL,
                                  type, types, peers};
}

/* The parts of a neighbourhood collective. */
enum { NBR_SEND_ONE = 1, NBR_SEND_BLOCKS = 2, NBR_V = 4, NBR_W = 8 };

static void describe_nbr(struct mpi_ev *ev, const struct coll_args *a, int how)
{
    struct nbrs n;
    size_t csize = a->large ? sizeof(MPI_Count) : sizeof(int);
    size_t dsize = a->aint ? sizeof(MPI_Aint) : sizeof(int);
    mpi_coll_flags(ev, a);
    mpi_ev_coll(ev);
    if (nbrs_get(ev->comm, ev->cv.rank, &n) < 0) {
        /* the blocks are unknown: a fence (only if the topology cannot be
         * queried; MPI fails the call on a communicator without one) */
        rt_warn_once(MPI_WARN_CALL, "cannot query the neighbours of a neighbourhood "
                     "collective: recorded as an untraced call");
        ev->rec.h.aux = CHT_MPI_UNTRACED;
        free(n.heap);
        return;
    }
    if (how & NBR_SEND_ONE) {
        mpi_ev_buf(ev, 0, a->sbuf, a->scount, a->stype);
    } else {
        struct mpi_blockspec s = nbr_blocks(a, n.nout, n.out, a->scounts, a->sdispls, a->scount,
                                            a->stype, a->stypes);
        mpi_ev_blocks(ev, 0, a->sbuf, &s);
        mpi_coll_array(ev, a, a->scounts, n.nout, csize);
        mpi_coll_array(ev, a, a->sdispls, n.nout, dsize);
        mpi_coll_array(ev, a, a->stypes, n.nout, sizeof(MPI_Datatype));
    }
    struct mpi_blockspec r = nbr_blocks(a, n.nin, n.in, a->rcounts, a->rdispls, a->rcount,
                                        a->rtype, a->rtypes);
    mpi_ev_blocks(ev, 1, a->rbuf, &r);
    mpi_coll_array(ev, a, a->rcounts, n.nin, csize);
    mpi_coll_array(ev, a, a->rdispls, n.nin, dsize);
    mpi_coll_array(ev, a, a->rtypes, n.nin, sizeof(MPI_Datatype));
    free(n.heap);
}

void mpi_desc_neighbor_allgather(struct mpi_ev *ev, const void *params)
{
    describe_nbr(ev, params, NBR_SEND_ONE);
}

void mpi_desc_neighbor_allgatherv(struct mpi_ev *ev, const void *params)
{
    describe_nbr(ev, params, NBR_SEND_ONE | NBR_V);
}

void mpi_desc_neighbor_alltoall(struct mpi_ev *ev, const void *params)
{
    describe_nbr(ev, params, NBR_SEND_BLOCKS);
}

void mpi_desc_neighbor_alltoallv(struct mpi_ev *ev, const void *params)
{
    describe_nbr(ev, params, NBR_SEND_BLOCKS | NBR_V);
}

void mpi_desc_neighbor_alltoallw(struct mpi_ev *ev, const void *params)
{
    describe_nbr(ev, params, NBR_SEND_BLOCKS | NBR_W);
}

/* ---- the wrappers ------------------------------------------------------------------------ */

#define P_NBR_ALL(CNT)                                                                        \
    const void *sendbuf, CNT sendcount, MPI_Datatype sendtype, void *recvbuf, CNT recvcount,  \
        MPI_Datatype recvtype, MPI_Comm comm
#define NBR_ALL(NAME, INAME, CALL, DESCRIBE, S, CNT, L)                                       \
    FORMS(NAME, INAME, S, CHT_MPI_##CALL, CHT_MPI_I##CALL, CHT_MPI_##CALL##_INIT, DESCRIBE,   \
          P_NBR_ALL(CNT),                                                                     \
          COLL_ARGS(.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf, \
                    .rcount = recvcount, .rtype = recvtype, .large = L, .aint = L),           \
          sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)
NBR_ALL(Neighbor_allgather, Ineighbor_allgather, NEIGHBOR_ALLGATHER, mpi_desc_neighbor_allgather, ,
        int, 0)
NBR_ALL(Neighbor_allgather, Ineighbor_allgather, NEIGHBOR_ALLGATHER, mpi_desc_neighbor_allgather,
        _c, MPI_Count, 1)
NBR_ALL(Neighbor_alltoall, Ineighbor_alltoall, NEIGHBOR_ALLTOALL, mpi_desc_neighbor_alltoall, , int,
        0)
NBR_ALL(Neighbor_alltoall, Ineighbor_alltoall, NEIGHBOR_ALLTOALL, mpi_desc_neighbor_alltoall, _c,
        MPI_Count, 1)

#define P_NBR_ALLGATHERV(CNT, DSP)                                                            \
    const void *sendbuf, CNT sendcount, MPI_Datatype sendtype, void *recvbuf,                 \
        const CNT recvcounts[], const DSP displs[], MPI_Datatype recvtype, MPI_Comm comm
#define NBR_ALLGATHERV(S, CNT, DSP, L)                                                        \
    FORMS(Neighbor_allgatherv, Ineighbor_allgatherv, S, CHT_MPI_NEIGHBOR_ALLGATHERV,          \
          CHT_MPI_INEIGHBOR_ALLGATHERV, CHT_MPI_NEIGHBOR_ALLGATHERV_INIT,                     \
          mpi_desc_neighbor_allgatherv, P_NBR_ALLGATHERV(CNT, DSP),                               \
          COLL_ARGS(.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf, \
                    .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype, .large = L,  \
                    .aint = L),                                                               \
          sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm)
NBR_ALLGATHERV(, int, int, 0)
NBR_ALLGATHERV(_c, MPI_Count, MPI_Aint, 1)

#define P_NBR_ALLTOALLV(CNT, DSP)                                                             \
    const void *sendbuf, const CNT sendcounts[], const DSP sdispls[], MPI_Datatype sendtype,  \
        void *recvbuf, const CNT recvcounts[], const DSP rdispls[], MPI_Datatype recvtype,    \
        MPI_Comm comm
#define NBR_ALLTOALLV(S, CNT, DSP, L)                                                         \
    FORMS(Neighbor_alltoallv, Ineighbor_alltoallv, S, CHT_MPI_NEIGHBOR_ALLTOALLV,             \
          CHT_MPI_INEIGHBOR_ALLTOALLV, CHT_MPI_NEIGHBOR_ALLTOALLV_INIT,                       \
          mpi_desc_neighbor_alltoallv, P_NBR_ALLTOALLV(CNT, DSP),                                 \
          COLL_ARGS(.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls,               \
                    .stype = sendtype, .rbuf = recvbuf, .rcounts = recvcounts,                \
                    .rdispls = rdispls, .rtype = recvtype, .large = L, .aint = L),            \
          sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm)
NBR_ALLTOALLV(, int, int, 0)
NBR_ALLTOALLV(_c, MPI_Count, MPI_Aint, 1)

/* displacements are MPI_Aint bytes in both forms */
#define P_NBR_ALLTOALLW(CNT)                                                                  \
    const void *sendbuf, const CNT sendcounts[], const MPI_Aint sdispls[],                    \
        const MPI_Datatype sendtypes[], void *recvbuf, const CNT recvcounts[],                \
        const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm
#define NBR_ALLTOALLW(S, CNT, L)                                                              \
    FORMS(Neighbor_alltoallw, Ineighbor_alltoallw, S, CHT_MPI_NEIGHBOR_ALLTOALLW,             \
          CHT_MPI_INEIGHBOR_ALLTOALLW, CHT_MPI_NEIGHBOR_ALLTOALLW_INIT,                       \
          mpi_desc_neighbor_alltoallw, P_NBR_ALLTOALLW(CNT),                                      \
          COLL_ARGS(.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls,               \
                    .stypes = sendtypes, .rbuf = recvbuf, .rcounts = recvcounts,              \
                    .rdispls = rdispls, .rtypes = recvtypes, .large = L, .aint = 1),          \
          sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,   \
          comm)
NBR_ALLTOALLW(, int, 0)
NBR_ALLTOALLW(_c, MPI_Count, 1)
