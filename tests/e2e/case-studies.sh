#!/usr/bin/env bash
# The case studies (docs/case-studies.md): each example and its improved
# version examples/<name>_after.c, written by applying commhint's hints.
# For every pair:
#  - both print the same result, traced (instrumented -O2, default sizes)
#    and plain for other sizes, edge cases included;
#  - the original gets the hints that were applied, at the lines that were
#    changed (so this test fails if the tool stops finding them);
#  - the improved version gets no hint of that kind at the lines that
#    replace them (nonblocking calls and their waits, merged messages, real
#    collectives), and its trace has those calls (so a version that is not
#    traced cannot pass);
#  - `commhint hints` exits 0 on both with its summary and valid JSON, and
#    an absent hint counts only if it did (so a failing run cannot pass).
source "$(dirname "$0")/lib.sh"

flat() { python3 tests/e2e/hints-flat.py; }

# run_hints NAME: `commhint hints` on the trace $WORK/NAME; one flat line
# per hint, "<kind> <call> <file>:<line> ...", in $WORK/NAME.hints.  Checks
# that it exits 0, prints its summary on stderr ("N hints (...") and one
# valid JSON document; only then is $WORK/NAME.hints-ok created, without
# which no_hint cannot say that a hint is absent.
run_hints() {
    local n=$1 what="$1: hints exits 0, with its summary and a valid JSON document" rc fl frc
    rm -f "$WORK/$n.hints-ok"
    "$CH" hints "$WORK/$n" --format=json --stable >"$WORK/$n.json" 2>"$WORK/$n.hints-err"
    rc=$?
    fl=$(flat <"$WORK/$n.json" 2>&1)
    frc=$?
    printf '%s\n' "$fl" >"$WORK/$n.hints"
    if [ "$rc" -eq 0 ] && [ "$frc" -eq 0 ] && grep -qE '^[0-9]+ hints? \(' "$WORK/$n.hints-err"; then
        ok "$what"
        touch "$WORK/$n.hints-ok"
    else
        not_ok "$what" "exit status $rc; stderr:" "$(head -5 "$WORK/$n.hints-err")" "output:" "$(head -3 <<<"$fl")"
    fi
}

# no_hint WHAT NAME ERE: hints ran cleanly on NAME (run_hints) and none of
# its hints matches ERE.
no_hint() {
    if [ -e "$WORK/$2.hints-ok" ]; then
        expect_no_match "$1" "$(cat "$WORK/$2.hints")" "$3"
    else
        not_ok "$1" "commhint hints did not run cleanly on $2 (see the check above)"
    fi
}

# lines FILE ERE: the line numbers of FILE matching ERE, as "l1|l2|..."
lines() { grep -nE -- "$2" "$1" | cut -d: -f1 | paste -sd'|'; }

# calls_of DIR: "MPI_X:n ..." from commhint info
calls_of() { "$CH" info "$1" --format=json | grep -o '"mpi_calls":{[^}]*}'; }

# pair NAME ARGS...: traces NAME and NAME_after (-O2, default sizes) into
# $WORK/NAME and $WORK/NAME_after, checks that they print the same, then
# compares plain builds for each extra argument set ("a b" words).
pair() {
    local ex=$1; shift
    local b=$B/examples/O2/$ex a=$B/examples/O2/${ex}_after
    [ -x "$b" ] && [ -x "$a" ] || { not_ok "$ex: instrumented binaries exist" "$b" "$a"; return 1; }
    trace_run "$WORK/$ex" "$NP" "$b"
    expect_eq "$ex: traced run exits 0" "$?" 0
    trace_run "$WORK/${ex}_after" "$NP" "$a"
    expect_eq "${ex}_after: traced run exits 0" "$?" 0
    expect_eq "${ex}_after: same output as $ex (traced, default sizes)" "$(sed '$d' "$WORK/${ex}_after.out")" \
        "$(sed '$d' "$WORK/$ex.out")"
    local x
    for x in "$ex" "${ex}_after"; do
        if ! out=$(mpicc -std=c11 -O2 -o "$WORK/plain-$x" "examples/$x.c" -lm 2>&1); then
            not_ok "$x: plain build" "$out"; return 1
        fi
    done
    for args in "$@"; do
        # shellcheck disable=SC2086
        want=$(mpiexec -n "$NP" "$WORK/plain-$ex" $args 2>&1)
        # shellcheck disable=SC2086
        got=$(mpiexec -n "$NP" "$WORK/plain-${ex}_after" $args 2>&1)
        expect_eq "${ex}_after: same output as $ex for args $args" "$got" "$want"
    done
}

# ---- jacobi: overlap of the halo exchange ------------------------------------------
J=examples/jacobi.c JA=examples/jacobi_after.c
pair jacobi "6 5 1" "10 7 3" "33 20 4"
run_hints jacobi
run_hints jacobi_after
h=$(cat "$WORK/jacobi.hints")
expect_match "jacobi: the halo receives can overlap (the hint applied)" "$h" \
    "^overlap MPI_Recv [^ ]*jacobi.c:($(lines "$J" 'MPI_Recv\(')) "
expect_match "jacobi: the halo sends can overlap (the hint applied)" "$h" \
    "^overlap MPI_Send [^ ]*jacobi.c:($(lines "$J" 'MPI_Send\(')) "
# u and unew swap every sweep: a receive started in the sweep before
# must go into the other array, and the fix says so
jx=$(python3 -c '
import json, sys
for x in json.load(open(sys.argv[1]))["hints"]:
    s = x["fix"].get("start", {})
    if x["kind"] == "overlap" and x["call"] == "MPI_Recv" and s.get("other_iteration"):
        print(x["line"], ",".join(s.get("next_call_differs", [])), x["fix"]["text"])' "$WORK/jacobi.json")
expect_match "jacobi: a receive is started in the sweep before" "$jx" "^($(lines "$J" 'MPI_Recv\(')) "
expect_eq "jacobi: every such start takes the other array" \
    "$(grep -cv ' buffer-alternates .*with the next call.s arguments (its buffer alternates between two from one call to the next: the buffer the next call gets, not this one.s)' <<<"$jx")" 0
# the update loop holds the rows that read the halos and the ones that do
# not: the wait goes before it, and the fix says to split it
js=$(python3 -c '
import json, sys
for x in json.load(open(sys.argv[1]))["hints"]:
    w = x["fix"].get("wait", {})
    if x["kind"] == "overlap" and x["call"] == "MPI_Recv" and w.get("loop"):
        print(x["line"], w["line"], w.get("split_loop", False), x["fix"]["text"].split("; ")[-1])' "$WORK/jacobi.json")
expect_match "jacobi: a receive is waited for before the update loop" "$js" "^($(lines "$J" 'MPI_Recv\(')) "
expect_eq "jacobi: every such wait says to split that loop" \
    "$(grep -cv ' True the computation that can run before the wait is inside the loop at line [0-9]*: split it, running before the wait the part that does not need the data ([0-9]* of [0-9]* executions)$' <<<"$js")" 0
# the receives run under `if (down < size)` / `if (up >= 0)`, and their
# waits go before the update loop, outside those ifs: the fix says to
# keep the condition and make the wait harmless where the call did not run
jc=$(python3 -c '
import json, sys
for x in json.load(open(sys.argv[1]))["hints"]:
    f = x["fix"]
    if x["kind"] == "overlap" and x["call"] == "MPI_Recv" and f["wait"]["where"] != "at":
        print(x["line"], f["conditional"], "null" if "set its request to MPI_REQUEST_NULL before that condition, so that the wait returns at once where the call did not run" in f["text"] else "-")' "$WORK/jacobi.json")
expect_match "jacobi: a receive is waited for away from its if" "$jc" "^($(lines "$J" 'MPI_Recv\(')) "
expect_eq "jacobi: every such receive is conditional, and the fix makes its wait harmless" \
    "$(grep -cv ' True null$' <<<"$jc")" 0
no_hint "jacobi_after: no overlap hint at the nonblocking exchange or its waits" jacobi_after \
    "^overlap [^ ]+ [^ ]*jacobi_after.c:($(lines "$JA" 'MPI_(Isend|Irecv|Waitall)\(')) "
expect_match "jacobi_after: the trace has the nonblocking calls" "$(calls_of "$WORK/jacobi_after")" \
    '"MPI_Isend":[1-9].*"MPI_Irecv":[1-9].*"MPI_Waitall":[1-9]|"MPI_Irecv":[1-9].*"MPI_Isend":[1-9]'

# ---- gauss: look-ahead (overlap of the pivot rows) -----------------------------------
G=examples/gauss.c GA=examples/gauss_after.c
pair gauss "1" "5" "37"
run_hints gauss
run_hints gauss_after
h=$(cat "$WORK/gauss.hints")
expect_match "gauss: the pivot row's receive can overlap (the hint applied)" "$h" \
    "^overlap MPI_Recv [^ ]*gauss.c:$(lines "$G" 'MPI_Recv\(&pivot\[k\]') "
expect_match "gauss: the pivot row's sends can overlap (the hint applied)" "$h" \
    "^overlap MPI_Send [^ ]*gauss.c:$(lines "$G" 'MPI_Send\(&prow\[k\]') "
# on 4 ranks the step before a receive is another rank's in 2 of 3 steps,
# and its elimination still reads the pivot row there: no window before
# the call, so the receive cannot start in the step before
gx=$(python3 -c '
import json, sys
for x in json.load(open(sys.argv[1]))["hints"]:
    if x["kind"] == "overlap" and x["call"] == "MPI_Recv" and "needs-buffer" not in x["flags"]:
        print(x["line"], x["fix"]["start"]["where"], x["fix"]["start"]["other_iteration"])' "$WORK/gauss.json")
expect_match "gauss: the pivot row's receive starts where it is" "$gx" "^$(lines "$G" 'MPI_Recv\(&pivot\[k\]') at False$"
# the pivot row and x[n-1] go to the same rank one after the other only
# at the end of the elimination and the start of back substitution: an
# aggregation of those lines holds on a few of their calls, and says so
ga=$("$CH" hints "$WORK/gauss" --all --format=json 2>/dev/null | python3 -c '
import json, sys
for x in json.load(sys.stdin)["hints"]:
    if x["kind"] == "aggregate":
        print(x["members"], x["site_calls"], ",".join(x["flags"]), x["fix"]["text"][:40])')
expect_match "gauss: the pivot and x sends of the last step can be one message" "$ga" "^[0-9]+ [0-9]+ "
expect_eq "gauss: every such hint holds on fewer calls than its lines make, and says so" \
    "$(awk '!($1 < $2 && $3 ~ /some-iterations/ && $4 " " $5 " " $6 " " $7 " " $8 == "for the calls it holds")' <<<"$ga")" ""
# (the MPI_Waitall of the sends before back substitution is left out: on
# the owner of row n-1 it can still wait one statement later, x[n-1],
# computed from a row that was never sent, which is right and negligible)
no_hint "gauss_after: no overlap hint at the pivot row's Isend, Irecv or Wait" gauss_after \
    "^overlap [^ ]+ [^ ]*gauss_after.c:($(lines "$GA" 'MPI_(Isend\(&prow|Irecv\(&pbuf|Wait\(&rreq)')) "
expect_match "gauss_after: the trace has the nonblocking calls" "$(calls_of "$WORK/gauss_after")" \
    '"MPI_Wait":[1-9]'
expect_match "gauss_after: and the sends start early" "$(calls_of "$WORK/gauss_after")" '"MPI_Isend":[1-9]'
ibc=$("$CH" hints "$WORK/gauss_after" --format=json 2>/dev/null | python3 -c '
import json, sys
line = int(sys.argv[1])
print(" ".join(h["collective"] for h in json.load(sys.stdin)["hints"] if h["kind"] == "collective" and h["line"] == line))' \
    "$(lines "$GA" 'MPI_Isend\(&prow')")
expect_eq "gauss_after: the Isend/Irecv pivot rows are an MPI_Ibcast (nonblocking, as the calls it replaces)" "$ibc" MPI_Ibcast

# ---- master_worker: real collectives ---------------------------------------------------
M=examples/master_worker.c MA=examples/master_worker_after.c
pair master_worker "12 3" "400 7"
run_hints master_worker
run_hints master_worker_after
h=$(cat "$WORK/master_worker.hints")
for c in MPI_Bcast MPI_Scatter MPI_Gather MPI_Reduce; do
    got=$("$CH" hints "$WORK/master_worker" --format=json --stable --kind=collective 2>/dev/null |
        python3 -c 'import json,sys; print(sorted({h["collective"] for h in json.load(sys.stdin)["hints"]}))')
    expect_match "master_worker: a hand-written $c (the hint applied)" "$got" "'$c'"
done
expect_match "master_worker: the two sends to one rank can be one message" "$h" \
    "^aggregate MPI_Send [^ ]*master_worker.c:$(lines "$M" 'MPI_Send\(params') "
no_hint "master_worker_after: no collective hint" master_worker_after "^collective "
no_hint "master_worker_after: no aggregation hint" master_worker_after "^aggregate "
expect_match "master_worker_after: the trace has the collectives" "$(calls_of "$WORK/master_worker_after")" \
    '"MPI_Bcast":[1-9]'
for c in MPI_Scatter MPI_Gather MPI_Reduce; do
    expect_match "master_worker_after: and $c" "$(calls_of "$WORK/master_worker_after")" "\"$c\":[1-9]"
done

# ---- halo_staging: faces packed into one staging buffer; a buffer per message ----------
H=examples/halo_staging.c
pair halo_staging "5 3 2" "50 40 30" "7 1 0"
run_hints halo_staging
run_hints halo_staging_after
h=$(cat "$WORK/halo_staging.hints")
expect_match "halo_staging: the staged sends can be one message (the hint applied)" "$h" \
    "^aggregate MPI_Send [^ ]*halo_staging.c:$(lines "$H" 'MPI_Send\(') "
expect_match "halo_staging: only with a buffer per message (needs-buffer)" \
    "$(python3 -c 'import json,sys; print("\n".join(",".join(x["flags"]) for x in json.load(open(sys.argv[1]))["hints"] if x["kind"] == "aggregate"))' "$WORK/halo_staging.json")" \
    "needs-buffer"
expect_match "halo_staging: names the staging buffer's pack" "$(cat "$WORK/halo_staging.json")" \
    "the send buffer at line $(lines "$H" 'MPI_Send\(') is overwritten at halo_staging.c:$(lines "$H" 'stage\[j\] = ')"
no_hint "halo_staging_after: no aggregation hint" halo_staging_after "^aggregate "
# the overlap of the staged send (docs/dependence.md, "Needs a buffer per
# message"): as it is, only the last field's send has a forward window;
# with a buffer per message every send's window runs past the next pack
# "overlap <line> <flags> <instances> <with_window> <buffer line> <overwritten at> | <message>"
ov_sends() {
    python3 -c '
import json, sys
for x in json.load(open(sys.argv[1]))["hints"]:
    if x["kind"] == "overlap" and x["call"] == "MPI_Send":
        b, o = x.get("buffer") or {}, x.get("overwritten_at") or {}
        print("overlap %d %s %d %d %s %s:%s | %s" % (x["line"], ",".join(x["flags"]) or "-", x["instances"],
              x["with_window"], b.get("line", "-"), o.get("file", "-").rsplit("/", 1)[-1], o.get("line", "-"),
              x["message"]))' "$1"
}
HS=$(lines "$H" 'MPI_Send\(') HP=$(lines "$H" 'stage\[j\] = ')
ov=$(ov_sends "$WORK/halo_staging.json")
expect_match "halo_staging: the staged send's plain overlap holds on a third of its calls" "$ov" \
    "^overlap $HS [^ ]*some-iterations[^ ]* $((300 * NP)) $((100 * NP)) - -:- \| "
# (its fix waits for each send before the next one, the last right after
# the loop over the fields: what it overlaps is the next field's pack)
expect_match "halo_staging: with a buffer per message it holds on all calls, past the pack (needs-buffer)" "$ov" \
    "^overlap $HS conditional,needs-buffer $((300 * NP)) $((300 * NP)) $HS halo_staging.c:$HP \| MPI_Send can overlap with the computation at line $HP if each message gets its own buffer \(needs a buffer per message: the send buffer at line $HS is overwritten at halo_staging.c:$HP; ranks 0-$((NP - 1))\)\$"
expect_eq "halo_staging: one variant" "$(printf '%s\n' "$ov" | grep -c needs-buffer)" 1
# the fix of the receive, whose windows mostly reach the horizon (no
# statement bounds them): the update's first row reads the row just
# received, so the wait goes before the update loop, not after its line
# (docs/dependence.md, "The fix"); the plain send's edit is for the calls
# its hint holds on
# HU: the field loop around the update (the last `for f` line above it)
HR=$(lines "$H" 'MPI_Recv\(')
# HF: the loop over the fields that makes the receives (the line above it)
HF=$((HR - 1))
HU=$(awk '/for \(int f = 0; f < NF; f\+\+\) \{$/ { f = NR } /v\[f\]\[i \* C \+ j\] = / { print f; exit }' "$H")
fx=$(python3 -c '
import json, sys
for x in json.load(open(sys.argv[1]))["hints"]:
    if x["kind"] == "overlap" and "needs-buffer" not in x["flags"]:
        w = x["fix"]["wait"]
        print("%d %s %d %s | %s" % (x["line"], w["where"], w["line"], w["loop"], x["fix"]["text"]))' "$WORK/halo_staging.json")
expect_match "halo_staging: the receive is waited for right before the update loop" "$fx" \
    "^$HR before $HU True \| (for the calls it holds on, )?start the MPI_Recv as MPI_Irecv where it is \(line $HR\), and MPI_Wait for it right before the loop at line $HU; the loop at line $HF makes the call several times: start each where it is, one request each, and wait for them all with MPI_Waitall; the call runs on some paths only \(an if around it, or an earlier return\): set its request to MPI_REQUEST_NULL before that condition, so that the wait returns at once where the call did not run\$"
expect_match "halo_staging: the plain send's edit is for the calls it holds on" "$fx" \
    "^$HS [a-z]+ [0-9]+ [A-Za-z]+ \| for the calls it holds on, start the MPI_Send as MPI_Isend "
# the improved version packs into a buffer of its own that nothing
# overwrites before the next step's pack; the receive into that same
# buffer in the other turn is the only overwrite left (a variant may name
# it, never the pack)
HAS=$(lines examples/halo_staging_after.c 'MPI_Send\(') HAR=$(lines examples/halo_staging_after.c 'MPI_Recv\(')
ova=$(ov_sends "$WORK/halo_staging_after.json")
expect_no_match "halo_staging_after: no needs-buffer overlap variant ended by its pack" "$ova" \
    "needs-buffer .* halo_staging_after.c:$(lines examples/halo_staging_after.c 'pack\[f \* C \+ j\] = ') \|"
expect_match "halo_staging_after: its one-message send keeps its plain overlap hint" "$ova" "^overlap $HAS [^ ]+ [0-9]+ [0-9]+ - -:- \| "
expect_eq "halo_staging_after: any variant names the receive into the shared buffer" \
    "$(printf '%s\n' "$ova" | grep needs-buffer | grep -vc " halo_staging_after.c:$HAR |")" 0
calls=$(calls_of "$WORK/halo_staging_after")
expect_match "halo_staging_after: the trace has one send per step and rank" "$calls" "\"MPI_Send\":$((100 * NP))[,}]"

# ---- small_sends: one message per step, overlapped; one Gatherv ----------------------
S=examples/small_sends.c SA=examples/small_sends_after.c
pair small_sends "9 3" "1001 13"
run_hints small_sends
run_hints small_sends_after
h=$(cat "$WORK/small_sends.hints")
expect_match "small_sends: the five sends can be one message (the hint applied)" "$h" \
    "^aggregate MPI_Send [^ ]*small_sends.c:($(lines "$S" 'MPI_Send\(')) "
# The receives: on the odd ranks the first receive moves above the header
# and the previous step's work together with its guards (`size == 1`,
# `rank % 2 == 0`: its companions, evaluated right before it), which is
# what the rewrite to Irecv/Isend/Waitall did; the sends' buffer pointers
# (`edge[s] = &c[s][nloc]`) are never listed as movable past a receive.
expect_match "small_sends: the receives can overlap (the hint applied)" "$h" \
    "^overlap MPI_Recv [^ ]*small_sends.c:($(lines "$S" 'MPI_Recv\(')) "
no_hint "small_sends: no receive hint lists the send buffers' pointers" small_sends \
    "^overlap MPI_Recv [^ ]*small_sends.c:($(lines "$S" 'MPI_Recv\(')) .*related=(.*,)?($(lines "$S" 'edge\[s\] = ')):"
expect_match "small_sends: the four MPI_Gatherv can be one (the hint applied)" "$h" \
    "^collective MPI_Gatherv [^ ]*small_sends.c:$(lines "$S" 'MPI_Gatherv\(') "
no_hint "small_sends_after: no aggregation hint" small_sends_after "^aggregate "
no_hint "small_sends_after: no overlap hint at the nonblocking exchange or its wait" small_sends_after \
    "^overlap [^ ]+ [^ ]*small_sends_after.c:($(lines "$SA" 'MPI_(Isend|Irecv|Waitall)\(')) "
no_hint "small_sends_after: no collective hint" small_sends_after "^collective "
calls=$(calls_of "$WORK/small_sends_after")
expect_match "small_sends_after: the trace has one send per step" "$calls" '"MPI_Isend":200[,}]'
expect_match "small_sends_after: and one MPI_Gatherv per rank" "$calls" '"MPI_Gatherv":4[,}]'

# ---- pipeline (held out): the wavefront's receive posted early, its source in the window ----
P=examples/pipeline.c PA=examples/pipeline_after.c
pair pipeline "5 3 1" "7 4 7" "100 30 3" "64 500 2"
run_hints pipeline
run_hints pipeline_after
h=$(cat "$WORK/pipeline.hints")
expect_match "pipeline: the block's source can run before the receive's wait (the hint applied)" "$h" \
    "^overlap MPI_Recv [^ ]*pipeline.c:$(lines "$P" 'MPI_Recv\(') .*related=(.*,)?$(lines "$P" 'src\[i \* w \+ j\] = '):after"
expect_match "pipeline: the boundary's send can overlap (the hint applied)" "$h" \
    "^overlap MPI_Send [^ ]*pipeline.c:$(lines "$P" 'MPI_Send\(') "
no_hint "pipeline_after: no overlap hint at the nonblocking receive, send or their waits" pipeline_after \
    "^overlap [^ ]+ [^ ]*pipeline_after.c:($(lines "$PA" 'MPI_(Isend|Irecv|Wait)\(')) "
calls=$(calls_of "$WORK/pipeline_after")
expect_match "pipeline_after: the trace has the nonblocking receives" "$calls" '"MPI_Irecv":[1-9]'
expect_match "pipeline_after: and sends" "$calls" '"MPI_Isend":[1-9]'

# ---- ring_allgather (held out): the ring is one MPI_Allgather of x and y packed ----------
R=examples/ring_allgather.c
pair ring_allgather "4 0" "8 3" "128 7"
run_hints ring_allgather
run_hints ring_allgather_after
h=$(cat "$WORK/ring_allgather.hints")
for l in $(lines "$R" 'MPI_Sendrecv\(' | tr '|' ' '); do
    got=$(python3 -c '
import json, sys
print(" ".join(sorted({h["collective"] for h in json.load(open(sys.argv[1]))["hints"]
                       if h["kind"] == "collective" and h["line"] == int(sys.argv[2])})))' "$WORK/ring_allgather.json" "$l")
    expect_eq "ring_allgather: the ring of MPI_Sendrecv at line $l is an MPI_Allgather (the hint applied)" "$got" MPI_Allgather
done
expect_match "ring_allgather: the x and y exchanges of a round can be one message (the hint applied)" "$h" \
    "^aggregate MPI_Sendrecv [^ ]*ring_allgather.c:($(lines "$R" 'MPI_Sendrecv\(')) "
no_hint "ring_allgather_after: no collective hint" ring_allgather_after "^collective "
no_hint "ring_allgather_after: no aggregation hint" ring_allgather_after "^aggregate "
calls=$(calls_of "$WORK/ring_allgather_after")
expect_match "ring_allgather_after: the trace has one MPI_Allgather per exchange" "$calls" "\"MPI_Allgather\":$((11 * NP))[,}]"
expect_no_match "ring_allgather_after: and no MPI_Sendrecv" "$calls" '"MPI_Sendrecv"'

# ---- commhint compare on every pair (docs/compare.md) --------------------------------------
# compared NAME SPEC...: `commhint compare --all` of NAME and NAME_after
# (JSON and text) exits 0 with its summary; every SPEC "KIND CALL LINES"
# (CALL "*": any; LINES an ERE of lines of examples/NAME.c) names a hint of
# NAME that is gone and none that remains; the run's change is the one
# measured on the two traces, and the first run's replay predicts a
# saving for the gone hints.
compared() {
    local n=$1; shift
    local out err rc
    out=$("$CH" compare --all --format=json "$WORK/$n" "$WORK/${n}_after" 2>"$WORK/$n.compare-err")
    rc=$?
    expect_eq "$n: compare exits 0" "$rc" 0
    expect_match "$n: compare prints its summary" "$(cat "$WORK/$n.compare-err")" \
        '^[0-9]+ hints? gone, [0-9]+ remains?, [0-9]+ new; run [-+][0-9.]+% \(traced runs\)'
    printf '%s\n' "$out" >"$WORK/$n.compare.json"
    python3 - "$WORK/$n.compare.json" "$n" "$@" <<'PY'
import json, re, sys
path, name, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
def check(what, cond, detail=""):
    print(("ok - " if cond else "not ok - ") + name + ": compare: " + what)
    if not cond and detail:
        for line in str(detail).splitlines()[:12]:
            print("# " + line)
try:
    c = json.load(open(path))
except Exception as e:
    check("one valid JSON document", False, e)
    sys.exit(0)
hs = c["hints"]
def show(h):
    b = h["before"] or h["after"]
    return "%s %s %s %s:%d" % (h["status"], h["kind"], b["call"], b["file"], b["line"])
for spec in specs:
    kind, call, lines = spec.split(" ", 2)
    def named(h):
        b = h["before"]
        return (b and h["kind"] == kind and (call == "*" or b["call"] == call)
                and b["file"].endswith("/%s.c" % name) and re.fullmatch(lines, str(b["line"])))
    gone = [h for h in hs if named(h) and h["status"] == "gone"]
    kept = [h for h in hs if named(h) and h["status"] == "remains"]
    check("the applied %s hint of %s at line %s is gone" % (kind, call, lines), gone,
          "\n".join(map(show, hs)))
    check("no %s hint of %s at line %s remains" % (kind, call, lines), not kept, "\n".join(map(show, kept)))
b, a = c["before"], c["after"]
check("both runs' times are measured", b["run_ns"] > 0 and a["run_ns"] > 0, (b, a))
want = (a["run_ns"] - b["run_ns"]) / b["run_ns"]
check("the run's change is the measured one", abs(c["run_change"] - want) < 1e-5, (c["run_change"], want))
p = c["prediction"]
check("the first run's replay applies the gone hints", p and p["hints_applied"] >= 1 and p["saving_ns"] >= 0, p)
check("the counts are the listed hints'", [c["gone"], c["remain"], c["new"]] ==
      [sum(h["status"] == s for h in hs) for s in ("gone", "remains", "new")])
PY
    local text
    text=$("$CH" compare --all "$WORK/$n" "$WORK/${n}_after" 2>/dev/null)
    expect_match "$n: compare's text has the same counts" "$text" \
        "^hints: +$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print("%d gone, %d remains?, %d new" % (c["gone"], c["remain"], c["new"]))' "$WORK/$n.compare.json")\$"
}
compared jacobi "overlap MPI_Recv $(lines "$J" 'MPI_Recv\(')" "overlap MPI_Send $(lines "$J" 'MPI_Send\(')"
compared gauss "overlap MPI_Recv $(lines "$G" 'MPI_Recv\(&pivot\[k\]')" "overlap MPI_Send $(lines "$G" 'MPI_Send\(&prow\[k\]')"
compared master_worker "collective * [0-9]+" "aggregate MPI_Send $(lines "$M" 'MPI_Send\(params')"
compared halo_staging "aggregate MPI_Send $(lines "$H" 'MPI_Send\(')"
compared small_sends "aggregate MPI_Send $(lines "$S" 'MPI_Send\(')" "overlap MPI_Recv $(lines "$S" 'MPI_Recv\(')" \
    "collective MPI_Gatherv $(lines "$S" 'MPI_Gatherv\(')"
compared pipeline "overlap MPI_Recv $(lines "$P" 'MPI_Recv\(')" "overlap MPI_Send $(lines "$P" 'MPI_Send\(')"
compared ring_allgather "collective MPI_Sendrecv $(lines "$R" 'MPI_Sendrecv\(')" \
    "aggregate MPI_Sendrecv $(lines "$R" 'MPI_Sendrecv\(')"
# gauss's pivot row (tag TAG_PIVOT) left main for start_pivot, its solution
# value (TAG_X) stayed: compare pairs main's sends by their tags, not by
# their order
gp=$(python3 -c '
import json, sys
for s in json.load(open(sys.argv[1]))["sites"]:
    b, a = s["before"], s["after"]
    if b and b["call"] == "MPI_Send":
        print(b["line"], a["line"] if a else "-", s["by_order"])' "$WORK/gauss.compare.json" | sort)
expect_eq "gauss: compare pairs the solution value's send with its new line, and leaves the pivot row's unpaired" "$gp" \
    "$(printf '%s - False\n%s %s False' "$(lines "$G" 'MPI_Send\(&prow\[k\]')" "$(lines "$G" 'MPI_Send\(&x\[i\]')" "$(lines "$GA" 'MPI_Send\(&x\[i\]')" | sort)"
