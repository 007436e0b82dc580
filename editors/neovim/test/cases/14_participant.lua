-- A block is for one participant: the `participant` option picks the agent the
-- server answers for, and :MagicFrogRender {agent} renders for another.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx, { agents = { "larry", "moe" }, participant = "moe" })
  local b = T.open(fx.memory .. "/agent/moe/notes/focus.md")
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end

  local msgs = T.capture_notify()
  vim.cmd("MagicFrogRender")
  local rb, e = T.wait_cmd(msgs, 5000, function()
    local x = T.buf_named("magicfrog://render")
    return x and T.text(x):find("<memory") and x
  end)
  if not T.check(":MagicFrogRender renders", rb ~= nil, e) then return end
  local text = T.text(rb)
  T.check("the block is moe's alone (participant option)",
    text:find('agents="moe"') and text:find("Moe owns the billing") and not text:find("Larry: lead"), text)

  vim.cmd("MagicFrogRender larry")
  local larry = T.wait(5000, function()
    local x = T.buf_named("magicfrog://render")
    return x and T.text(x):find('agents="larry"') and T.text(x)
  end)
  T.check(":MagicFrogRender larry renders larry's block, without moe's notes",
    larry ~= nil and larry:find("Larry: lead") and not larry:find("Moe owns the billing"), larry or "no larry block")
end)
