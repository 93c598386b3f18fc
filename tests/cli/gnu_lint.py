#!/usr/bin/env python3
"""Flags what the CLI test scripts use that a Mac's own tools lack: GNU-only options (sed -i without a suffix,
stat -c, date -d, timeout, ...) and Linux's /proc. A script that uses any says so in one header line,

    # Needs: GNU date, GNU stat

naming exactly what it uses. Exit 1, with each difference, when a script uses what it does not name or names what
it does not use. `--list` prints each script that needs anything, as docs/developing.md lists them."""
import pathlib
import re
import sys

RULES = [
    (re.compile(r"\bsed -i(?! '')"), "GNU sed"),
    (re.compile(r"\bstat -c\b"), "GNU stat"),
    (re.compile(r"\bdate( -[a-zA-Z]+)* (-d|--\w)"), "GNU date"),
    (re.compile(r"(^|[\s;(|&!\"'])timeout [0-9]"), "GNU timeout"),
    (re.compile(r"/usr/bin/time -[fvo]"), "GNU time"),
    (re.compile(r"\breadlink -f\b"), "GNU readlink"),
    (re.compile(r"\bbase64 -w"), "GNU base64"),
    (re.compile(r"\bgrep -[a-zA-Z]*P"), "GNU grep"),
    (re.compile(r"\s-printf\b"), "GNU find"),
    (re.compile(r"\bxargs -r\b"), "GNU xargs"),
    (re.compile(r"\bls --\w"), "GNU ls"),
    (re.compile(r"\btouch -d ['\"]?@"), "GNU touch"),
    (re.compile(r"/proc/"), "Linux's /proc"),
]
HEADER = re.compile(r"^# Needs: (.*)$")


def needs(path):
    used, named = set(), None
    for line in path.read_text().splitlines():
        m = HEADER.match(line)
        if m:
            named = {n.strip() for n in m.group(1).split(",") if n.strip()}
            continue
        code = line.split(" #", 1)[0]
        if code.lstrip().startswith("#"):
            continue
        for rule, what in RULES:
            if rule.search(code):
                used.add(what)
    return used, named or set()


def main():
    folder = pathlib.Path(__file__).resolve().parent
    scripts = sorted(folder.glob("*.sh"))
    if sys.argv[1:] == ["--list"]:
        for s in scripts:
            used, _ = needs(s)
            if used:
                print("- `tests/cli/%s`: %s" % (s.name, ", ".join(sorted(used))))
        return 0
    bad = 0
    for s in scripts:
        used, named = needs(s)
        if used - named:
            print("%s uses %s but its '# Needs:' line does not say so" % (s.name, ", ".join(sorted(used - named))))
            bad = 1
        if named - used:
            print("%s names %s in its '# Needs:' line but uses none of it" % (s.name, ", ".join(sorted(named - used))))
            bad = 1
    return bad


sys.exit(main())
