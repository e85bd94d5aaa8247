/* trace-reader.h - reading commhint traces: the one public header of
 * tracelib/reader (streaming cursors over rank streams, site tables,
 * symbolisation of return addresses with libdwarf).
 *
 * Readers distrust their input: every length and offset is checked before
 * use, nothing is loaded whole, and malformed input becomes a negative
 * status with a message naming the file and byte offset.
 *
 * Ownership: pointers returned by *_next and the lookup functions are
 * borrowed.  Records and events stay valid until the next call on the same
 * cursor; site, loop and string data stay valid until the trace is closed.
 */
#ifndef COMMHINT_TRACE_READER_H
#define COMMHINT_TRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes shared by the analysis libraries: 0 is success, errors are
 * negative. */
enum trace_status {
    TRACE_OK = 0,
    TRACE_ERR_IO = -1,        /* a file could not be opened or read */
    TRACE_ERR_FORMAT = -2,    /* malformed input */
    TRACE_ERR_VERSION = -3,   /* written by a format version we cannot read */
    TRACE_ERR_NOMEM = -4,
    TRACE_ERR_NOT_TRACE = -5, /* not a commhint trace directory */
    TRACE_ERR_ARG = -6,       /* bad argument from the caller */
    TRACE_ERR_NOT_FOUND = -7, /* e.g. no stream file for that rank */
    TRACE_ERR_MISMATCH = -8,  /* file belongs to another run */
    TRACE_ERR_LIMIT = -9      /* the analysis would pass its memory limit */
};

/* Short name of a status ("format error", ...). */
const char *trace_status_str(int status);

/* Error message: one sentence, then key=value facts, no trailing newline,
 * e.g. "cannot read chunk: file=t/rank-00003.chtr offset=81920 reason=length past end". */
struct trace_err {
    char msg[512];
};

/* ---- low level: records of one file ------------------------------------ */

struct trace_stream;

/* Opens a meta or rank file and checks its file header (magic, version,
 * byte order, header size, required features).  On error returns a negative
 * status (TRACE_ERR_NOT_FOUND if the file does not exist) and fills err.
 * A file that ends inside its file header (empty, or the start of a header
 * with a valid magic: a writer that died or met a full disk at once) opens
 * as a stream cut short before its first record: the header read is zero
 * past the bytes present, next returns 0 and trace_stream_cut_short is
 * true. */
int trace_stream_open(const char *path, struct trace_stream **out,
                      struct trace_err *err);
void trace_stream_close(struct trace_stream *s);

/* The file header as read (borrowed). */
const struct cht_file_header *trace_stream_header(const struct trace_stream *s);

/* Next record: 1 with *rec set (borrowed until the next call), 0 at the end
 * of the file, negative on malformed input (message in trace_stream_error).
 * Records of known types are checked to hold their fixed part and the
 * variable part their counts announce; unknown types are returned as they
 * are.  A file that ends inside a chunk ends the stream with 0 and sets
 * trace_stream_cut_short.  Errors are sticky. */
int trace_stream_next(struct trace_stream *s, const struct cht_rec **rec);

/* The chunk the last record came from (borrowed) and the file offset of its
 * header. */
const struct cht_chunk_header *trace_stream_chunk(const struct trace_stream *s);
uint64_t trace_stream_chunk_offset(const struct trace_stream *s);

/* Records that follow the last one returned in the same chunk, without
 * consuming them: the i-th next record (i from 0), or NULL. */
const struct cht_rec *trace_stream_peek(const struct trace_stream *s, unsigned i);
/* Consumes n peeked records. */
void trace_stream_skip(struct trace_stream *s, unsigned n);

/* After 0 from next: true if the file ended inside a chunk; the reason and
 * offset are in trace_stream_error. */
bool trace_stream_cut_short(const struct trace_stream *s);
const char *trace_stream_error(const struct trace_stream *s);
const char *trace_stream_path(const struct trace_stream *s);

/* Bytes of the file read so far and its total size. */
uint64_t trace_stream_bytes_read(const struct trace_stream *s);
uint64_t trace_stream_file_size(const struct trace_stream *s);

/* ---- a trace directory ------------------------------------------------- */

struct trace;

/* Opens a trace directory: reads commhint.meta (program, site tables).
 * TRACE_ERR_NOT_TRACE if dir does not exist, is not a directory or has no
 * commhint.meta (the message says when rank files are there anyway).  A
 * meta file cut short keeps what it holds. */
int trace_open(const char *dir, struct trace **out, struct trace_err *err);
void trace_close(struct trace *t);

const char *trace_dir(const struct trace *t);
/* Ranks in MPI_COMM_WORLD, 0 if unknown; trace_open refuses a meta file
 * that claims more than 2^20 (or fewer than 0). */
int trace_world_size(const struct trace *t);
uint64_t trace_run_id(const struct trace *t);
const struct cht_file_header *trace_meta_header(const struct trace *t);
/* If the meta file ends inside a chunk (trace_open keeps the records before
 * the cut; site tables after it are unknown, so their sites read as
 * unknown), the message saying where ("... file=DIR/commhint.meta
 * offset=N ..."), borrowed until close; else NULL. */
const char *trace_meta_cut_short(const struct trace *t);
/* Program path (argv[0] as an absolute path), its argument count and the
 * i-th argument; build id bytes (may be 0 long). */
const char *trace_program(const struct trace *t);
int trace_argc(const struct trace *t);
const char *trace_argv(const struct trace *t, int i);
const uint8_t *trace_build_id(const struct trace *t, size_t *len);
/* Bytes of the rank's stream file, 0 if it has none (for progress and
 * for spreading ranks over processes). */
uint64_t trace_rank_file_size(const struct trace *t, int rank);
/* True if anything exists at the rank's stream file name (a directory or FIFO
 * there is refused when opened, "not a regular file"). */
bool trace_has_rank(const struct trace *t, int rank);
/* Path of a rank's stream file (borrowed until close). */
const char *trace_rank_path(const struct trace *t, int rank);

/* ---- decoded events of one rank ---------------------------------------- */

struct trace_site_info {
    uint32_t id;          /* global site id */
    const char *file;     /* source file as in the debug info ("" if unknown) */
    const char *func;
    uint32_t line;
    uint16_t col;
    uint8_t kind;         /* enum cht_site_kind */
    uint8_t op;           /* enum cht_site_op */
    uint32_t flags;       /* enum cht_site_flag */
    uint32_t loop;        /* global id of the innermost enclosing loop, CHT_NONE */
    uint32_t naccess;
    const struct cht_access *access; /* naccess entries */
    uint32_t cost;        /* static cost of one execution, CHT_COST_* units
                             (trace-format.h); 1 from tables without costs */
    /* An MPI call in one calling context (TRACE_CURSOR_CONTEXTS): the path
     * from the call up through its callers, NULL for the pass's own sites
     * (then the call is known by its line only) */
    const struct trace_callctx *ctx;
    /* its innermost enclosing loop (`loop`), NULL if none or unknown */
    const struct trace_loop_info *loop_info;
    /* it computes a condition of a branch other statements are control
     * dependent on (a CHT_DEP_CONTROL target of the table's dependence
     * section; false without one); it may compute values too */
    bool condition;
};

/* A calling context of an MPI call site (docs/trace-format.md, "Call
 * paths"): frames[0] is the call itself (the site's location), each next
 * frame the call that led to the one before, inlined calls included, as
 * far as the recorded path and the program's own code go (at most
 * 1 + trace_set_call_depth frames; `main` ends it).  A context site has
 * the location, kind and accesses of its pass site `site` and an id of
 * its own (TRACE_CTX_SITE_BASE and above), the same for the same frames
 * on a rank. */
struct trace_callctx {
    uint32_t site;        /* the pass's site id of the call */
    uint32_t nframes;     /* >= 2 */
    const struct trace_srcframe *frames;
    /* which frame the hints of this context are shown at, 0 (the call)
     * until the analysis decides (search/report/contexts.c) */
    uint32_t anchor;
};
#define TRACE_CTX_SITE_BASE 0xc0000000u
#define TRACE_CTX_DEPTH 8 /* frames above the call a context keeps unless told */

struct trace_loop_info {
    uint32_t id;          /* global loop id */
    const char *file;
    const char *func;
    uint32_t line;
    uint16_t col;
    uint16_t depth;
    uint32_t parent;      /* global id of the enclosing loop, CHT_NONE */
    const struct trace_loop_info *parent_info; /* that loop, NULL if none */
};

enum trace_ev_kind {
    TRACE_EV_COMP = 1,  /* computation: CHT_REC_COMP or CHT_REC_RANGES */
    TRACE_EV_MPI = 2,   /* an MPI call with its follower records */
    TRACE_EV_LOOP = 3   /* loop enter/iter/exit (only if asked for) */
};

/* One level of an iteration vector: `iter`-th iteration (from 1) of `loop`. */
struct trace_iter {
    uint32_t loop;
    uint32_t reserved;
    uint64_t iter;
};

struct trace_range {
    uint64_t addr;
    uint64_t len;   /* bytes */
    bool write;     /* false: read */
};

struct trace_event {
    int kind;                /* enum trace_ev_kind */
    int rank;
    uint32_t thread;         /* writer thread index */
    uint64_t index;          /* ordinal of the event among the rank's COMP and MPI
                                events, from 0 (so it does not depend on
                                TRACE_CURSOR_LOOPS); a LOOP event carries the
                                index the next COMP/MPI event will get */
    uint32_t site;           /* global site id or CHT_NONE */
    const struct trace_site_info *site_info; /* NULL if unknown */
    /* iteration vector of the writing thread at this event, outermost first
     * (for a LOOP event: after applying it).  Per thread, ENTER pushes
     * {loop, 0}, ITER adds one to the innermost instance of the loop (or
     * pushes {loop, 1} if the loop is not on the stack, e.g. a stream that
     * starts inside it), EXIT pops down to and including the innermost
     * instance (ignored if absent); deeper than 256 is a format error. */
    uint32_t depth;
    const struct trace_iter *iters;
    /* TRACE_EV_COMP: the ranges read and written, in access order.  For a
     * COMP record of a site with no known table the lengths are 0 (and
     * site_info NULL); an atomic read-modify-write access is one range with
     * write = true.  An address count that differs from the site's naccess
     * is a format error. */
    uint32_t nranges;
    const struct trace_range *ranges;
    /* TRACE_EV_COMP: the record's stamp, 0 but in a validation run
     * (COMMHINT_STMT_CLOCK=1): when the event was recorded, in time-stamp
     * counter ticks modulo 2^32 (cht_rec_comp.reserved; docs/dependence.md,
     * "Estimated time of computation events") */
    uint32_t stamp;
    /* TRACE_EV_MPI */
    const struct cht_rec_mpi *mpi;
    uint32_t ncomplete;
    const struct cht_rec_complete *const *complete;
    const struct cht_rec_blocks *blocks[2]; /* [0] send side, [1] receive side, or NULL */
    const struct cht_rec_comm *newcomm;     /* communicator created by the call, or NULL */
    /* Memory the call touches through other arguments (CHT_REC_ARGS):
     * during the call, and held until the request it started completes. */
    uint32_t nargs, nheld;
    const struct trace_range *args, *held;
    /* CHT_MPI_UNTRACED: the MPI function called (CHT_REC_CALLNAME), or NULL */
    const char *call_name;
    /* The thread's CPU time at the call's entry and exit (CHT_REC_CPU: an
     * oversubscribed host), ns; both 0 if not recorded */
    uint64_t cpu_enter, cpu_exit;
    /* The return addresses of the frames above the caller (CHT_REC_PATH),
     * innermost first; 0 and NULL if not recorded.  With
     * TRACE_CURSOR_CONTEXTS, site and site_info are those of the call's
     * calling context when it has one (trace_site_info.ctx). */
    uint32_t npath;
    const uint64_t *path;
    /* The call's register and control dependences: the sites whose most
     * recent execution before it computed a value it uses (an argument)
     * or a condition deciding whether it runs (docs/dependence.md).
     * producers_known is false for a site whose table has no dependence
     * section (built by an older pass) or no table. */
    bool producers_known;
    uint32_t nproducers;
    const uint32_t *producers; /* global site ids, sorted; borrowed until close */
    /* TRACE_EV_LOOP */
    int loop_kind;           /* enum cht_loop_kind */
    uint32_t loop;           /* global loop id */
};

struct trace_cursor;

enum trace_cursor_flag {
    TRACE_CURSOR_LOOPS = 1u << 0, /* also return TRACE_EV_LOOP events */
    TRACE_CURSOR_RUNS = 1u << 1,  /* trace_cursor_next_run may return runs
                                     (not with TRACE_CURSOR_LOOPS) */
    TRACE_CURSOR_CONTEXTS = 1u << 2, /* an MPI event with a call path gets the site of
                                        its calling context (trace_site_info.ctx) */
    TRACE_CURSOR_ROWS = 1u << 3      /* with TRACE_CURSOR_RUNS: the rows of a loop nest
                                        may come as one run (trace_run.rows) */
};

/* Frames above an MPI call that calling contexts keep (TRACE_CTX_DEPTH
 * unless set; 0: none, every call keeps its pass site).  Set before the
 * first cursor with TRACE_CURSOR_CONTEXTS opens: contexts are made once
 * per rank. */
void trace_set_call_depth(struct trace *t, unsigned frames);

/* The deepest loop stack a cursor accepts (deeper is a format error). */
#define TRACE_MAX_LOOP_DEPTH 256

/* A run: computation events that repeat with constant strides, as a
 * CHT_REC_REPEAT stands for them, handed over without expanding them.
 * It holds reps * period events, indices first .. first + reps*period - 1;
 * event t is phase p = t % period of repetition j = t / period, that is
 * ph[p].ev with index first + t, the address of range k advanced by
 * j * ph[p].stride[k] bytes (modulo 2^64) and the iteration count of level
 * l by j * ph[p].diter[l].  A reader returns a run only where that is
 * exactly what expanding the REPEAT gives: the loop records between the
 * events change the iteration vector by the same amount every repetition.
 * A REPEAT_COL's irregular addresses (taken from its column) have no
 * stride: for such a range k, ph[p].addr[k] holds its address in each
 * repetition (reps entries; ph[p].addr[k][0] is ev.ranges[k].addr) and
 * stride[k] is 0; trace_run_addr gives either kind. */
struct trace_run_phase {
    struct trace_event ev;   /* the phase's event in repetition 0 (TRACE_EV_COMP) */
    const int64_t *stride;   /* ev.nranges entries */
    const uint64_t *diter;   /* ev.depth entries */
    const uint64_t *const *addr; /* NULL if every range is strided, else ev.nranges
                                    entries, NULL for a strided range */
    /* a run of rows' inner phase (struct trace_rows): per range, NULL
     * (irregular) or its address in iteration 0 of each row; and per
     * level, the iteration vector's change from one row to the next */
    const uint64_t *const *row_addr;
    const uint64_t *row_diter;
};

/* Range k's address in repetition j of a run's phase (not of a run of rows). */
static inline uint64_t trace_run_addr(const struct trace_run_phase *ph, uint32_t k, uint64_t j)
{
    return ph->addr && ph->addr[k] ? ph->addr[k][j]
                                   : ph->ev.ranges[k].addr + j * (uint64_t)ph->stride[k];
}

/* A run of the rows of a loop nest (a CHT_REC_ROWS record's, with
 * TRACE_CURSOR_ROWS): trace_run.rows set, ph[0 .. nb) the between phases
 * and ph[nb .. nb + ni) the inner ones.  Row i is trips[i] iterations, each
 * an event of every inner phase, then, unless it is the last row and
 * !between_last, an event of every between phase; its first event is
 * event at[i] of the run (at[nrows]: the events).  Inner phase q's event
 * in iteration m of row i: range k at row_addr[k][i] + m * stride[k], or,
 * irregular, at addr[k][itb[i] + m] (itb[i]: the iterations of the rows
 * before); iteration level l at ev.iters[l] + i * row_diter[l] + m *
 * diter[l].  Between phase p's event in row i: range k at ev.ranges[k] +
 * i * stride[k], level l at ev.iters[l] + i * diter[l]. */
struct trace_rows {
    uint64_t nrows;          /* at least 1 */
    uint32_t nb, ni;         /* between and inner phases (ni at least 1) */
    bool between_last;
    const uint64_t *trips;   /* nrows entries, each at least 1 */
    const uint64_t *at;      /* nrows + 1 entries */
    const uint64_t *itb;     /* nrows + 1 entries */
};

/* Where event t of a run of rows is: its row (*i), its phase (*p) and its
 * iteration in the row (*m; 0 for a between event). */
static inline void trace_rows_locate(const struct trace_rows *w, uint64_t t, uint64_t *i, uint32_t *p,
                                     uint64_t *m)
{
    uint64_t lo = 0, hi = w->nrows - 1;
    while (lo < hi) { /* the last row whose first event is at or before t */
        uint64_t mid = (lo + hi + 1) / 2;
        if (w->at[mid] <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    uint64_t u = t - w->at[lo], in = w->trips[lo] * w->ni;
    *i = lo;
    if (u < in) {
        *p = w->nb + (uint32_t)(u % w->ni);
        *m = u / w->ni;
    } else {
        *p = (uint32_t)(u - in);
        *m = 0;
    }
}

struct trace_run {
    uint64_t first;          /* index of its first event */
    uint64_t reps;           /* repetitions, at least 1 (a run of rows: 1) */
    uint32_t period;         /* events per repetition, 1 .. CHT_REPEAT_PERIOD_MAX (a run of
                                rows: its phases, nb + ni) */
    const struct trace_run_phase *ph; /* period entries */
    const struct trace_rows *rows;    /* a run of rows, or NULL */
};

/* The events of a run. */
static inline uint64_t trace_run_events(const struct trace_run *r)
{
    return r->rows ? r->rows->at[r->rows->nrows] : r->reps * r->period;
}

/* Event t (0 <= t < trace_run_events) of a run, written to *ev with its
 * ranges in `ranges` (room for ph[p].ev.nranges, at most
 * CHT_REPEAT_MAX_ADDRS) and its iteration vector in `iters` (room for
 * ph[p].ev.depth, at most TRACE_MAX_LOOP_DEPTH). */
void trace_run_event(const struct trace_run *r, uint64_t t, struct trace_event *ev,
                     struct trace_range *ranges, struct trace_iter *iters);

/* Opens a streaming cursor over one rank's events.  TRACE_ERR_NOT_FOUND if
 * the rank has no stream file; TRACE_ERR_MISMATCH if its run id differs from
 * the meta file's. */
int trace_cursor_open(struct trace *t, int rank, unsigned flags,
                      struct trace_cursor **out, struct trace_err *err);
void trace_cursor_close(struct trace_cursor *c);

/* Next event: 1 with *ev set (borrowed until the next call), 0 at the end,
 * negative on malformed input (message in trace_cursor_error). */
int trace_cursor_next(struct trace_cursor *c, const struct trace_event **ev);
const char *trace_cursor_error(const struct trace_cursor *c);

/* Like trace_cursor_next, but with TRACE_CURSOR_RUNS a repeating stretch
 * of computation events may come as one run: 2 with *run set (borrowed
 * until the next call) and *ev NULL; 1 with *ev set and *run NULL for an
 * event; 0 at the end; negative on malformed input.  Which stretches come
 * as runs is the reader's choice (a REPEAT or REPEAT_COL record's whole
 * repetitions, its first one only if its events' iteration vectors lie on
 * the lines of the next ones; its last partial one comes as events); the
 * events are the same either way. */
int trace_cursor_next_run(struct trace_cursor *c, const struct trace_event **ev,
                          const struct trace_run **run);

/* After the end: true if the stream had no clean end (the rank died or was
 * killed); trace_cursor_error then says where it was cut. */
bool trace_cursor_cut_short(const struct trace_cursor *c);

/* The register and control dependences of any site of this rank, as
 * trace_event.producers gives them for MPI events: 1 with *ids (sorted,
 * borrowed until the trace is closed) and *n set, 0 if unknown,
 * TRACE_ERR_NOMEM. */
int trace_cursor_site_producers(const struct trace_cursor *c, uint32_t site, const uint32_t **ids,
                                uint32_t *n);

/* Site and loop lookup by global id for this rank (NULL if unknown). */
const struct trace_site_info *trace_cursor_site(const struct trace_cursor *c, uint32_t id);
const struct trace_loop_info *trace_cursor_loop(const struct trace_cursor *c, uint32_t id);

/* Counters so far. */
struct trace_cursor_stats {
    uint64_t records;            /* all records, follower records included */
    uint64_t comp_events;
    uint64_t mpi_events;
    uint64_t loop_records;
    uint64_t accesses;           /* ranges in computation events */
    uint64_t chunks;             /* chunks read */
    uint64_t lost_records;       /* reported by CHT_REC_LOST */
    uint64_t bytes_stored;       /* bytes of the file read: file header, chunk
                                    headers and compressed payloads */
    uint64_t bytes_raw;          /* decompressed record bytes */
    uint64_t t_first, t_last;    /* ns, first MPI enter and last MPI exit (0 if none) */
    uint32_t threads;            /* distinct writer threads seen */
    bool clean_end;              /* CHT_REC_END seen */
    struct {                     /* CHT_REC_CLOCK samples: [0] MPI_Init, [1] MPI_Finalize */
        uint64_t mono_ns, real_ns;
        bool valid;
    } clock[2];
    struct {                     /* from the MPI_Init clock sample (v5); 0 if unknown */
        uint32_t cpus;           /* CPUs the rank may run on */
        uint32_t node_ranks;     /* ranks on its host, as the launcher said (0: unknown) */
        uint32_t host_id;        /* hash of the host's name (0: unknown) */
    } host;
    int32_t exit_status;         /* from CHT_REC_END, -1 if unknown */
};
void trace_cursor_stats(const struct trace_cursor *c, struct trace_cursor_stats *out);

/* ---- symbolisation ------------------------------------------------------ */

#define TRACE_MAX_INLINE 8

struct trace_srcframe {
    const char *file;  /* borrowed until trace_close */
    const char *func;
    uint32_t line;
    uint32_t col;
};

/* A code address as a source location: frames[0] is the innermost (the
 * statement itself); frames[1..] are the call sites it was inlined into. */
struct trace_srcloc {
    unsigned nframes;
    struct trace_srcframe frames[TRACE_MAX_INLINE];
};

/* Maps a return address recorded in this rank's stream (cht_rec_mpi.ret_addr)
 * to a source location using the DWARF of the module that contained it
 * (modules as recorded by CHT_REC_MODULE so far; the call is looked up at
 * ret_addr - 1).  Returns 1 if found, 0 if the address has no line
 * information (err says why), negative on error (message in err):
 * TRACE_ERR_NOT_FOUND if no recorded module contains the address.  If the
 * binary on disk has another GNU build id than the one recorded, the lookup
 * is still made and *out filled, but TRACE_ERR_MISMATCH is returned with
 * "the binary changed since the run: ..." so callers can warn (lines may be
 * wrong).  Strings live until trace_close.  Not thread-safe per trace. */
int trace_cursor_symbolize(struct trace_cursor *c, uint64_t ret_addr,
                           struct trace_srcloc *out, struct trace_err *err);

/* Same for a file offset-free address in an ELF file on disk: `pc` is a
 * link-time virtual address of `path` (no -1 adjustment here).  Used by the
 * above and by tests.  With a trace, opened files are cached in it and the
 * strings live until trace_close; with t == NULL the file is opened for this
 * call only and the strings live until the next t == NULL call in the same
 * thread.  0 also for a file without DWARF; TRACE_ERR_NOT_FOUND if the file
 * does not exist. */
int trace_symbolize_file(struct trace *t, const char *path, uint64_t pc,
                         struct trace_srcloc *out, struct trace_err *err);

/* ---- names ------------------------------------------------------------- */

const char *trace_mpi_call_name(int call);   /* "MPI_Send", ... or "MPI_?" */
/* The blocking call a call id is a form of: nonblocking (MPI_Ibcast),
 * persistent (MPI_Bcast_init, MPI_Send_init), partitioned, matched-probe and
 * nonblocking-neighbourhood ids map to MPI_Bcast, MPI_Send, MPI_Recv,
 * MPI_Probe, MPI_Neighbor_*...; every other id to itself. */
int trace_mpi_call_base(int call);
/* The nonblocking call a persistent request's start behaves as: a record
 * with CHT_MPIF_STARTED under MPI_Send_init is an MPI_Isend, MPI_Recv_init
 * and MPI_Precv_init an MPI_Irecv, MPI_Bcast_init an MPI_Ibcast,
 * MPI_Neighbor_alltoall_init an MPI_Ineighbor_alltoall...; every other id
 * maps to itself. */
int trace_mpi_call_started(int call);
/* The call an MPI event is to the analysis: its record's call id, the
 * nonblocking call of a persistent request's start (trace_mpi_call_started)
 * CHT_MPI_CLOCK for an untraced call of a function that reads a clock, and
 * CHT_MPI_EXTERN for one of any other function not MPI's (a call into code
 * built without the pass). */
int trace_event_call(const struct trace_event *ev);
/* The name of the call as the program made it, from its record's aux and
 * flags: "MPI_Send_c" for a large-count call, "MPI_Start(MPI_Send_init)" for
 * a start of a persistent request. */
const char *trace_mpi_call_label(int call, uint32_t flags, char *buf, size_t n);
const char *trace_mpi_op_name(int op);       /* "MPI_SUM", ... */
const char *trace_site_op_name(int op);      /* "fadd", ... */
const char *trace_site_kind_name(int kind);  /* "comp", "memcpy", ... */
/* A communicator id: "world", "self", "unknown", or "0x..." written into
 * buf (n bytes); returns the name. */
const char *trace_comm_name(uint64_t id, char *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* COMMHINT_TRACE_READER_H */
