-- A command that waits for the user while the agent runs
-- (e2e_rpc_test.go): /ask asks for confirmation; meanwhile the hook's own
-- tool.execute.before still decides, refusing tool calls while it asks.
lunar.guard()
local asking = false

lunar.command("ask", {
  description = "asks the client, refusing tool calls until answered",
  handler = function(args, ctx)
    asking = true
    local yes = ctx.ui.confirm("Go on?", args)
    asking = false
    ctx.ui.notify("ask: yes=" .. tostring(yes))
  end,
})

lunar.on("tool.execute.before", function(ev)
  if asking then
    return { block = true, reason = "refused while /ask waits" }
  end
end)
