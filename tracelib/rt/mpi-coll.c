/* mpi-coll.c - how each collective is described (see mpi-coll.h for how
 * the int, _c, nonblocking and persistent wrappers use these functions;
 * the wrappers are in mpi-coll-wrap.c and mpi-coll-neighbor.c).
 *
 * Every collective takes the next collective number of its communicator
 * (rec.seq), so calls match across ranks by (comm, seq).  Rooted ones record
 * the root as a world rank in rec.peer and set CHT_MPIF_ROOT on it.  Buffers
 * are recorded on the ranks that use them: Bcast's root reads (sbuf), the
 * others write (rbuf); Reduce: everyone reads sbuf, the root writes rbuf.
 * Calls with per-rank blocks (Gather(v) and Scatter(v) on the root,
 * Allgather(v) on the receive side, Alltoall(v,w) on both) are followed by
 * CHT_REC_BLOCKS records; Alltoallw's blocks each have their own datatype and
 * a displacement in bytes.  Arguments that MPI says are not significant on
 * a rank (e.g. recvtype of Gather on a non-root) are never looked at.  The
 * count, displacement and datatype arrays a call reads are recorded as
 * argument ranges (CHT_REC_ARGS), held until completion for the
 * nonblocking and persistent forms.
 *
 * Intercommunicators: the root passes MPI_ROOT and only receives (Reduce,
 * Gather) or only sends (Bcast, Scatter); its group passes MPI_PROC_NULL and
 * does nothing; per-rank blocks are per rank of the remote group.
 */
#include <limits.h>

#include "mpi-coll.h"

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

void mpi_coll_flags(struct mpi_ev *ev, const struct coll_args *a)
{
    if (a->large)
        ev->rec.flags |= CHT_MPIF_LARGE_COUNT;
}

void mpi_coll_array(struct mpi_ev *ev, const struct coll_args *a, const void *arr, int n,
                size_t size)
{
    if (n > 0)
        mpi_ev_arg(ev, arr, (size_t)n * size, 0, a->held);
}

/* The count and displacement arrays of n ranks (either may be NULL). */
static void count_arrays(struct mpi_ev *ev, const struct coll_args *a, const void *counts,
                         const void *displs, int n)
{
    mpi_coll_array(ev, a, counts, n, a->large ? sizeof(MPI_Count) : sizeof(int));
    mpi_coll_array(ev, a, displs, n, a->aint ? sizeof(MPI_Aint) : sizeof(int));
}

/* Blocks of n ranks: `count` each at consecutive places, or the arrays. */
static struct mpi_blockspec blocks(const struct coll_args *a, int n, const void *counts,
                                   const void *displs, int64_t count, MPI_Datatype type)
{
    return (struct mpi_blockspec){n, counts, displs, count, a->large, a->aint, 0, type, NULL,
                                  NULL};
}

void mpi_desc_barrier(struct mpi_ev *ev, const void *params)
{
    mpi_coll_flags(ev, params);
    mpi_ev_coll(ev);
}

void mpi_desc_bcast(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    mpi_coll_flags(ev, a);
    int r = mpi_ev_root(ev, a->root);
    if (r == 1)
        mpi_ev_buf(ev, 0, a->rbuf, a->rcount, a->rtype);
    else if (r == 0)
        mpi_ev_buf(ev, 1, a->rbuf, a->rcount, a->rtype);
}

void mpi_desc_reduce(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    mpi_coll_flags(ev, a);
    int r = mpi_ev_root(ev, a->root);
    mpi_ev_op(ev, a->op);
    if (non_root_side(ev, r))
        mpi_ev_buf(ev, 0, a->sbuf, a->scount, a->stype);
    if (r == 1)
        mpi_ev_buf(ev, 1, a->rbuf, a->scount, a->stype);
}

/* Allreduce, Scan and Exscan: every rank reads sbuf and writes rbuf. */
void mpi_desc_reduce_all(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    mpi_coll_flags(ev, a);
    mpi_ev_coll(ev);
    mpi_ev_op(ev, a->op);
    mpi_ev_buf(ev, 0, a->sbuf, a->scount, a->stype);
    mpi_ev_buf(ev, 1, a->rbuf, a->scount, a->stype);
}

void mpi_desc_reduce_scatter(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    int64_t total = 0;
    mpi_coll_flags(ev, a);
    mpi_ev_coll(ev);
    mpi_ev_op(ev, a->op);
    for (int i = 0; i < ev->cv.size; i++)
        total += mpi_count_at(a->rcounts, i, a->large);
    mpi_coll_array(ev, a, a->rcounts, ev->cv.size, a->large ? sizeof(MPI_Count) : sizeof(int));
    mpi_ev_buf(ev, 0, a->sbuf, total, a->stype);
    if (ev->cv.rank >= 0)
        mpi_ev_buf(ev, 1, a->rbuf, mpi_count_at(a->rcounts, ev->cv.rank, a->large), a->stype);
}

void mpi_desc_reduce_scatter_block(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    mpi_coll_flags(ev, a);
    mpi_ev_coll(ev);
    mpi_ev_op(ev, a->op);
    mpi_ev_buf(ev, 0, a->sbuf, a->rcount * ev->cv.size, a->stype);
    mpi_ev_buf(ev, 1, a->rbuf, a->rcount, a->stype);
}

void mpi_desc_gather(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    mpi_coll_flags(ev, a);
    int r = mpi_ev_root(ev, a->root);
    if (non_root_side(ev, r))
        mpi_ev_buf(ev, 0, a->sbuf, a->scount, a->stype);
    if (r == 1) {
        struct mpi_blockspec s = blocks(a, block_ranks(ev), NULL, NULL, a->rcount, a->rtype);
        mpi_ev_blocks(ev, 1, a->rbuf, &s);
    }
}

void mpi_desc_gatherv(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    mpi_coll_flags(ev, a);
    int r = mpi_ev_root(ev, a->root);
    if (non_root_side(ev, r))
        mpi_ev_buf(ev, 0, a->sbuf, a->scount, a->stype);
    if (r == 1) {
        struct mpi_blockspec s = blocks(a, block_ranks(ev), a->rcounts, a->rdispls, 0, a->rtype);
        mpi_ev_blocks(ev, 1, a->rbuf, &s);
        count_arrays(ev, a, a->rcounts, a->rdispls, block_ranks(ev));
    }
}

void mpi_desc_scatter(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    mpi_coll_flags(ev, a);
    int r = mpi_ev_root(ev, a->root);
    if (r == 1) {
        struct mpi_blockspec s = blocks(a, block_ranks(ev), NULL, NULL, a->scount, a->stype);
        mpi_ev_blocks(ev, 0, a->sbuf, &s);
    }
    if (non_root_side(ev, r))
        mpi_ev_buf(ev, 1, a->rbuf, a->rcount, a->rtype);
}

void mpi_desc_scatterv(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    mpi_coll_flags(ev, a);
    int r = mpi_ev_root(ev, a->root);
    if (r == 1) {
        struct mpi_blockspec s = blocks(a, block_ranks(ev), a->scounts, a->sdispls, 0, a->stype);
        mpi_ev_blocks(ev, 0, a->sbuf, &s);
        count_arrays(ev, a, a->scounts, a->sdispls, block_ranks(ev));
    }
    if (non_root_side(ev, r))
        mpi_ev_buf(ev, 1, a->rbuf, a->rcount, a->rtype);
}

void mpi_desc_allgather(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    mpi_coll_flags(ev, a);
    mpi_ev_coll(ev);
    mpi_ev_buf(ev, 0, a->sbuf, a->scount, a->stype);
    struct mpi_blockspec s = blocks(a, block_ranks(ev), NULL, NULL, a->rcount, a->rtype);
    mpi_ev_blocks(ev, 1, a->rbuf, &s);
}

void mpi_desc_allgatherv(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    mpi_coll_flags(ev, a);
    mpi_ev_coll(ev);
    mpi_ev_buf(ev, 0, a->sbuf, a->scount, a->stype);
    struct mpi_blockspec s = blocks(a, block_ranks(ev), a->rcounts, a->rdispls, 0, a->rtype);
    mpi_ev_blocks(ev, 1, a->rbuf, &s);
    count_arrays(ev, a, a->rcounts, a->rdispls, block_ranks(ev));
}

void mpi_desc_alltoall(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    mpi_coll_flags(ev, a);
    mpi_ev_coll(ev);
    struct mpi_blockspec s = blocks(a, block_ranks(ev), NULL, NULL, a->scount, a->stype);
    struct mpi_blockspec r = blocks(a, block_ranks(ev), NULL, NULL, a->rcount, a->rtype);
    mpi_ev_blocks(ev, 0, a->sbuf, &s);
    mpi_ev_blocks(ev, 1, a->rbuf, &r);
}

void mpi_desc_alltoallv(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    int n;
    mpi_coll_flags(ev, a);
    mpi_ev_coll(ev);
    n = block_ranks(ev);
    struct mpi_blockspec s = blocks(a, n, a->scounts, a->sdispls, 0, a->stype);
    struct mpi_blockspec r = blocks(a, n, a->rcounts, a->rdispls, 0, a->rtype);
    mpi_ev_blocks(ev, 0, a->sbuf, &s);
    mpi_ev_blocks(ev, 1, a->rbuf, &r);
    /* with MPI_IN_PLACE the send arrays are ignored */
    if (a->sbuf != MPI_IN_PLACE)
        count_arrays(ev, a, a->scounts, a->sdispls, n);
    count_arrays(ev, a, a->rcounts, a->rdispls, n);
}

void mpi_desc_alltoallw(struct mpi_ev *ev, const void *params)
{
    const struct coll_args *a = params;
    int n;
    mpi_coll_flags(ev, a);
    mpi_ev_coll(ev);
    n = block_ranks(ev);
    struct mpi_blockspec s = blocks(a, n, a->scounts, a->sdispls, 0, MPI_DATATYPE_NULL);
    struct mpi_blockspec r = blocks(a, n, a->rcounts, a->rdispls, 0, MPI_DATATYPE_NULL);
    s.bytes = r.bytes = 1;
    s.types = a->stypes;
    r.types = a->rtypes;
    mpi_ev_blocks(ev, 0, a->sbuf, &s);
    mpi_ev_blocks(ev, 1, a->rbuf, &r);
    if (a->sbuf != MPI_IN_PLACE) {
        count_arrays(ev, a, a->scounts, a->sdispls, n);
        mpi_coll_array(ev, a, a->stypes, n, sizeof(MPI_Datatype));
    }
    count_arrays(ev, a, a->rcounts, a->rdispls, n);
    mpi_coll_array(ev, a, a->rtypes, n, sizeof(MPI_Datatype));
}

/* ---- the nonblocking and persistent forms --------------------------------------- */

void mpi_coll_post(struct mpi_ev *ev, MPI_Request *req)
{
    mpi_ev_arg(ev, req, sizeof *req, 1, 0);
    /* not entered if it could not be described (a fence): its completion is
     * then one of an unknown request, a fence too */
    if (ev->ret != MPI_SUCCESS || ev->rec.h.aux == CHT_MPI_UNTRACED)
        return;
    struct mpi_req r = {.comm = ev->cv.id, .comm_handle = ev->comm, .handle = *req};
    ev->rec.request = mpi_req_add(*req, &r);
}

void mpi_coll_init_begin(struct mpi_ev *ev, const struct coll_args *a, MPI_Request *req)
{
    mpi_coll_flags(ev, a);
    mpi_ev_arg(ev, req, sizeof *req, 1, 0);
}

int mpi_coll_init_end(struct mpi_ev *ev, mpi_persist_fn describe, const struct coll_args *a,
                  MPI_Request *req)
{
    if (ev->ret == MPI_SUCCESS)
        mpi_persist_add(*req, (enum cht_mpi_call)ev->rec.h.aux, ev->comm, 0, describe, a,
                        sizeof *a);
    return mpi_ev_end(ev);
}
