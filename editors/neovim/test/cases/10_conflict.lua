-- Save-time conflict: the disk moved to a higher revision while the buffer was
-- open; :write must not silently overwrite it.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

local function revision(text)
  return tonumber((text or ""):match("\nrevision:%s*(%d+)") or (text or ""):match("^%-%-%-\nrevision:%s*(%d+)"))
end

T.run(function()
  local fx = T.fixture()
  T.setup(fx)
  local path = fx.taskmem .. "/notes/nvim-conflict.md"
  T.write(path, T.note(1, "original body"))
  local b = T.open(path)
  local client = T.wait_client(b)
  if not T.check("client attached", client ~= nil, "no initialized client within 5 s") then return end
  vim.wait(300)

  -- The user answers the server's question through vim.ui.select.
  local asked
  vim.ui.select = function(items, opts, on_choice)
    asked = { items = items, prompt = opts.prompt }
    for _, it in ipairs(items) do
      if it.title == "Keep mine as next revision" then return on_choice(it, _) end
    end
    on_choice(nil, nil)
  end

  -- The buffer is edited; meanwhile an agent writes revision 5 to disk. Neovim
  -- warns that the file changed since reading; the user answers "y".
  vim.api.nvim_buf_set_lines(b, -2, -1, false, { "my edit from neovim" })
  T.write(path, T.note(5, "agent body at revision 5"))
  vim.wait(500)
  vim.api.nvim_input("y")
  vim.cmd("write")

  local function stale_diag()
    for _, d in ipairs(vim.diagnostic.get(b)) do
      local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
      if code == "stale-revision" or d.message:lower():find("stale") then return d end
    end
  end
  local got = T.wait(5000, function() return asked or stale_diag() end)
  T.check("conflict reported: stale-revision diagnostic or showMessageRequest", got ~= nil,
    "neither within 5 s; disk revision now " .. tostring(revision(T.read(path))))
  T.check("server did not bump the revision over the disk version (no revision 2)",
    revision(T.read(path)) ~= 2, T.read(path))
  T.check("showMessageRequest offers both fixes", asked ~= nil and #asked.items == 2
    and asked.items[1].title == "Take disk version" and asked.items[2].title == "Keep mine as next revision",
    asked and vim.inspect(asked.items) or "no showMessageRequest")
  if asked then
    local r = T.wait(5000, function() return revision(T.text(b)) == 6 end)
    T.check("'Keep mine as next revision' makes the buffer revision 6", r ~= nil,
      "buffer revision " .. tostring(revision(T.text(b))))
    T.check("buffer keeps my edit", T.text(b):find("my edit from neovim") ~= nil, T.text(b))
  end
end)
