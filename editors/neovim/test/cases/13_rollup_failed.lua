-- A rollup whose summarizer fails: :MagicFrogRollup warns and names each failed
-- job with the server's reason; nothing is written.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  -- `false` exits 1 without output: every job fails (docs/journal.md, Summarizers).
  T.setup(fx, { summarizer = "false" })
  local journal = fx.taskmem .. "/journal"
  local b = T.open(journal .. "/2026-11-29.md")
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end
  local msgs = T.capture_notify()
  vim.cmd("MagicFrogRollup day 2026-11-29")
  local m, e = T.wait_cmd(msgs, 10000, function() return T.find_msg(msgs, "rollup day:") end)
  T.check("a failed rollup is a warning", m ~= nil and m.level == vim.log.levels.WARN, m and m.msg or e)
  T.check("the summary counts the failure", m and m.msg:find("wrote 0 file%(s%), 0 up to date, 1 failed") ~= nil,
    m and m.msg or e)
  T.check("the failed job is named with the server's reason",
    m and m.msg:find("\n  failed   [^\n]*2026%-11%-29[^\n]*: [^\n]*false") ~= nil, m and m.msg or e)
  T.check("nothing written", not T.exists(journal .. "/refined/2026-11-29.md"))
end)
