-- pi's examples/extensions/protected-paths.ts in Lua: block write and
-- edit on protected paths.
local protected = { ".env", ".git/", "node_modules/" }

lunar.on("tool_call", function(event, ctx)
  if event.tool_name ~= "write" and event.tool_name ~= "edit" then return nil end
  local path = event.input.path
  for _, p in ipairs(protected) do
    if path:find(p, 1, true) then
      if ctx.has_ui then
        ctx.ui.notify("Blocked write to protected path: " .. path, "warning")
      end
      return { block = true, reason = 'Path "' .. path .. '" is protected' }
    end
  end
  return nil
end)
