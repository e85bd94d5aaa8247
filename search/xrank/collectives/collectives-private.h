/* collectives-private.h - what the files of search/xrank/collectives/ share
 * (docs/collectives.md): the search context (struct cx) and the records it
 * has claimed, the instances the patterns find and the hints they add up
 * to (context.c, emit.c), the rounds and broadcasts most patterns are found
 * in (rounds.c, broadcasts.c), the records a pattern can use at all
 * (candidates.c) and the sparse logs of those it reads (sparse.c), the
 * rounds left at the hints' call sites, counted where the whole logs are
 * (counts.c), the pieces of hint messages (message.c), the
 * --explain entries for communicators of two ranks (tworanks.c), and
 * the interface every pattern implements (struct coll_pattern, one file a
 * pattern).  collectives.c lists the patterns in one table, runs them in
 * its order and builds the hints.
 *
 * Adding a pattern: a file that defines its struct coll_pattern, its
 * declaration at the end of this header, and its line in the table.
 */
#ifndef COMMHINT_COLLECTIVES_PRIVATE_H
#define COMMHINT_COLLECTIVES_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "search-private.h"

struct coll_pattern;

/* ---- instances and hints ---------------------------------------------------------------- */

/* Variants of an instance, or-ed into its hint. */
enum var {
    VAR_V = 1u << 0,       /* slices of different sizes or out of rank order: the v-variant */
    VAR_FORWARD = 1u << 1, /* some bytes were forwarded by a rank that received them */
    VAR_LOCAL = 1u << 2,   /* reduce: combined into a variable that is not traced */
    VAR_PROTOCOL = 1u << 3,   /* gather: each block follows the values its address and count
                                 come from (offset, length), received from the same rank */
    VAR_MIXED_TYPES = 1u << 4 /* repeat: the calls' datatypes differ or are derived: one
                                 call needs a derived datatype covering their buffers */
};

/* Masks of a call site in an instance. */
enum {
    LM_SEND = 1u << 0,
    LM_RECV = 1u << 1,
    LM_COLL = 1u << 2,
    LM_ROOT = 1u << 3 /* a call of the root */
};

/* A call site as a merge key across ranks: file, line, column, function;
 * sites without a location by their id. */
struct loc {
    const char *file, *func;
    uint32_t line, col;
    uint32_t site; /* CHT_NONE when the site has a location */
    const struct trace_callctx *ctx; /* as search_loc.ctx */
};

/* One call site of an instance. */
struct iloc {
    struct loc loc;
    uint16_t call;
    uint8_t mask; /* LM_* */
    uint64_t events;
    /* the innermost loop around the call site (NULL if none or unknown),
     * and the most calls one rank made there in one instance: above 1, that
     * loop is the one that makes the calls (the loop a collective replaces) */
    const struct trace_loop_info *loop;
    uint32_t per_rank;
    bool nonroot; /* also a call of a rank that is not the root (a forwarding send) */
};

/* A part of an instance: one log record. */
struct part {
    int32_t rank;
    uint32_t pos;
    bool root; /* a record of the root */
};

/* An instance of a pattern, being built. */
struct inst {
    const struct coll_pattern *pat;
    unsigned var;        /* VAR_* */
    int root;            /* world rank, -1 if none */
    uint32_t p;          /* communicator size */
    uint8_t op;          /* reduce: enum cht_site_op of the accumulation */
    struct loc consumer; /* reduce: the accumulating statement; control values: the call using them */
    bool has_consumer;
    uint64_t steps;     /* rounds of messages its collective takes; 0: ceil(log2 p) */
    uint32_t ngroup;    /* repeat: calls merged; 0: an instance of point-to-point records */
    uint64_t saving_ns; /* repeat: computed by the finder */
    uint32_t n, cap;
    struct part *v;
};

/* What the fix of a hint needs beyond its call sites (fix.c), from its
 * instances: the bytes of one message of the root (or of any rank, for
 * the patterns without one) over all instances; of the first instance,
 * the lowest-ranked member of its slices (the rank whose slot starts the
 * buffer) and whether every rank's own block sits at its slot of the
 * receive buffer already (allgather: MPI_IN_PLACE). */
struct coll_fixfacts {
    uint64_t bytes_min, bytes_max;
    int32_t first_peer;  /* the lowest peer of the root's calls, -1 */
    int32_t first_root;  /* the root of the first instance, -1 */
    bool own_in_place;
};

/* A hint being accumulated over instances with the same signature. */
struct hacc {
    const struct coll_pattern *pat;
    unsigned var; /* union over instances */
    uint8_t op;
    struct loc consumer;
    bool has_consumer;
    uint32_t nlocs;
    struct iloc *locs; /* sorted by loc: the signature */
    uint8_t *ranks;    /* [P] */
    uint8_t *roots;    /* [P] */
    uint32_t p;
    uint64_t matched, unmatched_rounds, members, bytes, comm_ns, saving_ns;
    uint64_t group_sum, group_min, group_max; /* repeat */
    uint32_t primary;                         /* index in locs */
    struct dg_change *ch;  /* the changes its instances ask for (predict.c) */
    uint32_t nch, capch;
    bool unpredicted;      /* some instance is not modelled (repeats): no changes */
    struct coll_fixfacts fx; /* what its fix says (fix.c) */
};

/* A reduce candidate rejected because its values are used, not combined
 * (reduce.c): one per receiving call site, use and reason, for --explain. */
enum coll_why {
    WHY_MPI_ARG = 1, /* a value its consumer computed is an argument of a later MPI call */
    WHY_CALL_ARG,    /* its consumer only loads arguments of a call */
    WHY_LOOP_BOUND   /* its consumer only loads a loop's exit test */
};
struct rej {
    struct loc recv, use; /* the root's receive site; the call or loop test that uses the value */
    uint16_t call;        /* of the receive */
    uint8_t why;          /* enum coll_why */
    int32_t root;
    uint8_t *ranks;       /* [P] */
    uint64_t rounds;
};

/* Repeated collectives that are not one call (repeat.c), for --explain: one
 * per pair of call sites and reason. */
enum rep_why {
    REP_OPERATOR = 1, /* reductions with different (or user-defined) operators */
    REP_DATATYPE,     /* reductions of different or derived datatypes */
    REP_RESULT_USED,  /* the earlier call's result is used before the later call */
    REP_NO_DATA,      /* a call that moves nothing (count 0) */
    REP_INPUT_LATE,   /* the later call's send buffer is written after the earlier call */
    REP_OVERLAP       /* a buffer of one call overlaps an output of the other */
};
struct reprej {
    struct loc a, b, use; /* the two calls; REP_RESULT_USED: the first use */
    uint16_t call;
    uint8_t why;          /* enum rep_why */
    uint16_t op_a, op_b;  /* REP_OPERATOR: enum cht_mpi_op */
    uint64_t instances;
    uint8_t *ranks;       /* [P] */
};

/* ---- the context -------------------------------------------------------------------------- */

/* What c->claimed says of a record. */
enum {
    CLAIM_FOUND = 1 /* in an instance a pattern found */
};

/* The kinds of records between two records of a sparse log (sparse.c). */
enum {
    GAP_SEND = 1u << 0,      /* a SEND */
    GAP_OTHER_KIND = 1u << 1 /* a RECV or COLL */
};

/* Classes of point-to-point calls for the time model (emit.c): SEND and
 * RECV, by the bit length of their byte count (0 to 64). */
#define COLL_NCLASS 130

/* The records of a rank at one call site (each MPI event once). */
struct coll_sitecount {
    uint32_t site, n;
};

/* The logs the patterns read (sparse.c): each rank's candidates and
 * collective records, matched among themselves. */
struct coll_sparse {
    int P;
    struct dg_mpilog *log;         /* [P] */
    const struct dg_mpilog **logs; /* [P]: &log[r], NULL where x has no log */
    uint32_t **orig;               /* [P][n]: position in the whole log */
    uint8_t **gap;                 /* [P][n]: GAP_* of the records left out right before */
    struct dg_match *m;
    int64_t fastest[COLL_NCLASS];  /* of the whole logs (coll_fastest_of), with them */
    bool has_fastest;              /* built with the context (search_coll_sparse_dist) */
    struct coll_sitecount **sites; /* with it: [P] each rank's records per call site in
                                      its whole log (coll_site_counts), by site */
    uint32_t *nsites;              /* [P] */
};

struct cx {
    const struct search_xrank *x;
    int P;
    const struct dg_mpilog **logs; /* the sparse logs while the patterns run (sparse.c), else x's */
    const struct dg_match *m;
    uint32_t **orig;       /* sparse: [rank][pos] the record's position in the whole log; else NULL */
    uint8_t **gap;         /* sparse: [rank][pos] GAP_* of the records left out right before */
    uint8_t **claimed;     /* [rank][log pos]: 0 or CLAIM_FOUND */
    int64_t fastest[COLL_NCLASS]; /* the fastest call of each class (ns; INT64_MAX: none) */
    struct hacc *h;        /* the hints, in the order of their first instance */
    uint32_t nh, caph;
    struct rej *rej;       /* rejected reduce candidates (reduce.c) */
    uint32_t nrej, caprej;
    struct dg_map rej_seen; /* rank << 32 | first log position of a rejected round -> 1 */
    struct reprej *reprej;  /* repeated collectives that are not one call (repeat.c) */
    uint32_t nreprej, capreprej;
    struct inst in; /* scratch instance */
    uint32_t ninst; /* instances given changes so far: their ids */
    int *stamp;     /* [P] scratch */
    int stamp_now;
};

static inline int coll_cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

/* t_exit - t_enter of a record (ns), 0 if unknown. */
static inline uint64_t coll_rec_ns(const struct dg_msgrec *r)
{
    return r->t_exit > r->t_enter && r->t_enter ? r->t_exit - r->t_enter : 0;
}

static inline bool coll_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return alen && blen && a < b + blen && b < a + alen;
}

static inline unsigned coll_ceil_log2(uint32_t p)
{
    unsigned s = 0;
    while ((1ull << s) < p)
        s++;
    return s;
}

/* The record at pos of rank's log (borrowed). */
static inline const struct dg_msgrec *coll_rec(const struct cx *c, int rank, uint32_t pos)
{
    return &c->logs[rank]->rec[pos];
}

/* The consumer of the record at pos of rank's log (all zero if none). */
static inline const struct dg_consumer *coll_consumer(const struct cx *c, int rank, uint32_t pos)
{
    return dg_consumer_of(c->logs[rank], pos);
}

static inline bool coll_valid(const struct cx *c, struct dg_pos p)
{
    return p.rank >= 0 && p.rank < c->P && c->logs[p.rank] && p.pos < c->logs[p.rank]->n;
}

/* context.c: the context of x (0 or TRACE_ERR_NOMEM; coll_cx_free either way). */
int coll_cx_init(struct cx *c, const struct search_xrank *x);
void coll_cx_free(struct cx *c);
/* Grows *pp (elements of size sz) to hold at least need; 0 or TRACE_ERR_NOMEM. */
int coll_grow(void *pp, uint32_t *cap, uint64_t need, size_t sz);
int coll_i32_cmp(const void *pa, const void *pb);
int coll_loc_cmp(const struct loc *a, const struct loc *b);
/* The location of a rank's call site (strings borrowed from its site table). */
void coll_loc_of(const struct cx *c, int rank, uint32_t site, struct loc *l);
/* The MPI call a record stands for: a receive completed by a Wait is its Irecv. */
uint16_t coll_rec_call(const struct dg_msgrec *r);
/* A fresh mark for c->stamp. */
int coll_next_stamp(struct cx *c);

/* context.c: instances. */
void coll_inst_reset(struct inst *in, const struct coll_pattern *pat, int root, uint32_t p);
int coll_inst_add(struct inst *in, int rank, uint32_t pos, bool root);
int coll_part_cmp(const void *pa, const void *pb);
bool coll_inst_unclaimed(const struct cx *c, const struct inst *in);
/* The call sites of an instance sorted by rank and position, merged by
 * location (*out malloc'ed). */
int coll_inst_locs(const struct cx *c, const struct inst *in, struct iloc **out, uint32_t *nout);

/* candidates.c: whether the patterns read sparse logs (*on: unless
 * COMMHINT_COLL_EVERY_RECORD is set), and unless the context has them
 * (x->csparse), those of c's logs in sp (coll_sparse_free either way); 0
 * or a negative status. */
int coll_candidates_sparse(const struct cx *c, struct coll_sparse *sp, bool *on);
/* sparse.c: the sparse logs of logs: the records of mark[r] (non-zero) and
 * the collective records; 0 or TRACE_ERR_NOMEM (coll_sparse_free either way). */
int coll_sparse_build(const struct dg_mpilog *const *logs, int P, uint8_t *const *mark, struct coll_sparse *sp);
void coll_sparse_free(struct coll_sparse *sp);
/* sparse.c: the GAP_* kinds of the records strictly between positions a
 * and b (a < b) of rank's log, kept or left out. */
uint8_t coll_gap_between(const struct cx *c, int rank, uint32_t a, uint32_t b);
/* context.c: the search reads sp's logs from now on (claims reset); 0 or
 * TRACE_ERR_NOMEM. */
int coll_cx_sparse(struct cx *c, const struct coll_sparse *sp);
/* The position in the whole log of the record at pos of rank's log. */
static inline uint32_t coll_orig_pos(const struct cx *c, int rank, uint32_t pos)
{
    return c->orig ? c->orig[rank][pos] : pos;
}

/* sparse.c: the records of g per call site, by site (*out malloc'ed);
 * 0 or TRACE_ERR_NOMEM. */
int coll_site_counts(const struct dg_mpilog *g, struct coll_sitecount **out, uint32_t *n);
/* emit.c: the fastest SEND and RECV call of each class (kind, and size
 * within a factor of two) in logs, for the time model: v[COLL_NCLASS], ns,
 * INT64_MAX where the logs have none. */
void coll_fastest_of(const struct dg_mpilog *const *logs, int P, int64_t *v);
/* counts.c: each hint's rounds left at its main call site on its roots
 * (h->unmatched_rounds), counted where the whole logs are; call with the
 * claims of the patterns and the hints' primary sites chosen.  0 or a
 * negative status. */
int coll_count_unmatched(struct cx *c);
/* emit.c: adds a found instance to its hint and claims its records. */
int coll_emit(struct cx *c, struct inst *in);
void coll_hacc_free(struct hacc *h);

/* ---- slices ------------------------------------------------------------------------------- */

struct slice {
    uint64_t addr, len;
    int32_t member; /* the peer it goes to or comes from */
};

/* context.c: whether the slices are disjoint pieces of one span (sorts v),
 * and whether they sit where MPI puts each member's block. */
bool coll_slices_disjoint(struct slice *v, uint32_t n);
bool coll_slices_regular(const struct slice *v, uint32_t n, const int32_t *members, uint32_t nmem);

/* ---- rounds (rounds.c) --------------------------------------------------------------------- */

#define NO_ROUND UINT32_MAX

/* A round: one rank's sends (or receives) of one stream between two
 * repetitions of a peer. */
struct round {
    int32_t rank;
    uint8_t kind; /* DG_MSG_SEND or DG_MSG_RECV */
    uint64_t comm;
    uint32_t p;        /* communicator size */
    uint32_t first, n; /* positions in rounds.pos */
    unsigned cls;      /* RC_* */
    int32_t comp;      /* alltoall component, -1 */
};

enum {
    RC_COMPLETE = 1u << 0, /* every other rank of the communicator is a peer */
    RC_MATCHED = 1u << 1,  /* every record has its other end */
    RC_SLICES = 1u << 2,   /* disjoint slices of one span */
    RC_REGULAR = 1u << 3,  /* equal slices in rank order */
    RC_SAME = 1u << 4      /* all the same range and version */
};

struct rounds {
    struct round *v;
    uint32_t n, cap;
    uint32_t *pos; /* log positions, round after round */
    uint32_t npos, cappos;
    uint32_t **round_of; /* [rank][log pos] */
};

int coll_rounds_build(struct cx *c, bool by_site, struct rounds *rs);
int coll_rounds_classify(const struct cx *c, struct rounds *rs);
void coll_rounds_free(struct rounds *rs, int P);
/* The parts of a rooted round: its records (the root's) and their other ends. */
int coll_round_parts(struct cx *c, const struct rounds *rs, const struct round *ro, struct inst *in);

/* ---- broadcasts (broadcasts.c) -------------------------------------------------------------- */

/* A complete broadcast: a root's sends of one range and version whose
 * bytes reach every other rank of the communicator once. */
struct binst {
    int32_t root;
    uint32_t first_pos; /* the root's first send */
    uint32_t s0, ns;    /* its sends: positions in bc.osend */
    uint64_t comm, buf, bytes, version;
    uint32_t p;
    uint64_t sig; /* hash of its call sites */
    bool forwarded, used;
};

/* A message received: its origin send and the receive. */
struct oent {
    struct dg_pos origin, recv;
};

/* A root's send that is the origin of some messages: its chain of receives. */
struct osend {
    int32_t root;
    uint32_t pos;
    uint32_t e0, ne;                    /* its receives in bc.ents */
    uint64_t comm, buf, bytes, version; /* of the send */
};

struct bcasts {
    struct oent *ents;
    uint32_t nents;
    struct osend *os;
    uint32_t nos;
    struct binst *b;
    uint32_t nb, capb;
    uint32_t *by_root; /* indices of b sorted by (root, first_pos) */
};

/* A broadcast by (signature, root, first send), for sorting. */
struct bref {
    uint64_t sig;
    int32_t root;
    uint32_t first_pos;
    uint32_t b;
};

/* Finds the complete broadcasts among the unclaimed records. */
int coll_bcasts_build(struct cx *c, struct bcasts *bc);
void coll_bcasts_free(struct bcasts *bc);
/* The parts of a broadcast: the root's sends, the forwarding sends, the receives. */
int coll_binst_parts(struct cx *c, const struct bcasts *bc, const struct binst *b, struct inst *in);
int coll_bref_cmp(const void *pa, const void *pb);

/* ---- hint messages (message.c) --------------------------------------------------------------- */

/* "the MPI_Send calls at line 129 and the MPI_Recv calls at line 131". */
void coll_text_calls(struct search_text *b, const struct hacc *h, const struct search_hint *sh);
/* "line 12" / "lines 12, 14" of the sites with this call and mask bit. */
void coll_text_lines(struct search_text *b, const struct hacc *h, const struct search_hint *sh, uint16_t call,
                     unsigned bit);
/* The accumulating statement: "line 152 (fadd)". */
void coll_text_consumer(struct search_text *b, const struct hacc *h, const struct search_hint *sh);
int coll_set_count(const uint8_t *set, int P);
/* The collective a hint advises (static string). */
const char *coll_collective_name(const struct hacc *h, uint16_t call);
/* The message of a hint whose other fields are set (malloc'ed; NULL if out of memory). */
char *coll_hint_message(const struct hacc *h, const struct search_hint *sh, int P);

/* ---- fixes (fix.c) ------------------------------------------------------------------------------ */

/* Adds an instance (parts sorted by rank) to a hint's facts; first: its
 * first instance. */
void coll_fix_facts(const struct cx *c, const struct inst *in, struct coll_fixfacts *fx, bool first);
/* The loop a hint's collective replaces (the root's loop of calls; for
 * patterns without a root, the one around all calls), NULL if none. */
const struct trace_loop_info *coll_fix_loop(const struct hacc *h);
/* "every rank of the pattern calls one MPI_Scatter in place of, on the
 * root, the loop at line 138 (its MPI_Send calls at line 139; keep in it
 * whatever else it does), and on the other ranks, the MPI_Recv calls at
 * line 143"; root_extra adds to the root's calls (NULL: nothing). */
void coll_fix_replace(struct search_text *b, const struct hacc *h, const struct search_hint *sh,
                      void (*root_extra)(struct search_text *, const struct hacc *, const struct search_hint *));
/* "; root = rank 0", or the rotating root's rule. */
void coll_fix_root(struct search_text *b, const struct hacc *h, const struct search_hint *sh);
/* "as in the calls (64 bytes)": the count and datatype of one message. */
void coll_fix_bytes(struct search_text *b, const struct hacc *h);
/* "; <buffer>, from the root's own slot, ..., a slice per rank in rank
 * order; sendcount and recvcount with the datatype as in the calls (N
 * bytes)": the root's buffer of equal slices in rank order. */
void coll_fix_slices(struct search_text *b, const struct hacc *h, const char *buffer);

/* ---- patterns --------------------------------------------------------------------------------- */

/* What a pattern is found in.  collectives.c builds it before a run of
 * patterns that read the same (a stage) and frees it after. */
enum coll_input {
    COLL_IN_CALLS,     /* the matched collective calls (c->m) */
    COLL_IN_BCASTS,    /* the complete broadcasts, and the rounds per stream */
    COLL_IN_ROUNDS,    /* the rounds per stream, then again per stream and call site */
    COLL_IN_EACH_ROUND /* the same rounds one at a time: consecutive such patterns share one pass */
};

struct coll_in {
    struct bcasts *bc;      /* COLL_IN_BCASTS */
    struct rounds *rs;      /* all but COLL_IN_CALLS */
    const struct round *ro; /* COLL_IN_EACH_ROUND: the round to look at */
};

struct coll_pattern {
    const char *name; /* as in docs/collectives.md */
    enum coll_input input;
    /* Emits (coll_emit) every instance it finds among the unclaimed
     * records; 0 or a negative TRACE_ERR_* code. */
    int (*find)(struct cx *c, struct coll_in *src);
    /* LM_SEND, LM_RECV or LM_COLL: the calls a hint points at (the
     * root's first), the sending or receiving side a root is named by. */
    unsigned main_call;
    /* The collective to use, and its v-variant (VAR_V; NULL: none); mpi
     * NULL: the call that was repeated. */
    const char *mpi, *mpi_v;
    /* The message up to its "(": what the calls do and what to use. */
    void (*text)(struct search_text *b, const struct hacc *h, const struct search_hint *sh);
    /* The fix (what the text output prints after "to apply: "): which
     * calls and loop the collective replaces, with which root, buffers,
     * counts and displacements (fix.c has the pieces). */
    void (*fix)(struct search_text *b, const struct hacc *h, const struct search_hint *sh);
};

/* The patterns, one file each. */
extern const struct coll_pattern coll_repeat;
extern const struct coll_pattern coll_allreduce;
extern const struct coll_pattern coll_allgather;
extern const struct coll_pattern coll_bcast;
extern const struct coll_pattern coll_reduce;
extern const struct coll_pattern coll_alltoall;
extern const struct coll_pattern coll_scatter;
extern const struct coll_pattern coll_gather;
extern const struct coll_pattern coll_gather_control;  /* control.c, with coll_scatter_control */
extern const struct coll_pattern coll_scatter_control; /* not in the table: found by the former */

/* reduce.c, shared with allreduce.c: whether a complete receive round
 * combines every value into one accumulator (sets in's op, consumer and
 * VAR_LOCAL), and the message of both ("then": what follows the reduce). */
bool coll_round_reduce(const struct cx *c, const struct rounds *rs, const struct round *ro, struct inst *in,
                       uint64_t *last_use, uint64_t *acc, uint64_t *acc_len);
/* reduce.c: the rejected reduce candidates as dropped hints with their
 * explain (appended to *out, which grows; 0 or TRACE_ERR_NOMEM). */
int coll_rejects_hints(const struct cx *c, struct search_hint **out, uint32_t *nout);
/* Appends a dropped collective hint at `at` to *out, which grows by one
 * (context.c): the fields every rejected candidate shares, and its message
 * and explain, which it takes over (NULL: out of memory; both are freed if
 * no hint is added).  0 or TRACE_ERR_NOMEM; a hint added is counted in
 * *nout either way, for the caller to clear. */
int coll_dropped_add(const struct cx *c, struct search_hint **out, uint32_t *nout, const struct loc *at,
                     uint16_t call, const char *collective, int root, uint64_t instances, const uint8_t *ranks,
                     char *message, char *explain);
/* repeat.c: the same for repeated collectives that are not one call. */
int coll_repeat_rejects_hints(const struct cx *c, struct search_hint **out, uint32_t *nout);
/* tworanks.c: the pairs of point-to-point call sites whose messages all
 * travel on communicators of two ranks, where no collective is searched, as
 * dropped hints (appended to *out, which grows; 0 or a negative status:
 * the messages are read where the whole logs are, search_xrank_coll_tworanks).
 * Call after the hints and rejects are known: their sites get none. */
int coll_two_ranks_hints(const struct cx *c, struct search_hint **out, uint32_t *nout);
void coll_reduce_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh,
                      const char *then);
/* reduce.c, shared with allreduce.c: the fix of both (all: the result goes
 * to every rank). */
void coll_reduce_fix(struct search_text *b, const struct hacc *h, const struct search_hint *sh, bool all);
/* rounds.c, shared by scatter.c and gather.c: a complete, matched round of
 * the given kind into disjoint slices, as an instance of pat. */
int coll_find_slices(struct cx *c, const struct coll_in *src, int kind, const struct coll_pattern *pat);

#endif
