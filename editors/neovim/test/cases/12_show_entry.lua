-- magicfrog.showEntry makes the server send window/showDocument; the plugin
-- (0.7 has no handler) opens the note.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  local mf = T.setup(fx)
  local here = fx.taskmem .. "/notes/nvim-show.md"
  T.write(here, T.note(1, "start here"))
  local target = fx.memory .. "/user/notes/nvim-show-target.md"
  T.write(target, T.note(3, "show me"))
  local b = T.open(here)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end
  T.check("window/showDocument is handled", vim.lsp.handlers["window/showDocument"] ~= nil
    or mf.buf_clients(b)[1].handlers["window/showDocument"] ~= nil)
  local msgs = T.capture_notify()
  mf.execute("magicfrog.showEntry", { uri = vim.uri_from_fname(target) })
  local ok, e = T.wait_cmd(msgs, 5000, function() return vim.api.nvim_buf_get_name(0) == target end)
  T.check("magicfrog.showEntry opens the note", ok ~= nil, e)
end)
