-- agent/chatProgress notifications, routed to the chat that owns their sessionId.
local M = {}
local listeners = {} -- sessionId -> function(params)

function M.listen(session_id, fn)
  listeners[session_id] = fn
end

function M.handlers()
  return {
    ["agent/chatProgress"] = function(_, params)
      local fn = params and listeners[params.sessionId]
      if fn then
        fn(params)
      end
    end,
  }
end

return M
