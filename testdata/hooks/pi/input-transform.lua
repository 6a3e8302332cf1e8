-- Port of pi's examples/extensions/input-transform.ts, with pi's result
-- shapes (lunar accepts them under pi's event name "input"):
--   ?quick What is Lua?  → "Respond briefly in 1-2 sentences: What is Lua?"
--   ping                 → "pong" (no model call)
--   time                 → the current time (no model call)
lunar.on("input", function(event, ctx)
  -- Source-based logic: skip processing for hook-sent messages (lunar.send)
  if event.source == "extension" then
    return { action = "continue" }
  end

  -- Transform: ?quick prefix for brief responses
  if event.text:sub(1, 7) == "?quick " then
    local query = event.text:sub(8):match("^%s*(.-)%s*$")
    if query == "" then
      ctx.ui.notify("Usage: ?quick <question>", "warning")
      return { action = "handled" }
    end
    return { action = "transform", text = "Respond briefly in 1-2 sentences: " .. query }
  end

  -- Handle: instant responses without the model (the hook shows its own feedback)
  if event.text:lower() == "ping" then
    ctx.ui.notify("pong", "info")
    return { action = "handled" }
  end
  if event.text:lower() == "time" then
    ctx.ui.notify(os.date("%c"), "info")
    return { action = "handled" }
  end

  return { action = "continue" }
end)

-- Not in pi's example: /ping-model sends "ping" the way a hook does, which
-- this hook lets through (source "extension") to the model.
lunar.command("ping-model", {
  description = "send ping to the model (as a hook)",
  handler = function() lunar.send("ping") end,
})
