-- pi's input results under pi's name, and lunar's under lunar's.
lunar.on("input", function(ev)
  if ev.text == "ping" then return { action = "handled" } end
  if ev.text:sub(1, 7) == "?quick " then
    return { action = "transform", text = "Respond briefly: " .. ev.text:sub(8), images = {} }
  end
  if ev.source == "extension" then return { action = "continue" } end
  if ev.text == "bad" then return { action = "explode" } end
  return { text = ev.source .. ":" .. ev.text }
end)
lunar.on("chat.message", function(ev)
  if ev.text == "interactive:stop" then return { handled = true } end
end)
