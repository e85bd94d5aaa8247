/* test-gui-models.c - unit tests of the viewer's models, without a display:
 * the hint list's filtering and sorting (gui/hint-model.c), the placement
 * of line marks (gui/mark-model.c), the source path search
 * (gui/source-path.c) and the document loader on small synthetic traces
 * (gui/document.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "document.h"
#include "helpers/tracegen.h"
#include "hint-model.h"
#include "mark-model.h"
#include "source-path.h"

/* ---- fabricated hints ------------------------------------------------------------ */

static int r0[] = {0}, r02[] = {0, 2}, r13[] = {1, 3}, r0123[] = {0, 1, 2, 3}, r2[] = {2};

static struct search_hint hint(int kind, uint16_t call, const char *file, uint32_t line, uint32_t col,
                               uint64_t saving, int *ranks, int nranks)
{
    struct search_hint h;
    memset(&h, 0, sizeof h);
    h.kind = kind;
    h.call = call;
    h.file = file;
    h.func = "main";
    h.line = line;
    h.col = col;
    h.saving_ns = saving;
    h.ranks = ranks;
    h.nranks = nranks;
    h.root = -1;
    return h;
}

/* Six hints ranked as a report ranks them: by saving, largest first. */
static struct search_hint hints[6];

static int setup_hints(void **state)
{
    (void)state;
    hints[0] = hint(SEARCH_HINT_OVERLAP, CHT_MPI_RECV, "/src/b.c", 84, 13, 9000000, r02, 2);
    hints[1] = hint(SEARCH_HINT_AGGREGATE, CHT_MPI_SEND, "/src/a.c", 40, 5, 500000, r13, 2);
    hints[2] = hint(SEARCH_HINT_OVERLAP, CHT_MPI_SEND, "/src/a.c", 12, 3, 500000, r0, 1);
    hints[3] = hint(SEARCH_HINT_COLLECTIVE, CHT_MPI_SEND, "/src/b.c", 20, 9, 40000, r0123, 4);
    hints[4] = hint(SEARCH_HINT_OVERLAP, CHT_MPI_ALLREDUCE, "/src/a.c", 12, 1, 1000, r2, 1);
    hints[5] = hint(SEARCH_HINT_AGGREGATE, CHT_MPI_SEND, NULL, 0, 0, 0, NULL, 0);
    return 0;
}

static uint32_t rows(const struct cv_hint_filter *f, int key, bool desc, uint32_t *idx)
{
    return cv_hint_model_rows(hints, 6, f, key, desc, idx);
}

#define ASSERT_ROWS(got, n, ...)                                                                             \
    do {                                                                                                     \
        const uint32_t want_[] = {__VA_ARGS__};                                                              \
        assert_int_equal((n), sizeof want_ / sizeof want_[0]);                                               \
        for (size_t k_ = 0; k_ < sizeof want_ / sizeof want_[0]; k_++)                                       \
            if ((got)[k_] != want_[k_])                                                                      \
                fail_msg("row %zu is hint %u, expected hint %u", k_, (got)[k_], want_[k_]);                  \
    } while (0)

static void test_filter_none(void **state)
{
    uint32_t idx[6];
    (void)state;
    uint32_t n = rows(NULL, CV_SORT_ORDER, false, idx);
    ASSERT_ROWS(idx, n, 0, 1, 2, 3, 4, 5);
    struct cv_hint_filter all = {.kinds = 0, .rank = -1, .min_saving_ns = 0};
    n = rows(&all, CV_SORT_ORDER, false, idx);
    ASSERT_ROWS(idx, n, 0, 1, 2, 3, 4, 5);
}

static void test_filter_kind(void **state)
{
    uint32_t idx[6];
    (void)state;
    struct cv_hint_filter f = {.kinds = 1u << SEARCH_HINT_OVERLAP, .rank = -1};
    uint32_t n = rows(&f, CV_SORT_ORDER, false, idx);
    ASSERT_ROWS(idx, n, 0, 2, 4);
    f.kinds = 1u << SEARCH_HINT_AGGREGATE;
    n = rows(&f, CV_SORT_ORDER, false, idx);
    ASSERT_ROWS(idx, n, 1, 5);
    f.kinds = (1u << SEARCH_HINT_COLLECTIVE) | (1u << SEARCH_HINT_AGGREGATE);
    n = rows(&f, CV_SORT_ORDER, false, idx);
    ASSERT_ROWS(idx, n, 1, 3, 5);
}

static void test_filter_rank(void **state)
{
    uint32_t idx[6];
    (void)state;
    struct cv_hint_filter f = {.rank = 0};
    uint32_t n = rows(&f, CV_SORT_ORDER, false, idx);
    ASSERT_ROWS(idx, n, 0, 2, 3);
    f.rank = 3;
    n = rows(&f, CV_SORT_ORDER, false, idx);
    ASSERT_ROWS(idx, n, 1, 3);
    f.rank = 7; /* a rank no hint holds on */
    n = rows(&f, CV_SORT_ORDER, false, idx);
    assert_int_equal(n, 0);
    /* a hint without ranks never matches a rank filter */
    assert_false(cv_hint_filter_match(&hints[5], &(struct cv_hint_filter){.rank = 0}));
}

static void test_filter_min_saving(void **state)
{
    uint32_t idx[6];
    (void)state;
    struct cv_hint_filter f = {.rank = -1, .min_saving_ns = 500000};
    uint32_t n = rows(&f, CV_SORT_ORDER, false, idx);
    ASSERT_ROWS(idx, n, 0, 1, 2); /* at least: 500 us itself passes */
    f.min_saving_ns = 500001;
    n = rows(&f, CV_SORT_ORDER, false, idx);
    ASSERT_ROWS(idx, n, 0);
    /* all three filters together */
    f = (struct cv_hint_filter){.kinds = 1u << SEARCH_HINT_OVERLAP, .rank = 0, .min_saving_ns = 1000};
    n = rows(&f, CV_SORT_ORDER, false, idx);
    ASSERT_ROWS(idx, n, 0, 2);
    assert_false(cv_hint_filter_match(NULL, &f));
}

static void test_sort_saving(void **state)
{
    uint32_t idx[6];
    (void)state;
    /* descending by saving is the ranked order, ties (hints 1 and 2) included */
    uint32_t n = rows(NULL, CV_SORT_SAVING, true, idx);
    ASSERT_ROWS(idx, n, 0, 1, 2, 3, 4, 5);
    n = rows(NULL, CV_SORT_SAVING, false, idx);
    ASSERT_ROWS(idx, n, 5, 4, 3, 2, 1, 0);
    /* sorting keeps the filter */
    struct cv_hint_filter f = {.rank = 0};
    n = rows(&f, CV_SORT_SAVING, false, idx);
    ASSERT_ROWS(idx, n, 3, 2, 0);
}

static void test_sort_kind(void **state)
{
    uint32_t idx[6];
    (void)state;
    /* overlap, aggregate, collective; the ranked order within a kind */
    uint32_t n = rows(NULL, CV_SORT_KIND, false, idx);
    ASSERT_ROWS(idx, n, 0, 2, 4, 1, 5, 3);
    n = rows(NULL, CV_SORT_KIND, true, idx);
    ASSERT_ROWS(idx, n, 3, 5, 1, 4, 2, 0);
}

static void test_sort_file(void **state)
{
    uint32_t idx[6];
    (void)state;
    /* unknown file first (""), then a.c by line and column, then b.c */
    uint32_t n = rows(NULL, CV_SORT_FILE, false, idx);
    ASSERT_ROWS(idx, n, 5, 4, 2, 1, 3, 0);
}

static void test_sort_call_and_ranks(void **state)
{
    uint32_t idx[6];
    (void)state;
    uint32_t n = rows(NULL, CV_SORT_CALL, false, idx);
    ASSERT_ROWS(idx, n, 4, 0, 1, 2, 3, 5); /* MPI_Allreduce < MPI_Recv < MPI_Send */
    n = rows(NULL, CV_SORT_RANKS, false, idx);
    ASSERT_ROWS(idx, n, 5, 2, 4, 0, 1, 3); /* none; one (rank 0, 2); two (0.., 1..); four */
    /* the comparison is a total order: only a hint equals itself */
    for (int key = 0; key < CV_SORT_NKEYS; key++)
        for (uint32_t a = 0; a < 6; a++)
            for (uint32_t b = 0; b < 6; b++) {
                int c = cv_hint_compare(&hints[a], a, &hints[b], b, key);
                int d = cv_hint_compare(&hints[b], b, &hints[a], a, key);
                if (a == b)
                    assert_int_equal(c, 0);
                else
                    assert_true((c < 0 && d > 0) || (c > 0 && d < 0));
            }
}

static void test_rows_edges(void **state)
{
    uint32_t idx[1] = {77};
    (void)state;
    assert_int_equal(cv_hint_model_rows(NULL, 0, NULL, CV_SORT_ORDER, false, idx), 0);
    assert_int_equal(cv_hint_model_rows(hints, 0, NULL, CV_SORT_SAVING, true, idx), 0);
    assert_int_equal(idx[0], 77);
    /* an unknown key sorts by the ranked order */
    uint32_t all[6];
    uint32_t n = rows(NULL, 99, false, all);
    ASSERT_ROWS(all, n, 0, 1, 2, 3, 4, 5);
}

static void test_cell_text(void **state)
{
    char buf[64];
    uint64_t ns;
    (void)state;
    assert_string_equal(search_kind_name(SEARCH_HINT_AGGREGATE), "aggregate");
    assert_string_equal(search_kind_name(0), "?");
    assert_int_equal(search_kind_from_name("collective"), SEARCH_HINT_COLLECTIVE);
    assert_int_equal(search_kind_from_name("all"), 0);
    assert_int_equal(search_kind_from_name(NULL), 0);

    assert_string_equal(search_format_ns(buf, sizeof buf, 0), "0");
    assert_string_equal(search_format_ns(buf, sizeof buf, 850), "850 ns");
    assert_string_equal(search_format_ns(buf, sizeof buf, 6000), "6.0 us");
    assert_string_equal(search_format_ns(buf, sizeof buf, 11749484), "12 ms");
    assert_string_equal(search_format_ns(buf, sizeof buf, 2500000000ull), "2.5 s");
    /* one rule for every front end: a value that would round to 1000 takes
     * the next unit (the viewer once showed 999.7 us as "1000 us") */
    assert_string_equal(search_format_ns(buf, sizeof buf, 999700), "1.0 ms");
    assert_string_equal(search_format_ns(buf, sizeof buf, 999499), "999 us");
    assert_string_equal(search_format_ns(buf, sizeof buf, 9960), "10 us");
    /* the table of kinds: names, SARIF rule names, in enum order */
    assert_int_equal(search_kind_count(), 3);
    assert_string_equal(search_kind_at(0)->name, "overlap");
    assert_string_equal(search_kind_desc(SEARCH_HINT_COLLECTIVE)->rule_id, "CollectiveCommunication");
    assert_null(search_kind_at(3));
    assert_string_equal(search_role_text(SEARCH_REL_SEND, false), "sends of the pattern");
    assert_string_equal(search_role_text(SEARCH_REL_SEND, true), "send of the pattern");
    assert_string_equal(search_role_name(99), "?");

    assert_string_equal(cv_format_ranks(buf, sizeof buf, r0123, 4), "0-3");
    assert_string_equal(cv_format_ranks(buf, sizeof buf, r02, 2), "0, 2");
    int mixed[] = {0, 1, 2, 5, 7, 8};
    assert_string_equal(cv_format_ranks(buf, sizeof buf, mixed, 6), "0-2, 5, 7-8");
    assert_string_equal(cv_format_ranks(buf, sizeof buf, NULL, 0), "");
    char small[8];
    cv_format_ranks(small, sizeof small, mixed, 6); /* does not fit: cut, terminated */
    assert_true(strlen(small) < sizeof small);
    assert_non_null(strstr(small, "..."));

    assert_string_equal(cv_hint_location(buf, sizeof buf, &hints[0]), "b.c:84:13");
    assert_string_equal(cv_hint_location(buf, sizeof buf, &hints[5]), "??:0");
    assert_string_equal(cv_basename("/a/b/c.c"), "c.c");
    assert_string_equal(cv_basename("c.c"), "c.c");
    assert_string_equal(cv_basename(NULL), "");

    assert_true(search_parse_duration("", &ns) && ns == 0);
    assert_true(search_parse_duration("  ", &ns) && ns == 0);
    assert_true(search_parse_duration("250", &ns) && ns == 250);
    assert_true(search_parse_duration("500us", &ns) && ns == 500000);
    assert_true(search_parse_duration(" 1.5 ms ", &ns) && ns == 1500000);
    assert_true(search_parse_duration("2s", &ns) && ns == 2000000000ull);
    assert_true(search_parse_duration("100ns", &ns) && ns == 100);
    assert_false(search_parse_duration("fast", &ns));
    assert_false(search_parse_duration("5 minutes", &ns));
    assert_false(search_parse_duration("1.", &ns));
    assert_false(search_parse_duration("-3ms", &ns));
    assert_false(search_parse_duration(NULL, &ns));
}

/* ---- line marks ------------------------------------------------------------------------- */

static void test_marks_for_hints(void **state)
{
    struct cv_marks m;
    (void)state;
    assert_int_equal(cv_marks_for_hints(hints, 6, NULL, 0, &m), 0);
    /* the hint without a location has no mark; two files */
    assert_int_equal(m.nfiles, 2);
    const struct cv_file_marks *a = cv_marks_file(&m, "/src/a.c");
    const struct cv_file_marks *b = cv_marks_file(&m, "/src/b.c");
    assert_non_null(a);
    assert_non_null(b);
    assert_null(cv_marks_file(&m, "/src/c.c"));
    assert_null(cv_marks_file(&m, ""));
    /* a.c: line 12 has two overlap hints (2 and 4): one mark each, then the
     * aggregate at line 40 */
    assert_int_equal(a->n, 3);
    assert_int_equal(a->marks[0].line, 12);
    assert_int_equal(a->marks[0].cat, CV_MARK_OVERLAP);
    assert_int_equal(a->marks[0].hint, 2);
    assert_int_equal(a->marks[1].line, 12);
    assert_int_equal(a->marks[1].hint, 4);
    assert_int_equal(a->marks[2].line, 40);
    assert_int_equal(a->marks[2].cat, CV_MARK_AGGREGATE);
    assert_int_equal(a->marks[2].hint, 1);
    /* b.c: the collective at 20, the overlap at 84, by line */
    assert_int_equal(b->n, 2);
    assert_int_equal(b->marks[0].line, 20);
    assert_int_equal(b->marks[0].cat, CV_MARK_COLLECTIVE);
    assert_int_equal(b->marks[1].line, 84);
    assert_int_equal(b->marks[1].cat, CV_MARK_OVERLAP);
    assert_int_equal(b->marks[1].role, 0);
    cv_marks_free(&m);
    assert_int_equal(m.nfiles, 0);

    /* only the hints a filter lets through */
    const uint32_t idx[] = {1, 3, 99};
    assert_int_equal(cv_marks_for_hints(hints, 6, idx, 3, &m), 0);
    assert_int_equal(m.nfiles, 2);
    assert_int_equal(cv_marks_file(&m, "/src/a.c")->n, 1);
    assert_int_equal(cv_marks_file(&m, "/src/a.c")->marks[0].line, 40);
    assert_int_equal(cv_marks_file(&m, "/src/b.c")->n, 1);
    assert_int_equal(cv_marks_file(&m, "/src/b.c")->marks[0].line, 20);
    cv_marks_free(&m);

    assert_int_equal(cv_marks_for_hints(NULL, 0, NULL, 0, &m), 0);
    assert_int_equal(m.nfiles, 0);
    cv_marks_free(&m);
}

static void test_marks_for_selection(void **state)
{
    struct cv_marks m;
    (void)state;
    struct search_related rel[] = {
        {.file = "/src/b.c", .line = 106, .role = SEARCH_REL_BEFORE},
        {.file = "/src/b.c", .line = 90, .role = SEARCH_REL_AFTER},
        {.file = "/src/util.c", .line = 7, .role = SEARCH_REL_AFTER},
        {.file = "/src/b.c", .line = 106, .role = SEARCH_REL_BEFORE}, /* the same line twice */
        {.file = "/src/b.c", .line = 0, .role = SEARCH_REL_AFTER},    /* no line: no mark */
        {.file = NULL, .line = 3, .role = SEARCH_REL_AFTER},          /* unknown file */
    };
    struct search_hint h = hints[0];
    h.related = rel;
    h.nrelated = 6;
    assert_int_equal(cv_marks_for_selection(&h, 0, &m), 0);
    assert_int_equal(m.nfiles, 3); /* "", b.c, util.c */
    const struct cv_file_marks *b = cv_marks_file(&m, "/src/b.c");
    assert_non_null(b);
    /* the call line gets the call mark; related lines the related mark with
     * their role, by line, the duplicate merged */
    assert_int_equal(b->n, 3);
    assert_int_equal(b->marks[0].line, 84);
    assert_int_equal(b->marks[0].cat, CV_MARK_CALL);
    assert_int_equal(b->marks[1].line, 90);
    assert_int_equal(b->marks[1].cat, CV_MARK_RELATED);
    assert_int_equal(b->marks[1].role, SEARCH_REL_AFTER);
    assert_int_equal(b->marks[2].line, 106);
    assert_int_equal(b->marks[2].cat, CV_MARK_RELATED);
    assert_int_equal(b->marks[2].role, SEARCH_REL_BEFORE);
    for (uint32_t i = 0; i < b->n; i++)
        assert_int_equal(b->marks[i].hint, 0);
    /* a line in another file is listed under that file */
    const struct cv_file_marks *u = cv_marks_file(&m, "/src/util.c");
    assert_non_null(u);
    assert_int_equal(u->n, 1);
    assert_int_equal(u->marks[0].line, 7);
    assert_int_equal(u->marks[0].cat, CV_MARK_RELATED);
    assert_non_null(cv_marks_file(&m, ""));
    cv_marks_free(&m);

    /* a call made through a helper, with its fix: the helper's MPI call is
     * a path mark in the helper's file, the start and the wait fix marks */
    struct trace_srcframe frames[] = {{"/src/helper.c", "exchange", 9, 5}, {"/src/b.c", "main", 84, 13}};
    struct trace_callctx cc = {.site = 3, .nframes = 2, .frames = frames, .anchor = 1};
    h = hints[0];
    h.related = rel;
    h.nrelated = 1;
    h.ctx = &cc;
    h.fix.start = (struct search_fix_loc){"/src/b.c", "main", 80, 1, SEARCH_FIX_AFTER, false, false, NULL, 0, 0, false, false, false, false, CHT_NONE, CHT_NONE, NULL, false, NULL};
    h.fix.wait = (struct search_fix_loc){"/src/b.c", "main", 95, 1, SEARCH_FIX_BEFORE, false, false, NULL, 0, 0, false, false, false, false, CHT_NONE, CHT_NONE, NULL, false, NULL};
    assert_int_equal(search_hint_nframes(&h), 2);
    assert_int_equal(search_hint_frame(&h, 1).line, 9);
    assert_int_equal(cv_marks_for_selection(&h, 0, &m), 0);
    const struct cv_file_marks *hf = cv_marks_file(&m, "/src/helper.c");
    assert_non_null(hf);
    assert_int_equal(hf->n, 1);
    assert_int_equal(hf->marks[0].line, 9);
    assert_int_equal(hf->marks[0].cat, CV_MARK_PATH);
    b = cv_marks_file(&m, "/src/b.c");
    assert_non_null(b);
    int starts = 0, waits = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->marks[i].cat == CV_MARK_FIX && b->marks[i].role == CV_FIX_START && b->marks[i].line == 80)
            starts++;
        if (b->marks[i].cat == CV_MARK_FIX && b->marks[i].role == CV_FIX_WAIT && b->marks[i].line == 95)
            waits++;
    }
    assert_int_equal(starts, 1);
    assert_int_equal(waits, 1);
    assert_string_equal(cv_mark_cat_name(CV_MARK_PATH), "path");
    assert_string_equal(cv_mark_cat_name(CV_MARK_FIX), "fix");
    cv_marks_free(&m);
    /* a fix that starts the call where it is adds no start mark */
    h.fix.start.where = SEARCH_FIX_AT;
    assert_int_equal(cv_marks_for_selection(&h, 0, &m), 0);
    b = cv_marks_file(&m, "/src/b.c");
    for (uint32_t i = 0; i < b->n; i++)
        assert_false(b->marks[i].cat == CV_MARK_FIX && b->marks[i].role == CV_FIX_START);
    cv_marks_free(&m);

    /* an aggregation's member sends */
    struct search_related members[] = {{.file = "/src/a.c", .line = 42, .role = SEARCH_REL_MEMBER},
                                       {.file = "/src/a.c", .line = 44, .role = SEARCH_REL_MEMBER}};
    h = hints[1];
    h.related = members;
    h.nrelated = 2;
    assert_int_equal(cv_marks_for_selection(&h, 1, &m), 0);
    const struct cv_file_marks *a = cv_marks_file(&m, "/src/a.c");
    assert_int_equal(a->n, 3);
    assert_int_equal(a->marks[0].cat, CV_MARK_CALL);
    assert_int_equal(a->marks[0].line, 40);
    assert_int_equal(a->marks[2].role, SEARCH_REL_MEMBER);
    assert_int_equal(a->marks[2].line, 44);
    cv_marks_free(&m);

    /* no related lines; a hint without a location; no hint */
    assert_int_equal(cv_marks_for_selection(&hints[2], 2, &m), 0);
    assert_int_equal(m.nfiles, 1);
    assert_int_equal(m.files[0].n, 1);
    cv_marks_free(&m);
    assert_int_equal(cv_marks_for_selection(&hints[5], 5, &m), 0);
    assert_int_equal(m.nfiles, 0);
    cv_marks_free(&m);
    assert_int_equal(cv_marks_for_selection(NULL, 0, &m), 0);
    assert_int_equal(m.nfiles, 0);
    cv_marks_free(&m);

    assert_string_equal(cv_mark_cat_name(CV_MARK_OVERLAP), "overlap");
    assert_string_equal(cv_mark_cat_name(CV_MARK_RELATED), "related");
    assert_string_equal(search_role_name(SEARCH_REL_MEMBER), "member");
    assert_string_equal(search_role_text(SEARCH_REL_BEFORE, true), "can move after the call");
}

/* ---- source paths -------------------------------------------------------------------------- */

static void make_file(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot create %s", path);
    fputs("int x;\n", f);
    fclose(f);
}

static void test_source_find(void **state)
{
    (void)state;
    char *root = tg_tmpdir();
    char p[512], q[512];
    snprintf(p, sizeof p, "%s/proj", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/proj/src", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/proj/src/solver.c", root);
    make_file(p);
    snprintf(q, sizeof q, "%s/proj/main.c", root);
    make_file(q);

    /* a path that exists is itself */
    char *got = cv_source_find(p, NULL, 0);
    assert_non_null(got);
    assert_string_equal(got, p);
    free(got);

    /* recorded on another machine: found by its tail under a source dir */
    snprintf(q, sizeof q, "%s/proj", root);
    const char *dirs[] = {NULL, "", "/nonexistent-dir", q};
    got = cv_source_find("/home/me/proj/src/solver.c", dirs, 4);
    assert_non_null(got);
    assert_string_equal(got, p);
    free(got);
    /* the basename alone */
    snprintf(q, sizeof q, "%s/proj/src", root);
    const char *dirs2[] = {q};
    got = cv_source_find("/elsewhere/solver.c", dirs2, 1);
    assert_non_null(got);
    assert_string_equal(got, p);
    free(got);
    /* a relative recorded path, joined to the directory */
    snprintf(q, sizeof q, "%s/proj", root);
    const char *dirs3[] = {q};
    got = cv_source_find("src/solver.c", dirs3, 1);
    assert_non_null(got);
    assert_string_equal(got, p);
    free(got);
    /* the first directory that has it wins */
    snprintf(q, sizeof q, "%s/proj", root);
    const char *dirs4[] = {root, q};
    got = cv_source_find("/x/main.c", dirs4, 2);
    assert_non_null(got);
    snprintf(p, sizeof p, "%s/proj/main.c", root);
    assert_string_equal(got, p);
    free(got);
    /* not found; nothing recorded; a directory is not a file */
    assert_null(cv_source_find("/home/me/proj/src/missing.c", dirs, 4));
    assert_null(cv_source_find(NULL, dirs, 4));
    assert_null(cv_source_find("", dirs, 4));
    assert_null(cv_source_find("/home/me/proj/src", dirs, 4));

    /* where it was read from: the real path, and what the trace named when
     * that differs (a relative path with "..", a path found elsewhere) */
    char *real = realpath(root, NULL);
    char want[1024];
    snprintf(p, sizeof p, "%s/proj/src/../main.c", root);
    got = cv_source_where("../main.c", p);
    snprintf(want, sizeof want, "%s/proj/main.c (the trace names ../main.c)", real);
    assert_string_equal(got, want);
    free(got);
    snprintf(p, sizeof p, "%s/proj/main.c", real);
    got = cv_source_where(p, p);
    assert_string_equal(got, p);
    free(got);
    assert_null(cv_source_where("x.c", NULL));
    free(real);
    tg_rmdir(root);
    free(root);
}

/* ---- the document ----------------------------------------------------------------------------- */

static const char doc_strings[] = "\0/src/app.c\0main";

static uint8_t *doc_table(uint32_t *size)
{
    static const struct cht_site sites[2] = {
        {1, 12, 10, 3, CHT_SITE_COMP, CHT_SOP_NONE, CHT_NONE, 0, 0, 1},
        {1, 12, 30, 5, CHT_SITE_CALL, CHT_SOP_NONE, CHT_NONE, 0, 1, 0},
    };
    static const struct cht_loop loops[1] = {{1, 12, 5, 2, 1, CHT_NONE, 0}};
    static const struct cht_access acc[1] = {{8, CHT_ACCESS_WRITE}};
    return tg_table(sites, 2, loops, 1, acc, 1, doc_strings, sizeof doc_strings, size);
}

#define DOC_RUN 0x5566778899aabbccull

/* A 2-rank trace with only rank 0's stream: a store, then a barrier. */
static void write_doc_trace(const char *dir, bool with_rank0)
{
    static const char *const argv[] = {"/abs/app"};
    static const uint8_t bid[4] = {1, 2, 3, 4};
    uint32_t size;
    uint8_t *blob = doc_table(&size);
    struct tg_file *f = tg_create(tg_path(dir, CHT_META_FILE), CHT_MAGIC_META, DOC_RUN, -1, 2);
    tg_program(f, bid, 4, 1, argv, 2);
    tg_site_table(f, blob, size);
    tg_end(f, 2, 1, 0);
    tg_close(f);
    if (with_rank0) {
        char name[64];
        snprintf(name, sizeof name, CHT_RANK_FILE_FMT, 0);
        f = tg_create(tg_path(dir, name), CHT_MAGIC_RANK, DOC_RUN, 0, 2);
        tg_tu(f, ((const struct cht_tu_header *)blob)->tu_key, 100, 2, 50, 1);
        tg_clock(f, 0, 1000, 2000, 0.5);
        uint64_t addr = 0x1000;
        tg_comp(f, 100, 1, &addr);
        struct cht_rec_mpi m;
        memset(&m, 0, sizeof m);
        m.h.aux = CHT_MPI_BARRIER;
        m.site = 101;
        m.t_enter = 5000;
        m.t_exit = 6000;
        m.comm_size = 2;
        m.peer = -1;
        tg_mpi(f, &m);
        tg_clock(f, 1, 10000, 20000, 1.5);
        tg_end(f, 4, 1, 0);
        tg_close(f);
    }
    free(blob);
}

static double last_fraction = -1;
static int progress_calls;

static void on_progress(void *ctx, double fraction, const char *what)
{
    (void)ctx;
    assert_true(fraction >= 0 && fraction <= 1);
    assert_non_null(what);
    last_fraction = fraction;
    progress_calls++;
}

static void test_document_load(void **state)
{
    (void)state;
    char *dir = tg_tmpdir();
    struct cv_document *d = NULL;
    char *error = NULL;
    write_doc_trace(dir, true);
    int rc = cv_document_load(dir, on_progress, NULL, &d, &error);
    if (rc)
        fail_msg("load failed: %s", error ? error : "(no message)");
    assert_null(error);
    assert_non_null(d);
    assert_string_equal(d->dir, dir);
    assert_int_equal(d->world_size, 2);
    /* rank 0 analysed and kept, rank 1 missing: NULL and a warning */
    assert_non_null(search_analysis_rank(d->analysis, 0));
    assert_null(search_analysis_rank(d->analysis, 1));
    assert_true(search_analysis_rank_missing(d->analysis, 1));
    assert_int_equal(search_analysis_ncalls(d->analysis, 0), 1);
    assert_int_equal(search_analysis_nparts(d->analysis, 0), 1);
    assert_non_null(d->warnings);
    assert_non_null(strstr(d->warnings, "rank 1 has no stream file"));
    assert_non_null(d->report);
    assert_int_equal(d->report->nranks, 1);
    /* the time axis: the common clock from the earliest call (5000 ns of
     * the rank's clock), to its latest exit (6000 ns) */
    assert_true(d->t0 == 0 && d->t1 == 1000);
    assert_int_equal(search_analysis_call(d->analysis, 0, 0)->t_enter, 0);
    assert_int_equal(search_analysis_time(d->analysis, 0, 5500), 500);
    assert_true(progress_calls > 0);
    assert_true(last_fraction == 1.0);
    cv_document_free(d);
    tg_rmdir(dir);
    free(dir);
}

static void test_document_errors(void **state)
{
    (void)state;
    struct cv_document *d = (struct cv_document *)1;
    char *error = NULL;
    /* not a directory */
    assert_true(cv_document_load("/nonexistent/trace", NULL, NULL, &d, &error) < 0);
    assert_null(d);
    assert_non_null(error);
    assert_null(strchr(error, '\n')); /* one sentence */
    free(error);
    /* a directory that is not a trace */
    char *dir = tg_tmpdir();
    error = NULL;
    assert_true(cv_document_load(dir, NULL, NULL, &d, &error) < 0);
    assert_null(d);
    assert_non_null(error);
    free(error);
    /* a damaged meta file: the reader's message */
    FILE *f = fopen(tg_path(dir, CHT_META_FILE), "w");
    fputs("this is not a commhint trace\n", f);
    fclose(f);
    error = NULL;
    assert_true(cv_document_load(dir, NULL, NULL, &d, &error) < 0);
    assert_non_null(error);
    assert_null(strchr(error, '\n'));
    free(error);
    tg_rmdir(dir);
    free(dir);
    /* a trace whose ranks are all missing */
    dir = tg_tmpdir();
    write_doc_trace(dir, false);
    error = NULL;
    assert_true(cv_document_load(dir, NULL, NULL, &d, &error) < 0);
    assert_null(d);
    assert_non_null(error);
    assert_non_null(strstr(error, "no rank could be analysed"));
    free(error);
    tg_rmdir(dir);
    free(dir);
    /* bad arguments; freeing nothing */
    error = NULL;
    assert_true(cv_document_load(NULL, NULL, NULL, &d, &error) < 0);
    free(error);
    cv_document_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_filter_none, setup_hints),
        cmocka_unit_test_setup(test_filter_kind, setup_hints),
        cmocka_unit_test_setup(test_filter_rank, setup_hints),
        cmocka_unit_test_setup(test_filter_min_saving, setup_hints),
        cmocka_unit_test_setup(test_sort_saving, setup_hints),
        cmocka_unit_test_setup(test_sort_kind, setup_hints),
        cmocka_unit_test_setup(test_sort_file, setup_hints),
        cmocka_unit_test_setup(test_sort_call_and_ranks, setup_hints),
        cmocka_unit_test_setup(test_rows_edges, setup_hints),
        cmocka_unit_test_setup(test_cell_text, setup_hints),
        cmocka_unit_test_setup(test_marks_for_hints, setup_hints),
        cmocka_unit_test_setup(test_marks_for_selection, setup_hints),
        cmocka_unit_test(test_source_find),
        cmocka_unit_test(test_document_load),
        cmocka_unit_test(test_document_errors),
    };
    return cmocka_run_group_tests_name("gui-models", tests, NULL, NULL);
}
