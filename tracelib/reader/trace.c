/* trace.c - a trace directory: the meta file (program, site tables), rank
 * file paths, validated site tables and the per-rank id mappings that the
 * cursors resolve site and loop ids with.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reader-private.h"

struct trace {
    char *dir;
    char *meta_path;
    char *meta_cut;           /* where a cut-short meta file ends, or NULL */
    struct cht_file_header meta;
    char *program;
    char **argv;
    int argc;
    uint8_t *build_id;
    size_t build_id_len;
    int world_size;

    struct rd_table **tables; /* sorted by key */
    size_t ntables, tables_cap;
    struct rd_rank **ranks;   /* sorted by rank */
    size_t nranks, ranks_cap;
    struct rd_symcache *sym;
    unsigned call_depth;      /* trace_set_call_depth, TRACE_CTX_DEPTH + 1 = unset */
};

/* ---- site tables -------------------------------------------------------- */

static size_t table_lower_bound(const struct trace *t, uint64_t key)
{
    size_t lo = 0, hi = t->ntables;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->tables[mid]->key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const struct rd_table *rd_find_table(const struct trace *t, uint64_t key)
{
    size_t i = table_lower_bound(t, key);

    return i < t->ntables && t->tables[i]->key == key ? t->tables[i] : NULL;
}

#define WHY(...) do { snprintf(why, whylen, __VA_ARGS__); return TRACE_ERR_FORMAT; } while (0)

/* A section of n entries of `size` bytes at `off` must lie within the blob
 * after the header and be aligned for its fields. */
static int check_section(const char *name, uint32_t off, uint32_t n, uint32_t size,
                         const struct cht_tu_header *h, char *why, size_t whylen)
{
    if (n == 0)
        return 0;
    if (off % 4)
        WHY("%s=%u is not 4-byte aligned", name, off);
    if (off < h->header_size || (uint64_t)off + (uint64_t)n * size > h->total_size)
        WHY("%s=%u with %u entries of %u bytes overflows total_size=%u", name, off, n, size,
            h->total_size);
    return 0;
}

static int validate_table(const uint8_t *b, uint32_t blob_size, char *why, size_t whylen)
{
    const struct cht_tu_header *h = (const void *)b;
    const struct cht_site *sites;
    const struct cht_loop *loops;
    const char *str;
    uint32_t i;

    if (blob_size < sizeof(*h))
        WHY("blob_size=%u is smaller than the 64-byte header", blob_size);
    if (h->magic != CHT_TU_MAGIC)
        WHY("magic=0x%08x is not CHTU", h->magic);
    if (h->version < CHT_TU_OLDEST || h->version > CHT_TU_VERSION)
        WHY("version=%u, this reader reads %u to %u", h->version, CHT_TU_OLDEST, CHT_TU_VERSION);
    if (h->header_size < sizeof(*h))
        WHY("header_size=%u is less than 64", h->header_size);
    if (h->total_size > blob_size)
        WHY("total_size=%u exceeds blob_size=%u", h->total_size, blob_size);
    if (h->header_size > h->total_size)
        WHY("header_size=%u exceeds total_size=%u", h->header_size, h->total_size);
    if (check_section("sites_off", h->sites_off, h->nsites, sizeof(struct cht_site), h, why,
                      whylen) ||
        check_section("loops_off", h->loops_off, h->nloops, sizeof(struct cht_loop), h, why,
                      whylen) ||
        check_section("access_off", h->access_off, h->naccess, sizeof(struct cht_access), h,
                      why, whylen) ||
        (h->version >= 3 && h->costs_off &&
         check_section("costs_off", h->costs_off, h->nsites, sizeof(uint32_t), h, why, whylen)))
        return TRACE_ERR_FORMAT;
    if (h->strings_size == 0)
        WHY("strings_size=0 but string offset 0 must exist");
    if (h->strings_off < h->header_size ||
        (uint64_t)h->strings_off + h->strings_size > h->total_size)
        WHY("strings_off=%u with strings_size=%u overflows total_size=%u", h->strings_off,
            h->strings_size, h->total_size);
    str = (const char *)b + h->strings_off;
    if (str[h->strings_size - 1] != '\0')
        WHY("string area is not NUL-terminated at strings_size=%u", h->strings_size);
    if (h->module_name >= h->strings_size)
        WHY("module_name=%u is not below strings_size=%u", h->module_name, h->strings_size);
    sites = (const void *)(b + h->sites_off);
    for (i = 0; i < h->nsites; i++) {
        const struct cht_site *s = &sites[i];
        if (s->file >= h->strings_size)
            WHY("sites[%u].file=%u is not below strings_size=%u", i, s->file, h->strings_size);
        if (s->func >= h->strings_size)
            WHY("sites[%u].func=%u is not below strings_size=%u", i, s->func, h->strings_size);
        if ((uint64_t)s->access_first + s->naccess > h->naccess)
            WHY("sites[%u].access_first=%u + naccess=%u exceeds naccess=%u", i,
                s->access_first, s->naccess, h->naccess);
        if (s->loop != CHT_NONE && s->loop >= h->nloops)
            WHY("sites[%u].loop=%u is not below nloops=%u", i, s->loop, h->nloops);
    }
    loops = (const void *)(b + h->loops_off);
    for (i = 0; i < h->nloops; i++) {
        const struct cht_loop *l = &loops[i];
        if (l->file >= h->strings_size)
            WHY("loops[%u].file=%u is not below strings_size=%u", i, l->file, h->strings_size);
        if (l->func >= h->strings_size)
            WHY("loops[%u].func=%u is not below strings_size=%u", i, l->func, h->strings_size);
        if (l->parent != CHT_NONE && l->parent >= h->nloops)
            WHY("loops[%u].parent=%u is not below nloops=%u", i, l->parent, h->nloops);
    }
    return rd_validate_deps(b, h, why, whylen);
}

int rd_add_table(struct trace *t, const void *blob, uint32_t blob_size, char *why,
                 size_t whylen)
{
    struct rd_table *tab;
    uint8_t *copy;
    size_t pos;
    int ret;

    /* validate an aligned copy: the record payload is only 8-aligned anyway */
    copy = malloc(blob_size ? blob_size : 1);
    if (!copy) {
        snprintf(why, whylen, "out of memory");
        return TRACE_ERR_NOMEM;
    }
    memcpy(copy, blob, blob_size);
    ret = validate_table(copy, blob_size, why, whylen);
    if (ret)
        goto fail;
    {
        const struct cht_tu_header *h = (const void *)copy;
        pos = table_lower_bound(t, h->tu_key);
        if (pos < t->ntables && t->tables[pos]->key == h->tu_key) {
            free(copy); /* same content hash: same table */
            return 0;
        }
    }
    if (t->ntables == t->tables_cap) {
        size_t n = t->tables_cap ? 2 * t->tables_cap : 16;
        struct rd_table **p = realloc(t->tables, n * sizeof(*p));
        if (!p)
            goto nomem;
        t->tables = p;
        t->tables_cap = n;
    }
    tab = calloc(1, sizeof(*tab));
    if (!tab)
        goto nomem;
    tab->blob = copy;
    tab->blob_size = blob_size;
    tab->hdr = (const void *)copy;
    tab->key = tab->hdr->tu_key;
    tab->sites = (const void *)(copy + tab->hdr->sites_off);
    tab->loops = (const void *)(copy + tab->hdr->loops_off);
    tab->access = (const void *)(copy + tab->hdr->access_off);
    tab->strings = (const char *)copy + tab->hdr->strings_off;
    if (tab->hdr->version >= 3 && tab->hdr->costs_off)
        tab->costs = (const void *)(copy + tab->hdr->costs_off);
    if (tab->hdr->version >= 2 && tab->hdr->deps_off) {
        tab->deps = (const void *)(copy + tab->hdr->deps_off);
        tab->rows = (const void *)(copy + tab->deps->rows_off);
        tab->entries = (const void *)(copy + tab->deps->entries_off);
    }
    memmove(&t->tables[pos + 1], &t->tables[pos], (t->ntables - pos) * sizeof(*t->tables));
    t->tables[pos] = tab;
    t->ntables++;
    return 0;
nomem:
    snprintf(why, whylen, "out of memory");
    ret = TRACE_ERR_NOMEM;
fail:
    free(copy);
    return ret;
}

/* ---- per-rank id mapping ------------------------------------------------ */

struct rd_rank *rd_rank_state(struct trace *t, int rank)
{
    size_t lo = 0, hi = t->nranks;
    struct rd_rank *r;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ranks[mid]->rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t->nranks && t->ranks[lo]->rank == rank)
        return t->ranks[lo];
    if (t->nranks == t->ranks_cap) {
        size_t n = t->ranks_cap ? 2 * t->ranks_cap : 16;
        struct rd_rank **p = realloc(t->ranks, n * sizeof(*p));
        if (!p)
            return NULL;
        t->ranks = p;
        t->ranks_cap = n;
    }
    r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->rank = rank;
    memmove(&t->ranks[lo + 1], &t->ranks[lo], (t->nranks - lo) * sizeof(*t->ranks));
    t->ranks[lo] = r;
    t->nranks++;
    return r;
}

static int attach_table(struct rd_tu *tu, const struct rd_table *tab, char *why, size_t whylen)
{
    if (tab->hdr->nsites != tu->nsites || tab->hdr->nloops != tu->nloops)
        WHY("TU record tu_key=0x%016" PRIx64 " has nsites=%u nloops=%u but its site table has "
            "nsites=%u nloops=%u", tu->key, tu->nsites, tu->nloops, tab->hdr->nsites,
            tab->hdr->nloops);
    tu->table = tab;
    return 0;
}

int rd_rank_add_tu(struct trace *t, struct rd_rank *r, const struct cht_rec_tu *rec,
                   char *why, size_t whylen)
{
    const struct rd_table *tab;
    struct rd_tu tu = { 0 };
    size_t i;

    for (i = 0; i < r->ntus; i++) {
        const struct rd_tu *o = &r->tus[i];
        if (o->key == rec->tu_key && o->site_base == rec->site_base &&
            o->loop_base == rec->loop_base && o->nsites == rec->nsites &&
            o->nloops == rec->nloops)
            return 0; /* seen by an earlier cursor on this rank */
    }
    if ((uint64_t)rec->site_base + rec->nsites > CHT_NONE ||
        (uint64_t)rec->loop_base + rec->nloops > CHT_NONE)
        WHY("TU record site_base=%u nsites=%u loop_base=%u nloops=%u overflows 32-bit ids",
            rec->site_base, rec->nsites, rec->loop_base, rec->nloops);
    tu.key = rec->tu_key;
    tu.site_base = rec->site_base;
    tu.nsites = rec->nsites;
    tu.loop_base = rec->loop_base;
    tu.nloops = rec->nloops;
    tab = rd_find_table(t, tu.key);
    if (tab && attach_table(&tu, tab, why, whylen))
        return TRACE_ERR_FORMAT;
    if (r->ntus == r->cap) {
        size_t n = r->cap ? 2 * r->cap : 8;
        struct rd_tu *p = realloc(r->tus, n * sizeof(*p));
        if (!p) {
            snprintf(why, whylen, "out of memory");
            return TRACE_ERR_NOMEM;
        }
        r->tus = p;
        r->cap = n;
    }
    r->tus[r->ntus++] = tu;
    return 0;
}

void rd_rank_attach_tables(struct trace *t, struct rd_rank *r)
{
    char why[8];
    size_t i;

    for (i = 0; i < r->ntus; i++) {
        if (!r->tus[i].table) {
            const struct rd_table *tab = rd_find_table(t, r->tus[i].key);
            if (tab)
                (void)attach_table(&r->tus[i], tab, why, sizeof(why)); /* mismatch: stays unknown */
        }
    }
}

static int build_loops(struct rd_tu *tu);

static int build_sites(struct rd_tu *tu)
{
    const struct rd_table *tab = tu->table;
    uint32_t i;

    if (!tu->loops && build_loops(tu) < 0)
        return -1;
    tu->sites = calloc(tu->nsites ? tu->nsites : 1, sizeof(*tu->sites));
    if (!tu->sites)
        return -1;
    for (i = 0; i < tu->nsites; i++) {
        const struct cht_site *s = &tab->sites[i];
        struct trace_site_info *o = &tu->sites[i];
        o->id = tu->site_base + i;
        o->file = tab->strings + s->file;
        o->func = tab->strings + s->func;
        o->line = s->line;
        o->col = s->col;
        o->kind = s->kind;
        o->op = s->op;
        o->flags = s->flags;
        o->loop = s->loop == CHT_NONE ? CHT_NONE : tu->loop_base + s->loop;
        o->loop_info = s->loop < tu->nloops ? &tu->loops[s->loop] : NULL;
        o->naccess = s->naccess;
        o->access = tab->access + s->access_first;
        /* tables before version 3 have no costs: the even split */
        o->cost = tab->costs ? tab->costs[i] : 1;
    }
    /* the branch conditions: targets of control dependences (`if (rank ==
     * 0)`'s load of rank; at -O2 the same load may also be a value) */
    uint8_t *use = calloc(tu->nsites ? tu->nsites : 1, 1);
    if (!use)
        return -1;
    for (i = 0; tab->deps && tab->entries && i < tab->deps->nentries; i++) {
        const struct cht_dep *e = &tab->entries[i];
        if ((e->kind == CHT_DEP_CONTROL || e->kind == CHT_DEP_VALUE) && e->target < tu->nsites)
            use[e->target] |= e->kind == CHT_DEP_CONTROL ? 1 : 2;
    }
    for (i = 0; i < tu->nsites; i++)
        tu->sites[i].condition = (use[i] & 1) != 0;
    free(use);
    return 0;
}

static int build_loops(struct rd_tu *tu)
{
    const struct rd_table *tab = tu->table;
    uint32_t i;

    tu->loops = calloc(tu->nloops ? tu->nloops : 1, sizeof(*tu->loops));
    if (!tu->loops)
        return -1;
    for (i = 0; i < tu->nloops; i++) {
        const struct cht_loop *l = &tab->loops[i];
        struct trace_loop_info *o = &tu->loops[i];
        o->id = tu->loop_base + i;
        o->file = tab->strings + l->file;
        o->func = tab->strings + l->func;
        o->line = l->line;
        o->col = l->col;
        o->depth = l->depth;
        o->parent = l->parent == CHT_NONE ? CHT_NONE : tu->loop_base + l->parent;
        o->parent_info = l->parent < tu->nloops ? &tu->loops[l->parent] : NULL;
    }
    return 0;
}

const struct trace_site_info *rd_rank_site(struct rd_rank *r, uint32_t id)
{
    size_t i, k;

    if (!r || id == CHT_NONE)
        return NULL;
    if (id >= TRACE_CTX_SITE_BASE)
        return rd_ctx_site(r, id);
    if (r->ntus) { /* the TU of the last lookup: nearly always the one */
        struct rd_tu *tu = &r->tus[r->last_site];
        if (tu->sites && id - tu->site_base < tu->nsites)
            return &tu->sites[id - tu->site_base];
    }
    for (k = 0; k < r->ntus; k++) {
        struct rd_tu *tu;
        i = (r->last_site + k) % r->ntus;
        tu = &r->tus[i];
        if (id - tu->site_base < tu->nsites && id >= tu->site_base) {
            if (!tu->table)
                continue;
            if (!tu->sites && build_sites(tu) < 0)
                return NULL;
            r->last_site = i;
            return &tu->sites[id - tu->site_base];
        }
    }
    return NULL;
}

const struct trace_loop_info *rd_rank_loop(struct rd_rank *r, uint32_t id)
{
    size_t i, k;

    if (!r || id == CHT_NONE)
        return NULL;
    for (k = 0; k < r->ntus; k++) {
        struct rd_tu *tu;
        i = (r->last_loop + k) % r->ntus;
        tu = &r->tus[i];
        if (id >= tu->loop_base && id - tu->loop_base < tu->nloops) {
            if (!tu->table)
                continue;
            if (!tu->loops && build_loops(tu) < 0)
                return NULL;
            r->last_loop = i;
            return &tu->loops[id - tu->loop_base];
        }
    }
    return NULL;
}

/* ---- opening a trace ---------------------------------------------------- */

/* True if dir holds at least one rank-*.chtr file. */
static bool has_rank_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    bool found = false;

    if (!d)
        return false;
    while (!found && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        found = n > 10 && !strncmp(e->d_name, "rank-", 5) && !strcmp(e->d_name + n - 5, ".chtr");
    }
    closedir(d);
    return found;
}

static int read_program(struct trace *t, const struct cht_rec_program *p, char *why,
                        size_t whylen)
{
    const uint8_t *data = (const uint8_t *)(p + 1);
    const char *str = (const char *)data + p->build_id_len;
    uint32_t off = 0;
    int i;

    if (p->argc > 1u << 20)
        WHY("argc=%u is implausible", p->argc);
    if (p->world_size < 0 || p->world_size > RD_MAX_WORLD_SIZE)
        WHY("world_size=%d is outside 0..%d", p->world_size, RD_MAX_WORLD_SIZE);
    t->build_id = malloc(p->build_id_len ? p->build_id_len : 1);
    t->argv = calloc((size_t)p->argc + 1, sizeof(*t->argv));
    if (!t->build_id || !t->argv)
        goto nomem;
    memcpy(t->build_id, data, p->build_id_len);
    t->build_id_len = p->build_id_len;
    for (i = 0; i < (int)p->argc; i++) {
        const char *nul;
        if (off >= p->strings_len)
            WHY("argv[%d] starts past strings_len=%u", i, p->strings_len);
        nul = memchr(str + off, '\0', p->strings_len - off);
        if (!nul)
            WHY("argv[%d] is not NUL-terminated within strings_len=%u", i, p->strings_len);
        t->argv[i] = strdup(str + off);
        if (!t->argv[i])
            goto nomem;
        t->argc = i + 1;
        off = (uint32_t)(nul - str) + 1;
    }
    t->program = strdup(t->argc > 0 ? t->argv[0] : "");
    if (!t->program)
        goto nomem;
    if (t->world_size <= 0 && p->world_size > 0)
        t->world_size = p->world_size;
    return 0;
nomem:
    snprintf(why, whylen, "out of memory");
    return TRACE_ERR_NOMEM;
}

int trace_open(const char *dir, struct trace **out, struct trace_err *err)
{
    struct trace *t = NULL;
    struct trace_stream *s = NULL;
    const struct cht_rec *rec;
    struct stat st;
    char why[256];
    int ret;

    if (!dir || !out) {
        rd_err(err, "bad argument to trace_open: dir=%s", dir ? dir : "(null)");
        return TRACE_ERR_ARG;
    }
    *out = NULL;
    if (stat(dir, &st) < 0) {
        rd_err(err, "cannot open trace directory: dir=%s reason=%s", dir, strerror(errno));
        return errno == ENOENT ? TRACE_ERR_NOT_TRACE : TRACE_ERR_IO;
    }
    if (!S_ISDIR(st.st_mode)) {
        rd_err(err, "not a commhint trace directory: dir=%s reason=not a directory", dir);
        return TRACE_ERR_NOT_TRACE;
    }
    t = calloc(1, sizeof(*t));
    if (t && (t->dir = strdup(dir))) /* "t/" names its files t/rank-..., not t//rank-... */
        for (size_t n = strlen(t->dir); n > 1 && t->dir[n - 1] == '/';)
            t->dir[--n] = '\0';
    if (!t || !t->dir || asprintf(&t->meta_path, "%s/%s", t->dir, CHT_META_FILE) < 0) {
        if (t)
            t->meta_path = NULL;
        ret = TRACE_ERR_NOMEM;
        rd_err(err, "out of memory: dir=%s", dir);
        goto fail;
    }
    if (stat(t->meta_path, &st) < 0) {
        ret = TRACE_ERR_NOT_TRACE;
        if (errno != ENOENT) { /* e.g. a directory we may not search */
            ret = TRACE_ERR_IO;
            rd_err(err, "cannot open trace directory: dir=%s reason=%s", dir, strerror(errno));
        } else if (has_rank_files(dir))
            rd_err(err, "not a commhint trace directory: dir=%s reason=no %s but rank files "
                   "are present (rank 0 did not get through MPI_Init, or the file was removed)",
                   dir, CHT_META_FILE);
        else
            rd_err(err, "not a commhint trace directory: dir=%s reason=no %s", dir,
                   CHT_META_FILE);
        goto fail;
    }
    ret = trace_stream_open(t->meta_path, &s, err);
    if (ret)
        goto fail;
    t->meta = *trace_stream_header(s);
    if (trace_stream_cut_short(s)) { /* the meta file is renamed into place whole */
        ret = TRACE_ERR_FORMAT;
        rd_err(err, "bad meta file: %s", trace_stream_error(s));
        goto fail;
    }
    if (memcmp(t->meta.magic, CHT_MAGIC_META, 8) != 0) {
        ret = TRACE_ERR_FORMAT;
        rd_err(err, "bad meta file: file=%s offset=0 reason=magic is not %s", t->meta_path,
               CHT_MAGIC_META);
        goto fail;
    }
    if (t->meta.world_size < 0 || t->meta.world_size > RD_MAX_WORLD_SIZE) {
        /* the analysis and the commands work per world rank */
        ret = TRACE_ERR_FORMAT;
        rd_err(err, "bad meta file: file=%s offset=36 reason=world_size=%d is outside 0..%d",
               t->meta_path, t->meta.world_size, RD_MAX_WORLD_SIZE);
        goto fail;
    }
    t->world_size = t->meta.world_size;
    while ((ret = trace_stream_next(s, &rec)) > 0) {
        int r = 0;
        if (rec->type == CHT_REC_PROGRAM && !t->program) {
            r = read_program(t, (const void *)rec, why, sizeof(why));
            if (r) {
                ret = r;
                rd_err(err, "bad program record: file=%s offset=%" PRIu64 " record_offset=%u "
                       "reason=%s", t->meta_path, trace_stream_chunk_offset(s),
                       rd_stream_record_offset(s), why);
                goto fail;
            }
        } else if (rec->type == CHT_REC_SITE_TABLE) {
            const struct cht_rec_site_table *st = (const void *)rec;
            r = rd_add_table(t, st + 1, st->blob_size, why, sizeof(why));
            if (r) {
                ret = r;
                rd_err(err, "bad site table: file=%s offset=%" PRIu64 " record_offset=%u "
                       "reason=%s", t->meta_path, trace_stream_chunk_offset(s),
                       rd_stream_record_offset(s), why);
                goto fail;
            }
        }
    }
    if (ret < 0) {
        rd_err(err, "%s", trace_stream_error(s));
        goto fail;
    }
    /* a cut-short meta file keeps what it holds: the rank streams matter more */
    if (trace_stream_cut_short(s) && !(t->meta_cut = strdup(trace_stream_error(s)))) {
        ret = TRACE_ERR_NOMEM;
        rd_err(err, "out of memory: dir=%s", dir);
        goto fail;
    }
    if (!t->program && !(t->program = strdup(""))) {
        ret = TRACE_ERR_NOMEM;
        rd_err(err, "out of memory: dir=%s", dir);
        goto fail;
    }
    trace_stream_close(s);
    *out = t;
    return 0;
fail:
    trace_stream_close(s);
    trace_close(t);
    return ret;
}

void trace_close(struct trace *t)
{
    size_t i;

    if (!t)
        return;
    rd_symcache_destroy(t->sym);
    for (i = 0; i < t->nranks; i++)
        rd_rank_free(t->ranks[i]);
    free(t->ranks);
    for (i = 0; i < t->ntables; i++) {
        free(t->tables[i]->blob);
        free(t->tables[i]);
    }
    free(t->tables);
    if (t->argv)
        for (i = 0; i < (size_t)t->argc; i++)
            free(t->argv[i]);
    free(t->argv);
    free(t->build_id);
    free(t->program);
    free(t->meta_path);
    free(t->meta_cut);
    free(t->dir);
    free(t);
}

const char *trace_dir(const struct trace *t)
{
    return t->dir;
}

int trace_world_size(const struct trace *t)
{
    return t->world_size;
}

uint64_t trace_run_id(const struct trace *t)
{
    return t->meta.run_id;
}

const struct cht_file_header *trace_meta_header(const struct trace *t)
{
    return &t->meta;
}

const char *trace_meta_cut_short(const struct trace *t)
{
    return t->meta_cut;
}

const char *trace_program(const struct trace *t)
{
    return t->program;
}

int trace_argc(const struct trace *t)
{
    return t->argc;
}

const char *trace_argv(const struct trace *t, int i)
{
    return i >= 0 && i < t->argc ? t->argv[i] : NULL;
}

const uint8_t *trace_build_id(const struct trace *t, size_t *len)
{
    if (len)
        *len = t->build_id_len;
    return t->build_id;
}

const char *trace_rank_path(const struct trace *t, int rank)
{
    /* the path is cached in the rank's state, which is not observable */
    struct rd_rank *r;
    char name[64];

    if (rank < 0)
        return NULL;
    r = rd_rank_state((struct trace *)t, rank);
    if (!r)
        return NULL;
    if (!r->path) {
        snprintf(name, sizeof(name), CHT_RANK_FILE_FMT, rank);
        if (asprintf(&r->path, "%s/%s", t->dir, name) < 0) {
            r->path = NULL;
            return NULL;
        }
    }
    return r->path;
}

uint64_t trace_rank_file_size(const struct trace *t, int rank)
{
    const char *p = trace_rank_path(t, rank);
    struct stat st;

    return p && stat(p, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
}

bool trace_has_rank(const struct trace *t, int rank)
{
    const char *p = trace_rank_path(t, rank);
    struct stat st;

    /* anything at the name counts: a directory or FIFO there is then
     * refused by trace_stream_open as "not a regular file", as at the meta
     * file's name */
    return p && stat(p, &st) == 0;
}

struct rd_symcache **rd_trace_symcache(struct trace *t)
{
    return &t->sym;
}

void trace_set_call_depth(struct trace *t, unsigned frames)
{
    if (t)
        t->call_depth = frames + 1;
}

unsigned rd_trace_call_depth(const struct trace *t)
{
    return t->call_depth ? t->call_depth - 1 : TRACE_CTX_DEPTH;
}
