-- A note opened from the data directory while working in a project is viewed in
-- that project's scope, by the project's client: one client, and the render
-- says which task and agent it is for. Without a project, the render says it is
-- unbound in its first line.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  local mf = T.setup(fx)
  vim.cmd("cd " .. vim.fn.fnameescape(fx.project))
  local pb = T.open(fx.taskmem .. "/notes/progress.md")
  local pc = T.wait_client(pb)
  if not T.check("client attached to the project note", pc ~= nil, "no client within 5 s") then return end

  -- A user note from the data directory: the same client, in the project's scope.
  local ub = T.open(fx.memory .. "/user/editor.md")
  local uc = T.wait_client(ub)
  T.check("the data-directory note gets the project's client",
    uc ~= nil and uc.id == pc.id, uc and (uc.config.root_dir .. " vs " .. pc.config.root_dir) or "no client")
  T.check("one client runs", #mf.clients() == 1, tostring(#mf.clients()))

  local msgs = T.capture_notify()
  vim.cmd("MagicFrogRender")
  local rb, e = T.wait_cmd(msgs, 5000, function()
    local x = T.buf_named("magicfrog://render")
    return x and T.text(x):find("<memory") and x
  end)
  T.check(":MagicFrogRender from the data note renders the project's scope",
    rb and T.text(rb):find('task="T%-7"') and T.text(rb):find('agents="larry"'), e or (rb and T.text(rb):sub(1, 200)))

  -- The working directory alone decides too: a fresh Neovim state is emulated by
  -- opening another user note with the cwd still in the project.
  local sb = T.open(fx.memory .. "/user/skills/review.md")
  local sc = T.wait_client(sb)
  T.check("another data note, cwd in the project: same client", sc ~= nil and sc.id == pc.id)

  -- root_for itself: cwd outside any project and no project buffer yet would be
  -- the data directory; with the cwd in the project it is the project.
  T.check("root_for(data note) is the project", mf.root_for(fx.memory .. "/user/editor.md") == fx.project,
    tostring(mf.root_for(fx.memory .. "/user/editor.md")))

  -- :MagicFrogRenderInto writes the managed section of the project's CLAUDE.md.
  local host = fx.project .. "/CLAUDE.md"
  T.write(host, "# Mine\n\nKeep this line.\n")
  local done, res
  mf.render_into(nil, function(err, r) done, res = true, r end)
  T.wait(5000, function() return done end)
  local text = T.read(host) or ""
  T.check(":MagicFrogRenderInto appends the managed section to CLAUDE.md",
    res and res.outcome == "appended" and text:find("^# Mine\n\nKeep this line%.\n\n<!%-%- mf%-lsp:begin") and text:find('task="T%-7"'),
    vim.inspect(res) .. "\n" .. text:sub(1, 300))
end)

