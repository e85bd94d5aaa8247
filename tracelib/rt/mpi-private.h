/* mpi-private.h - helpers shared by the MPI wrappers (tracelib/rt/mpi-*.c).
 *
 * Every wrapper follows one pattern, so that each stays a few lines long:
 *
 *     struct mpi_ev ev;
 *     MPI_EV_BEGIN(&ev, CHT_MPI_SEND, comm);       site, return address, comm
 *     mpi_ev_send(&ev, buf, count, type, dest, tag); describe the arguments
 *     MPI_EV_CALL(&ev, PMPI_Send(...));            time exactly the PMPI call
 *     return mpi_ev_end(&ev);                      write the record(s), return
 *
 * Arguments are described before the call (so t_enter..t_exit covers only
 * PMPI) and records are reserved after it (so that code running inside PMPI,
 * such as a user reduction operator compiled with the pass, can record its own
 * events in between).  Bookkeeping - communicator ids, channel and collective
 * sequence numbers, request tables - is done whether or not the recorder is
 * recording, because some of it (the id agreement at communicator creation)
 * is collective and must run identically on every member.
 *
 * Tables (mpi-tables.c) are guarded by one mutex; no MPI call that can block
 * is ever made while holding it.
 */
#ifndef COMMHINT_MPI_PRIVATE_H
#define COMMHINT_MPI_PRIVATE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "rt-private.h"

/* Keys for rt_warn_once, so that each kind of problem is reported once. */
enum mpi_warn_key {
    MPI_WARN_CALL = RT_WARN_MPI,            /* a call could not be fully described */
    MPI_WARN_COMM = RT_WARN_MPI_COMM,       /* a communicator of unknown origin */
    MPI_WARN_REQUEST = RT_WARN_MPI_REQUEST, /* a request of unknown origin */
    MPI_WARN_SIZE = RT_WARN_MPI_SIZE        /* records too large for one reservation */
};

/* ---- datatypes ------------------------------------------------------------ */

/* Layout of a datatype (PMPI_Type_get_true_extent / _get_extent / _size). */
struct mpi_type {
    int64_t true_lb;     /* bytes from the buffer argument to the first byte touched */
    int64_t true_extent; /* bytes from the first to one past the last byte of one element */
    int64_t extent;      /* bytes between consecutive elements */
    uint32_t size;       /* bytes of data in one element */
    uint32_t code;       /* enum cht_mpi_dtype: a predefined datatype, else 0 */
};

/* Fills *t for `type`; MPI_DATATYPE_NULL (or a failing query) gives zeros. */
void mpi_type_describe(MPI_Datatype type, struct mpi_type *t);

/* Bytes spanned by `count` consecutive elements: (count - 1) * extent +
 * true extent, 0 when count <= 0. */
int64_t mpi_type_span(const struct mpi_type *t, int64_t count);

/* ---- communicators (mpi-tables.c) ------------------------------------------ */

/* What the wrappers need to know about a communicator. */
struct mpi_comm_view {
    uint64_t id;     /* CHT_COMM_WORLD, CHT_COMM_SELF, agreed id or CHT_COMM_UNKNOWN */
    int size;        /* members of the local group */
    int remote_size; /* members of the remote group, 0 for intracommunicators */
    int rank;        /* this process's rank in the local group */
    int inter;       /* 1 for an intercommunicator */
};

/* Registers MPI_COMM_WORLD and MPI_COMM_SELF; called once from the Init
 * wrappers after PMPI_Init succeeded. */
void mpi_tables_init(int world_rank, int world_size);

/* This process's rank in MPI_COMM_WORLD (-1 before Init). */
int mpi_world_rank(void);

/* Describes `comm`.  A handle the tables do not know (made by a call that is
 * not wrapped, e.g. MPI_Intercomm_create) is entered as CHT_COMM_UNKNOWN with
 * unknown world ranks, and a warning is printed once.  MPI_COMM_NULL gives
 * id CHT_COMM_UNKNOWN and size 0. */
void mpi_comm_view(MPI_Comm comm, struct mpi_comm_view *v);

/* World rank of rank `rank` of `comm`; `remote` selects the remote group of
 * an intercommunicator (ignored for intracommunicators).  CHT_RANK_NONE when
 * unknown.  `comm` must be a valid handle (it is entered if unknown). */
int32_t mpi_comm_world_rank(MPI_Comm comm, int rank, int remote);

/* Same for a handle that may have been freed since it was seen with id
 * `id`: answers only if the table still holds `comm` with that id, and never
 * calls MPI on the handle. */
int32_t mpi_comm_world_rank_if(MPI_Comm comm, uint64_t id, int rank, int remote);

/* Next collective sequence number of `comm` (from 1). */
uint64_t mpi_comm_coll_next(MPI_Comm comm);

/* A communicator just created by a wrapped call, as recorded in CHT_REC_COMM. */
struct mpi_comm_new {
    struct mpi_comm_view v;
    const int32_t *world; /* v.size + v.remote_size world ranks; borrowed from the
                             table, valid until the communicator is freed */
};

/* Enters `newcomm` (not MPI_COMM_NULL) in the table: translates its members
 * to world ranks and agrees on its id with the other members.  Collective
 * over `newcomm` (one or two PMPI_Bcast on it).  Fills *out.  On failure (no
 * memory, untranslatable members) the communicator is entered as
 * CHT_COMM_UNKNOWN and out->world is NULL. */
void mpi_comm_register(MPI_Comm newcomm, struct mpi_comm_new *out);

/* Drops `comm` from the table (after MPI_Comm_free). */
void mpi_comm_forget(MPI_Comm comm);

/* ---- channels and requests (mpi-tables.c) ---------------------------------- */

enum mpi_dir { MPI_DIR_SEND = 0, MPI_DIR_RECV = 1 };

/* Next sequence number (from 1) of the channel (comm_id, peer, tag) in
 * direction `dir`, where peer is the other side's rank in the communicator
 * (the remote group for an intercommunicator).  See mpi-tables.c for what
 * wildcard receives can get wrong. */
uint64_t mpi_chan_next(uint64_t comm_id, int peer, int tag, enum mpi_dir dir);

/* Gives number `seq` of the channel back (a cancelled send or receive that
 * took it moved no message), so that the next one takes it again.  Only the
 * latest number can be given back: returns 1 if it was, 0 if later ones were
 * taken since (their numbers then stay one off: the caller warns). */
int mpi_chan_give_back(uint64_t comm_id, int peer, int tag, enum mpi_dir dir, uint64_t seq);

/* What a request handle stood for when it was posted. */
struct mpi_req {
    uint64_t id;        /* request id (per rank, from 1); 0 = MPI_REQUEST_NULL or unknown */
    uint64_t comm;      /* communicator id */
    uint64_t rseq;      /* receive with specific source and tag: its sequence number;
                           0 for a wildcard receive (numbered at completion) */
    MPI_Comm comm_handle; /* to translate the status source at completion */
    MPI_Request handle;   /* the handle it was entered under */
    int is_recv;
    int proc_null;        /* receive from MPI_PROC_NULL: its status is not read */
    int persistent;       /* a start of a persistent request: its handle stays valid
                             (inactive) when it completes */
    /* appended for MPI_Cancel (zero in requests that do not set them) */
    int numbered;         /* 1: a channel number was taken at posting - seq for a send,
                             rseq for a receive - on channel (chan_peer, chan_tag) of comm */
    int chan_peer, chan_tag; /* peer's rank in the communicator, tag */
    uint64_t seq;         /* send: its channel number */
    int cancel;           /* MPI_Cancel was called on it */
    /* appended for MPI_Isendrecv, whose status MPICH 4.0 leaves unfilled */
    int no_status;        /* a receive whose completion's status is not read: a posted
                             source and tag stand for it (none for a wildcard) */
    int32_t posted_source, posted_tag; /* world rank or CHT_RANK_ANY, tag or CHT_TAG_ANY */
    uint64_t posted_bytes;             /* the posted extent */
};

/* Enters the request `h` just returned by a nonblocking call; assigns and
 * returns its id.  Handle values need not be unique: MPICH returns one
 * builtin handle for every request that completed when it was posted (all
 * such sends share one value, all such receives another), so a handle may
 * stand for several outstanding requests; they are kept oldest first. */
uint64_t mpi_req_add(MPI_Request h, const struct mpi_req *r);

/* Takes the oldest request entered under `h` out of the table, before a
 * completion call.  *out gets id 0 for MPI_REQUEST_NULL and for handles
 * never entered (persistent or generalized requests; warned about once). */
void mpi_req_take(MPI_Request h, struct mpi_req *out);

/* Puts back a request taken by mpi_req_take that did not complete, ahead
 * of any others under its handle (put several back newest first). */
void mpi_req_put_back(const struct mpi_req *r);

/* ---- persistent requests (mpi-persist.c) ------------------------------------ */

struct mpi_ev;

/* Describes one start of a persistent request into ev (already begun with
 * the init call's id and communicator): buffers, peers and numbering, as the
 * matching nonblocking call's wrapper would (mpi_ev_send, mpi_ev_recv,
 * mpi_ev_coll + mpi_ev_blocks, held argument ranges...).  `params` is the
 * copy of what the init wrapper passed to mpi_persist_add. */
typedef void (*mpi_persist_fn)(struct mpi_ev *ev, const void *params);

/* Remembers the persistent request `h` just made by a wrapped *_init call
 * (`call`, on `comm`): each MPI_Start / MPI_Startall of it records one
 * CHT_MPIF_STARTED record under `call`, described by `describe` from a copy
 * of the `size` bytes at `params` (pointers in them must stay valid while the
 * request exists, as MPI requires of the init's arguments).  `is_recv`: the
 * request receives (its completion reads a status).  Returns 0, or -1 if it
 * could not be remembered (out of memory: then its starts are fences). */
int mpi_persist_add(MPI_Request h, enum cht_mpi_call call, MPI_Comm comm, int is_recv,
                    mpi_persist_fn describe, const void *params, size_t size);

/* Whether `h` is a persistent request a wrapped init made (active or not). */
int mpi_persist_known(MPI_Request h);

/* Forgets `h` (after MPI_Request_free freed it). */
void mpi_persist_forget(MPI_Request h);

/* Forgets the partitioned request `h` (after MPI_Request_free freed it);
 * nothing if it is not one.  (mpi-partitioned.c) */
void mpi_part_forget(MPI_Request h);

/* ---- building MPI records (mpi-record.c) ---------------------------------- */

/* Per-rank (or per-neighbour) blocks of one buffer of a collective, as the
 * call's arguments give them (mpi_ev_blocks). */
struct mpi_blockspec {
    int n;                  /* blocks */
    const void *counts;     /* n element counts (int, or MPI_Count if `large`), or NULL:
                               `count` each */
    const void *displs;     /* n displacements (int, or MPI_Aint if `aint`), or NULL:
                               block i at i * count extents */
    int64_t count;
    int large;              /* counts are MPI_Count */
    int aint;               /* displs are MPI_Aint */
    int bytes;              /* displs are in bytes (Alltoallw), else in extents */
    MPI_Datatype type;      /* the type of every block, unless `types` */
    const MPI_Datatype *types; /* n per-block types (Alltoallw), or NULL */
    const int *peers;       /* n peers: a block whose peer is MPI_PROC_NULL moves no
                               bytes (neighbourhood collectives); NULL: all move */
};

/* The blocks of one side as they will be written (CHT_REC_BLOCKS): computed
 * by mpi_ev_blocks, freed by mpi_ev_end. */
struct mpi_blocks {
    uint32_t n;             /* 0 = this side has no per-rank blocks */
    struct cht_block *blk;  /* n blocks, offsets from the side's buffer address */
};

/* Ranges of other arguments one call records (status, arrays, handles). */
#define MPI_ARGS_MAX 8

/* One MPI call being recorded. */
struct mpi_ev {
    struct cht_rec_mpi rec;   /* the record, filled in as the call is described */
    struct mpi_comm_view cv;  /* the call's communicator */
    MPI_Comm comm;            /* its handle (MPI_COMM_NULL if the call has none) */
    int ret;                  /* what PMPI returned */
    int counted;              /* rec.count / rec.datatype already set */
    int is_coll;              /* a collective: rec.tag gets dtype (mpi_ev_reserve) */
    uint32_t dtype;           /* enum cht_mpi_dtype of the first buffer described */
    struct mpi_blocks blocks[2]; /* index 0 = send side, 1 = receive side */
    /* other memory the call touches (CHT_REC_ARGS): [0] during the call,
     * [1] held until its request completes */
    struct cht_range args[2][MPI_ARGS_MAX];
    int nargs[2];
    uint64_t cpu[2];          /* thread CPU time at entry and exit (CHT_REC_CPU), 0: none */
    uint32_t npath;           /* frames in path (CHT_REC_PATH), 0: none */
    uint64_t path[CHT_PATH_MAX];
};

/* Set at MPI_Init when the host has more ranks than the rank has CPUs:
 * calls then also record their thread CPU time (CHT_REC_CPU). */
extern int mpi_cpu_times;

/* Starts recording a call: clears the record, takes the pending call site
 * and looks up `comm` (MPI_COMM_NULL for calls without one).  Must be called
 * from the wrapper itself so that the return address is the user's. */
#define MPI_EV_BEGIN(ev, call, comm) \
    mpi_ev_begin((ev), (call), (comm), __builtin_return_address(0))
void mpi_ev_begin(struct mpi_ev *ev, enum cht_mpi_call call, MPI_Comm comm,
                  void *ret_addr);
/* The same for a record that belongs to a call already begun as `first`
 * (one record per request MPI_Startall starts): same site and return
 * address, no pending site taken. */
void mpi_ev_begin_as(struct mpi_ev *ev, enum cht_mpi_call call, MPI_Comm comm,
                     const struct mpi_ev *first);

/* Sets the communicator of a call that names none itself (MPI_Mrecv's
 * comes from its message, MPI_Pready's from its request) from a view taken
 * earlier, without calling MPI on the handle. */
void mpi_ev_comm_as(struct mpi_ev *ev, MPI_Comm comm, const struct mpi_comm_view *cv);

/* Runs the PMPI call `call` between the two timestamps and keeps its
 * return code in ev->ret. */
#define MPI_EV_CALL(ev, call)                 \
    do {                                      \
        if (mpi_cpu_times)                    \
            (ev)->cpu[0] = rt_cpu_ns();       \
        (ev)->rec.t_enter = rt_now_ns();      \
        (ev)->ret = (call);                   \
        (ev)->rec.t_exit = rt_now_ns();       \
        if (mpi_cpu_times)                    \
            (ev)->cpu[1] = rt_cpu_ns();       \
    } while (0)

/* Send buffer / receive buffer of `count` elements of `type`.  MPI_IN_PLACE
 * sets the IN_PLACE flag instead.  The first buffer described sets
 * rec.count and rec.datatype. */
void mpi_ev_sbuf(struct mpi_ev *ev, const void *buf, int count, MPI_Datatype type);
void mpi_ev_rbuf(struct mpi_ev *ev, const void *buf, int count, MPI_Datatype type);

/* The same for either side (0 = send, 1 = receive) with a large count
 * (clamped to INT32_MAX in rec.count; the bytes are exact). */
void mpi_ev_buf(struct mpi_ev *ev, int side, const void *buf, MPI_Count count,
                MPI_Datatype type);

/* One side (0 = send, 1 = receive) of a collective with per-rank blocks
 * described by *s.  Sets the side's buffer to the bytes the non-empty
 * blocks cover and computes the blocks for mpi_ev_end (if they cannot be
 * allocated, the record goes without them: the analysis then takes the
 * whole buffer, a warning is printed once).  MPI_IN_PLACE sets the side's
 * IN_PLACE flag and no blocks.  The first buffer described sets rec.count
 * (the first block's count, clamped) and rec.datatype. */
void mpi_ev_blocks(struct mpi_ev *ev, int side, const void *buf,
                   const struct mpi_blockspec *s);

/* Element i of an int or MPI_Count array / an int or MPI_Aint array. */
static inline int64_t mpi_count_at(const void *a, int i, int large)
{
    return large ? (int64_t)((const MPI_Count *)a)[i] : (int64_t)((const int *)a)[i];
}
static inline int64_t mpi_displ_at(const void *a, int i, int aint)
{
    return aint ? (int64_t)((const MPI_Aint *)a)[i] : (int64_t)((const int *)a)[i];
}

/* Point to point: a send to `dest` (rank in ev's communicator) numbered on
 * its channel; a receive or probe from `source` (receives with specific
 * source and tag are numbered now, others by mpi_ev_status). */
void mpi_ev_send(struct mpi_ev *ev, const void *buf, int count, MPI_Datatype type,
                 int dest, int tag);
void mpi_ev_recv(struct mpi_ev *ev, void *buf, int count, MPI_Datatype type,
                 int source, int tag);
void mpi_ev_probe(struct mpi_ev *ev, int source, int tag);

/* The same with an MPI_Count (the MPI-4 large-count _c calls): byte fields
 * exact, rec.count clamped into int32 (the wrapper sets
 * CHT_MPIF_LARGE_COUNT). */
void mpi_ev_sbuf_c(struct mpi_ev *ev, const void *buf, MPI_Count count, MPI_Datatype type);
void mpi_ev_rbuf_c(struct mpi_ev *ev, const void *buf, MPI_Count count, MPI_Datatype type);
void mpi_ev_send_c(struct mpi_ev *ev, const void *buf, MPI_Count count, MPI_Datatype type,
                   int dest, int tag);
void mpi_ev_recv_c(struct mpi_ev *ev, void *buf, MPI_Count count, MPI_Datatype type,
                   int source, int tag);

/* After a successful receive or probe: fills st_* from *st and, if `consume`
 * and the receive was not numbered at posting, numbers it on the channel its
 * status names.  A receive posted from MPI_PROC_NULL gets st_source
 * CHT_RANK_PROC_NULL without reading *st (MPICH 4.0 leaves source 0, tag 0
 * in the status of such a nonblocking receive). */
void mpi_ev_status(struct mpi_ev *ev, const MPI_Status *st, int consume);

/* What mpi_ev_request enters: a send, a receive, or a receive whose
 * completion MPI gives no status for (MPI_Isendrecv in MPICH 4.0). */
enum { MPI_REQ_SEND = 0, MPI_REQ_RECV = 1, MPI_REQ_RECV_NO_STATUS = 2 };

/* Enters the request a nonblocking point-to-point call (described in ev)
 * returned, if the call succeeded, and records its handle as written.
 * `kind` is one of MPI_REQ_*.
 * `peer` (rank in ev's communicator) and `tag` name the channel the call
 * numbered its message on (the receive's, for Isendrecv), for MPI_Cancel;
 * peer < 0: none (a wildcard or MPI_PROC_NULL, or a matched receive, whose
 * number the probe took).  (mpi-p2p.c) */
void mpi_ev_request(struct mpi_ev *ev, MPI_Request *req, int kind, int peer, int tag);

/* Status of a completed receive on communicator (comm_id, comm): world
 * source, tag, bytes; *rseq is numbered from the status if it is 0 and
 * `consume` is set.  st NULL stands for a receive from MPI_PROC_NULL.
 * Returns 0 if the status names no message (MPI_PROC_NULL). */
int mpi_status_read(uint64_t comm_id, MPI_Comm comm, const MPI_Status *st, int consume,
                    int32_t *source, int32_t *tag, uint64_t *bytes, uint64_t *rseq);

/* Collectives: takes the communicator's next collective number; for rooted
 * ones also records the root.  mpi_ev_root returns 1 if this rank is the
 * root, 0 if not, -1 if it takes no part (MPI_PROC_NULL in an
 * intercommunicator collective). */
void mpi_ev_coll(struct mpi_ev *ev);
int mpi_ev_root(struct mpi_ev *ev, int root);

/* Reduction operator. */
void mpi_ev_op(struct mpi_ev *ev, MPI_Op op);

/* Memory the call touches through another argument: `len` bytes at
 * `addr`, written or read, touched during the call or (`held`) until its
 * request completes.  NULL, MPI_STATUS(ES)_IGNORE and len 0 are left out. */
void mpi_ev_arg(struct mpi_ev *ev, const void *addr, size_t len, int write, int held);

/* The status argument of a call that fills one (written, if not ignored). */
static inline void mpi_ev_status_arg(struct mpi_ev *ev, const MPI_Status *user)
{
    if (user != MPI_STATUS_IGNORE)
        mpi_ev_arg(ev, user, sizeof(MPI_Status), 1, 0);
}

/* Bytes of the CHT_REC_ARGS records of ev (and of its CHT_REC_CPU record),
 * and writes them at p (returns the end). */
size_t mpi_ev_args_size(const struct mpi_ev *ev);
char *mpi_ev_args_write(const struct mpi_ev *ev, char *p);

/* Reserves space for the MPI record plus `extra` bytes of records that
 * follow it in the same chunk, writes the MPI record (setting ERROR from
 * ev->ret) and returns the space after it, or NULL if nothing is recorded
 * (then do not commit).  Finish with rt_commit(sizeof(struct cht_rec_mpi) +
 * extra). */
void *mpi_ev_reserve(struct mpi_ev *ev, size_t extra);

/* Writes the MPI record and the blocks described with mpi_ev_blocks (the
 * record alone, with a warning, if they do not fit); returns ev->ret. */
int mpi_ev_end(struct mpi_ev *ev);

/* Largest group of records one rt_reserve may take. */
#define MPI_RESERVE_MAX (64u << 10)

/* Rounds up to a multiple of 8. */
static inline size_t mpi_pad8(size_t n) { return (n + 7) & ~(size_t)7; }

#endif /* COMMHINT_MPI_PRIVATE_H */
