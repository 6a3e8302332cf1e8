-- Edits the exact request body before it is sent (provider.request: a
-- temperature and one more user message) and records each response's
-- status and headers (provider.response).
local rec = require("testlog").new("provider")

lunar.on("provider.request", function(ev)
  local body = ev.body
  rec("request", { provider = ev.provider, api = ev.api, url = ev.url,
    model = body.model, messages = #body.messages, same = ev.payload == ev.body })
  body.temperature = 0.5
  table.insert(body.messages, { role = "user", content = "added by provider.request" })
  return { body = body }
end)

lunar.on("provider.response", function(ev)
  rec("response", { status = ev.status, content_type = ev.headers["content-type"],
    retry_after = ev.headers["retry-after"], url = ev.url })
end)
