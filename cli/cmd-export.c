/* cmd-export.c - `commhint export DIR --format=chrome [-o FILE]`: the MPI
 * timeline of a trace in the Chrome trace-event format (JSON object form),
 * for ui.perfetto.dev and chrome://tracing (docs/export.md).
 *
 * The trace is loaded as `commhint hints` loads it (search_analyse, with
 * the ranks' calls kept): the calls, their messages matched across ranks,
 * the collective instances and the common clock all come from the
 * analysis.  Per world rank one process: its MPI calls as complete events,
 * each message as a flow from its send to its receive, each hint holding on
 * the rank as an instant event at its call site's first call there.
 *
 * The JSON is written while the calls are walked, never held in memory.
 *
 * Decisions beyond docs/export.md's table:
 *   - pid (and tid) is world rank + 1: pid 0 is the idle process of the
 *     Linux kernel, which Perfetto's importer treats specially; the
 *     process is named "rank N" and sorted by N;
 *   - times are the analysis' common clock (search_analysis_clock: one
 *     host's CLOCK_MONOTONIC, or CLOCK_REALTIME through each rank's clock
 *     samples for ranks of different hosts), from the earliest call;
 *     --stable puts call k of a rank at k us instead;
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

/* ---- the state of one export ---------------------------------------------------- */

/* A hint as exported: the report's hint and its message. */
struct xhint {
    const struct search_hint *h;
    char *message;
};

struct xport {
    const struct export_opts *o;
    struct trace *t;
    const struct search_analysis *a;
    int world;
    struct xhint *hints;
    uint32_t nhints;
    FILE *f;
    bool any; /* an event was written (comma before the next) */
    /* counts */
    uint64_t calls, flows, unmatched, instants, unlocated, untimed, missing_calls;
    uint64_t next_flow_id;
};

/* Shown time of a call's entry or exit, ns from the earliest call (with
 * --stable: call k at k us, its exit half a microsecond later). */
static uint64_t call_time(const struct xport *x, int rank, uint32_t call, bool exit)
{
    const struct search_call *c = search_analysis_call(x->a, rank, call);
    if (x->o->stable)
        return (uint64_t)c->ordinal * 1000 + (exit ? 500 : 0);
    return exit ? c->t_exit : c->t_enter;
}

/* Where flows bind: the middle of the call (Perfetto binds a flow end to
 * the slice open on the thread at its time). */
static uint64_t call_mid(const struct xport *x, int rank, uint32_t call)
{
    uint64_t a = call_time(x, rank, call, false), b = call_time(x, rank, call, true);
    return b > a ? a + (b - a) / 2 : a;
}

/* ---- JSON ------------------------------------------------------------------------- */

/* A time in ns as microseconds with three decimals, exactly. */
static void put_us(FILE *f, const char *key, uint64_t ns)
{
    fprintf(f, ",\"%s\":%" PRIu64 ".%03u", key, ns / 1000, (unsigned)(ns % 1000));
}

static void put_str(FILE *f, const char *key, const char *value)
{
    fprintf(f, ",\"%s\":", key);
    search_json_string(f, value);
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
        snprintf(buf, sizeof buf, "%s:%u:%u", search_display_path(si->file, true), si->line, si->col);
    else
        snprintf(buf, sizeof buf, "??");
    put_str(f, key, buf);
}

static void write_metadata(struct xport *x, int rank)
{
    const struct search_rank_result *res = search_analysis_rank(x->a, rank);
    char name[64];
    snprintf(name, sizeof name, "rank %d%s", rank,
             search_analysis_rank_missing(x->a, rank) ? " (no trace)"
             : !res                                   ? " (not analysed)"
             : search_rank_cut_short(res)             ? " (cut short)"
                                                      : "");
    event_begin(x, "M", rank);
    fputs(",\"name\":\"process_name\",\"args\":{\"name\":", x->f);
    search_json_string(x->f, name);
    fputs("}}", x->f);
    event_begin(x, "M", rank);
    fprintf(x->f, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}", rank);
    event_begin(x, "M", rank);
    fputs(",\"name\":\"thread_name\",\"args\":{\"name\":\"MPI\"}}", x->f);
}

/* The flow of a message sent by a part of rank's call, if matched and both
 * ends are exported. */
static void write_flow(struct xport *x, int rank, const struct search_part *send)
{
    if (send->match_rank < 0 || (x->o->rank >= 0 && send->match_rank != x->o->rank))
        return;
    struct search_part recv;
    search_analysis_part(x->a, send->match_rank, send->match_part, &recv);
    uint64_t id = ++x->next_flow_id;
    event_begin(x, "s", rank);
    fputs(",\"name\":\"message\",\"cat\":\"message\"", x->f);
    fprintf(x->f, ",\"id\":%" PRIu64, id);
    put_us(x->f, "ts", call_mid(x, rank, send->call));
    fputc('}', x->f);
    event_begin(x, "f", send->match_rank);
    fputs(",\"name\":\"message\",\"cat\":\"message\",\"bp\":\"e\"", x->f);
    fprintf(x->f, ",\"id\":%" PRIu64, id);
    put_us(x->f, "ts", call_mid(x, send->match_rank, recv.call));
    fputc('}', x->f);
    x->flows++;
}

/* The args of a call's messages and collective. */
static void write_parts(struct xport *x, const struct search_part *pt, uint32_t n)
{
    FILE *f = x->f;
    uint32_t nsend = 0, nrecv = 0;
    for (uint32_t p = 0; p < n; p++) {
        nsend += pt[p].kind == SEARCH_PART_SEND;
        nrecv += pt[p].kind == SEARCH_PART_RECV;
    }
    for (uint32_t p = 0; p < n; p++) {
        const struct search_part *r = &pt[p];
        if (r->kind == SEARCH_PART_SEND) {
            fprintf(f, ",\"peer\":%d,\"tag\":%d,\"bytes\":%" PRIu64, r->peer, r->tag, r->bytes);
        } else if (r->kind == SEARCH_PART_RECV && nsend) {
            /* Sendrecv: the receive half */
            fprintf(f, ",\"source\":%d,\"recv_tag\":%d,\"recv_bytes\":%" PRIu64, r->peer, r->tag, r->bytes);
        } else if (r->kind == SEARCH_PART_COLL) {
            if (r->peer >= 0)
                fprintf(f, ",\"root\":%d", r->peer);
            fprintf(f, ",\"bytes\":%" PRIu64 ",\"recv_bytes\":%" PRIu64, r->bytes, r->rbytes);
            if (r->coll != UINT32_MAX)
                fprintf(f, ",\"instance\":%u,\"members\":%u", r->coll, r->coll_members);
        }
    }
    if (!nrecv || nsend)
        return;
    if (nrecv == 1) {
        for (uint32_t p = 0; p < n; p++)
            if (pt[p].kind == SEARCH_PART_RECV)
                fprintf(f, ",\"peer\":%d,\"tag\":%d,\"bytes\":%" PRIu64, pt[p].peer, pt[p].tag, pt[p].bytes);
        return;
    }
    /* a completion of several receives */
    uint64_t bytes = 0;
    fputs(",\"peer\":[", f);
    for (uint32_t p = 0, k = 0; p < n; p++)
        if (pt[p].kind == SEARCH_PART_RECV)
            fprintf(f, "%s%d", k++ ? "," : "", pt[p].peer);
    fputs("],\"tag\":[", f);
    for (uint32_t p = 0, k = 0; p < n; p++)
        if (pt[p].kind == SEARCH_PART_RECV) {
            fprintf(f, "%s%d", k++ ? "," : "", pt[p].tag);
            bytes += pt[p].bytes;
        }
    fprintf(f, "],\"bytes\":%" PRIu64 ",\"receives\":%u", bytes, nrecv);
}

/* One MPI call as a complete event, then the flows of its sends. */
static int write_call(struct xport *x, int rank, uint32_t i)
{
    const struct search_call *c = search_analysis_call(x->a, rank, i);
    struct search_part *pt = malloc((c->nparts ? c->nparts : 1) * sizeof *pt);
    FILE *f = x->f;
    char buf[32];
    if (!pt)
        return -1;
    for (uint32_t p = 0; p < c->nparts; p++)
        search_analysis_part(x->a, rank, c->first + p, &pt[p]);
    event_begin(x, "X", rank);
    put_str(f, "name", trace_mpi_call_name(c->call));
    fputs(",\"cat\":\"mpi\"", f);
    uint64_t ts = call_time(x, rank, i, false), te = call_time(x, rank, i, true);
    put_us(f, "ts", ts);
    put_us(f, "dur", te > ts ? te - ts : 0);
    fputs(",\"args\":{", f);
    /* the call's own site: the first part's, except that a completion's
     * receive parts carry their Irecv's */
    const struct trace_site_info *si = c->info;
    fprintf(f, "\"rank\":%d", rank);
    put_location(f, "location", si);
    if (si && si->func && *si->func)
        put_str(f, "function", si->func);
    put_str(f, "comm", trace_comm_name(c->comm, buf, sizeof buf));
    bool unmatched = false;
    for (uint32_t p = 0; p < c->nparts; p++)
        if ((pt[p].kind == SEARCH_PART_SEND || pt[p].kind == SEARCH_PART_RECV) && pt[p].match_rank < 0)
            unmatched = true;
    write_parts(x, pt, c->nparts);
    if (unmatched) {
        fputs(",\"unmatched\":true", f);
        x->unmatched++;
    }
    fputs("}}", f);
    x->calls++;
    for (uint32_t p = 0; p < c->nparts; p++)
        if (pt[p].kind == SEARCH_PART_SEND)
            write_flow(x, rank, &pt[p]);
    free(pt);
    return 0;
}

/* The first part of a hint's call on a rank, or of its related MPI calls
 * (a collective pattern whose location is a call this rank does not make,
 * e.g. the root's send); UINT32_MAX if none. */
static uint32_t hint_position(const struct xport *x, const struct search_hint *h, int rank)
{
    return search_analysis_first_part_of_hint(x->a, rank, h);
}

static void write_hint(struct xport *x, const struct xhint *xh, int rank)
{
    const struct search_hint *h = xh->h;
    FILE *f = x->f;
    uint32_t pos = hint_position(x, h, rank);
    char name[512], loc[4096];
    const char *file = h->file && *h->file ? h->file : "??";
    const char *base = strrchr(file, '/');
    snprintf(name, sizeof name, "[%s] %s %s:%u", search_kind_name(h->kind), trace_mpi_call_name(h->call),
             base ? base + 1 : file, h->line);
    snprintf(loc, sizeof loc, "%s:%u:%u", search_display_path(file, true), h->line, h->col);
    event_begin(x, "i", rank);
    fputs(",\"s\":\"p\"", f);
    put_str(f, "name", name);
    fputs(",\"cat\":\"hint\"", f);
    struct search_part part;
    search_analysis_part(x->a, rank, pos, &part);
    put_us(f, "ts", pos != UINT32_MAX ? call_time(x, rank, part.call, false) : 0);
    fputs(",\"args\":{", f);
    fprintf(f, "\"kind\":\"%s\"", search_kind_name(h->kind));
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

static int write_rank(struct xport *x, int rank)
{
    write_metadata(x, rank);
    uint32_t n = search_analysis_ncalls(x->a, rank);
    for (uint32_t i = 0; i < n; i++)
        if (write_call(x, rank, i) < 0)
            return -1;
    if (!search_analysis_rank(x->a, rank))
        return 0;
    for (uint32_t k = 0; k < x->nhints; k++) {
        const struct search_hint *h = x->hints[k].h;
        for (int q = 0; q < h->nranks; q++)
            if (h->ranks[q] == rank)
                write_hint(x, &x->hints[k], rank);
    }
    return 0;
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
    put_str(f, "clock", x->o->stable                                              ? "logical"
                        : search_analysis_clock(x->a) == SEARCH_CLOCK_REALTIME ? "realtime"
                                                                               : "monotonic");
    fprintf(f,
            ",\"mpi_calls\":%" PRIu64 ",\"messages\":%" PRIu64 ",\"unmatched_calls\":%" PRIu64
            ",\"calls_not_exported\":%" PRIu64 ",\"calls_without_time\":%" PRIu64 ",\"hints\":%u"
            ",\"hint_markers\":%" PRIu64 ",\"hint_markers_unlocated\":%" PRIu64 "}}\n",
            x->calls, x->flows, x->unmatched, x->missing_calls, x->untimed, rep->nhints, x->instants,
            x->unlocated);
}

/* search_warn_fn */
static void warn_cb(void *ctx, int rank, int what, const char *msg)
{
    (void)ctx;
    (void)rank;
    (void)what;
    cli_warn("%s", msg);
}

/* search_analysis_progress_fn: the rank being analysed, on a terminal. */
static void progress_cb(void *ctx, int rank, int index, int count, uint64_t done, uint64_t total)
{
    int *shown = ctx;
    (void)rank;
    (void)done;
    (void)total;
    if (*shown == index)
        return;
    fprintf(stderr, "\r%40s\ranalysing rank %d/%d", "", index, count);
    fflush(stderr);
    *shown = index;
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
    struct search_analysis *an = NULL;
    const struct search_report *rep = NULL;
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
    /* the hints as `commhint hints` finds them (no filter), and the calls */
    int bar = 0;
    struct search_analysis_opts ao = {.report = {.rank = -1},
                                      .keep_ranks = true,
                                      .warn = warn_cb,
                                      .progress = isatty(STDERR_FILENO) == 1 ? progress_cb : NULL,
                                      .progress_ctx = &bar};
    int rc = search_analyse(t, &ao, &an, &err);
    if (bar)
        fprintf(stderr, "\r%40s\r", "");
    if (rc < 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    rep = search_analysis_report(an);
    x.t = t;
    x.a = an;
    x.world = world;
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

    for (int r = 0; r < world; r++) {
        if (!search_analysis_rank(an, r))
            continue;
        uint64_t n = search_analysis_unlogged_calls(an, r);
        if (n) {
            cli_warn("rank %d: %" PRIu64 " MPI call%s left no record in the MPI log and %s not exported "
                     "(a Sendrecv with both peers MPI_PROC_NULL)",
                     r, n, n == 1 ? "" : "s", n == 1 ? "is" : "are");
            x.missing_calls += n;
        }
        uint64_t untimed = 0;
        for (uint32_t i = 0; i < search_analysis_ncalls(an, r); i++)
            untimed += !search_analysis_call(an, r, i)->timed;
        if (untimed) {
            cli_warn("rank %d: %" PRIu64 " MPI call%s recorded no time; shown at the end of the call "
                     "before",
                     r, untimed, untimed == 1 ? "" : "s");
            x.untimed += untimed;
        }
    }

    /* the JSON, written as the logs are walked */
    static char obuf[1 << 20];
    setvbuf(out, obuf, _IOFBF, sizeof obuf);
    x.f = out;
    fputs("{\"traceEvents\":[", out);
    for (int r = 0; r < world && !ferror(out); r++)
        if ((o.rank < 0 || r == o.rank) && write_rank(&x, r) < 0) {
            cli_error("out of memory");
            goto out;
        }
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
    if (!o.stable && search_analysis_clock(an) == SEARCH_CLOCK_REALTIME)
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
    if (x.hints)
        for (uint32_t i = 0; i < x.nhints; i++)
            free(x.hints[i].message);
    free(x.hints);
    search_analysis_free(an);
    if (t)
        trace_close(t);
    return ret;
}
