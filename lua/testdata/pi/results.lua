-- pi's result shapes under pi's event names.
lunar.on("tool_result", function(ev)
  return { content = { { type = "text", text = "pi says no" } }, isError = true }
end)
lunar.on("before_agent_start", function(ev)
  return { systemPrompt = ev.system_prompt .. " +pi",
           message = { customType = "pi-note", content = "from pi", display = false } }
end)
lunar.on("session_before_compact", function(ev)
  return { compaction = { summary = "pi summary", details = { by = "pi" }, firstKeptEntryId = "x", tokensBefore = 1 } }
end)
lunar.on("session_before_tree", function(ev)
  return { summary = { summary = "pi branch summary" } }
end)
