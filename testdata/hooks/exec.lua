-- lunar.exec: exit code, output, working folder, timeout.
local rec = require("testlog").new("exec")

lunar.command("run", {
  description = "runs programs",
  handler = function(args, ctx)
    rec("plain", lunar.exec("sh", { "-c", "echo out; echo err >&2; exit 3" }))
    rec("cwd", lunar.exec("pwd", {}, { cwd = ctx.cwd .. "/sub" }))
    local started = require("time").now_ms()
    local slow = lunar.exec("sh", { "-c", "sleep 30" }, { timeout_ms = 200 })
    slow.elapsed_ms = require("time").now_ms() - started
    rec("timeout", slow)
    local r, err = lunar.exec("no-such-program-lunar-test")
    rec("missing", { result = r, err = err })
    rec("shell_is_not_used", lunar.exec("echo", { "$HOME", ";", "ls" }))
  end,
})
