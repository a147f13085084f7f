#!/usr/bin/env python3
"""Times the browser as a user sees it: starts a command in a pseudo-terminal
of the given size, reads what it draws, and prints how long until every
marker has been drawn (the terminal's own bytes, so to the millisecond),
with the process's resident memory then (VmRSS) and its peak (VmHWM); then
quits it. Several commands (or one several times) run in turn, interleaved.

usage: scripts/screen-time.py [--runs N] [--size COLSxROWS] [--env K=V ...]
                              [--wait-glob PATTERN] --marker TEXT [--marker TEXT ...]
                              -- CMD [ARGS...]
--wait-glob keeps the program running, once the markers are drawn, until a
file matching PATTERN exists (what it writes after drawing, e.g. an index).
prints one line per run: "ms rss_kb hwm_kb", then the medians.
"""
import argparse
import fcntl
import glob
import os
import pty
import select
import signal
import statistics
import struct
import sys
import termios
import time


def memory(pid):
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except OSError:
        pass
    return rss, hwm


def run(cmd, env, cols, rows, markers, timeout, wait_glob=None):
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        # The size is set before the program starts, so it never reads
        # another one.
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.execvpe(cmd[0], cmd, env)
    seen = b""
    left = [m.encode() for m in markers]
    elapsed = None
    while time.perf_counter() - start < timeout:
        r, _, _ = select.select([fd], [], [], 0.05)
        if not r:
            continue
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            break
        if not chunk:
            break
        # Answer the questions terminals answer: the cursor's place, the
        # cell's size in pixels, the device attributes and the status (a
        # program waits for the last of its questions' answers).
        if b"\x1b[6n" in chunk:
            os.write(fd, f"\x1b[{rows};{cols}R".encode())
        if b"\x1b[16t" in chunk:
            os.write(fd, b"\x1b[6;20;10t")
        if b"\x1b[c" in chunk or b"\x1b[0c" in chunk:
            os.write(fd, b"\x1b[?62;22c")
        if b"\x1b[5n" in chunk:
            os.write(fd, b"\x1b[0n")
        seen = seen[-4096:] + chunk
        left = [m for m in left if m not in seen]
        if not left:
            elapsed = time.perf_counter() - start
            break
    rss, hwm = memory(pid)
    while wait_glob and not glob.glob(wait_glob) and time.perf_counter() - start < timeout:
        # Keep reading, so the program never blocks on a full terminal.
        if select.select([fd], [], [], 0.05)[0]:
            try:
                os.read(fd, 1 << 16)
            except OSError:
                break
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    os.close(fd)
    if elapsed is None:
        sys.exit(f"screen-time: {' '.join(markers)} not drawn within {timeout} s by {' '.join(cmd)}")
    return elapsed * 1e3, rss, hwm


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--size", default="160x48")
    p.add_argument("--env", action="append", default=[])
    p.add_argument("--marker", action="append", required=True)
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--wait-glob")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    cols, rows = (int(x) for x in a.size.split("x"))
    env = dict(os.environ, TERM="xterm-256color")
    for kv in a.env:
        k, v = kv.split("=", 1)
        env[k] = v
    results = []
    for _ in range(a.runs):
        ms, rss, hwm = run(cmd, env, cols, rows, a.marker, a.timeout, a.wait_glob)
        print(f"{ms:.1f} {rss} {hwm}", flush=True)
        results.append((ms, rss, hwm))
    med = [statistics.median(r[i] for r in results) for i in range(3)]
    print(f"median {med[0]:.1f} ms, resident {med[1] / 1024:.1f} MB, peak {med[2] / 1024:.1f} MB")


if __name__ == "__main__":
    main()
