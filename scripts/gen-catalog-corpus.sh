#!/usr/bin/env bash
# Writes the catalog benchmark corpus with pi's own session code: about
# 2,000 sessions and 1 GB under OUT/sessions/--<cwd>--/, four of them 60 MB.
#
# usage: scripts/gen-catalog-corpus.sh [OUT]     (default target/bench-catalog)
# env:   PI_REF_DIR=target/pi-reference
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
node "$HARNESS/gen-corpus.mjs" --out "$OUT" --seed 2000 --sessions 1900 --turns 360 >/dev/null
for seed in 2001 2002 2003 2004; do
  node "$HARNESS/gen-corpus.mjs" --out "$OUT" --seed "$seed" --sessions 2 --big 60 >/dev/null
done
echo "gen-catalog-corpus: $(find "$OUT/sessions" -name '*.jsonl' | wc -l) sessions, $(du -sm "$OUT/sessions" | cut -f1) MB in $OUT" >&2
