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
  T.check("view: the winner's file is shown", (lines[at + 1] or ""):find(vim.fn.fnamemodify(task, ":~"), 1, true) ~= nil,
    lines[at + 1])
  local sh = lines[at + 2] or ""
  T.check("view: user r4 and account r2 are shadowed, in that order",
    sh:find("shadowed:") and (sh:find("user r4") or 1e9) < (sh:find("account r2") or 0), sh)

  local text = T.text(vb)
  -- The session scope the server reports (testdata/demo: .magicfrog/config.json, machine-id).
  T.check("view: the scope line shows task, agents and machine",
    text:find("\nscope: task T%-7, agents larry, machine 3f9c2a7e5b10d4c8\n") ~= nil, lines[2])
  -- A scoped winner: agent/larry/notes/style.md (r5) over agent/notes/style.md (r1).
  local style
  for i, l in ipairs(lines) do if l == "notes/style.md" then style = i end end
  T.check("view: a scoped winner shows its scope (agent/larry r5 over agent r1)", style ~= nil
    and (lines[style + 1] or ""):find("winner:%s+agent/larry r5") ~= nil
    and (lines[style + 2] or ""):find("shadowed: agent r1$") ~= nil,
    style and (lines[style + 1] .. " / " .. lines[style + 2]) or text)
  T.check("view: device entries, the legacy machine/ one marked",
    text:find("# Device %(this machine%): 2") and text:find("\npaths%.md  device r0 %(legacy%)")
    and text:find("\ntools%.md  device r2"), text)
  T.check("view: skills listed with their layer", text:find("# Skills: 1")
    and text:find("\nskills/review%.md  user r3  layer skills"), text)
  T.check("view: the journal boot set in the seed's order (2026-11-30: yesterday, MEMORY.md, sticky notes)",
    text:find("# Journal boot set, in order: 4\n1%. journal/2026%-11%-29%.md  task r1\n2%. journal/MEMORY%.md  task r3\n3%. journal/sticky%-notes/infrastructure%.md"), text)

  -- Go to definition on a key in the view: the note that wins it.
  vim.api.nvim_set_current_buf(vb)
  vim.api.nvim_win_set_cursor(0, { at, 3 })
  T.wait(5000, function() return vim.lsp.buf_is_attached(vb, vim.b[vb].magicfrog_client) end)
  vim.lsp.buf.definition()
  local went = T.wait(5000, function() return vim.api.nvim_buf_get_name(0) == task end)
  T.check("go to definition on a key in the view opens the note that wins it", went, vim.api.nvim_buf_get_name(0))
  vim.api.nvim_set_current_buf(vb)

  -- The view refreshes when the memory changes on disk.
  T.write(fx.memory .. "/account/notes/nvim-view-new.md", T.note(7, "new"))
  local refreshed = T.wait(5000, function() return T.text(vb):find("\nnotes/nvim%-view%-new%.md\n  winner:   account r7") end)
  T.check("view refreshes on magicfrog/memoryChanged", refreshed ~= nil, T.text(vb))
end)
