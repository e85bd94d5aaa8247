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
};

/* True for the sends message aggregation may move and merge: blocking
 * point-to-point sends to a real rank. */
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
 * the earlier one is the source): true if either is a FENCE, if they touch
 * overlapping bytes and at least one of them writes (flow, anti and output
 * dependence), or if they carry conflicting keys.  With same_channel_sends
 * false, two movable sends on the same (comm, peer) do not depend on each
 * other through their shared send key (message aggregation merges them). */
bool dg_depends(const struct dg_event *a, const struct dg_event *b, bool same_channel_sends);

/* Short name of a role ("send", "recv", ...). */
const char *dg_role_name(int role);

/* ---- building events from a trace ---------------------------------------- */

struct dg_builder;

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

/* Requests started and not completed so far. */
size_t dg_builder_open_requests(const struct dg_builder *b);

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

/* Open addressing; every key but UINT64_MAX.  Used for the search's tables
 * (sites, channels, owners). */
struct dg_map {
    uint64_t *keys;
    uint64_t *vals;
    size_t cap;   /* power of two or 0 */
    size_t n;
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
    return m->keys[i] != UINT64_MAX;
}

#ifdef __cplusplus
}
#endif

#endif /* COMMHINT_DEPGRAPH_H */
