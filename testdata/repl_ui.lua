-- ctx.ui and session events in the REPL (repl_slash_test.go): numbered
-- select, input with a placeholder, coloured notifications, the editor
-- prefill, a /clear guard and a model.change listener.
local locked = false

lunar.command("colour", {
  description = "pick a colour",
  handler = function(args, ctx)
    local c = ctx.ui.select("Pick a colour", { "red", "green", "blue" })
    if c == nil then
      ctx.ui.notify("no colour", "warning")
      return
    end
    ctx.ui.notify("picked " .. c, "info")
  end,
})

lunar.command("whoami", {
  description = "ask for a name",
  handler = function(args, ctx)
    local name = ctx.ui.input("Your name", "e.g. Ada")
    if name == nil then
      ctx.ui.notify("input cancelled", "warning")
    elseif name == "" then
      ctx.ui.notify("empty name", "error")
    else
      ctx.ui.notify("hello " .. name, "success")
    end
  end,
})

lunar.command("draft", {
  description = "prefill the next prompt",
  handler = function(args, ctx)
    ctx.ui.set_editor_text("draft: " .. args)
    ctx.ui.notify("editor holds [" .. ctx.ui.get_editor_text() .. "]", "info")
  end,
})

lunar.command("lock", {
  description = "toggle the /clear guard",
  handler = function(args, ctx)
    locked = not locked
    ctx.ui.notify("locked=" .. tostring(locked), "info")
  end,
})

lunar.on("session.before_clear", function(ev, ctx)
  if locked then
    return { cancel = true, reason = "the session is locked" }
  end
end)

lunar.on("session.clear", function(ev, ctx)
  ctx.ui.notify("cleared into " .. ev.session_id, "info")
end)

lunar.on("model.change", function(ev, ctx)
  ctx.ui.notify("model event " .. ev.previous_model_id .. " -> " .. ev.new_model_id, "info")
end)
