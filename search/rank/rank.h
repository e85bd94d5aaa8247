/* rank.h - the per-rank stage of the analysis (search/rank/): the engines
 * that take one rank's events (struct dg_event, in trace order) and the
 * per-rank result they hand over.  Internal to search/: the front ends see
 * a result through the accessors of search.h (search_rank_overlaps, ...)
 * and never the MPI log inside it, which is depgraph's.
 *
 * Ownership: results are owned by the caller and freed with
 * search_rank_result_free; site and loop info pointers in them are
 * borrowed from the trace and live until trace_close.  Functions return 0
 * or a negative enum trace_status. */
#ifndef COMMHINT_SEARCH_RANK_H
#define COMMHINT_SEARCH_RANK_H

#include "depgraph.h"
#include "search.h"

/* The per-rank data of a hint kind that has no fields of its own in
 * struct search_rank_result (a kind added by one file: search/rank/kind.h,
 * docs/kinds.md); the built-in kinds keep theirs in the typed fields. */
struct search_kind; /* opaque outside search/rank/ */
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
    uint32_t nspans;
    struct search_group_span *spans;   /* every dynamic group, by first member */
    /* from the MPI logs, for the aggregation merge (its log_facts and
     * peer_facts): the members merged into each span's carrying send (log
     * positions and call times), the rank's sends per call site (sorted by site), and
     * where each span's messages are received (NULL before the cross-rank
     * stage; not packed with the result) */
    uint32_t ncheck_moves; /* the checks' moves (search_group_check.move_off) */
    struct dg_move *check_moves;
    uint32_t nspan_merged;
    struct search_merged_send *span_merged;
    uint32_t nsite_sends;
    struct search_site_sends *site_sends;
    struct search_span_peers *span_peers;
    uint32_t nclosed;
    struct search_closed *closed;    /* by search_closed_cmp, at most SEARCH_CLOSED_MAX */
    uint64_t closed_more;            /* closed pairs of the rank left out of closed */
    uint32_t nkind_data;
    struct search_kind_data *kind_data; /* other kinds' data, at most one entry per kind */
    /* cross-rank inputs (filled by search_run_rank; not compared between engines) */
    struct dg_mpilog log;            /* the rank's MPI log */
    uint32_t nsiteinfo;
    struct search_siteinfo *siteinfo; /* sorted by site: every site in the log */
    /* engine facts (not compared between engines) */
    uint64_t peak_bytes;   /* largest memory the engine held */
    bool cut_short;        /* the rank's trace had no clean end */
    uint64_t unknown_producers; /* MPI events whose site has no register or control
                                   dependences (built by an older pass) */
};

void search_rank_result_free(struct search_rank_result *r);

/* Every kind's facts of r->log taken into r (search_kind.log_facts): what
 * search_run_rank does once the log is taken, and what a result built by
 * hand needs before it is merged.  Returns 0 or TRACE_ERR_NOMEM. */
int search_rank_result_log_facts(struct search_rank_result *r);

/* The data kind k keeps in r (kind_data), NULL if none.  Borrowed: it
 * lives as long as r. */
void *search_rank_result_kind_data(const struct search_rank_result *r, const struct search_kind *k);

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


#endif /* COMMHINT_SEARCH_RANK_H */
