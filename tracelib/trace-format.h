/* trace-format.h - the on-disk format of commhint traces.
 *
 * One dependency-free header (C11 or C++ and <stdint.h> only) shared by the
 * Clang pass (which serialises site tables), the trace writer in tracelib/rt
 * and the readers in tracelib/reader.  docs/trace-format.md explains it in
 * prose; this file is the normative layout.  Every on-disk struct has its
 * size frozen with a static assertion: changing one is a format change and
 * needs CHT_FORMAT_VERSION (and possibly CHT_FORMAT_OLDEST) to move.
 *
 * A trace is a directory holding
 *   commhint.meta        file header + chunks of metadata records
 *   rank-NNNNN.chtr      file header + chunks of event records, one per rank
 * Both files are a 64-byte cht_file_header followed by chunks.  A chunk is a
 * 32-byte cht_chunk_header followed by stored_size bytes: one zstd frame
 * (with content checksum) that decompresses to raw_size bytes of records.
 * Records are 8-byte aligned, each starting with an 8-byte cht_rec giving its
 * type and total size, so a reader can skip types it does not know.
 * All integers are in the writer's byte order, recorded in byte_order;
 * readers reject files whose order differs from theirs.
 */
#ifndef COMMHINT_TRACE_FORMAT_H
#define COMMHINT_TRACE_FORMAT_H

#include <stdint.h>

#ifdef __cplusplus
#define CHT_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define CHT_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* ---- versions, names ---------------------------------------------------- */

#define CHT_FORMAT_VERSION 10 /* version this header describes */
#define CHT_FORMAT_OLDEST 10  /* oldest reader version that can read files of this one
                                (version 2 added CHT_REC_REPEAT, which a version-1
                                reader would skip, losing events; version 3 added
                                CHT_REC_ARGS, which a version-2 reader skips,
                                losing only what calls touch besides their
                                buffers; version 4 gave the reserved field of the
                                site table header a meaning (costs_off, site table
                                version 3), whose tables a version-3 reader
                                refuses; version 5 added CHT_REC_CPU and the
                                clock record's host fields, which a version-4
                                reader skips; version 6 added CHT_REC_PATH,
                                which older readers skip, losing only the
                                call paths; version 7 gave the file header's
                                file_id and the chunk header's file_tag a
                                meaning, which older readers ignore; version 8
                                added CHT_REC_REPEAT_COL, which a version-7
                                reader would skip, losing events; version 9
                                added CHT_REC_PACK, likewise; version 10
                                added CHT_REC_ROWS, likewise); readers
                                still read version-1 to -9 files */

#define CHT_META_FILE "commhint.meta"
#define CHT_RANK_FILE_FMT "rank-%05d.chtr" /* printf format, world rank */

#define CHT_MAGIC_META "CHTMETA"  /* 8 bytes with the NUL */
#define CHT_MAGIC_RANK "CHTRANK"  /* 8 bytes with the NUL */
#define CHT_BYTE_ORDER_MARK 0x0102u /* stored natively; reads back 0x0201 if swapped */

#define CHT_NONE 0xffffffffu /* "no site / no loop / no string" in 32-bit ids */

/* Feature bits in cht_file_header.features.  A reader that meets a bit it
 * does not know in CHT_FEATURES_REQUIRED_MASK must refuse the file; other
 * bits only announce optional content. */
enum cht_feature {
    CHT_FEAT_ZSTD = 1u << 0,       /* chunk payloads are zstd frames */
    CHT_FEAT_SITES = 1u << 1,      /* program was built with the pass */
    CHT_FEAT_THREADS = 1u << 2,    /* more than one thread wrote events */
};
#define CHT_FEATURES_REQUIRED_MASK 0x00000000ffff0000ull

/* ---- file and chunk headers --------------------------------------------- */

struct cht_file_header {
    char magic[8];           /* CHT_MAGIC_META or CHT_MAGIC_RANK */
    uint16_t version;        /* CHT_FORMAT_VERSION of the writer */
    uint16_t oldest_version; /* oldest reader version that can read this */
    uint16_t header_size;    /* bytes; 64 for version 1; chunks start here */
    uint16_t byte_order;     /* CHT_BYTE_ORDER_MARK as written */
    uint64_t features;       /* enum cht_feature bits */
    uint64_t run_id;         /* random id shared by every file of one run */
    int32_t rank;            /* world rank, -1 in the meta file */
    int32_t world_size;      /* ranks in MPI_COMM_WORLD, 0 if unknown */
    uint32_t compression;    /* 1 = zstd */
    uint32_t reserved0;
    uint64_t created_ns;     /* CLOCK_REALTIME when the file was created, ns */
    uint64_t file_id;        /* random, never 0, fixed when the file is created;
                                every chunk carries its low 32 bits (version 7
                                on; 0 before: no check) */
};
CHT_STATIC_ASSERT(sizeof(struct cht_file_header) == 64, "file header is 64 bytes");

#define CHT_COMPRESSION_ZSTD 1u

#define CHT_CHUNK_MAGIC 0x4b434843u /* "CHCK" read as little-endian bytes */

struct cht_chunk_header {
    uint32_t magic;       /* CHT_CHUNK_MAGIC */
    uint16_t header_size; /* bytes; 32 for version 1 */
    uint16_t flags;       /* reserved, 0 */
    uint32_t stored_size; /* bytes of payload following this header */
    uint32_t raw_size;    /* bytes of records after decompression, multiple of 8 */
    uint32_t thread;      /* index of the writing thread within the rank, 0 = first */
    uint32_t file_tag;    /* low 32 bits of the file header's file_id (version 7
                             on): a chunk copied from another file (another rank,
                             another run) is caught */
    uint64_t seq;         /* chunk number within the file, from 0, no gaps */
};
CHT_STATIC_ASSERT(sizeof(struct cht_chunk_header) == 32, "chunk header is 32 bytes");

#define CHT_CHUNK_MAX_RAW (64u << 20)    /* readers reject larger raw_size */
#define CHT_CHUNK_MAX_STORED (80u << 20) /* readers reject larger stored_size */

/* ---- records ------------------------------------------------------------ */

/* Every record starts with this.  size counts the header too, is a multiple
 * of 8 and at least 8; a record never crosses a chunk. */
struct cht_rec {
    uint16_t type; /* enum cht_rec_type */
    uint16_t aux;  /* meaning depends on type */
    uint32_t size; /* bytes, header included */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec) == 8, "record header is 8 bytes");

enum cht_rec_type {
    /* rank streams */
    CHT_REC_COMP = 1,       /* computation event, shape from the site table */
    CHT_REC_RANGES = 2,     /* computation event with explicit ranges (memcpy...) */
    CHT_REC_LOOP = 3,       /* loop entry / iteration / exit, aux = enum cht_loop_kind */
    CHT_REC_MPI = 4,        /* MPI call, aux = enum cht_mpi_call */
    CHT_REC_COMPLETE = 5,   /* one request completed by the preceding MPI record */
    CHT_REC_BLOCKS = 6,     /* per-rank blocks of the preceding v-collective */
    CHT_REC_COMM = 7,       /* a communicator was created */
    CHT_REC_MODULE = 8,     /* a loaded object (executable or shared library) */
    CHT_REC_TU = 9,         /* a translation unit's id ranges in this process */
    CHT_REC_CLOCK = 10,     /* clock sample at MPI_Init / MPI_Finalize */
    CHT_REC_LOST = 11,      /* events dropped by the writer */
    CHT_REC_END = 12,       /* clean end of the stream: last record of the file */
    CHT_REC_REPEAT = 13,    /* stands for records that repeat earlier ones with strides (v2) */
    CHT_REC_ARGS = 14,      /* memory the preceding MPI call touches besides its buffers (v3) */
    CHT_REC_CALLNAME = 15,  /* the function an UNTRACED MPI record stands for (v3) */
    CHT_REC_CPU = 16,       /* thread CPU time around the preceding MPI call (v5) */
    CHT_REC_PATH = 17,      /* the call path of the preceding MPI call (v6) */
    CHT_REC_REPEAT_COL = 18, /* a REPEAT whose irregular addresses come from a column (v8) */
    CHT_REC_PACK = 19,      /* COMP/LOOP records coded against per-record predictions (v9) */
    CHT_REC_ROWS = 20,      /* the records of the rows of a loop nest (v10) */
    /* meta file (SITE_TABLE also in a rank stream for late-loaded code) */
    CHT_REC_PROGRAM = 32,   /* program path, build id, argv */
    CHT_REC_SITE_TABLE = 33 /* one translation unit's site table blob */
};

/* CHT_REC_COMP: aux = number of addresses.  The site's access list in the
 * site table gives, in order, the size and direction of each address. */
struct cht_rec_comp {
    struct cht_rec h;
    uint32_t site;     /* global site id */
    uint32_t reserved; /* 0; in a validation run (COMMHINT_STMT_CLOCK=1, no REPEAT
                          records) a stamp of when the record was made: the low 32
                          bits of the x86 time-stamp counter (of CLOCK_MONOTONIC ns
                          on other machines); only differences mean something */
    /* uint64_t addr[h.aux]; */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_comp) == 16, "comp record is 16 bytes + addresses");

/* CHT_REC_RANGES: aux = number of ranges. */
struct cht_range {
    uint64_t addr;
    uint64_t len; /* bytes in the low 63 bits; bit 63 set = written, clear = read */
};
#define CHT_RANGE_WRITE (1ull << 63)
#define CHT_RANGE_LEN_MASK (CHT_RANGE_WRITE - 1)
CHT_STATIC_ASSERT(sizeof(struct cht_range) == 16, "range is 16 bytes");

struct cht_rec_ranges {
    struct cht_rec h;
    uint32_t site;
    uint32_t reserved; /* as in cht_rec_comp */
    /* struct cht_range range[h.aux]; */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_ranges) == 16, "ranges record is 16 bytes + ranges");

/* CHT_REC_LOOP: aux = kind.  ENTER pushes the loop with iteration 0, ITER
 * (emitted at the loop header) adds one to the innermost instance of the loop,
 * EXIT pops everything down to and including the innermost instance of the
 * loop.  An ITER of a loop that is not on the stack pushes it with iteration
 * 1; an EXIT of a loop that is not on the stack is ignored. */
enum cht_loop_kind { CHT_LOOP_ENTER = 1, CHT_LOOP_ITER = 2, CHT_LOOP_EXIT = 3 };

struct cht_rec_loop {
    struct cht_rec h;
    uint32_t loop; /* global loop id */
    uint32_t reserved;
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_loop) == 16, "loop record is 16 bytes");

/* ---- MPI events ---------------------------------------------------------- */

enum cht_mpi_call {
    CHT_MPI_UNKNOWN = 0,
    /* point to point */
    CHT_MPI_SEND = 1, CHT_MPI_SSEND, CHT_MPI_BSEND, CHT_MPI_RSEND, CHT_MPI_RECV,
    CHT_MPI_ISEND, CHT_MPI_ISSEND, CHT_MPI_IBSEND, CHT_MPI_IRSEND, CHT_MPI_IRECV,
    CHT_MPI_SENDRECV, CHT_MPI_SENDRECV_REPLACE, CHT_MPI_PROBE, CHT_MPI_IPROBE,
    /* completion */
    CHT_MPI_WAIT = 20, CHT_MPI_WAITALL, CHT_MPI_WAITANY, CHT_MPI_WAITSOME,
    CHT_MPI_TEST, CHT_MPI_TESTALL, CHT_MPI_TESTANY, CHT_MPI_TESTSOME,
    CHT_MPI_REQUEST_FREE, CHT_MPI_CANCEL,
    /* collectives */
    CHT_MPI_BARRIER = 40, CHT_MPI_BCAST, CHT_MPI_REDUCE, CHT_MPI_ALLREDUCE,
    CHT_MPI_GATHER, CHT_MPI_GATHERV, CHT_MPI_SCATTER, CHT_MPI_SCATTERV,
    CHT_MPI_ALLGATHER, CHT_MPI_ALLGATHERV, CHT_MPI_ALLTOALL, CHT_MPI_ALLTOALLV,
    CHT_MPI_REDUCE_SCATTER, CHT_MPI_REDUCE_SCATTER_BLOCK, CHT_MPI_SCAN, CHT_MPI_EXSCAN,
    /* communicators and the environment */
    CHT_MPI_COMM_DUP = 70, CHT_MPI_COMM_SPLIT, CHT_MPI_COMM_CREATE, CHT_MPI_COMM_FREE,
    CHT_MPI_CART_CREATE, CHT_MPI_CART_SUB, CHT_MPI_COMM_SPLIT_TYPE, CHT_MPI_INTERCOMM_CREATE,
    CHT_MPI_GRAPH_CREATE, CHT_MPI_DIST_GRAPH_CREATE, CHT_MPI_DIST_GRAPH_CREATE_ADJACENT,
    CHT_MPI_INIT = 90, CHT_MPI_INIT_THREAD, CHT_MPI_FINALIZE, CHT_MPI_ABORT,
    /* local calls that read what another call wrote */
    CHT_MPI_GET_COUNT = 100, CHT_MPI_GET_ELEMENTS,
    /* local calls that copy or combine memory: recorded with what they read
     * and write (CHT_REC_ARGS), no data between ranks */
    CHT_MPI_PACK, CHT_MPI_UNPACK, CHT_MPI_PACK_EXTERNAL, CHT_MPI_UNPACK_EXTERNAL,
    CHT_MPI_REDUCE_LOCAL, CHT_MPI_REQUEST_GET_STATUS, CHT_MPI_TEST_CANCELLED,
    /* a call to an MPI function the runtime does not wrap (it is not local:
     * mpi-local.h), made from code built with the pass: recorded by the
     * hook after the call with its name (CHT_REC_CALLNAME), a fence */
    /* never written: the readers' id (trace_event_call) of an untraced
     * call whose name is not an MPI function's: a call into code built
     * without the pass (qsort, a BLAS routine: __commhint_extern_call in
     * commhint-rt.h), whose reads and writes the trace does not hold; a
     * fence */
    CHT_MPI_EXTERN = 125,
    CHT_MPI_UNTRACED = 126,
    /* never written: the readers' id (trace_event_call) of an untraced call
     * whose name is a function that reads a clock (MPI_Wtime,
     * clock_gettime, ...: mpi-local.h, cht_is_clock), which the pass
     * records like one; a fence */
    CHT_MPI_CLOCK = 127,
    /* persistent and partitioned point to point, matched probes, nonblocking Sendrecv */
    CHT_MPI_SEND_INIT = 128, CHT_MPI_SSEND_INIT, CHT_MPI_BSEND_INIT, CHT_MPI_RSEND_INIT,
    CHT_MPI_RECV_INIT, CHT_MPI_START, CHT_MPI_STARTALL, CHT_MPI_PSEND_INIT,
    CHT_MPI_PRECV_INIT, CHT_MPI_PREADY, CHT_MPI_PREADY_RANGE, CHT_MPI_PREADY_LIST,
    CHT_MPI_PARRIVED, CHT_MPI_MPROBE, CHT_MPI_IMPROBE, CHT_MPI_MRECV, CHT_MPI_IMRECV,
    CHT_MPI_ISENDRECV, CHT_MPI_ISENDRECV_REPLACE,
    /* Alltoallw and the nonblocking collectives */
    CHT_MPI_ALLTOALLW = 150, CHT_MPI_IBARRIER, CHT_MPI_IBCAST, CHT_MPI_IREDUCE,
    CHT_MPI_IALLREDUCE, CHT_MPI_IGATHER, CHT_MPI_IGATHERV, CHT_MPI_ISCATTER,
    CHT_MPI_ISCATTERV, CHT_MPI_IALLGATHER, CHT_MPI_IALLGATHERV, CHT_MPI_IALLTOALL,
    CHT_MPI_IALLTOALLV, CHT_MPI_IALLTOALLW, CHT_MPI_IREDUCE_SCATTER,
    CHT_MPI_IREDUCE_SCATTER_BLOCK, CHT_MPI_ISCAN, CHT_MPI_IEXSCAN,
    /* persistent collectives (MPI-4): the init call; each MPI_Start is recorded under the same id */
    CHT_MPI_BARRIER_INIT = 170, CHT_MPI_BCAST_INIT, CHT_MPI_REDUCE_INIT,
    CHT_MPI_ALLREDUCE_INIT, CHT_MPI_GATHER_INIT, CHT_MPI_GATHERV_INIT, CHT_MPI_SCATTER_INIT,
    CHT_MPI_SCATTERV_INIT, CHT_MPI_ALLGATHER_INIT, CHT_MPI_ALLGATHERV_INIT,
    CHT_MPI_ALLTOALL_INIT, CHT_MPI_ALLTOALLV_INIT, CHT_MPI_ALLTOALLW_INIT,
    CHT_MPI_REDUCE_SCATTER_INIT, CHT_MPI_REDUCE_SCATTER_BLOCK_INIT, CHT_MPI_SCAN_INIT,
    CHT_MPI_EXSCAN_INIT,
    /* neighbourhood collectives: blocking, nonblocking, persistent */
    CHT_MPI_NEIGHBOR_ALLGATHER = 190, CHT_MPI_NEIGHBOR_ALLGATHERV,
    CHT_MPI_NEIGHBOR_ALLTOALL, CHT_MPI_NEIGHBOR_ALLTOALLV, CHT_MPI_NEIGHBOR_ALLTOALLW,
    CHT_MPI_INEIGHBOR_ALLGATHER, CHT_MPI_INEIGHBOR_ALLGATHERV, CHT_MPI_INEIGHBOR_ALLTOALL,
    CHT_MPI_INEIGHBOR_ALLTOALLV, CHT_MPI_INEIGHBOR_ALLTOALLW,
    CHT_MPI_NEIGHBOR_ALLGATHER_INIT, CHT_MPI_NEIGHBOR_ALLGATHERV_INIT,
    CHT_MPI_NEIGHBOR_ALLTOALL_INIT, CHT_MPI_NEIGHBOR_ALLTOALLV_INIT,
    CHT_MPI_NEIGHBOR_ALLTOALLW_INIT,
    /* one-sided communication: windows, operations, synchronisation */
    CHT_MPI_WIN_CREATE = 210, CHT_MPI_WIN_ALLOCATE, CHT_MPI_WIN_ALLOCATE_SHARED,
    CHT_MPI_WIN_CREATE_DYNAMIC, CHT_MPI_WIN_ATTACH, CHT_MPI_WIN_DETACH, CHT_MPI_WIN_FREE,
    CHT_MPI_PUT, CHT_MPI_GET, CHT_MPI_ACCUMULATE, CHT_MPI_GET_ACCUMULATE,
    CHT_MPI_FETCH_AND_OP, CHT_MPI_COMPARE_AND_SWAP, CHT_MPI_RPUT, CHT_MPI_RGET,
    CHT_MPI_RACCUMULATE, CHT_MPI_RGET_ACCUMULATE, CHT_MPI_WIN_FENCE, CHT_MPI_WIN_LOCK,
    CHT_MPI_WIN_UNLOCK, CHT_MPI_WIN_LOCK_ALL, CHT_MPI_WIN_UNLOCK_ALL, CHT_MPI_WIN_FLUSH,
    CHT_MPI_WIN_FLUSH_ALL, CHT_MPI_WIN_FLUSH_LOCAL, CHT_MPI_WIN_FLUSH_LOCAL_ALL,
    CHT_MPI_WIN_POST, CHT_MPI_WIN_START, CHT_MPI_WIN_COMPLETE, CHT_MPI_WIN_WAIT,
    CHT_MPI_WIN_TEST, CHT_MPI_WIN_SYNC,
    CHT_MPI_CALL_MAX = 255
};

enum cht_mpi_op {
    CHT_OP_NONE = 0, CHT_OP_SUM, CHT_OP_PROD, CHT_OP_MAX, CHT_OP_MIN, CHT_OP_LAND,
    CHT_OP_BAND, CHT_OP_LOR, CHT_OP_BOR, CHT_OP_LXOR, CHT_OP_BXOR, CHT_OP_MAXLOC,
    CHT_OP_MINLOC, CHT_OP_REPLACE, CHT_OP_USER,
    CHT_OP_NO_OP /* MPI_NO_OP (Get_accumulate, Fetch_and_op: an atomic read) */
};

/* Predefined datatypes, recorded for collectives in the MPI record's `tag`
 * (the datatype of the first buffer the call describes: the send side, or
 * the receive side if it has no send buffer), so that repeated collectives
 * are merged only when one datatype covers them.  0: derived or unknown
 * (-1 in traces written before this field existed). */
enum cht_mpi_dtype {
    CHT_DT_UNKNOWN = 0, CHT_DT_CHAR, CHT_DT_SIGNED_CHAR, CHT_DT_UNSIGNED_CHAR, CHT_DT_BYTE,
    CHT_DT_SHORT, CHT_DT_UNSIGNED_SHORT, CHT_DT_INT, CHT_DT_UNSIGNED, CHT_DT_LONG,
    CHT_DT_UNSIGNED_LONG, CHT_DT_LONG_LONG, CHT_DT_UNSIGNED_LONG_LONG, CHT_DT_FLOAT,
    CHT_DT_DOUBLE, CHT_DT_LONG_DOUBLE, CHT_DT_C_BOOL, CHT_DT_INT8, CHT_DT_INT16, CHT_DT_INT32,
    CHT_DT_INT64, CHT_DT_UINT8, CHT_DT_UINT16, CHT_DT_UINT32, CHT_DT_UINT64, CHT_DT_WCHAR,
    CHT_DT_FLOAT_INT, CHT_DT_DOUBLE_INT, CHT_DT_LONG_INT, CHT_DT_2INT, CHT_DT_SHORT_INT,
    CHT_DT_LONG_DOUBLE_INT, CHT_DT_C_FLOAT_COMPLEX, CHT_DT_C_DOUBLE_COMPLEX, CHT_DT_AINT,
    CHT_DT_OFFSET, CHT_DT_COUNT, CHT_DT_PACKED, CHT_DT_MAX
};

enum cht_mpi_flag {
    CHT_MPIF_SEND_IN_PLACE = 1u << 0, /* send buffer was MPI_IN_PLACE */
    CHT_MPIF_RECV_IN_PLACE = 1u << 1, /* receive buffer was MPI_IN_PLACE */
    CHT_MPIF_ANY_SOURCE = 1u << 2,    /* receive posted with MPI_ANY_SOURCE */
    CHT_MPIF_ANY_TAG = 1u << 3,       /* receive posted with MPI_ANY_TAG */
    CHT_MPIF_PROC_NULL = 1u << 4,     /* a peer was MPI_PROC_NULL */
    CHT_MPIF_ERROR = 1u << 5,         /* the call returned an error code */
    CHT_MPIF_NOT_FOUND = 1u << 6,     /* Iprobe/Test* reported flag = false */
    CHT_MPIF_ROOT = 1u << 7,          /* this rank was the collective's root */
    CHT_MPIF_INTERCOMM = 1u << 8,     /* communicator is an intercommunicator */
    CHT_MPIF_HAS_STATUS = 1u << 9,    /* st_* fields hold a received status */
    CHT_MPIF_UNKNOWN_REQUEST = 1u << 10, /* a completion call got a request no wrapper
                                            made (an untraced call's, generalized): a
                                            fence for the analysis (v3) */
    CHT_MPIF_LARGE_COUNT = 1u << 11,     /* called as the MPI-4 large-count variant
                                            (MPI_Send_c...); count is clamped to INT32_MAX,
                                            byte fields are exact (v3) */
    CHT_MPIF_STARTED = 1u << 12          /* a start (MPI_Start/Startall) of the persistent
                                            request made by the call `aux` names (an *_init
                                            id); the record describes that operation as a
                                            nonblocking call with a new request id (v3) */
};

/* Ranks in MPI records are world ranks; these stand for the rest. */
#define CHT_RANK_NONE (-1)       /* field unused by this call */
#define CHT_RANK_ANY (-2)        /* MPI_ANY_SOURCE */
#define CHT_RANK_PROC_NULL (-3)  /* MPI_PROC_NULL */
#define CHT_TAG_NONE (-1)
#define CHT_TAG_ANY (-2)         /* MPI_ANY_TAG */

/* Communicator ids agree across ranks: MPI_COMM_WORLD is 0, MPI_COMM_SELF
 * is CHT_COMM_SELF, and a created communicator gets
 * ((world rank of its rank 0) + 1) << 32 | (communicators that rank has
 * created as rank 0 so far), broadcast to the members at creation. */
#define CHT_COMM_WORLD 0ull
#define CHT_COMM_SELF 0xffffffffffffffffull
#define CHT_COMM_UNKNOWN 0xfffffffffffffffeull

/* One-sided communication: a window's id agrees across its members and never
 * equals a communicator id: CHT_WIN_ID_BIT | ((world rank of rank 0 of the
 * window's communicator) + 1) << 32 | (windows that rank has created as rank
 * 0 so far), broadcast over the communicator at creation.  0 = a window the
 * runtime did not see created.  RMA records (ids CHT_MPI_WIN_CREATE ..
 * CHT_MPI_WIN_SYNC) use the MPI record so (docs/trace-format.md):
 *   comm, comm_size  the window's communicator (its group is the window's)
 *   seq              the window id
 *   rseq             the window's collective calls (creation, Win_fence,
 *                    Win_free): their number among them, from 1 (creation);
 *                    0 for the others
 *   peer             target world rank (operations, Win_lock/unlock/flush*),
 *                    CHT_RANK_PROC_NULL for MPI_PROC_NULL
 *   sbuf, sbytes     origin memory the operation reads (Put, Accumulate,
 *                    Get_accumulate, Fetch_and_op, Compare_and_swap, R*)
 *   rbuf, rbytes     origin memory it writes (Get, result buffers); window
 *                    creation and Win_attach: the local window memory;
 *                    Win_detach: the base it detaches (rbytes 0)
 *   tag              Win_lock, Win_lock_all: 1 exclusive, 2 shared
 *   op, request      accumulates; R-variants
 * An operation's origin, compare and result buffers are also recorded as
 * held CHT_REC_ARGS ranges: in use until the operation completes. */
#define CHT_WIN_ID_BIT (1ull << 63)
#define CHT_LOCK_EXCLUSIVE 1
#define CHT_LOCK_SHARED 2

/* CHT_REC_MPI, aux = enum cht_mpi_call.  One layout for every call; fields a
 * call does not use hold 0 / CHT_RANK_NONE / CHT_TAG_NONE.  Buffers are the
 * first byte the call touches (buffer + true lower bound) and the byte extent
 * it touches ((count - 1) * extent + true extent), so derived datatypes are
 * covered.  Sequence numbers: a send gets the next number of its channel
 * (communicator, sender, receiver, tag); a receive gets the next number of
 * the channel its status names, so a matched pair carries the same number;
 * collectives number their calls per communicator in seq. */
struct cht_rec_mpi {
    struct cht_rec h;
    uint32_t site;      /* pass site id of the call, CHT_NONE if not compiled with the pass */
    uint32_t flags;     /* enum cht_mpi_flag */
    uint64_t ret_addr;  /* return address into the caller, for symbolisation */
    uint64_t t_enter;   /* ns, CLOCK_MONOTONIC */
    uint64_t t_exit;    /* ns, CLOCK_MONOTONIC */
    uint64_t comm;      /* communicator id (see above) */
    uint64_t sbuf;      /* send buffer address, 0 if none */
    uint64_t sbytes;    /* bytes read from sbuf */
    uint64_t rbuf;      /* receive buffer address, 0 if none */
    uint64_t rbytes;    /* bytes the call may write at rbuf */
    int32_t peer;       /* send: destination world rank; collective: root */
    int32_t tag;        /* send tag */
    int32_t rpeer;      /* receive/probe: source as posted (world rank or CHT_RANK_ANY) */
    int32_t rtag;       /* receive/probe: tag as posted (or CHT_TAG_ANY) */
    int32_t st_source;  /* status: world rank the message came from */
    int32_t st_tag;     /* status: its tag */
    uint64_t st_bytes;  /* status: bytes received */
    uint64_t request;   /* nonblocking: request id (per rank, from 1), else 0 */
    uint64_t seq;       /* send: channel sequence number; collective: call number on comm */
    uint64_t rseq;      /* receive: channel sequence number (0 until known) */
    int32_t op;         /* enum cht_mpi_op for reductions */
    int32_t count;      /* the call's count argument (first count for Sendrecv) */
    uint32_t datatype;  /* size of the datatype in bytes (MPI_Type_size) */
    uint32_t comm_size; /* size of the communicator */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_mpi) == 152, "MPI record is 152 bytes");

/* CHT_REC_COMPLETE follows the MPI record of a completion call (Wait*, Test*,
 * and MPI_Request_free), one per request it completed, in completion order. */
struct cht_rec_complete {
    struct cht_rec h;  /* aux: enum cht_complete_flag bits */
    uint64_t request;  /* request id from the Isend/Irecv record */
    int32_t st_source; /* receive: world rank the message came from */
    int32_t st_tag;    /* receive: its tag */
    uint64_t st_bytes; /* receive: bytes received */
    uint64_t rseq;     /* receive: channel sequence number */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_complete) == 40, "complete record is 40 bytes");

/* cht_rec_complete.h.aux. */
enum cht_complete_flag {
    CHT_COMPLETE_RECV = 1u,      /* the request was a receive (else a send) */
    CHT_COMPLETE_CANCELLED = 2u  /* MPI_Cancel was called on it and it was cancelled
                                    (MPI_Test_cancelled of its status): it moved no
                                    message; st_source is CHT_RANK_NONE, st_bytes and
                                    rseq 0 (v3) */
};

/* CHT_REC_ARGS follows an MPI record (among the records that follow it):
 * memory the call reads or writes through its other
 * arguments - the status it fills, the count and displacement arrays it
 * reads, the request handles and arrays, flags, indices and counts it
 * writes.  aux = number of ranges; with `held` set, the ranges stay in use
 * until the request the call started completes (the arrays of a
 * nonblocking collective); a call writes at most one record of each. */
struct cht_rec_args {
    struct cht_rec h;
    uint32_t held;     /* 1: held until completion, 0: touched during the call */
    uint32_t reserved;
    /* struct cht_range range[h.aux]; */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_args) == 16, "args record is 16 bytes + ranges");

/* CHT_REC_CALLNAME follows an MPI record of call CHT_MPI_UNTRACED: the
 * function's name, aux = its length without the NUL, NUL-terminated and
 * padded to 8. */
struct cht_rec_callname {
    struct cht_rec h;
    /* char name[h.aux + 1]; */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_callname) == 8, "callname record is 8 bytes + name");
#define CHT_CALLNAME_MAX 64 /* longer names are cut */

/* CHT_REC_BLOCKS follows a v-collective (and Alltoall/Gather/Scatter, whose
 * blocks are uniform but are spelled out too): aux = 0 for the send side,
 * 1 for the receive side; one block per rank of the communicator, offsets
 * relative to sbuf/rbuf of the MPI record. */
struct cht_block {
    int64_t offset; /* bytes from the buffer start */
    uint64_t bytes; /* bytes in this rank's block */
};
CHT_STATIC_ASSERT(sizeof(struct cht_block) == 16, "block is 16 bytes");

struct cht_rec_blocks {
    struct cht_rec h;
    uint32_t count;    /* number of blocks */
    uint32_t reserved;
    /* struct cht_block block[count]; */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_blocks) == 16, "blocks record is 16 bytes + blocks");

/* CHT_REC_COMM: a communicator this rank belongs to was created (aux = enum
 * cht_mpi_call of the creating call).  Members' world ranks in order of their
 * rank in the new communicator (for an intercommunicator, local group then
 * remote group). */
struct cht_rec_comm {
    struct cht_rec h;
    uint64_t comm;       /* id of the new communicator */
    uint64_t parent;     /* id of the communicator it was made from */
    uint32_t size;       /* members in the (local) group */
    uint32_t remote_size;/* members of the remote group, 0 for intracommunicators */
    int32_t my_rank;     /* this rank's rank in it */
    uint32_t reserved;
    /* int32_t world_rank[size + remote_size], padded to 8 bytes */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_comm) == 40, "comm record is 40 bytes + ranks");

/* CHT_REC_MODULE: a loaded ELF object; lets return addresses of PIE code be
 * mapped back to file offsets.  Followed by build id bytes then the path,
 * NUL-terminated, padded to 8. */
struct cht_rec_module {
    struct cht_rec h;
    uint64_t base;        /* load bias (dlpi_addr) */
    uint64_t start, end;  /* lowest and highest+1 address of its PT_LOAD segments */
    uint32_t build_id_len;/* bytes of GNU build id that follow */
    uint32_t path_len;    /* bytes of the path that follow the build id, NUL included */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_module) == 40, "module record is 40 bytes + data");

/* CHT_REC_TU: a translation unit compiled with the pass registered in this
 * process; its local site i has global id site_base + i (same for loops). */
struct cht_rec_tu {
    struct cht_rec h;
    uint64_t tu_key;   /* content hash of its site table (cht_tu_header.tu_key) */
    uint32_t site_base;
    uint32_t nsites;
    uint32_t loop_base;
    uint32_t nloops;
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_tu) == 32, "tu record is 32 bytes");

/* CHT_REC_CLOCK: taken at MPI_Init (aux=0) and MPI_Finalize (aux=1) so later
 * stages can relate the ranks' monotonic clocks. */
struct cht_rec_clock {
    struct cht_rec h;
    uint64_t mono_ns;   /* CLOCK_MONOTONIC, ns */
    uint64_t real_ns;   /* CLOCK_REALTIME, ns */
    double wtime;       /* MPI_Wtime(), s */
    /* v5, the MPI_Init sample (0 in the others and in older files, whose
     * clock records are 40 bytes and end here) */
    uint32_t cpus;        /* CPUs the rank may run on (its affinity mask) */
    uint32_t node_ranks;  /* ranks of the run on its host as the launcher says
                             (MPI_LOCALNRANKS, OMPI_COMM_WORLD_LOCAL_SIZE...), 0: unknown */
    uint32_t host_id;     /* FNV-1a hash of the host's name (0: unknown) */
    uint32_t reserved;    /* 0 */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_clock) == 48, "clock record is 48 bytes");
#define CHT_REC_CLOCK_V4_SIZE 40u /* versions 1-4 */

/* CHT_REC_CPU follows an MPI record (among the records that follow it) on a
 * host with more ranks than CPUs (cht_rec_clock.node_ranks > cpus), where a
 * rank's wall time is not its computation: the calling thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID) when the call was entered and when it returned.
 * The replay of predictions (docs/prediction.md) shares the CPUs out with
 * it.  Not written on other hosts: it costs two system calls per call. */
struct cht_rec_cpu {
    struct cht_rec h;
    uint64_t cpu_enter; /* ns */
    uint64_t cpu_exit;  /* ns */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_cpu) == 24, "cpu record is 24 bytes");

/* CHT_REC_PATH follows an MPI record (among the records that follow it):
 * the return addresses of the frames above the function that made the
 * call (cht_rec_mpi.ret_addr is the first frame), innermost first, aux =
 * their number (1..CHT_PATH_MAX).  The runtime walks the frame-pointer
 * chain, which every function built with `commhint cc` keeps; a frame
 * read from a function built without it may be wrong, so readers keep
 * the frames only as long as each one's caller is a function of the
 * program's own code (docs/trace-format.md, "Call paths").  Not written
 * when no frame above the caller is found. */
struct cht_rec_path {
    struct cht_rec h;
    /* uint64_t ret_addr[h.aux]; */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_path) == 8, "path record is 8 bytes + addresses");
#define CHT_PATH_MAX 15       /* frames a PATH record holds at most */
#define CHT_PATH_DEFAULT 6    /* frames the runtime records unless told (COMMHINT_CALLPATH) */

/* CHT_REC_LOST: the writer dropped events (aux: 1 = write error, 2 = buffer
 * registration failed); readers report it. */
struct cht_rec_lost {
    struct cht_rec h;
    uint64_t records;  /* records dropped */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_lost) == 16, "lost record is 16 bytes");

/* CHT_REC_END: written once at a clean exit, in a chunk of its own, last. */
struct cht_rec_end {
    struct cht_rec h;
    uint64_t records;  /* records written by this rank, all threads */
    uint64_t t_end;    /* ns, CLOCK_MONOTONIC */
    uint32_t threads;  /* threads that wrote events */
    int32_t exit_status; /* status passed to exit(), or -1 if unknown */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_end) == 32, "end record is 32 bytes");

/* CHT_REC_REPEAT (version 2): stands for `count` COMP/LOOP records of the
 * thread that wrote it, rebuilt from the records before it.
 *
 * The history of a writer thread is its last CHT_REPEAT_PERIOD_MAX records
 * that are COMP records with at most CHT_REPEAT_MAX_ADDRS addresses or LOOP
 * records, records a REPEAT stands for included, across chunks; a COMP
 * record with more addresses empties it; other record types leave it alone
 * (but no REPEAT spans them: they end a run).  With P = h.aux, record i
 * (i = 0 .. count-1) that the REPEAT stands for is a copy of the record P
 * positions before it in the history (type, aux, site or loop) whose
 * address k is that record's address k plus stride[off(i mod P) + k]
 * (modulo 2^64), where off(j) is the sum of the address counts of history
 * records -P .. -P+j-1 at the REPEAT (a LOOP record has none), and
 * nstrides is that sum over all P of them.  Each rebuilt record enters the
 * history as it is produced, so a period repeats for as long as count says. */
#define CHT_REPEAT_PERIOD_MAX 16       /* largest period, also the history length */
#define CHT_REPEAT_MAX_ADDRS 8         /* COMP records with more addresses never repeat */
#define CHT_REPEAT_COUNT_MAX (1u << 20) /* readers reject larger counts */

struct cht_rec_repeat {
    struct cht_rec h;  /* aux = period P, 1 .. CHT_REPEAT_PERIOD_MAX */
    uint32_t count;    /* records it stands for, 1 .. CHT_REPEAT_COUNT_MAX */
    uint32_t nstrides; /* int64 strides that follow, at most P * CHT_REPEAT_MAX_ADDRS */
    /* int64_t stride[nstrides], bytes */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_repeat) == 16, "repeat record is 16 bytes + strides");

/* CHT_REC_REPEAT_COL (version 8): a CHT_REC_REPEAT (the same period,
 * count, strides and history) in which an address whose stride is
 * CHT_REPEAT_IRREGULAR is not advanced by a stride but by the next entry of
 * the record's column: address k of record i is address k of the record P
 * positions before it plus (int64_t)column[j] (modulo 2^64), j counting
 * the irregular addresses of the records rebuilt before it, in record
 * order, then address order.  ncol is their number over the count records
 * (every irregular address takes exactly one entry).  Indirect accesses
 * (x[col[j]] in a sparse product) cost 4 bytes instead of a record. */
#define CHT_REPEAT_IRREGULAR INT64_MIN   /* the stride of an address taken from the column */
#define CHT_REPEAT_COL_MAX (1u << 16)    /* readers reject larger columns */

struct cht_rec_repeat_col {
    struct cht_rec h;  /* aux = period P, 1 .. CHT_REPEAT_PERIOD_MAX */
    uint32_t count;    /* records it stands for, 1 .. CHT_REPEAT_COUNT_MAX */
    uint32_t nstrides; /* int64 strides that follow, at most P * CHT_REPEAT_MAX_ADDRS */
    uint32_t ncol;     /* int32 column entries after the strides, 1 .. CHT_REPEAT_COL_MAX */
    uint32_t reserved; /* 0 */
    /* int64_t stride[nstrides]; int32_t column[ncol]; zeros up to a multiple of 8 bytes */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_repeat_col) == 24, "repeat-col record is 24 bytes + strides + column");

/* CHT_REC_PACK (version 9): stands for `count` COMP (at most
 * CHT_REPEAT_MAX_ADDRS addresses) and LOOP records of the thread that wrote
 * it, in order, each coded in a few bytes against what the records before
 * it in the same PACK predict.  They enter the thread's history (see
 * CHT_REC_REPEAT) as they are decoded, like records written out.
 *
 * The decoder keeps a table of CHT_PACK_SLOTS entries per writer thread,
 * emptied at the start of a PACK whose aux has CHT_PACK_RESET (a thread's
 * first PACK always has it) and otherwise as the thread's previous PACK
 * left it, with its last record as the previous record.  An entry holds a key K (type | aux << 16 | id << 32,
 * as in commhint-rt.h), the key that followed K's last record (`next`, 0 at
 * first), and per address i its last value last[i] and last difference
 * d[i] (both 0 at first).  K's entry is slot (K * 0x9E3779B97F4A7C15) >> 56
 * (modulo 2^64); a key that finds its slot empty or holding another key
 * takes it over, starting afresh.  Each record is:
 *
 *   byte t      bit 0: the key is the `next` of the previous record's entry
 *               (never set for the first record after a reset); bit 1 + i
 *               (i < 7): address i is last[i] + d[i]
 *   if bit 0 is clear: byte k = aux | 0x80 for a LOOP record (aux = kind),
 *               aux (1 .. CHT_REPEAT_MAX_ADDRS, the address count) for a
 *               COMP record; then the site or loop id as a varint
 *   for each address i without its bit (address 7 always): the new
 *               difference d[i] = address - last[i] (modulo 2^64) as a
 *               zigzag varint
 *
 * (varint: 7 bits per byte, least significant first, bit 7 set on every
 * byte but the last; zigzag: (v << 1) ^ (v >> 63) of the int64 v.)  In
 * this order: the previous record's entry takes this key as its `next`
 * (before this record's entry is looked up: they may share a slot), then
 * the record's entry is found or taken over, then each address i sets
 * last[i] (and d[i] when coded).  Irregular addresses (x[col[j]] in a
 * sparse product) cost their difference, strided ones and the key of a
 * record that follows the same record as last time nothing but the byte t. */
#define CHT_PACK_SLOTS 256u
#define CHT_PACK_RESET 1u             /* aux: the table starts empty */
#define CHT_PACK_COUNT_MAX (1u << 16) /* readers reject larger counts */
#define CHT_PACK_BYTES_MAX (1u << 16) /* readers reject larger codes */
#define CHT_PACK_HASH 0x9E3779B97F4A7C15ull

struct cht_rec_pack {
    struct cht_rec h;  /* aux = 0 or CHT_PACK_RESET */
    uint32_t count;    /* records it stands for, 1 .. CHT_PACK_COUNT_MAX */
    uint32_t nbytes;   /* bytes of code that follow, 1 .. CHT_PACK_BYTES_MAX */
    /* uint8_t code[nbytes]; zeros up to a multiple of 8 bytes */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_pack) == 16, "pack record is 16 bytes + code");

/* CHT_REC_ROWS (version 10): stands for the COMP and LOOP records of
 * `rows` rows of a loop nest, made by one writer thread (a sparse product's
 * rows: for (r...) { ...; for (j = rowptr[r]; j < rowptr[r + 1]; j++) s +=
 * val[j] * x[col[j]]; ... }).  Row i is an inner loop's trips(i) iterations
 * (each its per records: keys nb .. nb + per - 1 below, with per address
 * counts, the first usually its LOOP iter record), and, for every row but
 * the last, then the nb records "between" it and the next row's inner loop
 * (keys 0 .. nb - 1: the outer loop's).  They enter the history like
 * records written out.  After the header:
 *
 *   uint64 key[nb + per]  type | aux << 16 | id << 32, as in CHT_REC_PACK
 *                         (a COMP's aux: 1 .. CHT_REPEAT_MAX_ADDRS
 *                         addresses; a LOOP's: its kind)
 *   uint64 base[nab]      the between records' addresses after row 0, in
 *                         record then address order (nab: their sum)
 *   int64 bstride[nab]    after row i they are base + i * bstride
 *   uint64 start[nal]     the inner records' addresses (nal: their sum) in
 *                         row 0's iteration 0; for an irregular address
 *                         the value its first column entry moves from
 *   int64 step[nal]       what an address moves by from one iteration to
 *                         the next, or CHT_REPEAT_IRREGULAR: the next
 *                         entry of the row's column moves it instead
 *   uint8 code[nbytes]    per row: trips as a varint (1 ..
 *                         CHT_ROWS_TRIPS_MAX); per inner address that is
 *                         not irregular, in order, a zigzag varint (as in
 *                         CHT_REC_PACK): its value in the row's iteration 0
 *                         minus the prediction (row 0: start; later rows:
 *                         the previous row's iteration-0 value plus its
 *                         trips times step); then per iteration, per
 *                         irregular address in order, an int32
 *                         (little-endian) difference from that address's
 *                         previous value (the previous iteration's, across
 *                         rows; the first from start)
 *   zeros up to a multiple of 8 bytes
 *
 * Per row of a sparse product the record holds a byte or two and 4 bytes
 * per nonzero: what the rows cost to record (docs/performance.md, "spmv's
 * floor").  The writer ends it when an address does not move as it says. */
#define CHT_ROWS_COUNT_MAX (1u << 20) /* readers reject more rows */
#define CHT_ROWS_BYTES_MAX (1u << 16) /* readers reject larger codes */
#define CHT_ROWS_TRIPS_MAX (1u << 20) /* readers reject longer rows */

struct cht_rec_rows {
    struct cht_rec h;  /* aux = 0 */
    uint32_t rows;     /* 1 .. CHT_ROWS_COUNT_MAX */
    uint32_t nbytes;   /* bytes of code, 1 .. CHT_ROWS_BYTES_MAX */
    uint16_t nb;       /* between records, 0 .. CHT_REPEAT_PERIOD_MAX */
    uint16_t per;      /* records per iteration, 1 .. CHT_REPEAT_PERIOD_MAX */
    uint16_t nab;      /* addresses of the between records */
    uint16_t nal;      /* addresses of an iteration's records */
    /* key[nb + per]; base[nab]; bstride[nab]; start[nal]; step[nal]; code[nbytes]; padding */
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_rows) == 24, "rows record is 24 bytes + tables + code");

/* CHT_REC_PROGRAM (meta file): followed by build_id_len bytes of GNU build
 * id, then argc NUL-terminated strings (argv[0] first, resolved to an absolute
 * path), padded to 8. */
struct cht_rec_program {
    struct cht_rec h;
    uint32_t build_id_len;
    uint32_t argc;
    uint32_t strings_len;  /* bytes of the argv strings, NULs included */
    int32_t world_size;
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_program) == 24, "program record is 24 bytes + data");

/* CHT_REC_SITE_TABLE: h followed by 8 bytes of padding then one site table
 * blob (below), padded to 8. */
struct cht_rec_site_table {
    struct cht_rec h;
    uint32_t blob_size; /* bytes of the blob */
    uint32_t reserved;
};
CHT_STATIC_ASSERT(sizeof(struct cht_rec_site_table) == 16, "site table record is 16 bytes + blob");

/* ---- site tables -------------------------------------------------------- */

/* A site table blob is made by the pass for one translation unit and is
 * embedded in the object as constant data; the runtime copies it verbatim
 * into the trace.  All offsets are from the start of the blob. */
#define CHT_TU_MAGIC 0x55544843u /* "CHTU" little-endian */
#define CHT_TU_VERSION 3 /* version 2 added the dependence section (deps_off),
                            version 3 the cost section (costs_off) */
#define CHT_TU_OLDEST 1  /* readers still read version-1 tables (no dependences)
                            and version-2 tables (no costs: every site costs 1) */

struct cht_tu_header {
    uint32_t magic;        /* CHT_TU_MAGIC */
    uint16_t version;      /* CHT_TU_VERSION */
    uint16_t header_size;  /* bytes, 64 */
    uint64_t tu_key;       /* FNV-1a 64 of the blob with this field zeroed */
    uint32_t nsites;
    uint32_t nloops;
    uint32_t naccess;      /* entries in the access table */
    uint32_t total_size;   /* bytes of the whole blob */
    uint32_t sites_off;    /* -> struct cht_site[nsites] */
    uint32_t loops_off;    /* -> struct cht_loop[nloops] */
    uint32_t access_off;   /* -> struct cht_access[naccess] */
    uint32_t strings_off;  /* -> NUL-terminated strings; offset 0 is "" */
    uint32_t strings_size; /* bytes of the string area */
    uint32_t module_name;  /* string: the LLVM module identifier (source file as compiled) */
    uint32_t deps_off;     /* -> struct cht_tu_deps (version 2), 0 if none */
    uint32_t costs_off;    /* -> uint32_t cost[nsites] (version 3), 0 if none;
                              reserved and 0 in versions 1 and 2 */
};
CHT_STATIC_ASSERT(sizeof(struct cht_tu_header) == 64, "tu header is 64 bytes");

enum cht_site_kind {
    CHT_SITE_COMP = 1,   /* a statement's loads and stores (CHT_REC_COMP) */
    CHT_SITE_MEMCPY = 2, /* memcpy/memmove: read src, write dst (CHT_REC_RANGES) */
    CHT_SITE_MEMSET = 3, /* memset: write dst (CHT_REC_RANGES) */
    CHT_SITE_CALL = 4    /* an MPI call (named by cht_rec_mpi.site) */
};

/* What a statement computes from what it loads before storing: the opcode of
 * the value stored.  A later stage uses it to recognise reductions. */
enum cht_site_op {
    CHT_SOP_NONE = 0, CHT_SOP_COPY, CHT_SOP_ADD, CHT_SOP_SUB, CHT_SOP_MUL,
    CHT_SOP_DIV, CHT_SOP_FADD, CHT_SOP_FSUB, CHT_SOP_FMUL, CHT_SOP_FDIV,
    CHT_SOP_MIN, CHT_SOP_MAX, CHT_SOP_FMIN, CHT_SOP_FMAX, CHT_SOP_AND,
    CHT_SOP_OR, CHT_SOP_XOR, CHT_SOP_OTHER
};

enum cht_site_flag {
    CHT_SITEF_CONDITIONAL = 1u << 0, /* control-dependent on a branch in its function
                                        other than a loop's own exit test or the
                                        guard that only decides whether a loop runs */
    CHT_SITEF_ACCUMULATE = 1u << 1,  /* stores op(load of the same address, x) */
    CHT_SITEF_INLINED = 1u << 2,     /* code was inlined into func */
    CHT_SITEF_ATOMIC = 1u << 3,      /* includes an atomic access */
    CHT_SITEF_VECTOR = 1u << 4,      /* includes a vector access */
    CHT_SITEF_ARGS_ONLY = 1u << 5,   /* only loads values passed to calls (their arguments):
                                        part of the call's statement, never a related line
                                        of its own (site table version 2) */
    CHT_SITEF_LOOP_TEST = 1u << 6,   /* only loads what a loop's exit test compares: listed
                                        only with statements of that loop's body (v2) */
    CHT_SITEF_FRAME_PTR = 1u << 7,   /* the function the code is in after inlining keeps a
                                        frame pointer: the call paths of MPI calls are read
                                        through its frames (trace format 6) */
    CHT_SITEF_HEAP = 1u << 8,        /* a CHT_SITE_MEMSET that is a heap allocation (malloc,
                                        calloc, realloc: the new block) or a free (the block
                                        freed): it writes the whole block, so that no MPI call
                                        on the block moves across it; it costs nothing per
                                        byte.  Older readers take it as a memset */
    CHT_SITEF_ARG_VARS = 1u << 9     /* a CHT_SITE_CALL one of whose arguments is the value
                                        of a local variable the function assigns where the
                                        trace shows no event (a register at -O2, an
                                        untraced local at -O0): a start moved above the
                                        call cannot be checked against its assignment.
                                        Older readers ignore it */
};

struct cht_site {
    uint32_t file;         /* string: source file as in the debug info */
    uint32_t func;         /* string: function the code is in after inlining */
    uint32_t line;         /* 0 if the code has no debug location */
    uint16_t col;
    uint8_t kind;          /* enum cht_site_kind */
    uint8_t op;            /* enum cht_site_op */
    uint32_t loop;         /* local id of the innermost enclosing loop, CHT_NONE if none */
    uint32_t flags;        /* enum cht_site_flag */
    uint32_t access_first; /* index of its first entry in the access table */
    uint32_t naccess;      /* entries; equals the address count of its COMP records */
};
CHT_STATIC_ASSERT(sizeof(struct cht_site) == 32, "site is 32 bytes");

#define CHT_ACCESS_READ 1u
#define CHT_ACCESS_WRITE 2u /* both bits: atomic read-modify-write */

struct cht_access {
    uint32_t size;  /* bytes accessed at the recorded address */
    uint32_t flags; /* CHT_ACCESS_READ / CHT_ACCESS_WRITE */
};
CHT_STATIC_ASSERT(sizeof(struct cht_access) == 8, "access is 8 bytes");

struct cht_loop {
    uint32_t file;   /* string */
    uint32_t func;   /* string */
    uint32_t line;   /* location of the loop header, 0 if unknown */
    uint16_t col;
    uint16_t depth;  /* 1 for an outermost loop of its function */
    uint32_t parent; /* local id of the enclosing loop, CHT_NONE if outermost */
    uint32_t reserved;
};
CHT_STATIC_ASSERT(sizeof(struct cht_loop) == 24, "loop is 24 bytes");

/* ---- register and control dependences (site table version 2) ------------
 *
 * What each site reads in registers: the values computed by which other
 * sites its addresses, stored values or call arguments are made of
 * (through SSA values, phis, locals whose address never escapes, calls),
 * and which sites compute the conditions of the branches deciding whether
 * it runs at all (control dependence, closed transitively).  An execution
 * of a site depends on the most recent execution of each site named here
 * (docs/dependence.md).  Values that cross functions are named by symbols,
 * resolved by function name over every table of the process: a site may
 * use parameter k of its function, the value a function returns, or the
 * conditions under which its function was called (ENTRY); rows of symbols
 * say, for the call sites and functions of this translation unit, what
 * those are made of.  The function name "*" stands for every function
 * called through a pointer.
 *
 * At deps_off: struct cht_tu_deps, then nrows rows, then nentries entries
 * (offsets from the start of the blob).  Rows 0 .. nsites-1 are the sites'
 * (arg CHT_DEP_ARG_SITE); the rest are symbol rows. */
enum cht_dep_kind {
    CHT_DEP_VALUE = 1,   /* target is a local site id: a value it computed */
    CHT_DEP_CONTROL = 2, /* target is a local site id: a branch condition */
    CHT_DEP_SYM_VALUE = 3,   /* target is a string (function), arg says what */
    CHT_DEP_SYM_CONTROL = 4
};
#define CHT_DEP_ARG_RET (-1)   /* the value the function returns */
#define CHT_DEP_ARG_ENTRY (-2) /* the conditions under which it is called */
#define CHT_DEP_ARG_SITE (-3)  /* a site's row */

struct cht_tu_deps {
    uint32_t nrows;       /* nsites site rows, then symbol rows */
    uint32_t nentries;
    uint32_t rows_off;    /* -> struct cht_dep_row[nrows] */
    uint32_t entries_off; /* -> struct cht_dep[nentries] */
};
CHT_STATIC_ASSERT(sizeof(struct cht_tu_deps) == 16, "deps header is 16 bytes");

struct cht_dep_row {
    uint32_t first; /* index of its first entry */
    uint32_t n;     /* entries */
    uint32_t func;  /* symbol rows: string, the function; site rows: 0 */
    int32_t arg;    /* parameter index >= 0, CHT_DEP_ARG_RET, _ENTRY, or _SITE */
};
CHT_STATIC_ASSERT(sizeof(struct cht_dep_row) == 16, "dep row is 16 bytes");

struct cht_dep {
    uint32_t target; /* local site id, or string (function) for SYM kinds */
    uint16_t kind;   /* enum cht_dep_kind */
    int16_t arg;     /* SYM kinds: parameter index, CHT_DEP_ARG_RET or _ENTRY */
};
CHT_STATIC_ASSERT(sizeof(struct cht_dep) == 8, "dep entry is 8 bytes");

/* ---- static costs (site table version 3) ---------------------------------
 *
 * At costs_off: one uint32_t per site, in site order: what one execution
 * of the site's statement costs, in units of about one simple instruction,
 * from the instructions the pass attributes to it (docs/dependence.md,
 * "Estimated time of computation events").  The analysis splits the
 * measured time between two MPI calls among the computation events in
 * proportion to these costs.  At least 1 for a COMP site (one traced
 * access); a table without the section (version 1 or 2, or costs_off 0)
 * gives every site cost 1: the even split. */
#define CHT_COST_LOAD 1u      /* a load or a store */
#define CHT_COST_OP 1u        /* integer or fp add, mul, compare, cast, select */
#define CHT_COST_DIV 4u       /* integer or fp division, remainder, sqrt: pipelined, so
                                 a few simple operations (bench/cost-check) */
#define CHT_COST_CALL 40u     /* a call to a function the pass does not see into
                                 (libm, libc, another object) */
#define CHT_COST_MAX 0x00ffffffu /* costs saturate here */

/* FNV-1a, 64 bit: tu_key of a site table. */
#define CHT_FNV64_OFFSET 0xcbf29ce484222325ull
#define CHT_FNV64_PRIME 0x100000001b3ull

#endif /* COMMHINT_TRACE_FORMAT_H */
