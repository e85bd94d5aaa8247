#!/usr/bin/env python3
"""hints-flat.py - reads `commhint hints --format=json` on stdin, checks that
it is one JSON document with the documented top-level fields, and prints one
line per hint for the shell tests to grep:

  <kind> <call> <file>:<line> ranks=<r,r> members=<n> related=<line>:<role>,...

Exits 1 (with a message) if the input is not valid JSON or misses fields."""
import json
import sys

try:
    doc = json.load(sys.stdin)
except ValueError as e:
    print("invalid JSON: %s" % e, file=sys.stderr)
    sys.exit(1)
for key in ("schema", "version", "world_size", "ranks_analysed", "events", "hints"):
    if key not in doc:
        print("missing top-level field: %s" % key, file=sys.stderr)
        sys.exit(1)
for h in doc["hints"]:
    for key in ("kind", "call", "file", "line", "column", "ranks", "related",
                "collective", "message"):
        if key not in h:
            print("hint without field %s: %r" % (key, h), file=sys.stderr)
            sys.exit(1)
    rel = ",".join("%d:%s" % (r["line"], r["role"]) for r in h["related"])
    print("%s %s %s:%d ranks=%s members=%s related=%s" % (
        h["kind"], h["call"], h["file"], h["line"],
        ",".join(str(r) for r in h["ranks"]), h.get("members", 0), rel))
