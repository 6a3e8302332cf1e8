-- marvin's name for the context event; rewrites the first user message
-- text in place (the change must reach the model call).
lunar.on("chat.messages.transform", function(ev)
  local first = ev.messages[1]
  first.content[1].text = first.content[1].text .. " (edited)"
  return { messages = ev.messages }
end)
