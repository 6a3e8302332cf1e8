lunar.on("auth.get", function(ev)
  return { api_key = "key-for-" .. ev.provider, headers = { ["X-Model"] = ev.model_id } }
end)
lunar.on("auth.get", function(ev)
  return { headers = { ["X-Second"] = "yes" } }
end)
