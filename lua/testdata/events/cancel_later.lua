-- Loaded after cancel.lua: records every call it gets.
for _, name in ipairs({ "session.before_clear", "session.before_switch", "session.before_fork", "session.before_branch" }) do
  lunar.on(name, function(ev)
    lunar.append_entry("later", { type = ev.type })
  end)
end
