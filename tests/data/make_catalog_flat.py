#!/usr/bin/env python3
"""Writes tests/data/catalog-flat/: a custom (flat) sessions folder of small files
that probe pi's session-list rules: which files it lists and which its reader
throws on, and how each field is computed. Expected answers come from pi
(tests/data/golden/regenerate-catalog.mjs)."""
import json, os, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "catalog-flat")
shutil.rmtree(OUT, ignore_errors=True)
os.makedirs(OUT)

def header(i, ts="2026-02-01T10:00:00.000Z", cwd="/home/ada/flat", **kw):
    h = {"type": "session", "version": 3, "id": f"0000000{i}-aaaa-bbbb-cccc-dddddddddddd", "timestamp": ts, "cwd": cwd}
    h.update(kw)
    return json.dumps(h, ensure_ascii=False)

def msg(id, parent, role, content, ts="2026-02-01T10:01:00.000Z", **extra):
    m = {"role": role}
    if content is not ...:
        m["content"] = content
    m.update(extra)
    return json.dumps({"type": "message", "id": id, "parentId": parent, "timestamp": ts, "message": m}, ensure_ascii=False)

def write(name, lines, end="\n", raw=None):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(raw if raw is not None else (end.join(lines) + end).encode())

write("2026-02-01T10-00-00-001Z_plain.jsonl", [
    header(1),
    msg("a1", None, "user", [{"type": "text", "text": "fix the parser"}, {"type": "image", "data": "AA=="}, {"type": "text", "text": "please"}]),
    msg("a2", "a1", "assistant", [{"type": "thinking", "thinking": "hm"}, {"type": "text", "text": "done"}], ts="2026-02-01T10:02:00.000Z"),
    json.dumps({"type": "session_info", "id": "a3", "parentId": "a2", "timestamp": "2026-02-01T10:03:00.000Z", "name": "  Parser work  "}),
])
write("2026-02-01T10-00-00-002Z_no-body.jsonl", [header(2), json.dumps({"type": "message", "id": "b1", "parentId": None, "timestamp": "2026-02-01T10:01:00.000Z"})])
write("2026-02-01T10-00-00-003Z_numeric-name.jsonl", [header(3), json.dumps({"type": "session_info", "id": "c1", "parentId": None, "name": 5})])
write("2026-02-01T10-00-00-004Z_content-null.jsonl", [header(4), msg("d1", None, "user", None)])
write("2026-02-01T10-00-00-005Z_block-null.jsonl", [header(5), msg("e1", None, "user", [None])])
write("2026-02-01T10-00-00-006Z_not-a-session.jsonl", [msg("f1", None, "user", "hi"), header(6)])
write("2026-02-01T10-00-00-007Z_empty.jsonl", [], raw=b"")
write("2026-02-01T10-00-00-008Z_falsy-first.jsonl", ["", "null", "0", '""', header(8), msg("h1", None, "user", "after the blanks")])
write("2026-02-01T10-00-00-009Z_damaged.jsonl", [header(9), "{not json", msg("i1", None, "user", "still here"), "[1,2]", "7", msg("i2", "i1", "assistant", "ok", ts="2026-02-01T11:00:00.000Z")])
write("2026-02-01T10-00-00-010Z_unfinished.jsonl", [header(10), msg("j1", None, "user", "last line has no newline")], end="\n", raw=(header(10) + "\n" + msg("j1", None, "user", "last line has no newline")).encode())
write("2026-02-01T10-00-00-011Z_times.jsonl", [header(11, ts="not a date"), msg("k1", None, "user", "numeric message time", timestamp=1767225600123.7)])
write("2026-02-01T10-00-00-012Z_far-time.jsonl", [header(12), msg("l1", None, "user", "far future", timestamp=1e20)])
write("2026-02-01T10-00-00-013Z_odd-text.jsonl", [header(13), msg("m1", None, "user", [{"type": "text", "text": 5}, {"type": "text"}, {"type": "text", "text": [1, None, "x"]}, {"type": "text", "text": {"a": 1}}, "loose", 7])])
write("2026-02-01T10-00-00-014Z_odd-header.jsonl", [header(14, cwd=42, parentSession="/elsewhere/a.jsonl"), msg("n1", None, "assistant", "assistant first"), msg("n2", "n1", "user", "then the user")])
write("2026-02-01T10-00-00-015Z_crlf.jsonl", [header(15), msg("o1", None, "user", "windows line ends")], end="\r\n")
write("2026-02-01T10-00-00-016Z_name-cleared.jsonl", [
    header(16),
    json.dumps({"type": "session_info", "id": "p1", "parentId": None, "name": "first"}),
    json.dumps({"type": "session_info", "id": "p2", "parentId": "p1", "name": "   "}),
    msg("p3", "p2", "toolResult", [{"type": "text", "text": "tool output is not listed"}]),
    msg("p4", "p3", "user", ..., timestamp=1767225600000),
])
write("2026-02-01T10-00-00-017Z_other-cwd.jsonl", [header(17, cwd="/home/ada/other"), msg("q1", None, "user", "from another project ünïcødé 项目")])
write("2026-02-01T10-00-00-018Z_no-messages.jsonl", [header(18, ts="2026-03-01T00:00:00.000+02:00")])
with open(os.path.join(OUT, "notes.txt"), "w") as f:
    f.write("not a session file\n")
os.makedirs(os.path.join(OUT, "sub.jsonl"))
print(f"wrote {len(os.listdir(OUT))} entries in {OUT}")
