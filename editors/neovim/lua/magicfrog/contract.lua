-- Code generated from session/commands.go and engine/errcode by `go test ./session -run TestContractFiles -update`; DO NOT EDIT.
--
-- The server's commands (docs/protocol.md): each command's argument fields, and
-- the data of a failed command's JSON-RPC error (decide on `code`, never on the message).
local M = {}

---@class magicfrog.ErrorData
---@field code string
---@field revision integer?
---@field hash string?
---@field end string?
---@field path string?
---@field rule string?
---@field choices string[]?

---@class magicfrog.RenderArgs
---@field task string?
---@field agents string[]?
---@field machine string?
---@field participant string?
---@field budget integer?
---@field previous string?
---@field today string?
---@field earlier integer?
---@field details boolean?

---@class magicfrog.RenderIntoArgs
---@field task string?
---@field agents string[]?
---@field machine string?
---@field participant string?
---@field budget integer?
---@field previous string?
---@field today string?
---@field earlier integer?
---@field details boolean?
---@field file string?

---@class magicfrog.EffectiveViewArgs
---@field task string?
---@field agents string[]?
---@field machine string?
---@field participant string?

---@class magicfrog.DescribeArgs
---@field uri string?

---@class magicfrog.PromoteArgs
---@field uri string?
---@field to string?
---@field scope string?
---@field layer string?
---@field copy boolean?
---@field sourceRevision integer?
---@field destRevision integer?
---@field register boolean?

---@class magicfrog.ExportArgs
---@field dir string?
---@field withDevice boolean?
---@field allMachines boolean?

---@class magicfrog.ImportArgs
---@field dir string?

---@class magicfrog.RollupArgs
---@field kind string?
---@field period string?
---@field dimension string?
---@field scope string?

---@class magicfrog.TodayArgs
---@field dimension string?
---@field scope string?
---@field register boolean?

---@class magicfrog.ShowEntryArgs
---@field uri string?

---@class magicfrog.RegisterAgentArgs
---@field id string?
---@field shared boolean?

---@class magicfrog.RegisterTaskArgs
---@field id string?
---@field shared boolean?

---@class magicfrog.ResolveConflictArgs
---@field uri string?
---@field choice string?

---@class magicfrog.ResolveOverwriteArgs
---@field uri string?
---@field choice string?

---@class magicfrog.SyncArgs
---@field remote string?

---@class magicfrog.SyncStatusArgs
---@field offline boolean?

---@class magicfrog.SyncResolveArgs
---@field path string?
---@field keep string?

---@class magicfrog.SessionInfoArgs

---@class magicfrog.SkillsIntoArgs
---@field task string?
---@field agents string[]?
---@field machine string?
---@field participant string?
---@field budget integer?
---@field previous string?
---@field today string?
---@field earlier integer?
---@field details boolean?
---@field dir string?

---@class magicfrog.SearchArgs
---@field query string?
---@field limit integer?

--- Each command's argument fields, by command name.
M.commands = {
  ["magicfrog.render"] = { "task", "agents", "machine", "participant", "budget", "previous", "today", "earlier", "details" },
  ["magicfrog.renderInto"] = { "task", "agents", "machine", "participant", "budget", "previous", "today", "earlier", "details", "file" },
  ["magicfrog.effectiveView"] = { "task", "agents", "machine", "participant" },
  ["magicfrog.describe"] = { "uri" },
  ["magicfrog.promote"] = { "uri", "to", "scope", "layer", "copy", "sourceRevision", "destRevision", "register" },
  ["magicfrog.export"] = { "dir", "withDevice", "allMachines" },
  ["magicfrog.import"] = { "dir" },
  ["magicfrog.rollup"] = { "kind", "period", "dimension", "scope" },
  ["magicfrog.today"] = { "dimension", "scope", "register" },
  ["magicfrog.showEntry"] = { "uri" },
  ["magicfrog.registerAgent"] = { "id", "shared" },
  ["magicfrog.registerTask"] = { "id", "shared" },
  ["magicfrog.resolveConflict"] = { "uri", "choice" },
  ["magicfrog.resolveOverwrite"] = { "uri", "choice" },
  ["magicfrog.sync"] = { "remote" },
  ["magicfrog.syncStatus"] = { "offline" },
  ["magicfrog.syncResolve"] = { "path", "keep" },
  ["magicfrog.sessionInfo"] = {},
  ["magicfrog.skillsInto"] = { "task", "agents", "machine", "participant", "budget", "previous", "today", "earlier", "details", "dir" },
  ["magicfrog.search"] = { "query", "limit" },
}

--- The data of a failed command's error (err.data), or nil.
---@return magicfrog.ErrorData?
function M.error_data(err)
  if type(err) == "table" and type(err.data) == "table" and type(err.data.code) == "string" then
    return err.data
  end
  return nil
end

return M
