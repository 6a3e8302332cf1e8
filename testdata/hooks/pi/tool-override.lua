-- pi's examples/extensions/tool-override.ts in Lua: replace the built-in
-- read with an audited one that logs every access and refuses sensitive
-- paths. Where pi's example reimplements reading, this one wraps lunar's
-- own read (lunar.builtin_tool), so offsets, limits, images and
-- truncation stay as they are.
local re = require("re")
local path = require("path")
local fs = require("fs")

local builtin = lunar.builtin_tool("read")

-- pi's patterns, in RE2 syntax
local blocked = {
  [[\.env$]],
  [[\.env\..+$]],
  [[(?i)secrets?\.(json|yaml|yml|toml)$]],
  [[(?i)credentials?\.(json|yaml|yml|toml)$]],
  [[/\.ssh/]],
  [[/\.aws/]],
  [[/\.gnupg/]],
}

local function is_blocked(p)
  for _, pat in ipairs(blocked) do
    if re.find(p, pat) then return true end
  end
  return false
end

local function log_access(ctx, p, allowed, reason)
  local line = string.format("[%s] %s: %s%s\n", os.date("!%Y-%m-%dT%H:%M:%SZ"),
    allowed and "ALLOWED" or "BLOCKED", p, reason and (" (" .. reason .. ")") or "")
  fs.write(path.join(ctx.data_dir, "read-access.log"), line, { append = true })
end

lunar.tool({
  name = "read", -- the built-in's name: this tool replaces it
  description = "Read the contents of a file with access logging. Some sensitive paths (.env, secrets, credentials) are blocked.",
  parameters = builtin.parameters,
  execute = function(args, ctx)
    local abs = path.resolve(ctx.cwd, args.path)
    if is_blocked(abs) then
      log_access(ctx, abs, false, "matches blocked pattern")
      return {
        content = 'Access denied: "' .. args.path .. '" matches a blocked pattern (sensitive file). This tool blocks access to .env files, secrets, credentials, and SSH/AWS/GPG directories.',
        details = { blocked = true },
      }
    end
    log_access(ctx, abs, true)
    return builtin.execute(args)
  end,
})

lunar.command("read-log", {
  description = "View the file access log",
  handler = function(_, ctx)
    local log = fs.read(path.join(ctx.data_dir, "read-access.log"))
    if not log then
      ctx.ui.notify("No access log found", "info")
      return
    end
    local lines = {}
    for l in log:gmatch("[^\n]+") do lines[#lines + 1] = l end
    ctx.ui.notify("Recent file access:\n" .. table.concat(lines, "\n", math.max(1, #lines - 19)), "info")
  end,
})
