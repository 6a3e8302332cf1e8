-- Chaining test, the project hook: transform events see the earlier hooks'
-- results; notification events run every handler; a cancel event stops at
-- the first hook that cancels.
local rec = require("testlog").new("project")
local temperature = 0.2
local block = true

lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. "[project]" }
end)

lunar.on("agent.start", function()
  rec("agent.start")
end)

lunar.on("chat.params", function(ev)
  rec("params", ev.params)
  return { params = { temperature = temperature } }
end)

lunar.on("tool.execute.before", function(ev)
  rec("before", ev.tool_name)
  if block then
    return { block = true, reason = "blocked by the project hook" }
  end
end)
