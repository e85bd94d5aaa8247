/* modules.c - where a rank's code was loaded (CHT_REC_MODULE records: one
 * per object, its address range, build id and path), and return addresses
 * symbolised through them: the object whose range holds the address, its
 * build id checked against the file's once, then DWARF (symbolize.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader-private.h"

struct rd_module {
    uint64_t base, start, end;
    uint8_t *build_id;
    uint32_t build_id_len;
    char *path;
    int checked;              /* 0 not yet, 1 build id matches or unknown, -1 differs */
    char mismatch[512];
};

int rd_modules_add(struct rd_modules *ms, const struct cht_rec_module *m)
{
    const uint8_t *data = (const uint8_t *)(m + 1);
    struct rd_module *o;

    if (ms->n == ms->cap) {
        size_t n = ms->cap ? 2 * ms->cap : 8;
        struct rd_module *p = realloc(ms->v, n * sizeof(*p));
        if (!p)
            return TRACE_ERR_NOMEM;
        ms->v = p;
        ms->cap = n;
    }
    o = &ms->v[ms->n];
    memset(o, 0, sizeof(*o));
    o->base = m->base;
    o->start = m->start;
    o->end = m->end;
    o->build_id_len = m->build_id_len;
    o->build_id = malloc(m->build_id_len ? m->build_id_len : 1);
    o->path = strdup((const char *)data + m->build_id_len); /* NUL checked by the stream */
    if (!o->build_id || !o->path) {
        free(o->build_id);
        free(o->path);
        return TRACE_ERR_NOMEM;
    }
    memcpy(o->build_id, data, m->build_id_len);
    ms->n++;
    return 0;
}

void rd_modules_free(struct rd_modules *ms)
{
    for (size_t i = 0; i < ms->n; i++) {
        free(ms->v[i].build_id);
        free(ms->v[i].path);
    }
    free(ms->v);
    memset(ms, 0, sizeof(*ms));
}

static void hex(char *out, size_t cap, const uint8_t *b, size_t n)
{
    size_t i;

    out[0] = '\0';
    for (i = 0; i < n && 2 * i + 2 < cap; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

int rd_modules_symbolize(struct rd_modules *ms, struct trace *t, const char *file, uint64_t ret_addr,
                         struct trace_srcloc *out, struct trace_err *err)
{
    struct rd_module *m = NULL;
    size_t i;
    int ret;

    out->nframes = 0;
    /* the latest record wins: an object loaded later may reuse an address range */
    for (i = ms->n; i-- > 0;)
        if (ret_addr >= ms->v[i].start && ret_addr < ms->v[i].end) {
            m = &ms->v[i];
            break;
        }
    if (!m) {
        rd_err(err, "address is in no recorded module: file=%s addr=0x%" PRIx64, file, ret_addr);
        return TRACE_ERR_NOT_FOUND;
    }
    if (!m->checked) {
        uint8_t bid[64];
        int n = m->build_id_len ? rd_elf_build_id(m->path, bid, sizeof(bid)) : -1;
        m->checked = 1;
        if (n >= 0 && ((uint32_t)n != m->build_id_len || memcmp(bid, m->build_id, (size_t)n))) {
            char now[130], then[130];
            hex(now, sizeof(now), bid, (size_t)n);
            hex(then, sizeof(then), m->build_id, m->build_id_len);
            m->checked = -1;
            snprintf(m->mismatch, sizeof(m->mismatch), "the binary changed since the run: "
                     "file=%s build_id=%s recorded build_id=%s", m->path, now, then);
        }
    }
    /* a return address points after the call: look up the call itself */
    ret = trace_symbolize_file(t, m->path, ret_addr - m->base - 1, out, err);
    if (ret >= 0 && m->checked < 0) {
        rd_err(err, "%s", m->mismatch);
        return TRACE_ERR_MISMATCH;
    }
    return ret;
}
