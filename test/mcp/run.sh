#!/usr/bin/env bash
# The MCP server's end-to-end tests with real clients, from nothing:
#   installs this folder's npm packages from package-lock.json (once; npm install
#   again when the lock changes), then runs
#   1. e2e.mjs: the official TypeScript SDK client (Client + StdioClientTransport)
#      and a language server beside it
#   2. inspector.sh: the same calls through the MCP Inspector's --cli mode
# Env: MF_LSP  the mf-lsp binary (default: go build ./cmd/mf-lsp into a temp dir)
# Exits non-zero on any failure; a missing node or npm is a failure.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  [ "$(id -u)" = 0 ] || { echo "mcp: FATAL: node or npm is missing (Debian: nodejs npm) and not root to install them" >&2; exit 1; }
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends nodejs npm
fi
command -v node >/dev/null || { echo "mcp: FATAL: node is missing (Debian: nodejs npm)" >&2; exit 1; }
command -v npm >/dev/null || { echo "mcp: FATAL: npm is missing" >&2; exit 1; }

cd "$HERE"
stamp=node_modules/.package-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  # npm install, not npm ci: vite (the inspector's) names an optional dependency that
  # the registry does not resolve, and npm ci refuses such a lock file.
  npm install --no-audit --no-fund --loglevel=error
  echo "$want" >"$stamp"
fi

if [ -z "${MF_LSP:-}" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$REPO" && go build -o "$tmp/mf-lsp" ./cmd/mf-lsp)
  export MF_LSP=$tmp/mf-lsp
fi

node e2e.mjs
bash inspector.sh
