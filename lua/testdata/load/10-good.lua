lunar.command("hello", { description = "says hello", handler = function() return "hello" end })
lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. " (good)" }
end)
