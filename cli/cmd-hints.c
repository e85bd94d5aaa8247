/* cmd-hints.c - `commhint hints DIR [options]`: what to change in the traced
 * program.  Loads the trace through the analysis (search_analyse: every
 * rank through its engine, here or spread over the processes of an MPI
 * job with --parallel, then the cross-rank stage and the ranked hints) and
 * prints the report as compiler-style notes (text),
 * one JSON document (docs/hints-json.md) or SARIF 2.1.0.  The JSON also
 * holds the cross-rank facts (wait states, load imbalance, unmatched
 * messages, hints a cross-rank check dropped); in text, --waits and
 * --explain print the wait states and the dropped hints after the hints.
 *
 * --stable leaves out what changes from run to run (times, the order by
 * saving that follows from them, absolute paths) so outputs can be compared
 * with expected files. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "parallel.h"
#include "search.h"

enum hints_format { FMT_TEXT, FMT_JSON, FMT_SARIF };

struct hints_opts {
    int format; /* enum hints_format */
    bool stable;
    bool waits;         /* --waits: the wait-state table after the hints (text) */
    bool explain;       /* --explain: the dropped hints and why (text) */
    bool parallel;      /* --parallel: ranks spread over the processes of an MPI job */
    const char *output; /* NULL: stdout */
    struct search_opts search;
    struct search_report_opts report;
};

static void hints_help(void)
{
    printf("usage: commhint hints DIR [options]\n\n"
           "Finds what to change in the traced program: computation that can overlap a\n"
           "blocking MPI call, and sends to the same rank that can travel as one message.\n"
           "Every rank of the trace in DIR is analysed; the results are merged by source\n"
           "location and ranked by estimated saving (docs/dependence.md).\n"
           "  --format=FMT       text (default; lines start with file:line:col: as compilers\n"
           "                     print them), json (docs/hints-json.md) or sarif (SARIF 2.1.0)\n"
           "  --kind=LIST        only these kinds, comma-separated: overlap, aggregate, collective\n"
           "  --rank=N           only hints that hold on rank N\n"
           "  --top=N            only the N hints with the largest saving\n"
           "  --min-saving=TIME  only hints saving at least TIME: 100ns, 500us, 1.5ms, 2s\n"
           "                     (a plain number is nanoseconds)\n"
           "  --engine=ENGINE    streaming (default) or reference (the paper's algorithms, the\n"
           "                     whole rank in memory: slow, for checking)\n"
           "  --horizon=N        events a window may reach from its call (default %u)\n"
           "  --expand-runs      analyse the repeated stretches of the trace event by event,\n"
           "                     not as whole runs (same results, slower: for checking)\n"
           "  --stable           leave out times and absolute paths and order the hints by\n"
           "                     location (for comparisons)\n"
           "  --waits            also print the wait states of every MPI call site: late\n"
           "                     sender, late receiver, wait at collectives (docs/waitstates.md)\n"
           "  --explain          also print the hints a cross-rank check dropped, and why\n"
           "  --parallel         under mpiexec -n P: the ranks are analysed by P processes\n"
           "                     (P may be fewer than the ranks); process 0 prints the same\n"
           "                     output as a serial run, the others print nothing\n"
           "  -o, --output FILE  write to FILE instead of standard output\n"
           "A summary line goes to standard error, with the load imbalance and unmatched\n"
           "messages; JSON also holds the wait states and the dropped hints.  Exit status 0\n"
           "with or without hints, 1 if DIR is not a trace or no rank could be analysed.\n",
           SEARCH_DEFAULT_HORIZON);
}

/* ---- option values -------------------------------------------------------------- */

/* "overlap,aggregate" into a bit mask of (1 << kind). */
static int parse_kinds(const char *s, unsigned *out)
{
    unsigned mask = 0;
    const char *p = s;
    for (;;) {
        size_t n = strcspn(p, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
        int k = n < sizeof name ? search_kind_from_name(name) : 0;
        if (!k) {
            char allowed[256] = "";
            for (unsigned i = 0; i < search_kind_count(); i++)
                snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s", i ? ", " : "",
                         search_kind_at(i)->name);
            return cli_usage_error("hints", "unknown --kind '%.*s'; allowed: %s", (int)n, p, allowed);
        }
        mask |= 1u << k;
        if (!p[n])
            break;
        p += n + 1;
    }
    *out = mask;
    return CLI_OK;
}

/* ---- progress on a terminal ------------------------------------------------------- */

struct progress {
    bool tty;
    bool shown;
    double start, last;   /* s, monotonic */
    int nprocs;           /* --parallel: processes (the bar shows process 0's share) */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define PROGRESS_WIDTH 10

/* search_analysis_progress_fn: a bar on a terminal, after a second. */
static void progress_cb(void *ctx, int rank, int index, int count, uint64_t done, uint64_t total)
{
    struct progress *p = ctx;
    (void)rank;
    double t = now_s();
    if (!p->tty || t - p->start < 1.0 || (p->shown && t - p->last < 0.1))
        return;
    double frac = total ? (double)done / (double)total : (double)(index > 0 ? index - 1 : 0) / (count ? count : 1);
    if (frac > 1)
        frac = 1;
    char bar[PROGRESS_WIDTH + 1];
    int fill = (int)(frac * PROGRESS_WIDTH);
    for (int i = 0; i < PROGRESS_WIDTH; i++)
        bar[i] = i < fill ? '#' : ' ';
    bar[PROGRESS_WIDTH] = '\0';
    if (p->nprocs)
        fprintf(stderr, "\ranalysing %d ranks on %d processes [%s] %3d%%", count, p->nprocs, bar,
                (int)(frac * 100));
    else
        fprintf(stderr, "\ranalysing rank %d/%d [%s] %3d%%", index, count, bar, (int)(frac * 100));
    fflush(stderr);
    p->shown = true;
    p->last = t;
}

/* Erases the bar (before a warning, and at the end). */
static void progress_clear(struct progress *p)
{
    if (!p->shown)
        return;
    fprintf(stderr, "\r%*s\r", 40 + PROGRESS_WIDTH, "");
    fflush(stderr);
    p->shown = false;
}

/* ---- output helpers -------------------------------------------------------------------- */


static const char *const flag_names[] = {"conditional", "some-ranks", "some-iterations", "truncated"};

/* A hint as printed: the report's hint, the message for this output and the
 * position in the report's ranking (from 1). */
struct view {
    const struct search_hint *h;
    char *message;
    unsigned rank_order;
};

/* A wait-state site as printed (reordered by location with --stable). */
struct wview {
    const struct search_waitsite *w;
};

static int wview_location_cmp(const void *pa, const void *pb)
{
    const struct search_waitsite *x = ((const struct wview *)pa)->w, *y = ((const struct wview *)pb)->w;
    int c;
    if ((c = strcmp(x->file ? x->file : "", y->file ? y->file : "")))
        return c;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    return x->call < y->call ? -1 : x->call > y->call;
}

static int view_location_cmp(const void *pa, const void *pb)
{
    const struct view *a = pa, *b = pb;
    int c = search_hint_location_cmp(a->h, b->h);
    if (c || (c = strcmp(a->message, b->message)))
        return c;
    return a->rank_order < b->rank_order ? -1 : a->rank_order > b->rank_order;
}

static const char *shown_file(const char *file, bool relative)
{
    if (!file || !*file)
        return "??";
    return cli_display_path(file, relative);
}

/* "file:line:col: note: " */
static void note_at(FILE *f, const char *file, uint32_t line, uint32_t col)
{
    fprintf(f, "%s:%u:%u: note: ", shown_file(file, true), line, col);
}

/* Iteration boxes as text: "(1, 1..10), (2, 1..10) and 5 more"; boxes
 * outside every loop are left out.  Returns false if there is nothing. */
static bool print_boxes(FILE *f, const char *prefix, const struct search_boxes *b)
{
    char buf[512];
    bool any = false;
    for (uint32_t i = 0; i < b->n; i++) {
        if (!b->box[i].depth)
            continue;
        fprintf(f, "%s%s", any ? ", " : prefix, search_box_format(&b->box[i], buf, sizeof buf));
        any = true;
    }
    if (any && b->more)
        fprintf(f, " and %" PRIu64 " more", b->more);
    return any;
}

static void print_text(FILE *f, const struct view *v, uint32_t n, const struct hints_opts *o)
{
    uint64_t horizon = o->search.horizon ? o->search.horizon : SEARCH_DEFAULT_HORIZON;
    char ranks[256];
    for (uint32_t i = 0; i < n; i++) {
        const struct search_hint *h = v[i].h;
        note_at(f, h->file, h->line, h->col);
        fprintf(f, "[%s] %s\n", search_kind_name(h->kind), v[i].message);
        for (uint32_t k = 0; k < h->nrelated; k++) {
            const struct search_related *r = &h->related[k];
            note_at(f, r->file, r->line, r->col);
            fprintf(f, "  %s%s", search_role_text(r->role, false), r->conditional ? " (conditional)" : "");
            if (r->role != SEARCH_REL_MEMBER) {
                fprintf(f, ": %" PRIu64 " of %" PRIu64 " executions", r->events, r->total);
                print_boxes(f, ", iterations ", &r->iters);
            }
            fputc('\n', f);
        }
        if (h->flags & SEARCH_HINT_CONDITIONAL) {
            /* One line, at the first conditional related line (the related
             * lines say which are), else at the hint (a conditional send of
             * an aggregation hint). */
            const struct search_related *at = NULL;
            for (uint32_t k = 0; k < h->nrelated && !at; k++)
                if (h->related[k].conditional)
                    at = &h->related[k];
            if (at)
                note_at(f, at->file, at->line, at->col);
            else
                note_at(f, h->file, h->line, h->col);
            fprintf(f, "  check by hand: conditional code; the hint holds for the branches this run took\n");
        }
        if (h->flags & SEARCH_HINT_SOME_RANKS) {
            size_t len = 0;
            ranks[0] = '\0';
            for (int k = 0; k < h->nranks && len < sizeof ranks - 16; k++)
                len += (size_t)snprintf(ranks + len, sizeof ranks - len, "%s%d", k ? ", " : "", h->ranks[k]);
            if (len >= sizeof ranks - 16)
                snprintf(ranks + len, sizeof ranks - len, ", ...");
            note_at(f, h->file, h->line, h->col);
            fprintf(f, "  holds on rank%s %s only\n", h->nranks == 1 ? "" : "s", ranks);
        }
        if (h->flags & SEARCH_HINT_SOME_ITERATIONS) {
            note_at(f, h->file, h->line, h->col);
            fprintf(f, "  holds on %" PRIu64 " of %" PRIu64 " calls", h->with_window, h->instances);
            print_boxes(f, ", iterations ", &h->iters);
            fputc('\n', f);
        }
        if (h->flags & SEARCH_HINT_TRUNCATED) {
            note_at(f, h->file, h->line, h->col);
            fprintf(f, "  some windows were cut at the horizon of %" PRIu64 " events\n", horizon);
        }
    }
}

/* Dropped hints (--explain): the hint as a note tagged [dropped KIND],
 * then each line of why it was dropped as an indented note at its
 * location. */
static void print_dropped_text(FILE *f, const struct view *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct search_hint *h = v[i].h;
        note_at(f, h->file, h->line, h->col);
        fprintf(f, "[dropped %s] %s\n", search_kind_name(h->kind), v[i].message);
        const char *p = h->explain ? h->explain : "";
        while (*p) {
            size_t len = strcspn(p, "\n");
            if (len) {
                note_at(f, h->file, h->line, h->col);
                fprintf(f, "  %.*s\n", (int)len, p);
            }
            p += len;
            if (*p)
                p++;
        }
    }
}


/* The wait-state table (--waits): one note per call site,
 *   FILE:LINE:COL: note: [wait] MPI_Recv: 12 ms late sender, 0 late receiver
 *   over 200 calls on 4 ranks (35% of its time)
 * or "... MPI_Barrier: 3.0 ms waiting at the collective over ..." for
 * collectives; without times with --stable. */
static void print_waits_text(FILE *f, const struct wview *wv, uint32_t n, bool stable)
{
    char a[32], b[32];
    for (uint32_t i = 0; i < n; i++) {
        const struct search_waitsite *w = wv[i].w;
        note_at(f, w->file, w->line, w->col);
        fprintf(f, "[wait] %s", trace_mpi_call_name(w->call));
        if (!stable) {
            if (w->call >= CHT_MPI_BARRIER && w->call < CHT_MPI_COMM_DUP)
                fprintf(f, ": %s waiting at the collective", search_format_ns(a, sizeof a, w->wait_collective_ns));
            else
                fprintf(f, ": %s late sender, %s late receiver", search_format_ns(a, sizeof a, w->late_sender_ns),
                        search_format_ns(b, sizeof b, w->late_receiver_ns));
        }
        fprintf(f, " over %" PRIu64 " call%s on %d rank%s", w->calls, w->calls == 1 ? "" : "s", w->nranks,
                w->nranks == 1 ? "" : "s");
        uint64_t total = w->late_sender_ns + w->late_receiver_ns + w->wait_collective_ns;
        if (!stable && w->time_ns)
            fprintf(f, " (%.0f%% of its time)", 100.0 * (double)total / (double)w->time_ns);
        fputc('\n', f);
    }
}

static void json_boxes(FILE *f, const struct search_boxes *b)
{
    char buf[512];
    fputs("\"iterations\":[", f);
    bool any = false;
    for (uint32_t i = 0; i < b->n; i++) {
        if (!b->box[i].depth)
            continue;
        if (any)
            fputc(',', f);
        cli_json_string(f, search_box_format(&b->box[i], buf, sizeof buf));
        any = true;
    }
    fprintf(f, "],\"iterations_more\":%" PRIu64, b->more);
}

static void json_key_string(FILE *f, const char *key, const char *value)
{
    fprintf(f, "\"%s\":", key);
    cli_json_string(f, value);
}

/* One hint as a JSON object; rank_order 0 leaves it out (dropped hints
 * are not ranked), explain adds the "explain" field. */
static void json_hint(FILE *f, const struct view *v, bool st, bool explain)
{
    const struct search_hint *h = v->h;
    fputc('{', f);
    if (!st && v->rank_order)
        fprintf(f, "\"rank_order\":%u,", v->rank_order);
    fprintf(f, "\"kind\":\"%s\",", search_kind_name(h->kind));
    json_key_string(f, "call", trace_mpi_call_name(h->call));
    fputc(',', f);
    json_key_string(f, "file", cli_display_path(h->file ? h->file : "", st));
    fprintf(f, ",\"line\":%u,\"column\":%u,", h->line, h->col);
    json_key_string(f, "function", h->func ? h->func : "");
    fputs(",\"ranks\":[", f);
    for (int k = 0; k < h->nranks; k++)
        fprintf(f, "%s%d", k ? "," : "", h->ranks[k]);
    fputs("],\"related\":[", f);
    for (uint32_t k = 0; k < h->nrelated; k++) {
        const struct search_related *r = &h->related[k];
        fprintf(f, "%s{", k ? "," : "");
        json_key_string(f, "file", cli_display_path(r->file ? r->file : "", st));
        fprintf(f, ",\"line\":%u,\"column\":%u,", r->line, r->col);
        json_key_string(f, "function", r->func ? r->func : "");
        fprintf(f, ",\"role\":\"%s\",\"executions\":%" PRIu64 ",\"total\":%" PRIu64, search_role_name(r->role),
                r->events, r->total);
        if (!st)
            fprintf(f, ",\"time_ns\":%" PRIu64, r->time_ns);
        fprintf(f, ",\"conditional\":%s,", r->conditional ? "true" : "false");
        json_boxes(f, &r->iters);
        fputc('}', f);
    }
    fputs("],\"collective\":", f);
    if (h->collective)
        cli_json_string(f, h->collective);
    else
        fputs("null", f);
    if (!st)
        fprintf(
            f, ",\"saving_ns\":%" PRIu64 ",\"comm_ns\":%" PRIu64 ",\"comp_ns\":%" PRIu64 ",\"severity\":%.6g",
            h->saving_ns, h->comm_ns, h->comp_ns, h->severity);
    if (!st) { /* overlap: the saving per rank, and what of it is shorter waits for the call */
        fprintf(f, ",\"partner_ns\":%" PRIu64 ",\"by_rank\":[", h->partner_ns);
        for (int k = 0; k < h->nby_rank; k++)
            fprintf(f, "%s{\"rank\":%d,\"saving_ns\":%" PRIu64 ",\"partner_ns\":%" PRIu64 "}", k ? "," : "",
                    h->by_rank[k].rank, h->by_rank[k].saving_ns, h->by_rank[k].partner_ns);
        fputc(']', f);
    }
    fprintf(f,
            ",\"instances\":%" PRIu64 ",\"with_window\":%" PRIu64 ",\"members\":%" PRIu64
            ",\"bytes\":%" PRIu64 ",\"flags\":[",
            h->instances, h->with_window, h->members, h->bytes);
    bool any = false;
    for (unsigned b = 0; b < sizeof flag_names / sizeof flag_names[0]; b++)
        if (h->flags & (1u << b)) {
            fprintf(f, "%s\"%s\"", any ? "," : "", flag_names[b]);
            any = true;
        }
    fputs("],", f);
    json_key_string(f, "message", v->message);
    fputc(',', f);
    json_boxes(f, &h->iters);
    /* wait states at the hint's call site (docs/waitstates.md) */
    if (!st)
        fprintf(f,
                ",\"late_sender_ns\":%" PRIu64 ",\"late_receiver_ns\":%" PRIu64
                ",\"wait_at_collective_ns\":%" PRIu64,
                h->late_sender_ns, h->late_receiver_ns, h->wait_collective_ns);
    /* root is meaningful for collective hints only (-1: none) */
    if (h->kind == SEARCH_HINT_COLLECTIVE && h->root >= 0)
        fprintf(f, ",\"root\":%d", h->root);
    else
        fputs(",\"root\":null", f);
    if (explain) {
        fputc(',', f);
        json_key_string(f, "explain", h->explain ? h->explain : "");
    }
    fputc('}', f);
}

static void print_json(FILE *f, const struct view *v, uint32_t n, const struct view *dv, uint32_t nd,
                       const struct wview *wv, const struct search_report *rep, const char *dir,
                       const struct hints_opts *o)
{
    bool st = o->stable;
    fprintf(f, "{\"schema\":\"commhint-hints\",\"version\":2,");
    /* With --stable the directory's last component only: traces compared
     * across runs are usually written to temporary directories. */
    const char *base = strrchr(dir, '/');
    json_key_string(f, "trace", st && base && base[1] ? base + 1 : dir);
    fprintf(f, ",\"world_size\":%d,\"ranks_analysed\":%d,\"events\":%" PRIu64, rep->world_size, rep->nranks,
            rep->events);
    if (!st)
        fprintf(f, ",\"run_ns\":%" PRIu64, rep->run_ns);
    fprintf(f, ",\"filtered\":%u", rep->nfiltered);
    fprintf(f, ",\"clocks_aligned\":%s,\"imbalance\":{", rep->clocks_aligned ? "true" : "false");
    if (!st)
        fprintf(f, "\"severity\":%.6g,\"comp_mean_ns\":%" PRIu64 ",\"comp_max_ns\":%" PRIu64, rep->imbalance,
                rep->comp_mean_ns, rep->comp_max_ns);
    fprintf(f, "},\"unmatched\":{\"sends\":%" PRIu64 ",\"recvs\":%" PRIu64 ",\"collectives\":%" PRIu64 "}",
            rep->unmatched_sends, rep->unmatched_recvs, rep->incomplete_colls);
    fputs(",\"hints\":[", f);
    for (uint32_t i = 0; i < n; i++) {
        fputs(i ? ",\n" : "\n", f);
        json_hint(f, &v[i], st, false);
    }
    fprintf(f, "%s],\"dropped\":[", n ? "\n" : "");
    for (uint32_t i = 0; i < nd; i++) {
        fputs(i ? ",\n" : "\n", f);
        json_hint(f, &dv[i], st, true);
    }
    fprintf(f, "%s],\"wait_states\":[", nd ? "\n" : "");
    for (uint32_t i = 0; i < rep->nwaits; i++) {
        const struct search_waitsite *w = wv[i].w;
        fputs(i ? ",\n{" : "\n{", f);
        json_key_string(f, "file", cli_display_path(w->file ? w->file : "", st));
        fprintf(f, ",\"line\":%u,\"column\":%u,", w->line, w->col);
        json_key_string(f, "function", w->func ? w->func : "");
        fputc(',', f);
        json_key_string(f, "call", trace_mpi_call_name(w->call));
        fprintf(f, ",\"ranks\":%d,\"calls\":%" PRIu64, w->nranks, w->calls);
        if (!st)
            fprintf(f,
                    ",\"time_ns\":%" PRIu64 ",\"late_sender_ns\":%" PRIu64 ",\"late_receiver_ns\":%" PRIu64
                    ",\"wait_at_collective_ns\":%" PRIu64,
                    w->time_ns, w->late_sender_ns, w->late_receiver_ns, w->wait_collective_ns);
        fputc('}', f);
    }
    fprintf(f, "%s]}\n", rep->nwaits ? "\n" : "");
}

/* ---- SARIF ---------------------------------------------------------------------------- */

/* A path as a URI reference: unreserved characters and '/' as they are,
 * everything else percent-encoded. */
static void sarif_uri_chars(FILE *f, const char *p)
{
    for (const unsigned char *s = (const unsigned char *)p; *s; s++) {
        if (isalnum(*s) || strchr("-._~/", *s))
            fputc(*s, f);
        else
            fprintf(f, "%%%02X", *s);
    }
}

/* "physicalLocation": relative paths (shown relative to the current
 * directory when below it) against %SRCROOT%, absolute ones as file URIs. */
static void sarif_physical(FILE *f, const char *file, uint32_t line, uint32_t col)
{
    const char *p = cli_display_path(file, true);
    fputs("\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"", f);
    if (p[0] == '/') {
        fputs("file://", f);
        sarif_uri_chars(f, p);
        fputs("\"}", f);
    } else {
        sarif_uri_chars(f, p);
        fputs("\",\"uriBaseId\":\"SRCROOT\"}", f);
    }
    if (line) {
        fprintf(f, ",\"region\":{\"startLine\":%u", line);
        if (col)
            fprintf(f, ",\"startColumn\":%u", col);
        fputc('}', f);
    }
    fputc('}', f);
}

/* The position of a kind in the rules (the table of kinds). */
static int rule_index(int kind)
{
    for (unsigned k = 0; k < search_kind_count(); k++)
        if (search_kind_at(k)->kind == kind)
            return (int)k;
    return -1;
}

static void print_sarif(FILE *f, const struct view *v, uint32_t n, const struct hints_opts *o)
{
    fputs("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{"
          "\"tool\":{\"driver\":{\"name\":\"commhint\",\"version\":\"0.1.0\",\"rules\":[",
          f);
    for (unsigned k = 0; k < search_kind_count(); k++) {
        const struct search_kind_desc *d = search_kind_at(k);
        fprintf(f,
                "%s{\"id\":\"%s\",\"name\":\"%s\",\"shortDescription\":{\"text\":\"%s\"},"
                "\"defaultConfiguration\":{\"level\":\"note\"}}",
                k ? "," : "", d->name, d->rule_id, d->description);
    }
    fputs("]}}", f);
    char cwd[4096];
    if (!o->stable && getcwd(cwd, sizeof cwd)) {
        fputs(",\"originalUriBaseIds\":{\"SRCROOT\":{\"uri\":\"file://", f);
        sarif_uri_chars(f, cwd);
        fputs(strcmp(cwd, "/") ? "/\"}}" : "\"}}", f);
    }
    fputs(",\"results\":[", f);
    for (uint32_t i = 0; i < n; i++) {
        const struct search_hint *h = v[i].h;
        fprintf(f, "%s\n{\"ruleId\":\"%s\",\"ruleIndex\":%d,\"level\":\"note\",\"message\":{\"text\":",
                i ? "," : "", search_kind_name(h->kind), rule_index(h->kind));
        cli_json_string(f, v[i].message);
        fputc('}', f);
        if (!o->stable)
            fprintf(f, ",\"rank\":%.2f", 100.0 * h->severity);
        if (h->file && *h->file) {
            fputs(",\"locations\":[{", f);
            sarif_physical(f, h->file, h->line, h->col);
            fputs("}]", f);
        }
        bool any = false;
        for (uint32_t k = 0; k < h->nrelated; k++) {
            const struct search_related *r = &h->related[k];
            if (!r->file || !*r->file)
                continue;
            fprintf(f, "%s{\"id\":%u,", any ? "," : ",\"relatedLocations\":[", k);
            sarif_physical(f, r->file, r->line, r->col);
            fputs(",\"message\":{\"text\":", f);
            char text[128];
            if (r->role == SEARCH_REL_MEMBER)
                snprintf(text, sizeof text, "%s", search_role_text(r->role, false));
            else
                snprintf(text, sizeof text, "%s: %" PRIu64 " of %" PRIu64 " executions", search_role_text(r->role, false),
                         r->events, r->total);
            cli_json_string(f, text);
            fputs("}}", f);
            any = true;
        }
        if (any)
            fputc(']', f);
        fputs(",\"properties\":{", f);
        if (!o->stable)
            fprintf(f, "\"saving_ns\":%" PRIu64 ",\"severity\":%.6g,", h->saving_ns, h->severity);
        fputs("\"ranks\":[", f);
        for (int k = 0; k < h->nranks; k++)
            fprintf(f, "%s%d", k ? "," : "", h->ranks[k]);
        fputs("],\"flags\":[", f);
        bool anyf = false;
        for (unsigned b = 0; b < sizeof flag_names / sizeof flag_names[0]; b++)
            if (h->flags & (1u << b)) {
                fprintf(f, "%s\"%s\"", anyf ? "," : "", flag_names[b]);
                anyf = true;
            }
        fputs("]}}", f);
    }
    fprintf(f, "%s]}]}\n", n ? "\n" : "");
}

/* ---- the command ------------------------------------------------------------------------ */

/* Views of n hints: their messages (without times with --stable), their
 * position in the ranking when ranked (else 0), ordered by location with
 * --stable.  The messages and the array are the caller's to free (also
 * on failure: *out is set as soon as it is allocated). */
static int make_views(const struct search_hint *h, uint32_t n, bool ranked, bool stable, struct view **out)
{
    struct view *v = calloc(n ? n : 1, sizeof *v);
    *out = v;
    if (!v)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        v[i].h = &h[i];
        v[i].rank_order = ranked ? i + 1 : 0;
        v[i].message = stable || !h[i].message ? search_hint_message(&h[i], !stable) : strdup(h[i].message);
        if (!v[i].message)
            return -1;
    }
    if (stable && n)
        qsort(v, n, sizeof *v, view_location_cmp);
    return 0;
}

/* The end of the summary line: the cross-rank facts worth a look, then the
 * newline.  Imbalance is a time, left out with --stable. */
static void print_facts(FILE *f, const struct search_report *rep, const struct hints_opts *o)
{
    if (rep->ndropped)
        fprintf(f, ", %u dropped by cross-rank checks%s", rep->ndropped, o->explain ? "" : " (--explain)");
    if (rep->nranks > 1 && !o->stable)
        fprintf(f, ", load imbalance %.2f", rep->imbalance);
    if (rep->unmatched_sends)
        fprintf(f, ", %" PRIu64 " unmatched send%s", rep->unmatched_sends,
                rep->unmatched_sends == 1 ? "" : "s");
    if (rep->unmatched_recvs)
        fprintf(f, ", %" PRIu64 " unmatched receive%s", rep->unmatched_recvs,
                rep->unmatched_recvs == 1 ? "" : "s");
    if (rep->incomplete_colls)
        fprintf(f, ", %" PRIu64 " incomplete collective%s", rep->incomplete_colls,
                rep->incomplete_colls == 1 ? "" : "s");
    if (rep->nranks > 1 && !rep->clocks_aligned)
        fputs(", clocks not aligned: wait states not measured", f);
    fputc('\n', f);
}

/* search_warn_fn: the warnings about ranks left out or cut short, below
 * the progress bar. */
static void warn_cb(void *ctx, int rank, int what, const char *msg)
{
    (void)rank;
    (void)what;
    progress_clear(ctx);
    cli_warn("%s", msg);
}

int cmd_hints(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"kind", required_argument, NULL, 'k'},
        {"rank", required_argument, NULL, 'r'},
        {"top", required_argument, NULL, 't'},
        {"min-saving", required_argument, NULL, 'm'},
        {"engine", required_argument, NULL, 'e'},
        {"horizon", required_argument, NULL, 'H'},
        {"expand-runs", no_argument, NULL, 'R'},
        {"stable", no_argument, NULL, 's'},
        {"waits", no_argument, NULL, 'W'},
        {"explain", no_argument, NULL, 'X'},
        {"parallel", no_argument, NULL, 'P'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char *const formats[] = {"text", "json", "sarif", NULL};
    static const char *const engines[] = {"streaming", "reference", NULL};
    struct hints_opts o = {.format = FMT_TEXT, .report = {.rank = -1}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        unsigned long v;
        switch (c) {
        case 'f':
            if ((o.format = cli_parse_format("hints", optarg, formats)) < 0)
                return CLI_USAGE;
            break;
        case 'k':
            if (parse_kinds(optarg, &o.report.kinds) != CLI_OK)
                return CLI_USAGE;
            break;
        case 'r':
            if (!cli_parse_uint(optarg, &v) || v > 10000000)
                return cli_usage_error("hints", "--rank needs a rank number, not '%s'", optarg);
            o.report.rank = (int)v;
            break;
        case 't':
            if (!cli_parse_uint(optarg, &v) || v == 0 || v > 100000000)
                return cli_usage_error("hints", "--top needs a positive number of hints, not '%s'", optarg);
            o.report.top = (unsigned)v;
            break;
        case 'm':
            if (!search_parse_duration(optarg, &o.report.min_saving_ns))
                return cli_usage_error(
                    "hints", "--min-saving needs a time such as 500us, 1.5ms, 2s or 100ns, not '%s'", optarg);
            break;
        case 'e': {
            int e = -1;
            for (int k = 0; engines[k]; k++)
                if (!strcmp(optarg, engines[k]))
                    e = k;
            if (e < 0)
                return cli_usage_error("hints", "unknown --engine '%s'; allowed: streaming, reference",
                                       optarg);
            o.search.engine = e ? SEARCH_ENGINE_REFERENCE : SEARCH_ENGINE_STREAMING;
            break;
        }
        case 'H':
            if (!cli_parse_uint(optarg, &v) || v == 0)
                return cli_usage_error("hints", "--horizon needs a positive number of events, not '%s'",
                                       optarg);
            o.search.horizon = v;
            break;
        case 'R': o.search.expand_runs = true; break;
        case 's': o.stable = true; break;
        case 'W': o.waits = true; break;
        case 'X': o.explain = true; break;
        case 'P': o.parallel = true; break;
        case 'o': o.output = optarg; break;
        case 'h': hints_help(); return CLI_OK;
        case ':': return cli_usage_error("hints", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("hints", "unknown option '%s'", argv[optind - 1]);
        }
    }
    const char *dir;
    if (cli_trace_dir_arg("hints", argc, argv, optind, &dir) != CLI_OK)
        return CLI_USAGE;

    int ret = CLI_ERROR;
    struct trace *t = NULL;
    struct search_analysis *an = NULL;
    const struct search_report *rep = NULL;
    struct view *views = NULL, *dviews = NULL;
    struct wview *wviews = NULL;
    FILE *out = stdout;
    struct trace_err err;
    /* --parallel: this process and how many; the others leave messages and
     * output to process 0 (quiet); agreed once all processes have compared
     * how their start went. */
    int proc = 0, nprocs = 1;
    bool quiet = false, agreed = false;

    err.msg[0] = '\0';
    if (o.parallel) {
        if (search_parallel_begin(&argc, &argv, &proc, &nprocs, &err) < 0)
            return cli_error("%s", err.msg);
        quiet = proc > 0;
    }
    if (trace_open(dir, &t, &err) < 0) {
        if (!quiet)
            cli_error("%s", err.msg);
        goto out;
    }
    if (!quiet)
        cli_warn_meta_cut(t);
    int world = trace_world_size(t);
    if (o.report.rank >= 0 && o.report.rank >= world) {
        if (!quiet)
            cli_error("no such rank in this trace: rank=%d world_size=%d", o.report.rank, world);
        goto out;
    }
    /* Opened before the analysis, which can be long, so a bad path fails
     * at once. */
    if (o.output && !quiet && !(out = fopen(o.output, "w"))) {
        out = stdout;
        cli_error("cannot write the hints: file=%s reason=%s", o.output, strerror(errno));
        goto out;
    }
    if (o.parallel) {
        agreed = true;
        if (!search_parallel_agree(true, NULL)) {
            if (!quiet)
                cli_error("the parallel analysis could not start on every process: dir=%s", dir);
            goto out;
        }
    }
    struct progress pg = {.tty = !quiet && isatty(STDERR_FILENO) == 1, .start = now_s(),
                          .nprocs = o.parallel ? nprocs : 0};
    struct search_analysis_opts ao = {.search = o.search,
                                      .report = o.report,
                                      .warn = warn_cb,
                                      .warn_ctx = &pg,
                                      .progress = progress_cb,
                                      .progress_ctx = &pg,
                                      .driver = o.parallel ? search_parallel_driver() : NULL};
    int rc = search_analyse(t, &ao, &an, &err);
    progress_clear(&pg);
    if (rc < 0) {
        if (!quiet)
            cli_error("%s", err.msg);
        goto out;
    }
    if (!(rep = search_analysis_report(an))) {
        ret = CLI_OK; /* a process of --parallel other than 0 */
        goto out;
    }

    if (make_views(rep->hints, rep->nhints, true, o.stable, &views) < 0 ||
        make_views(rep->dropped, rep->ndropped, false, o.stable, &dviews) < 0 ||
        !(wviews = calloc(rep->nwaits ? rep->nwaits : 1, sizeof *wviews))) {
        cli_error("out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < rep->nwaits; i++)
        wviews[i].w = &rep->waits[i];
    if (o.stable && rep->nwaits)
        qsort(wviews, rep->nwaits, sizeof *wviews, wview_location_cmp);

    if (o.format == FMT_JSON) {
        print_json(out, views, rep->nhints, dviews, rep->ndropped, wviews, rep, trace_dir(t), &o);
    } else if (o.format == FMT_SARIF) {
        print_sarif(out, views, rep->nhints, &o); /* dropped hints are not results */
    } else {
        print_text(out, views, rep->nhints, &o);
        if (o.explain)
            print_dropped_text(out, dviews, rep->ndropped);
        if (o.waits)
            print_waits_text(out, wviews, rep->nwaits, o.stable);
    }
    fflush(out);
    if (ferror(out)) {
        cli_error("cannot write the hints: file=%s reason=%s", o.output ? o.output : "<stdout>",
                  strerror(errno));
        goto out;
    }
    fprintf(stderr, "%u hint%s (%u filtered out) from %d rank%s, %" PRIu64 " events", rep->nhints,
            rep->nhints == 1 ? "" : "s", rep->nfiltered, rep->nranks, rep->nranks == 1 ? "" : "s",
            rep->events);
    print_facts(stderr, rep, &o);
    ret = CLI_OK;
out:
    if (out != stdout && fclose(out) != 0 && ret == CLI_OK)
        ret = cli_error("cannot write the hints: file=%s reason=%s", o.output, strerror(errno));
    if (views && rep)
        for (uint32_t i = 0; i < rep->nhints; i++)
            free(views[i].message);
    free(views);
    if (dviews && rep)
        for (uint32_t i = 0; i < rep->ndropped; i++)
            free(dviews[i].message);
    free(dviews);
    free(wviews);
    search_analysis_free(an);
    if (t)
        trace_close(t);
    if (o.parallel) {
        /* a process that failed before the analysis meets the others here;
         * its message is printed unless process 0 failed too (the same way) */
        bool root_ok = true;
        if (!agreed && !search_parallel_agree(false, &root_ok) && quiet && root_ok && err.msg[0])
            cli_error("%s", err.msg);
        search_parallel_end();
    }
    return ret;
}
