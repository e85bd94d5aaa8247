#!/usr/bin/env bash
# bench/synth-scaling.sh - the baseline of issue 22: how `commhint hints`
# scales with the number of ranks, on synthetic traces (bench/synth-trace,
# docs/performance.md "Synthetic traces at scale") of the 2-D halo exchange
# with an MPI_Allreduce every 10 steps, for each P in SIZES (default 64 256
# 512 1024 4096), ITERS steps (default 100: about 9 MPI calls per rank and
# step).  For each P: the time and peak memory of writing the trace, then
# `commhint hints` serial and under `mpiexec -n K ... --parallel` for each K
# in PROCS (default 2 4 8; more than 2 oversubscribes a 2-core machine):
# wall time and peak resident memory (/usr/bin/time -f "%e %M"), and for
# the parallel runs each process's CPU time (user + system) and peak memory
# (process 0's and the largest of the others').
# One run each (the figures are minutes apart, not ratios of alternating
# runs: read them as orders of magnitude).  A command that fails, passes
# MEM_LIMIT_MB of virtual memory (default 12288) or TIMEOUT seconds
# (default 600) is reported as such, and the larger sizes of that
# configuration are skipped.  Writes bench/results/synth-scaling.md and,
# with gnuplot, bench/results/synth-scaling.png (time and peak memory per
# process against ranks); PLOT_ONLY=1 redraws the plot from the .md.
set -u -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
SYNTH=$B/bench/synth-trace
SIZES=${SIZES:-"64 256 512 1024 4096"}
ITERS=${ITERS:-100}
PROCS=${PROCS:-"2 4 8"}
MEM_LIMIT_MB=${MEM_LIMIT_MB:-12288}
TIMEOUT=${TIMEOUT:-600}
MPIEXEC=${MPIEXEC:-mpiexec}
out=bench/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# plot: synth-scaling.png from the table of synth-scaling.md: wall time and
# peak MB against ranks, serial and per K (process 0, and the largest of the
# others when the table has it).
plot() {
    command -v gnuplot >/dev/null || return 0
    local term='pngcairo size 1100,480 font "sans,10"' k plot1 plot2 c=2
    gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo || term='png size 1100,480'
    # rows: ranks mode wall MB others-MB (the ranks cell is carried to the
    # -n rows; others-MB: the largest process but 0, - for serial)
    awk -F'|' '$2 ~ /[0-9]/ { r = $2; gsub(/ /, "", r) }
        $6 ~ /serial|-n/ { m = $6; gsub(/ |-n/, "", m); split($7, v, " "); split($9, o, "/")
            mo = o[2]; gsub(/ /, "", mo); if (mo == "") mo = "-"
            if (v[1] ~ /^[0-9.]+$/) print r, m, v[1], v[2], mo }' "$out/synth-scaling.md" >"$tmp/plot.dat"
    [ -s "$tmp/plot.dat" ] || return 0
    awk '$2 == "serial"' "$tmp/plot.dat" >"$tmp/plot-serial"
    plot1="plot '$tmp/plot-serial' using 1:3 with linespoints lc 1 pt 7 title 'serial'"
    plot2="plot '$tmp/plot-serial' using 1:4 with linespoints lc 1 pt 7 title 'serial'"
    for k in $(awk '$2 != "serial" { print $2 }' "$tmp/plot.dat" | sort -un); do
        awk -v k="$k" '$2 == k' "$tmp/plot.dat" >"$tmp/plot-$k"
        plot1="$plot1, '$tmp/plot-$k' using 1:3 with linespoints lc $c pt 6 title '--parallel, $k processes'"
        plot2="$plot2, '$tmp/plot-$k' using 1:4 with linespoints lc $c pt 6 title '--parallel, $k processes: process 0'"
        if awk '$5 ~ /^[0-9]/ { f = 1 } END { exit !f }' "$tmp/plot-$k"; then
            plot2="$plot2, '$tmp/plot-$k' using 1:5 with linespoints lc $c pt 4 dt 2 title '... the largest other'"
        fi
        c=$((c + 1))
    done
    {
        echo "set terminal $term; set output '$out/synth-scaling.png'"
        echo "set multiplot layout 1,2 title 'commhint hints on bench/synth-trace halo-allreduce traces ($(sed -n 's/.*--iterations \([0-9]*\).*/\1/p' "$out/synth-scaling.md" | head -1) steps), $(nproc) cores'"
        echo "set logscale xy 2; set grid; set key top left; set xlabel 'ranks'"
        echo "set ylabel 'wall seconds'; set title 'Time'"
        echo "$plot1"
        echo "set ylabel 'MB'; set title 'Peak memory per process'"
        echo "$plot2"
        echo "unset multiplot"
    } >"$tmp/plot.gp"
    gnuplot "$tmp/plot.gp"
}
if [ "${PLOT_ONLY:-0}" = 1 ]; then
    plot
    exit 0
fi

for x in "$CH" "$SYNTH"; do
    [ -x "$x" ] || { echo "bench/synth-scaling.sh: $x is not built (make)" >&2; exit 1; }
done

# measure NAME CMD...: runs CMD under the limits; prints "wall peak-MB",
# or "fail <why>".  /usr/bin/time's figures go to $tmp/NAME.time.
measure() {
    local name=$1 rc
    shift
    (
        ulimit -v $((MEM_LIMIT_MB * 1024))
        timeout "$TIMEOUT" /usr/bin/time -f "%e %M %U %S" -o "$tmp/$name.time" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    )
    rc=$?
    if [ "$rc" = 124 ]; then
        echo "fail timeout-${TIMEOUT}s"
    elif [ "$rc" != 0 ]; then
        local why
        why=$(grep -v '^Command exited' "$tmp/$name.err" | grep -io 'out of memory\|cannot allocate[^:]*\|killed' | head -1)
        echo "fail exit-$rc${why:+ (${why// /-})}"
    else
        awk 'END { printf "%.2f %.0f\n", $1, $2 / 1024 }' "$tmp/$name.time"
    fi
}

# procstats PREFIX: "max-cpu-s mean-cpu-s peak-MB-of-process-0
# largest-peak-MB-of-the-others" over the per-process time files PREFIX.N
# (N the process)
procstats() {
    local f
    for f in "$1".*; do
        [ -e "$f" ] && echo "${f##*.} $(tail -n 1 "$f")"
    done | awk '
        NF >= 5 { c = $4 + $5; s += c; n++; if (c > mc) mc = c
                  if ($1 == 0) m0 = $3; else if ($3 > mo) mo = $3 }
        END { if (n) printf "%.2f %.2f %.0f %.0f\n", mc, s / n, m0 / 1024, mo / 1024; else print "- - - -" }'
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
rows=()
declare -A dead # configurations that failed: larger sizes are skipped
for p in $SIZES; do
    tr=$tmp/trace
    rm -rf "$tr"
    w=$(measure write-$p "$SYNTH" --ranks "$p" --iterations "$ITERS" --pattern halo-allreduce -o "$tr")
    if [[ $w == fail* ]]; then
        rows+=("| $p | | | $w | | | | |")
        continue
    fi
    mb=$(du -sm "$tr" | cut -f1)
    "$CH" info "$tr" --format=json >"$tmp/info.json" 2>/dev/null
    events=$(grep -o '"events": *[0-9]*' "$tmp/info.json" | head -1 | grep -o '[0-9]*$')
    echo "synth-scaling: $p ranks, $events events, $mb MB: written ($w)" >&2
    if [ -n "${dead[serial]:-}" ]; then
        s="skipped (${dead[serial]} at fewer ranks)"
    else
        s=$(measure serial-$p "$CH" hints "$tr" --stable)
        if [[ $s == fail* ]]; then
            dead[serial]=$s
        else
            s="$s $(awk '{ printf "%.2f", $3 + $4 }' "$tmp/serial-$p.time")"
        fi
    fi
    echo "synth-scaling: $p ranks: serial $s" >&2
    rows+=("| $p | $events | $mb | $w | serial | $s | | |")
    for k in $PROCS; do
        if [ -n "${dead[$k]:-}" ]; then
            rows+=("| $p | | | | -n $k | skipped (${dead[$k]} at fewer ranks) | | |")
            continue
        fi
        rm -f "$tmp/proc-$k-$p".*
        r=$(measure par-$k-$p "$MPIEXEC" -n "$k" sh -c \
            '/usr/bin/time -f "%e %M %U %S" -o "$0.${PMI_RANK:-0}" "$@"' "$tmp/proc-$k-$p" \
            "$CH" hints "$tr" --stable --parallel)
        if [[ $r == fail* ]]; then
            dead[$k]=$r
            rows+=("| $p | | | | -n $k | $r | | |")
        else
            # the figures mean nothing if the output is not the serial one
            if [ -s "$tmp/serial-$p.out" ] && ! cmp -s "$tmp/serial-$p.out" "$tmp/par-$k-$p.out"; then
                r="$r (output differs from serial!)"
            fi
            read -r mc ac m0 mo <<<"$(procstats "$tmp/proc-$k-$p")"
            rows+=("| $p | | | | -n $k | $r | $mc / $ac | $m0 / $mo |")
        fi
        echo "synth-scaling: $p ranks: -n $k $r" >&2
    done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

{
    echo "# Synthetic traces at scale: \`commhint hints\` against the number of ranks"
    echo
    echo "bench/synth-scaling.sh, $(date -u +%Y-%m-%d) on $(nproc) cores (load average before: $load0, after: $load1)."
    echo "Traces: \`bench/synth-trace --pattern halo-allreduce --iterations $ITERS\` (2-D halo,"
    echo "MPI_Allreduce every 10 steps, 8 KiB messages); MPI events only.  One run per cell;"
    echo "limits: ${MEM_LIMIT_MB} MB of virtual memory and ${TIMEOUT} s per command."
    echo "Run as: SIZES=\"$SIZES\" ITERS=$ITERS PROCS=\"$PROCS\" bash bench/synth-scaling.sh"
    echo
    echo "Columns: ranks; events in the trace; MB on disk; writing it (wall s, peak MB);"
    echo "the analysis (serial, or \`mpiexec -n K commhint hints --parallel\`); its wall s,"
    echo "peak MB of the largest process, and CPU s (serial: user + system; parallel: the"
    echo "busiest process / the mean per process); the parallel runs' peak MB of process 0"
    echo "(which still gathers every rank's log) and of the largest of the other processes."
    echo
    echo "| ranks | events | MB | write (s, MB) | analysis | wall s, peak MB, CPU s | CPU s per process (max / mean) | peak MB: process 0 / largest other |"
    echo "|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${rows[@]}"
} >"$out/synth-scaling.md"
cat "$out/synth-scaling.md"
plot
