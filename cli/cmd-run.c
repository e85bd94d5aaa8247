/* cmd-run.c - `commhint run -n N [-o DIR] -- ./app args...`: run a program
 * under mpiexec with tracing on, then print the trace directory.
 *
 * Tracing is switched on by COMMHINT_TRACE_DIR (the runtime in the program
 * reads it); --preload adds the runtime with LD_PRELOAD for programs that
 * were not linked with it (MPI events only).  A previous trace in DIR is
 * replaced; a DIR that holds anything else is refused. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "trace-format.h"
#include "trace-reader.h"

static void run_help(void)
{
    printf("usage: commhint run -n N [-o DIR] [--preload] [--mpiexec CMD] -- PROGRAM [ARGS...]\n\n"
           "Runs PROGRAM on N ranks with mpiexec and tracing on, then prints the trace directory.\n"
           "  -n, --np N        number of ranks (required)\n"
           "  -o, --output DIR  trace directory (default: commhint-<program>.trace); a previous\n"
           "                    trace there is replaced\n"
           "      --preload     load the trace runtime with LD_PRELOAD, for programs not built\n"
           "                    with 'commhint cc' (the trace then has MPI events only)\n"
           "      --mpiexec CMD launcher to use, its own arguments after it, split at blanks\n"
           "                    (\"mpiexec -f hosts\"; default: $MPIEXEC or mpiexec)\n"
           "The exit status is the program's (mpiexec's).\n");
}

/* True if name is a file a trace directory holds. */
static bool is_trace_file(const char *name)
{
    size_t n = strlen(name);
    if (!strcmp(name, CHT_META_FILE) || !strncmp(name, CHT_META_FILE ".", strlen(CHT_META_FILE) + 1))
        return true;
    if (n > 5 && !strcmp(name + n - 5, ".chtr") &&
        (!strncmp(name, "rank-", 5) || !strncmp(name, "pending-", 8)))
        return true;
    return false;
}

/* Empties a previous trace in dir, or creates dir.  Refuses a directory
 * holding other files. */
static int prepare_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (errno != ENOENT)
            return cli_error("cannot use the trace directory: dir=%s reason=%s", dir, strerror(errno));
        if (mkdir(dir, 0777) != 0)
            return cli_error("cannot create the trace directory: dir=%s reason=%s", dir, strerror(errno));
        return CLI_OK;
    }
    if (!S_ISDIR(st.st_mode))
        return cli_error("the trace directory exists and is not a directory: dir=%s", dir);
    DIR *d = opendir(dir);
    if (!d)
        return cli_error("cannot read the trace directory: dir=%s reason=%s", dir, strerror(errno));
    struct dirent *e;
    int rc = CLI_OK;
    while ((e = readdir(d)) && rc == CLI_OK) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (!is_trace_file(e->d_name))
            rc = cli_error("refusing to overwrite a directory that is not a commhint trace: dir=%s file=%s",
                           dir, e->d_name);
    }
    if (rc == CLI_OK) {
        rewinddir(d);
        char path[PATH_MAX];
        while ((e = readdir(d))) {
            if (!is_trace_file(e->d_name))
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (unlink(path) != 0 && errno != ENOENT) {
                rc = cli_error("cannot remove the previous trace: file=%s reason=%s", path, strerror(errno));
                break;
            }
        }
    }
    closedir(d);
    return rc;
}

/* One warning, with the fix, when the run recorded nothing useful: no
 * trace at all (the program was not built with commhint cc), or no MPI
 * call on rank 0 (its MPI calls went straight to the MPI library:
 * -lcommhint after it on the link line). */
static void check_recorded(const char *dir)
{
    struct trace *t = NULL;
    struct trace_cursor *c = NULL;
    struct trace_err err;
    const struct trace_event *ev;
    uint64_t n = 0;
    bool mpi = false;
    int rc = 0;

    if (trace_open(dir, &t, &err) < 0) {
        cli_warn("the run recorded no trace: build the program with 'commhint cc' (or trace its MPI calls only "
                 "with 'commhint run --preload'): dir=%s",
                 dir);
        return;
    }
    if (trace_has_rank(t, 0) && trace_cursor_open(t, 0, 0, &c, &err) == 0) {
        /* MPI_Init comes first: a short look suffices */
        while (!mpi && n++ < 1000000 && (rc = trace_cursor_next(c, &ev)) > 0)
            mpi = ev->kind == TRACE_EV_MPI;
        trace_cursor_close(c);
        /* a stream cut short ends with an error: the rank was killed before
         * its records reached the disk, which says nothing of the link */
        if (!mpi && rc >= 0)
            cli_warn("rank 0 recorded no MPI call: its MPI calls did not go through the commhint runtime; link "
                     "with 'commhint cc', which puts -lcommhint before the MPI library (or use --preload): dir=%s",
                     dir);
    }
    trace_close(t);
}

int cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"np", required_argument, NULL, 'n'},
        {"output", required_argument, NULL, 'o'},
        {"preload", no_argument, NULL, 'p'},
        {"mpiexec", required_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    unsigned long np = 0;
    const char *out = NULL, *mpiexec = getenv("MPIEXEC");
    bool preload = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:n:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (!cli_parse_uint(optarg, &np) || np == 0 || np > 1000000)
                return cli_usage_error("run", "-n needs a positive number of ranks, not '%s'", optarg);
            break;
        case 'o': out = optarg; break;
        case 'p': preload = true; break;
        case 'm': mpiexec = optarg; break;
        case 'h': run_help(); return CLI_OK;
        case ':':
            return cli_usage_error("run", "option '%s' needs a value", argv[optind - 1]);
        default:
            return cli_usage_error("run", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (np == 0)
        return cli_usage_error("run", "missing -n N, the number of ranks");
    if (optind >= argc)
        return cli_usage_error("run", "missing the program to run after '--'");
    char **prog = argv + optind;
    if (!strchr(prog[0], '/')) {
        /* mpiexec looks the program up in PATH; so do we, only to check it. */
    } else if (access(prog[0], X_OK) != 0) {
        return cli_error("cannot run the program: file=%s reason=%s", prog[0], strerror(errno));
    }
    if (!mpiexec || !*mpiexec)
        mpiexec = "mpiexec";

    char defdir[PATH_MAX];
    if (!out) {
        const char *b = strrchr(prog[0], '/');
        snprintf(defdir, sizeof defdir, "commhint-%s.trace", b ? b + 1 : prog[0]);
        out = defdir;
    }
    int rc = prepare_dir(out);
    if (rc != CLI_OK)
        return rc;
    char absdir[PATH_MAX];
    if (!realpath(out, absdir))
        return cli_error("cannot resolve the trace directory: dir=%s reason=%s", out, strerror(errno));
    setenv("COMMHINT_TRACE_DIR", absdir, 1);
    if (preload) {
        char lib[PATH_MAX + 32];
        snprintf(lib, sizeof lib, "%s/libcommhint.so", cli_libdir());
        if (access(lib, R_OK) != 0)
            return cli_error("the trace runtime is missing: file=%s (run 'make')", lib);
        const char *old = getenv("LD_PRELOAD");
        char val[2 * PATH_MAX + 40];
        snprintf(val, sizeof val, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
        setenv("LD_PRELOAD", val, 1);
    }

    char npbuf[32];
    snprintf(npbuf, sizeof npbuf, "%lu", np);
    int nprog = argc - optind;
    /* the launcher may come with its own arguments ("mpiexec -f hosts"):
     * words split at blanks */
    char *launcher = strdup(mpiexec);
    size_t nl = 0;
    char **nargv = launcher ? calloc(strlen(mpiexec) / 2 + 2 + (size_t)nprog + 3, sizeof *nargv) : NULL;
    if (!nargv) {
        free(launcher);
        return cli_error("out of memory");
    }
    for (char *save = NULL, *w = strtok_r(launcher, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        nargv[nl++] = w;
    if (!nl) {
        free(nargv);
        free(launcher);
        return cli_usage_error("run", "--mpiexec needs a command");
    }
    nargv[nl++] = "-n";
    nargv[nl++] = npbuf;
    for (int i = 0; i < nprog; i++)
        nargv[nl++] = prog[i];
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        free(nargv);
        free(launcher);
        return cli_error("cannot start mpiexec: reason=%s", strerror(errno));
    }
    if (pid == 0) {
        execvp(nargv[0], nargv);
        fprintf(stderr, "commhint: error: cannot run the launcher: launcher=%s reason=%s\n", nargv[0],
                strerror(errno));
        _exit(127);
    }
    free(nargv);
    free(launcher);
    /* Ctrl-C reaches the whole foreground group; we only wait for mpiexec. */
    signal(SIGINT, SIG_IGN);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (status == 127)
        return CLI_ERROR;
    if (status != 0)
        cli_warn("the program exited with status %d; the trace may be cut short: dir=%s", status, absdir);
    check_recorded(absdir);
    printf("%s\n", absdir);
    return status;
}
