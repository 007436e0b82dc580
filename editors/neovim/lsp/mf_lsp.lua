-- Neovim 0.11+ configuration for mf-lsp: `vim.lsp.enable("mf_lsp")` picks this
-- file up from the runtimepath. require("magicfrog").setup({...}) layers the
-- user's options on top with vim.lsp.config("mf_lsp", ...).
return require("magicfrog").lsp_config()
