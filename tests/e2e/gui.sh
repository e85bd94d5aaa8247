#!/usr/bin/env bash
# The viewer headless, on a private Xvfb (lib.sh, xvfb_start): `commhint
# view DIR --select-hint N --screenshot FILE` on a 4-rank trace of
# examples/gauss.c exits 0, writes a PNG of the window, selects hint N of
# `commhint hints`, and the marks it reports are where the hint says: on
# the hint's line, with the highlight colour of the selected call (and of
# related lines) at the reported pixel of the PNG, in line order.  N is the
# first hint with a related line a few lines from its own (the ranking
# follows the run's timing), so that the view shows both (jacobi's hints
# sit in its exchange() helper, far from the lines they relate to).  A
# missing source file is reported and found again through --source-dir and
# the remembered settings; a directory that is not a trace, a damaged trace
# and bad usage end with a one-sentence message and exit 1 or 2, not a
# crash.
#
# Nothing waits a fixed time: the X server says when it is ready, and the
# viewer takes its screenshot once the trace is loaded and the hint's line
# has settled where selecting scrolls it (in the upper half of the pane:
# on a loaded machine the text view's first scroll can leave it at the
# bottom until its idle work aligns it).  Each viewer run has a time limit
# (VIEW_TIMEOUT, 300 s) so a hang fails its checks.
source "$(dirname "$0")/lib.sh"

if ! command -v Xvfb >/dev/null 2>&1; then
    echo "ok # skip gui: Xvfb is not installed (make deps installs it)"
    exit 0
fi
if xvfb_start 2>"$WORK/xvfb.err"; then ok "a private Xvfb starts"; else
    not_ok "a private Xvfb starts" "$(cat "$WORK/xvfb.err")"
    exit 0
fi
export XDG_CONFIG_HOME=$WORK/config # the viewer's settings, kept out of the user's
export NO_AT_BRIDGE=1
VIEW() { timeout "${VIEW_TIMEOUT:-300}" "$CH" view "$@"; }

# Colours the source pane paints (gui/sourceview.c: CALL_COLOR, role_color).
CALL_RGB=ffe066
BEFORE_RGB=c6efc6
AFTER_RGB=cce0ff
MEMBER_RGB=ffd6ad

# pixel PNG X Y: the RGB colour (hex) at (X, Y) of an 8-bit RGB or RGBA PNG.
cat >"$WORK/pixel.py" <<'EOF'
import struct, sys, zlib
path, x, y = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), "unexpected PNG type"
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
for row in range(y + 1):
    f = raw[row * (stride + 1)]
    line = bytearray(raw[row * (stride + 1) + 1:(row + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
print("%02x%02x%02x %dx%d" % (prev[x * bpp], prev[x * bpp + 1], prev[x * bpp + 2], w, h))
EOF
pixel() { python3 "$WORK/pixel.py" "$@" 2>&1; }

# ---- the headless screenshot of the gauss example ---------------------------------
T=$WORK/gauss.trace
trace_run "$T" 4 "$B/examples/O2/gauss"
expect_eq "gauss traced on 4 ranks" "$?" 0

# the hint to select: the first with a related line in its file from 3
# lines above to 16 below its line (the view scrolls the hint's line near
# its top and shows about 20 lines below)
hints_json=$("$CH" hints "$T" --format=json 2>/dev/null)
SEL=$(python3 -c '
import json, sys
hs = json.load(sys.stdin)["hints"]
for i, h in enumerate(hs):
    if any(r["file"] == h["file"] and h["line"] - 3 <= r["line"] <= h["line"] + 16 for r in h["related"]):
        print(i + 1)
        break
else:
    print(1)' <<<"$hints_json" 2>/dev/null)
[ -n "$SEL" ] || SEL=1
echo "# selecting hint $SEL"
# (the viewer takes the screenshot once the hint's line has settled where
# selecting scrolls it, cv_source_pane_line_settled: no retry is needed)
out=$(VIEW "$T" --select-hint "$SEL" --screenshot "$WORK/shot.png" 2>"$WORK/view.err")
rc=$?
expect_eq "view --select-hint N --screenshot exits 0" "$rc" 0
expect_no_match "view prints no GTK criticals or warnings" "$(cat "$WORK/view.err")" "CRITICAL|Gtk-WARNING|GLib-WARNING"
if [ -s "$WORK/shot.png" ] && [ "$(stat -c %s "$WORK/shot.png")" -gt 8192 ]; then
    ok "the screenshot is a file of more than 8 KB"
else
    not_ok "the screenshot is a file of more than 8 KB" "$(ls -l "$WORK/shot.png" 2>&1)" "$out"
fi
expect_eq "the screenshot has a PNG signature" "$(head -c 8 "$WORK/shot.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" \
    "89504e470d0a1a0a"
size=$(printf '%s\n' "$out" | sed -n 's/^screenshot .* width=\([0-9]*\) height=\([0-9]*\).*/\1x\2/p')
expect_eq "the PNG is the window's size as printed" "$(pixel "$WORK/shot.png" 0 0 | cut -d' ' -f2)" "$size"

# hint SEL of `commhint hints`, as JSON
first=$(SEL=$SEL python3 -c '
import json, os, sys
h = json.load(sys.stdin)["hints"][int(os.environ["SEL"]) - 1]
print(h["kind"], h["file"], h["line"], " ".join(str(r["line"]) + ":" + r["role"] for r in h["related"] if r["file"] == h["file"]))' <<<"$hints_json")
read -r kind file line related <<<"$first"
expect_match "view selects hint N of commhint hints (file and line)" "$out" \
    "^selected hint=$SEL kind=$kind call=MPI_[A-Za-z]+ file=$file line=$line\$"
expect_match "a mark of the hint's kind is printed at its line" "$out" "^mark kind=$kind line=$line y=[0-9]+ x=[0-9]+\$"
expect_match "the selected call's line is highlighted" "$out" "^mark kind=call line=$line y=[0-9]+ x=[0-9]+\$"

# the call mark's pixel has the call's highlight colour, a mark of another
# hint's line does not
read -r cy cx < <(printf '%s\n' "$out" | sed -n "s/^mark kind=call line=$line y=\([0-9]*\) x=\([0-9]*\)\$/\1 \2/p" | head -1)
if [ -n "${cy:-}" ]; then
    expect_eq "the PNG shows the call's highlight at the reported mark" "$(pixel "$WORK/shot.png" "$cx" "$cy" | cut -d' ' -f1)" "$CALL_RGB"
    other=$(printf '%s\n' "$out" | grep -E "^mark kind=(overlap|aggregate|collective) " | grep -v " line=$line " | head -1)
    oy=$(printf '%s\n' "$other" | sed -n 's/.* y=\([0-9]*\) x=\([0-9]*\)$/\1 \2/p')
    if [ -n "$oy" ]; then
        set -- $oy
        if [ "$(pixel "$WORK/shot.png" "$2" "$1" | cut -d' ' -f1)" != "$CALL_RGB" ]; then
            ok "another hint's line is not highlighted"
        else
            not_ok "another hint's line is not highlighted" "$other"
        fi
    fi
else
    not_ok "the PNG shows the call's highlight at the reported mark" "$out"
fi

# related lines: each printed related mark is one of the hint's related
# lines, with its role, and painted in the role's colour
nrel=0
while read -r rl role ry rx; do
    [ -n "$rl" ] || continue
    nrel=$((nrel + 1))
    case " $related " in
    *" $rl:$role "*) ok "related mark at line $rl ($role) is a related line of the hint" ;;
    *) not_ok "related mark at line $rl ($role) is a related line of the hint" "hint's related lines: $related" ;;
    esac
    case $role in before) want=$BEFORE_RGB ;; after) want=$AFTER_RGB ;; member) want=$MEMBER_RGB ;; *) want="" ;; esac
    [ -n "$want" ] && expect_eq "the PNG shows line $rl in the colour of '$role'" \
        "$(pixel "$WORK/shot.png" "$rx" "$ry" | cut -d' ' -f1)" "$want"
done < <(printf '%s\n' "$out" | sed -n 's/^mark kind=related role=\([a-z]*\) line=\([0-9]*\) y=\([0-9]*\) x=\([0-9]*\)$/\2 \1 \3 \4/p')
if [ "$nrel" -gt 0 ]; then ok "related lines of the hint are in view ($nrel)"; else
    not_ok "related lines of the hint are in view" "$out"; fi

# marks are in line order on the screen, at least a line height apart per
# line (long lines wrap: a line can be taller, never shorter)
order=$(printf '%s\n' "$out" | sed -n 's/^mark kind=[a-z]* \(role=[a-z]* \)\{0,1\}line=\([0-9]*\) y=\([0-9]*\) .*/\2 \3/p' |
    sort -n -u | awk '
    NR > 1 { if ($2 <= py) bad = 1; h = ($2 - py) / ($1 - pl); if (!lh || h < lh) lh = h }
    { pl = $1; py = $2 }
    END { print (bad || NR < 2 || lh < 8) ? "disordered" : "ordered" }')
expect_eq "marks lie in line order, at least a line height apart per line" "$order" "ordered"

# ---- source paths: a file not found, then found ----------------------------------------
mkdir -p "$WORK/src"
cp examples/jacobi.c "$WORK/src/jacobi.c"
if build_prog "$WORK/src/jacobi.c" "$WORK/jacobi-moved" -O2 >"$WORK/build.log" 2>&1; then
    trace_run "$WORK/moved.trace" 2 "$WORK/jacobi-moved"
    mv "$WORK/src" "$WORK/elsewhere"
    out=$(VIEW "$WORK/moved.trace" --select-hint 1 --screenshot "$WORK/moved.png" 2>&1)
    expect_eq "a trace whose sources moved still opens" "$?" 0
    expect_match "the viewer says the source file was not found" "$out" "^source not-found file=$WORK/src/jacobi.c\$"
    expect_no_match "no marks are placed in a file not found" "$out" "^mark "
    out=$(VIEW "$WORK/moved.trace" --select-hint 1 --screenshot "$WORK/moved.png" --source-dir "$WORK/elsewhere" 2>&1)
    expect_no_match "--source-dir finds the moved file" "$out" "^source not-found"
    expect_match "--source-dir: the marks are back" "$out" "^mark kind=call line="
    expect_eq "--source-dir: the viewer says which file it read and what the trace named" \
        "$(printf '%s\n' "$out" | grep '^source read-from=')" \
        "source read-from=$(realpath "$WORK/elsewhere/jacobi.c") (the trace names $WORK/src/jacobi.c)"
    mkdir -p "$XDG_CONFIG_HOME/commhint"
    printf '[sources]\ndirectories=%s;\n' "$WORK/elsewhere" >"$XDG_CONFIG_HOME/commhint/viewer.ini"
    out=$(VIEW "$WORK/moved.trace" --select-hint 1 --screenshot "$WORK/moved.png" 2>&1)
    expect_no_match "the remembered source directory finds the moved file" "$out" "^source not-found"
    rm -f "$XDG_CONFIG_HOME/commhint/viewer.ini"
else
    not_ok "jacobi builds from a copied source" "$(tail -5 "$WORK/build.log")"
fi

# ---- errors ---------------------------------------------------------------------------------
mkdir -p "$WORK/notatrace"
echo hello >"$WORK/notatrace/readme.txt"
err=$(VIEW "$WORK/notatrace" --screenshot "$WORK/bad.png" 2>&1 >/dev/null)
rc=$?
expect_eq "a directory that is not a trace: exit 1" "$rc" 1
expect_match "a directory that is not a trace: one error sentence" "$err" "^commhint-gui: error: [^ ].*"
expect_eq "a directory that is not a trace: one line on stderr" "$(printf '%s\n' "$err" | grep -c .)" 1
[ ! -e "$WORK/bad.png" ] && ok "no screenshot is written for a failed load" || not_ok "no screenshot is written for a failed load"

cp -r "$T" "$WORK/damaged.trace"
head -c 100 "$T/commhint.meta" >"$WORK/damaged.trace/commhint.meta"
printf 'garbage' | dd of="$WORK/damaged.trace/commhint.meta" bs=1 seek=0 conv=notrunc 2>/dev/null
err=$(VIEW "$WORK/damaged.trace" --screenshot "$WORK/bad.png" 2>&1 >/dev/null)
rc=$?
expect_eq "a damaged trace: exit 1" "$rc" 1
expect_match "a damaged trace: the reader's message" "$err" "^commhint-gui: error: .*commhint.meta"
expect_no_match "a damaged trace: no crash" "$err" "Segmentation|Aborted|CRITICAL|core dumped"

out=$(VIEW "$T" --select-hint 999 --screenshot "$WORK/bad.png" 2>&1)
expect_eq "--select-hint past the last hint: exit 1" "$?" 1
expect_match "--select-hint past the last hint: says so" "$out" "^commhint-gui: error: no such hint: hint=999"

out=$("$CH" view --frobnicate 2>&1)
expect_eq "an unknown option: exit 2" "$?" 2
expect_match "an unknown option: named" "$out" "unknown option '--frobnicate'"
out=$("$CH" view "$T" --select-hint zero 2>&1)
expect_eq "a bad --select-hint: exit 2" "$?" 2
out=$("$CH" view --help 2>&1)
expect_match "view --help describes --screenshot" "$out" "--screenshot FILE"

# commhint without the viewer next to it
mkdir -p "$WORK/lonely"
cp "$CH" "$WORK/lonely/commhint"
out=$("$WORK/lonely/commhint" view "$T" 2>&1)
expect_eq "commhint view without commhint-gui: exit 1" "$?" 1
expect_match "commhint view without commhint-gui: says where it looked" "$out" \
    "^commhint: error: the viewer is not installed next to commhint: file=$WORK/lonely/commhint-gui"
