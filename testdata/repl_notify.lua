-- Notifications while a reply runs (repl_slash_test.go), and a command
-- whose returned text is sent as the prompt.
local turns = 0
lunar.on("turn.end", function(ev, ctx)
  turns = turns + 1
  ctx.ui.notify("turn " .. turns .. " ended", "info")
end)

lunar.command("hello", {
  description = "send a greeting as the prompt",
  handler = function(args)
    return "hello, " .. args
  end,
})
