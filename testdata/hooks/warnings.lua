-- Load warnings: an unknown event name, a shadowed built-in command, a bad
-- tool schema. The rest of the hook works.
lunar.on("tool.execute.befor", function() end)
lunar.command("model", { description = "shadows /model", handler = function() end })
lunar.tool({
  name = "bad_schema",
  description = "its schema is not a schema",
  parameters = { type = "object", properties = { x = { type = "no-such-type" } } },
  execute = function() return "" end,
})
lunar.command("hello", { description = "says hello", handler = function() return "hello" end })
lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. "[warnings]" }
end)
