-- /tool-off NAME and /tool-on NAME: the tool registry from a command.
lunar.command("tool-off", {
  description = "stop offering a tool to the model",
  handler = function(args, ctx)
    local ok, err = lunar.disable_tool(args)
    ctx.ui.notify(ok and (args .. " disabled") or err, ok and "info" or "warning")
  end,
})

lunar.command("tool-on", {
  description = "offer a tool to the model again",
  handler = function(args, ctx)
    local ok, err = lunar.enable_tool(args)
    ctx.ui.notify(ok and (args .. " enabled") or err, ok and "info" or "warning")
  end,
})
