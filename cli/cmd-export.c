/* cmd-export.c - `commhint export DIR [--format=FMT] [-o OUT]`: the MPI
 * timeline of a trace for a trace viewer (docs/export.md).
 *
 * The trace is loaded as `commhint hints` loads it (search_analyse, with
 * the ranks' calls kept): the calls, their messages matched across ranks,
 * the collective instances and the common clock all come from the
 * analysis.  This file keeps the options, the loading, the hints and the
 * summary; each format is one file in cli/export/ (export.h), registered
 * in export_formats[] below:
 *   chrome  Chrome trace-event JSON (cli/export/chrome.c)
 *   otf2    an OTF2 archive, for Vampir and Scalasca (cli/export/otf2.c)
 *
 * A Sendrecv with both peers MPI_PROC_NULL leaves no record in the MPI log
 * and cannot be exported: the calls missing are counted per rank here and
 * reported on stderr. */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "export/export.h"
#include "search.h"

/* The formats, in the order --format lists them; the first is the default. */
static const struct export_format *const export_formats[] = {&export_chrome, &export_otf2};
#define NFORMATS (sizeof export_formats / sizeof export_formats[0])

static void export_help(void)
{
    printf("usage: commhint export DIR [--format=chrome] [options]\n"
           "       commhint export DIR --format=otf2 -o OUTDIR [options]\n\n"
           "Writes the MPI timeline of the trace in DIR for a trace viewer: every MPI call\n"
           "of every rank, every message as an arrow from its send to its receive, and\n"
           "every hint of 'commhint hints' as a marker at its call (docs/export.md).\n"
           "  --format=FMT       chrome (the default): the Chrome trace-event JSON format,\n"
           "                     which ui.perfetto.dev and chrome://tracing open;\n"
           "                     otf2: an OTF2 archive in the directory OUTDIR (-o is then\n"
           "                     required), which Vampir and Scalasca read\n"
           "  --rank=N           only rank N's calls and hints (messages to and from other\n"
           "                     ranks then have no arrow; their peers are in the calls' args)\n"
           "  --stable           logical times (call k of a rank at k us), no savings, paths\n"
           "                     relative to the current directory (for comparisons)\n"
           "  -o, --output OUT   chrome: write to the file OUT instead of standard output\n"
           "                     ('-': standard output); otf2: the archive's directory,\n"
           "                     created if missing; an existing one must be empty or an\n"
           "                     archive written by commhint export, which is replaced\n"
           "A summary line goes to standard error.  Exit status 0 on success, 1 if DIR is\n"
           "not a trace, no rank could be analysed or the output cannot be written, 2 on\n"
           "bad usage.\n");
}

uint64_t export_call_time(const struct xport *x, int rank, uint32_t call, bool exit)
{
    const struct search_call *c = search_analysis_call(x->a, rank, call);
    if (x->o->stable)
        return (uint64_t)c->ordinal * 1000 + (exit ? 500 : 0);
    return exit ? c->t_exit : c->t_enter;
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
    const char *formats[NFORMATS + 1] = {NULL};
    for (size_t i = 0; i < NFORMATS; i++)
        formats[i] = export_formats[i]->name;
    struct export_opts o = {.format = 0, .rank = -1};
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
    const struct export_format *fmt = export_formats[o.format];
    if (fmt->output_is_dir && (!o.output || !strcmp(o.output, "-")))
        return cli_usage_error("export", "--format=%s writes a directory: -o DIR is required", fmt->name);

    int ret = CLI_ERROR, world = 0;
    struct trace *t = NULL;
    struct search_analysis *an = NULL;
    const struct search_report *rep = NULL;
    struct xport x = {.o = &o};
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
    x.t = t;
    x.world = world;
    if (fmt->open(&x) != CLI_OK)
        goto out;
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
    x.a = an;
    x.rep = rep;
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

    if (fmt->write(&x) != CLI_OK)
        goto out;
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
    ret = fmt->close(&x, ret);
    if (x.hints)
        for (uint32_t i = 0; i < x.nhints; i++)
            free(x.hints[i].message);
    free(x.hints);
    search_analysis_free(an);
    if (t)
        trace_close(t);
    return ret;
}
