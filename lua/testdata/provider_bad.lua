-- A handler that fails and one whose body cannot be encoded: the request
-- goes out unchanged, each failure reported.
lunar.on("provider.request", function(ev)
  error("boom")
end)
lunar.on("provider.request", function(ev)
  return { body = { f = function() end } }
end)
