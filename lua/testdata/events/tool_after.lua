lunar.on("tool.execute.after", function(ev)
  if ev.tool_name == "read" then
    return { content = ev.content[1].text:upper(), details = { seen = ev.input.path, was_error = ev.is_error } }
  end
end)
lunar.on("tool_result", function(ev)
  if ev.tool_name == "read" and ev.content[1].text == "SECRET" then
    return { is_error = true }
  end
end)
