-- ctx.ui in one-shot mode: a permission gate that asks (and so denies),
-- notifications on stderr, dialogs that answer nil.
local rec = require("testlog").new("ui")

lunar.on("tool.execute.before", function(ev, ctx)
  if ev.tool_name ~= "bash" then
    return
  end
  local yes = ctx.ui.confirm("Run this command?", ev.input.command)
  rec("gate", {
    confirm = yes,
    has_ui = ctx.has_ui,
    select = ctx.ui.select("Pick one", { "a", "b" }) or "nil",
    input = ctx.ui.input("Name?", "placeholder") or "nil",
    editor = ctx.ui.get_editor_text(),
  })
  if not yes then
    ctx.ui.notify("denied: " .. ev.input.command, "warning")
    return { block = true, reason = "The user refused: " .. ev.input.command }
  end
end)
