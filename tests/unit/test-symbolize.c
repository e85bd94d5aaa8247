/* test-symbolize.c - unit tests of the reader's symbolisation: real binaries
 * built from tests/data/symbolize/sym.c by clang (-g at -O0, -O2, -O2 with
 * -ffunction-sections so the CU has DW_AT_ranges, and DWARF 4) are run; the
 * return addresses they print must map back to the lines marked LINE_* in
 * the source, with the inlined call chain at -O2.
 *
 * CLANG overrides the compiler (default clang-16).  The source is found
 * from this file's __FILE__ (the tests run from the top of the tree), or
 * from COMMHINT_SRCDIR.
 */
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "helpers/tracegen.h"
#include "reader/reader-private.h" /* rd_elf_build_id */
#include "trace-reader.h"

#define ASSERT_HAS(msg, sub)                                                                   \
    do {                                                                                       \
        if (!strstr((msg), (sub)))                                                             \
            fail_msg("message \"%s\" lacks \"%s\"", (msg), (sub));                             \
    } while (0)

static char src[PATH_MAX];
static char *dir;
static unsigned line_inner, line_outer, line_main;
static unsigned col_inner_call, col_outer_call, col_main_call;

/* A built and run variant of sym.c. */
struct bin {
    char path[PATH_MAX];
    uint64_t base, start, end; /* load bias and PT_LOAD extent of the run */
    uint64_t ret_main, ret_outer; /* return addresses of probe() in main and inner */
};

static int find_source(void)
{
    const char *env = getenv("COMMHINT_SRCDIR");
    char guess[PATH_MAX];

    if (env)
        snprintf(guess, sizeof(guess), "%s/tests/data/symbolize/sym.c", env);
    else {
        const char *slash = strrchr(__FILE__, '/');
        snprintf(guess, sizeof(guess), "%.*s/../data/symbolize/sym.c",
                 slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
    }
    if (!realpath(guess, src)) {
        fprintf(stderr, "cannot find %s: run from the top of the tree or set COMMHINT_SRCDIR\n",
                guess);
        return -1;
    }
    return 0;
}

/* Line and column (1-based) of the call `fn(` on the line holding `marker`. */
static void find_marker(const char *marker, const char *fn, unsigned *line, unsigned *col)
{
    FILE *fp = fopen(src, "r");
    char buf[512];
    unsigned n = 0;

    assert_non_null(fp);
    *line = 0;
    while (fgets(buf, sizeof(buf), fp)) {
        n++;
        if (strstr(buf, marker)) {
            *line = n;
            *col = (unsigned)(strstr(buf, fn) - buf) + 1;
            break;
        }
    }
    fclose(fp);
    if (!*line)
        fail_msg("marker %s not found in %s", marker, src);
}

static int setup_group(void **state)
{
    (void)state;
    if (find_source() < 0)
        return -1;
    find_marker("LINE_INNER", "probe(", &line_inner, &col_inner_call);
    find_marker("LINE_OUTER", "inner(", &line_outer, &col_outer_call);
    find_marker("LINE_MAIN", "probe(", &line_main, &col_main_call);
    dir = tg_tmpdir();
    return 0;
}

static int teardown_group(void **state)
{
    (void)state;
    if (dir)
        tg_rmdir(dir);
    free(dir);
    return 0;
}

static void build(struct bin *b, const char *name, const char *flags)
{
    const char *cc = getenv("CLANG") ? getenv("CLANG") : "clang-16";
    char cmd[3 * PATH_MAX];
    unsigned long v[5];
    FILE *p;

    snprintf(b->path, sizeof(b->path), "%s/%s", dir, name);
    snprintf(cmd, sizeof(cmd), "%s %s -o '%s' '%s'", cc, flags, b->path, src);
    if (system(cmd) != 0)
        fail_msg("cannot build: %s", cmd);
    p = popen(b->path, "r");
    assert_non_null(p);
    if (fscanf(p, "%lx %lx %lx %lx %lx", &v[0], &v[1], &v[2], &v[3], &v[4]) != 5)
        fail_msg("%s printed no addresses", b->path);
    assert_int_equal(pclose(p), 0);
    b->base = v[0];
    b->start = v[1];
    b->end = v[2];
    b->ret_main = v[3];
    b->ret_outer = v[4];
}

static void expect_frame(const struct trace_srcframe *f, unsigned line, unsigned col,
                         const char *func)
{
    assert_string_equal(f->file, src);
    assert_int_equal(f->line, line);
    if (col)
        assert_int_equal(f->col, col);
    assert_string_equal(f->func, func);
}

/* Symbolises both return addresses of a variant, with and without a cache. */
static void check_bin(const struct bin *b, bool inlined)
{
    struct trace_srcloc loc;
    struct trace_err err = { "" };
    int pass, ret;

    for (pass = 0; pass < 2; pass++) {
        /* pass 0: no trace (no cache); pass 1: the cache of a trace is not
         * available without a trace directory, so use t == NULL twice to
         * check that the per-thread string pool is recycled safely */
        ret = trace_symbolize_file(NULL, b->path, b->ret_main - b->base - 1, &loc, &err);
        if (ret != 1)
            fail_msg("%s: status %d: %s", b->path, ret, err.msg);
        assert_int_equal(loc.nframes, 1);
        expect_frame(&loc.frames[0], line_main, col_main_call, "main");

        ret = trace_symbolize_file(NULL, b->path, b->ret_outer - b->base - 1, &loc, &err);
        if (ret != 1)
            fail_msg("%s: status %d: %s", b->path, ret, err.msg);
        if (!inlined) {
            assert_int_equal(loc.nframes, 1);
            expect_frame(&loc.frames[0], line_inner, col_inner_call, "inner");
        } else {
            assert_int_equal(loc.nframes, 2);
            expect_frame(&loc.frames[0], line_inner, col_inner_call, "inner");
            expect_frame(&loc.frames[1], line_outer, col_outer_call, "outer");
        }
    }
}

static void test_O0(void **state)
{
    struct bin b;
    (void)state;

    build(&b, "sym-O0", "-g -O0");
    check_bin(&b, false);
}

static void test_O2_inlined(void **state)
{
    struct bin b;
    (void)state;

    build(&b, "sym-O2", "-g -O2");
    check_bin(&b, true);
}

static void test_O2_function_sections(void **state)
{
    struct bin b;
    (void)state;

    /* the CU's code is in several sections: DW_AT_ranges (rnglists) */
    build(&b, "sym-O2fs", "-g -O2 -ffunction-sections");
    check_bin(&b, true);
}

static void test_dwarf4(void **state)
{
    struct bin b;
    (void)state;

    build(&b, "sym-O2d4", "-gdwarf-4 -O2 -ffunction-sections");
    check_bin(&b, true);
}

/* No line information, no DWARF, no file. */
static void test_misses(void **state)
{
    struct bin b;
    struct trace_srcloc loc;
    struct trace_err err = { "" };
    char path[PATH_MAX + 16];
    (void)state;

    build(&b, "sym-nodebug", "-O2");
    assert_int_equal(trace_symbolize_file(NULL, b.path, b.ret_main - b.base - 1, &loc, &err), 0);
    assert_int_equal(loc.nframes, 0);
    ASSERT_HAS(err.msg, "binary has no DWARF debug info: file=");

    build(&b, "sym-O0b", "-g -O0");
    assert_int_equal(trace_symbolize_file(NULL, b.path, 0x10, &loc, &err), 0);
    assert_int_equal(loc.nframes, 0);
    ASSERT_HAS(err.msg, "address has no compilation unit: file=");
    ASSERT_HAS(err.msg, "pc=0x10");

    snprintf(path, sizeof(path), "%s/missing", dir);
    assert_int_equal(trace_symbolize_file(NULL, path, 0x10, &loc, &err), TRACE_ERR_NOT_FOUND);
    ASSERT_HAS(err.msg, "cannot open binary: file=");
}

/* Through a rank stream's module record, cached in the trace. */
static void test_cursor_symbolize(void **state)
{
    struct bin b;
    struct trace *t;
    struct trace_cursor *c;
    const struct trace_event *ev;
    struct trace_srcloc loc;
    struct trace_err err = { "" };
    struct tg_file *f;
    char tdir[PATH_MAX + 16], name[64];
    uint8_t bid[64], wrong[64];
    int n, i, ret;
    (void)state;

    build(&b, "sym-cur", "-g -O2");
    n = rd_elf_build_id(b.path, bid, sizeof(bid));
    assert_true(n > 0); /* Debian's clang links with --build-id */
    memcpy(wrong, bid, (size_t)n);
    wrong[0] ^= 0xff;

    snprintf(tdir, sizeof(tdir), "%s/trace", dir);
    assert_int_equal(system(NULL) != 0, 1);
    {
        char cmd[PATH_MAX + 32];
        snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", tdir);
        assert_int_equal(system(cmd), 0);
    }
    f = tg_create(tg_path(tdir, CHT_META_FILE), CHT_MAGIC_META, 7, -1, 2);
    tg_end(f, 0, 1, 0);
    tg_close(f);
    for (i = 0; i < 2; i++) {
        snprintf(name, sizeof(name), CHT_RANK_FILE_FMT, i);
        f = tg_create(tg_path(tdir, name), CHT_MAGIC_RANK, 7, i, 2);
        tg_module(f, b.base, b.start, b.end, i == 0 ? bid : wrong, (uint32_t)n, b.path);
        tg_end(f, 0, 1, 0);
        tg_close(f);
    }
    if (trace_open(tdir, &t, &err))
        fail_msg("%s", err.msg);

    if (trace_cursor_open(t, 0, 0, &c, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(trace_cursor_next(c, &ev), 0);
    for (i = 0; i < 2; i++) { /* the second lookup comes from the cache */
        ret = trace_cursor_symbolize(c, b.ret_outer, &loc, &err);
        if (ret != 1)
            fail_msg("status %d: %s", ret, err.msg);
        assert_int_equal(loc.nframes, 2);
        expect_frame(&loc.frames[0], line_inner, col_inner_call, "inner");
        expect_frame(&loc.frames[1], line_outer, col_outer_call, "outer");
    }
    assert_int_equal(trace_cursor_symbolize(c, b.ret_main, &loc, &err), 1);
    expect_frame(&loc.frames[0], line_main, col_main_call, "main");
    assert_int_equal(trace_cursor_symbolize(c, b.end + 100, &loc, &err), TRACE_ERR_NOT_FOUND);
    ASSERT_HAS(err.msg, "address is in no recorded module: file=");
    trace_cursor_close(c);

    /* the strings stay valid after the cursor is closed */
    assert_string_equal(loc.frames[0].func, "main");

    /* rank 1 recorded another build id: still symbolised, but flagged */
    if (trace_cursor_open(t, 1, 0, &c, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(trace_cursor_next(c, &ev), 0);
    assert_int_equal(trace_cursor_symbolize(c, b.ret_outer, &loc, &err), TRACE_ERR_MISMATCH);
    ASSERT_HAS(err.msg, "the binary changed since the run: file=");
    ASSERT_HAS(err.msg, "recorded build_id=");
    assert_int_equal(loc.nframes, 2);
    expect_frame(&loc.frames[0], line_inner, col_inner_call, "inner");
    trace_cursor_close(c);

    /* a trace-level lookup of a file uses the same cache */
    assert_int_equal(trace_symbolize_file(t, b.path, b.ret_main - b.base - 1, &loc, &err), 1);
    expect_frame(&loc.frames[0], line_main, col_main_call, "main");
    trace_close(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_O0),
        cmocka_unit_test(test_O2_inlined),
        cmocka_unit_test(test_O2_function_sections),
        cmocka_unit_test(test_dwarf4),
        cmocka_unit_test(test_misses),
        cmocka_unit_test(test_cursor_symbolize),
    };

    return cmocka_run_group_tests(tests, setup_group, teardown_group);
}
