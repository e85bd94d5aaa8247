/* depgraph.h - data dependences between the events of one rank: the one
 * public header of depgraph/.
 *
 * Three parts:
 *   - the event model the searches work on (struct dg_event): an event's
 *     byte ranges read and written, the MPI ordering keys it carries, its
 *     role, its times; built from trace events by a dg_builder, which
 *     applies the MPI read/write rules of docs/dependence.md (requests link
 *     a nonblocking call's buffer to the Wait/Test that completes it);
 *   - dg_depends(), the dependence relation itself on two events;
 *   - the streaming structures a search keeps instead of the trace: shadow
 *     memory (last writer and last reader of every byte touched, bounded by
 *     the touched footprint) and a watch set (which registered events does a
 *     new access conflict with).
 *
 * Plus what the cross-rank stage needs of each rank: its MPI log
 * (dg_logger), the logs matched across ranks (dg_match), the happens-before
 * order (dg_hb) and the clock map (dg_clockmap).
 *
 * Despite the name, no dependence graph is ever built: the trace is too
 * long for one.  The relation is asked of pairs of events as the searches
 * need it, and the streaming structures answer "which earlier event does
 * this access depend on" directly (docs/architecture.md).
 *
 * Ownership: events returned by dg_builder_convert are borrowed until the
 * next call on the same builder.  Functions return 0 or a negative
 * enum trace_status (trace-reader.h).
 */
#ifndef COMMHINT_DEPGRAPH_H
#define COMMHINT_DEPGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace-reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the event model ----------------------------------------------------- */

enum dg_kind {
    DG_COMP = 1, /* a computation statement */
    DG_MPI = 2   /* an MPI call */
};

/* What an MPI event is to the searches. */
enum dg_role {
    DG_ROLE_NONE = 0,    /* computation */
    DG_ROLE_SEND,        /* blocking send (Send, Ssend, Bsend, Rsend) */
    DG_ROLE_RECV,        /* blocking receive (Recv) */
    DG_ROLE_SENDRECV,    /* Sendrecv, Sendrecv_replace */
    DG_ROLE_COLL,        /* blocking collective that moves data */
    DG_ROLE_SYNC,        /* MPI_Barrier: ordered, moves no data, never a candidate */
    DG_ROLE_START,       /* nonblocking start: Isend, Irecv, ... */
    DG_ROLE_COMPLETE,    /* Wait/Test call that completed at least one request */
    DG_ROLE_PROBE,       /* Probe, Iprobe */
    DG_ROLE_FENCE,       /* Init, Finalize, Abort, communicator management:
                            nothing moves across it */
    DG_ROLE_OTHER        /* an MPI call that touches no data and orders nothing
                            (a Test that completed nothing, a call to MPI_PROC_NULL) */
};

/* A byte range [addr, addr + len) read or written.  Same layout as
 * struct trace_range. */
struct dg_range {
    uint64_t addr;
    uint64_t len;  /* bytes; 0 = unknown extent, never conflicts */
    bool write;
};

/* MPI ordering keys.  Two events whose keys conflict must keep their order
 * (docs/dependence.md): same class, same comm, and the same peer or either
 * peer DG_PEER_ANY. */
enum dg_key_class {
    DG_KEY_SEND = 1, /* comm, destination (world rank) */
    DG_KEY_RECV = 2, /* comm, source (world rank or DG_PEER_ANY) */
    DG_KEY_COLL = 3, /* comm; peer 0 */
    DG_KEY_REQ = 4   /* comm = request id; peer 0: a start and its completion */
};
#define DG_PEER_ANY INT32_MIN

struct dg_key {
    uint32_t cls;   /* enum dg_key_class */
    int32_t peer;
    uint64_t comm;
};

struct dg_event {
    uint64_t index;        /* position among the rank's events, from 0, no gaps */
    uint32_t site;         /* global site id, CHT_NONE if unknown */
    uint8_t kind;          /* enum dg_kind */
    uint8_t role;          /* enum dg_role */
    uint16_t call;         /* enum cht_mpi_call (MPI events), else 0 */
    uint32_t site_flags;   /* enum cht_site_flag of the site (CONDITIONAL, ...) */
    uint8_t site_op;       /* enum cht_site_op of the site */
    uint32_t weight;       /* computation events: share of the time of its gap,
                              >= 1 (dg_comp_weight); 0 for MPI events */
    uint32_t nranges;
    const struct dg_range *ranges;
    uint32_t nkeys;
    const struct dg_key *keys;
    /* MPI events */
    uint64_t t_enter, t_exit; /* ns; 0 if unknown */
    uint64_t comm;         /* communicator id (sends: the channel's) */
    int32_t peer;          /* send destination (world rank) or CHT_RANK_NONE */
    uint64_t bytes;        /* send: bytes of the message */
    /* iteration vector, outermost first (borrowed like the event) */
    uint32_t depth;
    const struct trace_iter *iters;
    /* MPI events: register and control dependences, the indices of the
     * most recent events of the sites that computed a value the call uses
     * or a condition deciding whether it runs (docs/dependence.md), in no
     * particular order; always computation events (an MPI call's return
     * code is not a value, docs/dependence.md).  Computation events carry
     * none: the searches only
     * ask the relation of pairs that include an MPI event. */
    uint32_t nvdeps;
    const uint64_t *vdeps;
    /* MPI events: the call's companions, the ncompanions computation events
     * right before it that only read and compute what the call uses or
     * what decides whether it runs (its arguments' and its guard's loads):
     * they move with the call, so they are never in its window, and what
     * they depend on the call depends on: their reads (cranges, all reads)
     * and their own producers (in vdeps).  None of them reads what the
     * call writes.  docs/dependence.md, "The call and its companions". */
    uint32_t ncompanions;
    uint32_t ncranges;
    const struct dg_range *cranges;
};

/* True for the sends message aggregation may move and merge: blocking
 * point-to-point sends to a real rank. */
/* Whether a call id is a nonblocking collective (MPI_Ibcast...,
 * MPI_Ineighbor_alltoall...; a start of a persistent collective is mapped
 * to one by trace_mpi_call_started). */
static inline bool dg_call_nonblocking_coll(int call)
{
    return (call >= CHT_MPI_IBARRIER && call <= CHT_MPI_IEXSCAN) ||
           (call >= CHT_MPI_INEIGHBOR_ALLGATHER && call <= CHT_MPI_INEIGHBOR_ALLTOALLW);
}

static inline bool dg_is_movable_send(const struct dg_event *e)
{
    return e->kind == DG_MPI && e->role == DG_ROLE_SEND && e->peer >= 0;
}

/* ---- the relation ---------------------------------------------------------- */

/* Whether two keys conflict. */
static inline bool dg_keys_conflict(const struct dg_key *a, const struct dg_key *b)
{
    return a->cls == b->cls && a->comm == b->comm &&
           (a->peer == b->peer || a->peer == DG_PEER_ANY || b->peer == DG_PEER_ANY);
}

/* The dependence relation on two events of one rank (order does not matter;
 * the earlier one, by index, is the source): true if either is a FENCE, if
 * they touch overlapping bytes and at least one of them writes (flow, anti
 * and output dependence), if the earlier is among the later's register and
 * control dependences (vdeps) or writes what the later's companions read
 * (cranges), or if they carry conflicting keys.  With same_channel_sends
 * false, two movable sends on the same (comm, peer) do not depend on each
 * other through their shared send key (message aggregation merges them). */
bool dg_depends(const struct dg_event *a, const struct dg_event *b, bool same_channel_sends);

/* Short name of a role ("send", "recv", ...). */
const char *dg_role_name(int role);

/* ---- building events from a trace ---------------------------------------- */

struct dg_builder;

/* The weight of a computation event (dg_event.weight): DG_WEIGHT_BASE plus
 * its site's static cost (trace_site_info.cost; 1 without a site table or
 * from a table without costs, so that all events weigh the same: the even
 * split), plus, for memcpy and memset, one unit per DG_COPY_BYTES_PER_UNIT
 * bytes of each range; at most DG_WEIGHT_MAX.  DG_WEIGHT_BASE is what
 * every event costs in a traced program besides its statement and the
 * recording itself (the call's arguments, registers saved around it, the
 * loop control next to it), fitted with bench/cost-check.sh.
 * docs/dependence.md, "Estimated time of computation events". */
#define DG_WEIGHT_BASE 12u
#define DG_COPY_BYTES_PER_UNIT 16u
#define DG_WEIGHT_MAX 0x7fffffffu
uint32_t dg_comp_weight(const struct trace_site_info *si, uint32_t nranges, const struct trace_range *ranges);

int dg_builder_create(struct dg_builder **out);
void dg_builder_destroy(struct dg_builder *b);

/* Converts a trace event (COMP or MPI; LOOP events return 0 and set *out to
 * NULL) into a dg_event borrowed until the next call: ranges and keys by the
 * rules of docs/dependence.md.  Nonblocking starts are remembered by request
 * id until the Wait/Test that completes them, whose event then carries the
 * start's buffer ranges and request keys.  Returns 1 with *out set, 0 for
 * events that are not analysed, negative on out-of-memory. */
int dg_builder_convert(struct dg_builder *b, const struct trace_event *ev,
                       const struct dg_event **out);

/* The cursor the events come from, so that the builder can look up the
 * register and control dependences of computation sites (for the
 * companions of MPI calls); without one a call has no companions. */
void dg_builder_set_cursor(struct dg_builder *b, const struct trace_cursor *c);

/* Requests started and not completed so far. */
size_t dg_builder_open_requests(const struct dg_builder *b);

/* MPI events the builder could not give register and control dependences
 * although their site's table is known (it has none: built by an older
 * pass). */
uint64_t dg_builder_unknown_producers(const struct dg_builder *b);

/* ---- runs ----------------------------------------------------------------------- */

/* A run of computation events (a trace_run in the event model): reps *
 * period events from index first; event t is ph[t % period].ev with index
 * first + t, range k's address advanced by j * stride[k] and level l's
 * iteration by j * diter[l], where j = t / period.  The engine, the shadow
 * memory and the watch sets handle a run as a whole where they can. */
#define DG_RUN_PERIOD_MAX 16
#define DG_RUN_MAX_ADDRS 8

struct dg_run_phase {
    struct dg_event ev;      /* repetition 0 */
    const int64_t *stride;   /* ev.nranges entries, bytes per repetition */
    const uint64_t *diter;   /* ev.depth entries, iterations per repetition */
    const uint64_t *const *addr; /* as trace_run_phase.addr: NULL, or per range NULL
                                    (strided) or its address in each repetition */
    /* a run of rows' inner phase: as trace_run_phase's (NULL otherwise) */
    const uint64_t *const *row_addr;
    const uint64_t *row_diter;
};

/* Range k's address in repetition j of a run's phase. */
static inline uint64_t dg_run_addr(const struct dg_run_phase *ph, uint32_t k, uint64_t j)
{
    return ph->addr && ph->addr[k] ? ph->addr[k][j]
                                   : ph->ev.ranges[k].addr + j * (uint64_t)ph->stride[k];
}

/* A run of rows (the reader's struct trace_rows, borrowed): rows set,
 * ph[0 .. rows->nb) the between phases and ph[rows->nb ..] the inner ones,
 * period their number and reps 1; granular is false. */
struct dg_run {
    uint64_t first, reps;
    uint32_t period;         /* 1 .. DG_RUN_PERIOD_MAX */
    bool granular;           /* every range starts, ends and moves on 4-byte
                                boundaries and is at most 4 KiB long */
    bool irregular;          /* some phase has addresses without a stride (addr) */
    struct dg_run_phase ph[DG_RUN_PERIOD_MAX];
    const struct trace_rows *rows;
};

/* The events of a run. */
static inline uint64_t dg_run_events(const struct dg_run *r)
{
    return r->rows ? r->rows->at[r->rows->nrows] : r->reps * r->period;
}

/* Where a walk over a run of rows is: the event's row, iteration (0 for a
 * between event) and phase. */
struct dg_rows_pos {
    uint64_t i, m;
    uint32_t p;
};

/* The position of event t of a run of rows. */
static inline struct dg_rows_pos dg_rows_at(const struct dg_run *r, uint64_t t)
{
    struct dg_rows_pos x;
    trace_rows_locate(r->rows, t, &x.i, &x.p, &x.m);
    return x;
}

/* The position of the event after x. */
static inline void dg_rows_next(const struct trace_rows *w, struct dg_rows_pos *x)
{
    if (x->p >= w->nb) {
        if (++x->p < w->nb + w->ni)
            return;
        x->p = w->nb;
        if (++x->m < w->trips[x->i])
            return;
        x->m = 0;
        if (w->nb && (x->i + 1 < w->nrows || w->between_last)) {
            x->p = 0;
            return;
        }
        x->i++;
        return;
    }
    if (++x->p < w->nb)
        return;
    x->p = w->nb;
    x->i++;
}

/* Steps a walk over a row's inner events (phase *q of P, the inner ones
 * from nb; iteration *m of trips): true when the row's inner part is done
 * (*q back at nb, *m at trips). */
static inline bool dg_rows_inner_next(uint32_t *q, uint64_t *m, uint32_t nb, uint32_t P, uint64_t trips)
{
    if (++*q < P)
        return false;
    *q = nb;
    return ++*m == trips;
}

/* Range k's address in the event of a run of rows at x (of phase ph). */
static inline uint64_t dg_rows_addr(const struct dg_run *r, const struct dg_run_phase *ph, uint32_t k,
                                    const struct dg_rows_pos *x)
{
    if (!ph->row_addr) /* a between phase: strided by rows */
        return ph->ev.ranges[k].addr + x->i * (uint64_t)ph->stride[k];
    return ph->row_addr[k] ? ph->row_addr[k][x->i] + x->m * (uint64_t)ph->stride[k]
                           : ph->addr[k][r->rows->itb[x->i] + x->m];
}

/* Converts a reader's run: 1 with *out set (borrowed like events), 0 if the
 * run must be expanded instead (an address would wrap around, or a range
 * has the unknown length 0 somewhere it could matter), negative on error. */
int dg_builder_convert_run(struct dg_builder *b, const struct trace_run *r,
                           const struct dg_run **out);

/* Event t of a run into *ev, with its ranges in `ranges` (room for
 * DG_RUN_MAX_ADDRS) and its iteration vector in `iters` (room for the
 * phase's depth, at most TRACE_MAX_LOOP_DEPTH). */
void dg_run_event(const struct dg_run *r, uint64_t t, struct dg_event *ev,
                  struct dg_range *ranges, struct trace_iter *iters);

/* ---- shadow memory ---------------------------------------------------------- */

/* Last writer and last reader (event index + 1; 0 = never) of every byte
 * touched, in pages of 4 KiB allocated on first touch. */
struct dg_shadow;

int dg_shadow_create(struct dg_shadow **out);
void dg_shadow_destroy(struct dg_shadow *s);

/* Records that event `index` read or wrote r. */
int dg_shadow_update(struct dg_shadow *s, const struct dg_range *r, uint64_t index);

/* The latest event (index + 1, or 0 if none) an access r by a later event
 * depends on: for a read, the last writer of any byte of r; for a write,
 * the last writer or reader. */
uint64_t dg_shadow_last_conflict(const struct dg_shadow *s, const struct dg_range *r);

/* Records events t0 .. t1-1 of a run, as dg_shadow_update of each in order
 * would (only their writes if writes_only). */
int dg_shadow_update_run(struct dg_shadow *s, const struct dg_run *r, uint64_t t0, uint64_t t1,
                         bool writes_only);

/* The shadows of a process together hold at most `bytes` (0: the default,
 * DG_SHADOW_LIMIT_DEFAULT, or half the machine's memory if that is less);
 * an update that would need more returns TRACE_ERR_LIMIT.  The shadow costs
 * 4 bytes per byte the program touched, and a trace can claim any number of
 * bytes (a 16-byte REPEAT record 2^20 strided accesses): this is what bounds
 * the analysis of one that claims too many.  dg_shadow_limit: the limit in
 * force. */
#define DG_SHADOW_LIMIT_DEFAULT ((size_t)4 << 30)
void dg_shadow_set_limit(size_t bytes);
size_t dg_shadow_limit(void);
/* Sets the limit from COMMHINT_MAX_MEMORY (bytes, or with a K, M, G or T
 * suffix, powers of 1024) if it is set: 0, or -1 with *bad pointing at a
 * value that is not such a size (the limit is then left alone). */
int dg_shadow_limit_from_env(const char **bad);
/* Bytes of memory the shadow holds. */
size_t dg_shadow_footprint(const struct dg_shadow *s);

/* ---- watch set -------------------------------------------------------------- */

/* Events registered by an owner id, found again when a later event
 * conflicts with them (ranges with a write on either side, conflicting keys,
 * or a FENCE). */
struct dg_watch;

int dg_watch_create(struct dg_watch **out);
void dg_watch_destroy(struct dg_watch *w);

/* Registers e's ranges and keys under owner (several events may share an
 * owner).  With skip_channel_sends, a later movable send on the same
 * channel as a registered movable send does not conflict with it. */
int dg_watch_add(struct dg_watch *w, uint64_t owner, const struct dg_event *e,
                 bool skip_channel_sends);

/* Removes everything registered under owner. */
void dg_watch_remove(struct dg_watch *w, uint64_t owner);

/* Owners that e conflicts with, each once, in no particular order: returns
 * how many and points *owners at them (borrowed until the next call). */
size_t dg_watch_conflicts(struct dg_watch *w, const struct dg_event *e,
                          const uint64_t **owners);

/* The first event t in t0 .. t1-1 of a run that conflicts with some owner
 * (dg_watch_conflicts would return any), or t1 if none does. */
uint64_t dg_watch_first_conflict_run(struct dg_watch *w, const struct dg_run *r,
                                     uint64_t t0, uint64_t t1);

/* Owners registered. */
size_t dg_watch_owners(const struct dg_watch *w);

/* ---- ordering-key table ------------------------------------------------------ */

/* Per ordering key, the latest event that carried it and a value the caller
 * attaches to it (message aggregation keeps the anchor of sends there).
 * Values must not decrease along events carrying conflicting keys. */
struct dg_keytab;

int dg_keytab_create(struct dg_keytab **out);
void dg_keytab_destroy(struct dg_keytab *t);

/* Over the earlier events whose keys conflict with k: the latest index + 1
 * and the largest value + 1 (0 and 0 if none). */
void dg_keytab_query(const struct dg_keytab *t, const struct dg_key *k, uint64_t *last,
                     uint64_t *value);
/* Records that event `index` carried k, with value. */
int dg_keytab_update(struct dg_keytab *t, const struct dg_key *k, uint64_t index,
                     uint64_t value);
/* Forgets a key that no later event carries (a completed request). */
void dg_keytab_forget(struct dg_keytab *t, const struct dg_key *k);
size_t dg_keytab_entries(const struct dg_keytab *t);

/* ---- a small hash map from uint64 to uint64 ------------------------------------ */

/* Open addressing; any key (UINT64_MAX marks empty slots, so the one slot
 * holding the key UINT64_MAX is remembered apart: traces carry such keys,
 * e.g. MPI_COMM_SELF's id).  Used for the search's tables (sites,
 * channels, owners). */
struct dg_map {
    uint64_t *keys;
    uint64_t *vals;
    size_t cap;   /* power of two or 0 */
    size_t n;
    size_t max_at; /* slot + 1 of the key UINT64_MAX, 0 if absent */
};

/* Pointer to the value of key, or NULL. */
uint64_t *dg_map_get(const struct dg_map *m, uint64_t key);
/* Pointer to the value of key, inserted with value def if absent (NULL on
 * out-of-memory).  Pointers are valid until the next insertion. */
uint64_t *dg_map_put(struct dg_map *m, uint64_t key, uint64_t def);
void dg_map_del(struct dg_map *m, uint64_t key);
void dg_map_free(struct dg_map *m);
/* Iteration: for (size_t i = 0; i < m->cap; i++) if (dg_map_used(m, i)) ... */
static inline bool dg_map_used(const struct dg_map *m, size_t i)
{
    return m->keys[i] != UINT64_MAX || m->max_at == i + 1;
}

/* ======================================================================
 * Across ranks: the MPI log of each rank, message matching, and the
 * happens-before order of the run (docs/dependence.md, "Across ranks").
 * ====================================================================== */

/* What a log record is. */
enum dg_msg_kind {
    DG_MSG_SEND = 1,  /* a message leaves: Send*, Isend* (at the start), the send half of Sendrecv */
    DG_MSG_RECV = 2,  /* a message arrives: Recv, the receive half of Sendrecv, or a receive
                         request completed by a Wait/Test (at the completion) */
    DG_MSG_COLL = 3,  /* a collective call (Barrier included) */
    DG_MSG_OTHER = 4  /* any other MPI call (waits on sends, starts of receives, probes, fences...) */
};

enum dg_msg_flag {
    DG_MSGF_BLOCKS = 1u << 0,   /* the call waited for another rank: blocking receive,
                                   Sendrecv, collective, Wait/Test completing a receive,
                                   Probe (what search_blocks_groups calls blocking) */
    DG_MSGF_ROOT = 1u << 1,     /* collective: this rank is the root */
    DG_MSGF_NONBLOCKING = 1u << 2, /* send: Isend*; receive: completion of an Irecv;
                                      collective: completion of a nonblocking (or started
                                      persistent) collective, fwd_pos = its start */
    DG_MSGF_CONSUMED = 1u << 3, /* receive: consumer_* are set */
    DG_MSGF_FORWARD = 1u << 4,  /* send: every byte it sends was last written by the
                                   receive at fwd_pos (it forwards received data) */
    DG_MSGF_ARG = 1u << 5       /* receive: its consumer (a computation) produced a value a
                                   later MPI call uses (a count, an address, a peer: the
                                   call's vdeps or companions hold the consumer); send: a
                                   later call to the same peer, among the next few, loads
                                   the bytes it sent, unchanged, for its arguments (its
                                   companions read them); use_site = that call's site */
};

/* One record of a rank's MPI log.  Records are in trace order; one MPI event
 * gives one record, except a Sendrecv (a SEND then a RECV record) and a
 * Wait/Test (its own OTHER or RECV record, then one RECV record per
 * receive request it completed; those carry the Wait's index and times). */
struct dg_msgrec {
    uint64_t index;      /* event index on the rank */
    uint32_t site;       /* call site id (CHT_NONE if unknown) */
    uint16_t call;       /* enum cht_mpi_call */
    uint8_t kind;        /* enum dg_msg_kind */
    uint8_t role;        /* enum dg_role of the event */
    uint16_t flags;      /* enum dg_msg_flag */
    uint8_t mpi_op;      /* COLL: enum cht_mpi_op of a reduction, else 0 */
    uint8_t dtype;       /* COLL: enum cht_mpi_dtype of its datatype, 0 unknown or derived */
    int32_t peer;        /* SEND: destination; RECV: source (from the status); COLL: root
                            (world rank) or -1; else -1 */
    int32_t tag;         /* SEND: tag; RECV: tag from the status; else -1 */
    uint32_t comm_size;
    uint64_t comm;       /* communicator id */
    uint64_t seq;        /* SEND: channel sequence number; RECV: rseq; COLL: call number */
    uint32_t use_site;   /* with DG_MSGF_ARG: call site of the MPI call that uses the value
                            (RECV: the first; SEND: the last of the next few); else 0 */
    uint32_t fwd_pos;    /* SEND with DG_MSGF_FORWARD: log position of that receive;
                            COLL with DG_MSGF_NONBLOCKING: log position of its start
                            (an OTHER record, before it) */
    uint64_t t_enter, t_exit; /* ns, the rank's CLOCK_MONOTONIC (0 = unknown; its CPU
                                 times, if recorded, are beside it: dg_cpu_of) */
    uint64_t buf, bytes; /* SEND: bytes read; RECV: bytes written; COLL: the send side */
    uint64_t rbuf, rbytes; /* COLL: the receive side */
    uint64_t version;    /* SEND (and COLL send side): index + 1 of the last event that
                            wrote any of its bytes, 0 if none: two sends of the same
                            range and version send the same bytes */
};
/* 112 bytes, no padding: positions in a log are 32 bits (struct dg_pos) */
_Static_assert(sizeof(struct dg_msgrec) == 112, "struct dg_msgrec has padding");

/* The first later event that touched a record's received bytes (a
 * computation or an MPI call): of a RECV with DG_MSGF_CONSUMED, or of a
 * blocking COLL with a receive side (its result's first consumer).  Kept
 * beside the records (struct dg_mpilog's cons), as only some have one. */
struct dg_consumer {
    uint64_t index;      /* its event index */
    uint64_t addr, len;  /* its first written range (the accumulator), 0 if none */
    uint32_t pos;        /* the record's position in the log */
    uint32_t site;
    uint32_t flags;      /* enum cht_site_flag of its site (ACCUMULATE...) */
    uint8_t op;          /* enum cht_site_op of its site */
    uint8_t kind;        /* DG_COMP or DG_MPI */
};

/* Clock samples of a rank at MPI_Init ([0]) and MPI_Finalize ([1]). */
struct dg_clock {
    uint64_t mono_ns, real_ns;
    bool valid;
};

/* A rank's MPI log. */
/* A rank's host, from its MPI_Init clock sample (all 0: not recorded). */
struct dg_host {
    uint32_t cpus;        /* CPUs the rank may run on */
    uint32_t node_ranks;  /* ranks on its host, as the launcher said (0: unknown) */
    uint32_t host_id;     /* hash of the host's name (0: unknown): ranks with the same
                             one share a host */
};

/* A call's thread CPU time at its entry and exit, ns (both 0 = not
 * recorded: recorded on oversubscribed hosts only). */
struct dg_cputime {
    uint64_t enter, exit;
};

struct dg_mpilog {
    int rank;
    uint32_t n, cap;
    struct dg_msgrec *rec;
    struct dg_cputime *cpu;   /* the records' CPU times, by position (cap of them), NULL
                                 if none has any */
    struct dg_consumer *cons; /* the records' consumers, by position (ncons of them) */
    uint32_t ncons, capcons;
    struct dg_clock clock[2];
    struct dg_host host;
    bool cut_short;
};

void dg_mpilog_free(struct dg_mpilog *log); /* frees rec and cons; the struct itself is the caller's */
/* The CPU times of record pos of log (all zero if not recorded). */
static inline struct dg_cputime dg_cpu_of(const struct dg_mpilog *log, uint32_t pos)
{
    return log && log->cpu && pos < log->n ? log->cpu[pos] : (struct dg_cputime){0, 0};
}
/* The consumer of record pos of log: all zero (a static one) if it has
 * none. */
const struct dg_consumer *dg_consumer_of(const struct dg_mpilog *log, uint32_t pos);
/* Gives record c->pos its consumer *c (replacing one it had), keeping
 * cons in position order.  0 or TRACE_ERR_NOMEM. */
int dg_mpilog_set_consumer(struct dg_mpilog *log, const struct dg_consumer *c);

/* A rank's map from its CLOCK_MONOTONIC to a clock shared by the ranks
 * (CLOCK_REALTIME less a base), from its samples at MPI_Init and
 * MPI_Finalize: t + off + slope * (t - m0), the slope being the drift of
 * (real - mono) between the samples.  ok is false without any sample. */
struct dg_clockmap {
    bool ok;
    uint64_t m0;  /* ns, monotonic time of the first sample */
    int64_t off;  /* ns, (real - mono) at m0, less the base */
    double slope;
};
/* base is subtracted from every offset, so that aligned times stay near the
 * monotonic ones (e.g. the smallest real - mono of the ranks). */
void dg_clockmap_init(struct dg_clockmap *cm, const struct dg_mpilog *log, int64_t base);
/* The shared time of mono_ns: saturating arithmetic, within +-(2^62 - 1) ns
 * whatever the trace holds, so the difference of two never overflows. */
int64_t dg_clock_at(const struct dg_clockmap *cm, uint64_t mono_ns);
/* real - mono of a sample. */
static inline int64_t dg_clock_delta(const struct dg_clock *c)
{
    return (int64_t)(c->real_ns - c->mono_ns);
}

/* Log position of the first record of event `index`, or log->n. */
uint32_t dg_mpilog_find(const struct dg_mpilog *log, uint64_t index);

/* Builds a rank's log while its events stream by: keeps its own shadow of
 * written bytes (for send versions) and watches received buffers until
 * their first consumer.  Memory: the footprint written and the receives
 * not yet consumed. */
struct dg_logger;

int dg_logger_create(int rank, struct dg_logger **out);
void dg_logger_destroy(struct dg_logger *l);
/* Every event of the rank, in order: the trace event and its dg_event (as
 * built by dg_builder_convert; ev may be NULL for events it skipped). */
int dg_logger_feed(struct dg_logger *l, const struct trace_event *tev, const struct dg_event *ev);
/* The same for every event of a run. */
int dg_logger_feed_run(struct dg_logger *l, const struct dg_run *r);
/* Hands the log over (the logger keeps nothing); clocks and cut_short are
 * the caller's to set. */
int dg_logger_take(struct dg_logger *l, struct dg_mpilog *out);

/* ---- the processes of a distributed cross-rank stage (xchg.c) ----------- */

/* The cross-rank stage can run spread over K processes, each holding the
 * MPI logs of some ranks only (Scalasca's parallel replay): what one
 * process needs of another's ranks travels in rounds of an all-to-all
 * exchange, as bulk-synchronous steps.  Every process makes the same calls
 * in the same order; with one process the same code runs and the exchange
 * only hands the buffers back.  Implementations: dg_xchg_serial (one
 * process), dg_xchg_threads (K threads of one process: tests), and the MPI
 * driver of `hints --parallel` (search/parallel/driver.c). */
struct dg_bytes {
    uint8_t *p;
    size_t len, cap;
};
/* Appends n bytes (false on out-of-memory, leaving b as it was). */
bool dg_bytes_put(struct dg_bytes *b, const void *p, size_t n);
void dg_bytes_free(struct dg_bytes *b);
/* One buffer per process of x (zeroed; NULL on out-of-memory), and its
 * release (each buffer, then the array; NULL is fine). */
struct dg_bytes *dg_bytes_per_proc(int K);
void dg_bytes_per_proc_free(struct dg_bytes *b, int K);

enum dg_xchg_op { DG_XCHG_SUM, DG_XCHG_MIN, DG_XCHG_MAX };

struct dg_xchg {
    int nprocs, proc; /* this process is proc of 0 .. nprocs - 1 */
    void *ctx;
    /* out[q] goes to process q; in[q] receives what q sent here (the
     * implementation takes out's buffers; in's are the caller's to free
     * with dg_bytes_free).  status is this process's (negative: it failed,
     * and sends nothing).  Returns the lowest status of any process if one
     * is negative (then nothing travelled), else 1 if any process sent
     * anything, 0 if none did: the end of a replay's rounds, with one
     * collective call per round where nothing is left. */
    int (*alltoall)(void *ctx, int status, struct dg_bytes *out, struct dg_bytes *in);
    /* v[0 .. n-1] combined element-wise over the processes, in place. */
    int (*allreduce)(void *ctx, int64_t *v, int n, enum dg_xchg_op op);
    /* the driver's choice, the same on every process, for a replay that
     * can run spread or on process 0 with every log: spread when a round
     * of the exchange is cheap (every process has a core of its own) or
     * the logs are too large to gather (search/parallel/driver.c) */
    bool spread;
};

/* One process: nothing travels. */
const struct dg_xchg *dg_xchg_serial(void);
/* Every process's status agreed: the lowest (a failure anywhere is a
 * failure everywhere, so that all leave a step together). */
int dg_xchg_agree(const struct dg_xchg *x, int rc);
/* Every process's `len` bytes at `mine` (status: this process's; negative:
 * it failed), concatenated in process order into *all (the caller frees
 * it with dg_bytes_free): an agreement, one exchange and an agreement
 * again.  Returns the agreed status. */
int dg_xchg_allgather(const struct dg_xchg *x, int status, const void *mine, size_t len, struct dg_bytes *all);
/* Runs fn(x, arg_i) on K threads, each with its dg_xchg (proc i of K), and
 * returns the lowest of their results (or a status if the threads could
 * not be started). */
int dg_xchg_threads(int K, int (*fn)(const struct dg_xchg *x, void *arg), void *const *args);

/* ---- matching ------------------------------------------------------------ */

/* A position in the logs of a run: rank (its index in the logs array given
 * to dg_match_build, which is also its world rank) and log position. */
struct dg_pos {
    int32_t rank;
    uint32_t pos;
};
#define DG_POS_NONE ((struct dg_pos){-1, 0})
/* Positions ordered by rank, then position (-1, 0, 1). */
static inline int dg_pos_cmp(struct dg_pos a, struct dg_pos b)
{
    if (a.rank != b.rank)
        return a.rank < b.rank ? -1 : 1;
    return a.pos < b.pos ? -1 : a.pos > b.pos;
}

struct dg_match;

/* Matches every RECV record to its SEND record (communicator, source,
 * destination, tag and channel sequence number: the runtime numbers both
 * ends of a channel in the same order, and a wildcard receive takes the
 * numbers of the message its status names) and groups COLL records into
 * instances by (communicator, call number).  logs[r] is world rank r's log
 * or NULL if the rank has no trace. */
int dg_match_build(const struct dg_mpilog *const *logs, int nranks, struct dg_match **out);
/* The same spread over the processes of x: logs[r] is non-NULL for the
 * ranks this process holds, owner[r] the process that holds rank r (-1:
 * none).  Every process calls it; each can then ask about its ranks'
 * records: the other end of a message (dg_match_peer, and dg_match_rec
 * for its record, held here or kept as a copy), and the instances it owns
 * (dg_match_coll_here; their members' records through dg_match_rec).
 * Counts are of all processes.  With one process (dg_xchg_serial, owner
 * NULL) it is dg_match_build.  The logs array must outlive the match. */
int dg_match_build_dist(const struct dg_mpilog *const *logs, int nranks, const int *owner,
                        const struct dg_xchg *x, struct dg_match **out);
void dg_match_destroy(struct dg_match *m);
/* The record at p: this process's, or a copy of another's that a match or
 * an instance of this process involves; NULL if neither. */
const struct dg_msgrec *dg_match_rec(const struct dg_match *m, struct dg_pos p);
/* Its CPU times (all zero if not recorded, or if neither). */
struct dg_cputime dg_match_cpu(const struct dg_match *m, struct dg_pos p);

/* The other end of a SEND or RECV record (DG_POS_NONE if unmatched). */
struct dg_pos dg_match_peer(const struct dg_match *m, struct dg_pos p);

/* Collective instances: count, and the records of instance i (one per
 * member rank present, in rank order; *n set).  dg_match_coll_of gives the
 * instance of a COLL record (UINT32_MAX if none); dg_match_coll_place the
 * index among instance i's records of the first whose rank is `rank` or
 * above (*n if none). */
uint32_t dg_match_ncoll(const struct dg_match *m);
/* The instances this process owns: lo .. hi - 1 (all of them with one
 * process); dg_match_coll answers only for these. */
void dg_match_coll_here(const struct dg_match *m, uint32_t *lo, uint32_t *hi);
/* The process that owns instance i (-1 if there is no such instance). */
int dg_match_coll_owner(const struct dg_match *m, uint32_t i);
const struct dg_pos *dg_match_coll(const struct dg_match *m, uint32_t i, uint32_t *n);
uint32_t dg_match_coll_of(const struct dg_match *m, struct dg_pos p);
uint32_t dg_match_coll_place(const struct dg_match *m, uint32_t i, int rank);

/* Unmatched SEND and RECV records (e.g. a peer cut short), and
 * collectives with members missing. */
uint64_t dg_match_unmatched_sends(const struct dg_match *m);
uint64_t dg_match_unmatched_recvs(const struct dg_match *m);
uint64_t dg_match_incomplete_colls(const struct dg_match *m);

/* ---- happens-before ---------------------------------------------------------- */

/* Happens-before between log records, by a replay of the run: a receive
 * follows its matched send, a collective follows what its semantics say
 * (a rooted one from the root to the others or from the others to the
 * root; the others all-to-all).  Only the pairs asked are answered, all in
 * one replay that carries a token from each a to the b's that ask about it
 * (hb.c): memory grows with the records and the queries, not with ranks x
 * records as vector clocks did. */
struct dg_hb;

/* Does a happen before b? */
struct dg_hb_query {
    struct dg_pos a, b;
};

/* Answers queries q[0..nq) (any order, repeats allowed; pairs on one rank
 * or outside the logs need no replay) and keeps the logs and m, which
 * must outlive it. */
int dg_hb_build(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                const struct dg_hb_query *q, size_t nq, struct dg_hb **out);
void dg_hb_destroy(struct dg_hb *h);

/* Whether record a happens before record b (a != b): 1 or 0, or a
 * negative TRACE_ERR_* if the pair was not asked at dg_hb_build and the
 * replay it then takes fails. */
int dg_hb_before(const struct dg_hb *h, struct dg_pos a, struct dg_pos b);

/* The same answers spread over the processes of x (every process calls
 * it; hb-dist.c): logs, owner and m as dg_match_build_dist's; q[0..nq)
 * are this process's queries (any ranks, any order, repeats allowed; each
 * process its own, none is fine) and ans[i] gets what dg_hb_before of the
 * serial dg_hb_build over every rank's log would say of q[i] (1 or 0).
 * Each process replays its own ranks; what a send or a collective passes
 * travels as a note to the process that receives it.  Memory per process:
 * its ranks' records and the queries' tokens in flight, nothing per
 * record of other processes' ranks. */
int dg_hb_answer_dist(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m, const int *owner,
                      const struct dg_xchg *x, const struct dg_hb_query *q, size_t nq, uint8_t *ans);
/* A chain of messages that makes a happen before b: up to max positions
 * (pairs: the SEND or COLL record, then its receiving record) from a's rank
 * to b's rank; returns the number written (0 if a and b are on one rank,
 * a does not happen before b, or memory ran out).  Each call replays the
 * run once: meant for the few pairs that are explained. */
size_t dg_hb_chain(const struct dg_hb *h, struct dg_pos a, struct dg_pos b, struct dg_pos *out,
                   size_t max);
/* The same chain by a replay spread over the processes of x (every process
 * calls it with the same a and b; logs, owner and m as
 * dg_hb_answer_dist's): each process notes, for its ranks, the first
 * record that learnt of a and the record it learnt it from, and every
 * process gets the chain (*n positions in out, as dg_hb_chain's for any
 * number of processes).  Returns 0 or a negative status (every process
 * alike). */
int dg_hb_chain_dist(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m, const int *owner,
                     const struct dg_xchg *x, struct dg_pos a, struct dg_pos b, struct dg_pos *out, size_t max,
                     size_t *n);

/* ---- a changed run: would it deadlock? (stall.c) --------------------------- */

/* A record reached later than recorded: right after record `after` of the
 * same rank (after > pos; moves to an earlier place are ignored).  A
 * record moved after a record that itself moves goes with it. */
struct dg_move {
    uint32_t pos;
    uint32_t after;
};

/* Where a rank of a stalled replay stopped: the record it cannot pass
 * (rank -1 if it finished) and the record of another rank it waits for. */
struct dg_stall_wait {
    struct dg_pos at;
    struct dg_pos waits;
};

/* Replays the matched logs with the moves of each rank applied (moves[r],
 * nmoves[r] entries, or moves / moves[r] NULL for none) under the blocking
 * rules of dg_hb; a send whose receive is moved may wait until that receive
 * is posted.  *stalled says whether some rank could not finish; blocked
 * (nranks entries, or NULL) says where each rank stopped.  Returns 0 or a
 * negative TRACE_ERR_*. */
int dg_stall_check(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                   const struct dg_move *const *moves, const uint32_t *nmoves, struct dg_stall_wait *blocked,
                   bool *stalled);
/* The same spread over the processes of x (every process calls it): logs,
 * owner and m as dg_match_build_dist's, moves of this process's ranks;
 * *stalled is the whole run's, blocked[r] is filled for this process's
 * ranks (DG_POS_NONE for the others'). */
int dg_stall_check_dist(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m, const int *owner,
                        const struct dg_xchg *x, const struct dg_move *const *moves, const uint32_t *nmoves,
                        struct dg_stall_wait *blocked, bool *stalled);

/* ---- a timed replay of the run (replay.c) ------------------------------------- */

struct dg_replay_params {
    double lat_ns;       /* L: a message's latency (both ends' overheads included) */
    double ns_per_byte;  /* G */
    double o_ns;         /* an eager send's own time */
    double or_ns;        /* a receive's own time once its message is there */
    uint64_t eager_max;  /* larger messages wait for their receive (rendezvous) */
    uint64_t samples;    /* transfers L was fitted from (0: none, L is a guess) */
    double compute_scale; /* bursts are replayed this many times as long (0: 1); below 1
                            to take out the tracing's own cost (search: --plain-time) */
    bool ideal;          /* an ideal network: messages and MPI calls cost nothing, ranks
                            only wait for each other (POP's serialisation) */
    /* Hosts with more ranks than CPUs (dg_mpilog.host, with the calls' CPU
     * times): the ranks take turns on the CPUs, slice_ns at a time; a rank
     * computes and notices a message only in its turns (0: not modelled) */
    double slice_ns;
    double slice_phase_ns;  /* the slices' phase: a slice starts at every multiple of slice_ns
                               from it (ns after the first MPI_Init return) */
    uint64_t slice_samples; /* preemptions slice_ns was fitted from (0: a guess) */
};

struct dg_replay_rank {
    bool valid;          /* the rank has the times to compare */
    double measured_ns;  /* from the first MPI_Init return to its last call's entry */
    double replayed_ns;  /* the same in the replay */
};

/* A change to the run, as a hint asks for it (replay.c). */
enum dg_change_kind {
    DG_CHANGE_NB = 1,    /* the blocking call at pos is posted at t_post and waited for at t_wait */
    DG_CHANGE_MERGE,     /* the send at pos travels in the message of the send at into */
    DG_CHANGE_COLL       /* the call at pos is part of collective instance id (steps rounds) */
};

struct dg_change {
    uint8_t kind;        /* enum dg_change_kind */
    bool timed;          /* t_enter, t_exit are set: the record's times as recorded, which bound what
                            the change saves without its log (search/xrank/predict.c); the replay
                            reads the log, not these */
    int32_t rank;
    uint32_t pos;        /* log position of (a record of) the call */
    uint64_t t_post, t_wait; /* NB: times of the rank's clock (ns); 0: at the call */
    uint32_t into;       /* MERGE: log position of the carrying send */
    uint32_t id;         /* COLL: the instance (small numbers: arrays are sized by the largest) */
    uint32_t steps;      /* COLL: rounds of messages the collective takes */
    uint64_t t_enter, t_exit;
};

/* Fits L, G, o, o_r and the slices of crowded hosts from the matched logs
 * (eager_max as given). */
int dg_replay_fit(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                  struct dg_replay_params *pp);
/* The same spread over the processes of x (every process calls it): logs
 * and m as dg_match_build_dist's; every process gets the parameters
 * dg_replay_fit gives for all the logs, to the bit. */
int dg_replay_fit_dist(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                       const struct dg_xchg *x, struct dg_replay_params *pp);
/* Replays the run with these parameters and changes (nch of them, any
 * order; none: the run as recorded): out[nranks]. */
int dg_replay_run(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m,
                  const struct dg_replay_params *pp, const struct dg_change *ch, size_t nch,
                  struct dg_replay_rank *out);
/* The same spread over the processes of x (every process calls it, with
 * the same parameters and changes): logs, owner and m as
 * dg_match_build_dist's; out[r] is filled for this process's ranks (zero
 * for the others').  With one process (dg_xchg_serial, owner NULL) it is
 * dg_replay_run. */
int dg_replay_run_dist(const struct dg_mpilog *const *logs, int nranks, const struct dg_match *m, const int *owner,
                       const struct dg_xchg *x, const struct dg_replay_params *pp, const struct dg_change *ch,
                       size_t nch, struct dg_replay_rank *out);

#ifdef __cplusplus
}
#endif

#endif /* COMMHINT_DEPGRAPH_H */
