-- Asks before every bash call through the dialog the command names
-- ("echo confirm", "echo select", "echo input"): the REPL's Ctrl+C tests.
lunar.on("tool.execute.before", function(ev, ctx)
  if ev.tool_name ~= "bash" then
    return
  end
  local kind = ev.input.command:match("^echo (%a+)")
  local ok
  if kind == "confirm" then
    ok = ctx.ui.confirm("Run it?", ev.input.command)
  elseif kind == "select" then
    ok = ctx.ui.select("Run it?", { "yes", "no" }) == "yes"
  else
    ok = ctx.ui.input("Type yes to run it", "yes") == "yes"
  end
  if not ok then
    return { block = true, reason = "The user refused: " .. ev.input.command }
  end
end)
