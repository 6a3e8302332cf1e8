-- Chaining test, the global hook: transform events see the earlier hooks'
-- results; notification events run every handler; a cancel event stops at
-- the first hook that cancels.
local rec = require("testlog").new("global")
local temperature = 0.1
local block = false

lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. "[global]" }
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
    return { block = true, reason = "blocked by the global hook" }
  end
end)
