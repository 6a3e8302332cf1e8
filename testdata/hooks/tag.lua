-- Appends [tag] to the system prompt.
lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. "[tag]" }
end)
