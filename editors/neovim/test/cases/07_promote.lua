-- :MagicFrogPromote user moves a task note to the user dimension.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local src = fx.taskmem .. "/notes/nvim-promote.md"
  T.write(src, T.note(1, "promote-me-marker"))
  local b = T.open(src)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end

  local msgs = T.capture_notify()
  vim.cmd("MagicFrogPromote user")
  local dest = fx.memory .. "/user/notes/nvim-promote.md"
  local ok, e = T.wait_cmd(msgs, 5000, function() return T.exists(dest) end)
  T.check(":MagicFrogPromote user creates the destination file", ok ~= nil, e)
  if ok then
    T.check("promoted note keeps its body", (T.read(dest) or ""):find("promote%-me%-marker") ~= nil, T.read(dest))
    T.check("user is told where the note went",
      T.wait(2000, function() return T.find_msg(msgs, "promoted to " .. vim.pesc(dest)) end) ~= nil, vim.inspect(msgs))
    T.check("after a move the buffer follows the note", T.wait(2000, function()
      return vim.api.nvim_buf_get_name(0) == dest
    end) ~= nil, vim.api.nvim_buf_get_name(0))
  end

  -- With !, a copy: the source stays.
  local src2 = fx.taskmem .. "/notes/nvim-promote-copy.md"
  T.write(src2, T.note(1, "copy-me-marker"))
  local b2 = T.open(src2)
  T.wait_client(b2)
  vim.cmd("MagicFrogPromote! account")
  local dest2 = fx.memory .. "/account/notes/nvim-promote-copy.md"
  local ok2, e2 = T.wait_cmd(msgs, 5000, function() return T.exists(dest2) end)
  T.check(":MagicFrogPromote! account copies", ok2 ~= nil and T.exists(src2),
    ok2 and "source gone" or e2)
end)
