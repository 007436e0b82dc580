-- :checkhealth magicfrog runs and reports binary, version, data dir, Neovim, client.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local note = fx.taskmem .. "/notes/nvim-health.md"
  T.write(note, T.note(1, "Health test note."))
  local b = T.open(note)
  local client = T.wait_client(b)
  T.check("client running before checkhealth", client ~= nil, "no initialized client within 5 s")

  local ok, err = pcall(vim.cmd, "checkhealth magicfrog")
  T.check(":checkhealth magicfrog runs without error", ok, err)
  local text = T.text(vim.api.nvim_get_current_buf())
  T.check("health: no ERROR reported", ok and not text:find("ERROR"), text:match("[^\n]*ERROR[^\n]*"))
  T.check("health: Neovim version OK", text:find("OK:? Neovim 0%.%d+%.%d+") ~= nil, text)
  T.check("health: binary found", text:find("OK:? mf%-lsp binary found: " .. vim.pesc(T.lsp)) ~= nil, text)
  T.check("health: data dir exists", text:find("OK:? data dir exists: " .. vim.pesc(fx.data)) ~= nil, text)
  T.check("health: client running", text:find("OK:? client %d+ running, root " .. vim.pesc(fx.project)) ~= nil, text)
  local ver = text:match("OK:? mf%-lsp version: ([^\n]+)")
  T.check("health: `mf-lsp version` reports a version", ver ~= nil,
    text:match("[^\n]*mf%-lsp version[^\n]*") or "no version line")
end)
