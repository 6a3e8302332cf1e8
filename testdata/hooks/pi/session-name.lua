-- Port of pi's examples/extensions/session-name.ts: /session-name [name]
-- sets or shows the session's name (a session_info entry, as pi's
-- setSessionName; /resume and `lunar sessions` show it).
lunar.command("session-name", {
  description = "Set or show session name (usage: /session-name [new name])",
  handler = function(args, ctx)
    local name = args:match("^%s*(.-)%s*$")
    if name ~= "" then
      local _, err = ctx.session.set_name(name)
      if err then
        ctx.ui.notify("could not name the session: " .. err, "error")
        return
      end
      ctx.ui.notify("Session named: " .. name, "info")
    else
      local current = ctx.session.name()
      ctx.ui.notify(current and ("Session: " .. current) or "No session name set", "info")
    end
  end,
})
