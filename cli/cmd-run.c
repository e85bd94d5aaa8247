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

static void run_help(void)
{
    printf("usage: commhint run -n N [-o DIR] [--preload] [--mpiexec CMD] -- PROGRAM [ARGS...]\n\n"
           "Runs PROGRAM on N ranks with mpiexec and tracing on, then prints the trace directory.\n"
           "  -n, --np N        number of ranks (required)\n"
           "  -o, --output DIR  trace directory (default: commhint-<program>.trace); a previous\n"
           "                    trace there is replaced\n"
           "      --preload     load the trace runtime with LD_PRELOAD, for programs not built\n"
           "                    with 'commhint cc' (the trace then has MPI events only)\n"
           "      --mpiexec CMD launcher to use (default: $MPIEXEC or mpiexec)\n"
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
    char **nargv = calloc((size_t)nprog + 4, sizeof *nargv);
    if (!nargv)
        return cli_error("out of memory");
    nargv[0] = (char *)mpiexec;
    nargv[1] = "-n";
    nargv[2] = npbuf;
    for (int i = 0; i < nprog; i++)
        nargv[3 + i] = prog[i];
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        free(nargv);
        return cli_error("cannot start mpiexec: reason=%s", strerror(errno));
    }
    if (pid == 0) {
        execvp(mpiexec, nargv);
        fprintf(stderr, "commhint: error: cannot run the launcher: launcher=%s reason=%s\n", mpiexec,
                strerror(errno));
        _exit(127);
    }
    free(nargv);
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
    printf("%s\n", absdir);
    return status;
}
