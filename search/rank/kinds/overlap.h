/* overlap.h - what the files of the overlap kind share (overlap.c: the
 * kind and its per-rank result; overlap-stream.c, overlap-reference.c:
 * the two engines; overlap-merge.c: hints across ranks). */
#ifndef COMMHINT_SEARCH_KIND_OVERLAP_H
#define COMMHINT_SEARCH_KIND_OVERLAP_H

#include "rank/kind.h"

extern const struct search_stream_methods search_overlap_stream;
int search_overlap_reference(struct search_ref *x, struct search_rank_result *r);
int search_overlap_merge(const struct search_merge *m);
char *search_overlap_message(const struct search_hint *h, bool with_times);

#endif /* COMMHINT_SEARCH_KIND_OVERLAP_H */
