#!/usr/bin/env python3
"""Writes the damaged-session corpus next to this script: one small .jsonl
file per case. Run it again after changing a case, then refresh the pinned
answers with `UPDATE_EXPECTED=1 cargo test --test integration format::damaged_files`.

Every case is described in README.md.
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
CWD = "/tmp/proj"


def j(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def ts(sec):
    return "2025-01-01T00:00:%02d.000Z" % sec


def ms(sec):
    return 1735689600000 + sec * 1000


def header(name, version=3, **extra):
    h = {"type": "session"}
    if version is not None:
        h["version"] = version
    h.update({"id": "sess-" + name, "timestamp": ts(0), "cwd": CWD})
    h.update(extra)
    return j(h)


def msg(id, parent, sec, role, content, **extra):
    m = {"role": role, "content": content, "timestamp": ms(sec)}
    m.update(extra)
    return j({"type": "message", "id": id, "parentId": parent, "timestamp": ts(sec), "message": m})


def user(id, parent, sec, text):
    return msg(id, parent, sec, "user", text)


def assistant(id, parent, sec, text):
    return msg(
        id,
        parent,
        sec,
        "assistant",
        [{"type": "text", "text": text}],
        provider="anthropic",
        model="claude-sonnet-4-5",
        stopReason="stop",
    )


def entry(type, id, parent, sec, **fields):
    e = {"type": type, "id": id, "parentId": parent, "timestamp": ts(sec)}
    e.update(fields)
    return j(e)


def lines(*ls, end="\n"):
    return ("\n".join(ls) + end).encode()


cases = {}

# --- files that are not sessions -------------------------------------------
cases["empty"] = b""
cases["header_only"] = lines(header("header_only"))
cases["not_a_session"] = lines(user("a1", None, 1, "no header here"), user("a2", "a1", 2, "still none"))
rng = random.Random(20250101)
garbage = bytes(rng.choice([b for b in range(256) if b != 0x0A]) for _ in range(256))
cases["binary_garbage"] = b"\xff\xfe\x00" + garbage  # starts with bytes that are never UTF-8
cases["invalid_first_line"] = lines(
    '{"type":"session","id":"sess-broken",',
    header("invalid_first_line"),
    user("a1", None, 1, "after a broken first line"),
)

# --- line structure ---------------------------------------------------------
cases["bom"] = b"\xef\xbb\xbf" + lines(header("bom"), user("a1", None, 1, "after a BOM"))
cases["crlf"] = lines(
    header("crlf"), user("a1", None, 1, "windows"), assistant("a2", "a1", 2, "line ends"), end="\r\n"
).replace(b"\n", b"\r\n").replace(b"\r\r\n", b"\r\n")
cases["blank_lines"] = lines(
    header("blank_lines"), "", user("a1", None, 1, "one"), "   ", "\t", assistant("a2", "a1", 2, "two"), ""
)
cases["last_line_complete_no_newline"] = lines(
    header("last_line_complete_no_newline"),
    user("a1", None, 1, "one"),
    assistant("a2", "a1", 2, "no newline after me"),
    end="",
)
cases["last_line_incomplete"] = lines(
    header("last_line_incomplete"),
    user("a1", None, 1, "one"),
    '{"type":"message","id":"a2","parentId":"a1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assi',
    end="",
)

# --- damaged lines ----------------------------------------------------------
cases["invalid_json_middle"] = lines(
    header("invalid_json_middle"),
    user("a1", None, 1, "before"),
    '{"type":"message","id":"bad","parentId":"a1",',
    "not json at all",
    assistant("a2", "a1", 2, "after"),
)
cases["not_utf8_in_string"] = (
    lines(header("not_utf8_in_string"))
    + user("a1", None, 1, "caf@ bytes: @@").encode().replace(b"@", b"\xe9", 1).replace(b"@@", b"\xff\xc3")
    + b"\n"
    + lines(assistant("a2", "a1", 2, "fine"))
)
cases["not_an_object"] = lines(
    header("not_an_object"), user("a1", None, 1, "before"), "[1,2]", assistant("a2", "a1", 2, "after")
)
cases["null_line"] = lines(header("null_line"), user("a1", None, 1, "before"), "null", assistant("a2", "a1", 2, "after"))
cases["extra_header"] = lines(
    header("extra_header"),
    user("a1", None, 1, "before"),
    header("extra_header_second"),
    assistant("a2", "a1", 2, "after"),
)

cases["scalar_lines"] = lines(
    header("scalar_lines"),
    user("a1", None, 1, "before"),
    "42",
    '"a string"',
    "true",
    "false",
    "0",
    '""',
    assistant("a2", "a1", 2, "after"),
)
cases["array_line_like_entry"] = lines(
    header("array_line_like_entry"),
    user("a1", None, 1, "before"),
    j(["message", "zz", None, ts(5), {"role": "user", "content": "from an array"}]),
)
cases["entry_without_type"] = lines(
    header("entry_without_type"),
    user("a1", None, 1, "before"),
    j({"id": "t1", "parentId": "a1", "timestamp": ts(2)}),
)
cases["message_without_body"] = lines(
    header("message_without_body"),
    user("a1", None, 1, "before"),
    j({"type": "message", "id": "m1", "parentId": "a1", "timestamp": ts(2)}),
    j({"type": "message", "id": "m2", "parentId": "m1", "timestamp": ts(3), "message": "just a string"}),
)
cases["message_body_null"] = lines(
    header("message_body_null"),
    user("a1", None, 1, "before"),
    assistant("a2", "a1", 2, "sets the model"),
    j({"type": "message", "id": "m1", "parentId": "a2", "timestamp": ts(3), "message": None}),
)
cases["name_not_a_string"] = lines(
    header("name_not_a_string"),
    user("a1", None, 1, "one"),
    entry("session_info", "n1", "a1", 2, name="  named  "),
    entry("session_info", "n2", "n1", 3, name=5),
)
cases["label_not_a_string"] = lines(
    header("label_not_a_string"),
    user("a1", None, 1, "one"),
    entry("label", "l1", "a1", 2, targetId="a1", label=5),
    entry("label", "l2", "l1", 3, targetId="l1", label=["x"]),
)

cases["odd_types"] = lines(
    header("odd_types"),
    user("u1", None, 1, "one"),
    entry(5, "t1", "u1", 2),
    entry(None, "t2", "t1", 3),
    entry({"a": [1, {"b": None}]}, "t3", "t2", 4),
    '{"type":"x\\ud83d","id":"t4","parentId":"t3","timestamp":"%s"}' % ts(5),
    entry("thinking_level_change", "k1", "t4", 6, thinkingLevel={"level": ["high"]}),
    '{"type":"model_change","id":"m1","parentId":"k1","timestamp":"%s","provider":true,"modelId":[1,"\\udc00"]}' % ts(7),
)
cases["odd_message_model"] = lines(
    header("odd_message_model"),
    user("u1", None, 1, "one"),
    entry("thinking_level_change", "k1", "u1", 2),
    msg("a1", "k1", 3, "assistant", [{"type": "text", "text": "hi"}], provider={"p": 1}, model=7),
)
cases["summary_not_a_string"] = lines(
    header("summary_not_a_string"),
    user("u1", None, 1, "one"),
    entry("branch_summary", "b1", "u1", 2, fromId="u1", summary=["left", {"behind": True}]),
    entry("branch_summary", "b2", "b1", 3, fromId="u1", summary=0),
    entry("branch_summary", "b3", "b2", 4, fromId="u1", summary=5),
    entry("branch_summary", "b4", "b3", 5, fromId="u1", summary=False),
)

cases["edit_without_target"] = lines(
    header("edit_without_target"),
    user("u1", None, 1, "one"),
    j({"type": "context_edit", "id": "e1", "parentId": "u1", "timestamp": ts(2), "replacement": {"content": "edited: the edit has no targetId, the message no id"}}),
    j({"type": "message", "parentId": "e1", "timestamp": ts(3), "message": {"role": "user", "content": "no id", "timestamp": ms(3)}}),
)
cases["edit_without_replacement"] = lines(
    header("edit_without_replacement"),
    user("u1", None, 1, "loses its content"),
    assistant("a1", "u1", 2, "untouched"),
    entry("context_edit", "e1", "a1", 3, targetId="u1"),
)

# --- broken tree structure --------------------------------------------------
cases["parent_cycle"] = lines(
    header("parent_cycle"),
    user("r", None, 1, "root"),
    user("a", "b", 2, "a says b is my parent"),
    assistant("b", "a", 3, "b says a is my parent"),
)
cases["loop_through_missing_parent"] = lines(
    header("loop_through_missing_parent"),
    user("r", None, 1, "root"),
    j({"type": "message", "id": "a", "timestamp": ts(2), "message": {"role": "user", "content": "no parentId: in the tree, under the entry without id", "timestamp": ms(2)}}),
    assistant("b", "a", 3, "under a"),
    j({"type": "message", "parentId": "b", "timestamp": ts(4), "message": {"role": "user", "content": "no id, under b: the tree loops, the walk to the root ends at a", "timestamp": ms(4)}}),
)
cases["self_parent"] = lines(
    header("self_parent"), user("r", None, 1, "root"), assistant("a", "a", 2, "my own parent")
)
cases["duplicate_id_loop"] = lines(
    header("duplicate_id_loop"),
    user("x", None, 1, "A: x, root"),
    assistant("y", "x", 2, "B: y under x"),
    user("x", "y", 3, "C: x again, under y"),
)
cases["duplicate_id"] = lines(
    header("duplicate_id"),
    user("x", None, 1, "root"),
    assistant("y", "x", 2, "first y, under x"),
    user("z", "x", 3, "z under x"),
    assistant("y", "z", 4, "second y, under z"),
)

# --- odd fields ---------------------------------------------------------------
cases["invalid_timestamps"] = lines(
    header("invalid_timestamps"),
    user("r", None, 1, "root"),
    entry("message", "c1", "r", 9, message={"role": "user", "content": "valid, late"}),
    j({"type": "message", "id": "c2", "parentId": "r", "timestamp": "yesterday", "message": {"role": "user", "content": "yesterday"}}),
    j({"type": "message", "id": "c3", "parentId": "r", "timestamp": ms(5), "message": {"role": "user", "content": "a number"}}),
    j({"type": "message", "id": "c4", "parentId": "r", "message": {"role": "user", "content": "no timestamp"}}),
    entry("message", "c5", "r", 3, message={"role": "user", "content": "valid, early"}),
)
cases["array_timestamps"] = lines(
    header("array_timestamps"),
    user("r", None, 1, "root"),
    j({"type": "message", "id": "c1", "parentId": "r", "timestamp": [ts(7)], "message": {"role": "user", "content": "[iso of 7 s]"}}),
    j({"type": "message", "id": "c2", "parentId": "r", "timestamp": ts(5), "message": {"role": "user", "content": "iso of 5 s"}}),
    j({"type": "message", "id": "c3", "parentId": "r", "timestamp": [[ts(6)], None], "message": {"role": "user", "content": "[[iso of 6 s], null]: joined with a comma, not a date"}}),
    j({"type": "message", "id": "c4", "parentId": "r", "timestamp": [], "message": {"role": "user", "content": "[]"}}),
    j({"type": "message", "id": "c5", "parentId": "r", "timestamp": [[[ts(2)]]], "message": {"role": "user", "content": "[[[iso of 2 s]]]"}}),
    j({"type": "branch_summary", "id": "b1", "parentId": "r", "timestamp": ["2025/01/01 00:00:08"], "fromId": "c1", "summary": "a summary whose time is an array"}),
)
cases["name_trim"] = lines(
    header("name_trim"),
    user("a1", None, 1, "one"),
    entry("session_info", "n1", "a1", 2, name="\u3000\u00a0\u0085 named \u200b\ufeff\u2028"),
)
cases["name_lone_surrogate"] = lines(
    header("name_lone_surrogate"),
    user("a1", None, 1, "one"),
    '{"type":"session_info","id":"n1","parentId":"a1","timestamp":"%s","name":"\\u3000\\ud83d named\\t"}' % ts(2),
)
cases["label_missing_target"] = lines(
    header("label_missing_target"),
    user("a1", None, 1, "one"),
    entry("label", "l1", "a1", 2, targetId="nope", label="ghost"),
    entry("label", "l2", "l1", 3, targetId="a1", label="real"),
)
cases["label_cleared"] = lines(
    header("label_cleared"),
    user("a1", None, 1, "one"),
    assistant("a2", "a1", 2, "two"),
    entry("label", "l1", "a2", 3, targetId="a1", label="first"),
    entry("label", "l2", "l1", 4, targetId="a2", label="second"),
    entry("label", "l3", "l2", 5, targetId="a1", label=""),
    entry("label", "l4", "l3", 6, targetId="a2"),
    entry("label", "l5", "l4", 7, targetId="a2", label="again"),
    entry("label", "l6", "l5", 8, targetId="l5", label="on a label"),
    entry("label", "l7", "l6", 9, targetId="l6", label=None),
)
cases["compaction_first_kept_missing"] = lines(
    header("compaction_first_kept_missing"),
    user("u1", None, 1, "one"),
    assistant("a1", "u1", 2, "two"),
    user("u2", "a1", 3, "three"),
    entry("compaction", "c1", "u2", 4, summary="summary of one..three", firstKeptEntryId="zzz", tokensBefore=1234),
    user("u3", "c1", 5, "after the compaction"),
)
cases["compaction_retained_tail"] = lines(
    header("compaction_retained_tail"),
    user("u1", None, 1, "one"),
    assistant("a1", "u1", 2, "two"),
    entry(
        "compaction",
        "c1",
        "a1",
        3,
        summary="summary of one and two",
        firstKeptEntryId="a1",
        tokensBefore=500,
        systemMessage={"role": "system", "content": "you are pi", "timestamp": ms(3)},
        retainedTail=[
            {"role": "user", "content": "tail user", "timestamp": ms(1)},
            {"role": "assistant", "content": [{"type": "text", "text": "tail reply"}], "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "stop", "timestamp": ms(2)},
        ],
    ),
    user("u2", "c1", 4, "after the compaction"),
)
cases["context_edit"] = lines(
    header("context_edit"),
    user("u1", None, 1, "drop me"),
    assistant("a1", "u1", 2, "long answer"),
    user("u2", "a1", 3, "keep me"),
    assistant("a2", "u2", 4, "second answer"),
    entry("context_edit", "e1", "a2", 5, targetId="u1", replacement=None),
    entry("context_edit", "e2", "e1", 6, targetId="a1", replacement={"content": "first edit"}),
    entry("context_edit", "e3", "e2", 7, targetId="a1", replacement={"content": "shortened"}),
    entry("context_edit", "e4", "e3", 8, targetId="u2", replacement={"content": "user edit stays a string"}),
)
cases["unknown_type_and_role"] = lines(
    header("unknown_type_and_role"),
    user("u1", None, 1, "one"),
    entry("frobnicate", "f1", "u1", 2, data={"x": 1}),
    msg("w1", "f1", 3, "wizard", "a role pi does not know"),
    assistant("a1", "w1", 4, "after"),
)
cases["message_content_null"] = lines(
    header("message_content_null"),
    msg("s1", None, 1, "system", None),
    msg("u1", "s1", 2, "user", None),
    msg("a1", "u1", 3, "assistant", None, provider="anthropic", model="claude-sonnet-4-5"),
    msg("t1", "a1", 4, "toolResult", None, toolCallId="call1", toolName="bash"),
    j({"type": "message", "id": "u2", "parentId": "t1", "timestamp": ts(5), "message": {"role": "user", "timestamp": ms(5)}}),
    entry("custom_message", "cm1", "u2", 6, customType="ext", content=None, display=True),
)

# --- legacy versions ----------------------------------------------------------
cases["legacy_v1"] = lines(
    header("legacy_v1", version=None),
    j({"type": "message", "timestamp": ts(1), "message": {"role": "user", "content": "v1 one", "timestamp": ms(1)}}),
    j({"type": "message", "timestamp": ts(2), "message": {"role": "assistant", "content": [{"type": "text", "text": "v1 two"}], "provider": "anthropic", "model": "claude-3", "stopReason": "stop", "timestamp": ms(2)}}),
    j({"type": "message", "timestamp": ts(3), "message": {"role": "user", "content": "v1 three", "timestamp": ms(3)}}),
    j({"type": "thinking_level_change", "timestamp": ts(4), "thinkingLevel": "high"}),
    j({"type": "compaction", "timestamp": ts(5), "summary": "v1 summary", "firstKeptEntryIndex": 3, "tokensBefore": 99}),
    j({"type": "message", "timestamp": ts(6), "message": {"role": "user", "content": "v1 after", "timestamp": ms(6)}}),
)
cases["legacy_non_object"] = lines(
    header("legacy_non_object", version=None),
    j({"type": "message", "timestamp": ts(1), "message": {"role": "user", "content": "v1 one", "timestamp": ms(1)}}),
    "1",
    '"a string"',
    "true",
    j({"type": "message", "timestamp": ts(2), "message": {"role": "user", "content": "v1 after", "timestamp": ms(2)}}),
)
cases["v2_hook_message"] = lines(
    header("v2_hook_message", version=2),
    user("u1", None, 1, "one"),
    msg("h1", "u1", 2, "hookMessage", "from a hook", customType="my-hook", display=True),
    assistant("a1", "h1", 3, "after the hook"),
)

# --- valid JSON serde_json refuses or reads differently from JavaScript -------
# Every line here is valid JSON that pi reads: none may be dropped.
cases["lone_surrogate"] = lines(
    header("lone_surrogate"),
    user("u1", None, 1, "one"),
    '{"type":"message","id":"u2","parentId":"u1","timestamp":"%s","message":{"role":"user","content":"half an emoji \\ud83d here","timestamp":%d}}' % (ts(2), ms(2)),
    '{"type":"message","id":"x\\ud83d","parentId":"u2","timestamp":"%s","message":{"role":"user","content":"an id with a lone surrogate","timestamp":%d}}' % (ts(3), ms(3)),
    '{"type":"label","id":"l1","parentId":"x\\ud83d","timestamp":"%s","targetId":"u2","label":"mark \\udc00"}' % ts(4),
)
cases["number_out_of_range"] = lines(
    header("number_out_of_range"),
    user("u1", None, 1, "one"),
    '{"type":"message","id":"a1","parentId":"u1","timestamp":"%s","message":{"role":"assistant","content":[{"type":"text","text":"big usage"}],"provider":"p","model":"m","usage":{"input":1e400,"output":-1e400},"timestamp":%d}}' % (ts(2), ms(2)),
    '{"type":"message","id":"u2","parentId":"a1","timestamp":1e400,"message":{"role":"user","content":"a timestamp beyond f64","timestamp":1e400}}',
    '{"type":"compaction","id":"c1","parentId":"u2","timestamp":"%s","summary":"s","firstKeptEntryId":"u2","tokensBefore":1e400}' % ts(4),
)
cases["duplicate_keys"] = lines(
    header("duplicate_keys"),
    user("u1", None, 1, "one"),
    '{"type":"message","id":"u2","id":"u3","parentId":"u1","timestamp":"%s","message":{"role":"user","content":"first","content":"last wins","timestamp":%d},"parentId":"u1"}' % (ts(2), ms(2)),
    '{"type":"custom","type":"message","id":"u4","parentId":"u3","timestamp":"%s","message":{"role":"user","content":"the later type wins","timestamp":%d}}' % (ts(3), ms(3)),
    '{"type":"message","id":"u5","parentId":"u4","parentId":"u3","timestamp":"%s","message":{"role":"user","content":"a repeated key and a number beyond f64","timestamp":%d,"n":1e400}}' % (ts(4), ms(4)),
)
cases["deep_nesting"] = lines(
    header("deep_nesting"),
    user("u1", None, 1, "one"),
    '{"type":"message","id":"u2","parentId":"u1","timestamp":"%s","message":{"role":"user","content":"depth 129 below","timestamp":%d,"details":%s%s}}' % (ts(2), ms(2), "[" * 129, "]" * 129),
    '{"type":"custom","id":"c1","parentId":"u2","timestamp":"%s","customType":"x","data":%s1%s}' % (ts(3), '{"a":' * 1000, "}" * 1000),
    '{"type":"message","id":"u3","parentId":"c1","timestamp":"%s","message":{"role":"user","content":"after the deep ones","timestamp":%d},"x":%s%s,"id":"u4"}' % (ts(4), ms(4), "[" * 1000, "]" * 1000),
)
cases["truthy_non_objects"] = lines(
    header("truthy_non_objects"),
    user("u1", None, 1, "one"),
    "1",
    user("u2", "u1", 2, "two"),
    "true",
    "[]",
    '"a string"',
    user("u3", "u2", 3, "three"),
)
cases["truthy_non_object_last"] = lines(
    header("truthy_non_object_last"),
    user("u1", None, 1, "one"),
    "[1,2]",
)
cases["odd_ids_and_parents"] = lines(
    header("odd_ids_and_parents"),
    j({"type": "message", "id": 1, "parentId": None, "timestamp": ts(1), "message": {"role": "user", "content": "id 1, a number", "timestamp": ms(1)}}),
    j({"type": "message", "id": "1", "parentId": 1, "timestamp": ts(2), "message": {"role": "user", "content": "id \"1\", under the number 1", "timestamp": ms(2)}}),
    j({"type": "message", "id": True, "parentId": "1", "timestamp": ts(3), "message": {"role": "user", "content": "id true", "timestamp": ms(3)}}),
    j({"type": "message", "id": "e1", "parentId": True, "timestamp": ts(4), "message": {"role": "user", "content": "under true", "timestamp": ms(4)}}),
    j({"type": "message", "id": [1], "parentId": "e1", "timestamp": ts(5), "message": {"role": "user", "content": "an array id", "timestamp": ms(5)}}),
    j({"type": "label", "id": "l1", "parentId": "e1", "timestamp": ts(6), "targetId": 1, "label": "on the number"}),
)
cases["falsy_parents"] = lines(
    header("falsy_parents"),
    user("", None, 1, "the empty id"),
    user("u1", "", 2, "parent is the empty string: a child in the tree, a root for the path"),
    j({"type": "message", "id": False, "parentId": "u1", "timestamp": ts(3), "message": {"role": "user", "content": "id false", "timestamp": ms(3)}}),
    user("u2", False, 4, "parent false"),
    user("u3", "u2", 5, "the leaf"),
)
cases["missing_parent"] = lines(
    header("missing_parent"),
    user("u1", None, 1, "one"),
    j({"type": "message", "parentId": "u1", "timestamp": ts(2), "message": {"role": "user", "content": "no id", "timestamp": ms(2)}}),
    j({"type": "message", "id": "u2", "timestamp": ts(3), "message": {"role": "user", "content": "no parentId: pi's tree puts it under the entry without id", "timestamp": ms(3)}}),
)
for name, version in [("version_string_2", "2"), ("version_string_3", "3"), ("version_true", True), ("version_empty_array", []), ("version_nan", "abc")]:
    cases[name] = lines(
        header(name, version=version),
        user("u1", None, 1, "one"),
        msg("h1", "u1", 2, "hookMessage", "a legacy hook message", customType="my-hook", display=True),
    )

if __name__ == "__main__":
    for name, data in cases.items():
        with open(os.path.join(HERE, name + ".jsonl"), "wb") as f:
            f.write(data)
    print(f"wrote {len(cases)} cases")
