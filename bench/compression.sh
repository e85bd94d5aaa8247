#!/usr/bin/env bash
# bench/compression.sh - traces the Jacobi example (-O2, 4 ranks, a larger
# grid) and compares chunk codecs on its raw records; writes
# bench/results/compression.md.  Run by `make bench`.
set -eu
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
out=bench/results
mkdir -p "$out"
dir=$(mktemp -d)/jacobi.trace
"$B/bin/commhint" run -n 4 -o "$dir" -- "$B/examples/O2/jacobi" 128 50 >/dev/null
{
    echo "# Chunk compression on a real trace"
    echo
    echo "Jacobi example, -O2, 4 ranks, n=128, 50 sweeps; $(date -u +%Y-%m-%d); $(nproc) cores."
    echo
    "$B/bench/compress-chunks" "$dir"
} >"$out/compression.md"
cat "$out/compression.md"
rm -rf "$(dirname "$dir")"
