-- For `lunar hooks check`: a hook that loads, with one tool whose schema
-- is wrong (the check fails) and one replacing a built-in.
lunar.tool({
  name = "lookup",
  description = "looks things up",
  parameters = { type = "object", properties = { q = { type = "text" } } },
  execute = function() return "" end,
})
local read = lunar.builtin_tool("read")
lunar.tool({ name = "read", description = read.description, parameters = read.parameters, execute = read.execute })
