/* format-text.c - the report as compiler-style notes, one per line
 * (`commhint hints`, the default format): FILE:LINE:COL: note: [kind]
 * message, then its related lines and what to check by hand; the dropped
 * hints (--explain) and the wait states (--waits). */
#include <inttypes.h>
#include <stdio.h>
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

void search_write_text(FILE *f, const struct view *v, uint32_t n, const struct search_format_opts *o)
{
    uint64_t horizon = o->horizon ? o->horizon : SEARCH_DEFAULT_HORIZON;
    char ranks[256];
    for (uint32_t i = 0; i < n; i++) {
        const struct search_hint *h = v[i].h;
        note_at(f, h->file, h->line, h->col);
        fprintf(f, "[%s] %s\n", search_kind_name(h->kind), v[i].message);
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
            size_t len = 0;
            ranks[0] = '\0';
            for (int k = 0; k < h->nranks && len < sizeof ranks - 16; k++)
                len += (size_t)snprintf(ranks + len, sizeof ranks - len, "%s%d", k ? ", " : "", h->ranks[k]);
            if (len >= sizeof ranks - 16)
                snprintf(ranks + len, sizeof ranks - len, ", ...");
            note_at(f, h->file, h->line, h->col);
            fprintf(f, "  holds on rank%s %s only\n", h->nranks == 1 ? "" : "s", ranks);
        }
        if (h->flags & SEARCH_HINT_SOME_ITERATIONS) {
            note_at(f, h->file, h->line, h->col);
            fprintf(f, "  holds on %" PRIu64 " of %" PRIu64 " calls", h->with_window, h->instances);
            print_boxes(f, ", iterations ", &h->iters);
            fputc('\n', f);
        }
        if (h->flags & SEARCH_HINT_TRUNCATED) {
            note_at(f, h->file, h->line, h->col);
            fprintf(f, "  some windows were cut at the horizon of %" PRIu64 " events\n", horizon);
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

