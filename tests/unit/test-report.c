/* test-report.c - unit tests of search_report_build (search/report/report.c):
 * per-rank results fabricated by hand, with fabricated site infos, merged
 * into hints: merging by location across ranks, the ranks lists, the
 * max/sum rules, flags, ranking, filters, message texts, and freeing (the
 * suite also runs under ASan).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "search-private.h"

/* ---- fabricated site infos ------------------------------------------------- */

#define SRC "/src/jacobi.c"
#define UTIL "/src/util.c"

static struct trace_site_info mk(uint32_t id, const char *file, const char *func, uint32_t line, uint16_t col,
                                 uint32_t flags)
{
    struct trace_site_info i;
    memset(&i, 0, sizeof i);
    i.id = id;
    i.file = file;
    i.func = func;
    i.line = line;
    i.col = col;
    i.kind = CHT_SITE_COMP;
    i.flags = flags;
    i.loop = CHT_NONE;
    return i;
}

/* Calls */
static struct trace_site_info i_recv, i_recv2, i_send40, i_send42, i_send44, i_send50, i_wait;
/* Statements */
static struct trace_site_info i_s27, i_s28, i_s40a, i_s40b, i_cond, i_u12, i_u13, i_nofile, i_noline;

static int setup(void **state)
{
    i_recv = mk(10, SRC, "exchange", 30, 5, 0);
    i_recv2 = mk(11, SRC, "exchange", 60, 5, 0);
    i_wait = mk(12, SRC, "exchange", 70, 3, 0);
    i_send40 = mk(40, SRC, "pack", 40, 9, 0);
    i_send42 = mk(42, SRC, "pack", 42, 9, 0);
    i_send44 = mk(44, SRC, "pack", 44, 9, 0);
    i_send50 = mk(50, SRC, "pack", 50, 9, 0);
    i_s27 = mk(127, SRC, "exchange", 27, 7, 0);
    i_s28 = mk(128, SRC, "exchange", 28, 7, 0);
    i_s40a = mk(140, SRC, "exchange", 40, 11, 0);
    i_s40b = mk(141, SRC, "exchange", 40, 3, 0);
    i_cond = mk(150, SRC, "exchange", 55, 9, CHT_SITEF_CONDITIONAL);
    i_u12 = mk(212, UTIL, "helper", 12, 5, 0);
    i_u13 = mk(213, UTIL, "helper", 13, 5, 0);
    i_nofile = mk(300, "", "", 0, 0, 0);
    i_noline = mk(301, SRC, "exchange", 0, 0, 0);
    (void)state;
    return 0;
}

/* ---- fabricated per-rank results -------------------------------------------- */

static struct search_rank_result *new_rank(int rank, uint64_t events, uint64_t t_first, uint64_t t_last)
{
    struct search_rank_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->rank = rank;
    r->events = events;
    r->t_first = t_first;
    r->t_last = t_last;
    return r;
}

static void add_iter(struct search_boxes *b, uint64_t outer, uint64_t inner)
{
    struct trace_iter it[2] = {{.loop = 1, .iter = outer}, {.loop = 2, .iter = inner}};
    assert_int_equal(search_boxes_add(b, 2, it, 0), 0);
}

/* Appends an overlap result (add them in increasing site order); returns its
 * index. */
static uint32_t add_ov(struct search_rank_result *r, const struct trace_site_info *info, uint16_t call,
                       uint64_t instances, uint64_t with_window, uint64_t truncated, uint64_t comm,
                       uint64_t comp, uint64_t saving)
{
    r->overlaps = realloc(r->overlaps, (r->noverlaps + 1) * sizeof *r->overlaps);
    assert_non_null(r->overlaps);
    struct search_overlap *o = &r->overlaps[r->noverlaps];
    memset(o, 0, sizeof *o);
    o->site = info->id;
    o->call = call;
    o->role = call == CHT_MPI_RECV ? DG_ROLE_RECV : DG_ROLE_SEND;
    o->instances = instances;
    o->with_window = with_window;
    o->truncated = truncated;
    o->comm_ns = comm;
    o->comp_ns = comp;
    o->saving_ns = saving;
    o->info = info;
    for (uint64_t k = 1; k <= with_window && k <= 3; k++)
        add_iter(&o->iters, (uint64_t)r->rank + 1, k);
    return r->noverlaps++;
}

static void add_st(struct search_rank_result *r, uint32_t ov, const struct trace_site_info *info,
                   uint32_t flags, uint64_t events, uint64_t total, uint64_t time_ns)
{
    struct search_overlap *o = &r->overlaps[ov];
    o->stmts = realloc(o->stmts, (o->nstmts + 1) * sizeof *o->stmts);
    assert_non_null(o->stmts);
    struct search_stmt *s = &o->stmts[o->nstmts++];
    memset(s, 0, sizeof *s);
    s->site = info ? info->id : 999;
    s->flags = flags;
    s->site_flags = info ? info->flags : 0;
    s->events = events;
    s->total = total;
    s->time_ns = time_ns;
    s->info = info;
    add_iter(&s->iters, (uint64_t)r->rank + 1, info ? info->line : 0);
}

static void add_group(struct search_rank_result *r, uint64_t comm, int32_t peer, uint32_t nsites,
                      const struct trace_site_info *const *infos, uint64_t groups, uint64_t members,
                      uint64_t bytes, uint64_t send_ns)
{
    r->groups = realloc(r->groups, (r->ngroups + 1) * sizeof *r->groups);
    assert_non_null(r->groups);
    struct search_group *g = &r->groups[r->ngroups++];
    memset(g, 0, sizeof *g);
    g->comm = comm;
    g->peer = peer;
    g->nsites = nsites;
    g->sites = malloc(nsites * sizeof *g->sites);
    g->info = malloc(nsites * sizeof *g->info);
    assert_non_null(g->sites);
    assert_non_null(g->info);
    for (uint32_t k = 0; k < nsites; k++) {
        g->sites[k] = infos[k]->id;
        g->info[k] = infos[k];
    }
    g->groups = groups;
    g->members = members;
    g->bytes = bytes;
    g->send_ns = send_ns;
    g->min_size = g->max_size = groups ? (uint32_t)(members / groups) : 0;
}

static void free_ranks(struct search_rank_result **r, int n)
{
    for (int k = 0; k < n; k++)
        search_rank_result_free(r[k]);
}

static struct search_report *build(struct search_rank_result **r, int n, int world,
                                   const struct search_report_opts *o)
{
    struct search_report *rep = NULL;
    assert_int_equal(search_report_build(r, n, world, o, &rep), 0);
    assert_non_null(rep);
    return rep;
}

static const struct search_report_opts all = {.kinds = 0, .rank = -1, .min_saving_ns = 0, .top = 0};

/* The Jacobi-like overlap of the examples: MPI_Recv at 30:5 on 4 ranks with
 * statements at 27 (before), 28 (after) and two at line 40. */
static void fill_recv(struct search_rank_result **r, int n)
{
    static const uint64_t comm[] = {1000000, 1200000, 3000000, 900000};
    static const uint64_t saving[] = {500000, 1200000, 900000, 100000};
    for (int k = 0; k < n; k++) {
        r[k] = new_rank(k, 1000 + (uint64_t)k, 100, 100 + 10000000 * (uint64_t)(k + 1));
        uint32_t o = add_ov(r[k], &i_recv, CHT_MPI_RECV, 50, 50, 0, comm[k], 2000000, saving[k]);
        add_st(r[k], o, &i_s27, SEARCH_STMT_BEFORE, 50, 50, 100 * (uint64_t)(k + 1));
        add_st(r[k], o, &i_s28, SEARCH_STMT_AFTER, 40, 50, 200);
        add_st(r[k], o, &i_s40a, SEARCH_STMT_BEFORE, 10, 10, 30);
        add_st(r[k], o, &i_s40b, SEARCH_STMT_BEFORE | SEARCH_STMT_AFTER, 5, 5, 40);
    }
}

/* ---- overlap merging --------------------------------------------------------- */

static void test_overlap_merge(void **state)
{
    struct search_rank_result *r[4];
    fill_recv(r, 4);
    struct search_report *rep = build(r, 4, 4, &all);
    free_ranks(r, 4); /* the report owns everything it points to */

    assert_int_equal(rep->nranks, 4);
    assert_int_equal(rep->world_size, 4);
    assert_int_equal(rep->events, 1000 + 1001 + 1002 + 1003);
    assert_int_equal(rep->run_ns, 40000000);
    assert_int_equal(rep->nfiltered, 0);
    assert_int_equal(rep->nhints, 1);
    struct search_hint *h = &rep->hints[0];
    assert_int_equal(h->kind, SEARCH_HINT_OVERLAP);
    assert_int_equal(h->call, CHT_MPI_RECV);
    assert_string_equal(h->file, SRC);
    assert_string_equal(h->func, "exchange");
    assert_int_equal(h->line, 30);
    assert_int_equal(h->col, 5);
    assert_int_equal(h->nranks, 4);
    for (int k = 0; k < 4; k++)
        assert_int_equal(h->ranks[k], k);
    assert_int_equal(h->comm_ns, 3000000);   /* max */
    assert_int_equal(h->comp_ns, 2000000);   /* max */
    assert_int_equal(h->saving_ns, 1200000); /* max */
    assert_int_equal(h->instances, 200);     /* sum */
    assert_int_equal(h->with_window, 200);   /* sum */
    assert_int_equal(h->flags, 0);
    assert_true(h->severity > 0.03 - 1e-9 && h->severity < 0.03 + 1e-9); /* 1.2 ms / 40 ms */
    assert_null(h->collective);
    /* Lowest rank's iterations, deep-copied. */
    assert_int_equal(h->iters.n, 1);
    assert_int_equal(h->iters.box[0].dim[0].lo, 1);
    assert_int_equal(h->iters.box[0].dim[1].hi, 3);

    /* Related: one entry per (file, line), sorted by line. */
    assert_int_equal(h->nrelated, 3);
    struct search_related *a = &h->related[0], *b = &h->related[1], *c = &h->related[2];
    assert_int_equal(a->line, 27);
    assert_int_equal(a->role, SEARCH_REL_BEFORE);
    assert_int_equal(a->events, 200);
    assert_int_equal(a->total, 200);
    assert_int_equal(a->time_ns, 400); /* max over ranks */
    assert_false(a->conditional);
    assert_int_equal(b->line, 28);
    assert_int_equal(b->role, SEARCH_REL_AFTER);
    assert_int_equal(b->events, 160);
    /* Line 40: two statements; AFTER wins; smallest column; per-rank sums. */
    assert_int_equal(c->line, 40);
    assert_int_equal(c->col, 3);
    assert_int_equal(c->role, SEARCH_REL_AFTER);
    assert_int_equal(c->events, 4 * 15);
    assert_int_equal(c->total, 4 * 15);
    assert_int_equal(c->time_ns, 70);
    assert_int_equal(c->iters.n, 1);
    assert_int_equal(c->iters.box[0].dim[0].lo, 1);  /* rank 0 */
    assert_int_equal(c->iters.box[0].dim[1].lo, 40); /* the statement at column 3 */

    assert_string_equal(h->message, "MPI_Recv can overlap with the computation at lines 27-28, 40 "
                                    "(ranks 0-3, est. saving 1.2 ms = 40% of its time)");
    char *m = search_hint_message(h, false);
    assert_string_equal(m, "MPI_Recv can overlap with the computation at lines 27-28, 40 (ranks 0-3)");
    free(m);

    /* Regions: per role, in one function outside loops; the most
     * executions first (160 + 60 against 200). */
    assert_int_equal(h->nregions, 2);
    assert_int_equal(h->regions[0].role, SEARCH_REL_AFTER);
    assert_int_equal(h->regions[0].line_lo, 28);
    assert_int_equal(h->regions[0].line_hi, 40);
    assert_int_equal(h->regions[0].nlines, 2);
    assert_int_equal(h->regions[0].events, 220);
    assert_int_equal(h->regions[0].loop_line, 0);
    assert_int_equal(h->regions[1].role, SEARCH_REL_BEFORE);
    assert_int_equal(h->regions[1].line_lo, 27);
    assert_int_equal(h->regions[1].nlines, 1);

    /* The fix without the statements the engines found: before the first
     * line that can move after the call (all 200 of its executions can);
     * the wait right before line 28, 40 of whose 200 executions are not
     * in the windows (after line 40, the last that can run before the
     * wait, would be after those too); above the call at line 30, it runs
     * after it in the next iteration */
    assert_int_equal(h->fix.start.where, SEARCH_FIX_BEFORE);
    assert_int_equal(h->fix.start.line, 27);
    assert_int_equal(h->fix.wait.where, SEARCH_FIX_BEFORE);
    assert_int_equal(h->fix.wait.line, 28);
    assert_true(h->fix.wait.other_iteration);
    m = search_fix_text(h, false);
    assert_string_equal(m, "start the MPI_Recv as MPI_Irecv right before line 27, and MPI_Wait for it right "
                           "before line 28 in the next iteration (the last one right after the loop)");
    free(m);
    /* a partial line below the call comes first: it runs after the call
     * in the same iteration */
    h->related[2].total = h->related[2].events + 1;
    search_fix_overlap(h, NULL, false, NULL, false, 0);
    assert_int_equal(h->fix.wait.line, 40);
    assert_int_equal(h->fix.wait.where, SEARCH_FIX_BEFORE);
    assert_false(h->fix.wait.other_iteration);
    /* in a function off the call's path, whose order against the call the
     * source does not tell: only right after the call holds (the merge
     * then drops the hint: its edit changes nothing) */
    const char *func = h->related[2].func;
    h->related[2].func = "elsewhere";
    search_fix_overlap(h, NULL, false, NULL, false, 0);
    assert_int_equal(h->fix.wait.where, SEARCH_FIX_AFTER);
    assert_int_equal(h->fix.wait.line, h->line);
    h->related[2].func = func;
    h->related[2].total = h->related[2].events;
    /* every execution of every line in the windows: after the last */
    h->related[1].total = h->related[1].events;
    search_fix_overlap(h, NULL, false, NULL, false, 0);
    assert_int_equal(h->fix.wait.where, SEARCH_FIX_AFTER);
    assert_int_equal(h->fix.wait.line, 40);
    /* a line before the call some of whose executions cannot move: the
     * call starts where it is */
    h->related[0].total = h->related[0].events + 1;
    search_fix_overlap(h, NULL, false, NULL, false, 0);
    assert_int_equal(h->fix.start.where, SEARCH_FIX_AT);
    assert_int_equal(h->fix.start.line, h->line);
    h->related[0].total = h->related[0].events;
    search_fix_overlap(h, NULL, false, NULL, false, 0);
    m = search_fix_text(h, false);
    assert_string_equal(m, "start the MPI_Recv as MPI_Irecv right before line 27, and MPI_Wait for it right "
                           "after line 40");
    free(m);
    /* a place at a loop's header is before or after the whole loop, and
     * says so: "right before line 27" could be read as inside its body */
    h->fix.start.loop = true;
    h->fix.wait.other_iteration = true;
    m = search_fix_text(h, false);
    assert_string_equal(m, "start the MPI_Recv as MPI_Irecv right before the loop at line 27, and MPI_Wait for "
                           "it right after line 40 in the next iteration (the last one right after the loop)");
    free(m);
    /* the loop whose next iteration is meant, where the last wait goes */
    h->fix.wait.outer_file = h->file;
    h->fix.wait.outer_line = 20;
    h->fix.start.loop = false;
    h->fix.start.other_iteration = true;
    m = search_fix_text(h, false);
    assert_string_equal(m, "start the MPI_Recv as MPI_Irecv right before line 27 in the iteration before (the first "
                           "one right before the loop, none in its last iteration), and MPI_Wait for it right after line 40 in the next "
                           "iteration (the last one right after the loop at line 20)");
    free(m);
    h->fix.start.other_iteration = false;
    h->fix.wait.other_iteration = false;
    h->fix.wait.outer_file = NULL;
    h->fix.wait.outer_line = 0;
    char nb[64];
    assert_string_equal(search_nonblocking_name(CHT_MPI_SENDRECV, nb, sizeof nb), "MPI_Isendrecv");
    assert_string_equal(search_nonblocking_name(CHT_MPI_ALLREDUCE, nb, sizeof nb), "MPI_Iallreduce");
    assert_string_equal(search_nonblocking_name(CHT_MPI_WAIT, nb, sizeof nb), "");
    assert_string_equal(search_nonblocking_name(CHT_MPI_ISEND, nb, sizeof nb), "");
    search_report_free(rep);
}

/* A rank that runs the call without any window needs its result at once:
 * the one edit every rank runs would be wrong there, so the hint is
 * dropped; ranks not analysed do not count. */
static void test_overlap_some_ranks(void **state)
{
    struct search_rank_result *r[4];
    fill_recv(r, 4);
    r[2]->overlaps[0].with_window = 0;
    r[2]->overlaps[0].instances = 7;
    struct search_report *rep = build(r, 4, 4, &all);
    assert_int_equal(rep->nhints, 0);
    search_report_free(rep);

    /* Fewer ranks analysed than the world (rank 2 not among them): the
     * hint holds on every rank analysed that runs the call. */
    rep = build(r, 2, 4, &all);
    assert_int_equal(rep->nranks, 2);
    assert_int_equal(rep->nhints, 1);
    assert_int_equal(rep->hints[0].flags, 0);
    assert_string_equal(rep->hints[0].message, "MPI_Recv can overlap with the computation at lines 27-28, 40 "
                                               "(ranks 0-1, est. saving 1.2 ms = 100% of its time)");
    search_report_free(rep);
    free_ranks(r, 4);
}

static void test_overlap_flags(void **state)
{
    struct search_rank_result *r[2];
    r[0] = new_rank(0, 10, 0, 0);
    r[1] = new_rank(1, 10, 0, 0);
    uint32_t o = add_ov(r[0], &i_recv, CHT_MPI_RECV, 50, 40, 0, 1000, 500, 500);
    add_st(r[0], o, &i_s27, SEARCH_STMT_BEFORE, 40, 50, 10);
    add_st(r[0], o, &i_cond, SEARCH_STMT_AFTER, 5, 5, 10); /* both ranks wait as late */
    o = add_ov(r[1], &i_recv, CHT_MPI_RECV, 50, 50, 3, 1000, 500, 500);
    add_st(r[1], o, &i_s27, SEARCH_STMT_BEFORE, 40, 50, 10);
    add_st(r[1], o, &i_cond, SEARCH_STMT_AFTER, 5, 5, 10);
    struct search_report *rep = build(r, 2, 2, &all);
    assert_int_equal(rep->nhints, 1);
    struct search_hint *h = &rep->hints[0];
    assert_int_equal(h->flags, SEARCH_HINT_SOME_ITERATIONS | SEARCH_HINT_TRUNCATED | SEARCH_HINT_CONDITIONAL);
    assert_int_equal(h->instances, 100);
    assert_int_equal(h->with_window, 90);
    /* line 27 moves in 40 of its 50 executions: the call starts where it
     * is, so the fix moves nothing after it; the line leaves the hint and
     * its half of the window's time leaves the saving */
    assert_int_equal(h->fix.start.where, SEARCH_FIX_AT);
    assert_int_equal(h->nrelated, 1);
    assert_int_equal(h->related[0].line, 55);
    assert_true(h->related[0].conditional);
    assert_int_equal(rep->run_ns, 0);
    assert_true(h->severity == 0.0); /* no run time */
    assert_string_equal(h->message, "MPI_Recv can overlap with the computation at line 55 "
                                    "(ranks 0-1, est. saving 250 ns = 25% of its time)");
    search_report_free(rep);
    free_ranks(r, 2);
}

/* Statements without a file or a line are left out; a hint without related lines is
 * dropped; sites without info merge by site id only. */
static void test_overlap_no_related(void **state)
{
    struct search_rank_result *r[1];
    r[0] = new_rank(0, 10, 0, 1000);
    uint32_t o = add_ov(r[0], &i_recv, CHT_MPI_RECV, 5, 5, 0, 100, 100, 100);
    add_st(r[0], o, &i_nofile, SEARCH_STMT_BEFORE, 5, 5, 10);
    add_st(r[0], o, NULL, SEARCH_STMT_BEFORE, 5, 5, 10);
    add_st(r[0], o, &i_noline, SEARCH_STMT_BEFORE, 5, 5, 10);
    o = add_ov(r[0], &i_recv2, CHT_MPI_RECV, 5, 5, 0, 100, 100, 100);
    r[0]->overlaps[o].info = NULL; /* a site without info */
    add_st(r[0], o, &i_s28, SEARCH_STMT_AFTER, 5, 5, 10);
    struct search_report *rep = build(r, 1, 1, &all);
    assert_int_equal(rep->nhints, 1);
    assert_string_equal(rep->hints[0].file, "");
    assert_int_equal(rep->hints[0].line, 0);
    assert_int_equal(rep->hints[0].nrelated, 1);
    assert_int_equal(rep->hints[0].related[0].line, 28);
    assert_true(rep->hints[0].severity > 0.1 - 1e-9 && rep->hints[0].severity < 0.1 + 1e-9);
    search_report_free(rep);
    free_ranks(r, 1);
}

/* Lines of other files, singular forms, time units. */
/* One edit for every rank (docs/dependence.md, "From ranks to hints"):
 * ranks whose windows are bounded by different statements. */
static void set_bounds(struct search_overlap *o, const struct trace_site_info *dep,
                       const struct trace_site_info *use)
{
    o->dep_site = dep ? dep->id : CHT_NONE;
    o->dep_info = dep;
    o->use_site = use ? use->id : CHT_NONE;
    o->use_info = use;
}

static const struct search_related *related_at(const struct search_hint *h, uint32_t line)
{
    for (uint32_t k = 0; k < h->nrelated; k++)
        if (h->related[k].line == line)
            return &h->related[k];
    return NULL;
}

/* Rank k with one MPI_Recv overlap entry at 30:5; returns its index. */
static uint32_t edit_rank(struct search_rank_result **r, int k)
{
    r[k] = new_rank(k, 10, 0, 10000000);
    return add_ov(r[k], &i_recv, CHT_MPI_RECV, 10, 10, 0, 1000000, 500000, 500000);
}

static void test_overlap_one_edit(void **state)
{
    struct search_rank_result *r[2];
    (void)state;

    /* The root's call reads what line 28 writes (its window ends there);
     * the other rank's reaches past line 28 up to line 27: the start must
     * hold on the root, line 28 is not listed, the call starts where it
     * is, and the other rank's earlier start is not credited. */
    for (int k = 0; k < 2; k++) {
        uint32_t o = edit_rank(r, k);
        if (k == 1)
            add_st(r[k], o, &i_s28, SEARCH_STMT_BEFORE, 10, 10, 250000);
        add_st(r[k], o, &i_s40a, SEARCH_STMT_AFTER, 10, 10, 250000);
        set_bounds(&r[k]->overlaps[o], k == 0 ? &i_s28 : &i_s27, &i_cond);
    }
    struct search_report *rep = build(r, 2, 2, &all);
    free_ranks(r, 2);
    assert_int_equal(rep->nhints, 1);
    struct search_hint *h = &rep->hints[0];
    assert_int_equal(h->nranks, 2);
    assert_null(related_at(h, 28));
    assert_non_null(related_at(h, 40));
    assert_int_equal(related_at(h, 40)->role, SEARCH_REL_AFTER);
    assert_int_equal(h->fix.start.where, SEARCH_FIX_AT);
    assert_int_equal(h->fix.wait.where, SEARCH_FIX_BEFORE);
    assert_int_equal(h->fix.wait.line, 55);
    assert_int_equal(h->nby_rank, 2);
    assert_int_equal(h->by_rank[1].saving_ns, 250000); /* line 28's half of rank 1's window: not credited */
    search_report_free(rep);

    /* Bounds in other functions that no rank's windows hold: only the
     * lines every rank moves (28, not 27), the call starting before the
     * first of them. */
    for (int k = 0; k < 2; k++) {
        uint32_t o = edit_rank(r, k);
        if (k == 1)
            add_st(r[k], o, &i_s27, SEARCH_STMT_BEFORE, 10, 10, 100);
        add_st(r[k], o, &i_s28, SEARCH_STMT_BEFORE, 10, 10, 100);
        set_bounds(&r[k]->overlaps[o], k == 0 ? &i_u12 : &i_u13, NULL);
    }
    rep = build(r, 2, 2, &all);
    free_ranks(r, 2);
    assert_int_equal(rep->nhints, 1);
    h = &rep->hints[0];
    assert_null(related_at(h, 27));
    assert_non_null(related_at(h, 28));
    assert_int_equal(related_at(h, 28)->role, SEARCH_REL_BEFORE);
    assert_int_equal(h->fix.start.where, SEARCH_FIX_BEFORE);
    assert_int_equal(h->fix.start.line, 28);
    search_report_free(rep);

    /* The same bound on both ranks: the windows of both, as before; the
     * bound is in a function off the call's path (which may run for other
     * calls too: dft's xmalloc), so the call starts before the first line
     * that can move, not inside that function. */
    for (int k = 0; k < 2; k++) {
        uint32_t o = edit_rank(r, k);
        add_st(r[k], o, k ? &i_s28 : &i_s27, SEARCH_STMT_BEFORE, 10, 10, 100);
        set_bounds(&r[k]->overlaps[o], &i_u12, NULL);
    }
    rep = build(r, 2, 2, &all);
    free_ranks(r, 2);
    h = &rep->hints[0];
    assert_non_null(related_at(h, 27));
    assert_non_null(related_at(h, 28));
    assert_int_equal(h->fix.start.where, SEARCH_FIX_BEFORE);
    assert_int_equal(h->fix.start.line, 27);
    search_report_free(rep);

    /* Waits that fit neither rank (the root reads the result at line 55
     * under a branch the other rank skips; the other's window reaches the
     * horizon): nothing to run before a wait both make, and with nothing
     * to move either, no hint. */
    for (int k = 0; k < 2; k++) {
        uint32_t o = edit_rank(r, k);
        add_st(r[k], o, &i_s40a, SEARCH_STMT_AFTER, 10, 10, 100);
        set_bounds(&r[k]->overlaps[o], NULL, k ? NULL : &i_cond);
    }
    rep = build(r, 2, 2, &all);
    free_ranks(r, 2);
    assert_int_equal(rep->nhints, 0);
    search_report_free(rep);
}

/* Calls of one site with no room on one side (docs/dependence.md, "One
 * edit for every rank"): the side is not kept on any rank when some calls
 * with a window have none there, bounded by another statement than the
 * fix's; kept when that statement is outside every loop around the call
 * and the fix's start is in the iteration before (the first call of a
 * loop nest); a forward side chained to the next call of the same site
 * needs the MPI logs to show distinct buffers. */
static void test_overlap_empty_windows(void **state)
{
    struct search_rank_result *r[2];
    (void)state;
    for (int c = 0; c < 5; c++) {
        for (int k = 0; k < 2; k++) {
            uint32_t o = edit_rank(r, k);
            add_st(r[k], o, &i_s28, SEARCH_STMT_BEFORE, 10, 10, 250000);
            add_st(r[k], o, &i_s40a, SEARCH_STMT_AFTER, 10, 10, 250000);
            set_bounds(&r[k]->overlaps[o], &i_s27, &i_cond);
            struct search_overlap *ov = &r[k]->overlaps[o];
            if (k == 1 && c == 0)
                ov->back_empty = 3; /* gauss's receive after another rank's step */
            if (k == 1 && c == 1)
                ov->fwd_empty = 1;
            if (c == 2)
                ov->back_empty_outside = 1; /* the first call, bound before the loop */
            if (c == 3) {
                ov->back_empty_outside = 1;
                ov->dep_earlier = true;
            }
            if (c == 4)
                ov->fwd_chained = 2; /* no MPI logs here: the buffers are not known */
        }
        struct search_report *rep = build(r, 2, 2, &all);
        free_ranks(r, 2);
        assert_int_equal(rep->nhints, 1);
        struct search_hint *h = &rep->hints[0];
        bool back = c == 1 || c == 3 || c == 4, fwd = c == 0 || c == 2 || c == 3;
        if (back) {
            assert_non_null(related_at(h, 28));
            assert_int_equal(h->fix.start.where, SEARCH_FIX_AFTER);
            assert_int_equal(h->fix.start.line, 27);
        } else {
            assert_null(related_at(h, 28));
            assert_int_equal(h->fix.start.where, SEARCH_FIX_AT);
        }
        if (fwd) {
            assert_non_null(related_at(h, 40));
            assert_int_equal(h->fix.wait.where, SEARCH_FIX_BEFORE);
            assert_int_equal(h->fix.wait.line, 55);
        } else {
            assert_null(related_at(h, 40));
            assert_int_equal(h->fix.wait.where, SEARCH_FIX_AFTER);
            assert_int_equal(h->fix.wait.line, h->line);
        }
        search_report_free(rep);
    }
}

/* Whether an edit placed by one statement holds for windows another one
 * bounded: the other must run in the same function, outside the innermost
 * loop around the first that also runs the call. */
static void test_fix_bound_fits(void **state)
{
    (void)state;
    struct trace_loop_info outer = {1, SRC, "main", 10, 5, 0, CHT_NONE, NULL};
    struct trace_loop_info inner = {2, SRC, "main", 20, 9, 1, 1, &outer};
    struct trace_loop_info other = {3, SRC, "main", 40, 5, 0, CHT_NONE, NULL};
    struct trace_site_info chosen = mk(300, SRC, "main", 22, 9, 0), in_inner = mk(301, SRC, "main", 25, 9, 0),
                           in_outer = mk(302, SRC, "main", 12, 9, 0), elsewhere = mk(303, SRC, "helper", 5, 9, 0),
                           before = mk(304, SRC, "main", 8, 5, 0), in_other = mk(305, SRC, "main", 41, 5, 0);
    chosen.loop_info = &inner;
    in_inner.loop_info = &inner;
    in_outer.loop_info = &outer;
    in_other.loop_info = &other;
    struct search_box box = {2, {{1, 10, 0, 5}, {2, 20, 0, 7}}};
    struct search_hint h;
    memset(&h, 0, sizeof h);
    h.iters = (struct search_boxes){1, 1, 0, &box};
    struct search_bound k = {0, true, 1, NULL};
    /* the call runs in both loops: the innermost around `chosen` is loop 2 */
    k.info = &in_inner;
    assert_false(search_fix_bound_fits(&h, &chosen, &k)); /* inside it: order unknown */
    k.info = &in_outer;
    assert_true(search_fix_bound_fits(&h, &chosen, &k));  /* before loop 2 is entered */
    k.info = &before;
    assert_true(search_fix_bound_fits(&h, &chosen, &k));
    k.info = &in_other;
    assert_true(search_fix_bound_fits(&h, &chosen, &k));
    k.info = &elsewhere;
    assert_false(search_fix_bound_fits(&h, &chosen, &k)); /* another function: maybe called inside it */
    k.info = NULL;
    assert_false(search_fix_bound_fits(&h, &chosen, &k));
    /* the call runs in loop 1 only: the innermost around `chosen` that runs
     * it is loop 1, and a statement of loop 2 is inside it */
    box.depth = 1;
    k.info = &in_outer;
    assert_false(search_fix_bound_fits(&h, &chosen, &k));
    k.info = &before;
    assert_true(search_fix_bound_fits(&h, &chosen, &k));
    /* no loop around the chosen statement runs the call */
    chosen.loop_info = &other;
    assert_false(search_fix_bound_fits(&h, &chosen, &k));
}

/* The edit of a call made through helpers: the function called at the
 * hint's line is named where the wait goes back to it, and a request
 * started in one function of the path and waited for in another is
 * handed on (CoMD: main calls sumAtoms, which calls addIntParallel). */
static void test_fix_through_helpers(void **state)
{
    (void)state;
    struct trace_srcframe frames[] = {{"/src/parallel.c", "addIntParallel", 116, 4},
                                      {"/src/CoMD.c", "sumAtoms", 336, 4},
                                      {"/src/CoMD.c", "main", 129, 4}};
    struct trace_callctx cc = {.site = 3, .nframes = 3, .frames = frames, .anchor = 2};
    struct search_hint h;
    memset(&h, 0, sizeof h);
    h.kind = SEARCH_HINT_OVERLAP;
    h.call = CHT_MPI_ALLREDUCE;
    h.file = "/src/CoMD.c";
    h.func = "main";
    h.line = 129;
    h.col = 4;
    h.ctx = &cc;
    h.fix.start = (struct search_fix_loc){"/src/CoMD.c", "sumAtoms", 330, 4, SEARCH_FIX_AFTER, false, true, NULL, 0, 0, false, false, false, false, CHT_NONE, CHT_NONE, NULL, false, NULL};
    h.fix.wait = (struct search_fix_loc){h.file, h.func, 129, 4, SEARCH_FIX_AFTER, false, false, NULL, 0, 0, false, false, false, false, CHT_NONE, CHT_NONE, NULL, false, NULL};
    char *m = search_fix_text(&h, false);
    assert_string_equal(m, "in copies of addIntParallel and sumAtoms for this call (their other calls keep them as "
                           "they are), let addIntParallel start the MPI_Allreduce as MPI_Iallreduce and return its "
                           "request; call it right after the loop at line 330 (in sumAtoms), and MPI_Wait for it where "
                           "the call of sumAtoms is now (line 129); the request goes from sumAtoms to main "
                           "(declare it as MPI_REQUEST_NULL, so that the wait returns at once on a path that does "
                           "not make the call)");
    free(m);
    /* started an iteration early with arguments that differ from one call
     * to the next: the next call's (jacobi's halo row of u, then unew) */
    h.fix.start = (struct search_fix_loc){h.file, h.func, 91, 4, SEARCH_FIX_AFTER, false, false, h.file, 132,
                                          SEARCH_FIX_BUF_ALTERNATES | SEARCH_FIX_PEER_CHANGES, false, false, false, false, CHT_NONE, CHT_NONE, NULL, false, NULL};
    h.ctx = NULL;
    h.call = CHT_MPI_RECV;
    m = search_fix_text(&h, false);
    assert_string_equal(m, "start the MPI_Recv as MPI_Irecv right after line 91, and MPI_Wait for it where the MPI_Recv is "
                           "now (line 129)");
    free(m);
    h.fix.start.other_iteration = true;
    m = search_fix_text(&h, false);
    assert_non_null(strstr(m, "right after line 91 in the iteration before (the first one right before the loop at "
                              "line 132, none in its last iteration) with the next call's arguments (its buffer "
                              "alternates between two from one call to the next: the buffer the next call gets, not this one's; its peer "
                              "changes from one call to the next, unless it takes any source), and MPI_Wait"));
    free(m);
    /* a wait inside a function off the call's path (heat's diffuse, called
     * for two fields): before its next call, the request staying with the
     * function the hint is in */
    h.fix.start = (struct search_fix_loc){h.file, h.func, 129, 4, SEARCH_FIX_AT, false, false, NULL, 0, 0, false, false, false, false, CHT_NONE, CHT_NONE, NULL, false, NULL};
    h.fix.wait = (struct search_fix_loc){"/src/b.c", "diffuse", 70, 5, SEARCH_FIX_BEFORE, false, true, NULL, 0, 0, true, false, false, false, CHT_NONE, CHT_NONE, NULL, false, NULL};
    m = search_fix_text(&h, false);
    assert_string_equal(m, "start the MPI_Recv as MPI_Irecv where it is (line 129), and MPI_Wait for it right "
                           "before the next call of diffuse, whose loop at /src/b.c:70 must wait for it");
    free(m);
    /* the same, with lines of that loop credited: the wait goes into
     * diffuse, which gets the request, and the loop is split */
    h.fix.wait.split = true;
    m = search_fix_text(&h, false);
    assert_string_equal(m, "start the MPI_Recv as MPI_Irecv where it is (line 129), and MPI_Wait for it in diffuse, "
                           "right before its loop at /src/b.c:70 (diffuse runs for other callers too: pass it the "
                           "request, MPI_REQUEST_NULL from them); the computation that can run before the wait is "
                           "inside the loop at /src/b.c:70: split it, running before the wait the part that does "
                           "not need the data (0 of 0 executions)");
    free(m);
    h.fix.wait = (struct search_fix_loc){h.file, h.func, 129, 4, SEARCH_FIX_AFTER, false, false, NULL, 0, 0, false, false, false, false, CHT_NONE, CHT_NONE, NULL, false, NULL};
    h.ctx = &cc;
    h.call = CHT_MPI_ALLREDUCE;
    /* started and waited for in the same function: nothing to hand on */
    h.fix.start = (struct search_fix_loc){h.file, h.func, 120, 4, SEARCH_FIX_AFTER, false, false, NULL, 0, 0, false, false, false, false, CHT_NONE, CHT_NONE, NULL, false, NULL};
    m = search_fix_text(&h, false);
    assert_string_equal(m, "in copies of addIntParallel and sumAtoms for this call (their other calls keep them as "
                           "they are), let addIntParallel start the MPI_Allreduce as MPI_Iallreduce and return its "
                           "request; call it right after line 120, and MPI_Wait for it where the call of sumAtoms is "
                           "now (line 129)");
    free(m);
}

/* The receiving side of an aggregation fix: one receive where the first
 * member is received (the receiver may use the first part before the last
 * send), each part copied out where its receive is; exchanges whose
 * partner's calls are the same lines on every rank: one Sendrecv. */
static void test_fix_aggregate_receive(void **state)
{
    (void)state;
    struct search_related rel[] = {{.file = "/src/dft.c", .func = "main", .line = 163, .role = SEARCH_REL_MEMBER},
                                   {.file = "/src/dft.c", .func = "main", .line = 196, .role = SEARCH_REL_MEMBER}};
    struct search_hint h;
    memset(&h, 0, sizeof h);
    h.kind = SEARCH_HINT_AGGREGATE;
    h.call = CHT_MPI_SEND;
    h.file = "/src/dft.c";
    h.func = "main";
    h.line = 162;
    h.related = rel;
    h.nrelated = 2;
    h.recv_first_file = h.file;
    h.recv_first_line = 157;
    h.recv_file = h.file;
    h.recv_line = 192;
    char *m = search_fix_text(&h, false);
    assert_string_equal(m, "pack the send buffers of the MPI_Send calls at lines 162, 163 and 196 into one buffer "
                           "and send it with one MPI_Send where the last of them is (line 196); the receiving "
                           "rank takes it with one receive at line 157 (where the first of them is received now) "
                           "into a buffer of its own, and copies each part out where its receive is now (the last "
                           "at line 192)");
    free(m);
    /* one line in a loop (a pipeline's blocks): the first and last receive
     * are the same line; nothing matched: no line named */
    h.nrelated = 0;
    h.instances = 10;
    h.members = 40;
    h.recv_first_line = h.recv_line = 99;
    m = search_fix_text(&h, false);
    assert_string_equal(m, "pack what the consecutive MPI_Send calls at line 162 send (4 per group) into one buffer "
                           "and send it with one MPI_Send after the last of them; the receiving rank takes it with "
                           "one receive at line 99 (where the first of them is received now) into a buffer of its "
                           "own, and copies each part out where its receive is now");
    free(m);
    h.recv_first_file = h.recv_file = NULL;
    m = search_fix_text(&h, false);
    assert_non_null(strstr(m, "; the receiving rank takes it with one receive where the first of them is received "
                              "now into a buffer of its own"));
    free(m);
    /* an exchange whose partner's calls are the same lines */
    h.call = CHT_MPI_SENDRECV;
    h.line = 65;
    rel[0].line = 67;
    h.nrelated = 1;
    h.instances = h.members = 0;
    h.recv_first_file = h.recv_file = h.file;
    h.recv_first_line = 65;
    h.recv_line = 67;
    m = search_fix_text(&h, false);
    assert_string_equal(m, "pack the send buffers of the MPI_Sendrecv calls at lines 65 and 67 into one buffer and "
                           "send it with one MPI_Sendrecv where the last of them is (line 67), which also receives "
                           "the partner's packed buffers (its calls at the same lines are merged by the same edit); "
                           "unpack them right after it");
    free(m);
    /* ... but holding on some ranks only, the partner's side is not known */
    h.flags = SEARCH_HINT_SOME_RANKS;
    m = search_fix_text(&h, false);
    assert_non_null(strstr(m, "; the receiving rank takes it with one receive at line 65 (where the first"));
    free(m);
}

static void test_overlap_message_forms(void **state)
{
    struct search_rank_result *r[1];
    r[0] = new_rank(0, 10, 0, 0);
    uint32_t o = add_ov(r[0], &i_recv, CHT_MPI_RECV, 5, 5, 0, 0, 3000000000ull, 2500000000ull);
    add_st(r[0], o, &i_u13, SEARCH_STMT_BEFORE, 1, 1, 1);
    add_st(r[0], o, &i_u12, SEARCH_STMT_BEFORE, 1, 1, 1);
    add_st(r[0], o, &i_s27, SEARCH_STMT_BEFORE, 1, 1, 1);
    o = add_ov(r[0], &i_recv2, CHT_MPI_RECV, 5, 5, 0, 100000, 50000, 38000);
    add_st(r[0], o, &i_u12, SEARCH_STMT_AFTER, 1, 1, 1);
    o = add_ov(r[0], &i_wait, CHT_MPI_WAIT, 5, 5, 0, 1000, 50000, 999);
    add_st(r[0], o, &i_s28, SEARCH_STMT_AFTER, 1, 1, 1);
    struct search_report *rep = build(r, 1, 1, &all);
    assert_int_equal(rep->nhints, 3);
    /* Ranked by saving.  comm_ns 0: no percentage. */
    assert_string_equal(
        rep->hints[0].message,
        "MPI_Recv can overlap with the computation at line 27, util.c:12-13 (rank 0, est. saving 2.5 s)");
    assert_int_equal(rep->hints[0].related[0].line, 27); /* sorted by file, then line */
    assert_string_equal(rep->hints[0].related[1].file, UTIL);
    assert_string_equal(rep->hints[1].message, "MPI_Recv can overlap with the computation at util.c:12 (rank "
                                               "0, est. saving 38 us = 38% of its time)");
    assert_string_equal(rep->hints[2].message, "MPI_Wait can overlap with the computation at line 28 (rank "
                                               "0, est. saving 999 ns = 100% of its time)");
    search_report_free(rep);
    free_ranks(r, 1);
}

/* ---- aggregation ------------------------------------------------------------------- */

static void test_aggregate_merge(void **state)
{
    struct search_rank_result *r[3];
    const struct trace_site_info *s012[] = {&i_send40, &i_send42, &i_send44};
    const struct trace_site_info *s102[] = {&i_send42, &i_send40, &i_send44};
    const struct trace_site_info *s50[] = {&i_send50};
    r[0] = new_rank(0, 100, 0, 4000000);
    r[1] = new_rank(1, 100, 0, 1000000);
    r[2] = new_rank(2, 100, 0, 1000000);
    r[0]->msg_latency_ns = 2000;
    r[1]->msg_latency_ns = 2000.0 * 4 / 3; /* 150 * 2666.67 = 400 us */
    r[2]->msg_latency_ns = 1000;
    /* Rank 0: one group set to each neighbour; rank 1: the same sites in
     * another order (same key); rank 2: on another communicator. */
    add_group(r[0], CHT_COMM_WORLD, 1, 3, s012, 40, 120, 4000, 100000);
    add_group(r[0], CHT_COMM_WORLD, 3, 3, s012, 35, 105, 3500, 50000);
    add_group(r[1], CHT_COMM_WORLD, 0, 3, s102, 75, 225, 7500, 120000);
    add_group(r[2], 77, 1, 3, s012, 10, 30, 1000, 5000);
    /* A single-site group; the call comes from the rank's overlap results. */
    add_ov(r[0], &i_send50, CHT_MPI_SSEND, 40, 0, 0, 0, 0, 0);
    add_group(r[0], CHT_COMM_WORLD, 1, 1, s50, 10, 40, 400, 9000);

    struct search_report *rep = build(r, 3, 4, &all);
    free_ranks(r, 3);
    assert_int_equal(rep->nhints, 3);

    struct search_hint *h = &rep->hints[0];
    assert_int_equal(h->kind, SEARCH_HINT_AGGREGATE);
    assert_int_equal(h->call, CHT_MPI_SEND);
    assert_string_equal(h->file, SRC);
    assert_int_equal(h->line, 40); /* first member of the lowest rank's group */
    assert_int_equal(h->col, 9);
    assert_string_equal(h->func, "pack");
    assert_int_equal(h->nranks, 2);
    assert_int_equal(h->ranks[0], 0);
    assert_int_equal(h->ranks[1], 1);
    assert_int_equal(h->instances, 150);
    assert_int_equal(h->members, 450);
    assert_int_equal(h->bytes, 15000);
    /* Rank 0: (80 + 70) * 2000 = 300 us; rank 1: 150 * 2666.67 = 400 us. */
    assert_int_equal(h->saving_ns, 400000);
    assert_int_equal(h->comm_ns, 150000); /* rank 0: 100 + 50 us, summed per rank */
    assert_int_equal(h->flags, SEARCH_HINT_SOME_RANKS);
    assert_int_equal(h->nrelated, 2);
    assert_int_equal(h->related[0].line, 42);
    assert_int_equal(h->related[1].line, 44);
    assert_int_equal(h->related[0].role, SEARCH_REL_MEMBER);
    assert_true(h->severity > 0.1 - 1e-9 && h->severity < 0.1 + 1e-9);
    assert_string_equal(h->message, "3 MPI_Send calls to the same rank at lines 40, 42, 44 can be sent "
                                    "as one message (ranks 0-1, 150 groups, est. saving 400 us)");

    h = &rep->hints[2];
    assert_int_equal(h->saving_ns, 20000); /* (30 - 10) * 1000 */
    assert_int_equal(h->nranks, 1);
    assert_int_equal(h->ranks[0], 2);
    assert_int_equal(h->nrelated, 2);
    assert_string_equal(h->message, "3 MPI_Send calls to the same rank at lines 40, 42, 44 can be sent "
                                    "as one message (rank 2, 10 groups, est. saving 20 us)");

    h = &rep->hints[1];
    assert_int_equal(h->call, CHT_MPI_SSEND);
    assert_int_equal(h->line, 50);
    assert_int_equal(h->nrelated, 0);      /* kept: a single-site group has no related lines */
    assert_int_equal(h->saving_ns, 60000); /* (40 - 10) * 2000 */
    assert_string_equal(h->message, "consecutive MPI_Ssend calls to the same rank at line 50, 4 per group, "
                                    "can be sent as one message (rank 0, 10 groups, est. saving 60 us)");
    char *m = search_hint_message(h, false);
    assert_string_equal(m, "consecutive MPI_Ssend calls to the same rank at line 50, 4 per group, "
                           "can be sent as one message (rank 0, 10 groups)");
    free(m);
    search_report_free(rep);
}

static void test_aggregate_conditional(void **state)
{
    struct search_rank_result *r[1];
    const struct trace_site_info *s[] = {&i_send40, &i_cond};
    r[0] = new_rank(0, 10, 0, 0);
    r[0]->msg_latency_ns = 10;
    add_group(r[0], CHT_COMM_WORLD, 1, 2, s, 4, 10, 90, 900);
    struct search_report *rep = build(r, 1, 1, &all);
    assert_int_equal(rep->nhints, 1);
    assert_int_equal(rep->hints[0].flags, SEARCH_HINT_CONDITIONAL);
    assert_true(rep->hints[0].related[0].conditional);
    assert_int_equal(rep->hints[0].saving_ns, 60);
    assert_string_equal(rep->hints[0].message,
                        "MPI_Send calls to the same rank at lines 40, 55, 2.5 per group on average, "
                        "can be sent as one message (rank 0, 4 groups, est. saving 60 ns)");
    search_report_free(rep);
    free_ranks(r, 1);
}

/* ---- ranking and filters ---------------------------------------------------------- */

/* Rank 0: overlap hints with savings 5000 (line 30), 5000 (line 60), 9000
 * (Wait at 70); an aggregation hint with saving 5000 at line 40; rank 1:
 * only the hint at line 60. */
static void fill_mixed(struct search_rank_result **r)
{
    const struct trace_site_info *s[] = {&i_send40, &i_send42};
    r[0] = new_rank(0, 10, 0, 100000);
    r[1] = new_rank(1, 10, 0, 100000);
    uint32_t o = add_ov(r[0], &i_recv, CHT_MPI_RECV, 1, 1, 0, 9000, 9000, 5000);
    add_st(r[0], o, &i_s27, SEARCH_STMT_BEFORE, 1, 1, 1);
    o = add_ov(r[0], &i_recv2, CHT_MPI_RECV, 1, 1, 0, 9000, 9000, 5000);
    add_st(r[0], o, &i_s27, SEARCH_STMT_BEFORE, 1, 1, 1);
    o = add_ov(r[0], &i_wait, CHT_MPI_WAIT, 1, 1, 0, 9000, 9000, 9000);
    add_st(r[0], o, &i_s27, SEARCH_STMT_AFTER, 1, 1, 1);
    o = add_ov(r[1], &i_recv2, CHT_MPI_RECV, 1, 1, 0, 9000, 9000, 100);
    add_st(r[1], o, &i_s27, SEARCH_STMT_BEFORE, 1, 1, 1);
    r[0]->msg_latency_ns = 5000;
    add_group(r[0], CHT_COMM_WORLD, 1, 2, s, 1, 2, 16, 100);
}

static void test_ranking(void **state)
{
    struct search_rank_result *r[2];
    fill_mixed(r);
    struct search_report *rep = build(r, 2, 2, &all);
    assert_int_equal(rep->nhints, 4);
    /* Saving first, then kind (overlap before aggregate), then file and line. */
    assert_int_equal(rep->hints[0].line, 70);
    assert_int_equal(rep->hints[1].kind, SEARCH_HINT_OVERLAP);
    assert_int_equal(rep->hints[1].line, 30);
    assert_int_equal(rep->hints[2].kind, SEARCH_HINT_OVERLAP);
    assert_int_equal(rep->hints[2].line, 60);
    assert_int_equal(rep->hints[2].nranks, 2);
    assert_int_equal(rep->hints[3].kind, SEARCH_HINT_AGGREGATE);
    assert_int_equal(rep->hints[3].line, 40);
    /* The Wait only runs on rank 0: holding there is holding everywhere it runs. */
    assert_int_equal(rep->hints[0].flags, 0);
    assert_int_equal(rep->hints[2].flags, 0);
    assert_int_equal(rep->nfiltered, 0);
    search_report_free(rep);
    free_ranks(r, 2);
}

static void test_filters(void **state)
{
    struct search_rank_result *r[2];
    fill_mixed(r);
    struct search_report_opts o = all;
    struct search_report *rep;

    o.kinds = 1u << SEARCH_HINT_AGGREGATE;
    rep = build(r, 2, 2, &o);
    assert_int_equal(rep->nhints, 1);
    assert_int_equal(rep->hints[0].kind, SEARCH_HINT_AGGREGATE);
    assert_int_equal(rep->nfiltered, 3);
    search_report_free(rep);

    o = all;
    o.kinds = 1u << SEARCH_HINT_COLLECTIVE;
    rep = build(r, 2, 2, &o);
    assert_int_equal(rep->nhints, 0);
    assert_int_equal(rep->nfiltered, 4);
    search_report_free(rep);

    o = all;
    o.rank = 1;
    rep = build(r, 2, 2, &o);
    assert_int_equal(rep->nhints, 1);
    assert_int_equal(rep->hints[0].line, 60);
    assert_int_equal(rep->nfiltered, 3);
    search_report_free(rep);

    o = all;
    o.min_saving_ns = 5001;
    rep = build(r, 2, 2, &o);
    assert_int_equal(rep->nhints, 1);
    assert_int_equal(rep->hints[0].line, 70);
    assert_int_equal(rep->nfiltered, 3);
    search_report_free(rep);

    o.min_saving_ns = 5000; /* inclusive */
    o.top = 2;
    rep = build(r, 2, 2, &o);
    assert_int_equal(rep->nhints, 2);
    assert_int_equal(rep->hints[0].line, 70);
    assert_int_equal(rep->hints[1].line, 30);
    assert_int_equal(rep->nfiltered, 2);
    search_report_free(rep);

    /* The filters apply before top. */
    o = all;
    o.kinds = (1u << SEARCH_HINT_OVERLAP);
    o.rank = 0;
    o.top = 2;
    rep = build(r, 2, 2, &o);
    assert_int_equal(rep->nhints, 2);
    assert_int_equal(rep->hints[0].line, 70);
    assert_int_equal(rep->hints[1].line, 30);
    assert_int_equal(rep->nfiltered, 2);
    search_report_free(rep);

    /* NULL options: everything. */
    rep = build(r, 2, 2, NULL);
    assert_int_equal(rep->nhints, 4);
    search_report_free(rep);
    free_ranks(r, 2);
}

/* Severity is clamped; empty input gives an empty report; bad arguments. */
static void test_edges(void **state)
{
    struct search_rank_result *r[1];
    r[0] = new_rank(0, 10, 1000, 2000);
    uint32_t o = add_ov(r[0], &i_recv, CHT_MPI_RECV, 1, 1, 0, 9000, 9000, 5000);
    add_st(r[0], o, &i_s27, SEARCH_STMT_BEFORE, 1, 1, 1);
    struct search_report *rep = build(r, 1, 1, &all);
    assert_int_equal(rep->run_ns, 1000);
    assert_true(rep->hints[0].severity == 1.0);
    search_report_free(rep);
    free_ranks(r, 1);

    rep = build(NULL, 0, 4, &all);
    assert_int_equal(rep->nhints, 0);
    assert_int_equal(rep->nranks, 0);
    assert_int_equal(rep->world_size, 4);
    search_report_free(rep);
    search_report_free(NULL);

    assert_int_equal(search_report_build(NULL, 1, 1, &all, &rep), TRACE_ERR_ARG);
    assert_int_equal(search_report_build(NULL, 0, 1, &all, NULL), TRACE_ERR_ARG);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup(f, setup)
    const struct CMUnitTest tests[] = {
        T(test_overlap_merge),
        T(test_overlap_some_ranks),
        T(test_overlap_flags),
        T(test_overlap_no_related),
        T(test_overlap_one_edit),
        T(test_overlap_empty_windows),
        T(test_overlap_message_forms),
        T(test_fix_through_helpers),
        T(test_fix_bound_fits),
        T(test_fix_aggregate_receive),
        T(test_aggregate_merge),
        T(test_aggregate_conditional),
        T(test_ranking),
        T(test_filters),
        T(test_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
