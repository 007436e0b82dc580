-- :checkhealth magicfrog
local M = {}

-- Neovim 0.10+: vim.health.start/ok/...; 0.8-0.9: vim.health.report_*;
-- 0.7: require("health").report_*.
local function reporter()
  local h = vim.health
  if not (h and (h.start or h.report_start)) then h = require("health") end
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

-- Run `argv` with a timeout; returns exit code (nil on timeout) and output.
local function run(argv, timeout_ms)
  local out = {}
  local collect = function(_, data)
    for _, l in ipairs(data or {}) do if l ~= "" then table.insert(out, l) end end
  end
  local ok, job = pcall(vim.fn.jobstart, argv, {
    stdout_buffered = true, stderr_buffered = true,
    on_stdout = collect, on_stderr = collect,
  })
  if not ok or job <= 0 then return -1, { tostring(job) } end
  pcall(vim.fn.chanclose, job, "stdin")
  local rc = vim.fn.jobwait({ job }, timeout_ms)[1]
  if rc == -1 then
    vim.fn.jobstop(job)
    return nil, out
  end
  return rc, out
end

function M.check()
  local r = reporter()
  local config = require("magicfrog.config")
  local client = require("magicfrog.client")

  r.start("magicfrog: Neovim")
  local v = vim.version()
  local vs = string.format("%d.%d.%d", v.major, v.minor, v.patch)
  local api
  if vim.fn.has("nvim-0.11") == 1 then api = "vim.lsp.config / vim.lsp.enable"
  elseif vim.lsp.start then api = "vim.lsp.start"
  else api = "vim.lsp.start_client (one client per root)" end
  if vim.fn.has("nvim-0.7") == 1 then
    r.ok("Neovim " .. vs .. ", client API: " .. api)
  else
    r.error("Neovim " .. vs .. " is too old", { "magicfrog needs Neovim 0.7 or newer" })
  end
  local running = #client.clients()
  if config.setup_done then
    r.ok("require('magicfrog').setup() has run")
  elseif client.enabled_by_lsp() then
    r.ok("vim.lsp.enable('" .. config.name .. "') is on: mf-lsp starts on Markdown notes (setup() is optional)")
  elseif running > 0 then
    r.ok(string.format("require('magicfrog').setup() has not run, but %d mf-lsp client%s running", running,
      running == 1 and " is" or "s are"))
  else
    r.info("require('magicfrog').setup() has not run and vim.lsp.enable('" .. config.name
      .. "') is off: the server is not started automatically")
  end

  r.start("magicfrog: mf-lsp binary")
  local server_cmd = client.server_cmd()
  local bin = server_cmd and server_cmd[1]
  local path = bin and vim.fn.exepath(bin) or ""
  if path == "" then
    r.error("mf-lsp binary not found: " .. tostring(bin), {
      "Install it: go install github.com/magicfrog/mf-lsp/cmd/mf-lsp@latest",
      "or set cmd in require('magicfrog').setup({ cmd = { '/path/to/mf-lsp' } })",
    })
  else
    r.ok("mf-lsp binary found: " .. path)
    local rc, out = run({ path, "version" }, 5000)
    local text = table.concat(out, " ")
    if rc == 0 and text ~= "" then
      r.ok("mf-lsp version: " .. text)
    elseif rc == nil then
      r.warn("`mf-lsp version` did not finish within 5 s")
    else
      r.warn(string.format("`mf-lsp version` failed (exit %s)%s", tostring(rc),
        text ~= "" and (": " .. text) or ", no output"))
    end
  end

  r.start("magicfrog: data directory")
  local data = config.data_dir()
  if data and vim.fn.isdirectory(data) == 1 then
    r.ok("data dir exists: " .. data)
    if vim.fn.isdirectory(data .. "/memory") == 1 then
      r.ok("memory tree: " .. data .. "/memory")
    else
      r.info("no memory tree yet at " .. data .. "/memory")
    end
  else
    r.warn("data dir does not exist: " .. tostring(data), {
      "Set dataDir in setup(), or $MAGICFROG_HOME, or create the directory",
    })
  end

  r.start("magicfrog: language client")
  local clients = client.clients()
  if #clients == 0 then
    r.warn("no mf-lsp client is running", { "Open a Markdown note inside a memory tree" })
  else
    for _, c in ipairs(clients) do
      local state = c.initialized and "running" or "starting"
      r.ok(string.format("client %d %s, root %s", c.id, state, tostring(c.config.root_dir)))
      -- What its server loaded (magicfrog.sessionInfo), asked when it attached.
      local info = client.session(c.id)
      if type(info) == "table" then
        local agents = type(info.agents) == "table" and table.concat(info.agents, ", ") or ""
        r.info(string.format("server of client %d: project %s, data dir %s, task %s, agents %s, participant %s",
          c.id, info.projectDir ~= "" and tostring(info.projectDir) or "none", tostring(info.dataDir),
          info.task ~= "" and tostring(info.task) or "none", agents ~= "" and agents or "none",
          info.participant ~= "" and tostring(info.participant) or "none"))
      end
    end
  end
end

return M
