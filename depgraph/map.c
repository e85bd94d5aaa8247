/* map.c - open-addressing hash map from uint64 to uint64 (linear probing,
 * backward-shift deletion, so no tombstones accumulate). */
#include <stdlib.h>
#include <string.h>

#include "depgraph.h"

#define EMPTY UINT64_MAX

static inline size_t slot_of(uint64_t key, size_t mask)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & mask;
}

uint64_t *dg_map_get(const struct dg_map *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = slot_of(key, mask);; i = (i + 1) & mask) {
        if (m->keys[i] == key)
            return &m->vals[i];
        if (m->keys[i] == EMPTY)
            return NULL;
    }
}

static int grow(struct dg_map *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 16;
    uint64_t *keys = malloc(ncap * sizeof *keys), *vals = malloc(ncap * sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    memset(keys, 0xff, ncap * sizeof *keys);
    size_t mask = ncap - 1;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] == EMPTY)
            continue;
        size_t j = slot_of(m->keys[i], mask);
        while (keys[j] != EMPTY)
            j = (j + 1) & mask;
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = ncap;
    return 0;
}

uint64_t *dg_map_put(struct dg_map *m, uint64_t key, uint64_t def)
{
    uint64_t *v = dg_map_get(m, key);
    if (v)
        return v;
    if ((m->n + 1) * 4 > m->cap * 3 && grow(m) < 0)
        return NULL;
    size_t mask = m->cap - 1;
    size_t i = slot_of(key, mask);
    while (m->keys[i] != EMPTY)
        i = (i + 1) & mask;
    m->keys[i] = key;
    m->vals[i] = def;
    m->n++;
    return &m->vals[i];
}

void dg_map_del(struct dg_map *m, uint64_t key)
{
    if (!m->cap)
        return;
    size_t mask = m->cap - 1;
    size_t i = slot_of(key, mask);
    while (m->keys[i] != key) {
        if (m->keys[i] == EMPTY)
            return;
        i = (i + 1) & mask;
    }
    /* Backward shift: move later entries of the cluster into the hole when
     * their home slot is not between the hole and them. */
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        if (m->keys[j] == EMPTY)
            break;
        size_t home = slot_of(m->keys[j], mask);
        bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            i = j;
        }
    }
    m->keys[i] = EMPTY;
    m->n--;
}

void dg_map_free(struct dg_map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
