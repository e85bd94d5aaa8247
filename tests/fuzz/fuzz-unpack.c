/* fuzz-unpack.c - libFuzzer harness for the wire format of `commhint hints
 * --parallel` (search_rank_result_unpack, search/parallel/pack.c): the input is
 * one packed rank result as another analysis process sends it.  Unpacking
 * must check every count and length against the bytes left; what unpacks
 * must pack again and unpack to the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct search_rank_result *r = NULL, *back = NULL;
    struct trace_err err;
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    int rc;

    err.msg[0] = '\0';
    rc = search_rank_result_unpack(data, size, &r, &err);
    if (rc < 0) {
        if (!err.msg[0]) {
            fprintf(stderr, "fuzz-unpack: unpack failed with status %d but no message\n", rc);
            abort();
        }
        return 0;
    }
    if (search_rank_result_pack(r, &a, &na) < 0)
        goto out;
    rc = search_rank_result_unpack(a, na, &back, &err);
    if (rc < 0) {
        fprintf(stderr, "fuzz-unpack: a repacked result does not unpack: %s\n", err.msg);
        abort();
    }
    if (search_rank_result_pack(back, &b, &nb) == 0 && (na != nb || memcmp(a, b, na))) {
        fprintf(stderr, "fuzz-unpack: pack(unpack(x)) is not stable: bytes=%zu and %zu\n", na, nb);
        abort();
    }
out:
    search_rank_result_free(r);
    search_rank_result_free(back);
    free(a);
    free(b);
    return 0;
}
