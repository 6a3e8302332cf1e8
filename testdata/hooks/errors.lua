-- Fails on every event, in its tool and in its renderer; lunar keeps going.
local names = {
  "app.start", "session.start", "session.resume",
  "session.before_clear", "session.clear", "session.before_switch", "session.switch",
  "session.before_branch", "session.branch", "session.before_fork", "session.fork",
  "session.before_compact", "session.compact", "session.shutdown",
  "chat.message", "agent.before_start", "agent.start", "agent.end", "turn.start", "turn.end",
  "context", "chat.system.transform", "chat.params", "model.resolve", "auth.get",
  "tool.execute.before", "tool.execute.after", "model.change",
}

for _, name in ipairs(names) do
  lunar.on(name, function()
    error("boom in " .. name)
  end)
end

lunar.tool({
  name = "broken",
  description = "fails",
  parameters = { type = "object", properties = {} },
  execute = function()
    error("tool boom")
  end,
})
