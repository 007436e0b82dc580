-- magicfrog.participant: which agent the server answers for, when the project
-- names several and the user chose none. The server then refuses render, the
-- effective view and renderInto with data.code "several-agents" and the agents
-- as data.choices (docs/protocol.md); we ask with vim.ui.select, remember the
-- answer per project in stdpath("data")/magicfrog/participants.json, send it
-- as the `participant` setting (workspace/didChangeConfiguration) and run the
-- command again. We decide on the code, never on the message.
local P = {}

P.SEVERAL_AGENTS = "several-agents"

local has = function(feature) return vim.fn.has(feature) == 1 end

--- The file holding the remembered choices: { [project root] = agent }.
function P.file()
  return vim.fn.stdpath("data") .. "/magicfrog/participants.json"
end

local function read_all()
  local f = io.open(P.file(), "rb")
  if not f then return {} end
  local s = f:read("*a")
  f:close()
  local ok, t = pcall(vim.fn.json_decode, s)
  if ok and type(t) == "table" then return t end
  return {}
end

--- The agent remembered for project `root`, or nil.
function P.remembered(root)
  if not root then return nil end
  local a = read_all()[root]
  if type(a) == "string" and a ~= "" then return a end
  return nil
end

--- Remember `agent` for project `root` (written whole through a temporary
--- file, so a crash never leaves half a file).
function P.remember(root, agent)
  if not root then return end
  local all = read_all()
  all[root] = agent
  local path = P.file()
  vim.fn.mkdir(vim.fn.fnamemodify(path, ":h"), "p")
  local tmp = path .. ".tmp"
  local f = assert(io.open(tmp, "wb"))
  f:write(vim.fn.json_encode(all))
  f:close()
  assert(vim.loop.fs_rename(tmp, path))
end

--- Whether err is the server's several-agents refusal.
function P.is_several(err)
  return type(err) == "table" and type(err.data) == "table" and err.data.code == P.SEVERAL_AGENTS
end

local function root_of(client)
  return client and client.config and client.config.root_dir or nil
end

--- Send `agent` to the server of `client` as its participant setting.
function P.send(client, agent)
  local params = { settings = { magicfrog = { participant = agent } } }
  if has("nvim-0.11") then return client:notify("workspace/didChangeConfiguration", params) end
  return client.notify("workspace/didChangeConfiguration", params)
end

-- client id -> true once the remembered choice was sent to its server.
local sent = {}

--- On attach: a choice remembered for the client's project is sent once,
--- unless the `participant` option names one (the option wins).
function P.restore(client, configured)
  if sent[client.id] or (configured ~= nil and configured ~= "") then return end
  sent[client.id] = true
  local a = P.remembered(root_of(client))
  if a then P.send(client, a) end
end

--- Ask which agent among err.data.choices, then remember it, send it and call
--- retry(); on_cancel() when the user picks none.
function P.ask(client, err, retry, on_cancel)
  local choices = vim.tbl_filter(function(c) return type(c) == "string" end, err.data.choices or {})
  vim.ui.select(choices, {
    prompt = "mf-lsp: which agent is this session? (" .. tostring(err.message) .. ")",
    kind = "magicfrog.participant",
  }, function(agent)
    if not agent then return on_cancel() end
    P.remember(root_of(client), agent)
    sent[client.id] = true
    P.send(client, agent)
    retry()
  end)
end

return P
