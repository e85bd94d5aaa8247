/* symbolize.c - code addresses to source locations with libdwarf (the
 * 20210528 API), including the chain of inlined calls.
 *
 * clang emits DWARF 5 without .debug_aranges, so the compilation unit of an
 * address is found from each CU DIE's DW_AT_low_pc/high_pc or DW_AT_ranges
 * (.debug_rnglists in DWARF 5, .debug_ranges before).  Opened files are
 * cached in the trace (by path) with their CU ranges, line tables and file
 * lists; strings handed out are interned in a pool that lives as long as the
 * cache entry.  The cache is not thread-safe: one trace per thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libdwarf/dwarf.h>
#include <gelf.h>
#include <libdwarf/libdwarf.h>
#include <libelf.h>

#include "reader-private.h"

/* ---- interned strings --------------------------------------------------- */

struct rd_pool {
    char **slots; /* open addressing, NULL = empty */
    size_t nslots, used;
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = CHT_FNV64_OFFSET;

    while (*s)
        h = (h ^ (unsigned char)*s++) * CHT_FNV64_PRIME;
    return h;
}

static void pool_clear(struct rd_pool *p)
{
    size_t i;

    for (i = 0; i < p->nslots; i++)
        free(p->slots[i]);
    free(p->slots);
    p->slots = NULL;
    p->nslots = p->used = 0;
}

static const char *pool_intern(struct rd_pool *p, const char *s)
{
    size_t i;

    if (!s)
        s = "";
    if (2 * (p->used + 1) > p->nslots) {
        size_t n = p->nslots ? 2 * p->nslots : 64, j;
        char **slots = calloc(n, sizeof(*slots));
        if (!slots)
            return NULL;
        for (j = 0; j < p->nslots; j++) {
            if (!p->slots[j])
                continue;
            i = hash_str(p->slots[j]) & (n - 1);
            while (slots[i])
                i = (i + 1) & (n - 1);
            slots[i] = p->slots[j];
        }
        free(p->slots);
        p->slots = slots;
        p->nslots = n;
    }
    i = hash_str(s) & (p->nslots - 1);
    while (p->slots[i]) {
        if (!strcmp(p->slots[i], s))
            return p->slots[i];
        i = (i + 1) & (p->nslots - 1);
    }
    p->slots[i] = strdup(s);
    if (!p->slots[i])
        return NULL;
    p->used++;
    return p->slots[i];
}

/* ---- opened files ------------------------------------------------------- */

struct rd_range {
    uint64_t lo, hi; /* [lo, hi) */
};

struct rd_cu {
    Dwarf_Off die_off;   /* global offset of the CU DIE */
    Dwarf_Half version;
    uint64_t base;       /* DW_AT_low_pc of the CU, base of its range lists */
    struct rd_range *ranges;
    size_t nranges;
    bool lines_loaded;
    Dwarf_Line_Context lctx;
    Dwarf_Line *lines;
    Dwarf_Signed nlines;
    bool files_loaded;
    char **files;
    Dwarf_Signed nfiles;
};

/* A function of the ELF symbol table: the name of code whose DWARF has no
 * subprogram (-gline-tables-only leaves them out of functions nothing was
 * inlined into). */
struct rd_func {
    uint64_t lo, hi; /* [lo, hi) link-time addresses */
    const char *name; /* interned in the file's pool */
};

struct rd_symfile {
    char *path;
    int status;          /* < 0 if the file could not be opened */
    char msg[512];
    bool no_dwarf;
    Dwarf_Debug dbg;
    struct rd_cu *cus;
    size_t ncus;
    struct rd_pool pool;
    struct rd_func *funcs; /* sorted by lo, read on first need */
    size_t nfuncs;
    bool funcs_read;
};

struct rd_symcache {
    struct rd_symfile **files;
    size_t n, cap;
};

static void drop_err(Dwarf_Debug dbg, Dwarf_Error e)
{
    if (e)
        dwarf_dealloc_error(dbg, e);
}

/* DWARF call wrapper: returns the DW_DLV_* result and frees any error. */
#define DW(dbg, call_with_err)                                                                  \
    ({                                                                                          \
        Dwarf_Error e_ = NULL;                                                                  \
        int r_ = (call_with_err);                                                               \
        if (r_ == DW_DLV_ERROR)                                                                 \
            drop_err((dbg), e_);                                                                \
        r_;                                                                                     \
    })

static void symfile_destroy(struct rd_symfile *f)
{
    size_t i;

    if (!f)
        return;
    for (i = 0; i < f->ncus; i++) {
        struct rd_cu *cu = &f->cus[i];
        Dwarf_Signed k;
        if (cu->lctx)
            dwarf_srclines_dealloc_b(cu->lctx);
        if (cu->files) {
            for (k = 0; k < cu->nfiles; k++)
                dwarf_dealloc(f->dbg, cu->files[k], DW_DLA_STRING);
            dwarf_dealloc(f->dbg, cu->files, DW_DLA_LIST);
        }
        free(cu->ranges);
    }
    free(f->cus);
    if (f->dbg) {
        Dwarf_Error e = NULL;
        (void)dwarf_finish(f->dbg, &e); /* an error here cannot be freed: dbg is gone */
    }
    pool_clear(&f->pool);
    free(f->funcs);
    free(f->path);
    free(f);
}

static int func_cmp(const void *pa, const void *pb)
{
    const struct rd_func *a = pa, *b = pb;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Reads the STT_FUNC symbols of the ELF symbol table (or of the dynamic one
 * when stripped); leaves none on any error. */
static void funcs_read(struct rd_symfile *f)
{
    int fd;
    Elf *elf = NULL;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    int want;

    f->funcs_read = true;
    struct stat st;
    if (elf_version(EV_CURRENT) == EV_NONE || (fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
        return;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return;
    }
    if (!(elf = elf_begin(fd, ELF_C_READ, NULL)))
        goto out;
    for (want = SHT_SYMTAB; want >= 0 && !f->nfuncs; want = want == SHT_SYMTAB ? SHT_DYNSYM : -1) {
        scn = NULL;
        while ((scn = elf_nextscn(elf, scn))) {
            Elf_Data *data;
            if (!gelf_getshdr(scn, &sh) || sh.sh_type != (GElf_Word)want || !sh.sh_entsize ||
                !(data = elf_getdata(scn, NULL)))
                continue;
            size_t n = sh.sh_size / sh.sh_entsize, m = 0;
            struct rd_func *v = calloc(n ? n : 1, sizeof *v);
            if (!v)
                goto out;
            for (size_t i = 0; i < n; i++) {
                GElf_Sym sym;
                const char *name;
                if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_value ||
                    !sym.st_size || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || !*name)
                    continue;
                if (!(v[m].name = pool_intern(&f->pool, name)))
                    break;
                v[m].lo = sym.st_value;
                v[m].hi = sym.st_value + sym.st_size;
                m++;
            }
            qsort(v, m, sizeof *v, func_cmp);
            free(f->funcs);
            f->funcs = v;
            f->nfuncs = m;
            break;
        }
    }
out:
    if (elf)
        elf_end(elf);
    close(fd);
}

/* The name of the function of the symbol table containing pc, NULL if none. */
static const char *func_at(struct rd_symfile *f, uint64_t pc)
{
    size_t lo = 0, hi;

    if (!f->funcs_read)
        funcs_read(f);
    hi = f->nfuncs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->funcs[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo && pc < f->funcs[lo - 1].hi ? f->funcs[lo - 1].name : NULL;
}

void rd_symcache_destroy(struct rd_symcache *c)
{
    size_t i;

    if (!c)
        return;
    for (i = 0; i < c->n; i++)
        symfile_destroy(c->files[i]);
    free(c->files);
    free(c);
}

static int add_range(struct rd_range **r, size_t *n, uint64_t lo, uint64_t hi)
{
    struct rd_range *p;

    if (hi <= lo)
        return 0;
    p = realloc(*r, (*n + 1) * sizeof(*p));
    if (!p)
        return -1;
    p[*n].lo = lo;
    p[*n].hi = hi;
    *r = p;
    (*n)++;
    return 0;
}

/* Address ranges of a DIE (low/high pc or DW_AT_ranges); cu_base is the CU's
 * base address for DWARF 4 range lists.  Returns 0 (possibly no ranges) or
 * -1 if out of memory. */
static int die_ranges(Dwarf_Debug dbg, Dwarf_Die die, Dwarf_Half version, uint64_t cu_base,
                      struct rd_range **out, size_t *nout)
{
    Dwarf_Addr lo, hi;
    Dwarf_Half form;
    enum Dwarf_Form_Class cls;
    Dwarf_Attribute attr;
    int ret = 0;

    *out = NULL;
    *nout = 0;
    if (DW(dbg, dwarf_lowpc(die, &lo, &e_)) == DW_DLV_OK &&
        DW(dbg, dwarf_highpc_b(die, &hi, &form, &cls, &e_)) == DW_DLV_OK) {
        if (cls == DW_FORM_CLASS_CONSTANT)
            hi += lo;
        return add_range(out, nout, lo, hi);
    }
    if (DW(dbg, dwarf_attr(die, DW_AT_ranges, &attr, &e_)) != DW_DLV_OK)
        return 0;
    if (DW(dbg, dwarf_whatform(attr, &form, &e_)) != DW_DLV_OK)
        goto out;
    if (version >= 5) {
        Dwarf_Unsigned val = 0, count = 0, goff = 0, i;
        Dwarf_Rnglists_Head head = NULL;
        int r = form == DW_FORM_rnglistx ? DW(dbg, dwarf_formudata(attr, &val, &e_))
                                         : DW(dbg, dwarf_global_formref(attr, &val, &e_));
        if (r != DW_DLV_OK)
            goto out;
        if (DW(dbg, dwarf_rnglists_get_rle_head(attr, form, val, &head, &count, &goff, &e_)) !=
            DW_DLV_OK)
            goto out;
        for (i = 0; i < count && ret == 0; i++) {
            unsigned len = 0, code = 0;
            Dwarf_Unsigned raw1, raw2, c1 = 0, c2 = 0;
            Dwarf_Bool unavailable = 0;
            if (DW(dbg, dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &raw1, &raw2,
                                                          &unavailable, &c1, &c2, &e_)) !=
                DW_DLV_OK)
                break;
            if (unavailable)
                continue;
            switch (code) {
            case DW_RLE_offset_pair:
            case DW_RLE_startx_endx:
            case DW_RLE_startx_length:
            case DW_RLE_start_end:
            case DW_RLE_start_length:
                if (add_range(out, nout, c1, c2) < 0)
                    ret = -1;
                break;
            default:
                break;
            }
        }
        dwarf_dealloc_rnglists_head(head);
    } else {
        Dwarf_Off off = 0, real = 0;
        Dwarf_Ranges *rl = NULL;
        Dwarf_Signed n = 0, i;
        Dwarf_Unsigned bytes = 0, uoff = 0;
        uint64_t base = cu_base;
        if (DW(dbg, dwarf_global_formref(attr, &off, &e_)) != DW_DLV_OK) {
            if (DW(dbg, dwarf_formudata(attr, &uoff, &e_)) != DW_DLV_OK)
                goto out;
            off = uoff;
        }
        if (DW(dbg, dwarf_get_ranges_b(dbg, off, die, &real, &rl, &n, &bytes, &e_)) !=
            DW_DLV_OK)
            goto out;
        for (i = 0; i < n && ret == 0; i++) {
            if (rl[i].dwr_type == DW_RANGES_ENTRY)
                ret = add_range(out, nout, base + rl[i].dwr_addr1, base + rl[i].dwr_addr2);
            else if (rl[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
                base = rl[i].dwr_addr2;
            else
                break;
        }
        dwarf_ranges_dealloc(dbg, rl, n);
    }
out:
    dwarf_dealloc_attribute(attr);
    return ret;
}

static bool in_ranges(const struct rd_range *r, size_t n, uint64_t pc)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (pc >= r[i].lo && pc < r[i].hi)
            return true;
    return false;
}

static int die_contains(Dwarf_Debug dbg, Dwarf_Die die, const struct rd_cu *cu, uint64_t pc)
{
    struct rd_range *r;
    size_t n;
    int found;

    if (die_ranges(dbg, die, cu->version, cu->base, &r, &n) < 0)
        return -1;
    found = in_ranges(r, n, pc);
    free(r);
    return found;
}

/* Opens a file and indexes its compilation units. */
static struct rd_symfile *symfile_open(const char *path)
{
    struct rd_symfile *f = calloc(1, sizeof(*f));
    Dwarf_Error e = NULL;
    int res;

    if (!f)
        return NULL;
    f->path = strdup(path);
    if (!f->path) {
        free(f);
        return NULL;
    }
    {
        /* libdwarf opens by name and would block on a FIFO: only regular
         * files are read */
        struct stat st;
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            f->status = TRACE_ERR_IO;
            snprintf(f->msg, sizeof(f->msg), "cannot open binary: file=%s reason=not a regular file", path);
            return f;
        }
    }
    res = dwarf_init_path(path, NULL, 0, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &f->dbg, NULL, 0,
                          NULL, &e);
    if (res == DW_DLV_NO_ENTRY) {
        f->dbg = NULL;
        if (access(path, R_OK) < 0) {
            f->status = errno == ENOENT ? TRACE_ERR_NOT_FOUND : TRACE_ERR_IO;
            snprintf(f->msg, sizeof(f->msg), "cannot open binary: file=%s reason=%s", path,
                     strerror(errno));
        } else {
            f->no_dwarf = true;
            snprintf(f->msg, sizeof(f->msg), "binary has no DWARF debug info: file=%s "
                     "reason=compile with -g", path);
        }
        return f;
    }
    if (res == DW_DLV_ERROR) {
        snprintf(f->msg, sizeof(f->msg), "cannot read DWARF: file=%s reason=%s", path,
                 e ? dwarf_errmsg(e) : "unknown libdwarf error");
        if (e)
            dwarf_dealloc_error(NULL, e);
        f->dbg = NULL;
        f->status = TRACE_ERR_FORMAT;
        return f;
    }
    for (;;) {
        Dwarf_Unsigned len, toff, next;
        Dwarf_Half ver, asz, lsz, esz, cutype;
        Dwarf_Off abbr;
        Dwarf_Sig8 sig;
        Dwarf_Die die = NULL;
        struct rd_cu cu = { 0 };
        Dwarf_Addr lo;
        struct rd_cu *p;

        res = DW(f->dbg, dwarf_next_cu_header_d(f->dbg, 1, &len, &ver, &abbr, &asz, &lsz, &esz,
                                                &sig, &toff, &next, &cutype, &e_));
        if (res == DW_DLV_NO_ENTRY)
            break;
        if (res == DW_DLV_ERROR) {
            snprintf(f->msg, sizeof(f->msg), "cannot read DWARF: file=%s reason=bad compilation "
                     "unit header after %zu units", path, f->ncus);
            f->status = TRACE_ERR_FORMAT;
            break; /* keep the units read so far usable */
        }
        if (DW(f->dbg, dwarf_siblingof_b(f->dbg, NULL, 1, &die, &e_)) != DW_DLV_OK)
            continue;
        cu.version = ver;
        if (DW(f->dbg, dwarf_dieoffset(die, &cu.die_off, &e_)) == DW_DLV_OK &&
            DW(f->dbg, dwarf_lowpc(die, &lo, &e_)) == DW_DLV_OK)
            cu.base = lo;
        if (die_ranges(f->dbg, die, ver, cu.base, &cu.ranges, &cu.nranges) < 0 ||
            !(p = realloc(f->cus, (f->ncus + 1) * sizeof(*p)))) {
            free(cu.ranges);
            dwarf_dealloc(f->dbg, die, DW_DLA_DIE);
            snprintf(f->msg, sizeof(f->msg), "out of memory: file=%s", path);
            f->status = TRACE_ERR_NOMEM;
            return f;
        }
        f->cus = p;
        f->cus[f->ncus++] = cu;
        dwarf_dealloc(f->dbg, die, DW_DLA_DIE);
    }
    if (f->status == TRACE_ERR_FORMAT && f->ncus > 0)
        f->status = 0;
    if (f->status == 0 && f->ncus == 0) { /* e.g. only .eh_frame */
        f->no_dwarf = true;
        snprintf(f->msg, sizeof(f->msg), "binary has no DWARF debug info: file=%s "
                 "reason=compile with -g", path);
    }
    return f;
}

static struct rd_symfile *symcache_get(struct trace *t, const char *path)
{
    struct rd_symcache **cp = rd_trace_symcache(t), *c = *cp;
    struct rd_symfile *f;
    size_t i;

    if (!c) {
        c = calloc(1, sizeof(*c));
        if (!c)
            return NULL;
        *cp = c;
    }
    for (i = 0; i < c->n; i++)
        if (!strcmp(c->files[i]->path, path))
            return c->files[i];
    if (c->n == c->cap) {
        size_t n = c->cap ? 2 * c->cap : 8;
        struct rd_symfile **p = realloc(c->files, n * sizeof(*p));
        if (!p)
            return NULL;
        c->files = p;
        c->cap = n;
    }
    f = symfile_open(path);
    if (f)
        c->files[c->n++] = f;
    return f;
}

/* ---- lookup ------------------------------------------------------------- */

static int load_lines(struct rd_symfile *f, struct rd_cu *cu, Dwarf_Die cudie)
{
    Dwarf_Unsigned ver;
    Dwarf_Small count;

    if (cu->lines_loaded)
        return 0;
    cu->lines_loaded = true;
    if (DW(f->dbg, dwarf_srclines_b(cudie, &ver, &count, &cu->lctx, &e_)) != DW_DLV_OK) {
        cu->lctx = NULL;
        return 0;
    }
    if (count == 0 ||
        DW(f->dbg, dwarf_srclines_from_linecontext(cu->lctx, &cu->lines, &cu->nlines, &e_)) !=
            DW_DLV_OK) {
        cu->lines = NULL;
        cu->nlines = 0;
    }
    return 0;
}

static void load_files(struct rd_symfile *f, struct rd_cu *cu, Dwarf_Die cudie)
{
    if (cu->files_loaded)
        return;
    cu->files_loaded = true;
    if (DW(f->dbg, dwarf_srcfiles(cudie, &cu->files, &cu->nfiles, &e_)) != DW_DLV_OK) {
        cu->files = NULL;
        cu->nfiles = 0;
    }
}

/* Row of the line table covering pc: the row with the greatest address <= pc
 * whose successor in the same sequence starts after pc. */
static Dwarf_Line find_row(struct rd_symfile *f, struct rd_cu *cu, uint64_t pc)
{
    Dwarf_Signed i;
    Dwarf_Addr a, b;
    Dwarf_Bool end;

    for (i = 0; i + 1 < cu->nlines; i++) {
        if (DW(f->dbg, dwarf_lineendsequence(cu->lines[i], &end, &e_)) != DW_DLV_OK || end)
            continue;
        if (DW(f->dbg, dwarf_lineaddr(cu->lines[i], &a, &e_)) != DW_DLV_OK || a > pc)
            continue;
        if (DW(f->dbg, dwarf_lineaddr(cu->lines[i + 1], &b, &e_)) != DW_DLV_OK || b <= pc)
            continue;
        return cu->lines[i];
    }
    return NULL;
}

/* Name of a subprogram or inlined subroutine, following abstract origins and
 * specifications. */
static const char *die_name(struct rd_symfile *f, Dwarf_Die die)
{
    Dwarf_Die cur = die, next;
    const char *res = NULL;
    int hops;

    for (hops = 0; hops < 8 && !res; hops++) {
        char *name = NULL;
        Dwarf_Attribute attr = NULL;
        Dwarf_Off off;
        if (DW(f->dbg, dwarf_diename(cur, &name, &e_)) == DW_DLV_OK) {
            res = pool_intern(&f->pool, name);
            break;
        }
        if (DW(f->dbg, dwarf_attr(cur, DW_AT_abstract_origin, &attr, &e_)) != DW_DLV_OK &&
            DW(f->dbg, dwarf_attr(cur, DW_AT_specification, &attr, &e_)) != DW_DLV_OK)
            break;
        if (DW(f->dbg, dwarf_global_formref(attr, &off, &e_)) != DW_DLV_OK ||
            DW(f->dbg, dwarf_offdie_b(f->dbg, off, 1, &next, &e_)) != DW_DLV_OK) {
            dwarf_dealloc_attribute(attr);
            break;
        }
        dwarf_dealloc_attribute(attr);
        if (cur != die)
            dwarf_dealloc(f->dbg, cur, DW_DLA_DIE);
        cur = next;
    }
    if (cur != die)
        dwarf_dealloc(f->dbg, cur, DW_DLA_DIE);
    return res ? res : pool_intern(&f->pool, "");
}

#define MAX_CHAIN 64

/* Collects the subprogram and the nested inlined subroutines containing pc,
 * outermost first, into chain (DIEs the caller deallocates). */
static int find_chain(struct rd_symfile *f, const struct rd_cu *cu, Dwarf_Die parent,
                      uint64_t pc, Dwarf_Die *chain, int *n, int level)
{
    Dwarf_Die child = NULL, sib;
    int found = 0;

    if (level > 64 || DW(f->dbg, dwarf_child(parent, &child, &e_)) != DW_DLV_OK)
        return 0;
    while (child) {
        Dwarf_Half tag = 0;
        bool keep = false;
        if (DW(f->dbg, dwarf_tag(child, &tag, &e_)) == DW_DLV_OK &&
            (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
             tag == DW_TAG_lexical_block) &&
            die_contains(f->dbg, child, cu, pc) > 0) {
            if (tag != DW_TAG_lexical_block && *n < MAX_CHAIN) {
                chain[(*n)++] = child;
                keep = true;
            }
            find_chain(f, cu, child, pc, chain, n, level + 1);
            found = 1;
        } else if (tag == DW_TAG_namespace) {
            /* a C++ namespace holds its functions' definitions (clang);
             * it has no address range of its own */
            found = find_chain(f, cu, child, pc, chain, n, level + 1);
        }
        if (found) {
            if (!keep)
                dwarf_dealloc(f->dbg, child, DW_DLA_DIE);
            break;
        }
        if (DW(f->dbg, dwarf_siblingof_b(f->dbg, child, 1, &sib, &e_)) != DW_DLV_OK)
            sib = NULL;
        dwarf_dealloc(f->dbg, child, DW_DLA_DIE);
        child = sib;
    }
    return found;
}

static const char *file_name(struct rd_symfile *f, const struct rd_cu *cu, Dwarf_Unsigned idx)
{
    /* DWARF 5 file numbers start at 0, earlier versions at 1 */
    Dwarf_Signed i = cu->version >= 5 ? (Dwarf_Signed)idx : (Dwarf_Signed)idx - 1;

    if (i < 0 || i >= cu->nfiles)
        return pool_intern(&f->pool, "");
    return pool_intern(&f->pool, cu->files[i]);
}

static uint32_t attr_udata(struct rd_symfile *f, Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Attribute attr;
    Dwarf_Unsigned v = 0;

    if (DW(f->dbg, dwarf_attr(die, at, &attr, &e_)) != DW_DLV_OK)
        return 0;
    if (DW(f->dbg, dwarf_formudata(attr, &v, &e_)) != DW_DLV_OK)
        v = 0;
    dwarf_dealloc_attribute(attr);
    return (uint32_t)v;
}

static int symfile_lookup(struct rd_symfile *f, uint64_t pc, struct trace_srcloc *out,
                          struct trace_err *err)
{
    struct rd_cu *cu = NULL;
    Dwarf_Die cudie = NULL, chain[MAX_CHAIN];
    Dwarf_Line row;
    Dwarf_Unsigned line = 0, col = 0;
    char *src = NULL;
    int nchain = 0, i, ret = 0;
    unsigned k;
    size_t c;

    out->nframes = 0;
    if (f->status < 0 || f->no_dwarf) {
        rd_err(err, "%s", f->msg);
        return f->no_dwarf ? 0 : f->status;
    }
    for (c = 0; c < f->ncus && !cu; c++)
        if (in_ranges(f->cus[c].ranges, f->cus[c].nranges, pc))
            cu = &f->cus[c];
    if (!cu) {
        rd_err(err, "address has no compilation unit: file=%s pc=0x%" PRIx64, f->path, pc);
        return 0;
    }
    if (DW(f->dbg, dwarf_offdie_b(f->dbg, cu->die_off, 1, &cudie, &e_)) != DW_DLV_OK) {
        rd_err(err, "cannot read DWARF: file=%s offset=%" PRIu64 " reason=bad CU DIE", f->path,
               (uint64_t)cu->die_off);
        return TRACE_ERR_FORMAT;
    }
    load_lines(f, cu, cudie);
    load_files(f, cu, cudie);
    row = find_row(f, cu, pc);
    if (!row || DW(f->dbg, dwarf_lineno(row, &line, &e_)) != DW_DLV_OK || line == 0) {
        rd_err(err, "address has no line information: file=%s pc=0x%" PRIx64, f->path, pc);
        goto out;
    }
    if (DW(f->dbg, dwarf_lineoff_b(row, &col, &e_)) != DW_DLV_OK)
        col = 0;
    if (DW(f->dbg, dwarf_linesrc(row, &src, &e_)) != DW_DLV_OK)
        src = NULL;
    find_chain(f, cu, cudie, pc, chain, &nchain, 0);

    /* frames[0]: the code itself, in the innermost function of the chain */
    out->frames[0].file = pool_intern(&f->pool, src ? src : "");
    out->frames[0].line = (uint32_t)line;
    out->frames[0].col = (uint32_t)col;
    out->frames[0].func = nchain ? die_name(f, chain[nchain - 1]) : NULL;
    if (!out->frames[0].func || !*out->frames[0].func) { /* no subprogram: the symbol table's name */
        const char *name = func_at(f, pc);
        out->frames[0].func = name ? name : pool_intern(&f->pool, "");
    }
    out->nframes = 1;
    /* frames[k]: where chain[nchain - k] was inlined, in its caller */
    for (k = 1; k < TRACE_MAX_INLINE && (int)k < nchain; k++) {
        Dwarf_Die inl = chain[nchain - k];
        struct trace_srcframe *fr = &out->frames[k];
        fr->file = file_name(f, cu, attr_udata(f, inl, DW_AT_call_file));
        fr->line = attr_udata(f, inl, DW_AT_call_line);
        fr->col = attr_udata(f, inl, DW_AT_call_column);
        fr->func = die_name(f, chain[nchain - k - 1]);
        out->nframes = k + 1;
    }
    ret = 1;
    for (k = 0; k < out->nframes; k++)
        if (!out->frames[k].file || !out->frames[k].func) {
            rd_err(err, "out of memory: file=%s", f->path);
            out->nframes = 0;
            ret = TRACE_ERR_NOMEM;
        }
out:
    if (src)
        dwarf_dealloc(f->dbg, src, DW_DLA_STRING);
    for (i = 0; i < nchain; i++)
        dwarf_dealloc(f->dbg, chain[i], DW_DLA_DIE);
    dwarf_dealloc(f->dbg, cudie, DW_DLA_DIE);
    return ret;
}

/* Strings of lookups made without a trace live here until the next such
 * lookup in the same thread. */
static _Thread_local struct rd_pool tls_pool;

int trace_symbolize_file(struct trace *t, const char *path, uint64_t pc,
                         struct trace_srcloc *out, struct trace_err *err)
{
    struct rd_symfile *f;
    int ret;

    if (!path || !out) {
        rd_err(err, "bad argument to trace_symbolize_file: file=%s", path ? path : "(null)");
        return TRACE_ERR_ARG;
    }
    out->nframes = 0;
    if (t) {
        f = symcache_get(t, path);
        if (!f) {
            rd_err(err, "out of memory: file=%s", path);
            return TRACE_ERR_NOMEM;
        }
        return symfile_lookup(f, pc, out, err);
    }
    f = symfile_open(path);
    if (!f) {
        rd_err(err, "out of memory: file=%s", path);
        return TRACE_ERR_NOMEM;
    }
    pool_clear(&tls_pool);
    f->pool = tls_pool; /* the file interns into the thread's pool */
    ret = symfile_lookup(f, pc, out, err);
    tls_pool = f->pool;
    f->pool = (struct rd_pool){ 0 };
    symfile_destroy(f);
    return ret;
}

/* ---- ELF build ids ------------------------------------------------------ */

int rd_elf_build_id(const char *path, uint8_t *buf, size_t cap)
{
    Elf *elf = NULL;
    Elf_Scn *scn = NULL;
    int fd, ret = 0;

    if (elf_version(EV_CURRENT) == EV_NONE)
        return -1;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) { /* a FIFO or device: not a binary */
        close(fd);
        return -1;
    }
    elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf) {
        ret = -1;
        goto out;
    }
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *data;
        size_t off = 0, noff, doff;
        GElf_Nhdr nh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        data = elf_getdata(scn, NULL);
        if (!data)
            continue;
        while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
                !memcmp((char *)data->d_buf + noff, "GNU", 4)) {
                size_t n = nh.n_descsz < cap ? nh.n_descsz : cap;
                memcpy(buf, (char *)data->d_buf + doff, n);
                ret = (int)n;
                goto out;
            }
        }
    }
out:
    if (elf)
        elf_end(elf);
    close(fd);
    return ret;
}
