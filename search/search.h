/* search.h - the searches for optimisation opportunities: the one public
 * header of search/.
 *
 * Per rank, an engine takes the rank's events (struct dg_event, in trace
 * order) and finds
 *   - overlap: for each blocking communication event c, the computation
 *     events between the last event c depends on and c (backward window)
 *     and between c and the first event that depends on c (forward window);
 *   - aggregation: groups of blocking sends to the same rank that can be
 *     sent as one message once every send is moved as early as its
 *     dependences allow.
 * docs/dependence.md defines both exactly.  Two engines compute the same
 * results: the streaming one (one pass, memory bounded by the touched
 * footprint, the horizon and the open windows) and the reference one
 * (the paper's algorithms literally, whole rank in memory, quadratic).
 *
 * Results of all ranks are then merged into hints (struct search_report),
 * ranked by estimated saving, which the CLI and the GUI present.
 *
 * Ownership: results and reports are owned by the caller and freed with
 * their _free functions; site and loop info pointers in them are borrowed
 * from the trace and live until trace_close.  Functions return 0 or a
 * negative enum trace_status.
 */
#ifndef COMMHINT_SEARCH_H
#define COMMHINT_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "depgraph.h"
#include "trace-reader.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SEARCH_DEFAULT_HORIZON (1u << 18) /* events */
#define SEARCH_DEFAULT_MAX_BOXES 8
#define SEARCH_BOX_DEPTH 8 /* innermost levels kept in a box */

enum search_engine_kind {
    SEARCH_ENGINE_STREAMING = 0,
    SEARCH_ENGINE_REFERENCE = 1
};

struct search_opts {
    int engine;          /* enum search_engine_kind */
    uint64_t horizon;    /* events a window may reach from its call; 0 = default */
    unsigned max_boxes;  /* iteration boxes kept per list; 0 = default */
    bool expand_runs;    /* hand runs to the engine event by event (the
                            results are the same: for checking and measuring) */
};

/* ---- iteration-vector boxes ------------------------------------------------ */

/* A box of iteration vectors: at each level, iterations lo..hi of a loop.
 * Vectors deeper than SEARCH_BOX_DEPTH keep their innermost levels. */
struct search_box {
    uint32_t depth;
    struct {
        uint32_t loop;  /* global loop id */
        uint32_t line;  /* source line of the loop, 0 until resolved */
        uint64_t lo, hi;
    } dim[SEARCH_BOX_DEPTH];
};

/* A compressed set of iteration vectors, fed in increasing event order: a
 * vector extends the last box when it is the next iteration at one level
 * and equal at the others; boxes merge the same way.  At most max boxes are
 * kept; vectors that fit none once the list is full are counted in `more`. */
struct search_boxes {
    uint32_t n;
    uint32_t cap;
    uint64_t more;
    struct search_box *box;
};

int search_boxes_add(struct search_boxes *b, uint32_t depth, const struct trace_iter *iters,
                     unsigned max);
void search_boxes_free(struct search_boxes *b);
bool search_boxes_equal(const struct search_boxes *a, const struct search_boxes *b);
/* "(1, 1, 1..10)" style text of box i into buf; returns buf. */
char *search_box_format(const struct search_box *box, char *buf, size_t size);

/* ---- per-rank results ----------------------------------------------------- */

enum search_stmt_flag {
    SEARCH_STMT_BEFORE = 1u << 0, /* some of its events are in a backward window */
    SEARCH_STMT_AFTER = 1u << 1   /* some are in a forward window */
};

/* A statement (site) whose events can overlap a communication call site. */
struct search_stmt {
    uint32_t site;
    uint32_t flags;        /* enum search_stmt_flag */
    uint32_t site_flags;   /* enum cht_site_flag (CONDITIONAL...) */
    uint64_t events;       /* distinct events of the site in the call's windows */
    uint64_t total;        /* events of the site in the rank's trace */
    uint64_t time_ns;      /* estimated time of those events */
    struct search_boxes iters;
    const struct trace_site_info *info; /* filled by search_run_rank, else NULL */
};

/* The time span of one instance's windows, for display (the viewer's
 * timeline): ns of the rank's CLOCK_MONOTONIC, estimated from the gaps. */
struct search_window {
    uint64_t t_call;       /* t_enter of the call */
    uint64_t t_lo, t_hi;   /* start of its backward window, end of its forward one */
};
#define SEARCH_MAX_WINDOWS 4096 /* kept per call site (the first ones) */

/* An instance of a call whose start can move earlier: from the start of
 * its backward window (the end of the last event it depends on) to the
 * call.  Starting a send (a receive) that much earlier shortens the wait
 * of its receive (its send) on the other rank (docs/dependence.md,
 * "Estimated saving"). */
struct search_lead {
    uint64_t index;        /* event index of the call */
    uint64_t span_ns;      /* ns: t_enter of the call - estimated start of its backward window */
};

/* One communication call site and the computation that can overlap it. */
struct search_overlap {
    uint32_t site;
    uint16_t call;         /* enum cht_mpi_call */
    uint8_t role;          /* enum dg_role */
    uint64_t instances;    /* dynamic instances of the call */
    uint64_t with_window;  /* instances whose windows hold computation */
    uint64_t truncated;    /* instances with a window cut at the horizon */
    uint64_t comm_ns;      /* sum of the instances' time in MPI */
    uint64_t comp_ns;      /* sum of the instances' window computation time */
    uint64_t saving_ns;    /* sum of min(comm, window computation) per instance */
    struct search_boxes iters; /* iteration vectors of instances with a window */
    uint32_t nstmts;
    struct search_stmt *stmts; /* sorted by site */
    const struct trace_site_info *info;
    uint32_t nleads;
    struct search_lead *leads; /* instances with a non-empty backward window and known
                                  times, in order */
    /* display only (streaming engine; not compared between engines) */
    uint32_t nwindows;
    struct search_window *windows; /* instances with a window, in order */
};

/* Groups of sends (same comm and destination) with the same member sites. */
struct search_group {
    uint64_t comm;
    int32_t peer;          /* destination world rank */
    uint32_t nsites;
    uint32_t *sites;       /* distinct member sites, in order of first member */
    uint64_t groups;       /* dynamic groups (2 or more sends each) */
    uint64_t members;      /* sends in them */
    uint64_t bytes;        /* bytes sent by them */
    uint64_t send_ns;      /* measured time of those sends */
    uint32_t min_size, max_size;
    const struct trace_site_info **info; /* nsites entries, filled by search_run_rank */
};

/* A dynamic aggregation group that delays one of its sends past a
 * blocking call (a call that may wait for another rank): whether that can
 * deadlock is decided across ranks (docs/dependence.md, "Deadlock safety"). */
struct search_group_check {
    uint32_t group;        /* index in the rank's groups */
    uint32_t nmembers;
    uint64_t *members;     /* event indices of its sends, trace order */
    uint32_t ncross;
    uint64_t *cross;       /* event indices of the blocking calls crossed, in order */
};
#define SEARCH_CHECK_MAX 64 /* members and crossings kept per check */

/* Source location of a site id of this rank (filled by search_run_rank). */
struct search_siteinfo {
    uint32_t site;
    const struct trace_site_info *info;
};

/* The per-rank data of a hint kind that has no fields of its own in
 * struct search_rank_result (a kind added by one file: search/rank/kind.h,
 * docs/kinds.md); the built-in kinds keep theirs in the typed fields. */
struct search_kind; /* opaque outside search/ */
struct search_kind_data {
    const struct search_kind *kind;
    void *data;            /* owned by the result, freed by the kind */
};

struct search_rank_result {
    int rank;
    uint64_t events;       /* COMP + MPI events analysed */
    uint64_t comp_events, mpi_events;
    uint64_t t_first, t_last; /* ns: first MPI enter, last MPI exit (0 if none) */
    double msg_latency_ns; /* per-message cost from this rank's blocking sends */
    uint32_t noverlaps;
    struct search_overlap *overlaps; /* sorted by site */
    uint32_t ngroups;
    struct search_group *groups;     /* sorted by (comm, peer, sites) */
    uint32_t nchecks;
    struct search_group_check *checks; /* by first member */
    uint32_t nkind_data;
    struct search_kind_data *kind_data; /* other kinds' data, at most one entry per kind */
    /* cross-rank inputs (filled by search_run_rank; not compared between engines) */
    struct dg_mpilog log;            /* the rank's MPI log */
    uint32_t nsiteinfo;
    struct search_siteinfo *siteinfo; /* sorted by site: every site in the log */
    /* engine facts (not compared between engines) */
    uint64_t peak_bytes;   /* largest memory the engine held */
    bool cut_short;        /* the rank's trace had no clean end */
};

void search_rank_result_free(struct search_rank_result *r);

/* The data kind k keeps in r (kind_data), NULL if none.  Borrowed: it
 * lives as long as r. */
void *search_rank_result_kind_data(const struct search_rank_result *r, const struct search_kind *k);

/* Source location of a site of this rank, or NULL (binary search in
 * siteinfo, then the site references of the hint kinds' results). */
const struct trace_site_info *search_site_info(const struct search_rank_result *r, uint32_t site);

/* Whether two results are identical (engine facts aside); if not, writes
 * the first difference into why. */
bool search_rank_result_equal(const struct search_rank_result *a,
                              const struct search_rank_result *b, char *why, size_t size);

/* ---- engines ---------------------------------------------------------------- */

struct search_engine;

int search_engine_create(const struct search_opts *o, int rank, struct search_engine **out);
/* Feeds the rank's next event (indices consecutive from 0). */
int search_engine_feed(struct search_engine *e, const struct dg_event *ev);
/* Feeds a run of computation events (first index: the one expected next). */
int search_engine_feed_run(struct search_engine *e, const struct dg_run *r);
/* Ends the rank and hands over its result; destroys the engine. */
int search_engine_finish(struct search_engine *e, struct search_rank_result **out);
/* Frees an engine that is not finished. */
void search_engine_destroy(struct search_engine *e);

/* Analyses one rank of a trace: cursor, builder and engine, then resolves
 * site and loop ids to source lines.  progress (may be NULL) is called now
 * and then with the bytes of the rank file read so far and its size.
 * Errors fill err. */
typedef void (*search_progress_fn)(void *ctx, uint64_t done, uint64_t total);
int search_run_rank(struct trace *t, int rank, const struct search_opts *o,
                    search_progress_fn progress, void *ctx,
                    struct search_rank_result **out, struct trace_err *err);

/* ---- per-message cost ---------------------------------------------------------- */

/* Per-message cost of blocking sends, fed in trace order: a least-squares
 * fit of time = latency + bytes * per_byte, and the fastest send. */
struct search_msgcost {
    uint64_t n;
    double sx, sy, sxx, sxy;
    double min_ns;    /* time of the fastest send */
    double min_bytes; /* its size */
};
void search_msgcost_add(struct search_msgcost *m, uint64_t bytes, uint64_t ns);
/* The cost one message fewer saves: the fastest send's time, less what its
 * bytes cost at the fitted per-byte rate when it is 1 KiB or more (below
 * that the bytes cost nothing measurable, and a fit over a few small sizes
 * is noise); the rate is clamped at 0, and 0 with a single message size.
 * The fastest send waited least for its receiver, so it is the closest to
 * the pure per-message overhead.  0 without sends. */
double search_msgcost_latency(const struct search_msgcost *m);

/* ---- hints across ranks ------------------------------------------------------- */

enum search_hint_kind {
    SEARCH_HINT_OVERLAP = 1,
    SEARCH_HINT_AGGREGATE = 2,
    SEARCH_HINT_COLLECTIVE = 3
};

enum search_hint_flag {
    SEARCH_HINT_CONDITIONAL = 1u << 0,     /* related code is control dependent */
    SEARCH_HINT_SOME_RANKS = 1u << 1,      /* holds on some of the ranks only */
    SEARCH_HINT_SOME_ITERATIONS = 1u << 2, /* holds on some instances only */
    SEARCH_HINT_TRUNCATED = 1u << 3        /* some windows reached the horizon */
};

enum search_related_role {
    SEARCH_REL_BEFORE = 1, /* overlap: can move after the call (backward window) */
    SEARCH_REL_AFTER = 2,  /* overlap: can run before the wait (forward window) */
    SEARCH_REL_MEMBER = 3, /* aggregation: another send of the group */
    SEARCH_REL_SEND = 4,   /* collective: a sending call of the pattern (Sendrecv too) */
    SEARCH_REL_RECV = 5,   /* collective: a receiving call of the pattern */
    SEARCH_REL_COLL = 6    /* collective: another collective call merged into it */
};

struct search_related {
    const char *file;
    const char *func;
    uint32_t line, col;
    int role;                /* enum search_related_role */
    uint64_t events;         /* dynamic events (summed over ranks) */
    uint64_t total;          /* events of those statements in the ranks' traces */
    uint64_t time_ns;        /* estimated time (max over ranks) */
    bool conditional;
    struct search_boxes iters; /* from the lowest rank it holds on */
};

/* The estimated saving of an overlap hint on one rank: its calls' own
 * (overlapped with computation) plus the waits of this rank for the calls
 * of other ranks that the hint starts earlier. */
struct search_rank_saving {
    int rank;                /* world rank */
    uint64_t saving_ns;      /* ns, partner_ns included */
    uint64_t partner_ns;     /* ns */
};

struct search_hint {
    int kind;                /* enum search_hint_kind */
    uint16_t call;           /* enum cht_mpi_call */
    const char *file, *func;
    uint32_t line, col;
    int nranks;
    int *ranks;              /* sorted world ranks it holds on */
    const char *collective;  /* MPI collective to use, or NULL */
    uint64_t comm_ns;        /* time of the call(s) (max over ranks) */
    uint64_t comp_ns;        /* overlappable computation time (max over ranks) */
    uint64_t saving_ns;      /* estimated saving (max over ranks) */
    uint64_t partner_ns;     /* overlap: the part of saving_ns that is shorter waits of
                                other ranks for the calls, started earlier (same rank) */
    int nby_rank;
    struct search_rank_saving *by_rank; /* overlap: every rank with a saving, by rank */
    double severity;         /* saving / run time, 0..1 */
    uint64_t instances;      /* overlap: call instances; aggregation: groups (summed) */
    uint64_t with_window;    /* overlap: instances with a window (summed) */
    uint64_t members;        /* aggregation: sends in the groups (summed) */
    uint64_t bytes;          /* aggregation: bytes in the groups (summed) */
    uint32_t flags;          /* enum search_hint_flag */
    uint32_t nrelated;
    struct search_related *related;
    struct search_boxes iters; /* overlap: instances with a window, lowest rank */
    char *message;           /* one sentence, without location */
    /* wait states measured at the call site (summed over ranks, ns) */
    uint64_t late_sender_ns, late_receiver_ns, wait_collective_ns;
    int root;                /* collective: the root to use (world rank), -1 if none */
    char *explain;           /* dropped hints: why, the chain of messages (else NULL) */
};

/* Wait states of one MPI call site, over all ranks (docs/waitstates.md). */
struct search_waitsite {
    const char *file, *func;
    uint32_t line, col;
    uint16_t call;           /* enum cht_mpi_call */
    int nranks;              /* ranks that made the call */
    uint64_t calls;          /* dynamic calls, summed over ranks */
    uint64_t time_ns;        /* time in the call, summed */
    uint64_t late_sender_ns;     /* receive waited for a send that started later */
    uint64_t late_receiver_ns;   /* send waited for a receive that started later */
    uint64_t wait_collective_ns; /* collective waited for the last member to arrive */
};

struct search_report_opts {
    unsigned kinds;          /* bit (1 << kind); 0 = all */
    int rank;                /* only hints holding on this rank; -1 = all */
    uint64_t min_saving_ns;
    unsigned top;            /* keep the first N; 0 = all */
};

struct search_report {
    int world_size;
    int nranks;              /* ranks analysed */
    uint64_t run_ns;         /* longest rank span between first and last MPI call */
    uint64_t events;         /* events analysed, all ranks */
    uint32_t nhints;
    struct search_hint *hints; /* ranked: saving, then kind, file, line */
    uint32_t nfiltered;      /* hints dropped by the options */
    /* across ranks */
    uint32_t ndropped;
    struct search_hint *dropped; /* hints a cross-rank check forbids, each with explain */
    uint64_t unmatched_sends, unmatched_recvs, incomplete_colls;
    bool clocks_aligned;     /* rank clocks related through CLOCK records (else wait
                                states use logical order only: 0) */
    double imbalance;        /* (1 - mean/max) / (1 - 1/p) of the ranks' computation time */
    uint64_t comp_mean_ns, comp_max_ns;
    uint32_t nwaits;
    struct search_waitsite *waits; /* sorted by total wait, largest first */
};

/* Merges per-rank results into ranked hints (results of ranks missing from
 * the array are not needed; world_size gives p for the rank flags). */
int search_report_build(struct search_rank_result *const *ranks, int n, int world_size,
                        const struct search_report_opts *o, struct search_report **out);
void search_report_free(struct search_report *r);

/* Order of hints by location: kind, file, line, column (for outputs that
 * must not depend on the times that rank them). */
int search_hint_location_cmp(const struct search_hint *a, const struct search_hint *b);

/* A duration as people write it ("1.5ms", "500 us", "2s", "100ns"; a
 * plain number is ns; empty is 0) into *out ns; false if it is not one. */
bool search_parse_duration(const char *s, uint64_t *out);

/* The message of a hint, rebuilt (malloc'ed, caller frees; NULL on
 * out-of-memory); without times when with_times is false, so that it can
 * be compared across runs. */
char *search_hint_message(const struct search_hint *h, bool with_times);

/* ---- names and formats shared by every front end (search/report/names.c) -------- */

/* A hint kind as the outputs name it. */
struct search_kind_desc {
    int kind;               /* enum search_hint_kind */
    const char *name;       /* "overlap": --kind, JSON "kind", "[overlap]" in text */
    const char *rule_id;    /* SARIF rule name */
    const char *description; /* SARIF rule text: what the kind finds, one sentence */
};
unsigned search_kind_count(void);
/* The i-th kind (0 <= i < search_kind_count(), in enum order), else NULL. */
const struct search_kind_desc *search_kind_at(unsigned i);
/* The kind's entry, or NULL if unknown. */
const struct search_kind_desc *search_kind_desc(int kind);
/* Its name, "?" if unknown; and the kind of a name, 0 if none. */
const char *search_kind_name(int kind);
int search_kind_from_name(const char *name);

/* A role of a related line (enum search_related_role). */
struct search_role_desc {
    int role;
    const char *name;       /* "before": JSON, --stable text */
    const char *text;       /* "can move after the call": text output (lines of a kind) */
    const char *text_one;   /* the same for one line ("send of the pattern") */
};
const struct search_role_desc *search_role_desc(int role);
const char *search_role_name(int role);         /* "?" if unknown */
const char *search_role_text(int role, bool one); /* "related" if unknown */

/* A duration as every output prints it: "0", "850 ns", "1.2 ms", "38 us"
 * (two significant digits below 10 units, none above; a value that would
 * round to 1000 takes the next unit).  Returns buf. */
char *search_format_ns(char *buf, size_t size, uint64_t ns);

/* ---- parallel analysis (search/parallel/: pack.c, and driver.c with MPI) ---------------- */

/* The ranks of a trace analysed by the P processes of an MPI job (mpiexec
 * -n P), each rank by one process, the results gathered on process 0.
 *
 * A result travels packed: little-endian; a header (u32 magic "CHRR", u16
 * version, u16 0, u64 total bytes), the scalar fields, then each array as
 * a u32 count and its items: each per-rank hint kind's part in the
 * registry's order (overlaps with their boxes, statements, leads and
 * windows; groups with their sites, checks with their members and
 * crossings; then any other kind's), the MPI log's rank, clocks and
 * records, the siteinfo site ids.  Site info
 * pointers do not travel: each site reference carries one byte, 1 if it was
 * resolved where it was packed.  Loop lines travel inside the boxes. */

/* Packs r into a malloc'ed buffer (*buf, *len; the caller frees).  Returns
 * 0 or TRACE_ERR_NOMEM. */
int search_rank_result_pack(const struct search_rank_result *r, void **buf, size_t *len);

/* Unpacks a buffer of exactly len bytes into a new result (freed with
 * search_rank_result_free).  Every count and length is checked against the
 * bytes left; TRACE_ERR_FORMAT (or _VERSION, _NOMEM) with err filled (err
 * may be NULL) if the buffer is not a whole packed result.  Site infos of
 * references resolved where the result was packed point to a placeholder
 * (empty file and function) until search_run_parallel resolves them again;
 * the others are NULL. */
int search_rank_result_unpack(const void *buf, size_t len, struct search_rank_result **out,
                              struct trace_err *err);

/* Calls MPI_Init (unless MPI is already initialised) and tells this
 * process's number and the number of processes.  Only for --parallel:
 * nothing else in commhint initialises MPI. */
int search_parallel_begin(int *argc, char ***argv, int *proc, int *nprocs, struct trace_err *err);
/* Calls MPI_Finalize if search_parallel_begin called MPI_Init.  Every
 * process calls it, on every path. */
void search_parallel_end(void);

/* Collective: whether ok holds on every process, and (root_ok, may be
 * NULL) on process 0.  Lets processes that failed before the analysis
 * leave together with the others instead of leaving them waiting.  Without
 * search_parallel_begin it returns ok. */
bool search_parallel_agree(bool ok, bool *root_ok);

/* A rank that could not be analysed (search_run_parallel). */
struct search_rank_failure {
    int rank;
    int status;          /* negative enum trace_status from search_run_rank */
    char msg[512];       /* its message, "" if none */
};

/* Collective: analyses the ranks with a stream file, spread over the
 * processes (greedy by stream file size, decided by process 0), and
 * gathers the results on process 0: there *out (malloc'ed array of *n
 * results in rank order, site infos resolved through t as search_run_rank
 * does; the caller frees each result and the array) and *failed (malloc'ed,
 * *nfailed entries in rank order, may be NULL if not wanted).  progress (may
 * be NULL) is called with this process's bytes read and its share's total.
 * On the other processes *n = 0 and *nfailed = 0.  Returns 0, or a negative
 * status with err filled: on process 0 for a failure on any process (a
 * process that fails still takes part in every collective call and sends
 * its status); on another process for its own failure only. */
int search_run_parallel(struct trace *t, const struct search_opts *o, search_progress_fn progress,
                        void *ctx, struct search_rank_result ***out, int *n,
                        struct search_rank_failure **failed, int *nfailed, struct trace_err *err);

#ifdef __cplusplus
}
#endif

#endif /* COMMHINT_SEARCH_H */
