-- User commands of the MagicFrog plugin. Starting the language server is up to
-- require("magicfrog").setup({...}) (or vim.lsp.enable("mf_lsp") on 0.11+).
if vim.g.loaded_magicfrog then return end
if vim.fn.has("nvim-0.7") ~= 1 then
  vim.api.nvim_err_writeln("magicfrog needs Neovim 0.7 or newer")
  return
end
vim.g.loaded_magicfrog = true

local function mf() return require("magicfrog") end

-- The code-action menu's promotions run through the plugin (the buffer follows
-- the moved note; an unsaved buffer is saved first): lua/magicfrog/commands.lua.
vim.lsp.commands["magicfrog.promote"] = function(command, ctx)
  return require("magicfrog.commands").promote_action(command, ctx)
end

-- Code lenses on every buffer mf-lsp attaches to, however it was started
-- (setup(), or vim.lsp.enable("mf_lsp") alone on 0.11+): Neovim shows none
-- unless asked. 0.7 has no LspAttach: the plugin's on_attach does it there.
if vim.fn.has("nvim-0.8") == 1 then
  vim.api.nvim_create_autocmd("LspAttach", {
    group = vim.api.nvim_create_augroup("magicfrog_lspattach", { clear = true }),
    callback = function(a)
      local c = a.data and a.data.client_id and vim.lsp.get_client_by_id(a.data.client_id)
      if c and c.name == require("magicfrog.config").name then
        require("magicfrog.client").enable_codelens(c, a.buf)
      end
    end,
  })
end

local function completer(list_name)
  return function(arglead, cmdline)
    -- Complete the first argument only.
    local args = vim.split(cmdline, "%s+", { trimempty = true })
    local n = #args - (cmdline:match("%s$") and 0 or 1)
    if n ~= 1 then return {} end
    return vim.tbl_filter(function(x) return x:sub(1, #arglead) == arglead end, mf()[list_name])
  end
end

local cmd = vim.api.nvim_create_user_command

cmd("MagicFrogRender", function(o)
  local opts = {}
  for _, a in ipairs(o.fargs) do
    local n = tonumber(a)
    if n then
      if n < 0 or n ~= math.floor(n) then
        vim.notify("MagicFrogRender: want an agent and/or a number of earlier days, got " .. a, vim.log.levels.ERROR)
        return
      end
      opts.earlier = n
    else
      opts.participant = a
    end
  end
  mf().render(next(opts) and opts or nil)
end, { nargs = "*", desc = "Show the <memory> block mf-lsp renders [for agent] [N: add the refined days of the N days before yesterday]" })

cmd("MagicFrogRenderInto", function(o) mf().render_into(o.fargs[1]) end,
  { nargs = "?", complete = "file", desc = "Write the <memory> block into the managed section of a file (default CLAUDE.md, else AGENTS.md)" })

cmd("MagicFrogView", function() mf().view() end,
  { nargs = 0, desc = "Show the effective view: winners and shadowed entries" })

cmd("MagicFrogPromote", function(o)
  mf().promote(o.fargs[1], o.fargs[2], o.bang)
end, {
  nargs = "+",
  bang = true,
  complete = completer("promote_targets"),
  desc = "Promote the current note to {agent|user|account|skills} [scope] (! copies)",
})

cmd("MagicFrogToday", function(o)
  mf().today(o.fargs[1], o.fargs[2])
end, { nargs = "*", complete = completer("dimensions"), desc = "Open today's daily journal note" })

cmd("MagicFrogSync", function(o)
  mf().sync(o.fargs[1])
end, { nargs = "?", desc = "Sync memory with its git remote (mf-lsp sync); [remote] the first time" })

cmd("MagicFrogSearch", function(o)
  mf().search(o.args)
end, { nargs = "+", desc = "Search memory (the notes in the participant's scope) into the quickfix list" })

cmd("MagicFrogRollup", function(o)
  mf().rollup(o.fargs[1], o.fargs[2])
end, { nargs = "*", complete = completer("rollup_kinds"), desc = "Run journal rollups: due|day|week|month [period]" })
