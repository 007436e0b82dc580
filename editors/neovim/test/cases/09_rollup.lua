-- :MagicFrogRollup reports {written, upToDate, failed, lessons}: a day of today's
-- daily, the same day again (up to date), everything due in the demo journal
-- (today 2026-11-30), and a month whose lessons come as an edit of MEMORY.md.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local journal = fx.taskmem .. "/journal"
  local note = fx.taskmem .. "/notes/nvim-rollup.md"
  T.write(note, T.note(1, "rollup test"))
  local b = T.open(note)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end
  local msgs = T.capture_notify()

  -- The next rollup message after index `seen`.
  local function rollup_msg(seen, kind)
    local m, e = T.wait_cmd(msgs, 10000, function()
      for i = seen + 1, #msgs do
        if msgs[i].msg:find("rollup " .. kind .. ":", 1, true) then return msgs[i] end
      end
    end)
    return m, e
  end

  vim.cmd("MagicFrogToday")
  local daily, e = T.wait_cmd(msgs, 5000, function()
    local n = vim.api.nvim_buf_get_name(0)
    return n:find(vim.pesc(T.today) .. "%.md$") and n
  end)
  T.check("today's daily opened for the rollup", daily ~= nil, e)
  if daily then
    local db = vim.api.nvim_get_current_buf()
    T.wait_client(db)
    vim.api.nvim_buf_set_lines(db, -1, -1, false, {
      "", "## Decisions Made", "- Decided to test rollups from Neovim.",
      "", "## Things Built", "- Built the headless rollup test.",
    })
    -- didSave reaches the server before the command below (one ordered stream).
    vim.cmd("silent write")
    local seen = #msgs
    vim.cmd("MagicFrogRollup day " .. T.today)
    local m, e1 = rollup_msg(seen, "day")
    local refined = journal .. "/refined/" .. T.today .. ".md"
    T.check(":MagicFrogRollup day reports the file it wrote",
      m and m.msg:find("rollup day: wrote 1 file%(s%), 0 up to date, 0 failed, 0 lesson%(s%) proposed")
      and m.msg:find("written  [^\n]*refined/" .. vim.pesc(T.today) .. "%.md"), m and m.msg or e1)
    T.check("refined/" .. T.today .. ".md exists next to the daily", T.exists(refined), refined)
    T.check("refined daily carries the decision", (T.read(refined) or ""):find("test rollups from Neovim") ~= nil,
      T.read(refined))

    seen = #msgs
    vim.cmd("MagicFrogRollup day " .. T.today)
    m, e1 = rollup_msg(seen, "day")
    T.check("the same day again is reported up to date",
      m and m.msg:find("rollup day: wrote 0 file%(s%), 1 up to date, 0 failed") ~= nil, m and m.msg or e1)
  end

  -- due on 2026-11-30: the demo's unrefined days of weeks 47-48 and both weeklies.
  local seen = #msgs
  vim.cmd("MagicFrogRollup")
  local m, e2 = rollup_msg(seen, "due")
  local n = m and tonumber(m.msg:match("rollup due: wrote (%d+) file"))
  T.check(":MagicFrogRollup (due) reports what it wrote", n and n > 0 and m.msg:find(", 0 failed,") ~= nil,
    m and m.msg or e2)
  if m then
    local listed = select(2, m.msg:gsub("\n  written  ", ""))
    T.check("due: one line per written file", listed == n, m.msg)
    T.check("due: wrote refined/2026-11-29.md and weekly/2026-W48.md",
      m.msg:find("refined/2026%-11%-29%.md") and m.msg:find("weekly/2026%-W48%.md")
      and T.exists(journal .. "/refined/2026-11-29.md") and T.exists(journal .. "/weekly/2026-W48.md"), m.msg)
    T.check("due: today (not over) is not due", not m.msg:find("refined/" .. vim.pesc(T.today), 1), m.msg)
  end

  -- A month: its lessons are listed, and offered as an unsaved edit of MEMORY.md.
  local memory_md = journal .. "/MEMORY.md"
  local memory_before = T.read(memory_md)
  seen = #msgs
  vim.cmd("MagicFrogRollup month 2026-11")
  m, e2 = rollup_msg(seen, "month")
  local lessons = m and tonumber(m.msg:match("(%d+) lesson%(s%) proposed"))
  T.check(":MagicFrogRollup month lists the lessons it proposes", lessons and lessons > 0
    and select(2, m.msg:gsub("\n  lesson   ", "")) == lessons and m.msg:find("monthly/2026%-11%.md: "),
    m and m.msg or e2)
  local mb = T.wait(5000, function()
    local x = T.buf_named(memory_md)
    return x and vim.bo[x].modified and x
  end)
  T.check("lessons arrive as an edit of MEMORY.md, not written to disk",
    mb ~= nil and T.read(memory_md) == memory_before, mb and "MEMORY.md changed on disk" or "no MEMORY.md edit")
  if mb and m then
    local first = m.msg:match("\n  lesson   [^\n]-: ([^\n]+)")
    T.check("MEMORY.md buffer holds the proposed lesson", first and T.text(mb):find(first, 1, true) ~= nil,
      T.text(mb))
  end
end)
