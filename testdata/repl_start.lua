-- A hook that sends a prompt as the REPL starts (repl_slash_test.go).
lunar.on("session.start", function(ev, ctx)
  assert(lunar.send("prompt from session.start"))
end)
