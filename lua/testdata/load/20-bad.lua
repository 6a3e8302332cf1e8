-- A syntax error on line 7.
lunar.on("chat.system.transform", function(ev)
  return { system_prompt = "never" }
end)

local function broken()
  return = 1
end
