-- Results of the wrong shape: reported and ignored.
lunar.on("chat.system.transform", function()
  return { systm_prompt = "misspelt" }
end)

lunar.on("chat.params", function()
  return { params = { temperature = "hot" } }
end)

lunar.on("context", function()
  return "not a table"
end)

lunar.on("chat.message", function()
  return { text = 42 }
end)

lunar.on("tool.execute.after", function()
  return { is_error = "yes" }
end)
