#!/usr/bin/env bash
# The release, made and checked as a user meets it: scripts/release into a scratch folder, every artifact there
# with its checksum, the commit carried by the source tarball, the formula naming the tarball's sha256, the macOS
# tarballs Mach-O of their architecture and marked "built, not run"; then npm's install from the release's own
# tarballs, offline (the names are not published: nothing may come from the registry, where anyone could claim
# them), into a scratch prefix: --version, install into a scratch HOME registering the native binary (never the
# node launcher), a hook call that blocks a dead server, uninstall, and npm uninstall leaving nothing.
# It refuses what it must first: a version not the project's, a tree with changes.
#   tests/release/check_release.sh        (.ci/run runs it on a fresh clone; a tree with changes is refused)
set -euo pipefail
cd "$(dirname "$0")/../.."
version=$(sed -n 's/^project(mcphealth VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
head=$(git rev-parse HEAD) # the commit the release is made from
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "check_release: FAIL: $*" >&2; exit 1; }
ok() { echo "check_release: $*"; }

# Refusals, exit 2, before anything is built.
set +e
err=$(./scripts/release 9.9.9 --out "$scratch/no" 2>&1); rc=$?
set -e
[ "$rc" -eq 2 ] && [[ "$err" == *"is not the project's version"* ]] || fail "another version: exit $rc: $err"
touch untracked-by-the-release-check
set +e
err=$(./scripts/release "$version" --out "$scratch/no" 2>&1); rc=$?
set -e
rm -f untracked-by-the-release-check
[ "$rc" -eq 2 ] && [[ "$err" == *"changes not committed"* ]] || fail "a dirty tree: exit $rc: $err"
ok "refuses another version and a tree with changes (exit 2)"

out="$scratch/release"
./scripts/release "$version" --out "$out" --url-base "https://example.invalid/v$version"
for f in "mcphealth-$version.tar.gz" "mcphealth-$version-linux-x64.tar.gz" "mcphealth_${version}_amd64.deb" \
  "mcphealth-$version-darwin-arm64.tar.gz" "mcphealth-$version-darwin-x64.tar.gz" SHA256SUMS mcphealth.rb \
  "mcphealth-$version.tgz" "mcphealth-linux-x64-$version.tgz" "mcphealth-darwin-arm64-$version.tgz" \
  "mcphealth-darwin-x64-$version.tgz"; do
  [ -s "$out/$f" ] || fail "no $f in the release"
done
(cd "$out" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not check"
[ "$(wc -l < "$out/SHA256SUMS")" -eq 10 ] || fail "SHA256SUMS names $(wc -l < "$out/SHA256SUMS") files, not 10"
commit=$(tar -xzOf "$out/mcphealth-$version.tar.gz" "mcphealth-$version/cmake/commit.txt")
[ "$commit" == "$head" ] || fail "the source tarball carries commit [$commit], not $head"
sha=$(sha256sum "$out/mcphealth-$version.tar.gz" | cut -d' ' -f1)
grep -q "sha256 \"$sha\"" "$out/mcphealth.rb" || fail "the formula does not name the source tarball's sha256"
grep -q "url \"https://example.invalid/v$version/mcphealth-$version.tar.gz\"" "$out/mcphealth.rb" || fail "the formula's url"
ruby -c "$out/mcphealth.rb" >/dev/null || fail "the formula does not parse"
for arch in arm64:ARM64 x64:X86_64; do
  name="mcphealth-$version-darwin-${arch%%:*}"
  tar -xzf "$out/$name.tar.gz" -C "$scratch"
  headers=$(llvm-objdump --macho --private-headers "$scratch/$name/bin/mcphealth") # whole: grep -q would cut the pipe
  grep -Eq "MH_MAGIC_64 +${arch#*:} " <<<"$headers" || fail "$name's front is not Mach-O ${arch#*:}"
  [ -e "$scratch/$name/libexec/mcphealth/mcphealth-full" ] || fail "$name has no full binary"
  grep -q "built, not run" "$scratch/$name/NOTES" || fail "$name's NOTES do not say it was not run"
done
ok "every artifact, its checksum, the commit, the formula and the macOS layouts"

# npm, offline, from the release's tarballs.
prefix="$scratch/npm-prefix"
home="$scratch/home"
mkdir -p "$prefix" "$home/.claude"
npm install -g --offline --no-audit --no-fund --loglevel=error --prefix "$prefix" \
  "$out/mcphealth-linux-x64-$version.tgz" "$out/mcphealth-$version.tgz" >/dev/null
mcphealth=$prefix/bin/mcphealth
[ "$("$mcphealth" --version)" == "mcphealth $version" ] || fail "npm's mcphealth --version: $("$mcphealth" --version 2>&1)"
native=$prefix/lib/node_modules/@mcphealth/linux-x64/bin/mcphealth
[ -x "$native" ] && [ -x "$prefix/lib/node_modules/@mcphealth/linux-x64/libexec/mcphealth/mcphealth-full" ] ||
  fail "the native binaries are not executable in their layout"
HOME=$home "$mcphealth" install >/dev/null
registered=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["hooks"]["PreToolUse"][0]["hooks"][0]["command"])' "$home/.claude/settings.json")
[ "$registered" == "$native hook --agent claude-code" ] || fail "install registered [$registered], not the native binary"
printf '{"mcpServers":{"gone":{"command":"%s/nothing-here"}}}' "$scratch" > "$home/.claude.json"
said=$(printf '{"hook_event_name":"PreToolUse","tool_name":"mcp__gone__echo","tool_input":{},"cwd":"%s"}' "$scratch" |
  HOME=$home $registered)
[[ "$said" == *'"permissionDecision":"deny"'* ]] || fail "the registered hook did not block a dead server: $said"
HOME=$home "$mcphealth" uninstall >/dev/null
npm uninstall -g --offline --loglevel=error --prefix "$prefix" mcphealth @mcphealth/linux-x64 >/dev/null
left=$(find "$prefix" -mindepth 1 \( -type f -o -type l \) | head -5)
[ -z "$left" ] || fail "npm uninstall -g left: $left"
ok "npm install -g --offline from the tarballs: --version, install registers $native, a dead server blocked, uninstall leaves nothing"
