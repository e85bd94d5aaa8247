/* fix.c - where the edit that applies an overlap hint goes
 * (docs/dependence.md, "The fix"): the statement or loop the nonblocking
 * call starts at and the one it is waited for at, and which related lines
 * that places between them.  fix-text.c spells the edit out. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

static struct search_fix_loc fix_at(const char *file, const char *func, uint32_t line, uint32_t col, int where)
{
    return (struct search_fix_loc){.file = file, .func = func, .line = line, .col = col, .where = where,
                                   .loop_id = CHT_NONE, .outer_id = CHT_NONE};
}

/* The loop whose other iteration a place in another iteration is in: the
 * innermost of the place's own loops that also runs the call.  Its first
 * iteration has no iteration before, its last no next one: the first
 * start goes before it, the last wait after it.  Left unknown when the
 * place's function has no such loop (the loop is in a caller). */
/* The innermost loop around statement s (its function's loops) that also
 * runs the hint's call, NULL if none. */
static const struct trace_loop_info *loop_around_call(const struct search_hint *h, const struct trace_site_info *s)
{
    unsigned n = 0;
    for (const struct trace_loop_info *l = s ? s->loop_info : NULL; l && n < 256; l = l->parent_info, n++)
        if (search_hint_encloses(h, l->id))
            return l;
    return NULL;
}

/* Whether loop id is among loops and their enclosing ones. */
static bool chain_has(const struct trace_loop_info *loops, uint32_t id)
{
    unsigned n = 0;
    for (const struct trace_loop_info *l = loops; l && n < 256; l = l->parent_info, n++)
        if (l->id == id)
            return true;
    return false;
}

static void outer_loop(const struct search_hint *h, const struct trace_site_info *s, struct search_fix_loc *f)
{
    const struct trace_loop_info *l = loop_around_call(h, s);
    if (l) {
        f->outer_file = l->file;
        f->outer_line = l->line;
        f->outer_id = l->id;
    }
}

bool search_fix_bound_fits(const struct search_hint *h, const struct trace_site_info *chosen,
                           const struct search_bound *k)
{
    const struct trace_loop_info *L = loop_around_call(h, chosen);
    if (!L || !k->info || strcmp(search_nz(k->info->func), search_nz(L->func)) ||
        strcmp(search_nz(k->info->file), search_nz(L->file)))
        return false;
    /* inside it: which of the two runs first is not known */
    return !chain_has(k->info->loop_info, L->id);
}

/* Before or after the whole loop whose header is at l's line. */
static struct search_fix_loc fix_at_loop(const struct trace_loop_info *l, int where)
{
    struct search_fix_loc f = fix_at(l->file, l->func, l->line, l->col, where);
    f.loop = true;
    f.loop_id = l->id;
    return f;
}

/* Whether some vector of a box set has an iteration of loop id. */
static bool boxes_have(const struct search_boxes *b, uint32_t id)
{
    for (uint32_t i = 0; i < b->n; i++)
        for (uint32_t d = 0; d < b->box[i].depth; d++)
            if (b->box[i].dim[d].loop == id)
                return true;
    return false;
}

bool search_hint_encloses(const struct search_hint *h, uint32_t id)
{
    return boxes_have(&h->iters, id);
}

/* Whether every call with a window (the lowest rank's) ran in the first
 * iteration of loop id. */
bool search_fix_first_iteration(const struct search_hint *h, uint32_t id)
{
    bool any = false;
    for (uint32_t i = 0; i < h->iters.n; i++)
        for (uint32_t d = 0; d < h->iters.box[i].depth; d++)
            if (h->iters.box[i].dim[d].loop == id) {
                if (h->iters.box[i].dim[d].hi != 1)
                    return false;
                any = true;
            }
    return any && !h->iters.more;
}

/* A start in the iteration before, after the statement the call depends
 * on (dep).  When every call it serves runs in the first iteration of
 * the innermost loop around dep that also runs the call, that loop has
 * no iteration before theirs: dep ran in an earlier iteration of a loop
 * around it (the previous round of an outer loop, whose inner loop of
 * receives ended with the statement), so the start goes right after that
 * whole inner loop, in the iteration before of the next loop out, and the
 * first one right before that loop (the master of a master/worker sum,
 * whose first receive of a round can start as soon as the last round's
 * receives are added up). */
static void start_iteration_before(struct search_hint *h, const struct trace_site_info *dep)
{
    const struct trace_loop_info *in = search_ctx_shown(dep) ? NULL : loop_around_call(h, dep);
    const struct trace_loop_info *out = NULL;
    unsigned n = 0;
    for (const struct trace_loop_info *l = in ? in->parent_info : NULL; l && n < 256 && !out; l = l->parent_info, n++)
        if (search_hint_encloses(h, l->id))
            out = l;
    if (!in || !out || !search_fix_first_iteration(h, in->id)) {
        outer_loop(h, dep, &h->fix.start);
        return;
    }
    h->fix.start = fix_at_loop(in, SEARCH_FIX_AFTER);
    h->fix.start.other_iteration = true;
    h->fix.start.outer_file = out->file;
    h->fix.start.outer_line = out->line;
    h->fix.start.outer_id = out->id;
}

/* A statement's place for an edit next to it: a statement inside loops
 * that do not enclose the call stands for the outermost of them (the wait
 * goes before that loop, the start after it), else itself. */
static struct search_fix_loc place_of(const struct search_hint *h, const struct trace_site_info *s, int where)
{
    const struct trace_loop_info *top = NULL, *l = s->loop_info;
    const struct trace_callctx *x = search_ctx_shown(s);
    if (x) { /* an MPI call made through a helper: where the helper is called */
        const struct trace_srcframe *f = &x->frames[x->anchor];
        return fix_at(f->file, f->func, f->line, f->col, where);
    }
    for (unsigned n = 0; l && n < 256 && !search_hint_encloses(h, l->id) && !strcmp(search_nz(l->func), search_nz(s->func));
         l = l->parent_info, n++)
        top = l;
    struct search_fix_loc f = top ? fix_at_loop(top, where) : fix_at(s->file, s->func, s->line, s->col, where);
    f.loops = top ? top->parent_info : s->loop_info;
    f.loops_known = true;
    return f;
}

/* Whether every related line of a role lies in a function below the anchor
 * of s's calling context (inside the helper call that place_of lifts s
 * to): an edit right after (before) that call leaves them all before
 * (after) it, so it moves nothing (CoMD's second halo Sendrecv, bounded
 * by the first one's: only the first helper's return is between them). */
static bool related_inside_lifted(const struct search_hint *h, const struct trace_site_info *s, int role)
{
    const struct trace_callctx *x = search_ctx_shown(s);
    bool any = false;
    if (!x)
        return false;
    for (uint32_t k = 0; k < h->nrelated; k++) {
        const struct search_related *r = &h->related[k];
        if (r->role != role)
            continue;
        bool inside = false;
        for (uint32_t f = 0; f < x->anchor && !inside; f++)
            inside = !strcmp(search_nz(x->frames[f].func), search_nz(r->func));
        if (!inside)
            return false;
        any = true;
    }
    return any;
}

/* Whether place_of lifts s to the very statement the hint is shown at, in
 * the same iteration: the call and s run inside one call of a helper made
 * there (graph500's acks, sent in aml_poll_intra, and the next MPI call
 * that needs them done, both inside the warm-up run_bfs call of main), so
 * everything between them runs inside it too, and no place at that level
 * lies between them ("wait right before line 351" would wait before the
 * call is made). */
static bool lifted_to_call(const struct search_hint *h, const struct trace_site_info *s, bool other_iteration)
{
    const struct trace_callctx *x = search_ctx_shown(s);
    if (!x || other_iteration)
        return false;
    const struct trace_srcframe *f = &x->frames[x->anchor];
    return f->line == h->line && f->col == h->col && !strcmp(search_nz(f->file), search_nz(h->file));
}

/* Whether some related line of the role is inside the loop at place f. */
static bool related_some_in_loop(const struct search_hint *h, const struct search_fix_loc *f, int role)
{
    for (uint32_t k = 0; f->loop && k < h->nrelated; k++)
        if (h->related[k].role == role && search_related_in_loop(&h->related[k], f->loop_id))
            return true;
    return false;
}

/* Whether every related line of a role lies inside the loop a place was
 * lifted to (f->loop: after or before that whole loop): the edit then
 * leaves them all on the call's side of it, and overlaps nothing unless
 * the loop is split (helper-tail.c: the start after the loop that updates
 * both the buffer sent and, at the next line, one the call does not
 * touch; jacobi: the wait before the update loop, whose inner rows do not
 * read the halos). */
static bool related_inside_loop(const struct search_hint *h, const struct search_fix_loc *f, int role)
{
    bool any = false;
    if (!f->loop)
        return false;
    for (uint32_t k = 0; k < h->nrelated; k++) {
        const struct search_related *r = &h->related[k];
        if (r->role != role)
            continue;
        if (!r->loop || r->loop->line != f->line || strcmp(search_nz(r->loop->file), search_nz(f->file)))
            return false;
        any = true;
    }
    return any;
}

/* Whether a place taken from statement s lies outside the loop around the
 * hint's MPI call in the call's own function: s is in that function and
 * the loop is not among those around s. */
static bool outside_call_loop(const struct search_hint *h, const char *func, const struct trace_loop_info *loops,
                              const struct search_fix_loc *f)
{
    const struct trace_loop_info *L = h->call_loop;
    if (!L || !f->func)
        return false;
    if (strcmp(search_nz(f->func), search_nz(L->func)) || strcmp(search_nz(func), search_nz(L->func))) {
        /* a place in a caller of the loop's function (on the recorded
         * path, above it): the loop has ended there (my_bcast's loop of
         * sends, waited for in main) */
        const struct trace_callctx *x = h->path ? h->path : h->ctx;
        uint32_t kl = UINT32_MAX;
        for (uint32_t k = 0; x && k < x->nframes; k++) {
            const char *fk = search_nz(x->frames[k].func);
            if (kl == UINT32_MAX && !strcmp(fk, search_nz(L->func)))
                kl = k;
            else if (kl != UINT32_MAX && !strcmp(fk, search_nz(f->func)))
                return true;
        }
        return false;
    }
    return !chain_has(loops, L->id);
}

/* Right before a related line some of whose executions are not in the
 * windows, as a place that holds for all of them: before the first loop
 * of its own nest that does not run the call (a statement inside such a
 * loop cannot wait in its body: its other executions would wait too),
 * else before the statement.  The loops of the nest below the outermost
 * one of its function (r->loop) are in that function too. */
static struct search_fix_loc before_related(const struct search_hint *h, const struct search_related *r)
{
    if (r->loop && !search_hint_encloses(h, r->loop->id))
        return fix_at_loop(r->loop, SEARCH_FIX_BEFORE);
    if (r->loop && r->iters.n) {
        const struct search_box *b = &r->iters.box[0];
        bool inside = false;
        for (uint32_t d = 0; d < b->depth; d++) {
            inside |= b->dim[d].loop == r->loop->id;
            if (inside && b->dim[d].line && !search_hint_encloses(h, b->dim[d].loop)) {
                struct search_fix_loc f = fix_at(r->file, r->func, b->dim[d].line, 0, SEARCH_FIX_BEFORE);
                f.loop = true;
                f.loop_id = b->dim[d].loop;
                return f;
            }
        }
    }
    return fix_at(r->file, r->func, r->line, r->col, SEARCH_FIX_BEFORE);
}

/* The place of the call's path in a function: the hint's own location,
 * then the frames down to the MPI call; with file, in that file too.
 * False if the function is off the path. */
static bool path_frame(const struct search_hint *h, const char *file, const char *func, struct trace_srcframe *out)
{
    uint32_t n = search_hint_nframes(h);
    for (uint32_t k = 0; k <= n; k++) {
        struct trace_srcframe f = k < n ? search_hint_frame(h, k)
                                        : (struct trace_srcframe){h->file, h->func, h->line, h->col};
        if (!strcmp(search_nz(func), search_nz(f.func)) &&
            (!file || (f.file && !strcmp(file, f.file)))) {
            *out = f;
            return true;
        }
    }
    return false;
}

/* Where a related line runs after the call, from its place in the source
 * beside the call's path: 2 below the path's place in its function (in
 * the same iteration), 0 at or above it (it runs in the next iteration),
 * -1 in a function off the path (unknown: it may run before the call in
 * the same iteration, or after it).  Related lines are sorted by file and
 * line, so the first of class 2 is the first to run after the call. */
static int after_call(const struct search_hint *h, const struct search_related *r)
{
    struct trace_srcframe f;
    if (!r->file || !path_frame(h, r->file, r->func, &f))
        return -1;
    return r->line > f.line ? 2 : 0;
}

/* Whether a statement is in the hint's function or in one on its call
 * path down to the MPI call. */
static bool on_path(const struct search_hint *h, const char *func)
{
    struct trace_srcframe f;
    return path_frame(h, NULL, func, &f);
}

/* Whether func is known to be off the call's path and not one of its
 * callers: a function the recorded call path does not go through (the
 * path is recorded up to main), which runs after the call returns to one
 * of the path's functions, and may run for other callers too. */
static bool off_path(const struct search_hint *h, const char *func)
{
    const struct trace_callctx *x = h->path ? h->path : h->ctx;
    if (!func || !*func || on_path(h, func) || !x)
        return false;
    for (uint32_t k = 0; k < x->nframes; k++)
        if (!strcmp(search_nz(x->frames[k].func), func))
            return false;
    return true;
}

/* The fix waits for the call right after it (where the call is). */
bool search_fix_waits_at_call(const struct search_hint *h)
{
    return h->fix.wait.where == SEARCH_FIX_AFTER && h->fix.wait.line == h->line && h->fix.wait.file == h->file;
}

bool search_fix_changes_nothing(const struct search_hint *h)
{
    return h->fix.start.where == SEARCH_FIX_AT && search_fix_waits_at_call(h);
}

void search_fix_overlap(struct search_hint *h, const struct trace_site_info *dep, bool dep_earlier,
                        const struct trace_site_info *use, bool use_later, uint32_t dep_loops)
{
    const struct search_related *first_before = NULL, *last_after = NULL, *first_part = NULL;
    bool before_part = false, unknown_part = false;
    int first_class = -1;
    for (uint32_t k = 0; k < h->nrelated; k++) {
        const struct search_related *r = &h->related[k];
        bool part = r->events < r->total;
        if (r->role == SEARCH_REL_BEFORE) {
            if (!first_before)
                first_before = r;
            before_part |= part;
        } else if (r->role == SEARCH_REL_AFTER) {
            last_after = r;
            int c = part ? after_call(h, r) : -2;
            if (c == -1)
                unknown_part = true;
            else if (c >= 0 && (!first_part || c > first_class)) {
                first_part = r; /* related lines are sorted: the first of the best class */
                first_class = c;
            }
        }
    }
    /* a statement in a function off the call's path (xmalloc's malloc of
     * the receive buffer, called for other buffers too): starting the call
     * there would start it at each of that function's calls; the start is
     * then taken from the related lines */
    bool off_path_earlier = false;
    if (dep && !on_path(h, dep->func)) {
        /* bounded by a statement of a function called in the iteration
         * before (heat2D's update, called after each exchange): the lines
         * before the loop that some first call could move past do not
         * serve the others, and where that function is called is not
         * known here: the call starts where it is */
        off_path_earlier = dep_earlier;
        dep = NULL;
    }
    if (!first_before || off_path_earlier ||
        (dep && (related_inside_lifted(h, dep, SEARCH_REL_BEFORE) || lifted_to_call(h, dep, dep_earlier))))
        h->fix.start = fix_at(h->file, h->func, h->line, h->col, SEARCH_FIX_AT);
    else if (dep && dep->file && *dep->file && dep->line) {
        h->fix.start = place_of(h, dep, SEARCH_FIX_AFTER);
        h->fix.start.other_iteration = dep_earlier;
        if (dep_earlier)
            start_iteration_before(h, dep);
        else if (dep->condition && !(dep->flags & CHT_SITEF_LOOP_TEST) && h->call_conditional &&
                 !h->fix.start.loop && h->fix.start.line == dep->line)
            /* the condition of an if on the call's path (heat2D's
             * `if (taskid == MASTER)`, the call in its else) */
            h->fix.start.branch = true;
    } else if (before_part || !on_path(h, first_before->func) ||
               (first_before->loop && !search_hint_encloses(h, first_before->loop->id) &&
                (dep_loops >> (first_before->loop->id % 32) & 1)))
        /* no statement bounds the windows and some executions of a line
         * cannot move, or the first line is off the call's path, or it is
         * in a loop that ran a window's bound (bound-in-helper.c: a helper's
         * barrier ends each block; before the loop would leave it after the
         * start): only the call's own place holds for all of them */
        h->fix.start = fix_at(h->file, h->func, h->line, h->col, SEARCH_FIX_AT);
    else if (first_before->loop && !search_hint_encloses(h, first_before->loop->id))
        /* every execution can move: before the loop it is in (its region) */
    {
        h->fix.start = fix_at_loop(first_before->loop, SEARCH_FIX_BEFORE);
        h->fix.start.rel = first_before;
    }
    else
    {
        h->fix.start = fix_at(first_before->file, first_before->func, first_before->line, first_before->col,
                              SEARCH_FIX_BEFORE);
        h->fix.start.rel = first_before;
    }
    if (h->fix.start.loop && h->fix.start.where == SEARCH_FIX_AFTER && !h->fix.start.other_iteration &&
        related_inside_loop(h, &h->fix.start, SEARCH_REL_BEFORE))
        h->fix.start.split = true;
    if (use && (related_inside_lifted(h, use, SEARCH_REL_AFTER) || lifted_to_call(h, use, use_later))) {
        h->fix.wait = fix_at(h->file, h->func, h->line, h->col, SEARCH_FIX_AFTER);
    } else if (use && use->file && *use->file && use->line) {
        /* also without computation to run before the wait: other MPI
         * calls in the window overlap with this one */
        h->fix.wait = place_of(h, use, SEARCH_FIX_BEFORE);
        h->fix.wait.off_path = off_path(h, h->fix.wait.func);
        h->fix.wait.other_iteration = use_later;
        if (use_later)
            outer_loop(h, use, &h->fix.wait);
    } else if (unknown_part) {
        /* a line that runs before the wait only in part, in a function
         * whose order against the call the source does not tell: only
         * right after the call holds for sure */
        h->fix.wait = fix_at(h->file, h->func, h->line, h->col, SEARCH_FIX_AFTER);
    } else if (first_part) {
        /* no statement bounds the windows: after the last line that can
         * run before the wait would also be after the executions of a
         * line that are not in the windows (halo_staging's update reads
         * the row just received in its first iteration) */
        h->fix.wait = before_related(h, first_part);
        h->fix.wait.rel = first_part;
        h->fix.wait.other_iteration = !first_class && h->iters.n && h->iters.box[0].depth;
    } else if (last_after) {
        h->fix.wait = fix_at(last_after->file, last_after->func, last_after->line, last_after->col,
                             SEARCH_FIX_AFTER);
    } else {
        h->fix.wait = fix_at(h->file, h->func, h->line, h->col, SEARCH_FIX_AFTER);
    }
    if (h->fix.wait.loop && h->fix.wait.where == SEARCH_FIX_BEFORE && !h->fix.wait.other_iteration &&
        related_inside_loop(h, &h->fix.wait, SEARCH_REL_AFTER))
        h->fix.wait.split = true;
    /* a wait in a function that runs for other callers too, before a loop
     * of it that holds some of the lines credited (heat_helpers' halo_swap,
     * waited for before diffuse's loop, whose inner rows can run before the
     * wait): waiting before the call of that function would overlap none
     * of the loop; the wait goes into it, and the loop is split */
    if (h->fix.wait.off_path && h->fix.wait.loop && h->fix.wait.where == SEARCH_FIX_BEFORE &&
        !h->fix.wait.other_iteration && related_some_in_loop(h, &h->fix.wait, SEARCH_REL_AFTER))
        h->fix.wait.split = true;
    /* a place outside the loop that makes the call (dft's sends in the
     * loop over q, started after the loop that fills their buffer) serves
     * every call of that loop */
    if (h->fix.start.where != SEARCH_FIX_AT && dep && outside_call_loop(h, dep->func, dep->loop_info, &h->fix.start))
        h->fix.start.per_call = true;
    if (h->fix.wait.where == SEARCH_FIX_BEFORE &&
        ((use && outside_call_loop(h, use->func, use->loop_info, &h->fix.wait)) ||
         (!use && first_part && first_part->loop &&
          outside_call_loop(h, first_part->func, first_part->loop, &h->fix.wait))))
        h->fix.wait.per_call = true;
}

/* Where the call's path passes through function func: its depth (0: the
 * function that makes the MPI call, 1: its caller, ...) and the line of
 * the call there.  False if func is not on the recorded path. */
static bool path_depth(const struct search_hint *h, const char *func, uint32_t *depth, uint32_t *line)
{
    const struct trace_callctx *x = h->path ? h->path : h->ctx;
    if (!func || !*func)
        return false;
    for (uint32_t k = 0; x && k < x->nframes; k++)
        if (!strcmp(search_nz(x->frames[k].func), func)) {
            *depth = k;
            *line = x->frames[k].line;
            return true;
        }
    if (x || strcmp(search_nz(h->func), func))
        return false;
    *depth = 0;
    *line = h->line;
    return true;
}

/* Whether a related line runs inside the loop of global id `id`. */
bool search_related_in_loop(const struct search_related *r, uint32_t id)
{
    if (id == CHT_NONE)
        return false;
    return chain_has(r->loop, id) || boxes_have(&r->iters, id);
}

/* Whether the edit's place f is inside loop id, a loop around the call:
 * the place is the statement a site's loops are known of, or a related
 * line, or the outermost loop around either that does not run the call
 * (inside every loop around them that does). */
static bool place_in_loop(const struct search_fix_loc *f, uint32_t id)
{
    return f->loops_known ? chain_has(f->loops, id) : f->rel && search_related_in_loop(f->rel, id);
}

/* Whether the edit's place f in another iteration (start: the iteration
 * before, wait: the next one) leaves r in the window: r runs inside the
 * loop whose iterations are meant (its first start and last wait go
 * before and after that loop, so a line after it is past the last wait),
 * and, in f's own function, not on the other side of f (between a wait
 * and the call, or between the call and a start).  True when the loop is
 * not known. */
static bool places_other_iteration(const struct search_hint *h, const struct search_related *r,
                                   const struct search_fix_loc *f, bool start)
{
    uint32_t df, cf, dr, cr;
    if (f->outer_id == CHT_NONE)
        return true;
    if (!search_related_in_loop(r, f->outer_id))
        return false;
    if (f->loop) /* after (before) the whole loop: its lines run before the start (after the wait) */
        return !search_related_in_loop(r, f->loop_id);
    if (!path_depth(h, f->func, &df, &cf) || !path_depth(h, r->func, &dr, &cr) || df != dr ||
        strcmp(search_nz(r->file), search_nz(f->file)))
        return true;
    if (start) /* started after line f in the iteration before: not after the call up to f */
        return !(r->line == f->line || (cf < f->line && r->line > cf && r->line <= f->line));
    /* waited for before line f in the next iteration: not from f up to the
     * call (the call's own line, when f is it: its arguments) */
    return !(r->line == f->line || (f->line < cf && r->line >= f->line && r->line < cf));
}

bool search_fix_places(const struct search_hint *h, const struct search_related *r)
{
    bool start = r->role == SEARCH_REL_BEFORE;
    const struct search_fix_loc *f = start ? &h->fix.start : &h->fix.wait;
    uint32_t df, cf, dr, cr;
    if (r->role != SEARCH_REL_BEFORE && r->role != SEARCH_REL_AFTER)
        return true;
    if (f->where == SEARCH_FIX_AT || (!start && search_fix_waits_at_call(h)))
        return false; /* that side of the call does not change */
    if (!start && f->where == SEARCH_FIX_AFTER)
        return true; /* after the last line that can run before it */
    if (f->off_path)
        return true;
    if (f->other_iteration)
        return places_other_iteration(h, r, f, start);
    if (start && r->condition && h->call_conditional)
        /* a branch condition before a call that runs on some paths only,
         * started earlier in the same iteration: the call starts under its
         * condition, after it (compare_bcast's `if (i != world_rank)`
         * before its send: the edit does not move it) */
        return false;
    if (!path_depth(h, f->func, &df, &cf) || !path_depth(h, r->func, &dr, &cr))
        return true; /* off the path: which runs first is not known */
    if (dr > df)
        /* in a caller of the edit's function: it runs before that function
         * is entered (before the start) or after it returns (after the
         * wait) */
        return false;
    if (dr < df || strcmp(search_nz(r->file), search_nz(f->file)))
        return true; /* below it on the path, between it and the MPI call */
    bool in_f_loop = f->loop && search_related_in_loop(r, f->loop_id);
    if (start) {
        if (r->line >= cr)
            return false;
        if (f->loop && f->where == SEARCH_FIX_AFTER)
            /* after the whole loop: its lines run before the start unless
             * the fix splits it */
            return r->line > f->line && (!in_f_loop || f->split);
        return f->where == SEARCH_FIX_BEFORE ? r->line >= f->line : r->line > f->line;
    }
    /* a loop around the call (in its own function) but not around the
     * wait runs its later iterations between them (halo_staging's loop
     * over turns: a rank receives in one turn, packs and sends in the
     * next, then updates; the receive's wait before the update) */
    unsigned n = 0;
    for (const struct trace_loop_info *l = dr == 0 && (f->loops_known || f->rel) ? h->call_loop : NULL; l && n < 256;
         l = l->parent_info, n++)
        if (!place_in_loop(f, l->id) && search_related_in_loop(r, l->id))
            return !in_f_loop || f->split;
    if (r->line <= cr)
        return false;
    if (in_f_loop) /* before the whole loop: only if the fix splits it */
        return f->split;
    return r->line < f->line;
}
