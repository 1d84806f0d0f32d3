-- :AgentChat — a chat buffer (a prompt buffer: type after "you> " and press <CR>) that streams
-- the answer, shows each tool call, the plan and every file applied, and keeps the session.
local client = require("agent_ls.client")
local config = require("agent_ls.config")
local progress = require("agent_ls.progress")

local M = {}
local chat = nil -- { buf, session_id, root, busy, last_result }

local function valid()
  return chat ~= nil and vim.api.nvim_buf_is_valid(chat.buf)
end

-- Lines go above the prompt line (the buffer's last line).
local function append(lines)
  local count = vim.api.nvim_buf_line_count(chat.buf)
  vim.api.nvim_buf_set_lines(chat.buf, count - 1, count - 1, false, lines)
end

-- A streamed delta continues the last answer line; its newlines start new ones.
local function stream(text)
  local count = vim.api.nvim_buf_line_count(chat.buf)
  local last = count - 2
  local current = vim.api.nvim_buf_get_lines(chat.buf, last, last + 1, false)[1] or ""
  local pieces = vim.split(current .. text, "\n", { plain = true })
  vim.api.nvim_buf_set_lines(chat.buf, last, last + 1, false, pieces)
end

local function json(value)
  local ok, text = pcall(vim.fn.json_encode, value)
  return ok and text or tostring(value)
end

local function on_progress(params)
  if not valid() then
    return
  end
  local data = params.data or {}
  local kind = params.kind
  if kind == "text" then
    stream(params.delta or "")
  elseif kind == "tool_call" then
    append({ "  ⚙ " .. tostring(data.name) .. " " .. json(data.args or {}), "" })
  elseif kind == "tool_result" then
    append({ "  " .. (data.ok and "✓ " or "✗ ") .. tostring(data.name), "" })
  elseif kind == "plan" then
    append({ "  ▶ plan: " .. tostring(data.description or ""), "" })
    for _, path in ipairs(data.files or {}) do
      append({ "      " .. path, "" })
    end
  elseif kind == "file_applied" then
    append({ "  ✎ " .. tostring(data.action) .. " " .. tostring(data.path), "" })
  elseif kind == "error" then
    append({ "  ! " .. tostring(data.message), "" })
  end
end

local function finish(err, result)
  chat.busy = false
  if not valid() then
    return
  end
  if err then
    append({ "", "  ! " .. (err.message or tostring(err)), "" })
  else
    chat.last_result = result
    chat.session_id = result and result.sessionId or chat.session_id
    local plan = result and result.plan
    if plan and plan ~= vim.NIL and plan.state == "pending" then
      append({ "", "  ⏸ plan pending review: :AgentAccept / :AgentReject [reason]" })
    elseif result and result.checkpointId and result.checkpointId ~= vim.NIL then
      append({ "", "  ↺ applied as " .. result.checkpointId .. " (:AgentUndo reverts it)" })
    end
  end
  append({ "" })
  -- Files the plan wrote on disk: reload unmodified buffers showing them.
  vim.cmd("silent! checktime")
end

--- Send `text` in the chat's session; the answer streams into the chat buffer.
function M.send(text)
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
  local c, err = client.current(chat.root)
  if not c then
    append({ "  ! " .. err, "" })
    return
  end
  chat.busy = true
  append({ "", "agent-ls:", "" })
  if chat.session_id == nil then
    progress.adopt_next(on_progress) -- the server names the session in its first notification
  end
  local params = { message = text, sessionId = chat.session_id }
  local _, request_id = c.request("agent/chat", params, finish, chat.buf)
  chat.request = { client = c, id = request_id }
end

--- Cancel the request in flight (the server rolls back an unfinished plan).
function M.stop()
  if valid() and chat.busy and chat.request then
    chat.request.client.cancel_request(chat.request.id)
    chat.busy = false
    append({ "  ! cancelled", "" })
  end
end

--- Open (or show) the chat buffer; `message` is sent at once when given.
function M.open(message)
  local root = valid() and chat.root or client.root_for(0)
  if not valid() then
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, "agent-ls://chat")
    vim.bo[buf].buftype = "prompt"
    vim.bo[buf].filetype = "markdown"
    vim.bo[buf].swapfile = false
    vim.fn.prompt_setprompt(buf, "you> ")
    chat = { buf = buf, session_id = nil, busy = false, root = root }
    vim.fn.prompt_setcallback(buf, function(text)
      M.send(text)
    end)
  end
  if vim.fn.bufwinid(chat.buf) == -1 then
    local how = config.options.chat_window
    vim.cmd(how == "tab" and "tabnew" or (how == "split" and "split" or "vsplit"))
    vim.api.nvim_win_set_buf(0, chat.buf)
  end
  if message and vim.trim(message) ~= "" then
    M.send(message)
  end
  return chat.buf
end

--- The chat state (for tests and statuslines): buf, session_id, busy, last_result.
function M.state()
  return chat
end

return M
