-- magicfrog.ui: what the plugin shows: notifications, the scratch buffers
-- (render preview, effective view, a save conflict's disk version) and the
-- texts that sum up the server's answers.
local config = require("magicfrog.config")

local U = {}

function U.notify(msg, level)
  vim.notify("MagicFrog: " .. msg, level or vim.log.levels.INFO)
end
local notify = U.notify

-- Scratch buffers we render into, refreshed on magicfrog/memoryChanged.
U.RENDER = "magicfrog://render"
U.VIEW = "magicfrog://view"

function U.find_buf(name)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_name(b) == name then return b end
  end
  return nil
end
local find_buf = U.find_buf

-- The scratch buffer `name`, made when missing (unlisted, no swap file).
local function scratch_buf(name, bufhidden)
  local buf = find_buf(name)
  if not buf then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].bufhidden = bufhidden
    vim.bo[buf].swapfile = false
  end
  return buf
end

-- Replace a read-only buffer's lines, leaving it read-only and unmodified.
local function fill(buf, lines)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

--- Show `lines` in the scratch buffer `name` (made when missing), filled for
--- client `client_id`; `focus` moves to its window, split when not shown.
function U.show_scratch(name, ft, lines, client_id, focus)
  local buf = scratch_buf(name, "hide")
  fill(buf, lines)
  if vim.bo[buf].filetype ~= ft then vim.bo[buf].filetype = ft end
  vim.b[buf].magicfrog_client = client_id
  -- Attached, the server gets the text (under the buffer's name as URI,
  -- magicfrog://view) and answers go to definition on a key, a note's path or
  -- a block's <note> element there (docs/protocol.md, "Definition").
  if client_id and not vim.lsp.buf_is_attached(buf, client_id) then
    pcall(vim.lsp.buf_attach_client, buf, client_id)
  end
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

function U.split_lines(s)
  return vim.split((s or ""):gsub("\r\n", "\n"), "\n", { plain = true })
end

U.ns = vim.api.nvim_create_namespace("magicfrog")

--- Mark a render preview: tokens at each group's line, ✂ at each note the
--- budget leaves out. `offset` is how many header lines precede the block.
function U.mark_render(buf, d, offset)
  vim.api.nvim_buf_clear_namespace(buf, U.ns, 0, -1)
  for _, g in ipairs(type(d.groups) == "table" and d.groups or {}) do
    pcall(vim.api.nvim_buf_set_extmark, buf, U.ns, g.line + offset, 0, {
      virt_text = { { string.format("%d tokens, %d notes", g.tokens or 0, g.notes or 0)
        .. ((g.omitted or 0) > 0 and string.format(", ✂ %d left out", g.omitted) or ""), "Comment" } },
    })
  end
  for _, o in ipairs(type(d.omitted) == "table" and d.omitted or {}) do
    local text = string.format("✂ left out by the budget: %d tokens", o.tokens or 0)
    if o.reason == "unregistered-scope" then text = "unregistered folder: in no one's view" end
    pcall(vim.api.nvim_buf_set_extmark, buf, U.ns, o.line + offset, 0, {
      virt_text = { { text, "WarningMsg" } },
      sign_text = "✂",
    })
  end
end

function U.present(x) return x ~= nil and x ~= vim.NIL and x ~= "" end
local present = U.present

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
function U.format_view(v)
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
  -- A titled list of entries, one line each, when there are any.
  local function section(title, list, line)
    list = type(list) == "table" and list or {}
    if #list == 0 then return end
    table.insert(lines, "")
    table.insert(lines, string.format(title, #list))
    for i, e in ipairs(list) do table.insert(lines, line(i, e)) end
  end
  local function listed(_, e) return tostring(e.key) .. "  " .. entry_label(e) .. entry_details(e) end
  section("# Device (this machine): %d", v.device, listed)
  section("# Skills: %d", v.skills, listed)
  -- What the agent reads from its journals, in the block's order.
  section("# Journal boot set, in order: %d", v.boot, function(i, e)
    return string.format("%d. %s  %s", i, tostring(e.key), entry_label(e))
  end)
  return lines
end

--- The file:// URI of a buffer's file (nil for a buffer without a name).
function U.buf_uri(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" then return nil end
  return vim.uri_from_fname(config.normalize(name) or name)
end

-- Show `new` wherever `bufnr` is shown, then drop `bufnr` (its file is gone).
function U.follow_moved(bufnr, new)
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

local function short(uri_or_path)
  local p = tostring(uri_or_path)
  if p:match("^file://") then p = vim.uri_to_fname(p) end
  return vim.fn.fnamemodify(p, ":~:.")
end

--- One notification summing up a magicfrog.rollup result
--- {written: [uri], upToDate: n, failed: [{ref, error}], lessons: [{uri, text}]}.
function U.format_rollup(kind, result)
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

--- One notification summing up a magicfrog.sync report.
function U.format_sync(r)
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

--- magicfrog/compare {uri, title, disk, revision}: the disk version a save
--- conflict found, in a scratch buffer beside the note, both windows in diff
--- mode (as :diffsplit does; the file on disk already holds the buffer's save).
function U.show_compare(params)
  if type(params) ~= "table" or type(params.uri) ~= "string" then return end
  local fname = vim.uri_to_fname(params.uri)
  local note = vim.fn.bufnr(fname)
  local win = note ~= -1 and vim.fn.bufwinid(note) or -1
  if win == -1 then
    vim.cmd("edit " .. vim.fn.fnameescape(fname))
    win = vim.api.nvim_get_current_win()
  end
  local name = "magicfrog://disk/" .. vim.fn.fnamemodify(fname, ":t")
  local buf = scratch_buf(name, "wipe")
  local lines = vim.split((tostring(params.disk or ""):gsub("\r\n", "\n")), "\n", { plain = true })
  if lines[#lines] == "" then table.remove(lines) end
  fill(buf, lines)
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
end

return U
