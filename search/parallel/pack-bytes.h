/* pack-bytes.h - the byte primitives of packing (search/parallel/pack.c):
 * little-endian writers into a growing buffer, and readers that check
 * every length against what is left.  Shared by pack.c and the hint kinds
 * that pack their part of a rank result (search/rank/kind.h). */
#ifndef COMMHINT_SEARCH_PACK_BYTES_H
#define COMMHINT_SEARCH_PACK_BYTES_H

#include <stdlib.h>
#include <string.h>

#include "pack.h"

/* ---- writing ------------------------------------------------------------------------ */

static inline bool pk_reserve(struct pk_buf *b, size_t n)
{
    if (b->nomem)
        return false;
    if (n <= b->cap - b->len)
        return true;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) {
            b->nomem = true;
            return false;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        b->nomem = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

/* Little-endian, whatever the host. */
static inline void pk_uint(struct pk_buf *b, uint64_t v, unsigned bytes)
{
    if (!pk_reserve(b, bytes))
        return;
    for (unsigned i = 0; i < bytes; i++)
        b->p[b->len + i] = (uint8_t)(v >> (8 * i));
    b->len += bytes;
}
static inline void pk_u8(struct pk_buf *b, uint8_t v)
{
    pk_uint(b, v, 1);
}
static inline void pk_u16(struct pk_buf *b, uint16_t v)
{
    pk_uint(b, v, 2);
}
static inline void pk_u32(struct pk_buf *b, uint32_t v)
{
    pk_uint(b, v, 4);
}
static inline void pk_i32(struct pk_buf *b, int32_t v)
{
    pk_uint(b, (uint32_t)v, 4);
}
static inline void pk_u64(struct pk_buf *b, uint64_t v)
{
    pk_uint(b, v, 8);
}
static inline void pk_f64(struct pk_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    pk_u64(b, u);
}
static inline void pk_bytes(struct pk_buf *b, const void *p, size_t n)
{
    if (!pk_reserve(b, n))
        return;
    memcpy(b->p + b->len, p, n);
    b->len += n;
}
/* Overwrites 8 bytes at off (a length written before its contents). */
static inline void pk_patch_u64(struct pk_buf *b, size_t off, uint64_t v)
{
    if (b->nomem)
        return;
    for (unsigned i = 0; i < 8; i++)
        b->p[off + i] = (uint8_t)(v >> (8 * i));
}

/* ---- reading ------------------------------------------------------------------------ */

struct pk_rd {
    const uint8_t *p;
    size_t len, off;
    bool bad;        /* ran past the end or found a bad value */
    const char *why; /* what was bad (static) */
};

static inline void rd_fail(struct pk_rd *r, const char *why)
{
    if (!r->bad)
        r->why = why;
    r->bad = true;
}

static inline uint64_t rd_uint(struct pk_rd *r, unsigned bytes)
{
    uint64_t v = 0;
    if (r->bad || r->len - r->off < bytes) {
        rd_fail(r, "length past end");
        return 0;
    }
    for (unsigned i = 0; i < bytes; i++)
        v |= (uint64_t)r->p[r->off + i] << (8 * i);
    r->off += bytes;
    return v;
}
static inline uint8_t rd_u8(struct pk_rd *r)
{
    return (uint8_t)rd_uint(r, 1);
}
static inline uint16_t rd_u16(struct pk_rd *r)
{
    return (uint16_t)rd_uint(r, 2);
}
static inline uint32_t rd_u32(struct pk_rd *r)
{
    return (uint32_t)rd_uint(r, 4);
}
static inline int32_t rd_i32(struct pk_rd *r)
{
    return (int32_t)(uint32_t)rd_uint(r, 4);
}
static inline uint64_t rd_u64(struct pk_rd *r)
{
    return rd_uint(r, 8);
}
static inline double rd_f64(struct pk_rd *r)
{
    uint64_t u = rd_u64(r);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}
/* A flag byte: 0 or 1. */
static inline bool rd_bool(struct pk_rd *r)
{
    uint8_t v = rd_u8(r);
    if (v > 1)
        rd_fail(r, "bad flag byte");
    return v == 1;
}

/* A count of items of at least min bytes each that must fit in what is
 * left (so that a corrupted count cannot ask for a huge allocation). */
static inline uint32_t rd_count(struct pk_rd *r, size_t min)
{
    uint32_t n = rd_u32(r);
    if (!r->bad && min && n > (r->len - r->off) / min) {
        rd_fail(r, "count larger than the bytes left");
        return 0;
    }
    return n;
}

/* calloc of n items (at least one, so that NULL means out of memory). */
static inline void *rd_alloc(struct pk_rd *r, size_t n, size_t size)
{
    if (r->bad)
        return NULL;
    void *p = calloc(n ? n : 1, size);
    if (!p)
        rd_fail(r, "out of memory");
    return p;
}

/* ---- shared pieces of a rank result ---------------------------------------------------- */

/* Bytes on the wire of the fixed parts, for count checks (an array of n
 * items needs at least n times its items' fixed part). */
#define BOXES_MIN 12u /* n, more */
#define BOX_MIN 4u    /* depth */

/* Where a site reference was resolved and what process 0 must look up
 * again: a placeholder info (never dereferenced for more than its empty
 * strings) until search_bundle_unpack resolves it. */
extern const struct trace_site_info search_pending_site;

/* A site reference's flag: 1 if it was resolved where it was packed. */
static inline void pk_site_flag(struct pk_buf *b, const struct trace_site_info *info)
{
    pk_u8(b, info ? 1 : 0);
}
/* Its info: the placeholder if it was resolved where the result was
 * packed, else NULL. */
static inline const struct trace_site_info *rd_site_flag(struct pk_rd *r)
{
    return rd_bool(r) ? &search_pending_site : NULL;
}

/* A list of iteration boxes (loop lines travel with them). */
void pk_boxes(struct pk_buf *b, const struct search_boxes *x);
void rd_boxes(struct pk_rd *r, struct search_boxes *x);

#endif /* COMMHINT_SEARCH_PACK_BYTES_H */
