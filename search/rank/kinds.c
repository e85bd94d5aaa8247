/* kinds.c - the registry of per-rank hint kinds (kind.h, docs/kinds.md):
 * the table of the built-in kinds, and the kinds registered at run time.
 *
 * The order of the table is the order in which the engines call the
 * kinds and in which results are compared, packed and merged; a kind
 * added at the end changes nothing for the others.
 */
#include <pthread.h>

#include "rank/kind.h"

/* The built-in kinds: one line each, X(name) for the kind
 * search_kind_<name> (search/rank/kinds/<name>.c). */
#define KINDS(X)                                                                                             \
    X(overlap)                                                                                               \
    X(aggregate)

#define DECLARE(name) extern const struct search_kind search_kind_##name;
#define ENTRY(name) &search_kind_##name,
KINDS(DECLARE)
static const struct search_kind *const table[] = {KINDS(ENTRY)};

static struct {
    const struct search_kind *k;
    struct search_kind_desc desc; /* desc.kind: the hint kind given */
} reg[SEARCH_KINDS_MAX];
static unsigned nreg;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Whether a registered kind or a cross-rank one has this hint kind or
 * name. */
static bool taken(int kind, const char *name)
{
    if (search_kind_cross(kind, name))
        return true;
    for (unsigned i = 0; i < nreg; i++)
        if (reg[i].desc.kind == kind || (name && !strcmp(reg[i].desc.name, name)))
            return true;
    return false;
}

static int add(const struct search_kind *k)
{
    if (!k || !k->desc.name || !k->stream || !k->stream->create || !k->stream->event || !k->stream->finish ||
        !k->reference ||
        !k->result_free || !k->result_equal || !k->merge || !k->message || !k->pack != !k->unpack)
        return TRACE_ERR_ARG;
    int kind = k->desc.kind;
    if (!kind)
        for (kind = SEARCH_HINT_COLLECTIVE + 1; kind < 32 && taken(kind, NULL); kind++)
            ;
    /* hint kinds are bits of search_report_opts.kinds */
    if (nreg == SEARCH_KINDS_MAX || kind <= 0 || kind >= 32 || taken(kind, k->desc.name))
        return TRACE_ERR_ARG;
    reg[nreg].k = k;
    reg[nreg].desc = k->desc;
    reg[nreg].desc.kind = kind;
    nreg++;
    return kind;
}

static void init(void)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        add(table[i]);
}

unsigned search_kinds_count(void)
{
    pthread_once(&once, init);
    return nreg;
}

const struct search_kind *search_kinds_get(unsigned i)
{
    return i < search_kinds_count() ? reg[i].k : NULL;
}

const struct search_kind_desc *search_kinds_desc(unsigned i)
{
    return i < search_kinds_count() ? &reg[i].desc : NULL;
}

const struct search_kind *search_kinds_find(int kind)
{
    for (unsigned i = 0; i < search_kinds_count(); i++)
        if (reg[i].desc.kind == kind)
            return reg[i].k;
    return NULL;
}

int search_kind_register(const struct search_kind *k)
{
    pthread_once(&once, init);
    return add(k);
}
