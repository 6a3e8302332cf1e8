-- A hook command that asks for confirmation through ctx.ui (REPL tests).
lunar.command("greet", {
  description = "ask, then send a greeting",
  handler = function(args, ctx)
    if ctx.ui.confirm("Greet", "send a greeting?") then
      ctx.ui.notify("confirmed", "info")
      return "hello from the hook"
    end
    ctx.ui.notify("declined", "warning")
  end,
})
