-- The shadowing lens (docs/protocol.md, "Code lens") through the plugin's
-- setup() on every Neovim: shown on line 1 of a shadowed note (0.7: refreshed
-- from the plugin's on_attach; 0.8-0.10: on LspAttach; 0.12:
-- vim.lsp.codelens.enable), and running it with vim.lsp.codelens.run opens
-- the version that wins the key (magicfrog.showEntry: window/showDocument, the
-- plugin's own handler on 0.7). 25_enable does the same through
-- vim.lsp.enable alone on 0.11+.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  -- The project's shared notes/progress.md is shadowed by task T-7's own.
  local shadowed = fx.taskmem .. "/notes/progress.md"
  local winner = fx.taskmem .. "/T-7/notes/progress.md"
  local b = T.open(shadowed)
  if not T.check("client attached", T.wait_client(b) ~= nil, "no initialized client within 5 s") then return end
  local lenses = T.wait(5000, function()
    local l = vim.lsp.codelens.get(b)
    return #l > 0 and l or nil
  end)
  if not T.check("a code lens is shown on the shadowed note", lenses ~= nil, "no code lens on the buffer") then return end
  local lens = lenses[1]
  local title = lens.command and lens.command.title or ""
  T.check("the lens is on line 1 and says what shadows the note", lens.range.start.line == 0
    and title:find("shadowed by task T%-7") ~= nil, vim.inspect(lens))
  T.check("the lens runs magicfrog.showEntry", lens.command and lens.command.command == "magicfrog.showEntry",
    vim.inspect(lens.command))

  local msgs = T.capture_notify()
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.lsp.codelens.run()
  local ok, e = T.wait_cmd(msgs, 5000, function() return vim.api.nvim_buf_get_name(0) == winner end)
  T.check("vim.lsp.codelens.run opens the winning version", ok ~= nil,
    tostring(e) .. "; current buffer " .. vim.api.nvim_buf_get_name(0))
end)
