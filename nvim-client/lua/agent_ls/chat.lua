-- :AgentChat — a chat buffer (a prompt buffer: type after "you> " and press <CR>) that streams
-- the answer, shows each tool call, the plan and every file applied, and keeps the session.
local client = require("agent_ls.client")
local config = require("agent_ls.config")
local progress = require("agent_ls.progress")
local transcript = require("agent_ls.transcript")

local M = {}
local chat = nil -- { buf, transcript, session_id, root, busy, request, last_result }

local function valid()
  return chat ~= nil and vim.api.nvim_buf_is_valid(chat.buf)
end

local function json(value)
  local ok, text = pcall(vim.fn.json_encode, value)
  return ok and text or tostring(value)
end

local function on_progress(params)
  if not valid() then
    return
  end
  local t = chat.transcript
  local data = params.data or {}
  local kind = params.kind
  if kind == "text" then
    t:text(params.delta or "")
  elseif kind == "tool_call" then
    t:step("tool", { "  ⚙ " .. tostring(data.name) .. " " .. json(data.args or {}) })
  elseif kind == "tool_result" then
    t:step("tool", { "  " .. (data.ok and "✓ " or "✗ ") .. tostring(data.name) })
  elseif kind == "plan" then
    t:step("plan", { "  ▶ plan: " .. tostring(data.description or "") })
    for _, path in ipairs(data.files or {}) do
      t:step("plan", { "      " .. path })
    end
  elseif kind == "file_applied" then
    t:step("plan", { "  ✎ " .. tostring(data.action) .. " " .. tostring(data.path) })
  elseif kind == "file_staged" then -- review mode: proposed, nothing written
    t:step("plan", { "  ◇ staged " .. tostring(data.action) .. " " .. tostring(data.path) })
  elseif kind == "error" then
    t:step("note", { "  ! " .. tostring(data.message) })
  end
end

-- The outcome of a turn, as the lines that end it.
local function outcome(err, result)
  if err then
    return { "  ! " .. (err.message or tostring(err)) }
  end
  local plan = result and result.plan
  if plan and plan ~= vim.NIL and plan.state == "pending" then
    return { "  ⏸ plan pending review, nothing written yet: :AgentAccept / :AgentReject [reason]" }
  elseif result and result.checkpointId and result.checkpointId ~= vim.NIL then
    return { "  ↺ applied as " .. result.checkpointId .. " (:AgentUndo reverts it)" }
  end
  return {}
end

local function finish(request, err, result)
  if not valid() or chat.request ~= request then
    return -- the chat was closed, or this request was cancelled (:AgentStop said so)
  end
  chat.busy, chat.request = false, nil
  if not err then
    chat.last_result = result
    chat.session_id = result and result.sessionId or chat.session_id
  end
  chat.transcript:finish(outcome(err, result))
  -- Files the plan wrote on disk: reload unmodified buffers showing them.
  vim.cmd("silent! checktime")
end

--- Send `text` in the chat's session; the answer streams into the chat buffer. `echo`: the
--- text was not typed at the prompt, so the transcript shows it as if it had been.
function M.send(text, echo)
  if not valid() then
    M.open()
  end
  if text == nil or vim.trim(text) == "" then
    return
  end
  if chat.busy then
    vim.notify("agent-ls: a request is still running (:AgentStop cancels it)", vim.log.levels.WARN)
    return
  end
  if echo then
    chat.transcript:echo(text)
  end
  local c, err = client.current(chat.root)
  if not c then
    chat.transcript:note({ "  ! " .. err })
    return
  end
  chat.busy = true
  chat.transcript:begin()
  if chat.session_id == nil then
    progress.adopt_next(on_progress) -- the server names the session in its first notification
  end
  local params = { message = text, sessionId = chat.session_id }
  local request = {}
  local _, request_id = c.request("agent/chat", params, function(e, result)
    finish(request, e, result)
  end, chat.buf)
  request.client, request.id = c, request_id
  chat.request = request
end

--- Cancel the request in flight (the server rolls back an unfinished plan).
function M.stop()
  if valid() and chat.busy and chat.request then
    chat.request.client.cancel_request(chat.request.id)
    chat.busy, chat.request = false, nil
    chat.transcript:finish({ "  ! cancelled" })
  end
end

-- The first line of the transcript: the workspace the chat works in, and why that folder.
local function header(root, why)
  return "workspace " .. root .. " (" .. why .. ")"
end

local function create(root, why)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, "agent-ls://chat")
  vim.bo[buf].buftype = "prompt"
  vim.bo[buf].filetype = "markdown"
  vim.bo[buf].swapfile = false
  vim.b[buf].agent_ls_root = root -- commands run from the chat act on its workspace
  vim.fn.prompt_setprompt(buf, transcript.PROMPT)
  chat = { buf = buf, transcript = transcript.new(buf, header(root, why)), busy = false, root = root }
  vim.fn.prompt_setcallback(buf, function(text)
    M.send(text)
  end)
end

--- Open (or show) the chat buffer; `message` is sent at once when given.
function M.open(message)
  if not valid() then
    create(client.root_for(0))
  end
  if vim.fn.bufwinid(chat.buf) == -1 then
    local how = config.options.chat_window
    vim.cmd(how == "tab" and "tabnew" or (how == "split" and "split" or "vsplit"))
    vim.api.nvim_win_set_buf(0, chat.buf)
  end
  if message and vim.trim(message) ~= "" then
    M.send(message, true)
  end
  return chat.buf
end

-- The paths of `plan`'s files in `state`.
local function paths_in(plan, state)
  local names = {}
  for _, f in ipairs(plan.files or {}) do
    if f.state == state then
      table.insert(names, f.path)
    end
  end
  return names
end

--- Review mode: the server's answer to :AgentAccept / :AgentReject (the plan with each file's
--- state, `checkpointId`, `refused`), confirmed in the chat: what this decision applied or
--- rejected, what it could not apply, what still waits. The chat's pending plan follows it.
function M.reviewed(plan)
  if not valid() or type(plan) ~= "table" then
    return
  end
  local before = {}
  local last = chat.last_result and chat.last_result.plan
  for _, f in ipairs((type(last) == "table" and last.files) or {}) do
    before[f.path] = f.state
  end
  local function decided(state)
    local names = {}
    for _, path in ipairs(paths_in(plan, state)) do
      if before[path] ~= state then
        table.insert(names, path)
      end
    end
    return names
  end
  local lines = {}
  local applied, rejected = decided("accepted"), decided("rejected")
  if #applied > 0 then
    local as = plan.checkpointId and plan.checkpointId ~= vim.NIL and (" as " .. plan.checkpointId) or ""
    table.insert(lines, "  ✓ applied " .. table.concat(applied, ", ") .. as .. " (:AgentUndo reverts it)")
  end
  if #rejected > 0 then
    local reason = nil
    for _, f in ipairs(plan.files or {}) do
      if f.path == rejected[1] and type(f.reason) == "string" and f.reason ~= "" then
        reason = f.reason
      end
    end
    local why = reason and (": " .. reason) or ""
    table.insert(lines, "  ✗ rejected " .. table.concat(rejected, ", ") .. why .. " (the model hears it with your next message)")
  end
  for _, why in ipairs((plan.refused ~= vim.NIL and plan.refused) or {}) do
    table.insert(lines, "  ! not applied: " .. why)
  end
  local pending = paths_in(plan, "pending")
  if #pending > 0 then
    table.insert(lines, "  ⏸ still pending: " .. table.concat(pending, ", "))
  end
  if chat.last_result then
    chat.last_result.plan = plan
  end
  if #lines > 0 then
    chat.transcript:note(lines)
  end
end

--- The chat state (for tests and statuslines): buf, session_id, busy, last_result.
function M.state()
  return chat
end

return M
