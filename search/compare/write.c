/* write.c - a comparison of two runs as text (compiler-style notes per
 * hint and call site) or JSON (docs/compare.md). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

/* call sites listed in text without --all */
#define TEXT_SITES 12

static const char *const status_name[] = {"gone", "remains", "new"};

/* Paths as `commhint hints` shows them: relative to the current
 * directory when below it. */
static const char *shown_path(const char *file)
{
    return file && *file ? search_display_path(file, true) : "??";
}

/* The hint's sentence as `commhint hints` prints it (with its saving), or
 * without times (--stable). */
static char *message_of(const struct search_hint *h, bool stable)
{
    return stable || !h->message ? search_hint_message(h, !stable) : strdup(h->message);
}

static bool hint_listed(const struct search_comparison *c, const struct search_cmp_hint *x, bool all)
{
    return all || (x->before && search_compare_shown(c, 0, x->before)) ||
           (x->after && search_compare_shown(c, 1, x->after));
}

/* Signed change b -> a as a percentage of b ("" if b is 0). */
static void put_change(FILE *f, uint64_t b, uint64_t a)
{
    if (b)
        fprintf(f, " (%+.1f%%)", 100.0 * ((double)a - (double)b) / (double)b);
}

static void put_ns(FILE *f, uint64_t ns)
{
    char buf[32];
    fputs(search_format_ns(buf, sizeof buf, ns), f);
}

/* ---- the order of the lists ------------------------------------------------------------- */

/* The hints and sites as listed: by saving and by change, or with
 * --stable by location (times differ from run to run). */
struct order {
    uint32_t *hint, *site;
};

static const struct search_hint *hint_shown_at(const struct search_cmp_hint *x)
{
    return x->before ? x->before : x->after;
}

static const struct search_waitsite *site_shown_at(const struct search_cmp_site *x)
{
    return x->before ? x->before : x->after;
}

static const struct search_comparison *sort_c;

static int hint_loc_cmp(const void *pa, const void *pb)
{
    const struct search_cmp_hint *a = &sort_c->hints[*(const uint32_t *)pa],
                                 *b = &sort_c->hints[*(const uint32_t *)pb];
    if (a->status != b->status)
        return a->status - b->status;
    return search_hint_location_cmp(hint_shown_at(a), hint_shown_at(b));
}

static int site_loc_cmp(const void *pa, const void *pb)
{
    const struct search_cmp_site *a = &sort_c->sites[*(const uint32_t *)pa],
                                 *b = &sort_c->sites[*(const uint32_t *)pb];
    const struct search_waitsite *x = site_shown_at(a), *y = site_shown_at(b);
    if ((a->before == NULL) != (b->before == NULL))
        return a->before ? -1 : 1;
    int c = search_place_cmp(x->file, x->line, x->col, y->file, y->line, y->col);
    return c ? c : (x->call > y->call) - (x->call < y->call);
}

static int order_make(struct order *ord, const struct search_comparison *c, bool stable)
{
    ord->hint = malloc((c->nhints + 1) * sizeof *ord->hint);
    ord->site = malloc((c->nsites + 1) * sizeof *ord->site);
    if (!ord->hint || !ord->site) {
        free(ord->hint);
        free(ord->site);
        return -1;
    }
    for (uint32_t i = 0; i < c->nhints; i++)
        ord->hint[i] = i;
    for (uint32_t i = 0; i < c->nsites; i++)
        ord->site[i] = i;
    if (stable) { /* (one writer at a time: the comparator's context) */
        sort_c = c;
        qsort(ord->hint, c->nhints, sizeof *ord->hint, hint_loc_cmp);
        qsort(ord->site, c->nsites, sizeof *ord->site, site_loc_cmp);
        sort_c = NULL;
    }
    return 0;
}

/* ---- text ------------------------------------------------------------------------------- */

static void text_total(FILE *f, const char *what, uint64_t b, uint64_t a)
{
    fprintf(f, "%-16s", what);
    put_ns(f, b);
    fputs(" -> ", f);
    put_ns(f, a);
    put_change(f, b, a);
    fputc('\n', f);
}

static void text_head(FILE *f, const struct search_comparison *c, const struct search_compare_format_opts *o)
{
    const struct search_cmp_run *b = &c->run[0], *a = &c->run[1];
    fprintf(f, "first run:      %s (%d rank%s)\nsecond run:     %s (%d rank%s)\n",
            o->before_dir ? o->before_dir : "?", b->world_size, b->world_size == 1 ? "" : "s",
            o->after_dir ? o->after_dir : "?", a->world_size, a->world_size == 1 ? "" : "s");
    for (uint32_t i = 0; i < c->nfiles; i++) {
        const struct search_cmp_file *x = &c->files[i];
        if (!x->before || !x->after || !strcmp(x->before, x->after))
            continue;
        fprintf(f, "file:           %s -> %s (%s)\n", shown_path(x->before), shown_path(x->after),
                x->by_map    ? "--map"
                : x->by_name ? "the same name"
                             : "the one file with MPI calls left on each side");
    }
    if (!o->stable) {
        text_total(f, "run:", b->run_ns, a->run_ns);
        if (c->predicted && c->applied && !c->predicted_ns) {
            fprintf(f,
                    "predicted:      no saving by the first run's replay with its %u gone hint%s applied "
                    "together\n",
                    c->applied, c->applied == 1 ? "" : "s");
        } else if (c->predicted && c->applied) {
            fprintf(f, "predicted:      -");
            put_ns(f, c->predicted_ns);
            if (b->run_ns)
                fprintf(f, " (%.1f%%)", -100.0 * (double)c->predicted_ns / (double)b->run_ns);
            fprintf(f, " by the first run's replay with its %u gone hint%s applied together\n", c->applied,
                    c->applied == 1 ? "" : "s");
        } else {
            fprintf(f, "predicted:      nothing (%s)\n",
                    c->ngone ? "the first run's replay could not apply its gone hints" : "no hint is gone");
        }
        text_total(f, "time in MPI:", b->mpi_ns, a->mpi_ns);
        text_total(f, "late sender:", b->late_sender_ns, a->late_sender_ns);
        text_total(f, "late receiver:", b->late_receiver_ns, a->late_receiver_ns);
        text_total(f, "at collectives:", b->wait_collective_ns, a->wait_collective_ns);
    }
    fprintf(f, "MPI calls:      %" PRIu64 " -> %" PRIu64 "\n", b->calls, a->calls);
    fprintf(f, "hints:          %u gone, %u remain%s, %u new\n", c->ngone, c->nremain,
            c->nremain == 1 ? "s" : "", c->nnew);
}

static void text_hint(FILE *f, const struct search_comparison *c, const struct search_cmp_hint *x,
                      const struct search_compare_format_opts *o)
{
    const struct search_hint *h = x->before ? x->before : x->after;
    char *msg = message_of(h, o->stable);
    fprintf(f, "%s:%u:%u: note: %s: [%s] %s", shown_path(h->file), h->line, h->col, status_name[x->status],
            search_kind_name(h->kind), msg ? msg : "");
    free(msg);
    if (x->status == SEARCH_CMP_GONE && x->place_gone)
        fprintf(f,
                "; gone with its call: the second run has no call like it in %s (of its kind, with its tags)",
                h->func && *h->func ? h->func : "?");
    else if (x->status == SEARCH_CMP_GONE)
        fprintf(f, "; its call is now %s at %s:%u:%u, without this hint", trace_mpi_call_name(x->other_call),
                shown_path(x->other_file), x->other_line, x->other_col);
    if (x->status == SEARCH_CMP_NEW && x->other_file)
        fprintf(f, "; its call was %s at %s:%u:%u", trace_mpi_call_name(x->other_call),
                shown_path(x->other_file), x->other_line, x->other_col);
    if (x->status == SEARCH_CMP_REMAINS) {
        const struct search_hint *a = x->after;
        if (strcmp(a->file ? a->file : "", h->file ? h->file : "") || a->line != h->line || a->col != h->col)
            fprintf(f, "; now at %s:%u:%u", shown_path(a->file), a->line, a->col);
        else
            fputs("; at the same place", f);
        if (!o->stable) {
            fputs(", saving ", f);
            put_ns(f, x->before->saving_ns);
            fputs(" -> ", f);
            put_ns(f, x->after->saving_ns);
        }
        if (!search_compare_shown(c, 1, x->after))
            fputs(" (below the threshold now)", f);
    }
    if (x->by_order)
        fputs("; paired by order (the function makes another number of such calls)", f);
    fputc('\n', f);
}

static void text_site_side(FILE *f, const struct search_waitsite *w, bool stable)
{
    fprintf(f, "%" PRIu64 " call%s on %d rank%s", w->calls, w->calls == 1 ? "" : "s", w->nranks,
            w->nranks == 1 ? "" : "s");
    if (stable)
        return;
    fputs(", ", f);
    put_ns(f, w->time_ns);
    uint64_t wait = w->late_sender_ns + w->late_receiver_ns + w->wait_collective_ns;
    if (wait) {
        fputs(" (", f);
        put_ns(f, wait);
        fputs(" waiting)", f);
    }
}

static void text_site(FILE *f, const struct search_cmp_site *x, const struct search_compare_format_opts *o)
{
    const struct search_waitsite *w = x->before ? x->before : x->after;
    fprintf(f, "%s:%u:%u: note: %s in %s: ", shown_path(w->file), w->line, w->col,
            trace_mpi_call_name(w->call), w->func && *w->func ? w->func : "?");
    if (!x->after) {
        fputs("gone (was ", f);
        text_site_side(f, x->before, o->stable);
        fputs(")\n", f);
        return;
    }
    if (!x->before) {
        fputs("new (", f);
        text_site_side(f, x->after, o->stable);
        fputs(")\n", f);
        return;
    }
    const struct search_waitsite *a = x->after;
    if (a->call != w->call)
        fprintf(f, "now %s at %s:%u:%u, ", trace_mpi_call_name(a->call), shown_path(a->file), a->line,
                a->col);
    else if (strcmp(a->file ? a->file : "", w->file ? w->file : "") || a->line != w->line)
        fprintf(f, "now at %s:%u:%u, ", shown_path(a->file), a->line, a->col);
    text_site_side(f, w, o->stable);
    fputs(" -> ", f);
    text_site_side(f, a, o->stable);
    if (!o->stable)
        put_change(f, w->time_ns, a->time_ns);
    if (x->by_order)
        fputs("; paired by order", f);
    fputc('\n', f);
}

static void write_text(FILE *f, const struct search_comparison *c, const struct search_compare_format_opts *o,
                       const struct order *ord)
{
    text_head(f, c, o);
    for (uint32_t i = 0; i < c->nhints; i++)
        if (hint_listed(c, &c->hints[ord->hint[i]], o->all))
            text_hint(f, c, &c->hints[ord->hint[i]], o);
    if (!c->nsites)
        return;
    fputs(o->stable ? "call sites (gone or paired, then new; by location):\n"
                    : "call sites, largest change of time in MPI first (summed over ranks):\n",
          f);
    uint32_t n = o->all || c->nsites <= TEXT_SITES ? c->nsites : TEXT_SITES;
    for (uint32_t i = 0; i < n; i++)
        text_site(f, &c->sites[ord->site[i]], o);
    if (n < c->nsites)
        fprintf(f, "... and %u more call site%s (--all)\n", c->nsites - n, c->nsites - n == 1 ? "" : "s");
}

/* ---- JSON ------------------------------------------------------------------------------- */

static void json_run(FILE *f, const char *key, const struct search_cmp_run *r, const char *dir,
                     const struct search_compare_format_opts *o)
{
    fprintf(f, "\"%s\":{\"trace\":", key);
    search_json_string(f, dir ? (o->stable && strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir) : "");
    fprintf(f, ",\"world_size\":%d,\"mpi_calls\":%" PRIu64 ",\"hints_shown\":%u", r->world_size, r->calls,
            r->shown);
    if (!o->stable)
        fprintf(f,
                ",\"run_ns\":%" PRIu64 ",\"mpi_ns\":%" PRIu64 ",\"late_sender_ns\":%" PRIu64
                ",\"late_receiver_ns\":%" PRIu64 ",\"wait_collective_ns\":%" PRIu64,
                r->run_ns, r->mpi_ns, r->late_sender_ns, r->late_receiver_ns, r->wait_collective_ns);
    fputc('}', f);
}

static void json_loc(FILE *f, const char *file, const char *func, uint32_t line, uint32_t col, uint16_t call)
{
    fputs("\"file\":", f);
    search_json_string(f, shown_path(file));
    fprintf(f, ",\"line\":%u,\"column\":%u", line, col);
    if (func) {
        fputs(",\"function\":", f);
        search_json_string(f, func);
    }
    fputs(",\"call\":", f);
    search_json_string(f, trace_mpi_call_name(call));
}

static void json_hint_side(FILE *f, const struct search_comparison *c, int side, const struct search_hint *h,
                           const struct search_compare_format_opts *o)
{
    if (!h) {
        fputs("null", f);
        return;
    }
    fputc('{', f);
    json_loc(f, h->file, h->func ? h->func : "", h->line, h->col, h->call);
    char *msg = message_of(h, o->stable);
    fputs(",\"message\":", f);
    search_json_string(f, msg ? msg : "");
    free(msg);
    if (h->collective) {
        fputs(",\"collective\":", f);
        search_json_string(f, h->collective);
    }
    fprintf(f, ",\"shown\":%s", search_compare_shown(c, side, h) ? "true" : "false");
    if (!o->stable)
        fprintf(f, ",\"saving_ns\":%" PRIu64 ",\"predicted\":%s", h->saving_ns,
                h->predicted ? "true" : "false");
    fputc('}', f);
}

static void json_site_side(FILE *f, const struct search_waitsite *w,
                           const struct search_compare_format_opts *o)
{
    if (!w) {
        fputs("null", f);
        return;
    }
    fputc('{', f);
    json_loc(f, w->file, w->func ? w->func : "", w->line, w->col, w->call);
    fprintf(f, ",\"calls\":%" PRIu64 ",\"ranks\":%d", w->calls, w->nranks);
    if (!o->stable)
        fprintf(f,
                ",\"time_ns\":%" PRIu64 ",\"late_sender_ns\":%" PRIu64 ",\"late_receiver_ns\":%" PRIu64
                ",\"wait_collective_ns\":%" PRIu64,
                w->time_ns, w->late_sender_ns, w->late_receiver_ns, w->wait_collective_ns);
    fputc('}', f);
}

static void json_files(FILE *f, const struct search_comparison *c, const struct search_compare_format_opts *o)
{
    fputs(",\"files\":[", f);
    for (uint32_t i = 0; i < c->nfiles; i++) {
        const struct search_cmp_file *x = &c->files[i];
        fputs(i ? ",{\"before\":" : "{\"before\":", f);
        if (x->before)
            search_json_string(f, shown_path(x->before));
        else
            fputs("null", f);
        fputs(",\"after\":", f);
        if (x->after)
            search_json_string(f, shown_path(x->after));
        else
            fputs("null", f);
        fprintf(f, ",\"paired_by\":\"%s\"}",
                !x->before || !x->after ? "none"
                : x->by_map             ? "map"
                : x->by_name            ? "name"
                : x->by_rest            ? "rest"
                                        : "path");
    }
    fputc(']', f);
}

static void write_json(FILE *f, const struct search_comparison *c, const struct search_compare_format_opts *o,
                       const struct order *ord)
{
    fputc('{', f);
    json_run(f, "before", &c->run[0], o->before_dir, o);
    fputc(',', f);
    json_run(f, "after", &c->run[1], o->after_dir, o);
    if (!o->stable) {
        const struct search_cmp_run *b = &c->run[0], *a = &c->run[1];
        if (b->run_ns)
            fprintf(f, ",\"run_change\":%.6g", ((double)a->run_ns - (double)b->run_ns) / (double)b->run_ns);
        fputs(",\"prediction\":", f);
        if (c->predicted && c->applied) {
            fprintf(f, "{\"hints_applied\":%u,\"saving_ns\":%" PRIu64, c->applied, c->predicted_ns);
            if (b->run_ns)
                fprintf(f, ",\"change\":%.6g", -(double)c->predicted_ns / (double)b->run_ns);
            fputc('}', f);
        } else {
            fputs("null", f);
        }
    }
    json_files(f, c, o);
    fprintf(f, ",\"gone\":%u,\"remain\":%u,\"new\":%u,\"hints\":[", c->ngone, c->nremain, c->nnew);
    bool any = false;
    for (uint32_t i = 0; i < c->nhints; i++) {
        const struct search_cmp_hint *x = &c->hints[ord->hint[i]];
        if (!hint_listed(c, x, o->all))
            continue;
        const struct search_hint *h = x->before ? x->before : x->after;
        fprintf(f, "%s\n{\"status\":\"%s\",\"kind\":\"%s\",\"place_gone\":%s,\"by_order\":%s,\"before\":",
                any ? "," : "", status_name[x->status], search_kind_name(h->kind),
                x->place_gone ? "true" : "false", x->by_order ? "true" : "false");
        json_hint_side(f, c, 0, x->before, o);
        fputs(",\"after\":", f);
        json_hint_side(f, c, 1, x->after, o);
        if (x->status != SEARCH_CMP_REMAINS && x->other_file) {
            fputs(",\"other_place\":{", f);
            json_loc(f, x->other_file, NULL, x->other_line, x->other_col, x->other_call);
            fputc('}', f);
        }
        fputc('}', f);
        any = true;
    }
    fputs("],\"sites\":[", f);
    for (uint32_t i = 0; i < c->nsites; i++) {
        const struct search_cmp_site *x = &c->sites[ord->site[i]];
        fprintf(f, "%s\n{\"by_order\":%s,\"before\":", i ? "," : "", x->by_order ? "true" : "false");
        json_site_side(f, x->before, o);
        fputs(",\"after\":", f);
        json_site_side(f, x->after, o);
        fputc('}', f);
    }
    fputs("]}\n", f);
}

int search_comparison_write(FILE *f, const struct search_comparison *c, int format,
                            const struct search_compare_format_opts *o)
{
    struct search_compare_format_opts none = {0};
    if (!o)
        o = &none;
    struct order ord;
    if (order_make(&ord, c, o->stable) < 0)
        return -1;
    if (format == SEARCH_FORMAT_JSON)
        write_json(f, c, o, &ord);
    else
        write_text(f, c, o, &ord);
    free(ord.hint);
    free(ord.site);
    return 0;
}
