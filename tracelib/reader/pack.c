/* pack.c - decoding of CHT_REC_PACK records (trace-format.h): the COMP and
 * LOOP records a writer thread coded against per-key predictions, rebuilt
 * one by one for the cursor, which treats them as records read from the
 * stream.  The table of predictions is the writer thread's: it goes on from
 * one PACK to the next unless a PACK says it starts empty.  The code comes
 * from the file: every byte read is checked against its end, every key and
 * count against the format's limits.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader-private.h"

int rd_pack_start(struct rd_pack *p, struct rd_pack_table *tb, const struct cht_rec_pack *rec, char *why,
                  size_t len)
{
    if (rec->count < 1 || rec->count > CHT_PACK_COUNT_MAX || rec->nbytes < 1 ||
        rec->nbytes > CHT_PACK_BYTES_MAX) {
        snprintf(why, len, "pack record has count=%u and nbytes=%u, outside 1..%u and 1..%u", rec->count,
                 rec->nbytes, CHT_PACK_COUNT_MAX, CHT_PACK_BYTES_MAX);
        return TRACE_ERR_FORMAT;
    }
    if (rec->h.aux & ~CHT_PACK_RESET) {
        snprintf(why, len, "pack record has aux=%u, unknown bits", rec->h.aux);
        return TRACE_ERR_FORMAT;
    }
    if (!(rec->h.aux & CHT_PACK_RESET) && !tb->tab) {
        snprintf(why, len, "pack record goes on from the table of an earlier pack, but its thread has none");
        return TRACE_ERR_FORMAT;
    }
    if (!tb->tab && !(tb->tab = calloc(CHT_PACK_SLOTS, sizeof(*tb->tab))))
        return TRACE_ERR_NOMEM;
    /* read in place: the stream checked the size, and the cursor reads no
     * other record of the stream until the PACK's records are decoded */
    p->code = (const unsigned char *)(rec + 1);
    p->nbytes = rec->nbytes;
    p->pos = 0;
    p->left = rec->count;
    p->tb = tb;
    if (rec->h.aux & CHT_PACK_RESET) {
        tb->prev = CHT_PACK_SLOTS;
        /* a new number empties the table (0 is never used: a fresh table) */
        if (++tb->gen == 0) {
            memset(tb->tab, 0, CHT_PACK_SLOTS * sizeof(*tb->tab));
            tb->gen = 1;
        }
    }
    return 0;
}

/* Closes the PACK with a reason; pos: where decoding stood (p->pos: at the
 * record's first byte). */
static __attribute__((noinline, cold)) int bad(struct rd_pack *p, uint32_t pos, char *why, size_t len,
                                               const char *what)
{
    p->pos = pos;
    snprintf(why, len, "pack record is corrupt: %s at code byte %u of %u (%u records left)", what, p->pos,
             p->nbytes, p->left);
    p->left = 0;
    return TRACE_ERR_FORMAT;
}

int rd_pack_next(struct rd_pack *p, uint64_t w[2 + CHT_REPEAT_MAX_ADDRS], char *why, size_t len)
{
    struct rd_pack_table *tb = p->tb;
    struct rd_pack_ent *e;
    const unsigned char *code = p->code;
    uint32_t pos = p->pos, end = p->nbytes, prev = tb->prev;
    uint64_t key, id;
    uint32_t tag, n, s, type, aux;
    struct cht_rec *h = (struct cht_rec *)w;

    if (pos >= end)
        return bad(p, p->pos, why, len, "code ends before the count of records");
    tag = code[pos++];
    if (tag & 1) {
        if (prev >= CHT_PACK_SLOTS || !tb->tab[prev].next)
            return bad(p, p->pos, why, len, "a record follows the prediction of no record");
        key = tb->tab[prev].next;
    } else {
        uint32_t k;
        if (pos >= end)
            return bad(p, p->pos, why, len, "code ends in a key");
        k = code[pos++];
        if (rd_varint(code, &pos, end, &id) < 0 || id > UINT32_MAX)
            return bad(p, pos, why, len, "bad id");
        type = k & 0x80 ? CHT_REC_LOOP : CHT_REC_COMP;
        aux = k & 0x7f;
        if (type == CHT_REC_COMP ? aux < 1 || aux > CHT_REPEAT_MAX_ADDRS : aux < CHT_LOOP_ENTER || aux > CHT_LOOP_EXIT)
            return bad(p, pos, why, len, "bad record kind");
        key = type | (uint64_t)aux << 16 | id << 32;
    }
    type = (uint32_t)(key & 0xffff);
    aux = (uint32_t)(key >> 16 & 0xffff);
    n = type == CHT_REC_COMP ? aux : 0;
    if (tag >> (1 + (n < 7 ? n : 7)))
        return bad(p, pos, why, len, "the record's first byte names addresses it does not have");
    if (prev < CHT_PACK_SLOTS)
        tb->tab[prev].next = key;
    s = (uint32_t)((key * CHT_PACK_HASH) >> 56);
    e = &tb->tab[s];
    if (e->gen != tb->gen || e->key != key) {
        memset(e, 0, sizeof(*e));
        e->gen = tb->gen;
        e->key = key;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!(i < 7 && (tag >> (1 + i) & 1))) {
            uint64_t z;
            if (rd_varint(code, &pos, end, &z) < 0)
                return bad(p, pos, why, len, "bad address difference");
            e->d[i] = (int64_t)((z >> 1) ^ (~(z & 1) + 1));
        }
        e->last[i] += (uint64_t)e->d[i];
        w[2 + i] = e->last[i];
    }
    tb->prev = s;
    p->pos = pos;
    h->type = (uint16_t)type;
    h->aux = (uint16_t)aux;
    h->size = 16 + 8 * n;
    w[1] = key >> 32; /* site or loop, then the reserved word 0 */
    if (--p->left == 0 && pos != end)
        return bad(p, pos, why, len, "code goes on after the count of records");
    return 0;
}

void rd_pack_free(struct rd_pack *p)
{
    memset(p, 0, sizeof(*p));
}

void rd_pack_table_free(struct rd_pack_table *tb)
{
    free(tb->tab);
    memset(tb, 0, sizeof(*tb));
}
