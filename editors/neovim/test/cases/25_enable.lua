-- Neovim 0.11+ without setup(): `vim.lsp.enable("mf_lsp")` and the plugin's
-- lsp/mf_lsp.lua. Code lenses show without the user enabling them (running
-- the shadowing lens opens the winning version), and
-- :checkhealth magicfrog counts the client vim.lsp.enable started.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  if vim.fn.has("nvim-0.11") == 0 then
    T.check("vim.lsp.enable path: not on Neovim before 0.11", true)
    return
  end
  local fx = T.fixture()
  vim.o.swapfile = false
  vim.o.more = false
  vim.opt.rtp:prepend(T.plugin)
  vim.cmd("filetype on")
  vim.cmd("runtime! plugin/magicfrog.lua")
  vim.env.MAGICFROG_HOME = fx.data
  vim.lsp.config("mf_lsp", { cmd = { T.lsp } })
  vim.lsp.enable("mf_lsp")

  local b = T.open(fx.taskmem .. "/notes/progress.md")
  local c = T.wait_client(b)
  if not T.check("vim.lsp.enable starts and attaches mf-lsp", c ~= nil, "no initialized client within 5 s") then return end
  local lenses = T.wait(5000, function()
    local l = vim.lsp.codelens.get(b)
    return #l > 0 and l or nil
  end)
  T.check("code lenses are shown without vim.lsp.codelens.enable", lenses ~= nil, "no code lens on the buffer")
  -- The project's shared notes/progress.md is shadowed by task T-7's own:
  -- running its lens opens that one (as 28_codelens does through setup()).
  if lenses then
    local title = lenses[1].command and lenses[1].command.title or ""
    T.check("the lens says what shadows the note", title:find("shadowed by task T%-7") ~= nil, vim.inspect(lenses[1]))
    local winner = fx.taskmem .. "/T-7/notes/progress.md"
    vim.api.nvim_win_set_cursor(0, { 1, 0 })
    vim.lsp.codelens.run()
    T.check("vim.lsp.codelens.run opens the winning version", T.wait(5000, function()
      return vim.api.nvim_buf_get_name(0) == winner
    end) ~= nil, "current buffer " .. vim.api.nvim_buf_get_name(0))
  end

  vim.cmd("checkhealth magicfrog")
  local text = T.text(vim.api.nvim_get_current_buf())
  T.check("health does not say the server is not started while a client runs",
    text:find("not started automatically", 1, true) == nil, text)
  T.check("health says the client was started by vim.lsp.enable",
    text:find("vim.lsp.enable", 1, true) ~= nil and text:find("client %d+ running") ~= nil, text)
end)
