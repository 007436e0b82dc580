-- :MagicFrogRender fills a scratch buffer with the <memory> block, refreshed on
-- magicfrog/memoryChanged.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local note = fx.memory .. "/user/notes/nvim-render.md"
  T.write(note, T.note(1, "render-marker-one"))
  local b = T.open(fx.taskmem .. "/notes/nvim-render-task.md")
  T.write(fx.taskmem .. "/notes/nvim-render-task.md", T.note(1, "task-render-marker"))
  vim.cmd("edit!")
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end

  local msgs = T.capture_notify()
  vim.cmd("MagicFrogRender")
  local rb, e = T.wait_cmd(msgs, 5000, function()
    local x = T.buf_named("magicfrog://render")
    return x and T.text(x):find("<memory") and x
  end)
  T.check(":MagicFrogRender opens a buffer containing <memory", rb ~= nil, e)
  if not rb then return end
  T.check("render buffer is a scratch buffer with filetype xml",
    vim.bo[rb].filetype == "xml" and vim.bo[rb].buftype == "nofile", vim.bo[rb].filetype)
  T.check("render buffer is shown in the current window", vim.api.nvim_get_current_buf() == rb)
  local text = T.text(rb)
  T.check("block contains the task note and the user note",
    text:find("task%-render%-marker") and text:find("render%-marker%-one"), text)
  T.check("block puts task before user", (text:find("<task") or 1e9) < (text:find("<user") or 0), text)
  T.check("no refined day without N", not text:find("journal/refined/"), text)

  -- :MagicFrogRender 10 on 2026-11-30: the demo's refined days of 11-19 to
  -- 11-28 that exist (11-19, 11-20), after yesterday's daily, oldest first.
  vim.cmd("MagicFrogRender 10")
  local earlier = T.wait(5000, function() return T.text(rb):find("journal/refined/2026%-11%-19%.md") end)
  local t2 = T.text(rb)
  T.check(":MagicFrogRender 10 adds the refined days before yesterday, oldest first",
    earlier ~= nil and (t2:find("refined/2026%-11%-19") or 0) < (t2:find("refined/2026%-11%-20") or 0)
      and (t2:find("journal/2026%-11%-29%.md") or 1e9) < (t2:find("refined/2026%-11%-19") or 0)
      and not t2:find("refined/2026%-11%-18"), t2)

  -- An agent writes a note on disk: the server notifies, the buffer refreshes.
  T.write(fx.memory .. "/user/notes/nvim-render-2.md", T.note(1, "render-marker-two"))
  local refreshed = T.wait(8000, function() return T.text(rb):find("render%-marker%-two") end)
  T.check("render buffer refreshes on magicfrog/memoryChanged", refreshed ~= nil,
    "block did not pick up a new note within 8 s (generation " .. tostring(require("magicfrog").generation) .. ")")
end)
