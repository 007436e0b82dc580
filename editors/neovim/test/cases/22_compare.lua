-- Conflicts you can judge: the save-conflict question offers Compare (the disk
-- version beside the buffer, both in diff mode) and, when the agent and the
-- buffer changed different lines, Merge (both changes, at the next revision).
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

local function revision(text)
  return tonumber((text or ""):match("\nrevision:%s*(%d+)") or (text or ""):match("^%-%-%-\r?\nrevision:%s*(%d+)"))
end

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local path = fx.taskmem .. "/notes/nvim-compare.md"
  T.write(path, T.note(1, "line one\nline two"))
  local b = T.open(path)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no client within 5 s") then return end
  -- A request answered means the server has handled didOpen (it dispatches in
  -- order) and knows the version the buffer is based on.
  vim.lsp.buf_request_sync(b, "textDocument/hover",
    { textDocument = { uri = vim.uri_from_bufnr(b) }, position = { line = 0, character = 0 } }, 5000)

  local asked, answers = {}, { "Compare", "Merge" }
  vim.ui.select = function(items, opts, on_choice)
    table.insert(asked, items)
    local want = answers[#asked]
    for i, it in ipairs(items) do
      if it.title == want then return on_choice(it, i) end
    end
    on_choice(nil, nil)
  end

  -- The buffer changes line one; an agent appends a line at revision 5.
  vim.api.nvim_buf_set_lines(b, 4, 5, false, { "MY line one" })
  T.write(path, T.note(5, "line one\nline two\nagent line"))
  vim.api.nvim_input("y")
  vim.cmd("write")

  local q = T.wait(5000, function() return asked[1] end)
  local titles = {}
  for _, it in ipairs(q or {}) do table.insert(titles, it.title) end
  T.check("the question offers Take disk, Keep mine, Compare and Merge",
    table.concat(titles, "|") == "Take disk version|Keep mine as next revision|Compare|Merge", table.concat(titles, "|"))

  local dbuf = T.wait(5000, function() return T.buf_named("magicfrog://disk/nvim-compare.md") end)
  T.check("Compare shows the disk version in a buffer", dbuf and T.text(dbuf):find("agent line", 1, true), dbuf and T.text(dbuf))
  if dbuf then
    local dwin = vim.fn.bufwinid(dbuf)
    local nwin = vim.fn.bufwinid(b)
    T.check("both windows are in diff mode (:diffsplit)", dwin ~= -1 and nwin ~= -1
      and vim.wo[dwin].diff and vim.wo[nwin].diff, dwin .. " " .. nwin)
  end

  T.check("after Compare the question is asked again", T.wait(5000, function() return asked[2] end) ~= nil, #asked)
  local merged = T.wait(5000, function()
    local t = T.text(b)
    return t:find("MY line one", 1, true) and t:find("agent line", 1, true) and revision(t) == 6
  end)
  T.check("Merge puts both changes in the buffer at revision 6", merged ~= nil, T.text(b))
  T.check("the merge is an edit to review: the buffer is modified", vim.bo[b].modified)
end)
