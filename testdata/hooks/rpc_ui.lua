-- ctx.ui in --mode rpc (e2e_rpc_test.go): /dialogs asks the client
-- through every dialog and sends what it answered to the model.
lunar.command("dialogs", {
  description = "asks through every dialog",
  handler = function(args, ctx)
    local choice = ctx.ui.select("Pick one", { "red", "green" })
    local yes = ctx.ui.confirm("Sure?", "It matters")
    local typed = ctx.ui.input("Your name", "a name")
    local dismissed = ctx.ui.input("Dismissed")
    local edited = ctx.ui.editor("Edit the plan", "line one")
    ctx.ui.notify("heads up", "warning")
    ctx.ui.set_editor_text("prefilled")
    return string.format("has_ui=%s choice=%s yes=%s typed=%s dismissed=%s edited=%s editor=%s",
      tostring(ctx.has_ui), tostring(choice), tostring(yes), tostring(typed), tostring(dismissed), tostring(edited), ctx.ui.get_editor_text())
  end,
})

lunar.command("probe", {
  description = "notifies whether the agent is idle, and asks for a follow-up",
  handler = function(args, ctx)
    ctx.ui.notify("probe: idle=" .. tostring(ctx.is_idle()))
    return "from the probe"
  end,
})

lunar.command("quiet", {
  description = "does nothing",
  handler = function() end,
})

lunar.command("failing", {
  description = "fails",
  handler = function() error("on purpose") end,
})

-- The source of a prompt: "which source?" is answered with it.
lunar.on("chat.message", function(ev)
  if ev.text == "which source?" then
    return { text = "source=" .. ev.source }
  end
end)

-- A new session needs the client's confirmation.
lunar.on("session.before_clear", function(ev, ctx)
  if not ctx.ui.confirm("Start a new session?") then
    return { cancel = true }
  end
end)

-- /settings LEVEL sets the thinking level and names the session: the
-- runtime tells the client (thinking_level_changed, session_info_changed).
lunar.command("settings", {
  description = "sets the thinking level and names the session",
  handler = function(args, ctx)
    local ok, err = ctx.set_thinking_level(args)
    if not ok then error(err) end
    ok, err = ctx.session.set_name("named by /settings " .. args)
    if not ok then error(err) end
  end,
})
