/* mpi-comm.c - wrappers of the calls that create and free communicators.
 *
 * Creation calls are collective over the parent, so they take the parent's
 * next collective number like any collective.  When a call returns a new
 * communicator, its members agree on its id (mpi_comm_register) and the call's
 * MPI record is followed by a CHT_REC_COMM record naming the members' world
 * ranks.  The agreement runs whether or not the trace is being recorded: it
 * is collective, and a member that skipped it would hang the others.
 */
#include <string.h>

#include "mpi-private.h"

/* Finishes a creation call: registers *newcomm if one was made and writes
 * the MPI record followed by the COMM record (or the MPI record alone if the
 * members do not fit in one reservation).  Returns PMPI's return code. */
static int end_create(struct mpi_ev *ev, const MPI_Comm *newcomm)
{
    struct mpi_comm_new nc;
    if (ev->ret != MPI_SUCCESS || *newcomm == MPI_COMM_NULL)
        return mpi_ev_end(ev);
    mpi_comm_register(*newcomm, &nc);
    size_t members = nc.world != NULL ? (size_t)(nc.v.size + nc.v.remote_size) : 0;
    size_t args = mpi_ev_args_size(ev);
    size_t extra = mpi_pad8(sizeof(struct cht_rec_comm) + members * sizeof(int32_t));
    if (sizeof(struct cht_rec_mpi) + args + extra > MPI_RESERVE_MAX) {
        rt_warn_once(MPI_WARN_SIZE, "communicator too large to record its members: "
                     "recorded without them: size=%d", nc.v.size);
        return mpi_ev_end(ev);
    }
    char *p = mpi_ev_reserve(ev, args + extra);
    if (p == NULL)
        return ev->ret;
    struct cht_rec_comm *c = (struct cht_rec_comm *)mpi_ev_args_write(ev, p);
    memset(c, 0, extra);
    c->h = (struct cht_rec){CHT_REC_COMM, ev->rec.h.aux, (uint32_t)extra};
    c->comm = nc.v.id;
    c->parent = ev->rec.comm;
    c->size = (uint32_t)nc.v.size;
    c->remote_size = (uint32_t)nc.v.remote_size;
    c->my_rank = nc.v.rank;
    if (members != 0)
        memcpy(c + 1, nc.world, members * sizeof(int32_t));
    rt_commit(sizeof(struct cht_rec_mpi) + args + extra);
    return ev->ret;
}

COMMHINT_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_COMM_DUP, comm);
    mpi_ev_coll(&ev);
    MPI_EV_CALL(&ev, PMPI_Comm_dup(comm, newcomm));
    return end_create(&ev, newcomm);
}

COMMHINT_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_COMM_SPLIT, comm);
    mpi_ev_coll(&ev);
    MPI_EV_CALL(&ev, PMPI_Comm_split(comm, color, key, newcomm));
    return end_create(&ev, newcomm);
}

COMMHINT_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                        MPI_Comm *newcomm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_COMM_SPLIT_TYPE, comm);
    mpi_ev_coll(&ev);
    MPI_EV_CALL(&ev, PMPI_Comm_split_type(comm, split_type, key, info, newcomm));
    return end_create(&ev, newcomm);
}

COMMHINT_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_COMM_CREATE, comm);
    mpi_ev_coll(&ev);
    MPI_EV_CALL(&ev, PMPI_Comm_create(comm, group, newcomm));
    return end_create(&ev, newcomm);
}

COMMHINT_EXPORT int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[],
                                    const int periods[], int reorder, MPI_Comm *comm_cart)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_CART_CREATE, comm_old);
    mpi_ev_coll(&ev);
    MPI_EV_CALL(&ev, PMPI_Cart_create(comm_old, ndims, dims, periods, reorder, comm_cart));
    return end_create(&ev, comm_cart);
}

COMMHINT_EXPORT int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int indx[],
                                     const int edges[], int reorder, MPI_Comm *comm_graph)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_GRAPH_CREATE, comm_old);
    mpi_ev_coll(&ev);
    MPI_EV_CALL(&ev, PMPI_Graph_create(comm_old, nnodes, indx, edges, reorder, comm_graph));
    return end_create(&ev, comm_graph);
}

COMMHINT_EXPORT int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                          const int degrees[], const int destinations[],
                                          const int weights[], MPI_Info info, int reorder,
                                          MPI_Comm *comm_dist_graph)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_DIST_GRAPH_CREATE, comm_old);
    mpi_ev_coll(&ev);
    MPI_EV_CALL(&ev, PMPI_Dist_graph_create(comm_old, n, sources, degrees, destinations, weights,
                                            info, reorder, comm_dist_graph));
    return end_create(&ev, comm_dist_graph);
}

COMMHINT_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree,
                                                   const int sources[], const int sourceweights[],
                                                   int outdegree, const int destinations[],
                                                   const int destweights[], MPI_Info info,
                                                   int reorder, MPI_Comm *comm_dist_graph)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_DIST_GRAPH_CREATE_ADJACENT, comm_old);
    mpi_ev_coll(&ev);
    MPI_EV_CALL(&ev, PMPI_Dist_graph_create_adjacent(comm_old, indegree, sources, sourceweights,
                                                     outdegree, destinations, destweights, info,
                                                     reorder, comm_dist_graph));
    return end_create(&ev, comm_dist_graph);
}

COMMHINT_EXPORT int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    struct mpi_ev ev;
    MPI_EV_BEGIN(&ev, CHT_MPI_CART_SUB, comm);
    mpi_ev_coll(&ev);
    MPI_EV_CALL(&ev, PMPI_Cart_sub(comm, remain_dims, newcomm));
    return end_create(&ev, newcomm);
}

COMMHINT_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    struct mpi_ev ev;
    MPI_Comm old = *comm; /* PMPI sets *comm to MPI_COMM_NULL */
    MPI_EV_BEGIN(&ev, CHT_MPI_COMM_FREE, old);
    mpi_ev_coll(&ev);
    MPI_EV_CALL(&ev, PMPI_Comm_free(comm));
    if (ev.ret == MPI_SUCCESS)
        mpi_comm_forget(old);
    return mpi_ev_end(&ev);
}
