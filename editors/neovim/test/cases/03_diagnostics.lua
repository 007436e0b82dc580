-- Notes with problems get the documented diagnostics (docs/diagnostics.md), and
-- fixing the buffer clears them without saving.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

local function wait_code(b, code)
  return T.wait(5000, function()
    local d = T.diags_with_code(b, code)
    return #d > 0 and d or nil
  end)
end

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  -- The demo tree's user/editor.md has no frontmatter.
  local demo = fx.memory .. "/user/editor.md"
  if fx.fixture then
    local b0 = T.open(demo)
    if not T.check("client attached (demo note)", T.wait_client(b0) ~= nil, "no initialized client within 5 s") then return end
    local d0 = wait_code(b0, "frontmatter-missing")
    T.check("demo's user/editor.md (no frontmatter) gets frontmatter-missing", d0 ~= nil, T.diag_summary(b0))
    if d0 then
      T.check("frontmatter-missing is a warning on the first line",
        d0[1].severity == vim.diagnostic.severity.WARN and d0[1].lnum == 0,
        "severity " .. tostring(d0[1].severity) .. " line " .. tostring(d0[1].lnum))
    end
  end

  local bad = fx.taskmem .. "/notes/nvim-no-frontmatter.md"
  T.write(bad, "This note was written by a plain text editor and has no frontmatter.\n")
  local b = T.open(bad)
  local client = T.wait_client(b)
  if not T.check("client attached", client ~= nil, "no initialized client within 5 s") then return end
  local diags = wait_code(b, "frontmatter-missing")
  T.check("a note without frontmatter gets frontmatter-missing", diags ~= nil, T.diag_summary(b))

  -- Typing a frontmatter block (no save) clears it: diagnostics follow didChange.
  vim.api.nvim_buf_set_lines(b, 0, 0, false, { "---", "revision: 1", "updated: 2026-11-30T09:00:00.000Z", "---" })
  local cleared = T.wait(5000, function() return #T.diags_with_code(b, "frontmatter-missing") == 0 end)
  T.check("adding frontmatter in the buffer clears frontmatter-missing", cleared ~= nil, T.diag_summary(b))

  -- A broken YAML block is an error at the YAML error.
  local broken = fx.memory .. "/user/notes/nvim-broken-yaml.md"
  T.write(broken, "---\nrevision: [1\nupdated: 2026-10-20T09:12:00.000Z\n---\nBody.\n")
  local b2 = T.open(broken)
  T.wait_client(b2)
  local d2 = wait_code(b2, "frontmatter-invalid")
  T.check("unparsable frontmatter gets frontmatter-invalid", d2 ~= nil, T.diag_summary(b2))
  if d2 then
    T.check("frontmatter-invalid is an error inside the YAML block",
      d2[1].severity == vim.diagnostic.severity.ERROR and d2[1].lnum >= 1 and d2[1].lnum <= 2,
      "severity " .. tostring(d2[1].severity) .. " line " .. tostring(d2[1].lnum))
    T.check("no key checks repeat the YAML error", #T.diags_with_code(b2, "revision-missing") == 0
      and #T.diags_with_code(b2, "updated-missing") == 0, T.diag_summary(b2))
  end
end)
