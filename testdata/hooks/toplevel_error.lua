-- Registers a handler, then fails at load: nothing it registered stays.
lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. "[toplevel_error should not load]" }
end)
error("failed while loading")
