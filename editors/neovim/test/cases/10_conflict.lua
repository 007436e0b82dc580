-- Save-time conflict (docs/protocol.md, Save): the disk moved to a higher revision
-- while the buffer was open; :write must not silently bump over it. The server
-- publishes stale-revision and asks through window/showMessageRequest, which the
-- plugin answers through vim.ui.select; the choice comes back as an applyEdit.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

local function revision(text)
  return tonumber((text or ""):match("^%-%-%-\r?\n[^\n]-revision:%s*(%d+)")
    or (text or ""):match("^%-%-%-\r?\n.-\nrevision:%s*(%d+)"))
end

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local path = fx.taskmem .. "/notes/nvim-conflict.md"
  T.write(path, T.note(1, "original body"))
  local path2 = fx.taskmem .. "/notes/nvim-conflict-take.md"
  T.write(path2, T.note(1, "original body 2"))
  local path3 = fx.taskmem .. "/notes/nvim-conflict-async.md"
  T.write(path3, T.note(1, "original body 3"))
  local b = T.open(path)
  local client = T.wait_client(b)
  if not T.check("client attached", client ~= nil, "no initialized client within 5 s") then return end

  -- The user answers the server's question through vim.ui.select with `answer`.
  local asked, answer = {}, "Keep mine as next revision"
  vim.ui.select = function(items, opts, on_choice)
    table.insert(asked, { items = items, prompt = opts.prompt })
    for i, it in ipairs(items) do
      if it.title == answer then return on_choice(it, i) end
    end
    on_choice(nil, nil)
  end

  -- The buffer is edited; meanwhile an agent writes revision 5 to disk. Neovim
  -- warns that the file changed since reading; the user answers "y".
  -- The server sees the agent's write and flags the buffer stale before the
  -- user saves (diagnostics are published beside the read loop, so the check
  -- waits for them rather than racing the save).
  vim.api.nvim_buf_set_lines(b, -2, -1, false, { "my edit from neovim" })
  T.write(path, T.note(5, "agent body at revision 5"))
  T.check("stale-revision diagnostic on the buffer", T.wait(5000, function()
    return #T.diags_with_code(b, "stale-revision") > 0
  end) ~= nil, T.diag_summary(b))
  vim.api.nvim_input("y")
  vim.cmd("write")

  local q = T.wait(5000, function() return asked[1] end)
  T.check("showMessageRequest asks about the conflict", q ~= nil, "no showMessageRequest within 5 s")
  local disk = T.read(path) or ""
  -- The buffer was written as it was (revision 1), with no bump over the disk;
  -- the answer "Keep mine", already given by the stub, may have put revision 6
  -- on disk by now (the server writes it at once when the editor saved anyway).
  T.check("no bump over the disk version: the buffer was written as it was (revision 1, or 6 once Keep mine landed)",
    (revision(disk) == 1 or revision(disk) == 6) and disk:find("my edit from neovim", 1, true) ~= nil, disk)
  if not q then return end
  T.check("the question offers Take disk version, Keep mine as next revision, Compare (both changed the body line: no Merge)", #q.items == 3
    and q.items[1].title == "Take disk version" and q.items[2].title == "Keep mine as next revision" and q.items[3].title == "Compare",
    vim.inspect(q.items))
  T.check("the question names the revision on disk", q.prompt:find("revision 5", 1, true) ~= nil, q.prompt)
  T.check("the question says mf-lsp once (the server already prefixed it)",
    q.prompt:find("mf-lsp:", 1, true) == 1 and q.prompt:find("mf-lsp: mf-lsp:", 1, true) == nil, q.prompt)

  local r = T.wait(5000, function() return revision(T.text(b)) == 6 end)
  T.check("'Keep mine as next revision' makes the buffer revision 6", r ~= nil,
    "buffer revision " .. tostring(revision(T.text(b))))
  T.check("buffer keeps my edit", T.text(b):find("my edit from neovim", 1, true) ~= nil, T.text(b))

  -- The buffer is now based on the disk: the next save goes through as revision 6,
  -- without a new question, and the diagnostic clears. When the editor's write
  -- landed before the answer, Keep mine put revision 6 on disk (the bytes the
  -- buffer now holds) and the plugin takes the buffer as that file; when the
  -- answer came first (Neovim 0.10+ asks while it waits for willSaveWaitUntil),
  -- the disk holds the editor's own write and the buffer is ahead of it. Either
  -- way Neovim must not ask whether to write over a file changed since reading
  -- (nothing answers that prompt here: it would hang).
  local n = #asked
  local client_mod = require("magicfrog.client")
  T.check("after Keep mine the buffer is either the file on disk (unmodified) or ahead of it", T.wait(5000, function()
    return not vim.bo[b].modified or not client_mod.equals_disk(b)
  end) ~= nil, "buffer modified but equal to the disk")
  local why = T.changed_since_read(b)
  if not T.check("Neovim would not ask 'The file has been changed since reading it' at the next :write", why == nil,
    "checktime reports the file changed since the buffer read it (" .. tostring(why) .. ")") then return end
  vim.cmd("silent write")
  disk = T.read(path) or ""
  T.check("the next save writes revision 6 with my edit", revision(disk) == 6
    and disk:find("my edit from neovim", 1, true) ~= nil, disk)
  T.check("stale-revision clears after that save", T.wait(5000, function()
    return #T.diags_with_code(b, "stale-revision") == 0
  end) ~= nil, T.diag_summary(b))
  T.check("no second question", #asked == n, vim.inspect(asked[#asked]))

  -- Take disk version: the buffer becomes what the agent wrote. When the
  -- editor's :write had put the doomed buffer on disk before the answer (the
  -- plugin drives 0.7's save), saving writes the agent's text back as revision
  -- 6; when the answer came while Neovim waited for willSaveWaitUntil (0.10+),
  -- the write that followed put the agent's own bytes down, and saving them
  -- again leaves revision 5 as the agent wrote it. Either way the disk ends
  -- with the agent's text and never the doomed edit.
  answer = "Take disk version"
  local b2 = T.open(path2)
  T.wait_client(b2)
  vim.api.nvim_buf_set_lines(b2, -2, -1, false, { "my doomed edit" })
  local agents = T.note(5, "agent body 2 at revision 5")
  T.write(path2, agents)
  vim.api.nvim_input("y")
  vim.cmd("write")
  local took = T.wait(5000, function() return T.text(b2):find("agent body 2 at revision 5", 1, true) end)
  T.check("'Take disk version' puts the agent's revision 5 in the buffer", took ~= nil
    and revision(T.text(b2)) == 5 and not T.text(b2):find("my doomed edit", 1, true), T.text(b2))
  vim.cmd("silent write")
  disk = T.read(path2) or ""
  T.check("saving after 'Take disk version' leaves the agent's text on disk (revision 6, or its own revision 5 byte for byte)",
    (revision(disk) == 6 or revision(disk) == 5 and disk == agents)
    and disk:find("agent body 2 at revision 5", 1, true) ~= nil
    and not disk:find("my doomed edit", 1, true), disk)

  -- An asynchronous picker (telescope, dressing): the question is answered
  -- "dismissed" at once, and the later choice runs the stale-revision code action
  -- (magicfrog.resolveConflict), which brings the same edit.
  vim.ui.select = function(items, opts, on_choice)
    table.insert(asked, { items = items, prompt = opts.prompt })
    vim.schedule(function()
      for i, it in ipairs(items) do
        if it.title == "Keep mine as next revision" then return on_choice(it, i) end
      end
    end)
  end
  local b3 = T.open(path3)
  T.wait_client(b3)
  vim.api.nvim_buf_set_lines(b3, -2, -1, false, { "my async edit" })
  T.write(path3, T.note(7, "agent body 3 at revision 7"))
  vim.api.nvim_input("y")
  n = #asked
  vim.cmd("write")
  local late = T.wait(5000, function() return revision(T.text(b3)) == 8 end)
  T.check("a late choice from an async picker still applies 'Keep mine' (revision 8)", late ~= nil and #asked == n + 1
    and T.text(b3):find("my async edit", 1, true) ~= nil, "asked " .. (#asked - n) .. " time(s); buffer: " .. T.text(b3))
  -- When the editor's save had landed before the choice (Neovim 0.7, whose
  -- save the plugin drives), Keep mine put revision 8 on disk already and the
  -- buffer is that file; else (0.10+: the choice can run while Neovim waits for
  -- willSaveWaitUntil) the edit came after the server's answer and the disk
  -- holds the editor's save. Either way the next :write asks nothing.
  T.check("after the late Keep mine the buffer is either the file on disk (unmodified) or ahead of it", T.wait(5000, function()
    return not vim.bo[b3].modified or not client_mod.equals_disk(b3)
  end) ~= nil, "buffer modified but equal to the disk")
  why = T.changed_since_read(b3)
  if not T.check("after the late Keep mine Neovim would not ask about a file changed since reading", why == nil,
    "checktime reports the file changed since the buffer read it (" .. tostring(why) .. ")") then return end
  vim.cmd("silent write")
  disk = T.read(path3) or ""
  T.check("after the late choice the save goes through (revision 8, or 9 over the 8 Keep mine put on disk)", (revision(disk) == 8 or revision(disk) == 9)
    and disk:find("my async edit", 1, true) ~= nil, disk)
end)
