lunar.command("half", { handler = function() return "registered before the error" end })
local cfg = nil
local x = cfg.missing -- line 3: fails while loading
