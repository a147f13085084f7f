#!/usr/bin/env bash
# Starts pi's own interactive session picker (`pi --resume`) on a folder of
# sessions, in a detached tmux session, so piscope's screens can be put
# beside pi's real /resume and /tree. Browsing needs no model and no key.
# With --session FILE, pi opens that one session's chat instead
# (`pi --session FILE`), drawn on the terminal's main screen (pi's
# "regular" mode) so that the whole chat can be read from tmux's
# scrollback (`capture-pane -p -S -`).
#
# usage: tests/pi/pi-ui.sh AGENT_DIR [TMUX_SESSION] [WORK_DIR]
#        tests/pi/pi-ui.sh --session FILE [TMUX_SESSION] [WORK_DIR]
#   AGENT_DIR     a folder holding sessions/ (gen-corpus.mjs's --out is one)
#   FILE          a session file (pi's own agent folder is then
#                 WORK_DIR/agent, with only the setting above)
#   TMUX_SESSION  the tmux session's name (default pi-ui)
#   WORK_DIR      pi's home folder goes there (default target/pi-ui)
# env: PI_NODE     the node to run pi with (default: target/node's, else
#                  PATH's); pi's CLI wants 22.19 or newer
#      PI_REF_DIR  pi's package (default target/pi-reference, installed
#                  by install.sh when missing)
#      TMUX_TMPDIR a tmux server of its own
#      PI_UI_SIZE  the terminal's columns x rows (default 140x40)
# Then `tmux attach -t SESSION` (or send-keys and capture-pane): Tab lists
# every project, Enter opens a session (answer "Continue" when its folder
# is missing), and /tree then Enter shows its tree.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
usage() { sed -n '10,16p' "$0" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
session=""
if [[ "$1" == "--session" ]]; then
  [[ $# -ge 2 ]] || usage
  session="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
  [[ -f "$session" ]] || { echo "pi-ui.sh: no session file $2" >&2; exit 2; }
  shift 2
  name="${1:-pi-ui}"
  work="${2:-$repo/target/pi-ui}"
else
  agent="$(cd "$1" && pwd)"
  name="${2:-pi-ui}"
  work="${3:-$repo/target/pi-ui}"
fi
size="${PI_UI_SIZE:-140x40}"
[[ "$size" =~ ^[0-9]+x[0-9]+$ ]] || { echo "pi-ui.sh: PI_UI_SIZE is COLUMNSxROWS, not $size" >&2; exit 2; }

node="${PI_NODE:-}"
if [[ -n "$node" ]]; then
  node="$(command -v "$node" || true)"
else
  if [[ -x "$repo/target/node/node_modules/.bin/node" ]]; then
    node="$repo/target/node/node_modules/.bin/node"
  else
    node="$(command -v node || true)"
  fi
fi
[[ -n "$node" ]] || { echo "pi-ui.sh: node is missing: run scripts/test, which installs node 22 into target/node" >&2; exit 1; }
if ! "$node" -e '
  const [major, minor] = process.versions.node.split(".").map(Number);
  process.exit(major > 22 || (major === 22 && minor >= 19) ? 0 : 1);'; then
  echo "pi-ui.sh: node $("$node" --version) is older than pi's 22.19: run scripts/test, which installs node 22 into target/node" >&2
  exit 1
fi

pi_dir="${PI_REF_DIR:-$repo/target/pi-reference}"
"$here/install.sh" "$pi_dir" >&2
cli="$(cd "$pi_dir" && pwd)/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"

mkdir -p "$work/home"
work="$(cd "$work" && pwd)"
# Started from /tmp with a home of its own: pi reads no settings of the
# machine's user, and the sessions' own folders need not exist. Offline:
# pi downloads no helper programs and asks for no updates.
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }
if [[ -n "$session" ]]; then
  agent="$work/agent"
  mkdir -p "$agent"
  printf '{"tuiMode":"regular"}\n' >"$agent/settings.json"
  command="cd /tmp && HOME=$(q "$work/home") PI_OFFLINE=1 PI_CODING_AGENT_DIR=$(q "$agent") $(q "$node") $(q "$cli") --session $(q "$session")"
  what="pi's chat"
else
  command="cd /tmp && HOME=$(q "$work/home") PI_OFFLINE=1 PI_CODING_AGENT_DIR=$(q "$agent") $(q "$node") $(q "$cli") --resume"
  what="pi's picker"
fi
# A scrollback long enough for a whole chat, set before the pane exists.
tmux start-server \; set-option -g history-limit 500000 \; \
  new-session -d -s "$name" -x "${size%x*}" -y "${size#*x}" "$command"
echo "$what is running in tmux session '$name'"
