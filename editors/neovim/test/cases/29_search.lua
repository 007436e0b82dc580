-- :MagicFrogSearch fills the quickfix list with the participant's hits (file,
-- the passage's first line, its text) and opens it; another agent's note with
-- the same words is never one of them.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local passage = "Reconcile the quarterly ledger before closing the month."
  -- The demo project is bound to larry; moe is registered too.
  local mine = fx.memory .. "/agent/larry/notes/ledger.md"
  local theirs = fx.memory .. "/agent/moe/notes/ledger.md"
  T.write(mine, T.note(1, "# Ledger\n\n\n" .. passage .. "\n\nAsk finance for the export."))
  T.write(theirs, T.note(1, passage))
  -- A note of the project roots the server there (its binding: larry).
  local b = T.open(fx.taskmem .. "/notes/progress.md")
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end

  local msgs = T.capture_notify()
  vim.cmd("MagicFrogSearch reconcile the quarterly ledger")
  local qf, e = T.wait_cmd(msgs, 5000, function()
    local l = vim.fn.getqflist({ title = 1, items = 1 })
    return #l.items > 0 and l
  end)
  if not T.check(":MagicFrogSearch fills the quickfix list", qf ~= nil, e) then return end
  T.check("the list is titled by the query", qf.title == "MagicFrog search: reconcile the quarterly ledger", qf.title)
  local first = qf.items[1]
  local name = vim.api.nvim_buf_get_name(first.bufnr)
  T.check("the best hit is larry's note", name == mine, name)
  -- Four frontmatter lines: the body's line 4 is the file's line 8.
  T.check("at the passage's first line", first.lnum == 8, first.lnum)
  T.check("its text is the passage's first line", first.text == passage, first.text)
  for _, it in ipairs(qf.items) do
    local n = vim.api.nvim_buf_get_name(it.bufnr)
    T.check("no hit is moe's note (" .. n .. ")", n ~= theirs, n)
  end
  local open = false
  for _, w in ipairs(vim.fn.getwininfo()) do
    if w.quickfix == 1 then open = true end
  end
  T.check("the quickfix window is open", open)

  -- A query of stop words only is the server's refusal, said to the user.
  vim.cmd("cclose")
  local before = #msgs
  vim.cmd("MagicFrogSearch the what")
  local said = T.wait(5000, function() return #msgs > before end)
  T.check("a query with nothing to search for is refused with a message", said ~= nil)
end)
