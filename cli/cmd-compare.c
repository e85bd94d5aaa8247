/* cmd-compare.c - `commhint compare BEFORE AFTER`: two traces of one
 * program (before and after a change, or at two sizes) side by side: which
 * hints of the first run are gone, which remain, which are new; per MPI
 * call site the change of time in MPI and of wait states; the run time's
 * change against what the first run's replay model predicts for the hints
 * that are gone (docs/compare.md).
 *
 * Both traces are analysed as `commhint hints` analyses them, keeping every
 * hint (the threshold only decides what is listed: a hint below it in one
 * run and above it in the other still pairs) and the ranks' calls (the
 * tags of each call site's messages help pair the sites); the first run's
 * report is built again with the gone hints applied.
 * The pairing and the output are the analysis library's (search_compare,
 * search/compare/). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "search.h"

struct compare_opts {
    int format; /* SEARCH_FORMAT_TEXT or _JSON */
    bool all, stable;
    const char *map;
    const char *output;
    uint64_t plain_ns[2]; /* --plain-time=BEFORE,AFTER (0: not given) */
    double min_frac;
    uint64_t min_ns;
};

static void compare_help(void)
{
    printf("usage: commhint compare BEFORE AFTER [options]\n\n"
           "Sets two traces of one program side by side (before and after a change, or two\n"
           "sizes): which hints of BEFORE are gone in AFTER, which remain and which are new;\n"
           "per MPI call site the change of time in MPI and of wait states; and the run's\n"
           "change against what BEFORE's replay model predicts for the hints that are gone\n"
           "(docs/compare.md).  Call sites pair by file, function and kind of call, in\n"
           "source order (the traces hold no source text).\n"
           "  --format=FMT       text (default) or json\n"
           "  --plain-time=B,A   the two runs without tracing took B and A (times such as\n"
           "                     1.5s or 800ms): the change is measured on them and the\n"
           "                     prediction is for B's plain run\n"
           "  --map=OLD=NEW      BEFORE's file OLD is AFTER's NEW (ends of the paths,\n"
           "                     comma-separated pairs), when files were renamed\n"
           "  --min-saving=X     list hints that save at least X (a time, or a share of the\n"
           "                     run such as 0.5%%) in one of the runs; default\n"
           "                     $COMMHINT_MIN_SAVING, else 1%% of the run, as 'hints' shows them\n"
           "  --all              every hint and every call site\n"
           "  --stable           no times, paths relative to the current directory, sorted\n"
           "                     by location (for comparisons)\n"
           "  -o, --output FILE  write to FILE instead of standard output\n"
           "A summary line goes to standard error.  Exit status 0 on success, 1 if a\n"
           "directory is not a trace or cannot be analysed, 2 on bad usage.\n");
}

/* search_warn_fn: which run, then the warning. */
static void warn_cb(void *ctx, int rank, int what, const char *msg)
{
    (void)rank;
    (void)what;
    cli_warn("%s: %s", (const char *)ctx, msg);
}

static int parse_plain(const char *s, uint64_t out[2])
{
    const char *comma = strchr(s, ',');
    char first[64];
    if (!comma || (size_t)(comma - s) >= sizeof first)
        return -1;
    memcpy(first, s, (size_t)(comma - s));
    first[comma - s] = '\0';
    if (!search_parse_duration(first, &out[0]) || !search_parse_duration(comma + 1, &out[1]) || !out[0] ||
        !out[1])
        return -1;
    return 0;
}

static int parse_args(int argc, char **argv, struct compare_opts *o, const char **dirs)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"plain-time", required_argument, NULL, 'T'},
        {"map", required_argument, NULL, 'M'},
        {"min-saving", required_argument, NULL, 'm'},
        {"all", no_argument, NULL, 'A'},
        {"stable", no_argument, NULL, 's'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    static const char *const formats[] = {"text", "json", NULL};
    bool min_set = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if ((o->format = cli_parse_format("compare", optarg, formats)) < 0)
                return CLI_USAGE;
            break;
        case 'T':
            if (parse_plain(optarg, o->plain_ns) < 0)
                return cli_usage_error("compare", "--plain-time needs two times such as 1.2s,0.9s, not '%s'",
                                       optarg);
            break;
        case 'M': o->map = optarg; break;
        case 'm':
            if (!cli_parse_min_saving(optarg, &o->min_frac, &o->min_ns))
                return cli_usage_error(
                    "compare",
                    "--min-saving needs a time such as 500us or a share of the run such as "
                    "0.5%%, not '%s'",
                    optarg);
            min_set = true;
            break;
        case 'A': o->all = true; break;
        case 's': o->stable = true; break;
        case 'o': o->output = optarg; break;
        case 'h': compare_help(); return -1;
        case ':': return cli_usage_error("compare", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("compare", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return cli_usage_error("compare", "needs two trace directories, BEFORE and AFTER (%d given)",
                               argc - optind);
    dirs[0] = argv[optind];
    dirs[1] = argv[optind + 1];
    if (!min_set) {
        const char *env = getenv("COMMHINT_MIN_SAVING");
        if (env && *env) {
            if (!cli_parse_min_saving(env, &o->min_frac, &o->min_ns))
                return cli_usage_error("compare",
                                       "COMMHINT_MIN_SAVING needs a time such as 500us or a share of the run "
                                       "such as 0.5%%, not '%s'",
                                       env);
        } else {
            o->min_frac = 0.01;
        }
    }
    return CLI_OK;
}

static const char *run_name(int side)
{
    return side ? "AFTER" : "BEFORE";
}

/* Opens and analyses one run, every hint and the calls kept. */
static int analyse(const char *dir, int side, const struct compare_opts *o, struct trace **t,
                   struct search_analysis **an)
{
    struct trace_err err;
    if (trace_open(dir, t, &err) < 0)
        return cli_error("%s: %s", run_name(side), err.msg);
    cli_warn_meta_cut(*t);
    struct search_analysis_opts ao = {.report = {.rank = -1, .plain_ns = o->plain_ns[side]},
                                      .keep_ranks = true, /* tags of the call sites; the prediction */
                                      .warn = warn_cb,
                                      .warn_ctx = (void *)run_name(side)};
    if (search_analyse(*t, &ao, an, &err) < 0)
        return cli_error("%s: %s", run_name(side), err.msg);
    return CLI_OK;
}

/* The first run's replay with the gone hints applied together. */
static int predict(struct search_analysis *before, const struct compare_opts *o, struct search_comparison *c)
{
    char *apply = search_comparison_apply_list(c);
    if (!apply)
        return cli_error("out of memory");
    if (*apply) {
        struct search_report_opts ro = {.rank = -1, .plain_ns = o->plain_ns[0], .apply = apply};
        struct search_report *rep = NULL;
        int rc = search_analysis_report_again(before, &ro, &rep);
        if (rc < 0) {
            free(apply);
            return cli_error("cannot replay the first run with its gone hints: reason=%s",
                             trace_status_str(rc));
        }
        c->predicted = rep->predict.ok;
        c->applied = rep->predict.applied;
        c->predicted_ns = rep->predict.applied_ns;
        search_report_free(rep);
    }
    free(apply);
    return CLI_OK;
}

static void summary(const struct search_comparison *c, const struct compare_opts *o)
{
    fprintf(stderr, "%u hint%s gone, %u remain%s, %u new", c->ngone, c->ngone == 1 ? "" : "s", c->nremain,
            c->nremain == 1 ? "s" : "", c->nnew);
    uint64_t b = o->plain_ns[0] ? o->plain_ns[0] : c->run[0].run_ns;
    uint64_t a = o->plain_ns[1] ? o->plain_ns[1] : c->run[1].run_ns;
    if (!o->stable && b) {
        fprintf(stderr, "; run %+.1f%%%s", 100.0 * ((double)a - (double)b) / (double)b,
                o->plain_ns[0] ? " (plain runs)" : " (traced runs)");
        if (c->predicted && c->applied)
            fprintf(stderr, ", predicted %+.1f%%",
                    -100.0 * (double)c->predicted_ns / (double)c->run[0].run_ns);
    }
    fputc('\n', stderr);
}

int cmd_compare(int argc, char **argv)
{
    struct compare_opts o = {.format = SEARCH_FORMAT_TEXT};
    const char *dirs[2];
    int rc = parse_args(argc, argv, &o, dirs);
    if (rc < 0)
        return CLI_OK; /* --help */
    if (rc != CLI_OK)
        return rc;

    int ret = CLI_ERROR;
    struct trace *t[2] = {NULL, NULL};
    struct search_analysis *an[2] = {NULL, NULL};
    struct search_comparison *c = NULL;
    FILE *out = stdout;
    struct trace_err err;
    if (o.output && !(out = fopen(o.output, "w"))) {
        out = stdout;
        cli_error("cannot write the comparison: file=%s reason=%s", o.output, strerror(errno));
        goto out;
    }
    for (int side = 0; side < 2; side++)
        if (analyse(dirs[side], side, &o, &t[side], &an[side]) != CLI_OK)
            goto out;
    struct search_compare_opts co = {
        .map = o.map, .min_saving_frac = o.all ? 0 : o.min_frac, .min_saving_ns = o.all ? 0 : o.min_ns};
    if (search_compare(an[0], an[1], &co, &c, &err) < 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    if (predict(an[0], &o, c) != CLI_OK)
        goto out;
    if (o.plain_ns[0]) { /* the change measured on the plain runs */
        c->run[0].run_ns = o.plain_ns[0];
        c->run[1].run_ns = o.plain_ns[1];
    }
    struct search_compare_format_opts fo = {
        .stable = o.stable, .all = o.all, .before_dir = trace_dir(t[0]), .after_dir = trace_dir(t[1])};
    if (search_comparison_write(out, c, o.format, &fo) < 0) {
        cli_error("out of memory");
        goto out;
    }
    if (fflush(out) != 0 || ferror(out)) {
        cli_error("cannot write the comparison: file=%s reason=%s", o.output ? o.output : "<stdout>",
                  strerror(errno ? errno : EIO));
        goto out;
    }
    summary(c, &o);
    ret = CLI_OK;
out:
    if (out != stdout && fclose(out) != 0 && ret == CLI_OK)
        ret = cli_error("cannot write the comparison: file=%s reason=%s", o.output, strerror(errno));
    search_comparison_free(c);
    for (int side = 0; side < 2; side++) {
        search_analysis_free(an[side]);
        if (t[side])
            trace_close(t[side]);
    }
    return ret;
}
