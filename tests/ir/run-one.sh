#!/usr/bin/env bash
# run-one.sh - run the RUN lines of one IR test of the commhint pass.
#
#   tests/ir/run-one.sh TEST.{ll,c,cpp}
#
# A test holds lines starting with `; RUN:` (.ll) or `// RUN:` (.c, .cpp); each is
# a bash command, a line ending in `\` continues on the next RUN line.
# Substitutions, lit style:
#   %s         the test file            %t        a temporary path prefix
#   %opt       $OPT -load-pass-plugin=$PLUGIN
#   %clang     $CLANG -fpass-plugin=$PLUGIN
#   %FileCheck $FILECHECK               %plugin   $PLUGIN
#   %%         a literal %
# and the shell function `not CMD...` succeeds when CMD fails.  Commands run
# with pipefail.  Environment: PLUGIN (default build/lib/commhint-pass.so
# of this tree), OPT (opt-16), CLANG (clang-16), FILECHECK (FileCheck-16).
# Exit status: 0 if every RUN line exited 0, 1 otherwise (also on misuse).
# V=1 prints each command.

set -u

if [ $# -ne 1 ] || [ ! -f "$1" ]; then
    echo "usage: run-one.sh TEST.{ll,c,cpp}: test=${1:-} reason=missing or not a file" >&2
    exit 1
fi

here=$(cd "$(dirname "$0")" && pwd)
test_file=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
PLUGIN=${PLUGIN:-$here/../../build/lib/commhint-pass.so}
OPT=${OPT:-opt-16}
CLANG=${CLANG:-clang-16}
FILECHECK=${FILECHECK:-FileCheck-16}

if [ ! -f "$PLUGIN" ]; then
    echo "cannot run the test, the pass plugin is missing: plugin=$PLUGIN" >&2
    exit 1
fi

# Tests set these themselves; a value left in the caller's environment must
# not change what they see.
unset COMMHINT_FILTER COMMHINT_FILTER_FILE COMMHINT_PRINT_SITES COMMHINT_INLINE COMMHINT_EXIT_LOOPS

tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/commhint-ir.XXXXXX") || exit 1
trap 'rm -rf "$tmpdir"' EXIT
tmp=$tmpdir/$(basename "$test_file").tmp

case $test_file in
    *.c | *.cpp | *.h) prefix='//' ;;
    *) prefix=';' ;;
esac

# Collect RUN lines, joining continuations.
cmds=()
cur=
while IFS= read -r line || [ -n "$line" ]; do
    trimmed=${line#"${line%%[![:space:]]*}"}
    case $trimmed in
        "$prefix RUN:"*) ;;
        *) continue ;;
    esac
    body=${trimmed#"$prefix RUN:"}
    if [ "${body%\\}" != "$body" ]; then
        cur+="${body%\\} "
        continue
    fi
    cmds+=("$cur$body")
    cur=
done <"$test_file"
if [ -n "$cur" ]; then
    cmds+=("$cur")
fi
if [ ${#cmds[@]} -eq 0 ]; then
    echo "test has no RUN lines: test=$test_file" >&2
    exit 1
fi

status=0
pct=$'\001'
for cmd in "${cmds[@]}"; do
    cmd=${cmd//%%/$pct}
    cmd=${cmd//%opt/$OPT -load-pass-plugin=$PLUGIN}
    cmd=${cmd//%clang/$CLANG -fpass-plugin=$PLUGIN}
    cmd=${cmd//%FileCheck/$FILECHECK}
    cmd=${cmd//%plugin/$PLUGIN}
    cmd=${cmd//%s/$test_file}
    cmd=${cmd//%t/$tmp}
    cmd=${cmd//$pct/%}
    [ -n "${V:-}" ] && echo "RUN: $cmd" >&2
    out=$(cd "$tmpdir" && bash -o pipefail -c "not() { if \"\$@\"; then return 1; else return 0; fi; }; $cmd" 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL: $test_file" >&2
        echo "  command (exit $rc): $cmd" >&2
        printf '%s\n' "$out" | sed 's/^/  | /' >&2
        status=1
        break
    fi
done
exit $status
