#!/usr/bin/env bash
# tests/data/damaged/make.sh - rebuilds the damaged traces of
# tests/data/damaged/<case>/ from a fresh trace: prog.c (next to this
# script) built with `commhint cc` and traced on 2 ranks, then one copy of
# the trace per case, damaged in one way (mostly rank 1's stream), with a
# NOTE file saying what is wrong.
#
# The generated directories are committed: tests/e2e/damaged.sh reads them
# and never runs this script, so the test does not depend on MPI, clang or
# this generator.  Rerun it when the trace format changes (and commit the
# result; every case changes, since the run id is random), or to add a case:
#
#   make O=/tmp/b && B=/tmp/b bash tests/data/damaged/make.sh
#
# B is the build directory (default ./build).  Needs mpiexec, clang-16 and
# python3 (zstd through ctypes and libzstd.so.1, which libzstd-dev brings).
# The expected behaviour of every command on every case is in
# docs/reliability.md ("Damaged traces") and tests/e2e/damaged.sh.
set -eu
cd "$(dirname "$0")/../../.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
OUT=tests/data/damaged
TMP=$(mktemp -d "${TMPDIR:-/tmp}/commhint-damaged.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# relative source path: the site tables then name tests/data/damaged/prog.c
"$CH" cc mpicc -g -O1 -o "$TMP/prog" $OUT/prog.c
"$CH" run -n 2 -o "$TMP/fresh" -- "$TMP/prog" >/dev/null

python3 - "$TMP/fresh" "$OUT" <<'EOF'
import ctypes, os, shutil, struct, sys

fresh, out = sys.argv[1:3]
R0, R1, META = "rank-00000.chtr", "rank-00001.chtr", "commhint.meta"

zstd = ctypes.CDLL("libzstd.so.1")
zstd.ZSTD_isError.argtypes = [ctypes.c_size_t]
zstd.ZSTD_isError.restype = ctypes.c_uint
zstd.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
zstd.ZSTD_compressBound.restype = ctypes.c_size_t
zstd.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
zstd.ZSTD_decompress.restype = ctypes.c_size_t
zstd.ZSTD_createCCtx.restype = ctypes.c_void_p
zstd.ZSTD_CCtx_setParameter.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
zstd.ZSTD_compress2.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
                                ctypes.c_size_t]
zstd.ZSTD_compress2.restype = ctypes.c_size_t


def unzstd(data, raw_size):
    buf = ctypes.create_string_buffer(raw_size)
    n = zstd.ZSTD_decompress(buf, raw_size, data, len(data))
    assert not zstd.ZSTD_isError(n) and n == raw_size
    return buf.raw


def rezstd(raw):
    """As the runtime compresses: level 1, content size and checksum."""
    cctx = zstd.ZSTD_createCCtx()
    zstd.ZSTD_CCtx_setParameter(cctx, 100, 1)  # ZSTD_c_compressionLevel
    zstd.ZSTD_CCtx_setParameter(cctx, 200, 1)  # ZSTD_c_contentSizeFlag
    zstd.ZSTD_CCtx_setParameter(cctx, 201, 1)  # ZSTD_c_checksumFlag
    cap = zstd.ZSTD_compressBound(len(raw))
    buf = ctypes.create_string_buffer(cap)
    n = zstd.ZSTD_compress2(cctx, buf, cap, raw, len(raw))
    assert not zstd.ZSTD_isError(n)
    return buf.raw[:n]


def chunks(d):
    """(offset, header_size, stored_size, raw_size) of each chunk."""
    off, res = struct.unpack_from("<H", d, 12)[0], []
    while off + 32 <= len(d):
        magic, hs, _fl, stored, raw = struct.unpack_from("<IHHII", d, off)
        assert magic == 0x4B434843
        res.append((off, hs, stored, raw))
        off += hs + stored
    return res


def records(raw):
    off, res = 0, []
    while off < len(raw):
        typ, aux, size = struct.unpack_from("<HHI", raw, off)
        res.append((off, typ, size))
        off += size
    return res


def path(d, f):
    return os.path.join(d, f)


def rd(d, f):
    with open(path(d, f), "rb") as fp:
        return bytearray(fp.read())


def wr(d, f, data):
    with open(path(d, f), "wb") as fp:
        fp.write(data)


def patch(d, f, off, data):
    b = rd(d, f)
    b[off:off + len(data)] = data
    wr(d, f, b)


def cut(d, f, size):
    wr(d, f, rd(d, f)[:size])


# the layout every case relies on: metadata, events to MPI_Finalize, events
# after it, END
for f in (R0, R1):
    assert len(chunks(rd(fresh, f))) == 4, f
assert len(chunks(rd(fresh, META))) == 1
C1 = chunks(rd(fresh, R1))


def truncated(d):
    off, hs, stored, _ = C1[2]
    cut(d, R1, off + hs + stored // 2)


def cut_chunk_header(d):
    cut(d, R1, C1[2][0] + 10)


def corrupt_chunk(d):
    off, hs, stored, _ = C1[1]
    b = rd(d, R1)
    mid = off + hs + stored // 2
    for i in range(mid, mid + 4):
        b[i] ^= 0xFF
    wr(d, R1, b)


def chunk_past_end(d):
    patch(d, R1, C1[1][0] + 8, struct.pack("<I", len(rd(d, R1)) * 4))


def record_past_end(d):
    b = rd(d, R1)
    off, hs, stored, rawsz = C1[1]
    raw = bytearray(unzstd(bytes(b[off + hs:off + hs + stored]), rawsz))
    roff, _typ, _size = records(raw)[2]
    raw[roff + 4:roff + 8] = struct.pack("<I", rawsz - roff + 64)
    z = rezstd(bytes(raw))
    hdr = bytearray(b[off:off + hs])
    hdr[8:12] = struct.pack("<I", len(z))
    wr(d, R1, b[:off] + hdr + z + b[off + hs + stored:])


def meta_corrupt(d):
    off, hs, stored, _ = chunks(rd(d, META))[0]
    b = rd(d, META)
    mid = off + hs + stored // 2
    for i in range(mid, mid + 4):
        b[i] ^= 0xFF
    wr(d, META, b)


def meta_truncated(d):
    off, hs, stored, _ = chunks(rd(d, META))[0]
    cut(d, META, off + hs + stored // 2)


# each NOTE names the byte offset the readers report, as "offset N" (the
# only number after the word offset: tests/e2e/damaged.sh reads it)
CASES = [
    ("truncated", "rank-00001.chtr is cut in the middle of the payload of its third chunk, at offset %d (a writer killed while writing)" % C1[2][0], truncated),
    ("cut-chunk-header", "rank-00001.chtr is cut 10 bytes into the header of its third chunk, at offset %d" % C1[2][0], cut_chunk_header),
    ("cut-file-header", "rank-00001.chtr is cut 40 bytes into its 64-byte file header, at offset 0",
     lambda d: cut(d, R1, 40)),
    ("empty-rank", "rank-00001.chtr is empty (0 bytes; its header would be at offset 0)", lambda d: cut(d, R1, 0)),
    ("missing-rank", "rank-00001.chtr is missing", lambda d: os.remove(path(d, R1))),
    ("bad-magic", "rank-00001.chtr starts with XXXXXXXX instead of the magic CHTRANK, at offset 0",
     lambda d: patch(d, R1, 0, b"XXXXXXXX")),
    ("future-version", "rank-00001.chtr says version 99, oldest readable version 99, at offset 8",
     lambda d: patch(d, R1, 8, struct.pack("<HH", 99, 99))),
    ("other-run", "rank-00001.chtr has another run id than commhint.meta, at offset 24 (a file from another run)",
     lambda d: patch(d, R1, 24, struct.pack("<Q", struct.unpack_from("<Q", rd(d, R1), 24)[0] ^ 0x5A5A5A5A5A5A5A5A))),
    ("wrong-rank", "rank-00001.chtr is a copy of rank-00000.chtr: its header says rank 0, at offset 32",
     lambda d: shutil.copyfile(path(d, R0), path(d, R1))),
    ("corrupt-chunk", "rank-00001.chtr has 4 bytes flipped in the middle of the compressed payload of its second chunk, at offset %d" % C1[1][0], corrupt_chunk),
    ("chunk-past-end", "rank-00001.chtr: the header of its second chunk, at offset %d, says stored_size is 4 times the file size (past the end)" % C1[1][0], chunk_past_end),
    ("record-past-end", "rank-00001.chtr: its second chunk, at offset %d (recompressed, checksum valid), holds a third record whose size runs 64 bytes past the chunk end" % C1[1][0], record_past_end),
    ("trailing-garbage", "rank-00001.chtr has 100 bytes of 0xab after its END chunk, from offset %d" % len(rd(fresh, R1)),
     lambda d: wr(d, R1, rd(d, R1) + b"\xab" * 100)),
    ("missing-meta", "commhint.meta is missing (the rank files are there)", lambda d: os.remove(path(d, META))),
    ("empty-meta", "commhint.meta is empty (0 bytes; its header would be at offset 0)", lambda d: cut(d, META, 0)),
    ("meta-corrupt", "commhint.meta has 4 bytes flipped in the middle of the compressed payload of its only chunk, at offset 64", meta_corrupt),
    ("meta-truncated", "commhint.meta is cut in the middle of its only chunk, at offset 64 (program and site tables lost)", meta_truncated),
]

for name, note, damage in CASES:
    dst = os.path.join(out, name)
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(fresh, dst)
    damage(dst)
    with open(os.path.join(dst, "NOTE"), "w") as fp:
        fp.write(note + "\n")
    print("  %-18s %s" % (name, note))
EOF
