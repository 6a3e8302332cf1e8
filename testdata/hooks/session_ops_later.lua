-- Loaded after session_ops.lua: runs only when no earlier hook cancelled.
local rec = require("testlog").new("later")

for _, name in ipairs({ "session.before_clear", "session.before_switch", "session.before_fork", "session.before_branch" }) do
  lunar.on(name, function()
    rec(name)
  end)
end
