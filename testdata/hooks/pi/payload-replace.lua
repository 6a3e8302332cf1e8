-- The commented-out line of pi's provider-payload example, under pi's
-- event name: the handler returns the payload itself to replace it.
lunar.on("before_provider_request", function(event)
  local p = event.payload
  p.temperature = 0
  return p
end)
