#!/usr/bin/env bash
# Measures piscope against pi's own session code (the reference package,
# run by tests/pi/oracle.mjs) in the same run, on one 100 MB
# session: median wall time and peak RSS of `context` and `tree`, and checks
# that both print the same JSON. Then, on one session of a million tiny
# entries (scripts/gen-many-entries.mjs), `info --json` against pi's and
# the commands pi has no twin of (`tree` as text, `label`, `rename`, `fork`),
# each with its time and peak memory.
#
# usage: scripts/bench-vs-pi.sh            (from the repository root)
# env:   RUNS=5                            runs per program and command
#        BENCH_FILE=path.jsonl             use this session instead of the generated one
#        PI_REF_DIR=target/pi-reference    where pi's package is installed
#        MANY_FILE=path.jsonl              the million-entry session (generated if unset)
#        MANY_ONLY=1                       only the million-entry rows
#
# Exits 0 whether or not the target is met (this is a report); nonzero only
# when a step fails or the two outputs differ.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

RUNS="${RUNS:-5}"
HARNESS=tests/pi
export PI_REF_DIR="${PI_REF_DIR:-target/pi-reference}"
# pi's code runs on the node scripts/test installs when the machine's is older.
[[ -x target/node/node_modules/.bin/node ]] && export PATH="$PWD/target/node/node_modules/.bin:$PATH"
CORPUS_DIR=target/bench-big
TIME=/usr/bin/time

for tool in node "$TIME"; do
  command -v "$tool" >/dev/null || { echo "bench-vs-pi: needs $tool" >&2; exit 1; }
done
PY=$(command -v python3 || true)

echo "== pi reference in $PI_REF_DIR" >&2
"$HARNESS/install.sh" "$PI_REF_DIR"

if [[ -z "${BENCH_FILE:-}" ]]; then
  BENCH_FILE=$(find "$CORPUS_DIR" -name '*.jsonl' -type f 2>/dev/null | sort | head -n 1 || true)
  if [[ -z "$BENCH_FILE" ]]; then
    echo "== generating a 100 MB session in $CORPUS_DIR" >&2
    node "$HARNESS/gen-corpus.mjs" --out "$CORPUS_DIR" --sessions 1 --big 100 >&2
    BENCH_FILE=$(find "$CORPUS_DIR" -name '*.jsonl' -type f | sort | head -n 1)
  fi
fi
[[ -f "$BENCH_FILE" ]] || { echo "bench-vs-pi: no session file $BENCH_FILE" >&2; exit 1; }

echo "== cargo build --release" >&2
cargo build --release --quiet
PISCOPE=target/release/piscope

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-vs-pi.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

SIZE=$(wc -c <"$BENCH_FILE")
echo "== $BENCH_FILE: $((SIZE / 1000000)) MB, $(wc -l <"$BENCH_FILE") lines; $RUNS runs each" >&2

source scripts/timed.sh
# run NAME OUT -- CMD...: runs CMD once, stdout to OUT; appends "secs kb" to $WORK/NAME.
run() {
  local name=$1 out=$2
  shift 3
  timed_run "$out" "$WORK/$name" "$@" || exit 1
}

# same_json A B: equal as parsed JSON (object key order ignored, as in JSON).
same_json() {
  if [[ -n "$PY" ]]; then
    "$PY" -c 'import json,sys
a=json.load(open(sys.argv[1],encoding="utf-8")); b=json.load(open(sys.argv[2],encoding="utf-8"))
sys.exit(0 if a==b else 1)' "$1" "$2"
  else
    node -e '
const fs = require("fs");
const canon = (v) => Array.isArray(v) ? v.map(canon)
  : v && typeof v === "object" ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canon(v[k])])) : v;
const [a, b] = process.argv.slice(1).map((f) => JSON.stringify(canon(JSON.parse(fs.readFileSync(f, "utf8")))));
process.exit(a === b ? 0 : 1);' "$1" "$2"
  fi
}

ROWS=()
MET=yes
[[ -n "${MANY_ONLY:-}" ]] && CMDS=() || CMDS=(context tree)
for cmd in "${CMDS[@]}"; do
  echo "== $cmd" >&2
  : >"$WORK/piscope-$cmd"
  : >"$WORK/pi-$cmd"
  # Alternate the two so neither gets a warmer cache throughout.
  for ((i = 1; i <= RUNS; i++)); do
    run "piscope-$cmd" "$WORK/piscope-$cmd.json" -- "$PISCOPE" "$cmd" "$BENCH_FILE" --json
    run "pi-$cmd" "$WORK/pi-$cmd.json" -- node "$HARNESS/oracle.mjs" "$cmd" "$BENCH_FILE"
    echo "   run $i: piscope $(tail -n 1 "$WORK/piscope-$cmd") | pi $(tail -n 1 "$WORK/pi-$cmd")  (s KB)" >&2
  done
  if ! same_json "$WORK/piscope-$cmd.json" "$WORK/pi-$cmd.json"; then
    echo "bench-vs-pi: $cmd: piscope and pi print different JSON" >&2
    keep=target/bench-vs-pi
    mkdir -p "$keep"
    cp "$WORK/piscope-$cmd.json" "$keep/piscope-$cmd.json"
    cp "$WORK/pi-$cmd.json" "$keep/pi-$cmd.json"
    echo "bench-vs-pi: both outputs kept in $keep/" >&2
    exit 1
  fi
  ps_t=$(median "$WORK/piscope-$cmd" 1)
  pi_t=$(median "$WORK/pi-$cmd" 1)
  ps_m=$(median "$WORK/piscope-$cmd" 2)
  pi_m=$(median "$WORK/pi-$cmd" 2)
  row=$(awk -v c="$cmd" -v pt="$ps_t" -v it="$pi_t" -v pm="$ps_m" -v im="$pi_m" 'BEGIN {
    speed = it / pt; mem = pm / im
    ok = (speed >= 20 && mem <= 1/3) ? "yes" : "no"
    printf "%-8s %12.3f %9.3f %8.1fx %13.1f %9.1f %8.3f %6s", c, pt, it, speed, pm/1024, im/1024, mem, ok
  }')
  [[ "$row" == *" yes" ]] || MET=no
  ROWS+=("$row")
done

if ((${#CMDS[@]} > 0)); then
echo
echo "piscope vs pi $(node -p 'require(require("path").resolve(process.argv[1])).version' "$PI_REF_DIR/node_modules/@earendil-works/pi-coding-agent/package.json") on $BENCH_FILE ($((SIZE / 1000000)) MB), median of $RUNS runs; outputs equal as JSON"
printf "%-8s %12s %9s %9s %13s %9s %8s %6s\n" command "piscope s" "pi s" speed "piscope MB" "pi MB" memory met
for row in "${ROWS[@]}"; do echo "$row"; done
echo "speed = pi time / piscope time; memory = piscope peak RSS / pi peak RSS"
echo "target: >=20x faster and <=1/3 of the memory (ratio <= 0.333): $([[ $MET == yes ]] && echo met || echo NOT met)"
fi

# --- a million tiny entries ------------------------------------------------

MANY_DIR=target/bench-many
if [[ -z "${MANY_FILE:-}" ]]; then
  MANY_FILE=$MANY_DIR/many.jsonl
  if [[ ! -f "$MANY_FILE" ]]; then
    echo "== generating a session of 1,000,000 entries in $MANY_FILE" >&2
    mkdir -p "$MANY_DIR"
    node scripts/gen-many-entries.mjs --out "$MANY_FILE" >&2
  fi
fi
[[ -f "$MANY_FILE" ]] || { echo "bench-vs-pi: no session file $MANY_FILE" >&2; exit 1; }
MSIZE=$(wc -c <"$MANY_FILE")
echo "== $MANY_FILE: $((MSIZE / 1000000)) MB, $(wc -l <"$MANY_FILE") lines; $RUNS runs each" >&2
# label, rename and fork write: each run gets a fresh copy, in its own folder.
COPY_DIR="$WORK/copy"
fresh_copy() {
  rm -rf "$COPY_DIR"
  mkdir -p "$COPY_DIR"
  cp "$MANY_FILE" "$COPY_DIR/s.jsonl"
}
TARGET_ID=$(sed -n 2p "$MANY_FILE" | sed 's/.*"id":"\([^"]*\)".*/\1/')

# many NAME CMD...: $RUNS runs of piscope CMD (FILE stands for the session).
many() {
  local name=$1
  shift
  : >"$WORK/many-$name"
  for ((i = 1; i <= RUNS; i++)); do
    fresh_copy
    local args=()
    for a in "$@"; do [[ $a == FILE ]] && args+=("$COPY_DIR/s.jsonl") || args+=("$a"); done
    run "many-$name" "$WORK/out" -- "$PISCOPE" "${args[@]}"
  done
  echo "   $name: $(median "$WORK/many-$name" 1) s $(median "$WORK/many-$name" 2) KB" >&2
}

: >"$WORK/many-pi-info"
: >"$WORK/many-info"
for ((i = 1; i <= RUNS; i++)); do
  run many-info "$WORK/piscope-info.json" -- "$PISCOPE" info "$MANY_FILE" --json
  run many-pi-info "$WORK/pi-info.json" -- node "$HARNESS/oracle.mjs" info "$MANY_FILE"
done
same_json "$WORK/piscope-info.json" "$WORK/pi-info.json" || {
  echo "bench-vs-pi: info: piscope and pi print different JSON" >&2
  exit 1
}
many tree tree FILE
many label label --yes FILE "$TARGET_ID" bench
many rename rename --yes FILE bench
many fork fork FILE

# row NAME LIMIT_MB LIMIT_S PI: one line of the table; LIMIT_S 0 for none.
row() {
  local name=$1 limit_mb=$2 limit_s=$3 pi=${4:-}
  local t m pt="" pm=""
  t=$(median "$WORK/many-$name" 1)
  m=$(median "$WORK/many-$name" 2)
  if [[ -n "$pi" ]]; then
    pt=$(median "$WORK/many-$pi" 1)
    pm=$(median "$WORK/many-$pi" 2)
  fi
  awk -v n="$name" -v t="$t" -v m="$m" -v pt="$pt" -v pm="$pm" -v lm="$limit_mb" -v ls="$limit_s" 'BEGIN {
    if (t < 0.01) t = 0.01
    mb = m / 1024
    # A limit of 0 MB means "a third of pi'"'"'s peak".
    if (lm == 0) lm = pm / 1024 / 3
    ok = (mb <= lm && (ls == 0 || t <= ls)) ? "yes" : "no"
    if (pt != "") printf "%-8s %10.3f %8.3f %7.1fx %12.1f %8.1f %7.3f %9s %5s\n", n, t, pt, pt / t, mb, pm / 1024, m / pm, sprintf("<=%.0f MB", lm), ok
    else printf "%-8s %10.3f %8s %8s %12.1f %8s %7s %9s %5s\n", n, t, "-", "-", mb, "-", "-", sprintf("<=%.0f MB", lm) (ls > 0 ? sprintf(", <=%g s", ls) : ""), ok
  }'
}

echo
echo "a million tiny entries: $MANY_FILE ($((MSIZE / 1000000)) MB), median of $RUNS runs; info equal to pi's as JSON"
printf "%-8s %10s %8s %8s %12s %8s %7s %9s %5s\n" command "piscope s" "pi s" speed "piscope MB" "pi MB" memory target met
MROWS=$(
  row info 0 0 pi-info
  row tree 150 0
  row label 64 0
  row rename 64 0
  row fork 150 2
)
echo "$MROWS"
echo "info: memory = piscope peak RSS / pi peak RSS (target <= 1/3); the others have no pi twin"
MMET=yes
[[ "$MROWS" == *" no"* ]] && MMET=no
echo "million-entry targets: $([[ $MMET == yes ]] && echo met || echo NOT all met)"
