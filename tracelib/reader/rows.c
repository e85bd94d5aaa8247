/* rows.c - decoding of CHT_REC_ROWS records (trace-format.h): the records
 * of the rows of a loop nest, rebuilt one by one for the cursor, which
 * treats them as records read from the stream (as pack.c's); a row's
 * iterations after its first go to the cursor at once, as a REPEAT_COL of
 * its first (rd_rows_take), which it can hand over as a run.  Everything
 * comes from the file: every count is checked against the format's limits
 * and every byte read against the code's end.
 */
#include <stdio.h>
#include <string.h>

#include "reader-private.h"

/* Closes the record with a reason. */
static __attribute__((noinline, cold)) int bad(struct rd_rows *w, char *why, size_t len, const char *what)
{
    snprintf(why, len, "rows record is corrupt: %s at code byte %u of %u (%u rows left)", what, w->pos, w->nbytes,
             w->rows_left);
    w->active = false;
    return TRACE_ERR_FORMAT;
}

/* The address count of a COMP or LOOP key, or -1 if it is neither. */
static int key_n(uint64_t key)
{
    uint32_t type = (uint32_t)(key & 0xffff), aux = (uint32_t)(key >> 16 & 0xffff);
    if (type == CHT_REC_COMP)
        return aux >= 1 && aux <= CHT_REPEAT_MAX_ADDRS ? (int)aux : -1;
    if (type == CHT_REC_LOOP)
        return aux >= CHT_LOOP_ENTER && aux <= CHT_LOOP_EXIT ? 0 : -1;
    return -1;
}

static int row_begin(struct rd_rows *w, bool first, char *why, size_t len);

int rd_rows_start(struct rd_rows *w, const struct cht_rec_rows *rec, char *why, size_t len)
{
    const unsigned char *p = (const unsigned char *)(rec + 1);
    uint64_t base[RD_ROWS_ADDRS], start[RD_ROWS_ADDRS];
    uint32_t nb = rec->nb, per = rec->per, nab = 0, nal = 0, i;

    memset(w, 0, offsetof(struct rd_rows, key));
    if (rec->rows < 1 || rec->rows > CHT_ROWS_COUNT_MAX || rec->nbytes < 1 || rec->nbytes > CHT_ROWS_BYTES_MAX ||
        nb > CHT_REPEAT_PERIOD_MAX || per < 1 || per > CHT_REPEAT_PERIOD_MAX) {
        snprintf(why, len, "rows record has rows=%u nbytes=%u nb=%u per=%u, outside the format's limits", rec->rows,
                 rec->nbytes, nb, per);
        return TRACE_ERR_FORMAT;
    }
    memcpy(w->key, p, 8 * (size_t)(nb + per));
    for (i = 0; i < nb + per; i++) {
        int n = key_n(w->key[i]);
        if (n < 0) {
            snprintf(why, len, "rows record has a key 0x%llx of no COMP or LOOP record", (unsigned long long)w->key[i]);
            return TRACE_ERR_FORMAT;
        }
        if (i < nb) {
            w->boff[i] = nab;
            nab += (uint32_t)n;
        } else {
            w->loff[i - nb] = nal;
            nal += (uint32_t)n;
        }
    }
    if (nab != rec->nab || nal != rec->nal) {
        snprintf(why, len, "rows record has nab=%u nal=%u, its keys %u and %u", rec->nab, rec->nal, nab, nal);
        return TRACE_ERR_FORMAT;
    }
    p += 8 * (size_t)(nb + per);
    memcpy(base, p, 8 * (size_t)nab);
    p += 8 * (size_t)nab;
    memcpy(w->bstride, p, 8 * (size_t)nab);
    p += 8 * (size_t)nab;
    memcpy(start, p, 8 * (size_t)nal);
    p += 8 * (size_t)nal;
    memcpy(w->step, p, 8 * (size_t)nal);
    p += 8 * (size_t)nal;
    for (i = 0; i < nab; i++)
        w->bcur[i] = base[i];
    for (i = 0; i < nal; i++) {
        w->irr[i] = w->step[i] == CHT_REPEAT_IRREGULAR;
        w->nirr += w->irr[i];
        w->cur[i] = start[i];  /* an irregular address moves from here */
        w->row0[i] = start[i]; /* row 0's prediction */
    }
    w->code = p;
    w->nbytes = rec->nbytes;
    w->rows_left = rec->rows;
    w->nb = nb;
    w->per = per;
    w->nab = nab;
    w->nal = nal;
    w->active = true;
    return row_begin(w, true, why, len);
}

/* Begins the next row: its trip count and iteration-0 affine addresses. */
static int row_begin(struct rd_rows *w, bool first, char *why, size_t len)
{
    uint64_t trips, z;
    if (rd_varint(w->code, &w->pos, w->nbytes, &trips) < 0 || trips < 1 || trips > CHT_ROWS_TRIPS_MAX)
        return bad(w, why, len, "bad trip count");
    for (uint32_t i = 0; i < w->nal; i++) {
        if (w->irr[i])
            continue;
        if (rd_varint(w->code, &w->pos, w->nbytes, &z) < 0)
            return bad(w, why, len, "bad start difference");
        if (!first)
            w->row0[i] += w->trips * (uint64_t)w->step[i];
        w->row0[i] += (z >> 1) ^ (~(z & 1) + 1);
        w->cur[i] = w->row0[i];
    }
    w->trips = trips;
    w->it = 0;
    w->phase = 0;
    w->between = false;
    w->rows_left--;
    return 0;
}

static int row_end(struct rd_rows *w, char *why, size_t len);

/* Whether a row begins at code byte pos (as row_begin would read it). */
static bool row_begin_ok(const struct rd_rows *w, uint32_t pos)
{
    uint64_t trips, z;
    if (rd_varint(w->code, &pos, w->nbytes, &trips) < 0 || trips < 1 || trips > CHT_ROWS_TRIPS_MAX)
        return false;
    for (uint32_t i = 0; i < w->nal; i++)
        if (!w->irr[i] && rd_varint(w->code, &pos, w->nbytes, &z) < 0)
            return false;
    return true;
}

/* Whether what follows the current row, from code byte pos on, decodes
 * (as row_end and row_begin would take it, without changing w). */
static bool row_end_ok(const struct rd_rows *w, uint32_t pos)
{
    if (!w->rows_left)
        return pos == w->nbytes;
    if (w->nb)
        return true; /* the between records read no code */
    return row_begin_ok(w, pos);
}

/* After iteration 0 of the current row: whether its other iterations may
 * go as one repeat (rd_rows_take): the format's limits of a REPEAT_COL, the
 * code holds their columns, and what follows decodes, so that a corrupt
 * record still fails where expanding it record by record would. */
static bool can_take(const struct rd_rows *w)
{
    uint64_t n = w->trips - 1, bytes = 4 * n * w->nirr;
    return n * w->per <= CHT_REPEAT_COUNT_MAX && n * w->nirr <= CHT_REPEAT_COL_MAX &&
           w->pos + bytes <= w->nbytes && row_end_ok(w, w->pos + (uint32_t)bytes);
}

void rd_rows_take(struct rd_rows *w, int32_t *col)
{
    uint32_t n = w->take, m = n * w->nirr;
    char why[8];

    memcpy(col, w->code + w->pos, 4 * (size_t)m);
    w->pos += 4 * m;
    for (uint32_t j = 0, at = 0; j < n; j++)
        for (uint32_t i = 0; i < w->nal; i++)
            if (w->irr[i])
                w->cur[i] += (uint64_t)(int64_t)col[at++];
            else
                w->cur[i] += (uint64_t)w->step[i];
    w->it = w->trips;
    w->take = 0;
    (void)row_end(w, why, sizeof(why)); /* can_take checked it decodes */
}

int rd_rows_next(struct rd_rows *w, uint64_t out[2 + CHT_REPEAT_MAX_ADDRS], char *why, size_t len)
{
    uint32_t j;

    w->take = 0;
    if (w->between) {
        j = w->phase;
        rd_rows_emit(out, w->key[j], w->bcur + w->boff[j]);
        if (++w->phase == w->nb) {
            for (uint32_t i = 0; i < w->nab; i++)
                w->bcur[i] += (uint64_t)w->bstride[i];
            if (row_begin(w, false, why, len) < 0)
                return TRACE_ERR_FORMAT;
        }
        return 0;
    }
    if (w->phase == 0 && w->nirr) {
        /* the iteration's irregular addresses, in address order */
        for (uint32_t i = 0; i < w->nal; i++) {
            int32_t d;
            if (!w->irr[i])
                continue;
            if (w->pos + 4 > w->nbytes)
                return bad(w, why, len, "code ends in a column");
            memcpy(&d, w->code + w->pos, 4);
            w->pos += 4;
            w->cur[i] += (uint64_t)(int64_t)d;
        }
    }
    j = w->phase;
    rd_rows_emit(out, w->key[w->nb + j], w->cur + w->loff[j]);
    if (++w->phase < w->per)
        return 0;
    /* the iteration is done */
    w->phase = 0;
    for (uint32_t i = 0; i < w->nal; i++)
        if (!w->irr[i])
            w->cur[i] += (uint64_t)w->step[i];
    if (++w->it < w->trips) {
        if (w->it == 1 && can_take(w))
            w->take = (uint32_t)(w->trips - 1);
        return 0;
    }
    return row_end(w, why, len);
}

/* The row's last iteration is done: the between records, the next row or
 * the record's end. */
static int row_end(struct rd_rows *w, char *why, size_t len)
{
    if (!w->rows_left) {
        w->active = false;
        if (w->pos != w->nbytes)
            return bad(w, why, len, "code goes on after the last row");
        return 0;
    }
    if (w->nb) {
        w->between = true;
        return 0;
    }
    return row_begin(w, false, why, len) < 0 ? TRACE_ERR_FORMAT : 0;
}

int rd_rows_bulk(struct rd_rows *w, struct rd_rows_tables *t, uint64_t max_iters)
{
    uint64_t k = 0, its = 0;
    char why[8];

    t->between_last = false;
    t->itb[0] = 0;
    t->at[0] = 0;
    while (w->active && !w->between && w->it == 0 && w->phase == 0 && k < t->cap_rows && its < max_iters) {
        uint64_t n = w->trips, bytes = 4 * n * w->nirr;
        if (its + n > t->cap_iters || w->pos + bytes > w->nbytes ||
            (!w->rows_left && w->pos + bytes != w->nbytes) ||
            (w->rows_left && !w->nb && !row_begin_ok(w, w->pos + (uint32_t)bytes)))
            break; /* too long for the tables, or expanding the row reports what is wrong */
        t->trips[k] = n;
        for (uint32_t i = 0; i < w->nal; i++)
            if (!w->irr[i])
                t->slot[i][k] = w->row0[i];
        if (w->nirr) {
            const unsigned char *p = w->code + w->pos;
            for (uint64_t j = 0; j < n; j++)
                for (uint32_t i = 0; i < w->nal; i++) {
                    int32_t d;
                    if (!w->irr[i])
                        continue;
                    memcpy(&d, p, 4);
                    p += 4;
                    t->slot[i][its + j] = w->cur[i] += (uint64_t)(int64_t)d;
                }
            w->pos += (uint32_t)bytes;
        }
        for (uint32_t i = 0; i < w->nal; i++)
            if (!w->irr[i])
                w->cur[i] = w->row0[i] + n * (uint64_t)w->step[i];
        its += n;
        t->itb[k + 1] = its;
        t->at[k + 1] = t->at[k] + n * t->ni;
        t->between_last = false;
        w->it = n;
        w->phase = 0;
        k++;
        if (!w->rows_left) { /* the record's last row: its code ends here (checked) */
            (void)row_end(w, why, sizeof(why));
            break;
        }
        if (w->nb) {
            if (!row_begin_ok(w, w->pos)) {
                /* expanding the between records then reports the next row */
                w->between = true;
                break;
            }
            for (uint32_t i = 0; i < w->nab; i++)
                w->bcur[i] += (uint64_t)w->bstride[i];
            t->at[k] += t->nb;
            t->between_last = true;
        }
        (void)row_begin(w, false, why, sizeof(why)); /* checked: it decodes */
    }
    t->rows = k;
    return 0;
}
