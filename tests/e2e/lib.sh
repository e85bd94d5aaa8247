# tests/e2e/lib.sh - helpers for end-to-end tests (sourced).
# Each check prints "ok - <what>" or "not ok - <what>" (TAP style) so that
# tests/run.sh can count them; details of a failure follow as "# " lines.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
B=${B:-$PWD/build}
CH=$B/bin/commhint
CLANG=${CLANG:-clang-16}
NP=${NP:-4}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/commhint-e2e.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1
# every hint, whatever it saves: the tests judge hints on small runs, where
# most save less than the default threshold (1% of the run); the tests of
# the threshold itself unset this
export COMMHINT_MIN_SAVING=0

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $1"; shift; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/# /'; done; }

# check "what" cmd args...: ok if the command exits 0.
check() {
    local what=$1; shift
    local out
    if out=$("$@" 2>&1); then ok "$what"; else not_ok "$what" "command: $*" "$out"; fi
}

# expect_eq "what" actual expected
expect_eq() {
    if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: $3" "actual:   $2"; fi
}

# expect_match "what" text regex (grep -E)
expect_match() {
    if printf '%s\n' "$2" | grep -qE -- "$3"; then ok "$1"; else not_ok "$1" "no line matches: $3" "$(printf '%s\n' "$2" | head -20)"; fi
}

expect_no_match() {
    if printf '%s\n' "$2" | grep -qE -- "$3"; then not_ok "$1" "unexpected line matches: $3" "$(printf '%s\n' "$2" | grep -E -- "$3" | head -5)"; else ok "$1"; fi
}

# same_file "what" A B: ok if file A is not empty and B is identical to it
same_file() {
    if [ -s "$2" ] && cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1" "$(diff "$2" "$3" | head -10)"; fi
}

# same_text "what" A B: ok if the texts A and B are the same, else the diff
same_text() {
    if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "$(diff <(echo "$2") <(echo "$3") | head -20)"; fi
}

# dropped_apart DIR: one line per dropped aggregation whose sends stay apart
# (hints --all --format=json): "<line> <next send's line> <line of the
# event that closed the group> <reason>"
dropped_apart() {
    "$CH" hints "$1" --all --format=json --stable 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
for h in d["dropped"]:
    if "not-merged" in h["flags"]:
        print(h["line"], h["next"]["line"], h["closed_at"]["line"], h["reason"])'
}

# line_of FILE MARKER: line number of the (first) line containing MARKER.
line_of() { grep -n -F -- "$2" "$1" | head -1 | cut -d: -f1; }

# build_prog SRC OUT OPTFLAG [extra cc args]: instrumented build with commhint cc mpicc.
build_prog() {
    local src=$1 out=$2 o=$3; shift 3
    "$CH" cc mpicc -g "$o" -o "$out" "$src" -lm "$@"
}

# traced_as_plain NAME SRC TAG OPT [WRAPPER]: builds SRC at OPT with
# `commhint cc WRAPPER` (default mpicc) as $WORK/TAG$OPT, traces it on 2
# ranks into $WORK/TAG$OPT.trace and checks that its "NAME:" output lines
# are those of a plain build (made once per TAG); non-zero if it did not
# build
traced_as_plain() {
    local name=$1 src=$2 tag=$3 o=$4 cc=${5:-mpicc}
    if [ ! -x "$WORK/$tag-plain" ]; then
        "$cc" -O2 -o "$WORK/$tag-plain" "$src" -lm
        "${MPIEXEC:-mpiexec}" -n 2 "$WORK/$tag-plain" 2>&1 | grep "^$name:" >"$WORK/$tag-plain.out"
    fi
    if ! "$CH" cc "$cc" -g "$o" -o "$WORK/$tag$o" "$src" -lm >"$WORK/build.log" 2>&1; then
        not_ok "$name $o: builds with commhint cc" "$(cat "$WORK/build.log")"
        return 1
    fi
    trace_run "$WORK/$tag$o.trace" 2 "$WORK/$tag$o"
    expect_eq "$name $o: tracing leaves the output unchanged" \
        "$(grep "^$name:" "$WORK/$tag$o.trace.out")" "$(cat "$WORK/$tag-plain.out")"
}

# small_args EXAMPLE: arguments that shrink the bundled examples whose
# default run records millions of events (halo_staging: 20 million on 4
# ranks, about 40 million dump lines; heat_helpers: 2 million), for the
# tests that compare two encodings or builds of the same run rather than
# judge the examples' hints at their documented sizes.  Empty for the
# others (their default runs record at most half a million events).
small_args() {
    case $1 in
        halo_staging | halo_staging_after) echo 64 64 12 ;;
        heat_helpers) echo 48 10 5 ;;
    esac
}

# trace_run DIR NP PROGRAM [ARGS...]: run traced on NP ranks; output in DIR.out
trace_run() {
    local dir=$1 np=$2; shift 2
    "$CH" run -n "$np" -o "$dir" -- "$@" >"$dir.out" 2>"$dir.err"
}

# coll_lines DIR: one line per collective hint of the trace in DIR,
# "<collective> <file>:<line> related=<line>,..." (file without its
# folder), or "ERROR ..." if hints fails or its JSON is not as expected.
coll_lines() {
    "$CH" hints "$1" --format=json --stable --kind=collective 2>"$WORK/coll.err" | python3 -c '
import json, sys
for h in json.load(sys.stdin)["hints"]:
    print("%s %s:%d related=%s" % (h["collective"], h["file"].rsplit("/", 1)[-1], h["line"],
          ",".join(str(r["line"]) for r in h["related"])))
' 2>&1 || echo "ERROR $(cat "$WORK/coll.err")"
}

# xvfb_start: a private X server for the viewer's tests; exports DISPLAY.
# Xvfb picks a free display number itself and writes it once it accepts
# connections (-displayfd), so tests running at the same time cannot race
# for a number and nothing waits a fixed time.  -noreset: it stays up
# between viewer runs (under xvfb-run, the reset after each client sends
# xvfb-run a SIGUSR1 that, landing in its cleanup, makes it exit 5 and
# leave its Xvfb running).  Stopped on exit.  Returns 1, with the reason
# on stderr, if it is not ready within XVFB_WAIT seconds (default 60).
XVFB_PID=
xvfb_start() {
    local fd=$WORK/xvfb.display n= i
    : >"$fd"
    Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp -noreset 3>"$fd" </dev/null >"$WORK/xvfb.log" 2>&1 &
    XVFB_PID=$!
    trap 'xvfb_stop; rm -rf "$WORK"' EXIT
    for ((i = 0; i < ${XVFB_WAIT:-60} * 10; i++)); do
        if read -r n <"$fd" && [ -n "$n" ]; then
            export DISPLAY=:$n
            return 0
        fi
        kill -0 "$XVFB_PID" 2>/dev/null || break
        sleep 0.1
    done
    echo "Xvfb did not start within ${XVFB_WAIT:-60} s: $(tail -5 "$WORK/xvfb.log")" >&2
    xvfb_stop
    return 1
}
xvfb_stop() {
    [ -n "$XVFB_PID" ] || return 0
    kill "$XVFB_PID" 2>/dev/null
    wait "$XVFB_PID" 2>/dev/null
    XVFB_PID=
}

# ---- related lines of overlap hints (dependences.sh, mpi-*.sh) ----------------------

# related WHAT JSON SRC CALL-LINE LINE ROLE: ROLE
# "before" or "after": the overlap hint of the call at CALL-LINE lists LINE
# with that role; "none": it does not list LINE; CALL-LINE 0 with "none":
# no overlap hint lists LINE at all.  Roles are those of the plain hints;
# "none" holds for needs-buffer variants too (a buffer per message
# removes no flow dependence).
related() {
    local what=$1 got
    got=$(python3 -c '
import json, os, sys
src, call, line, role = os.path.basename(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
d = json.loads(sys.stdin.read())
hs = [h for h in d["hints"] if h["kind"] == "overlap" and (call == 0 or h["line"] == call)
      and os.path.basename(h["file"]) == src and (role == "none" or "needs-buffer" not in h["flags"])]
rel = {}
for h in hs:
    for r in h["related"]:
        if os.path.basename(r["file"]) == src:
            rel.setdefault(r["line"], (r["role"], h["line"]))
say = {"before": "can move after the call", "after": "can run before the wait"}
listed = "; related lines of the hints: %s" % (
    ", ".join("%d:%s(call at %d)" % (k, v[0], v[1]) for k, v in sorted(rel.items())) or "none")
if role == "none":
    if line in rel:
        print("line %d is listed as %s (%s) of the call at line %d%s" % (
            line, rel[line][0], say[rel[line][0]], rel[line][1], listed))
    else:
        print("yes")
elif not hs:
    print("no overlap hint at line %d" % call)
elif rel.get(line, ("nothing",))[0] == role:
    print("yes")
else:
    print("line %d: expected %s, listed as %s%s" % (line, role, rel.get(line, ("nothing",))[0], listed))
' "$3" "$4" "$5" "$6" <<<"$2" 2>&1)
    if [ "$got" = yes ]; then ok "$what"; else not_ok "$what" "$got"; fi
}

# pattern NAME O JSON SRC LABEL CALL NEEDED INDEP ROLE: the two checks of one
# pattern; CALL, NEEDED (one or more, space-separated) and INDEP are marker
# names, found in SRC as /* MARKER */.
pattern() {
    local name=$1 o=$2 js=$3 src=$4 label=$5 call=$6 needed=$7 indep=$8 role=$9 cl n
    cl=$(line_of "$src" "/* $call */")
    for n in $needed; do
        related "$name $o: $label: $n is not a related line of $call" "$js" "$src" \
            "$cl" "$(line_of "$src" "/* $n */")" none
    done
    related "$name $o: $label: $indep is still a related line of $call ($role)" "$js" "$src" \
        "$cl" "$(line_of "$src" "/* $indep */")" "$role"
}
