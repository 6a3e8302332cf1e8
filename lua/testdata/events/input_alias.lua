-- pi's name for chat.message; loaded after chat_message.lua, so it sees
-- that hook's result.
lunar.on("input", function(ev)
  return { text = "[" .. ev.text .. "] parts=" .. #ev.parts }
end)
