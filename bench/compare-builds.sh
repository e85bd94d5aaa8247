#!/usr/bin/env bash
# bench/compare-builds.sh - whether two builds of commhint trace the same
# events: every bundled example (the builds' own binaries in
# <build>/examples/O0 and O2) on 2 and 4 ranks, and bench/spmv.c and
# bench/particles.c (small runs, built by each build's `commhint cc` at -O2)
# on 2 ranks, traced by each build with address randomisation off.  For
# each trace pair: `commhint dump --stable --loops` (this build's reader on
# both traces: it reads the other build's format too) must be identical,
# (compared by digest and line count) and `commhint hints --stable --all
# --format=json --explain --waits` (each build's on its own trace)
# byte-identical.  All 70 comparisons take about 13 minutes.  Used when a change of the
# runtime or the trace format must leave the events alone (issue 20's rows
# of loop nests, trace format 10, against the build before).
#   bash bench/compare-builds.sh OTHER_BUILD_DIR [B=this build]
# Prints one line per comparison and "N same, N differ"; exit status 1 if
# any differs.
set -u -o pipefail
cd "$(dirname "$0")/.."
OTHER=${1:?usage: compare-builds.sh OTHER_BUILD_DIR}
B=${B:-$PWD/build}
ROOT_THIS=$PWD
ROOT_OTHER=$(cd "$OTHER/.." && pwd) # the build directory's source tree
CLANG=${CLANG:-clang-16}
export COMMHINT_FLUSH_MS=0
norand=()
setarch "$(uname -m)" -R true 2>/dev/null && norand=(setarch "$(uname -m)" -R)
tmp=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
same=0
differ=0

# dumpof SIDE: this build's dump of $tmp/SIDE/t, run in the source tree of
# that side's program ($SRC_OTHER or $ROOT_THIS): the dump shows the paths
# below the current directory relative to it, so the two sides' paths
# compare without an edit of every line (sed doubled the time)
SRC_OTHER=$ROOT_OTHER
dumpof() {
    local root=$ROOT_THIS
    [ "$1" = other ] && root=$SRC_OTHER
    (cd "$root" && "$B/bin/commhint" dump "$tmp/$1/t" --stable --loops 2>&1)
}

# compare NAME NP BIN_OTHER BIN_THIS [ARGS...]
compare() {
    local name=$1 np=$2 bo=$3 bt=$4 d
    shift 4
    for side in other this; do
        d=$tmp/$side
        rm -rf "$d" && mkdir -p "$d"
        local ch=$B/bin/commhint bin=$bt
        [ "$side" = other ] && ch=$OTHER/bin/commhint bin=$bo
        # the same relative trace name: the hints' JSON names it
        (cd "$d" && "$ch" run -n "$np" -o t -- "${norand[@]}" "$bin" "$@" >run.out 2>run.err) ||
            { echo "DIFFER $name: the $side build's run failed"; differ=$((differ + 1)); return; }
        # each build's examples come from its own source tree
        # (a digest and a line count, not the dump: the O0 halo_staging one
        # is 40 million lines)
        dumpof "$side" | python3 -c 'import hashlib, sys
h, n = hashlib.md5(), 0
for b in iter(lambda: sys.stdin.buffer.read(1 << 20), b""):
    h.update(b)
    n += b.count(b"\n")
print(h.hexdigest(), n)' >"$d/dump"
        (cd "$d" && "$ch" hints t --stable --all --format=json --explain --waits 2>&1) |
            sed -e "s#$ROOT_OTHER/#SRC/#g" -e "s#$ROOT_THIS/#SRC/#g" >"$d/hints"
    done
    if cmp -s "$tmp/other/dump" "$tmp/this/dump" && cmp -s "$tmp/other/hints" "$tmp/this/hints"; then
        echo "same   $name ($(cut -d' ' -f2 "$tmp/this/dump") dump lines, trace $(cat "$tmp/other/t"/*.chtr | wc -c) -> $(cat "$tmp/this/t"/*.chtr | wc -c) bytes)"
        same=$((same + 1))
    else
        echo "DIFFER $name"
        cmp -s "$tmp/other/dump" "$tmp/this/dump" || diff <(dumpof other) <(dumpof this) | head -5
        diff "$tmp/other/hints" "$tmp/this/hints" | head -5
        differ=$((differ + 1))
    fi
}

for O in O0 O2; do
    for src in examples/*.c examples/*.cpp; do
        ex=$(basename "${src%.*}")
        [[ "$ex" == *${ONLY:-}* ]] || continue
        [ -x "$OTHER/examples/$O/$ex" ] && [ -x "$B/examples/$O/$ex" ] || { echo "skip   $ex $O: not built"; continue; }
        for np in 2 4; do
            compare "$ex $O np=$np" "$np" "$OTHER/examples/$O/$ex" "$B/examples/$O/$ex"
        done
    done
done
SRC_OTHER=$ROOT_THIS # both sides build bench/ of this tree
for p in spmv particles; do
    [[ "$p" == *${ONLY:-}* ]] || continue
    for side in other this; do
        bd=$OTHER
        [ "$side" = this ] && bd=$B
        mkdir -p "$tmp/bin-$side"
        CLANG=$CLANG "$bd/bin/commhint" cc mpicc -std=c11 -g -O2 -o "$tmp/bin-$side/$p" "bench/$p.c" -lm ||
            { echo "DIFFER $p: the $side build does not build it"; differ=$((differ + 1)); continue 2; }
    done
    args="3000 8 3"
    [ "$p" = particles ] && args="2000 2"
    # shellcheck disable=SC2086
    compare "$p -O2 np=2" 2 "$tmp/bin-other/$p" "$tmp/bin-this/$p" $args
done
echo "$same same, $differ differ"
[ "$differ" -eq 0 ]
