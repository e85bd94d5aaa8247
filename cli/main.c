/* main.c - `commhint <command> [options]`: dispatches to cmd-*.c and holds
 * the helpers they share (messages, library directory, small parsers). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "search.h"
#include "trace-reader.h"

static const struct cli_command commands[] = {
    {"cc", "compile and link a C or C++ program with the commhint pass and trace library", cmd_cc},
    {"run", "run a program under mpiexec with tracing on", cmd_run},
    {"dump", "print every event of a trace", cmd_dump},
    {"info", "summarise a trace: ranks, events, bytes, cut-short ranks", cmd_info},
    {"hints", "what to change: overlap, message aggregation, collectives; ranked by saving", cmd_hints},
    {"compare", "two runs side by side: hints gone, remaining and new; time in MPI per call site", cmd_compare},
    {"export", "the MPI timeline for Perfetto (--format=chrome) or Vampir and Scalasca (--format=otf2)", cmd_export},
    {"view", "the viewer: hints on the source, event detail, timeline (GTK)", cmd_view},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: commhint <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nA program is traced only if it was built with 'commhint cc' (or runs with\n"
               "'commhint run --preload': MPI calls only).  Then: commhint run, commhint hints.\n"
               "'commhint <command> --help' describes a command's options.\n");
}

/* A command's status, made an error if what it wrote on standard output
 * did not all get there (a full disk, /dev/full): results that were lost
 * are never reported as a success. */
static int output_written(int ret)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return ret;
    int e = errno;
    if (ret != CLI_OK)
        return ret; /* the command said what went wrong */
    fprintf(stderr, "commhint: error: cannot write the output: file=<stdout> reason=%s\n",
            e ? strerror(e) : "write error");
    return CLI_ERROR;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return output_written(CLI_OK);
    }
    if (!strcmp(argv[1], "--version")) {
        printf("commhint 0.1.0 (trace format %d, LLVM %d)\n", CHT_FORMAT_VERSION,
               COMMHINT_LLVM_MAJOR);
        return output_written(CLI_OK);
    }
    const char *bad = NULL;
    if (search_memory_limit_from_env(&bad) < 0) {
        cli_error("COMMHINT_MAX_MEMORY needs a size in bytes, or with a K, M, G or T suffix (such as 8G), "
                  "not '%s'", bad);
        return CLI_USAGE;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return output_written(commands[i].run(argc - 1, argv + 1));
    fprintf(stderr, "commhint: unknown command '%s'; commands are cc, run, dump, info, hints, export, view (see 'commhint --help')\n",
            argv[1]);
    return CLI_USAGE;
}

/* A message to stderr with the control characters escaped: the facts in it
 * can come from a trace (file names, paths). */
static void vput(const char *prefix, const char *fmt, va_list ap)
{
    char buf[4096];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    fputs(prefix, stderr);
    search_write_escaped(stderr, buf, n < 0 ? 0 : (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
    fputc('\n', stderr);
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput("commhint: error: ", fmt, ap);
    va_end(ap);
    return CLI_ERROR;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "commhint %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'commhint %s --help')\n", cmd);
    va_end(ap);
    return CLI_USAGE;
}

int cli_trace_dir_arg(const char *cmd, int argc, char **argv, int first, const char **dir)
{
    if (first >= argc)
        return cli_usage_error(cmd, "missing the trace directory");
    if (first + 1 < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[first + 1]);
    *dir = argv[first];
    return CLI_OK;
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vput("commhint: warning: ", fmt, ap);
    va_end(ap);
}

void cli_warn_meta_cut(const struct trace *t)
{
    const char *why = trace_meta_cut_short(t);
    if (why)
        cli_warn("the meta file was cut short; sites of the site tables lost are unknown: %s", why);
}

const char *cli_libdir(void)
{
    static char dir[PATH_MAX];
    if (dir[0])
        return dir;
    const char *env = getenv("COMMHINT_LIBDIR");
    if (env && *env) {
        snprintf(dir, sizeof dir, "%s", env);
        return dir;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(dir, sizeof dir, "%s", COMMHINT_DEFAULT_LIBDIR);
        return dir;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    snprintf(dir, sizeof dir, "%s/../lib", exe);
    char real[PATH_MAX];
    if (realpath(dir, real))
        snprintf(dir, sizeof dir, "%s", real);
    return dir;
}

int cli_parse_format(const char *cmd, const char *value, const char *const *allowed)
{
    for (int i = 0; allowed[i]; i++)
        if (!strcmp(value, allowed[i]))
            return i;
    char list[256] = "";
    for (int i = 0; allowed[i]; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, allowed[i], sizeof list - strlen(list) - 1);
    }
    cli_usage_error(cmd, "unknown --format '%s'; allowed: %s", value, list);
    return -1;
}

bool cli_parse_uint(const char *s, unsigned long *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}


bool cli_parse_min_saving(const char *s, double *frac, uint64_t *ns)
{
    size_t n = strlen(s);
    if (n && s[n - 1] == '%') {
        char *end;
        double v = strtod(s, &end);
        if (end != s + n - 1 || !(v >= 0) || v > 100)
            return false;
        *frac = v / 100;
        *ns = 0;
        return true;
    }
    *frac = 0;
    return search_parse_duration(s, ns);
}
