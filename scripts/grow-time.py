#!/usr/bin/env python3
"""Times the browser following a session as it grows, as a user sees it:
opens SESSION in a pseudo-terminal, waits until --marker is drawn, turns
on following the leaf (alt+w), then appends --appends lines to the file,
one at a time, each a message child of the last entry, and prints for
each how long until its text is drawn and the CPU the browser spent from
the append until it was quiet again (no CPU for 300 ms), with its
resident memory then. The session file grows: run it on a copy, and
open that copy once before (a first open of a long session makes its
stored index in the background, and the CPU counted would include it).

usage: scripts/grow-time.py [--appends N] [--size COLSxROWS] [--env K=V ...]
                            [--marker TEXT] -- CMD [ARGS...] SESSION
prints one line per append: "ms cpu_ms rss_kb", then the medians.
"""
import argparse
import fcntl
import json
import os
import pty
import select
import signal
import statistics
import struct
import sys
import termios
import time


def cpu_ms(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Screen:
    """What the program has drawn so far, read as it comes."""

    def __init__(self, fd):
        self.fd, self.seen = fd, b""

    def pump(self, wait):
        r, _, _ = select.select([self.fd], [], [], wait)
        if r:
            try:
                self.seen += os.read(self.fd, 1 << 16)
            except OSError:
                pass

    def wait_for(self, text, timeout):
        start = time.perf_counter()
        while text.encode() not in self.seen:
            if time.perf_counter() - start > timeout:
                return None
            self.pump(0.005)
        return time.perf_counter() - start


def last_id(path):
    with open(path, "rb") as f:
        f.seek(max(0, os.path.getsize(path) - (1 << 16)))
        lines = [l for l in f.read().split(b"\n") if l.strip()]
    for line in reversed(lines):
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            return entry["id"]
    sys.exit(f"{path}: no entry with an id at its end")


def message(parent, k, tag):
    text = f"grown{tag}n{k}"
    entry = {
        "type": "message",
        "id": f"{tag}{k:04x}",
        "parentId": parent,
        "timestamp": "2026-12-18T12:00:00.000Z",
    }
    if k % 2:
        entry["message"] = {"role": "user", "content": text, "timestamp": 1797600000000}
    else:
        entry["message"] = {
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stopReason": "stop",
            "timestamp": 1797600000000,
        }
    return entry, text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--appends", type=int, default=5)
    ap.add_argument("--size", default="160x48")
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--marker", default="tokens used")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("cmd", nargs="+")
    a = ap.parse_args()
    cols, rows = map(int, a.size.split("x"))
    env = dict(os.environ, TERM="xterm-256color")
    for kv in a.env:
        k, v = kv.split("=", 1)
        env[k] = v
    session = a.cmd[-1]
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.execvpe(a.cmd[0], a.cmd, env)
    screen = Screen(fd)
    results = []
    try:
        if screen.wait_for(a.marker, a.timeout) is None:
            sys.exit(f"{a.marker!r} not drawn in {a.timeout} s")
        # Until the browser is quiet: the rows laid out, the size read.
        quiet(pid, screen)
        os.write(fd, b"\x1bw")
        if screen.wait_for("[follow]", 10) is None:
            sys.exit("following the leaf was not turned on (alt+w)")
        quiet(pid, screen)
        tag = format(os.getpid() & 0xFFFF, "x") + "g"
        parent = last_id(session)
        for k in range(a.appends):
            entry, text = message(parent, k, tag)
            before = cpu_ms(pid)
            with open(session, "a") as f:
                f.write(json.dumps(entry, separators=(",", ":")) + "\n")
            shown = screen.wait_for(text, a.timeout)
            if shown is None:
                sys.exit(f"append {k} not drawn in {a.timeout} s")
            quiet(pid, screen)
            results.append((shown * 1000, cpu_ms(pid) - before, rss_kb(pid)))
            print(f"{results[-1][0]:.0f} {results[-1][1]:.0f} {results[-1][2]}", flush=True)
            parent = entry["id"]
    finally:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
    med = [statistics.median(r[i] for r in results) for i in range(3)]
    print(f"median: {med[0]:.0f} ms to show, {med[1]:.0f} ms CPU, {med[2]:.0f} kB")


def quiet(pid, screen, still=0.3):
    """Waits until the program has used no CPU for `still` seconds."""
    last, since = cpu_ms(pid), time.perf_counter()
    while time.perf_counter() - since < still:
        screen.pump(0.02)
        now = cpu_ms(pid)
        if now != last:
            last, since = now, time.perf_counter()


if __name__ == "__main__":
    main()
