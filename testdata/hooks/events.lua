-- Records every event of the catalogue, with its whole payload, under its
-- canonical name (the Go test checks the sequence and the payloads).
local rec = require("testlog").new("events")

local names = {
  "app.start", "session.start", "session.resume",
  "session.before_clear", "session.clear", "session.before_switch", "session.switch",
  "session.before_branch", "session.branch", "session.before_fork", "session.fork",
  "session.before_compact", "session.compact", "session.shutdown",
  "chat.message", "agent.before_start", "agent.start", "agent.end", "turn.start", "turn.end",
  "context", "chat.system.transform", "chat.params", "model.resolve", "auth.get",
  "tool.execute.before", "tool.execute.after", "model.change",
  "provider.request", "provider.response",
}

for _, name in ipairs(names) do
  lunar.on(name, function(ev, ctx)
    assert(ev.type == name, "ev.type is " .. tostring(ev.type) .. ", not " .. name)
    rec(name, ev)
  end)
end
