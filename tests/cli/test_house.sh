#!/usr/bin/env bash
# How the house is laid out (docs/developing.md, ../CONTRIBUTING.md), held where a grep can hold it.
source "$(dirname "$0")/lib.sh"

: "${MCPHEALTH_SOURCE_DIR:?}"

# Seams are passed, never defaulted (issue 56 item 5): a parameter that defaults to the real disk lets a caller
# bypass the seam without a word, and a test through it reads the machine's files. Each caller names the reader.
case_no_declaration_defaults_a_seam_to_the_real_disk() {
  local found
  found=$(grep -rn --include='*.hpp' -E '(FileReader|Environment)& [a-z_]+ = util::' "$MCPHEALTH_SOURCE_DIR/lib" || true)
  assert_eq "$found" "" "declarations defaulting a seam"
}

# The ground floor stands alone (issue 56 item 5): util/, first in docs/developing.md's layout, includes no other
# part of lib (util declares the disk's seam; platform/disk.cpp defines the real one, through the file times only
# the platform knows how to read).
case_util_includes_no_other_part() {
  local found
  found=$(grep -rn -E '#include <mcphealth/(platform|state|config|probe|gate|ops|agent|hook|mcp|http|proc|recover)/' \
    "$MCPHEALTH_SOURCE_DIR/lib/mcphealth/util" || true)
  assert_eq "$found" "" "util/ including another part of lib"
}

# No two parts of lib/ include each other (A's files include B's header, and B's include A's): state/store and
# state/history did.
case_no_two_parts_include_each_other() {
  local pairs
  pairs=$("$PY" - "$MCPHEALTH_SOURCE_DIR/lib" <<'PYEOF'
import os, re, sys
root = sys.argv[1]
uses = {}
for folder, _, files in os.walk(root):
    for f in files:
        if not f.endswith((".hpp", ".cpp")):
            continue
        path = os.path.join(folder, f)
        me = os.path.relpath(path, root)[:-4]
        for line in open(path, encoding="utf-8"):
            m = re.match(r'#include <(mcphealth/[^>]+)\.hpp>', line)
            if m and m.group(1) != me:
                uses.setdefault(me, set()).add(m.group(1))
for a in sorted(uses):
    for b in sorted(uses[a]):
        if a < b and a in uses.get(b, ()):
            print(a, "<->", b)
PYEOF
)
  assert_eq "$pairs" "" "parts that include each other"
}

main "$@"
