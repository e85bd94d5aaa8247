/* cmd-cc.c - `commhint cc <compiler> [args...]`: compile and link a C
 * program with the commhint pass and the trace runtime.
 *
 * The compiler is clang of the LLVM version the pass was built for, or an
 * MPI wrapper (mpicc, mpicxx) that is made to use it (MPICH's MPICH_CC and
 * MPICH_CXX, Open MPI's OMPI_CC and OMPI_CXX).  We add the pass plugin, line
 * tables if no -g was given, flags that keep loops recognisable (no
 * unrolling or vectorisation, unless COMMHINT_KEEP_LOOP_OPTS=1), and when
 * linking, the runtime library with an rpath, placed before the MPI library
 * so its PMPI wrappers take effect.  Then we exec the compiler, so its exit
 * status is ours.
 *
 * The loop flags go after the user's arguments: clang takes the last of
 * -O<n>, -fvectorize and -fno-vectorize (an -O2 or -O3 after -fno-vectorize
 * turns the vectoriser back on), and the last of -funroll-loops and
 * -fno-unroll-loops.  MPI wrappers put their own flags before the user's
 * arguments and only -I, -L and -l after them, so after the user's is last.
 * What we append goes before a `--` (after which clang takes every argument
 * for an input file). */
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
           "<compiler> is clang %d or an MPI compiler wrapper (mpicc; mpicxx), which is made to\n"
           "use $CLANG (default %s; for C++ wrappers the clang++ of the same name).\n"
           "Added flags: -fpass-plugin=<libdir>/commhint-pass.so, -gline-tables-only when no\n"
           "-g option is given, and when linking -lcommhint with an rpath.\n\n"
           "Loops: -fno-unroll-loops -fno-vectorize -fno-slp-vectorize are added after your\n"
           "arguments, so they win over -O2, -O3, -Ofast and over -funroll-loops, -fvectorize\n"
           "or -fslp-vectorize of your own (those get a warning): the loops in the trace are\n"
           "the source's loops.  Set COMMHINT_KEEP_LOOP_OPTS=1 to add none of them: your -O\n"
           "level and flags then decide, and the trace is of the unrolled, vectorised code.\n\n"
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

enum wrapper { NOT_WRAPPER, C_WRAPPER, CXX_WRAPPER };

static enum wrapper mpi_wrapper(const char *b)
{
    if (!strncmp(b, "mpicxx", 6) || !strncmp(b, "mpiCC", 5) || !strncmp(b, "mpic++", 6) ||
        !strncmp(b, "mpiclang++", 10))
        return CXX_WRAPPER;
    if (!strncmp(b, "mpicc", 5) || !strncmp(b, "mpiclang", 8))
        return C_WRAPPER;
    return NOT_WRAPPER;
}

/* The C++ driver that goes with the clang driver `clang`: "clang" in its
 * base name becomes "clang++" (clang-16 -> clang++-16,
 * /usr/lib/llvm-16/bin/clang -> .../clang++); unchanged if it has no
 * "clang" or is clang++ already.  Written to buf. */
static const char *clangxx_for(const char *clang, char *buf, size_t size)
{
    const char *b = base_name(clang);
    const char *c = strstr(b, "clang");
    if (!c || !strncmp(c, "clang++", 7) || strlen(clang) + 3 >= size)
        return clang;
    size_t pre = (size_t)(c - clang) + strlen("clang");
    snprintf(buf, size, "%.*s++%s", (int)pre, clang, clang + pre);
    return buf;
}

/* Options of clang whose value is the next argument, among those whose
 * value could be "--": the value is not the end of the options. */
static bool takes_separate_value(const char *a)
{
    static const char *const opts[] = {"-o", "-x", "-Xclang", "-Xlinker", "-Xassembler", "-Xpreprocessor",
                                       "-mllvm", "-MF", "-MT", "-MQ", "-include", "-imacros", NULL};
    for (int i = 0; opts[i]; i++)
        if (!strcmp(a, opts[i]))
            return true;
    return false;
}

/* The user's flags that turn unrolling or vectorisation on (ours win over
 * them; clang's spellings and their GCC aliases). */
static bool turns_loop_opts_on(const char *a)
{
    return !strcmp(a, "-funroll-loops") || !strcmp(a, "-fvectorize") || !strcmp(a, "-ftree-vectorize") ||
           !strcmp(a, "-fslp-vectorize") || !strcmp(a, "-ftree-slp-vectorize");
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
    static char clangxx[4200];
    enum wrapper w = mpi_wrapper(b);
    if (w == C_WRAPPER) {
        /* MPICH and Open MPI wrappers take the underlying compiler from these. */
        setenv("MPICH_CC", clang, 1);
        setenv("OMPI_CC", clang, 1);
        check = clang;
    } else if (w == CXX_WRAPPER) {
        check = clangxx_for(clang, clangxx, sizeof clangxx);
        setenv("MPICH_CXX", check, 1);
        setenv("OMPI_CXX", check, 1);
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

    const char *keep = getenv("COMMHINT_KEEP_LOOP_OPTS");
    bool loop_flags = !(keep && !strcmp(keep, "1"));

    /* The options end at a `--` (the rest are inputs); ours go before it.
     * The runtime goes before the user's own MPI library if there is one
     * (`$(pkg-config --libs mpich)`), else at the end (a wrapper adds its
     * MPI library after all arguments). */
    int end = argc, mpi_lib = -1;
    bool link = true, has_g = false;
    char overridden[512] = "";
    size_t olen = 0;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            end = i;
            break;
        }
        if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") || !strcmp(a, "-M") ||
            !strcmp(a, "-MM") || !strcmp(a, "-fsyntax-only"))
            link = false;
        if (!strncmp(a, "-g", 2))
            has_g = true;
        if (mpi_lib < 0 && (!strncmp(a, "-lmpi", 5) || (a[0] != '-' && !strncmp(base_name(a), "libmpi", 6))))
            mpi_lib = i;
        if (loop_flags && turns_loop_opts_on(a) && olen + strlen(a) + 2 < sizeof overridden)
            olen += (size_t)snprintf(overridden + olen, sizeof overridden - olen, "%s%s", olen ? "," : "", a);
        if (takes_separate_value(a))
            i++;
    }
    if (olen)
        cli_warn("your flags that unroll or vectorise loops are overridden, so that the trace's loops are "
                 "the source's: flags=%s (set COMMHINT_KEEP_LOOP_OPTS=1 to keep them)",
                 overridden);

    char **nargv = calloc((size_t)argc + 16, sizeof *nargv);
    if (!nargv)
        return cli_error("out of memory");
    int n = 0;
    nargv[n++] = (char *)compiler;
    nargv[n++] = plugin;
    if (!has_g)
        nargv[n++] = "-gline-tables-only";
    if (!link || mpi_lib < 0)
        mpi_lib = end;
    for (int i = 2; i <= end; i++) {
        if (link && i == mpi_lib) {
            nargv[n++] = libflag;
            nargv[n++] = rpath;
            nargv[n++] = "-lcommhint";
        }
        if (i == end)
            break;
        nargv[n++] = argv[i];
    }
    if (loop_flags) {
        nargv[n++] = "-fno-unroll-loops";
        nargv[n++] = "-fno-vectorize";
        nargv[n++] = "-fno-slp-vectorize";
    }
    for (int i = end; i < argc; i++)
        nargv[n++] = argv[i];
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
