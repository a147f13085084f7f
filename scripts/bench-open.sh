#!/usr/bin/env bash
# Times the browser opening one large session, as a user sees it: from
# starting `piscope FILE` in a terminal (scripts/screen-time.py, a
# pseudo-terminal of 160x48) to the frame that shows the preview, with the
# resident memory then; the first open (an empty cache: the whole file is
# read and the session's index written) and the next ones (the index read).
# In the same run: `cat` of the file, and pi's own code reading it (the
# reference oracle's `info`, SessionManager.open), time and peak memory.
# Then the first frame of the session list on a few hundred sessions,
# warm. Medians of RUNS runs, and ratios against `cat` and pi.
#
# usage: scripts/bench-open.sh [FILE]
#        (default: the 100 MB session of tests/pi/gen-corpus.mjs --big 100,
#        made in target/bench-big when missing; for the 2 GB one, see
#        docs/performance.md, "Reproducing the numbers")
# env:   RUNS=5  PI=1 (0: leave pi out; it takes a minute on 2 GB)
#        PISCOPE=path/to/piscope  PI_REF_DIR=target/pi-reference
#        MARKER (text the preview shows when ready; default "tokens used")
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUNS="${RUNS:-5}"
source scripts/timed.sh
bench_binary
FILE="${1:-}"
if [[ -z "$FILE" ]]; then
  if [[ ! -d target/bench-big/sessions ]]; then
    tests/pi/install.sh "$PI_REF_DIR" >&2
    node tests/pi/gen-corpus.mjs --out target/bench-big --sessions 1 --big 100 >/dev/null
  fi
  FILE=$(find target/bench-big/sessions -name '*.jsonl' | head -n 1)
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-open.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
MARKER="${MARKER:-tokens used}"
# The first open writes the index once the preview is on screen: it is
# left running until the index is there.
screen() {
  scripts/screen-time.py --runs 1 --timeout 900 --env XDG_CACHE_HOME="$WORK/cache" "$@" \
    --marker "$MARKER" -- "$PISCOPE" "$FILE" | sed -n 1p
}

echo "== $(du -m "$FILE" | cut -f1) MB, $(wc -l <"$FILE") lines: $FILE; $RUNS runs" >&2
rm -rf "$WORK/cache"
screen --wait-glob "$WORK/cache/piscope/session-index/*.bin" >>"$WORK/first"
for ((i = 1; i <= RUNS; i++)); do
  timed_run /dev/null "$WORK/cat" cat "$FILE"
  screen >>"$WORK/warm"
done
if [[ "${PI:-1}" == 1 ]]; then
  timed_run /dev/null "$WORK/pi" node tests/pi/oracle.mjs info "$FILE"
fi
index_mb=$(du -sm "$WORK/cache/piscope/session-index" 2>/dev/null | cut -f1)
cat_ms=$(awk -v s="$(median "$WORK/cat")" 'BEGIN { printf "%.0f", s * 1000 }')
warm_ms=$(median "$WORK/warm")
printf "%-34s %9s %11s\n" "" "time" "resident"
printf "%-34s %7.0f ms %8.1f MB\n" "browser, first open (no index)" "$(cut -d' ' -f1 "$WORK/first")" "$(awk '{print $2 / 1024}' "$WORK/first")"
printf "%-34s %7.0f ms %8.1f MB   (%s MB index)\n" "browser, open from the index" "$warm_ms" "$(median "$WORK/warm" 2 | awk '{print $1 / 1024}')" "${index_mb:-?}"
printf "%-34s %7s ms\n" "cat of the file" "$cat_ms"
awk -v w="$warm_ms" -v c="$cat_ms" 'BEGIN { printf "%-34s %9.2fx cat\n", "open from the index", w / c }'
if [[ -s "$WORK/pi" ]]; then
  read -r pi_s pi_kb <"$WORK/pi"
  awk -v s="$pi_s" -v kb="$pi_kb" -v w="$warm_ms" -v r="$(median "$WORK/warm" 2)" 'BEGIN {
    printf "%-34s %7.0f ms %8.1f MB   (peak)\n", "pi reading the file", s * 1000, kb / 1024
    printf "%-34s %9.1fx faster, %.2f of its memory\n", "open from the index against pi", s * 1000 / w, r / kb }'
fi

# The first frame of the session list, a few hundred sessions, warm.
LIST=target/bench-300
if [[ ! -d "$LIST/sessions" ]]; then
  tests/pi/install.sh "$PI_REF_DIR" >&2
  node tests/pi/gen-corpus.mjs --out "$LIST" --seed 300 --sessions 300 --turns 60 >/dev/null
fi
count=$(find "$LIST/sessions" -name '*.jsonl' | wc -l)
PI_CODING_AGENT_DIR="$PWD/$LIST" XDG_CACHE_HOME="$WORK/list-cache" "$PISCOPE" ls --all --json >/dev/null
scripts/screen-time.py --runs "$((RUNS * 2))" --env XDG_CACHE_HOME="$WORK/list-cache" \
  --env PI_CODING_AGENT_DIR="$PWD/$LIST" --marker "$count sessions" -- "$PISCOPE" |
  tail -n 1 | sed "s/^/session list, $count sessions, first frame, warm: /"
