/* kind.h - a per-rank hint kind as a unit (docs/kinds.md): the methods the
 * two engines, the per-rank result functions, the packer and the merge
 * call, and the services the engines offer a kind.
 *
 * A kind is one `const struct search_kind` (overlap: search/rank/kinds/
 * overlap*.c, aggregation: kinds/aggregate*.c) and one line X(name) in
 * the list of search/rank/kinds.c (or a search_kind_register call at run
 * time).
 * The engines keep what every kind shares: the streaming engine the
 * shadow memory, the ordering keys, the gaps and their times, the ring of
 * recent events and the run splitting; the reference engine the events in
 * memory, the gaps and the statements.  A kind keeps its own state and
 * watches (struct dg_watch) and hands its part of the per-rank result over
 * at the end.
 *
 * Per-rank results: the built-in kinds keep their typed fields of struct
 * search_rank_result (overlaps, groups and checks); another kind keeps its
 * data in the result's generic slot (search_rank_result_kind_data,
 * search_rank_result_set_kind_data).  Every method that takes a result
 * reads or writes only its own kind's part.
 *
 * Private to search/.  Methods return 0 or a negative enum trace_status.
 */
#ifndef COMMHINT_SEARCH_KIND_H
#define COMMHINT_SEARCH_KIND_H

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

struct search_stream; /* the streaming engine (search/rank/streaming.c) */
struct search_ref;    /* the reference engine (search/rank/reference.c) */
struct search_merge;  /* merging across ranks (search/report/report.c) */
struct pk_buf;        /* packing (search/parallel/pack-bytes.h) */
struct pk_rd;

/* What a walk over the site references and box lists of a result does
 * with each (search_kind.visit). */
struct search_site_visitor {
    /* A site reference: may replace *info; returns true to end the walk. */
    bool (*site)(void *ctx, uint32_t site, const struct trace_site_info **info);
    /* A list of iteration boxes (may be NULL): may set the loops' lines. */
    void (*boxes)(void *ctx, struct search_boxes *b);
    void *ctx;
};

/* What the streaming engine calls (search/rank/streaming.c): one pass,
 * events in trace order. */
struct search_stream_methods {
    /* The kind's state for one rank (required; on failure it frees what
     * it made). */
    int (*create)(struct search_stream *s, void **state);
    void (*destroy)(void *state);
    /* Event i is next: close what ends before it (e.g. at the horizon).
     * Called before every event and before every stretch of a run.
     * Optional. */
    int (*advance)(void *state, struct search_stream *s, uint64_t i);
    /* The gap (computation between MPI calls) before an MPI event, or the
     * last one at the end, has just closed: its time is known.  Optional. */
    int (*gap_closed)(void *state, struct search_stream *s);
    /* The event (required).  search_stream_deps tells what it depends on;
     * the engine records its accesses and keys after every kind saw it. */
    int (*event)(void *state, struct search_stream *s, const struct dg_event *e);
    /* Runs: events t.. of run r (numbered from 0 in the run) are about to
     * be taken as one stretch.  run_stop returns the first of them before
     * which the kind must act (advance is called for it), UINT64_MAX if
     * none; run_alone the first in [t, x) the kind must see through
     * event(), x if none.  The events of a stretch are computation events
     * that conflict with nothing the kind watches; they go to the shadow
     * memory, the gaps, the site counts and the ring.  run_stop is
     * optional; without run_alone the kind sees every event of a run. */
    uint64_t (*run_stop)(void *state, struct search_stream *s, const struct dg_run *r, uint64_t t);
    uint64_t (*run_alone)(void *state, struct search_stream *s, const struct dg_run *r, uint64_t t,
                          uint64_t x);
    /* The events below index f are about to leave the ring: attribute
     * what is needed of them now.  Optional. */
    int (*behind)(void *state, struct search_stream *s, uint64_t f);
    /* The lowest event index whose gap the kind still needs (for
     * search_stream_range_time), UINT64_MAX if none.  Optional. */
    uint64_t (*keep)(void *state, const struct search_stream *s);
    /* No more events: close what is open (the last gap is closed; behind
     * is called for everything after this).  Optional. */
    int (*end)(void *state, struct search_stream *s);
    /* Hands the kind's part of the result over into r (required; the
     * state is destroyed afterwards either way). */
    int (*finish)(void *state, struct search_stream *s, struct search_rank_result *r);
};

struct search_kind {
    /* Name, SARIF rule and description (search_kind_desc); desc.kind is
     * the hint kind, 0 to have the registry give the next free one. */
    struct search_kind_desc desc;

    /* ---- the streaming engine (required) ---- */
    const struct search_stream_methods *stream;

    /* ---- the reference engine: the whole rank in memory (required) ---- */
    int (*reference)(struct search_ref *x, struct search_rank_result *r);

    /* ---- the per-rank result ---- */

    /* Frees the kind's part of r (required). */
    void (*result_free)(struct search_rank_result *r);
    /* Whether the kind's parts of a and b are identical (engine facts
     * aside); if not, the first difference into why, as
     * search_rank_result_equal (required). */
    bool (*result_equal)(const struct search_rank_result *a, const struct search_rank_result *b,
                         char *why, size_t size);
    /* Visits the kind's site references and box lists, in a fixed order;
     * returns true if the visitor ended the walk.  Optional (no sites). */
    bool (*visit)(struct search_rank_result *r, const struct search_site_visitor *v);
    /* Appends the kind's part of r; reads it back into r, checking every
     * count against the bytes left (pack-bytes.h).  Optional together
     * (the kind's part then does not travel with --parallel). */
    void (*pack)(struct pk_buf *b, const struct search_rank_result *r);
    void (*unpack)(struct pk_rd *rd, struct search_rank_result *r);

    /* Takes what the merge needs of the rank's MPI log (r->log, just
     * taken) into the kind's part of r, so that the merge reads the
     * result and not the log (which stays on the process that analysed
     * the rank, in the end).  Optional. */
    int (*log_facts)(struct search_rank_result *r);
    /* ---- across ranks ---- */
    /* Takes what the merge needs of other ranks' records into the kind's
     * part of r, a rank whose log this process holds (x->logs[r->rank]):
     * the other end of its messages through the match (dg_match_peer,
     * dg_match_rec: held here or a copy), its clock map, the members of
     * a collective instance (search_xrank_want_coll: process 0 gets
     * them, search_xrank_coll_sites).  Run by the
     * cross-rank stage on the process that analysed the rank, before the
     * merge, so that the merge needs no other rank's log.  Optional. */
    int (*peer_facts)(struct search_xrank *x, struct search_rank_result *r);
    /* Those facts of r packed, to go to the process that merges, and read
     * back there into its copy of r (checking every count against the
     * bytes left).  Required with peer_facts. */
    void (*peer_pack)(struct pk_buf *b, const struct search_rank_result *r);
    void (*peer_unpack)(struct pk_rd *rd, struct search_rank_result *r);

    /* Merges the ranks' parts into hints (required). */
    int (*merge)(const struct search_merge *m);
    /* The one-sentence message of a hint of the kind (malloc'ed; NULL if
     * out of memory); without times if with_times is false (required). */
    char *(*message)(const struct search_hint *h, bool with_times);
};

/* ---- the registry (search/rank/kinds.c) ------------------------------------------ */

#define SEARCH_KINDS_MAX 16

/* The kinds, in registration order: the table's, then those registered
 * at run time. */
unsigned search_kinds_count(void);
const struct search_kind *search_kinds_get(unsigned i);
/* The desc of the i-th kind with the hint kind it was given. */
const struct search_kind_desc *search_kinds_desc(unsigned i);
/* The kind registered as hint kind `kind`, NULL if none. */
const struct search_kind *search_kinds_find(int kind);

/* Registers a kind at run time (a test's, say): before any analysis, and
 * not while one runs.  Returns its hint kind (> 0), or TRACE_ERR_ARG if a
 * required method is missing or its name or kind is taken, or if the
 * registry is full (SEARCH_KINDS_MAX, or no hint kind below 32 is free). */
int search_kind_register(const struct search_kind *k);

/* The generic slot of a result: sets the data of kind k (r owns it from
 * then on; k's result_free frees it and clears the slot). */
int search_rank_result_set_kind_data(struct search_rank_result *r, const struct search_kind *k, void *data);

/* ---- the streaming engine's services (search/rank/streaming.c) ----------------- */

uint64_t search_stream_horizon(const struct search_stream *s);  /* events */
unsigned search_stream_max_boxes(const struct search_stream *s);
/* The index of the next event: during stream_event, its index + 1. */
uint64_t search_stream_next(const struct search_stream *s);

/* What the event being fed depends on, among the events before it
 * (computed once per event, on the first call; only during
 * stream_event). */
struct search_deps {
    uint64_t last;   /* index + 1 of the last event it depends on, 0 = none
                        (a fence: the event before it) */
    uint64_t anchor; /* a movable send: index + 1 of the last non-movable event it
                        depends on, directly or through the movable sends it
                        depends on, every earlier fence and call that may wait
                        for another rank counting (docs/dependence.md, "ea(s)"
                        + 1); 0 = none */
};
const struct search_deps *search_stream_deps(struct search_stream *s, const struct dg_event *e);

/* A gap: a maximal run of computation events between two MPI events. */
struct search_gap {
    uint64_t start, n; /* event indices start .. start+n-1 */
    uint64_t d;        /* ns, once closed */
    uint64_t cum;      /* sum of d of the gaps before it */
    uint64_t cumn;     /* sum of n of the gaps before it */
    uint64_t t0;       /* ns: t_exit of the MPI call before it (0 = unknown) */
    uint64_t w0;       /* weight of the computation events before it (a position:
                          search_stream_wpos) */
    uint64_t w;        /* weight of its events (growing while open) */
    bool closed;
};
/* ⌊d·k/n⌋: the time of events of weight k among a gap's events of weight
 * n and duration d (0 if n is 0).  docs/dependence.md, "Estimated time of
 * computation events". */
static inline uint64_t search_share(uint64_t d, uint64_t k, uint64_t n)
{
    return n ? (uint64_t)((unsigned __int128)d * k / n) : 0;
}
/* The weight of a computation event in its gap: dg_event.weight, 1 for
 * events made without one (the even split). */
static inline uint64_t search_weight(const struct dg_event *e)
{
    return e->weight ? e->weight : 1;
}
/* Gap `id` (an id from search_stream_ring, still kept: see stream_keep). */
const struct search_gap *search_stream_gap(const struct search_stream *s, uint64_t id);
/* Whether [lo, hi] (lo <= hi) meets the gap that is still open. */
bool search_stream_gap_open_meets(const struct search_stream *s, uint64_t lo, uint64_t hi);
/* The weight of the computation events before event `index` (after it:
 * with its own), counted from the start of the rank: a position from which
 * search_stream_range_time cuts gaps.  The event must be in the ring; a
 * kind that needs the time of a stretch after its events left the ring
 * keeps the positions of its ends. */
uint64_t search_stream_wpos(const struct search_stream *s, uint64_t index, bool after);
/* Time and number of computation events in [lo, hi]; wlo and whi are
 * search_stream_wpos(lo, false) and (hi, true).  Every gap it meets must
 * be closed. */
void search_stream_range_time(const struct search_stream *s, uint64_t lo, uint64_t hi, uint64_t wlo,
                              uint64_t whi, uint64_t *time, uint64_t *comp);
/* Estimated time at which event `index` started (end false, w its
 * search_stream_wpos(index, false)) or ended (end true, w = wpos(index,
 * true)), from the gaps; for display. */
uint64_t search_stream_time_at(const struct search_stream *s, uint64_t index, uint64_t w, bool end);
/* Estimated start of event `index` (in the ring): t_enter of an MPI event;
 * for a computation event, t_exit of the MPI event before its gap plus its
 * share of the gap (docs/dependence.md, "Estimated time"); 0 if unknown. */
uint64_t search_stream_start_time(const struct search_stream *s, uint64_t index);
/* Computation events of a site so far. */
uint64_t search_stream_site_events(const struct search_stream *s, uint32_t site);

/* The innermost SEARCH_BOX_DEPTH levels of an iteration vector. */
struct search_ctx {
    uint32_t depth;
    struct trace_iter it[SEARCH_BOX_DEPTH];
};
static inline void search_ctx_of(const struct dg_event *e, struct search_ctx *c)
{
    uint32_t keep = e->depth < SEARCH_BOX_DEPTH ? e->depth : SEARCH_BOX_DEPTH;
    c->depth = keep;
    if (keep)
        memcpy(c->it, e->iters + (e->depth - keep), keep * sizeof c->it[0]);
}

/* An event of the ring: the last horizon + 2 * 4096 events. */
struct search_ring_ev {
    uint32_t site;
    uint32_t site_flags;
    uint64_t ctx;   /* (engine) its iteration context */
    uint64_t gap;   /* computation events: gap id; MPI events: t_enter (ns) */
    uint8_t kind;   /* DG_COMP or DG_MPI */
    uint32_t rep;   /* (engine) run events: repetition of the context */
    uint32_t w;     /* computation events: search_weight; MPI events: 0 */
    uint64_t wpos;  /* weight of the computation events before it (search_stream_wpos) */
};
const struct search_ring_ev *search_stream_ring(const struct search_stream *s, uint64_t index);
/* Its iteration vector (innermost levels): *depth levels, either in the
 * engine or rebuilt into moved (SEARCH_BOX_DEPTH entries). */
const struct trace_iter *search_stream_iters(const struct search_stream *s, const struct search_ring_ev *r,
                                             struct trace_iter *moved, uint32_t *depth);

/* ---- the reference engine's services (search/rank/reference.c) --------------------- */

/* The whole rank, and what the engine derived from it.  Read-only for the
 * kinds, but for the memory they take through search_ref_alloc. */
struct search_ref {
    struct ref_state *state; /* (engine) */
    const struct dg_event *ev;
    size_t n;
    uint64_t horizon;        /* events */
    unsigned max_boxes;
    uint64_t *gap;           /* gap of each computation event (UINT64_MAX: MPI) */
    uint64_t *gd, *gn;       /* duration (ns) and events of each gap */
    uint64_t *gs, *gt;       /* first event of each gap, t_exit (ns) of the MPI event before it */
    uint64_t *gw;            /* weight of each gap's events (search_weight) */
    uint64_t *wpre;          /* computation events: weight of the events of its gap before it */
    uint32_t *cid;           /* dense statement id of computation events */
    uint32_t *csite;         /* site of each dense statement id, increasing */
    size_t ncsite;
    uint64_t *ctotal;        /* events of each statement on the rank */
};

/* Memory the engine counts in its peak (calloc of n items, at least one;
 * NULL if out of memory); freed with the same n and size. */
void *search_ref_alloc(struct search_ref *x, size_t n, size_t size);
void search_ref_free(struct search_ref *x, void *p, size_t n, size_t size);
/* Grows *p (of *cap items) to hold need items. */
int search_ref_grow(struct search_ref *x, void **p, size_t *cap, size_t need, size_t size);
/* Counts bytes allocated otherwise (a result's arrays). */
void search_ref_count(struct search_ref *x, size_t bytes);
/* Estimated start of event k, as search_stream_start_time. */
uint64_t search_ref_start_time(const struct search_ref *x, size_t k);

/* The time of a set of computation events, added in increasing index
 * order (those of one gap arrive together): events of weight k in a gap
 * whose events weigh n, of duration d, are worth ⌊d·k/n⌋, summed over the
 * gaps. */
struct search_set_time {
    uint64_t gap, k, ns;
};
static inline void search_set_time_flush(struct search_set_time *t, const struct search_ref *x)
{
    if (t->k)
        t->ns += search_share(x->gd[t->gap], t->k, x->gw[t->gap]);
    t->k = 0;
}
/* Adds computation event `index`. */
static inline void search_set_time_add(struct search_set_time *t, uint64_t index, const struct search_ref *x)
{
    uint64_t gap = x->gap[index];
    if (t->k && t->gap != gap)
        search_set_time_flush(t, x);
    t->gap = gap;
    t->k += search_weight(&x->ev[index]);
}

/* ---- comparing results (search/rank/result.c) ------------------------------------ */

/* Writes a difference into why (may be NULL) and returns false. */
bool search_differ(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Compares two box lists; what names them in the message ("overlap
 * site=12 iters"). */
bool search_boxes_diff(const struct search_boxes *a, const struct search_boxes *b, const char *what,
                       char *why, size_t size);
/* Compares one integer field of a and b; prefix names the object
 * ("overlap site=12: "). */
#define SEARCH_CMP_FIELD(prefix, field)                                                                      \
    do {                                                                                                     \
        if ((uint64_t)(a->field) != (uint64_t)(b->field))                                                    \
            return search_differ(why, size, "%s" #field " %" PRIu64 " != %" PRIu64, (prefix),                \
                                 (uint64_t)(a->field), (uint64_t)(b->field));                                \
    } while (0)

/* ---- small helpers ---------------------------------------------------------------- */

/* Appends item to the vector v of n items and cap allocated; goes to
 * `fail` if out of memory. */
#define SEARCH_VEC_PUSH(v, n, cap, item, fail)                                                               \
    do {                                                                                                     \
        if ((n) == (cap)) {                                                                                  \
            size_t nc_ = (cap) ? (cap) * 2 : 8;                                                              \
            void *p_ = realloc((v), nc_ * sizeof *(v));                                                      \
            if (!p_)                                                                                         \
                goto fail;                                                                                   \
            (v) = p_;                                                                                        \
            (cap) = nc_;                                                                                     \
        }                                                                                                    \
        (v)[(n)++] = (item);                                                                                 \
    } while (0)

static inline uint64_t search_min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}
static inline uint64_t search_max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* The built-in kinds that code outside them names (the registry, in
 * search/rank/kinds.c, declares every kind it lists). */
extern const struct search_kind search_kind_overlap;

#endif /* COMMHINT_SEARCH_KIND_H */
