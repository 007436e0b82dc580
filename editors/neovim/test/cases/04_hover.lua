-- Hover on a note names its dimension.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

local function hover_text(bufnr, line)
  vim.api.nvim_win_set_cursor(0, { line, 0 })
  local params = vim.lsp.util.make_position_params()
  local res = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 5000)
  local parts = {}
  for _, r in pairs(res or {}) do
    if r.err then table.insert(parts, "ERR " .. tostring(r.err.message)) end
    local c = r.result and r.result.contents
    if type(c) == "string" then table.insert(parts, c)
    elseif type(c) == "table" then
      if c.value then table.insert(parts, c.value) end
      for _, x in ipairs(c) do table.insert(parts, type(x) == "table" and (x.value or "") or tostring(x)) end
    end
  end
  return table.concat(parts, "\n")
end

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local user_note = fx.memory .. "/user/notes/nvim-hover.md"
  T.write(user_note, T.note(2, "Prefer small commits."))
  local b = T.open(user_note)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end
  local text = hover_text(b, 2) -- on `revision: 2`
  T.check("hover on a user note's frontmatter names the dimension `user`",
    text:lower():find("user") ~= nil, text == "" and "empty hover" or text)
  text = hover_text(b, 5) -- on the body
  T.check("hover on a user note's body names the dimension `user`",
    text:lower():find("user") ~= nil, text == "" and "empty hover" or text)

  local task_note = fx.taskmem .. "/notes/nvim-hover.md"
  T.write(task_note, T.note(1, "Task-specific."))
  local b2 = T.open(task_note)
  T.check("client attached (task)", T.wait_client(b2) ~= nil)
  text = hover_text(b2, 2)
  T.check("hover on a task note names the dimension `task`",
    text:lower():find("task") ~= nil, text == "" and "empty hover" or text)
end)
