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
#include <stdio.h>

#include "trace-reader.h"

struct dg_xchg; /* depgraph.h: the processes of a cross-rank stage spread over them */

struct dg_change;

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
    int call_depth;      /* frames above an MPI call its calling context keeps
                            (trace_set_call_depth): 0 = TRACE_CTX_DEPTH, negative =
                            none (every call known by its own line) */
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
    uint64_t span_ns;      /* ns: t_enter of the call - estimated start of its backward window
                              (0: none, or unknown) */
    uint64_t after_ns;     /* ns: the computation time of its forward window */
    uint64_t fw_end;       /* event index of the forward window's last event (index: empty) */
    /* from the rank's MPI log, taken into the result with it (the kind's
     * log_facts; the merge reads these, not the log): the call's first
     * record's position (UINT32_MAX: not in the log, or its times are not
     * known), its times, and the exit of the last MPI record of its
     * forward window after it (0 if none): the wait goes no earlier */
    uint32_t pos;
    uint64_t t_enter, t_exit, fw_exit;
};

/* A statement that bounded some windows of a call site other than the one
 * the fix takes (search_overlap.back_others, fwd_others). */
#define SEARCH_OV_OTHERS 4
struct search_bound {
    uint32_t site;
    bool other;            /* it ran in another iteration of a loop around the call */
    uint64_t n;            /* instances it bounded */
    const struct trace_site_info *info;
};

/* The wait of the other end of a lead's message that the lead's earlier
 * start shortens (search_overlap.partner). */
struct search_partner_wait {
    uint32_t lead;         /* index in the overlap's leads */
    int32_t rank;          /* the rank that waited */
    uint64_t wait_ns;      /* how long it waited (late sender, late receiver) */
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
    /* the needs-buffer variant of a send site (docs/dependence.md, "Needs
     * a buffer per message"): its forward windows continue past the events
     * that only overwrite the send buffer; over_site is the first such
     * event of the first instance whose window grew (CHT_NONE otherwise).
     * It follows the plain entry of its site. */
    bool needs_buffer;
    uint32_t over_site;
    const struct trace_site_info *over_info;
    uint32_t nleads;
    struct search_lead *leads; /* instances with a non-empty backward window and known
                                  times, in order */
    /* where the fix goes (docs/dependence.md, "The fix"), over the
     * instances with a window: the statement the call most often depends
     * on last (the nonblocking call starts after it), and the one that most
     * often ends the forward window (the wait goes before it).  CHT_NONE if
     * unknown (most windows reach the horizon or the trace's start or
     * end).  Both engines compute them; not compared (search_rank_result_equal). */
    uint32_t dep_site, use_site;
    /* instances with a window (with_window) whose backward window is
     * empty (the call cannot start any earlier: the one start of the fix
     * must then be the call's own place), or whose forward one is (the
     * wait must be right after the call), bounded by another statement
     * than the fix's dep_site (use_site), which would then be wrong for
     * them; both engines count them.  The _outside ones are those whose
     * bound is outside every loop around the call (the call runs first in
     * its loop nest, or last), not in back_empty (fwd_empty): a start in
     * the iteration before ("the first one right before the loop") or a
     * wait in the next one ("the last one right after the loop") still
     * holds for them. */
    uint64_t back_empty, fwd_empty;
    uint64_t back_empty_outside, fwd_empty_outside;
    /* instances with a window whose forward one is empty because the next
     * call of the same site follows at once (halo_staging's receives of
     * the three fields: one channel, kept in order): not in fwd_empty,
     * since the edit makes that call nonblocking too and the posting
     * order keeps the channel's order; the merge checks that their
     * buffers differ */
    uint64_t fwd_chained;
    /* from the rank's MPI log (the kind's log_facts): whether consecutive
     * receives of the site on the rank never write overlapping buffers
     * (fwd_chained instances can then all be pending; false if the log
     * has none of them), and what of the call's arguments differs between
     * consecutive leads (enum search_fix_differs; BUF_ALTERNATES and
     * BUF_CHANGES as found on this rank alone) */
    bool recv_bufs_apart;
    uint8_t args_differ;
    /* from the other ranks' records (the kind's peer_facts, in the
     * cross-rank stage; not packed with the result, not compared): the
     * waits of the matched calls of the leads that are blocking sends or
     * receives, as the wait states measure them on the ranks' common
     * clock; only waits longer than 0, in lead order */
    uint32_t npartner;
    struct search_partner_wait *partner;
    /* also from the cross-rank stage: the collective instance of the first
     * lead's call (UINT32_MAX: none), whose members' call sites the stage
     * gathers (search_xrank_coll_sites) */
    uint32_t coll_inst;
    /* non-empty windows bounded by another statement than dep_site
     * (use_site), by statement (the SEARCH_OV_OTHERS with the lowest keys;
     * any more are counted in back_empty, fwd_empty): the merge keeps the
     * side only if each of them runs outside the loop the fix's place is
     * in (docs/dependence.md, "The fix") */
    uint8_t nback_others, nfwd_others;
    struct search_bound back_others[SEARCH_OV_OTHERS], fwd_others[SEARCH_OV_OTHERS];
    bool dep_earlier;      /* dep_site runs in an earlier iteration of a loop around the call */
    /* the loops (bit id % 32) that run a backward window's bound but not
     * the call, over the instances whose window has room (both engines):
     * a start right before such a loop would leave the bound after it
     * (bound-in-helper.c: the barrier of each block, in a helper) */
    uint32_t dep_loops;
    bool use_later;        /* use_site runs in a later one */
    const struct trace_site_info *dep_info, *use_info;
    /* display only (streaming engine; not compared between engines) */
    uint32_t nwindows;
    struct search_window *windows; /* instances with a window, in order */
};

/* Groups of sends (same comm and destination) with the same member sites. */
struct search_group {
    uint64_t comm;
    int32_t peer;          /* destination world rank */
    uint16_t call;         /* MPI call of the first member (enum cht_mpi_call) */
    uint32_t nsites;
    uint32_t *sites;       /* distinct member sites, in order of first member */
    uint64_t groups;       /* dynamic groups (2 or more sends each) */
    uint64_t members;      /* sends in them */
    uint64_t bytes;        /* bytes sent by them */
    uint64_t send_ns;      /* measured time of those sends */
    uint32_t min_size, max_size;
    const struct trace_site_info **info; /* nsites entries, filled by search_run_rank */
    /* needs-buffer groups (docs/dependence.md, "Needs a buffer per
     * message"): only anti dependences on a member's send buffer were
     * crossed; buf_site is that member's site, over_site the first event
     * that overwrites it (both CHT_NONE otherwise) */
    bool needs_buffer;
    uint32_t buf_site, over_site;
    const struct trace_site_info *buf_info, *over_info;
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
    /* from the rank's MPI log (the kind's log_facts): the group applied
     * in the log, as the deadlock check replays it (search_hint_unsafe):
     * the records of its members before the last crossing, each moved
     * right after that crossing's records; the moves check_moves[move_off
     * .. move_off + nmoves) of the rank's result */
    uint32_t move_off, nmoves;
};
#define SEARCH_CHECK_MAX 64 /* members and crossings kept per check */

/* A dynamic group of sends: its first and last members (event indices);
 * the members are the channel's sends between them.  What the replay
 * model merges (docs/prediction.md). */
struct search_group_span {
    uint32_t group;        /* index in the rank's groups */
    uint64_t first, last;
    /* from the rank's MPI log (the kind's log_facts): the record of the
     * last member's send, which carries the group's bytes (UINT32_MAX:
     * not in the log), the first member's send to the same peer on the
     * same communicator, and the other members' sends merged into it:
     * the positions span_merged[merge_off .. merge_off + nmerged) of the
     * rank's result */
    uint32_t carry, first_send;
    uint32_t merge_off, nmerged;
};

/* A send merged into its span's carrying send (search_rank_result.
 * span_merged): its log position and its record's times (they bound what
 * merging it away saves: search/xrank/predict.c, change_bound). */
struct search_merged_send {
    uint32_t pos;
    uint64_t t_enter, t_exit;
};

/* The sends a rank made at one call site (search_rank_result.site_sends). */
struct search_site_sends {
    uint32_t site;
    uint64_t sends;
};

/* Where the messages of a group span are received (the kind's peer_facts,
 * in the cross-rank stage): the rank and call site of the receive matched
 * with the carrying send and with the first member's (rank -1: not
 * matched), and the first pair of members whose receives pass a value on
 * (the earlier one's receive brought a count or buffer place the later
 * one's receive takes; arg_rank[0] -1: none). */
struct search_span_peers {
    int32_t carry_rank, first_rank;
    uint32_t carry_site, first_site;
    int32_t arg_rank[2];
    uint32_t arg_site[2];
};

/* Why a group of sends was closed before the next send of its channel
 * (docs/dependence.md, "What --explain says of closed groups"): the
 * closing event x against the member named (member_site). */
enum search_close_why {
    SEARCH_CLOSE_OTHER = 0,   /* x depends on the member otherwise */
    SEARCH_CLOSE_FENCE,       /* x is a fence: nothing moves across it */
    SEARCH_CLOSE_FLOW,        /* x reads bytes the member received */
    SEARCH_CLOSE_OUTPUT,      /* x writes bytes the member received */
    SEARCH_CLOSE_ANTI,        /* x writes the member's send buffer (no needs-buffer variant) */
    SEARCH_CLOSE_ANTI_WAITED, /* x overwrites the member's send buffer after the group passed
                                 aux, a call that may wait for another rank */
    SEARCH_CLOSE_NB_WAIT,     /* x may wait for another rank, and the group needs a buffer per
                                 message (the member's buffer overwritten at aux) */
    SEARCH_CLOSE_SEND_KEY,    /* x sends to the member's destination on its communicator */
    SEARCH_CLOSE_RECV_KEY,    /* x receives from the member's source on its communicator */
    SEARCH_CLOSE_RECV_ANY,    /* x receives from any source on that communicator */
    SEARCH_CLOSE_REQ_ALL,     /* x completes the requests of every member */
    SEARCH_CLOSE_REQ_PART     /* x acts on the member's request, not on every member's */
};
#define SEARCH_CLOSE_WHY_COUNT 12

/* Two consecutive sends of one channel (blocking sends, exchanges or
 * nonblocking sends) in different groups because an event x closed the
 * first one's group, summed per rank by everything but count.  Sites
 * are CHT_NONE when unknown (aux_site: when the reason names none). */
struct search_closed {
    uint32_t site;         /* last member of the closed group */
    uint32_t next_site;    /* the send that seeds the next group */
    uint32_t close_site;   /* x */
    uint32_t member_site;  /* the member x depends on */
    uint32_t aux_site;     /* ANTI_WAITED: the call that may wait; NB_WAIT: the overwrite */
    uint16_t call, next_call, member_call; /* enum cht_mpi_call */
    uint16_t close_call, aux_call;         /* enum cht_mpi_call, 0 for a statement */
    uint8_t why;           /* enum search_close_why */
    bool close_mpi, aux_mpi; /* x and aux are MPI calls */
    uint64_t count;        /* times on the rank */
    const struct trace_site_info *info, *next_info, *close_info, *member_info, *aux_info;
};
#define SEARCH_CLOSED_MAX 64 /* distinct closed pairs kept per rank (the smallest in order) */

/* Source location of a site id of this rank (filled by search_run_rank). */
struct search_siteinfo {
    uint32_t site;
    const struct trace_site_info *info;
};

/* The per-rank result of one rank (defined in search/rank/rank.h: the
 * front ends read it through these). */
struct search_rank_result;
/* World rank of the result. */
int search_rank_result_rank(const struct search_rank_result *r);
/* Its overlap call sites (sorted by site) and aggregation groups. */
const struct search_overlap *search_rank_overlaps(const struct search_rank_result *r, uint32_t *n);
const struct search_group *search_rank_groups(const struct search_rank_result *r, uint32_t *n);
/* Every site of its MPI log with its source location, sorted by site. */
const struct search_siteinfo *search_rank_sites(const struct search_rank_result *r, uint32_t *n);
/* Whether the rank's trace had no clean end. */
bool search_rank_cut_short(const struct search_rank_result *r);

/* Source location of a site of this rank, or NULL (binary search in
 * siteinfo, then the site references of the hint kinds' results). */
const struct trace_site_info *search_site_info(const struct search_rank_result *r, uint32_t site);

/* Progress of a long step: bytes of a rank file read so far, and its size
 * (or of the share of rank files a process analyses). */
typedef void (*search_progress_fn)(void *ctx, uint64_t done, uint64_t total);

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
    SEARCH_HINT_TRUNCATED = 1u << 3,       /* some windows reached the horizon */
    SEARCH_HINT_NEEDS_BUFFER = 1u << 4,    /* aggregation, overlap: holds if each message gets its own buffer */
    SEARCH_HINT_NOT_MERGED = 1u << 5,      /* dropped aggregation: two sends a closed group kept apart */
    SEARCH_HINT_TWO_RANKS = 1u << 6,       /* aggregation on a 2-rank run: every message goes to the other
                                              rank, whatever the calls name */
    SEARCH_HINT_ONE_PASS = 1u << 7         /* overlap: a start or wait placed outside the loop that makes the
                                              call, a loop this run went through once each time */
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
    bool condition;          /* overlap: it computes a branch condition (trace_site_info.condition) */
    struct search_boxes iters; /* from the lowest rank it holds on */
    /* the outermost loop around it in its function (its region), NULL if
     * none; borrowed from the trace */
    const struct trace_loop_info *loop;
};

/* Related lines summarised as the regions a person names (docs/
 * dependence.md, "Regions"): the lines of one role in one loop nest (its
 * outermost loop in their function), or in one function outside its loops. */
struct search_region {
    const char *file, *func;
    uint32_t loop_line, loop_col; /* its outermost loop, 0: the function's code outside loops */
    uint32_t line_lo, line_hi;    /* of its related lines */
    uint32_t nlines;              /* related lines in it */
    int role;                     /* enum search_related_role */
    uint64_t events, total;       /* summed over its lines */
    uint64_t time_ns;             /* summed over its lines */
    bool conditional;             /* some line is */
};

/* The estimated saving of an overlap hint on one rank: its calls' own
 * (overlapped with computation) plus the waits of this rank for the calls
 * of other ranks that the hint starts earlier. */
struct search_rank_saving {
    int rank;                /* world rank */
    uint64_t saving_ns;      /* ns, partner_ns included */
    uint64_t partner_ns;     /* ns */
};

/* Where an edit of a fix goes: before or after a statement, or at it (the
 * statement itself changes). */
enum search_fix_where { SEARCH_FIX_AT = 0, SEARCH_FIX_BEFORE = 1, SEARCH_FIX_AFTER = 2 };

struct search_fix_loc {
    const char *file, *func; /* NULL file: unknown */
    uint32_t line, col;
    int where;               /* enum search_fix_where */
    bool other_iteration;    /* start: in the iteration before the call's; wait: in the one after */
    bool loop;               /* the line is a loop's: before or after the whole loop, not its body */
    /* with other_iteration: the loop around the call whose iteration is
     * meant, where the first start (before it) or the last wait (after
     * it) goes; NULL file: not known statically (a loop in a caller) */
    const char *outer_file;
    uint32_t outer_line;
    /* start with other_iteration: what of the call's arguments differs
     * from one call to the next (enum search_fix_differs), so the call
     * started an iteration early must be given the next call's */
    uint8_t differs;
    /* wait: the place is in a function the call's path does not go
     * through (heat's diffuse, called for two fields): that function runs
     * for other callers too, so the wait goes right before its next call,
     * or, with split, into it (it gets the request, MPI_REQUEST_NULL from
     * its other callers) */
    bool off_path;
    /* the place is after (start) or before (wait) a whole loop that holds
     * every related line of its side (with off_path: some), only some of
     * whose executions can move: the loop must be split for the edit to
     * overlap them (jacobi's update loop, whose rows next to the halos
     * read the data) */
    bool split;
    /* outside the loop around the call in the call's function (hint's
     * call_loop): the edit serves every call the loop makes, one request
     * each (MPI_Waitall) */
    bool per_call;
    /* start: the statement computes the condition of a branch the call
     * depends on: the place is inside the branch that leads to the call
     * (the line after an `if` may be its other branch) */
    bool branch;
    /* the global ids of the loop at `line` (with loop) and of the outer
     * loop (with other_iteration), CHT_NONE if none or not known: which
     * related lines the edit places between the start and the wait
     * (search_fix_places) */
    uint32_t loop_id, outer_id;
    /* internal, while the fix is made: the loops around the place in its
     * function (innermost first; NULL: none) when loops_known, else the
     * related line the place was taken from (NULL: not known); a loop
     * around the call but not around the wait runs its later iterations
     * between them (search_fix_places) */
    const struct trace_loop_info *loops;
    bool loops_known;
    const struct search_related *rel;
};

enum search_fix_differs {
    SEARCH_FIX_BUF_ALTERNATES = 1u << 0, /* the buffer alternates between two (swapped arrays) */
    SEARCH_FIX_BUF_CHANGES = 1u << 1,    /* the buffer changes otherwise */
    SEARCH_FIX_PEER_CHANGES = 1u << 2,   /* the source or destination changes */
    SEARCH_FIX_COUNT_CHANGES = 1u << 3,  /* the size changes */
    SEARCH_FIX_TAG_CHANGES = 1u << 4     /* the messages' tags change (a receive's: from its status) */
};

/* The edit that applies an overlap hint (docs/dependence.md, "The fix"):
 * the nonblocking call starts at `start`, its wait goes at `wait`, and the
 * hint's related computation ends up between them.  The other kinds' edits
 * are spelled from the hint's own fields (search_fix_text). */
struct search_fix {
    struct search_fix_loc start, wait;
};

struct search_hint {
    int kind;                /* enum search_hint_kind */
    uint16_t call;           /* enum cht_mpi_call */
    const char *file, *func;
    uint32_t line, col;
    /* the call's calling context when the hint is shown above the call
     * (file..col are then its anchor frame, frames[ctx->anchor]: the
     * helper's caller), NULL when shown at the call itself; borrowed from
     * the trace.  search_hint_stack gives the path either way. */
    const struct trace_callctx *ctx;
    /* overlap: the call path recorded for the call (the lowest rank's
     * context, every frame up to main; NULL if none was recorded): which
     * functions call the one the hint is in (the fix) */
    const struct trace_callctx *path;
    /* overlap: the innermost loop around the MPI call in its own function
     * (NULL if none): a start or wait placed outside it serves every call
     * the loop makes (one request each) */
    const struct trace_loop_info *call_loop;
    /* overlap: the call is control dependent on a branch in its function
     * (CHT_SITEF_CONDITIONAL): a start or wait moved out of the branch
     * keeps its condition (the fix says so) */
    bool call_conditional;
    /* overlap: an argument of the call is a local variable the function
     * assigns where the trace shows no event (CHT_SITEF_ARG_VARS): a start
     * moved above the call in the same iteration may cross its
     * assignment (the fix says so) */
    bool call_arg_vars;
    /* overlap of a collective: where another member of its instances makes
     * it (NULL if every member makes it at the hint's line): that call must
     * become nonblocking too, a blocking and a nonblocking collective do
     * not match */
    const char *coll_peer_file;
    uint32_t coll_peer_line;
    int nranks;
    int *ranks;              /* sorted world ranks it holds on */
    const char *collective;  /* MPI collective to use, or NULL */
    uint64_t comm_ns;        /* time of the call(s) (max over ranks) */
    uint64_t comp_ns;        /* overlappable computation time (max over ranks) */
    uint64_t saving_ns;      /* what the hint is ranked by: predicted_ns if predicted, else
                                the kind's estimate (max over ranks) */
    uint64_t partner_ns;     /* overlap: the part of saving_ns that is shorter waits of
                                other ranks for the calls, started earlier (same rank) */
    int nby_rank;
    struct search_rank_saving *by_rank; /* overlap: every rank with a saving, by rank */
    double severity;         /* saving / run time, 0..1 */
    uint64_t instances;      /* overlap: call instances; aggregation: groups (summed) */
    uint64_t with_window;    /* overlap: instances with a window (summed) */
    uint64_t members;        /* aggregation: sends in the groups (summed) */
    uint64_t site_calls;     /* aggregation: sends made at the member lines on its ranks (0: unknown) */
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
    /* aggregation or overlap with SEARCH_HINT_NEEDS_BUFFER: the send whose
     * buffer is overwritten, and the statement that overwrites it */
    const char *buf_file, *over_file;
    uint32_t buf_line, over_line;
    bool over_frees;         /* that statement frees the buffer (free, operator delete) */
    /* aggregation: the member whose first send comes last in a group (where
     * the one send goes; NULL if the group has one site), and whether it
     * runs in a later iteration than the first member (a line above it in
     * the same function: the loop around them went round) */
    const char *last_file;
    uint32_t last_line;
    bool last_wraps;
    /* aggregation with SEARCH_HINT_NOT_MERGED (dropped): the next send of
     * the channel, which seeded a group of its own, and the event that
     * closed the group before it; why is enum search_close_why */
    const char *next_file, *close_file;
    uint32_t next_line, close_line;
    uint16_t next_call;
    uint8_t why;
    /* the replay model's prediction (docs/prediction.md): how much earlier
     * the last rank finishes once the hint is applied (0 if it finishes no
     * earlier); predicted is false where the model could not apply it */
    bool predicted;
    uint64_t predicted_ns;
    uint64_t estimated_ns;   /* the kind's own estimate (saving_ns before the prediction) */
    uint64_t slower_ns;      /* predicted: how much later the last rank finishes (0: not later) */
    /* internal: the changes the hint asks for, as the model applies them */
    struct dg_change *changes;
    uint32_t nchanges;
    struct search_fix fix;   /* overlap: where the nonblocking call starts and waits */
    /* aggregation, on the lowest rank's first group (NULL/0 if not matched):
     * where the receiver takes the first member's message (where the one
     * message is received) and the last member's */
    const char *recv_first_file;
    uint32_t recv_first_line;
    const char *recv_file;
    uint32_t recv_line;
    /* aggregation: a member's receive whose count or buffer comes from what
     * an earlier member's receive brings (recv_arg_use_* uses the value
     * recv_arg_* received; NULL/0 if none): the one receive must take the
     * largest message, or probe for its size */
    const char *recv_arg_file, *recv_arg_use_file;
    uint32_t recv_arg_line, recv_arg_use_line;
    uint32_t nregions;
    struct search_region *regions; /* overlap: the related lines as regions, largest first (executions) */
    /* collective: the edit, one sentence (search_fix_text gives it; NULL:
     * the generic one), and the loop the collective replaces (the root's
     * loop of calls; NULL if none: docs/collectives.md, "The fix") */
    char *coll_fix;
    const struct trace_loop_info *coll_loop;
};

/* Wait states of one MPI call site, over all ranks (docs/waitstates.md). */
struct search_waitsite {
    const char *file, *func;
    uint32_t line, col;
    const struct trace_callctx *ctx; /* as search_hint.ctx */
    uint16_t call;           /* enum cht_mpi_call */
    int nranks;              /* ranks that made the call */
    uint64_t calls;          /* dynamic calls, summed over ranks */
    uint64_t time_ns;        /* time in the call, summed */
    uint64_t late_sender_ns;     /* receive waited for a send that started later */
    uint64_t late_receiver_ns;   /* send waited for a receive that started later */
    uint64_t wait_collective_ns; /* collective waited for the last member to arrive */
};

/* The replay model of the run (docs/prediction.md): its fitted
 * parameters, how closely it reproduces the recorded run, and what all
 * hints of a kind, and all hints, save together. */
struct search_prediction {
    bool ok;                 /* the run was replayed */
    double lat_ns, ns_per_byte, o_ns, or_ns;
    uint64_t eager_max, samples;
    double slice_ns;         /* an oversubscribed host's slice (0: none, CPUs not modelled) */
    uint64_t slice_samples;  /* stretches off a CPU it was fitted from */
    double compute_scale;    /* bursts' scale (1: as traced; below: fitted to plain_ns) */
    bool plain_unfit;        /* plain_ns given, but the replay of the messages alone is longer:
                                predictions are for the traced run */
    uint64_t measured_ns;    /* the run: first MPI_Init return to the last rank's last call */
    uint64_t replayed_ns;    /* the same, replayed */
    double error;            /* (replayed - measured) / measured */
    double rank_error;       /* the largest such error of one rank */
    uint64_t kind_ns[4];     /* by enum search_hint_kind: its hints applied together */
    uint64_t all_ns;         /* all hints applied together */
    uint32_t applied;        /* hints the options' apply list selected */
    uint64_t applied_ns;     /* those applied together */
    /* POP efficiencies (docs/prediction.md, "POP metrics"), 0..1: useful =
     * a rank's time outside MPI calls; ideal = the run replayed on an
     * ideal network */
    uint64_t useful_avg_ns, useful_max_ns, ideal_ns;
    double load_balance;     /* avg useful / max useful */
    double comm_eff;         /* max useful / run */
    double serial_eff;       /* max useful / ideal */
    double transfer_eff;     /* ideal / run */
    double parallel_eff;     /* avg useful / run = load_balance * comm_eff */
};

struct search_report_opts {
    unsigned kinds;          /* bit (1 << kind); 0 = all */
    int rank;                /* only hints holding on this rank; -1 = all */
    uint64_t min_saving_ns;  /* only hints whose (predicted) saving is at least this */
    double min_saving_frac;  /* and at least this fraction of the run (0: none); hints
                                below either are counted as hidden */
    /* the replay model's parameters: fitted from the run unless set here */
    unsigned model_set;      /* bits: 1 model_lat_ns, 2 model_ns_per_byte, 4 model_o_ns, 8 model_or_ns,
                                16 model_slice_ns */
    double model_lat_ns, model_ns_per_byte, model_o_ns, model_or_ns, model_slice_ns;
    uint64_t model_eager;    /* bytes; 0: 8192 */
    uint64_t plain_ns;       /* the run's time without tracing (MPI_Init's return to the last
                                MPI_Finalize), if known: bursts are scaled to replay it */
    /* hints to predict together (search_prediction.applied_ns): a comma-
     * separated list of KIND:LINE or KIND:FILE:LINE (FILE: the path's last
     * components); NULL: none */
    const char *apply;
    unsigned top;            /* keep the first N; 0 = all */
    /* functions to show hints above (helpers around MPI calls), comma-
     * separated; a name with a leading '-' is never looked through; NULL:
     * the calling contexts alone decide (docs/dependence.md, "Call paths") */
    const char *helpers;
};

struct search_report {
    int world_size;
    int nranks;              /* ranks analysed */
    uint64_t run_ns;         /* longest rank span between first and last MPI call */
    uint64_t events;         /* events analysed, all ranks */
    uint32_t nhints;
    struct search_hint *hints; /* ranked: saving, then kind, file, line */
    uint32_t nfiltered;      /* hints dropped by the options */
    uint32_t nhidden;        /* of those: below the default threshold (search_predict_threshold) */
    struct search_prediction predict;
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
/* The same with the cross-rank stage spread over the processes of x (a
 * driver's stage): process 0 calls search_report_build_dist with every
 * result it has (their logs used for the ranks with owner[r] == 0), each
 * other process search_report_follow with its own ranks' results, and the
 * report is process 0's.  A failure on process 0 before the stage is met
 * by the others' failure; with one process it is search_report_build. */
int search_report_build_dist(struct search_rank_result *const *ranks, int n, int world_size,
                             const struct search_report_opts *o, const struct dg_xchg *x, const int *owner,
                             struct search_report **out);
int search_report_follow(struct search_rank_result *const *ranks, int n, int world_size,
                         const struct dg_xchg *x, const int *owner);
/* A process that cannot take part in the stage (process 0 failed before
 * it) says so to the others, who leave it with rc. */
void search_report_cancel(const struct dg_xchg *x, int rc);
void search_report_free(struct search_report *r);

/* Order of hints by location: kind, file, line, column (for outputs that
 * must not depend on the times that rank them). */
int search_hint_location_cmp(const struct search_hint *a, const struct search_hint *b);

/* Whether the MPI call site `info` (of any rank) is the hint's call as the
 * hint merged it: the same location, and for an overlap hint shown above
 * the call the same calling context down from its anchor; the column only
 * where both are known.  With related, also one of the hint's related MPI
 * calls (aggregation members, a pattern's sends and receives). */
bool search_hint_at_site(const struct search_hint *h, const struct trace_site_info *info, bool related);

/* The call path of a hint, from where it is shown down to the MPI call:
 * frame i of *n (i = 0: the hint's location; n - 1: the call).  One frame
 * (the hint's own location) without a context. */
struct trace_srcframe search_hint_frame(const struct search_hint *h, uint32_t i);
uint32_t search_hint_nframes(const struct search_hint *h);

/* A duration as people write it ("1.5ms", "500 us", "2s", "100ns"; a
 * plain number is ns; empty is 0) into *out ns; false if it is not one. */
bool search_parse_duration(const char *s, uint64_t *out);

/* The message of a hint, rebuilt (malloc'ed, caller frees; NULL on
 * out-of-memory); without times when with_times is false, so that it can
 * be compared across runs. */
char *search_hint_message(const struct search_hint *h, bool with_times);

/* The edit that applies h as one sentence starting "start ...", "pack
 * ...", "replace ..." (malloc'ed, caller frees; NULL on out-of-memory);
 * paths as search_display_path(relative) gives them. */
char *search_fix_text(const struct search_hint *h, bool relative);
/* The nonblocking form of a blocking call ("MPI_Isend" of MPI_Send) into
 * buf; "" if it has none. */
const char *search_nonblocking_name(uint16_t call, char *buf, size_t size);

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
/* The calls a hint holds on, of how many ("holds on N of M calls" with
 * SEARCH_HINT_SOME_ITERATIONS): overlap and collectives, the instances
 * with a window (matched); aggregation, the sends in its groups of those
 * made at its member lines. */
void search_hint_calls(const struct search_hint *h, uint64_t *held, uint64_t *of);
/* The caveat of SEARCH_HINT_TWO_RANKS, as the text and the viewer say it. */
#define SEARCH_TWO_RANKS_TEXT                                                                                   \
    "on this run's 2 ranks every message goes to the other rank: the calls may name different ranks on more"

/* The caveat of SEARCH_HINT_ONE_PASS. */
#define SEARCH_ONE_PASS_TEXT                                                                                    \
    "the loop around the call ran once each time in this run: whether a later iteration writes what a call "    \
    "still in flight reads or writes is not in the trace"

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
/* A reason a group was closed (enum search_close_why) as JSON names it:
 * "flow", "fence", ...; "?" if unknown. */
const char *search_close_why_name(int why);
const char *search_role_text(int role, bool one); /* "related" if unknown */

/* A duration as every output prints it: "0", "850 ns", "1.2 ms", "38 us"
 * (two significant digits below 10 units, none above; a value that would
 * round to 1000 takes the next unit).  Returns buf. */
char *search_format_ns(char *buf, size_t size, uint64_t ns);

/* ---- the report's formats (search/report/format*.c) ---------------------------------- */

/* In the order of `commhint hints --format=`: text, json, sarif. */
enum search_format { SEARCH_FORMAT_TEXT = 0, SEARCH_FORMAT_JSON = 1, SEARCH_FORMAT_SARIF = 2 };

struct search_format_opts {
    bool stable;           /* no times, hints by location, paths relative to the current directory */
    bool explain;          /* text: the dropped hints and why, after the hints */
    bool waits;            /* text: the wait states of every MPI call site */
    bool verbose;          /* text: every related line and note of a hint, not its regions */
    uint64_t horizon;      /* the engines' horizon (events; 0 = default), named by truncated hints */
    const char *trace_dir; /* JSON "trace" (its last component with stable) */
};
/* Writes rep to f as compiler-style notes (text, docs/dependence.md), one
 * JSON document (docs/hints-json.md) or SARIF 2.1.0.  Returns 0 or
 * TRACE_ERR_NOMEM; write errors are left in f (ferror). */
int search_report_write(FILE *f, const struct search_report *rep, int format, const struct search_format_opts *o);
/* len bytes of text to f with the control characters but newline and tab
 * written as \xHH: text that came from a trace (a file or function name)
 * cannot drive the terminal. */
void search_write_escaped(FILE *f, const char *s, size_t len);
/* How many of s's first len bytes search_write_escaped writes as they are:
 * the length of the prefix without a character it escapes. */
size_t search_escape_free(const char *s, size_t len);
/* s as a JSON string literal, quotes included. */
void search_json_string(FILE *f, const char *s);
/* Path p shown relative to the current directory when it lies below it and
 * relative is set, else as is.  Borrowed until the next call. */
const char *search_display_path(const char *p, bool relative);

/* ---- the analysis of a trace: the one entry point (search/analysis/) ----------------- */

/* What search_analyse tells the front end about a rank as it goes. */
enum search_warning {
    SEARCH_WARN_NO_STREAM = 1, /* the rank has no stream file: left out */
    SEARCH_WARN_FAILED = 2,    /* the rank could not be analysed: left out */
    SEARCH_WARN_CUT_SHORT = 3, /* the rank's trace has no clean end: what it recorded is used */
    SEARCH_WARN_NO_DEPS = 4    /* calls built by an older pass: no register or control dependences */
};
/* msg is one sentence with its facts ("rank 3 has no stream file and is
 * left out: file=..."), borrowed for the call; rank is -1 for a warning
 * about the run as a whole (SEARCH_WARN_NO_DEPS). */
typedef void (*search_warn_fn)(void *ctx, int rank, int what, const char *msg);
/* Progress of the per-rank stage: the world rank being analysed, its
 * index (from 1) of count (rank -1 and index 0 when a driver analyses
 * several at once), and the bytes read of all the rank files this process
 * analyses. */
typedef void (*search_analysis_progress_fn)(void *ctx, int rank, int index, int count, uint64_t done,
                                            uint64_t total);

/* A rank that could not be analysed. */
struct search_rank_failure {
    int rank;
    int status;          /* negative enum trace_status */
    char msg[512];       /* its message, "" if none */
};

/* Who runs the per-rank stage when it is not this process alone: the MPI
 * driver of --parallel (search/parallel/parallel.h).  run analyses the
 * ranks with a stream file and, on the leading process, hands over every
 * result (*out, *n; malloc'ed array in rank order) and failure (*failed,
 * *nfailed); elsewhere the results of the ranks this process analysed
 * (*nfailed = 0) and leader is false.  Every process then takes part in
 * the cross-rank stage, spread over the processes of stage's exchange
 * (depgraph's struct dg_xchg): *owner (valid until the driver's next run)
 * is the process that analysed each rank. */
struct search_driver {
    int (*run)(struct trace *t, const struct search_opts *o, search_progress_fn progress, void *ctx,
               struct search_rank_result ***out, int *n, struct search_rank_failure **failed,
               int *nfailed, bool *leader, struct trace_err *err);
    const struct dg_xchg *(*stage)(const int **owner);
};

struct search_analysis_opts {
    struct search_opts search;         /* per-rank engines */
    struct search_report_opts report;  /* which hints the report keeps */
    /* keep the ranks' results and MPI logs, matched across ranks, for the
     * calls, messages and windows of timelines (viewer, export); else they
     * are freed once the report is built */
    bool keep_ranks;
    search_warn_fn warn;               /* may be NULL */
    void *warn_ctx;
    search_analysis_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    const struct search_driver *driver;   /* NULL: every rank in this process */
};

/* The analysis of a trace: the report, and with keep_ranks the ranks'
 * results, calls and messages.  Owned by the caller (search_analysis_free);
 * it borrows the trace, which must stay open until then. */
struct search_analysis;

/* The memory limit of the analysis (the shadow memory of every rank it
 * analyses in this process) from COMMHINT_MAX_MEMORY, for the front ends to
 * call once before analysing: bytes, or with a K, M, G or T suffix;
 * unset: 4 GiB or half the machine's memory if that is less.  0, or -1 with
 * *bad pointing at a value that is not a size.  A rank that would pass the
 * limit fails with TRACE_ERR_LIMIT and is left out. */
int search_memory_limit_from_env(const char **bad);

/* Analyses every rank of t that has a stream file (each through its
 * engine, or spread over processes by o->driver), warns about the others,
 * then runs the cross-rank stage and builds the report.  Returns 0 with
 * *out set, or a negative status with err filled (one sentence): no rank
 * could be analysed, out of memory, a driver failure.  On a process of a
 * driver that is not the leader, *out has no report. */
int search_analyse(struct trace *t, const struct search_analysis_opts *o, struct search_analysis **out,
                   struct trace_err *err);
/* The same from per-rank results already computed (n results of a world of
 * world_size ranks, any order): borrowed, they must outlive the analysis. */
int search_analysis_from_results(struct search_rank_result *const *ranks, int n, int world_size,
                                 const struct search_analysis_opts *o, struct search_analysis **out,
                                 struct trace_err *err);
void search_analysis_free(struct search_analysis *a);

/* The report (NULL on a process that is not the driver's leader). */
const struct search_report *search_analysis_report(const struct search_analysis *a);
int search_analysis_world_size(const struct search_analysis *a);
/* The result of a world rank, NULL if it was not analysed (or without keep_ranks). */
const struct search_rank_result *search_analysis_rank(const struct search_analysis *a, int rank);
/* Whether a world rank has no stream file. */
bool search_analysis_rank_missing(const struct search_analysis *a, int rank);

/* The report again, with other report options (an apply list for the
 * replay model, another threshold), from the ranks' results an analysis
 * kept (keep_ranks); the per-rank engines do not run again.  0 with *out
 * (search_report_free), or a negative status: TRACE_ERR_ARG without kept
 * results, out of memory. */
int search_analysis_report_again(const struct search_analysis *a, const struct search_report_opts *o,
                                 struct search_report **out);

/* ---- comparing two runs (search/compare/, docs/compare.md) ---------------------------- */

/* Two reports of one program, before and after a change (or at two sizes),
 * set side by side.  Places (MPI call sites and hint locations, where
 * `commhint hints` shows them) are paired across the two runs without the
 * sources: files by the same path, else the same name, else the one file
 * left on each side (or as search_compare_opts.map says); places within a
 * file pair by function and call family (sends, receives, each collective,
 * completions: a nonblocking call is its blocking call's family), in
 * source order, as the longest common subsequence of places whose
 * messages' tags match (any, where the tags are not known).  Where a
 * function has another number of calls of a family after than before and
 * the tags do not single a pair out, its pairing is by order and flagged
 * (by_order). */
struct search_compare_opts {
    /* FILE=FILE pairs, comma-separated (the ends of the paths): the file of
     * the first run that the second's replaces; NULL: none */
    const char *map;
    double min_saving_frac;  /* hints shown: saving at least this share of their run */
    uint64_t min_saving_ns;  /* and at least this */
};

enum search_cmp_status { SEARCH_CMP_GONE = 0, SEARCH_CMP_REMAINS = 1, SEARCH_CMP_NEW = 2 };

struct search_cmp_hint {
    int status;                     /* enum search_cmp_status */
    const struct search_hint *before, *after; /* NULL on the side it is not on */
    bool place_gone;                /* gone: its call (or helper call) is not in the second run */
    bool by_order;                  /* its place was paired by order */
    /* its place in the other run (gone: where the call is now; new: where
     * it was), other_file NULL if not paired */
    const char *other_file;
    uint32_t other_line, other_col;
    uint16_t other_call;
};

struct search_cmp_site {
    const struct search_waitsite *before, *after; /* NULL: no such call site in that run */
    bool by_order;
};

struct search_cmp_file {
    const char *before, *after;     /* a pair, or one NULL: only in that run */
    bool by_map, by_name, by_rest;  /* how they were paired (none: the same path) */
};

/* Totals of one run (wait states summed over ranks and call sites). */
struct search_cmp_run {
    uint64_t run_ns;                /* the replay's measured run, else the longest rank span */
    uint64_t mpi_ns, late_sender_ns, late_receiver_ns, wait_collective_ns;
    uint64_t calls;
    int world_size;
    uint32_t shown;                 /* hints at or above the threshold */
};

struct search_comparison {
    const struct search_report *before, *after; /* borrowed */
    struct search_cmp_run run[2];
    uint32_t nfiles;
    struct search_cmp_file *files;
    uint32_t nhints;
    struct search_cmp_hint *hints;  /* gone, then remaining, then new; each by saving */
    uint32_t ngone, nremain, nnew;
    uint32_t nsites;
    struct search_cmp_site *sites;  /* by the largest change of time in MPI first */
    double min_saving_frac;         /* the options' threshold */
    uint64_t min_saving_ns;
    /* the replay of the first run with its gone hints applied together
     * (search_comparison_apply_list; filled by the caller) */
    bool predicted;
    uint32_t applied;
    uint64_t predicted_ns;
};

/* Builds the comparison of two analyses' reports (with keep_ranks, the
 * tags of each call site's messages tell its calls apart too); 0 with
 * *out, or a negative status (out of memory, TRACE_ERR_ARG for a bad map:
 * err says which). */
int search_compare(const struct search_analysis *before, const struct search_analysis *after,
                   const struct search_compare_opts *o, struct search_comparison **out, struct trace_err *err);
void search_comparison_free(struct search_comparison *c);
/* Whether a hint of a side is shown (at or above the threshold of the options). */
bool search_compare_shown(const struct search_comparison *c, int side, const struct search_hint *h);
/* The apply list of the gone hints that were shown ("overlap:FILE:LINE,..."
 * for search_report_opts.apply; malloc'ed; "" if none; NULL on out of memory). */
char *search_comparison_apply_list(const struct search_comparison *c);

struct search_compare_format_opts {
    bool stable;                    /* no times, relative paths (tests) */
    bool all;                       /* every site and hint, not only shown or changed ones */
    const char *before_dir, *after_dir;
};
/* Writes the comparison as text (SEARCH_FORMAT_TEXT) or JSON
 * (SEARCH_FORMAT_JSON, docs/compare.md). 0, or -1 on out of memory. */
int search_comparison_write(FILE *f, const struct search_comparison *c, int format,
                            const struct search_compare_format_opts *o);

/* ---- calls, messages and clocks of an analysis kept with keep_ranks ------------------- */

/* The class of an MPI call, as timelines colour it. */
enum search_call_class {
    SEARCH_CALL_SEND = 0,  /* sends and their nonblocking starts */
    SEARCH_CALL_RECV,      /* receives, Sendrecv, probes */
    SEARCH_CALL_COLL,      /* collectives, Barrier */
    SEARCH_CALL_WAIT,      /* Wait and Test calls */
    SEARCH_CALL_OTHER,     /* Init, Finalize, communicator management, ... */
    SEARCH_CALL_NCLASS
};
int search_call_class_of(uint16_t call); /* enum cht_mpi_call -> enum search_call_class */
const char *search_call_class_name(int cls); /* "send", "receive", ...; "?" if unknown */

/* The common clock of the ranks: one host's CLOCK_MONOTONIC as recorded,
 * or, when the ranks' clock samples say they ran on hosts whose
 * REALTIME - MONOTONIC offsets differ by more than 1 ms, each rank's times
 * mapped to CLOCK_REALTIME through its samples at MPI_Init and
 * MPI_Finalize (linear in between). */
enum search_clock { SEARCH_CLOCK_MONOTONIC = 0, SEARCH_CLOCK_REALTIME = 1 };
int search_analysis_clock(const struct search_analysis *a);
/* ns of rank's CLOCK_MONOTONIC on the common clock, from the earliest MPI
 * call of any rank (0 for earlier times, and for 0: unknown). */
uint64_t search_analysis_time(const struct search_analysis *a, int rank, uint64_t mono_ns);
/* End of the latest MPI call of any rank on that scale (ns). */
uint64_t search_analysis_end(const struct search_analysis *a);

/* One MPI call of a rank (one event of its MPI log). */
struct search_call {
    uint64_t index;        /* event index on the rank */
    uint16_t call;         /* enum cht_mpi_call */
    uint8_t cls;           /* enum search_call_class */
    bool timed;            /* the call recorded its times (else t_* are those of the end
                              of the call before, or of the rank's first time) */
    uint64_t t_enter, t_exit; /* ns on the common clock from the earliest call */
    uint64_t comm;         /* communicator id */
    uint32_t site;         /* site id of the call (its first part's) */
    const struct trace_site_info *info; /* its source location, NULL if unknown */
    uint32_t first, nparts; /* its parts: search_analysis_part(a, rank, first + k) */
    uint32_t ordinal;      /* k for the k-th call of the rank (from 0) */
};

/* A part of a call: one message sent or received, a collective, or the
 * call itself for calls that move nothing. */
enum search_part_kind {
    SEARCH_PART_OTHER = 0,
    SEARCH_PART_SEND = 1,
    SEARCH_PART_RECV = 2,
    SEARCH_PART_COLL = 3
};
struct search_part {
    int kind;              /* enum search_part_kind */
    int32_t peer;          /* SEND: destination, RECV: source, COLL: root or -1 */
    int32_t tag;           /* SEND/RECV, else -1 */
    uint64_t bytes;        /* SEND/RECV: of the message; COLL: the send side */
    uint64_t rbytes;       /* COLL: the receive side */
    int match_rank;        /* SEND/RECV: the rank of the matching end, -1 if unmatched */
    uint32_t match_part;   /* and its part (search_analysis_part) */
    uint32_t call;         /* the call this part belongs to (search_analysis_call) */
    uint32_t coll;         /* COLL: the instance (calls of one collective on all its ranks),
                              UINT32_MAX if unknown */
    uint32_t coll_members; /* COLL: ranks in that instance */
};

/* The calls of a rank in trace order (0 if not kept). */
uint32_t search_analysis_ncalls(const struct search_analysis *a, int rank);
const struct search_call *search_analysis_call(const struct search_analysis *a, int rank, uint32_t i);
/* The i-th part of a rank (0 <= i < search_analysis_nparts), filled into *out. */
uint32_t search_analysis_nparts(const struct search_analysis *a, int rank);
void search_analysis_part(const struct search_analysis *a, int rank, uint32_t i, struct search_part *out);
/* The first part of a rank at a source location (the part's own site: a
 * completion's receive parts carry their Irecv's): with call >= 0 the same
 * file, line, column and call, else the same file and line; UINT32_MAX if
 * none. */
uint32_t search_analysis_first_part_at(const struct search_analysis *a, int rank, const char *file,
                                       uint32_t line, uint32_t col, int call);
/* The first part of a rank at the hint's call (search_hint_at_site, its
 * related MPI calls too), UINT32_MAX if none. */
uint32_t search_analysis_first_part_of_hint(const struct search_analysis *a, int rank, const struct search_hint *h);
/* The source location of part i's own site (NULL if unknown). */
const struct trace_site_info *search_analysis_part_info(const struct search_analysis *a, int rank,
                                                        uint32_t i);
/* MPI calls of the rank the log has no record of (a Sendrecv with both
 * peers MPI_PROC_NULL leaves none). */
uint64_t search_analysis_unlogged_calls(const struct search_analysis *a, int rank);

/* A rank's run as the statistics count it: from the end of MPI_Init to the
 * start of MPI_Finalize (without them: its first MPI enter to its last MPI
 * exit), its time in MPI calls inside it (Init and Finalize left out, as
 * mpiP does) and the rest. */
struct search_rank_run {
    bool timed;           /* some call has times (else all 0) */
    uint64_t run_ns, mpi_ns, comp_ns;
    uint64_t calls;       /* MPI calls in it */
};
void search_analysis_rank_run(const struct search_analysis *a, int rank, struct search_rank_run *out);

#ifdef __cplusplus
}
#endif

#endif /* COMMHINT_SEARCH_H */
