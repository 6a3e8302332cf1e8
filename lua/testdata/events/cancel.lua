-- Cancels what it is asked to; the test checks that later hooks do not run.
lunar.on("session.before_clear", function(ev)
  return { cancel = true, reason = "unsaved work in " .. ev.session_id }
end)
lunar.on("session.before_switch", function(ev)
  if ev.target_session_file:find("locked") then
    return { cancel = true, reason = "locked" }
  end
end)
lunar.on("session.before_fork", function(ev)
  return { cancel = ev.entry_id == "deadbeef" }
end)
lunar.on("session.before_branch", function(ev)
  if ev.target_id == "00000000" then
    return { cancel = true }
  end
  return { summary = "summary of " .. ev.from_id .. " -> " .. ev.target_id }
end)
