#!/usr/bin/env bash
# The platform seam (lib/mcphealth/platform/): what one OS provides beyond POSIX is named there and nowhere else, so
# that a port is one file and the portable build (scripts/test --portable) is what it claims.
# Needs: GNU grep
source "$(dirname "$0")/lib.sh"

: "${MCPHEALTH_SOURCE_DIR:?}"

case_only_the_platform_seam_names_what_one_os_provides() {
  # /proc (but not the include folder mcphealth/proc/), memfd, prctl, inotify, kqueue, libproc, the platform macros,
  # and the Linux-only calls the portable build must not meet.
  local pattern='(?<![A-Za-z_])/proc\b|memfd|\bprctl\b|PDEATHSIG|inotify|\bkqueue\b|\bkevent\b|libproc|_NSGetExecutablePath|KERN_PROCARGS2|__linux__|__APPLE__|__MACH__|__FreeBSD__|_WIN32|\bpipe2\b|close_range|SOCK_CLOEXEC|\bst_mtim(espec)?\b'
  local found
  found=$(cd "$MCPHEALTH_SOURCE_DIR" && grep -rnP "$pattern" lib cmd tests/unit tests/fuzz --include='*.cpp' --include='*.hpp' \
    --include='*.h' --include='*.c' --include='iostream' | grep -v '^lib/mcphealth/platform/' || true)
  [ -z "$found" ] || fail "named outside lib/mcphealth/platform/: $found"
  # And the check itself finds what it looks for.
  found=$(cd "$MCPHEALTH_SOURCE_DIR" && grep -rlP "$pattern" lib/mcphealth/platform | sort | tr '\n' ' ')
  assert_eq "$found" "lib/mcphealth/platform/linux.cpp lib/mcphealth/platform/macos.cpp lib/mcphealth/platform/platform.hpp lib/mcphealth/platform/portable.cpp " "the seam's files"
}

case_each_platform_implements_the_whole_seam() {
  # Every function platform.hpp declares is defined in each implementation: a port cannot be half a file.
  local dir="$MCPHEALTH_SOURCE_DIR/lib/mcphealth/platform" declared impl missing=""
  declared=$(grep -oP '^(?![ /}#]).*?\b\K[a-z_]+(?=\()' "$dir/platform.hpp" | grep -v '^set_program_name$' | sort -u)
  for impl in linux macos portable; do
    for fn in $declared; do
      grep -qP "^[^ /].*\\b$fn\\(" "$dir/$impl.cpp" || missing+=" $impl.cpp:$fn"
    done
  done
  [ -z "$missing" ] || fail "not implemented:$missing"
  [ "$(echo "$declared" | wc -w)" -ge 14 ] || fail "found only: $declared"
}

main "$@"
