-- One client per project, on every supported Neovim: a command issued right
-- after :edit, before the client attached, waits for that client instead of
-- starting a second, detached mf-lsp (0.10 did); a note opened from the data
-- directory joins the project's client.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  local mf = T.setup(fx)
  local client = require("magicfrog.client")
  local note = fx.taskmem .. "/notes/nvim-one-client.md"
  T.write(note, T.note(1, "One client test note."))
  vim.cmd("cd " .. vim.fn.fnameescape(fx.project))
  local b = T.open(note)
  -- At once, before the client attached: the command must reach the buffer's client.
  local answer
  mf.execute("magicfrog.sessionInfo", {}, function(err, result) answer = { err = err, result = result } end, b)
  T.wait(5000, function() return answer end)
  T.check("the command before attach is answered by the project's server",
    answer ~= nil and not answer.err and type(answer.result) == "table" and answer.result.projectDir == fx.project,
    vim.inspect(answer))
  T.wait_client(b)
  vim.wait(300)
  local all = client.clients()
  T.check("one mf-lsp client for the project, not a second detached one", #all == 1,
    vim.inspect(vim.tbl_map(function(c) return { id = c.id, root = c.config.root_dir } end, all)))
  local c = T.wait_client(b)
  T.check("client attached", c ~= nil)
  if not c then return end
  T.check("its session info is kept (asked when it attached)",
    T.wait(5000, function() return type(client.session(c.id)) == "table" end) == true)

  -- A note from the data directory joins the project's client.
  local dnote = fx.memory .. "/user/editor.md"
  local bd = T.open(dnote)
  local cd = T.wait_client(bd)
  T.check("a data-directory note joins the project's client", cd ~= nil and cd.id == c.id and #client.clients() == 1,
    cd and string.format("client %d (root %s); %d clients", cd.id, tostring(cd.config.root_dir), #client.clients()) or "no client")
end)
