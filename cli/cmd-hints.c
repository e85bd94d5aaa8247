/* cmd-hints.c - `commhint hints DIR [options]`: what to change in the traced
 * program.  Analyses every rank of the trace with the search engines
 * (search_run_rank), merges the results into ranked hints
 * (search_report_build) and prints them as compiler-style notes (text),
 * one JSON document (docs/hints-json.md) or SARIF 2.1.0.
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
#include "search.h"

enum hints_format { FMT_TEXT, FMT_JSON, FMT_SARIF };

struct hints_opts {
    int format; /* enum hints_format */
    bool stable;
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
           "  --stable           leave out times and absolute paths and order the hints by\n"
           "                     location (for comparisons)\n"
           "  -o, --output FILE  write to FILE instead of standard output\n"
           "A summary line goes to standard error.  Exit status 0 with or without hints,\n"
           "1 if DIR is not a trace or no rank could be analysed.\n",
           SEARCH_DEFAULT_HORIZON);
}

/* ---- option values -------------------------------------------------------------- */

static const char *const kind_names[] = {[SEARCH_HINT_OVERLAP] = "overlap",
                                         [SEARCH_HINT_AGGREGATE] = "aggregate",
                                         [SEARCH_HINT_COLLECTIVE] = "collective"};

static const char *kind_name(int kind)
{
    return kind >= SEARCH_HINT_OVERLAP && kind <= SEARCH_HINT_COLLECTIVE ? kind_names[kind] : "?";
}

/* "overlap,aggregate" into a bit mask of (1 << kind). */
static int parse_kinds(const char *s, unsigned *out)
{
    unsigned mask = 0;
    const char *p = s;
    for (;;) {
        size_t n = strcspn(p, ",");
        int k;
        for (k = SEARCH_HINT_OVERLAP; k <= SEARCH_HINT_COLLECTIVE; k++)
            if (strlen(kind_names[k]) == n && !strncmp(p, kind_names[k], n))
                break;
        if (k > SEARCH_HINT_COLLECTIVE)
            return cli_usage_error("hints", "unknown --kind '%.*s'; allowed: overlap, aggregate, collective",
                                   (int)n, p);
        mask |= 1u << k;
        if (!p[n])
            break;
        p += n + 1;
    }
    *out = mask;
    return CLI_OK;
}

/* "1.5ms", "500us", "2s", "100ns", "250" (ns) into nanoseconds. */
static bool parse_time(const char *s, uint64_t *out)
{
    const char *p = s;
    if (!isdigit((unsigned char)*p))
        return false;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    double mult;
    if (!*p || !strcmp(p, "ns"))
        mult = 1;
    else if (!strcmp(p, "us"))
        mult = 1e3;
    else if (!strcmp(p, "ms"))
        mult = 1e6;
    else if (!strcmp(p, "s"))
        mult = 1e9;
    else
        return false;
    double v = strtod(s, NULL) * mult;
    if (!(v < 1.8e19))
        return false;
    *out = (uint64_t)(v + 0.5);
    return true;
}

/* ---- progress on a terminal ------------------------------------------------------- */

struct progress {
    bool tty;
    bool shown;
    double start, last;   /* s, monotonic */
    int index, count;     /* rank being analysed (from 1) of count */
    uint64_t done_before; /* bytes of the ranks analysed before */
    uint64_t total;       /* bytes of all rank files */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#define PROGRESS_WIDTH 10

static void progress_draw(struct progress *p, uint64_t done)
{
    double t = now_s();
    if (t - p->start < 1.0 || (p->shown && t - p->last < 0.1))
        return;
    double frac = p->total ? (double)(p->done_before + done) / (double)p->total
                           : (double)(p->index - 1) / (double)(p->count ? p->count : 1);
    if (frac > 1)
        frac = 1;
    char bar[PROGRESS_WIDTH + 1];
    int fill = (int)(frac * PROGRESS_WIDTH);
    for (int i = 0; i < PROGRESS_WIDTH; i++)
        bar[i] = i < fill ? '#' : ' ';
    bar[PROGRESS_WIDTH] = '\0';
    fprintf(stderr, "\ranalysing rank %d/%d [%s] %3d%%", p->index, p->count, bar, (int)(frac * 100));
    fflush(stderr);
    p->shown = true;
    p->last = t;
}

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
    struct progress *p = ctx;
    if (p->tty)
        progress_draw(p, done);
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

static uint64_t file_size(const char *path)
{
    struct stat sb;
    return path && stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

/* ---- output helpers -------------------------------------------------------------------- */

static const char *role_text(int role)
{
    switch (role) {
    case SEARCH_REL_BEFORE: return "can move after the call";
    case SEARCH_REL_AFTER: return "can run before the wait";
    case SEARCH_REL_MEMBER: return "send merged into it";
    }
    return "related";
}

static const char *role_name(int role)
{
    switch (role) {
    case SEARCH_REL_BEFORE: return "before";
    case SEARCH_REL_AFTER: return "after";
    case SEARCH_REL_MEMBER: return "member";
    }
    return "?";
}

static const char *const flag_names[] = {"conditional", "some-ranks", "some-iterations", "truncated"};

/* A hint as printed: the report's hint, the message for this output and the
 * position in the report's ranking (from 1). */
struct view {
    const struct search_hint *h;
    char *message;
    unsigned rank_order;
};

static int view_location_cmp(const void *pa, const void *pb)
{
    const struct view *a = pa, *b = pb;
    const struct search_hint *x = a->h, *y = b->h;
    int c;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if ((c = strcmp(x->file ? x->file : "", y->file ? y->file : "")))
        return c;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    if (x->col != y->col)
        return x->col < y->col ? -1 : 1;
    if ((c = strcmp(a->message, b->message)))
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
        fprintf(f, "[%s] %s\n", kind_name(h->kind), v[i].message);
        for (uint32_t k = 0; k < h->nrelated; k++) {
            const struct search_related *r = &h->related[k];
            note_at(f, r->file, r->line, r->col);
            fprintf(f, "  %s%s", role_text(r->role), r->conditional ? " (conditional)" : "");
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

static void print_json(FILE *f, const struct view *v, uint32_t n, const struct search_report *rep,
                       const char *dir, const struct hints_opts *o)
{
    bool st = o->stable;
    fprintf(f, "{\"schema\":\"commhint-hints\",\"version\":1,");
    /* With --stable the directory's last component only: traces compared
     * across runs are usually written to temporary directories. */
    const char *base = strrchr(dir, '/');
    json_key_string(f, "trace", st && base && base[1] ? base + 1 : dir);
    fprintf(f, ",\"world_size\":%d,\"ranks_analysed\":%d,\"events\":%" PRIu64, rep->world_size, rep->nranks,
            rep->events);
    if (!st)
        fprintf(f, ",\"run_ns\":%" PRIu64, rep->run_ns);
    fprintf(f, ",\"filtered\":%u,\"hints\":[", rep->nfiltered);
    for (uint32_t i = 0; i < n; i++) {
        const struct search_hint *h = v[i].h;
        fprintf(f, "%s\n{", i ? "," : "");
        if (!st)
            fprintf(f, "\"rank_order\":%u,", v[i].rank_order);
        fprintf(f, "\"kind\":\"%s\",", kind_name(h->kind));
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
            fprintf(f, ",\"role\":\"%s\",\"executions\":%" PRIu64 ",\"total\":%" PRIu64, role_name(r->role),
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
            fprintf(f,
                    ",\"saving_ns\":%" PRIu64 ",\"comm_ns\":%" PRIu64 ",\"comp_ns\":%" PRIu64
                    ",\"severity\":%.6g",
                    h->saving_ns, h->comm_ns, h->comp_ns, h->severity);
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
        json_key_string(f, "message", v[i].message);
        fputc(',', f);
        json_boxes(f, &h->iters);
        fputc('}', f);
    }
    fprintf(f, "%s]}\n", n ? "\n" : "");
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

static void print_sarif(FILE *f, const struct view *v, uint32_t n, const struct hints_opts *o)
{
    static const struct {
        const char *id, *name, *text;
    } rules[] = {
        {"overlap", "CommunicationComputationOverlap",
         "Computation that can overlap a blocking MPI call once the call is made nonblocking"},
        {"aggregate", "MessageAggregation", "Sends to the same rank that can be sent as one message"},
        {"collective", "CollectiveCommunication", "Point-to-point calls that can be one collective call"},
    };
    fputs("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{"
          "\"tool\":{\"driver\":{\"name\":\"commhint\",\"version\":\"0.1.0\",\"rules\":[",
          f);
    for (unsigned k = 0; k < 3; k++) {
        fprintf(f,
                "%s{\"id\":\"%s\",\"name\":\"%s\",\"shortDescription\":{\"text\":\"%s\"},"
                "\"defaultConfiguration\":{\"level\":\"note\"}}",
                k ? "," : "", rules[k].id, rules[k].name, rules[k].text);
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
                i ? "," : "", kind_name(h->kind), h->kind - SEARCH_HINT_OVERLAP);
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
                snprintf(text, sizeof text, "%s", role_text(r->role));
            else
                snprintf(text, sizeof text, "%s: %" PRIu64 " of %" PRIu64 " executions", role_text(r->role),
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

/* Analyses every rank with a stream file into res (world_size entries);
 * returns how many were analysed. */
static int analyse(struct trace *t, const struct hints_opts *o, struct search_rank_result **res)
{
    int world = trace_world_size(t), count = 0, nres = 0;
    struct progress pg = {.tty = isatty(STDERR_FILENO) == 1, .start = now_s()};
    for (int r = 0; r < world; r++)
        if (trace_has_rank(t, r)) {
            count++;
            pg.total += file_size(trace_rank_path(t, r));
        }
    pg.count = count;
    for (int r = 0; r < world; r++) {
        if (!trace_has_rank(t, r)) {
            progress_clear(&pg);
            cli_warn("rank %d has no stream file and is left out: file=%s", r, trace_rank_path(t, r));
            continue;
        }
        pg.index++;
        progress_cb(&pg, 0, 0);
        struct trace_err err;
        struct search_rank_result *rr = NULL;
        err.msg[0] = '\0';
        int rc = search_run_rank(t, r, &o->search, progress_cb, &pg, &rr, &err);
        pg.done_before += file_size(trace_rank_path(t, r));
        if (rc < 0) {
            progress_clear(&pg);
            if (err.msg[0])
                cli_warn("rank %d could not be analysed and is left out: %s", r, err.msg);
            else
                cli_warn("rank %d could not be analysed and is left out: reason=%s", r, trace_status_str(rc));
            continue;
        }
        if (rr->cut_short) {
            progress_clear(&pg);
            cli_warn("rank %d was cut short; analysing what it recorded", r);
        }
        res[nres++] = rr;
    }
    progress_clear(&pg);
    return nres;
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
        {"stable", no_argument, NULL, 's'},
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
            if (!parse_time(optarg, &o.report.min_saving_ns))
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
        case 's': o.stable = true; break;
        case 'o': o.output = optarg; break;
        case 'h': hints_help(); return CLI_OK;
        case ':': return cli_usage_error("hints", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("hints", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error("hints", "missing the trace directory");
    if (optind + 1 < argc)
        return cli_usage_error("hints", "unexpected argument '%s'", argv[optind + 1]);
    const char *dir = argv[optind];

    int ret = CLI_ERROR, nres = 0;
    struct trace *t = NULL;
    struct search_rank_result **res = NULL;
    struct search_report *rep = NULL;
    struct view *views = NULL;
    FILE *out = stdout;
    struct trace_err err;

    if (trace_open(dir, &t, &err) < 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    int world = trace_world_size(t);
    if (o.report.rank >= 0 && o.report.rank >= world) {
        cli_error("no such rank in this trace: rank=%d world_size=%d", o.report.rank, world);
        goto out;
    }
    /* Opened before the analysis, which can be long, so a bad path fails
     * at once. */
    if (o.output && !(out = fopen(o.output, "w"))) {
        out = stdout;
        cli_error("cannot write the hints: file=%s reason=%s", o.output, strerror(errno));
        goto out;
    }
    res = calloc(world > 0 ? (size_t)world : 1, sizeof *res);
    if (!res) {
        cli_error("out of memory");
        goto out;
    }
    nres = analyse(t, &o, res);
    if (!nres) {
        cli_error("no rank could be analysed: dir=%s world_size=%d", trace_dir(t), world);
        goto out;
    }
    int rc = search_report_build(res, nres, world, &o.report, &rep);
    if (rc < 0) {
        cli_error("cannot merge the ranks' results into hints: reason=%s", trace_status_str(rc));
        goto out;
    }
    /* The report holds no pointer into the results. */
    for (int k = 0; k < nres; k++)
        search_rank_result_free(res[k]);
    nres = 0;

    views = calloc(rep->nhints ? rep->nhints : 1, sizeof *views);
    if (!views) {
        cli_error("out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < rep->nhints; i++) {
        views[i].h = &rep->hints[i];
        views[i].rank_order = i + 1;
        views[i].message =
            o.stable ? search_hint_message(&rep->hints[i], false) : strdup(rep->hints[i].message);
        if (!views[i].message) {
            cli_error("out of memory");
            goto out;
        }
    }
    if (o.stable && rep->nhints)
        qsort(views, rep->nhints, sizeof *views, view_location_cmp);

    if (o.format == FMT_JSON)
        print_json(out, views, rep->nhints, rep, trace_dir(t), &o);
    else if (o.format == FMT_SARIF)
        print_sarif(out, views, rep->nhints, &o);
    else
        print_text(out, views, rep->nhints, &o);
    fflush(out);
    if (ferror(out)) {
        cli_error("cannot write the hints: file=%s reason=%s", o.output ? o.output : "<stdout>",
                  strerror(errno));
        goto out;
    }
    fprintf(stderr, "%u hint%s (%u filtered out) from %d rank%s, %" PRIu64 " events\n", rep->nhints,
            rep->nhints == 1 ? "" : "s", rep->nfiltered, rep->nranks, rep->nranks == 1 ? "" : "s",
            rep->events);
    ret = CLI_OK;
out:
    if (out != stdout && fclose(out) != 0 && ret == CLI_OK)
        ret = cli_error("cannot write the hints: file=%s reason=%s", o.output, strerror(errno));
    if (views && rep)
        for (uint32_t i = 0; i < rep->nhints; i++)
            free(views[i].message);
    free(views);
    search_report_free(rep);
    for (int k = 0; k < nres; k++)
        search_rank_result_free(res[k]);
    free(res);
    if (t)
        trace_close(t);
    return ret;
}
