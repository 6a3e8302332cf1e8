-- tool.execute.before blocks writes and rewrites one bash command;
-- tool.execute.after sees every result, errors included, and replaces the
-- result of a failed read.
local rec = require("testlog").new("tools")

lunar.on("tool.execute.before", function(ev)
  rec("before", { tool_name = ev.tool_name, input = ev.input })
  if ev.tool_name == "write" then
    return { block = true, reason = "writes are not allowed here" }
  end
  if ev.tool_name == "bash" and ev.input.command == "echo original" then
    return { input = { command = "echo replaced" } }
  end
end)

lunar.on("tool.execute.after", function(ev)
  rec("after", { tool_name = ev.tool_name, is_error = ev.is_error, text = ev.content[1] and ev.content[1].text })
  if ev.tool_name == "read" and ev.is_error then
    return { content = "hook saw: " .. ev.content[1].text, details = { seen = true } }
  end
end)
