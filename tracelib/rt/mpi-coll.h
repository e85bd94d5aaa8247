/* mpi-coll.h - what the collective wrappers share (mpi-coll*.c).
 *
 * Each collective is described once, by a describe function that does
 * what its wrapper does before PMPI: take the communicator's next
 * collective number (and the root), describe the buffers and per-rank
 * blocks, and the count, displacement and datatype arrays the call reads.
 * The function gets the call's arguments in one struct coll_args, in their
 * widest form (MPI_Count counts, MPI_Aint displacements), so that the int
 * form, the large-count `_c` form, the nonblocking `I` form and each start
 * of the persistent `_init` form of a collective all use it:
 *
 *   blocking     describe, PMPI, record                         (COLL_BLOCKING)
 *   nonblocking  describe, PMPI, enter the request, record      (COLL_NONBLOCKING)
 *                (arrays are held until the request completes)
 *   persistent   record the init with its request handle only, and leave the
 *                describe function and a copy of the arguments with
 *                mpi_persist_add, which describes every MPI_Start of the
 *                request as the nonblocking call           (COLL_PERSISTENT)
 *
 * Numbering: a nonblocking collective takes its communicator's next
 * collective number when it is called, a persistent one at each start.  MPI
 * orders every collective of a communicator - blocking, nonblocking, and
 * (MPI-4.0 section 6.13) the starts of persistent collectives - the same
 * way on all members, so (comm, number) names one collective instance on
 * every rank.
 */
#ifndef COMMHINT_MPI_COLL_H
#define COMMHINT_MPI_COLL_H

#include "mpi-private.h"

/* The arguments of one collective call, widest form. */
struct coll_args {
    const void *sbuf;
    void *rbuf;
    int64_t scount, rcount;
    const void *scounts, *sdispls; /* per-rank arrays (see large / aint) */
    const void *rcounts, *rdispls;
    MPI_Datatype stype, rtype;
    const MPI_Datatype *stypes, *rtypes; /* Alltoallw */
    MPI_Op op;
    int root;
    unsigned char large; /* the _c form: count arrays are MPI_Count, displacements MPI_Aint */
    unsigned char aint;  /* displacement arrays are MPI_Aint (the _c forms, and
                            Neighbor_alltoallw in both forms) */
    unsigned char held;  /* nonblocking or persistent: arrays are held until completion */
};

/* The describe functions (mpi_persist_fn: params is a struct coll_args). */
void mpi_desc_barrier(struct mpi_ev *ev, const void *params);
void mpi_desc_bcast(struct mpi_ev *ev, const void *params);
void mpi_desc_reduce(struct mpi_ev *ev, const void *params);
void mpi_desc_reduce_all(struct mpi_ev *ev, const void *params); /* Allreduce, Scan, Exscan */
void mpi_desc_gather(struct mpi_ev *ev, const void *params);
void mpi_desc_gatherv(struct mpi_ev *ev, const void *params);
void mpi_desc_scatter(struct mpi_ev *ev, const void *params);
void mpi_desc_scatterv(struct mpi_ev *ev, const void *params);
void mpi_desc_allgather(struct mpi_ev *ev, const void *params);
void mpi_desc_allgatherv(struct mpi_ev *ev, const void *params);
void mpi_desc_alltoall(struct mpi_ev *ev, const void *params);
void mpi_desc_alltoallv(struct mpi_ev *ev, const void *params);
void mpi_desc_alltoallw(struct mpi_ev *ev, const void *params);
void mpi_desc_reduce_scatter(struct mpi_ev *ev, const void *params);
void mpi_desc_reduce_scatter_block(struct mpi_ev *ev, const void *params);
/* neighbourhood collectives (mpi-coll-neighbor.c) */
void mpi_desc_neighbor_allgather(struct mpi_ev *ev, const void *params);
void mpi_desc_neighbor_allgatherv(struct mpi_ev *ev, const void *params);
void mpi_desc_neighbor_alltoall(struct mpi_ev *ev, const void *params);
void mpi_desc_neighbor_alltoallv(struct mpi_ev *ev, const void *params);
void mpi_desc_neighbor_alltoallw(struct mpi_ev *ev, const void *params);

/* Common part of every describe function: the LARGE_COUNT flag. */
void mpi_coll_flags(struct mpi_ev *ev, const struct coll_args *a);

/* An array of n elements of `size` bytes the call reads (held or not). */
void mpi_coll_array(struct mpi_ev *ev, const struct coll_args *a, const void *arr, int n,
                size_t size);

/* After PMPI of a nonblocking collective: the request handle it wrote, and
 * the request entered (if the call succeeded and was described). */
void mpi_coll_post(struct mpi_ev *ev, MPI_Request *req);

/* Before PMPI of a persistent init: the request handle it writes. After it:
 * remembers the request for its starts and writes the init's record. */
void mpi_coll_init_begin(struct mpi_ev *ev, const struct coll_args *a, MPI_Request *req);
int mpi_coll_init_end(struct mpi_ev *ev, mpi_persist_fn describe, const struct coll_args *a,
                  MPI_Request *req);

/* The bodies of the three forms.  MPI_EV_BEGIN must expand in the wrapper
 * itself (its return address is the user's).  ARGS is a parenthesised
 * compound literal of struct coll_args. */
#define COLL_BLOCKING(CALL, COMM, DESCRIBE, ARGS, PMPI)  \
    do {                                                 \
        struct coll_args a_ = ARGS;                      \
        struct mpi_ev ev_;                               \
        MPI_EV_BEGIN(&ev_, CALL, COMM);                  \
        DESCRIBE(&ev_, &a_);                             \
        MPI_EV_CALL(&ev_, PMPI);                         \
        return mpi_ev_end(&ev_);                         \
    } while (0)

#define COLL_NONBLOCKING(CALL, COMM, DESCRIBE, ARGS, REQ, PMPI) \
    do {                                                        \
        struct coll_args a_ = ARGS;                             \
        struct mpi_ev ev_;                                      \
        a_.held = 1;                                            \
        MPI_EV_BEGIN(&ev_, CALL, COMM);                         \
        DESCRIBE(&ev_, &a_);                                    \
        MPI_EV_CALL(&ev_, PMPI);                                \
        mpi_coll_post(&ev_, REQ);                                   \
        return mpi_ev_end(&ev_);                                \
    } while (0)

#define COLL_PERSISTENT(CALL, COMM, DESCRIBE, ARGS, REQ, PMPI) \
    do {                                                       \
        struct coll_args a_ = ARGS;                            \
        struct mpi_ev ev_;                                     \
        a_.held = 1;                                           \
        MPI_EV_BEGIN(&ev_, CALL, COMM);                        \
        mpi_coll_init_begin(&ev_, &a_, REQ);                       \
        MPI_EV_CALL(&ev_, PMPI);                               \
        return mpi_coll_init_end(&ev_, DESCRIBE, &a_, REQ);        \
    } while (0)

/* The blocking, nonblocking and persistent wrappers of one collective.
 * NAME/INAME: the MPI names without "MPI_" (Bcast / Ibcast), S: "" or "_c",
 * PARAMS: the blocking form's parameters, ARGS: them as a struct coll_args, then
 * their names (for the PMPI call). */
#define FORMS(NAME, INAME, S, CALL, ICALL, INITCALL, DESCRIBE, PARAMS, ARGS, ...)            \
    COMMHINT_EXPORT int MPI_##NAME##S(PARAMS)                                                 \
    {                                                                                         \
        COLL_BLOCKING(CALL, comm, DESCRIBE, ARGS, PMPI_##NAME##S(__VA_ARGS__));                     \
    }                                                                                         \
    COMMHINT_EXPORT int MPI_##INAME##S(PARAMS, MPI_Request *request)                          \
    {                                                                                         \
        COLL_NONBLOCKING(ICALL, comm, DESCRIBE, ARGS, request,                                \
                         PMPI_##INAME##S(__VA_ARGS__, request));                                    \
    }                                                                                         \
    COMMHINT_EXPORT int MPI_##NAME##_init##S(PARAMS, MPI_Info info, MPI_Request *request)     \
    {                                                                                         \
        COLL_PERSISTENT(INITCALL, comm, DESCRIBE, ARGS, request,                              \
                        PMPI_##NAME##_init##S(__VA_ARGS__, info, request));                         \
    }

#define COLL_ARGS(...) ((struct coll_args){__VA_ARGS__})

#endif /* COMMHINT_MPI_COLL_H */
