lunar.on("model.resolve", function(ev)
  if ev.model.provider == "openai" then
    return { model = { base_url = "http://proxy.local/v1", context_window = ev.model.context_window * 2 } }
  end
  if ev.model.provider == "local" and #ev.model.input == 1 and ev.model.input[1] == "text" then
    return { model = { input = { "text", "image" } } } -- a local vision model
  end
end)
