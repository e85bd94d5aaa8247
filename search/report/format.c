/* format.c - the report in the formats every front end prints
 * (search_report_write: text, JSON, SARIF), and the small writers they
 * share with the command line (JSON strings, paths shown relative to the
 * current directory). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "search-private.h"

const char *const search_flag_names[8] = {"conditional",  "some-ranks", "some-iterations", "truncated",
                                          "needs-buffer", "not-merged", "two-ranks",  "one-pass"};

void search_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

const char *search_display_path(const char *p, bool relative)
{
    static char cwd[PATH_MAX];
    static bool have_cwd;
    if (!relative || !p || p[0] != '/')
        return p;
    if (!have_cwd) {
        if (!getcwd(cwd, sizeof cwd))
            return p;
        have_cwd = true;
    }
    size_t n = strlen(cwd);
    if (!strncmp(p, cwd, n) && p[n] == '/')
        return p + n + 1;
    return p;
}

static int wview_location_cmp(const void *pa, const void *pb)
{
    const struct search_waitsite *x = ((const struct wview *)pa)->w, *y = ((const struct wview *)pb)->w;
    int c = search_place_cmp(x->file, x->line, x->col, y->file, y->line, y->col);
    return c ? c : x->call < y->call ? -1 : x->call > y->call;
}

static int view_location_cmp(const void *pa, const void *pb)
{
    const struct view *a = pa, *b = pb;
    int c = search_hint_location_cmp(a->h, b->h);
    if (c || (c = strcmp(a->message, b->message)))
        return c;
    return a->rank_order < b->rank_order ? -1 : a->rank_order > b->rank_order;
}

/* Views of n hints: their messages (without times with --stable), their
 * position in the ranking when ranked (else 0), ordered by location with
 * --stable.  The messages and the array are the caller's to free (also
 * on failure: *out is set as soon as it is allocated). */
static int make_views(const struct search_hint *h, uint32_t n, bool ranked, bool stable, struct view **out)
{
    struct view *v = calloc(n ? n : 1, sizeof *v);
    *out = v;
    if (!v)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        v[i].h = &h[i];
        v[i].rank_order = ranked ? i + 1 : 0;
        v[i].message = stable || !h[i].message ? search_hint_message(&h[i], !stable) : strdup(h[i].message);
        if (!v[i].message)
            return -1;
    }
    if (stable && n)
        qsort(v, n, sizeof *v, view_location_cmp);
    return 0;
}

static void free_views(struct view *v, uint32_t n)
{
    for (uint32_t i = 0; v && i < n; i++)
        free(v[i].message);
    free(v);
}

size_t search_escape_free(const char *s, size_t len)
{
    size_t i = 0;
    for (; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            break;
    }
    return i;
}

void search_write_escaped(FILE *f, const char *s, size_t len)
{
    while (len) { /* the characters without escapes in one go, then one escaped */
        size_t n = search_escape_free(s, len);
        fwrite(s, 1, n, f);
        if (n == len)
            break;
        fprintf(f, "\\x%02x", (unsigned char)s[n]);
        s += n + 1;
        len -= n + 1;
    }
}

int search_report_write(FILE *f, const struct search_report *rep, int format, const struct search_format_opts *o)
{
    struct view *views = NULL, *dviews = NULL;
    struct wview *wviews = NULL;
    int rc = TRACE_ERR_NOMEM;
    if (make_views(rep->hints, rep->nhints, true, o->stable, &views) < 0 ||
        make_views(rep->dropped, rep->ndropped, false, o->stable, &dviews) < 0 ||
        !(wviews = calloc(rep->nwaits ? rep->nwaits : 1, sizeof *wviews)))
        goto out;
    for (uint32_t i = 0; i < rep->nwaits; i++)
        wviews[i].w = &rep->waits[i];
    if (o->stable && rep->nwaits)
        qsort(wviews, rep->nwaits, sizeof *wviews, wview_location_cmp);
    if (format == SEARCH_FORMAT_JSON) {
        search_write_json(f, views, rep->nhints, dviews, rep->ndropped, wviews, rep, o);
    } else if (format == SEARCH_FORMAT_SARIF) {
        search_write_sarif(f, views, rep->nhints, o); /* dropped hints are not results */
    } else {
        /* text goes to a terminal: written to memory first, then with the
         * control characters a trace could carry (in a file or function
         * name) escaped */
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (!m)
            goto out;
        search_write_text(m, views, rep->nhints, o);
        if (o->explain)
            search_write_dropped_text(m, dviews, rep->ndropped);
        if (o->waits)
            search_write_waits_text(m, wviews, rep->nwaits, o->stable);
        if (fclose(m) != 0) {
            free(buf);
            goto out;
        }
        search_write_escaped(f, buf, len);
        free(buf);
    }
    rc = 0;
out:
    free_views(views, rep->nhints);
    free_views(dviews, rep->ndropped);
    free(wviews);
    return rc;
}
