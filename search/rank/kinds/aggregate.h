/* aggregate.h - what the files of the aggregation kind share (aggregate.c:
 * the kind and its per-rank result; aggregate-stream.c,
 * aggregate-reference.c: the two engines; aggregate-merge.c: hints across
 * ranks). */
#ifndef COMMHINT_SEARCH_KIND_AGGREGATE_H
#define COMMHINT_SEARCH_KIND_AGGREGATE_H

#include "rank/kind.h"

extern const struct search_stream_methods search_aggregate_stream;
int search_aggregate_reference(struct search_ref *x, struct search_rank_result *r);
int search_aggregate_merge(const struct search_merge *m);
char *search_aggregate_message(const struct search_hint *h, bool with_times);

/* Order of group summaries in a result: comm, peer, then the member
 * sites. */
int search_group_cmp(const struct search_group *a, const struct search_group *b);
/* Gives every group of r its info array (nsites entries, NULL until
 * search_run_rank resolves them), as results always have. */
int search_groups_make_info(struct search_rank_result *r);

#endif /* COMMHINT_SEARCH_KIND_AGGREGATE_H */
