-- The model's shell commands (run_command): the server's consent request and the output the
-- command streams.
--
-- Consent: agent-ls asks with a plain window/showMessageRequest (Warning) whose message starts
-- with PREFIX, actions exactly Run / Always allow / Deny. This handler shows it with
-- vim.ui.select, so a picker (telescope, fzf-lua, snacks, dressing) takes over; no choice
-- (Escape) is Deny. Neovim 0.10+ runs server requests in a coroutine: the request waits while
-- the picker is open. Neovim 0.7-0.9 want the answer at once: vim.ui.select is asked, and when
-- it does not answer synchronously (an asynchronous picker) the floating windows it opened
-- are closed and inputlist() asks instead (the picker's late answer is ignored). Any other
-- message request keeps Neovim's own handler.
local M = {}

M.PREFIX = "agent-ls: the model wants to run a command in "
M.TITLES = { "Run", "Always allow", "Deny" }
M.METHOD = "window/showMessageRequest"

local LABELS = {
  ["Run"] = "Run",
  ["Always allow"] = "Always allow (this exact line, for the rest of the session)",
  ["Deny"] = "Deny",
}

--- The command consent in a showMessageRequest's params ({ command, folder }), or nil.
function M.parse(params)
  local actions = params and params.actions
  if type(actions) ~= "table" or #actions ~= #M.TITLES or params.type ~= 2 then
    return nil
  end
  for i, title in ipairs(M.TITLES) do
    if type(actions[i]) ~= "table" or actions[i].title ~= title then
      return nil
    end
  end
  local message = params.message
  if type(message) ~= "string" or message:sub(1, #M.PREFIX) ~= M.PREFIX then
    return nil
  end
  local rest = message:sub(#M.PREFIX + 1)
  local cut = rest:find(":\n\n", 1, true)
  if not cut then
    return nil
  end
  return { folder = rest:sub(1, cut - 1), command = rest:sub(cut + 3) }
end

--- The one-line question the picker shows (a multi-line command's newlines as ⏎).
function M.prompt(consent)
  local line = vim.trim(consent.command):gsub("\r?\n", " ⏎ ")
  return "agent-ls: run  " .. line .. "  in " .. consent.folder .. "?"
end

local function options(consent)
  return {
    prompt = M.prompt(consent),
    kind = "agent_ls_command",
    format_item = function(action)
      return LABELS[action.title] or action.title
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

--- The window/showMessageRequest handler: the consent through vim.ui.select, others as usual.
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
