#!/usr/bin/env python3
"""Compares piscope's --json answers on the damaged corpus with pi's own
(the conformance oracle). Run from the crate root after
`cargo build --release` and `tests/pi/install.sh` (or `scripts/test`):

    python3 tests/data/damaged/compare_with_pi.py [FILE.jsonl ...]

pi hangs on parentId loops, so each oracle call runs under `timeout 5`
(reported as HANG). Ids a legacy (v1) migration makes up are random in pi, so
8-hex ids are renamed in order of appearance before comparing.
"""
import glob
import json
import os
import re
import subprocess
import sys

PISCOPE = "target/release/piscope"
ORACLE = "tests/pi/oracle.mjs"
env = dict(os.environ)
env.setdefault("PI_REF_DIR", os.path.abspath("target/pi-reference"))
# The node scripts/test installs when the machine's is older than pi wants.
LOCAL_NODE = os.path.abspath("target/node/node_modules/.bin")
if os.path.isdir(LOCAL_NODE):
    env["PATH"] = LOCAL_NODE + os.pathsep + env.get("PATH", "")


def oracle(cmd, f):
    p = subprocess.run(["timeout", "5", "node", ORACLE, cmd, f], capture_output=True, text=True, env=env)
    if p.returncode == 124:
        return ("HANG", None)
    if p.returncode != 0:
        errors = [l for l in p.stderr.splitlines() if "Error" in l]
        return ("ERROR", errors[0].strip() if errors else p.returncode)
    return ("OK", json.loads(p.stdout))


def piscope(cmd, f):
    p = subprocess.run([PISCOPE, cmd, f, "--json"], capture_output=True)
    if p.returncode != 0:
        return ("ERROR", p.stderr.decode(errors="replace").strip())
    return ("OK", json.loads(p.stdout.decode(errors="replace")))


def norm(answer, legacy):
    text = json.dumps(answer)
    if legacy:
        names = {}
        text = re.sub(r'"[0-9a-f]{8}"', lambda m: names.setdefault(m.group(0), '"ID%d"' % len(names)), text)
    return text


files = sys.argv[1:] or sorted(glob.glob("tests/data/damaged/*.jsonl"))
for f in files:
    name = os.path.basename(f)
    legacy = name.startswith("legacy_")
    for cmd in ["tree", "info", "context"]:
        o, p = oracle(cmd, f), piscope(cmd, f)
        if o[0] == p[0] == "OK" and norm(o[1], legacy) == norm(p[1], legacy):
            print(f"{name:38} {cmd:8} same")
        elif o[0] == p[0] == "ERROR":
            print(f"{name:38} {cmd:8} both refuse")
        else:
            print(f"{name:38} {cmd:8} DIFFERENT")
            print("    pi     :", json.dumps(o)[:1200])
            print("    piscope:", json.dumps(p)[:1200])
