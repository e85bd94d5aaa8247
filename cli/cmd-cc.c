/* cmd-cc.c - `commhint cc <compiler> [args...]`: compile and link a C
 * program with the commhint pass and the trace runtime.
 *
 * The compiler is clang of the LLVM version the pass was built for, or an
 * MPI wrapper (mpicc) that is made to use it (MPICH's MPICH_CC, Open MPI's
 * OMPI_CC).  We add the pass plugin, line tables if no -g was given, flags
 * that keep loops recognisable (no unrolling or vectorisation, unless
 * COMMHINT_KEEP_LOOP_OPTS=1), and when linking, the runtime library with an
 * rpath, placed before the MPI library so its PMPI wrappers take effect.
 * Then we exec the compiler, so its exit status is ours. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static void cc_help(void)
{
    printf("usage: commhint cc <compiler> [compiler args...]\n\n"
           "Compiles and links with the commhint pass and trace runtime, e.g.\n"
           "  commhint cc mpicc -g -O2 -o app app.c\n"
           "  commhint cc %s -g -O2 -o app app.c $(pkg-config --cflags --libs mpich)\n\n"
           "<compiler> is clang %d or an MPI compiler wrapper (mpicc), which is made to use\n"
           "$CLANG (default %s).  Added flags: -fpass-plugin=<libdir>/commhint-pass.so,\n"
           "-gline-tables-only when no -g option is given, -fno-unroll-loops -fno-vectorize\n"
           "-fno-slp-vectorize (so loops in the trace are the source's loops; set\n"
           "COMMHINT_KEEP_LOOP_OPTS=1 to keep them), and when linking -lcommhint with an rpath.\n"
           "COMMHINT_FILTER / COMMHINT_FILTER_FILE select what is instrumented (see README).\n",
           COMMHINT_DEFAULT_CLANG, COMMHINT_LLVM_MAJOR, COMMHINT_DEFAULT_CLANG);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Major version from `<clang> --version`, or -1 if it does not run or is
 * not clang. */
static int clang_major(const char *clang)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        freopen("/dev/null", "w", stderr);
        execlp(clang, clang, "--version", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    char buf[512];
    size_t n = 0;
    ssize_t r;
    while (n < sizeof buf - 1 && (r = read(fds[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    const char *v = strstr(buf, "clang version ");
    if (!v)
        return -1;
    return atoi(v + strlen("clang version "));
}

static int is_mpi_wrapper(const char *b)
{
    return !strncmp(b, "mpicc", 5) || !strncmp(b, "mpiCC", 5) || !strncmp(b, "mpicxx", 6) ||
           !strncmp(b, "mpiclang", 8);
}

int cmd_cc(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error("cc", "missing the compiler to run, e.g. 'commhint cc mpicc -O2 -o app app.c'");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        cc_help();
        return CLI_OK;
    }
    const char *compiler = argv[1];
    const char *b = base_name(compiler);
    const char *clang = getenv("CLANG");
    if (!clang || !*clang)
        clang = COMMHINT_DEFAULT_CLANG;

    const char *check = compiler;
    if (is_mpi_wrapper(b)) {
        /* MPICH and Open MPI wrappers take the underlying compiler from these. */
        setenv("MPICH_CC", clang, 1);
        setenv("OMPI_CC", clang, 1);
        check = clang;
    } else if (strncmp(b, "clang", 5) != 0) {
        return cli_error("commhint cc needs clang %d or an MPI wrapper such as mpicc: compiler=%s",
                         COMMHINT_LLVM_MAJOR, compiler);
    }
    int major = clang_major(check);
    if (major < 0)
        return cli_error("cannot run the compiler: compiler=%s (install it with 'make deps' or set CLANG)", check);
    if (major != COMMHINT_LLVM_MAJOR)
        return cli_error("the commhint pass was built for LLVM %d but %s is clang %d: use clang-%d "
                         "(or rebuild commhint with LLVM_VERSION=%d)",
                         COMMHINT_LLVM_MAJOR, check, major, COMMHINT_LLVM_MAJOR, major);

    const char *libdir = cli_libdir();
    static char plugin[4200], libflag[4200], rpath[4200];
    snprintf(plugin, sizeof plugin, "-fpass-plugin=%s/commhint-pass.so", libdir);
    snprintf(libflag, sizeof libflag, "-L%s", libdir);
    snprintf(rpath, sizeof rpath, "-Wl,-rpath,%s", libdir);
    if (access(plugin + strlen("-fpass-plugin="), R_OK) != 0)
        return cli_error("the commhint pass plugin is missing: file=%s (run 'make')",
                         plugin + strlen("-fpass-plugin="));

    bool link = true, has_g = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") || !strcmp(a, "-M") ||
            !strcmp(a, "-MM") || !strcmp(a, "-fsyntax-only"))
            link = false;
        if (!strncmp(a, "-g", 2))
            has_g = true;
    }
    const char *keep = getenv("COMMHINT_KEEP_LOOP_OPTS");
    bool loop_flags = !(keep && !strcmp(keep, "1"));

    char **nargv = calloc((size_t)argc + 16, sizeof *nargv);
    if (!nargv)
        return cli_error("out of memory");
    int n = 0;
    nargv[n++] = (char *)compiler;
    nargv[n++] = plugin;
    if (!has_g)
        nargv[n++] = "-gline-tables-only";
    if (loop_flags) {
        nargv[n++] = "-fno-unroll-loops";
        nargv[n++] = "-fno-vectorize";
        nargv[n++] = "-fno-slp-vectorize";
    }
    for (int i = 2; i < argc; i++)
        nargv[n++] = argv[i];
    if (link) {
        nargv[n++] = libflag;
        nargv[n++] = rpath;
        nargv[n++] = "-lcommhint";
    }
    nargv[n] = NULL;
    if (getenv("COMMHINT_VERBOSE")) {
        for (int i = 0; i < n; i++)
            fprintf(stderr, "%s%s", i ? " " : "", nargv[i]);
        fputc('\n', stderr);
    }
    execvp(compiler, nargv);
    int e = errno;
    free(nargv);
    return cli_error("cannot run the compiler: compiler=%s reason=%s", compiler, strerror(e));
}
