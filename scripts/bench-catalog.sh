#!/usr/bin/env bash
# Measures `piscope ls --all --json` against pi's own session list (the
# reference oracle's `list-root`, which runs pi's SessionManager.listAll) in
# the same run, on about 2,000 sessions and 1 GB (scripts/gen-catalog-corpus.sh):
# without the cache, with an empty (cold) cache, with a warm cache, and a
# search from the shell with a warm cache. Checks that the JSON is pi's.
#
# usage: scripts/bench-catalog.sh             (from the repository root)
# env:   RUNS=3  CORPUS=target/bench-catalog  PI_REF_DIR=target/pi-reference
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUNS="${RUNS:-3}"
CORPUS="${CORPUS:-target/bench-catalog}"
export PI_REF_DIR="${PI_REF_DIR:-target/pi-reference}"
TIME=/usr/bin/time
scripts/gen-catalog-corpus.sh "$CORPUS"
cargo build --release --quiet
PISCOPE="$PWD/target/release/piscope"
ROOT="$(cd "$CORPUS" && pwd)/sessions"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-catalog.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export PI_CODING_AGENT_DIR="$(dirname "$ROOT")"
export XDG_CACHE_HOME="$WORK/cache"

# timed NAME CMD...: one run, stdout to $WORK/NAME.json, "secs kb" appended to $WORK/NAME.
timed() {
  local name=$1
  shift
  "$TIME" -f "%e %M" -o "$WORK/t" "$@" >"$WORK/$name.json" 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
  tail -n 1 "$WORK/t" >>"$WORK/$name"
}
median() { awk '{print $1}' "$1" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

echo "== $(find "$ROOT" -name '*.jsonl' | wc -l) sessions, $(du -sm "$ROOT" | cut -f1) MB; $RUNS runs each" >&2
for ((i = 1; i <= RUNS; i++)); do
  timed pi node ../shared/conformance/oracle.mjs list-root "$ROOT"
  timed nocache "$PISCOPE" ls --all --json --no-cache
  rm -rf "$XDG_CACHE_HOME"
  timed cold "$PISCOPE" ls --all --json
  timed warm "$PISCOPE" ls --all --json
  timed search-first "$PISCOPE" ls --all --json --query "parser tree"
  timed search-warm "$PISCOPE" ls --all --json --query '"fix bug" re:wid.et'
  echo "   run $i: pi $(tail -n1 "$WORK/pi" | cut -d' ' -f1) s, no cache $(tail -n1 "$WORK/nocache" | cut -d' ' -f1) s, cold $(tail -n1 "$WORK/cold" | cut -d' ' -f1) s, warm $(tail -n1 "$WORK/warm" | cut -d' ' -f1) s" >&2
done
python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
pi = json.load(open(f"{w}/pi.json"))
for name in ("nocache", "cold", "warm"):
    if json.load(open(f"{w}/{name}.json")) != pi:
        sys.exit(f"bench-catalog: {name}: piscope and pi list differently")
PY
pi_t=$(median "$WORK/pi")
printf "%-34s %9s %9s\n" "piscope ls --all --json" seconds "vs pi"
for name in nocache cold warm search-first search-warm; do
  t=$(median "$WORK/$name")
  awk -v n="$name" -v t="$t" -v p="$pi_t" 'BEGIN { if (t < 0.01) t = 0.01; printf "%-34s %9.3f %8.0fx\n", n, t, p / t }'
done
echo "pi (oracle list-root): $pi_t s; outputs equal as JSON (no cache, cold, warm)"
echo "targets: no cache >= 20x, warm cache >= 200x"
