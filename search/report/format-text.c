/* format-text.c - the report as compiler-style notes, one per line
 * (`commhint hints`, the default format): FILE:LINE:COL: note: [kind]
 * message, then its related lines and what to check by hand; the dropped
 * hints (--explain) and the wait states (--waits). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

static const char *shown_file(const char *file, bool relative)
{
    if (!file || !*file)
        return "??";
    return search_display_path(file, relative);
}

/* "file:line:col: note: " */
static void note_at(FILE *f, const char *file, uint32_t line, uint32_t col)
{
    fprintf(f, "%s:%u:%u: note: ", shown_file(file, true), line, col);
}

/* Iteration boxes as text: "(1, 1..10), (2, 1..10) and 5 more"; boxes
 * outside every loop are left out.  Returns false if there is nothing. */
static bool print_boxes(FILE *f, const char *prefix, const struct search_boxes *b)
{
    char buf[512];
    bool any = false;
    for (uint32_t i = 0; i < b->n; i++) {
        if (!b->box[i].depth)
            continue;
        fprintf(f, "%s%s", any ? ", " : prefix, search_box_format(&b->box[i], buf, sizeof buf));
        any = true;
    }
    if (any && b->more)
        fprintf(f, " and %" PRIu64 " more", b->more);
    return any;
}

/* "the loop at line 136 in main, lines 136-145 (4 lines)" or "main, lines
 * 127-131 (3 lines)": a region as text. */
static void print_region(FILE *f, const struct search_hint *h, const struct search_region *g)
{
    const char *func = g->func && *g->func ? g->func : "??";
    bool other = g->file && h->file && strcmp(g->file, h->file);
    if (g->loop_line)
        fprintf(f, "the loop at %s%s%u in %s", other ? shown_file(g->file, true) : "line ", other ? ":" : "",
                g->loop_line, func);
    else
        fprintf(f, "%s%s%s", func, other ? " in " : "", other ? shown_file(g->file, true) : "");
    if (g->nlines > 1)
        fprintf(f, ", lines %u-%u (%u lines)", g->line_lo, g->line_hi, g->nlines);
    else
        fprintf(f, ", line %u", g->line_lo);
    fprintf(f, ": %" PRIu64 " of %" PRIu64 " executions%s", g->events, g->total,
            g->conditional ? " (conditional)" : "");
}

#define TEXT_REGIONS 3 /* regions the default text shows per hint */
#define TEXT_RELATED 4 /* related lines of other kinds it shows */

/* The default text of a hint's related code: its largest regions (overlap)
 * or first related lines, then how many more --verbose would show. */
static void print_summary(FILE *f, const struct search_hint *h)
{
    if (h->nregions) {
        uint32_t shown = h->nregions < TEXT_REGIONS ? h->nregions : TEXT_REGIONS, lines = 0;
        for (uint32_t k = 0; k < shown; k++) {
            const struct search_region *g = &h->regions[k];
            note_at(f, g->file, g->loop_line ? g->loop_line : g->line_lo, g->loop_line && g->loop_col ? g->loop_col : 1);
            fprintf(f, "  %s: ", search_role_text(g->role, false));
            print_region(f, h, g);
            fputc('\n', f);
        }
        for (uint32_t k = shown; k < h->nregions; k++)
            lines += h->regions[k].nlines;
        if (shown < h->nregions) {
            note_at(f, h->file, h->line, h->col);
            fprintf(f, "  and %u more region%s (%u line%s): --verbose lists every line\n", h->nregions - shown,
                    h->nregions - shown == 1 ? "" : "s", lines, lines == 1 ? "" : "s");
        }
        return;
    }
    uint32_t shown = h->nrelated < TEXT_RELATED ? h->nrelated : TEXT_RELATED;
    for (uint32_t k = 0; k < shown; k++) {
        const struct search_related *r = &h->related[k];
        note_at(f, r->file, r->line, r->col);
        fprintf(f, "  %s%s\n", search_role_text(r->role, false), r->conditional ? " (conditional)" : "");
    }
    if (shown < h->nrelated) {
        note_at(f, h->file, h->line, h->col);
        fprintf(f, "  and %u more related line%s: --verbose lists every line\n", h->nrelated - shown,
                h->nrelated - shown == 1 ? "" : "s");
    }
}

/* "rank 0, 2" for a list of ranks, at most about 250 characters. */
static void ranks_text(char *buf, size_t size, const struct search_hint *h)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < h->nranks && len < size - 16; k++)
        len += (size_t)snprintf(buf + len, size - len, "%s%d", k ? ", " : "", h->ranks[k]);
    if (len >= size - 16)
        snprintf(buf + len, size - len, ", ...");
}

/* The default text's one line of what holds only in part. */
static void print_caveats(FILE *f, const struct search_hint *h, uint64_t horizon)
{
    char ranks[256];
    bool any = false;
    if (!(h->flags & (SEARCH_HINT_CONDITIONAL | SEARCH_HINT_SOME_RANKS | SEARCH_HINT_SOME_ITERATIONS |
                      SEARCH_HINT_TRUNCATED | SEARCH_HINT_TWO_RANKS | SEARCH_HINT_ONE_PASS)))
        return;
    note_at(f, h->file, h->line, h->col);
    fputs("  check by hand:", f);
    if (h->flags & SEARCH_HINT_SOME_RANKS) {
        ranks_text(ranks, sizeof ranks, h);
        fprintf(f, " holds on rank%s %s only", h->nranks == 1 ? "" : "s", ranks);
        any = true;
    }
    if (h->flags & SEARCH_HINT_SOME_ITERATIONS) {
        uint64_t held, of;
        search_hint_calls(h, &held, &of);
        fprintf(f, "%s holds on %" PRIu64 " of %" PRIu64 " calls", any ? ";" : "", held, of);
        print_boxes(f, ", iterations ", &h->iters);
        any = true;
    }
    if (h->flags & SEARCH_HINT_CONDITIONAL) {
        fprintf(f, "%s conditional code: the hint holds for the branches this run took", any ? ";" : "");
        any = true;
    }
    if (h->flags & SEARCH_HINT_TRUNCATED) {
        fprintf(f, "%s some windows were cut at the horizon of %" PRIu64 " events", any ? ";" : "", horizon);
        any = true;
    }
    if (h->flags & SEARCH_HINT_TWO_RANKS) {
        fprintf(f, "%s %s", any ? ";" : "", SEARCH_TWO_RANKS_TEXT);
        any = true;
    }
    if (h->flags & SEARCH_HINT_ONE_PASS)
        fprintf(f, "%s %s", any ? ";" : "", SEARCH_ONE_PASS_TEXT);
    fputc('\n', f);
}

/* Every related line and note, one per line (--verbose). */
static void print_detail(FILE *f, const struct search_hint *h, uint64_t horizon)
{
    char ranks[256];
    for (uint32_t k = 0; k < h->nrelated; k++) {
        const struct search_related *r = &h->related[k];
        note_at(f, r->file, r->line, r->col);
        fprintf(f, "  %s%s", search_role_text(r->role, false), r->conditional ? " (conditional)" : "");
        if (r->role != SEARCH_REL_MEMBER) {
            fprintf(f, ": %" PRIu64 " of %" PRIu64 " executions", r->events, r->total);
            print_boxes(f, ", iterations ", &r->iters);
        }
        fputc('\n', f);
    }
    if (h->flags & SEARCH_HINT_CONDITIONAL) {
        /* One line, at the first conditional related line (the related
         * lines say which are), else at the hint (a conditional send of
         * an aggregation hint). */
        const struct search_related *at = NULL;
        for (uint32_t k = 0; k < h->nrelated && !at; k++)
            if (h->related[k].conditional)
                at = &h->related[k];
        if (at)
            note_at(f, at->file, at->line, at->col);
        else
            note_at(f, h->file, h->line, h->col);
        fprintf(f, "  check by hand: conditional code; the hint holds for the branches this run took\n");
    }
    if (h->flags & SEARCH_HINT_SOME_RANKS) {
        ranks_text(ranks, sizeof ranks, h);
        note_at(f, h->file, h->line, h->col);
        fprintf(f, "  holds on rank%s %s only\n", h->nranks == 1 ? "" : "s", ranks);
    }
    if (h->flags & SEARCH_HINT_SOME_ITERATIONS) {
        uint64_t held, of;
        search_hint_calls(h, &held, &of);
        note_at(f, h->file, h->line, h->col);
        fprintf(f, "  holds on %" PRIu64 " of %" PRIu64 " calls", held, of);
        print_boxes(f, ", iterations ", &h->iters);
        fputc('\n', f);
    }
    if (h->flags & SEARCH_HINT_TRUNCATED) {
        note_at(f, h->file, h->line, h->col);
        fprintf(f, "  some windows were cut at the horizon of %" PRIu64 " events\n", horizon);
    }
    if (h->flags & SEARCH_HINT_TWO_RANKS) {
        note_at(f, h->file, h->line, h->col);
        fprintf(f, "  %s\n", SEARCH_TWO_RANKS_TEXT);
    }
    if (h->flags & SEARCH_HINT_ONE_PASS) {
        note_at(f, h->file, h->line, h->col);
        fprintf(f, "  check by hand: %s\n", SEARCH_ONE_PASS_TEXT);
    }
}

void search_write_text(FILE *f, const struct view *v, uint32_t n, const struct search_format_opts *o)
{
    uint64_t horizon = o->horizon ? o->horizon : SEARCH_DEFAULT_HORIZON;
    for (uint32_t i = 0; i < n; i++) {
        const struct search_hint *h = v[i].h;
        note_at(f, h->file, h->line, h->col);
        fprintf(f, "[%s] %s\n", search_kind_name(h->kind), v[i].message);
        /* the path from where the hint is shown down to the MPI call; by
         * default the first call below the hint and the MPI call itself,
         * the functions between named on the first (--verbose: a line each) */
        for (uint32_t k = 1, nf = search_hint_nframes(h); k < nf; k++) {
            struct trace_srcframe fr = search_hint_frame(h, k);
            note_at(f, fr.file, fr.line, fr.col);
            if (k + 1 == nf) {
                fprintf(f, "  %s in %s\n", trace_mpi_call_name(h->call), fr.func && *fr.func ? fr.func : "??");
            } else if (o->verbose || nf <= 3) {
                fprintf(f, "  through %s\n", fr.func && *fr.func ? fr.func : "??");
            } else {
                fprintf(f, "  through %s", fr.func && *fr.func ? fr.func : "??");
                for (uint32_t m = k + 1; m + 1 < nf; m++) {
                    struct trace_srcframe g = search_hint_frame(h, m);
                    fprintf(f, "%s%s", m + 2 == nf ? " and " : ", ", g.func && *g.func ? g.func : "??");
                }
                fputc('\n', f);
                k = nf - 2; /* on to the MPI call */
            }
        }
        if (o->verbose) {
            print_detail(f, h, horizon);
        } else {
            print_summary(f, h);
            print_caveats(f, h, horizon);
        }
        char *fix = search_fix_text(h, true);
        if (fix) {
            note_at(f, h->file, h->line, h->col);
            fprintf(f, "  to apply: %s\n", fix);
            free(fix);
        }
    }
}

/* Dropped hints (--explain): the hint as a note tagged [dropped KIND],
 * then each line of why it was dropped as an indented note at its
 * location. */
void search_write_dropped_text(FILE *f, const struct view *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const struct search_hint *h = v[i].h;
        note_at(f, h->file, h->line, h->col);
        fprintf(f, "[dropped %s] %s\n", search_kind_name(h->kind), v[i].message);
        const char *p = h->explain ? h->explain : "";
        while (*p) {
            size_t len = strcspn(p, "\n");
            if (len) {
                note_at(f, h->file, h->line, h->col);
                fprintf(f, "  %.*s\n", (int)len, p);
            }
            p += len;
            if (*p)
                p++;
        }
    }
}


/* The wait-state table (--waits): one note per call site,
 *   FILE:LINE:COL: note: [wait] MPI_Recv: 12 ms late sender, 0 late receiver
 *   over 200 calls on 4 ranks (35% of its time)
 * or "... MPI_Barrier: 3.0 ms waiting at the collective over ..." for
 * collectives; without times with --stable. */
void search_write_waits_text(FILE *f, const struct wview *wv, uint32_t n, bool stable)
{
    char a[32], b[32];
    for (uint32_t i = 0; i < n; i++) {
        const struct search_waitsite *w = wv[i].w;
        note_at(f, w->file, w->line, w->col);
        fprintf(f, "[wait] %s", trace_mpi_call_name(w->call));
        if (w->ctx)
            fprintf(f, " in %s", w->ctx->frames[0].func && *w->ctx->frames[0].func ? w->ctx->frames[0].func : "??");
        if (!stable) {
            if (search_call_class_of(w->call) == SEARCH_CALL_COLL)
                fprintf(f, ": %s waiting at the collective", search_format_ns(a, sizeof a, w->wait_collective_ns));
            else
                fprintf(f, ": %s late sender, %s late receiver", search_format_ns(a, sizeof a, w->late_sender_ns),
                        search_format_ns(b, sizeof b, w->late_receiver_ns));
        }
        fprintf(f, " over %" PRIu64 " call%s on %d rank%s", w->calls, w->calls == 1 ? "" : "s", w->nranks,
                w->nranks == 1 ? "" : "s");
        uint64_t total = w->late_sender_ns + w->late_receiver_ns + w->wait_collective_ns;
        if (!stable && w->time_ns)
            fprintf(f, " (%.0f%% of its time)", 100.0 * (double)total / (double)w->time_ns);
        fputc('\n', f);
    }
}

