#!/usr/bin/env python3
"""Runs builds of piscope (or any commands) in turn, N rounds, and prints
each one's wall time (spawn to exit), CPU time (user + system, from wait4)
and peak memory: min and median. Interleaving the builds spreads a busy
machine's noise over all of them alike.

usage: scripts/compare-builds.py N "ARGS" BINARY [BINARY ...]
e.g.   PI_CODING_AGENT_DIR=target/bench-catalog \\
       scripts/compare-builds.py 40 "ls --all --json" /tmp/piscope-before target/release/piscope
"""
import os
import shlex
import statistics
import sys
import time


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, args, binaries = int(sys.argv[1]), shlex.split(sys.argv[2]), sys.argv[3:]
    runs = {b: [] for b in binaries}
    quiet = [(os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0)]
    for _ in range(rounds):
        for b in binaries:
            start = time.perf_counter()
            pid = os.posix_spawn(b, [b] + args, os.environ, file_actions=quiet)
            _, status, usage = os.wait4(pid, 0)
            wall = time.perf_counter() - start
            if os.waitstatus_to_exitcode(status) != 0:
                sys.exit(f"compare-builds: {b} {' '.join(args)} failed")
            runs[b].append((wall * 1e3, (usage.ru_utime + usage.ru_stime) * 1e3, usage.ru_maxrss / 1024))
    for b, r in runs.items():
        wall = [x[0] for x in r]
        cpu = [x[1] for x in r]
        peak = max(x[2] for x in r)
        print(
            f"{b:32s} wall min {min(wall):7.1f} med {statistics.median(wall):7.1f} ms"
            f"   cpu min {min(cpu):7.1f} med {statistics.median(cpu):7.1f} ms   peak {peak:.0f} MB  ({rounds} runs)"
        )


if __name__ == "__main__":
    main()
