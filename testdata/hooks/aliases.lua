-- pi's event names: each handler records the event type it received.
local rec = require("testlog").new("aliases")

for _, name in ipairs({
  "session_start", "input", "before_agent_start", "agent_start", "turn_start", "context",
  "tool_call", "tool_result", "turn_end", "agent_end", "session_shutdown", "chat.messages.transform",
}) do
  lunar.on(name, function(ev)
    rec(name, ev.type)
  end)
end
