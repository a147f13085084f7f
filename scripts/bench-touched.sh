#!/usr/bin/env bash
# Measures `piscope ls --all --touched PATH` on about 2,000 sessions and
# 1 GB (scripts/gen-catalog-corpus.sh): cold (an empty cache: the catalog
# and the touched-files index are both built), with the catalog cached but
# no index yet, warm (both cached), warm after one session grew by a line,
# and warm with a glob; each row's median time and peak memory. Checks
# that warm answers equal those read from the files (--no-cache).
#
# usage: scripts/bench-touched.sh             (from the repository root)
# env:   RUNS=5  CORPUS=target/bench-catalog  PI_REF_DIR=target/pi-reference
#        PISCOPE=path/to/piscope (another build, e.g. an older one to compare)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUNS="${RUNS:-5}"
CORPUS="${CORPUS:-target/bench-catalog}"
source scripts/timed.sh
bench_corpus_and_binary
# The corpus is copied: one of its sessions is made to grow.
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-touched.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cp -r "$CORPUS/sessions" "$WORK/sessions"
ROOT="$WORK/sessions"
export PI_CODING_AGENT_DIR="$WORK"
export XDG_CACHE_HOME="$WORK/cache"
INDEX="$XDG_CACHE_HOME/piscope/catalog-touched.bin"
GROWS=$(find "$ROOT" -name '*.jsonl' | sort | sed -n 1p)

timed() {
  local name=$1
  shift
  timed_run "$WORK/$name.out" "$WORK/$name" "$@" || exit 1
}
grow() {
  printf '%s\n' "{\"type\":\"message\",\"id\":\"bench$1\",\"parentId\":null,\"timestamp\":\"2027-06-01T10:00:00.000Z\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\",\"id\":\"bench_$1\",\"name\":\"edit\",\"arguments\":{\"path\":\"src/parser.rs\",\"edits\":[]}}],\"timestamp\":1811844000000}}" >>"$GROWS"
}

echo "== $(find "$ROOT" -name '*.jsonl' | wc -l) sessions, $(du -sm "$ROOT" | cut -f1) MB; $RUNS runs each" >&2
for ((i = 1; i <= RUNS; i++)); do
  rm -rf "$XDG_CACHE_HOME"
  timed cold "$PISCOPE" ls --all --json --touched src/parser.rs
  rm -f "$INDEX"
  timed index-cold "$PISCOPE" ls --all --json --touched src/parser.rs
  timed warm "$PISCOPE" ls --all --json --touched src/parser.rs
  timed warm-text "$PISCOPE" ls --all --touched src/parser.rs
  grow "$i"
  timed grown "$PISCOPE" ls --all --json --touched src/parser.rs
  timed glob "$PISCOPE" ls --all --json --touched '**/parser.rs'
  echo "   run $i: cold $(tail -n1 "$WORK/cold" | cut -d' ' -f1) s, warm $(tail -n1 "$WORK/warm" | cut -d' ' -f1) s" >&2
done
"$PISCOPE" ls --all --json --no-cache --touched src/parser.rs >"$WORK/read.out"
"$PISCOPE" ls --all --json --no-cache --touched '**/parser.rs' >"$WORK/read-glob.out"
cmp -s "$WORK/read.out" "$WORK/grown.out" || { echo "bench-touched: the warm answer is not the files'" >&2; exit 1; }
cmp -s "$WORK/read-glob.out" "$WORK/glob.out" || { echo "bench-touched: the warm glob answer is not the files'" >&2; exit 1; }
printf "%-12s %-52s %8s %8s\n" row command seconds "peak MB"
row() {
  awk -v n="$1" -v w="$2" -v t="$(median "$WORK/$1")" -v m="$(median "$WORK/$1" 2)" 'BEGIN {
    printf "%-12s %-52s %8.3f %8.0f\n", n, w, t, m / 1024 }'
}
row cold "--touched src/parser.rs, empty cache"
row index-cold "--touched src/parser.rs, catalog cached, no index"
row warm "--touched src/parser.rs --json, warm"
row warm-text "--touched src/parser.rs (text), warm"
row grown "--touched src/parser.rs, warm, one session grew"
row glob "--touched '**/parser.rs', warm"
echo "sessions: $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$WORK/warm.out") touched src/parser.rs; index $(($(stat -c %s "$INDEX") / 1024)) KB"
echo "target: warm <= 100 ms"
