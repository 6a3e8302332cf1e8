-- Port of pi's examples/extensions/system-prompt-header.ts (pi shows the
-- size in its status bar; lunar prints a line), with a /system-prompt
-- command that prints the whole prompt the next call sends, and pi's
-- send-user-message.ts commands: /ask (content parts), /steer (into a
-- running reply when there is one) and /followup.
lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. "\n\nAlways answer in English." }
end)

lunar.on("agent_start", function(_, ctx)
  local prompt = ctx.get_system_prompt()
  ctx.ui.print("System: " .. require("utf8").len(prompt) .. " chars")
end)

lunar.command("system-prompt", {
  description = "print the system prompt the next model call sends",
  handler = function(_, ctx) ctx.ui.print(ctx.get_system_prompt()) end,
})

lunar.command("ask", {
  description = "Send a user message with structured content",
  handler = function(args, ctx)
    if args == "" then return ctx.ui.notify("Usage: /ask <message>", "warning") end
    lunar.send({ { type = "text", text = "User request: " .. args }, { type = "text", text = "Please respond concisely." } })
  end,
})

lunar.command("followup", {
  description = "Queue a follow-up message (or run a command, /name …)",
  -- A /name line runs as typed only when asked (pi's sendUserMessage never does).
  handler = function(args) lunar.send(args, { command = args:sub(1, 1) == "/" }) end,
})

-- pi's /steer runs while pi streams; lunar's REPL takes no commands then,
-- so the steering here comes from a tool result: the model's first bash
-- call gets a note into the running turn.
local steered = false
lunar.on("tool_result", function(ev, ctx)
  if ev.tool_name == "bash" and not steered and not ctx.is_idle() then
    steered = true
    lunar.send("Steer: also mention the exit code.", { deliver = "steer" })
  end
end)
