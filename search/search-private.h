/* search-private.h - what the files of search/ share: the engine interface
 * each engine implements, merging into hints, and small helpers.  The
 * interface of a per-rank hint kind is search/rank/kind.h. */
#ifndef COMMHINT_SEARCH_PRIVATE_H
#define COMMHINT_SEARCH_PRIVATE_H

#include <string.h>

#include "rank/rank.h"
#include "search.h"

/* An engine: search_engine_create picks one by search_opts.engine. */
struct search_engine_ops {
    int (*feed)(void *state, const struct dg_event *ev);
    /* A run of computation events at once; NULL: fed event by event. */
    int (*feed_run)(void *state, const struct dg_run *r);
    /* Hands over the result; the state is freed whether or not it succeeds. */
    int (*finish)(void *state, struct search_rank_result **out);
    void (*destroy)(void *state);
};

/* search/rank/streaming.c: the streaming engine. */
int search_stream_create(const struct search_opts *o, int rank, void **state,
                         const struct search_engine_ops **ops);
/* search/rank/reference.c: the reference engine. */
int search_reference_create(const struct search_opts *o, int rank, void **state,
                            const struct search_engine_ops **ops);

/* Options with defaults filled in. */
static inline uint64_t search_horizon(const struct search_opts *o)
{
    return o && o->horizon ? o->horizon : SEARCH_DEFAULT_HORIZON;
}
static inline unsigned search_max_boxes(const struct search_opts *o)
{
    return o && o->max_boxes ? o->max_boxes : SEARCH_DEFAULT_MAX_BOXES;
}

/* Roles that are overlap candidates, and which windows they get. */
static inline bool search_has_backward(const struct dg_event *e)
{
    return e->kind == DG_MPI && e->site != 0xffffffffu &&
           (e->role == DG_ROLE_SEND || e->role == DG_ROLE_RECV || e->role == DG_ROLE_SENDRECV ||
            e->role == DG_ROLE_COLL);
}
static inline bool search_has_forward(const struct dg_event *e)
{
    return search_has_backward(e) ||
           (e->kind == DG_MPI && e->site != 0xffffffffu && e->role == DG_ROLE_COMPLETE);
}

/* A blocking MPI call that may wait for another rank: a send is never
 * delayed past one (docs/dependence.md, "Classification"). */
static inline bool search_blocks_groups(const struct dg_event *e)
{
    return e->kind == DG_MPI &&
           (e->role == DG_ROLE_RECV || e->role == DG_ROLE_SENDRECV || e->role == DG_ROLE_COLL ||
            e->role == DG_ROLE_SYNC || e->role == DG_ROLE_PROBE || e->role == DG_ROLE_COMPLETE);
}

/* Order of group checks in a result: by the first member's index. */
static inline int search_check_cmp(const void *a, const void *b)
{
    const struct search_group_check *x = a, *y = b;
    uint64_t p = x->nmembers ? x->members[0] : 0, q = y->nmembers ? y->members[0] : 0;
    return p < q ? -1 : p > q;
}

/* Order of group spans in a result: by the first member's index, then the
 * last (a channel's groups do not share members). */
static inline int search_span_cmp(const void *a, const void *b)
{
    const struct search_group_span *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->last < y->last ? -1 : x->last > y->last;
}

/* t_exit - t_enter, 0 if unknown or negative. */
static inline uint64_t search_call_ns(const struct dg_event *e)
{
    return e->t_exit > e->t_enter && e->t_enter ? e->t_exit - e->t_enter : 0;
}

/* Nanoseconds (or any count) as an integer, rounded; 0 below 0 and
 * UINT64_MAX past it (a crafted trace's times can add up to more than
 * 2^64 ns, and converting such a double is undefined behaviour). */
static inline uint64_t search_round_u64(double v)
{
    if (!(v > 0))
        return 0;
    return v >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)(v + 0.5);
}

static inline const char *search_nz(const char *s)
{
    return s ? s : "";
}
/* qsort/bsearch comparator of uint32_t values. */
static inline int search_u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static inline int search_cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

/* Order of source locations: file ("" for NULL), line, column. */
static inline int search_place_cmp(const char *fa, uint32_t la, uint32_t ca, const char *fb, uint32_t lb,
                                 uint32_t cb)
{
    int c = strcmp(fa ? fa : "", fb ? fb : "");
    if (c)
        return c;
    if (la != lb)
        return la < lb ? -1 : 1;
    return ca < cb ? -1 : ca > cb;
}

/* ---- growing strings (search/report/text.c) ------------------------------------------------ */

struct search_text {
    char *s;
    size_t len, cap;
    bool failed; /* out of memory: take gives NULL */
};
void search_text_printf(struct search_text *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Hands over the string (malloc'ed), or NULL if something failed. */
char *search_text_take(struct search_text *b);
/* A duration with the unit its magnitude calls for: "850 ns", "1.2 ms",
 * "38 us" (two significant digits below 10 units, none above). */
void search_text_time(struct search_text *b, uint64_t ns);

/* ---- the cross-rank stage of search_report_build ----------------------------------- */

/* ---- the common clock of the ranks (search/xrank/clocks.c) ------------------------------ */

struct search_clocks {
    int mode;               /* enum search_clock */
    bool sampled;           /* every rank with a log has a clock sample */
    struct dg_clockmap *cm; /* [P]: zero (times as recorded) on one host */
};
/* The one rule (clocks.c) for the logs of P ranks (NULL entries: no log).
 * 0 or TRACE_ERR_NOMEM; freed with search_clocks_free. */
int search_clocks_build(const struct dg_mpilog *const *logs, int P, struct search_clocks *c);
/* The same spread over the processes of x, each with the logs of its
 * ranks (NULL for the others): every process gets the maps of all ranks. */
int search_clocks_build_dist(const struct dg_mpilog *const *logs, int P, const struct dg_xchg *x,
                             struct search_clocks *c);
void search_clocks_free(struct search_clocks *c);
/* A time of rank r's CLOCK_MONOTONIC on the common clock (ns). */
static inline int64_t search_clocks_at(const struct search_clocks *c, int r, uint64_t mono_ns)
{
    return dg_clock_at(&c->cm[r], mono_ns);
}

struct coll_sparse; /* search/xrank/collectives/ */

/* What the cross-rank analyses share: the ranks' results by world rank,
 * their logs matched, and the happens-before order. */
struct search_xrank {
    int world_size;
    struct search_rank_result *const *ranks; /* as given to search_report_build */
    int n;
    struct search_rank_result **by_rank;     /* [world_size], NULL for ranks not given */
    const struct dg_mpilog **logs;           /* [world_size], NULL likewise */
    struct dg_match *match;
    bool stalls;                             /* the recorded run's replay stalls (deadlock.c):
                                                inconsistent logs, no change can be judged */
    struct search_clocks clocks;             /* the ranks on one clock (clocks.c) */
    const struct dg_xchg *xchg;              /* the processes of the stage (one: serial) */
    const int *owner;                        /* [world_size]: each rank's process (NULL: serial) */
    bool partial;                            /* spread over processes: the matching, the clocks,
                                                the wait states and stalls, the hb answers */
    struct search_check_verdict *verdicts;   /* on process 0: the checks' forbidden delays */
    size_t nverdicts;                        /* (search_deadlock_verdicts), by (rank, check) */
    struct search_xrank *dist;               /* whole, on process 0: the partial context it
                                                completed, for the jobs (jobs.c) */
    struct dg_bytes *jout, *jin;             /* partial: the jobs' exchanges */
    bool jobs_over;                          /* partial: the other processes left the jobs */
    uint32_t *want;                          /* the instances the kinds' peer facts asked about */
    size_t nwant, capwant;
    struct search_coll_set *cset;            /* on process 0: their members (search_xrank_coll_sites), */
    size_t ncset;                            /* by instance */
    struct search_coll_member *cmem;
    size_t ncmem;
    struct coll_sparse *csparse;             /* on process 0: the collective search's sparse logs
                                                (search_coll_sparse_dist), NULL if none */
    bool csparse_borrowed;                   /* whole: csparse is its partial context's */
};

/* A member of a collective instance: its rank and the call site of its
 * record (search_xrank_coll_sites). */
struct search_coll_member {
    int32_t rank;
    uint32_t site;
};
struct search_coll_set {
    uint32_t inst, off, n; /* the members cmem[off .. off + n) */
};

/* search/xrank/peers.c: every kind's peer facts (search_kind.peer_facts)
 * of the ranks whose logs this process holds, gathered on process 0 into
 * its copies of their results, then the members of the collective
 * instances they asked about.  Every process calls it. */
int search_xrank_peer_facts(struct search_xrank *x);
/* From a kind's peer_facts: asks for the members of collective instance
 * inst (dg_match_coll_of), which the instance's owner sends to process 0
 * once every kind's peer facts are in.  Returns 0 or TRACE_ERR_NOMEM. */
int search_xrank_want_coll(struct search_xrank *x, uint32_t inst);
/* On process 0 (and serially), the members of an instance asked for, in
 * rank order, *n set; NULL if it was not asked for. */
const struct search_coll_member *search_xrank_coll_sites(const struct search_xrank *x, uint32_t inst, uint32_t *n);

int search_xrank_build(struct search_rank_result *const *ranks, int n, int world_size,
                       struct search_xrank **out);
/* The same spread over the processes of xc (every process calls it): ranks
 * are the results known here (by_rank: their call sites), of which the
 * logs of the ranks with owner[r] == xc->proc are this process's. */
int search_xrank_build_dist(struct search_rank_result *const *ranks, int n, int world_size, const int *owner,
                            const struct dg_xchg *xc, struct search_xrank **out);
/* The whole context on this process (every log of partial's results: the
 * parts not spread yet), with what the processes found together (whether
 * the recorded run stalls) taken from the partial one. */
int search_xrank_complete(const struct search_xrank *partial, struct search_xrank **out);
void search_xrank_destroy(struct search_xrank *x);

/* search/xrank/predict.c: what the predictions take of the whole run: the
 * replay's parameters (pp; eager_max as given) and the ranks' time
 * outside MPI calls (POP's useful time: its sum, largest and number of
 * ranks with a run), of the logs of every process of x (every process
 * calls it; with dg_xchg_serial, of all the logs). */
struct search_fit {
    struct dg_replay_params pp;
    int64_t useful_sum, useful_max, useful_ranks;
};
int search_predict_fit(const struct dg_mpilog *const *logs, int P, const struct dg_match *m, const struct dg_xchg *x,
                       struct search_fit *f);

/* search/xrank/predict.c: a hint's changes to the run (h->changes), those
 * of an overlap entry of world rank r (a call made nonblocking per lead),
 * and the predictions of rep->predict and of each hint (v[n]) from the
 * replay model. */
struct search_text;
void search_text_saving(struct search_text *b, const struct search_report *rep, const struct search_hint *h);
int search_hint_add_change(struct search_hint *h, const struct dg_change *c);
/* the calls of overlap entry ov of world rank r made nonblocking, started
 * earlier and waited for later by the given shares of their windows (0:
 * that side stays, 1: as far as the windows go; less where the fix places
 * only part of a window's computation between the start and the wait) */
int search_change_overlap(const struct search_xrank *x, int r, const struct search_overlap *ov, double back,
                          double fwd, struct search_hint *h);
/* the groups of sends of group summary g of world rank r (res) merged */
int search_change_group(const struct search_xrank *x, int r, const struct search_rank_result *res, uint32_t g,
                        struct search_hint *h);
int search_predict(const struct search_xrank *x, const struct search_report_opts *o, struct search_report *rep,
                   struct search_hint *v, uint32_t n);

/* search/xrank/waitstates.c: fills rep->waits, clocks_aligned, imbalance,
 * comp_mean_ns and comp_max_ns. */
int search_waitstates(const struct search_xrank *x, struct search_report *rep);

/* search/xrank/collectives/collectives.c: collective candidates as hints (kind
 * SEARCH_HINT_COLLECTIVE, message set, owned by the caller: free each with
 * search_hint_clear). */
int search_collectives(const struct search_xrank *x, struct search_hint **out, uint32_t *n);
/* The same, and the candidates it rejected (kind SEARCH_HINT_COLLECTIVE, with
 * message and explain: why not) in *dropped, owned by the caller like *out;
 * on error both are left for the caller to free. */
int search_collectives_explain(const struct search_xrank *x, struct search_hint **out, uint32_t *n,
                               struct search_hint **dropped, uint32_t *ndropped);

/* search/xrank/collectives/message.c: the message of a collective hint (malloc'ed;
 * without times when with_times is false). */
char *search_collective_message(const struct search_hint *h, bool with_times);

/* search/xrank/deadlock.c: whether the group `g` of world rank r is unsafe (some
 * dynamic instance delays a send past a blocking call that waits for
 * something that happens after the delayed message is received: a
 * verdict below); if so, *why (malloc'ed) tells the chain of messages. */
int search_group_unsafe(const struct search_xrank *x, int r, uint32_t g, char **why);

/* search/xrank/delays.c: the first delay of check `check` of rank `rank`
 * that the happens-before order forbids: own (whose message's other end
 * is `other`) delayed past w, which waits for `what`, which other comes
 * before. */
struct search_check_verdict {
    int32_t rank;
    uint32_t check;
    struct dg_pos own, other, w, what;
};
/* A check that may have lost members or crossings to its cap. */
static inline bool search_check_truncated(const struct search_group_check *chk)
{
    return chk->nmembers >= SEARCH_CHECK_MAX || chk->ncross >= SEARCH_CHECK_MAX;
}
/* Calls fn for each delay check chk of rank r (its log here) makes: a
 * member record `own` (a send, or an exchange's receive) delayed past a
 * blocking record w that waits for what[0..nw) (a collective's members
 * only if its instance is held here); stops at the first non-zero return. */
typedef int (*search_delay_fn)(const struct search_xrank *x, struct dg_pos own, struct dg_pos w,
                               const struct dg_pos *what, size_t nw, void *ctx);
int search_each_delay(const struct search_xrank *x, int r, const struct search_group_check *chk,
                      search_delay_fn fn, void *ctx);
/* Every process judges the checks of its ranks (one spread replay answers
 * the pairs: dg_hb_answer_dist); process 0 gets the verdicts of all
 * (x->verdicts).  Every process calls it. */
int search_deadlock_verdicts(struct search_xrank *x);
/* On process 0 (and serially): the verdict of check c of rank r, NULL if
 * the order forbids none of its delays. */
const struct search_check_verdict *search_check_verdict(const struct search_xrank *x, int r, uint32_t c);
/* search/xrank/jobs.c: the questions about the whole run that process 0
 * asks of a partial context d (its own, or whole->dist), answered by
 * every process.  The others wait in search_xrank_serve until process 0
 * calls search_xrank_end (its status becomes theirs); a job that fails
 * ends them all.  search_xrank_stall_job is dg_stall_check over the
 * spread logs: moves and blocked of every rank, on process 0;
 * search_xrank_replay_job is dg_replay_run over the spread logs: every
 * rank's end in rr, on process 0. */
int search_xrank_serve(struct search_xrank *d);
int search_xrank_end(struct search_xrank *d, int rc);
int search_xrank_stall_job(struct search_xrank *d, struct dg_move *const *mv, const uint32_t *nmv,
                           struct dg_stall_wait *blocked, bool *stalled);
int search_xrank_replay_job(struct search_xrank *d, const struct dg_replay_params *pp, const struct dg_change *ch,
                            size_t nch, struct dg_replay_rank *rr);
/* What an explanation names of an MPI record: its kind, call and site
 * (known false: no such record). */
struct search_rec_desc {
    bool known;
    uint8_t kind;
    uint16_t call;
    uint32_t site;
};
/* The records at pos[0..n) described (out[n]): spread (x->dist), each by
 * the process that holds its rank's log, in one job; otherwise from
 * x->logs. */
int search_xrank_describe(const struct search_xrank *x, const struct dg_pos *pos, size_t n,
                          struct search_rec_desc *out);
/* The chain of messages that makes record a happen before b (dg_hb_chain:
 * out[0..*n), at most max): spread (x->dist), by a replay of every
 * process's ranks in one job; otherwise by the same replay of x's logs. */
int search_xrank_chain(const struct search_xrank *x, struct dg_pos a, struct dg_pos b, struct dg_pos *out,
                       size_t max, size_t *n);
/* The process that holds rank r's log (0 without x->dist), and how many
 * processes there are (1 without x->dist). */
int search_xrank_proc_of(const struct search_xrank *x, int r);
int search_xrank_nprocs(const struct search_xrank *x);
/* The rounds left at the collective hints' main call sites
 * (collectives/counts.c): part[q] is the question about the ranks of
 * process q (search_xrank_proc_of), st process 0's status so far; nslots
 * counts come back summed in sums: spread (x->dist), each process counts
 * its ranks in one job; otherwise over x's logs.  0 or a negative status. */
int search_xrank_coll_counts(const struct search_xrank *x, const struct dg_bytes *part, int st, uint32_t nslots,
                             int64_t *sums);
/* collectives/counts.c: one process's part of those counts, over d's logs
 * (p, len: the question about its ranks); sums[nslots] set.  0,
 * TRACE_ERR_FORMAT (a question that does not read) or TRACE_ERR_NOMEM. */
int search_coll_counts_local(const struct search_xrank *d, const uint8_t *p, size_t len, uint32_t nslots,
                             int64_t *sums);
/* --explain's pairs of call sites that move data only on communicators of
 * two ranks (collectives/tworanks.c): part[q] is the question to process
 * q (the claimed records it must leave out), st process 0's status so
 * far; every process's answer is appended to *all: spread (x->dist), each
 * process scans its ranks in one job; otherwise over x's logs.  0 or a
 * negative status. */
int search_xrank_coll_tworanks(const struct search_xrank *x, const struct dg_bytes *part, int st,
                               struct dg_bytes *all);
/* An answer: the messages of srank from its call site ssite to rrank's
 * site rsite on communicators of two ranks (n > 0; the calls of the
 * first), or a site of srank that moves data on a communicator of another
 * size (n == 0, rrank -1). */
struct search_tworanks_ent {
    int32_t srank;
    uint32_t ssite;
    int32_t rrank;
    uint32_t rsite;
    uint16_t scall, rcall;
    uint32_t pad;
    uint64_t n;
};
/* collectives/tworanks.c: one process's answer to that, over d's logs and
 * match (p, len: the question, an array of struct dg_pos: records left
 * out, of its ranks and of their peers), appended to ans (entries struct
 * search_tworanks_ent, each wide site once).  0, TRACE_ERR_FORMAT or TRACE_ERR_NOMEM. */
int search_coll_tworanks_local(const struct search_xrank *d, const uint8_t *p, size_t len, struct dg_bytes *ans);
/* collectives/tworanks.c: adds a claimed record (w, whole position) to
 * that question: to part[] of its rank's process, and to that of
 * peer_rank's (the other end of its message, -1 if none) when another
 * one holds it, since that process must leave the message out too.  0 or
 * TRACE_ERR_NOMEM. */
int search_coll_tworanks_ask(const struct search_xrank *x, struct dg_pos w, int peer_rank, struct dg_bytes *part);
/* Whether the predictions are replayed spread over x's processes: the
 * processes' jobs replay them, and process 0 is sent no log record
 * (search/parallel/driver.c).  COMMHINT_SPREAD_REPLAY=1 or 0 says so;
 * unset, x's choice when there are several processes (x->spread: they
 * have a core each, so that a round of the exchange per message of the
 * critical path between processes is cheap, or the logs are too large to
 * gather: docs/performance.md, "Rounds of the spread replay"); otherwise
 * process 0 gathers the logs and replays alone. */
bool search_xrank_spread_replay(const struct dg_xchg *x);
/* Whether a driver may replay them spread: unless COMMHINT_SPREAD_REPLAY=0. */
bool search_xrank_replay_may_spread(void);
/* search_xrank_fit_job is search_predict_fit over the spread logs (every
 * process gets the fit; process 0 returns it in *f). */
struct search_fit;
int search_xrank_fit_job(struct search_xrank *d, struct search_fit *f);

/* The same for a hint made of groups[k] of ranks[k], k < n, applied on all
 * of them at once (the change is to the source, so every rank that runs
 * those lines makes it): 1 with *why set if the changed run deadlocks. */
int search_hint_unsafe(const struct search_xrank *x, const int *ranks, const uint32_t *groups, size_t n,
                       char **why);

/* ---- merging per-rank results into hints (search/report/report.c) ---------------- */

/* Frees what a hint owns. */
void search_hint_clear(struct search_hint *h);

/* A growing array of hints. */
struct search_hints {
    struct search_hint *v;
    uint32_t n, cap;
};
/* A new hint at the end, zeroed; NULL if out of memory. */
struct search_hint *search_hints_push(struct search_hints *hs);

/* What a per-rank kind's merge method gets (search/rank/kind.h). */
struct search_merge {
    int kind;                                /* the hint kind to give its hints */
    struct search_rank_result *const *ranks; /* as given to search_report_build */
    int n;
    int nanalysed;                           /* entries that are not NULL */
    const struct search_xrank *xr;           /* logs matched, happens-before */
    bool clocks_aligned;                     /* rank clocks related (search_waitstates) */
    struct search_hints *hints;              /* where its hints go */
    struct search_hints *dropped;            /* where hints a cross-rank check forbids go,
                                                with their explain */
};

/* A source location as a merge key.  Sites without info are keyed by their
 * id (site is CHT_NONE for every site that has info). */
struct search_loc {
    const char *file, *func;
    uint32_t line, col;
    uint32_t site;
    /* an MPI call in a calling context: file..col are its anchor frame's
     * (search/report/contexts.c), the frames below it part of the key */
    const struct trace_callctx *ctx;
};
void search_loc_of(const struct trace_site_info *info, uint32_t site, struct search_loc *l);
/* The same at the call itself, whatever its calling context: the key of
 * hints whose edit is at the calls (aggregation, collectives). */
void search_loc_at_call(const struct trace_site_info *info, uint32_t site, struct search_loc *l);
/* file, line, column, site id, the frames below the anchor; with func,
 * the function too. */
int search_loc_cmp(const struct search_loc *a, const struct search_loc *b, bool func);
/* Order of two contexts by the frames below their anchors (NULL: none). */
int search_ctx_cmp(const struct trace_callctx *a, const struct trace_callctx *b);
/* The context of a site info that is shown away from the call (anchor above
 * frame 0), else NULL. */
const struct trace_callctx *search_ctx_shown(const struct trace_site_info *info);

/* contexts.c: decides where the hints of each call made in several calling
 * contexts are shown (trace_callctx.anchor), from the contexts of all
 * ranks' results: at the first frame from the call up that tells them
 * apart, and above every function o->helpers names (below one it names
 * with a leading '-').  Returns 0 or TRACE_ERR_NOMEM. */
int search_contexts_anchor(struct search_rank_result *const *ranks, int n, const struct search_report_opts *o);

int search_boxes_copy(struct search_boxes *dst, const struct search_boxes *src);
/* h->ranks with room for n ranks; then each rank of the hint's entries in
 * increasing order (a rank equal to the last one is not added again). */
int search_hint_alloc_ranks(struct search_hint *h, size_t n);
void search_hint_add_rank(struct search_hint *h, int rank);
/* qsort order of related lines: file, line, column, role. */
int search_related_cmp(const void *a, const void *b);
/* Ranks on which the call at l ran at all (an overlap entry with
 * instances: every candidate call site has one). */
int search_ranks_running(struct search_rank_result *const *ranks, int n, const struct search_loc *l);

/* Message parts: "ranks 0-3"; "lines 27-28, util.c:12" (the related lines
 * of h, and with self its own line). */
void search_text_ranks(struct search_text *b, const int *ranks, int n);
void search_text_lines(struct search_text *b, const struct search_hint *h, bool self);
/* "needs a buffer per message: the send buffer at line 74 is overwritten
 * at halo.c:73; " of a hint with SEARCH_HINT_NEEDS_BUFFER. */
void search_text_needs_buffer(struct search_text *b, const struct search_hint *h);

/* fix.c: whether loop `id` encloses the hint's call (it is in the call's
 * iteration vectors, h->iters). */
bool search_hint_encloses(const struct search_hint *h, uint32_t id);

/* regions.c: h->regions from its related lines (overlap roles). */
int search_hint_regions(struct search_hint *h);

/* Whether an edit placed by the statement `chosen` (the fix's bound of one
 * side) also holds for calls whose windows statement k bounded: k runs in
 * the same function as the innermost loop around chosen that also runs
 * the call, and outside that loop (before it is entered, for a start; after
 * it exits, for a wait).  h->iters must be set (the loops of the call). */
bool search_fix_bound_fits(const struct search_hint *h, const struct trace_site_info *chosen,
                           const struct search_bound *k);
/* fix.c: where an overlap hint's nonblocking call starts and waits, from
 * its related lines and the statements the engines found around the
 * windows: dep (the last one the call depends on) and use (the first one
 * that depends on it), either may be NULL; dep_earlier and use_later:
 * they run in another iteration of a loop around the call; dep_loops:
 * search_overlap.dep_loops over the merged entries. */
void search_fix_overlap(struct search_hint *h, const struct trace_site_info *dep, bool dep_earlier,
                        const struct trace_site_info *use, bool use_later, uint32_t dep_loops);
/* Whether h's overlap fix starts the call where it is and waits for it
 * right after it: an edit that changes nothing. */
bool search_fix_changes_nothing(const struct search_hint *h);
/* Whether the overlap fix of h (search_fix_overlap) places related line r
 * between the start and the wait: a line that can move after the call
 * between the start and the call, one that can run before the wait
 * between the call and the wait.  True where the order is not known from
 * the source (a function off the call's path). */
bool search_fix_places(const struct search_hint *h, const struct search_related *r);
/* Whether h's overlap fix waits for the call right after it. */
bool search_fix_waits_at_call(const struct search_hint *h);
/* Whether every call of h with a window (the lowest rank's) ran in the
 * first iteration of loop id. */
bool search_fix_first_iteration(const struct search_hint *h, uint32_t id);
/* Whether related line r runs inside the loop of global id `id`. */
bool search_related_in_loop(const struct search_related *r, uint32_t id);

/* names.c: the entry of a hint kind found across ranks with this kind or
 * name (name may be NULL), NULL if none. */
const struct search_kind_desc *search_kind_cross(int kind, const char *name);

/* search/xrank/collectives/candidates.c: the point-to-point records the
 * collective search can use (docs/collectives.md, "Candidates") among the
 * ranks this process holds (logs[r] non-NULL; owner[r] the process that
 * holds rank r, -1 none; owner NULL with dg_xchg_serial: every rank here):
 * mark[r][pos] set non-zero for them (mark[r]: logs[r]->n entries, zeroed
 * by the caller).  m is the match of the logs (dg_match_build_dist).  Every
 * process calls it; 0 or a negative status, agreed. */
int search_coll_candidates(const struct dg_mpilog *const *logs, int P, const int *owner, const struct dg_xchg *x,
                           const struct dg_match *m, uint8_t **mark);
/* search/xrank/collectives/sparse.c: the sparse logs the collective search
 * reads (docs/collectives.md, "Candidates"), built where the logs are: the
 * candidates marked spread (search_coll_candidates), each process's ranks'
 * candidates and collective records copied with their positions in the
 * whole logs and what lies between them, and sent to process 0, which
 * matches them among themselves into x->csparse (NULL elsewhere, and with
 * COMMHINT_COLL_EVERY_RECORD).  Needs x->logs, x->owner, x->xchg and
 * x->match; every process calls it; 0 or a negative status, agreed. */
int search_coll_sparse_dist(struct search_xrank *x);
void search_coll_sparse_destroy(struct coll_sparse *sp);

#endif /* COMMHINT_SEARCH_PRIVATE_H */
