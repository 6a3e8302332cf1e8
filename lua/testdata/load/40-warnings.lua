lunar.on("tool.exeute.before", function() end)
lunar.command("model", { handler = function() end })
lunar.command("hello", { handler = function() end })
lunar.tool({ name = "bad tool", description = "x", execute = function() end })
lunar.tool({ name = "arr", description = "x", parameters = { type = "array" }, execute = function() end })
lunar.tool({ name = "broken", description = "x", parameters = { type = "object", properties = { n = { type = "nope" } } }, execute = function() end })
lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. " (warned)" }
end)
