lunar.on("chat.message", function(ev)
  -- drop the attachments, mark the text
  return { text = ev.text .. "!", parts = {} }
end)
