/* hb-dist-private.h - the spread happens-before replay's state and notes
 * (hb-dist.c: the queries, the ranks' replay, the rounds), shared with
 * the part that runs the collective instances this process owns
 * (hb-dist-owner.c). */
#ifndef COMMHINT_HB_DIST_PRIVATE_H
#define COMMHINT_HB_DIST_PRIVATE_H

#include "hb-private.h"

enum {
    H_REG = 1, H_TOK, H_TOKANS, H_ANS, H_SETUP, /* before the replay */
    H_MSG, H_REACHED, H_CONTRIB, H_STALLED, H_RELEASE, H_WORLD, H_GROUP, H_DONE, H_RETIRED
};
enum { SET_CONTRIB = 1, SET_CARRY = 2 };

/* A note; ntok tokens (uint32_t) follow it. */
struct hnote {
    uint32_t kind, ntok;
    uint32_t inst, id;
    int32_t proc;
    uint32_t flags;
    struct dg_pos at, b;
};

/* A query answered here (its b is on one of this process's ranks). */
struct lq {
    struct dg_pos a, b;
    int32_t asker, home;
    uint32_t aid, tok;
    uint8_t live;
};

/* A member of an instance this process owns. */
enum { MB_ARRIVED = 1, MB_WAITING = 2, MB_CONTRIB = 4, MB_GONE = 8, MB_NB = 16, MB_ROOT = 32 };
struct inst {
    uint32_t base, n, narrived, ncontrib;
    uint8_t blocking, nb, broken, built;
    struct tokset group;
    struct dg_pos from; /* chain mode: the group's first giver that knew token 0 */
};

struct hd {
    const struct dg_mpilog *const *logs; /* this process's ranks */
    const struct dg_match *m;
    const int *owner;
    int P, K, me;
    uint8_t *ans;
    struct lq *lq;
    uint32_t nlq, clq;
    struct dg_map tokmap;  /* pos_key(a) -> this process's token number + 1 */
    struct dg_pos *tokpos; /* [ntok] */
    uint32_t *tokleft;     /* [ntok]: its queries not answered yet */
    uint32_t ntok, ctok, ntotal, *tokbase; /* tokbase [K + 1] */
    uint8_t *retired;      /* a bit per token */
    uint32_t *cur, *relpos; /* per rank: its next record; where it was released */
    uint8_t *rel;
    struct tokset *know;      /* per rank: the tokens it knows */
    struct evlist *src, *tgt;  /* per rank: tokens made, queries answered, by position */
    struct dg_map contrib;  /* pos_key(contribution) -> position of its COLL record */
    struct dg_map carry;    /* pos_key(COLL record): arrives with its set */
    struct dg_map inbox;    /* pos_key(receive) -> slot + 1 of what its send knew */
    struct tokset *slot;
    uint32_t nslot, cslot, *freed, nfreed, cfreed;
    uint32_t lo, hi;        /* instances this process owns */
    struct inst *in;
    uint8_t *mflag;
    uint16_t *mcall;
    struct tokset *mset, *cset; /* per member: what it knew on arriving, at its contribution */
    /* collectives over every rank that passed all to all (or from a
     * root): what they passed, once, and which ranks have passed them (a
     * bit per world rank), rather than a copy in every member's set */
    struct tokset *wset;
    uint8_t *wbits;
    uint32_t nworld, cworld, wbytes;
    struct dg_map wfirst;    /* token -> first node + 1 of its world instances */
    struct wnode {
        uint32_t w, next;    /* next + 1, 0 none */
    } *wn;
    uint32_t nwn, cwn;
    /* the groups of nonblocking instances whose takers are here: what the
     * givers knew at their starts, once; a taker's set holds the group's
     * token (ntotal + instance) while a token in it lives */
    struct dg_map gmap;      /* instance -> group slot + 1 */
    struct group {
        struct tokset s;
        uint32_t live;
    } *grp;
    uint32_t ngrp, cgrp;
    struct dg_map gfirst;    /* record token -> first node + 1 of the groups holding it */
    struct wnode *gn;
    uint32_t ngn, cgn;
    int *work;
    size_t nwork;
    uint8_t *queued;
    struct dg_bytes *out, *inb;
    struct tokset tmp, note_tok;
    /* chain mode (dg_hb_chain_dist: one query, whose token is 0 and never
     * retires): per rank here, the first record that knew token 0 and
     * the record it learnt it from; the notes that pass sets carry that
     * source in their b */
    struct dg_pos *arr_at, *arr_from;
    int rc;
};

/* hb-dist.c */
int hd_rank_owner(const struct hd *R, int r);
void hd_note(struct hd *R, int to, const struct hnote *n, const uint32_t *tok);
void hd_note_simple(struct hd *R, int to, uint32_t kind, uint32_t inst, uint32_t id, struct dg_pos at);
void hd_note_set(struct hd *R, int to, uint32_t kind, uint32_t inst, struct dg_pos at, const struct tokset *s);
void hd_ts_merge(struct hd *R, struct tokset *dst, const uint32_t *v, uint32_t n);
void hd_ts_merge_flat(struct hd *R, struct tokset *dst, const uint32_t *v, uint32_t n);
void hd_ts_free(struct tokset *s);
/* Whether set s holds record token t, itself or in one of its groups. */
bool hd_set_knows(const struct hd *R, const struct tokset *s, uint32_t t);
/* Chain mode: the first giver, among a collective's members, whose set
 * knows token 0 (DG_POS_NONE if none, or not in chain mode). */
static inline void hd_chain_giver(const struct hd *R, struct dg_pos *from, struct dg_pos member,
                                  const struct tokset *s)
{
    if (R->arr_at && from->rank < 0 && hd_set_knows(R, s, 0))
        *from = member;
}

/* hb-dist-owner.c: the members of the instances this process owns, and the
 * SETUP notes; a member's REACHED, CONTRIB or STALLED note. */
int hd_inst_setup(struct hd *R);
void hd_on_member(struct hd *R, const struct hnote *n, const uint32_t *tok);

#endif
