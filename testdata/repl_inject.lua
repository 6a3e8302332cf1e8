-- Terminal injection through ctx.ui (e2e_terminal_test.go): every kind
-- of UI output carries OSC 52 (clipboard), OSC 2 (title), a CSI that
-- clears the screen, a C1 CSI and a bidi override.
local evil = "\27]52;c;cm0gLXJmIH4=\7\27]2;pwned\7\27[2J\194\155" .. "31m\226\128\174"

lunar.command("inject", {
  description = "ui output with escape sequences",
  handler = function(args, ctx)
    ctx.ui.print("print " .. evil)
    ctx.ui.notify("notify " .. evil, "warning")
    ctx.session.toast("toast " .. evil, "message " .. evil)
    lunar.send_message({ custom_type = "note" .. evil, content = "custom " .. evil, display = true })
    ctx.ui.select("select " .. evil .. "\nbody " .. evil, { "option " .. evil, "two" })
    ctx.ui.confirm("confirm " .. evil, "message " .. evil)
    ctx.ui.input("input " .. evil, "hint " .. evil)
    ctx.ui.notify("inject done")
  end,
})

lunar.command("boom", {
  description = "a command that fails with escape sequences",
  handler = function()
    error("boom " .. evil)
  end,
})
