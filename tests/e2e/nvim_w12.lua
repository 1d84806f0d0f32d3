-- The init file (nvim -u) of the W12 tests' Neovim, which runs in a real terminal (tmux) and is
-- driven by keystrokes as a user's: the plugin against the fake LLM (nvim_setup.lua), review
-- mode when REVIEW is set, 'noautoread' when AUTOREAD is "0", OPEN_FILE opened (unless
-- OPEN_AT_START is "0": the test opens it later). What a user would look at besides the
-- screen: the plugin's notifications, appended to NOTES_FILE, and :BufCheck, which writes the
-- file's buffer (text, &modified), the disk and :messages to RESULT_FILE (whole, by a rename).
local env = vim.env
local setup = dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "nvim_setup.lua")
if env.REVIEW then
  require("agent_ls.config").options.init_options.agentLs.review = env.REVIEW
end
if env.AUTOREAD == "0" then
  vim.o.autoread = false
end

local record = vim.notify
vim.notify = function(msg, ...)
  record(msg, ...)
  local notes = io.open(env.NOTES_FILE, "a")
  notes:write(msg .. "\n")
  notes:close()
end

local function read(path)
  local file = io.open(path, "rb")
  if not file then
    return vim.NIL
  end
  local text = file:read("*a")
  file:close()
  return text
end

vim.api.nvim_create_user_command("BufCheck", function()
  local buf = vim.fn.bufnr(env.OPEN_FILE)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local seen = {
    buffer = table.concat(lines, "\n") .. (vim.bo[buf].eol and "\n" or ""),
    modified = vim.bo[buf].modified,
    disk = read(env.OPEN_FILE),
    messages = vim.fn.execute("messages"),
    notes = setup.out.notes,
  }
  local partial = env.RESULT_FILE .. ".part"
  local file = io.open(partial, "w")
  file:write(vim.fn.json_encode(seen))
  file:close()
  os.rename(partial, env.RESULT_FILE)
end, {})

if env.OPEN_AT_START ~= "0" then
  vim.cmd("edit " .. vim.fn.fnameescape(env.OPEN_FILE))
end
