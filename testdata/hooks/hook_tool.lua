-- A tool defined in Lua: its arguments are validated against the schema
-- before execute runs, and the tool events fire for it.
local text = require("text")
local rec = require("testlog").new("hook_tool")

lunar.tool({
  name = "word_count",
  description = "Counts the words of a text",
  parameters = {
    type = "object",
    properties = { text = { type = "string", description = "the text" } },
    required = { "text" },
    additionalProperties = false,
  },
  execute = function(args, ctx)
    rec("execute", args)
    local n = #text.split(args.text)
    return { content = n .. " words", details = { count = n } }
  end,
})

lunar.tool({
  name = "explode",
  description = "Always fails",
  parameters = { type = "object", properties = {} },
  execute = function()
    error("kaboom")
  end,
})

lunar.on("tool.execute.before", function(ev)
  rec("before", ev.tool_name)
end)

lunar.on("tool.execute.after", function(ev)
  rec("after", { tool_name = ev.tool_name, is_error = ev.is_error })
end)
