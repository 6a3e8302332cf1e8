local time = require("time")
lunar.on("session.before_compact", function(ev)
  if ev.reason == "auto" then
    return { cancel = true, reason = "no auto compaction on this project" }
  end
  -- no timeout for this event: sleeping past the hook timeout is fine
  time.sleep_ms(120)
  return { instructions = ev.instructions .. " Keep file names." }
end)
