-- Plugin loads, commands exist, help tags are valid, root detection, one client
-- per root reused across buffers, scratch buffers never get a client.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  local ok, mf = pcall(T.setup, fx)
  T.check("plugin loads and setup() runs", ok, mf)
  if not ok then return end

  for _, c in ipairs({ "MagicFrogRender", "MagicFrogView", "MagicFrogPromote", "MagicFrogToday", "MagicFrogRollup" }) do
    T.check(":" .. c .. " is defined", vim.fn.exists(":" .. c) == 2)
  end

  local comp = vim.fn.getcompletion("MagicFrogPromote ", "cmdline")
  T.check(":MagicFrogPromote completes agent user account skills",
    vim.deep_equal(comp, { "agent", "user", "account", "skills" }), vim.inspect(comp))
  comp = vim.fn.getcompletion("MagicFrogRollup w", "cmdline")
  T.check(":MagicFrogRollup completes kinds", vim.deep_equal(comp, { "week" }), vim.inspect(comp))

  -- Help file: helptags succeeds and knows the documented tags.
  local doc = vim.fn.tempname()
  T.mkdirp(doc)
  vim.fn.system({ "cp", T.plugin .. "/doc/magicfrog.txt", doc })
  local hok, herr = pcall(vim.cmd, "helptags " .. vim.fn.fnameescape(doc))
  local tags = T.read(doc .. "/tags") or ""
  local missing = {}
  for _, tag in ipairs({ "magicfrog", "magicfrog.txt", "magicfrog-setup", "magicfrog-options", "magicfrog-health",
    ":MagicFrogRender", ":MagicFrogView", ":MagicFrogPromote", ":MagicFrogToday", ":MagicFrogRollup" }) do
    if not tags:find("\n" .. vim.pesc(tag) .. "\t") and not tags:find("^" .. vim.pesc(tag) .. "\t") then
      table.insert(missing, tag)
    end
  end
  T.check("doc/magicfrog.txt: helptags runs and has the tags", hok and #missing == 0,
    (herr or "") .. " missing: " .. table.concat(missing, " "))

  -- Root detection.
  local task_note = fx.taskmem .. "/notes/nvim-load.md"
  T.write(task_note, T.note(1, "Task note for the load test."))
  local user_note = fx.memory .. "/user/notes/nvim-load.md"
  T.write(user_note, T.note(1, "User note for the load test."))
  local user_note2 = fx.memory .. "/user/notes/nvim-load-2.md"
  T.write(user_note2, T.note(1, "Second user note."))
  local loose = fx.root .. "/loose/readme.md"
  T.write(loose, "# loose\n")
  T.check("root: project with .magicfrog", mf.root_for(task_note) == fx.project, mf.root_for(task_note))
  T.check("root: data dir (no project worked in yet)", mf.root_for(user_note) == fx.data, mf.root_for(user_note))
  T.check("root: else the file's directory", mf.root_for(loose) == fx.root .. "/loose", mf.root_for(loose))

  -- The 0.11 config (lsp/mf_lsp.lua) resolves the same roots.
  local cfg = dofile(T.plugin .. "/lsp/mf_lsp.lua")
  T.check("lsp/mf_lsp.lua: cmd and filetypes", type(cfg) == "table" and cfg.cmd[1] == T.lsp
    and vim.deep_equal(cfg.filetypes, { "markdown" }) and cfg.init_options.dataDir == fx.data,
    vim.inspect(cfg and cfg.cmd))

  -- Client start and reuse.
  local b1 = T.open(task_note)
  local c1 = T.wait_client(b1)
  T.check("client starts and initializes for a task note", c1 ~= nil,
    "no initialized mf_lsp client attached within 5 s")
  if not c1 then return end
  local got
  cfg.root_dir(b1, function(r) got = r end)
  T.check("lsp/mf_lsp.lua root_dir gives the project", got == fx.project, tostring(got))
  T.check("client root_dir is the project", c1.config.root_dir == fx.project, c1.config.root_dir)
  T.check("initializationOptions carry dataDir and today",
    c1.config.init_options.dataDir == fx.data and c1.config.init_options.today == T.today,
    vim.inspect(c1.config.init_options))

  local b2 = T.open(fx.taskmem .. "/notes/nvim-load-other.md")
  local c2 = T.wait_client(b2)
  T.check("second buffer in the same root reuses the client", c2 and c2.id == c1.id,
    c2 and ("client " .. c2.id .. " vs " .. c1.id) or "no client")

  -- Working in the project, a data-dir note is viewed in the project's scope by
  -- the project's client (14_scope.lua has the details).
  local b3 = T.open(user_note)
  local c3 = T.wait_client(b3)
  T.check("a data-dir note opened while working in the project gets the project's client",
    c3 and c3.id == c1.id and c3.config.root_dir == fx.project, c3 and c3.config.root_dir or "no client")
  local b4 = T.open(user_note2)
  local c4 = T.wait_client(b4)
  T.check("project client reused for the next data-dir note", c4 and c3 and c4.id == c3.id)
  T.check("exactly one mf_lsp client", #mf.clients() == 1, tostring(#mf.clients()))

  local scratch = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_option(scratch, "filetype", "markdown")
  vim.wait(200)
  T.check("scratch markdown buffers get no client", #mf.buf_clients(scratch) == 0)
  T.check("client for commands from a scratch buffer falls back to a running one",
    (function()
      vim.api.nvim_set_current_buf(scratch)
      local c = mf.client_for(scratch)
      return c ~= nil and c.name == "mf_lsp"
    end)())
end)
