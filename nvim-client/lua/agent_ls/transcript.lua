-- The chat transcript: the lines of the chat's prompt buffer.
--
--   workspace /path/to/project (why this folder)
--
--   you> Add a greeting module
--
--   agent-ls:
--   Let me look first.             <- answer text, streamed
--
--     ⚙ list_files {}              <- tool steps
--     ✓ list_files
--
--     ▶ plan: Add a greeting module <- the plan, its files, every file applied
--         greetings.py
--     ✎ create_file greetings.py
--
--     ↺ applied as 1a2b3c (:AgentUndo reverts it)
--
-- In review mode the plan's files show as "◇ staged create_file greetings.py" (nothing is
-- written), the turn ends "⏸ plan pending review, nothing written yet", and :AgentAccept /
-- :AgentReject add what they applied ("✓ applied ... as <checkpoint>") or rejected ("✗ ...").
--
--   you> |                         <- the prompt: the buffer's last line, shown at once
--
-- One blank line between two segments of a turn and before the next prompt, never more: the
-- blank lines an answer ends with are dropped when a step or the end of the turn follows.
local M = {}

M.PROMPT = "you> "
local ns = vim.api.nvim_create_namespace("agent_ls_transcript")

local Transcript = {}
Transcript.__index = Transcript

local function blank(line)
  return line ~= nil and vim.trim(line) == ""
end

--- A transcript in prompt buffer `buf`, its first line `header`; the prompt is shown.
function M.new(buf, header)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { header, "", M.PROMPT })
  return setmetatable({ buf = buf, kind = nil, mark = nil }, Transcript)
end

-- 0-based row of the prompt line (the buffer's last).
function Transcript:prompt_row()
  return vim.api.nvim_buf_line_count(self.buf) - 1
end

function Transcript:line(row)
  return vim.api.nvim_buf_get_lines(self.buf, row, row + 1, false)[1]
end

-- Lines go above the prompt line.
function Transcript:put(lines)
  local row = self:prompt_row()
  vim.api.nvim_buf_set_lines(self.buf, row, row, false, lines)
end

--- Show the prompt on the last line unless the user is typing there (Neovim shows a prompt
--- buffer's prompt only once Insert mode starts).
function Transcript:show_prompt()
  local row = self:prompt_row()
  if self:line(row) == "" then
    vim.api.nvim_buf_set_lines(self.buf, row, row + 1, false, { M.PROMPT })
  end
end

-- 0-based row of the open turn's "agent-ls:" line (an extmark: it moves with edits above it).
function Transcript:first()
  return vim.api.nvim_buf_get_extmark_by_id(self.buf, ns, self.mark, {})[1]
end

-- Drop the blank lines at the end of the turn (never its "agent-ls:" line or above).
function Transcript:trim()
  local row = self:prompt_row()
  local first = self:first()
  local stop = row
  while stop - 1 > first and blank(self:line(stop - 1)) do
    stop = stop - 1
  end
  if stop < row then
    vim.api.nvim_buf_set_lines(self.buf, stop, row, false, {})
  end
end

-- Lines of a segment of `kind`; a new segment is one blank line away from the one before.
function Transcript:segment(kind, lines)
  if self.kind ~= kind then
    self:trim()
    if self.kind ~= "start" then
      self:put({ "" })
    end
    self.kind = kind
  end
  self:put(lines)
end

function Transcript:open()
  return self.mark ~= nil
end

--- `text` the user sent without typing it at the prompt (:AgentChat message), as if typed.
function Transcript:echo(text)
  self:put({ M.PROMPT .. text })
end

--- A turn starts: its answer goes under "agent-ls:".
function Transcript:begin()
  self:put({ "", "agent-ls:" })
  self.mark = vim.api.nvim_buf_set_extmark(self.buf, ns, self:prompt_row() - 1, 0, {})
  self.kind = "start"
end

--- Streamed answer text: a delta continues the last line; its newlines start new lines.
function Transcript:text(delta)
  if not self:open() then
    return
  end
  if self.kind ~= "text" then
    delta = delta:gsub("^%s*\n", "") -- a segment starts with its first non-blank line
    if delta == "" then
      return
    end
    self:segment("text", { "" })
  end
  local row = self:prompt_row() - 1
  local pieces = vim.split(self:line(row) .. delta, "\n", { plain = true })
  vim.api.nvim_buf_set_lines(self.buf, row, row + 1, false, pieces)
end

--- A step of the turn: kind "tool" (calls, results), "plan" (the plan, files applied) or
--- "note" (errors, the outcome); steps of one kind stay together. Outside a turn (a step
--- of a request :AgentStop ended) nothing is shown.
function Transcript:step(kind, lines)
  if self:open() then
    self:segment(kind, lines)
  end
end

--- The turn ends, with `lines` (the outcome) if given; the prompt is shown again.
function Transcript:finish(lines)
  if self:open() then
    if lines and #lines > 0 then
      self:segment("note", lines)
    end
    self:trim()
    self:put({ "" })
    vim.api.nvim_buf_del_extmark(self.buf, ns, self.mark)
    self.mark, self.kind = nil, nil
  end
  self:show_prompt()
end

--- A message outside a turn (the request could not be sent), a blank line before the prompt.
function Transcript:note(lines)
  local with_blank = vim.list_extend(vim.deepcopy(lines), { "" })
  self:put(with_blank)
  self:show_prompt()
end

return M
