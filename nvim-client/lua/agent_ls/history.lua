-- :AgentUndo[!] / :AgentRedo[!] / :AgentCheckpoints and :AgentAccept / :AgentReject: the
-- server's workspace/executeCommand commands, with their answers shown as notifications.
local client = require("agent_ls.client")
local roots = require("agent_ls.roots")

local M = {}

local function notify(message, level)
  vim.notify("agent-ls: " .. message, level or vim.log.levels.INFO)
end

local function execute(command, arguments, on_done)
  local c, err = client.current()
  if not c then
    notify(err, vim.log.levels.ERROR)
    return
  end
  c.request("workspace/executeCommand", { command = command, arguments = arguments }, function(e, result)
    if e then
      notify(e.message or tostring(e), vim.log.levels.ERROR)
    end
    vim.cmd("silent! checktime")
    if on_done then
      on_done(e, result, c)
    end
  end)
end

local function files(result)
  local names = {}
  for _, f in ipairs((result and result.files) or {}) do
    table.insert(names, f.path .. ((f.exists == false) and " (deleted)" or ""))
  end
  return table.concat(names, ", ")
end

-- Undo or redo ("undo" / "redo"): the server reverts the disk and the open buffers.
local function move(kind, force, on_done)
  execute("agent." .. kind, { { force = force or false } }, function(e, result)
    if not e then
      notify(kind:sub(1, 3) .. "id " .. tostring(result.checkpointId) .. ": " .. files(result))
    end
    if on_done then on_done(e, result) end
  end)
end

function M.undo(force, on_done)
  move("undo", force, on_done)
end

function M.redo(force, on_done)
  move("redo", force, on_done)
end

-- The quickfix items of a checkpoint listing: one per file, named by its absolute path in the
-- folder the server says it is in (a path no folder holds keeps the reason in its text).
local function checkpoint_items(result, folders)
  local items = {}
  for _, info in ipairs(result or {}) do
    local text = string.format("%s  %s  %-7s %s", info.id, info.time, info.state, info.description)
    for _, path in ipairs(info.files or {}) do
      local file, why = roots.locate(folders, path)
      if file then
        table.insert(items, { filename = file, lnum = 1, text = text })
      else
        table.insert(items, { text = text .. "  (" .. why .. ")" })
      end
    end
    if #(info.files or {}) == 0 then
      table.insert(items, { text = text })
    end
  end
  return items
end

function M.checkpoints(on_done)
  execute("agent.checkpoints", {}, function(e, result, c)
    if e then
      if on_done then on_done(e, result) end
      return
    end
    roots.fetch(c, function(folders, why)
      if why then
        notify(why, vim.log.levels.WARN)
      end
      local items = checkpoint_items(result, folders)
      vim.fn.setqflist({}, " ", { title = "agent-ls checkpoints", items = items })
      notify(#(result or {}) .. " checkpoint(s) (:copen lists them)")
      if on_done then on_done(e, result) end
    end)
  end)
end

--- Review mode: accept / reject the pending plan of the chat (all files, or the given ones).
local function pending_plan()
  local state = require("agent_ls.chat").state()
  local plan = state and state.last_result and state.last_result.plan
  if not plan or plan == vim.NIL or plan.state ~= "pending" then
    return nil
  end
  return plan
end

-- After a decision: the chat confirms what was applied / rejected (chat.reviewed).
local function reviewed(on_done)
  return function(e, result, c)
    if not e then
      require("agent_ls.chat").reviewed(result)
    end
    if on_done then on_done(e, result, c) end
  end
end

function M.accept(paths, on_done)
  local plan = pending_plan()
  if not plan then
    notify("no plan is waiting for review", vim.log.levels.WARN)
    return
  end
  local args = { planId = plan.planId }
  if paths and #paths > 0 then args.files = paths end
  execute("agent.accept", { args }, reviewed(on_done))
end

function M.reject(reason, on_done)
  local plan = pending_plan()
  if not plan then
    notify("no plan is waiting for review", vim.log.levels.WARN)
    return
  end
  local args = { planId = plan.planId }
  if reason and reason ~= "" then args.reason = reason end
  execute("agent.reject", { args }, reviewed(on_done))
end

return M
