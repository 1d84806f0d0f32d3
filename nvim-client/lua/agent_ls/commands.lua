-- The model's shell commands (run_command): the server's consent request and the output the
-- command streams; and the other consents asked the same way: an MCP tool call, a project's
-- .mcp.json.
--
-- Consent: agent-ls asks with a plain window/showMessageRequest (Warning) whose params carry
-- `agentLs`, what is asked (server/protocol.py ConsentPrompt): a command { command, folder }
-- or an MCP tool call { server, tool, arguments } with the actions exactly Run / Always allow
-- / Deny, a .mcp.json { path, servers = { { name, runs } } } with Trust / Deny. (A server
-- older than `agentLs`: the command's message starts with PREFIX.) This handler asks a
-- one-line question with vim.ui.select, so a picker (telescope, fzf-lua, snacks, dressing)
-- takes over; no choice (Escape) is Deny. Neovim 0.10+ runs server requests in a coroutine:
-- the request waits while the picker is open. Neovim 0.7-0.9 want the answer at once:
-- vim.ui.select is asked, and when it does not answer synchronously (an asynchronous picker)
-- the floating windows it opened are closed and inputlist() asks instead (the picker's late
-- answer is ignored). Any other message request keeps Neovim's own handler.
local M = {}

M.PREFIX = "agent-ls: the model wants to run a command in "
M.TITLES = { "Run", "Always allow", "Deny" }
M.TRUST_TITLES = { "Trust", "Deny" }
M.METHOD = "window/showMessageRequest"

local LABELS = {
  command = {
    ["Always allow"] = "Always allow (this exact line, for the rest of the session)",
  },
  mcp_tool = {
    ["Always allow"] = "Always allow (this tool of this server, for the rest of the session)",
  },
  mcp_trust = {
    ["Trust"] = "Trust (start its servers; asked again when the file changes)",
  },
}

local function strings(t, ...)
  for _, key in ipairs({ ... }) do
    if type(t[key]) ~= "string" then
      return false
    end
  end
  return true
end

local function servers(list)
  if type(list) ~= "table" then
    return nil
  end
  local out = {}
  for _, s in ipairs(list) do
    if type(s) ~= "table" or not strings(s, "name", "runs") then
      return nil
    end
    table.insert(out, { name = s.name, runs = s.runs })
  end
  return out
end

-- `agentLs` checked field by field: the prompt, or nil when malformed.
local function marked(p)
  if type(p) ~= "table" then
    return nil
  end
  if p.kind == "command" and strings(p, "command", "folder") then
    return { kind = "command", command = p.command, folder = p.folder }
  elseif p.kind == "mcp_tool" and strings(p, "server", "tool", "arguments") then
    return { kind = "mcp_tool", server = p.server, tool = p.tool, arguments = p.arguments }
  elseif p.kind == "mcp_trust" and type(p.path) == "string" and servers(p.servers) then
    return { kind = "mcp_trust", path = p.path, servers = servers(p.servers) }
  end
  return nil
end

-- A server older than `agentLs`: the command consent, by the message's exact words.
local function legacy(message)
  if type(message) ~= "string" or message:sub(1, #M.PREFIX) ~= M.PREFIX then
    return nil
  end
  local rest = message:sub(#M.PREFIX + 1)
  local cut = rest:find(":\n\n", 1, true)
  if not cut then
    return nil
  end
  return { kind = "command", folder = rest:sub(1, cut - 1), command = rest:sub(cut + 3) }
end

--- The titles a prompt's actions must be, in order.
function M.titles(consent)
  return consent.kind == "mcp_trust" and M.TRUST_TITLES or M.TITLES
end

--- The consent in a showMessageRequest's params (a table with `kind`), or nil.
function M.parse(params)
  if type(params) ~= "table" or params.type ~= 2 or type(params.actions) ~= "table" then
    return nil
  end
  local consent
  if params.agentLs == nil then
    consent = legacy(params.message)
  else
    consent = marked(params.agentLs)
  end
  if not consent then
    return nil
  end
  local titles, actions = M.titles(consent), params.actions
  if #actions ~= #titles then
    return nil
  end
  for i, title in ipairs(titles) do
    if type(actions[i]) ~= "table" or actions[i].title ~= title then
      return nil
    end
  end
  return consent
end

local function one_line(text)
  return (vim.trim(text):gsub("\r?\n", " ⏎ "))
end

--- The one-line question the picker shows (newlines as ⏎).
function M.prompt(consent)
  if consent.kind == "mcp_tool" then
    return "agent-ls: call the MCP tool  "
      .. consent.tool
      .. "  of "
      .. consent.server
      .. " with "
      .. one_line(consent.arguments)
      .. "?"
  elseif consent.kind == "mcp_trust" then
    local runs = {}
    for _, s in ipairs(consent.servers) do
      table.insert(runs, s.name .. ": " .. one_line(s.runs))
    end
    return "agent-ls: trust the MCP servers of "
      .. consent.path
      .. "?  They run  "
      .. table.concat(runs, ";  ")
  end
  return "agent-ls: run  " .. one_line(consent.command) .. "  in " .. consent.folder .. "?"
end

local function options(consent)
  local labels = LABELS[consent.kind]
  return {
    prompt = M.prompt(consent),
    kind = "agent_ls_" .. consent.kind,
    format_item = function(action)
      return labels[action.title] or action.title
    end,
  }
end

-- The chat transcript notes the answer under the tool row.
local function note(choice)
  local state = require("agent_ls.chat").state()
  if state and state.transcript and vim.api.nvim_buf_is_valid(state.buf) then
    state.transcript:step("tool", { "    ⚑ " .. (choice and choice.title or "Deny") })
  end
end

-- Neovim 0.7-0.9: the answer now; vim.ui.select if it answers synchronously, else inputlist.
local function ask_now(actions, opts)
  local answered, answer, late = false, nil, false
  local before = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    before[win] = true
  end
  vim.ui.select(actions, opts, function(choice)
    if not late then
      answered, answer = true, choice
    end
  end)
  if answered then
    return answer
  end
  late = true -- an asynchronous picker opened: its answer would come after the reply, so its
  for _, win in ipairs(vim.api.nvim_list_wins()) do -- floating windows close; inputlist asks
    if not before[win] and vim.api.nvim_win_get_config(win).relative ~= "" then
      pcall(vim.api.nvim_win_close, win, true)
    end
  end
  local lines = { opts.prompt }
  for i, action in ipairs(actions) do
    table.insert(lines, string.format("%d: %s", i, opts.format_item(action)))
  end
  return actions[vim.fn.inputlist(lines)]
end

--- The window/showMessageRequest handler: a consent through vim.ui.select, others as usual.
function M.message_request(err, params, ctx, config)
  local consent = M.parse(params)
  if not consent then
    return vim.lsp.handlers[M.METHOD](err, params, ctx, config)
  end
  local actions, opts = params.actions, options(consent)
  local choice
  local co, is_main = coroutine.running()
  if co and not is_main then
    vim.ui.select(actions, opts, function(picked)
      -- resumed later: a synchronous select answers before the yield below
      vim.schedule(function()
        coroutine.resume(co, picked or false)
      end)
    end)
    choice = coroutine.yield() or nil
  else
    choice = ask_now(actions, opts)
  end
  note(choice)
  return choice or vim.NIL
end

--- Output a command streams, under its tool row: one "│ " line per line, a chunk ending
--- mid-line continued by the next. `state.output_open`: the last line shown is unfinished.
function M.output(transcript, state, text)
  if text == "" or not transcript:open() then
    return
  end
  local pieces = vim.split(text, "\n", { plain = true })
  local unfinished = pieces[#pieces] ~= ""
  if not unfinished then
    table.remove(pieces)
  end
  if state.output_open and #pieces > 0 then
    local row = transcript:prompt_row() - 1
    local line = transcript:line(row) .. table.remove(pieces, 1)
    vim.api.nvim_buf_set_lines(transcript.buf, row, row + 1, false, { line })
  end
  local lines = {}
  for _, piece in ipairs(pieces) do
    table.insert(lines, "    │ " .. piece)
  end
  if #lines > 0 then
    transcript:step("tool", lines)
  end
  state.output_open = unfinished
end

--- Answer client `id`'s message requests with `message_request` (its handlers table is the
--- one it resolves requests with, on 0.7 as on 0.11; the server asks only during a chat).
function M.attach(id)
  local c = vim.lsp.get_client_by_id(id)
  if c then
    c.handlers[M.METHOD] = M.message_request
  end
end

return M
