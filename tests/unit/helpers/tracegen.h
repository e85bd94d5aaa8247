/* tracegen.h - writes synthetic commhint trace files (file header, zstd
 * chunks, records, site tables) so that reader tests do not depend on the
 * runtime, plus small file helpers for damaging them on purpose.
 */
#ifndef COMMHINT_TRACEGEN_H
#define COMMHINT_TRACEGEN_H

#include <stddef.h>
#include <stdint.h>

#include "trace-format.h"

struct tg_file;

/* Creates a trace file with a version-1 file header (magic CHT_MAGIC_META or
 * CHT_MAGIC_RANK).  Aborts the test program on I/O errors. */
struct tg_file *tg_create(const char *path, const char *magic, uint64_t run_id, int rank,
                          int world_size);
/* Writer thread of the following records (flushes the pending chunk if it
 * changes). */
void tg_thread(struct tg_file *f, uint32_t thread);
/* Appends a record: header (type, aux, size = 8 + body_len padded to 8) and
 * body. */
void tg_rec(struct tg_file *f, uint16_t type, uint16_t aux, const void *body, size_t body_len);
/* Appends raw bytes as they are (for malformed records). */
void tg_raw(struct tg_file *f, const void *bytes, size_t len);
/* Writes the pending records as one chunk; returns the chunk's file offset. */
uint64_t tg_flush(struct tg_file *f);
/* Seq the next chunk will carry (tests can make gaps). */
void tg_set_seq(struct tg_file *f, uint64_t seq);
/* Flushes and closes. */
void tg_close(struct tg_file *f);

/* Record helpers. */
void tg_comp(struct tg_file *f, uint32_t site, uint16_t n, const uint64_t *addr);
void tg_ranges(struct tg_file *f, uint32_t site, uint16_t n, const struct cht_range *r);
void tg_loop(struct tg_file *f, int kind, uint32_t loop);
void tg_mpi(struct tg_file *f, const struct cht_rec_mpi *m); /* m->h is filled in */
void tg_complete(struct tg_file *f, int recv, uint64_t request, int32_t src, int32_t tag,
                 uint64_t bytes, uint64_t rseq);
void tg_blocks(struct tg_file *f, int side, uint32_t count, const struct cht_block *b);
void tg_comm(struct tg_file *f, uint16_t call, uint64_t comm, uint64_t parent, uint32_t size,
             int32_t my_rank, const int32_t *world_ranks);
void tg_module(struct tg_file *f, uint64_t base, uint64_t start, uint64_t end,
               const uint8_t *build_id, uint32_t build_id_len, const char *path);
void tg_tu(struct tg_file *f, uint64_t key, uint32_t site_base, uint32_t nsites,
           uint32_t loop_base, uint32_t nloops);
void tg_clock(struct tg_file *f, int which, uint64_t mono, uint64_t real, double wtime);
void tg_lost(struct tg_file *f, uint16_t why, uint64_t records);
void tg_end(struct tg_file *f, uint64_t records, uint32_t threads, int32_t exit_status);
void tg_program(struct tg_file *f, const uint8_t *build_id, uint32_t build_id_len, int argc,
                const char *const *argv, int32_t world_size);
void tg_site_table(struct tg_file *f, const void *blob, uint32_t blob_size);

/* A site table blob laid out header, sites, loops, accesses, strings, with
 * tu_key computed (FNV-1a over the blob with the key zeroed).  `strings` is
 * the string area (strings_size bytes, starting with "").  Returns a
 * malloc'd blob and its size. */
uint8_t *tg_table(const struct cht_site *sites, uint32_t nsites, const struct cht_loop *loops,
                  uint32_t nloops, const struct cht_access *acc, uint32_t naccess,
                  const char *strings, uint32_t strings_size, uint32_t *size_out);
/* The same with a cost section (site table version 3): costs[nsites]. */
uint8_t *tg_table_costs(const struct cht_site *sites, uint32_t nsites, const struct cht_loop *loops,
                        uint32_t nloops, const struct cht_access *acc, uint32_t naccess,
                        const uint32_t *costs, const char *strings, uint32_t strings_size,
                        uint32_t *size_out);
/* Recomputes tu_key after a test changed the blob. */
void tg_table_rekey(uint8_t *blob, uint32_t size);

/* A fresh temporary directory (malloc'd path) and its recursive removal. */
char *tg_tmpdir(void);
void tg_rmdir(const char *dir);
/* Overwrites bytes of a file at an offset; truncates a file. */
void tg_patch(const char *path, uint64_t off, const void *bytes, size_t len);
void tg_truncate(const char *path, uint64_t size);
uint64_t tg_file_size(const char *path);
/* "dir/name" in a static buffer of 8 rotating slots. */
const char *tg_path(const char *dir, const char *name);

#endif /* COMMHINT_TRACEGEN_H */
