#!/usr/bin/env bash
# Writes the catalog benchmark corpus with pi's own session code: about
# 2,000 sessions and 1 GB under OUT/sessions/--<cwd>--/, four of them 60 MB;
# SCALE times that with SCALE=N (SCALE=10: about 21,000 sessions and 10 GB,
# forty of them 60 MB). The same seeds give the same files.
#
# usage: scripts/gen-catalog-corpus.sh [OUT]     (default target/bench-catalog)
# env:   PI_REF_DIR=target/pi-reference  SCALE=1
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
OUT="${1:-target/bench-catalog}"
HARNESS=tests/pi
export PI_REF_DIR="${PI_REF_DIR:-target/pi-reference}"
# pi's code runs on the node scripts/test installs when the machine's is older.
[[ -x target/node/node_modules/.bin/node ]] && export PATH="$PWD/target/node/node_modules/.bin:$PATH"
"$HARNESS/install.sh" "$PI_REF_DIR" >&2
if [[ -d "$OUT/sessions" ]]; then
  echo "gen-catalog-corpus: $OUT exists; remove it to regenerate" >&2
  exit 0
fi
SCALE="${SCALE:-1}"
[[ "$SCALE" =~ ^[1-9][0-9]*$ ]] || { echo "gen-catalog-corpus: SCALE must be a whole number from 1 (got '$SCALE')" >&2; exit 2; }
# The ordinary sessions in runs of 1,900, each run its own seed (the first
# run is the 1 GB corpus itself), then four 60 MB sessions per run.
for ((k = 0; k < SCALE; k++)); do
  node "$HARNESS/gen-corpus.mjs" --out "$OUT" --seed "$((2000 + 10000 * k))" --sessions 1900 --turns 360 >/dev/null
  for seed in 1 2 3 4; do
    node "$HARNESS/gen-corpus.mjs" --out "$OUT" --seed "$((2000 + 10000 * k + seed))" --sessions 2 --big 60 >/dev/null
  done
done
echo "gen-catalog-corpus: $(find "$OUT/sessions" -name '*.jsonl' | wc -l) sessions, $(du -sm "$OUT/sessions" | cut -f1) MB in $OUT" >&2
