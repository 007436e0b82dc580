-- Hover on a note: its standing (effective / shadowed by ...), dimension, revision
-- and its chain; hover on a link: the target's summary.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

-- Hover at (1-based line, 0-based column); returns the text (or "") and the kind.
local function hover(bufnr, line, col)
  vim.api.nvim_win_set_cursor(0, { line, col or 0 })
  local params = vim.lsp.util.make_position_params()
  local res = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 5000)
  local parts, kind = {}, nil
  for _, r in pairs(res or {}) do
    if r.err then table.insert(parts, "ERR " .. tostring(r.err.message)) end
    local c = r.result and r.result.contents
    if type(c) == "string" then table.insert(parts, c)
    elseif type(c) == "table" then
      kind = c.kind or kind
      if c.value then table.insert(parts, c.value) end
      for _, x in ipairs(c) do table.insert(parts, type(x) == "table" and (x.value or "") or tostring(x)) end
    end
  end
  return table.concat(parts, "\n"), kind
end

local function has(text, ...)
  for _, p in ipairs({ ... }) do
    if not text:find(p, 1, true) then return false end
  end
  return true
end

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  -- A data-dir note gets the data-dir client (README: roots), whose session has no
  -- project: there, user (r2) beats account (r5) for the same key. The project's
  -- client also sees the task note, which beats both.
  local user_note = fx.memory .. "/user/notes/nvim-hover.md"
  T.write(user_note, T.note(2, "Prefer small commits.\nSee [the review skill](../skills/review.md)."))
  local account_note = fx.memory .. "/account/notes/nvim-hover.md"
  T.write(account_note, T.note(5, "Account-wide."))
  local task_note = fx.taskmem .. "/notes/nvim-hover.md"
  T.write(task_note, T.note(1, "Task-specific."))

  local b = T.open(user_note)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end
  local text, kind = hover(b, 2) -- on `revision: 2`
  T.check("hover is markdown", kind == "markdown", tostring(kind))
  T.check("hover on a user note's frontmatter: dimension user, revision 2, effective over account",
    has(text, "**user/notes/nvim-hover.md** · effective · shadows account", "dimension: `user`", "revision: 2"),
    text == "" and "empty hover" or text)
  text = hover(b, 5) -- on the body
  T.check("hover on the body describes the same note", has(text, "**user/notes/nvim-hover.md**", "dimension: `user`"),
    text == "" and "empty hover" or text)
  text = hover(b, 6, 8) -- on the link to user/skills/review.md
  T.check("hover on a link shows the target's summary", has(text, "user · rev 3", "Review a change")
    and not text:find("Chain", 1, true), text == "" and "empty hover" or text)

  local ba = T.open(account_note)
  T.wait_client(ba)
  text = hover(ba, 2)
  T.check("hover on the account note: shadowed by user (rev 2)",
    has(text, "shadowed by user (rev 2)", "dimension: `account`", "revision: 5"), text)
  T.check("hover chain links the winning user note first",
    (text:find(vim.uri_from_fname(user_note), 1, true) or 1e9) < (text:find(vim.uri_from_fname(account_note), 1, true) or 0),
    text)

  local b2 = T.open(task_note)
  T.check("client attached (task)", T.wait_client(b2) ~= nil)
  text = hover(b2, 2)
  T.check("hover on the task note: dimension task, effective, shadows user and account",
    has(text, "dimension: `task`", "effective · shadows user, account"), text == "" and "empty hover" or text)

  -- Not a memory note: no hover.
  local b3 = T.open(fx.project .. "/README.md")
  T.wait_client(b3)
  text = hover(b3, 1)
  T.check("no hover on a file outside the memory tree", text == "", text)
end)
