-- pi's examples/extensions/provider-payload.ts in Lua: logs every
-- request payload and every response's status and headers to
-- .pi/provider-payload.log in the working folder, under pi's event names.
local fs = require("fs")
local json = require("json")

local function log_file(ctx)
  local folder = ctx.cwd .. "/.pi"
  if not fs.exists(folder) then fs.mkdir(folder) end
  return folder .. "/provider-payload.log"
end

lunar.on("before_provider_request", function(event, ctx)
  fs.write(log_file(ctx), json.encode(event.payload, { indent = "  " }) .. "\n\n", { append = true })

  -- Optional: replace the payload instead of only logging it.
  -- local p = event.payload; p.temperature = 0; return p
end)

lunar.on("after_provider_response", function(event, ctx)
  fs.write(log_file(ctx), "[" .. event.status .. "] " .. json.encode(event.headers) .. "\n\n", { append = true })
end)
