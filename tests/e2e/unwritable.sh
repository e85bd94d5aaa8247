#!/usr/bin/env bash
# When the trace cannot be written (directory not creatable, disk full via
# RLIMIT_FSIZE) the program still prints its normal output and exits with
# its normal status, with one warning per process.
source "$(dirname "$0")/lib.sh"
SRC=tests/e2e/programs/facts.c
if ! out=$(build_prog $SRC "$WORK/facts" -O2 2>&1); then not_ok "facts.c builds" "$out"; exit 0; fi
want=$(COMMHINT_DISABLE=1 mpiexec -n 2 "$WORK/facts" 2>/dev/null)
ok "reference output: $want"

touch "$WORK/afile"
got=$(COMMHINT_TRACE_DIR=$WORK/afile/trace mpiexec -n 2 "$WORK/facts" 2>"$WORK/err")
expect_eq "uncreatable directory: exit status 0" "$?" 0
expect_eq "uncreatable directory: same output" "$got" "$want"
expect_eq "uncreatable directory: one warning per rank" "$(grep -c 'commhint: ' "$WORK/err")" 2
expect_match "uncreatable directory: the warning says tracing stopped and names the path" "$(cat "$WORK/err")" "tracing stopped.*$WORK/afile/trace"

# A file size limit of 8 KiB makes the first chunk write fail with EFBIG
# (and SIGXFSZ, which must not kill the program).  MPICH's UCX shared-memory
# transport itself creates files larger than that in /dev/shm, so this run
# uses its loopback and System V shared-memory transports (not files; TCP
# now and then hangs at start-up under load).
mkdir -p "$WORK/full"
JAC=$B/examples/O2/jacobi
export UCX_TLS=self,sysv
# 256 200: about 25 KB per rank stream (64 40 packs into 4 KB, under the limit)
got=$(ulimit -f 8; COMMHINT_TRACE_DIR=$WORK/full COMMHINT_BUFFER_KB=64 mpiexec -n 2 "$JAC" 256 200 2>"$WORK/err2")
expect_eq "file size limit: exit status 0" "$?" 0
expect_eq "file size limit: same output" "$got" "$(COMMHINT_DISABLE=1 mpiexec -n 2 "$JAC" 256 200 2>/dev/null)"
w=$(grep -c 'commhint: ' "$WORK/err2")
[ "$w" -ge 1 ] && [ "$w" -le 2 ] && ok "file size limit: at most one warning per rank ($w)" || not_ok "file size limit: at most one warning per rank" "$(cat "$WORK/err2")"
