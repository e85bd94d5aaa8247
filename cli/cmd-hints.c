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
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "parallel.h"
#include "search.h"


struct hints_opts {
    int format; /* enum search_format: the index in formats[] of cmd_hints */
    bool stable;
    bool waits;         /* --waits: the wait-state table after the hints (text) */
    bool explain;       /* --explain: the dropped hints and why (text) */
    bool pop;           /* --pop: the POP efficiencies after the summary */
    bool predict;       /* --predict: the hints named, applied together */
    bool parallel;      /* --parallel: ranks spread over the processes of an MPI job */
    bool verbose;       /* --verbose: every related line, not the regions (text) */
    const char *output; /* NULL: stdout */
    struct search_opts search;
    struct search_report_opts report;
};

static void hints_help(void)
{
    printf("usage: commhint hints DIR [options]\n\n"
           "Finds what to change in the traced program: computation that can overlap a\n"
           "blocking MPI call, sends to the same rank that can travel as one message, and\n"
           "loops of point-to-point calls that are one collective (docs/collectives.md).\n"
           "Every rank of the trace in DIR is analysed; the results are merged by source\n"
           "location and ranked by the saving a replay of the run with the hint applied\n"
           "predicts (docs/prediction.md).  Each hint is shown where to act: a call made\n"
           "through a helper at the helper's call that tells its calling contexts apart,\n"
           "with the path down to the MPI call; its computation as regions (loops,\n"
           "functions); and the edit that applies it, after 'to apply:'.\n"
           "  --format=FMT       text (default; lines start with file:line:col: as compilers\n"
           "                     print them), json (docs/hints-json.md) or sarif (SARIF 2.1.0)\n"
           "  --kind=LIST        only these kinds, comma-separated: overlap, aggregate, collective\n"
           "  --rank=N           only hints that hold on rank N\n"
           "  --top=N            only the N hints with the largest saving\n"
           "  --min-saving=X     only hints saving at least X: a time (100ns, 500us, 1.5ms,\n"
           "                     2s; a plain number is nanoseconds) or a share of the run\n"
           "                     (0.5%%); default 1%% of the run, or $COMMHINT_MIN_SAVING\n"
           "  --all              also the hints that save less (same as --min-saving=0)\n"
           "  --call-depth=N     frames above an MPI call that tell its calling contexts\n"
           "                     apart (default %u; 0: every call is known by its own line)\n"
           "  --helpers=LIST     functions to show hints above, comma-separated (calls made\n"
           "                     through them are shown where the helper is called); -NAME:\n"
           "                     never look through NAME (docs/dependence.md, \"Call paths\")\n"
           "  --engine=ENGINE    streaming (default) or reference (the paper's algorithms, the\n"
           "                     whole rank in memory: slow, for checking)\n"
           "  --horizon=N        events a window may reach from its call (default %u)\n"
           "  --expand-runs      analyse the repeated stretches of the trace event by event,\n"
           "                     not as whole runs (same results, slower: for checking)\n"
           "  --stable           leave out times and absolute paths and order the hints by\n"
           "                     location (for comparisons)\n"
           "  -v, --verbose      text: every related line of a hint with its executions and\n"
           "                     iterations, instead of its largest regions\n"
           "  --waits            also print the wait states of every MPI call site: late\n"
           "                     sender, late receiver, wait at collectives (docs/waitstates.md)\n"
           "  --explain          also print the hints a cross-rank check dropped, and why\n"
           "  --pop              also print the run's POP efficiencies (load balance,\n"
           "                     communication, serialisation, transfer) on standard error\n"
           "  --predict=LIST     also predict what the hints named save applied together:\n"
           "                     KIND:LINE or KIND:FILE:LINE, comma-separated (e.g.\n"
           "                     overlap:84,aggregate:jacobi.c:92); JSON: model.applied_ns\n"
           "  --model=LIST       set the replay model's parameters instead of fitting them:\n"
           "                     L=TIME, G=NS_PER_BYTE, o=TIME, or=TIME, eager=BYTES,\n"
           "                     slice=TIME (0: do not model the CPUs), comma-separated\n"
           "  --plain-time=TIME  the program's run without tracing took TIME (from MPI_Init's\n"
           "                     return to the last MPI_Finalize): predict for that run, the\n"
           "                     traced computation scaled down to replay it\n"
           "  --parallel         under mpiexec -n P: the ranks are analysed by P processes\n"
           "                     (P may be fewer than the ranks); process 0 prints the same\n"
           "                     output as a serial run, the others print nothing\n"
           "  -o, --output FILE  write to FILE instead of standard output\n"
           "A summary line goes to standard error, with the load imbalance and unmatched\n"
           "messages; JSON also holds the wait states and the dropped hints.  Exit status 0\n"
           "with or without hints, 1 if DIR is not a trace or no rank could be analysed.\n",
           TRACE_CTX_DEPTH, SEARCH_DEFAULT_HORIZON);
}

/* ---- option values -------------------------------------------------------------- */

/* "1.5ms" or "0.5%" into the report options' threshold. */
/* "L=2us,G=0.1,eager=65536" into the report options' model parameters. */
static bool parse_model(const char *s, struct search_report_opts *r)
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return false;
    strcpy(buf, s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok || !eq[1])
            return false;
        *eq = '\0';
        const char *val = eq + 1;
        uint64_t ns;
        if (!strcmp(tok, "G")) {
            char *end;
            double g = strtod(val, &end);
            if (*end || !(g >= 0) || g > 1e9)
                return false;
            r->model_ns_per_byte = g;
            r->model_set |= 2;
        } else if (!strcmp(tok, "eager")) {
            unsigned long v;
            if (!cli_parse_uint(val, &v) || !v)
                return false;
            r->model_eager = v;
        } else if (search_parse_duration(val, &ns)) {
            static const struct {
                const char *key;
                unsigned bit;
            } keys[] = {{"L", 1}, {"o", 4}, {"or", 8}, {"slice", 16}};
            unsigned bit = 0;
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
                if (!strcmp(tok, keys[k].key))
                    bit = keys[k].bit;
            if (!bit)
                return false;
            double *f = bit == 1 ? &r->model_lat_ns : bit == 4 ? &r->model_o_ns
                        : bit == 8 ? &r->model_or_ns : &r->model_slice_ns;
            *f = (double)ns;
            r->model_set |= bit;
        } else {
            return false;
        }
    }
    return true;
}

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

/* ---- the command ------------------------------------------------------------------------ */

/* The end of the summary line: the cross-rank facts worth a look, then the
 * newline.  Imbalance is a time, left out with --stable. */
static void print_facts(FILE *f, const struct search_report *rep, const struct hints_opts *o)
{
    /* sends kept apart (not-merged) are explanations, not hints a check dropped */
    uint32_t dropped = 0;
    for (uint32_t i = 0; i < rep->ndropped; i++)
        dropped += !(rep->dropped[i].flags & SEARCH_HINT_NOT_MERGED);
    if (dropped)
        fprintf(f, ", %u dropped by cross-rank checks%s", dropped, o->explain ? "" : " (--explain)");
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

/* The POP efficiencies (docs/prediction.md), as a performance analyst
 * reads them: each factor multiplies into the one above it. */
static void print_pop(FILE *f, const struct search_report *rep)
{
    const struct search_prediction *p = &rep->predict;
    if (!p->ok || !p->useful_max_ns) {
        fputs("POP efficiencies: not available (the run has no times to replay)\n", f);
        return;
    }
    fprintf(f,
            "POP efficiencies (of %d rank%s):\n"
            "  parallel efficiency       %5.1f%%\n"
            "    load balance            %5.1f%%\n"
            "    communication           %5.1f%%\n"
            "      serialisation         %5.1f%%\n"
            "      transfer              %5.1f%%\n",
            rep->nranks, rep->nranks == 1 ? "" : "s", 100 * p->parallel_eff, 100 * p->load_balance,
            100 * p->comm_eff, 100 * p->serial_eff, 100 * p->transfer_eff);
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
        {"all", no_argument, NULL, 'A'},
        {"engine", required_argument, NULL, 'e'},
        {"horizon", required_argument, NULL, 'H'},
        {"expand-runs", no_argument, NULL, 'R'},
        {"stable", no_argument, NULL, 's'},
        {"waits", no_argument, NULL, 'W'},
        {"explain", no_argument, NULL, 'X'},
        {"pop", no_argument, NULL, 'p'},
        {"predict", required_argument, NULL, 'a'},
        {"plain-time", required_argument, NULL, 'T'},
        {"model", required_argument, NULL, 'M'},
        {"parallel", no_argument, NULL, 'P'},
        {"call-depth", required_argument, NULL, 'D'},
        {"verbose", no_argument, NULL, 'v'},
        {"helpers", required_argument, NULL, 'L'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char *const formats[] = {"text", "json", "sarif", NULL};
    static const char *const engines[] = {"streaming", "reference", NULL};
    struct hints_opts o = {.format = SEARCH_FORMAT_TEXT, .report = {.rank = -1}};
    bool min_set = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:hv", opts, NULL)) != -1) {
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
            if (!cli_parse_min_saving(optarg, &o.report.min_saving_frac, &o.report.min_saving_ns))
                return cli_usage_error("hints",
                                       "--min-saving needs a time such as 500us, 1.5ms, 2s or 100ns, or a share "
                                       "of the run such as 0.5%%, not '%s'",
                                       optarg);
            min_set = true;
            break;
        case 'A':
            o.report.min_saving_ns = 0;
            o.report.min_saving_frac = 0;
            min_set = true;
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
        case 'p': o.pop = true; break;
        case 'a': o.report.apply = optarg; o.predict = true; break;
        case 'T':
            if (!search_parse_duration(optarg, &o.report.plain_ns) || !o.report.plain_ns)
                return cli_usage_error("hints", "--plain-time needs a time such as 1.5s or 800ms, not '%s'", optarg);
            break;
        case 'M':
            if (!parse_model(optarg, &o.report))
                return cli_usage_error("hints",
                                       "--model needs KEY=VALUE pairs such as L=2us,G=0.1,o=300ns,or=200ns,"
                                       "eager=65536,slice=4ms, not '%s'",
                                       optarg);
            break;
        case 'P': o.parallel = true; break;
        case 'v': o.verbose = true; break;
        case 'D':
            if (!cli_parse_uint(optarg, &v) || v > 32)
                return cli_usage_error("hints", "--call-depth needs a number of frames from 0 to 32, not '%s'",
                                       optarg);
            o.search.call_depth = v ? (int)v : -1;
            break;
        case 'L':
            if (!*optarg || strspn(optarg, ",-") == strlen(optarg))
                return cli_usage_error("hints", "--helpers needs function names, comma-separated, not '%s'",
                                       optarg);
            o.report.helpers = optarg;
            break;
        case 'o': o.output = optarg; break;
        case 'h': hints_help(); return CLI_OK;
        case ':': return cli_usage_error("hints", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("hints", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (!min_set) { /* the default threshold: $COMMHINT_MIN_SAVING, else 1% of the run */
        const char *env = getenv("COMMHINT_MIN_SAVING");
        if (env && *env) {
            if (!cli_parse_min_saving(env, &o.report.min_saving_frac, &o.report.min_saving_ns))
                return cli_usage_error("hints",
                                       "COMMHINT_MIN_SAVING needs a time such as 500us or a share of the run "
                                       "such as 0.5%%, not '%s'",
                                       env);
        } else {
            o.report.min_saving_frac = 0.01;
        }
    }
    const char *dir;
    if (cli_trace_dir_arg("hints", argc, argv, optind, &dir) != CLI_OK)
        return CLI_USAGE;

    int ret = CLI_ERROR;
    struct trace *t = NULL;
    struct search_analysis *an = NULL;
    const struct search_report *rep = NULL;
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

    struct search_format_opts fo = {.stable = o.stable,
                                    .explain = o.explain,
                                    .waits = o.waits,
                                    .verbose = o.verbose,
                                    .horizon = o.search.horizon,
                                    .trace_dir = trace_dir(t)};
    if (search_report_write(out, rep, o.format, &fo) < 0) {
        cli_error("out of memory");
        goto out;
    }
    fflush(out);
    if (ferror(out)) {
        cli_error("cannot write the hints: file=%s reason=%s", o.output ? o.output : "<stdout>",
                  strerror(errno));
        goto out;
    }
    fprintf(stderr, "%u hint%s (%u filtered out", rep->nhints, rep->nhints == 1 ? "" : "s", rep->nfiltered);
    if (rep->nhidden)
        fprintf(stderr, ", %u of them saving too little: --all", rep->nhidden);
    fprintf(stderr, ") from %d rank%s, %" PRIu64 " events", rep->nranks, rep->nranks == 1 ? "" : "s",
            rep->events);
    if (rep->predict.ok && !o.stable) {
        char buf[32];
        if (rep->predict.plain_unfit)
            fprintf(stderr, ", --plain-time is shorter than the replay of the messages alone: predicted for "
                            "the traced run (%+.1f%% off the measured %s)",
                    100 * rep->predict.error, search_format_ns(buf, sizeof buf, rep->predict.measured_ns));
        else if (o.report.plain_ns)
            fprintf(stderr, ", replayed as the plain run of %s (computation x%.3g)",
                    search_format_ns(buf, sizeof buf, rep->predict.measured_ns), rep->predict.compute_scale);
        else
            fprintf(stderr, ", replayed run %+.1f%% off the measured %s", 100 * rep->predict.error,
                    search_format_ns(buf, sizeof buf, rep->predict.measured_ns));
    }
    print_facts(stderr, rep, &o);
    if (o.pop)
        print_pop(stderr, rep);
    if (o.predict) {
        char buf[32];
        const struct search_prediction *p = &rep->predict;
        fprintf(stderr, "%u hint%s named by --predict, applied together: predicted saving %s", p->applied,
                p->applied == 1 ? "" : "s", search_format_ns(buf, sizeof buf, p->applied_ns));
        if (p->measured_ns)
            fprintf(stderr, ", %.1f%% of the run", 100.0 * (double)p->applied_ns / (double)p->measured_ns);
        fputc('\n', stderr);
    }
    ret = CLI_OK;
out:
    if (out != stdout && fclose(out) != 0 && ret == CLI_OK)
        ret = cli_error("cannot write the hints: file=%s reason=%s", o.output, strerror(errno));
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
