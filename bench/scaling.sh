#!/usr/bin/env bash
# bench/scaling.sh - how the tracing overhead, the trace size and the
# analysis grow with ranks and problem size.  bench/stencil.c (a 1-D
# stencil with a halo exchange every sweep), built plain and with commhint
# at -O2, runs on RANKS (default 2 4 8 16) ranks at each of SIZES (points per
# rank at 4 ranks, default 1e4 1e5 1e6; SWEEPS sweeps, default 20):
#   weak   the same points per rank on every rank count,
#   strong the same total points (4 x size) split over the ranks.
# Plain and traced runs alternate REPS times (default 3), medians compared;
# the last trace is analysed once by `commhint hints` (wall time and peak
# resident set, GNU time).  Writes bench/results/scaling.md and, with
# gnuplot, bench/results/scaling.png (overhead and analysis rate against
# ranks) and bench/results/analysis.png (from bench/results/analysis.md:
# rates and peak memory against trace length).  PLOTS_ONLY=1 redraws both
# plots from the tables in bench/results/ without measuring.
set -eu -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
CLANG=${CLANG:-clang-16}
REPS=${REPS:-3}
RANKS=${RANKS:-"2 4 8 16"}
SIZES=${SIZES:-"10000 100000 1000000"}
SWEEPS=${SWEEPS:-20}
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${PLOTS_ONLY:-}" ]; then
MPICH_CC=$CLANG mpicc -std=c11 -O2 -o "$tmp/plain" bench/stencil.c
CLANG=$CLANG "$CH" cc mpicc -O2 -o "$tmp/traced" bench/stencil.c

# seconds CMD...: wall time of one run (fails the script if the run fails)
seconds() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>"$tmp/err" || { echo "bench/scaling.sh: command failed: $*" >&2; cat "$tmp/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc -l
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
json() { grep -o "\"$1\":[0-9.]*" "$tmp/info.json" | head -1 | cut -d: -f2; }

# point MODE SIZE NP PER_RANK: one table row
point() {
    local mode=$1 size=$2 np=$3 per=$4 p=() t=() i x pm tm ratio ev bpa ht hm rate
    for ((i = 0; i < REPS; i++)); do
        x=$(seconds mpiexec -n "$np" "$tmp/plain" "$per" "$SWEEPS"); p+=("$x")
        rm -rf "$tmp/tr"
        x=$(COMMHINT_TRACE_DIR=$tmp/tr seconds mpiexec -n "$np" "$tmp/traced" "$per" "$SWEEPS"); t+=("$x")
    done
    pm=$(median "${p[@]}"); tm=$(median "${t[@]}")
    ratio=$(echo "$tm / $pm" | bc -l)
    "$CH" info "$tmp/tr" --format=json >"$tmp/info.json"
    ev=$(json events); bpa=$(json bytes_per_access)
    # GNU time for the peak memory; its wall time has only 10 ms resolution
    ht=$(seconds /usr/bin/time -f '%M' -o "$tmp/time" "$CH" hints "$tmp/tr")
    hm=$(cat "$tmp/time")
    rate=$(echo "$ev / $ht / 1000000" | bc -l)
    printf '| %s | %s | %d | %d | %s | %.3f | %.3f | %.2f | %s | %.2f | %.1f | %d |\n' "$mode" "$size" "$np" "$per" \
        "$ev" "$pm" "$tm" "$ratio" "$bpa" "$ht" "$rate" $((hm / 1024))
}

{
echo "# Scaling with ranks and problem size"
echo
echo "$(date -u +%Y-%m-%d), $(nproc) cores; load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
echo "bench/stencil.c at -O2, $SWEEPS sweeps; *size* = points per rank"
echo "at 4 ranks; *weak* keeps the points per rank, *strong* the total (4 x size). Plain and traced"
echo "(\`commhint cc\`, tracing to disk) wall times are medians of $REPS alternating runs, start-up"
echo "included; *hints* = one \`commhint hints\` of the last trace (one analysis thread), its rate"
echo "in million events per second and its peak resident set. **Ranks beyond $(nproc) oversubscribe the"
echo "$(nproc) cores: MPICH's busy-polling then dominates both runs, so the ratio falls with ranks for"
echo "reasons that have nothing to do with the instrumentation.**"
echo
echo "| scaling | size | ranks | points per rank | events | plain (s) | traced (s) | traced/plain | B/access | hints (s) | hints Mev/s | hints MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for size in $SIZES; do
    for np in $RANKS; do
        point weak "$size" "$np" "$size"
    done
    for np in $RANKS; do
        [ "$np" -ne 4 ] || continue   # the same run as weak at 4 ranks
        point strong "$size" "$np" $((size * 4 / np))
    done
done
echo
echo "Load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$out/scaling.md"
fi

if ! command -v gnuplot >/dev/null; then
    echo "bench/scaling.sh: gnuplot not found (make deps installs gnuplot-nox): no plots" >&2
    exit 0
fi
term='pngcairo size 1100,500 font "sans,10"'
gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo || term='png size 1100,500'

# scaling.png, from the table: one line per size and kind of scaling; the
# 4-rank run is shared.  $tmp/data: mode size ranks ratio B/access Mev/s MB
awk -F'|' '$4 ~ /^ *[0-9]+ *$/ { for (i = 2; i <= 13; i++) gsub(/ /, "", $i)
    print $2, $3, $4, $9, $10, $12, $13 }' "$out/scaling.md" >"$tmp/data"
SIZES=$(awk '{ print $2 }' "$tmp/data" | sort -un | tr '\n' ' ')
RANKS=$(awk '{ print $3 }' "$tmp/data" | sort -un | tr '\n' ' '); RANKS=${RANKS% }
SWEEPS=$(sed -n 's/.*-O2, \([0-9]*\) sweeps.*/\1/p' "$out/scaling.md")
for size in $SIZES; do
    for mode in weak strong; do
        awk -v s="$size" -v m="$mode" '$2 == s && ($1 == m || $3 == 4)' "$tmp/data" | sort -k3,3n \
            >"$tmp/d-$mode-$size"
    done
done
{
    echo "set terminal $term; set output '$out/scaling.png'"
    echo "set multiplot layout 1,2 title 'bench/stencil.c, $SWEEPS sweeps, on $(nproc) cores (solid: weak scaling, dashed: strong)'"
    lo=$(echo "$RANKS" | tr ' ' '\n' | sort -n | head -1); hi=$(echo "$RANKS" | tr ' ' '\n' | sort -n | tail -1)
    echo "set logscale x 2; set xrange [$lo / 1.25 : $hi * 1.25]; set xtics (${RANKS// /, })"
    echo "set key top left opaque; set offsets 0, 0, graph 0.3, 0; set grid"
    echo "set xlabel 'ranks'; set ylabel 'traced / plain wall time'; set yrange [0:*]"
    echo "set title 'Tracing overhead'"
    plot="plot"; c=1
    for size in $SIZES; do
        plot="$plot '$tmp/d-weak-$size' using 3:4 with linespoints lc $c dt 1 pt 7 title '$size points/rank',"
        plot="$plot '$tmp/d-strong-$size' using 3:4 with linespoints lc $c dt 2 pt 6 notitle,"
        c=$((c + 1))
    done
    echo "${plot%,}"
    echo "set ylabel 'million events per second'; set title 'commhint hints: analysis rate (one thread)'"
    plot=${plot%,}; echo "${plot//using 3:4/using 3:6}"
    echo "unset multiplot"
} >"$tmp/scaling.gp"
gnuplot "$tmp/scaling.gp"

# analysis.png from the table of bench/analysis.sh
if [ -f "$out/analysis.md" ]; then
    awk -F'|' '$2 ~ /^ *[0-9]+ *$/ {
        for (i = 2; i <= 12; i++) { gsub(/ /, "", $i); if ($i == "-" || $i == "—") $i = "NaN" }
        print $2, $4, $5, $6, $7, $11, $12, $9 }' "$out/analysis.md" >"$tmp/analysis.dat"
    # room above the highest point for the key (log scale)
    ymax=$(awk '{ for (i = 3; i <= 7; i += 2) if ($i != "NaN" && $i > m) m = $i } END { print (m > 0 ? m : 1) * 50 }' "$tmp/analysis.dat")
    xr=$(awk 'NR == 1 || $1 < lo { lo = $1 } $1 > hi { hi = $1 } END { print lo / 2 ":" hi * 2 }' "$tmp/analysis.dat")
    cat >"$tmp/analysis.gp" <<EOF
set terminal $term; set output '$out/analysis.png'
set multiplot layout 1,2 title 'commhint hints on traces of bench/stencil.c (2 ranks), one analysis thread'
set logscale x; set xrange [$xr]; set format x '10^{%L}'; set xlabel 'events in the trace'; set grid; set key top left opaque; set offsets 0, 0, graph 0.35, 0
set title 'Rate'; set ylabel 'million events per second'; set yrange [0:*]
plot '$tmp/analysis.dat' using 1:2 with linespoints pt 7 title 'read and decompress (commhint info)', \
     '' using 1:4 with linespoints pt 7 title 'hints (streaming engine on runs)', \
     '' using 1:8 with linespoints pt 7 title 'hints --expand-runs', \
     '' using 1:6 with linespoints pt 7 title 'hints --engine=reference'
set title 'Peak memory'; set ylabel 'MB (peak resident set)'; set logscale y; set offsets 0, 0, 0, 0; set yrange [1:$ymax]
plot '$tmp/analysis.dat' using 1:3 with linespoints pt 7 title 'read and decompress', \
     '' using 1:5 with linespoints pt 7 title 'hints (streaming engine)', \
     '' using 1:7 with linespoints pt 7 title 'hints --engine=reference'
unset multiplot
EOF
    gnuplot "$tmp/analysis.gp"
else
    echo "bench/scaling.sh: no $out/analysis.md (run bench/analysis.sh first): no analysis.png" >&2
fi
echo "bench/scaling.sh: wrote $out/scaling.md, $out/scaling.png, $out/analysis.png"
