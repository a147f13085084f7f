#!/usr/bin/env bash
# Measures `piscope ls --all --json` against pi's own session list (the
# reference oracle's `list-root`, which runs pi's SessionManager.listAll) and
# against `cat` of every session file, in the same run, on about 2,000
# sessions and 1 GB (scripts/gen-catalog-corpus.sh): without the cache, with
# an empty (cold) cache, with a warm cache, searches from the shell (the
# first fills the cache's texts), and a deep search (all hits, and the time
# to the first 100). Every row prints its
# median time, as a ratio against pi and `cat`, and its peak memory.
# Checks that the JSON is pi's. Then, when tmux is there, the browser's
# memory on the same sessions, with an empty cache and a warm one.
#
# usage: scripts/bench-catalog.sh             (from the repository root)
# env:   RUNS=3  CORPUS=target/bench-catalog  PI_REF_DIR=target/pi-reference
#        PISCOPE=path/to/piscope (another build, e.g. an older one to compare)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUNS="${RUNS:-3}"
CORPUS="${CORPUS:-target/bench-catalog}"
source scripts/timed.sh
bench_corpus_and_binary
ROOT="$(cd "$CORPUS" && pwd)/sessions"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-catalog.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export PI_CODING_AGENT_DIR="$(dirname "$ROOT")"
export XDG_CACHE_HOME="$WORK/cache"

# timed NAME CMD...: one run, stdout to $WORK/NAME.json, "secs kb" appended to $WORK/NAME.
timed() {
  local name=$1
  shift
  timed_run "$WORK/$name.json" "$WORK/$name" "$@" || exit 1
}
# timed_null NAME CMD...: as timed, output thrown away (it can be large).
timed_null() {
  local name=$1
  shift
  timed_run /dev/null "$WORK/$name" "$@" || exit 1
}

echo "== $(find "$ROOT" -name '*.jsonl' | wc -l) sessions, $(du -sm "$ROOT" | cut -f1) MB; $RUNS runs each" >&2
for ((i = 1; i <= RUNS; i++)); do
  timed pi node tests/pi/oracle.mjs list-root "$ROOT"
  timed_null cat sh -c 'find "$1" -name "*.jsonl" -print0 | xargs -0 cat' sh "$ROOT"
  timed nocache "$PISCOPE" ls --all --json --no-cache
  rm -rf "$XDG_CACHE_HOME"
  timed cold "$PISCOPE" ls --all --json
  timed warm "$PISCOPE" ls --all --json
  timed search-first "$PISCOPE" ls --all --json --query "parser tree"
  timed search-warm "$PISCOPE" ls --all --json --query "tree label"
  timed search-phrase "$PISCOPE" ls --all --json --query '"fix bug" re:wid.et'
  timed search-regex "$PISCOPE" ls --all --json --query 're:wid.et'
  # The first deep search of a fresh cache builds the index; the next reads it.
  timed_null deep-build "$PISCOPE" ls --all --deep --json --query widget
  timed_null deep "$PISCOPE" ls --all --deep --json --query widget
  # The first 100 hits (text, one a line; piscope stops when head has them).
  timed_null deep-first sh -c '"$1" ls --all --deep --query widget | head -n 100' sh "$PISCOPE"
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
cat_t=$(median "$WORK/cat")
printf "%-14s %-44s %8s %8s %8s %8s\n" row command seconds "vs pi" "time/cat" "peak MB"
row() {
  local name=$1 what=$2 t m
  t=$(median "$WORK/$name")
  m=$(median "$WORK/$name" 2)
  awk -v n="$name" -v w="$what" -v t="$t" -v m="$m" -v p="$pi_t" -v c="$cat_t" 'BEGIN {
    printf "%-14s %-44s %8.3f %7.1fx %7.2fx %8.0f\n", n, w, t, p / t, t / c, m / 1024 }'
}
row pi "pi: SessionManager.listAll (oracle)"
row cat "cat of every session file"
row nocache "ls --all --json --no-cache"
row cold "ls --all --json, empty cache"
row warm "ls --all --json, warm cache"
row search-first "--query 'parser tree', texts not cached yet"
row search-warm "--query 'tree label', warm"
row search-phrase "--query '\"fix bug\" re:wid.et', warm"
row search-regex "--query 're:wid.et', warm"
row deep-build "--deep --query widget, builds the index"
row deep "--deep --query widget, warm"
row deep-first "--deep --query widget, first 100 hits"
echo "outputs equal as JSON (no cache, cold, warm); vs pi: times faster than pi; time/cat: time as a multiple of cat's"
echo "deep search: $("$PISCOPE" ls --all --deep --query widget | wc -l) hits"
if (($(find "$ROOT" -name '*.jsonl' | wc -l) > 10000)); then
  echo "targets (10 GB): no cache >= 30x pi and <= 1.2x cat's time; warm <= 40 ms;"
  echo "         deep: first 100 hits <= 150 ms, all <= 5 s; browser after a search <= 120 MB"
else
  echo "targets: no cache >= 25x pi and <= 1.5x cat's time; warm <= 20 ms; 'tree label' < 50 ms, < 40 MB;"
  echo "         deep: first 100 hits < 150 ms, all < 1 s"
fi

# The browser's memory on the same sessions, in a real terminal (tmux,
# 200x50): once every session and their usage are shown, and after the
# search 'tree label'; first with an empty cache, then with the one that
# run filled. VmRSS is what it holds then, VmHWM its peak so far.
if ! command -v tmux >/dev/null; then
  echo "browser: not measured (needs tmux)"
  exit 0
fi
browser_memory() {
  local label=$1 sock="$WORK/tmux-$2" pid="" t
  tmux -S "$sock" new -d -s bench -x 200 -y 50 -e HOME="$HOME" \
    -e PI_CODING_AGENT_DIR="$PI_CODING_AGENT_DIR" -e XDG_CACHE_HOME="$XDG_CACHE_HOME" \
    "exec '$PISCOPE'"
  # Shown when the usage of every session is in: the status bar's total.
  for ((t = 0; t < 600; t++)); do
    pid=$(tmux -S "$sock" display -p -t bench '#{pane_pid}' 2>/dev/null || true)
    tmux -S "$sock" capture-pane -p -t bench 2>/dev/null | grep -q ' spent' && break
    sleep 0.2
  done
  ((t < 600)) || { echo "bench-catalog: the browser did not finish loading" >&2; exit 1; }
  sleep 1
  status() { awk -v k="$1" '$1 == k ":" { printf "%.0f", $2 / 1024 }' "/proc/$pid/status"; }
  local loaded_rss
  loaded_rss=$(status VmRSS)
  tmux -S "$sock" send-keys -t bench "tree label"
  sleep 3
  tmux -S "$sock" capture-pane -p -t bench | head -n 2 | grep -q 'tree label' ||
    { echo "bench-catalog: the browser did not take the search" >&2; exit 1; }
  printf "%-14s %-44s %8s MB resident, %s MB after the search, peak %s MB\n" \
    browser "$label" "$loaded_rss" "$(status VmRSS)" "$(status VmHWM)"
  tmux -S "$sock" kill-server 2>/dev/null || true
}
rm -rf "$XDG_CACHE_HOME"
browser_memory "$(find "$ROOT" -name '*.jsonl' | wc -l) sessions, empty cache" empty
browser_memory "the same, warm cache" warm
echo "target: the browser after one search <= 120 MB"
