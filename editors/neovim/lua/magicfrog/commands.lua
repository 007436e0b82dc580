-- magicfrog.commands: what the :MagicFrog* commands do, each a server command
-- (workspace/executeCommand, docs/protocol.md) run without blocking the editor
-- and its answer shown through magicfrog.ui.
local client = require("magicfrog.client")
local config = require("magicfrog.config")
local contract = require("magicfrog.contract")
local ui = require("magicfrog.ui")

local K = {}

-- The agent :MagicFrogRender and :MagicFrogView answer for when one was given
-- (:MagicFrogRender {agent}); nil: the server's participant (the setting, else
-- the one agent in scope; several: the plugin asks, magicfrog.participant).
-- A block is for one participant.
K.participant = nil

local notify, present, find_buf = ui.notify, ui.present, ui.find_buf
local RENDER, VIEW = ui.RENDER, ui.VIEW

-- The arguments of the last :MagicFrogRender, kept for its refreshes.
local render_args = {}

--- :MagicFrogRender [agent] [N]: the <memory> block in a scratch buffer
--- (filetype xml), for one participant: opts.participant (remembered for
--- refreshes), else the last one picked, else the server's; N (opts.earlier)
--- adds the journal's refined days of the N days before yesterday. Two comment
--- lines above the block say for whom it answers and its tokens (per group, in
--- total, against the budget); group lines show their tokens and notes the
--- budget leaves out are marked ✂.
function K.render(opts)
  opts = opts or {}
  if type(opts.participant) == "string" and opts.participant ~= "" then K.participant = opts.participant end
  local args = {}
  if opts.refresh then
    args = vim.deepcopy(render_args)
  else
    for _, k in ipairs({ "task", "agents", "machine", "budget", "earlier" }) do
      if opts[k] ~= nil then args[k] = opts[k] end
    end
    render_args = vim.deepcopy(args)
  end
  if K.participant and args.agents == nil then args.participant = K.participant end
  args.details = true -- the header lines and the marks
  local bufnr = vim.api.nvim_get_current_buf()
  if opts.refresh then bufnr = find_buf(RENDER) or bufnr end
  client.execute("magicfrog.render", args, function(err, result, client)
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
    local lines = vim.list_extend(vim.deepcopy(header), ui.split_lines(text))
    local buf = ui.show_scratch(RENDER, "xml", lines, client.id, not opts.refresh)
    if type(result) == "table" then ui.mark_render(buf, result, #header) end
  end, bufnr)
end

--- :MagicFrogRenderInto [file]: write the <memory> block into the managed section
--- of `file` (default: the project's CLAUDE.md, else AGENTS.md), between the
--- mf-lsp marker comments; everything outside them stays as it was.
function K.render_into(file, cb)
  local args = vim.empty_dict()
  if file and file ~= "" then args = { file = config.normalize(file) or file } end
  if K.participant then
    if type(args) ~= "table" or next(args) == nil then args = {} end
    args.participant = K.participant
  end
  client.execute("magicfrog.renderInto", args, function(err, result)
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

--- :MagicFrogView: the effective view in a scratch buffer.
function K.view(opts)
  opts = opts or {}
  local bufnr = vim.api.nvim_get_current_buf()
  if opts.refresh then bufnr = find_buf(VIEW) or bufnr end
  local args = K.participant and { participant = K.participant } or vim.empty_dict()
  client.execute("magicfrog.effectiveView", args, function(err, result, client)
    if err then return end
    ui.show_scratch(VIEW, "markdown", ui.format_view(result), client.id, not opts.refresh)
  end, bufnr)
end

--- :MagicFrogPromote {dimension} [scope]; copy=true keeps the original.
--- The server answers {uri: the new file, revision, moved} (docs/protocol.md).
function K.promote(to, scope, copy, cb, dest_revision)
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = ui.buf_uri(bufnr)
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
  K.run_promote(args, bufnr, cb)
end

--- Run magicfrog.promote with `args` for the note in `bufnr`, then follow a
--- moved note with the buffer. A destination that exists and was not agreed
--- to (args.destRevision) is offered for replacement at the revision it has.
function K.run_promote(args, bufnr, cb)
  client.execute("magicfrog.promote", args, function(err, result)
    -- Decided on the error's code, never its message (docs/protocol.md,
    -- "Errors"): a stale destination says its revision.
    local data = contract.error_data(err)
    local existing = data and data.code == "stale" and data["end"] == "destination"
      and type(data.revision) == "number" and data.revision or nil
    if existing and not args.destRevision then
      vim.ui.select({ "Replace revision " .. existing, "Cancel" },
        { prompt = "The destination already has this note at revision " .. existing .. ":" },
        function(choice)
          if choice and choice:find("^Replace") then
            K.run_promote(vim.tbl_extend("force", args, { destRevision = tonumber(existing) }), bufnr, cb)
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
      client.followed_move(result.uri) -- the server's own showDocument of it is not taken
      ui.follow_moved(bufnr, new)
    end
    if cb then cb(err, result) end
  end, bufnr)
end

--- The code-action menu's magicfrog.promote (vim.lsp.commands): run in the
--- editor, not sent as is, so that the buffer is never left on a moved file.
--- An unsaved buffer is saved first and the note promoted as saved (the save
--- gave it a new revision: the action's sourceRevision is dropped, the engine
--- still checks that the disk holds what was saved); then the buffer follows.
function K.promote_action(command)
  local args = vim.deepcopy(type(command.arguments) == "table" and command.arguments[1] or {})
  if type(args) ~= "table" or type(args.uri) ~= "string" then
    return notify("magicfrog.promote: the action has no note", vim.log.levels.ERROR)
  end
  local bufnr = vim.fn.bufnr(vim.uri_to_fname(args.uri))
  if bufnr > 0 and vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].modified then
    local ok, e = pcall(vim.api.nvim_buf_call, bufnr, function() vim.cmd("write") end)
    if not ok or vim.bo[bufnr].modified then
      return notify("save the note first: " .. tostring(e or "it is still modified"), vim.log.levels.ERROR)
    end
    args.sourceRevision = nil
  end
  if bufnr <= 0 then bufnr = vim.api.nvim_get_current_buf() end
  K.run_promote(args, bufnr)
end

--- :MagicFrogToday [dimension] [scope]: open today's daily note.
function K.today(dimension, scope)
  local args = {}
  if dimension and dimension ~= "" then args.dimension = dimension end
  if scope and scope ~= "" then args.scope = scope end
  client.execute("magicfrog.today", next(args) and args or vim.empty_dict(), function(err, result)
    if err or type(result) ~= "table" or not result.uri then return end
    vim.cmd("edit " .. vim.fn.fnameescape(vim.uri_to_fname(result.uri)))
  end)
end

--- :MagicFrogRollup [due|day|week|month] [period]
function K.rollup(kind, period, cb)
  local args = { kind = (kind and kind ~= "") and kind or "due" }
  if period and period ~= "" then args.period = period end
  client.execute("magicfrog.rollup", args, function(err, result)
    if not err then
      local msg, level = ui.format_rollup(args.kind, result)
      notify(msg, level)
    end
    if cb then cb(err, result) end
  end)
end

--- :MagicFrogSync [remote]: mf-lsp sync in the server (fetch, merge, push).
function K.sync(remote, cb)
  local args = vim.empty_dict()
  if remote and remote ~= "" then args = { remote = remote } end
  client.execute("magicfrog.sync", args, function(err, result)
    if not err then
      local msg, level = ui.format_sync(result)
      notify(msg, level)
    end
    if cb then cb(err, result) end
  end)
end

--- :MagicFrogSearch {query}: search the notes the server's participant sees
--- (magicfrog.search, mf-lsp search's ranking) and fill the quickfix list with
--- one entry per hit, best first: the note's file, the line its passage starts
--- on, the passage's first line as text; then open it. cb(err, result, items)
--- is called after.
function K.search(query, cb)
  if type(query) ~= "string" or query:match("^%s*$") then
    return notify("MagicFrogSearch: give a query", vim.log.levels.ERROR)
  end
  client.execute("magicfrog.search", { query = query }, function(err, result)
    if err or type(result) ~= "table" then
      if cb then cb(err, result, {}) end
      return
    end
    local items = {}
    for _, h in ipairs(type(result.hits) == "table" and result.hits or {}) do
      local loc = type(h.location) == "table" and h.location or {}
      local start = type(loc.range) == "table" and loc.range.start or {}
      if type(loc.uri) == "string" then
        local first = (tostring(h.snippet or "")):match("^[^\n]*")
        table.insert(items, {
          filename = vim.uri_to_fname(loc.uri),
          lnum = (tonumber(start.line) or 0) + 1,
          col = 1,
          text = first,
        })
      end
    end
    vim.fn.setqflist({}, " ", { title = "MagicFrog search: " .. query, items = items })
    if #items == 0 then
      notify(string.format("no note matches %q", query))
    else
      vim.cmd("copen")
    end
    if cb then cb(err, result, items) end
  end)
end

K.promote_targets = { "agent", "user", "account", "skills" }
K.dimensions = { "task", "agent", "user", "account", "device" }
K.rollup_kinds = { "due", "day", "week", "month" }

--- Refresh the scratch buffer `name` (render or view) after memory changed.
function K.refresh(name)
  if name == RENDER then K.render({ refresh = true }) else K.view({ refresh = true }) end
end

return K
