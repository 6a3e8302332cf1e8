-- Test hook: prints where each input came from (chat.message's source).
lunar.on("chat.message", function(ev, ctx)
  ctx.ui.print("source=" .. ev.source .. " text=" .. ev.text)
end)
lunar.command("send-it", { description = "lunar.send the arguments", handler = function(args) lunar.send(args) end })
