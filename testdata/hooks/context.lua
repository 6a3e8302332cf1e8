-- Rewrites the context of every model call: drops the user message
-- "drop me" and hides tool output. The session file keeps both.
lunar.on("context", function(ev)
  local out = {}
  for _, m in ipairs(ev.messages) do
    local text = type(m.content) == "string" and m.content or (m.content[1] and m.content[1].text)
    if m.role == "toolResult" then
      m.content = { { type = "text", text = "[tool output hidden by hook]" } }
    end
    if not (m.role == "user" and text == "drop me") then
      out[#out + 1] = m
    end
  end
  return { messages = out }
end)
