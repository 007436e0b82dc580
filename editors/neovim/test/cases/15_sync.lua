-- :MagicFrogSync REMOTE syncs memory to a folder (made a bare repository),
-- sums it up in one message, and :MagicFrogSync alone remembers the remote.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local note = fx.memory .. "/user/nvim-sync.md"
  T.write(note, T.note(1, "roams"))
  local b = T.open(note)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end

  local remote = fx.root .. "/remote.git"
  local msgs = T.capture_notify()
  vim.cmd("MagicFrogSync " .. vim.fn.fnameescape(remote))
  local m, e = T.wait_cmd(msgs, 20000, function() return T.find_msg(msgs, "MagicFrog: sync with ") end)
  T.check(":MagicFrogSync reports", m ~= nil, e)
  if not m then return end
  T.check("it sent the notes", m.msg:find("sent [1-9]") ~= nil, m.msg)
  T.check("the folder became a bare repository", T.exists(remote .. "/HEAD"), remote)

  local msgs2 = T.capture_notify()
  vim.cmd("MagicFrogSync")
  local m2, e2 = T.wait_cmd(msgs2, 20000, function() return T.find_msg(msgs2, "MagicFrog: sync with ") end)
  T.check("a second :MagicFrogSync uses the remembered remote and sends nothing", m2 ~= nil and m2.msg:find("sent 0, received 0") ~= nil, m2 and m2.msg or e2)
end)
