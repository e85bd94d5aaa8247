/* hintlist.c - the hint list (see hintlist.h): a GtkListStore filled with
 * the rows hint-model.c selects, sorted by hint-model.c's comparisons. */
#include <string.h>

#include "hint-model.h"
#include "hintlist.h"

/* Columns of the store (ui/hintlist.ui declares the same). */
enum {
    COL_INDEX,    /* guint: index into the report's hints */
    COL_ORDER,    /* guint: rank order, from 1 */
    COL_KIND,     /* "overlap" ... */
    COL_CALL,     /* "MPI_Recv" */
    COL_LOCATION, /* "jacobi.c:84:13" */
    COL_SAVING,   /* "11 ms" */
    COL_RANKS,    /* "0, 2" */
    COL_TOOLTIP,  /* the message, escaped for markup */
    COL_COLOR,    /* the kind's colour, as its gutter mark */
    NCOLS
};

struct _CvHintList {
    GtkBox parent;
    GtkComboBoxText *kind_combo;
    GtkSpinButton *rank_spin;
    GtkAdjustment *rank_adj;
    GtkEntry *saving_entry;
    GtkLabel *count_label;
    GtkTreeView *tree;
    GtkListStore *store;
    const struct cv_document *doc;
    struct cv_hint_filter filter;
    gboolean refilling;
    int last_emitted;
};

G_DEFINE_TYPE(CvHintList, cv_hint_list, GTK_TYPE_BOX)

enum { SIG_SELECTED, SIG_ACTIVATED, SIG_FILTER_CHANGED, NSIGS };
static guint signals[NSIGS];

static const struct search_hint *hints_of(CvHintList *l, uint32_t *n)
{
    *n = l->doc && l->doc->report ? l->doc->report->nhints : 0;
    return *n ? l->doc->report->hints : NULL;
}

static const char *kind_color(int kind)
{
    switch (kind) {
    case SEARCH_HINT_OVERLAP: return "#2563eb";
    case SEARCH_HINT_AGGREGATE: return "#c2410c";
    case SEARCH_HINT_COLLECTIVE: return "#15803d";
    }
    return NULL;
}

/* ---- sorting: the columns' sort functions call the model's comparison ---- */

static gint sort_fn(GtkTreeModel *m, GtkTreeIter *a, GtkTreeIter *b, gpointer key)
{
    CvHintList *l = g_object_get_data(G_OBJECT(m), "cv-hint-list");
    guint ia = 0, ib = 0;
    uint32_t n;
    gtk_tree_model_get(m, a, COL_INDEX, &ia, -1);
    gtk_tree_model_get(m, b, COL_INDEX, &ib, -1);
    const struct search_hint *h = l ? hints_of(l, &n) : NULL;
    if (!h || ia >= n || ib >= n)
        return ia < ib ? -1 : ia > ib;
    return cv_hint_compare(&h[ia], ia, &h[ib], ib, GPOINTER_TO_INT(key));
}

/* ---- filling ---------------------------------------------------------------------------- */

static void update_count(CvHintList *l, uint32_t shown, uint32_t total)
{
    char buf[64];
    if (shown == total)
        snprintf(buf, sizeof buf, "%u hint%s", total, total == 1 ? "" : "s");
    else
        snprintf(buf, sizeof buf, "%u of %u hints", shown, total);
    gtk_label_set_text(l->count_label, buf);
}

static void emit_selected(CvHintList *l)
{
    int sel = cv_hint_list_selected(l);
    if (sel == l->last_emitted)
        return;
    l->last_emitted = sel;
    g_signal_emit(l, signals[SIG_SELECTED], 0, sel);
}

static void refill(CvHintList *l)
{
    uint32_t n;
    const struct search_hint *hints = hints_of(l, &n);
    int keep = cv_hint_list_selected(l);
    l->refilling = TRUE;
    gtk_list_store_clear(l->store);
    uint32_t *idx = g_new(uint32_t, n ? n : 1);
    uint32_t m = cv_hint_model_rows(hints, n, &l->filter, CV_SORT_ORDER, false, idx);
    for (uint32_t k = 0; k < m; k++) {
        const struct search_hint *h = &hints[idx[k]];
        char loc[512], saving[32], ranks[256], kind[64];
        char *tip = g_markup_escape_text(h->message ? h->message : "", -1);
        /* the variant that needs a buffer per message says so: it sits at
         * the same line as the plain hint of its call */
        snprintf(kind, sizeof kind, "%s%s", search_kind_name(h->kind),
                 h->flags & SEARCH_HINT_NEEDS_BUFFER ? " +buffer" : "");
        GtkTreeIter it;
        gtk_list_store_insert_with_values(l->store, &it, -1, COL_INDEX, (guint)idx[k], COL_ORDER,
                                          (guint)idx[k] + 1, COL_KIND, kind, COL_CALL,
                                          trace_mpi_call_name(h->call), COL_LOCATION,
                                          cv_hint_location(loc, sizeof loc, h), COL_SAVING,
                                          search_format_ns(saving, sizeof saving, h->saving_ns), COL_RANKS,
                                          cv_format_ranks(ranks, sizeof ranks, h->ranks, h->nranks),
                                          COL_TOOLTIP, tip, COL_COLOR, kind_color(h->kind), -1);
        g_free(tip);
    }
    g_free(idx);
    update_count(l, m, n);
    l->refilling = FALSE;
    if (keep < 0 || !cv_hint_list_select(l, keep))
        emit_selected(l);
    g_signal_emit(l, signals[SIG_FILTER_CHANGED], 0);
}

/* ---- the filter bar ------------------------------------------------------------------------ */

static void on_kind_changed(GtkComboBox *combo, CvHintList *l)
{
    if (l->refilling)
        return;
    const char *id = gtk_combo_box_get_active_id(combo);
    int kind = search_kind_from_name(id);
    l->filter.kinds = kind ? 1u << kind : 0;
    refill(l);
}

static void on_rank_changed(GtkSpinButton *spin, CvHintList *l)
{
    int r = gtk_spin_button_get_value_as_int(spin);
    if (l->refilling || r == l->filter.rank)
        return;
    l->filter.rank = r < 0 ? -1 : r;
    refill(l);
}

/* The spin button shows "all" for -1. */
static gboolean on_rank_output(GtkSpinButton *spin, CvHintList *l)
{
    int r = gtk_spin_button_get_value_as_int(spin);
    if (r >= 0)
        return FALSE;
    gtk_entry_set_text(GTK_ENTRY(spin), "all");
    return TRUE;
}

static gint on_rank_input(GtkSpinButton *spin, gdouble *value, CvHintList *l)
{
    const char *t = gtk_entry_get_text(GTK_ENTRY(spin));
    if (!g_ascii_strcasecmp(t, "all") || !*t) {
        *value = -1;
        return TRUE;
    }
    return FALSE;
}

static void on_saving_changed(GtkEditable *entry, CvHintList *l)
{
    uint64_t ns;
    if (l->refilling)
        return;
    GtkStyleContext *sc = gtk_widget_get_style_context(GTK_WIDGET(entry));
    if (!search_parse_duration(gtk_entry_get_text(GTK_ENTRY(entry)), &ns)) {
        gtk_style_context_add_class(sc, "error");
        gtk_widget_set_tooltip_text(
            GTK_WIDGET(entry), "A time such as 500us, 1.5ms, 2s or 100ns (a plain number is nanoseconds)");
        return;
    }
    gtk_style_context_remove_class(sc, "error");
    gtk_widget_set_tooltip_text(GTK_WIDGET(entry), "Only hints saving at least this much: 500us, 1.5ms, 2s");
    if (ns == l->filter.min_saving_ns)
        return;
    l->filter.min_saving_ns = ns;
    refill(l);
}

/* ---- the list ------------------------------------------------------------------------------------- */

static void on_selection_changed(GtkTreeSelection *sel, CvHintList *l)
{
    if (!l->refilling)
        emit_selected(l);
}

static void on_row_activated(GtkTreeView *tree, GtkTreePath *path, GtkTreeViewColumn *col, CvHintList *l)
{
    GtkTreeIter it;
    guint idx;
    GtkTreeModel *m = gtk_tree_view_get_model(tree);
    if (!gtk_tree_model_get_iter(m, &it, path))
        return;
    gtk_tree_model_get(m, &it, COL_INDEX, &idx, -1);
    g_signal_emit(l, signals[SIG_ACTIVATED], 0, (gint)idx);
}

static void cv_hint_list_class_init(CvHintListClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    signals[SIG_SELECTED] = g_signal_new("hint-selected", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
    signals[SIG_ACTIVATED] = g_signal_new("hint-activated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0,
                                          NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
    signals[SIG_FILTER_CHANGED] = g_signal_new("filter-changed", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST,
                                               0, NULL, NULL, NULL, G_TYPE_NONE, 0);
    gtk_widget_class_set_template_from_resource(wc, "/org/commhint/viewer/ui/hintlist.ui");
    gtk_widget_class_bind_template_child(wc, CvHintList, kind_combo);
    gtk_widget_class_bind_template_child(wc, CvHintList, rank_spin);
    gtk_widget_class_bind_template_child(wc, CvHintList, rank_adj);
    gtk_widget_class_bind_template_child(wc, CvHintList, saving_entry);
    gtk_widget_class_bind_template_child(wc, CvHintList, count_label);
    gtk_widget_class_bind_template_child(wc, CvHintList, tree);
    gtk_widget_class_bind_template_child(wc, CvHintList, store);
    gtk_widget_class_bind_template_callback(wc, on_kind_changed);
    gtk_widget_class_bind_template_callback(wc, on_rank_changed);
    gtk_widget_class_bind_template_callback(wc, on_rank_output);
    gtk_widget_class_bind_template_callback(wc, on_rank_input);
    gtk_widget_class_bind_template_callback(wc, on_saving_changed);
    gtk_widget_class_bind_template_callback(wc, on_row_activated);
}

static void cv_hint_list_init(CvHintList *l)
{
    static const struct {
        int col, key;
    } sorts[] = {{COL_ORDER, CV_SORT_ORDER},   {COL_KIND, CV_SORT_KIND},     {COL_CALL, CV_SORT_CALL},
                 {COL_LOCATION, CV_SORT_FILE}, {COL_SAVING, CV_SORT_SAVING}, {COL_RANKS, CV_SORT_RANKS}};
    gtk_widget_init_template(GTK_WIDGET(l));
    l->filter.rank = -1;
    l->last_emitted = -1;
    g_object_set_data(G_OBJECT(l->store), "cv-hint-list", l);
    for (size_t i = 0; i < G_N_ELEMENTS(sorts); i++)
        gtk_tree_sortable_set_sort_func(GTK_TREE_SORTABLE(l->store), sorts[i].col, sort_fn,
                                        GINT_TO_POINTER(sorts[i].key), NULL);
    gtk_tree_sortable_set_sort_column_id(GTK_TREE_SORTABLE(l->store), COL_ORDER, GTK_SORT_ASCENDING);
    g_signal_connect(gtk_tree_view_get_selection(l->tree), "changed", G_CALLBACK(on_selection_changed), l);
    l->refilling = TRUE;
    gtk_combo_box_set_active_id(GTK_COMBO_BOX(l->kind_combo), "all");
    l->refilling = FALSE;
}

GtkWidget *cv_hint_list_new(void)
{
    return g_object_new(CV_TYPE_HINT_LIST, NULL);
}

void cv_hint_list_set_document(CvHintList *l, const struct cv_document *doc)
{
    g_return_if_fail(CV_IS_HINT_LIST(l));
    l->doc = doc;
    l->filter = (struct cv_hint_filter){.kinds = 0, .rank = -1, .min_saving_ns = 0};
    l->refilling = TRUE;
    gtk_combo_box_set_active_id(GTK_COMBO_BOX(l->kind_combo), "all");
    gtk_adjustment_set_upper(l->rank_adj, doc && doc->world_size > 0 ? doc->world_size - 1 : 0);
    gtk_spin_button_set_value(l->rank_spin, -1);
    gtk_entry_set_text(l->saving_entry, "");
    l->refilling = FALSE;
    refill(l);
}

gboolean cv_hint_list_select(CvHintList *l, int index)
{
    g_return_val_if_fail(CV_IS_HINT_LIST(l), FALSE);
    GtkTreeModel *m = GTK_TREE_MODEL(l->store);
    GtkTreeIter it;
    gboolean ok = gtk_tree_model_get_iter_first(m, &it);
    for (; ok; ok = gtk_tree_model_iter_next(m, &it)) {
        guint idx;
        gtk_tree_model_get(m, &it, COL_INDEX, &idx, -1);
        if ((int)idx != index)
            continue;
        GtkTreePath *path = gtk_tree_model_get_path(m, &it);
        gtk_tree_view_set_cursor(l->tree, path, NULL, FALSE);
        gtk_tree_view_scroll_to_cell(l->tree, path, NULL, FALSE, 0, 0);
        gtk_tree_path_free(path);
        emit_selected(l);
        return TRUE;
    }
    return FALSE;
}

int cv_hint_list_selected(CvHintList *l)
{
    g_return_val_if_fail(CV_IS_HINT_LIST(l), -1);
    GtkTreeModel *m;
    GtkTreeIter it;
    if (!gtk_tree_selection_get_selected(gtk_tree_view_get_selection(l->tree), &m, &it))
        return -1;
    guint idx;
    gtk_tree_model_get(m, &it, COL_INDEX, &idx, -1);
    return (int)idx;
}

guint *cv_hint_list_visible(CvHintList *l, guint *n)
{
    uint32_t total;
    const struct search_hint *hints = hints_of(l, &total);
    uint32_t *idx = g_new(uint32_t, total ? total : 1);
    uint32_t m = cv_hint_model_rows(hints, total, &l->filter, CV_SORT_ORDER, false, idx);
    guint *out = g_new(guint, m ? m : 1);
    for (uint32_t k = 0; k < m; k++)
        out[k] = idx[k];
    g_free(idx);
    if (n)
        *n = m;
    return out;
}
