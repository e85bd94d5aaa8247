/* driver.c - `commhint hints --parallel`: the ranks of a trace analysed by
 * the processes of an MPI job (mpiexec -n P), each rank by one process, and
 * the results gathered on process 0, which merges them as a serial run does.
 *
 * MPI is the distributed engine here, as in Scalasca's parallel replay: the
 * per-rank analysis needs nothing from other ranks, so the only exchange is
 * the gather of the results at the end (what cross-rank matching needs:
 * the MPI logs, the aggregation checks, the rest of each result).
 *
 * Results travel as bundles of packed results (pack.c, pack.h); this file
 * is the only one of commhint that calls MPI, and it is a library of its
 * own (libcommhint-parallel.a) that only the command line links.
 *
 * The exchange: process 0 decides which process analyses which rank and
 * broadcasts it; each process analyses its ranks; then process 0 asks each
 * process in turn for its results, which come as parts of at most about
 * 8 MiB packed only then (each a bundle, its size first, then its bytes
 * in chunks of at most 64 MiB: MPI counts are int), so that no process
 * holds its results packed all at once besides the results themselves.
 *
 * Failures: a rank that cannot be analysed travels as a failure item (its
 * status and message) and process 0 reports it as the serial run does; a
 * process that fails as a whole (out of memory while packing) still takes
 * part in every collective call and sends a part whose status says so.
 * MPI errors themselves are fatal (MPI's default handler ends the job), so
 * nothing waits forever.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sched.h>
#include <time.h>

#include <mpi.h>

#include "pack.h"
#include "parallel.h"

/* Sent in pieces of at most this many bytes (MPI counts are int). */
#define CHUNK_BYTES (64u << 20)
#define TAG_GO 17
#define TAG_CHUNK 18

/* ---- the MPI side -------------------------------------------------------------------- */

static MPI_Comm par_comm = MPI_COMM_NULL;
static bool par_inited_mpi;
/* The ranks' processes in the last run_parallel with keep (for the stage). */
static int *par_owner;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* How wait_gently waits.  A round of a replay's exchange (one per
 * message of its critical path between processes) is short, and a sleep
 * costs at least the kernel's timer slack (50 us): a process that has a
 * core to itself tests for SPIN_US first, which made the replay of a
 * 16-rank pipeline at 2 processes 6 times faster (6.1 s -> 1.0 s); one
 * that shares its cores does not, since its test would take the core of
 * the process it waits for (4 processes on 2 cores: 4 times slower).
 * Then sleeps: 10 us doubling up to WAIT_SHORT_NS in the cross-rank
 * stage's collectives (rounds of 8 processes on 2 cores in 1 ms, not 7;
 * that pipeline at 8: 180 s -> 31 s), up to WAIT_LONG_NS where a process
 * waits for others to finish their ranks or the report. */
#define SPIN_US 200.0
#define WAIT_SHORT_NS 64000L
#define WAIT_LONG_NS 1000000L
static bool par_spin; /* every host's processes have a core each */

/* Where the predictions are replayed by default (the stage's exchange's
 * spread, search_xrank_spread_replay): spread when rounds are cheap
 * (par_spin) or when the run's MPI log records pass GATHER_MAX_BYTES in
 * all, since process 0 would hold them all; else on process 0, which
 * then gathers every log (a 16-rank pipeline at 4 processes on 2 cores:
 * 1.1 s gathered, 16 s spread). */
#define GATHER_MAX_BYTES (1ull << 30)
static bool par_big_logs; /* the last run's logs pass GATHER_MAX_BYTES */

/* Whether the processes of every host have a core each (on each host,
 * the CPUs this process may run on, as the others are launched alike),
 * the same on every process. */
static bool cores_enough(void)
{
    MPI_Comm node;
    int local = 0, enough = 0;
    if (MPI_Comm_split_type(par_comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
        cpu_set_t set;
        int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
        enough = local <= cpus;
    }
    MPI_Allreduce(MPI_IN_PLACE, &enough, 1, MPI_INT, MPI_LAND, par_comm);
    return enough;
}

/* Waits for a request that may take long (a process waiting for another
 * one to finish its ranks) without MPI's busy polling, which would take
 * a core from the processes still working when there are more processes
 * than cores: tests (for SPIN_US while it has a core of its own), then
 * sleeps between tests, at most cap_ns.  Only for waits where nothing
 * large moves (the transfers themselves poll). */
static void wait_gently(MPI_Request *req, long cap_ns)
{
    int done = 0;
    double t0 = par_spin ? now_us() : 0;
    while (par_spin) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        if (now_us() - t0 >= SPIN_US)
            break;
        sched_yield();
    }
    for (long ns = 10000;;) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        struct timespec ts = {0, ns};
        nanosleep(&ts, NULL);
        if (ns < cap_ns)
            ns = 2 * ns < cap_ns ? 2 * ns : cap_ns;
    }
}

int search_parallel_begin(int *argc, char ***argv, int *proc, int *nprocs, struct trace_err *err)
{
    int inited = 0, finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) {
        snprintf(err->msg, sizeof err->msg,
                 "cannot start the parallel analysis: reason=MPI already finalized");
        return TRACE_ERR_ARG;
    }
    MPI_Initialized(&inited);
    if (!inited) {
        if (MPI_Init(argc, argv) != MPI_SUCCESS) {
            snprintf(err->msg, sizeof err->msg, "cannot start the parallel analysis: reason=MPI_Init failed");
            return TRACE_ERR_IO;
        }
        par_inited_mpi = true;
    }
    if (par_comm == MPI_COMM_NULL) {
        MPI_Comm_dup(MPI_COMM_WORLD, &par_comm);
        par_spin = cores_enough();
    }
    MPI_Comm_rank(par_comm, proc);
    MPI_Comm_size(par_comm, nprocs);
    return 0;
}

void search_parallel_end(void)
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized)
        return;
    if (par_comm != MPI_COMM_NULL) {
        /* the processes that finish first wait here for process 0, which
         * builds and prints the report, without taking a core from it */
        MPI_Request req;
        MPI_Ibarrier(par_comm, &req);
        wait_gently(&req, WAIT_LONG_NS);
        MPI_Comm_free(&par_comm);
    }
    par_comm = MPI_COMM_NULL;
    free(par_owner);
    par_owner = NULL;
    if (par_inited_mpi)
        MPI_Finalize();
    par_inited_mpi = false;
}

bool search_parallel_agree(bool ok, bool *root_ok)
{
    int proc = 0, in[2], all[2];
    if (par_comm == MPI_COMM_NULL) {
        if (root_ok)
            *root_ok = ok;
        return ok;
    }
    MPI_Comm_rank(par_comm, &proc);
    in[0] = ok ? 1 : 0;
    in[1] = proc == 0 ? in[0] : 1;
    MPI_Allreduce(in, all, 2, MPI_INT, MPI_MIN, par_comm);
    if (root_ok)
        *root_ok = all[1] == 1;
    return all[0] == 1;
}

/* ---- the exchange of the cross-rank stage (depgraph's struct dg_xchg) --------------- */

/* Nonblocking collectives waited for gently: a process that reaches a step
 * first (its ranks were few) does not take a core from the ones still
 * working towards it when there are more processes than cores. */
static void allreduce_gently(int64_t *v, int n, enum dg_xchg_op op, long cap_ns)
{
    MPI_Op mop = op == DG_XCHG_SUM ? MPI_SUM : op == DG_XCHG_MIN ? MPI_MIN : MPI_MAX;
    MPI_Request req;
    MPI_Iallreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, mop, par_comm, &req);
    wait_gently(&req, cap_ns);
}

static int mpi_allreduce(void *ctx, int64_t *v, int n, enum dg_xchg_op op)
{
    (void)ctx;
    allreduce_gently(v, n, op, WAIT_SHORT_NS);
    return 0;
}

/* What each process tells each other one before the bytes: how many
 * bytes it sends it, its status, and whether it sends anything at all. */
/* A header per pair of processes: the statuses and the end of a replay's
 * rounds ride on them, and so do payloads of up to XINLINE bytes (a
 * replay's notes in most rounds). */
enum { XINLINE = 200 };
struct xhead {
    int64_t len, status, any, big; /* big: some payload of the sender's does not fit */
    uint8_t data[XINLINE];
};

/* The headers first, with the small payloads in them; if some payload
 * does not fit, the bytes of the large ones straight from and into each
 * process's buffers (addresses relative to MPI_BOTTOM), with MPI-4's large
 * counts.  One collective call where every payload fits (most rounds of a
 * replay), three where one does not. */
static int mpi_alltoall(void *ctx, int status, struct dg_bytes *out, struct dg_bytes *in)
{
    (void)ctx;
    int K = 0, rc = 0;
    MPI_Comm_size(par_comm, &K);
    struct xhead *h = calloc((size_t)K * 2, sizeof *h);
    MPI_Count *cnt = calloc((size_t)K * 2, sizeof *cnt);
    MPI_Aint *dsp = calloc((size_t)K * 2, sizeof *dsp);
    if (!h || !cnt || !dsp) {
        /* cannot even say so in a header: end the job rather than hang */
        fprintf(stderr, "commhint: error: out of memory in the cross-rank stage\n");
        MPI_Abort(par_comm, 1);
    }
    int64_t st = status < 0 ? status : 0, any = 0, big = 0;
    for (int q = 0; q < K; q++) {
        any |= out[q].len > 0;
        big |= out[q].len > XINLINE;
    }
    for (int q = 0; q < K; q++) {
        h[q] = (struct xhead){st < 0 ? 0 : (int64_t)out[q].len, st, any, big, {0}};
        if (st == 0 && out[q].len && out[q].len <= XINLINE)
            memcpy(h[q].data, out[q].p, out[q].len);
    }
    struct xhead *hin = h + K;
    MPI_Request req;
    MPI_Ialltoall(h, (int)sizeof *h, MPI_BYTE, hin, (int)sizeof *h, MPI_BYTE, par_comm, &req);
    wait_gently(&req, WAIT_SHORT_NS);
    int64_t low = 0;
    any = big = 0;
    for (int q = 0; q < K; q++) {
        low = hin[q].status < low ? hin[q].status : low;
        any |= hin[q].any;
        big |= hin[q].big;
        in[q] = (struct dg_bytes){0};
    }
    if (low < 0 || !any) {
        rc = low < 0 ? (int)low : 0;
        goto out;
    }
    int64_t ok = 1;
    for (int q = 0; q < K && ok; q++)
        if (hin[q].len && !(in[q].p = malloc((size_t)hin[q].len)))
            ok = 0;
        else {
            in[q].len = in[q].cap = (size_t)hin[q].len;
            if (in[q].len <= XINLINE && in[q].len)
                memcpy(in[q].p, hin[q].data, in[q].len);
        }
    if (big) /* every process knows every sender's big: all take this way */
        mpi_allreduce(NULL, &ok, 1, DG_XCHG_MIN);
    else if (!ok) { /* a few hundred bytes: as for the headers */
        fprintf(stderr, "commhint: error: out of memory in the cross-rank stage\n");
        MPI_Abort(par_comm, 1);
    }
    if (!ok) {
        for (int q = 0; q < K; q++)
            dg_bytes_free(&in[q]);
        rc = TRACE_ERR_NOMEM;
        goto out;
    }
    if (big) {
        MPI_Count *rcnt = cnt + K;
        MPI_Aint *rdsp = dsp + K;
        for (int q = 0; q < K; q++) {
            cnt[q] = out[q].len > XINLINE ? (MPI_Count)out[q].len : 0;
            rcnt[q] = in[q].len > XINLINE ? (MPI_Count)in[q].len : 0;
            MPI_Get_address(out[q].p ? (void *)out[q].p : (void *)&ok, &dsp[q]);
            MPI_Get_address(in[q].p ? (void *)in[q].p : (void *)&ok, &rdsp[q]);
        }
        MPI_Ialltoallv_c(MPI_BOTTOM, cnt, dsp, MPI_BYTE, MPI_BOTTOM, rcnt, rdsp, MPI_BYTE, par_comm, &req);
        wait_gently(&req, WAIT_SHORT_NS);
    }
    rc = 1;
out:
    for (int q = 0; q < K; q++)
        dg_bytes_free(&out[q]);
    free(h);
    free(cnt);
    free(dsp);
    return rc;
}

static struct dg_xchg par_xchg;

const struct dg_xchg *search_parallel_xchg(void)
{
    if (par_comm == MPI_COMM_NULL)
        return NULL;
    par_xchg.ctx = NULL;
    par_xchg.alltoall = mpi_alltoall;
    par_xchg.allreduce = mpi_allreduce;
    par_xchg.spread = par_spin || par_big_logs;
    MPI_Comm_rank(par_comm, &par_xchg.proc);
    MPI_Comm_size(par_comm, &par_xchg.nprocs);
    return &par_xchg;
}

/* Which process analyses which rank: runs of consecutive ranks, cut where
 * the stream files' bytes (+ 1 each: empty files still spread) reach each
 * process's share: rank r goes to the process whose share holds the
 * middle of its bytes.  Neighbouring ranks, which exchange most of the
 * messages in most codes, stay on one process, so that the spread
 * cross-rank stage sends fewer of them between processes (a spread
 * replay takes a round per message between two processes on its critical
 * path); a process's load is at most its share plus one rank's.  -1 for
 * ranks without a stream file. */
static int assign_ranks(struct trace *t, int nprocs, int *owner)
{
    int world = trace_world_size(t);
    double total = 0, before = 0;
    for (int r = 0; r < world; r++)
        if (trace_has_rank(t, r))
            total += (double)trace_rank_file_size(t, r) + 1;
    for (int r = 0; r < world; r++) {
        owner[r] = -1;
        if (!trace_has_rank(t, r))
            continue;
        double b = (double)trace_rank_file_size(t, r) + 1, mid = before + b / 2;
        int p = (int)(mid * nprocs / total);
        owner[r] = p < nprocs ? p : nprocs - 1;
        before += b;
    }
    return 0;
}

/* Progress over this process's share of the bytes. */
struct share_progress {
    search_progress_fn fn;
    void *ctx;
    uint64_t done_before, total;
};

static void share_progress_cb(void *ctx, uint64_t done, uint64_t total)
{
    struct share_progress *s = ctx;
    s->fn(s->ctx, s->done_before + (done < total ? done : total), s->total);
}

/* Which process analyses which rank (*owner, malloc'ed), computed by
 * process 0 (the same file sizes everywhere are not taken for granted):
 * every process's failure to hold it is everyone's (returned); process
 * 0's failure to compute it is its own (*local_rc, local_msg). */
static int assignment(struct trace *t, int proc, int nprocs, int **owner_out, int *local_rc, char *local_msg,
                      struct trace_err *err)
{
    int world = trace_world_size(t);
    int *owner = malloc((world > 0 ? (size_t)world : 1) * sizeof *owner);
    int have = owner ? 1 : 0, all_have;
    MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, par_comm);
    if (!all_have) {
        free(owner);
        snprintf(err->msg, sizeof err->msg, "out of memory: process=%d", proc);
        return TRACE_ERR_NOMEM;
    }
    if (proc == 0 && assign_ranks(t, nprocs, owner) < 0) {
        for (int r = 0; r < world; r++)
            owner[r] = -1;
        *local_rc = TRACE_ERR_NOMEM;
        snprintf(local_msg, sizeof err->msg, "out of memory: process=0");
    }
    MPI_Bcast(owner, world, MPI_INT, 0, par_comm);
    *owner_out = owner;
    return 0;
}

/* ---- the results to process 0, a part at a time ------------------------------------- */

/* A process's results travel to process 0 as a sequence of parts, each a
 * whole bundle (pack.h) of the next results, packed only when process 0
 * is ready to take them and closed at PART_BYTES: neither end ever holds
 * more than one part besides the results themselves.  Each part goes as
 * its size (TAG_SIZE), then its bytes in chunks; a size of 0 ends the
 * process's parts. */
#define PART_BYTES (8u << 20)
#define TAG_SIZE 19

/* The size parts are closed at: PART_BYTES, or COMMHINT_PART_BYTES bytes
 * (1 and up: 1 sends every rank's result in a part of its own, as the
 * tests do). */
static size_t part_bytes(void)
{
    const char *s = getenv("COMMHINT_PART_BYTES");
    char *end = NULL;
    unsigned long long v = s && *s ? strtoull(s, &end, 10) : 0;
    return v && end && !*end ? (size_t)v : PART_BYTES;
}

/* A part to process 0: its size, then its bytes. */
static void send_part(const struct pk_buf *b)
{
    uint64_t len = b->len;
    MPI_Send(&len, 1, MPI_UINT64_T, 0, TAG_SIZE, par_comm);
    for (uint64_t off = 0; off < len;) {
        uint64_t n = len - off < CHUNK_BYTES ? len - off : CHUNK_BYTES;
        MPI_Send(b->p + off, (int)n, MPI_BYTE, 0, TAG_CHUNK, par_comm);
        off += n;
    }
}

/* A process other than 0: its failures and results (the results freed
 * unless keep) as parts, once process 0 says it is ready (until then the
 * process waits gently); with local_rc < 0 (the process failed as a
 * whole: local_msg) a last part says so.  A part that runs out of memory
 * while being packed becomes that last part. */
static void send_results(struct search_collected *col, bool keep, int proc, int local_rc, char *local_msg,
                         size_t msg_size)
{
    MPI_Request req;
    int go = 0;
    MPI_Irecv(&go, 1, MPI_INT, 0, TAG_GO, par_comm, &req);
    wait_gently(&req, WAIT_LONG_NS);
    struct pk_buf b = {0};
    uint32_t items = 0;
    int total = col->nfail + col->nres;
    size_t close_at = part_bytes();
    /* process 0 asks for what it needs of the logs when the predictions
     * are replayed spread (the stage's jobs) */
    bool records = !keep || !search_xrank_spread_replay(search_parallel_xchg());
    for (int i = 0; i < total && local_rc == 0; i++) {
        if (!items)
            search_bundle_begin(&b);
        int rank;
        if (i < col->nfail) {
            rank = col->fail[i].rank;
            search_bundle_add_failure(&b, rank, col->fail[i].status, col->fail[i].msg);
        } else {
            struct search_rank_result *res = col->res[i - col->nfail];
            rank = res->rank;
            search_bundle_add_result(&b, rank, res, records);
            if (!keep) {
                search_rank_result_free(res);
                col->res[i - col->nfail] = NULL;
            }
        }
        items++;
        if (b.nomem) {
            local_rc = TRACE_ERR_NOMEM;
            snprintf(local_msg, msg_size, "out of memory while packing the results: process=%d rank=%d", proc,
                     rank);
        } else if (i == total - 1 || b.len >= close_at) {
            search_bundle_set_items(&b, items);
            send_part(&b);
            free(b.p);
            b = (struct pk_buf){0};
            items = 0;
        }
    }
    if (local_rc < 0) {
        bool is_static = search_bundle_failed(&b, local_rc, local_msg);
        send_part(&b);
        if (!is_static)
            free(b.p);
    }
    uint64_t end = 0;
    MPI_Send(&end, 1, MPI_UINT64_T, 0, TAG_SIZE, par_comm);
}

/* Receives len bytes from src in chunks into p, or into a scratch chunk
 * (discarded) when p is NULL: every chunk a process sends is received. */
static int recv_bytes(int src, uint8_t *p, uint64_t len)
{
    uint8_t *scratch = NULL;
    if (!p && len) {
        scratch = malloc(len < CHUNK_BYTES ? (size_t)len : CHUNK_BYTES);
        if (!scratch) {
            /* cannot even drain the messages: end the job rather than hang */
            fprintf(stderr, "commhint: error: out of memory while gathering results: process=0\n");
            MPI_Abort(par_comm, 1);
        }
    }
    for (uint64_t off = 0; off < len;) {
        uint64_t n = len - off < CHUNK_BYTES ? len - off : CHUNK_BYTES;
        MPI_Recv(p ? p + off : scratch, (int)n, MPI_BYTE, src, TAG_CHUNK, par_comm, MPI_STATUS_IGNORE);
        off += n;
    }
    free(scratch);
    return 0;
}

/* Process 0: process src's parts, unpacked into col.  After a failure the
 * rest is still received (and dropped): every byte sent is received. */
static int recv_results(struct trace *t, int src, const int *owner, int world, struct search_collected *col,
                        int rc, struct trace_err *err)
{
    int go = 1;
    MPI_Send(&go, 1, MPI_INT, src, TAG_GO, par_comm);
    for (;;) {
        uint64_t len = 0;
        MPI_Request req;
        MPI_Irecv(&len, 1, MPI_UINT64_T, src, TAG_SIZE, par_comm, &req);
        wait_gently(&req, WAIT_LONG_NS); /* src may still be analysing its ranks */
        if (!len)
            return rc;
        uint8_t *p = rc == 0 ? malloc((size_t)len) : NULL;
        if (!p && rc == 0) {
            rc = TRACE_ERR_NOMEM;
            snprintf(err->msg, sizeof err->msg, "out of memory for the results of process %d: bytes=%" PRIu64,
                     src, len);
        }
        recv_bytes(src, p, len);
        if (p && rc == 0)
            rc = search_bundle_unpack(t, src, p, (size_t)len, owner, world, col, err);
        free(p);
    }
}

/* search_run_parallel; with keep, the processes other than 0 keep their
 * ranks' results too (in *out) and the assignment stays in par_owner. */
static int run_parallel(struct trace *t, const struct search_opts *o, search_progress_fn progress, void *ctx,
                        bool keep, struct search_rank_result ***out, int *n, struct search_rank_failure **failed,
                        int *nfailed, struct trace_err *err)
{
    int proc, nprocs, world, rc = 0, local_rc = 0;
    int *owner = NULL;
    struct search_collected col = {0};
    char local_msg[sizeof err->msg] = "";

    *out = NULL;
    *n = 0;
    if (failed)
        *failed = NULL;
    if (nfailed)
        *nfailed = 0;
    err->msg[0] = '\0';
    if (par_comm == MPI_COMM_NULL || !t) {
        snprintf(err->msg, sizeof err->msg,
                 "parallel analysis not started: call search_parallel_begin first");
        return TRACE_ERR_ARG;
    }
    MPI_Comm_rank(par_comm, &proc);
    MPI_Comm_size(par_comm, &nprocs);
    world = trace_world_size(t);

    /* 1. the assignment, computed by process 0 */
    if ((rc = assignment(t, proc, nprocs, &owner, &local_rc, local_msg, err)) < 0)
        return rc;

    /* 2. this process's ranks, kept as they are until process 0 takes them */
    struct share_progress sp = {.fn = progress, .ctx = ctx};
    for (int r = 0; r < world; r++)
        if (owner[r] == proc)
            sp.total += trace_rank_file_size(t, r);
    for (int r = 0; r < world && !local_rc; r++) {
        if (owner[r] != proc)
            continue;
        struct trace_err rerr;
        struct search_rank_result *res = NULL;
        rerr.msg[0] = '\0';
        int rrc = search_run_rank(t, r, o, progress ? share_progress_cb : NULL, &sp, &res, &rerr);
        sp.done_before += trace_rank_file_size(t, r);
        int arc = rrc < 0 ? search_collected_add_failure(&col, r, rrc, rerr.msg)
                          : search_collected_add_result(&col, res);
        if (arc < 0) {
            search_rank_result_free(res);
            local_rc = arc;
            snprintf(local_msg, sizeof local_msg, "out of memory: process=%d", proc);
        }
    }

    /* whether the logs are too large for process 0 to gather, which
     * decides with the cores where the predictions are replayed */
    if (keep) {
        int64_t bytes = 0;
        for (int i = 0; i < col.nres; i++)
            bytes += (int64_t)(col.res[i]->log.n * sizeof(struct dg_msgrec));
        allreduce_gently(&bytes, 1, DG_XCHG_SUM, WAIT_LONG_NS); /* others may still be analysing */
        par_big_logs = (uint64_t)bytes > GATHER_MAX_BYTES;
    }

    /* 3. the gather, a part at a time, process by process */
    if (proc != 0) {
        send_results(&col, keep, proc, local_rc, local_msg, sizeof local_msg);
        if (keep) {
            /* its failures travelled in the parts: it still takes part in
             * the stage, with the results it has */
            free(par_owner);
            par_owner = owner;
            search_collected_sort(&col);
            *out = col.res;
            *n = col.nres;
            free(col.fail);
            return 0;
        }
        search_collected_free(&col);
        free(owner);
        if (local_rc < 0)
            snprintf(err->msg, sizeof err->msg, "%s", local_msg);
        return local_rc;
    }

    rc = local_rc;
    if (rc < 0)
        snprintf(err->msg, sizeof err->msg, "%s", local_msg);
    for (int src = 1; src < nprocs; src++)
        rc = recv_results(t, src, owner, world, &col, rc, err);
    if (keep) {
        free(par_owner);
        par_owner = owner;
    } else {
        free(owner);
    }
    if (rc < 0) {
        search_collected_free(&col);
        return rc;
    }
    search_collected_sort(&col);
    *out = col.res;
    *n = col.nres;
    if (failed) {
        *failed = col.fail;
        *nfailed = col.nfail;
    } else {
        free(col.fail);
    }
    return 0;
}

int search_run_parallel(struct trace *t, const struct search_opts *o, search_progress_fn progress, void *ctx,
                        struct search_rank_result ***out, int *n, struct search_rank_failure **failed,
                        int *nfailed, struct trace_err *err)
{
    return run_parallel(t, o, progress, ctx, false, out, n, failed, nfailed, err);
}

/* The driver of search_analyse: run_parallel keeping every process's
 * results for the cross-rank stage, with process 0 the leader; every
 * process learns whether process 0 got its results, so that all enter the
 * stage or none. */
static int driver_run(struct trace *t, const struct search_opts *o, search_progress_fn progress, void *ctx,
                      struct search_rank_result ***out, int *n, struct search_rank_failure **failed,
                      int *nfailed, bool *leader, struct trace_err *err)
{
    int proc = 0;
    if (par_comm != MPI_COMM_NULL)
        MPI_Comm_rank(par_comm, &proc);
    *leader = proc == 0;
    int rc = run_parallel(t, o, progress, ctx, true, out, n, failed, nfailed, err);
    if (par_comm == MPI_COMM_NULL)
        return rc;
    int64_t root = proc == 0 ? rc : 0;
    mpi_allreduce(NULL, &root, 1, DG_XCHG_MIN);
    if (proc != 0 && root < 0) {
        for (int k = 0; k < *n; k++)
            search_rank_result_free((*out)[k]);
        free(*out);
        *out = NULL;
        *n = 0;
        snprintf(err->msg, sizeof err->msg, "process 0 could not gather the results");
        return (int)root;
    }
    return rc;
}

static const struct dg_xchg *driver_stage(const int **owner)
{
    *owner = par_owner;
    return search_parallel_xchg();
}

const struct search_driver *search_parallel_driver(void)
{
    static const struct search_driver d = {.run = driver_run, .stage = driver_stage};
    return &d;
}
