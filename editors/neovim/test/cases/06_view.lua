-- :MagicFrogView lists keys with winner and shadowed entries.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  T.write(fx.memory .. "/user/notes/nvim-view.md", T.note(4, "user version"))
  T.write(fx.memory .. "/account/notes/nvim-view.md", T.note(2, "account version"))
  local task = fx.taskmem .. "/notes/nvim-view.md"
  T.write(task, T.note(1, "task version"))
  local b = T.open(task)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end

  local msgs = T.capture_notify()
  vim.cmd("MagicFrogView")
  local vb, e = T.wait_cmd(msgs, 5000, function()
    local x = T.buf_named("magicfrog://view")
    return x and T.text(x):find("nvim%-view%.md") and x
  end)
  T.check(":MagicFrogView lists the keys", vb ~= nil, e)
  if not vb then return end
  local lines = vim.api.nvim_buf_get_lines(vb, 0, -1, false)
  local at
  for i, l in ipairs(lines) do if l == "notes/nvim-view.md" then at = i end end
  T.check("view: key on its own line", at ~= nil, T.text(vb))
  if not at then return end
  T.check("view: task wins", (lines[at + 1] or ""):find("winner:%s+task[^ ]* r1"), lines[at + 1])
  local sh = lines[at + 2] or ""
  T.check("view: user r4 and account r2 are shadowed",
    sh:find("shadowed:") and sh:find("user r4") and sh:find("account r2"), sh)
end)
