lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. "\n\nAlways answer in French." }
end)
