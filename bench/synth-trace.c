/* synth-trace.c - writes the commhint trace of P ranks running a common MPI
 * pattern without running MPI, so that traces of thousands of ranks can be
 * analysed on a small machine (issue 22; docs/performance.md, "Synthetic
 * traces at scale").
 *
 *   synth-trace --ranks P --iterations N --pattern NAME [options] -o DIR
 *
 * Patterns (each the twin of a real program in tests/e2e/programs/, whose
 * calls, tags, sizes and source lines it reproduces; tests/e2e/synth-trace.sh
 * compares their traces):
 *   halo-allreduce  (synth-halo.c) a 2-D or 3-D Cartesian grid without
 *                   wrap-around; each step posts an MPI_Irecv from and an
 *                   MPI_Isend to every neighbour (tag: direction of travel),
 *                   completes them with one MPI_Waitall (what most stencil
 *                   codes do), computes, and every K steps calls
 *                   MPI_Allreduce (one double, MPI_SUM).
 *   master-worker   (synth-master.c) rank 0 sends one task to each worker,
 *                   then receives results from MPI_ANY_SOURCE and answers
 *                   each with the next task or a stop; N tasks per worker.
 *   pipeline        (synth-pipeline.c) N items; rank r receives each from
 *                   r - 1, computes, and sends it to r + 1.
 *
 * Timing model (all ranks on one fictitious host with a CPU each, one
 * clock): an MPI call costs --call-ns; a message leaves when its send
 * returns (sends are eager: they never wait for the receiver) and arrives
 * --latency-ns + bytes / --bandwidth later; a receive or wait returns when
 * it has been entered and its messages have arrived; a collective returns
 * when its last member has entered plus ceil(log2 P) message times;
 * computation between calls is a gap of --compute-ns, scaled per rank and
 * step by a uniform factor in [1 - F, 1 + F] (--jitter F, seeded by
 * --seed).  Computation events are not written: the gaps stand for them,
 * so the trace has MPI events only (as a program built without the pass
 * for its computation would), and hints that need computation events
 * (overlap, aggregation) find nothing to work on.
 *
 * The files are those the runtime writes (docs/trace-format.md, version
 * CHT_FORMAT_VERSION): a meta file with a PROGRAM record and the site
 * table of the pattern's fictitious source file (synth/halo.c ...: one
 * site per MPI call, at the lines of the real program), and per rank a
 * stream of zstd chunks (level 1, with content size and checksum, as
 * tracelib/rt/writer.c makes them) holding a TU record, the CLOCK samples,
 * the MPI records with their COMPLETE followers, and END; synth-write.c
 * writes them.  Each rank's records go to a buffer of its own, compressed
 * and appended to its file when full: memory is P buffers (64 MiB in all,
 * at least 4 KiB each) plus O(P) state, whatever N.  A write error leaves
 * the ranks' streams cut short, as a crashed run would.
 * Exit status: 0, 1 on an I/O error, 2 on bad usage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "trace-format.h"
#include "synth-trace.h"

#define MAX_RANKS (1 << 20) /* readers refuse larger worlds */
#define BUF_BUDGET (64u << 20)

/* The call sites of each pattern: MPI_Init and MPI_Finalize first, then
 * S_A, S_B... in the order of this table (the line and column of the call
 * in tests/e2e/programs/synth-PATTERN.c). */
static const struct site_def halo_sites[] = {
    {CHT_MPI_INIT, 46, 5},   {CHT_MPI_FINALIZE, 93, 5}, {CHT_MPI_IRECV, 76, 17},
    {CHT_MPI_ISEND, 79, 17}, {CHT_MPI_WAITALL, 80, 9},  {CHT_MPI_ALLREDUCE, 86, 13},
};
static const struct site_def master_sites[] = {
    {CHT_MPI_INIT, 27, 5},  {CHT_MPI_FINALIZE, 64, 5}, {CHT_MPI_SEND, 42, 13}, /* first tasks */
    {CHT_MPI_RECV, 44, 13}, {CHT_MPI_SEND, 46, 17},                            /* results, next tasks */
    {CHT_MPI_SEND, 49, 17},                                                    /* stops */
};
enum { S_WRECV = S_D + 1, S_WSEND };
static const struct site_def master_worker_sites[] = {{CHT_MPI_RECV, 55, 13}, {CHT_MPI_SEND, 60, 13}};
static const struct site_def pipe_sites[] = {
    {CHT_MPI_INIT, 19, 5},
    {CHT_MPI_FINALIZE, 41, 5},
    {CHT_MPI_RECV, 32, 13},
    {CHT_MPI_SEND, 36, 13},
};

static struct table table_of(enum pattern p)
{
    struct table t = {{NULL, NULL}, {0, 0}};
    if (p == PAT_HALO) {
        t.s[0] = halo_sites;
        t.n[0] = sizeof halo_sites / sizeof *halo_sites;
    } else if (p == PAT_MASTER) {
        t.s[0] = master_sites;
        t.n[0] = sizeof master_sites / sizeof *master_sites;
        t.s[1] = master_worker_sites;
        t.n[1] = sizeof master_worker_sites / sizeof *master_worker_sites;
    } else {
        t.s[0] = pipe_sites;
        t.n[0] = sizeof pipe_sites / sizeof *pipe_sites;
    }
    return t;
}

static const char *const file_names[] = {"synth/halo.c", "synth/master.c", "synth/pipeline.c"};
static const char *const pattern_names[] = {"halo-allreduce", "master-worker", "pipeline"};

/* ---- halo-allreduce -------------------------------------------------------- */

#define MAXD 3

/* Factors p into dims[0] >= dims[1] (>= dims[2]), as square as possible:
 * the same as grid_dims() in tests/e2e/programs/synth-halo.c. */
static void grid_dims(int p, int nd, int *dims)
{
    for (int i = 0; i < nd; i++) {
        int left = nd - i, best = 1;
        for (int d = 1; d <= p; d++) {
            long pw = 1;
            for (int k = 0; k < left; k++)
                pw *= d;
            if (pw > p)
                break;
            if (p % d == 0)
                best = d;
        }
        dims[nd - 1 - i] = best;
        p /= best;
    }
}

/* nb[d]: the neighbour in direction d (0 +x, 1 -x, 2 +y, ...), -1 if none. */
static void neighbours(int r, int nd, const int *dims, int *nb)
{
    for (int i = 0, rest = r, stride = 1; i < nd; i++) {
        int c = rest % dims[i];
        rest /= dims[i];
        nb[2 * i] = c + 1 < dims[i] ? r + stride : -1;
        nb[2 * i + 1] = c > 0 ? r - stride : -1;
        stride *= dims[i];
    }
}

/* The step's Irecv and Isend calls on every rank; sent[r * 2 * nd + d] is
 * when rank r's message in direction d left. */
static void halo_post(struct gen *g, long s, int nd, const int *dims, uint64_t *sent)
{
    int nb[2 * MAXD];
    for (int r = 0; r < g->o.ranks; r++) {
        struct rank_out *o = &g->r[r];
        neighbours(r, nd, dims, nb);
        for (int d = 0; d < 2 * nd; d++) {
            if (nb[d ^ 1] < 0)
                continue;
            struct cht_rec_mpi m = synth_mpi_rec(g, CHT_MPI_IRECV, GSITE(S_A), o->t, o->t + g->o.call_ns);
            m.rbuf = synth_buf_addr(r, 8 + (unsigned)d);
            m.rbytes = g->o.bytes;
            m.rpeer = nb[d ^ 1];
            m.rtag = d;
            m.rseq = (uint64_t)s + 1; /* each channel carries one message a step */
            m.count = (int32_t)(g->o.bytes / 8);
            m.datatype = 8;
            m.request = o->next_req++;
            synth_put_mpi(g, r, &m);
            o->t += g->o.call_ns;
        }
        for (int d = 0; d < 2 * nd; d++) {
            if (nb[d] < 0)
                continue;
            synth_send(g, r, CHT_MPI_ISEND, GSITE(S_B), o->t, nb[d], d, g->o.bytes, (uint64_t)s + 1,
                       2 + (unsigned)d);
            o->t += g->o.call_ns;
            sent[(size_t)r * 2 * nd + (size_t)d] = o->t;
        }
    }
}

/* The step's MPI_Waitall on every rank: it returns when the last of its
 * messages has arrived; then the step's computation. */
static void halo_wait(struct gen *g, long s, int nd, const int *dims, const uint64_t *sent)
{
    int nb[2 * MAXD];
    unsigned char buf[sizeof(struct cht_rec_mpi) + 4 * MAXD * sizeof(struct cht_rec_complete)];
    for (int r = 0; r < g->o.ranks; r++) {
        struct rank_out *o = &g->r[r];
        uint64_t done = o->t, nrecv = 0, nsend = 0;
        neighbours(r, nd, dims, nb);
        for (int d = 0; d < 2 * nd; d++) {
            if (nb[d ^ 1] >= 0) {
                uint64_t arrive =
                    sent[(size_t)nb[d ^ 1] * 2 * nd + (size_t)d] + synth_msg_time(g, g->o.bytes);
                done = arrive > done ? arrive : done;
                nrecv++;
            }
            nsend += nb[d] >= 0;
        }
        /* the requests of this step, in the order they were made */
        uint64_t req = o->next_req - nrecv - nsend;
        size_t n = sizeof(struct cht_rec_mpi);
        for (int d = 0; d < 2 * nd; d++)
            if (nb[d ^ 1] >= 0)
                n += synth_complete(buf + n, 1, req++, nb[d ^ 1], d, g->o.bytes, (uint64_t)s + 1);
        for (int d = 0; d < 2 * nd; d++)
            if (nb[d] >= 0)
                n += synth_complete(buf + n, 0, req++, 0, 0, 0, 0);
        struct cht_rec_mpi m = synth_mpi_rec(g, CHT_MPI_WAITALL, GSITE(S_C), o->t, done + g->o.call_ns);
        m.count = (int32_t)(nrecv + nsend);
        memcpy(buf, &m, sizeof m);
        synth_put(g, r, buf, n, 1 + (unsigned)(nrecv + nsend));
        o->t = m.t_exit + synth_compute_time(g, r, s);
    }
}

/* MPI_Allreduce number `seq` on every rank: it returns when the last rank
 * has entered plus ceil(log2 P) message times. */
static void allreduce(struct gen *g, uint32_t site, uint64_t seq)
{
    uint64_t last = 0;
    unsigned rounds = 0;
    while ((1l << rounds) < g->o.ranks)
        rounds++;
    for (int r = 0; r < g->o.ranks; r++)
        last = g->r[r].t > last ? g->r[r].t : last;
    uint64_t done = last + rounds * synth_msg_time(g, 8) + g->o.call_ns;
    for (int r = 0; r < g->o.ranks; r++) {
        struct cht_rec_mpi m = synth_mpi_rec(g, CHT_MPI_ALLREDUCE, site, g->r[r].t, done);
        m.sbuf = synth_buf_addr(r, 0);
        m.sbytes = 8;
        m.rbuf = synth_buf_addr(r, 1);
        m.rbytes = 8;
        m.tag = CHT_DT_DOUBLE;
        m.op = CHT_OP_SUM;
        m.count = 1;
        m.datatype = 8;
        m.seq = seq;
        synth_put_mpi(g, r, &m);
        g->r[r].t = done;
    }
}

static int gen_halo(struct gen *g)
{
    int nd = g->o.dims, dims[MAXD] = {1, 1, 1};
    uint64_t *sent = calloc((size_t)g->o.ranks * 2 * (size_t)nd, sizeof *sent);
    uint64_t colls = 0;

    if (!sent) {
        fprintf(stderr, "synth-trace: out of memory\n");
        return -1;
    }
    grid_dims(g->o.ranks, nd, dims);
    for (long s = 0; s < g->o.iters && !g->failed; s++) {
        halo_post(g, s, nd, dims, sent);
        halo_wait(g, s, nd, dims, sent);
        if (g->o.every > 0 && (s + 1) % g->o.every == 0)
            allreduce(g, GSITE(S_D), ++colls);
    }
    free(sent);
    return g->failed ? -1 : 0;
}

/* ---- pipeline ------------------------------------------------------------- */

static int gen_pipeline(struct gen *g)
{
    uint64_t prev_sent = 0;
    for (long i = 0; i < g->o.iters && !g->failed; i++) {
        for (int r = 0; r < g->o.ranks; r++) {
            struct rank_out *o = &g->r[r];
            if (r > 0)
                synth_recv(g, r, GSITE(S_A), r - 1, 0, 0, g->o.bytes, (uint64_t)i + 1,
                           prev_sent + synth_msg_time(g, g->o.bytes), 0);
            o->t += synth_compute_time(g, r, i);
            if (r < g->o.ranks - 1) {
                synth_send(g, r, CHT_MPI_SEND, GSITE(S_B), o->t, r + 1, 0, g->o.bytes, (uint64_t)i + 1, 2);
                o->t += g->o.call_ns;
                prev_sent = o->t; /* read by rank r + 1 next */
            }
        }
    }
    return g->failed ? -1 : 0;
}

/* ---- master-worker -------------------------------------------------------- */

#define TAG_TASK 1
#define TAG_RESULT 2
#define TAG_STOP 3

/* Results on their way to rank 0: a binary min-heap on arrival time. */
struct heap {
    uint64_t *at;
    int *w;
    int n;
};

static void heap_push(struct heap *h, uint64_t at, int w)
{
    int i = h->n++;
    while (i > 0 && h->at[(i - 1) / 2] > at) {
        h->at[i] = h->at[(i - 1) / 2];
        h->w[i] = h->w[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->at[i] = at;
    h->w[i] = w;
}

static void heap_pop(struct heap *h, uint64_t *at, int *w)
{
    uint64_t last = h->at[--h->n];
    int lw = h->w[h->n], i = 0;
    *at = h->at[0];
    *w = h->w[0];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->at[c + 1] < h->at[c])
            c++;
        if (h->at[c] >= last)
            break;
        h->at[i] = h->at[c];
        h->w[i] = h->w[c];
        i = c;
    }
    h->at[i] = last;
    h->w[i] = lw;
}

struct mw {
    struct heap h;
    uint64_t *tasks;   /* per worker: tasks sent to it (its task channel's seq) */
    uint64_t *results; /* per worker: results it sent */
};

/* Worker w receives what rank 0 sent it (a task or the stop, arriving at
 * `arrive`); for a task it computes and sends the result back. */
static void worker_gets(struct gen *g, struct mw *s, int w, int tag, uint64_t arrive)
{
    int task = tag == TAG_TASK;
    synth_recv(g, w, GSITE(S_WRECV), 0, CHT_TAG_ANY, tag, task ? g->o.bytes : 0, task ? s->tasks[w] : 1,
               arrive, CHT_MPIF_ANY_TAG);
    if (!task)
        return;
    struct rank_out *o = &g->r[w];
    o->t += synth_compute_time(g, w, (long)s->results[w]);
    synth_send(g, w, CHT_MPI_SEND, GSITE(S_WSEND), o->t, 0, TAG_RESULT, g->o.bytes, ++s->results[w], 2);
    o->t += g->o.call_ns;
    heap_push(&s->h, o->t + synth_msg_time(g, g->o.bytes), w);
}

/* Rank 0 sends w a task (site S_C, or S_A for the first ones) or the stop
 * (S_D) and w receives it. */
static void master_sends(struct gen *g, struct mw *s, uint32_t site, int w, int tag)
{
    struct rank_out *m = &g->r[0];
    uint64_t bytes = tag == TAG_TASK ? g->o.bytes : 0;
    uint64_t seq = tag == TAG_TASK ? ++s->tasks[w] : 1;
    synth_send(g, 0, CHT_MPI_SEND, site, m->t, w, tag, bytes, seq, 2);
    m->t += g->o.call_ns;
    worker_gets(g, s, w, tag, m->t + synth_msg_time(g, bytes));
}

static int gen_master(struct gen *g)
{
    int nw = g->o.ranks - 1;
    struct mw s = {{malloc(sizeof(uint64_t) * (size_t)nw), malloc(sizeof(int) * (size_t)nw), 0},
                   calloc((size_t)g->o.ranks, sizeof(uint64_t)),
                   calloc((size_t)g->o.ranks, sizeof(uint64_t))};
    int e = -1;

    if (!s.h.at || !s.h.w || !s.tasks || !s.results) {
        fprintf(stderr, "synth-trace: out of memory\n");
        goto out;
    }
    long total = (long)nw * g->o.iters, sent = 0;
    for (int w = 1; w <= nw && sent < total; w++, sent++)
        master_sends(g, &s, GSITE(S_A), w, TAG_TASK);
    for (long done = 0; done < total && !g->failed; done++) {
        uint64_t at;
        int w;
        heap_pop(&s.h, &at, &w);
        synth_recv(g, 0, GSITE(S_B), w, TAG_RESULT, TAG_RESULT, g->o.bytes, s.results[w], at,
                   CHT_MPIF_ANY_SOURCE);
        if (sent < total) {
            master_sends(g, &s, GSITE(S_C), w, TAG_TASK);
            sent++;
        } else {
            master_sends(g, &s, GSITE(S_D), w, TAG_STOP);
        }
    }
    e = g->failed ? -1 : 0;
out:
    free(s.h.at);
    free(s.h.w);
    free(s.tasks);
    free(s.results);
    return e;
}

/* ---- the command line ------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f, "usage: synth-trace --ranks P --iterations N --pattern NAME [options] -o DIR\n"
               "Writes the commhint trace of P ranks running an MPI pattern, without MPI.\n"
               "\n"
               "  --ranks P          ranks, 1 to 1048576 (master-worker: 2 or more)\n"
               "  --iterations N     halo-allreduce: steps; pipeline: items; master-worker:\n"
               "                     tasks per worker (1 or more)\n"
               "  --pattern NAME     halo-allreduce, master-worker or pipeline\n"
               "  --every K          halo-allreduce: MPI_Allreduce every K steps, 0 never (10)\n"
               "  --dims 2|3         halo-allreduce: dimensions of the rank grid (2)\n"
               "  --bytes B          bytes per message, a multiple of 8 (8192)\n"
               "  --compute-ns T     computation per step, item or task, ns (100000)\n"
               "  --jitter F         computation scaled by a uniform factor in [1-F, 1+F] (0.05)\n"
               "  --latency-ns L     message latency, ns (1000)\n"
               "  --bandwidth GBS    bytes per ns (5)\n"
               "  --call-ns C        time of an MPI call, ns (200)\n"
               "  --seed S           seed of the jitter (1)\n"
               "  -o, --output DIR   the trace directory: new or empty\n"
               "  -h, --help         this text\n"
               "The model and the files: bench/synth-trace.c, docs/performance.md.\n");
}

static int bad(const char *what, const char *value)
{
    fprintf(stderr, "synth-trace: %s: %s (see --help)\n", what, value);
    return 2;
}

/* Parses an unsigned integer in [lo, hi]; 0 on success. */
static int parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    static const struct option lo[] = {
        {"ranks", 1, 0, 'P'},      {"iterations", 1, 0, 'N'}, {"pattern", 1, 0, 'p'},
        {"every", 1, 0, 'k'},      {"dims", 1, 0, 'd'},       {"bytes", 1, 0, 'b'},
        {"compute-ns", 1, 0, 'c'}, {"jitter", 1, 0, 'j'},     {"latency-ns", 1, 0, 'l'},
        {"bandwidth", 1, 0, 'w'},  {"call-ns", 1, 0, 'C'},    {"seed", 1, 0, 's'},
        {"output", 1, 0, 'o'},     {"help", 0, 0, 'h'},       {0, 0, 0, 0}};
    uint64_t v;
    int c, have_p = 0;

    *o = (struct opts){.ranks = 0,
                       .iters = -1,
                       .every = 10,
                       .dims = 2,
                       .bytes = 8192,
                       .compute_ns = 100000,
                       .jitter = 0.05,
                       .latency_ns = 1000,
                       .bandwidth = 5,
                       .call_ns = 200,
                       .seed = 1};
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
        const char *a = optarg;
        switch (c) {
        case 'P':
            if (parse_u64(a, 1, MAX_RANKS, &v))
                return bad("--ranks must be an integer from 1 to 1048576", a);
            o->ranks = (int)v;
            break;
        case 'N':
            if (parse_u64(a, 1, 100000000, &v))
                return bad("--iterations must be an integer from 1 to 100000000", a);
            o->iters = (long)v;
            break;
        case 'p':
            for (o->pat = 0; o->pat < 3 && strcmp(a, pattern_names[o->pat]); o->pat++)
                ;
            if (o->pat == 3)
                return bad("--pattern must be halo-allreduce, master-worker or pipeline", a);
            have_p = 1;
            break;
        case 'k':
            if (parse_u64(a, 0, INT_MAX, &v))
                return bad("--every must be an integer, 0 or more", a);
            o->every = (int)v;
            break;
        case 'd':
            if (parse_u64(a, 2, 3, &v))
                return bad("--dims must be 2 or 3", a);
            o->dims = (int)v;
            break;
        case 'b':
            if (parse_u64(a, 8, 1u << 30, &v) || v % 8)
                return bad("--bytes must be a multiple of 8 from 8 to 1 GiB", a);
            o->bytes = v;
            break;
        case 'c':
            if (parse_u64(a, 0, 1000000000000ull, &v))
                return bad("--compute-ns must be an integer from 0 to 10^12", a);
            o->compute_ns = v;
            break;
        case 'j':
            if (parse_double(a, 0, 1, &o->jitter))
                return bad("--jitter must be a number from 0 to 1", a);
            break;
        case 'l':
            if (parse_u64(a, 0, 1000000000ull, &v))
                return bad("--latency-ns must be an integer from 0 to 10^9", a);
            o->latency_ns = v;
            break;
        case 'w':
            if (parse_double(a, 1e-6, 1e6, &o->bandwidth))
                return bad("--bandwidth must be a number from 1e-6 to 1e6 (bytes per ns)", a);
            break;
        case 'C':
            if (parse_u64(a, 1, 1000000000ull, &v))
                return bad("--call-ns must be an integer from 1 to 10^9", a);
            o->call_ns = v;
            break;
        case 's':
            if (parse_u64(a, 0, UINT64_MAX, &v))
                return bad("--seed must be a non-negative integer", a);
            o->seed = v;
            break;
        case 'o': o->dir = a; break;
        case 'h': usage(stdout); exit(0);
        default: return bad("unknown option or missing value", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return bad("unexpected argument", argv[optind]);
    if (!o->ranks || o->iters < 0 || !have_p || !o->dir || !*o->dir)
        return bad("--ranks, --iterations, --pattern and -o are required", !o->ranks      ? "--ranks"
                                                                           : o->iters < 0 ? "--iterations"
                                                                           : !have_p      ? "--pattern"
                                                                                          : "-o");
    if (o->pat == PAT_MASTER && o->ranks < 2)
        return bad("master-worker needs 2 ranks or more", "--ranks=1");
    if (strlen(o->dir) > PATH_MAX - 32)
        return bad("the output directory's name is too long", o->dir);
    return 0;
}

/* Makes DIR, or checks that it is an empty directory: a trace is never
 * mixed with the files of another. */
static int make_dir(const char *dir)
{
    if (mkdir(dir, 0777) == 0)
        return 0;
    int err = errno;
    struct stat st;
    if (err == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(dir);
        struct dirent *de;
        int entries = 0;
        if (d) {
            while ((de = readdir(d)) != NULL)
                entries += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
            closedir(d);
            if (entries == 0)
                return 0;
            fprintf(stderr, "synth-trace: the output directory is not empty: dir=%s\n", dir);
            return -1;
        }
        err = errno;
    }
    fprintf(stderr, "synth-trace: cannot create the output directory: dir=%s reason=%s\n", dir,
            err == EEXIST ? "not a directory" : strerror(err));
    return -1;
}

int main(int argc, char **argv)
{
    struct gen g;
    int e;

    memset(&g, 0, sizeof g);
    /* past a file size limit, a write error (EFBIG) rather than death */
    signal(SIGXFSZ, SIG_IGN);
    if ((e = parse_args(argc, argv, &g.o)) != 0)
        return e;
    if (make_dir(g.o.dir) < 0)
        return 1;
    /* chunks of up to 1 MiB as the runtime's, smaller when many ranks
     * share the budget (at least 4 KiB: an MPI record with its followers,
     * 632 bytes at most, always fits) */
    g.cap = BUF_BUDGET / (size_t)g.o.ranks;
    g.cap = g.cap > (1u << 20) ? (1u << 20) : g.cap < (4u << 10) ? (4u << 10) : g.cap;
    g.zcap = sizeof(struct cht_chunk_header) + ZSTD_compressBound(g.cap > 65536 ? g.cap : 65536);
    g.r = calloc((size_t)g.o.ranks, sizeof *g.r);
    g.zbuf = malloc(g.zcap);
    g.cctx = ZSTD_createCCtx();
    e = 1;
    if (!g.r || !g.zbuf || !g.cctx) {
        fprintf(stderr, "synth-trace: out of memory\n");
        goto out;
    }
    for (int r = 0; r < g.o.ranks; r++)
        if (!(g.r[r].buf = malloc(g.cap))) {
            fprintf(stderr, "synth-trace: out of memory: ranks=%d bytes=%zu\n", g.o.ranks, g.cap);
            goto out;
        }
    if (ZSTD_isError(ZSTD_CCtx_setParameter(g.cctx, ZSTD_c_compressionLevel, 1)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(g.cctx, ZSTD_c_contentSizeFlag, 1)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(g.cctx, ZSTD_c_checksumFlag, 1))) {
        fprintf(stderr, "synth-trace: cannot set up zstd\n");
        goto out;
    }
    g.run_id = synth_mix(g.o.seed ^ synth_now_ns(CLOCK_REALTIME)) | 1;
    g.t0 = synth_now_ns(CLOCK_MONOTONIC);
    g.real0 = synth_now_ns(CLOCK_REALTIME);
    g.tab = table_of(g.o.pat);
    g.file = file_names[g.o.pat];
    g.pattern = pattern_names[g.o.pat];
    if (synth_write_meta(&g) < 0 || synth_open_ranks(&g) < 0)
        goto out;
    if (g.o.pat == PAT_HALO)
        e = gen_halo(&g);
    else if (g.o.pat == PAT_MASTER)
        e = gen_master(&g);
    else
        e = gen_pipeline(&g);
    e = e < 0 || synth_close_ranks(&g) < 0 ? 1 : 0;
out:
    if (g.r)
        for (int r = 0; r < g.o.ranks; r++)
            free(g.r[r].buf);
    free(g.r);
    free(g.zbuf);
    ZSTD_freeCCtx(g.cctx);
    return e;
}
