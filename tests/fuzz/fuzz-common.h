/* fuzz-common.h - the input format of the fuzz harnesses (tests/fuzz/) and
 * the scratch trace directory they unpack it into.
 *
 * The readers open trace directories, not buffers, so one fuzz input holds
 * the files of a whole trace directory:
 *
 *   input   := mode:u8 section*
 *   section := len:u32le bytes[len]     ; a len past the end takes what is left
 *
 * Section 0 is commhint.meta, section k (k >= 1) is rank-(k-1)'s stream
 * rank-NNNNN.chtr; at most 1 + FZ_MAX_RANKS sections are used.  With
 * FZ_MODE_RAW in mode, the files hold chunks whose payload is the raw
 * records (raw_size bytes right after the chunk header): fz_write_dir
 * compresses each into a zstd frame and sets stored_size and raw_size, so
 * that mutations reach the record decoders instead of failing zstd's
 * checksum.  Without it the files are written as they are (chunk framing
 * and zstd are fuzzed then).  The other mode bits are harness options.
 */
#ifndef COMMHINT_FUZZ_COMMON_H
#define COMMHINT_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define FZ_MAX_RANKS 8
#define FZ_MODE_RAW 0x01u       /* chunk payloads stored raw (above) */
#define FZ_MODE_REFERENCE 0x02u /* fuzz-hints: also the reference engine (small traces) */
#define FZ_MODE_HORIZON 0x04u   /* fuzz-hints: a horizon of 64 events */

struct fz_files {
    unsigned mode;
    int nranks;     /* rank files written: ranks 0 .. nranks-1 */
    int have_meta;  /* commhint.meta written */
};

/* Writes the files an input holds into dir, removing those an earlier
 * input left that this one does not have.  Returns 0, or -1 with errno
 * (the directory is then in an unknown state). */
int fz_write_dir(const uint8_t *data, size_t size, const char *dir, struct fz_files *out);

/* A scratch directory for this process (under $COMMHINT_FUZZ_TMP, else
 * /dev/shm if writable, else /tmp), created on first use and removed with
 * its files at exit.  Aborts if it cannot be created. */
const char *fz_scratch_dir(void);

/* Appends a section to a growing input buffer (fuzz-pack). */
struct fz_buf {
    uint8_t *p;
    size_t n, cap;
};
int fz_buf_put(struct fz_buf *b, const void *p, size_t n);
int fz_put_section(struct fz_buf *b, const void *p, size_t n);

#endif /* COMMHINT_FUZZ_COMMON_H */
