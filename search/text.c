/* text.c - growing strings for the messages of hints (report, collectives,
 * deadlock explanations). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
    static const char *const unit[] = {"ns", "us", "ms", "s"};
    if (ns < 1000) {
        search_text_printf(b, "%" PRIu64 " ns", ns);
        return;
    }
    double v = (double)ns;
    int u = 0;
    /* Move up while the value would print as 1000 or more. */
    while (u < 3 && v >= 999.5) {
        v /= 1000.0;
        u++;
    }
    search_text_printf(b, v < 9.95 ? "%.1f %s" : "%.0f %s", v, unit[u]);
}
