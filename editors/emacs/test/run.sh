#!/usr/bin/env bash
# Headless Emacs tests of mf-lsp through eglot and lsp-mode.
#   editors/emacs/test/run.sh [case-name-filter]
# Uses $MF_LSP as the server binary, else builds ./cmd/mf-lsp from the repo root.
# Installs Debian's emacs-nox, elpa-eglot, elpa-lsp-mode and elpa-markdown-mode
# when missing. Runs every case once per client of $MF_EMACS_CLIENTS (default
# "eglot lsp-mode"), each in its own `emacs --batch -Q`, configured by the
# README's snippet for that client (editors/emacs/README.md).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
EMACSDIR=$(dirname "$HERE")
REPO=$(cd "$EMACSDIR/../.." && pwd)
FILTER=${1:-}
ELPA=/usr/share/emacs/site-lisp/elpa

have_all() {
  command -v emacs >/dev/null 2>&1 &&
    ls -d "$ELPA"/eglot-[0-9]* "$ELPA"/lsp-mode-[0-9]* "$ELPA"/markdown-mode-[0-9]* >/dev/null 2>&1
}
if ! have_all; then
  echo "emacs or its LSP clients not found: installing Debian's emacs-nox elpa-eglot elpa-lsp-mode"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  if ! { $SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
      emacs-nox elpa-eglot elpa-lsp-mode elpa-markdown-mode; }; then
    echo "FATAL: could not install emacs-nox elpa-eglot elpa-lsp-mode with apt-get" >&2
    exit 2
  fi
fi
have_all || { echo "FATAL: emacs, eglot, lsp-mode or markdown-mode still missing" >&2; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mf-emacs-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

if [ -n "${MF_LSP:-}" ]; then
  [ -x "$MF_LSP" ] || { echo "FATAL: MF_LSP=$MF_LSP is not an executable" >&2; exit 2; }
  MF_LSP=$(cd "$(dirname "$MF_LSP")" && pwd)/$(basename "$MF_LSP")
else
  echo "building mf-lsp from $REPO/cmd/mf-lsp"
  mkdir -p "$WORK/bin"
  if ! (cd "$REPO" && go build -o "$WORK/bin/mf-lsp" ./cmd/mf-lsp); then
    echo "FATAL: go build ./cmd/mf-lsp failed (set MF_LSP to a built binary)" >&2
    exit 2
  fi
  MF_LSP=$WORK/bin/mf-lsp
fi

# Keep Emacs's and the server's state away from the user's home.
export HOME=$WORK/home XDG_CONFIG_HOME=$WORK/xdg/config XDG_DATA_HOME=$WORK/xdg/data
export XDG_STATE_HOME=$WORK/xdg/state XDG_CACHE_HOME=$WORK/xdg/cache
export MAGICFROG_HOME=$WORK/no-such-magicfrog-home
export MF_REPO=$REPO MF_LSP MF_README=$EMACSDIR/README.md
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME"
unset MAGICFROG_AGENT

EMACS_V=$(emacs --version | head -1)
echo "$EMACS_V   mf-lsp: $MF_LSP"
# The clients run side by side (one Emacs each at a time: two cores); each case
# has its own fixture and server.
run_client() {
  local client=$1 passed=0 failed=0 xfailed=0 xpassed=0
  for case in "$HERE"/cases/*.el; do
    name=$(basename "$case" .el)
    if [ -n "$FILTER" ] && [[ "$name" != *"$FILTER"* ]]; then continue; fi
    results=$WORK/$client-$name.results
    log=$WORK/$client-$name.log
    : >"$results"
    t0=$(date +%s%N)
    MF_CLIENT=$client MF_CASE=$name MF_RESULTS=$results \
      timeout 60 emacs --batch -Q -l "$HERE/helpers.el" -l "$case" </dev/null >"$log" 2>&1
    rc=$?
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    while IFS=$'\t' read -r status what why; do
      case "$status" in
        PASS) passed=$((passed + 1)); echo "  ok    $what" ;;
        FAIL) failed=$((failed + 1)); echo "  FAIL  $what -- $why" ;;
        XFAIL) xfailed=$((xfailed + 1)); echo "  xfail $what -- $why" ;;
        XPASS) xpassed=$((xpassed + 1)); echo "  XPASS $what -- $why" ;;
      esac
    done <"$results"
    if ! grep -qx DONE "$results"; then
      failed=$((failed + 1))
      echo "  FAIL  $name [$client]: emacs did not finish the case (exit $rc$( [ $rc = 124 ] && echo ', timeout'))"
      sed 's/^/        | /' "$log" | tail -20
    elif [ $rc != 0 ] && ! grep -q '^FAIL' "$results"; then
      failed=$((failed + 1))
      echo "  FAIL  $name [$client]: emacs exited $rc"
      sed 's/^/        | /' "$log" | tail -20
    fi
    [ -n "${MF_EMACS_VERBOSE:-}" ] && sed 's/^/        | /' "$log"
    echo "[$client $name: ${ms} ms]"
  done
  echo "$passed $failed $xfailed $xpassed" >"$WORK/$client.counts"
}

start_all=$(date +%s%N)
CLIENTS=${MF_EMACS_CLIENTS:-eglot lsp-mode}
for client in $CLIENTS; do
  run_client "$client" >"$WORK/$client.out" 2>&1 &
done
wait
passed=0 failed=0 xfailed=0 xpassed=0
for client in $CLIENTS; do
  cat "$WORK/$client.out"
  read -r p f xf xp <"$WORK/$client.counts" || { p=0; f=1; xf=0; xp=0; echo "  FAIL  $client: no counts"; }
  passed=$((passed + p)) failed=$((failed + f)) xfailed=$((xfailed + xf)) xpassed=$((xpassed + xp))
done
total_ms=$(( ($(date +%s%N) - start_all) / 1000000 ))
echo "total ${total_ms} ms"
[ "$xfailed$xpassed" != 00 ] && echo "emacs: $xfailed expected failures, $xpassed unexpected passes (see xfail/XPASS above)"
echo "emacs: $passed passed, $failed failed"
[ "$failed" = 0 ]
