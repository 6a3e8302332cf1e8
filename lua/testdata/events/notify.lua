-- Records the payload of every notification event as a custom entry
-- "seen" (the test reads them back from the fake session).
local names = {
  "app.start", "session.start", "session.resume", "session.clear", "session.switch",
  "session.branch", "session.fork", "session.compact", "session.shutdown",
  "agent.start", "agent.end", "turn.start", "turn.end", "model.change",
}
for _, name in ipairs(names) do
  lunar.on(name, function(ev)
    lunar.append_entry("seen", ev)
  end)
end
