/* format-sarif.c - the report as SARIF 2.1.0: one rule per hint kind
 * (search_kind_at), one result per hint with its related locations. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format.h"

/* A path as a URI reference: unreserved characters and '/' as they are,
 * everything else percent-encoded. */
static void sarif_uri_chars(FILE *f, const char *p)
{
    for (const unsigned char *s = (const unsigned char *)p; *s; s++) {
        if (isalnum(*s) || strchr("-._~/", *s))
            fputc(*s, f);
        else
            fprintf(f, "%%%02X", *s);
    }
}

/* "physicalLocation": relative paths (shown relative to the current
 * directory when below it) against %SRCROOT%, absolute ones as file URIs. */
static void sarif_physical(FILE *f, const char *file, uint32_t line, uint32_t col)
{
    const char *p = search_display_path(file, true);
    fputs("\"physicalLocation\":{\"artifactLocation\":{\"uri\":\"", f);
    if (p[0] == '/') {
        fputs("file://", f);
        sarif_uri_chars(f, p);
        fputs("\"}", f);
    } else {
        sarif_uri_chars(f, p);
        fputs("\",\"uriBaseId\":\"SRCROOT\"}", f);
    }
    if (line) {
        fprintf(f, ",\"region\":{\"startLine\":%u", line);
        if (col)
            fprintf(f, ",\"startColumn\":%u", col);
        fputc('}', f);
    }
    fputc('}', f);
}

/* The position of a kind in the rules (the table of kinds). */
static int rule_index(int kind)
{
    for (unsigned k = 0; k < search_kind_count(); k++)
        if (search_kind_at(k)->kind == kind)
            return (int)k;
    return -1;
}

void search_write_sarif(FILE *f, const struct view *v, uint32_t n, const struct search_format_opts *o)
{
    fputs("{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\",\"runs\":[{"
          "\"tool\":{\"driver\":{\"name\":\"commhint\",\"version\":\"0.1.0\",\"rules\":[",
          f);
    for (unsigned k = 0; k < search_kind_count(); k++) {
        const struct search_kind_desc *d = search_kind_at(k);
        fprintf(f,
                "%s{\"id\":\"%s\",\"name\":\"%s\",\"shortDescription\":{\"text\":\"%s\"},"
                "\"defaultConfiguration\":{\"level\":\"note\"}}",
                k ? "," : "", d->name, d->rule_id, d->description);
    }
    fputs("]}}", f);
    char cwd[4096];
    if (!o->stable && getcwd(cwd, sizeof cwd)) {
        fputs(",\"originalUriBaseIds\":{\"SRCROOT\":{\"uri\":\"file://", f);
        sarif_uri_chars(f, cwd);
        fputs(strcmp(cwd, "/") ? "/\"}}" : "\"}}", f);
    }
    fputs(",\"results\":[", f);
    for (uint32_t i = 0; i < n; i++) {
        const struct search_hint *h = v[i].h;
        fprintf(f, "%s\n{\"ruleId\":\"%s\",\"ruleIndex\":%d,\"level\":\"note\",\"message\":{\"text\":",
                i ? "," : "", search_kind_name(h->kind), rule_index(h->kind));
        search_json_string(f, v[i].message);
        fputc('}', f);
        if (!o->stable)
            fprintf(f, ",\"rank\":%.2f", 100.0 * h->severity);
        if (h->file && *h->file) {
            fputs(",\"locations\":[{", f);
            sarif_physical(f, h->file, h->line, h->col);
            fputs("}]", f);
        }
        bool any = false;
        /* the call path below the hint's location (ids after the related lines') */
        for (uint32_t k = 1, nf = search_hint_nframes(h); k < nf; k++) {
            struct trace_srcframe fr = search_hint_frame(h, k);
            if (!fr.file || !*fr.file)
                continue;
            fprintf(f, "%s{\"id\":%u,", any ? "," : ",\"relatedLocations\":[", h->nrelated + k - 1);
            sarif_physical(f, fr.file, fr.line, fr.col);
            fputs(",\"message\":{\"text\":", f);
            char text[160];
            if (k + 1 < nf)
                snprintf(text, sizeof text, "through %s", fr.func && *fr.func ? fr.func : "??");
            else
                snprintf(text, sizeof text, "%s in %s", trace_mpi_call_name(h->call), fr.func && *fr.func ? fr.func : "??");
            search_json_string(f, text);
            fputs("}}", f);
            any = true;
        }
        for (uint32_t k = 0; k < h->nrelated; k++) {
            const struct search_related *r = &h->related[k];
            if (!r->file || !*r->file)
                continue;
            fprintf(f, "%s{\"id\":%u,", any ? "," : ",\"relatedLocations\":[", k);
            sarif_physical(f, r->file, r->line, r->col);
            fputs(",\"message\":{\"text\":", f);
            char text[128];
            if (r->role == SEARCH_REL_MEMBER)
                snprintf(text, sizeof text, "%s", search_role_text(r->role, false));
            else
                snprintf(text, sizeof text, "%s: %" PRIu64 " of %" PRIu64 " executions", search_role_text(r->role, false),
                         r->events, r->total);
            search_json_string(f, text);
            fputs("}}", f);
            any = true;
        }
        if (any)
            fputc(']', f);
        fputs(",\"properties\":{", f);
        if (!o->stable)
            fprintf(f, "\"saving_ns\":%" PRIu64 ",\"predicted\":%s,\"estimated_saving_ns\":%" PRIu64 ",\"severity\":%.6g,",
                    h->saving_ns, h->predicted ? "true" : "false", h->estimated_ns, h->severity);
        fputs("\"ranks\":[", f);
        for (int k = 0; k < h->nranks; k++)
            fprintf(f, "%s%d", k ? "," : "", h->ranks[k]);
        fputs("],\"flags\":[", f);
        bool anyf = false;
        for (unsigned b = 0; b < sizeof search_flag_names / sizeof search_flag_names[0]; b++)
            if (h->flags & (1u << b)) {
                fprintf(f, "%s\"%s\"", anyf ? "," : "", search_flag_names[b]);
                anyf = true;
            }
        fputs("]}}", f);
    }
    fprintf(f, "%s]}]}\n", n ? "\n" : "");
}

