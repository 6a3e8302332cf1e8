-- Drops custom messages and appends a reminder; leaves the rest untouched.
lunar.on("context", function(ev)
  local out = {}
  for _, m in ipairs(ev.messages) do
    if m.role ~= "custom" then
      out[#out + 1] = m
    end
  end
  out[#out + 1] = { role = "user", content = "reminder: be brief", timestamp = 0 }
  return { messages = out }
end)
