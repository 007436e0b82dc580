-- Saving a note bumps revision/updated (autoRevision, through willSaveWaitUntil,
-- which the plugin sends itself on Neovim < 0.9).
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
  T.check("saved file has a new updated time", disk:find("updated:") and not disk:find("updated: 2026%-10%-20T09:12:00%.000Z"), disk)
  T.check("saved file keeps the edit", disk:find("\nafter\n") ~= nil, disk)
  T.check("buffer is not left modified", not vim.bo[b].modified)
end)
