-- Issue 20: a project bound to two agents, no participant chosen. The server
-- refuses the render with data.code "several-agents"; the plugin asks with
-- vim.ui.select (stubbed here to pick bob), sends the choice as the
-- participant setting, renders again (bob's block), and remembers the choice
-- for the project: a new server for it answers as bob without asking.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.write(fx.data .. "/magicfrog.json", '{"agents": ["larry", "moe", "bob"], "shared": ["notes"]}')
  T.write(fx.memory .. "/agent/bob/notes/bob.md", T.note(1, "Bob keeps the release notes."))
  T.write(fx.project .. "/.magicfrog/config.json", '{"task": "T-7", "agents": ["larry", "bob"]}')
  vim.env.MAGICFROG_AGENT = ""
  T.setup(fx)
  local asked = {}
  vim.ui.select = function(items, opts, on_choice)
    table.insert(asked, { items = items, kind = opts.kind })
    on_choice("bob")
  end
  local b = T.open(fx.taskmem .. "/style/code.md")
  local client = T.wait_client(b)
  if not T.check("client attached", client ~= nil, "no initialized client within 5 s") then return end

  local msgs = T.capture_notify()
  vim.cmd("MagicFrogRender")
  local rb, e = T.wait_cmd(msgs, 5000, function()
    local x = T.buf_named("magicfrog://render")
    return x and T.text(x):find("<memory") and x
  end)
  if not T.check(":MagicFrogRender renders after asking", rb ~= nil, e) then return end
  T.check("asked once, among the binding's agents",
    #asked == 1 and table.concat(asked[1].items, ",") == "larry,bob" and asked[1].kind == "magicfrog.participant",
    vim.inspect(asked))
  local text = T.text(rb)
  T.check("the block is bob's (the choice)",
    text:find('agents="bob"') and text:find("Bob keeps the release notes") and not text:find("Larry: lead"), text)
  T.check("no error shown", not T.find_msg(msgs, "failed"), vim.inspect(msgs))

  local file = require("magicfrog.participant").file()
  local saved = T.read(file) or ""
  T.check("the choice is remembered for the project under stdpath('data')",
    saved:find('"bob"', 1, true) and saved:find(fx.project, 1, true), file .. ": " .. saved)

  -- A new server for the project: the remembered choice is sent, nobody asked.
  vim.lsp.stop_client(client.id, true)
  T.wait(5000, function() return client.is_stopped() end)
  vim.cmd("bwipeout! " .. rb)
  local b2 = T.open(fx.taskmem .. "/T-7/notes/progress.md")
  local client2 = T.wait(5000, function()
    local c = T.wait_client(b2, 100)
    return c and c.id ~= client.id and c
  end)
  if not T.check("a new client attached", client2 ~= nil, "no new client") then return end
  vim.cmd("MagicFrogRender")
  local again = T.wait(5000, function()
    local x = T.buf_named("magicfrog://render")
    return x and T.text(x):find("<memory") and T.text(x)
  end)
  T.check("the new server answers as bob without asking",
    again ~= nil and again:find('agents="bob"') and #asked == 1, (again or "no block") .. " asked " .. #asked)
end)
