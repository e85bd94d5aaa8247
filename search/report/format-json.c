/* format-json.c - the report as one JSON document (docs/hints-json.md):
 * the hints, the dropped hints with why, the wait states and the
 * cross-rank facts. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

static void json_boxes(FILE *f, const struct search_boxes *b)
{
    char buf[512];
    fputs("\"iterations\":[", f);
    bool any = false;
    for (uint32_t i = 0; i < b->n; i++) {
        if (!b->box[i].depth)
            continue;
        if (any)
            fputc(',', f);
        search_json_string(f, search_box_format(&b->box[i], buf, sizeof buf));
        any = true;
    }
    fprintf(f, "],\"iterations_more\":%" PRIu64, b->more);
}

static void json_key_string(FILE *f, const char *key, const char *value)
{
    fprintf(f, "\"%s\":", key);
    search_json_string(f, value);
}

/* {"file", "line"} */
static void json_line(FILE *f, const char *file, uint32_t line, bool st)
{
    fputc('{', f);
    json_key_string(f, "file", search_display_path(file ? file : "", st));
    fprintf(f, ",\"line\":%u}", line);
}

static void json_fix_loc(FILE *f, const char *key, const struct search_fix_loc *l, bool st)
{
    static const char *const where[] = {"at", "before", "after"};
    fprintf(f, ",\"%s\":{", key);
    json_key_string(f, "file", search_display_path(l->file ? l->file : "", st));
    fprintf(f, ",\"line\":%u,\"column\":%u,", l->line, l->col);
    json_key_string(f, "function", l->func ? l->func : "");
    fprintf(f, ",\"where\":\"%s\",\"loop\":%s,\"other_iteration\":%s",
            where[l->where >= 0 && l->where <= 2 ? l->where : 0], l->loop ? "true" : "false",
            l->other_iteration ? "true" : "false");
    if (l->other_iteration && l->outer_line) {
        /* the first start goes before this loop, the last wait after it */
        fputs(",\"outer_loop\":", f);
        fputc('{', f);
        json_key_string(f, "file", search_display_path(l->outer_file ? l->outer_file : "", st));
        fprintf(f, ",\"line\":%u}", l->outer_line);
    }
    if (l->off_path) /* the wait goes right before the next call of l->func */
        fputs(",\"off_path\":true", f);
    if (l->split) /* the loop at the place must be split for the edit to overlap anything */
        fputs(",\"split_loop\":true", f);
    if (l->per_call) /* outside the loop that makes the call: one request per call */
        fputs(",\"per_call\":true", f);
    if (l->branch) /* the start of the branch of an if that leads to the call */
        fputs(",\"branch\":true", f);
    if (l->differs) {
        /* a start an iteration early: what of the next call's arguments differs */
        static const char *const what[] = {"buffer-alternates", "buffer", "peer", "size", "tag"};
        fputs(",\"next_call_differs\":[", f);
        bool any = false;
        for (unsigned k = 0; k < 5; k++)
            if (l->differs & (1u << k)) {
                fprintf(f, "%s\"%s\"", any ? "," : "", what[k]);
                any = true;
            }
        fputc(']', f);
    }
    fputc('}', f);
}

/* "fix": the edit that applies the hint (docs/hints-json.md). */
static void json_fix(FILE *f, const struct search_hint *h, bool st)
{
    char nb[64];
    char *text = search_fix_text(h, st);
    fputs(",\"fix\":{", f);
    json_key_string(f, "text", text ? text : "");
    free(text);
    if (h->kind == SEARCH_HINT_OVERLAP) {
        fputc(',', f);
        json_key_string(f, "call", search_nonblocking_name(h->call, nb, sizeof nb));
        json_fix_loc(f, "start", &h->fix.start, st);
        json_fix_loc(f, "wait", &h->fix.wait, st);
        fprintf(f, ",\"conditional\":%s", h->call_conditional ? "true" : "false");
        fprintf(f, ",\"args_unseen\":%s",
                h->call_arg_vars && h->fix.start.where != SEARCH_FIX_AT && !h->fix.start.other_iteration ? "true"
                                                                                                          : "false");
    } else if (h->kind == SEARCH_HINT_AGGREGATE) {
        /* the sends to pack (the hint's and its members, by line), where
         * the one message goes (the last of them), where it is received
         * (the first member's receive) and where the last member's receive
         * is, the buffer to copy */
        const char *lf = h->file;
        uint32_t ll = h->line;
        fputs(",\"pack\":[", f);
        json_line(f, h->file, h->line, st);
        for (uint32_t k = 0; k < h->nrelated; k++) {
            const struct search_related *r = &h->related[k];
            if (r->role != SEARCH_REL_MEMBER)
                continue;
            fputc(',', f);
            json_line(f, r->file, r->line, st);
            if (!strcmp(r->file ? r->file : "", lf ? lf : "") && r->line > ll) {
                lf = r->file;
                ll = r->line;
            }
        }
        fputs("],\"send_at\":", f);
        json_line(f, lf, ll, st);
        fputs(",\"receive_at\":", f);
        if (h->recv_first_file)
            json_line(f, h->recv_first_file, h->recv_first_line, st);
        else
            fputs("null", f);
        fputs(",\"last_receive_at\":", f);
        if (h->recv_file)
            json_line(f, h->recv_file, h->recv_line, st);
        else
            fputs("null", f);
        fputs(",\"receive_arg\":", f);
        if (h->recv_arg_file) {
            fputs("{\"from\":", f);
            json_line(f, h->recv_arg_file, h->recv_arg_line, st);
            fputs(",\"used_at\":", f);
            json_line(f, h->recv_arg_use_file, h->recv_arg_use_line, st);
            fputc('}', f);
        } else
            fputs("null", f);
        fputs(",\"copy\":", f);
        if (h->flags & SEARCH_HINT_NEEDS_BUFFER)
            json_line(f, h->buf_file, h->buf_line, st);
        else
            fputs("null", f);
    } else if (h->kind == SEARCH_HINT_COLLECTIVE) {
        fputc(',', f);
        json_key_string(f, "call", h->collective ? h->collective : "");
        fputs(",\"replace\":[", f);
        json_line(f, h->file, h->line, st);
        for (uint32_t k = 0; k < h->nrelated; k++) {
            fputc(',', f);
            json_line(f, h->related[k].file, h->related[k].line, st);
        }
        fputs("],\"root\":", f);
        if (h->root >= 0)
            fprintf(f, "%d", h->root);
        else
            fputs("null", f);
        fputs(",\"loop\":", f); /* the loop it replaces */
        if (h->coll_loop)
            json_line(f, h->coll_loop->file, h->coll_loop->line, st);
        else
            fputs("null", f);
    }
    fputc('}', f);
}

/* One hint as a JSON object; rank_order 0 leaves it out (dropped hints
 * are not ranked), explain adds the "explain" field. */
static void json_hint(FILE *f, const struct view *v, bool st, bool explain)
{
    const struct search_hint *h = v->h;
    fputc('{', f);
    if (!st && v->rank_order)
        fprintf(f, "\"rank_order\":%u,", v->rank_order);
    fprintf(f, "\"kind\":\"%s\",", search_kind_name(h->kind));
    json_key_string(f, "call", trace_mpi_call_name(h->call));
    fputc(',', f);
    json_key_string(f, "file", search_display_path(h->file ? h->file : "", st));
    fprintf(f, ",\"line\":%u,\"column\":%u,", h->line, h->col);
    json_key_string(f, "function", h->func ? h->func : "");
    /* the call path from the hint's location down to the MPI call */
    fputs(",\"stack\":[", f);
    for (uint32_t k = 0, nf = search_hint_nframes(h); k < nf; k++) {
        struct trace_srcframe fr = search_hint_frame(h, k);
        fputs(k ? ",{" : "{", f);
        json_key_string(f, "file", search_display_path(fr.file ? fr.file : "", st));
        fprintf(f, ",\"line\":%u,\"column\":%u,", fr.line, fr.col);
        json_key_string(f, "function", fr.func ? fr.func : "");
        fputc('}', f);
    }
    fputs("],\"ranks\":[", f);
    for (int k = 0; k < h->nranks; k++)
        fprintf(f, "%s%d", k ? "," : "", h->ranks[k]);
    fputs("],\"related\":[", f);
    for (uint32_t k = 0; k < h->nrelated; k++) {
        const struct search_related *r = &h->related[k];
        fprintf(f, "%s{", k ? "," : "");
        json_key_string(f, "file", search_display_path(r->file ? r->file : "", st));
        fprintf(f, ",\"line\":%u,\"column\":%u,", r->line, r->col);
        json_key_string(f, "function", r->func ? r->func : "");
        fprintf(f, ",\"role\":\"%s\",\"executions\":%" PRIu64 ",\"total\":%" PRIu64, search_role_name(r->role),
                r->events, r->total);
        if (!st)
            fprintf(f, ",\"time_ns\":%" PRIu64, r->time_ns);
        fprintf(f, ",\"conditional\":%s,", r->conditional ? "true" : "false");
        json_boxes(f, &r->iters);
        fputc('}', f);
    }
    fputs("],\"regions\":[", f);
    for (uint32_t k = 0; k < h->nregions; k++) {
        const struct search_region *g = &h->regions[k];
        fprintf(f, "%s{", k ? "," : "");
        json_key_string(f, "file", search_display_path(g->file ? g->file : "", st));
        fputc(',', f);
        json_key_string(f, "function", g->func ? g->func : "");
        fprintf(f, ",\"loop_line\":");
        if (g->loop_line)
            fprintf(f, "%u", g->loop_line);
        else
            fputs("null", f);
        fprintf(f, ",\"first_line\":%u,\"last_line\":%u,\"lines\":%u,\"role\":\"%s\",\"executions\":%" PRIu64
                   ",\"total\":%" PRIu64,
                g->line_lo, g->line_hi, g->nlines, search_role_name(g->role), g->events, g->total);
        if (!st)
            fprintf(f, ",\"time_ns\":%" PRIu64, g->time_ns);
        fprintf(f, ",\"conditional\":%s}", g->conditional ? "true" : "false");
    }
    fputs("],\"collective\":", f);
    if (h->collective)
        search_json_string(f, h->collective);
    else
        fputs("null", f);
    if (!st) {
        fprintf(
            f, ",\"saving_ns\":%" PRIu64 ",\"comm_ns\":%" PRIu64 ",\"comp_ns\":%" PRIu64 ",\"severity\":%.6g",
            h->saving_ns, h->comm_ns, h->comp_ns, h->severity);
        fprintf(f, ",\"predicted\":%s,\"predicted_saving_ns\":", h->predicted ? "true" : "false");
        if (h->predicted)
            fprintf(f, "%" PRIu64, h->predicted_ns);
        else
            fputs("null", f);
        fprintf(f, ",\"estimated_saving_ns\":%" PRIu64, h->estimated_ns);
    }
    if (!st) { /* overlap: the saving per rank, and what of it is shorter waits for the call */
        fprintf(f, ",\"partner_ns\":%" PRIu64 ",\"by_rank\":[", h->partner_ns);
        for (int k = 0; k < h->nby_rank; k++)
            fprintf(f, "%s{\"rank\":%d,\"saving_ns\":%" PRIu64 ",\"partner_ns\":%" PRIu64 "}", k ? "," : "",
                    h->by_rank[k].rank, h->by_rank[k].saving_ns, h->by_rank[k].partner_ns);
        fputc(']', f);
    }
    fprintf(f,
            ",\"instances\":%" PRIu64 ",\"with_window\":%" PRIu64 ",\"members\":%" PRIu64
            ",\"site_calls\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"flags\":[",
            h->instances, h->with_window, h->members, h->site_calls, h->bytes);
    bool any = false;
    for (unsigned b = 0; b < sizeof search_flag_names / sizeof search_flag_names[0]; b++)
        if (h->flags & (1u << b)) {
            fprintf(f, "%s\"%s\"", any ? "," : "", search_flag_names[b]);
            any = true;
        }
    fputs("],", f);
    if (h->flags & SEARCH_HINT_NEEDS_BUFFER) { /* the send whose buffer is overwritten, and where */
        fputs("\"buffer\":{", f);
        json_key_string(f, "file", h->buf_file ? h->buf_file : "");
        fprintf(f, ",\"line\":%" PRIu32 "},\"overwritten_at\":{", h->buf_line);
        json_key_string(f, "file", h->over_file ? h->over_file : "");
        fprintf(f, ",\"line\":%" PRIu32 ",\"frees\":%s},", h->over_line, h->over_frees ? "true" : "false");
    }
    if (h->flags & SEARCH_HINT_NOT_MERGED) { /* the next send, the closing event and why */
        fputs("\"next\":{", f);
        json_key_string(f, "file", search_display_path(h->next_file ? h->next_file : "", st));
        fprintf(f, ",\"line\":%" PRIu32 ",", h->next_line);
        json_key_string(f, "call", trace_mpi_call_name(h->next_call));
        fputs("},\"closed_at\":{", f);
        json_key_string(f, "file", search_display_path(h->close_file ? h->close_file : "", st));
        fprintf(f, ",\"line\":%" PRIu32 "},", h->close_line);
        json_key_string(f, "reason", search_close_why_name(h->why));
        fputc(',', f);
    }
    json_key_string(f, "message", v->message);
    json_fix(f, h, st);
    fputc(',', f);
    json_boxes(f, &h->iters);
    /* wait states at the hint's call site (docs/waitstates.md) */
    if (!st)
        fprintf(f,
                ",\"late_sender_ns\":%" PRIu64 ",\"late_receiver_ns\":%" PRIu64
                ",\"wait_at_collective_ns\":%" PRIu64,
                h->late_sender_ns, h->late_receiver_ns, h->wait_collective_ns);
    /* root is meaningful for collective hints only (-1: none) */
    if (h->kind == SEARCH_HINT_COLLECTIVE && h->root >= 0)
        fprintf(f, ",\"root\":%d", h->root);
    else
        fputs(",\"root\":null", f);
    if (explain) {
        fputc(',', f);
        json_key_string(f, "explain", h->explain ? h->explain : "");
    }
    fputc('}', f);
}

void search_write_json(FILE *f, const struct view *v, uint32_t n, const struct view *dv, uint32_t nd,
                       const struct wview *wv, const struct search_report *rep,
                       const struct search_format_opts *o)
{
    bool st = o->stable;
    fprintf(f, "{\"schema\":\"commhint-hints\",\"version\":2,");
    /* With --stable the directory's last component only: traces compared
     * across runs are usually written to temporary directories. */
    const char *dir = o->trace_dir ? o->trace_dir : "";
    const char *base = strrchr(dir, '/');
    json_key_string(f, "trace", st && base && base[1] ? base + 1 : dir);
    fprintf(f, ",\"world_size\":%d,\"ranks_analysed\":%d,\"events\":%" PRIu64, rep->world_size, rep->nranks,
            rep->events);
    if (!st)
        fprintf(f, ",\"run_ns\":%" PRIu64, rep->run_ns);
    fprintf(f, ",\"filtered\":%u,\"hidden\":%u", rep->nfiltered, rep->nhidden);
    if (!st) { /* the replay model (docs/prediction.md) */
        const struct search_prediction *p = &rep->predict;
        fprintf(f, ",\"model\":{\"replayed\":%s", p->ok ? "true" : "false");
        if (p->ok)
            fprintf(f,
                    ",\"latency_ns\":%.1f,\"ns_per_byte\":%.6g,\"send_overhead_ns\":%.1f,\"recv_overhead_ns\":%.1f"
                    ",\"compute_scale\":%.6g,\"eager_max\":%" PRIu64
                    ",\"samples\":%" PRIu64 ",\"measured_ns\":%" PRIu64 ",\"replayed_ns\":%" PRIu64
                    ",\"error\":%.6g,\"rank_error\":%.6g,\"overlap_ns\":%" PRIu64 ",\"aggregate_ns\":%" PRIu64
                    ",\"collective_ns\":%" PRIu64 ",\"all_ns\":%" PRIu64 ",\"applied\":%" PRIu32
                    ",\"applied_ns\":%" PRIu64 ",\"slice_ns\":%.1f,\"slice_samples\":%" PRIu64,
                    p->lat_ns, p->ns_per_byte, p->o_ns, p->or_ns, p->compute_scale, p->eager_max, p->samples, p->measured_ns,
                    p->replayed_ns,
                    p->error, p->rank_error, p->kind_ns[SEARCH_HINT_OVERLAP], p->kind_ns[SEARCH_HINT_AGGREGATE],
                    p->kind_ns[SEARCH_HINT_COLLECTIVE], p->all_ns, p->applied, p->applied_ns, p->slice_ns,
                    p->slice_samples);
        fputc('}', f);
        if (p->ok)
            fprintf(f,
                    ",\"pop\":{\"useful_avg_ns\":%" PRIu64 ",\"useful_max_ns\":%" PRIu64 ",\"ideal_ns\":%" PRIu64
                    ",\"parallel_efficiency\":%.4f,\"load_balance\":%.4f,\"communication_efficiency\":%.4f"
                    ",\"serialisation_efficiency\":%.4f,\"transfer_efficiency\":%.4f}",
                    p->useful_avg_ns, p->useful_max_ns, p->ideal_ns, p->parallel_eff, p->load_balance,
                    p->comm_eff, p->serial_eff, p->transfer_eff);
    }
    fprintf(f, ",\"clocks_aligned\":%s,\"imbalance\":{", rep->clocks_aligned ? "true" : "false");
    if (!st)
        fprintf(f, "\"severity\":%.6g,\"comp_mean_ns\":%" PRIu64 ",\"comp_max_ns\":%" PRIu64, rep->imbalance,
                rep->comp_mean_ns, rep->comp_max_ns);
    fprintf(f, "},\"unmatched\":{\"sends\":%" PRIu64 ",\"recvs\":%" PRIu64 ",\"collectives\":%" PRIu64 "}",
            rep->unmatched_sends, rep->unmatched_recvs, rep->incomplete_colls);
    fputs(",\"hints\":[", f);
    for (uint32_t i = 0; i < n; i++) {
        fputs(i ? ",\n" : "\n", f);
        json_hint(f, &v[i], st, false);
    }
    fprintf(f, "%s],\"dropped\":[", n ? "\n" : "");
    for (uint32_t i = 0; i < nd; i++) {
        fputs(i ? ",\n" : "\n", f);
        json_hint(f, &dv[i], st, true);
    }
    fprintf(f, "%s],\"wait_states\":[", nd ? "\n" : "");
    for (uint32_t i = 0; i < rep->nwaits; i++) {
        const struct search_waitsite *w = wv[i].w;
        fputs(i ? ",\n{" : "\n{", f);
        json_key_string(f, "file", search_display_path(w->file ? w->file : "", st));
        fprintf(f, ",\"line\":%u,\"column\":%u,", w->line, w->col);
        json_key_string(f, "function", w->func ? w->func : "");
        fputc(',', f);
        json_key_string(f, "call", trace_mpi_call_name(w->call));
        fprintf(f, ",\"ranks\":%d,\"calls\":%" PRIu64, w->nranks, w->calls);
        if (!st)
            fprintf(f,
                    ",\"time_ns\":%" PRIu64 ",\"late_sender_ns\":%" PRIu64 ",\"late_receiver_ns\":%" PRIu64
                    ",\"wait_at_collective_ns\":%" PRIu64,
                    w->time_ns, w->late_sender_ns, w->late_receiver_ns, w->wait_collective_ns);
        fputc('}', f);
    }
    fprintf(f, "%s]}\n", rep->nwaits ? "\n" : "");
}

