lunar.on("model.resolve", function(ev)
  if ev.model.provider == "openai" then
    return { model = { base_url = "http://proxy.local/v1", context_window = ev.model.context_window * 2 } }
  end
end)
