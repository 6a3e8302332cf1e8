-- A syntax error on line 4.
lunar.on("agent.start", function()
end)
local x = = 1
