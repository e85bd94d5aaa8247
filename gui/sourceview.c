/* sourceview.c - the source pane (see sourceview.h): a GtkSourceView
 * showing one of the program's files at a time, with the hints' gutter
 * marks and the selected hint's lines as GtkSourceMarks.  Layout is in
 * ui/sourceview.ui; what goes on which line comes from mark-model.c, where
 * a file is on disk from source-path.c. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <gtksourceview/gtksource.h>

#include "hint-model.h"
#include "mark-model.h"
#include "source-path.h"
#include "sourceview.h"

#define MAX_REMEMBERED_DIRS 16

struct _CvSourcePane {
    GtkBox parent;
    /* template children */
    GtkComboBoxText *file_combo;
    GtkLabel *path_label;
    GtkInfoBar *missing_bar;
    GtkLabel *missing_label;
    GtkSourceView *view;
    /* state */
    const struct cv_document *doc;
    GPtrArray *files;        /* recorded file names (borrowed from the trace), sorted */
    GHashTable *resolved;    /* recorded name -> path on disk, or "" if not found (both owned) */
    GPtrArray *session_dirs; /* from --source-dir (owned strings) */
    GPtrArray *saved_dirs;   /* from the settings (owned strings) */
    struct cv_marks hint_marks;
    struct cv_marks sel_marks;
    int selected;  /* index of the selected hint, -1 */
    char *current; /* recorded name of the file shown, or NULL */
    gboolean current_found;
    char *current_where; /* cv_source_where of the file shown, if found */
    gboolean updating_combo;
    GtkTextMark *scroll_mark;
    guint scroll_line; /* line being scrolled to (0: none) */
    guint scroll_tries;
    guint scroll_source; /* timeout that checks the scroll happened */
};

G_DEFINE_TYPE(CvSourcePane, cv_source_pane, GTK_TYPE_BOX)

/* ---- colours and icons -------------------------------------------------------- */

#define CALL_COLOR 0xffe066u /* the selected hint's call line */
#define PATH_COLOR 0xfff5c2u /* the frames of its call path below it */

static guint32 role_color(int role)
{
    switch (role) {
    case SEARCH_REL_BEFORE: return 0xc6efc6; /* green: can move after the call */
    case SEARCH_REL_AFTER: return 0xcce0ff;  /* blue: can run before the wait */
    case SEARCH_REL_MEMBER: return 0xffd6ad; /* orange: merged send */
    case SEARCH_REL_SEND: return 0xe5d4ff;   /* purple: calls of a collective pattern */
    case SEARCH_REL_RECV: return 0xf3d4f0;
    case SEARCH_REL_COLL: return 0xd0f0ec;
    }
    return 0xe0e0e0;
}

static void rgba_of(guint32 rgb, GdkRGBA *c)
{
    c->red = ((rgb >> 16) & 0xff) / 255.0;
    c->green = ((rgb >> 8) & 0xff) / 255.0;
    c->blue = (rgb & 0xff) / 255.0;
    c->alpha = 1.0;
}

enum shape { SHAPE_CIRCLE, SHAPE_SQUARE, SHAPE_DIAMOND, SHAPE_RING, SHAPE_TRIANGLE, SHAPE_BAR };

/* A gutter icon drawn with cairo, so it does not depend on an icon theme. */
static GdkPixbuf *draw_icon(enum shape shape, guint32 rgb)
{
    const int size = 32;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, size, size);
    cairo_t *cr = cairo_create(s);
    GdkRGBA c;
    rgba_of(rgb, &c);
    cairo_set_source_rgba(cr, c.red, c.green, c.blue, 1.0);
    switch (shape) {
    case SHAPE_CIRCLE:
        cairo_arc(cr, size / 2.0, size / 2.0, size * 0.38, 0, 2 * G_PI);
        cairo_fill(cr);
        break;
    case SHAPE_SQUARE:
        cairo_rectangle(cr, size * 0.14, size * 0.14, size * 0.72, size * 0.72);
        cairo_fill(cr);
        break;
    case SHAPE_DIAMOND:
        cairo_move_to(cr, size / 2.0, size * 0.06);
        cairo_line_to(cr, size * 0.94, size / 2.0);
        cairo_line_to(cr, size / 2.0, size * 0.94);
        cairo_line_to(cr, size * 0.06, size / 2.0);
        cairo_close_path(cr);
        cairo_fill(cr);
        break;
    case SHAPE_RING:
        cairo_set_line_width(cr, size * 0.14);
        cairo_arc(cr, size / 2.0, size / 2.0, size * 0.26, 0, 2 * G_PI);
        cairo_stroke(cr);
        break;
    case SHAPE_TRIANGLE: /* pointing right: "starts here" */
        cairo_move_to(cr, size * 0.18, size * 0.12);
        cairo_line_to(cr, size * 0.88, size / 2.0);
        cairo_line_to(cr, size * 0.18, size * 0.88);
        cairo_close_path(cr);
        cairo_fill(cr);
        break;
    case SHAPE_BAR: /* a stop: "waits here" */
        cairo_rectangle(cr, size * 0.14, size * 0.36, size * 0.72, size * 0.28);
        cairo_fill(cr);
        break;
    }
    cairo_destroy(cr);
    cairo_surface_flush(s);
    GdkPixbuf *pb = gdk_pixbuf_get_from_surface(s, 0, 0, size, size);
    cairo_surface_destroy(s);
    return pb;
}

/* Darker version of a highlight colour, for the related lines' icons. */
static guint32 darker(guint32 rgb)
{
    guint32 r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
    return ((r * 55 / 100) << 16) | ((g * 55 / 100) << 8) | (b * 55 / 100);
}

static const int related_roles[] = {SEARCH_REL_BEFORE, SEARCH_REL_AFTER, SEARCH_REL_MEMBER,
                                    SEARCH_REL_SEND,   SEARCH_REL_RECV,  SEARCH_REL_COLL};

/* The GtkSourceMark category of a mark of the model. */
static const char *mark_category(int cat, int role)
{
    switch (cat) {
    case CV_MARK_OVERLAP: return "cv-overlap";
    case CV_MARK_AGGREGATE: return "cv-aggregate";
    case CV_MARK_COLLECTIVE: return "cv-collective";
    case CV_MARK_CALL: return "cv-call";
    case CV_MARK_PATH: return "cv-path";
    case CV_MARK_FIX: return role == CV_FIX_START ? "cv-fix-start" : "cv-fix-wait";
    case CV_MARK_RELATED:
        switch (role) {
        case SEARCH_REL_BEFORE: return "cv-rel-before";
        case SEARCH_REL_AFTER: return "cv-rel-after";
        case SEARCH_REL_MEMBER: return "cv-rel-member";
        case SEARCH_REL_SEND: return "cv-rel-send";
        case SEARCH_REL_RECV: return "cv-rel-recv";
        case SEARCH_REL_COLL: return "cv-rel-collective";
        }
        return "cv-rel-other";
    }
    return "cv-other";
}

static gchar *on_query_tooltip(GtkSourceMarkAttributes *attrs, GtkSourceMark *mark, gpointer data)
{
    const char *text = g_object_get_data(G_OBJECT(mark), "cv-tooltip");
    return g_strdup(text ? text : "");
}

static void add_attributes(GtkSourceView *view, const char *category, GdkPixbuf *icon, const guint32 *bg,
                           int priority)
{
    GtkSourceMarkAttributes *a = gtk_source_mark_attributes_new();
    if (icon)
        gtk_source_mark_attributes_set_pixbuf(a, icon);
    if (bg) {
        GdkRGBA c;
        rgba_of(*bg, &c);
        gtk_source_mark_attributes_set_background(a, &c);
    }
    g_signal_connect(a, "query-tooltip-text", G_CALLBACK(on_query_tooltip), NULL);
    gtk_source_view_set_mark_attributes(view, category, a, priority);
    g_object_unref(a);
}

static void setup_mark_attributes(GtkSourceView *view)
{
    static const struct {
        int cat;
        enum shape shape;
        guint32 color;
    } kinds[] = {
        {CV_MARK_OVERLAP, SHAPE_CIRCLE, 0x2563eb},    /* blue disc */
        {CV_MARK_AGGREGATE, SHAPE_SQUARE, 0xea580c},  /* orange square */
        {CV_MARK_COLLECTIVE, SHAPE_DIAMOND, 0x16a34a} /* green diamond */
    };
    for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
        GdkPixbuf *pb = draw_icon(kinds[i].shape, kinds[i].color);
        add_attributes(view, mark_category(kinds[i].cat, 0), pb, NULL, 40);
        g_clear_object(&pb);
    }
    guint32 call = CALL_COLOR, path = PATH_COLOR;
    add_attributes(view, mark_category(CV_MARK_CALL, 0), NULL, &call, 50);
    add_attributes(view, mark_category(CV_MARK_PATH, 0), NULL, &path, 45);
    /* the fix: a green triangle where the nonblocking call starts, a red
     * bar where it is waited for */
    GdkPixbuf *start = draw_icon(SHAPE_TRIANGLE, 0x15803d), *wait = draw_icon(SHAPE_BAR, 0xb91c1c);
    add_attributes(view, mark_category(CV_MARK_FIX, CV_FIX_START), start, NULL, 60);
    add_attributes(view, mark_category(CV_MARK_FIX, CV_FIX_WAIT), wait, NULL, 60);
    g_clear_object(&start);
    g_clear_object(&wait);
    for (size_t i = 0; i < G_N_ELEMENTS(related_roles); i++) {
        guint32 bg = role_color(related_roles[i]);
        GdkPixbuf *pb = draw_icon(SHAPE_RING, darker(bg));
        add_attributes(view, mark_category(CV_MARK_RELATED, related_roles[i]), pb, &bg, 30);
        g_clear_object(&pb);
    }
    guint32 other = role_color(0);
    add_attributes(view, "cv-rel-other", NULL, &other, 30);
}

/* ---- settings: the remembered source directories ------------------------------ */

static char *settings_path(void)
{
    return g_build_filename(g_get_user_config_dir(), "commhint", "viewer.ini", NULL);
}

static void settings_load_dirs(GPtrArray *dirs)
{
    char *path = settings_path();
    GKeyFile *kf = g_key_file_new();
    if (g_key_file_load_from_file(kf, path, G_KEY_FILE_KEEP_COMMENTS, NULL)) {
        gsize n = 0;
        gchar **list = g_key_file_get_string_list(kf, "sources", "directories", &n, NULL);
        for (gsize i = 0; list && i < n; i++)
            if (list[i][0])
                g_ptr_array_add(dirs, g_strdup(list[i]));
        g_strfreev(list);
    }
    g_key_file_unref(kf);
    g_free(path);
}

/* Puts dir first in the remembered list and writes the file. */
static void settings_save_dirs(GPtrArray *dirs)
{
    char *path = settings_path();
    char *parent = g_path_get_dirname(path);
    GKeyFile *kf = g_key_file_new();
    GError *err = NULL;
    g_key_file_load_from_file(kf, path, G_KEY_FILE_KEEP_COMMENTS, NULL);
    g_key_file_set_string_list(kf, "sources", "directories", (const gchar *const *)dirs->pdata, dirs->len);
    if (g_mkdir_with_parents(parent, 0700) != 0 || !g_key_file_save_to_file(kf, path, &err))
        g_printerr("commhint-gui: warning: cannot remember the source directory: file=%s reason=%s\n", path,
                   err ? err->message : g_strerror(errno));
    g_clear_error(&err);
    g_key_file_unref(kf);
    g_free(parent);
    g_free(path);
}

/* ---- finding files ------------------------------------------------------------------ */

/* The directories to look in: --source-dir ones, remembered ones, then
 * the trace directory, its parent and the program's directory (a trace
 * moved with its sources). */
static GPtrArray *search_dirs(CvSourcePane *p)
{
    GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < p->session_dirs->len; i++)
        g_ptr_array_add(a, g_strdup(p->session_dirs->pdata[i]));
    for (guint i = 0; i < p->saved_dirs->len; i++)
        g_ptr_array_add(a, g_strdup(p->saved_dirs->pdata[i]));
    if (p->doc && p->doc->dir) {
        g_ptr_array_add(a, g_strdup(p->doc->dir));
        g_ptr_array_add(a, g_path_get_dirname(p->doc->dir));
    }
    if (p->doc && p->doc->trace) {
        const char *prog = trace_program(p->doc->trace);
        if (prog && *prog)
            g_ptr_array_add(a, g_path_get_dirname(prog));
    }
    return a;
}

/* Path on disk of a recorded file, or NULL (cached). */
static const char *resolve(CvSourcePane *p, const char *file)
{
    if (!file || !*file)
        return NULL;
    const char *hit = g_hash_table_lookup(p->resolved, file);
    if (!hit) {
        GPtrArray *dirs = search_dirs(p);
        char *found = cv_source_find(file, (const char *const *)dirs->pdata, dirs->len);
        g_ptr_array_unref(dirs);
        hit = found ? g_strdup(found) : g_strdup("");
        free(found);
        g_hash_table_insert(p->resolved, g_strdup(file), (gpointer)hit);
    }
    return *hit ? hit : NULL;
}

/* ---- marks ------------------------------------------------------------------------ */

static const struct search_hint *hint_at(CvSourcePane *p, guint i)
{
    if (!p->doc || !p->doc->report || i >= p->doc->report->nhints)
        return NULL;
    return &p->doc->report->hints[i];
}

static char *hint_tooltip(const struct search_hint *h)
{
    return g_strdup_printf("[%s] %s", search_kind_name(h->kind), h->message ? h->message : "");
}

/* The tooltip of a related line of hint h: what the hints' text output
 * says about it. */
static char *related_tooltip(const struct search_hint *h, const char *file, guint line, int role)
{
    GString *s = g_string_new(NULL);
    for (uint32_t k = 0; k < h->nrelated; k++) {
        const struct search_related *r = &h->related[k];
        if (r->line != line || r->role != role || g_strcmp0(r->file ? r->file : "", file))
            continue;
        if (s->len)
            g_string_append_c(s, '\n');
        g_string_append(s, search_role_text(r->role, true));
        if (r->conditional)
            g_string_append(s, " (conditional)");
        if (r->role != SEARCH_REL_MEMBER) {
            g_string_append_printf(s, ": %" PRIu64 " of %" PRIu64 " executions", r->events, r->total);
            char buf[256];
            gboolean any = FALSE;
            for (uint32_t b = 0; b < r->iters.n; b++) {
                if (!r->iters.box[b].depth)
                    continue;
                g_string_append(s, any ? ", " : ", iterations ");
                g_string_append(s, search_box_format(&r->iters.box[b], buf, sizeof buf));
                any = TRUE;
            }
            if (any && r->iters.more)
                g_string_append_printf(s, " and %" PRIu64 " more", r->iters.more);
        }
    }
    if (!s->len)
        g_string_append(s, search_role_text(role, true));
    return g_string_free(s, FALSE);
}

static GtkSourceBuffer *source_buffer(CvSourcePane *p)
{
    return GTK_SOURCE_BUFFER(gtk_text_view_get_buffer(GTK_TEXT_VIEW(p->view)));
}

static void add_source_mark(CvSourcePane *p, const struct cv_mark *m, char *tooltip)
{
    GtkSourceBuffer *buf = source_buffer(p);
    GtkTextIter it;
    gint nlines = gtk_text_buffer_get_line_count(GTK_TEXT_BUFFER(buf));
    if (!m->line || (gint)m->line > nlines) {
        g_free(tooltip);
        return;
    }
    gtk_text_buffer_get_iter_at_line(GTK_TEXT_BUFFER(buf), &it, (gint)m->line - 1);
    GtkSourceMark *mk = gtk_source_buffer_create_source_mark(buf, NULL, mark_category(m->cat, m->role), &it);
    g_object_set_data_full(G_OBJECT(mk), "cv-tooltip", tooltip, g_free);
}

/* Puts the marks of the file shown into the buffer. */
static void place_marks(CvSourcePane *p)
{
    GtkSourceBuffer *buf = source_buffer(p);
    GtkTextIter start, end;
    gtk_text_buffer_get_bounds(GTK_TEXT_BUFFER(buf), &start, &end);
    gtk_source_buffer_remove_source_marks(buf, &start, &end, NULL);
    if (!p->current || !p->current_found)
        return;
    const struct cv_file_marks *fm = cv_marks_file(&p->hint_marks, p->current);
    for (uint32_t i = 0; fm && i < fm->n; i++) {
        const struct search_hint *h = hint_at(p, fm->marks[i].hint);
        if (h)
            add_source_mark(p, &fm->marks[i], hint_tooltip(h));
    }
    fm = cv_marks_file(&p->sel_marks, p->current);
    for (uint32_t i = 0; fm && i < fm->n; i++) {
        const struct cv_mark *m = &fm->marks[i];
        const struct search_hint *h = hint_at(p, m->hint);
        if (!h)
            continue;
        char *tip;
        if (m->cat == CV_MARK_CALL)
            tip = g_strdup_printf("selected: %s", h->message ? h->message : "");
        else if (m->cat == CV_MARK_PATH)
            tip = g_strdup_printf("the call path of the selected hint: %s", trace_mpi_call_name(h->call));
        else if (m->cat == CV_MARK_FIX) {
            char *fix = search_fix_text(h, true);
            tip = g_strdup_printf("%s: to apply: %s", m->role == CV_FIX_START ? "the nonblocking call starts here"
                                                                              : "it is waited for here",
                                  fix ? fix : "");
            free(fix);
        } else
            tip = related_tooltip(h, p->current, m->line, m->role);
        add_source_mark(p, m, tip);
    }
}

/* ---- showing a file ------------------------------------------------------------------ */

static void set_missing(CvSourcePane *p, const char *file)
{
    if (!file) {
        gtk_widget_hide(GTK_WIDGET(p->missing_bar));
        return;
    }
    char *esc_base = g_markup_escape_text(cv_basename(file), -1);
    char *esc_file = g_markup_escape_text(file, -1);
    char *text = g_strdup_printf("<b>Source file not found: %s</b>\nThe trace records it as %s. Choose the "
                                 "directory that holds the program's sources; it is remembered for the "
                                 "next runs.",
                                 esc_base, esc_file);
    gtk_label_set_markup(p->missing_label, text);
    gtk_widget_show(GTK_WIDGET(p->missing_bar));
    g_free(text);
    g_free(esc_file);
    g_free(esc_base);
}

static gboolean line_in_view(CvSourcePane *p, guint line);
static guint focus_line(const struct search_hint *h);
static gboolean line_settled(CvSourcePane *p, guint line);

/* A scroll asked for before the view knew its size or its lines' heights
 * (a file just loaded, a window not laid out yet) can be lost: check a
 * few times that the line came into view, and scroll again if not. */
static gboolean scroll_check(gpointer data)
{
    CvSourcePane *p = data;
    if (!p->scroll_line || !p->scroll_mark || line_settled(p, p->scroll_line) || ++p->scroll_tries > 20) {
        p->scroll_source = 0;
        p->scroll_line = 0;
        return G_SOURCE_REMOVE;
    }
    gtk_text_view_scroll_to_mark(GTK_TEXT_VIEW(p->view), p->scroll_mark, 0.0, TRUE, 0.0, 0.15);
    return G_SOURCE_CONTINUE;
}

static void scroll_to_line(CvSourcePane *p, guint line)
{
    GtkTextBuffer *buf = GTK_TEXT_BUFFER(source_buffer(p));
    gint nlines = gtk_text_buffer_get_line_count(buf);
    if (!line || (gint)line > nlines)
        return;
    GtkTextIter it;
    gtk_text_buffer_get_iter_at_line(buf, &it, (gint)line - 1);
    gtk_text_buffer_place_cursor(buf, &it);
    if (!p->scroll_mark)
        p->scroll_mark = gtk_text_buffer_create_mark(buf, "cv-scroll", &it, TRUE);
    else
        gtk_text_buffer_move_mark(buf, p->scroll_mark, &it);
    /* near the top: the lines after the call (its forward window) show */
    gtk_text_view_scroll_to_mark(GTK_TEXT_VIEW(p->view), p->scroll_mark, 0.0, TRUE, 0.0, 0.15);
    p->scroll_line = line;
    p->scroll_tries = 0;
    if (!p->scroll_source)
        p->scroll_source = g_timeout_add(50, scroll_check, p);
}

static void select_in_combo(CvSourcePane *p, const char *file)
{
    p->updating_combo = TRUE;
    if (!file || !gtk_combo_box_set_active_id(GTK_COMBO_BOX(p->file_combo), file))
        gtk_combo_box_set_active(GTK_COMBO_BOX(p->file_combo), -1);
    p->updating_combo = FALSE;
}

/* Loads a recorded file into the view (file NULL: empty). */
static void load_file(CvSourcePane *p, const char *file)
{
    GtkSourceBuffer *buf = source_buffer(p);
    char *copy = g_strdup(file);
    g_free(p->current);
    p->current = copy;
    p->current_found = FALSE;
    g_clear_pointer(&p->current_where, g_free);
    select_in_combo(p, file);

    const char *path = resolve(p, file);
    gchar *contents = NULL;
    gsize len = 0;
    if (path && g_file_get_contents(path, &contents, &len, NULL)) {
        if (!g_utf8_validate(contents, (gssize)len, NULL)) {
            gchar *valid = g_utf8_make_valid(contents, (gssize)len);
            g_free(contents);
            contents = valid;
        }
        p->current_found = TRUE;
    }
    gtk_source_buffer_begin_not_undoable_action(buf);
    gtk_text_buffer_set_text(GTK_TEXT_BUFFER(buf), contents ? contents : "", -1);
    gtk_source_buffer_end_not_undoable_action(buf);
    g_free(contents);

    GtkSourceLanguageManager *lm = gtk_source_language_manager_get_default();
    GtkSourceLanguage *lang = NULL;
    if (file && *file)
        lang = gtk_source_language_manager_guess_language(lm, path ? path : file, NULL);
    if (!lang && file && *file)
        lang = gtk_source_language_manager_get_language(lm, "c");
    gtk_source_buffer_set_language(buf, lang);

    if (!file || !*file) {
        gtk_label_set_text(p->path_label, "");
        set_missing(p, NULL);
    } else if (p->current_found) {
        /* the file really read, and what the trace called it */
        char *where = cv_source_where(file, path);
        g_free(p->current_where);
        p->current_where = g_strdup(where ? where : path);
        free(where);
        gtk_label_set_text(p->path_label, p->current_where);
        gtk_widget_set_tooltip_text(GTK_WIDGET(p->path_label), p->current_where);
        set_missing(p, NULL);
    } else {
        gtk_label_set_text(p->path_label, "not found");
        gtk_widget_set_tooltip_text(GTK_WIDGET(p->path_label), file);
        set_missing(p, file);
    }
    place_marks(p);
}

/* Shows file (loading it if it is not the one shown) at line (0: top). */
static void show(CvSourcePane *p, const char *file, guint line)
{
    if (!file)
        return;
    if (g_strcmp0(file, p->current))
        load_file(p, file);
    if (line && p->current_found)
        scroll_to_line(p, line);
}

/* ---- the file list ----------------------------------------------------------------------- */

static gint cmp_str_ptr(gconstpointer a, gconstpointer b)
{
    return g_strcmp0(*(const char *const *)a, *(const char *const *)b);
}

static void add_file(GPtrArray *files, GHashTable *seen, const char *f)
{
    if (!f || !*f || g_hash_table_contains(seen, f))
        return;
    g_hash_table_add(seen, (gpointer)f);
    g_ptr_array_add(files, (gpointer)f);
}

static void fill_files(CvSourcePane *p)
{
    g_ptr_array_set_size(p->files, 0);
    p->updating_combo = TRUE;
    gtk_combo_box_text_remove_all(p->file_combo);
    p->updating_combo = FALSE;
    if (!p->doc || !p->doc->report)
        return;
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    const struct search_report *rep = p->doc->report;
    for (uint32_t i = 0; i < rep->nhints; i++) {
        add_file(p->files, seen, rep->hints[i].file);
        for (uint32_t k = 0; k < rep->hints[i].nrelated; k++)
            add_file(p->files, seen, rep->hints[i].related[k].file);
    }
    g_hash_table_unref(seen);
    g_ptr_array_sort(p->files, cmp_str_ptr);
    /* basenames, or whole paths where two files share a basename */
    p->updating_combo = TRUE;
    for (guint i = 0; i < p->files->len; i++) {
        const char *f = p->files->pdata[i];
        gboolean clash = FALSE;
        for (guint j = 0; j < p->files->len && !clash; j++)
            clash = j != i && !strcmp(cv_basename(f), cv_basename(p->files->pdata[j]));
        gtk_combo_box_text_append(p->file_combo, f, clash ? f : cv_basename(f));
    }
    p->updating_combo = FALSE;
}

/* ---- signal handlers ------------------------------------------------------------------------- */

static void on_file_changed(GtkComboBox *combo, CvSourcePane *p)
{
    if (p->updating_combo || !p->files) /* !files: being disposed */
        return;
    const char *id = gtk_combo_box_get_active_id(combo);
    if (!id)
        return;
    /* the recorded string the list holds (the combo's copy would not outlive it) */
    for (guint i = 0; i < p->files->len; i++)
        if (!strcmp(p->files->pdata[i], id)) {
            show(p, p->files->pdata[i], 0);
            break;
        }
}

static void reload_current(CvSourcePane *p)
{
    g_hash_table_remove_all(p->resolved);
    char *cur = g_strdup(p->current);
    g_free(p->current);
    p->current = NULL;
    if (cur) {
        /* a borrowed name from the list, so that marks find it */
        for (guint i = 0; i < p->files->len; i++)
            if (!strcmp(p->files->pdata[i], cur))
                load_file(p, p->files->pdata[i]);
        if (!p->current)
            load_file(p, cur);
    }
    g_free(cur);
    const struct search_hint *h = p->selected >= 0 ? hint_at(p, (guint)p->selected) : NULL;
    if (h && p->current_found && !g_strcmp0(h->file, p->current))
        scroll_to_line(p, focus_line(h));
}

static void on_dir_chosen(GtkNativeDialog *dlg, gint response, CvSourcePane *p)
{
    if (response == GTK_RESPONSE_ACCEPT && p->files) {
        char *dir = gtk_file_chooser_get_filename(GTK_FILE_CHOOSER(dlg));
        if (dir)
            cv_source_pane_add_source_dir(p, dir, TRUE);
        g_free(dir);
    }
    g_object_unref(dlg);
    g_object_unref(p);
}

static void on_choose_dir(GtkButton *button, CvSourcePane *p)
{
    GtkWidget *top = gtk_widget_get_toplevel(GTK_WIDGET(p));
    GtkFileChooserNative *dlg = gtk_file_chooser_native_new(
        "Choose the source directory", GTK_IS_WINDOW(top) ? GTK_WINDOW(top) : NULL,
        GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, "_Choose", "_Cancel");
    if (p->saved_dirs->len)
        gtk_file_chooser_set_current_folder(GTK_FILE_CHOOSER(dlg), p->saved_dirs->pdata[0]);
    g_signal_connect(dlg, "response", G_CALLBACK(on_dir_chosen), g_object_ref(p));
    gtk_native_dialog_set_modal(GTK_NATIVE_DIALOG(dlg), TRUE);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(dlg));
}

/* ---- GObject ------------------------------------------------------------------------------------ */

static void cv_source_pane_dispose(GObject *obj)
{
    CvSourcePane *p = CV_SOURCE_PANE(obj);
    if (p->scroll_source) {
        g_source_remove(p->scroll_source);
        p->scroll_source = 0;
    }
    cv_marks_free(&p->hint_marks);
    cv_marks_free(&p->sel_marks);
    g_clear_pointer(&p->current, g_free);
    g_clear_pointer(&p->current_where, g_free);
    g_clear_pointer(&p->resolved, g_hash_table_unref);
    g_clear_pointer(&p->files, g_ptr_array_unref);
    g_clear_pointer(&p->session_dirs, g_ptr_array_unref);
    g_clear_pointer(&p->saved_dirs, g_ptr_array_unref);
    p->doc = NULL;
    G_OBJECT_CLASS(cv_source_pane_parent_class)->dispose(obj);
}

static void cv_source_pane_class_init(CvSourcePaneClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = cv_source_pane_dispose;
    g_type_ensure(GTK_SOURCE_TYPE_VIEW);
    gtk_widget_class_set_template_from_resource(wc, "/org/commhint/viewer/ui/sourceview.ui");
    gtk_widget_class_bind_template_child(wc, CvSourcePane, file_combo);
    gtk_widget_class_bind_template_child(wc, CvSourcePane, path_label);
    gtk_widget_class_bind_template_child(wc, CvSourcePane, missing_bar);
    gtk_widget_class_bind_template_child(wc, CvSourcePane, missing_label);
    gtk_widget_class_bind_template_child(wc, CvSourcePane, view);
    gtk_widget_class_bind_template_callback(wc, on_file_changed);
    gtk_widget_class_bind_template_callback(wc, on_choose_dir);
}

static void cv_source_pane_init(CvSourcePane *p)
{
    gtk_widget_init_template(GTK_WIDGET(p));
    p->files = g_ptr_array_new();
    p->resolved = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    p->session_dirs = g_ptr_array_new_with_free_func(g_free);
    p->saved_dirs = g_ptr_array_new_with_free_func(g_free);
    p->selected = -1;
    settings_load_dirs(p->saved_dirs);
    setup_mark_attributes(p->view);

    GtkSourceBuffer *buf = source_buffer(p);
    GtkSourceStyleScheme *scheme =
        gtk_source_style_scheme_manager_get_scheme(gtk_source_style_scheme_manager_get_default(), "classic");
    if (scheme)
        gtk_source_buffer_set_style_scheme(buf, scheme);
    gtk_source_buffer_set_highlight_matching_brackets(buf, FALSE);
    gtk_widget_hide(GTK_WIDGET(p->missing_bar));
}

GtkWidget *cv_source_pane_new(void)
{
    return g_object_new(CV_TYPE_SOURCE_PANE, NULL);
}

/* ---- API ---------------------------------------------------------------------------------------- */

void cv_source_pane_set_document(CvSourcePane *p, const struct cv_document *doc)
{
    g_return_if_fail(CV_IS_SOURCE_PANE(p));
    p->doc = doc;
    p->selected = -1;
    cv_marks_free(&p->hint_marks);
    cv_marks_free(&p->sel_marks);
    g_hash_table_remove_all(p->resolved);
    g_clear_pointer(&p->current, g_free);
    fill_files(p);
    if (doc && doc->report)
        cv_marks_for_hints(doc->report->hints, doc->report->nhints, NULL, 0, &p->hint_marks);
    /* the top hint's file first, else the first file */
    const char *first = NULL;
    if (doc && doc->report && doc->report->nhints && doc->report->hints[0].file &&
        *doc->report->hints[0].file)
        first = doc->report->hints[0].file;
    else if (p->files->len)
        first = p->files->pdata[0];
    load_file(p, first);
}

void cv_source_pane_set_visible_hints(CvSourcePane *p, const guint *idx, guint n)
{
    g_return_if_fail(CV_IS_SOURCE_PANE(p));
    cv_marks_free(&p->hint_marks);
    if (p->doc && p->doc->report) {
        if (idx) {
            uint32_t *u = g_new(uint32_t, n ? n : 1);
            for (guint i = 0; i < n; i++)
                u[i] = idx[i];
            cv_marks_for_hints(p->doc->report->hints, p->doc->report->nhints, u, n, &p->hint_marks);
            g_free(u);
        } else {
            cv_marks_for_hints(p->doc->report->hints, p->doc->report->nhints, NULL, 0, &p->hint_marks);
        }
    }
    place_marks(p);
}

/* The line to bring to the top of the view for a hint: its call, and
 * above it what of its fix and largest region lies in the same file and
 * close enough for both to be seen. */
static guint focus_line(const struct search_hint *h)
{
    guint lo = h->line, hi = h->line;
    const guint span = 18; /* lines below the top that a pane of a usual size shows */
    guint cand[3] = {0, 0, 0};
    if (h->kind == SEARCH_HINT_OVERLAP) {
        if (h->fix.start.file && !g_strcmp0(h->fix.start.file, h->file))
            cand[0] = h->fix.start.line;
        if (h->fix.wait.file && !g_strcmp0(h->fix.wait.file, h->file))
            cand[1] = h->fix.wait.line;
    }
    if (h->nregions && !g_strcmp0(h->regions[0].file, h->file))
        cand[2] = h->regions[0].loop_line ? h->regions[0].loop_line : h->regions[0].line_lo;
    for (int i = 0; i < 3; i++) {
        if (!cand[i])
            continue;
        guint nlo = cand[i] < lo ? cand[i] : lo, nhi = cand[i] > hi ? cand[i] : hi;
        if (nhi - nlo <= span) {
            lo = nlo;
            hi = nhi;
        }
    }
    return lo > 2 ? lo - 2 : 1;
}

void cv_source_pane_select_hint(CvSourcePane *p, int index)
{
    g_return_if_fail(CV_IS_SOURCE_PANE(p));
    const struct search_hint *h = index >= 0 ? hint_at(p, (guint)index) : NULL;
    p->selected = h ? index : -1;
    cv_marks_free(&p->sel_marks);
    if (h)
        cv_marks_for_selection(h, (uint32_t)index, &p->sel_marks);
    if (h && h->file && *h->file && g_strcmp0(h->file, p->current)) {
        load_file(p, h->file);
    } else if (!h && !p->current && p->files->len) {
        load_file(p, p->files->pdata[0]);
    } else {
        place_marks(p);
    }
    if (h && p->current_found && !g_strcmp0(h->file, p->current))
        scroll_to_line(p, focus_line(h));
}

void cv_source_pane_show_location(CvSourcePane *p, const char *file, guint line)
{
    g_return_if_fail(CV_IS_SOURCE_PANE(p));
    if (!file || !*file)
        return;
    /* use the list's string when the file is one of the document's */
    for (guint i = 0; i < p->files->len; i++)
        if (!strcmp(p->files->pdata[i], file)) {
            show(p, p->files->pdata[i], line);
            return;
        }
    show(p, file, line);
}

void cv_source_pane_add_source_dir(CvSourcePane *p, const char *dir, gboolean remember)
{
    g_return_if_fail(CV_IS_SOURCE_PANE(p));
    if (!dir || !*dir)
        return;
    GPtrArray *list = remember ? p->saved_dirs : p->session_dirs;
    for (guint i = 0; i < list->len; i++)
        if (!strcmp(list->pdata[i], dir)) {
            g_ptr_array_remove_index(list, i);
            break;
        }
    g_ptr_array_insert(list, 0, g_strdup(dir));
    if (remember) {
        while (list->len > MAX_REMEMBERED_DIRS)
            g_ptr_array_remove_index(list, list->len - 1);
        settings_save_dirs(list);
    }
    reload_current(p);
}

const char *cv_source_pane_current_file(CvSourcePane *p, gboolean *found)
{
    g_return_val_if_fail(CV_IS_SOURCE_PANE(p), NULL);
    if (found)
        *found = p->current_found;
    return p->current;
}

const char *cv_source_pane_current_where(CvSourcePane *p)
{
    g_return_val_if_fail(CV_IS_SOURCE_PANE(p), NULL);
    return p->current_found ? p->current_where : NULL;
}

/* The line's vertical extent in the view's widget coordinates; FALSE if
 * the line is not in the buffer. */
static gboolean line_extent(CvSourcePane *p, guint line, int *y, int *height)
{
    GtkTextView *tv = GTK_TEXT_VIEW(p->view);
    GtkTextBuffer *buf = gtk_text_view_get_buffer(tv);
    if (!line || (gint)line > gtk_text_buffer_get_line_count(buf))
        return FALSE;
    GtkTextIter it;
    gtk_text_buffer_get_iter_at_line(buf, &it, (gint)line - 1);
    int by, bh, wx, wy;
    gtk_text_view_get_line_yrange(tv, &it, &by, &bh);
    gtk_text_view_buffer_to_window_coords(tv, GTK_TEXT_WINDOW_WIDGET, 0, by, &wx, &wy);
    *y = wy;
    *height = bh;
    return TRUE;
}

gboolean cv_source_pane_line_visible(CvSourcePane *p, guint line)
{
    g_return_val_if_fail(CV_IS_SOURCE_PANE(p), FALSE);
    return line_in_view(p, line);
}

gboolean cv_source_pane_line_settled(CvSourcePane *p, guint line)
{
    g_return_val_if_fail(CV_IS_SOURCE_PANE(p), FALSE);
    return line_settled(p, line);
}

static gboolean line_in_view(CvSourcePane *p, guint line)
{
    int y, h;
    if (!p->current_found || !line_extent(p, line, &y, &h))
        return FALSE;
    int mid = y + h / 2;
    return mid >= 0 && mid < gtk_widget_get_allocated_height(GTK_WIDGET(p->view));
}

/* The line where scroll_to_line puts it: in view and in the upper half of
 * the view, unless the view cannot scroll further down (the file's end).
 * A line merely in view may still be where a first, unaligned scroll left
 * it (the text view aligns once its lines are measured, in idle work). */
static gboolean line_settled(CvSourcePane *p, guint line)
{
    int y, h;
    if (!line_in_view(p, line) || !line_extent(p, line, &y, &h))
        return FALSE;
    if (y + h / 2 < gtk_widget_get_allocated_height(GTK_WIDGET(p->view)) / 2)
        return TRUE;
    GtkAdjustment *adj = gtk_scrollable_get_vadjustment(GTK_SCROLLABLE(p->view));
    return adj && gtk_adjustment_get_value(adj) >=
                      gtk_adjustment_get_upper(adj) - gtk_adjustment_get_page_size(adj) - 1;
}

static void visit_marks(CvSourcePane *p, const struct cv_marks *set, GtkWidget *relative_to,
                        cv_mark_visit_fn fn, void *ctx)
{
    const struct cv_file_marks *fm = cv_marks_file(set, p->current);
    GtkTextView *tv = GTK_TEXT_VIEW(p->view);
    GdkRectangle vis;
    gtk_text_view_get_visible_rect(tv, &vis);
    int view_h = gtk_widget_get_allocated_height(GTK_WIDGET(p->view));
    for (uint32_t i = 0; fm && i < fm->n; i++) {
        const struct cv_mark *m = &fm->marks[i];
        int y, h;
        if (!line_extent(p, m->line, &y, &h))
            continue;
        int mid = y + h / 2;
        if (mid < 0 || mid >= view_h)
            continue;
        /* a point in the text area's left margin, where the line's
         * background shows and text never is */
        int bx = vis.x + 2, wx, wy, tx = 0, ty = 0;
        gtk_text_view_buffer_to_window_coords(tv, GTK_TEXT_WINDOW_WIDGET, bx, 0, &wx, &wy);
        if (!gtk_widget_translate_coordinates(GTK_WIDGET(p->view), relative_to, wx, mid, &tx, &ty))
            continue;
        fn(ctx, cv_mark_cat_name(m->cat),
           m->cat == CV_MARK_RELATED ? search_role_name(m->role)
           : m->cat == CV_MARK_FIX   ? (m->role == CV_FIX_START ? "start" : "wait")
                                     : "",
           m->line, tx, ty);
    }
}

void cv_source_pane_visible_marks(CvSourcePane *p, GtkWidget *relative_to, cv_mark_visit_fn fn, void *ctx)
{
    g_return_if_fail(CV_IS_SOURCE_PANE(p));
    if (!fn || !p->current || !p->current_found)
        return;
    if (!relative_to)
        relative_to = gtk_widget_get_toplevel(GTK_WIDGET(p));
    visit_marks(p, &p->hint_marks, relative_to, fn, ctx);
    visit_marks(p, &p->sel_marks, relative_to, fn, ctx);
}
