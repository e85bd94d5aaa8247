/* recorder-private.h - internals of the recorder core of libcommhint, shared
 * by recorder.c (process state, thread buffers, hot path, exit and signals),
 * writer.c (chunks, the rank stream, the meta file) and modules.c (loaded
 * objects and the program record).  Not for the MPI wrappers: they use
 * rt-private.h only.  Tests link the static library and may call the
 * functions marked "for tests".
 *
 * Locking (all spin locks are taken with every signal blocked in the taking
 * thread, so our fatal-signal handler never waits for a lock its own thread
 * holds):
 *   thread buffer lock  ->  stream open state  ->  meta lock  ->  sink lock
 * A thread's buffer lock guards everything of the buffer but `pos`, which
 * only its owner writes (release) and flushers read (acquire).  The meta lock
 * guards the TU registry appends, the metadata snapshot, the shared metadata
 * compression context and the meta file.  A sink lock guards only the chunk
 * sequence number and end offset of one file, so that chunks land in the
 * file in seq order.
 *
 * Nothing in the runtime calls malloc: memory comes from mmap, so that a
 * program with an instrumented allocator cannot recurse into us.
 */
#ifndef COMMHINT_RECORDER_PRIVATE_H
#define COMMHINT_RECORDER_PRIVATE_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_initStaticCCtx, ZSTD_estimateCCtxSize */
#include <zstd.h>

#include "commhint-rt.h"
#include "rt-private.h"

#define RT_HIDDEN __attribute__((visibility("hidden")))

/* Status codes of the runtime's internal functions. */
enum rt_status {
    RT_OK = 0,
    RT_ERR_IO = -1,    /* a file or directory operation failed: tracing stopped */
    RT_ERR_NOMEM = -2, /* mmap failed */
    RT_ERR_OFF = -3,   /* tracing is disabled, failed or finished */
    RT_ERR_BUSY = -4,  /* a lock could not be taken in a signal handler */
    RT_ERR_INVAL = -5  /* bad argument or input */
};

/* Warning keys of the recorder, after the shared ones of rt-private.h. */
enum rt_warn_key_private {
    RT_WARN_BLOB = 8,    /* a TU's site table blob is malformed */
    RT_WARN_THREAD = 9,  /* a thread buffer could not be allocated */
    RT_WARN_TUFULL = 10, /* too many TUs or site ids */
    RT_WARN_EXIT = 11,   /* trace could not be finished cleanly at exit */
    RT_WARN_CODE = 12    /* the set of instrumented functions could not grow */
};

/* Bits of rt_g.off: any bit set means record nothing more. */
enum rt_off_bit {
    RT_OFF_DISABLED = 1u << 0, /* COMMHINT_DISABLE, or a forked child */
    RT_OFF_FAILED = 1u << 1,   /* a write failed */
    RT_OFF_FINISHED = 1u << 2  /* the final chunk was written at exit */
};

/* Tunables and limits. */
#define RT_BUFFER_KB_DEFAULT 1024u
#define RT_BUFFER_KB_MIN 64u       /* >= RT_RESERVE_MAX: rt_reserve must fit */
#define RT_BUFFER_KB_MAX 65536u    /* CHT_CHUNK_MAX_RAW */
#define RT_RESERVE_MAX (64u << 10) /* bytes, rt_reserve limit */
#define RT_ZSTD_LEVEL_DEFAULT 1
#define RT_FLUSH_MS_DEFAULT 500
#define RT_RUN_SKIP_MAX 7 /* irregular streams look for a period once every 8 records */
/* With packs, records outside runs cost a byte or a few: a run counts as a
 * success only from this many records on (from 32 on, master_worker's
 * trace was 1.5x larger), and irregular streams look for a period down to
 * once every RT_RUN_SKIP_MAX_PACK + 1 records. */
#define RT_RUN_MIN_PACK 8u
#define RT_RUN_SKIP_MAX_PACK 63u
#define RT_FLUSH_MS_MAX 3600000
#define RT_ZSTD_LEVEL_MIN (-5)
#define RT_ZSTD_LEVEL_MAX 12 /* a context costs ~40 MiB per thread at 12 */
/* Thread chunks that the level shrinks by less than a quarter (random
 * addresses, as spmv's x[col[j]] differences: 0.78 of their raw size at
 * level 1) are not worth its time: unless COMMHINT_ZSTD_LEVEL is set, the
 * thread's next RT_ZSTD_FAST_CHUNKS chunks are compressed at
 * RT_ZSTD_FAST_LEVEL (about 7 times as fast, close to their raw size),
 * then one at the level again to look (writer.c, rt_zstd_pick) */
#define RT_ZSTD_FAST_LEVEL (-100)
#define RT_ZSTD_FAST_CHUNKS 15u
#define RT_ZSTD_JUDGE_MIN (32u << 10) /* bytes: smaller chunks (flushed at exit,
                                         by the flusher) say nothing */
#define RT_MAX_TUS 65536u
#define RT_MAX_MODULES 4096u     /* module start addresses remembered */
#define RT_META_PIECE (4u << 20) /* bytes: metadata chunks are cut near this */
#define RT_ALTSTACK_SIZE (64u << 10)
#define RT_BUILD_ID_MAX 64u

/* One output file: the rank stream or the meta file. */
struct rt_sink {
    int fd;           /* -1 when closed */
    int lock;         /* spin lock over seq and end */
    uint64_t seq;     /* next chunk number */
    uint64_t end;     /* bytes: offset of the next chunk */
    const char *path; /* borrowed, for messages */
    int is_stream;    /* 1: count records for CHT_REC_END */
    uint64_t file_id; /* the file header's file_id; chunks carry its low half */
};

/* A registered translation unit. */
struct rt_tu {
    const void *blob; /* the pass's constant data, lives as long as the process */
    uint32_t blob_size;
    uint32_t site_base, nsites;
    uint32_t loop_base, nloops;
    uint32_t late; /* registered after the first thread buffer: its table goes into the stream too */
    uint64_t tu_key;
};

/* A buffer position: bytes in the low 32 bits, records in the high 32 bits,
 * so that one store publishes both and chunks need no walk to count their
 * records (buffers are at most 64 MiB). */
#define RT_POS_BYTES(p) ((uint32_t)(p))
#define RT_POS_RECS(p) ((uint32_t)((p) >> 32))
#define RT_POS(bytes, recs) ((uint64_t)(bytes) | ((uint64_t)(recs) << 32))

/* Per-thread buffer.  Nodes are never freed: a node whose thread exited is
 * FREE and reused by the next new thread, so the signal handler can walk the
 * list without locks. */
enum rt_thread_state { RT_THREAD_FREE = 0, RT_THREAD_ACTIVE = 1 };

/* At exit, rt_finish asks each other thread whose run is open to end it
 * itself (only the owner can, from a signal handler as on a fatal signal). */
enum rt_exit_state {
    RT_EXIT_NONE = 0, /* not asked */
    RT_EXIT_ASKED,    /* signal sent, no answer yet */
    RT_EXIT_ANSWERED, /* nothing to end (or the owner was ending it already) */
    RT_EXIT_CUT       /* run written and flushed by the owner; its later records are dropped */
};

/* Run encoding (CHT_REC_REPEAT) of one thread, owner only.  The ring holds
 * the thread's last RT_RUN_HIST history records (see trace-format.h), twice
 * the longest period: a run of period P starts only once 2P records show it,
 * the last P of them fixing the strides. */
#define RT_RUN_HIST (2 * CHT_REPEAT_PERIOD_MAX)
#define RT_RUN_KEY(type, aux, id) ((uint64_t)(type) | (uint64_t)(aux) << 16 | (uint64_t)(id) << 32)

struct rt_run_ent {
    uint64_t key; /* RT_RUN_KEY: type, aux, site or loop */
    uint32_t n;   /* addresses */
    uint32_t reserved;
    uint64_t a[CHT_REPEAT_MAX_ADDRS];
};

/* Column entries a run keeps before it is written (CHT_REC_REPEAT_COL): its
 * record must fit rt_reserve's limit. */
#define RT_RUN_COL_MAX 12288u
#define RT_IN_SIGNAL_LOCKED 2 /* run_write, pack_close: in a handler that holds the thread's lock */
_Static_assert(sizeof(struct cht_rec_repeat_col) + 8 * CHT_REPEAT_PERIOD_MAX * CHT_REPEAT_MAX_ADDRS +
                       4 * RT_RUN_COL_MAX <= RT_RESERVE_MAX,
               "a REPEAT_COL record fits a buffer");
_Static_assert(RT_RUN_COL_MAX <= CHT_REPEAT_COL_MAX, "readers take the column");

struct rt_run {
    uint32_t on;      /* COMMHINT_RUNS or COMMHINT_PACK (or stamp): take the run_record path */
    uint32_t search;  /* COMMHINT_RUNS: look for runs */
    uint32_t packing; /* COMMHINT_PACK: records no run takes are packed */
    uint32_t min;     /* records a run must take to count as a success (packing) */
    uint32_t cols;    /* COMMHINT_COLUMNS: runs may take irregular addresses from a column */
    uint32_t lcols;   /* COMMHINT_COLUMNS not 0: so may loops recorded at their exits */
    uint32_t stamp;   /* COMMHINT_STMT_CLOCK: no runs; COMP records carry a time stamp */
    uint32_t busy;    /* set while run_write ends the run (a signal then leaves it) */
    uint32_t nhist;   /* valid ring entries, at most RT_RUN_HIST */
    uint32_t head;    /* ring slot the next record goes to */
    uint32_t period;  /* 0: no run; the phase, the count (CHT_REPEAT_COUNT_MAX -
                       * left) and the expected records are in __commhint_fast */
    uint32_t nstrides;
    uint32_t fails;   /* run_start calls in a row that found no period */
    uint32_t skip;    /* records to let pass before the next run_start */
    uint32_t loop;    /* the open run is a loop's (loop_run_open): neither a
                       * success nor a failure of the search */
    uint32_t off[CHT_REPEAT_PERIOD_MAX];                        /* first stride of each position */
    uint32_t n[CHT_REPEAT_PERIOD_MAX];                          /* addresses of each position */
    uint64_t key[CHT_REPEAT_PERIOD_MAX];                        /* RT_RUN_KEY of each position */
    int64_t stride[CHT_REPEAT_PERIOD_MAX * CHT_REPEAT_MAX_ADDRS]; /* bytes */
    /* expected addresses COMMHINT_RT_FAST_ADDRS.. of each position */
    uint64_t next_hi[CHT_REPEAT_PERIOD_MAX][CHT_REPEAT_MAX_ADDRS - COMMHINT_RT_FAST_ADDRS];
    struct rt_run_ent hist[RT_RUN_HIST];
    /* irregular addresses (CHT_REC_REPEAT_COL): per position a bit per
     * address (its stride is CHT_REPEAT_IRREGULAR; the inline path never
     * takes such a position: its fast slot's key is 0), their number, the
     * latest address of each, and the column of the open run (entries past
     * those its count stands for belong to a record being taken) */
    uint32_t irr[CHT_REPEAT_PERIOD_MAX];
    uint32_t nirr[CHT_REPEAT_PERIOD_MAX];
    uint32_t ncol;
    uint64_t last[CHT_REPEAT_PERIOD_MAX][CHT_REPEAT_MAX_ADDRS];
    int64_t prevd[CHT_REPEAT_PERIOD_MAX][CHT_REPEAT_MAX_ADDRS]; /* their latest differences */
    uint32_t same[CHT_REPEAT_PERIOD_MAX]; /* records in a row whose irregular addresses moved as before */
    int32_t col[RT_RUN_COL_MAX];
};

/* Packs (CHT_REC_PACK) of one thread, owner only.  Records no run takes are
 * coded into `code` against the table's predictions (trace-format.h) and
 * written as one PACK record when the pack closes: when it is full, when a
 * run ends or any other record is written (run_break), at a flush of the
 * buffer, at exit and in the fatal-signal handler.  The table goes on from
 * one pack to the next (the records after an MPI call are predicted from
 * those before it), except after a record was dropped.  `len` and `count` move
 * only once a record's bytes are complete, so a signal handler closes the
 * pack with whole records; `epoch` moves when it does, so the record it
 * interrupted is dropped rather than written into the next pack (whose
 * table then starts afresh). */
#define RT_PACK_BYTES (16u << 10) /* code bytes a pack holds before it closes */
#define RT_PACK_REC_MAX 96u        /* code bytes of one record at most */
_Static_assert(RT_PACK_BYTES <= CHT_PACK_BYTES_MAX, "readers take a pack");
_Static_assert(sizeof(struct cht_rec_pack) + RT_PACK_BYTES + 8 <= RT_RESERVE_MAX, "a PACK record fits a buffer");

struct rt_pack_ent {
    uint64_t key;  /* RT_RUN_KEY, 0: empty */
    uint64_t next; /* key of the record that followed this one's last record */
    uint32_t gen;  /* the table it belongs to: empty in any other */
    uint32_t reserved;
    uint64_t last[CHT_REPEAT_MAX_ADDRS];
    int64_t d[CHT_REPEAT_MAX_ADDRS]; /* bytes */
};

struct rt_pack {
    uint32_t on;    /* COMMHINT_PACK */
    uint32_t len;   /* code bytes of whole records, 0: no pack open */
    uint32_t count; /* records in the open pack */
    uint32_t gen;   /* the table's number: entries of others are empty */
    uint32_t prev;  /* slot of its latest record's entry */
    uint32_t busy;  /* set while a record is added or the pack written */
    uint32_t epoch; /* moves at each close */
    uint32_t fresh; /* the next pack empties the table (CHT_PACK_RESET) */
    uint32_t reset; /* the open pack did */
    uint32_t reserved;
    unsigned char code[RT_PACK_BYTES];
    struct rt_pack_ent tab[CHT_PACK_SLOTS];
};

/* The queue of one thread (commhint-rt.h): records the inlined code
 * appended while no run was open, not coded yet.  The owner codes them in
 * order (queue_drain) before anything else it records; `head` moves past a
 * record before it is coded, so a fatal-signal handler writes the records
 * from `head` on as they are (queue_spill) and the drain it interrupted
 * stops there.  8 KB: a drain codes them while they are in the cache. */
#define RT_QUEUE_WORDS 1024u
/* Words the queue takes while the search for runs looks at every record:
 * with the whole queue, a run found up to 1024 words late cost the stencil
 * 1.6 times its tracing time (bench/irregular.sh). */
#define RT_QUEUE_SEARCH_WORDS 16

struct rt_queue {
    uint32_t on;   /* COMMHINT_QUEUE, with packs */
    uint32_t busy; /* set while the owner drains it */
    uint64_t *head;                /* the next record to code */
    struct commhint_rt_fast *fast; /* the owner's qpos and qend */
    uint64_t words[RT_QUEUE_WORDS];
};

/* A loop recorded at its exit, as the recorder reads its frame
 * (commhint-rt.h): per position of an iteration its key and address count,
 * and the addresses of iteration `it` with their steps (0 for an irregular
 * address, which comes from the frame's buffer: irr[k] is the index of the
 * k-th). */
#define RT_AFFINE_ADDRS (CHT_REPEAT_PERIOD_MAX * COMMHINT_RT_FAST_ADDRS)
struct rt_affine {
    uint32_t per, na, nirr;
    uint64_t key[CHT_REPEAT_PERIOD_MAX];
    uint32_t n[CHT_REPEAT_PERIOD_MAX], off[CHT_REPEAT_PERIOD_MAX];
    uint32_t irr[COMMHINT_RT_LOOP_IRR];
    uint64_t a[RT_AFFINE_ADDRS];
    int64_t step[RT_AFFINE_ADDRS];
};

/* A varint (7 bits a byte, least significant first) at q; past it. */
static inline unsigned char *rt_varint(unsigned char *q, uint64_t v)
{
    while (v >= 0x80) {
        *q++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *q++ = (unsigned char)v;
    return q;
}

/* The zigzag form of a signed difference (small either way: few bytes). */
static inline uint64_t rt_zigzag(int64_t d)
{
    return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}

/* Rows of a loop nest (CHT_REC_ROWS, rows.c) of one thread, owner only.
 * While one is open, each exit of its inner loop (a loop recorded at its
 * exit with irregular addresses, wholly in its frame's buffer) adds a row:
 * the records queued since the previous exit (the outer loop's: "between")
 * and the loop's iterations, coded in a few bytes per row and 4 per
 * irregular address, with no record made.  Anything else the thread
 * records closes it first (queue_flush).  As with packs, `len` and `rows`
 * move only once a row is complete and `busy` is set while they do or
 * while the record is written, so that a signal handler writes whole rows;
 * the template (keys, bases, strides) changes only in the same window. */
#define RT_ROWS_BYTES (16u << 10) /* code bytes a record holds before it closes */
#define RT_ROWS_ADDRS (CHT_REPEAT_PERIOD_MAX * COMMHINT_RT_FAST_ADDRS)
#define RT_ROWS_MIN 4u      /* rows a record must have to count as a success */
#define RT_ROWS_FAILS 16u   /* failures in a row before the rows rest */
#define RT_ROWS_REST 1024u  /* exits the rows then let pass */
_Static_assert(RT_ROWS_BYTES <= CHT_ROWS_BYTES_MAX, "readers take the code");
_Static_assert(sizeof(struct cht_rec_rows) + 8 * 2 * CHT_REPEAT_PERIOD_MAX + 32 * RT_ROWS_ADDRS + RT_ROWS_BYTES + 8 <=
                   RT_RESERVE_MAX,
               "a ROWS record fits a buffer");

struct rt_rows {
    uint32_t on;    /* COMMHINT_ROWS, with the queue */
    uint32_t rows;  /* rows of the open record, 0: none open */
    uint32_t len;   /* code bytes of its whole rows */
    uint32_t busy;  /* set while a row is added or the record written */
    uint32_t epoch; /* moves at each close */
    uint32_t fails; /* records in a row closed with fewer than RT_ROWS_MIN rows */
    uint32_t rest;  /* exits to let pass before opening one again */
    /* the template */
    uint32_t nb, per, nab, nal, nirr;
    uint64_t key[2 * CHT_REPEAT_PERIOD_MAX]; /* between, then the iteration's */
    uint32_t bn[CHT_REPEAT_PERIOD_MAX];      /* addresses of each between record */
    uint64_t base[RT_ROWS_ADDRS];
    int64_t bstride[RT_ROWS_ADDRS];
    uint64_t start[RT_ROWS_ADDRS];
    int64_t step[RT_ROWS_ADDRS]; /* CHT_REPEAT_IRREGULAR for a column's */
    int64_t xstep[RT_ROWS_ADDRS]; /* as struct rt_affine has them (0 for a column's) */
    /* what the next row is coded against */
    uint64_t bnext[RT_ROWS_ADDRS]; /* its between records' addresses (from row 3 on) */
    uint64_t pred[RT_ROWS_ADDRS];  /* its iteration 0's affine addresses */
    uint64_t last[COMMHINT_RT_LOOP_IRR]; /* the latest value of each irregular address */
    uint32_t irr[COMMHINT_RT_LOOP_IRR];  /* their indices in the iteration */
    /* rt_rows_next's check, from the third row on: the frame's descriptor
     * (pointer, bases and words) and the queue's words expected next (the
     * between records' keys and addresses) with what they move by */
    const uint64_t *dptr;
    uint32_t dlb, dsb, ndesc, nq;
    uint64_t desc[1 + CHT_REPEAT_PERIOD_MAX + RT_ROWS_ADDRS];
    uint64_t qexp[CHT_REPEAT_PERIOD_MAX + RT_ROWS_ADDRS];
    int64_t qstride[CHT_REPEAT_PERIOD_MAX + RT_ROWS_ADDRS];
    unsigned char code[RT_ROWS_BYTES];
};

/* The between records of a row: the queued records since the inner loop's
 * previous exit. */
struct rt_rows_between {
    uint32_t nb, nab;
    uint64_t key[CHT_REPEAT_PERIOD_MAX];
    uint32_t n[CHT_REPEAT_PERIOD_MAX];
    uint64_t a[RT_ROWS_ADDRS];
};

/* Codes a row (rows.c): the between records b (ignored for the first row
 * of a record) and iterations 0..trips-1 of the loop x (its addresses
 * those of iteration 0; the irregular ones in irr, nirr per iteration).
 * Publishes it (len,
 * rows and the template, in the busy window) unless a handler closed the
 * record meanwhile.  1: added; 0: it does not fit the open record (the
 * caller closes it and codes b as usual, then opens one with the loop);
 * -1: the loop cannot be a row (an irregular address moved by more than 32
 * bits within it). */
int rt_rows_add(struct rt_rows *w, const struct rt_affine *x, const struct commhint_rt_loop_frame *fr, uint64_t trips,
                const struct rt_rows_between *b, uint64_t **head, uint64_t *to);
/* The common case of rt_rows_add, before the frame is read: from the third
 * row of a record on, the same frame and the queued words [*head, to) as
 * expected.  1 if the row was added, 0 if rt_rows_add must see it. */
int rt_rows_next(struct rt_rows *w, const struct commhint_rt_loop_frame *fr, uint64_t trips, uint64_t **head,
                 uint64_t *to);
/* Bytes of the open record, and writes it at p. */
size_t rt_rows_size(const struct rt_rows *w);
void rt_rows_write(const struct rt_rows *w, unsigned char *p);

struct rt_thread {
    /* hot: the owner reads these on every event */
    unsigned char *data; /* raw records, cap bytes */
    uint64_t pos;        /* RT_POS: complete records; owner writes (release) */
    size_t cap;          /* bytes */
    /* cold: under lock */
    int lock;
    int state;          /* enum rt_thread_state, changed under lock */
    uint64_t flushed;   /* RT_POS: records already written or discarded */
    uint64_t nflush;    /* chunks flush_locked wrote from this buffer */
    uint64_t aged_mark; /* nflush at the flusher's last look (flusher.c) */
    uint32_t index;     /* thread index within the rank, 0 = first */
    int altstack_on;    /* our alternate signal stack is installed */
    pthread_t tid;      /* the owner, for rt_finish's request to end its run */
    int exit_state;     /* enum rt_exit_state, atomic */
    ZSTD_CCtx *cctx;    /* static context in the node's memory */
    int zlevel;         /* the level cctx is set to */
    uint32_t zfast;     /* chunks left at RT_ZSTD_FAST_LEVEL (rt_zstd_pick) */
    unsigned char *out; /* chunk header + compressed payload */
    size_t out_cap;     /* bytes */
    void *altstack;
    void *mem; /* one mapping holding data, out, cctx and altstack */
    size_t mem_size;
    struct rt_thread *next;
    struct rt_run run;   /* owner only */
    struct rt_pack pack; /* owner only */
    struct rt_queue queue; /* owner only (close_other_runs reads) */
    struct rt_rows rows;   /* owner only (close_other_runs reads) */
};

/* Process-wide state of the recorder. */
struct rt_global {
    int off;       /* enum rt_off_bit, atomic */
    int started;   /* a thread buffer has been registered */
    int finishing; /* rt_finish ran */
    int zstd_level;
    int zstd_adapt; /* COMMHINT_ZSTD_LEVEL not set: thread chunks that hardly
                       compress get a faster level (rt_zstd_pick) */
    int runs;      /* COMMHINT_RUNS (default 1): new thread buffers encode runs */
    int cols;      /* COMMHINT_COLUMNS (default: without packs): their runs may have columns */
    int loop_cols; /* COMMHINT_COLUMNS not 0 (default): so may loops recorded at their exits */
    int pack;      /* COMMHINT_PACK (default: as runs): records no run takes are packed */
    int queue;     /* COMMHINT_QUEUE (default: as packs): the inlined code queues them */
    int rows;      /* COMMHINT_ROWS (default 1, with the queue): rows of loop nests (CHT_REC_ROWS) */
    long run_min;  /* RT_RUN_MIN_PACK (COMMHINT_RUN_MIN for measurements) */
    int stamp;     /* COMMHINT_STMT_CLOCK (default 0): a validation run whose
                      computation records carry the time they were made (no runs) */
    long flush_ms; /* COMMHINT_FLUSH_MS: the flusher's period, 0 = no flusher */
    size_t buf_cap;     /* bytes per thread buffer */
    size_t cctx_size;   /* bytes of a static compression context */
    char dir[PATH_MAX]; /* absolute trace directory */
    char pending_path[PATH_MAX];
    char rank_path[2][PATH_MAX]; /* double-buffered: stream.path may point at one */
    int rank_path_cur;
    int rank;       /* world rank, -1 if unknown */
    int env_rank;   /* the rank the launcher's variables gave, -1 if none */
    int world_size; /* 0 if unknown */
    uint64_t run_id;
    int mpi_initialized;
    uint64_t created_ns; /* CLOCK_REALTIME when the stream was created */

    struct rt_thread *threads; /* list head, atomic */
    uint32_t nthreads;         /* indexes handed out, atomic */

    /* TU registry: slots [0, ntu) are complete (ntu is stored with release) */
    struct rt_tu tus[RT_MAX_TUS];
    uint32_t ntu;

    /* metadata writer, under meta_lock */
    int meta_lock;
    ZSTD_CCtx *mcctx;    /* static context */
    unsigned char *snap; /* MODULE + TU records for the stream's first chunk */
    size_t snap_len, snap_cap;
    uint32_t snap_ntu;       /* TUs covered by snap */
    unsigned char *snap_out; /* compressBound(snap_cap) + chunk header */
    size_t snap_out_cap;
    uint32_t tu_in_stream;               /* TUs already recorded in the stream */
    uint64_t mod_starts[RT_MAX_MODULES]; /* modules already recorded in the stream */
    uint32_t nmod_starts;
    int meta_written;
    uint32_t meta_ntu; /* TUs in the meta file written */

    /* the rank stream */
    int stream_state; /* enum rt_stream_state, atomic */
    struct rt_sink stream;
    uint64_t records; /* records written to the stream, atomic */

    /* a signal that kills is being handled (rt_on_signal): the handling
     * thread's id, 0 otherwise.  The handler flushes every buffer it can,
     * waits until `writing` (chunk writes in progress, atomic) is down to
     * its own, sets `closed` (from then on the other threads' chunk
     * writes wait for the end), waits again, and lets the signal kill the
     * process: no chunk is cut by it, and no thread's events have a gap */
    int dying;
    int closed;
    int writing;
};

enum rt_stream_state { RT_STREAM_NONE = 0, RT_STREAM_OPENING, RT_STREAM_OPEN, RT_STREAM_FAILED };

RT_HIDDEN extern struct rt_global rt_g;
/* Chunk writes of the calling thread in progress (writer.c; the signal
 * handler subtracts its own thread's from rt_g.writing). */
RT_HIDDEN int rt_writing_own(void);

/* ---- code-set.c ----------------------------------------------------------- */

/* Adds n addresses of functions that instrumented code defines to the set
 * (NULL entries are skipped); 0, or -1 when memory ran out (the functions
 * not added then look uninstrumented: their calls become fences, which
 * hides hints but never makes one false). */
RT_HIDDEN int rt_code_add(const void *const *fns, uint32_t n);
/* Whether fn is in the set; lock-free, any thread. */
RT_HIDDEN int rt_code_has(const void *fn);

/* ---- recorder.c ----------------------------------------------------------- */

/* Reads the environment once (thread-safe); 0 on success, RT_ERR_OFF when
 * tracing is disabled. */
RT_HIDDEN int rt_init(void);
/* True when nothing more may be written. */
static inline int rt_is_off(void)
{
    return __atomic_load_n(&rt_g.off, __ATOMIC_ACQUIRE) != 0;
}
/* Spin locks (take only with signals blocked, see the top).  rt_lock_bounded
 * gives up with RT_ERR_BUSY after about a second. */
RT_HIDDEN void rt_lock(int *lock);
RT_HIDDEN int rt_lock_bounded(int *lock);
RT_HIDDEN void rt_unlock(int *lock);
RT_HIDDEN void rt_block_signals(sigset_t *old);
RT_HIDDEN void rt_restore_signals(const sigset_t *old);
/* Index of the calling thread's buffer, 0 if it has none. */
RT_HIDDEN uint32_t rt_thread_index_peek(void);
/* mmap-backed memory; sizes are rounded to pages.  NULL on failure. */
RT_HIDDEN void *rt_mem_alloc(size_t bytes);
RT_HIDDEN void rt_mem_free(void *p, size_t bytes);

/* For tests and the exit path: flushes the completed records of every
 * registered thread buffer.  Returns 0 or a negative enum rt_status. */
RT_HIDDEN int rt_flush_all(void);
/* The flusher's round: writes the complete records of every buffer that
 * wrote no chunk since the previous round (its oldest record is then at
 * least a round old; a buffer that fills up faster is left to its owner,
 * whose full chunks compress better), as a thread without a buffer of its
 * own may.  0 or a negative enum rt_status. */
RT_HIDDEN int rt_flush_complete(void);
/* The normal-exit path (also for tests): flushes everything, writes the
 * CHT_REC_END chunk, finalises the header and the meta file, then stops
 * tracing.  exit_status is recorded as is (-1 when unknown). */
RT_HIDDEN void rt_finish(int exit_status);

/* ---- flusher.c ------------------------------------------------------------ */

/* Starts the thread that calls rt_flush_complete every rt_g.flush_ms (at
 * MPI_Init; does nothing if it runs or flush_ms is 0); stops it and waits
 * for its round to end (MPI_Finalize, exit: before RT_OFF_FINISHED, after
 * which a flush would drop records); forgets it in a forked child. */
RT_HIDDEN void rt_flusher_start(void);
RT_HIDDEN void rt_flusher_stop(void);
RT_HIDDEN void rt_flusher_forget(void);

/* ---- writer.c ------------------------------------------------------------- */

/* 64 random bits (getrandom, or the clock and pid mixed when it fails). */
RT_HIDDEN uint64_t rt_random64(void);
/* Stops tracing and warns once: "cannot write trace, tracing stopped:
 * file=<file> reason=<reason>". */
RT_HIDDEN void rt_fail(const char *file, const char *reason);
/* mkdir -p with mode 0777 (umask applies); 0 or -errno: -ENOTDIR if dir
 * is not a directory, -EPERM if it belongs to another user (who could
 * plant links in it; rt_dir_reason says so). */
RT_HIDDEN int rt_mkdir_p(const char *dir);
/* Creates path as a new, empty file for writing, whatever was at that name
 * before (an earlier run's file, or a link someone planted, is removed,
 * never followed or truncated); the fd, or -errno (EEXIST if something
 * took the name meanwhile). */
RT_HIDDEN int rt_create_fresh(const char *path);
/* Compresses len bytes of whole records (nrec of them, or RT_COUNT to have
 * them counted) with cctx into out (header + payload, out_cap bytes) and
 * appends the chunk to sink; *stored (if not NULL) gets the payload's
 * bytes.  0 or a negative status (tracing is then stopped). */
#define RT_COUNT UINT64_MAX
RT_HIDDEN int rt_emit_chunk(struct rt_sink *s, ZSTD_CCtx *cctx, const void *raw, size_t len, uint64_t nrec,
                            unsigned char *out, size_t out_cap, uint32_t thread, size_t *stored);
/* Sets the level of a thread's context for its next chunk (RT_ZSTD_FAST_LEVEL
 * or rt_g.zstd_level), from what the last one's (raw, stored: 0 if none)
 * compressed to; under the thread's lock. */
RT_HIDDEN void rt_zstd_pick(struct rt_thread *t, size_t raw, size_t stored);
/* Like rt_emit_chunk, but cuts the records into chunks of about
 * RT_META_PIECE bytes; out_cap must be at least rt_out_bound(len). */
RT_HIDDEN int rt_emit_records(struct rt_sink *s, ZSTD_CCtx *cctx, const void *raw, size_t len,
                              unsigned char *out, size_t out_cap, uint32_t thread);
/* Bytes of output buffer a chunk of len raw bytes needs. */
RT_HIDDEN size_t rt_out_bound(size_t len);
/* Creates a static compression context in mem (rt_g.cctx_size bytes). */
RT_HIDDEN ZSTD_CCtx *rt_cctx_init(void *mem);
/* Opens the rank stream if needed (creating the directory, writing the file
 * header and the first chunk of MODULE/TU records).  Returns 1 if this call
 * opened it, 0 if it was open, negative if it cannot be (tracing stopped).
 * in_signal: called from the fatal-signal handler (uses only preallocated
 * memory). */
RT_HIDDEN int rt_stream_ensure(int in_signal);
/* Rewrites the stream's file header from the current state. */
RT_HIDDEN int rt_stream_write_header(void);
/* Renames the stream to path (meta lock held by the caller). */
RT_HIDDEN int rt_stream_rename(const char *path, int noreplace);
/* Rebuilds the metadata snapshot (meta lock held, normal context). */
RT_HIDDEN int rt_snapshot_rebuild(void);
/* Writes TU (+ SITE_TABLE) records of TUs [rt_g.tu_in_stream, ntu) to the
 * open stream (meta lock held, normal context). */
RT_HIDDEN int rt_stream_add_tus(void);
/* Writes MODULE records of modules not yet recorded (meta lock held). */
RT_HIDDEN int rt_stream_add_modules(void);
/* Writes the CHT_REC_END chunk (meta lock held). */
RT_HIDDEN int rt_stream_write_end(int32_t exit_status, uint32_t thread);
/* Writes the meta file (temp name, then rename); normal context. */
RT_HIDDEN int rt_meta_file_write(void);
/* Fills a file header. */
RT_HIDDEN void rt_file_header(struct cht_file_header *h, const char *magic, int32_t rank, int32_t world_size,
                              uint64_t features);
/* pwrite of all bytes, retrying short writes and EINTR; 0 or -errno. */
RT_HIDDEN int rt_pwrite_all(int fd, const void *buf, size_t len, uint64_t off);

/* ---- modules.c ------------------------------------------------------------ */

/* Writes CHT_REC_MODULE records for every loaded object whose start address
 * is not in skip[0..nskip) into buf (cap bytes).  Returns the bytes the
 * records need; they are written only if that is <= cap. */
RT_HIDDEN size_t rt_modules_records(unsigned char *buf, size_t cap, const uint64_t *skip, uint32_t nskip);
/* Writes the CHT_REC_PROGRAM record into buf (cap bytes); returns the bytes
 * it needs (written only if <= cap), 0 on error. */
RT_HIDDEN size_t rt_program_record(unsigned char *buf, size_t cap, int32_t world_size);

/* Rounds up to a multiple of 8. */
static inline size_t rt_pad8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

#endif /* COMMHINT_RECORDER_PRIVATE_H */
