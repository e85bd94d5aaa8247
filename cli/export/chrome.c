/* chrome.c - `commhint export --format=chrome`: the MPI timeline of a
 * trace in the Chrome trace-event format (JSON object form), for
 * ui.perfetto.dev and chrome://tracing (docs/export.md).
 *
 * Per world rank one process: its MPI calls as complete events, each
 * message as a flow from its send to its receive, each hint holding on the
 * rank as an instant event at its call site's first call there.
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
 *     (cmd-export.c) and reported on stderr and in otherData. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cli.h"
#include "export.h"
#include "search.h"

/* The output and where the JSON is. */
struct chrome {
    FILE *f;
    bool any; /* an event was written (comma before the next) */
    uint64_t next_flow_id;
};

static struct chrome *ch(const struct xport *x)
{
    return x->out;
}

/* Where flows bind: the middle of the call (Perfetto binds a flow end to
 * the slice open on the thread at its time). */
static uint64_t call_mid(const struct xport *x, int rank, uint32_t call)
{
    uint64_t a = export_call_time(x, rank, call, false), b = export_call_time(x, rank, call, true);
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
    fprintf(ch(x)->f, "%s{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d", ch(x)->any ? ",\n" : "\n", ph, rank + 1,
            rank + 1);
    ch(x)->any = true;
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
    fputs(",\"name\":\"process_name\",\"args\":{\"name\":", ch(x)->f);
    search_json_string(ch(x)->f, name);
    fputs("}}", ch(x)->f);
    event_begin(x, "M", rank);
    fprintf(ch(x)->f, ",\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%d}}", rank);
    event_begin(x, "M", rank);
    fputs(",\"name\":\"thread_name\",\"args\":{\"name\":\"MPI\"}}", ch(x)->f);
}

/* The flow of a message sent by a part of rank's call, if matched and both
 * ends are exported. */
static void write_flow(struct xport *x, int rank, const struct search_part *send)
{
    if (send->match_rank < 0 || (x->o->rank >= 0 && send->match_rank != x->o->rank))
        return;
    struct search_part recv;
    search_analysis_part(x->a, send->match_rank, send->match_part, &recv);
    uint64_t id = ++ch(x)->next_flow_id;
    event_begin(x, "s", rank);
    fputs(",\"name\":\"message\",\"cat\":\"message\"", ch(x)->f);
    fprintf(ch(x)->f, ",\"id\":%" PRIu64, id);
    put_us(ch(x)->f, "ts", call_mid(x, rank, send->call));
    fputc('}', ch(x)->f);
    event_begin(x, "f", send->match_rank);
    fputs(",\"name\":\"message\",\"cat\":\"message\",\"bp\":\"e\"", ch(x)->f);
    fprintf(ch(x)->f, ",\"id\":%" PRIu64, id);
    put_us(ch(x)->f, "ts", call_mid(x, send->match_rank, recv.call));
    fputc('}', ch(x)->f);
    x->flows++;
}

/* The args of a call's messages and collective. */
static void write_parts(struct xport *x, const struct search_part *pt, uint32_t n)
{
    FILE *f = ch(x)->f;
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
    if (c->call == CHT_MPI_EXTERN) /* a fence of the analysis, not an MPI call */
        return 0;
    struct search_part *pt = malloc((c->nparts ? c->nparts : 1) * sizeof *pt);
    FILE *f = ch(x)->f;
    char buf[32];
    if (!pt)
        return -1;
    for (uint32_t p = 0; p < c->nparts; p++)
        search_analysis_part(x->a, rank, c->first + p, &pt[p]);
    event_begin(x, "X", rank);
    put_str(f, "name", trace_mpi_call_name(c->call));
    fputs(",\"cat\":\"mpi\"", f);
    uint64_t ts = export_call_time(x, rank, i, false), te = export_call_time(x, rank, i, true);
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
    FILE *f = ch(x)->f;
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
    put_us(f, "ts", pos != UINT32_MAX ? export_call_time(x, rank, part.call, false) : 0);
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
    FILE *f = ch(x)->f;
    const char *dir = trace_dir(x->t), *prog = trace_program(x->t);
    const char *dbase = strrchr(dir, '/'), *pbase = strrchr(prog ? prog : "", '/');
    fputs("\n],\"displayTimeUnit\":\"ms\",\"otherData\":{\"tool\":\"commhint 0.1.0\"", f);
    put_str(f, "trace", x->o->stable && dbase && dbase[1] ? dbase + 1 : dir);
    put_str(f, "program", x->o->stable && pbase ? pbase + 1 : prog ? prog : "");
    fprintf(f, ",\"world_size\":%d,\"ranks_analysed\":%d", x->world, rep->nranks);
    if (x->o->rank >= 0)
        fprintf(f, ",\"rank\":%d", x->o->rank);
    put_str(f, "clock",
            x->o->stable                                           ? "logical"
            : search_analysis_clock(x->a) == SEARCH_CLOCK_REALTIME ? "realtime"
                                                                   : "monotonic");
    fprintf(f,
            ",\"mpi_calls\":%" PRIu64 ",\"messages\":%" PRIu64 ",\"unmatched_calls\":%" PRIu64
            ",\"calls_not_exported\":%" PRIu64 ",\"calls_without_time\":%" PRIu64 ",\"hints\":%u"
            ",\"hint_markers\":%" PRIu64 ",\"hint_markers_unlocated\":%" PRIu64 "}}\n",
            x->calls, x->flows, x->unmatched, x->missing_calls, x->untimed, rep->nhints, x->instants,
            x->unlocated);
}

static bool to_stdout(const struct xport *x)
{
    return !x->o->output || !strcmp(x->o->output, "-");
}

static int chrome_open(struct xport *x)
{
    struct chrome *c = calloc(1, sizeof *c);
    if (!c)
        return cli_error("out of memory");
    x->out = c;
    c->f = stdout;
    if (!to_stdout(x) && !(c->f = fopen(x->o->output, "w"))) {
        c->f = stdout;
        return cli_error("cannot write the export: file=%s reason=%s", x->o->output, strerror(errno));
    }
    return CLI_OK;
}

/* The JSON, written as the logs are walked. */
static int chrome_write(struct xport *x)
{
    static char obuf[1 << 20];
    FILE *out = ch(x)->f;
    setvbuf(out, obuf, _IOFBF, sizeof obuf);
    fputs("{\"traceEvents\":[", out);
    for (int r = 0; r < x->world && !ferror(out); r++)
        if ((x->o->rank < 0 || r == x->o->rank) && write_rank(x, r) < 0)
            return cli_error("out of memory");
    write_other_data(x, x->rep);
    if (fflush(out) != 0 || ferror(out))
        return cli_error("cannot write the export: file=%s reason=%s",
                         to_stdout(x) ? "<stdout>" : x->o->output, strerror(errno ? errno : EIO));
    return CLI_OK;
}

static int chrome_close(struct xport *x, int ret)
{
    struct chrome *c = x->out;
    if (!c)
        return ret;
    if (c->f != stdout) {
        if (fclose(c->f) != 0 && ret == CLI_OK)
            ret = cli_error("cannot write the export: file=%s reason=%s", x->o->output, strerror(errno));
    } else if (ret == CLI_OK && fflush(stdout) != 0) {
        ret = cli_error("cannot write the export: file=<stdout> reason=%s", strerror(errno));
    }
    free(c);
    x->out = NULL;
    return ret;
}

const struct export_format export_chrome = {
    .name = "chrome",
    .output_is_dir = false,
    .open = chrome_open,
    .write = chrome_write,
    .close = chrome_close,
};
