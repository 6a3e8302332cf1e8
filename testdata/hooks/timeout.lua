-- Handlers that never return: each is stopped at hook_timeout_ms and the
-- hook keeps working for later calls.
local rec = require("testlog").new("timeout")
local calls = 0

lunar.on("chat.system.transform", function(ev)
  calls = calls + 1
  if calls == 1 then
    while true do end
  end
  rec("system", calls)
  return { system_prompt = ev.system_prompt .. "[after the timeout]" }
end)

-- A failing tool.execute.before blocks the tool.
lunar.on("tool.execute.before", function(ev)
  if ev.tool_name == "bash" then
    while true do end
  end
end)

lunar.tool({
  name = "spin",
  description = "never returns",
  parameters = { type = "object", properties = {} },
  execute = function()
    while true do end
  end,
})

lunar.on("agent.end", function()
  rec("agent.end", calls)
end)
