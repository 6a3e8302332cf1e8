-- pi's examples/extensions/permission-gate.ts in Lua: ask before
-- dangerous bash commands (rm -rf, sudo, chmod/chown 777); without a UI
-- (one-shot, JSON mode) block them.
--
-- The rm and sudo checks are Lua patterns with frontiers (%f[%w] is pi's
-- \b before a word); the chmod/chown one is pi's regular expression as it
-- is, through the re module.
local re = require("re")

local function dangerous(command)
  local lower = command:lower()
  return lower:find("%f[%w]rm%s+%-rf?") ~= nil
    or lower:find("%f[%w]rm%s+%-%-recursive") ~= nil
    or lower:find("%f[%w]sudo%f[%W]") ~= nil
    or re.find(command, [[(?i)\b(chmod|chown)\b.*777]]) ~= nil
end

lunar.on("tool_call", function(event, ctx)
  if event.tool_name ~= "bash" then return nil end
  local command = event.input.command
  if not dangerous(command) then return nil end
  if not ctx.has_ui then
    return { block = true, reason = "Dangerous command blocked (no UI for confirmation)" }
  end
  local choice = ctx.ui.select("⚠️ Dangerous command:\n\n  " .. command .. "\n\nAllow?", { "Yes", "No" })
  if choice ~= "Yes" then
    return { block = true, reason = "Blocked by user" }
  end
  return nil
end)
