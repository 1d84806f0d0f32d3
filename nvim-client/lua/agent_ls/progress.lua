-- agent/chatProgress notifications, routed to the chat that owns their sessionId.
local M = {}
local listeners = {} -- sessionId -> function(params)
local waiting = nil -- a chat whose first request has no sessionId yet (the server makes one)

function M.listen(session_id, fn)
  listeners[session_id] = fn
end

--- The next notification of an unknown session belongs to `fn` (one new chat at a time).
function M.adopt_next(fn)
  waiting = fn
end

function M.handlers()
  return {
    ["agent/chatProgress"] = function(_, params)
      local fn = params and listeners[params.sessionId]
      if not fn and params and waiting then
        fn, waiting = waiting, nil
        listeners[params.sessionId] = fn
      end
      if fn then
        fn(params)
      end
    end,
  }
end

return M
