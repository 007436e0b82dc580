-- Navigation as a user does it: complete a link inside "[](" and pick a note,
-- go to definition on the link (the buffer becomes the target), then rename the
-- target from the link (the file moves and the link is rewritten).
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local dir = fx.memory .. "/user/notes"
  local target = dir .. "/nav-target.md"
  local from = dir .. "/nav-from.md"
  T.write(target, T.note(1, "The note to link to."))
  T.write(from, T.note(1, "See []()."))

  local b = T.open(from)
  local client = T.wait_client(b)
  if not T.check("client attached", client ~= nil, "no initialized client within 5 s") then return end
  local line = 5 -- "See []()."
  local col = #"See []("

  -- Completion inside "[](": the server's items; pick the target note.
  local params = { textDocument = { uri = vim.uri_from_bufnr(b) }, position = { line = line - 1, character = col } }
  local item
  T.wait(10000, function()
    local res = vim.lsp.buf_request_sync(b, "textDocument/completion", params, 5000)
    for _, r in pairs(res or {}) do
      local items = r.result and (r.result.items or r.result) or {}
      for _, it in ipairs(items) do
        if it.label == "user/notes/nav-target.md" then item = it end
      end
    end
    return item
  end)
  if not T.check("completion in [](…) offers the note by its portable path", item ~= nil, "no item user/notes/nav-target.md") then return end
  T.check("the item is marked effective", tostring(item.detail):find("effective", 1, true) ~= nil, tostring(item.detail))
  vim.lsp.util.apply_text_edits({ item.textEdit }, b, client.offset_encoding or "utf-16")
  T.check("picking it writes the relative path", vim.api.nvim_buf_get_lines(b, line - 1, line, false)[1] == "See [](nav-target.md).",
    vim.api.nvim_buf_get_lines(b, line - 1, line, false)[1])
  vim.cmd("silent write")

  -- Go to definition on the link: the target opens.
  vim.api.nvim_win_set_cursor(0, { line, col + 2 })
  vim.lsp.buf.definition()
  local went = T.wait(5000, function() return vim.api.nvim_buf_get_name(0) == target end)
  T.check("go to definition on the link opens the target", went, vim.api.nvim_buf_get_name(0))

  -- Rename from the link: the file moves and the link follows.
  vim.cmd("buffer " .. b)
  vim.api.nvim_win_set_cursor(0, { line, col + 2 })
  vim.lsp.buf.rename("nav-renamed")
  local renamed = dir .. "/nav-renamed.md"
  local moved = T.wait(5000, function() return T.exists(renamed) and not T.exists(target) end)
  T.check("rename from the link moves the note's file", moved,
    "nav-renamed.md " .. tostring(T.exists(renamed)) .. ", nav-target.md " .. tostring(T.exists(target)))
  local rewritten = T.wait(5000, function()
    return vim.api.nvim_buf_get_lines(b, line - 1, line, false)[1] == "See [](nav-renamed.md)."
  end)
  T.check("rename rewrites the link in the open buffer", rewritten, vim.api.nvim_buf_get_lines(b, line - 1, line, false)[1])
end)
