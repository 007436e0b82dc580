-- :MagicFrogRollup day refines today's daily; :MagicFrogRollup due runs.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local note = fx.taskmem .. "/notes/nvim-rollup.md"
  T.write(note, T.note(1, "rollup test"))
  local b = T.open(note)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end
  local msgs = T.capture_notify()

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
    vim.cmd("silent write")
    vim.wait(500)
    vim.cmd("MagicFrogRollup day " .. T.today)
    local m = T.wait(10000, function() return T.find_msg(msgs, "rollup day") or T.find_msg(msgs, "failed") end)
    T.check(":MagicFrogRollup day reports what it wrote", m and m.msg:find("rollup day: wrote") ~= nil,
      m and m.msg or "no result within 10 s")
    local refined = vim.fn.fnamemodify(daily, ":h") .. "/refined/" .. T.today .. ".md"
    T.check("refined/" .. T.today .. ".md exists next to the daily", T.exists(refined), refined)
    if T.exists(refined) then
      T.check("refined daily carries the decision", (T.read(refined) or ""):find("test rollups from Neovim") ~= nil,
        T.read(refined))
    end
  end

  vim.cmd("MagicFrogRollup")
  local m = T.wait(10000, function() return T.find_msg(msgs, "rollup due") or T.find_msg(msgs, "rollup failed") end)
  T.check(":MagicFrogRollup (due) runs", m and m.msg:find("rollup due: wrote") ~= nil,
    m and m.msg or "no result within 10 s")
end)
