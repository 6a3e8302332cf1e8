local json = require("json")
lunar.on("chat.params", function(ev)
  assert(ev.params.max_tokens == 4096, "max_tokens " .. tostring(ev.params.max_tokens))
  return { params = { temperature = 0.25, extra = { seed = 7 }, top_p = json.null } }
end)
