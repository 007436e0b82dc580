-- Saving a note bumps revision/updated (autoRevision, through willSaveWaitUntil,
-- which the plugin sends itself on Neovim < 0.9); a save that changes nothing
-- bumps nothing; a note deleted on disk is re-created with the next revision
-- and a warning.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local path = fx.taskmem .. "/notes/nvim-save.md"
  T.write(path, T.note(1, "before"))
  local b = T.open(path)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end
  local sent = {}
  local c = require("magicfrog").buf_clients(b)[1]
  local req = c.request_sync
  c.request_sync = function(method, ...)
    table.insert(sent, method)
    return req(method, ...)
  end
  vim.api.nvim_buf_set_lines(b, -2, -1, false, { "after" })
  vim.cmd("silent write")
  c.request_sync = req
  T.check("textDocument/willSaveWaitUntil is sent on save",
    vim.fn.has("nvim-0.9") == 1 or vim.tbl_contains(sent, "textDocument/willSaveWaitUntil"), vim.inspect(sent))
  local disk = T.read(path) or ""
  T.check("saved file has revision 2", disk:find("\nrevision: 2\n") ~= nil, disk)
  local updated = disk:match("\nupdated: (%S+)\n")
  T.check("saved file has a new updated time (UTC, milliseconds)", updated ~= nil
    and updated ~= "2026-10-20T09:12:00.000Z" and updated:match("^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d:%d%d%.%d%d%dZ$") ~= nil,
    disk)
  T.check("saved file keeps the edit", disk:find("\nafter\n") ~= nil, disk)
  T.check("the buffer holds what was written", T.text(b) .. "\n" == disk, T.text(b))
  T.check("buffer is not left modified", not vim.bo[b].modified)

  -- Saving again without a change: nothing to bump.
  vim.cmd("silent write")
  T.check("a save without changes keeps revision 2", T.read(path) == disk, T.read(path))

  -- Another edit: revision 3.
  vim.api.nvim_buf_set_lines(b, -1, -1, false, { "more" })
  vim.cmd("silent write")
  T.check("the next edited save is revision 3", (T.read(path) or ""):find("\nrevision: 3\n") ~= nil, T.read(path))

  -- Deleted on disk (an agent moved it away) while edited: saving re-creates it
  -- as revision 4 and says so.
  local msgs = T.capture_notify()
  vim.api.nvim_buf_set_lines(b, -1, -1, false, { "after the delete" })
  os.remove(path)
  vim.cmd("silent write")
  disk = T.read(path) or ""
  T.check("a save after a delete on disk re-creates the note as revision 4",
    disk:find("\nrevision: 4\n") ~= nil and disk:find("after the delete", 1, true) ~= nil, disk)
  local w = T.wait(5000, function() return T.find_msg(msgs, "deleted on disk") end)
  T.check("the re-creation is reported as a warning", w ~= nil and w.level == vim.log.levels.WARN,
    w and w.msg or vim.inspect(msgs))
end)
