-- A permission gate that takes its time before asking (repl_slash_test.go:
-- keys typed before the question must not answer it).
lunar.on("tool.execute.before", function(ev, ctx)
  if ev.tool_name ~= "bash" then
    return
  end
  ctx.ui.notify("thinking it over", "info")
  require("time").sleep_ms(2500)
  if not ctx.ui.confirm("Allow?", ev.input.command) then
    return { block = true, reason = "refused: " .. ev.input.command }
  end
end)
