/* keytab.c - the latest event carrying each MPI ordering key, and a value
 * per key (docs/dependence.md, "Ordering keys").  Keys live per
 * communicator: comm -> {per (class, peer): last index and value; per
 * class: the largest over all peers, which answers wildcard queries}. */
#include <stdlib.h>

#include "depgraph.h"

#define NCLASS 5

struct comm_keys {
    struct dg_map last;  /* (class << 33 | peer) -> index + 1 */
    struct dg_map value; /* (class << 33 | peer) -> value + 1 */
    uint64_t any_last[NCLASS], any_value[NCLASS]; /* over every peer */
};

struct dg_keytab {
    struct dg_map comms; /* comm -> struct comm_keys * */
    size_t entries;
};

static uint64_t peer_key(const struct dg_key *k)
{
    return (uint64_t)k->cls << 33 | (uint32_t)k->peer;
}

int dg_keytab_create(struct dg_keytab **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? 0 : TRACE_ERR_NOMEM;
}

static void comm_free(struct comm_keys *c)
{
    dg_map_free(&c->last);
    dg_map_free(&c->value);
    free(c);
}

void dg_keytab_destroy(struct dg_keytab *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->comms.cap; i++)
        if (dg_map_used(&t->comms, i))
            comm_free((struct comm_keys *)(uintptr_t)t->comms.vals[i]);
    dg_map_free(&t->comms);
    free(t);
}

static struct comm_keys *comm_get(const struct dg_keytab *t, uint64_t comm)
{
    uint64_t *v = dg_map_get(&t->comms, comm);
    return v ? (struct comm_keys *)(uintptr_t)*v : NULL;
}

static inline uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

void dg_keytab_query(const struct dg_keytab *t, const struct dg_key *k, uint64_t *last,
                     uint64_t *value)
{
    *last = *value = 0;
    const struct comm_keys *c = comm_get(t, k->comm);
    if (!c || k->cls >= NCLASS)
        return;
    if (k->peer == DG_PEER_ANY) {
        *last = c->any_last[k->cls];
        *value = c->any_value[k->cls];
        return;
    }
    struct dg_key any = {k->cls, DG_PEER_ANY, k->comm};
    const uint64_t *l = dg_map_get(&c->last, peer_key(k));
    const uint64_t *v = dg_map_get(&c->value, peer_key(k));
    const uint64_t *la = dg_map_get(&c->last, peer_key(&any));
    const uint64_t *va = dg_map_get(&c->value, peer_key(&any));
    *last = max64(l ? *l : 0, la ? *la : 0);
    *value = max64(v ? *v : 0, va ? *va : 0);
}

int dg_keytab_update(struct dg_keytab *t, const struct dg_key *k, uint64_t index, uint64_t value)
{
    if (k->cls >= NCLASS)
        return TRACE_ERR_ARG;
    struct comm_keys *c = comm_get(t, k->comm);
    if (!c) {
        c = calloc(1, sizeof *c);
        uint64_t *slot = c ? dg_map_put(&t->comms, k->comm, (uint64_t)(uintptr_t)c) : NULL;
        if (!slot) {
            free(c);
            return TRACE_ERR_NOMEM;
        }
    }
    size_t before = c->last.n;
    uint64_t *l = dg_map_put(&c->last, peer_key(k), 0);
    if (!l)
        return TRACE_ERR_NOMEM;
    *l = max64(*l, index + 1);
    uint64_t *v = dg_map_put(&c->value, peer_key(k), 0);
    if (!v)
        return TRACE_ERR_NOMEM;
    *v = max64(*v, value + 1);
    t->entries += c->last.n - before;
    c->any_last[k->cls] = max64(c->any_last[k->cls], index + 1);
    c->any_value[k->cls] = max64(c->any_value[k->cls], value + 1);
    return 0;
}

void dg_keytab_forget(struct dg_keytab *t, const struct dg_key *k)
{
    struct comm_keys *c = comm_get(t, k->comm);
    if (!c)
        return;
    size_t before = c->last.n;
    dg_map_del(&c->last, peer_key(k));
    dg_map_del(&c->value, peer_key(k));
    t->entries -= before - c->last.n;
    if (c->last.n == 0) {
        dg_map_del(&t->comms, k->comm);
        comm_free(c);
    }
}

size_t dg_keytab_entries(const struct dg_keytab *t)
{
    return t->entries;
}
