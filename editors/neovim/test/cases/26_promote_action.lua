-- "Promote to agent larry" from the code-action menu (gra on 0.11+): the note
-- moves and the buffer follows it, as :MagicFrogPromote does. Before, the
-- server moved the file behind the editor: the buffer stayed on the old path
-- (E211), :w failed (E212: the folder was gone) and unsaved edits were stranded.
-- An unsaved edit is saved first, then promoted with the note.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  local src = fx.taskmem .. "/notes/nvim-menu-promote.md"
  T.write(src, T.note(2, "menu-promote-marker"))
  T.setup(fx)
  local b = T.open(src)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end
  T.wait(5000, function() return #vim.diagnostic.get(b) >= 0 and vim.b[b].magicfrog_attached end)

  -- An edit not saved yet.
  vim.api.nvim_buf_set_lines(b, -1, -1, false, { "unsaved-edit-marker" })

  local offered = {}
  vim.ui.select = function(items, opts, on_choice)
    for i, it in ipairs(items) do
      local title = opts.format_item and opts.format_item(it) or tostring(it)
      table.insert(offered, title)
      if title:find("Promote to agent larry", 1, true) then return on_choice(it, i) end
    end
    on_choice(nil, nil)
  end
  local msgs = T.capture_notify()
  vim.lsp.buf.code_action()
  local dest = fx.memory .. "/agent/larry/notes/nvim-menu-promote.md"
  local moved = T.wait(8000, function() return T.exists(dest) and not T.exists(src) and vim.api.nvim_buf_get_name(0) == dest end)
  T.check("the menu offers Promote to agent larry", T.find_msg({}, "") == nil and vim.tbl_contains(vim.tbl_map(function(t)
    return t:find("Promote to agent larry", 1, true) ~= nil end, offered), true), vim.inspect(offered))
  T.check("the note moved and the buffer follows it", moved ~= nil,
    string.format("buffer %s; dest exists %s; src exists %s; %s", vim.api.nvim_buf_get_name(0), tostring(T.exists(dest)),
      tostring(T.exists(src)), vim.inspect(msgs)))
  local text = T.read(dest) or ""
  T.check("the unsaved edit was saved and moved with the note, not stranded",
    text:find("unsaved-edit-marker", 1, true) ~= nil and text:find("menu-promote-marker", 1, true) ~= nil, text)
  local nb = vim.api.nvim_get_current_buf()
  T.check("the followed buffer is the file on disk, unmodified", not vim.bo[nb].modified
    and T.text(nb):find("unsaved-edit-marker", 1, true) ~= nil, T.text(nb))
  local left = T.buf_named(src)
  -- (0.10+ may keep an unloaded, unlisted entry for the old URI: the server
  -- clears its diagnostics there.)
  T.check("no buffer is left open on the old path",
    left == nil or not (vim.api.nvim_buf_is_loaded(left) or vim.bo[left].buflisted), left and string.format("buffer %d loaded %s listed %s (was %d)",
    left, tostring(vim.api.nvim_buf_is_loaded(left)), tostring(vim.bo[left].buflisted), b))
  T.check("the user is told where the note went",
    T.find_msg(msgs, "promoted to " .. vim.pesc(dest)) ~= nil, vim.inspect(msgs))
  T.check("the followed buffer has the client", T.wait_client(nb) ~= nil)
end)
