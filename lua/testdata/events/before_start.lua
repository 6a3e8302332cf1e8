lunar.on("agent.before_start", function(ev)
  return {
    message = { custom_type = "memory", content = "remembered: " .. ev.prompt, display = false, details = { n = #ev.images } },
    system_prompt = ev.system_prompt .. " +A",
  }
end)
lunar.on("before_agent_start", function(ev)
  return { system_prompt = ev.system_prompt .. " +B", message = { custom_type = "note", content = { { type = "text", text = "hi" } } } }
end)
