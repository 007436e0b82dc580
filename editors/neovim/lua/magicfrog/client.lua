-- magicfrog.client: starting mf-lsp (one client per root directory), what the
-- plugin answers the server (save-time questions, showDocument, compare), and
-- running the server's commands asynchronously.
--
-- Neovim 0.11+ : vim.lsp.config / vim.lsp.enable (config in lsp/mf_lsp.lua)
-- Neovim 0.8-0.10: a FileType autocmd calling vim.lsp.start
-- Neovim 0.7    : a FileType autocmd calling vim.lsp.start_client, one client per
--                 root directory, reused across buffers.
local config = require("magicfrog.config")
local ui = require("magicfrog.ui")
local participant = require("magicfrog.participant")

local M = {}

-- The generation of the last magicfrog/memoryChanged.
M.generation = nil

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

local has = function(feature) return vim.fn.has(feature) == 1 end
local notify = ui.notify

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
    if c.name == config.name and not is_stopped(c) then table.insert(out, c) end
  end
  table.sort(out, function(a, b) return a.id < b.id end)
  return out
end

--- mf-lsp clients attached to a buffer.
function M.buf_clients(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local out = {}
  if vim.lsp.get_clients then
    out = vim.lsp.get_clients({ bufnr = bufnr, name = config.name })
  else
    for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
      if c.name == config.name then table.insert(out, c) end
    end
  end
  return out
end

local function client_request(client, method, params, handler, bufnr)
  if has("nvim-0.11") then return client:request(method, params, handler, bufnr) end
  return client.request(method, params, handler, bufnr)
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
  -- mf-lsp sends its own notifications only to clients that opt in (we handle
  -- both: see M.handlers).
  caps.experimental = caps.experimental or {}
  caps.experimental.magicfrog = { notifications = { "magicfrog/memoryChanged", "magicfrog/compare" } }
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

-- "mf-lsp: " before a server message, unless the server already put it there
-- (its questions and warnings start with it): said once, never twice.
local function from_server(message)
  message = tostring(message)
  if message:find("^mf%-lsp[: ]") then return message end
  return "mf-lsp: " .. message
end
M.from_server = from_server

local severity_levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.INFO }

-- window/showMessageRequest through vim.ui.select, so that choice UIs work and
-- the save-time conflict question can be answered. With the stock (synchronous)
-- vim.ui.select the choice is returned as the reply.
function M.show_message_request(_, params, ctx)
  params = params or {}
  local actions = params.actions or {}
  if #actions == 0 then
    vim.notify(from_server(params.message), severity_levels[params.type or 4])
    return vim.NIL
  end
  local uri = saving[ctx.client_id] or vim.uri_from_bufnr(vim.api.nvim_get_current_buf())
  local answered, choice, replied = false, nil, false
  local function ask()
    vim.ui.select(actions, {
      prompt = from_server(params.message),
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

function M.on_memory_changed(_, params, ctx)
  params = params or {}
  M.generation = params.generation
  vim.schedule(function()
    for _, name in ipairs({ ui.RENDER, ui.VIEW }) do
      local b = ui.find_buf(name)
      if b and vim.api.nvim_buf_is_loaded(b) then
        local cid = vim.b[b].magicfrog_client
        if cid == nil or cid == ctx.client_id then require("magicfrog.commands").refresh(name) end
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
  vim.notify(from_server(params.message), severity_levels[params.type or 4])
  return vim.NIL
end

--- magicfrog/compare: the disk version beside the note (ui.show_compare), then
--- the save-time question again when a late "Compare" asked for it.
function M.on_compare(_, params)
  if type(params) ~= "table" or type(params.uri) ~= "string" then return end
  ui.show_compare(params)
  local again = reask_after_compare[params.uri]
  reask_after_compare[params.uri] = nil
  if again then vim.schedule(again) end
end

-- The bytes :write would put on disk for bufnr (nil when the plugin cannot
-- tell: a BOM, binary, another encoding).
local function buffer_bytes(bufnr)
  local bo = vim.bo[bufnr]
  if bo.bomb or bo.binary or (bo.fileencoding ~= "" and bo.fileencoding ~= "utf-8") then return nil end
  local nl = ({ dos = "\r\n", mac = "\r" })[bo.fileformat] or "\n"
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), nl)
  if bo.eol or bo.fixeol then text = text .. nl end
  return text
end

--- Whether the modified buffer bufnr holds exactly what its file holds.
function M.equals_disk(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or vim.bo[bufnr].buftype ~= "" then return false end
  local f = io.open(name, "rb")
  if not f then return false end
  local disk = f:read("*a")
  f:close()
  return buffer_bytes(bufnr) == disk
end

-- A buffer that an edit of the server made equal to its file is that file:
-- "Keep mine as next revision" after the editor's own save has the server
-- write the next revision to disk and send the same text as the edit. Neovim
-- would still hold the file's old time and ask "WARNING: The file has been
-- changed since reading it!!!" at the next :write, a question about a write
-- the user just chose. The buffer is marked unmodified and read again from the
-- file (the same bytes; 'undoreload' keeps the undo history), which takes the
-- file's new time. A buffer that differs from its file is left as it is.
function M.settle_on_disk(bufnr)
  if not (vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].modified) then return false end
  if not M.equals_disk(bufnr) then return false end
  vim.bo[bufnr].modified = false
  local autoread = vim.bo[bufnr].autoread
  vim.bo[bufnr].autoread = true
  pcall(vim.cmd, "silent! checktime " .. bufnr)
  vim.bo[bufnr].autoread = autoread
  return true
end

-- The URIs of the documents a WorkspaceEdit changes.
local function edited_uris(edit)
  local out = {}
  for uri in pairs(edit.changes or {}) do table.insert(out, uri) end
  for _, c in ipairs(edit.documentChanges or {}) do
    if c.textDocument and c.textDocument.uri then table.insert(out, c.textDocument.uri) end
  end
  return out
end

--- workspace/applyEdit: Neovim's own handler, then each edited buffer that now
--- equals its file is settled on it (M.settle_on_disk).
function M.apply_edit(err, result, ctx, cfg)
  local reply = vim.lsp.handlers["workspace/applyEdit"](err, result, ctx, cfg)
  if type(result) == "table" and type(result.edit) == "table" and type(reply) == "table" and reply.applied then
    local uris = edited_uris(result.edit)
    vim.schedule(function()
      for _, uri in ipairs(uris) do
        local b = vim.fn.bufnr(vim.uri_to_fname(uri))
        if b > 0 then M.settle_on_disk(b) end
      end
    end)
  end
  return reply
end

-- Moved notes the plugin has just followed itself (commands.run_promote),
-- by URI, with the time. The server also shows a moved note
-- (window/showDocument, sent beside its answer); on a busy machine that
-- arrives after the user has gone on to another file, and must not pull them
-- back to the note the buffer already followed.
local followed = {}
local FOLLOWED_MS = 5000

local function now_ms() return (vim.uv or vim.loop).now() end

--- Record that the plugin followed a moved note to `uri`.
function M.followed_move(uri) followed[uri] = now_ms() end

--- window/showDocument: answered without moving the cursor when it shows a
--- move the plugin already followed; otherwise Neovim's own handler (0.10+)
--- or M.show_document.
function M.show_document_unless_followed(err, params, ctx, cfg)
  local uri = type(params) == "table" and params.uri or nil
  local t = uri and followed[uri]
  -- Kept until it is old (not dropped at the first match), so a repeat of
  -- the same show is not taken either.
  if t and now_ms() - t < FOLLOWED_MS then return { success = true } end
  local own = vim.lsp.handlers["window/showDocument"] or M.show_document
  return own(err, params, ctx, cfg)
end

function M.handlers()
  local h = {
    ["workspace/applyEdit"] = M.apply_edit,
    ["magicfrog/compare"] = M.on_compare,
    ["magicfrog/memoryChanged"] = M.on_memory_changed,
    ["window/showMessageRequest"] = M.show_message_request,
    ["window/showMessage"] = M.show_message,
    ["window/showDocument"] = M.show_document_unless_followed,
  }
  return h
end

-- Call fn() once `client` is initialized, polling without blocking the editor;
-- fn(err) when it stops or is not ready within `ms`.
local function when_initialized(client, ms, fn)
  if client.initialized then return fn() end
  if is_stopped(client) then return fn("mf-lsp stopped before it was ready") end
  if ms <= 0 then return fn("mf-lsp did not finish starting") end
  vim.defer_fn(function() when_initialized(client, ms - 20, fn) end, 20)
end

-- Send `method` once `client` is initialized; handler(err, result).
local function request_when_ready(client, method, params, handler, bufnr)
  when_initialized(client, 5000, function(not_ready)
    if not_ready then return handler({ message = not_ready }) end
    client_request(client, method, params, handler, bufnr)
  end)
end

--- Run a workspace/executeCommand; `cb(err, result, client)`. Returns at once:
--- the request goes out when the client is initialized, and cb runs with the
--- answer (an error is also notified).
function M.execute(command, args, cb, bufnr, asked)
  local client = M.client_for(bufnr)
  if not client then
    local msg = "mf-lsp is not running (open a Markdown note inside a memory tree)"
    notify(msg, vim.log.levels.ERROR)
    if cb then cb({ message = msg }, nil, nil) end
    return
  end
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local params = { command = command, arguments = { args or vim.empty_dict() } }
  when_initialized(client, 5000, function(not_ready)
    if not not_ready then participant.restore(client, config.options.participant) end
  end)
  request_when_ready(client, "workspace/executeCommand", params, function(err, result)
    local function failed()
      notify(command .. " failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      if cb then cb(err, result, client) end
    end
    if err and not asked and participant.is_several(err) then
      -- Several agents and none chosen: ask, then the same command again.
      return participant.ask(client, err, function() M.execute(command, args, cb, bufnr, true) end, failed)
    end
    if err then return failed() end
    if cb then cb(err, result, client) end
  end, bufnr)
end

-- client id -> magicfrog.sessionInfo's answer: what that server loaded.
local sessions = {}

--- What the server of `client` loaded (magicfrog.sessionInfo: projectDir,
--- dataDir, agents, participant, task, machine), or nil before it answered.
function M.session(client_id) return sessions[client_id] end

-- Ask a new client's server what it loaded; its data directory then answers
-- config.data_dir() instead of the plugin recomputing it. Quiet: a server
-- without the command leaves the plugin's own rule in place.
local function ask_session(client, bufnr)
  if sessions[client.id] ~= nil then return end
  sessions[client.id] = false
  local params = { command = "magicfrog.sessionInfo", arguments = { vim.empty_dict() } }
  request_when_ready(client, "workspace/executeCommand", params, function(err, info)
    if err or type(info) ~= "table" then
      sessions[client.id] = nil
      return
    end
    sessions[client.id] = info
    if type(info.dataDir) == "string" and info.dataDir ~= "" then
      config.server_data_dir = config.normalize(info.dataDir) or info.dataDir
    end
  end, bufnr)
end

-- Code lenses on `bufnr`: Neovim shows none unless asked. 0.12 keeps them
-- fresh once enabled; before, they are refreshed on attach and as the buffer
-- is entered, left in Insert mode or saved.
function M.enable_codelens(client, bufnr)
  if not (client.server_capabilities and client.server_capabilities.codeLensProvider) then return end
  local lens = vim.lsp.codelens
  if has("nvim-0.12") and lens.enable then
    lens.enable(true, { bufnr = bufnr })
    return
  end
  local refresh = function()
    if has("nvim-0.10") then pcall(lens.refresh, { bufnr = bufnr }) else pcall(lens.refresh) end
  end
  refresh()
  if vim.b[bufnr].magicfrog_codelens then return end
  vim.b[bufnr].magicfrog_codelens = true
  vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
    group = vim.api.nvim_create_augroup("magicfrog_codelens_" .. bufnr, { clear = true }),
    buffer = bufnr,
    callback = refresh,
  })
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
  participant.restore(client, config.options.participant)
  vim.b[bufnr].magicfrog_starting = nil
  -- 0.8+ enables code lenses on LspAttach (plugin/magicfrog.lua), whoever
  -- configured the client; 0.7 has no LspAttach.
  if not has("nvim-0.8") then M.enable_codelens(client, bufnr) end
  ask_session(client, bufnr)
  if config.options.autoread then
    vim.bo[bufnr].autoread = true
    vim.b[bufnr].magicfrog_autoread = true
  end
  if config.options.on_attach then config.options.on_attach(client, bufnr) end
end

--- Whether vim.lsp.enable("mf_lsp") is on (0.11+), by setup() or by the user.
function M.enabled_by_lsp()
  if not (has("nvim-0.11") and vim.lsp.enable) then return false end
  if vim.lsp.is_enabled then return vim.lsp.is_enabled(config.name) end
  local enabled = vim.lsp._enabled_configs
  return type(enabled) == "table" and enabled[config.name] ~= nil
end

--- The command that starts the server: the resolved vim.lsp.config's on 0.11+
--- (the user may have set it there), else the plugin's option.
function M.server_cmd()
  if has("nvim-0.11") and vim.lsp.config then
    local ok, cfg = pcall(function() return vim.lsp.config[config.name] end)
    if ok and type(cfg) == "table" and type(cfg.cmd) == "table" then return cfg.cmd end
  end
  return config.options.cmd
end

-- Config for one client rooted at `root` (0.7-0.10).
function M.client_config(root)
  return {
    name = config.name,
    cmd = config.options.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = config.init_options(),
    capabilities = M.capabilities(),
    handlers = M.handlers(),
    on_attach = M.on_attach,
    flags = { debounce_text_changes = 150 },
  }
end

-- Config for vim.lsp.config (0.11+), also returned by lsp/mf_lsp.lua.
function M.lsp_config()
  return {
    cmd = config.options.cmd,
    filetypes = config.options.filetypes,
    root_dir = function(bufnr, on_dir)
      local name = vim.api.nvim_buf_get_name(bufnr)
      if name == "" or vim.bo[bufnr].buftype ~= "" then return end
      on_dir(config.note_root(config.root_for(name)))
    end,
    init_options = config.init_options(),
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
    notify("could not start " .. table.concat(config.options.cmd, " "), vim.log.levels.ERROR)
    return nil
  end
  clients_by_root[root] = id
  return id
end

-- vim.lsp.start (0.8-0.10) reuses any client of the name and root, also one
-- being stopped (0.10 keeps it in its list until it exited, and then attaches
-- nothing): only a running client of the project is reused, else a new one starts.
local function reuse_running(client, cfg)
  return client.name == cfg.name and client.config.root_dir == cfg.root_dir and not is_stopped(client)
end

--- Start (or reuse) the client for `bufnr` and attach it. Returns the client id.
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.bo[bufnr].buftype ~= "" then return nil end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then return nil end
  local root = config.note_root(config.root_for(name))
  if not root then return nil end
  local id
  if vim.lsp.start and not has("nvim-0.11") then
    id = vim.lsp.start(M.client_config(root), { bufnr = bufnr, reuse_client = reuse_running })
  else
    id = start_07(root)
    if id then vim.lsp.buf_attach_client(bufnr, id) end
  end
  if id then vim.b[bufnr].magicfrog_starting = id end
  return id
end

-- The client started for `bufnr` that has not attached yet (vim.lsp.start on
-- 0.10 attaches only once the server answered initialize; vim.lsp.enable's
-- client on 0.11+ likewise): a command issued at once waits for it.
local function starting_for(bufnr)
  local id = vim.b[bufnr].magicfrog_starting
  local c = id and vim.lsp.get_client_by_id(id)
  if c and not is_stopped(c) then return c end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" then return nil end
  local root = config.root_for(name)
  for _, x in ipairs(M.clients()) do
    if root and x.config.root_dir == root then return x end
  end
  return nil
end

--- Start a client for `root` without a buffer (commands run from elsewhere).
function M.start_detached(root)
  for _, c in ipairs(M.clients()) do
    if c.config.root_dir == root then return c.id end
  end
  if has("nvim-0.11") then
    local cfg = vim.deepcopy(vim.lsp.config[config.name] or M.lsp_config())
    cfg.name = config.name
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
  local c = M.buf_clients(bufnr)[1] or starting_for(bufnr)
  if c then return c end
  local cid = vim.b[bufnr].magicfrog_client
  c = cid and vim.lsp.get_client_by_id(cid)
  if c and not is_stopped(c) then return c end
  local all = M.clients()
  local name = vim.api.nvim_buf_get_name(bufnr)
  local here = (name ~= "" and not name:match("^%a[%w+.-]*://")) and name or vim.fn.getcwd()
  local root = config.root_for(here)
  for _, x in ipairs(all) do
    if x.config.root_dir == root then return x end
  end
  if all[1] then return all[1] end
  local id = root and M.start_detached(root)
  return id and vim.lsp.get_client_by_id(id) or nil
end

return M
