/* text.c - growing strings for the messages of hints (report, collectives,
 * deadlock explanations). */
#include <inttypes.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search-private.h"

void search_text_printf(struct search_text *b, const char *fmt, ...)
{
    va_list ap;
    if (b->failed)
        return;
    for (;;) {
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        int w = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->failed = true;
            return;
        }
        if ((size_t)w < room) {
            b->len += (size_t)w;
            return;
        }
        size_t cap = b->cap ? b->cap : 64;
        while (cap - b->len <= (size_t)w)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

char *search_text_take(struct search_text *b)
{
    if (b->failed || !b->s) {
        free(b->s);
        b->s = NULL;
        return NULL;
    }
    return b->s;
}

void search_text_time(struct search_text *b, uint64_t ns)
{
    char buf[32];
    /* (in sentences 0 keeps its unit: "0 ns") */
    search_text_printf(b, "%s", ns ? search_format_ns(buf, sizeof buf, ns) : "0 ns");
}

bool search_parse_duration(const char *s, uint64_t *out)
{
    if (!s || !out)
        return false;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s) {
        *out = 0;
        return true;
    }
    const char *p = s;
    if (!isdigit((unsigned char)*p))
        return false;
    while (isdigit((unsigned char)*p))
        p++;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    const char *num_end = p;
    while (isspace((unsigned char)*p))
        p++;
    const char *unit = p;
    while (isalpha((unsigned char)*p))
        p++;
    size_t ulen = (size_t)(p - unit);
    while (isspace((unsigned char)*p))
        p++;
    if (*p)
        return false;
    double mult;
    if (!ulen || (ulen == 2 && !strncmp(unit, "ns", 2)))
        mult = 1;
    else if (ulen == 2 && !strncmp(unit, "us", 2))
        mult = 1e3;
    else if (ulen == 2 && !strncmp(unit, "ms", 2))
        mult = 1e6;
    else if (ulen == 1 && unit[0] == 's')
        mult = 1e9;
    else
        return false;
    char num[64];
    size_t nlen = (size_t)(num_end - s);
    if (nlen >= sizeof num)
        return false;
    memcpy(num, s, nlen);
    num[nlen] = '\0';
    double v = strtod(num, NULL) * mult;
    if (!(v >= 0 && v < 1.8e19))
        return false;
    *out = (uint64_t)(v + 0.5);
    return true;
}

int search_hint_location_cmp(const struct search_hint *x, const struct search_hint *y)
{
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    int c = search_place_cmp(x->file, x->line, x->col, y->file, y->line, y->col);
    return c ? c : search_ctx_cmp(x->ctx, y->ctx);
}

static bool place_is(const char *file, uint32_t line, uint32_t col, const struct search_loc *l)
{
    if (!line || l->line != line)
        return false;
    if (col && l->col && l->col != col)
        return false;
    return !strcmp(file ? file : "", l->file);
}

bool search_hint_at_site(const struct search_hint *h, const struct trace_site_info *info, bool related)
{
    struct search_loc l;
    if (!h || !info)
        return false;
    if (h->kind == SEARCH_HINT_OVERLAP)
        search_loc_of(info, info->id, &l);
    else
        search_loc_at_call(info, info->id, &l);
    if (place_is(h->file, h->line, h->col, &l) && !search_ctx_cmp(l.ctx, h->ctx))
        return true;
    if (!related || h->kind == SEARCH_HINT_OVERLAP) /* its related lines are computation */
        return false;
    for (uint32_t k = 0; k < h->nrelated; k++) {
        const struct search_related *r = &h->related[k];
        if (r->role >= SEARCH_REL_MEMBER && place_is(r->file, r->line, r->col, &l))
            return true;
    }
    return false;
}

uint32_t search_hint_nframes(const struct search_hint *h)
{
    return h->ctx ? h->ctx->anchor + 1 : 1;
}

struct trace_srcframe search_hint_frame(const struct search_hint *h, uint32_t i)
{
    if (h->ctx && i <= h->ctx->anchor)
        return h->ctx->frames[h->ctx->anchor - i];
    return (struct trace_srcframe){h->file, h->func, h->line, h->col};
}
