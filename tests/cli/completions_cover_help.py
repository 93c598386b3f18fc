#!/usr/bin/env python3
"""Checks that every long option `mcphealth SUB --help` lists is offered by each completion (bash, zsh, fish) for
SUB; prints what is missing and exits 1 when anything is.

  completions_cover_help.py BINARY SOURCE_DIR
"""
import re, subprocess, sys
bin_, src = sys.argv[1], sys.argv[2]
# Every command --help lists: one added is covered without touching this file.
top = subprocess.run([bin_, "--help"], capture_output=True, text=True).stdout
subs = [l.split()[0] for l in top.split("Subcommands:", 1)[1].splitlines() if l.strip()]
assert "hook" in subs and "install" in subs, subs
bash = open(src+"/completions/mcphealth.bash").read()
zsh = open(src+"/completions/_mcphealth").read()
fish = open(src+"/completions/mcphealth.fish").read()
bad = []
for sub in subs:
    help_ = subprocess.run([bin_, sub, "--help"], capture_output=True, text=True).stdout
    opts = set()
    for line in help_.splitlines():
        m = re.match(r"^\s{2}(-\w,)?(--[\w-]+)", line)
        if m: opts.add(m.group(2))
    opts.discard("--help")
    m = re.search(r"\n\s*%s\)\s*(?:\n\s*)?opts=\"([^\"]*)\"" % re.escape(sub), bash)
    bopts = set(m.group(1).split()) if m else set()
    m = re.search(r"\n\s*%s\)\n\s*_arguments(.*?);;" % re.escape(sub), zsh, re.S)
    zopts = set(re.findall(r"(--[\w-]+)(?:\[|\}')", m.group(1))) if m else set()
    fopts = set()
    for line in fish.splitlines():
        m2 = re.search(r'__fish_seen_subcommand_from ([^"]*)"', line)
        if m2 and sub in m2.group(1).split():
            fopts |= {"--"+x for x in re.findall(r"-l ([\w-]+)", line)}
    for name, have in (("bash", bopts), ("zsh", zopts), ("fish", fopts)):
        missing = sorted(opts - have)
        if missing: bad.append("%s %s: %s" % (name, sub, " ".join(missing)))
print("\n".join(bad))
sys.exit(1 if bad else 0)
