#!/usr/bin/env bash
# Installs pi's published package, @earendil-works/pi-coding-agent at the
# version the tests were written against, from the npm registry into DEST
# (default: PI_REF_DIR, else the repository's target/pi-reference). The
# tests run its session code as the reference for the file format.
#
# Run again, it does nothing while that version is in place; an install
# that was cut short is done again. npm comes from target/node when
# scripts/test put a node there, else from PATH.
#
# usage: tests/pi/install.sh [--check] [DEST]
#   --check  install nothing: exit 0 when it is in place, 1 when not
set -euo pipefail
check=no
if [[ "${1:-}" == --check ]]; then
  check=yes
  shift
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
version="${PI_REF_VERSION:-1.6.0}"
dest="${1:-${PI_REF_DIR:-$repo/target/pi-reference}}"
manifest="$dest/node_modules/@earendil-works/pi-coding-agent/package.json"
# Present while npm runs: a leftover one means the folder is half written.
pending="$dest/.install-pending"

if [[ ! -e "$pending" ]] && grep -qs "\"version\": \"$version\"" "$manifest"; then
  exit 0
fi
[[ $check == no ]] || exit 1

local_bin="$repo/target/node/node_modules/.bin"
if [[ -x "$local_bin/npm" ]]; then
  # Its npm runs on the node beside it.
  export PATH="$local_bin:$PATH"
elif ! command -v npm >/dev/null 2>&1; then
  echo "install.sh: npm is missing, so pi's package cannot be installed into $dest: run scripts/test (it installs node 22 and npm into target/node), or install npm" >&2
  exit 1
fi

mkdir -p "$dest"
: >"$pending"
npm install --prefix "$dest" --no-audit --no-fund --loglevel=error \
  "@earendil-works/pi-coding-agent@$version" >&2
grep -qs "\"version\": \"$version\"" "$manifest" || {
  echo "install.sh: npm finished but $manifest is not version $version" >&2
  exit 1
}
rm -f "$pending"
