-- magicfrog.config: the options of require("magicfrog").setup(), the
-- initializationOptions they make, and where a note's client is rooted.
local C = {}

C.name = "mf_lsp"

-- Keys passed through to the server as initializationOptions (docs/protocol.md).
C.init_option_keys = {
  "dataDir", "task", "agents", "participant", "machine", "budget", "autoRevision", "summarizer", "today", "earlier",
  "openLoopDays",
}

C.defaults = {
  cmd = { "mf-lsp" },
  filetypes = { "markdown" },
  -- Reload unmodified memory buffers when the server reports a change on disk
  -- (revision bumps after a save, agent writes): sets 'autoread' locally.
  autoread = true,
}

-- The options in effect: the defaults with setup()'s on top.
C.options = vim.deepcopy(C.defaults)
C.setup_done = false

-- The data directory a running server said it loaded (magicfrog.sessionInfo),
-- which wins over recomputing it from the environment.
C.server_data_dir = nil

local uv = vim.loop
local has = function(feature) return vim.fn.has(feature) == 1 end

function C.set(opts)
  C.options = vim.tbl_deep_extend("force", vim.deepcopy(C.defaults), opts or {})
  if type(C.options.cmd) == "string" then C.options.cmd = { C.options.cmd } end
  C.setup_done = true
  C.server_data_dir = nil
end

-- ---------------------------------------------------------------------------
-- Paths

function C.normalize(path)
  if path == nil or path == "" then return nil end
  path = vim.fn.fnamemodify(vim.fn.expand(path), ":p")
  path = path:gsub("\\", "/")
  local real = uv.fs_realpath(path)
  if real then path = real:gsub("\\", "/") end
  if #path > 1 then path = path:gsub("/+$", "") end
  if path == "" then path = "/" end
  return path
end
local normalize = C.normalize

local function exists(path) return path ~= nil and uv.fs_stat(path) ~= nil end

local function isdir(path)
  local st = path and uv.fs_stat(path)
  return st ~= nil and st.type == "directory"
end

local function dirname(path) return vim.fn.fnamemodify(path, ":h") end

-- `inner` is `outer` or below it.
local function inside(inner, outer)
  if inner == outer then return true end
  local prefix = outer:sub(-1) == "/" and outer or (outer .. "/")
  return inner:sub(1, #prefix) == prefix
end

--- The initializationOptions: the server options that were set (docs/protocol.md).
function C.init_options()
  local opts = {}
  for _, k in ipairs(C.init_option_keys) do
    local v = C.options[k]
    if v ~= nil then opts[k] = v end
  end
  if opts.dataDir then opts.dataDir = normalize(opts.dataDir) or opts.dataDir end
  if next(opts) == nil then return vim.empty_dict() end
  return opts
end

--- The MagicFrog data directory: the `dataDir` option, else the one a running
--- server loaded, else (before any server answered, to find a note's root) the
--- server's own rule (SPEC §1): $MAGICFROG_HOME, else $XDG_DATA_HOME/magicfrog,
--- else the platform default.
function C.data_dir()
  local d = C.options.dataDir
  if d and d ~= "" then return normalize(d) or d end
  if C.server_data_dir then return C.server_data_dir end
  local env = vim.env.MAGICFROG_HOME
  if env and env ~= "" then return normalize(env) or env end
  env = vim.env.XDG_DATA_HOME
  if env and env ~= "" then return normalize(env .. "/magicfrog") or (env .. "/magicfrog") end
  local home = vim.env.HOME or uv.os_homedir()
  if has("win32") then
    local appdata = vim.env.APPDATA or (home .. "/AppData/Roaming")
    return normalize(appdata .. "/MagicFrog") or (appdata .. "/MagicFrog")
  elseif has("mac") then
    return normalize(home .. "/Library/Application Support/MagicFrog")
  end
  return normalize(home .. "/.local/share/magicfrog")
end

-- The nearest ancestor of `dir` (or `dir`) holding `.magicfrog`, or nil.
local function project_of(dir)
  local cur = dir
  while cur and cur ~= "" do
    if exists(cur .. "/.magicfrog") then return cur end
    local parent = dirname(cur)
    if parent == cur then break end
    cur = parent
  end
  return nil
end

-- The project of the last project buffer a client was attached for.
local last_project

--- Remember `root` when it is a project: data-directory notes opened later are
--- viewed in its scope. Returns `root`.
function C.note_root(root)
  if root and exists(root .. "/.magicfrog") then last_project = root end
  return root
end

--- The project the user is working in: that of the current working directory,
--- else that of the last project buffer; nil when there is none. A note opened
--- from the data directory is viewed in this project's scope (one client).
function C.current_project()
  local data = C.data_dir()
  local p = project_of(normalize(vim.fn.getcwd()))
  if p and not (data and inside(p, data)) then return p end
  if last_project and exists(last_project .. "/.magicfrog") then return last_project end
  return nil
end

--- The root directory (workspace folder) for a file: the nearest ancestor holding
--- `.magicfrog`, else — for a file in the data dir — the project the user is
--- working in (current_project), else the data dir, else the file's directory.
--- If a project and the data dir both hold the file, the nearer one wins (a data
--- dir below a folder that happens to hold `.magicfrog` is still its own root).
function C.root_for(fname)
  local path = normalize(fname)
  if not path then return nil end
  local dir = isdir(path) and path or dirname(path)
  local project = project_of(dir)
  local data = C.data_dir()
  local in_data = data and inside(path, data)
  if project and in_data and #data > #project then project = nil end
  if project then return project end
  if in_data then return C.current_project() or data end
  return dir
end

return C
