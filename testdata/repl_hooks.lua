-- Hooks for the REPL tests: a permission gate on bash, a command that
-- sends a prompt (lunar.send), one that appends a displayed custom message
-- and has it answered (send_message with trigger_turn, shown through its
-- renderer), and one that aborts its own step (ctx.abort).
lunar.on("tool.execute.before", function(ev, ctx)
  if ev.tool_name ~= "bash" then
    return
  end
  if not ctx.ui.confirm("Run this command?", ev.input.command) then
    return { block = true, reason = "The user refused: " .. ev.input.command }
  end
end)

lunar.command("ask", {
  description = "ask the model through lunar.send",
  handler = function(args)
    assert(lunar.send("question from the hook: " .. args))
  end,
})

lunar.command("nudge", {
  description = "append a note and have it answered",
  handler = function(args)
    assert(lunar.send_message({ custom_type = "nudge", content = "nudge: " .. args, display = true }, { trigger_turn = true }))
  end,
})

lunar.renderer("nudge", function(message)
  local text = message.content
  if type(text) == "table" then
    text = text[1].text
  end
  return "NUDGE> " .. text
end)

lunar.command("stop", {
  description = "abort this command before its prompt goes out",
  handler = function(args, ctx)
    ctx.abort()
    return "never sent"
  end,
})
