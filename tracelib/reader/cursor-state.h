/* cursor-state.h - the state of a cursor (cursor.c), shared with the
 * making of runs (run.c). */
#ifndef COMMHINT_READER_CURSOR_STATE_H
#define COMMHINT_READER_CURSOR_STATE_H

#include "reader-private.h"

/* A history record: a COMP (at most CHT_REPEAT_MAX_ADDRS addresses) or LOOP
 * record as 16 bytes of header, id and reserved word, then its addresses. */
struct rd_hent {
    uint64_t w[2 + CHT_REPEAT_MAX_ADDRS];
};

struct rd_thread {
    uint32_t thread;
    uint32_t depth;
    struct trace_iter *stack; /* RD_MAX_LOOP_DEPTH entries, never moves */
    struct rd_hent *hist;     /* CHT_REPEAT_PERIOD_MAX entries, a ring */
    uint32_t nhist;           /* valid entries */
    uint32_t head;            /* slot of the next record */
    struct rd_pack_table pack; /* its PACK records' predictions */
};

struct trace_cursor {
    struct trace *t;
    int rank;
    unsigned flags;
    struct trace_stream *s;
    struct rd_rank *r;

    struct trace_event ev;
    struct trace_range *ranges;
    size_t ranges_cap;
    const struct cht_rec_complete **complete;
    size_t complete_cap;
    struct trace_range args[2][RD_MAX_ARGS]; /* of the current MPI event */

    struct rd_thread *threads;
    size_t nthreads, threads_cap;
    size_t last_thread;
    struct rd_modules mods;   /* where the rank's code was loaded (modules.c) */

    struct trace_cursor_stats st;
    uint64_t index;           /* COMP and MPI events returned so far */

    /* the REPEAT record being expanded */
    uint32_t rep_left;        /* records still to produce; 0: none */
    uint32_t rep_period, rep_phase;
    size_t rep_thread;        /* index in threads */
    uint32_t rep_off[CHT_REPEAT_PERIOD_MAX];
    int64_t rep_stride[CHT_REPEAT_PERIOD_MAX * CHT_REPEAT_MAX_ADDRS];
    int32_t *rep_col;         /* REPEAT_COL: its column (CHT_REPEAT_COL_MAX entries), */
    uint32_t rep_ncol, rep_icol; /* its length and the next entry to take */
    bool rep_is_col;          /* the REPEAT being expanded is a REPEAT_COL */
    uint32_t rep_count;       /* records the REPEAT stands for */
    bool rep_norun;           /* no run is to be made of it (any more) */

    /* the PACK record being decoded */
    struct rd_pack pack;
    size_t pack_thread;       /* index in threads */

    /* the ROWS record being decoded */
    struct rd_rows rows;
    size_t rows_thread;       /* index in threads */
    uint32_t rows_norun;      /* rows whose run of rows failed: at 2, no more are tried */

    /* the run last returned (TRACE_CURSOR_RUNS) */
    struct trace_run run;
    struct trace_run_phase run_ph[CHT_REPEAT_PERIOD_MAX];
    struct trace_range run_ranges[CHT_REPEAT_PERIOD_MAX][CHT_REPEAT_MAX_ADDRS];
    int64_t run_stride[CHT_REPEAT_PERIOD_MAX][CHT_REPEAT_MAX_ADDRS];
    uint32_t run_depth[3][CHT_REPEAT_PERIOD_MAX];
    struct trace_iter *run_iters; /* [3][PERIOD_MAX][RD_MAX_LOOP_DEPTH]: three repetitions */
    struct trace_iter *run_from;  /* [RD_MAX_LOOP_DEPTH]: the stack the run's slope starts from */
    uint32_t run_from_depth;
    uint64_t *run_diter;          /* [PERIOD_MAX][RD_MAX_LOOP_DEPTH] */
    struct trace_iter *run_sim;   /* [RD_MAX_LOOP_DEPTH]: a loop stack to simulate on */
    uint64_t *run_dend;           /* [RD_MAX_LOOP_DEPTH]: the stack's change per repetition */
    uint64_t *run_col;            /* [CHT_REPEAT_COL_MAX]: a column run's irregular addresses */
    const uint64_t *run_addr[CHT_REPEAT_PERIOD_MAX][CHT_REPEAT_MAX_ADDRS]; /* into run_col */
    /* the run of rows last returned (TRACE_CURSOR_ROWS, rows-run.c): its
     * tables, what the simulation learnt, and the phases' per-row parts */
    struct trace_rows rr;
    struct rd_rows_tables rr_tab;
    uint64_t rr_slot_cap[RD_ROWS_ADDRS];    /* the entries each rr_tab.slot has room for */
    uint64_t rr_bcur0[RD_ROWS_ADDRS];       /* the between records' addresses in row 0 */
    struct rr_model *rr_model;
    uint64_t *rr_row_diter;                 /* [PERIOD_MAX][RD_MAX_LOOP_DEPTH] */
    const uint64_t *rr_row_addr[CHT_REPEAT_PERIOD_MAX][CHT_REPEAT_MAX_ADDRS]; /* into rr_tab */
    bool finished;
    bool ev_comp_only;        /* ev's fields other than a COMP event's are 0 */
    bool cut_short;
    int status;
    char msg[512];
};

/* ---- the history --------------------------------------------------------- */

/* Addresses of a history record. */
static inline uint32_t hent_naddr(const struct rd_hent *e)
{
    const struct cht_rec *h = (const void *)e->w;
    return h->type == CHT_REC_COMP ? h->aux : 0;
}

/* The history record `back` (1 = the latest) positions ago. */
static inline struct rd_hent *hist_ent(struct rd_thread *th, uint32_t back)
{
    return &th->hist[(th->head + CHT_REPEAT_PERIOD_MAX - back) % CHT_REPEAT_PERIOD_MAX];
}

/* The latest record went into the slot at head. */
static inline void hist_advance(struct rd_thread *th)
{
    th->head = (th->head + 1) % CHT_REPEAT_PERIOD_MAX;
    if (th->nhist < CHT_REPEAT_PERIOD_MAX)
        th->nhist++;
}

/* The buffers runs are made in (run.c), each allocated once: 0, or -1 if
 * out of memory. */
int rd_run_buffers(struct trace_cursor *c);

/* A REPEAT's remaining whole repetitions as one run (run.c): 1 with c->run
 * set, 0 if not, -1 if out of memory. */
int rd_run_start(struct trace_cursor *c, struct rd_thread *th);

/* At the start of a row of the open ROWS record: that row and the next
 * ones as one run of rows (rows-run.c): 1 with c->run set, 0 if not, -1
 * if out of memory. */
int rd_rows_run_start(struct trace_cursor *c, struct rd_thread *th);

#endif
