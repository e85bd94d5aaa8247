#!/usr/bin/env bash
# Every command that reads traces (info, dump, hints, hints --format=json,
# export, and the viewer with --screenshot when it can run) on the committed
# damaged traces of tests/data/damaged/<case>/ (each NOTE says what is
# wrong and, as "offset N", where; made by tests/data/damaged/make.sh):
# never a signal, never a hang, and the behaviour decided per case in
# docs/reliability.md ("Damaged traces"):
#   cut      a rank stream cut short (truncated, or a length past the end of
#            the file, which a reader cannot tell from a cut): exit 0, what
#            was recorded is used, one warning naming the file (and for info
#            and dump the offset; hints says what hints --parallel can say);
#   missing  no rank file: exit 0, the rank is left out with one warning;
#   badrank  one rank's file is unreadable (bad magic, newer version,
#            another run or rank, corrupt chunk, malformed record, garbage):
#            info and dump exit 1 with one error sentence naming the file
#            and offset (after showing the other ranks); hints and export
#            leave the rank out with one warning naming them and exit 0;
#   badtrace the meta file is missing or unreadable: exit 1 with one error
#            sentence naming commhint.meta (and the offset when it has one);
#   metacut  the meta file is cut short: exit 0 with one warning naming it
#            and the offset; sites of the site tables lost are unknown.
source "$(dirname "$0")/lib.sh"
D=tests/data/damaged
T=${DAMAGED_TIMEOUT:-60}

declare -A CLASS=(
    [truncated]=cut [cut-chunk-header]=cut [cut-file-header]=cut [empty-rank]=cut [chunk-past-end]=cut
    [missing-rank]=missing
    [bad-magic]=badrank [future-version]=badrank [other-run]=badrank [wrong-rank]=badrank
    [corrupt-chunk]=badrank [record-past-end]=badrank [trailing-garbage]=badrank
    [missing-meta]=badtrace [empty-meta]=badtrace [meta-corrupt]=badtrace
    [meta-truncated]=metacut
)

n=0
for dir in "$D"/*/; do
    c=$(basename "$dir")
    n=$((n + 1))
    [ -n "${CLASS[$c]:-}" ] || { not_ok "$c: has an expected behaviour in damaged.sh" "add it to CLASS"; continue; }
    [ -s "$dir/NOTE" ] && [ "$(wc -l <"$dir/NOTE")" -eq 1 ] && ok "$c: NOTE is one line" ||
        not_ok "$c: NOTE is one line" "$(cat "$dir/NOTE" 2>&1)"
done
expect_eq "every class of damage has committed cases (${#CLASS[@]} cases)" "$n" "${#CLASS[@]}"

# check_one CASE LABEL CMD...: runs CMD on the case with a timeout and
# checks exit status and stderr against the case's class.
check_one() {
    local c=$1 label=$2; shift 2
    local dir=$D/$c class=${CLASS[$c]} off file want rc err lines
    off=$(grep -oE 'offset [0-9]+' "$dir/NOTE" | grep -oE '[0-9]+')
    case $c in *meta*) file=commhint.meta ;; *) file=rank-00001.chtr ;; esac
    timeout "$T" "$@" >"$WORK/out" 2>"$WORK/err"
    rc=$?
    RC=$rc
    # the summary line of hints and export is not a diagnostic
    err=$(grep -vE '^[0-9]+ hints? \(|^exported ' "$WORK/err")
    lines=$(printf '%s' "$err" | grep -c .)
    if [ "$rc" -eq 124 ] || [ "$rc" -ge 128 ]; then
        not_ok "$c: $label: no signal, no hang" "status $rc" "$err"
        return
    fi
    ok "$c: $label: no signal, no hang (status $rc)"
    case $class:$label in
    badtrace:*) want=1 ;;
    badrank:info | badrank:dump) want=1 ;;
    *) want=0 ;;
    esac
    expect_eq "$c: $label: exit status $want" "$rc" "$want"
    expect_eq "$c: $label: exactly one diagnostic line on stderr" "$lines" 1
    if [ "$want" = 1 ]; then
        expect_match "$c: $label: it is an error sentence" "$err" '^commhint: error: [a-z][^:]*: '
    else
        expect_match "$c: $label: it is a warning" "$err" '^commhint: warning: '
        expect_no_match "$c: $label: no error" "$(cat "$WORK/err")" 'error'
    fi
    expect_match "$c: $label: it names the file" "$err" "(file=|dir=)$D/$c/$file|dir=$D/$c .*$file"
    if [ -n "$off" ] && ! { [ "$class" = cut ] && [[ $label == hints* || $label == export ]]; }; then
        expect_match "$c: $label: it names the byte offset $off" "$err" " offset=$off( |$)"
    fi
    case $class in
    cut) expect_match "$c: $label: it says rank 1 was cut short" "$err" 'rank 1 was cut short' ;;
    missing) expect_match "$c: $label: it says rank 1 has no stream file" "$err" 'rank 1 has no stream file' ;;
    badrank) [ "$want" = 0 ] && expect_match "$c: $label: it says rank 1 is left out" "$err" 'rank 1 could not be analysed and is left out' ;;
    metacut) expect_match "$c: $label: it says the meta file was cut short" "$err" 'meta file was cut short' ;;
    esac
}

for dir in "$D"/*/; do
    c=$(basename "$dir")
    [ -n "${CLASS[$c]:-}" ] || continue
    check_one "$c" info "$CH" info "$D/$c"
    check_one "$c" dump "$CH" dump "$D/$c"
    check_one "$c" hints "$CH" hints "$D/$c"
    check_one "$c" "hints --format=json" "$CH" hints --format=json "$D/$c"
    if [ "$RC" = 0 ]; then
        python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/out" 2>/dev/null &&
            ok "$c: hints --format=json: the output is JSON" || not_ok "$c: hints --format=json: the output is JSON" "$(head -c 300 "$WORK/out")"
    fi
    check_one "$c" export "$CH" export "$D/$c"
done

# What is valid is used: the facts behind "analysing what it recorded".
# truncated: rank 1 lost only events after MPI_Finalize, so every message
# still matches and both ranks' hints are there.
js=$("$CH" hints --format=json "$D/truncated" 2>/dev/null)
got=$(python3 -c 'import json,sys; d=json.load(sys.stdin); u=d["unmatched"]; print(sorted({r for h in d["hints"] for r in h["ranks"]}), u["sends"] + u["recvs"])' <<<"$js" 2>&1)
expect_eq "truncated: hints hold on both ranks and no message is unmatched" "$got" "[0, 1] 0"
info=$("$CH" info --format=json "$D/truncated" 2>/dev/null)
got=$(python3 -c 'import json,sys; r=json.load(sys.stdin)["ranks"][1]; print(r["status"], r["mpi_events"] > 0, r["comp_events"] > 0)' <<<"$info" 2>&1)
expect_eq "truncated: info shows rank 1 cut short with its MPI and computation events" "$got" "cut-short True True"
n0=$("$CH" dump --rank 1 "$D/truncated" 2>/dev/null | grep -c 'MPI_Recv')
expect_eq "truncated: dump shows rank 1's 4 receives" "$n0" 4
# a damaged rank does not hide the others: dump still prints rank 0 whole
n0=$("$CH" dump "$D/corrupt-chunk" 2>/dev/null | grep -c ' MPI_Send rank=0 ')
expect_eq "corrupt-chunk: dump still prints rank 0's 4 sends" "$n0" 4
txt=$("$CH" info "$D/bad-magic" 2>/dev/null)
expect_match "bad-magic: info still summarises rank 0 and marks rank 1 damaged" "$txt" '^ +1 .* damaged$'
expect_match "bad-magic: info's rank 0 is complete" "$txt" '^ +0 .* complete$'
# empty and cut-in-header rank files: cut short before anything was recorded
got=$("$CH" info --format=json "$D/empty-rank" 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["ranks"][1]; print(r["status"], r["comp_events"] + r["mpi_events"])' 2>&1)
expect_eq "empty-rank: rank 1 is cut short with no events" "$got" "cut-short 0"

# The viewer (optional: needs Xvfb and the GTK build), on a private Xvfb
# (lib.sh, xvfb_start): same exit status as hints, one line on stderr when
# it fails.
GUI=$B/bin/commhint-gui
if ! command -v Xvfb >/dev/null 2>&1 || [ ! -x "$GUI" ]; then
    echo "ok - commhint-gui on damaged traces # SKIP Xvfb or commhint-gui missing"
elif ! xvfb_start 2>"$WORK/xvfb.err"; then
    not_ok "commhint-gui on damaged traces: a private Xvfb starts" "$(cat "$WORK/xvfb.err")"
else
    export XDG_CONFIG_HOME=$WORK/config NO_AT_BRIDGE=1
    for c in truncated missing-rank bad-magic corrupt-chunk meta-corrupt missing-meta; do
        timeout "$T" "$GUI" "$D/$c" --screenshot "$WORK/shot.png" >/dev/null 2>"$WORK/err"
        rc=$?
        case ${CLASS[$c]} in badtrace) want=1 ;; *) want=0 ;; esac
        expect_eq "$c: commhint-gui --screenshot: exit status $want, no signal or hang" "$rc" "$want"
        if [ "$want" = 1 ]; then
            expect_eq "$c: commhint-gui: one error line" "$(grep -c 'error' "$WORK/err")" 1
        else
            expect_match "$c: commhint-gui: a warning about rank 1" "$(cat "$WORK/err")" 'warning: rank 1 '
        fi
    done
fi
