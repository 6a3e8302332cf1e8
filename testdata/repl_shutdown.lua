-- Records session.shutdown in the session (repl_slash_test.go).
lunar.on("session.shutdown", function(ev, ctx)
  lunar.append_entry("bye", { session_id = ev.session_id })
end)
