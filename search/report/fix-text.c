/* fix-text.c - the edit that applies a hint, spelled out
 * (docs/dependence.md, "The fix"): for overlap, where the nonblocking call
 * starts and where it is waited for (placed by fix.c); for aggregation,
 * what to pack and where the one message goes; for a collective, which
 * calls it replaces.  One sentence every front end prints ("to apply: ..."
 * in text, fix.text in JSON). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

const char *search_nonblocking_name(uint16_t call, char *buf, size_t size)
{
    const char *n = trace_mpi_call_name(call);
    buf[0] = '\0';
    if (strncmp(n, "MPI_", 4) || !n[4] || n[4] == 'I' || !strncmp(n, "MPI_Wait", 8) ||
        !strncmp(n, "MPI_Test", 8) || !strncmp(n, "MPI_Probe", 9))
        return buf;
    snprintf(buf, size, "MPI_I%c%s", tolower((unsigned char)n[4]), n + 5);
    return buf;
}

/* "line 12" or "util.c:12" (a file other than the hint's). */
static void at_line(struct search_text *b, const struct search_hint *h, const char *file, uint32_t line,
                    bool relative)
{
    if (file && h->file && strcmp(file, h->file))
        search_text_printf(b, "%s:%u", search_display_path(file, relative), line);
    else
        search_text_printf(b, "line %u", line);
}

static void where_text(struct search_text *b, const struct search_hint *h, const struct search_fix_loc *l,
                       bool relative, bool start)
{
    if (l->where == SEARCH_FIX_AT) {
        search_text_printf(b, "where it is (");
        at_line(b, h, l->file, l->line, relative);
        search_text_printf(b, ")");
        return;
    }
    if (l->off_path && l->split) {
        /* inside a function that runs for other callers too, before a
         * loop to split: the function gets the request */
        search_text_printf(b, "in %s, right before its loop at ", l->func);
        at_line(b, h, l->file, l->line, relative);
        search_text_printf(b, " (%s runs for other callers too: pass it the request, MPI_REQUEST_NULL from them)",
                           l->func);
    } else if (l->off_path) {
        /* a wait inside a function that runs for other callers too: before
         * the call of it that needs the data, not inside it */
        search_text_printf(b, "right before the next call of %s, whose %s", l->func, l->loop ? "loop at " : "");
        at_line(b, h, l->file, l->line, relative);
        search_text_printf(b, " must wait for it");
    } else if (l->branch) {
        /* the statement tests a condition on the call's path (it may be
         * the `if` whose other branch follows its line) */
        search_text_printf(b, "right after ");
        at_line(b, h, l->file, l->line, relative);
        search_text_printf(b, " on the call's path (inside the branch that leads to the call, if that line tests "
                              "the condition of an if)");
    } else {
        search_text_printf(b, "right %s ", l->where == SEARCH_FIX_BEFORE ? "before" : "after");
        if (l->loop) /* "right after line 152" could read as inside its body */
            search_text_printf(b, "the loop at ");
        at_line(b, h, l->file, l->line, relative);
        if (l->func && *l->func && h->func && strcmp(l->func, h->func))
            search_text_printf(b, " (in %s)", l->func);
    }
    if (!l->other_iteration)
        return;
    /* the first iteration has none before it, the last none after it */
    search_text_printf(b, start ? " in the iteration before (the first one right before the loop"
                                : " in the next iteration (the last one right after the loop");
    if (l->outer_line) {
        search_text_printf(b, " at ");
        at_line(b, h, l->outer_file, l->outer_line, relative);
    }
    /* a start posted in the last iteration would have no call to serve */
    search_text_printf(b, start ? ", none in its last iteration)" : ")");
    if (!start || !l->differs)
        return;
    /* started an iteration early, the call is the next one: with its
     * arguments, which the run showed differ from this one's */
    static const char *const what[] = {"its buffer alternates between two from one call to the next: the buffer the next call gets, not this one's",
                                       "its buffer changes from one call to the next",
                                       "its peer changes from one call to the next",
                                       "its size changes from one call to the next",
                                       "the tags of its messages change from one call to the next"};
    search_text_printf(b, " with the next call's arguments (");
    bool any = false;
    for (unsigned k = 0; k < 5; k++)
        if (l->differs & (1u << k)) {
            search_text_printf(b, "%s%s", any ? "; " : "", what[k]);
            /* a receive's source is its status's: one that takes any
             * source keeps it */
            if (k == 2 && trace_mpi_call_base(h->call) == CHT_MPI_RECV)
                search_text_printf(b, ", unless it takes any source");
            any = true;
        }
    search_text_printf(b, ")");
}

/* "; the computation that can run before the wait is inside the loop at
 * line N: split it, ..." for the end l (the wait if wait, else the start)
 * whose loop must be split: the executions of its side's lines in the
 * loop ("some of" when others are outside it). */
static void split_text(struct search_text *b, const struct search_hint *h, const struct search_fix_loc *l,
                       bool wait, bool relative)
{
    uint64_t ev = 0, tot = 0;
    bool all = true;
    for (uint32_t r = 0; r < h->nrelated; r++) {
        if (h->related[r].role != (wait ? SEARCH_REL_AFTER : SEARCH_REL_BEFORE))
            continue;
        if (!search_related_in_loop(&h->related[r], l->loop_id)) {
            all = false;
            continue;
        }
        ev += h->related[r].events;
        tot += h->related[r].total;
    }
    search_text_printf(b, "; %sthe computation that can %s is inside the loop at ", all ? "" : "some of ",
                       wait ? "run before the wait" : "move after the start");
    at_line(b, h, l->file, l->line, relative);
    search_text_printf(b, ": split it, running %s the part %s (%" PRIu64 " of %" PRIu64 " executions)",
                       wait ? "before the wait" : "after the start",
                       wait ? "that does not need the data" : "the call does not need", ev, tot);
}

static void overlap_text(struct search_text *b, const struct search_hint *h, bool relative)
{
    char nb[64];
    const char *call = trace_mpi_call_name(h->call);
    search_nonblocking_name(h->call, nb, sizeof nb);
    const struct trace_srcframe helper = search_hint_frame(h, search_hint_nframes(h) - 1);
    bool through = search_hint_nframes(h) > 1;
    bool wait_at_call = search_fix_waits_at_call(h);
    /* started where it is and waited for in the function that makes the
     * call: the whole edit is inside that helper (miniFE's
     * get_global_min_max, whose loop after its MPI_Allreduce needs the
     * result), no request goes anywhere */
    bool inside = through && h->fix.start.where == SEARCH_FIX_AT && !wait_at_call && !h->fix.wait.off_path &&
                  h->fix.wait.func && helper.func && *helper.func && !strcmp(h->fix.wait.func, helper.func);
    if (h->flags & SEARCH_HINT_SOME_ITERATIONS)
        /* the edit is for the calls whose windows were seen ("check by
         * hand: holds on N of M calls"), not for every call at the line */
        search_text_printf(b, "for the calls it holds on, ");
    if (!*nb) { /* a wait or probe: it moves */
        search_text_printf(b, "move the %s ", call);
        where_text(b, h, &h->fix.wait, relative, false);
        if (h->fix.wait.split) /* before a loop it may stand before already: split it */
            split_text(b, h, &h->fix.wait, true, relative);
        return;
    }
    if (through) {
        /* shown above the call: the functions below the anchor have other
         * calls, which keep them as they are */
        uint32_t n = search_hint_nframes(h) - 1; /* frames below the anchor */
        search_text_printf(b, "in %s of ", n > 1 ? "copies" : "a copy");
        for (uint32_t k = n; k >= 1; k--) {
            const struct trace_srcframe f = search_hint_frame(h, k);
            search_text_printf(b, "%s%s", k == n ? "" : k == 1 ? " and " : ", ",
                               f.func && *f.func ? f.func : "the helper");
        }
        search_text_printf(b, " for this call (%s keep %s as %s), ", n > 1 ? "their other calls" : "its other calls",
                           n > 1 ? "them" : "it", n > 1 ? "they are" : "it is");
        if (inside)
            search_text_printf(b, "start the %s as %s", call, nb);
        else
            search_text_printf(b, "let %s start the %s as %s and return its request; call it ",
                               helper.func && *helper.func ? helper.func : "the helper", call, nb);
    }
    else
        search_text_printf(b, "start the %s as %s ", call, nb);
    if (inside) {
        search_text_printf(b, " where it is (");
        at_line(b, h, helper.file, helper.line, relative);
        search_text_printf(b, ")");
    } else
        where_text(b, h, &h->fix.start, relative, true);
    search_text_printf(b, ", and MPI_Wait for it ");
    if (wait_at_call && h->fix.start.where != SEARCH_FIX_AT) {
        if (through) {
            /* the function called at the hint's line: the helper, or the
             * one between (main's call of sumAtoms, which calls the helper) */
            const struct trace_srcframe below = search_hint_frame(h, 1);
            search_text_printf(b, "where the call of %s is now (",
                               below.func && *below.func ? below.func : "the helper");
        }
        else
            search_text_printf(b, "where the %s is now (", call);
        at_line(b, h, h->file, h->line, relative);
        search_text_printf(b, ")");
    } else if (wait_at_call) {
        search_text_printf(b, "right after it");
    } else {
        where_text(b, h, &h->fix.wait, relative, false);
    }
    /* a call shown where it is, but started or waited for in another
     * function: its own function hands the request over */
    bool other = false;
    const struct search_fix_loc *ends[2] = {&h->fix.start, &h->fix.wait};
    for (int k = 0; k < 2 && !through; k++)
        other |= ends[k]->where != SEARCH_FIX_AT && !ends[k]->off_path && ends[k]->func && *ends[k]->func &&
                 h->func && *h->func && strcmp(ends[k]->func, h->func);
    if (other)
        search_text_printf(b, "; %s passes the request between them", h->func);
    /* through a helper: started in one function of the path and waited
     * for in another, the functions between hand the request on (CoMD's
     * sumAtoms starts addIntParallel's reduction, its caller waits) */
    const char *sf = h->fix.start.where != SEARCH_FIX_AT ? h->fix.start.func : h->func;
    const char *wf = wait_at_call || h->fix.wait.off_path ? h->func : h->fix.wait.func;
    bool handed = other;
    if (through && !inside && sf && wf && *sf && *wf && strcmp(sf, wf)) {
        search_text_printf(b, "; the request goes from %s to %s", sf, wf);
        handed = true;
    }
    if (handed && !h->call_conditional)
        /* the function that waits may run on paths that never make the
         * call (mpi_wave's init_master, called by the master only, whose
         * broadcast main would wait for on every rank) */
        search_text_printf(b, " (declare it as MPI_REQUEST_NULL, so that the wait returns at once on a path "
                              "that does not make the call)");
    if ((ends[0]->per_call || ends[1]->per_call) && h->call_loop) {
        /* one request per call of the loop that makes it */
        search_text_printf(b, "; the loop at ");
        at_line(b, h, h->call_loop->file, h->call_loop->line, relative);
        if (ends[0]->per_call && (h->flags & SEARCH_HINT_SOME_ITERATIONS) &&
            search_fix_first_iteration(h, h->call_loop->id))
            /* the calls it holds on are the loop's first ones: the others
             * depend on what the loop did before them */
            search_text_printf(b, " makes the call several times: only its first call starts there, the others "
                                  "where they are");
        else
            search_text_printf(b, " makes the call several times: %s, one request each%s",
                               ends[0]->per_call ? "start each there" : "start each where it is",
                               ends[1]->per_call ? ", and wait for them all with MPI_Waitall" : "");
    }
    bool start_moved = h->fix.start.where != SEARCH_FIX_AT;
    if (h->call_conditional && (start_moved || !wait_at_call)) {
        /* the call runs on some paths only (CHT_SITEF_CONDITIONAL: an if
         * around it, or an earlier return): a start moved out of the branch
         * keeps its condition, and a wait the branch no longer covers must
         * be harmless where the call did not run */
        search_text_printf(b, "; the call runs on some paths only (an if around it, or an earlier return): ");
        if (start_moved)
            search_text_printf(b, "start it under the same condition%s", wait_at_call ? "" : ", and ");
        if (!wait_at_call)
            search_text_printf(b, "set its request to MPI_REQUEST_NULL before that condition, so that the wait "
                                  "returns at once where the call did not run");
    }
    if (h->coll_peer_line) {
        /* the other members' calls of the same collective */
        search_text_printf(b, "; the other members of this %s make it at ", call);
        at_line(b, h, h->coll_peer_file, h->coll_peer_line, relative);
        search_text_printf(b, ": make those %s too (waited for right after them if nothing of theirs can "
                              "overlap), since a blocking and a nonblocking collective do not match",
                           nb);
    }
    if (h->call_arg_vars && start_moved && !h->fix.start.other_iteration)
        /* a tag, peer or count kept in a local the pass does not trace (a
         * register at -O2): its assignment left no event, so the run
         * cannot show that the start does not cross it (a start in the
         * iteration before is checked against the next call's arguments
         * in the MPI log instead) */
        search_text_printf(b, "; the call takes local variables whose assignments the trace does not show: if "
                              "one of them (a tag, a peer, a count) is set between the new start and the call, "
                              "set it before the start");
    if ((h->flags & SEARCH_HINT_NEEDS_BUFFER) && h->over_line) {
        /* the needs-buffer variant: the wait comes after the overwrite */
        search_text_printf(b, "; first copy what it sends into a buffer of its own and send that, since ");
        at_line(b, h, h->over_file, h->over_line, relative);
        search_text_printf(b, h->over_frees ? " frees the buffer before the wait" : " overwrites the buffer before the wait");
    }
    for (int k = 0; k < 2; k++)
        if (ends[k]->split)
            split_text(b, h, ends[k], k == 1, relative);
}

struct fline {
    const char *file;
    uint32_t line;
};

static int fline_cmp(const void *pa, const void *pb)
{
    const struct fline *a = pa, *b = pb;
    int c = strcmp(search_nz(a->file), search_nz(b->file));
    return c ? c : a->line < b->line ? -1 : a->line > b->line;
}

/* The distinct lines of the hint and its related lines of one role (any
 * role: -1), sorted; *n of them (malloc'ed, NULL on out-of-memory). */
static struct fline *hint_lines(const struct search_hint *h, int role, bool self, size_t *n)
{
    struct fline *v = malloc((h->nrelated + 1) * sizeof *v);
    size_t k = 0, m = 0;
    if (!v)
        return NULL;
    if (self)
        v[k++] = (struct fline){h->file, h->line};
    for (uint32_t i = 0; i < h->nrelated; i++)
        if (role < 0 || h->related[i].role == role)
            v[k++] = (struct fline){h->related[i].file, h->related[i].line};
    qsort(v, k, sizeof *v, fline_cmp);
    for (size_t i = 0; i < k; i++)
        if (!m || fline_cmp(&v[m - 1], &v[i]))
            v[m++] = v[i];
    *n = m;
    return v;
}

static void lines_text(struct search_text *b, const struct search_hint *h, const struct fline *v, size_t n,
                       bool relative)
{
    search_text_printf(b, n > 1 ? "lines " : "line ");
    for (size_t i = 0; i < n; i++) {
        if (i)
            search_text_printf(b, i + 1 == n ? " and " : ", ");
        if (v[i].file && h->file && strcmp(v[i].file, h->file))
            search_text_printf(b, "%s:%u", search_display_path(v[i].file, relative), v[i].line);
        else
            search_text_printf(b, "%u", v[i].line);
    }
}

static bool same_line(const char *file, uint32_t line, const struct fline *l)
{
    return line == l->line && !strcmp(file, l->file ? l->file : "");
}

static void aggregate_text(struct search_text *b, const struct search_hint *h, bool relative)
{
    size_t n = 0;
    struct fline *v = hint_lines(h, SEARCH_REL_MEMBER, true, &n);
    const char *call = trace_mpi_call_name(h->call);
    if (!v)
        return;
    if (h->flags & SEARCH_HINT_SOME_ITERATIONS) /* "check by hand: holds on N of M calls" */
        search_text_printf(b, "for the calls it holds on, ");
    if (n == 1) {
        uint64_t per = h->instances ? h->members / h->instances : 0;
        search_text_printf(b, "pack what the consecutive %s calls at ", call);
        lines_text(b, h, v, n, relative);
        search_text_printf(b, " send");
        if (per > 1)
            search_text_printf(b, " (%" PRIu64 " per group)", per);
        search_text_printf(b, " into one buffer and send it with one %s after the last of them", call);
    } else {
        search_text_printf(b, "pack the send buffers of the %s calls at ", call);
        lines_text(b, h, v, n, relative);
        search_text_printf(b, " into one buffer and send it with one %s where the last of them is (", call);
        struct fline last = {h->last_file, h->last_line}; /* the last to run: not always the last line */
        lines_text(b, h, h->last_line ? &last : &v[n - 1], 1, relative);
        search_text_printf(b, "%s)", h->last_wraps ? ", in the next iteration of the loop around them" : "");
    }
    bool exchange = h->call == CHT_MPI_SENDRECV || h->call == CHT_MPI_SENDRECV_REPLACE;
    bool first_known = h->recv_first_file && h->recv_first_line;
    if (exchange && !(h->flags & SEARCH_HINT_SOME_RANKS) && first_known && h->recv_file && same_line(h->recv_first_file, h->recv_first_line, &v[0]) &&
        same_line(h->recv_file, h->recv_line, &v[n - 1])) {
        /* the partner's calls are the same lines: its group was checked
         * on its own rank (nothing reads what a member received before
         * the last member), and the same edit merges them */
        search_text_printf(b, ", which also receives the partner's packed buffers (its calls at the same lines "
                              "are merged by the same edit); unpack them right after it");
    } else {
        /* the receiver may use what the first message brings before the
         * last one is sent (a pipeline's block, a row read in between):
         * the one receive goes where the first of them is received, and
         * each part is copied out where its receive is now */
        search_text_printf(b, "; the receiving rank takes it with one receive ");
        if (first_known) {
            search_text_printf(b, "at ");
            at_line(b, h, h->recv_first_file, h->recv_first_line, relative);
            search_text_printf(b, " (where the first of them is received now)");
        } else {
            search_text_printf(b, "where the first of them is received now");
        }
        search_text_printf(b, " into a buffer of its own, and copies each part out where its receive is now");
        if (h->recv_file && h->recv_line && first_known &&
            (h->recv_line != h->recv_first_line || strcmp(h->recv_file, h->recv_first_file))) {
            search_text_printf(b, " (the last at ");
            at_line(b, h, h->recv_file, h->recv_line, relative);
            search_text_printf(b, ")");
        }
        if (h->recv_arg_file) {
            /* a later part's count or place is in an earlier part: the
             * one receive cannot be sized from the values it brings */
            search_text_printf(b, "; the receive at ");
            at_line(b, h, h->recv_arg_use_file, h->recv_arg_use_line, relative);
            search_text_printf(b, " takes its count or its buffer from what the one at ");
            at_line(b, h, h->recv_arg_file, h->recv_arg_line, relative);
            search_text_printf(b, " receives, which now comes in the same message: receive it with the largest "
                                  "count it can have (into a buffer that large; MPI_Get_count tells what came), "
                                  "or MPI_Probe it and size the buffer with MPI_Get_count, then copy the parts "
                                  "out in order");
        }
    }
    if (h->flags & SEARCH_HINT_NEEDS_BUFFER) {
        search_text_printf(b, "; the buffer sent at ");
        at_line(b, h, h->buf_file, h->buf_line, relative);
        search_text_printf(b, " needs a copy of its own, since ");
        at_line(b, h, h->over_file, h->over_line, relative);
        search_text_printf(b, h->over_frees ? " frees it before the message leaves" : " overwrites it before the message leaves");
    }
    free(v);
}

static void collective_text(struct search_text *b, const struct search_hint *h, bool relative)
{
    size_t n = 0;
    struct fline *v = hint_lines(h, -1, true, &n);
    if (!v)
        return;
    search_text_printf(b, "replace the calls at ");
    lines_text(b, h, v, n, relative);
    search_text_printf(b, " with one %s", h->collective ? h->collective : "collective");
    if (h->root >= 0)
        search_text_printf(b, " rooted at rank %d", h->root);
    search_text_printf(b, " made by every rank of the pattern");
    free(v);
}

char *search_fix_text(const struct search_hint *h, bool relative)
{
    struct search_text b = {0};
    switch (h->kind) {
    case SEARCH_HINT_OVERLAP:
        overlap_text(&b, h, relative);
        break;
    case SEARCH_HINT_AGGREGATE:
        aggregate_text(&b, h, relative);
        break;
    case SEARCH_HINT_COLLECTIVE:
        if (h->coll_fix) /* the pattern's own (search/xrank/collectives/) */
            search_text_printf(&b, "%s", h->coll_fix);
        else
            collective_text(&b, h, relative);
        break;
    default:
        search_text_printf(&b, "see the hint");
    }
    return search_text_take(&b);
}
