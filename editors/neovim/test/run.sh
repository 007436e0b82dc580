#!/usr/bin/env bash
# Headless Neovim tests for the magicfrog plugin.
#   editors/neovim/test/run.sh [case-name-filter]
# Uses $MF_LSP as the server binary, else builds ./cmd/mf-lsp from the repo root.
# Installs Debian's neovim (0.7.2) when nvim is missing.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
PLUGIN=$(dirname "$HERE")
REPO=$(cd "$PLUGIN/../.." && pwd)
FILTER=${1:-}

if ! command -v nvim >/dev/null 2>&1; then
  echo "nvim not found: installing Debian's neovim"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  if ! { $SUDO apt-get update && $SUDO apt-get install -y neovim; }; then
    echo "FATAL: could not install neovim with apt-get" >&2
    exit 2
  fi
fi
command -v nvim >/dev/null 2>&1 || { echo "FATAL: nvim still missing" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mf-nvim-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

if [ -n "${MF_LSP:-}" ]; then
  [ -x "$MF_LSP" ] || { echo "FATAL: MF_LSP=$MF_LSP is not an executable" >&2; exit 2; }
  MF_LSP=$(cd "$(dirname "$MF_LSP")" && pwd)/$(basename "$MF_LSP")
else
  echo "building mf-lsp from $REPO/cmd/mf-lsp"
  if ! (cd "$REPO" && go build -o "$WORK/mf-lsp" ./cmd/mf-lsp); then
    echo "FATAL: go build ./cmd/mf-lsp failed (set MF_LSP to a built binary)" >&2
    exit 2
  fi
  MF_LSP=$WORK/mf-lsp
fi

echo "nvim: $(nvim --version | head -1)   mf-lsp: $MF_LSP"

# Keep Neovim's state, logs and the server's defaults away from the user's home.
export XDG_CONFIG_HOME=$WORK/xdg/config XDG_DATA_HOME=$WORK/xdg/data
export XDG_STATE_HOME=$WORK/xdg/state XDG_CACHE_HOME=$WORK/xdg/cache
export MAGICFROG_HOME=$WORK/no-such-magicfrog-home
export MF_PLUGIN=$PLUGIN MF_REPO=$REPO MF_LSP
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME"

passed=0
failed=0
start_all=$(date +%s%N)
for case in "$HERE"/cases/*.lua; do
  name=$(basename "$case" .lua)
  if [ -n "$FILTER" ] && [[ "$name" != *"$FILTER"* ]]; then continue; fi
  results=$WORK/$name.results
  log=$WORK/$name.log
  : >"$results"
  t0=$(date +%s%N)
  MF_CASE=$name MF_RESULTS=$results \
    timeout 60 nvim --headless -u NONE -i NONE -n -c "luafile $case" -c 'cquit 2' >"$log" 2>&1
  rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  while IFS=$'\t' read -r status what why; do
    case "$status" in
      PASS) passed=$((passed + 1)); echo "  ok    $what" ;;
      FAIL) failed=$((failed + 1)); echo "  FAIL  $what -- $why" ;;
    esac
  done <"$results"
  if ! grep -qx DONE "$results"; then
    failed=$((failed + 1))
    echo "  FAIL  $name: nvim did not finish the case (exit $rc$( [ $rc = 124 ] && echo ', timeout'))"
    sed 's/^/        | /' "$log" | tail -20
  elif [ $rc != 0 ] && ! grep -q '^FAIL' "$results"; then
    failed=$((failed + 1))
    echo "  FAIL  $name: nvim exited $rc"
    sed 's/^/        | /' "$log" | tail -20
  fi
  echo "[$name: ${ms} ms]"
done
total_ms=$(( ($(date +%s%N) - start_all) / 1000000 ))
echo "total ${total_ms} ms"
echo "neovim: $passed passed, $failed failed"
[ "$failed" = 0 ]
