#!/usr/bin/env bash
# A crafted trace of a few KB that claims billions of events over gigabytes
# of memory (one REPEAT record copied 2,000 times with a count of 2^20)
# costs what docs/reliability.md ("What reading costs") says: info counts
# it without expanding it, hints and export stop at the memory limit
# (COMMHINT_MAX_MEMORY) with an error naming it, dump's output stops when
# its reader does, and a trace whose repeats touch the same memory is
# analysed in flat memory.
source "$(dirname "$0")/lib.sh"
P=tests/e2e/programs
build_prog $P/amp-loop.c "$WORK/loop" -O0 >"$WORK/b.err" 2>&1
expect_eq "amp-loop.c builds" "$?" 0
${CC:-cc} -O1 -Itracelib -o "$WORK/amplify" $P/amplify.c -lzstd 2>"$WORK/b2.err"
expect_eq "amplify.c builds" "$?" 0
trace_run "$WORK/t" 1 "$WORK/loop"
expect_eq "amp-loop is traced" "$?" 0

mkcraft() { # NAME COPIES COUNT [--zero]
    rm -rf "$WORK/$1" && cp -r "$WORK/t" "$WORK/$1" &&
        "$WORK/amplify" "$WORK/t/rank-00000.chtr" "$WORK/$1/rank-00000.chtr" "${@:2}"
}
expect_eq "info counts repeats as walking every event does (--expand-runs): the same summary" \
    "$("$CH" info "$WORK/t" --format=json)" "$("$CH" info "$WORK/t" --format=json --expand-runs)"

mkcraft big 2000 1048576
expect_eq "the crafted trace is made" "$?" 0
size=$(stat -c %s "$WORK/big/rank-00000.chtr")
[ "$size" -lt 8192 ]
expect_eq "its rank file is a few KB ($size bytes)" "$?" 0

# peak SECONDS CMD...: runs CMD for at most SECONDS, prints "<exit status>
# <peak resident KB>"; a CMD that passes 2 GB is killed ("killed"), so that
# a regression cannot take the machine's memory
peak() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
limit_kb, secs = 2 * 1024 * 1024, float(sys.argv[1])
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
top, rc, t0 = 0, None, time.time()
while rc is None:
    try:
        for line in open('/proc/%d/status' % p.pid):
            if line.startswith('VmRSS:'):
                top = max(top, int(line.split()[1]))
    except OSError:
        pass
    if top > limit_kb or time.time() - t0 > secs:
        p.kill()
        p.wait()
        rc = 'killed' if top > limit_kb else 'timeout'
        break
    time.sleep(0.02)
    rc = p.poll()
print(rc, max(top, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
PY
}

read -r st kb < <(peak 20 "$CH" info "$WORK/big")
expect_eq "info on the crafted trace exits 0 within 20 s" "$st" 0
[ "$kb" -lt 300000 ]
expect_eq "info stays small (${kb} KB)" "$?" 0
expect_match "info counts the events it claims without expanding them" \
    "$("$CH" info "$WORK/big" 2>/dev/null)" "^events: +1048676[0-9]{3} "

export COMMHINT_MAX_MEMORY=128M
for cmd in hints export; do
    out=()
    [ $cmd = export ] && out=(-o "$WORK/x.json")
    read -r st kb < <(peak 120 "$CH" $cmd "$WORK/big" "${out[@]}")
    expect_eq "$cmd on the crafted trace stops with an error (within 120 s)" "$st" 1
    [ "$kb" -lt 1200000 ]
    expect_eq "$cmd stops near the limit of 128 MiB (peak ${kb} KB)" "$?" 0
done
"$CH" hints "$WORK/big" >/dev/null 2>"$WORK/h.err"
expect_match "hints says why rank 0 was left out: the memory limit, and how to raise it" "$(cat "$WORK/h.err")" \
    "warning: rank 0 could not be analysed and is left out: .*more shadow memory than the limit \(COMMHINT_MAX_MEMORY=SIZE raises it\)"
unset COMMHINT_MAX_MEMORY
COMMHINT_MAX_MEMORY=lots "$CH" hints "$WORK/big" >/dev/null 2>"$WORK/m.err"
expect_eq "COMMHINT_MAX_MEMORY that is not a size: usage error" "$?" 2
expect_match "... with one line saying what it needs" "$(cat "$WORK/m.err")" \
    "^commhint: error: COMMHINT_MAX_MEMORY needs a size in bytes, or with a K, M, G or T suffix .*'lots'$"

# dump prints every event: its output ends when its reader goes away
st=$(timeout 20 bash -c '"$0" dump "$1" | head -n 1000 | wc -l' "$CH" "$WORK/big")
expect_eq "dump | head ends promptly" "$?" 0
expect_eq "... after the lines head took" "$st" 1000

# repeats over the same memory: the shadow stays flat, the analysis completes
mkcraft same 20 1048576 --zero
read -r st kb < <(peak 120 "$CH" hints "$WORK/same")
expect_eq "hints on 20 million repeated events over the same memory exits 0" "$st" 0
[ "$kb" -lt 400000 ]
expect_eq "... in flat memory (${kb} KB)" "$?" 0
