-- :MagicFrogToday creates and opens today's daily note.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local note = fx.taskmem .. "/notes/nvim-today.md"
  T.write(note, T.note(1, "today test"))
  local b = T.open(note)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end

  local msgs = T.capture_notify()
  vim.cmd("MagicFrogToday")
  local name, e = T.wait_cmd(msgs, 5000, function()
    local n = vim.api.nvim_buf_get_name(0)
    return n:find(vim.pesc(T.today) .. "%.md$") and n
  end)
  T.check(":MagicFrogToday opens " .. T.today .. ".md", name ~= nil, e)
  if not name then return end
  T.check("today's daily exists on disk", T.exists(name), name)
  T.check("today's daily is in the project's journal (the demo's fractal layer)",
    name == fx.taskmem .. "/journal/" .. T.today .. ".md", name)
  T.check("today's daily starts with frontmatter", (T.read(name) or ""):find("^%-%-%-\n") ~= nil, T.read(name))
  T.check("the daily buffer gets the client", T.wait_client(vim.api.nvim_get_current_buf()) ~= nil)

  -- Run again from another note: the same daily, not re-created.
  local before = T.read(name)
  T.open(note)
  vim.cmd("MagicFrogToday")
  local again = T.wait(5000, function() return vim.api.nvim_buf_get_name(0) == name end)
  T.check("a second :MagicFrogToday opens the same daily, unchanged", again ~= nil and T.read(name) == before,
    vim.api.nvim_buf_get_name(0))
end)
