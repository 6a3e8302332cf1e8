-- provider.request edits the body; provider.response keeps what it saw
-- (as a custom entry). pi's before_provider_request returns the payload
-- itself, after the first handler's change.
lunar.on("provider.request", function(ev)
  ev.body.temperature = 0.5
  ev.body.seen = ev.provider .. " " .. ev.api .. " " .. ev.url .. " same=" .. tostring(ev.payload == ev.body)
  return { body = ev.body }
end)
lunar.on("before_provider_request", function(ev)
  ev.payload.second = ev.payload.temperature
  return ev.payload
end)
lunar.on("provider.response", function(ev)
  lunar.append_entry("response", { status = ev.status, headers = ev.headers, url = ev.url })
end)
