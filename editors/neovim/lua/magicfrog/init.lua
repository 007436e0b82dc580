-- magicfrog: Neovim client for mf-lsp, the MagicFrog memory language server.
--
-- The plugin is split as the well-known Neovim LSP plugins are:
--   magicfrog.config    options, initializationOptions, root directories
--   magicfrog.client    starting mf-lsp, answering the server, running its commands
--   magicfrog.commands  what the :MagicFrog* commands do
--   magicfrog.ui        scratch buffers, marks, notifications
--   magicfrog.health    :checkhealth magicfrog
-- This module is the entry point: setup(), and the Lua API of |magicfrog-api|
-- (each name is looked up in the module that owns it).
local config = require("magicfrog.config")
local client = require("magicfrog.client")
local commands = require("magicfrog.commands")
local ui = require("magicfrog.ui")

local M = {}

local has = function(feature) return vim.fn.has(feature) == 1 end

function M.setup(opts)
  config.set(opts)

  if has("nvim-0.11") and vim.lsp.config and vim.lsp.enable then
    vim.lsp.config(config.name, client.lsp_config())
    vim.lsp.enable(config.name)
    return
  end

  local group = vim.api.nvim_create_augroup("magicfrog", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = config.options.filetypes,
    callback = function(args) client.attach(args.buf) end,
  })
  -- Buffers already open when setup() runs.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.tbl_contains(config.options.filetypes, vim.bo[b].filetype) then
      client.attach(b)
    end
  end
end

-- Names kept from the single-module plugin, and state read through this module.
local aliases = {
  config = function() return config.options end,
  name = function() return config.name end,
  _setup_done = function() return config.setup_done end,
  _normalize = function() return config.normalize end,
  _notify = function() return ui.notify end,
  _find_buf = function() return ui.find_buf end,
  _follow_moved = function() return ui.follow_moved end,
}

return setmetatable(M, {
  __index = function(_, key)
    if aliases[key] then return aliases[key]() end
    for _, mod in ipairs({ commands, client, config, ui }) do
      if mod[key] ~= nil then return mod[key] end
    end
    return nil
  end,
})
