-- A runaway handler next to well-behaved ones in the same state.
lunar.on("chat.system.transform", function(ev)
  while true do end
end)
lunar.on("auth.get", function(ev)
  return { api_key = "still-alive" }
end)
lunar.tool({
  name = "spin",
  description = "never returns",
  execute = function()
    local n = 0
    while true do n = n + 1 end
  end,
})
