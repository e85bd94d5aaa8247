/* map.c - open-addressing hash map from uint64 to uint64 (linear probing,
 * backward-shift deletion, so no tombstones accumulate).  EMPTY marks free
 * slots; the key EMPTY itself is stored in a slot that max_at remembers. */
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

static inline bool is_free(const struct dg_map *m, size_t i)
{
    return m->keys[i] == EMPTY && m->max_at != i + 1;
}

uint64_t *dg_map_get(const struct dg_map *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    if (key == EMPTY)
        return m->max_at ? &m->vals[m->max_at - 1] : NULL;
    size_t mask = m->cap - 1;
    for (size_t i = slot_of(key, mask);; i = (i + 1) & mask) {
        if (m->keys[i] == key)
            return &m->vals[i];
        if (is_free(m, i))
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
    size_t mask = ncap - 1, max_at = 0;
    for (size_t i = 0; i < m->cap; i++) {
        if (is_free(m, i))
            continue;
        size_t j = slot_of(m->keys[i], mask);
        while (keys[j] != EMPTY || max_at == j + 1)
            j = (j + 1) & mask;
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
        if (m->max_at == i + 1)
            max_at = j + 1;
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = ncap;
    m->max_at = max_at;
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
    while (!is_free(m, i))
        i = (i + 1) & mask;
    m->keys[i] = key;
    m->vals[i] = def;
    if (key == EMPTY)
        m->max_at = i + 1;
    m->n++;
    return &m->vals[i];
}

void dg_map_del(struct dg_map *m, uint64_t key)
{
    if (!m->cap)
        return;
    size_t mask = m->cap - 1;
    size_t i;
    if (key == EMPTY) {
        if (!m->max_at)
            return;
        i = m->max_at - 1;
        m->max_at = 0; /* its slot is the hole */
    } else {
        i = slot_of(key, mask);
        while (m->keys[i] != key) {
            if (is_free(m, i))
                return;
            i = (i + 1) & mask;
        }
    }
    /* Backward shift: move later entries of the cluster into the hole when
     * their home slot is not between the hole and them. */
    for (size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
        if (is_free(m, j))
            break;
        size_t home = slot_of(m->keys[j], mask);
        bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            if (m->max_at == j + 1)
                m->max_at = i + 1;
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
