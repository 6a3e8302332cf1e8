-- Session control from a hook: a name, a new session with its parent
-- recorded and a prompt for it (pi's handoff), and session.start reasons.
lunar.on("session.start", function(ev)
  lunar.log("info", "session.start reason=" .. ev.reason)
end)

lunar.command("handoff", {
  description = "name this session, then continue in a new one",
  handler = function(args, ctx)
    assert(ctx.session.set_name("before the handoff"))
    assert(ctx.session.name() == "before the handoff")
    local ok, err = ctx.new_session({ parent = true, prompt = "Continue: " .. args })
    if not ok then error(err) end
  end,
})
