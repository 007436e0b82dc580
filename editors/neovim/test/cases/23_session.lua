-- Commands never freeze the editor: execute() returns at once, even while the
-- client is still starting, and its answer comes through the callback. The
-- plugin asks the server what it loaded (magicfrog.sessionInfo) instead of
-- recomputing it, and passes openLoopDays through to the server.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  local mf = T.setup(fx, { openLoopDays = 3 })
  local config = require("magicfrog.config")
  T.check("the plugin is split into config, client, commands, ui and health modules", (function()
    for _, m in ipairs({ "config", "client", "commands", "ui", "health" }) do
      if type(require("magicfrog." .. m)) ~= "table" then return false end
    end
    return true
  end)())
  T.check("openLoopDays goes to the server as an initializationOption", config.init_options().openLoopDays == 3,
    vim.inspect(config.init_options()))

  local note = fx.taskmem .. "/notes/nvim-session.md"
  T.write(note, T.note(1, "Session test note."))
  local b = T.open(note)
  local c = mf.client_for(b)
  T.check("the buffer's client exists at once", c ~= nil)
  if not c then return end
  local starting = not c.initialized
  local answer, t0 = nil, vim.loop.hrtime()
  mf.execute("magicfrog.sessionInfo", {}, function(err, result) answer = { err = err, result = result } end, b)
  local ms = (vim.loop.hrtime() - t0) / 1e6
  T.check("execute returns at once, before the client is initialized (no vim.wait)",
    starting and not c.initialized and answer == nil and ms < 50,
    string.format("initialized=%s answered=%s after %.0f ms", tostring(c.initialized), tostring(answer ~= nil), ms))

  T.wait(5000, function() return answer end)
  local info = answer and answer.result
  T.check("the callback gets magicfrog.sessionInfo's answer", type(info) == "table" and not answer.err,
    vim.inspect(answer))
  if type(info) ~= "table" then return end
  T.check("the server says the project, data directory and scope it loaded",
    info.projectDir == fx.project and info.dataDir == fx.data and info.task == "T-7"
      and vim.deep_equal(info.agents, { "larry" }) and info.participant == "larry",
    vim.inspect(info))
  T.check("the data directory comes from the server once it answered",
    T.wait(5000, function() return config.server_data_dir end) == fx.data and mf.data_dir() == fx.data,
    tostring(config.server_data_dir))
  T.check("require('magicfrog').client.session() keeps the answer",
    T.wait(5000, function() return type(require("magicfrog.client").session(c.id)) == "table" end) == true)

  vim.cmd("checkhealth magicfrog")
  local text = T.text(vim.api.nvim_get_current_buf())
  T.check("health: the server's project and data directory",
    text:find("server of client %d+: project " .. vim.pesc(fx.project) .. ", data dir " .. vim.pesc(fx.data)) ~= nil, text)

end)
