#!/usr/bin/env bash
# Headless Neovim tests for the magicfrog plugin.
#   editors/neovim/test/run.sh [case-name-filter]
# Uses $MF_LSP as the server binary, else builds ./cmd/mf-lsp from the repo root.
# Installs Debian's neovim (0.7.2) when nvim is missing.
# Runs every case on each Neovim of $MF_NVIM_VERSIONS (default "system trixie
# unstable"): "system" is the nvim on PATH (Debian's 0.7.2), "trixie" (0.10) and
# "unstable" (0.12) are Debian's packages of those suites unpacked into a private
# root by nvim_root.sh, cached under $MF_NVIM_CACHE (default
# ~/.cache/mf-lsp-nvim-roots, made here).
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

VERSIONS=${MF_NVIM_VERSIONS:-system trixie unstable}
CACHE=${MF_NVIM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mf-lsp-nvim-roots}
mkdir -p "$CACHE"

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

# One launcher per Neovim: the unpacked ones run through their own loader and
# libraries (0.12 needs unstable's libc6), with their runtime.
NVIMS=()
for v in $VERSIONS; do
  if [ "$v" = system ]; then NVIMS+=("$(command -v nvim)"); continue; fi
  if ! root=$("$HERE/nvim_root.sh" "$v" "$CACHE" 2>"$WORK/root-$v.log"); then
    echo "FATAL: could not unpack Debian $v's neovim:" >&2
    tail -5 "$WORK/root-$v.log" >&2
    exit 2
  fi
  lib=$root/usr/lib/x86_64-linux-gnu
  cat >"$WORK/nvim-$v" <<LAUNCH
#!/bin/sh
export VIMRUNTIME="$root/usr/share/nvim/runtime"
exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib:$lib/lua/5.1" "$root/usr/bin/nvim" --cmd "set rtp+=$root/usr/lib/nvim" "\$@"
LAUNCH
  chmod +x "$WORK/nvim-$v"
  NVIMS+=("$WORK/nvim-$v")
done

# Keep Neovim's state, logs and the server's defaults away from the user's home.
export XDG_CONFIG_HOME=$WORK/xdg/config XDG_DATA_HOME=$WORK/xdg/data
export XDG_STATE_HOME=$WORK/xdg/state XDG_CACHE_HOME=$WORK/xdg/cache
export MAGICFROG_HOME=$WORK/no-such-magicfrog-home
export MF_PLUGIN=$PLUGIN MF_REPO=$REPO MF_LSP
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME"

passed=0
failed=0
start_all=$(date +%s%N)
for NVIM in "${NVIMS[@]}"; do
NV=$("$NVIM" --version | head -1 | sed 's/^NVIM //')
echo "nvim $NV: $NVIM   mf-lsp: $MF_LSP"
for case in "$HERE"/cases/*.lua; do
  name=$(basename "$case" .lua)
  if [ -n "$FILTER" ] && [[ "$name" != *"$FILTER"* ]]; then continue; fi
  results=$WORK/$name.results
  log=$WORK/$name.log
  : >"$results"
  t0=$(date +%s%N)
  MF_CASE=$name MF_RESULTS=$results \
    timeout 60 "$NVIM" --headless -u NONE -i NONE -n -c "luafile $case" -c 'cquit 2' >"$log" 2>&1
  rc=$?
  ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  while IFS=$'\t' read -r status what why; do
    case "$status" in
      PASS) passed=$((passed + 1)); echo "  ok    [$NV] $what" ;;
      FAIL) failed=$((failed + 1)); echo "  FAIL  [$NV] $what -- $why" ;;
    esac
  done <"$results"
  if ! grep -qx DONE "$results"; then
    failed=$((failed + 1))
    echo "  FAIL  [$NV] $name: nvim did not finish the case (exit $rc$( [ $rc = 124 ] && echo ', timeout'))"
    sed 's/^/        | /' "$log" | tail -20
  elif [ $rc != 0 ] && ! grep -q '^FAIL' "$results"; then
    failed=$((failed + 1))
    echo "  FAIL  [$NV] $name: nvim exited $rc"
    sed 's/^/        | /' "$log" | tail -20
  fi
  echo "[$NV $name: ${ms} ms]"
done
done
total_ms=$(( ($(date +%s%N) - start_all) / 1000000 ))
echo "total ${total_ms} ms"
echo "neovim: $passed passed, $failed failed"
[ "$failed" = 0 ]
