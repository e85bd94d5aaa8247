/* fix.c - the pieces the patterns' fix hooks share (docs/collectives.md,
 * "The fix"): what one instance tells about the edit (the size of its
 * messages, the rank whose slot starts a buffer of slices, whether every
 * rank's own block already sits at its slot), and the parts of the
 * sentence: which calls and loop every rank replaces with the collective,
 * on the root and on the others, the root, and the bytes of one message.
 *
 * The collective is called where the calls it replaces are, by every rank
 * of the pattern: a root loop of sends or receives goes as a whole (the
 * loop that makes the calls, when one rank made more than one call at a
 * site in one instance), and so do the others' calls.  A rank's own slot
 * of a gather or a scatter was never part of a message: MPI_IN_PLACE at
 * the root leaves it as it is, which is what the point-to-point calls did.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "collectives-private.h"

/* ---- facts ----------------------------------------------------------------------------------- */

static int u64_cmp(const void *pa, const void *pb)
{
    return coll_cmp_u64(*(const uint64_t *)pa, *(const uint64_t *)pb);
}

/* Whether, on rank r of the instance, the blocks it received and its own
 * (its first send of bytes it did not receive) tile one span in slots of
 * equal size, its own at its place among the members (sorted ranks). */
static bool own_at_slot(const struct cx *c, const struct inst *in, uint32_t first, uint32_t end,
                        const int32_t *mem, uint32_t nmem, uint64_t *addr)
{
    int32_t r = in->v[first].rank;
    uint64_t own = 0, len = 0;
    bool have_own = false;
    uint32_t n = 0;
    for (uint32_t i = first; i < end; i++) {
        const struct dg_msgrec *x = coll_rec(c, r, in->v[i].pos);
        if (x->kind == DG_MSG_SEND && !(x->flags & DG_MSGF_FORWARD) && !have_own) {
            own = x->buf;
            len = x->bytes;
            have_own = true;
        }
    }
    if (!have_own || !len)
        return false;
    addr[n++] = own;
    for (uint32_t i = first; i < end; i++) {
        const struct dg_msgrec *x = coll_rec(c, r, in->v[i].pos);
        if (x->kind != DG_MSG_RECV)
            continue;
        if (x->bytes != len || n >= nmem)
            return false;
        addr[n++] = x->buf;
    }
    if (n != nmem)
        return false;
    qsort(addr, n, sizeof *addr, u64_cmp);
    for (uint32_t i = 1; i < n; i++)
        if (addr[i] != addr[i - 1] + len)
            return false;
    const int32_t *at = bsearch(&r, mem, nmem, sizeof *mem, coll_i32_cmp);
    return at && addr[at - mem] == own;
}

/* Whether every rank's own block sits at its slot of the blocks it
 * receives (an all-gather in place); parts sorted by rank. */
static bool all_own_at_slot(const struct cx *c, const struct inst *in)
{
    int32_t *mem = malloc((in->n ? in->n : 1) * sizeof *mem);
    uint64_t *addr = malloc(((size_t)in->n + 1) * sizeof *addr);
    bool ok = mem && addr;
    uint32_t nmem = 0;
    for (uint32_t i = 0; ok && i < in->n; i++)
        if (!nmem || mem[nmem - 1] != in->v[i].rank)
            mem[nmem++] = in->v[i].rank;
    for (uint32_t a = 0, b; ok && a < in->n; a = b) {
        for (b = a + 1; b < in->n && in->v[b].rank == in->v[a].rank; b++)
            ;
        ok = own_at_slot(c, in, a, b, mem, nmem, addr);
    }
    free(mem);
    free(addr);
    return ok && nmem > 1;
}

void coll_fix_facts(const struct cx *c, const struct inst *in, struct coll_fixfacts *fx, bool first)
{
    if (first) {
        fx->bytes_min = UINT64_MAX;
        fx->bytes_max = 0;
        fx->first_peer = -1;
        fx->first_root = in->root;
        fx->own_in_place = in->root < 0 && !in->ngroup && all_own_at_slot(c, in);
    }
    for (uint32_t i = 0; i < in->n; i++) {
        const struct part *pt = &in->v[i];
        const struct dg_msgrec *x = coll_rec(c, pt->rank, pt->pos);
        if (x->kind != DG_MSG_SEND && x->kind != DG_MSG_RECV)
            continue;
        if (in->root >= 0 && (!pt->root || pt->rank != in->root))
            continue;
        if (in->root < 0 && x->kind != DG_MSG_SEND)
            continue;
        if (x->bytes < fx->bytes_min)
            fx->bytes_min = x->bytes;
        if (x->bytes > fx->bytes_max)
            fx->bytes_max = x->bytes;
        if (first && in->root >= 0 && x->peer != in->root && x->peer >= 0 &&
            (fx->first_peer < 0 || x->peer < fx->first_peer))
            fx->first_peer = x->peer;
    }
}

/* ---- text ------------------------------------------------------------------------------------ */

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static const char *hint_file(const struct search_hint *sh)
{
    return sh->file ? sh->file : "";
}

/* Whether call site l is on the side asked for: the root's calls
 * (LM_ROOT), the others' (forwarding sends can be at the root's lines), or
 * all. */
enum side { SIDE_ROOT, SIDE_OTHERS, SIDE_ALL };

static bool on_side(const struct iloc *l, enum side s)
{
    return s == SIDE_ALL || (s == SIDE_ROOT ? (l->mask & LM_ROOT) != 0 : l->nonroot);
}

/* "line 12" / "lines 12, 14" / "other.c:12" of the sites on side s with this call. */
static void side_lines(struct search_text *b, const struct hacc *h, const struct search_hint *sh, enum side s,
                       uint16_t call)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->nlocs; i++)
        n += on_side(&h->locs[i], s) && h->locs[i].call == call;
    search_text_printf(b, n == 1 ? "line " : "lines ");
    bool first = true;
    for (uint32_t i = 0; i < h->nlocs; i++) {
        const struct iloc *l = &h->locs[i];
        if (!on_side(l, s) || l->call != call)
            continue;
        search_text_printf(b, "%s", first ? "" : ", ");
        if (strcmp(l->loc.file, hint_file(sh)))
            search_text_printf(b, "%s:", *l->loc.file ? base_name(l->loc.file) : "??");
        search_text_printf(b, "%u", l->loc.line);
        first = false;
    }
}

/* "the MPI_Send calls at line 129" (and ", the ... at ...") of side s, or
 * nothing (returns false) if it has no call sites. */
static bool side_calls(struct search_text *b, const struct hacc *h, const struct search_hint *sh, enum side s,
                       bool article)
{
    uint16_t seen[16];
    uint32_t ns = 0;
    for (uint32_t i = 0; i < h->nlocs && ns < 16; i++) {
        const struct iloc *l = &h->locs[i];
        bool dup = false;
        for (uint32_t k = 0; k < ns; k++)
            dup |= seen[k] == l->call;
        if (on_side(l, s) && !dup)
            seen[ns++] = l->call;
    }
    for (uint32_t k = 0; k < ns; k++) {
        search_text_printf(b, "%s%s calls at ",
                           k == 0 ? (article ? "the " : "") : k + 1 == ns ? " and the " : ", the ",
                           trace_mpi_call_name(seen[k]));
        side_lines(b, h, sh, s, seen[k]);
    }
    return ns > 0;
}

/* Whether two loops (from the tables of different ranks) are one in the source. */
static bool same_loop(const struct trace_loop_info *a, const struct trace_loop_info *b)
{
    return a == b || (a->line == b->line && a->col == b->col && !strcmp(a->file ? a->file : "", b->file ? b->file : "") &&
                      !strcmp(a->func ? a->func : "", b->func ? b->func : ""));
}

/* The loop that makes side s's calls: the one innermost loop around all
 * of them, when a rank made more than one call at one of them in one
 * instance (NULL otherwise: the calls are written out one by one, or a
 * loop around them runs once an instance). */
static const struct trace_loop_info *side_loop(const struct hacc *h, enum side s)
{
    const struct trace_loop_info *L = NULL;
    bool repeated = false;
    for (uint32_t i = 0; i < h->nlocs; i++) {
        const struct iloc *l = &h->locs[i];
        if (!on_side(l, s))
            continue;
        if (!l->loop || (L && !same_loop(L, l->loop)))
            return NULL;
        L = l->loop;
        repeated |= l->per_rank > 1;
    }
    return repeated ? L : NULL;
}

/* Whether the hand-written calls have a root (a collective with or
 * without one replaces them: allreduce's has one, allgather's ring not). */
static bool rooted(const struct hacc *h)
{
    return h->fx.first_root >= 0;
}

const struct trace_loop_info *coll_fix_loop(const struct hacc *h)
{
    return side_loop(h, rooted(h) ? SIDE_ROOT : SIDE_ALL);
}

/* "the loop at line 136 (its MPI_Send calls at line 137)", or the calls
 * alone; extra: more of that side's statements (the accumulation), or NULL. */
static void side_text(struct search_text *b, const struct hacc *h, const struct search_hint *sh, enum side s,
                      void (*extra)(struct search_text *, const struct hacc *, const struct search_hint *))
{
    const struct trace_loop_info *L = side_loop(h, s);
    if (L) {
        search_text_printf(b, "the loop at ");
        if (L->file && strcmp(L->file, hint_file(sh)))
            search_text_printf(b, "%s:%u", base_name(L->file), L->line);
        else
            search_text_printf(b, "line %u", L->line);
        if (L->func && sh->func && strcmp(L->func, sh->func))
            search_text_printf(b, " in %s", L->func);
        search_text_printf(b, " (its ");
        side_calls(b, h, sh, s, false);
        if (extra)
            extra(b, h, sh);
        search_text_printf(b, "; keep in it whatever else it does)");
        return;
    }
    side_calls(b, h, sh, s, true);
    if (extra)
        extra(b, h, sh);
}

void coll_fix_replace(struct search_text *b, const struct hacc *h, const struct search_hint *sh,
                      void (*root_extra)(struct search_text *, const struct hacc *, const struct search_hint *))
{
    bool others = false;
    for (uint32_t i = 0; i < h->nlocs; i++)
        others |= h->locs[i].nonroot;
    search_text_printf(b, "every rank of the pattern calls one %s in place of%s", sh->collective,
                       rooted(h) && others ? ", " : " ");
    if (!rooted(h)) {
        side_text(b, h, sh, SIDE_ALL, NULL);
        return;
    }
    search_text_printf(b, "%s", others ? "on the root, " : "");
    side_text(b, h, sh, SIDE_ROOT, root_extra);
    if (others) {
        search_text_printf(b, ", and on the other ranks, ");
        side_calls(b, h, sh, SIDE_OTHERS, true);
    } else {
        search_text_printf(b, " on the root");
    }
}

void coll_fix_root(struct search_text *b, const struct hacc *h, const struct search_hint *sh)
{
    if (sh->root >= 0) {
        search_text_printf(b, "; root = rank %d", sh->root);
        return;
    }
    const char *who = h->pat->main_call == LM_SEND ? "sends" : "receives";
    search_text_printf(b, "; root = the rank that %s (it changes from call to call: on the others it is the %s "
                          "their calls name)",
                       who, h->pat->main_call == LM_SEND ? "source" : "destination");
}

void coll_fix_bytes(struct search_text *b, const struct hacc *h)
{
    const struct coll_fixfacts *fx = &h->fx;
    if (fx->bytes_max == 0 || fx->bytes_min > fx->bytes_max)
        search_text_printf(b, "as in the calls");
    else if (fx->bytes_min == fx->bytes_max)
        search_text_printf(b, "as in the calls (%" PRIu64 " bytes)", fx->bytes_min);
    else
        search_text_printf(b, "as in the calls (%" PRIu64 " to %" PRIu64 " bytes, the count changes from call "
                              "to call)",
                           fx->bytes_min, fx->bytes_max);
}

/* "from the root's own slot, one slice (256 bytes) before the slice of rank
 * 1": where a buffer of regular slices starts. */
static void slot0(struct search_text *b, const struct hacc *h)
{
    const struct coll_fixfacts *fx = &h->fx;
    if (fx->first_root >= 0 && fx->first_peer >= 0 && fx->first_root < fx->first_peer) {
        search_text_printf(b, "from the root's own slot, one slice");
        if (fx->bytes_min == fx->bytes_max && fx->bytes_max)
            search_text_printf(b, " (%" PRIu64 " bytes)", fx->bytes_max);
        search_text_printf(b, " before the slice of rank %d", fx->first_peer);
    } else if (fx->first_peer >= 0) {
        search_text_printf(b, "from the slice of rank %d", fx->first_peer);
    } else {
        search_text_printf(b, "from the slot of the lowest rank");
    }
}

void coll_fix_slices(struct search_text *b, const struct hacc *h, const char *buffer)
{
    search_text_printf(b, "; %s, ", buffer);
    slot0(b, h);
    search_text_printf(b, ", a slice per rank in rank order; sendcount and recvcount with the datatype ");
    coll_fix_bytes(b, h);
}
