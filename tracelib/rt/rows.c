/* rows.c - the coding of CHT_REC_ROWS records (trace-format.h): the rows
 * of a loop nest whose inner loop is recorded at its exit with irregular
 * addresses (a sparse product's rows).  recorder.c decides when a row goes
 * here (rows_take) and writes the record; this file codes a row against
 * the open record's template and what the rows before it predict.
 *
 * Why: per row of 8 nonzeros, coding the outer loop's 5 records one by one,
 * the loop's first iteration, and opening and ending a run with a column
 * cost more than the row's computation twenty times over, and made 112
 * bytes for zstd to compress (docs/performance.md, "Irregular codes").  A
 * row here is its trip count, a byte per affine start (0 when it goes on
 * from the row before) and the 4-byte differences: the information the
 * trace must hold, and little else.
 */
#include <string.h>

#include "recorder-private.h"

/* A loop's one irregular address, trips iterations of it, as 4-byte
 * differences at q, each from the one before (*last: the value before
 * the first, then the last); past them, or NULL if one needs more than 32
 * bits. */
static inline unsigned char *rows_column(unsigned char *q, const volatile uint64_t *irr, uint64_t trips,
                                         uint64_t *last)
{
    uint64_t l = *last;
    for (uint64_t it = 0; it < trips; it++) {
        uint64_t v = irr[it];
        int32_t e = (int32_t)(v - l);
        if ((int64_t)(v - l) != e)
            return NULL;
        memcpy(q + 4 * it, &e, 4);
        l = v;
    }
    *last = l;
    return q + 4 * trips;
}

/* Code bytes of a row of `trips` iterations at most. */
static inline size_t rows_row_max(const struct rt_affine *x, uint64_t trips)
{
    return 10 + 10 * (size_t)x->na + 4 * (size_t)x->nirr * trips;
}

/* Whether the open record's loop is x's: the same keys, address counts,
 * steps and irregular addresses (a frame's descriptor is constant data of
 * the pass, but the runtime does not count on it). */
static inline int rows_same_loop(const struct rt_rows *w, const struct rt_affine *x)
{
    uint32_t i;
    if (x->per != w->per || x->na != w->nal || x->nirr != w->nirr)
        return 0;
    /* a few words each: loops, not calls to memcmp */
    for (i = 0; i < x->per; i++)
        if (x->key[i] != w->key[CHT_REPEAT_PERIOD_MAX + i])
            return 0;
    for (i = 0; i < x->na; i++)
        if (x->step[i] != w->xstep[i])
            return 0;
    for (i = 0; i < x->nirr; i++)
        if (x->irr[i] != w->irr[i])
            return 0;
    return 1;
}

/* Whether b can be the open record's between records after row w->rows - 1. */
static int rows_between_fit(const struct rt_rows *w, const struct rt_rows_between *b)
{
    if (w->rows == 1)
        return 1; /* they become the template */
    if (b->nb != w->nb || b->nab != w->nab)
        return 0;
    for (uint32_t k = 0; k < b->nb; k++)
        if (b->key[k] != w->key[k])
            return 0;
    /* from the third row on their addresses must move by the strides the
     * second fixed */
    if (w->rows >= 3)
        for (uint32_t i = 0; i < b->nab; i++)
            if (b->a[i] != w->bnext[i])
                return 0;
    return 1;
}

/* Publishes the row coded up to q (the busy window: a handler writes the
 * record with the rows before it, or with it, never half of it). */
static int rows_publish(struct rt_rows *w, uint32_t epoch, const struct rt_affine *x,
                        const struct commhint_rt_loop_frame *fr, const struct rt_rows_between *b,
                        const unsigned char *q, const uint64_t *pred, const uint64_t *last,
                        const uint64_t *first, uint64_t **head, uint64_t *to)
{
    uint32_t rows = w->rows, i;

    w->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (w->epoch != epoch) { /* a handler wrote the record meanwhile: the row is lost */
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        w->busy = 0;
        return 0;
    }
    if (!rows) {
        w->nb = w->nab = 0;
        w->per = x->per;
        w->nal = x->na;
        w->nirr = x->nirr;
        for (i = 0; i < x->per; i++)
            w->key[CHT_REPEAT_PERIOD_MAX + i] = x->key[i];
        for (i = 0; i < x->na; i++) {
            w->start[i] = x->a[i];
            w->step[i] = w->xstep[i] = x->step[i];
        }
        for (i = 0; i < x->nirr; i++) {
            w->irr[i] = x->irr[i];
            w->start[x->irr[i]] = first[i];
            w->step[x->irr[i]] = CHT_REPEAT_IRREGULAR;
        }
        w->dptr = fr->desc;
        w->dlb = fr->loop_base;
        w->dsb = fr->site_base;
        w->ndesc = x->per + x->na;
        memcpy(w->desc, fr->desc, 8 * (size_t)w->ndesc);
    } else if (rows == 1) {
        w->nb = b->nb;
        w->nab = b->nab;
        memcpy(w->key, b->key, 8 * (size_t)b->nb);
        memcpy(w->bn, b->n, 4 * (size_t)b->nb);
        memcpy(w->base, b->a, 8 * (size_t)b->nab);
        memset(w->bstride, 0, 8 * (size_t)b->nab);
    } else if (rows == 2) {
        uint32_t k, a = 0;
        for (i = 0; i < b->nab; i++) {
            w->bstride[i] = (int64_t)(b->a[i] - w->base[i]);
            w->bnext[i] = b->a[i] + (uint64_t)w->bstride[i];
        }
        /* the queue's words of the next row, as rt_rows_next compares them */
        for (w->nq = 0, k = 0; k < b->nb; k++) {
            w->qexp[w->nq] = b->key[k];
            w->qstride[w->nq++] = 0;
            for (uint32_t j = 0; j < b->n[k]; j++, a++) {
                w->qexp[w->nq] = w->bnext[a];
                w->qstride[w->nq++] = w->bstride[a];
            }
        }
    } else {
        for (i = 0; i < w->nq; i++)
            w->qexp[i] += (uint64_t)w->qstride[i];
        for (i = 0; i < b->nab; i++)
            w->bnext[i] += (uint64_t)w->bstride[i];
    }
    memcpy(w->pred, pred, 8 * (size_t)x->na);
    memcpy(w->last, last, 8 * (size_t)x->nirr);
    *head = to; /* the between records are the row's now */
    w->len = (uint32_t)(q - w->code);
    w->rows = rows + 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    w->busy = 0;
    return 1;
}

int rt_rows_add(struct rt_rows *w, const struct rt_affine *x, const struct commhint_rt_loop_frame *fr, uint64_t trips,
                const struct rt_rows_between *b, uint64_t **head, uint64_t *to)
{
    const volatile uint64_t *irr = fr->irr;
    uint64_t pred[RT_AFFINE_ADDRS], last[COMMHINT_RT_LOOP_IRR], first[COMMHINT_RT_LOOP_IRR];
    uint32_t rows = w->rows, epoch = w->epoch, nirr = x->nirr, i, k;
    uint64_t irrmask = 0;
    unsigned char *q;

    if (!trips || trips > COMMHINT_RT_LOOP_BUF || !nirr)
        return -1;
    for (k = 0; k < nirr; k++)
        irrmask |= 1ull << x->irr[k];
    if (rows && (!rows_same_loop(w, x) || rows == CHT_ROWS_COUNT_MAX ||
                 w->len + rows_row_max(x, trips) > RT_ROWS_BYTES || !rows_between_fit(w, b)))
        return 0;
    /* coded past the published rows: a handler never writes these bytes
     * before rows_publish */
    q = rt_varint(w->code + (rows ? w->len : 0), trips);
    for (i = 0; i < x->na; i++) {
        int64_t d;
        pred[i] = 0;
        if (irrmask >> i & 1)
            continue; /* irregular: from the column */
        d = (int64_t)(x->a[i] - (rows ? w->pred[i] : x->a[i]));
        q = rt_varint(q, rt_zigzag(d));
        pred[i] = x->a[i] + trips * (uint64_t)x->step[i];
    }
    for (k = 0; k < nirr; k++)
        first[k] = last[k] = rows ? w->last[k] : irr[k];
    if (nirr == 1) { /* the common case (x[col[j]]): one column */
        if (!(q = rows_column(q, irr, trips, &last[0])))
            return rows ? 0 : -1;
    } else {
        for (uint64_t it = 0; it < trips; it++) {
            for (k = 0; k < nirr; k++) {
                uint64_t v = irr[it * nirr + k];
                int64_t d = (int64_t)(v - last[k]);
                int32_t e = (int32_t)d;
                if (d != e)
                    return rows ? 0 : -1;
                memcpy(q, &e, 4);
                q += 4;
                last[k] = v;
            }
        }
    }
    return rows_publish(w, epoch, x, fr, b, q, pred, last, first, head, to);
}

int rt_rows_next(struct rt_rows *w, const struct commhint_rt_loop_frame *fr, uint64_t trips, uint64_t **head,
                 uint64_t *to)
{
    const volatile uint64_t *irr = fr->irr;
    const uint64_t *qw = *head;
    uint64_t pred[RT_ROWS_ADDRS], l;
    uint32_t epoch = w->epoch, i;
    unsigned char *q;

    /* the same loop (its frame's descriptor as before, word for word), a
     * single column (x[col[j]]), the outer records where expected */
    if (fr->desc != w->dptr || fr->loop_base != w->dlb || fr->site_base != w->dsb || w->nirr != 1 || !irr ||
        !trips || trips > COMMHINT_RT_LOOP_BUF || (uint64_t)(to - qw) != w->nq || w->rows == CHT_ROWS_COUNT_MAX ||
        w->len + 10 + 10 * (size_t)w->nal + 4 * trips > RT_ROWS_BYTES)
        return 0;
    for (i = 0; i < w->ndesc; i++)
        if (fr->desc[i] != w->desc[i])
            return 0;
    for (i = 0; i < w->nq; i++)
        if (qw[i] != w->qexp[i])
            return 0;
    q = rt_varint(w->code + w->len, trips);
    for (i = 0; i < w->nal; i++) {
        int64_t d;
        if (w->step[i] == CHT_REPEAT_IRREGULAR) {
            pred[i] = 0;
            continue;
        }
        d = (int64_t)(fr->starts[i] - w->pred[i]);
        q = rt_varint(q, rt_zigzag(d));
        pred[i] = fr->starts[i] + trips * (uint64_t)w->step[i];
    }
    l = w->last[0];
    if (!(q = rows_column(q, irr, trips, &l)))
        return 0;
    /* publish, as rows_publish from the third row on */
    w->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (w->epoch != epoch) {
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        w->busy = 0;
        return 0;
    }
    for (i = 0; i < w->nq; i++)
        w->qexp[i] += (uint64_t)w->qstride[i];
    for (i = 0; i < w->nab; i++)
        w->bnext[i] += (uint64_t)w->bstride[i];
    memcpy(w->pred, pred, 8 * (size_t)w->nal);
    w->last[0] = l;
    *head = to;
    w->len = (uint32_t)(q - w->code);
    w->rows++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    w->busy = 0;
    return 1;
}

size_t rt_rows_size(const struct rt_rows *w)
{
    return (sizeof(struct cht_rec_rows) + 8 * (size_t)(w->nb + w->per) + 16 * (size_t)(w->nab + w->nal) + w->len +
            7) &
           ~(size_t)7;
}

void rt_rows_write(const struct rt_rows *w, unsigned char *p)
{
    struct cht_rec_rows *r = (struct cht_rec_rows *)p;
    size_t size = rt_rows_size(w);
    unsigned char *q = (unsigned char *)(r + 1);

    r->h.type = CHT_REC_ROWS;
    r->h.aux = 0;
    r->h.size = (uint32_t)size;
    r->rows = w->rows;
    r->nbytes = w->len;
    r->nb = (uint16_t)w->nb;
    r->per = (uint16_t)w->per;
    r->nab = (uint16_t)w->nab;
    r->nal = (uint16_t)w->nal;
    memcpy(q, w->key, 8 * (size_t)w->nb);
    q += 8 * (size_t)w->nb;
    memcpy(q, w->key + CHT_REPEAT_PERIOD_MAX, 8 * (size_t)w->per);
    q += 8 * (size_t)w->per;
    memcpy(q, w->base, 8 * (size_t)w->nab);
    q += 8 * (size_t)w->nab;
    memcpy(q, w->bstride, 8 * (size_t)w->nab);
    q += 8 * (size_t)w->nab;
    memcpy(q, w->start, 8 * (size_t)w->nal);
    q += 8 * (size_t)w->nal;
    memcpy(q, w->step, 8 * (size_t)w->nal);
    q += 8 * (size_t)w->nal;
    memcpy(q, w->code, w->len);
    q += w->len;
    memset(q, 0, size - (size_t)(q - p));
}
