-- Top-level code that never finishes: the load is stopped at the timeout.
lunar.on("agent.start", function() end)
while true do end
