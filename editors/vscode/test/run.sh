#!/usr/bin/env bash
# The VS Code extension's real-editor test, from a bare Debian machine (as root):
#   installs the Debian packages, the npm packages and code-server (cached),
#   runs the unit tests (npm test: the pure parts, no VS Code), builds and packages
#   the extension (.vsix), installs it into code-server,
#   and drives VS Code in headless Chromium with puppeteer (test/e2e.mjs).
#
# Env: MF_LSP        the mf-lsp binary to test (default: go build ./cmd/mf-lsp)
#      MF_DEMO       the fixture (default: testdata/demo, with data/ and project/)
#      MF_VSCODE_CACHE  where code-server is cached (default: ~/.cache/mf-lsp-vscode, outside
#                    the clone so CI runs on the same machine reuse it)
#      SCREENSHOTS=0 do not copy the screenshots into images/ and docs/screenshots/
#      KEEP=1        keep the temporary work dir (logs, settings, fixture copy)
#      E2E_ONLY=regex  run only the browser steps whose name matches (the workbench always loads)
# Exits non-zero on any failure; a missing editor or browser is a failure.
# The last line is `vscode: N passed, M failed`.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
EXT=$(dirname "$HERE")
REPO=$(cd "$EXT/../.." && pwd)
CACHE=${MF_VSCODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mf-lsp-vscode}
CS_VERSION=4.100.3
CHROMIUM=/usr/lib/chromium/chromium
RG_CACHE_NAME=vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz
APT_PACKAGES=(build-essential pkg-config python3 libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev
  ripgrep chromium fonts-dejavu-core curl ca-certificates git)

T_START=$(date +%s)
log() { echo "[vscode $(date +%T)] $*"; }
# The summary is the very last line, after the cleanup's own messages.
finish() {
  local rc=$1 summary=$2
  trap - EXIT
  cleanup "$rc"
  echo "$summary"
  exit "$rc"
}
fatal() {
  echo "vscode: FATAL: $*" >&2
  finish 1 "vscode: 0 passed, 1 failed"
}
phase_start() { PHASE_T0=$(date +%s); log "$1"; }
phase_end() { log "$1 took $(($(date +%s) - PHASE_T0)) s"; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mf-vscode-e2e.XXXXXX")
CS_PID=
cleanup() {
  local rc=${1:-$?}
  if [ -n "$CS_PID" ] && kill -0 "$CS_PID" 2>/dev/null; then
    kill -TERM -- "-$CS_PID" 2>/dev/null || kill -TERM "$CS_PID" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$CS_PID" 2>/dev/null || break; sleep 0.3; done
    kill -KILL -- "-$CS_PID" 2>/dev/null || true
  fi
  if [ "${KEEP:-}" = 1 ] || [ $rc -ne 0 ]; then
    log "work dir kept: $WORK"
  else
    rm -rf "$WORK"
  fi
}
trap 'cleanup $?' EXIT

# ---- 1. Debian packages ----------------------------------------------------------
phase_start "installing Debian packages"
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ! command -v node >/dev/null 2>&1; then missing+=(nodejs npm); fi
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || fatal "missing Debian packages (${missing[*]}) and not root to install them"
  export DEBIAN_FRONTEND=noninteractive
  for i in $(seq 1 60); do
    apt-get -o DPkg::Lock::Timeout=300 update -qq && break
    [ "$i" = 60 ] && fatal "apt-get update failed"
    sleep 5
  done
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >"$WORK/apt.log" 2>&1 ||
    { tail -20 "$WORK/apt.log"; fatal "apt-get install ${missing[*]} failed"; }
fi
[ -x "$CHROMIUM" ] || fatal "Chromium is missing at $CHROMIUM (Debian package chromium)"
command -v rg >/dev/null || fatal "ripgrep (rg) is missing"
NODE_MAJOR=$(node -p 'process.versions.node.split(".")[0]')
[ "$NODE_MAJOR" -ge 20 ] || fatal "Node.js >= 20 is needed by code-server $CS_VERSION (found $(node -v))"
phase_end "Debian packages"

# ---- 2. code-server (cached) -------------------------------------------------------
CS_PREFIX=$CACHE/code-server-$CS_VERSION
CS=$CS_PREFIX/bin/code-server
phase_start "installing code-server $CS_VERSION"
if ! "$CS" --version 2>/dev/null | grep -q "^$CS_VERSION "; then
  rm -rf "$CS_PREFIX"
  mkdir -p "$CACHE"
  # @vscode/ripgrep downloads rg from GitHub in its postinstall; seed its cache with Debian's rg.
  RG_TGZ=${TMPDIR:-/tmp}/$RG_CACHE_NAME
  if [ ! -s "$RG_TGZ" ]; then
    mkdir -p "$(dirname "$RG_TGZ")" "$WORK/rg"
    cp "$(command -v rg)" "$WORK/rg/rg"
    tar -C "$WORK/rg" -czf "$RG_TGZ" rg
  fi
  # Scripts are run by hand below: npm >= 11.x blocks dependency install scripts, and
  # code-server's postinstall must not inherit the global-install config.
  npm install -g --prefix "$CS_PREFIX" --ignore-scripts --no-audit --no-fund "code-server@$CS_VERSION" \
    >"$WORK/code-server-install.log" 2>&1 || { tail -30 "$WORK/code-server-install.log"; fatal "npm install code-server failed"; }
  CS_PKG=$CS_PREFIX/lib/node_modules/code-server
  (
    cd "$CS_PKG"
    export npm_config_user_agent="npm/$(npm -v) node/$(node -v) linux x64"
    export npm_config_unsafe_perm=true npm_config_yes=true npm_config_nodedir=/usr
    export npm_config_dangerously_allow_all_scripts=true npm_config_audit=false npm_config_fund=false
    unset npm_config_global npm_config_prefix
    sh ./postinstall.sh
    npm rebuild argon2
  ) >>"$WORK/code-server-install.log" 2>&1 || { grep -v TAR_ENTRY "$WORK/code-server-install.log" | tail -30; fatal "code-server's postinstall failed"; }
  "$CS" --version | grep -q "^$CS_VERSION " || fatal "code-server does not run after install"
fi
[ -x "$CS_PREFIX/lib/node_modules/code-server/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" ] || fatal "code-server's ripgrep is missing"
phase_end "code-server"

# ---- 3. the extension ----------------------------------------------------------------
phase_start "building and packaging the extension"
cd "$EXT"
if ! cmp -s package-lock.json node_modules/.mf-lock 2>/dev/null; then
  npm ci --no-audit --no-fund >"$WORK/npm-ext.log" 2>&1 || { tail -30 "$WORK/npm-ext.log"; fatal "npm ci (extension) failed"; }
  cp package-lock.json node_modules/.mf-lock
fi
# The pure parts (settings, labels, tree shaping, the server lookup), without VS Code.
npm test >"$WORK/unit.log" 2>&1 || { tail -40 "$WORK/unit.log"; fatal "npm test (unit tests) failed"; }
log "unit tests: $(grep -E '^ℹ (pass|fail) ' "$WORK/unit.log" | tr '\n' ' ')"
rm -f ./*.vsix
npm run package >"$WORK/package.log" 2>&1 || { tail -30 "$WORK/package.log"; fatal "npm run package failed"; }
VSIX=$(ls "$EXT"/*.vsix | head -1)
[ -s "$VSIX" ] || fatal "no .vsix was produced"
log "packaged $(basename "$VSIX") ($(du -k "$VSIX" | cut -f1) KiB)"
cd "$HERE"
if ! cmp -s package-lock.json node_modules/.mf-lock 2>/dev/null; then
  npm ci --no-audit --no-fund >"$WORK/npm-test.log" 2>&1 || { tail -30 "$WORK/npm-test.log"; fatal "npm ci (test) failed"; }
  cp package-lock.json node_modules/.mf-lock
fi
phase_end "extension"

# ---- 4. the server -------------------------------------------------------------------------
phase_start "locating mf-lsp"
if [ -n "${MF_LSP:-}" ]; then
  [ -x "$MF_LSP" ] || fatal "MF_LSP=$MF_LSP is not an executable"
  SERVER=$(cd "$(dirname "$MF_LSP")" && pwd)/$(basename "$MF_LSP")
else
  command -v go >/dev/null || fatal "MF_LSP is not set and go is missing to build mf-lsp"
  [ -d "$REPO/cmd/mf-lsp" ] || fatal "MF_LSP is not set and $REPO/cmd/mf-lsp does not exist"
  (cd "$REPO" && go build -o "$WORK/mf-lsp" ./cmd/mf-lsp) || fatal "go build ./cmd/mf-lsp failed"
  SERVER=$WORK/mf-lsp
fi
log "server: $SERVER"
phase_end "server"

# ---- 5. fixture, settings, code-server -----------------------------------------------------
DEMO_SRC=${MF_DEMO:-$REPO/testdata/demo}
[ -d "$DEMO_SRC/data" ] && [ -d "$DEMO_SRC/project" ] || fatal "the fixture $DEMO_SRC (data/ and project/) is missing"
cp -a "$DEMO_SRC" "$WORK/demo"
PROJECT=$WORK/demo/project
DATA=$WORK/demo/data
[ -d "$PROJECT/.magicfrog/memory" ] || fatal "the fixture has no task memory ($PROJECT/.magicfrog/memory)"

UD=$WORK/user-data
mkdir -p "$UD/User" "$WORK/extensions" "$WORK/shots"
# files.autoSave is off: code-server (VS Code for the web) defaults to afterDelay (1 s),
# which would save a buffer behind a step's back (an unsaved edit before a promotion, a
# conflict's edit before the agent's write). Every step saves with Ctrl+S when it means to.
SERVER="$SERVER" DATA="$DATA" node -e '
const s = {
  "magicfrog.serverPath": process.env.SERVER,
  "magicfrog.dataDir": process.env.DATA,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "git.enabled": false,
  "editor.minimap.enabled": false,
  "editor.hover.delay": 200,
  "files.autoSave": "off",
  "chat.commandCenter.enabled": false,
  "workbench.colorTheme": "Default Dark Modern"
};
process.stdout.write(JSON.stringify(s, null, 2));' >"$UD/User/settings.json"

phase_start "installing the .vsix into code-server"
"$CS" --user-data-dir "$UD" --extensions-dir "$WORK/extensions" --install-extension "$VSIX" >"$WORK/install-ext.log" 2>&1 ||
  { cat "$WORK/install-ext.log"; fatal "code-server --install-extension failed"; }
"$CS" --user-data-dir "$UD" --extensions-dir "$WORK/extensions" --list-extensions --show-versions | tee "$WORK/extensions.txt"
grep -q '^magicfrog.mf-lsp@' "$WORK/extensions.txt" || fatal "the extension is not listed as installed"
phase_end "extension install"

PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$PORT" >"$WORK/code-server.yaml"
log "starting code-server on 127.0.0.1:$PORT"
setsid "$CS" --config "$WORK/code-server.yaml" --user-data-dir "$UD" --extensions-dir "$WORK/extensions" \
  --disable-telemetry --disable-update-check --disable-workspace-trust --disable-getting-started-override \
  "$PROJECT" >"$WORK/code-server.log" 2>&1 &
CS_PID=$!
for i in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break
  kill -0 "$CS_PID" 2>/dev/null || { cat "$WORK/code-server.log"; fatal "code-server exited"; }
  [ "$i" = 120 ] && { cat "$WORK/code-server.log"; fatal "code-server did not answer on port $PORT"; }
  sleep 0.5
done

# ---- 6. the browser test -----------------------------------------------------------------------
phase_start "driving VS Code in headless Chromium"
set +e
CS_URL="http://127.0.0.1:$PORT" USER_SETTINGS="$UD/User/settings.json" PROJECT="$PROJECT" DATA_DIR="$DATA" SHOTS="$WORK/shots" CHROMIUM="$CHROMIUM" \
  node "$HERE/e2e.mjs" 2>&1 | tee "$WORK/e2e.log"
RC=${PIPESTATUS[0]}
set -e
phase_end "browser test"

# Screenshots of the passing steps feed the README and docs/screenshots.
if [ "${SCREENSHOTS:-1}" != 0 ]; then
  mkdir -p "$EXT/images" "$REPO/docs/screenshots"
  for f in "$WORK"/shots/vscode-*.png; do
    [ -e "$f" ] || continue
    cp "$f" "$EXT/images/"
    cp "$f" "$REPO/docs/screenshots/"
  done
fi
if [ "$RC" -ne 0 ]; then
  log "extension host log (mf-lsp output channel), last lines:"
  find "$UD/logs" -name '*MagicFrog*' -exec tail -n 40 {} \; 2>/dev/null || true
  ls "$WORK"/shots/fail-*.png 2>/dev/null | sed 's/^/failure screenshot: /' || true
fi
log "total $(($(date +%s) - T_START)) s"
SUMMARY=$(grep '^vscode: [0-9]* passed, [0-9]* failed$' "$WORK/e2e.log" | tail -1)
if [ -z "$SUMMARY" ]; then
  SUMMARY="vscode: 0 passed, 1 failed"
  RC=1
fi
finish "$RC" "$SUMMARY"
