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

lunar.command("sendwait", {
  description = "queue a prompt and a triggered note, then work until stopped",
  handler = function(args, ctx)
    assert(lunar.send("queued before the wait"))
    assert(lunar.send_message({ custom_type = "note", content = "kept note", display = false }, { trigger_turn = true }))
    ctx.ui.notify("waiting", "info")
    for _ = 1, 600 do
      require("time").sleep_ms(100)
    end
  end,
})

lunar.command("memo", {
  description = "append a displayed note without a turn",
  handler = function(args)
    assert(lunar.send_message({ custom_type = "memo", content = "memo: " .. args, display = true }))
  end,
})

lunar.renderer("memo", function(message)
  local text = message.content
  if type(text) == "table" then
    text = text[1].text
  end
  return "MEMO> " .. text
end)
