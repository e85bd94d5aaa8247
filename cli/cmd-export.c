/* cmd-export.c - `commhint export DIR --format=chrome [-o FILE]`: the MPI
 * timeline of a trace in the Chrome trace-event format (JSON object form),
 * for ui.perfetto.dev and chrome://tracing (docs/export.md).
 *
 * The ranks are analysed as `commhint hints` does (search_run_rank, then
 * search_report_build for the hints); their MPI logs give the calls and,
 * matched across ranks (dg_match_build), the messages and collective
 * instances.  Per world rank one process: its MPI calls as complete events,
 * each message as a flow from its send to its receive, each hint holding on
 * the rank as an instant event at its call site's first call there.
 *
 * The JSON is written while the logs are walked, never held in memory; only
 * the logs are (as for the cross-rank stage of `hints`).
 *
 * Decisions beyond docs/export.md's table:
 *   - pid (and tid) is world rank + 1: pid 0 is the idle process of the
 *     Linux kernel, which Perfetto's importer treats specially; the
 *     process is named "rank N" and sorted by N;
 *   - ranks on one host share CLOCK_MONOTONIC and are shown on it as they
 *     are; when the ranks' clock samples say they ran on different hosts
 *     (their REALTIME - MONOTONIC offsets differ by more than 1 ms), each
 *     rank's times are mapped to CLOCK_REALTIME through its samples at
 *     MPI_Init and MPI_Finalize (linear in between), as the wait-state
 *     analysis does (search/xrank/waitstates.c);
 *   - a Sendrecv with both peers MPI_PROC_NULL leaves no record in the MPI
 *     log and cannot be exported: the calls missing are counted per rank
 *     and reported on stderr and in otherData. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "search.h"

enum export_format { FMT_CHROME };

struct export_opts {
    int format;         /* enum export_format */
    bool stable;        /* logical times, no savings, relative paths */
    int rank;           /* only this world rank; -1 = all */
    const char *output; /* NULL or "-": stdout */
};

static void export_help(void)
{
    printf("usage: commhint export DIR [--format=chrome] [options]\n\n"
           "Writes the MPI timeline of the trace in DIR for a trace viewer: every MPI call\n"
           "of every rank, every message as an arrow from its send to its receive, and\n"
           "every hint of 'commhint hints' as a marker at its call (docs/export.md).\n"
           "  --format=FMT       chrome (the default and only one for now): the Chrome\n"
           "                     trace-event JSON format, which ui.perfetto.dev and\n"
           "                     chrome://tracing open\n"
           "  --rank=N           only rank N's calls and hints (messages to and from other\n"
           "                     ranks then have no arrow; their peers are in the calls' args)\n"
           "  --stable           logical times (call k of a rank at k us), no savings, paths\n"
           "                     relative to the current directory (for comparisons)\n"
           "  -o, --output FILE  write to FILE instead of standard output ('-': standard\n"
           "                     output)\n"
           "A summary line goes to standard error.  Exit status 0 on success, 1 if DIR is\n"
           "not a trace, no rank could be analysed or the output cannot be written, 2 on\n"
           "bad usage.\n");
}

/* ---- clocks --------------------------------------------------------------------- */

/* Offsets of REALTIME - MONOTONIC that differ by more than this between
 * ranks mean different hosts (ns). */
#define EXPORT_SAME_HOST_NS 1000000

enum clock_mode { CLOCK_MONO, CLOCK_REAL, CLOCK_LOGICAL };

static const char *const clock_mode_names[] = {"monotonic", "realtime", "logical"};

/* ---- the state of one export ---------------------------------------------------- */

struct xrank {
    struct search_rank_result *res; /* NULL: no trace, or not analysed (the log is ours to change) */
    bool missing;                   /* no stream file */
    struct dg_clockmap cm;
    uint32_t *first;  /* per siteinfo entry: log position of its first record (UINT32_MAX: none) */
    uint32_t *ord;    /* --stable: per log position, the ordinal of its call on the rank */
    uint64_t ncalls;  /* MPI calls in the log (distinct event indices) */
    uint64_t untimed; /* calls without a time, placed after the call before them */
};

/* A hint as exported: the report's hint and its message. */
struct xhint {
    const struct search_hint *h;
    char *message;
};

struct xport {
    const struct export_opts *o;
    struct trace *t;
    int world;
    struct xrank *rk; /* [world] */
    const struct dg_match *m;
    int clock;    /* enum clock_mode */
    int64_t base; /* shown time of the earliest call (ns) */
    struct xhint *hints;
    uint32_t nhints;
    FILE *f;
    bool any; /* an event was written (comma before the next) */
    /* counts */
    uint64_t calls, flows, unmatched, instants, unlocated, untimed, missing_calls;
    uint64_t next_flow_id;
};

/* Shown time of a log record's entry or exit, ns from the earliest call. */
static uint64_t rec_time(const struct xport *x, int rank, uint32_t pos, bool exit)
{
    const struct xrank *r = &x->rk[rank];
    if (x->clock == CLOCK_LOGICAL)
        return (uint64_t)r->ord[pos] * 1000 + (exit ? 500 : 0);
    const struct dg_msgrec *rec = &r->res->log.rec[pos];
    uint64_t t = exit ? rec->t_exit : rec->t_enter;
    if (!t)
        return 0; /* a rank without any time */
    int64_t v = dg_clock_at(&r->cm, t) - x->base;
    return v > 0 ? (uint64_t)v : 0;
}

/* Where flows bind: the middle of the call (Perfetto binds a flow end to
 * the slice open on the thread at its time). */
static uint64_t rec_mid(const struct xport *x, int rank, uint32_t pos)
{
    uint64_t a = rec_time(x, rank, pos, false), b = rec_time(x, rank, pos, true);
    return b > a ? a + (b - a) / 2 : a;
}

/* ---- preparation ---------------------------------------------------------------- */

static int siteinfo_index(const struct search_rank_result *r, uint32_t site)
{
    uint32_t lo = 0, hi = r->nsiteinfo;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->siteinfo[mid].site < site)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nsiteinfo && r->siteinfo[lo].site == site ? (int)lo : -1;
}

/* Per rank: the first record of every site, the calls counted, times
 * without a value filled in (from the call before, else the rank's first
 * time), and the logical times of --stable.  The log is ours to change:
 * the report holds no pointer into it. */
static int prepare_rank(struct xport *x, int rank)
{
    struct xrank *xr = &x->rk[rank];
    struct dg_mpilog *log = &xr->res->log;
    const struct search_rank_result *res = xr->res;
    xr->first = malloc((res->nsiteinfo ? res->nsiteinfo : 1) * sizeof *xr->first);
    if (!xr->first)
        return -1;
    for (uint32_t i = 0; i < res->nsiteinfo; i++)
        xr->first[i] = UINT32_MAX;
    if (x->clock == CLOCK_LOGICAL && !(xr->ord = malloc((log->n ? log->n : 1) * sizeof *xr->ord)))
        return -1;
    uint64_t known = 0, prev_exit = 0;
    for (uint32_t i = 0; i < log->n && !known; i++)
        known = log->rec[i].t_enter;
    uint32_t ord = 0;
    for (uint32_t i = 0; i < log->n; i++) {
        struct dg_msgrec *r = &log->rec[i];
        bool new_call = !i || log->rec[i - 1].index != r->index;
        if (new_call) {
            ord = (uint32_t)xr->ncalls++;
            if (!r->t_enter)
                xr->untimed++;
        }
        if (xr->ord)
            xr->ord[i] = ord;
        if (!r->t_enter) {
            r->t_enter = prev_exit ? prev_exit : known;
            r->t_exit = r->t_enter;
        }
        if (r->t_exit < r->t_enter)
            r->t_exit = r->t_enter;
        prev_exit = r->t_exit;
        int k = siteinfo_index(res, r->site);
        if (k >= 0 && xr->first[k] == UINT32_MAX)
            xr->first[k] = i;
    }
    return 0;
}

/* Chooses the clock (see the top of the file) and the time base. */
static void choose_clock(struct xport *x)
{
    if (x->o->stable) {
        x->clock = CLOCK_LOGICAL;
        x->base = 0;
        return;
    }
    bool all = true, have = false;
    int64_t lo = 0, hi = 0;
    for (int r = 0; r < x->world; r++) {
        const struct search_rank_result *res = x->rk[r].res;
        if (!res)
            continue;
        const struct dg_clock *c = res->log.clock[0].valid ? &res->log.clock[0] : &res->log.clock[1];
        if (!c->valid) {
            all = false;
            continue;
        }
        int64_t d = dg_clock_delta(c);
        if (!have || d < lo)
            lo = d;
        if (!have || d > hi)
            hi = d;
        have = true;
    }
    x->clock = have && all && hi - lo > EXPORT_SAME_HOST_NS ? CLOCK_REAL : CLOCK_MONO;
    if (x->clock == CLOCK_REAL) {
        for (int r = 0; r < x->world; r++) {
            const struct search_rank_result *res = x->rk[r].res;
            if (!res)
                continue;
            /* lo keeps shown times near the monotonic ones */
            dg_clockmap_init(&x->rk[r].cm, &res->log, lo);
        }
    }
    bool have_base = false;
    for (int r = 0; r < x->world; r++) {
        const struct search_rank_result *res = x->rk[r].res;
        if (!res)
            continue;
        for (uint32_t i = 0; i < res->log.n; i++) {
            if (!res->log.rec[i].t_enter)
                continue;
            int64_t v = dg_clock_at(&x->rk[r].cm, res->log.rec[i].t_enter);
            if (!have_base || v < x->base)
                x->base = v;
            have_base = true;
        }
    }
}

/* ---- JSON ------------------------------------------------------------------------- */

static const char *const kind_names[] = {[SEARCH_HINT_OVERLAP] = "overlap",
                                         [SEARCH_HINT_AGGREGATE] = "aggregate",
                                         [SEARCH_HINT_COLLECTIVE] = "collective"};

static const char *kind_name(int kind)
{
    return kind >= SEARCH_HINT_OVERLAP && kind <= SEARCH_HINT_COLLECTIVE ? kind_names[kind] : "?";
}

static const char *comm_name(uint64_t id, char *buf, size_t n)
{
    if (id == CHT_COMM_WORLD)
        return "world";
    if (id == CHT_COMM_SELF)
        return "self";
    if (id == CHT_COMM_UNKNOWN)
        return "unknown";
    snprintf(buf, n, "0x%" PRIx64, id);
    return buf;
}

/* A time in ns as microseconds with three decimals, exactly. */
static void put_us(FILE *f, const char *key, uint64_t ns)
{
    fprintf(f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000, (unsigned)(ns % 1000));
}

static void put_str(FILE *f, const char *key, const char *value)
{
    fprintf(f, ",\"%s\":", key);
    cli_json_string(f, value);
}

/* Starts an event (the comma before it, the phase, pid and tid). */
static void event_begin(struct xport *x, const char *ph, int rank)
{
    fprintf(x->f, "%s{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d", x->any ? ",\n" : "\n", ph, rank + 1, rank + 1);
    x->any = true;
}

static void put_location(FILE *f, const char *key, const struct trace_site_info *si)
{
    char buf[4096];
    if (si && si->file && *si->file)
        snprintf(buf, sizeof buf, "%s:%u:%u", cli_display_path(si->file, true), si->line, si->col);
    else
        snprintf(buf, sizeof buf, "??");
    put_str(f, key, buf);
}

static void write_metadata(struct xport *x, int rank)
{
    const struct xrank *xr = &x->rk[rank];
    char name[64];
    snprintf(name, sizeof name, "rank %d%s", rank,
             xr->missing          ? " (no trace)"
             : !xr->res           ? " (not analysed)"
             : xr->res->cut_short ? " (cut short)"
                                  : "");
    event_begin(x, "M", rank);
    fputs(",\"name\":\"process_name\",\"args\":{\"name\":", x->f);
    cli_json_string(x->f, name);
    fputs("}}", x->f);
    event_begin(x, "M", rank);
    fprintf(x->f, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}", rank);
    event_begin(x, "M", rank);
    fputs(",\"name\":\"thread_name\",\"args\":{\"name\":\"MPI\"}}", x->f);
}

/* The flow of the message whose send is record pos of rank, if matched and
 * both ends are exported. */
static void write_flow(struct xport *x, int rank, uint32_t pos)
{
    struct dg_pos peer = dg_match_peer(x->m, (struct dg_pos){rank, pos});
    if (peer.rank < 0 || (x->o->rank >= 0 && peer.rank != x->o->rank))
        return;
    uint64_t id = ++x->next_flow_id;
    event_begin(x, "s", rank);
    fputs(",\"name\":\"message\",\"cat\":\"message\"", x->f);
    fprintf(x->f, ",\"id\":%" PRIu64, id);
    put_us(x->f, "ts", rec_mid(x, rank, pos));
    fputc('}', x->f);
    event_begin(x, "f", peer.rank);
    fputs(",\"name\":\"message\",\"cat\":\"message\",\"bp\":\"e\"", x->f);
    fprintf(x->f, ",\"id\":%" PRIu64, id);
    put_us(x->f, "ts", rec_mid(x, peer.rank, peer.pos));
    fputc('}', x->f);
    x->flows++;
}

/* One MPI call: records [i, j) of the rank's log (one event), as a
 * complete event, then the flows of its sends. */
static void write_call(struct xport *x, int rank, uint32_t i, uint32_t j)
{
    const struct search_rank_result *res = x->rk[rank].res;
    const struct dg_msgrec *rec = res->log.rec, *r0 = &rec[i];
    FILE *f = x->f;
    char buf[32];
    event_begin(x, "X", rank);
    put_str(f, "name", trace_mpi_call_name(r0->call));
    fputs(",\"cat\":\"mpi\"", f);
    uint64_t ts = rec_time(x, rank, i, false), te = rec_time(x, rank, i, true);
    put_us(f, "ts", ts);
    put_us(f, "dur", te > ts ? te - ts : 0);
    fputs(",\"args\":{", f);
    /* the call's own site: the first record's, except that a completion's
     * receive records carry their Irecv's */
    int k = siteinfo_index(res, r0->site);
    const struct trace_site_info *si = k >= 0 ? res->siteinfo[k].info : NULL;
    fprintf(f, "\"rank\":%d", rank);
    put_location(f, "location", si);
    if (si && si->func && *si->func)
        put_str(f, "function", si->func);
    put_str(f, "comm", comm_name(r0->comm, buf, sizeof buf));
    uint32_t nsend = 0, nrecv = 0;
    bool unmatched = false;
    for (uint32_t p = i; p < j; p++) {
        nsend += rec[p].kind == DG_MSG_SEND;
        nrecv += rec[p].kind == DG_MSG_RECV;
        if ((rec[p].kind == DG_MSG_SEND || rec[p].kind == DG_MSG_RECV) &&
            dg_match_peer(x->m, (struct dg_pos){rank, p}).rank < 0)
            unmatched = true;
    }
    for (uint32_t p = i; p < j; p++) {
        const struct dg_msgrec *r = &rec[p];
        if (r->kind == DG_MSG_SEND) {
            fprintf(f, ",\"peer\":%d,\"tag\":%d,\"bytes\":%" PRIu64, r->peer, r->tag, r->bytes);
        } else if (r->kind == DG_MSG_RECV && nsend) {
            /* Sendrecv: the receive half */
            fprintf(f, ",\"source\":%d,\"recv_tag\":%d,\"recv_bytes\":%" PRIu64, r->peer, r->tag, r->bytes);
        } else if (r->kind == DG_MSG_COLL) {
            if (r->peer >= 0)
                fprintf(f, ",\"root\":%d", r->peer);
            fprintf(f, ",\"bytes\":%" PRIu64 ",\"recv_bytes\":%" PRIu64, r->bytes, r->rbytes);
            uint32_t inst = dg_match_coll_of(x->m, (struct dg_pos){rank, p});
            if (inst != UINT32_MAX) {
                uint32_t n = 0;
                dg_match_coll(x->m, inst, &n);
                fprintf(f, ",\"instance\":%u,\"members\":%u", inst, n);
            }
        }
    }
    if (nrecv && !nsend) {
        if (nrecv == 1) {
            for (uint32_t p = i; p < j; p++)
                if (rec[p].kind == DG_MSG_RECV)
                    fprintf(f, ",\"peer\":%d,\"tag\":%d,\"bytes\":%" PRIu64, rec[p].peer, rec[p].tag,
                            rec[p].bytes);
        } else {
            /* a completion of several receives */
            uint64_t bytes = 0;
            fputs(",\"peer\":[", f);
            for (uint32_t p = i, n = 0; p < j; p++)
                if (rec[p].kind == DG_MSG_RECV)
                    fprintf(f, "%s%d", n++ ? "," : "", rec[p].peer);
            fputs("],\"tag\":[", f);
            for (uint32_t p = i, n = 0; p < j; p++)
                if (rec[p].kind == DG_MSG_RECV) {
                    fprintf(f, "%s%d", n++ ? "," : "", rec[p].tag);
                    bytes += rec[p].bytes;
                }
            fprintf(f, "],\"bytes\":%" PRIu64 ",\"receives\":%u", bytes, nrecv);
        }
    }
    if (unmatched) {
        fputs(",\"unmatched\":true", f);
        x->unmatched++;
    }
    fputs("}}", f);
    x->calls++;
    for (uint32_t p = i; p < j; p++)
        if (rec[p].kind == DG_MSG_SEND)
            write_flow(x, rank, p);
}

static bool same_file(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

/* Log position of the first record on a rank at a source location: with
 * call >= 0, the same file, line, column and call; else the same file and
 * line.  UINT32_MAX if none. */
static uint32_t first_at(const struct xrank *xr, const char *file, uint32_t line, uint32_t col, int call)
{
    const struct search_rank_result *res = xr->res;
    uint32_t best = UINT32_MAX;
    for (uint32_t k = 0; k < res->nsiteinfo; k++) {
        const struct trace_site_info *si = res->siteinfo[k].info;
        uint32_t p = xr->first[k];
        if (!si || p == UINT32_MAX || p >= best || si->line != line || !same_file(si->file, file))
            continue;
        if (call < 0 || (si->col == col && res->log.rec[p].call == call))
            best = p;
    }
    return best;
}

/* Log position of the first call of a hint's call site on a rank: the
 * same file, line, column and call; else the same file and line; else (a
 * collective pattern whose location is a call this rank does not make, e.g.
 * the root's send) the first call at any of its related MPI lines; else
 * UINT32_MAX. */
static uint32_t hint_position(const struct xport *x, const struct search_hint *h, int rank)
{
    const struct xrank *xr = &x->rk[rank];
    uint32_t p = first_at(xr, h->file, h->line, h->col, h->call);
    if (p == UINT32_MAX)
        p = first_at(xr, h->file, h->line, 0, -1);
    if (p != UINT32_MAX)
        return p;
    for (uint32_t k = 0; k < h->nrelated; k++) {
        const struct search_related *r = &h->related[k];
        if (r->role != SEARCH_REL_BEFORE && r->role != SEARCH_REL_AFTER) {
            uint32_t q = first_at(xr, r->file, r->line, 0, -1);
            if (q < p)
                p = q;
        }
    }
    return p;
}

static void write_hint(struct xport *x, const struct xhint *xh, int rank)
{
    const struct search_hint *h = xh->h;
    FILE *f = x->f;
    uint32_t pos = hint_position(x, h, rank);
    char name[512], loc[4096];
    const char *file = h->file && *h->file ? h->file : "??";
    const char *base = strrchr(file, '/');
    snprintf(name, sizeof name, "[%s] %s %s:%u", kind_name(h->kind), trace_mpi_call_name(h->call),
             base ? base + 1 : file, h->line);
    snprintf(loc, sizeof loc, "%s:%u:%u", cli_display_path(file, true), h->line, h->col);
    event_begin(x, "i", rank);
    fputs(",\"s\":\"p\"", f);
    put_str(f, "name", name);
    fputs(",\"cat\":\"hint\"", f);
    put_us(f, "ts", pos != UINT32_MAX ? rec_time(x, rank, pos, false) : 0);
    fputs(",\"args\":{", f);
    fprintf(f, "\"kind\":\"%s\"", kind_name(h->kind));
    put_str(f, "message", xh->message);
    put_str(f, "location", loc);
    if (!x->o->stable && isfinite(h->severity))
        fprintf(f, ",\"saving_ns\":%" PRIu64 ",\"severity\":%.6g", h->saving_ns, h->severity);
    fputs(",\"ranks\":[", f);
    for (int k = 0; k < h->nranks; k++)
        fprintf(f, "%s%d", k ? "," : "", h->ranks[k]);
    fputc(']', f);
    if (pos == UINT32_MAX) {
        fputs(",\"located\":false", f);
        x->unlocated++;
    }
    fputs("}}", f);
    x->instants++;
}

static void write_rank(struct xport *x, int rank)
{
    write_metadata(x, rank);
    const struct search_rank_result *res = x->rk[rank].res;
    if (!res)
        return;
    const struct dg_mpilog *log = &res->log;
    for (uint32_t i = 0; i < log->n;) {
        uint32_t j = i + 1;
        while (j < log->n && log->rec[j].index == log->rec[i].index)
            j++;
        write_call(x, rank, i, j);
        i = j;
    }
    for (uint32_t k = 0; k < x->nhints; k++) {
        const struct search_hint *h = x->hints[k].h;
        for (int q = 0; q < h->nranks; q++)
            if (h->ranks[q] == rank)
                write_hint(x, &x->hints[k], rank);
    }
}

static void write_other_data(struct xport *x, const struct search_report *rep)
{
    FILE *f = x->f;
    const char *dir = trace_dir(x->t), *prog = trace_program(x->t);
    const char *dbase = strrchr(dir, '/'), *pbase = strrchr(prog ? prog : "", '/');
    fputs("\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"tool\":\"commhint 0.1.0\"", f);
    put_str(f, "trace", x->o->stable && dbase && dbase[1] ? dbase + 1 : dir);
    put_str(f, "program", x->o->stable && pbase ? pbase + 1 : prog ? prog : "");
    fprintf(f, ",\"world_size\":%d,\"ranks_analysed\":%d", x->world, rep->nranks);
    if (x->o->rank >= 0)
        fprintf(f, ",\"rank\":%d", x->o->rank);
    put_str(f, "clock", clock_mode_names[x->clock]);
    fprintf(f,
            ",\"mpi_calls\":%" PRIu64 ",\"messages\":%" PRIu64 ",\"unmatched_calls\":%" PRIu64
            ",\"calls_not_exported\":%" PRIu64 ",\"calls_without_time\":%" PRIu64 ",\"hints\":%u"
            ",\"hint_markers\":%" PRIu64 ",\"hint_markers_unlocated\":%" PRIu64 "}}\n",
            x->calls, x->flows, x->unmatched, x->missing_calls, x->untimed, rep->nhints, x->instants,
            x->unlocated);
}

/* ---- analysis (as cmd-hints.c) ------------------------------------------------------ */

/* Analyses every rank with a stream file; results in res[world rank] (NULL
 * if none), warnings for the ranks left out or cut short.  Returns how many
 * were analysed. */
static int analyse(struct trace *t, struct xrank *rk, struct search_rank_result **res)
{
    int world = trace_world_size(t), nres = 0;
    bool tty = isatty(STDERR_FILENO) == 1;
    struct search_opts so = {0};
    for (int r = 0; r < world; r++) {
        if (!trace_has_rank(t, r)) {
            rk[r].missing = true;
            cli_warn("rank %d has no stream file and is left out: file=%s", r, trace_rank_path(t, r));
            continue;
        }
        if (tty) {
            fprintf(stderr, "\ranalysing rank %d/%d", r + 1, world);
            fflush(stderr);
        }
        struct trace_err err;
        struct search_rank_result *rr = NULL;
        err.msg[0] = '\0';
        int rc = search_run_rank(t, r, &so, NULL, NULL, &rr, &err);
        if (tty)
            fprintf(stderr, "\r%40s\r", "");
        if (rc < 0) {
            if (err.msg[0])
                cli_warn("rank %d could not be analysed and is left out: %s", r, err.msg);
            else
                cli_warn("rank %d could not be analysed and is left out: reason=%s", r, trace_status_str(rc));
            continue;
        }
        if (rr->cut_short)
            cli_warn("rank %d was cut short; exporting what it recorded: file=%s", r, trace_rank_path(t, r));
        res[r] = rr;
        rk[r].res = rr;
        nres++;
    }
    return nres;
}

static int hint_location_cmp(const void *pa, const void *pb)
{
    const struct xhint *a = pa, *b = pb;
    int c = search_hint_location_cmp(a->h, b->h);
    return c ? c : strcmp(a->message, b->message);
}

int cmd_export(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'}, {"rank", required_argument, NULL, 'r'},
        {"stable", no_argument, NULL, 's'},       {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0},
    };
    static const char *const formats[] = {"chrome", NULL};
    struct export_opts o = {.format = FMT_CHROME, .rank = -1};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        unsigned long v;
        switch (c) {
        case 'f':
            if ((o.format = cli_parse_format("export", optarg, formats)) < 0)
                return CLI_USAGE;
            break;
        case 'r':
            if (!cli_parse_uint(optarg, &v) || v > 10000000)
                return cli_usage_error("export", "--rank needs a rank number, not '%s'", optarg);
            o.rank = (int)v;
            break;
        case 's': o.stable = true; break;
        case 'o': o.output = optarg; break;
        case 'h': export_help(); return CLI_OK;
        case ':': return cli_usage_error("export", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("export", "unknown option '%s'", argv[optind - 1]);
        }
    }
    const char *dir;
    if (cli_trace_dir_arg("export", argc, argv, optind, &dir) != CLI_OK)
        return CLI_USAGE;
    bool to_stdout = !o.output || !strcmp(o.output, "-");
    const char *shown = to_stdout ? "<stdout>" : o.output;

    int ret = CLI_ERROR, world = 0;
    struct trace *t = NULL;
    struct search_rank_result **res = NULL;
    struct search_report *rep = NULL;
    struct dg_match *m = NULL;
    const struct dg_mpilog **logs = NULL;
    struct xport x = {.o = &o};
    FILE *out = stdout;
    struct trace_err err;

    if (trace_open(dir, &t, &err) < 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    cli_warn_meta_cut(t);
    world = trace_world_size(t);
    if (o.rank >= 0 && o.rank >= world) {
        cli_error("no such rank in this trace: rank=%d world_size=%d", o.rank, world);
        goto out;
    }
    /* Opened before the analysis, which can be long, so a bad path fails
     * at once. */
    if (!to_stdout && !(out = fopen(o.output, "w"))) {
        out = stdout;
        cli_error("cannot write the export: file=%s reason=%s", o.output, strerror(errno));
        goto out;
    }
    res = calloc(world > 0 ? (size_t)world : 1, sizeof *res);
    x.rk = calloc(world > 0 ? (size_t)world : 1, sizeof *x.rk);
    logs = calloc(world > 0 ? (size_t)world : 1, sizeof *logs);
    if (!res || !x.rk || !logs) {
        cli_error("out of memory");
        goto out;
    }
    x.t = t;
    x.world = world;
    int nres = analyse(t, x.rk, res);
    if (!nres) {
        cli_error("no rank could be analysed: dir=%s world_size=%d", trace_dir(t), world);
        goto out;
    }

    /* the hints, as `commhint hints` finds them (no filter) */
    struct search_rank_result **dense = calloc((size_t)nres, sizeof *dense);
    if (!dense) {
        cli_error("out of memory");
        goto out;
    }
    for (int r = 0, k = 0; r < world; r++)
        if (res[r])
            dense[k++] = res[r];
    struct search_report_opts ro = {.rank = -1};
    int rc = search_report_build(dense, nres, world, &ro, &rep);
    free(dense);
    if (rc < 0) {
        cli_error("cannot merge the ranks' results into hints: reason=%s", trace_status_str(rc));
        goto out;
    }
    x.hints = calloc(rep->nhints ? rep->nhints : 1, sizeof *x.hints);
    if (!x.hints) {
        cli_error("out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < rep->nhints; i++) {
        const struct search_hint *h = &rep->hints[i];
        x.hints[i].h = h;
        x.hints[i].message = o.stable || !h->message ? search_hint_message(h, !o.stable) : strdup(h->message);
        x.nhints = i + 1;
        if (!x.hints[i].message) {
            cli_error("out of memory");
            goto out;
        }
    }
    if (o.stable && x.nhints)
        qsort(x.hints, x.nhints, sizeof *x.hints, hint_location_cmp);

    /* the messages and collective instances */
    for (int r = 0; r < world; r++)
        logs[r] = res[r] ? &res[r]->log : NULL;
    if ((rc = dg_match_build(logs, world, &m)) < 0) {
        cli_error("cannot match the ranks' messages: reason=%s", trace_status_str(rc));
        goto out;
    }
    x.m = m;

    choose_clock(&x);
    for (int r = 0; r < world; r++) {
        if (!res[r])
            continue;
        if (prepare_rank(&x, r) < 0) {
            cli_error("out of memory");
            goto out;
        }
        if (res[r]->mpi_events > x.rk[r].ncalls) {
            uint64_t n = res[r]->mpi_events - x.rk[r].ncalls;
            cli_warn("rank %d: %" PRIu64 " MPI call%s left no record in the MPI log and %s not exported "
                     "(a Sendrecv with both peers MPI_PROC_NULL)",
                     r, n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
            x.missing_calls += n;
        }
        if (x.rk[r].untimed) {
            cli_warn("rank %d: %" PRIu64 " MPI call%s recorded no time; shown at the end of the call "
                     "before",
                     r, x.rk[r].untimed, x.rk[r].untimed == 1 ? "" : "s");
            x.untimed += x.rk[r].untimed;
        }
    }

    /* the JSON, written as the logs are walked */
    static char obuf[1 << 20];
    setvbuf(out, obuf, _IOFBF, sizeof obuf);
    x.f = out;
    fputs("{\"traceEvents\":[", out);
    for (int r = 0; r < world && !ferror(out); r++)
        if (o.rank < 0 || r == o.rank)
            write_rank(&x, r);
    write_other_data(&x, rep);
    if (fflush(out) != 0 || ferror(out)) {
        cli_error("cannot write the export: file=%s reason=%s", shown, strerror(errno ? errno : EIO));
        goto out;
    }
    fprintf(stderr,
            "exported %" PRIu64 " MPI call%s, %" PRIu64 " message%s and %" PRIu64 " hint marker%s from %d "
            "rank%s",
            x.calls, x.calls == 1 ? "" : "s", x.flows, x.flows == 1 ? "" : "s", x.instants,
            x.instants == 1 ? "" : "s", o.rank >= 0 ? 1 : rep->nranks,
            (o.rank >= 0 ? 1 : rep->nranks) == 1 ? "" : "s");
    if (x.unmatched)
        fprintf(stderr, ", %" PRIu64 " call%s with an unmatched message", x.unmatched,
                x.unmatched == 1 ? "" : "s");
    if (x.unlocated)
        fprintf(stderr, ", %" PRIu64 " hint marker%s not located (at time 0)", x.unlocated,
                x.unlocated == 1 ? "" : "s");
    if (x.clock == CLOCK_REAL)
        fputs(", clocks of different hosts aligned", stderr);
    fputc('\n', stderr);
    ret = CLI_OK;
out:
    if (out != stdout) {
        if (fclose(out) != 0 && ret == CLI_OK)
            ret = cli_error("cannot write the export: file=%s reason=%s", o.output, strerror(errno));
    } else if (ret == CLI_OK && fflush(stdout) != 0) {
        ret = cli_error("cannot write the export: file=<stdout> reason=%s", strerror(errno));
    }
    if (x.rk)
        for (int r = 0; r < world; r++) {
            free(x.rk[r].first);
            free(x.rk[r].ord);
        }
    free(x.rk);
    if (x.hints)
        for (uint32_t i = 0; i < x.nhints; i++)
            free(x.hints[i].message);
    free(x.hints);
    dg_match_destroy(m);
    free(logs);
    search_report_free(rep);
    if (res)
        for (int r = 0; r < world; r++)
            search_rank_result_free(res[r]);
    free(res);
    if (t)
        trace_close(t);
    return ret;
}
