/* format.h - what the writers of the report's formats share
 * (search/report/format*.c): the hints and wait states as printed. */
#ifndef COMMHINT_SEARCH_FORMAT_H
#define COMMHINT_SEARCH_FORMAT_H

#include <stdio.h>

#include "search.h"

/* A hint as printed: the report's hint, the message for this output and the
 * position in the report's ranking (from 1). */
struct view {
    const struct search_hint *h;
    char *message;
    unsigned rank_order;
};

/* A wait-state site as printed (reordered by location with --stable). */
struct wview {
    const struct search_waitsite *w;
};

/* Names of enum search_hint_flag bits, in bit order. */
extern const char *const search_flag_names[8];

void search_write_text(FILE *f, const struct view *v, uint32_t n, const struct search_format_opts *o);
void search_write_dropped_text(FILE *f, const struct view *v, uint32_t n);
void search_write_waits_text(FILE *f, const struct wview *wv, uint32_t n, bool stable);
void search_write_json(FILE *f, const struct view *v, uint32_t n, const struct view *dv, uint32_t nd,
                       const struct wview *wv, const struct search_report *rep,
                       const struct search_format_opts *o);
void search_write_sarif(FILE *f, const struct view *v, uint32_t n, const struct search_format_opts *o);

#endif /* COMMHINT_SEARCH_FORMAT_H */
