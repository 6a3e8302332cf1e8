-- Registers a tool only once the session starts (after loading), and a
-- command that registers another one while lunar runs.
lunar.on("session.start", function()
  lunar.tool({
    name = "late",
    description = "registered in session.start",
    parameters = { type = "object", properties = {} },
    execute = function() return "late result" end,
  })
end)

lunar.command("more-tools", {
  description = "register one more tool",
  handler = function()
    lunar.tool({
      name = "later",
      description = "registered by a command",
      parameters = { type = "object", properties = {} },
      execute = function() return "later result" end,
    })
    return "use the later tool"
  end,
})
