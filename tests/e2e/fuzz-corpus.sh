#!/usr/bin/env bash
# The fuzz harnesses (tests/fuzz/, docs/reliability.md "Fuzzing") run once,
# deterministically, over the committed seed corpus and over every input
# that once crashed, hung or blew up (tests/fuzz/regressions/): one check
# per harness and input set, failing on any crash, sanitizer report, leak,
# timeout or memory blow-up.  The harnesses are built by `make tests`
# (fuzz-build); run alone, this builds them.
source "$(dirname "$0")/lib.sh"

HARNESSES="reader hints unpack"
export COMMHINT_FUZZ_TMP=$WORK # their scratch directories go with it, even after a crash
missing=0
for h in $HARNESSES; do [ -x "$B/fuzz/fuzz-$h" ] || missing=1; done
if [ "$missing" = 1 ]; then
    if ! out=$(make --no-print-directory -s O="$B" fuzz-build 2>&1); then
        not_ok "fuzz harnesses build (make fuzz-build)" "$out"
        exit 1
    fi
fi

for h in $HARNESSES; do
    bin=$B/fuzz/fuzz-$h
    for set in corpus regressions; do
        dir=tests/fuzz/$set/$h
        mapfile -t inputs < <(find "$dir" -maxdepth 1 -type f ! -name '*.md' 2>/dev/null | sort)
        if [ "${#inputs[@]}" -eq 0 ]; then
            [ "$set" = corpus ] && not_ok "fuzz-$h: seed corpus $dir is not empty"
            continue
        fi
        log=$WORK/$h-$set.log
        start=$(date +%s.%N)
        # files as arguments: each is run once; a crash, leak, sanitizer
        # report, timeout or RSS blow-up exits non-zero
        "$bin" -timeout=10 -rss_limit_mb=2048 "${inputs[@]}" >"$log" 2>&1
        rc=$?
        secs=$(echo "$(date +%s.%N) - $start" | bc)
        ran=$(grep -c '^Executed ' "$log")
        if [ "$rc" -eq 0 ] && [ "$ran" -eq "${#inputs[@]}" ] &&
            ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$log"; then
            ok "fuzz-$h: ${#inputs[@]} $set inputs run clean ($(printf '%.1f' "$secs") s)"
        else
            not_ok "fuzz-$h: ${#inputs[@]} $set inputs run clean (exit $rc, $ran executed)" \
                "$(grep -E 'Running:|ERROR|SUMMARY|runtime error' "$log" | tail -8)"
        fi
    done
done

# What the fixes promise, through the command: a huge receive buffer is
# analysed at once; an implausible world size is refused with its reason.
PACK=$B/fuzz/fuzz-pack
R=tests/fuzz/regressions/hints
"$PACK" --unpack "$R/huge-recv-range-hang" "$WORK/huge-recv" >/dev/null 2>&1
out=$(timeout 30 "$CH" hints "$WORK/huge-recv" 2>&1)
rc=$?
expect_match "hints on a 1.5e19-byte receive buffer ends (exit $rc) with hints" "$out" '\[overlap\]'
"$PACK" --unpack "$R/huge-world-size-oom" "$WORK/huge-world" >/dev/null 2>&1
out=$("$CH" info "$WORK/huge-world" 2>&1)
rc=$?
expect_match "info refuses a world_size of 1431586883 (exit $rc)" "$rc $out" \
    '^1 .*bad meta file: file=.*commhint.meta offset=36 reason=world_size=1431586883 is outside 0\.\.1048576'

# The unpack seeds are the packed results of the hints seeds' traces, at
# the packing's current version: packed again here, each must come out as
# committed (else every seed stops at the version check and the harness
# fuzzes nothing but it: `make fuzz-seeds`, or tests/fuzz/make-seeds.sh's
# two fuzz-pack steps per seed).
stale=""
for f in tests/fuzz/corpus/unpack/*-r0; do
    n=$(basename "$f" -r0)
    raw=tests/fuzz/corpus/hints/$n-raw
    [ -f "$raw" ] || { stale="$stale $n(no hints seed)"; continue; }
    rm -rf "$WORK/seed-$n"
    if ! "$PACK" --unpack "$raw" "$WORK/seed-$n" >/dev/null 2>&1 ||
        ! "$PACK" --result "$WORK/seed-$n.r0" "$WORK/seed-$n" 0 >/dev/null 2>&1 ||
        ! cmp -s "$WORK/seed-$n.r0" "$f"; then
        stale="$stale $n"
    fi
done
expect_eq "the unpack seeds are their traces' results packed at the current version" "${stale# }" ""
