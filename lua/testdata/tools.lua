lunar.tool({
  name = "greet",
  description = "Greets someone",
  parameters = { type = "object", properties = { name = { type = "string" } }, required = { "name" } },
  execute = function(args, ctx)
    return "hello " .. args.name .. " from " .. ctx.model.id
  end,
})
lunar.tool({
  name = "measure",
  description = "Measures",
  parameters = { type = "object", properties = {}, required = {} },
  execute = function(args)
    return { content = { { type = "text", text = "42" } }, details = { unit = "cm" }, is_error = false }
  end,
})
lunar.tool({
  name = "fail",
  description = "Fails",
  execute = function()
    error("disk on fire")
  end,
})
lunar.tool({
  name = "weird",
  description = "Returns a function",
  execute = function()
    return { content = "x", colour = "red" }
  end,
})
