-- Test harness for one headless Neovim run (one case file). run.sh passes:
--   MF_PLUGIN  the editors/neovim directory     MF_REPO  the repository root
--   MF_LSP     the mf-lsp binary                MF_RESULTS  where results go
-- Results are lines "PASS\t<name>" / "FAIL\t<name>\t<why>", then "DONE".
local T = { passed = 0, failed = 0 }

T.plugin = assert(os.getenv("MF_PLUGIN"), "MF_PLUGIN not set")
T.repo = assert(os.getenv("MF_REPO"), "MF_REPO not set")
T.lsp = assert(os.getenv("MF_LSP"), "MF_LSP not set")
T.results = assert(os.getenv("MF_RESULTS"), "MF_RESULTS not set")
T.case = os.getenv("MF_CASE") or "case"
-- The journal's "today" the server is told to use (initializationOptions.today):
-- the day after the demo journal's last raw daily (testdata/demo, November 2026).
T.today = "2026-11-30"

local out = assert(io.open(T.results, "a"))

local function record(line)
  out:write(line, "\n")
  out:flush()
end

function T.check(name, ok, why)
  if ok then
    T.passed = T.passed + 1
    record("PASS\t" .. T.case .. ": " .. name)
  else
    T.failed = T.failed + 1
    local w = tostring(why or "assertion failed"):gsub("[\r\n\t]+", " ")
    record("FAIL\t" .. T.case .. ": " .. name .. "\t" .. w)
  end
  return ok
end

function T.finish()
  record("DONE")
  out:close()
  vim.cmd((T.failed > 0) and "cquit 1" or "qall!")
end

-- Run the case body; a Lua error is a failure, never a hang.
function T.run(body)
  local ok, err = xpcall(body, debug.traceback)
  if not ok then T.check("case ran without a Lua error", false, err) end
  T.finish()
end

-- Files -------------------------------------------------------------------

function T.mkdirp(dir) vim.fn.mkdir(dir, "p") end

function T.write(path, content)
  T.mkdirp(vim.fn.fnamemodify(path, ":h"))
  local f = assert(io.open(path, "wb"))
  f:write(content)
  f:close()
end

function T.read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("*a")
  f:close()
  return s
end

function T.exists(path) return vim.loop.fs_stat(path) ~= nil end

function T.note(revision, body, extra)
  return string.format("---\nrevision: %d\nupdated: 2026-10-20T09:12:00.000Z\n%s---\n%s\n",
    revision, extra or "", body)
end

-- Copy testdata/demo into a fresh temp dir. If the fixture is missing, that is
-- a failure of its own; a bare skeleton is made so the other checks still run.
function T.fixture()
  local tmp = vim.fn.fnamemodify(vim.fn.tempname(), ":p")
  T.mkdirp(tmp)
  tmp = vim.loop.fs_realpath(tmp)
  local src = T.repo .. "/testdata/demo"
  local present = vim.fn.isdirectory(src .. "/data") == 1 and vim.fn.isdirectory(src .. "/project") == 1
  local fx = { root = tmp, data = tmp .. "/data", project = tmp .. "/project", fixture = present }
  if present then
    vim.fn.system({ "cp", "-a", src .. "/data", src .. "/project", tmp })
    T.check("fixture testdata/demo copied", vim.v.shell_error == 0, "cp failed")
  else
    T.check("fixture testdata/demo present", false, src .. " has no data/ and project/ yet")
    for _, d in ipairs({ "account", "user", "agent", "device" }) do T.mkdirp(fx.data .. "/memory/" .. d) end
    T.mkdirp(fx.project .. "/.magicfrog/memory")
  end
  fx.memory = fx.data .. "/memory"
  fx.taskmem = fx.project .. "/.magicfrog/memory"
  return fx
end

-- Editor --------------------------------------------------------------------

-- Load the plugin from the working tree and call setup().
function T.setup(fx, opts)
  vim.o.swapfile = false
  vim.o.more = false
  vim.o.shortmess = vim.o.shortmess .. "AWF"
  vim.opt.rtp:prepend(T.plugin)
  vim.cmd("filetype on")
  vim.cmd("runtime! plugin/magicfrog.lua")
  local mf = require("magicfrog")
  mf.setup(vim.tbl_extend("force", {
    cmd = { T.lsp },
    dataDir = fx and fx.data or nil,
    today = T.today,
  }, opts or {}))
  return mf
end

function T.open(path)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  return vim.api.nvim_get_current_buf()
end

-- Wait for an initialized mf-lsp client attached to bufnr.
function T.wait_client(bufnr, ms)
  local mf = require("magicfrog")
  local client
  vim.wait(ms or 5000, function()
    client = mf.buf_clients(bufnr)[1]
    return client ~= nil and client.initialized == true
  end, 20)
  if client and client.initialized then return client end
  return nil
end

-- Buffer lines as one string.
function T.text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
end

-- Wait until fn() returns a truthy value; returns that value or nil.
function T.wait(ms, fn)
  local v
  vim.wait(ms, function()
    local ok, r = pcall(fn)
    v = ok and r or nil
    return v ~= nil and v ~= false
  end, 20)
  return v
end

-- Wait for fn() while watching captured notifications: returns fn's value, or
-- nil and the plugin's error message as soon as a command reports failure.
function T.wait_cmd(msgs, ms, fn)
  local res, errm
  local seen = #msgs
  vim.wait(ms, function()
    local ok, r = pcall(fn)
    if ok and r then res = r return true end
    for i = seen + 1, #msgs do
      if msgs[i].level == vim.log.levels.ERROR then errm = msgs[i].msg return true end
    end
    return false
  end, 20)
  return res, errm or ("nothing within " .. ms .. " ms")
end

-- Capture vim.notify messages.
function T.capture_notify()
  local msgs = {}
  vim.notify = function(msg, level) table.insert(msgs, { msg = tostring(msg), level = level }) end
  return msgs
end

function T.find_msg(msgs, pattern)
  for _, m in ipairs(msgs) do
    if m.msg:find(pattern) then return m end
  end
  return nil
end

-- The LSP code of a vim.diagnostic (top level on newer Neovim, user_data.lsp on 0.7).
function T.diag_code(d)
  if d.code ~= nil then return d.code end
  return d.user_data and d.user_data.lsp and d.user_data.lsp.code
end

-- Diagnostics of bufnr with the given code.
function T.diags_with_code(bufnr, code)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if T.diag_code(d) == code then table.insert(out, d) end
  end
  return out
end

-- All codes of bufnr's diagnostics, for failure messages.
function T.diag_summary(bufnr)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out, string.format("%s@%d:%s", tostring(T.diag_code(d)), d.lnum, d.message))
  end
  return #out > 0 and table.concat(out, " | ") or "no diagnostics"
end

-- Whether Neovim sees bufnr's file changed since the buffer read it (what makes
-- :write ask "WARNING: The file has been changed since reading it!!!"): the
-- reason :checktime gives (v:fcs_reason), or nil when it sees no change.
function T.changed_since_read(bufnr)
  local reason
  local id = vim.api.nvim_create_autocmd("FileChangedShell", {
    buffer = bufnr,
    callback = function() reason = vim.v.fcs_reason end,
  })
  vim.cmd("checktime " .. bufnr)
  vim.api.nvim_del_autocmd(id)
  return reason
end

function T.buf_named(name)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b) == name then return b end
  end
  return nil
end

return T
