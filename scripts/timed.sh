# Sourced by the bench scripts. timed_run OUT RECORD CMD...: runs CMD once,
# stdout to OUT, and appends "seconds peak-KB" to RECORD: the wall time to
# the microsecond (bash's clock around the run; /usr/bin/time's own is in
# hundredths, too coarse for runs of tens of ms) and the peak RSS from
# /usr/bin/time. Prints CMD's stderr and fails when CMD fails.
timed_run() {
  local out=$1 record=$2 t0 t1 err
  shift 2
  err=$(mktemp "${TMPDIR:-/tmp}/timed.XXXXXX")
  t0=$EPOCHREALTIME
  if ! /usr/bin/time -f "%M" -o "$err.kb" "$@" >"$out" 2>"$err"; then
    t1=$EPOCHREALTIME
    echo "failed: $*" >&2
    cat "$err" >&2
    rm -f "$err" "$err.kb"
    return 1
  fi
  t1=$EPOCHREALTIME
  echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }') $(tail -n 1 "$err.kb")" >>"$record"
  rm -f "$err" "$err.kb"
}

# median FILE [COLUMN]: the median of one column (the lower middle for an
# even count).
median() { awk -v c="${2:-1}" '{print $c}' "$1" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

# bench_binary: pi's reference package where the scripts look for it, the
# node scripts/test installs when the machine's is older, and $PISCOPE, the
# release build unless another binary is given.
bench_binary() {
  export PI_REF_DIR="${PI_REF_DIR:-target/pi-reference}"
  if [[ -x target/node/node_modules/.bin/node ]]; then
    export PATH="$PWD/target/node/node_modules/.bin:$PATH"
  fi
  if [[ -z "${PISCOPE:-}" ]]; then
    cargo build --release --quiet
    PISCOPE="$PWD/target/release/piscope"
  fi
}

# bench_corpus_and_binary: as bench_binary, and the catalog corpus in
# $CORPUS, written by scripts/gen-catalog-corpus.sh (pi's code) when it is
# missing.
bench_corpus_and_binary() {
  bench_binary
  scripts/gen-catalog-corpus.sh "$CORPUS"
}
