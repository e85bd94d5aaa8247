/* compare.c - two reports of one program set side by side (commhint
 * compare, docs/compare.md): which hints of the first run are gone in the
 * second, which remain, which are new, and how each MPI call site's time
 * and wait states changed.
 *
 * The traces hold no source text, and the program has changed between the
 * runs, so lines cannot be paired by a diff of the sources.  Places (the
 * MPI call sites of the wait-state table and the hint locations, both
 * where `commhint hints` shows them) are paired by what an edit that
 * applies a hint keeps: the file (the same path, else the same name, else
 * the one file left on each side, or a --map), the function, and the call
 * family (a nonblocking call is its blocking call's family: applying an
 * overlap hint turns MPI_Recv into MPI_Irecv).  Within one (file,
 * function, family) the places pair in source order as the longest common
 * subsequence of places whose messages' tags match (a halo exchange's
 * directions, a pivot row and a solution value differ by tag; places with
 * no tag known match any); where the counts differ and the tags do not
 * single a pair out, the pairing is flagged by_order, and the output says
 * so. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

/* ---- places ------------------------------------------------------------------------------ */

struct place {
    int side; /* 0 first run, 1 second */
    const char *file, *func;
    uint32_t line, col;
    const struct trace_callctx *ctx;
    uint16_t call;
    int file_pair; /* index into the comparison's files */
    char family[32];
    struct place *partner; /* paired place of the other run, or NULL */
    bool by_order;
    /* the tags of its messages (point-to-point calls, from the kept calls):
     * up to PLACE_TAGS distinct ones, or many; none known: matches any */
    uint32_t ntags;
    bool many_tags;
    int32_t tags[4];
    /* the wait-state table's entry of the place (its side's report), the
     * first of the second run's hints there (a list through match_hints'
     * next); UINT32_MAX: none */
    uint32_t site, hint_head;
};
#define PLACE_TAGS 4

struct places {
    struct place *v;
    size_t n, cap;
};

/* The family of an MPI call: sends, receives, completions, or the
 * collective without its nonblocking or persistent form. */
static void family_of(uint16_t call, char *buf, size_t size)
{
    int cls = search_call_class_of(call);
    if (cls != SEARCH_CALL_COLL && cls != SEARCH_CALL_OTHER) {
        snprintf(buf, size, "%s", search_call_class_name(cls));
        return;
    }
    const char *name = trace_mpi_call_name(call);
    if (!strncmp(name, "MPI_", 4))
        name += 4;
    /* MPI_Iallreduce, MPI_Ibarrier: the I of a nonblocking collective
     * (followed by a lower-case letter: not MPI_Init) */
    if (cls == SEARCH_CALL_COLL && name[0] == 'I' && name[1] >= 'a' && name[1] <= 'z')
        name++;
    size_t k = 0;
    for (; name[k] && k + 1 < size; k++)
        buf[k] = (char)(name[k] >= 'A' && name[k] <= 'Z' ? name[k] - 'A' + 'a' : name[k]);
    buf[k] = '\0';
    char *init = strstr(buf, "_init");
    if (init && !init[5])
        *init = '\0';
}

static struct place *place_add(struct places *p, int side, const char *file, const char *func, uint32_t line,
                               uint32_t col, const struct trace_callctx *ctx, uint16_t call)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        struct place *v = realloc(p->v, cap * sizeof *v);
        if (!v)
            return NULL;
        p->v = v;
        p->cap = cap;
    }
    struct place *x = &p->v[p->n++];
    memset(x, 0, sizeof *x);
    x->side = side;
    x->file = file ? file : "";
    x->func = func ? func : "";
    x->line = line;
    x->col = col;
    x->ctx = ctx;
    x->call = call;
    x->file_pair = -1;
    x->site = x->hint_head = UINT32_MAX;
    family_of(call, x->family, sizeof x->family);
    return x;
}

/* Order of places: side, location (file, line, column, the frames below
 * the anchor of a calling context), then MPI call. */
static int loc_cmp(const struct place *a, const struct place *b)
{
    if (a->side != b->side)
        return a->side - b->side;
    int c = search_place_cmp(a->file, a->line, a->col, b->file, b->line, b->col);
    return c ? c : search_ctx_cmp(a->ctx, b->ctx);
}

static int place_cmp(const void *pa, const void *pb)
{
    const struct place *a = pa, *b = pb;
    int c = loc_cmp(a, b);
    return c ? c : (a->call > b->call) - (a->call < b->call);
}

/* The place of a location on a side (the array sorted by place_cmp). */
static struct place *place_find(struct places *p, int side, const char *file, uint32_t line, uint32_t col,
                                const struct trace_callctx *ctx, uint16_t call)
{
    struct place key = {
        .side = side, .file = file ? file : "", .line = line, .col = col, .ctx = ctx, .call = call};
    return bsearch(&key, p->v, p->n, sizeof *p->v, place_cmp);
}

static void place_add_tag(struct place *p, int32_t tag)
{
    for (uint32_t i = 0; i < p->ntags; i++)
        if (p->tags[i] == tag)
            return;
    if (p->ntags < PLACE_TAGS)
        p->tags[p->ntags++] = tag;
    else
        p->many_tags = true;
}

/* Adds a message's tag to the places of a side at the location of the
 * part's site, whatever their call (sorted array). */
static void tag_places(struct places *pl, int side, const struct trace_site_info *info, int32_t tag)
{
    struct search_loc l;
    search_loc_of(info, info->id, &l);
    struct place key = {
        .side = side, .file = l.file ? l.file : "", .line = l.line, .col = l.col, .ctx = l.ctx};
    size_t lo = 0, hi = pl->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (loc_cmp(&pl->v[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = lo; k < pl->n && !loc_cmp(&pl->v[k], &key); k++)
        place_add_tag(&pl->v[k], tag);
}

/* The tags of every place's messages, from the calls an analysis kept. */
static void collect_tags(struct places *pl, int side, const struct search_analysis *a)
{
    int world = search_analysis_world_size(a);
    for (int r = 0; r < world; r++) {
        uint32_t n = search_analysis_nparts(a, r);
        for (uint32_t i = 0; i < n; i++) {
            struct search_part pt;
            search_analysis_part(a, r, i, &pt);
            if (pt.kind != SEARCH_PART_SEND && pt.kind != SEARCH_PART_RECV)
                continue;
            const struct trace_site_info *info = search_analysis_part_info(a, r, i);
            if (info)
                tag_places(pl, side, info, pt.tag);
        }
    }
}

/* ---- files -------------------------------------------------------------------------------- */

struct cmp_state {
    struct search_comparison *c;
    struct places pl;
    const struct search_compare_opts *o;
    struct trace_err *err;
    size_t files_cap;
};

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Whether the path p ends with the components end. */
static bool path_ends(const char *p, const char *end, size_t n)
{
    size_t l = strlen(p);
    return n && n <= l && !strncmp(p + l - n, end, n) && (n == l || p[l - n - 1] == '/');
}

static int file_index(const struct search_comparison *c, int side, const char *file)
{
    for (uint32_t i = 0; i < c->nfiles; i++) {
        const char *f = side ? c->files[i].after : c->files[i].before;
        if (f && !strcmp(f, file))
            return (int)i;
    }
    return -1;
}

static int file_add(struct cmp_state *s, int side, const char *file)
{
    struct search_comparison *c = s->c;
    if (file_index(c, side, file) >= 0)
        return 0;
    if (c->nfiles == s->files_cap) {
        size_t cap = s->files_cap ? s->files_cap * 2 : 16;
        struct search_cmp_file *v = realloc(c->files, cap * sizeof *v);
        if (!v)
            return TRACE_ERR_NOMEM;
        c->files = v;
        s->files_cap = cap;
    }
    struct search_cmp_file *f = &c->files[c->nfiles++];
    memset(f, 0, sizeof *f);
    if (side)
        f->after = file;
    else
        f->before = file;
    return 0;
}

/* Moves the second run's file at index j into the pair i (the first
 * run's); returns where the pair is then (the last entry fills j's slot). */
static uint32_t file_join(struct search_comparison *c, uint32_t i, uint32_t j)
{
    c->files[i].after = c->files[j].after;
    c->files[j] = c->files[--c->nfiles];
    return i == c->nfiles ? j : i;
}

/* The unpaired file of a side whose path ends with end[0..n), if exactly one. */
static int file_unpaired_ending(const struct search_comparison *c, int side, const char *end, size_t n)
{
    int found = -1;
    for (uint32_t i = 0; i < c->nfiles; i++) {
        const struct search_cmp_file *f = &c->files[i];
        const char *p = side ? f->after : f->before;
        if (p && !(side ? f->before : f->after) && path_ends(p, end, n)) {
            if (found >= 0)
                return -2;
            found = (int)i;
        }
    }
    return found;
}

static int pair_by_map(struct cmp_state *s)
{
    struct search_comparison *c = s->c;
    for (const char *m = s->o ? s->o->map : NULL; m && *m;) {
        const char *end = strchr(m, ','), *eq = memchr(m, '=', end ? (size_t)(end - m) : strlen(m));
        size_t n = end ? (size_t)(end - m) : strlen(m);
        if (!eq || eq == m || eq == m + n - 1) {
            snprintf(s->err->msg, sizeof s->err->msg, "--map needs FILE=FILE pairs: map=%.*s", (int)n, m);
            return TRACE_ERR_ARG;
        }
        int i = file_unpaired_ending(c, 0, m, (size_t)(eq - m));
        int j = file_unpaired_ending(c, 1, eq + 1, (size_t)(m + n - eq - 1));
        if (i < 0 || j < 0) {
            snprintf(s->err->msg, sizeof s->err->msg, "--map names a file that %s of the %s run: map=%.*s",
                     (i < 0 ? i : j) == -2 ? "ends more than one call site's path" : "is at no call site",
                     i < 0 ? "first" : "second", (int)n, m);
            return TRACE_ERR_ARG;
        }
        c->files[file_join(c, (uint32_t)i, (uint32_t)j)].by_map = true;
        m = end ? end + 1 : NULL;
    }
    return 0;
}

/* Pairs the files: --map, then the same path, the same name (one each),
 * the one file left on each side. */
static int pair_files(struct cmp_state *s)
{
    struct search_comparison *c = s->c;
    int rc = pair_by_map(s);
    if (rc < 0)
        return rc;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < c->nfiles; i++) {
            struct search_cmp_file *f = &c->files[i];
            if (!f->before || f->after)
                continue;
            int j = -1, n = 0;
            for (uint32_t k = 0; k < c->nfiles; k++) {
                const struct search_cmp_file *g = &c->files[k];
                if (g->after && !g->before &&
                    (pass ? !strcmp(base_name(g->after), base_name(f->before))
                          : !strcmp(g->after, f->before))) {
                    j = (int)k;
                    n++;
                }
            }
            if (n == 1) {
                c->files[file_join(c, i, (uint32_t)j)].by_name = pass == 1;
                i = (uint32_t)-1; /* indexes moved: again */
            }
        }
    int lone[2] = {-1, -1}, count[2] = {0, 0};
    for (uint32_t i = 0; i < c->nfiles; i++)
        for (int side = 0; side < 2; side++)
            if ((side ? c->files[i].after : c->files[i].before) &&
                !(side ? c->files[i].before : c->files[i].after)) {
                lone[side] = (int)i;
                count[side]++;
            }
    if (count[0] == 1 && count[1] == 1) {
        c->files[file_join(c, (uint32_t)lone[0], (uint32_t)lone[1])].by_rest = true;
    }
    return 0;
}

/* ---- pairing places ----------------------------------------------------------------------- */

static int group_cmp(const void *pa, const void *pb)
{
    const struct place *a = *(const struct place *const *)pa, *b = *(const struct place *const *)pb;
    if (a->file_pair != b->file_pair)
        return a->file_pair < b->file_pair ? -1 : 1;
    int c = strcmp(a->func, b->func);
    if (c || (c = strcmp(a->family, b->family)))
        return c;
    return place_cmp(a, b);
}

static bool same_group(const struct place *a, const struct place *b)
{
    return a->file_pair == b->file_pair && !strcmp(a->func, b->func) && !strcmp(a->family, b->family);
}

static void pair(struct place *a, struct place *b, bool by_order)
{
    a->partner = b;
    b->partner = a;
    a->by_order = b->by_order = by_order;
}

static bool tags_known(const struct place *p)
{
    return p->ntags || p->many_tags;
}

/* Whether two places can be the same call: the same tags, or not known. */
static bool tags_match(const struct place *a, const struct place *b)
{
    if (!tags_known(a) || !tags_known(b))
        return true;
    if (a->many_tags || b->many_tags)
        return a->many_tags == b->many_tags;
    if (a->ntags != b->ntags)
        return false;
    for (uint32_t i = 0; i < a->ntags; i++) {
        bool found = false;
        for (uint32_t k = 0; k < b->ntags && !found; k++)
            found = a->tags[i] == b->tags[k];
        if (!found)
            return false;
    }
    return true;
}

/* Whether p's tags tell it from every other place of its side's group. */
static bool tags_unique(struct place *const *v, size_t n, const struct place *p)
{
    if (!tags_known(p))
        return false;
    for (size_t k = 0; k < n; k++)
        if (v[k] != p && tags_match(v[k], p))
            return false;
    return true;
}

/* Pairs a[0..na) with b[0..nb) (source order): the longest common
 * subsequence of places whose tags match (any, where not known).  A pair
 * is by order where the counts differ and its tags do not single it out. */
static int pair_group(struct place **a, size_t na, struct place **b, size_t nb)
{
    if (!na || !nb)
        return 0;
    size_t w = nb + 1;
    uint32_t *L = NULL;
    if ((na + 1) * w > (1u << 22)) { /* too large to align: in order */
        for (size_t k = 0; k < na && k < nb; k++)
            pair(a[k], b[k], na != nb);
        return 0;
    }
    if (!(L = calloc((na + 1) * w, sizeof *L)))
        return TRACE_ERR_NOMEM;
    /* L[i][j]: the longest common subsequence of a[i..], b[j..] */
    for (size_t i = na; i-- > 0;)
        for (size_t j = nb; j-- > 0;) {
            uint32_t down = L[(i + 1) * w + j], right = L[i * w + j + 1];
            L[i * w + j] = tags_match(a[i], b[j]) ? L[(i + 1) * w + j + 1] + 1 : down > right ? down : right;
        }
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        if (tags_match(a[i], b[j]) && L[i * w + j] == L[(i + 1) * w + j + 1] + 1) {
            pair(a[i], b[j], na != nb && !(tags_unique(a, na, a[i]) && tags_unique(b, nb, b[j])));
            i++;
            j++;
        } else if (L[(i + 1) * w + j] >= L[i * w + j + 1]) {
            i++;
        } else {
            j++;
        }
    }
    free(L);
    return 0;
}

static int pair_places(struct cmp_state *s)
{
    size_t n = s->pl.n;
    struct place **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return TRACE_ERR_NOMEM;
    for (size_t k = 0; k < n; k++) {
        struct place *p = &s->pl.v[k];
        p->file_pair = file_index(s->c, p->side, p->file);
        v[k] = p;
    }
    qsort(v, n, sizeof *v, group_cmp);
    int rc = 0;
    for (size_t k = 0; k < n && rc >= 0;) {
        size_t e = k + 1;
        while (e < n && same_group(v[e], v[k]))
            e++;
        size_t mid = k;
        while (mid < e && v[mid]->side == 0)
            mid++;
        rc = pair_group(v + k, mid - k, v + mid, e - mid);
        k = e;
    }
    free(v);
    return rc;
}

/* ---- building --------------------------------------------------------------------------- */

static const struct search_report *side_report(const struct search_comparison *c, int side)
{
    return side ? c->after : c->before;
}

static int collect_places(struct cmp_state *s)
{
    for (int side = 0; side < 2; side++) {
        const struct search_report *r = side_report(s->c, side);
        for (uint32_t i = 0; i < r->nwaits; i++) {
            const struct search_waitsite *w = &r->waits[i];
            if (!place_add(&s->pl, side, w->file, w->func, w->line, w->col, w->ctx, w->call) ||
                file_add(s, side, w->file ? w->file : "") < 0)
                return TRACE_ERR_NOMEM;
        }
        for (uint32_t i = 0; i < r->nhints; i++) {
            const struct search_hint *h = &r->hints[i];
            if (!place_add(&s->pl, side, h->file, h->func, h->line, h->col, h->ctx, h->call) ||
                file_add(s, side, h->file ? h->file : "") < 0)
                return TRACE_ERR_NOMEM;
        }
    }
    /* one place per location (a hint at a call site of the table) */
    qsort(s->pl.v, s->pl.n, sizeof *s->pl.v, place_cmp);
    size_t n = 0;
    for (size_t k = 0; k < s->pl.n; k++)
        if (!n || place_cmp(&s->pl.v[n - 1], &s->pl.v[k]))
            s->pl.v[n++] = s->pl.v[k];
    s->pl.n = n;
    return 0;
}

static struct place *place_of_hint(struct cmp_state *s, int side, const struct search_hint *h)
{
    return place_find(&s->pl, side, h->file, h->line, h->col, h->ctx, h->call);
}

static bool same_hint(const struct search_hint *a, const struct search_hint *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == SEARCH_HINT_COLLECTIVE)
        return a->collective && b->collective && !strcmp(a->collective, b->collective);
    return true;
}

static uint64_t run_of(const struct search_report *r)
{
    return r->predict.ok && r->predict.measured_ns ? r->predict.measured_ns : r->run_ns;
}

bool search_compare_shown(const struct search_comparison *c, int side, const struct search_hint *h)
{
    const struct search_report *r = side_report(c, side);
    double min = fmax((double)c->min_saving_ns, c->min_saving_frac * (double)run_of(r));
    return (double)h->saving_ns >= min;
}

static int hint_by_saving(const void *pa, const void *pb)
{
    const struct search_cmp_hint *a = pa, *b = pb;
    if (a->status != b->status)
        return a->status - b->status;
    const struct search_hint *x = a->before ? a->before : a->after, *y = b->before ? b->before : b->after;
    if (x->saving_ns != y->saving_ns)
        return x->saving_ns > y->saving_ns ? -1 : 1;
    return search_hint_location_cmp(x, y);
}

static void other_place(struct search_cmp_hint *x, const struct place *q)
{
    if (!q)
        return;
    x->other_file = q->file;
    x->other_line = q->line;
    x->other_col = q->col;
    x->other_call = q->call;
}

/* Pairs the hints through their places: gone, remaining, new. */
static int match_hints(struct cmp_state *s)
{
    struct search_comparison *c = s->c;
    uint32_t nb = c->before->nhints, na = c->after->nhints;
    uint32_t *next = malloc((na ? na : 1) * sizeof *next); /* the second run's hints by place */
    bool *taken = calloc(na ? na : 1, sizeof *taken);
    c->hints = calloc((size_t)nb + na + 1, sizeof *c->hints);
    if (!next || !taken || !c->hints) {
        free(next);
        free(taken);
        return TRACE_ERR_NOMEM;
    }
    for (uint32_t k = na; k-- > 0;) {
        struct place *q = place_of_hint(s, 1, &c->after->hints[k]);
        next[k] = q ? q->hint_head : UINT32_MAX;
        if (q)
            q->hint_head = k;
    }
    for (uint32_t i = 0; i < nb; i++) {
        const struct search_hint *h = &c->before->hints[i];
        struct place *p = place_of_hint(s, 0, h), *q = p ? p->partner : NULL;
        struct search_cmp_hint *x = &c->hints[c->nhints++];
        x->before = h;
        x->status = SEARCH_CMP_GONE;
        x->place_gone = !q;
        x->by_order = p && p->by_order;
        other_place(x, q);
        for (uint32_t k = q ? q->hint_head : UINT32_MAX; k != UINT32_MAX; k = next[k])
            if (!taken[k] && same_hint(h, &c->after->hints[k])) {
                taken[k] = true;
                x->after = &c->after->hints[k];
                x->status = SEARCH_CMP_REMAINS;
                break;
            }
    }
    for (uint32_t k = 0; k < na; k++)
        if (!taken[k]) {
            struct search_cmp_hint *x = &c->hints[c->nhints++];
            struct place *q = place_of_hint(s, 1, &c->after->hints[k]);
            x->after = &c->after->hints[k];
            x->status = SEARCH_CMP_NEW;
            x->by_order = q && q->by_order;
            other_place(x, q ? q->partner : NULL);
        }
    free(next);
    free(taken);
    qsort(c->hints, c->nhints, sizeof *c->hints, hint_by_saving);
    for (uint32_t i = 0; i < c->nhints; i++) {
        const struct search_cmp_hint *x = &c->hints[i];
        bool shown = (x->before && search_compare_shown(c, 0, x->before)) ||
                     (x->after && search_compare_shown(c, 1, x->after));
        if (!shown)
            continue;
        c->ngone += x->status == SEARCH_CMP_GONE;
        c->nremain += x->status == SEARCH_CMP_REMAINS;
        c->nnew += x->status == SEARCH_CMP_NEW;
    }
    return 0;
}

static uint64_t site_time(const struct search_cmp_site *x, int side)
{
    const struct search_waitsite *w = side ? x->after : x->before;
    return w ? w->time_ns : 0;
}

static int site_by_change(const void *pa, const void *pb)
{
    const struct search_cmp_site *a = pa, *b = pb;
    double da = fabs((double)site_time(a, 1) - (double)site_time(a, 0));
    double db = fabs((double)site_time(b, 1) - (double)site_time(b, 0));
    if (da != db)
        return da > db ? -1 : 1;
    const struct search_waitsite *x = a->before ? a->before : a->after, *y = b->before ? b->before : b->after;
    return search_place_cmp(x->file, x->line, x->col, y->file, y->line, y->col);
}

static struct place *place_of_site(struct cmp_state *s, int side, const struct search_waitsite *w)
{
    return place_find(&s->pl, side, w->file, w->line, w->col, w->ctx, w->call);
}

/* The call sites, paired through their places, by the largest change. */
static int match_sites(struct cmp_state *s)
{
    struct search_comparison *c = s->c;
    uint32_t nb = c->before->nwaits, na = c->after->nwaits;
    c->sites = calloc((size_t)nb + na + 1, sizeof *c->sites);
    if (!c->sites)
        return TRACE_ERR_NOMEM;
    for (uint32_t k = 0; k < na; k++) {
        struct place *q = place_of_site(s, 1, &c->after->waits[k]);
        if (q)
            q->site = k;
    }
    bool *paired = calloc(na ? na : 1, sizeof *paired);
    if (!paired)
        return TRACE_ERR_NOMEM;
    for (uint32_t i = 0; i < nb; i++) {
        struct place *p = place_of_site(s, 0, &c->before->waits[i]), *q = p ? p->partner : NULL;
        struct search_cmp_site *x = &c->sites[c->nsites++];
        x->before = &c->before->waits[i];
        x->by_order = p && p->by_order;
        if (q && q->site != UINT32_MAX) {
            x->after = &c->after->waits[q->site];
            paired[q->site] = true;
        }
    }
    for (uint32_t k = 0; k < na; k++)
        if (!paired[k]) {
            struct place *q = place_of_site(s, 1, &c->after->waits[k]);
            struct search_cmp_site *x = &c->sites[c->nsites++];
            x->after = &c->after->waits[k];
            x->by_order = q && q->by_order;
        }
    free(paired);
    qsort(c->sites, c->nsites, sizeof *c->sites, site_by_change);
    return 0;
}

static void totals(struct search_comparison *c)
{
    for (int side = 0; side < 2; side++) {
        const struct search_report *r = side_report(c, side);
        struct search_cmp_run *t = &c->run[side];
        t->run_ns = run_of(r);
        t->world_size = r->world_size;
        for (uint32_t i = 0; i < r->nwaits; i++) {
            const struct search_waitsite *w = &r->waits[i];
            t->mpi_ns += w->time_ns;
            t->calls += w->calls;
            t->late_sender_ns += w->late_sender_ns;
            t->late_receiver_ns += w->late_receiver_ns;
            t->wait_collective_ns += w->wait_collective_ns;
        }
        for (uint32_t i = 0; i < r->nhints; i++)
            t->shown += search_compare_shown(c, side, &r->hints[i]);
    }
}

int search_compare(const struct search_analysis *first, const struct search_analysis *second,
                   const struct search_compare_opts *o, struct search_comparison **out, struct trace_err *err)
{
    struct trace_err dummy;
    if (!err)
        err = &dummy;
    err->msg[0] = '\0';
    const struct search_report *before = search_analysis_report(first),
                               *after = search_analysis_report(second);
    if (!before || !after || !out)
        return TRACE_ERR_ARG;
    *out = NULL;
    struct search_comparison *c = calloc(1, sizeof *c);
    if (!c)
        goto nomem;
    c->before = before;
    c->after = after;
    c->min_saving_frac = o ? o->min_saving_frac : 0;
    c->min_saving_ns = o ? o->min_saving_ns : 0;
    struct cmp_state s = {.c = c, .o = o, .err = err};
    int rc;
    if ((rc = collect_places(&s)) >= 0) {
        collect_tags(&s.pl, 0, first);
        collect_tags(&s.pl, 1, second);
    }
    if (rc < 0 || (rc = pair_files(&s)) < 0 || (rc = pair_places(&s)) < 0 || (rc = match_hints(&s)) < 0 ||
        (rc = match_sites(&s)) < 0) {
        free(s.pl.v);
        search_comparison_free(c);
        if (rc == TRACE_ERR_NOMEM)
            goto nomem;
        return rc;
    }
    free(s.pl.v);
    totals(c);
    *out = c;
    return 0;
nomem:
    snprintf(err->msg, sizeof err->msg, "out of memory");
    return TRACE_ERR_NOMEM;
}

void search_comparison_free(struct search_comparison *c)
{
    if (!c)
        return;
    free(c->files);
    free(c->hints);
    free(c->sites);
    free(c);
}

/* A path can go into an apply list if it holds neither of its separators. */
static bool listable(const char *file)
{
    return file && *file && !strpbrk(file, ",:");
}

char *search_comparison_apply_list(const struct search_comparison *c)
{
    struct search_text b = {0};
    bool any = false;
    for (uint32_t i = 0; i < c->nhints; i++) {
        const struct search_cmp_hint *x = &c->hints[i];
        if (x->status != SEARCH_CMP_GONE || !search_compare_shown(c, 0, x->before) ||
            !listable(x->before->file))
            continue;
        search_text_printf(&b, "%s%s:%s:%u", any ? "," : "", search_kind_name(x->before->kind),
                           x->before->file, x->before->line);
        any = true;
    }
    if (!any)
        return strdup("");
    return search_text_take(&b);
}
