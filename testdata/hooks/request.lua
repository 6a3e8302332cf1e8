-- Shapes every part of a model call: the user's text (chat.message), an
-- injected message and the system prompt (agent.before_start), the system
-- prompt again (chat.system.transform), sampling parameters (chat.params),
-- the model (model.resolve) and the credentials (auth.get).
local rec = require("testlog").new("request")

lunar.on("chat.message", function(ev)
  return { text = ev.text .. " (rewritten by chat.message)" }
end)

lunar.on("agent.before_start", function(ev)
  return {
    message = {
      custom_type = "reminder",
      content = "Remember the hook.",
      display = false,
      details = { n = 1 },
    },
    system_prompt = "HOOK SYSTEM PROMPT for: " .. ev.prompt,
  }
end)

lunar.on("chat.system.transform", function(ev)
  return { system_prompt = ev.system_prompt .. "\n(transformed)" }
end)

lunar.on("chat.params", function(ev)
  local p = ev.params
  p.temperature = 0.25
  p.max_tokens = 123
  p.top_p = 0.5
  p.extra = { seed = 7 }
  return { params = p }
end)

lunar.on("model.resolve", function(ev)
  return { model = { id = ev.model.id .. "-resolved" } }
end)

lunar.on("auth.get", function(ev)
  rec("auth.get", ev)
  return { api_key = "sk-from-hook", headers = { ["X-Hook-Header"] = "hook " .. ev.model_id } }
end)
