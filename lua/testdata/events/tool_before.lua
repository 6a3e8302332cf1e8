lunar.on("tool.execute.before", function(ev)
  if ev.tool_name == "bash" and ev.input.command:find("rm -rf", 1, true) then
    return { block = true, reason = "refusing: " .. ev.input.command }
  end
  if ev.tool_name == "read" then
    ev.input.path = "/sandbox/" .. ev.input.path
    return { input = ev.input }
  end
end)
-- pi's name; sees the rewritten input of the handler above
lunar.on("tool_call", function(ev)
  if ev.tool_name == "read" then
    return { input = { path = ev.input.path, limit = 10 } }
  end
end)
