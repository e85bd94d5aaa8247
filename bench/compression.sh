#!/usr/bin/env bash
# bench/compression.sh - traces the Jacobi example (-O2, 4 ranks, a larger
# grid: JACOBI_ARGS, default "128 50") twice, as it is traced by default
# (strided runs encoded as REPEAT records) and with COMMHINT_RUNS=0 (every
# record stored, what irregular code that does not repeat looks like), and
# compares chunk codecs on the raw records of each trace
# (bench/compress-chunks: ratio, and compression and decompression speed
# in MB of raw records per second, one thread); writes
# bench/results/compression.md.  Run by `make bench`.
set -eu -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
JACOBI_ARGS=${JACOBI_ARGS:-"128 50"}
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
    echo "# Chunk compression on a real trace"
    echo
    echo "Jacobi example, -O2, 4 ranks, arguments $JACOBI_ARGS (n, sweeps); $(date -u +%Y-%m-%d); $(nproc) cores;"
    echo "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg). Speeds are MB of raw records per"
    echo "second of one thread."
    for runs in 1 0; do
        rm -rf "$tmp/jacobi.trace"
        # shellcheck disable=SC2086
        COMMHINT_RUNS=$runs "$B/bin/commhint" run -n 4 -o "$tmp/jacobi.trace" -- "$B/examples/O2/jacobi" $JACOBI_ARGS >/dev/null
        echo
        if [ "$runs" = 1 ]; then
            echo "## As traced by default (runs encoded as REPEAT records)"
        else
            echo "## With COMMHINT_RUNS=0 (every record stored)"
        fi
        echo
        "$B/bench/compress-chunks" "$tmp/jacobi.trace" | sed 's|, trace .*|.|'
        echo
        echo "Trace on disk: $(du -sb "$tmp/jacobi.trace" | cut -f1) bytes."
    done
} >"$out/compression.md"
cat "$out/compression.md"
