-- A note with a problem (no frontmatter) gets diagnostics.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  -- The demo tree's user/editor.md has no frontmatter.
  local demo = fx.memory .. "/user/editor.md"
  if fx.fixture then
    local b0 = T.open(demo)
    if not T.check("client attached (demo note)", T.wait_client(b0) ~= nil, "no initialized client within 5 s") then return end
    local d0 = T.wait(5000, function()
      local d = vim.diagnostic.get(b0)
      return #d > 0 and d or nil
    end)
    T.check("diagnostics arrive for the demo's user/editor.md (no frontmatter)", d0 ~= nil, "none within 5 s")
  end

  local bad = fx.taskmem .. "/notes/nvim-no-frontmatter.md"
  T.write(bad, "This note was written by a plain text editor and has no frontmatter.\n")
  local b = T.open(bad)
  local client = T.wait_client(b)
  if not T.check("client attached", client ~= nil, "no initialized client within 5 s") then return end
  local diags = T.wait(5000, function()
    local d = vim.diagnostic.get(b)
    return #d > 0 and d or nil
  end)
  T.check("diagnostics arrive for a note without frontmatter", diags ~= nil, "none within 5 s")
  if diags then
    local msgs = {}
    for _, d in ipairs(diags) do table.insert(msgs, d.message) end
    local all = table.concat(msgs, " | ")
    T.check("a diagnostic names the missing frontmatter / revision",
      all:lower():find("frontmatter") or all:lower():find("revision"), all)
  end

  -- A broken YAML block is flagged too.
  local broken = fx.memory .. "/user/notes/nvim-broken-yaml.md"
  T.write(broken, "---\nrevision: [1\nupdated: 2026-10-20T09:12:00.000Z\n---\nBody.\n")
  local b2 = T.open(broken)
  T.wait_client(b2)
  local d2 = T.wait(5000, function()
    local d = vim.diagnostic.get(b2)
    return #d > 0 and d or nil
  end)
  T.check("diagnostics arrive for unparsable frontmatter", d2 ~= nil, "none within 5 s")
end)
