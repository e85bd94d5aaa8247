#!/usr/bin/env bash
# bench/case-studies-repredict.sh DIR - predicts the case studies again,
# on the traces and plain timings a run of bench/case-studies.sh kept
# (KEEP=1 prints DIR), with the commhint of $B: for a change to the
# prediction model, without measuring again.  Writes the tables of
# case-studies.sh (per number of ranks) to standard output and, with
# JSON_OUT=FILE, its JSON rows with the new predictions.
set -eu -o pipefail
cd "$(dirname "$0")/.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
dir=${1:?usage: bench/case-studies-repredict.sh DIR (kept by KEEP=1 bench/case-studies.sh)}
[ -f "$dir/rows.jsonl" ] || { echo "bench/case-studies-repredict.sh: no rows.jsonl in $dir" >&2; exit 1; }
rows=$(jq -c -s '.[]' "$dir/rows.jsonl")
out=()
for np in $(jq -s -r '[.[].ranks] | unique | .[]' "$dir/rows.jsonl"); do
    echo
    echo "## $np ranks"
    echo
    echo "| case | args | before (s) | after (s) | saving | replay error | computation scale | predicted | measured - predicted (points) |"
    echo "|---|---|---|---|---|---|---|---|---|"
    while read -r row; do
        [ "$(jq .ranks <<<"$row")" = "$np" ] || continue
        c=$(jq -r .case <<<"$row") args=$(jq -r .args <<<"$row")
        tr="$dir/tr-$c-$np-$(tr ' ' _ <<<"$args")"
        list=$(jq -r '.hints | join(",")' <<<"$row")
        bm=$(jq .before_s <<<"$row")
        "$CH" hints "$tr" --all --format=json >"$dir/re.json" 2>/dev/null
        "$CH" hints "$tr" --all --predict="$list" --plain-time="${bm}s" --format=json >"$dir/re.pred.json" 2>/dev/null
        new=$(jq -c --slurpfile a "$dir/re.json" --slurpfile p "$dir/re.pred.json" \
            '. + {predicted_saving: ($p[0].model.applied_ns / $p[0].model.measured_ns),
                  replay_error: $a[0].model.error, compute_scale: $p[0].model.compute_scale}' <<<"$row")
        out+=("$new")
        jq -r '"| \(.case)\(if .held_out then " (held out)" else "" end) | \(.args) | \(.before_s * 1000 | round / 1000)"
               + " | \(.after_s * 1000 | round / 1000) | \(.measured_saving * 1000 | round / 10)%"
               + " | \(.replay_error * 1000 | round / 10)% | \(.compute_scale * 1000 | round / 1000)"
               + " | \(.predicted_saving * 1000 | round / 10)%"
               + " | \((.measured_saving - .predicted_saving) * 1000 | round / 10) |"' <<<"$new"
    done <<<"$rows"
done
if [ -n "${JSON_OUT:-}" ]; then printf '%s\n' "${out[@]}" | jq -s . >"$JSON_OUT"; fi
