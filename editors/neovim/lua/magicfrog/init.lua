-- magicfrog: Neovim client for mf-lsp, the MagicFrog memory language server.
--
-- Neovim 0.11+ : vim.lsp.config / vim.lsp.enable (config in lsp/mf_lsp.lua)
-- Neovim 0.8-0.10: a FileType autocmd calling vim.lsp.start
-- Neovim 0.7    : a FileType autocmd calling vim.lsp.start_client, one client per
--                 root directory, reused across buffers.
local M = {}

M.name = "mf_lsp"

-- Keys passed through to the server as initializationOptions (docs/protocol.md).
M.init_option_keys = {
  "dataDir", "task", "agents", "participant", "machine", "budget", "autoRevision", "summarizer", "today", "earlier",
}

-- The agent :MagicFrogRender and :MagicFrogView answer for when one was given
-- (:MagicFrogRender {agent}); nil: the server's participant (the setting, else
-- the first agent in scope). A block is for one participant.
M.participant = nil

local defaults = {
  cmd = { "mf-lsp" },
  filetypes = { "markdown" },
  -- Reload unmodified memory buffers when the server reports a change on disk
  -- (revision bumps after a save, agent writes): sets 'autoread' locally.
  autoread = true,
}

M.config = vim.deepcopy(defaults)

-- client id -> URI of the buffer it last saw willSaveWaitUntil for: the save-time
-- conflict question does not name its note, and follows that save.
local saving = {}
-- Inside BufWritePre's willSaveWaitUntil (> 0), the save-time question is not
-- asked at once but queued, then asked after the write: a prompt in the middle
-- of :write is no place for it, and the server's "Take disk version" expects the
-- editor's write to be over when the answer comes (it tells the disk version it
-- saw from the editor's write by the written content's hash).
local in_will_save = 0
local deferred_questions = {}
M._setup_done = false

local uv = vim.loop
local has = function(feature) return vim.fn.has(feature) == 1 end

-- ---------------------------------------------------------------------------
-- Paths

local function normalize(path)
  if path == nil or path == "" then return nil end
  path = vim.fn.fnamemodify(vim.fn.expand(path), ":p")
  path = path:gsub("\\", "/")
  local real = uv.fs_realpath(path)
  if real then path = real:gsub("\\", "/") end
  if #path > 1 then path = path:gsub("/+$", "") end
  if path == "" then path = "/" end
  return path
end
M._normalize = normalize

local function exists(path) return path ~= nil and uv.fs_stat(path) ~= nil end

local function isdir(path)
  local st = path and uv.fs_stat(path)
  return st ~= nil and st.type == "directory"
end

local function dirname(path)
  local d = vim.fn.fnamemodify(path, ":h")
  return d
end

-- `inner` is `outer` or below it.
local function inside(inner, outer)
  if inner == outer then return true end
  local prefix = outer:sub(-1) == "/" and outer or (outer .. "/")
  return inner:sub(1, #prefix) == prefix
end

--- The MagicFrog data directory (SPEC §1): the `dataDir` option, else
--- $MAGICFROG_HOME, else $XDG_DATA_HOME/magicfrog, else the platform default.
function M.data_dir()
  local d = M.config.dataDir
  if d and d ~= "" then return normalize(d) or d end
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

-- Remember `root` when it is a project: data-directory notes opened later are
-- viewed in its scope.
local function note_root(root)
  if root and exists(root .. "/.magicfrog") then last_project = root end
  return root
end

--- The project the user is working in: that of the current working directory,
--- else that of the last project buffer; nil when there is none. A note opened
--- from the data directory is viewed in this project's scope (one client).
function M.current_project()
  local data = M.data_dir()
  local p = project_of(normalize(vim.fn.getcwd()))
  if p and not (data and inside(p, data)) then return p end
  if last_project and exists(last_project .. "/.magicfrog") then return last_project end
  return nil
end

--- The root directory (workspace folder) for a file: the nearest ancestor holding
--- `.magicfrog`, else — for a file in the data dir — the project the user is
--- working in (M.current_project), else the data dir, else the file's directory.
--- If a project and the data dir both hold the file, the nearer one wins (a data
--- dir below a folder that happens to hold `.magicfrog` is still its own root).
function M.root_for(fname)
  local path = normalize(fname)
  if not path then return nil end
  local dir = isdir(path) and path or dirname(path)
  local project = project_of(dir)
  local data = M.data_dir()
  local in_data = data and inside(path, data)
  if project and in_data and #data > #project then project = nil end
  if project then return project end
  if in_data then return M.current_project() or data end
  return dir
end

-- ---------------------------------------------------------------------------
-- Clients

local function is_stopped(client)
  if has("nvim-0.11") then return client:is_stopped() end
  return client.is_stopped()
end

--- All running mf-lsp clients, oldest first.
function M.clients()
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  local out = {}
  for _, c in pairs(get()) do
    if c.name == M.name and not is_stopped(c) then table.insert(out, c) end
  end
  table.sort(out, function(a, b) return a.id < b.id end)
  return out
end

--- mf-lsp clients attached to a buffer.
function M.buf_clients(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local out = {}
  if vim.lsp.get_clients then
    out = vim.lsp.get_clients({ bufnr = bufnr, name = M.name })
  else
    for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if c.name == M.name then table.insert(out, c) end
    end
  end
  return out
end

local function notify(msg, level)
  vim.notify("MagicFrog: " .. msg, level or vim.log.levels.INFO)
end
M._notify = notify

local function client_request(client, method, params, handler, bufnr)
  if has("nvim-0.11") then return client:request(method, params, handler, bufnr) end
  return client.request(method, params, handler, bufnr)
end

function M.init_options()
  local opts = {}
  for _, k in ipairs(M.init_option_keys) do
    local v = M.config[k]
    if v ~= nil then opts[k] = v end
  end
  if opts.dataDir then opts.dataDir = normalize(opts.dataDir) or opts.dataDir end
  if next(opts) == nil then return vim.empty_dict() end
  return opts
end

-- Neovim before 0.9 never sends textDocument/willSave(WaitUntil); the server
-- bumps revision/updated through willSaveWaitUntil edits, so we send it.
function M.needs_will_save_shim()
  return not has("nvim-0.9")
end

-- BufWritePre: willSave, then willSaveWaitUntil and apply its edits.
function M.will_save(bufnr)
  for _, client in ipairs(M.buf_clients(bufnr)) do
    local sync = client.server_capabilities and client.server_capabilities.textDocumentSync
    if type(sync) == "table" then
      local params = { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, reason = 1 }
      saving[client.id] = params.textDocument.uri
      if sync.willSave then client.notify("textDocument/willSave", params) end
      if sync.willSaveWaitUntil then
        in_will_save = in_will_save + 1
        local ok, res = pcall(client.request_sync, "textDocument/willSaveWaitUntil", params, 2000, bufnr)
        in_will_save = in_will_save - 1
        if not ok then res = { err = { message = tostring(res) } } end
        -- Questions that came during the request are asked once the write is done
        -- (nothing runs scheduled callbacks between here and the end of :write).
        if in_will_save == 0 and #deferred_questions > 0 then
          local qs = deferred_questions
          deferred_questions = {}
          vim.schedule(function() for _, q in ipairs(qs) do q() end end)
        end
        if res and res.err then
          notify("willSaveWaitUntil failed: " .. tostring(res.err.message), vim.log.levels.WARN)
        elseif res and type(res.result) == "table" and #res.result > 0 then
          vim.lsp.util.apply_text_edits(res.result, bufnr, client.offset_encoding or "utf-16")
        end
      end
    end
  end
end

function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.window = caps.window or {}
  -- We handle window/showDocument ourselves where Neovim does not (0.7).
  caps.window.showDocument = { support = true }
  caps.window.showMessage = caps.window.showMessage or {}
  caps.window.showMessage.messageActionItem = { additionalPropertiesSupport = false }
  if M.needs_will_save_shim() then
    -- We send willSave/willSaveWaitUntil ourselves (see will_save below).
    local sync = caps.textDocument.synchronization
    sync.willSave = true
    sync.willSaveWaitUntil = true
  end
  return caps
end

-- ---------------------------------------------------------------------------
-- Handlers

-- Late answer from an asynchronous vim.ui.select (telescope, dressing, ...): the
-- request was already answered with null, and by then the editor's save has put
-- the buffer on disk (so the stale-revision diagnostic and its code actions are
-- gone). magicfrog.resolveConflict answers the conflict as the question would.
local conflict_choices = {
  ["Take disk version"] = "takeDisk",
  ["Keep mine as next revision"] = "keepMine",
  ["Compare"] = "compare",
  ["Merge"] = "merge",
}

-- uri -> the question to ask again once magicfrog/compare has shown the diff (a
-- late "Compare" from the deferred question: the server does not ask again then).
local reask_after_compare = {}

local function apply_late_choice(client_id, title, uri)
  local choice = conflict_choices[title]
  local client = vim.lsp.get_client_by_id(client_id)
  if not choice or not client or not uri then return end
  local bufnr = vim.uri_to_bufnr(uri)
  client_request(client, "workspace/executeCommand", {
    command = "magicfrog.resolveConflict",
    arguments = { { uri = uri, choice = choice } },
  }, function(err)
    if err then notify(title .. " failed: " .. tostring(err.message), vim.log.levels.ERROR) end
  end, bufnr)
end

local severity_levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.INFO }

-- window/showMessageRequest through vim.ui.select, so that choice UIs work and
-- the save-time conflict question can be answered. With the stock (synchronous)
-- vim.ui.select the choice is returned as the reply.
function M.show_message_request(_, params, ctx)
  params = params or {}
  local actions = params.actions or {}
  if #actions == 0 then
    vim.notify("mf-lsp: " .. tostring(params.message), severity_levels[params.type or 4])
    return vim.NIL
  end
  local uri = saving[ctx.client_id] or vim.uri_from_bufnr(vim.api.nvim_get_current_buf())
  local answered, choice, replied = false, nil, false
  local function ask()
    vim.ui.select(actions, {
      prompt = "mf-lsp: " .. tostring(params.message),
      kind = "magicfrog.showMessageRequest",
      format_item = function(a) return a.title end,
    }, function(item)
      answered, choice = true, item
      if replied and item then
        if item.title == "Compare" then reask_after_compare[uri] = ask end
        apply_late_choice(ctx.client_id, item.title, uri)
      end
    end)
  end
  if in_will_save > 0 and conflict_choices[actions[1].title] then
    -- Answered "dismissed" now; the choice made after the write runs
    -- magicfrog.resolveConflict (see in_will_save).
    table.insert(deferred_questions, ask)
    replied = true
    return vim.NIL
  end
  ask()
  replied = true
  if answered and choice then return choice end
  return vim.NIL
end

-- window/showDocument for Neovim versions without a handler (0.7).
function M.show_document(_, params, ctx)
  if not params or not params.uri then return { success = false } end
  if params.external then
    if vim.ui.open then
      local ok = pcall(vim.ui.open, params.uri)
      return { success = ok }
    end
    return { success = false }
  end
  local fname = vim.uri_to_fname(params.uri)
  local ok = pcall(function()
    if params.takeFocus == false then
      local buf = vim.fn.bufadd(fname)
      vim.fn.bufload(buf)
    elseif params.selection then
      local client = vim.lsp.get_client_by_id(ctx.client_id)
      vim.lsp.util.jump_to_location({ uri = params.uri, range = params.selection },
        client and client.offset_encoding or "utf-16")
    else
      vim.cmd("edit " .. vim.fn.fnameescape(fname))
    end
  end)
  return { success = ok }
end

-- Scratch buffers we render into, refreshed on magicfrog/memoryChanged.
local RENDER = "magicfrog://render"
local VIEW = "magicfrog://view"

local function find_buf(name)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) == name then return b end
  end
  return nil
end
M._find_buf = find_buf

function M.on_memory_changed(_, params, ctx)
  params = params or {}
  M.generation = params.generation
  vim.schedule(function()
    for _, name in ipairs({ RENDER, VIEW }) do
      local b = find_buf(name)
      if b and vim.api.nvim_buf_is_loaded(b) then
        local cid = vim.b[b].magicfrog_client
        if cid == nil or cid == ctx.client_id then
          if name == RENDER then M.render({ refresh = true }) else M.view({ refresh = true }) end
        end
      end
    end
    -- Reload unmodified note buffers whose file changed on disk.
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) and vim.b[b].magicfrog_attached
          and vim.b[b].magicfrog_autoread and not vim.bo[b].modified then
        pcall(vim.cmd, "checktime " .. b)
      end
    end
    pcall(vim.cmd, "doautocmd <nomodeline> User MagicFrogMemoryChanged")
  end)
end

-- window/showMessage through vim.notify with the message's level (0.7 only echoes
-- it): the server warns there, e.g. when a save re-created a note deleted on disk.
function M.show_message(_, params)
  params = params or {}
  vim.notify("mf-lsp: " .. tostring(params.message), severity_levels[params.type or 4])
  return vim.NIL
end

--- magicfrog/compare {uri, title, disk, revision}: the disk version a save
--- conflict found, in a scratch buffer beside the note, both windows in diff
--- mode (as :diffsplit does; the file on disk already holds the buffer's save).
function M.on_compare(_, params)
  if type(params) ~= "table" or type(params.uri) ~= "string" then return end
  local fname = vim.uri_to_fname(params.uri)
  local note = vim.fn.bufnr(fname)
  local win = note ~= -1 and vim.fn.bufwinid(note) or -1
  if win == -1 then
    vim.cmd("edit " .. vim.fn.fnameescape(fname))
    win = vim.api.nvim_get_current_win()
  end
  local name = "magicfrog://disk/" .. vim.fn.fnamemodify(fname, ":t")
  local buf = find_buf(name)
  if not buf then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].swapfile = false
  end
  local lines = vim.split((tostring(params.disk or ""):gsub("\r\n", "\n")), "\n", { plain = true })
  if lines[#lines] == "" then table.remove(lines) end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  vim.bo[buf].filetype = "markdown"
  vim.b[buf].magicfrog_compare = params.uri
  vim.api.nvim_set_current_win(win)
  local dwin = vim.fn.bufwinid(buf)
  if dwin == -1 then
    vim.cmd("vertical rightbelow split")
    vim.api.nvim_win_set_buf(0, buf)
    dwin = vim.api.nvim_get_current_win()
  end
  vim.api.nvim_win_call(dwin, function() vim.cmd("diffthis") end)
  vim.api.nvim_win_call(win, function() vim.cmd("diffthis") end)
  vim.api.nvim_set_current_win(win)
  notify(tostring(params.title or "disk version") .. " (:diffoff! ends the comparison)")
  local again = reask_after_compare[params.uri]
  reask_after_compare[params.uri] = nil
  if again then vim.schedule(again) end
end

function M.handlers()
  local h = {
    ["magicfrog/compare"] = M.on_compare,
    ["magicfrog/memoryChanged"] = M.on_memory_changed,
    ["window/showMessageRequest"] = M.show_message_request,
    ["window/showMessage"] = M.show_message,
  }
  if not vim.lsp.handlers["window/showDocument"] then
    h["window/showDocument"] = M.show_document
  end
  return h
end

function M.on_attach(client, bufnr)
  if M.needs_will_save_shim() and not vim.b[bufnr].magicfrog_attached then
    vim.api.nvim_create_autocmd("BufWritePre", {
      group = vim.api.nvim_create_augroup("magicfrog_save_" .. bufnr, { clear = true }),
      buffer = bufnr,
      callback = function(a) M.will_save(a.buf) end,
    })
  end
  vim.b[bufnr].magicfrog_attached = true
  if M.config.autoread then
    vim.bo[bufnr].autoread = true
    vim.b[bufnr].magicfrog_autoread = true
  end
  if M.config.on_attach then M.config.on_attach(client, bufnr) end
end

-- Config for one client rooted at `root` (0.7-0.10).
function M.client_config(root)
  return {
    name = M.name,
    cmd = M.config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = M.init_options(),
    capabilities = M.capabilities(),
    handlers = M.handlers(),
    on_attach = M.on_attach,
    flags = { debounce_text_changes = 150 },
  }
end

-- Config for vim.lsp.config (0.11+), also returned by lsp/mf_lsp.lua.
function M.lsp_config()
  return {
    cmd = M.config.cmd,
    filetypes = M.config.filetypes,
    root_dir = function(bufnr, on_dir)
      local name = vim.api.nvim_buf_get_name(bufnr)
      if name == "" or vim.bo[bufnr].buftype ~= "" then return end
      on_dir(note_root(M.root_for(name)))
    end,
    init_options = M.init_options(),
    capabilities = M.capabilities(),
    handlers = M.handlers(),
    on_attach = M.on_attach,
  }
end

-- 0.7: one client per root, reused across buffers.
local clients_by_root = {}

local function start_07(root)
  local id = clients_by_root[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if client and not is_stopped(client) then return id end
  local cfg = M.client_config(root)
  cfg.on_exit = function(_, _, client_id)
    if clients_by_root[root] == client_id then clients_by_root[root] = nil end
  end
  id = vim.lsp.start_client(cfg)
  if not id then
    notify("could not start " .. table.concat(M.config.cmd, " "), vim.log.levels.ERROR)
    return nil
  end
  clients_by_root[root] = id
  return id
end

--- Start (or reuse) the client for `bufnr` and attach it. Returns the client id.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.bo[bufnr].buftype ~= "" then return nil end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then return nil end
  local root = note_root(M.root_for(name))
  if not root then return nil end
  if vim.lsp.start and not has("nvim-0.11") then
    return vim.lsp.start(M.client_config(root), { bufnr = bufnr })
  end
  local id = start_07(root)
  if id then vim.lsp.buf_attach_client(bufnr, id) end
  return id
end

--- Start a client for `root` without a buffer (commands run from elsewhere).
function M.start_detached(root)
  for _, c in ipairs(M.clients()) do
    if c.config.root_dir == root then return c.id end
  end
  if has("nvim-0.11") then
    local cfg = vim.deepcopy(vim.lsp.config[M.name] or M.lsp_config())
    cfg.name = M.name
    cfg.root_dir = root
    cfg.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
    return vim.lsp.start(cfg, { attach = false })
  end
  return start_07(root)
end

--- The client commands talk to: the one attached to the buffer, else the one
--- that filled a MagicFrog scratch buffer, else the one whose root holds the
--- current directory, else the oldest; started for the cwd if none is running.
function M.client_for(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local c = M.buf_clients(bufnr)[1]
  if c then return c end
  local cid = vim.b[bufnr].magicfrog_client
  c = cid and vim.lsp.get_client_by_id(cid)
  if c and not is_stopped(c) then return c end
  local all = M.clients()
  local name = vim.api.nvim_buf_get_name(bufnr)
  local here = (name ~= "" and not name:match("^%a[%w+.-]*://")) and name or vim.fn.getcwd()
  local root = M.root_for(here)
  for _, x in ipairs(all) do
    if x.config.root_dir == root then return x end
  end
  if all[1] then return all[1] end
  local id = root and M.start_detached(root)
  return id and vim.lsp.get_client_by_id(id) or nil
end

--- Run a workspace/executeCommand; `cb(err, result, client)`.
function M.execute(command, args, cb, bufnr)
  local client = M.client_for(bufnr)
  if not client then
    local msg = "mf-lsp is not running (open a Markdown note inside a memory tree)"
    notify(msg, vim.log.levels.ERROR)
    if cb then cb({ message = msg }, nil, nil) end
    return
  end
  if not client.initialized then
    vim.wait(5000, function() return client.initialized or is_stopped(client) end, 20)
  end
  local params = { command = command, arguments = { args or vim.empty_dict() } }
  client_request(client, "workspace/executeCommand", params, function(err, result)
    if err then
      notify(command .. " failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    if cb then cb(err, result, client) end
  end, bufnr ~= 0 and bufnr or vim.api.nvim_get_current_buf())
end

-- ---------------------------------------------------------------------------
-- Scratch buffers

local function show_scratch(name, ft, lines, client_id, focus)
  local buf = find_buf(name)
  if not buf then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].bufhidden = "hide"
    vim.bo[buf].swapfile = false
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  if vim.bo[buf].filetype ~= ft then vim.bo[buf].filetype = ft end
  vim.b[buf].magicfrog_client = client_id
  if focus then
    local win = vim.fn.bufwinid(buf)
    if win ~= -1 then
      vim.api.nvim_set_current_win(win)
    else
      vim.cmd("botright split")
      vim.api.nvim_win_set_buf(0, buf)
    end
  end
  return buf
end

local function split_lines(s)
  return vim.split((s or ""):gsub("\r\n", "\n"), "\n", { plain = true })
end

M.ns = vim.api.nvim_create_namespace("magicfrog")

--- Mark a render preview: tokens at each group's line, ✂ at each note the
--- budget leaves out. `offset` is how many header lines precede the block.
local function mark_render(buf, d, offset)
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  for _, g in ipairs(type(d.groups) == "table" and d.groups or {}) do
    pcall(vim.api.nvim_buf_set_extmark, buf, M.ns, g.line + offset, 0, {
      virt_text = { { string.format("%d tokens, %d notes", g.tokens or 0, g.notes or 0)
        .. ((g.omitted or 0) > 0 and string.format(", ✂ %d left out", g.omitted) or ""), "Comment" } },
    })
  end
  for _, o in ipairs(type(d.omitted) == "table" and d.omitted or {}) do
    local text = string.format("✂ left out by the budget: %d tokens", o.tokens or 0)
    if o.reason == "unregistered-scope" then text = "unregistered folder: in no one's view" end
    pcall(vim.api.nvim_buf_set_extmark, buf, M.ns, o.line + offset, 0, {
      virt_text = { { text, "WarningMsg" } },
      sign_text = "✂",
    })
  end
end

-- The arguments of the last :MagicFrogRender, kept for its refreshes.
local render_args = {}

--- :MagicFrogRender [agent] [N]: the <memory> block in a scratch buffer
--- (filetype xml), for one participant: opts.participant (remembered for
--- refreshes), else the last one picked, else the server's; N (opts.earlier)
--- adds the journal's refined days of the N days before yesterday. Two comment
--- lines above the block say for whom it answers and its tokens (per group, in
--- total, against the budget); group lines show their tokens and notes the
--- budget leaves out are marked ✂.
function M.render(opts)
  opts = opts or {}
  if type(opts.participant) == "string" and opts.participant ~= "" then M.participant = opts.participant end
  local args = {}
  if opts.refresh then
    args = vim.deepcopy(render_args)
  else
    for _, k in ipairs({ "task", "agents", "machine", "budget", "earlier" }) do
      if opts[k] ~= nil then args[k] = opts[k] end
    end
    render_args = vim.deepcopy(args)
  end
  if M.participant and args.agents == nil then args.participant = M.participant end
  args.details = true -- the header lines and the marks
  local bufnr = vim.api.nvim_get_current_buf()
  if opts.refresh then bufnr = find_buf(RENDER) or bufnr end
  M.execute("magicfrog.render", args, function(err, result, client)
    if err then return end
    local text, header = result, {}
    if type(result) == "table" then
      text = result.text
      header = type(result.header) == "table" and result.header or {}
    end
    if type(text) ~= "string" then
      notify("magicfrog.render returned no block", vim.log.levels.ERROR)
      return
    end
    local lines = vim.list_extend(vim.deepcopy(header), split_lines(text))
    local buf = show_scratch(RENDER, "xml", lines, client.id, not opts.refresh)
    if type(result) == "table" then mark_render(buf, result, #header) end
  end, bufnr)
end

local function present(x) return x ~= nil and x ~= vim.NIL and x ~= "" end

--- :MagicFrogRenderInto [file]: write the <memory> block into the managed section
--- of `file` (default: the project's CLAUDE.md, else AGENTS.md), between the
--- mf-lsp marker comments; everything outside them stays as it was.
function M.render_into(file, cb)
  local args = vim.empty_dict()
  if file and file ~= "" then args = { file = normalize(file) or file } end
  if M.participant then
    if type(args) ~= "table" or next(args) == nil then args = {} end
    args.participant = M.participant
  end
  M.execute("magicfrog.renderInto", args, function(err, result)
    if not err and type(result) == "table" then
      local where = vim.fn.fnamemodify(tostring(result.path), ":~:.")
      notify(string.format("%s: %s (generation %s, %s tokens)", where, tostring(result.outcome),
        tostring(result.generation), tostring(result.tokens)))
      -- A buffer showing the file picks up the new section.
      local b = vim.fn.bufnr(tostring(result.path))
      if b ~= -1 and not vim.bo[b].modified then
        vim.api.nvim_buf_call(b, function() vim.cmd("checktime") end)
      end
    end
    if cb then cb(err, result) end
  end)
end

-- "task/T-7 r3", "user r4", "device r0 (legacy)".
local function entry_label(e)
  if type(e) ~= "table" then return "?" end
  local s = tostring(present(e.dimension) and e.dimension or "?")
  if present(e.scope) then s = s .. "/" .. tostring(e.scope) end
  s = s .. " r" .. tostring(present(e.revision) and e.revision or 0)
  if e.legacy == true then s = s .. " (legacy)" end
  return s
end

local function entry_details(e)
  local parts = {}
  if present(e.layer) and e.layer ~= "core" then table.insert(parts, "layer " .. tostring(e.layer)) end
  if type(e.tokens) == "number" then table.insert(parts, e.tokens .. " tok") end
  if present(e.path) then table.insert(parts, vim.fn.fnamemodify(tostring(e.path), ":~")) end
  return #parts > 0 and ("  " .. table.concat(parts, "  ")) or ""
end

-- The session scope of an effectiveView result: "task T-7, agents larry, machine 3f9c…".
local function scope_line(sc)
  if type(sc) ~= "table" then return nil end
  local parts = {}
  table.insert(parts, "task " .. (present(sc.task) and tostring(sc.task) or "-"))
  local agents = type(sc.agents) == "table" and sc.agents or {}
  table.insert(parts, "agents " .. (#agents > 0 and table.concat(vim.tbl_map(tostring, agents), " ") or "-"))
  table.insert(parts, "machine " .. (present(sc.machine) and tostring(sc.machine) or "-"))
  return "scope: " .. table.concat(parts, ", ")
end

--- Effective view result (docs/protocol.md:
--- {scope, keys: [{key, winner: Entry, shadowed: [Entry]}], device: [Entry], skills: [Entry], boot: [Entry]})
--- as readable lines.
function M.format_view(v)
  v = type(v) == "table" and v or {}
  local lines = {}
  local keys = type(v.keys) == "table" and v.keys or {}
  table.insert(lines, string.format("# MagicFrog effective view: %d key(s)", #keys))
  local sc = scope_line(v.scope)
  if sc then table.insert(lines, sc) end
  table.insert(lines, "")
  for _, k in ipairs(keys) do
    table.insert(lines, tostring(k.key))
    local w = type(k.winner) == "table" and k.winner or {}
    table.insert(lines, "  winner:   " .. entry_label(w) .. entry_details(w))
    local sh = {}
    for _, e in ipairs(type(k.shadowed) == "table" and k.shadowed or {}) do table.insert(sh, entry_label(e)) end
    table.insert(lines, "  shadowed: " .. (#sh > 0 and table.concat(sh, ", ") or "-"))
  end
  local device = type(v.device) == "table" and v.device or {}
  if #device > 0 then
    table.insert(lines, "")
    table.insert(lines, string.format("# Device (this machine): %d", #device))
    for _, e in ipairs(device) do
      table.insert(lines, tostring(e.key) .. "  " .. entry_label(e) .. entry_details(e))
    end
  end
  local skills = type(v.skills) == "table" and v.skills or {}
  if #skills > 0 then
    table.insert(lines, "")
    table.insert(lines, string.format("# Skills: %d", #skills))
    for _, e in ipairs(skills) do
      table.insert(lines, tostring(e.key) .. "  " .. entry_label(e) .. entry_details(e))
    end
  end
  -- What the agent reads from its journals, in the block's order.
  local boot = type(v.boot) == "table" and v.boot or {}
  if #boot > 0 then
    table.insert(lines, "")
    table.insert(lines, string.format("# Journal boot set, in order: %d", #boot))
    for i, e in ipairs(boot) do
      table.insert(lines, string.format("%d. %s  %s", i, tostring(e.key), entry_label(e)))
    end
  end
  return lines
end

--- :MagicFrogView: the effective view in a scratch buffer.
function M.view(opts)
  opts = opts or {}
  local bufnr = vim.api.nvim_get_current_buf()
  if opts.refresh then bufnr = find_buf(VIEW) or bufnr end
  local args = M.participant and { participant = M.participant } or vim.empty_dict()
  M.execute("magicfrog.effectiveView", args, function(err, result, client)
    if err then return end
    show_scratch(VIEW, "markdown", M.format_view(result), client.id, not opts.refresh)
  end, bufnr)
end

local function buf_uri(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" then return nil end
  return vim.uri_from_fname(normalize(name) or name)
end

-- Show `new` wherever `bufnr` is shown, then drop `bufnr` (its file is gone).
local function follow_moved(bufnr, new)
  if not vim.api.nvim_buf_is_valid(bufnr) then return end
  local wins = vim.fn.win_findbuf(bufnr)
  local nb
  if #wins > 0 then
    -- :edit in a window showing it, so the usual autocommands (filetype, the
    -- client attaching) run for the new file.
    vim.api.nvim_win_call(wins[1], function() vim.cmd("edit " .. vim.fn.fnameescape(new)) end)
    nb = vim.api.nvim_win_get_buf(wins[1])
    for i = 2, #wins do vim.api.nvim_win_set_buf(wins[i], nb) end
  end
  -- The old buffer's file was moved away: wipe it so that nothing saves it back.
  if nb ~= bufnr then pcall(vim.api.nvim_buf_delete, bufnr, { force = true }) end
  return nb
end
M._follow_moved = follow_moved

--- :MagicFrogPromote {dimension} [scope]; copy=true keeps the original.
--- The server answers {uri: the new file, revision, moved} (docs/protocol.md).
function M.promote(to, scope, copy, cb, dest_revision)
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = buf_uri(bufnr)
  if not uri then return notify("the current buffer is not a file", vim.log.levels.ERROR) end
  if vim.bo[bufnr].modified then
    return notify("save the note first: the server promotes what is on disk", vim.log.levels.ERROR)
  end
  local args = { uri = uri, to = to }
  if scope and scope ~= "" then args.scope = scope end
  if copy then args.copy = true end
  -- A compare-and-swap on both ends: dest_revision is the destination revision
  -- the user agreed to replace (0 or nil: it must not exist).
  if type(dest_revision) == "number" and dest_revision > 0 then args.destRevision = dest_revision end
  M.execute("magicfrog.promote", args, function(err, result)
    local existing = err and tostring(err.message or err):match("destination is at revision (%d+)")
    if existing and not dest_revision then
      vim.ui.select({ "Replace revision " .. existing, "Cancel" },
        { prompt = "The destination already has this note at revision " .. existing .. ":" },
        function(choice)
          if choice and choice:find("^Replace") then
            M.promote(to, scope, copy, cb, tonumber(existing))
          elseif cb then
            cb(err, result)
          end
        end)
      return
    end
    if err or type(result) ~= "table" or not present(result.uri) then
      if not err then notify("magicfrog.promote returned no uri", vim.log.levels.ERROR) end
      if cb then cb(err, result) end
      return
    end
    local new = vim.uri_to_fname(result.uri)
    local moved = result.moved == true
    notify(string.format("promoted to %s (revision %s, %s)", new, tostring(result.revision),
      moved and "moved" or "copied"))
    -- A move leaves the buffer on a file that is gone: follow the note.
    if moved and vim.api.nvim_buf_is_valid(bufnr) and not vim.bo[bufnr].modified then
      follow_moved(bufnr, new)
    end
    if cb then cb(err, result) end
  end, bufnr)
end

--- :MagicFrogToday [dimension] [scope]: open today's daily note.
function M.today(dimension, scope)
  local args = {}
  if dimension and dimension ~= "" then args.dimension = dimension end
  if scope and scope ~= "" then args.scope = scope end
  M.execute("magicfrog.today", next(args) and args or vim.empty_dict(), function(err, result)
    if err or type(result) ~= "table" or not result.uri then return end
    vim.cmd("edit " .. vim.fn.fnameescape(vim.uri_to_fname(result.uri)))
  end)
end

local function short(uri_or_path)
  local p = tostring(uri_or_path)
  if p:match("^file://") then p = vim.uri_to_fname(p) end
  return vim.fn.fnamemodify(p, ":~:.")
end

--- One notification summing up a magicfrog.rollup result
--- {written: [uri], upToDate: n, failed: [{ref, error}], lessons: [{uri, text}]}.
function M.format_rollup(kind, result)
  local r = type(result) == "table" and result or {}
  local written = type(r.written) == "table" and r.written or {}
  local failed = type(r.failed) == "table" and r.failed or {}
  local lessons = type(r.lessons) == "table" and r.lessons or {}
  local up = type(r.upToDate) == "number" and r.upToDate or 0
  local names = {}
  for _, u in ipairs(written) do table.insert(names, short(u)) end
  local lines = {
    string.format("rollup %s: wrote %d file(s), %d up to date, %d failed, %d lesson(s) proposed",
      kind, #written, up, #failed, #lessons),
  }
  for _, n in ipairs(names) do table.insert(lines, "  written  " .. n) end
  for _, f in ipairs(failed) do
    table.insert(lines, "  failed   " .. tostring(f.ref) .. ": " .. tostring(f.error))
  end
  for _, l in ipairs(lessons) do
    table.insert(lines, "  lesson   " .. (present(l.uri) and (short(l.uri) .. ": ") or "") .. tostring(l.text))
  end
  if #lessons > 0 then
    table.insert(lines, "  (the lessons are offered as an edit of MEMORY.md to review)")
  end
  return table.concat(lines, "\n"), (#failed > 0) and vim.log.levels.WARN or vim.log.levels.INFO
end

--- :MagicFrogRollup [due|day|week|month] [period]
function M.rollup(kind, period, cb)
  local args = { kind = (kind and kind ~= "") and kind or "due" }
  if period and period ~= "" then args.period = period end
  M.execute("magicfrog.rollup", args, function(err, result)
    if not err then
      local msg, level = M.format_rollup(args.kind, result)
      notify(msg, level)
    end
    if cb then cb(err, result) end
  end)
end

--- One notification summing up a magicfrog.sync report.
function M.format_sync(r)
  r = type(r) == "table" and r or {}
  local function list(x) return type(x) == "table" and x or {} end
  local pushed, pulled, conflicts, held = list(r.Pushed), list(r.Pulled), list(r.Conflicts), list(r.Held)
  local lines = {
    string.format("sync with %s: sent %d, received %d, conflicts %d, held back %d",
      tostring(r.Remote), #pushed, #pulled, #conflicts, #held),
  }
  for _, c in ipairs(conflicts) do
    table.insert(lines, "  conflict " .. tostring(c.Path) .. ": " .. tostring(c.Reason))
  end
  for _, h in ipairs(held) do
    table.insert(lines, "  held     " .. tostring(h.Path) .. ": " .. tostring(h.Reason))
  end
  local warn = #conflicts > 0 or #held > 0
  return table.concat(lines, "\n"), warn and vim.log.levels.WARN or vim.log.levels.INFO
end

--- :MagicFrogSync [remote]: mf-lsp sync in the server (fetch, merge, push).
function M.sync(remote, cb)
  local args = vim.empty_dict()
  if remote and remote ~= "" then args = { remote = remote } end
  M.execute("magicfrog.sync", args, function(err, result)
    if not err then
      local msg, level = M.format_sync(result)
      notify(msg, level)
    end
    if cb then cb(err, result) end
  end)
end

M.promote_targets = { "agent", "user", "account", "skills" }
M.dimensions = { "task", "agent", "user", "account", "device" }
M.rollup_kinds = { "due", "day", "week", "month" }

-- ---------------------------------------------------------------------------
-- Setup

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  if type(M.config.cmd) == "string" then M.config.cmd = { M.config.cmd } end
  M._setup_done = true

  if has("nvim-0.11") and vim.lsp.config and vim.lsp.enable then
    vim.lsp.config(M.name, M.lsp_config())
    vim.lsp.enable(M.name)
    return
  end

  local group = vim.api.nvim_create_augroup("magicfrog", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.config.filetypes,
    callback = function(args) M.attach(args.buf) end,
  })
  -- Buffers already open when setup() runs.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.tbl_contains(M.config.filetypes, vim.bo[b].filetype) then
      M.attach(b)
    end
  end
end

return M
