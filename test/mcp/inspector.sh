#!/usr/bin/env bash
# The same calls as e2e.mjs through a second real client: the MCP Inspector's
# command line mode (@modelcontextprotocol/inspector --cli), one server process
# per call. Needs MF_LSP (the binary) and the npm packages of this folder.
# The last line is `mcp inspector: N passed, M failed`.
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
: "${MF_LSP:?set MF_LSP to the mf-lsp binary}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mf-mcp-inspector.XXXXXX")
cp -r "$REPO/testdata/demo/." "$WORK/"
INSPECTOR="$HERE/node_modules/.bin/mcp-inspector"
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

# call ARGS...: one inspector --cli run against a fresh `mf-lsp mcp`; stdout
# is the JSON result, the exit code the inspector's.
call() {
  timeout 120 "$INSPECTOR" --cli --cwd "$WORK/project" "$MF_LSP" mcp --data-dir "$WORK/data" "$@" 2>>"$WORK/stderr.log"
}

out=$(call --method tools/list)
if [ "$(node -e 'const r = JSON.parse(require("fs").readFileSync(0)); console.log(r.tools.map((t) => t.name).sort().join(" "))' <<<"$out")" = \
  "memory_append memory_context memory_read memory_search memory_view memory_write" ]; then
  ok "tools/list"
else bad "tools/list: $out"; fi

out=$(call --method tools/call --tool-name memory_context)
if grep -q '<task id=\\"T-7\\">' <<<"$out" && grep -q '"generation"' <<<"$out"; then ok "memory_context"; else bad "memory_context: ${out:0:300}"; fi

out=$(call --method resources/read --uri memory://context)
if grep -q '<memory generation=' <<<"$out"; then ok "resources/read memory://context"; else bad "resources/read: ${out:0:300}"; fi

note="$WORK/project/.magicfrog/memory/T-7/notes/progress.md"
before=$(sha256sum <"$note")
out=$(call --method tools/call --tool-name memory_write --tool-arg dimension=task/T-7 --tool-arg key=notes/progress.md \
  --tool-arg body=overwrite --tool-arg expected_revision=2)
rc=$?
if [ $rc -ne 0 ] && grep -q '\\"current_revision\\":3' <<<"$out" && grep -q '"isError": true' <<<"$out" && [ "$(sha256sum <"$note")" = "$before" ]; then
  ok "stale memory_write refused (exit $rc), file unchanged"
else bad "stale memory_write (exit $rc): ${out:0:400}"; fi

out=$(call --method tools/call --tool-name memory_read --tool-arg dimension=agent/moe --tool-arg key=notes/focus.md)
if grep -q "outside this participant's scope" <<<"$out"; then ok "another agent's note refused"; else bad "agent/moe read: ${out:0:300}"; fi

# Eight inspector processes appending at once, three lines each (an inspector
# run is a Node start and a server start: about two seconds).
t0=$(date +%s%N)
for w in 0 1 2 3 4 5 6 7; do
  (for i in 0 1 2; do
    call --method tools/call --tool-name memory_append --tool-arg "text=- inspector $w line $i" >/dev/null || echo "append $w $i failed" >>"$WORK/append-errors"
  done) &
done
wait
ms=$((($(date +%s%N) - t0) / 1000000))
daily=$(ls "$WORK"/project/.magicfrog/memory/journal/2*.md | sort | tail -1)
missing=0
for w in 0 1 2 3 4 5 6 7; do
  for i in 0 1 2; do
    [ "$(grep -c -x -- "- inspector $w line $i" "$daily")" = 1 ] || missing=$((missing + 1))
  done
done
if [ ! -s "$WORK/append-errors" ] && [ $missing = 0 ] && "$MF_LSP" check "$daily" --data-dir "$WORK/data" --project "$WORK/project" >/dev/null 2>&1; then
  ok "eight inspectors appending at once: 24 lines once each, the note checks clean ($ms ms, each call a new process)"
else bad "concurrent appends: $missing lines missing or doubled; $(cat "$WORK/append-errors" 2>/dev/null)"; fi

if [ $failed = 0 ]; then rm -rf "$WORK"; else echo "work dir kept: $WORK"; fi
echo "mcp inspector: $passed passed, $failed failed"
[ $failed = 0 ]
