#!/usr/bin/env bash
# tests/fuzz/make-seeds.sh - regenerates the seed corpus tests/fuzz/corpus/
# from real traces: small test programs and examples are built with
# `commhint cc`, traced with `commhint run`, and packed with fuzz-pack
# (format in tests/fuzz/fuzz-common.h).  `make fuzz-seeds` runs it:
#   B=<build dir> bash tests/fuzz/make-seeds.sh
#
# Per trace:
#   reader/NAME-file   the trace files as written (chunk framing, zstd; only
#                      for the traces in WHOLE, to keep the corpus small)
#   reader/NAME-raw    payloads decompressed, ~2 KiB of events per rank
#   hints/NAME-raw     the same with ~4 KiB per rank, reference engine on
#   unpack/NAME-r0     rank 0's packed analysis result (hints --parallel)
#                      of the hints/NAME-raw trace
# The programs are built in a temporary directory that is removed, so the
# binaries the traces name do not exist when the seeds are read:
# symbolisation fails the same way on every machine.
set -eu
cd "$(dirname "$0")/../.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
PACK=$B/fuzz/fuzz-pack
for f in "$CH" "$PACK"; do
    [ -x "$f" ] || { echo "make-seeds: $f is missing (make all fuzz-build)" >&2; exit 1; }
done
OUT=tests/fuzz/corpus
W=$(mktemp -d "${TMPDIR:-/tmp}/commhint-seeds.XXXXXX")
trap 'rm -rf "$W"' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1
rm -rf "$OUT/reader" "$OUT/hints" "$OUT/unpack"
mkdir -p "$OUT/reader" "$OUT/hints" "$OUT/unpack"

# seed NAME SOURCE RANKS [ARGS...]
seed() {
    local name=$1 src=$2 np=$3
    shift 3
    "$CH" cc mpicc -g -O2 -o "$W/$name" "$src" -lm
    # a program that dies on purpose (crash.c) leaves a trace cut short
    "$CH" run -n "$np" -o "$W/$name.trace" -- "$W/$name" "$@" >/dev/null 2>&1 || true
    [ -f "$W/$name.trace/commhint.meta" ] || { echo "make-seeds: $name left no trace" >&2; exit 1; }
    case " $WHOLE " in *" $name "*) "$PACK" "$OUT/reader/$name-file" "$W/$name.trace" ;; esac
    "$PACK" --raw --max-raw=2048 "$OUT/reader/$name-raw" "$W/$name.trace"
    "$PACK" --raw --mode=2 --max-raw=4096 "$OUT/hints/$name-raw" "$W/$name.trace"
    "$PACK" --unpack "$OUT/hints/$name-raw" "$W/$name.small"
    "$PACK" --result "$OUT/unpack/$name-r0" "$W/$name.small" 0
}

# (not late-sender: it spins on the clock, so the faster the tracing, the
# more loop records its whole trace holds: 87 million with packs, 18 s in
# the ASan harness, past its 10 s limit)
WHOLE="hints-basic deadlock facts crash master-worker well-written"

P=tests/e2e/programs
seed hints-basic $P/hints-basic.c 2
seed deadlock $P/deadlock.c 2
seed late-sender $P/late-sender.c 2
seed facts $P/facts.c 2
seed crash $P/crash.c 4 segv
seed collectives $P/collectives.c 4
seed mpi-calls $P/mpi-calls.c 4
seed well-written $P/well-written.c 2
seed jacobi examples/jacobi.c 2
seed small-sends examples/small_sends.c 2
seed gather $P/gather.c 2 16 3
seed master-worker examples/master_worker.c 2
# rows of a loop nest (CHT_REC_ROWS), which the reader hands over as runs of rows
seed rows $P/rows.c 2 200 1 spmv
# whole traces for the hints harness too (small ones: they run slowly), and
# one with a short horizon
"$PACK" --mode=2 "$OUT/hints/deadlock-file" "$W/deadlock.trace"
"$PACK" --mode=2 "$OUT/hints/hints-basic-file" "$W/hints-basic.trace"
"$PACK" --raw --mode=4 --max-raw=4096 "$OUT/hints/late-sender-horizon" "$W/late-sender.trace"
du -sh "$OUT"/*
