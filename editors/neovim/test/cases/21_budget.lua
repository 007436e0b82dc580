-- The budget at a glance: :MagicFrogRender says for whom it answers and its
-- tokens against the budget (per group, in total), marks the notes the budget
-- leaves out; :MagicFrogView shows each note's tokens.
local T = dofile(os.getenv("MF_PLUGIN") .. "/test/helpers.lua")

T.run(function()
  local fx = T.fixture()
  local mf = T.setup(fx, { budget = 120 })
  local b = T.open(fx.taskmem .. "/notes/progress.md")
  if not T.check("client attached", T.wait_client(b) ~= nil, "no client within 5 s") then return end

  local msgs = T.capture_notify()
  vim.cmd("MagicFrogRender")
  local rb, e = T.wait_cmd(msgs, 5000, function()
    local x = T.buf_named("magicfrog://render")
    return x and T.text(x):find("<memory") and x
  end)
  if not T.check(":MagicFrogRender opens the preview", rb ~= nil, e) then return end
  local lines = vim.api.nvim_buf_get_lines(rb, 0, -1, false)
  T.check("line 1 says for which task, agent and machine",
    lines[1]:find("for task T%-7 · agent larry · machine 3f9c2a7e5b10d4c8", 1, false) ~= nil, lines[1])
  T.check("line 2 says the tokens against the budget and per group",
    lines[2]:find("tokens of a 120 budget") and lines[2]:find('task id=T%-7 %d+') and lines[2]:find("left out by the budget"), lines[2])
  T.check("line 3 is the block", lines[3]:find("^<memory generation=") ~= nil, lines[3])

  local marks = vim.api.nvim_buf_get_extmarks(rb, mf.ns, 0, -1, { details = true })
  local cut, group = 0, 0
  for _, m in ipairs(marks) do
    local row, d = m[2], m[4]
    local vt = d.virt_text and d.virt_text[1] and d.virt_text[1][1] or ""
    if vt:find("^✂ left out by the budget: %d+ tokens") and lines[row + 1]:find('^<omitted .*reason="budget"') then cut = cut + 1 end
    if vt:find("^%d+ tokens, %d+ notes") and lines[row + 1]:find("^<%a") then group = group + 1 end
  end
  local omitted = 0
  for _, l in ipairs(lines) do
    if l:find("^<omitted ") and l:find('reason="budget"', 1, true) then omitted = omitted + 1 end
  end
  T.check("every <omitted reason=budget> line is marked ✂", omitted > 0 and cut == omitted, cut .. " of " .. omitted)
  T.check("group lines show their tokens", group > 0, tostring(group))

  vim.cmd("MagicFrogView")
  local vb = T.wait(5000, function()
    local x = T.buf_named("magicfrog://view")
    return x and T.text(x):find("winner") and x
  end)
  T.check(":MagicFrogView shows each note's tokens", vb and T.text(vb):find("winner: +task/T%-7 r%d+ +%d+ tok"),
    vb and T.text(vb):sub(1, 400))
end)
