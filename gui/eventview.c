/* eventview.c - the event-level view (see eventview.h): a GtkTreeStore
 * filled from the ranks' search results for the selected hint.  It only
 * reads the analysis' results; nothing is computed here beyond matching a
 * hint to the per-rank entries at its source location and summing the
 * MPI log's calls at a line. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "eventview.h"
#include "hint-model.h"
#include "mark-model.h"

enum {
    COL_WHAT,    /* "rank 2", "before", ... */
    COL_SITE,    /* "jacobi.c:133:30 (main)" */
    COL_ITERS,   /* iteration boxes */
    COL_COUNT,   /* "50 of 50 events" */
    COL_TIME,    /* "2.3 ms" */
    COL_FILE,    /* recorded file of the row's line, or NULL */
    COL_LINE,    /* its line, 0 if none */
    COL_TOOLTIP, /* markup */
    NCOLS
};

struct _CvEventView {
    GtkBox parent;
    GtkLabel *header;
    GtkTreeView *tree;
    GtkTreeStore *store;
    const struct cv_document *doc;
    int index;
};

G_DEFINE_TYPE(CvEventView, cv_event_view, GTK_TYPE_BOX)

enum { SIG_LOCATION, NSIGS };
static guint signals[NSIGS];

/* ---- text helpers ---------------------------------------------------------------------- */

static char *site_text(const char *file, uint32_t line, uint32_t col, const char *func)
{
    const char *f = file && *file ? cv_basename(file) : "??";
    GString *s = g_string_new(NULL);
    if (col)
        g_string_append_printf(s, "%s:%u:%u", f, line, col);
    else
        g_string_append_printf(s, "%s:%u", f, line);
    if (func && *func)
        g_string_append_printf(s, " (%s)", func);
    return g_string_free(s, FALSE);
}

/* Iteration boxes as text: "(1..50), (51, 1..10) and 3 more"; "" if the
 * statement is outside every loop. */
static char *boxes_text(const struct search_boxes *b)
{
    GString *s = g_string_new(NULL);
    char buf[256];
    for (uint32_t i = 0; b && i < b->n; i++) {
        if (!b->box[i].depth)
            continue;
        if (s->len)
            g_string_append(s, ", ");
        g_string_append(s, search_box_format(&b->box[i], buf, sizeof buf));
    }
    if (b && s->len && b->more)
        g_string_append_printf(s, " and %" PRIu64 " more", b->more);
    return g_string_free(s, FALSE);
}

static void add_row(CvEventView *v, GtkTreeIter *parent, GtkTreeIter *out, const char *what, const char *site,
                    const char *iters, const char *count, const char *time, const char *file, guint line,
                    const char *tooltip)
{
    GtkTreeIter it;
    char *tip = tooltip ? g_markup_escape_text(tooltip, -1) : NULL;
    gtk_tree_store_insert_with_values(v->store, &it, parent, -1, COL_WHAT, what, COL_SITE, site, COL_ITERS,
                                      iters, COL_COUNT, count, COL_TIME, time, COL_FILE, file, COL_LINE, line,
                                      COL_TOOLTIP, tip, -1);
    g_free(tip);
    if (out)
        *out = it;
}

static gboolean same_location(const struct trace_site_info *info, const char *file, uint32_t line)
{
    return info && info->line == line && !g_strcmp0(info->file ? info->file : "", file ? file : "");
}

static const struct search_rank_result *rank_result(CvEventView *v, int r)
{
    return v->doc ? search_analysis_rank(v->doc->analysis, r) : NULL;
}

/* ---- overlap ---------------------------------------------------------------------------------- */

/* Whether a statement of a window, in the role it has there, is on a line
 * the hint lists (what its fix puts between the start and the wait: none
 * that can move after the call when the call starts where it is). */
static gboolean hint_lists(const struct search_hint *h, const struct trace_site_info *si, int role)
{
    if (role == SEARCH_REL_BEFORE && h->fix.start.where == SEARCH_FIX_AT)
        return FALSE;
    for (uint32_t k = 0; si && k < h->nrelated; k++)
        if (h->related[k].line == si->line && !g_strcmp0(h->related[k].file, si->file))
            return TRUE;
    return FALSE;
}

static void show_overlap(CvEventView *v, const struct search_hint *h)
{
    for (int k = 0; k < h->nranks; k++) {
        int r = h->ranks[k];
        const struct search_rank_result *rr = rank_result(v, r);
        char what[32], count[128], time[192], a[32], b[32], c[32];
        snprintf(what, sizeof what, "rank %d", r);
        if (!rr) {
            add_row(v, NULL, NULL, what, "not analysed", "", "", "", NULL, 0, NULL);
            continue;
        }
        gboolean any = FALSE;
        uint32_t nov;
        const struct search_overlap *ov = search_rank_overlaps(rr, &nov);
        for (uint32_t i = 0; i < nov; i++) {
            const struct search_overlap *o = &ov[i];
            if (o->call != h->call || !search_hint_at_site(h, o->info, false) ||
                o->needs_buffer != ((h->flags & SEARCH_HINT_NEEDS_BUFFER) != 0)) /* the variant's own entry */
                continue;
            any = TRUE;
            char *site = site_text(o->info->file, o->info->line, o->info->col, NULL);
            char *call_site = g_strdup_printf("%s %s", trace_mpi_call_name(o->call), site);
            char *iters = boxes_text(&o->iters);
            snprintf(count, sizeof count, "%" PRIu64 " of %" PRIu64 " calls", o->with_window, o->instances);
            snprintf(time, sizeof time, "%s MPI, %s comp.", search_format_ns(a, sizeof a, o->comm_ns),
                     search_format_ns(b, sizeof b, o->comp_ns));
            char *tip = g_strdup_printf("Rank %d: %" PRIu64 " of the %" PRIu64 " dynamic calls of %s at %s "
                                        "have computation to overlap; %s in the calls, %s of computation in "
                                        "their windows: up to %s of the calls' time can be hidden on this rank%s",
                                        r, o->with_window, o->instances, trace_mpi_call_name(o->call), site,
                                        a, b, search_format_ns(c, sizeof c, o->saving_ns),
                                        o->truncated ? "; some windows were cut at the horizon" : "");
            GtkTreeIter parent;
            add_row(v, NULL, &parent, what, call_site, iters, count, time, o->info->file, o->info->line, tip);
            g_free(tip);
            g_free(iters);
            g_free(call_site);
            g_free(site);
            uint32_t outside = 0;
            for (uint32_t s = 0; s < o->nstmts; s++) {
                const struct search_stmt *st = &o->stmts[s];
                const struct trace_site_info *si = st->info;
                int role = st->flags & SEARCH_STMT_AFTER ? SEARCH_REL_AFTER : SEARCH_REL_BEFORE;
                if (!hint_lists(h, si, role)) { /* not what the fix overlaps: the hint does not list it */
                    outside++;
                    continue;
                }
                char *ssite =
                    si ? site_text(si->file, si->line, si->col, NULL) : g_strdup_printf("site %u", st->site);
                char *siters = boxes_text(&st->iters);
                char role_txt[64];
                snprintf(role_txt, sizeof role_txt, "%s%s", search_role_text(role, true),
                         st->site_flags & CHT_SITEF_CONDITIONAL ? " (cond.)" : "");
                snprintf(count, sizeof count, "%" PRIu64 " of %" PRIu64, st->events, st->total);
                char *stip = g_strdup_printf(
                    "%s%s: %" PRIu64 " of its %" PRIu64
                    " executions on rank %d are in the call's windows%s%s",
                    search_role_text(role, true),
                    st->site_flags & CHT_SITEF_CONDITIONAL ? " (conditional code)" : "", st->events,
                    st->total, r, si && si->func ? "; in " : "", si && si->func ? si->func : "");
                add_row(v, &parent, NULL, role_txt, ssite, siters, count,
                        search_format_ns(a, sizeof a, st->time_ns), si ? si->file : NULL, si ? si->line : 0,
                        stip);
                g_free(stip);
                g_free(siters);
                g_free(ssite);
            }
            if (outside) {
                snprintf(count, sizeof count, "%u statement%s", outside, outside == 1 ? "" : "s");
                add_row(v, &parent, NULL, "not in the fix's window", "", "", count, "", NULL, 0,
                        "Statements of this rank's windows that the hint's fix does not put between the start "
                        "and the wait (beyond the last wait, before the start, the call's own arguments): the "
                        "hint does not list or credit them");
            }
        }
        if (!any)
            add_row(v, NULL, NULL, what, "no instance at this call site", "", "", "", NULL, 0, NULL);
    }
}

/* ---- aggregation ----------------------------------------------------------------------------------- */

static gboolean group_matches(const struct search_group *g, const struct search_hint *h)
{
    for (uint32_t s = 0; g->info && s < g->nsites; s++)
        if (search_hint_at_site(h, g->info[s], false))
            return TRUE;
    return FALSE;
}

static void show_aggregate(CvEventView *v, const struct search_hint *h)
{
    for (int k = 0; k < h->nranks; k++) {
        int r = h->ranks[k];
        const struct search_rank_result *rr = rank_result(v, r);
        char what[32], count[192], a[32];
        snprintf(what, sizeof what, "rank %d", r);
        if (!rr) {
            add_row(v, NULL, NULL, what, "not analysed", "", "", "", NULL, 0, NULL);
            continue;
        }
        gboolean any = FALSE;
        uint32_t ngr;
        const struct search_group *gr = search_rank_groups(rr, &ngr);
        for (uint32_t i = 0; i < ngr; i++) {
            const struct search_group *g = &gr[i];
            if (!group_matches(g, h))
                continue;
            any = TRUE;
            GString *lines = g_string_new(NULL);
            for (uint32_t s = 0; s < g->nsites; s++) {
                const struct trace_site_info *si = g->info ? g->info[s] : NULL;
                if (si)
                    g_string_append_printf(lines, "%s%u", lines->len ? ", " : "lines ", si->line);
            }
            char *site = g_strdup_printf("to rank %d%s%s", g->peer, lines->len ? ": " : "", lines->str);
            if (g->min_size == g->max_size)
                snprintf(count, sizeof count,
                         "%" PRIu64 " groups, %" PRIu64 " sends, %" PRIu64 " bytes, %u per group", g->groups,
                         g->members, g->bytes, g->min_size);
            else
                snprintf(count, sizeof count,
                         "%" PRIu64 " groups, %" PRIu64 " sends, %" PRIu64 " bytes, %u-%u per group",
                         g->groups, g->members, g->bytes, g->min_size, g->max_size);
            char *tip =
                g_strdup_printf("Rank %d: %" PRIu64 " groups of sends to rank %d that can each be one "
                                "message; they took %s to send",
                                r, g->groups, g->peer, search_format_ns(a, sizeof a, g->send_ns));
            GtkTreeIter parent;
            add_row(v, NULL, &parent, what, site, "", count, search_format_ns(a, sizeof a, g->send_ns), h->file,
                    h->line, tip);
            g_free(tip);
            g_free(site);
            g_string_free(lines, TRUE);
            for (uint32_t s = 0; s < g->nsites; s++) {
                const struct trace_site_info *si = g->info ? g->info[s] : NULL;
                char *ssite = si ? site_text(si->file, si->line, si->col, NULL)
                                 : g_strdup_printf("site %u", g->sites[s]);
                add_row(v, &parent, NULL, "member", ssite, "", "", "", si ? si->file : NULL,
                        si ? si->line : 0, NULL);
                g_free(ssite);
            }
        }
        if (!any)
            add_row(v, NULL, NULL, what, "no group at this call site", "", "", "", NULL, 0, NULL);
    }
}

/* ---- collectives ------------------------------------------------------------------------------------ */

/* A line of a collective hint: the call itself or a related call. */
struct cline {
    const char *file;
    uint32_t line, col;
    const char *func;
    int role; /* 0: the hint's call */
    uint64_t calls, ns;
    uint64_t last_index;
    gboolean seen;
};

static void show_collective(CvEventView *v, const struct search_hint *h)
{
    guint n = 1 + h->nrelated;
    struct cline *lines = g_new0(struct cline, n);
    lines[0] = (struct cline){.file = h->file, .line = h->line, .col = h->col, .func = h->func};
    for (uint32_t k = 0; k < h->nrelated; k++) {
        const struct search_related *r = &h->related[k];
        lines[k + 1] =
            (struct cline){.file = r->file, .line = r->line, .col = r->col, .func = r->func, .role = r->role};
    }
    for (int k = 0; k < h->nranks; k++) {
        int r = h->ranks[k];
        const struct search_rank_result *rr = rank_result(v, r);
        char what[32], count[64], a[32];
        snprintf(what, sizeof what, "rank %d", r);
        if (!rr) {
            add_row(v, NULL, NULL, what, "not analysed", "", "", "", NULL, 0, NULL);
            continue;
        }
        for (guint i = 0; i < n; i++) {
            lines[i].calls = lines[i].ns = 0;
            lines[i].seen = FALSE;
        }
        /* every part of the rank's calls at the lines (a completion's
         * receives carry their Irecv's sites) */
        const struct search_analysis *an = v->doc->analysis;
        uint32_t nparts = search_analysis_nparts(an, r);
        for (uint32_t i = 0; i < nparts; i++) {
            const struct trace_site_info *si = search_analysis_part_info(an, r, i);
            struct search_part part;
            search_analysis_part(an, r, i, &part);
            const struct search_call *c = search_analysis_call(an, r, part.call);
            for (guint j = 0; si && j < n; j++) {
                if (!same_location(si, lines[j].file, lines[j].line))
                    continue;
                /* a Sendrecv or a Wait gives several parts of one call */
                if (lines[j].seen && lines[j].last_index == c->index)
                    continue;
                lines[j].seen = TRUE;
                lines[j].last_index = c->index;
                lines[j].calls++;
                if (c->timed && c->t_exit > c->t_enter)
                    lines[j].ns += c->t_exit - c->t_enter;
            }
        }
        GtkTreeIter parent;
        uint64_t calls = 0, ns = 0;
        for (guint j = 0; j < n; j++) {
            calls += lines[j].calls;
            ns += lines[j].ns;
        }
        snprintf(count, sizeof count, "%" PRIu64 " calls", calls);
        char *site = g_strdup_printf("%s pattern", h->collective ? h->collective : "collective");
        add_row(v, NULL, &parent, what, site, "", count, search_format_ns(a, sizeof a, ns), h->file, h->line,
                NULL);
        g_free(site);
        for (guint j = 0; j < n; j++) {
            char *ssite = site_text(lines[j].file, lines[j].line, lines[j].col, NULL);
            snprintf(count, sizeof count, "%" PRIu64 " calls", lines[j].calls);
            add_row(v, &parent, NULL, j ? search_role_text(lines[j].role, true) : "call", ssite, "", count,
                    search_format_ns(a, sizeof a, lines[j].ns), lines[j].file, lines[j].line,
                    j ? search_role_text(lines[j].role, true) : NULL);
            g_free(ssite);
        }
    }
    g_free(lines);
}

/* ---- the header ---------------------------------------------------------------------------------------- */

static void set_header(CvEventView *v, const struct search_hint *h)
{
    if (!h) {
        gtk_label_set_markup(v->header, "<i>Select a hint to see the events behind it.</i>");
        return;
    }
    char loc[512], ranks[256], a[32];
    GString *s = g_string_new(NULL);
    char *call = g_markup_escape_text(trace_mpi_call_name(h->call), -1);
    char *where = g_markup_escape_text(cv_hint_location(loc, sizeof loc, h), -1);
    char *msg = g_markup_escape_text(h->message ? h->message : "", -1);
    g_string_append_printf(s, "<b>[%s] %s</b> at %s", search_kind_name(h->kind), call, where);
    if (h->func && *h->func) {
        char *f = g_markup_escape_text(h->func, -1);
        g_string_append_printf(s, " in %s", f);
        g_free(f);
    }
    g_string_append_printf(s, "\n%s", msg);
    /* the path down to the MPI call, as the text output prints it */
    for (uint32_t k = 1, nf = search_hint_nframes(h); k < nf; k++) {
        struct trace_srcframe fr = search_hint_frame(h, k);
        char *ff = g_markup_escape_text(fr.func && *fr.func ? fr.func : "??", -1);
        char *fl = g_markup_escape_text(cv_basename(fr.file ? fr.file : ""), -1);
        if (k + 1 < nf)
            g_string_append_printf(s, "\n<small>through %s (%s:%u)</small>", ff, fl, fr.line);
        else
            g_string_append_printf(s, "\n<small>%s in %s (%s:%u)</small>", call, ff, fl, fr.line);
        g_free(fl);
        g_free(ff);
    }
    char *fix = search_fix_text(h, true);
    if (fix) {
        char *e = g_markup_escape_text(fix, -1);
        g_string_append_printf(s, "\n<b>to apply:</b> %s", e);
        g_free(e);
        free(fix);
    }
    if (h->late_sender_ns || h->late_receiver_ns || h->wait_collective_ns) {
        g_string_append(s, "\n<small>waits at this call:");
        if (h->late_sender_ns)
            g_string_append_printf(s, " late sender %s", search_format_ns(a, sizeof a, h->late_sender_ns));
        if (h->late_receiver_ns)
            g_string_append_printf(s, " late receiver %s", search_format_ns(a, sizeof a, h->late_receiver_ns));
        if (h->wait_collective_ns)
            g_string_append_printf(s, " at the collective %s",
                                   search_format_ns(a, sizeof a, h->wait_collective_ns));
        g_string_append(s, "</small>");
    }
    if (h->flags & SEARCH_HINT_CONDITIONAL)
        g_string_append(s,
                        "\n<small>check by hand: conditional code; the hint holds for the branches this run "
                        "took</small>");
    if (h->flags & SEARCH_HINT_SOME_RANKS)
        g_string_append_printf(s, "\n<small>holds on rank%s %s only</small>", h->nranks == 1 ? "" : "s",
                               cv_format_ranks(ranks, sizeof ranks, h->ranks, h->nranks));
    if (h->flags & SEARCH_HINT_SOME_ITERATIONS) {
        uint64_t held, of;
        search_hint_calls(h, &held, &of);
        g_string_append_printf(s, "\n<small>holds on %" PRIu64 " of %" PRIu64 " calls</small>", held, of);
    }
    if (h->flags & SEARCH_HINT_TRUNCATED)
        g_string_append(s, "\n<small>some windows were cut at the horizon</small>");
    if (h->flags & SEARCH_HINT_TWO_RANKS)
        g_string_append(s, "\n<small>" SEARCH_TWO_RANKS_TEXT "</small>");
    if (h->flags & SEARCH_HINT_ONE_PASS)
        g_string_append(s, "\n<small>" SEARCH_ONE_PASS_TEXT "</small>");
    gtk_label_set_markup(v->header, s->str);
    g_free(msg);
    g_free(where);
    g_free(call);
    g_string_free(s, TRUE);
}

/* ---- GObject --------------------------------------------------------------------------------------------
 */

static void on_row_activated(GtkTreeView *tree, GtkTreePath *path, GtkTreeViewColumn *col, CvEventView *v)
{
    GtkTreeModel *m = gtk_tree_view_get_model(tree);
    GtkTreeIter it;
    if (!gtk_tree_model_get_iter(m, &it, path))
        return;
    char *file = NULL;
    guint line = 0;
    gtk_tree_model_get(m, &it, COL_FILE, &file, COL_LINE, &line, -1);
    if (file && *file && line)
        g_signal_emit(v, signals[SIG_LOCATION], 0, file, line);
    g_free(file);
}

static void cv_event_view_class_init(CvEventViewClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    signals[SIG_LOCATION] = g_signal_new("location-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_UINT);
    gtk_widget_class_set_template_from_resource(wc, "/org/commhint/viewer/ui/eventview.ui");
    gtk_widget_class_bind_template_child(wc, CvEventView, header);
    gtk_widget_class_bind_template_child(wc, CvEventView, tree);
    gtk_widget_class_bind_template_child(wc, CvEventView, store);
    gtk_widget_class_bind_template_callback(wc, on_row_activated);
}

static void cv_event_view_init(CvEventView *v)
{
    gtk_widget_init_template(GTK_WIDGET(v));
    v->index = -1;
    set_header(v, NULL);
}

GtkWidget *cv_event_view_new(void)
{
    return g_object_new(CV_TYPE_EVENT_VIEW, NULL);
}

void cv_event_view_set_document(CvEventView *v, const struct cv_document *doc)
{
    g_return_if_fail(CV_IS_EVENT_VIEW(v));
    v->doc = doc;
    cv_event_view_show_hint(v, -1);
}

void cv_event_view_show_hint(CvEventView *v, int index)
{
    g_return_if_fail(CV_IS_EVENT_VIEW(v));
    gtk_tree_store_clear(v->store);
    const struct search_hint *h = NULL;
    if (v->doc && v->doc->report && index >= 0 && (uint32_t)index < v->doc->report->nhints)
        h = &v->doc->report->hints[index];
    v->index = h ? index : -1;
    set_header(v, h);
    if (!h)
        return;
    switch (h->kind) {
    case SEARCH_HINT_OVERLAP: show_overlap(v, h); break;
    case SEARCH_HINT_AGGREGATE: show_aggregate(v, h); break;
    case SEARCH_HINT_COLLECTIVE: show_collective(v, h); break;
    default: break;
    }
    gtk_tree_view_expand_all(v->tree);
}
