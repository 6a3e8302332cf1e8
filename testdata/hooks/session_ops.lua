-- The session operations of the REPL (/clear, /resume, /branch, /fork,
-- /model): records every event with the session it ran in; commands set
-- what the before_* handlers answer.
local rec = require("testlog").new("session_ops")
local cancel = {} -- event name -> reason
local summary

lunar.command("cancel", {
  description = "cancel EVENT [REASON]",
  handler = function(args)
    local ev, reason = args:match("^(%S+)%s*(.*)$")
    cancel[ev] = reason
  end,
})

lunar.command("allow", {
  description = "stop cancelling",
  handler = function()
    cancel = {}
  end,
})

lunar.command("summary", {
  description = "summary TEXT: the branch summary to give",
  handler = function(args)
    summary = args
  end,
})

local function record(name, ev, ctx)
  rec(name, { ev = ev, session_id = ctx.session_id, leaf_id = ctx.session.leaf_id() or "" })
end

for _, name in ipairs({ "session.before_clear", "session.before_switch", "session.before_fork", "session.before_branch" }) do
  lunar.on(name, function(ev, ctx)
    record(name, ev, ctx)
    local reason = cancel[name]
    if reason then
      return { cancel = true, reason = reason ~= "" and reason or nil }
    end
    if name == "session.before_branch" and summary then
      return { summary = summary }
    end
  end)
end

for _, name in ipairs({ "session.clear", "session.switch", "session.branch", "session.fork", "model.change" }) do
  lunar.on(name, function(ev, ctx)
    record(name, ev, ctx)
  end)
end
