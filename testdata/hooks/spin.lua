-- Handlers that run until Ctrl+C: a command (commands have no timeout), an
-- event handler (under the 30 s default timeout) and a program run by
-- lunar.exec.
local rec = require("testlog").new("spin")

lunar.command("spin", {
  description = "never returns",
  handler = function()
    rec("started", "spin")
    while true do end
  end,
})

lunar.command("sleep", {
  description = "runs sleep 60, its pid in exec.pid",
  handler = function()
    rec("started", "sleep")
    local r, err = lunar.exec("sh", { "-c", "echo $$ > exec.pid.tmp && mv exec.pid.tmp exec.pid && exec sleep 60" })
    rec("exec", { result = r, err = err })
  end,
})

lunar.on("agent.start", function()
  if os.getenv("SPIN_IN_AGENT_START") then
    rec("started", "agent.start")
    while true do end
  end
end)
