-- pi's examples/extensions/dynamic-tools.ts in Lua: a tool registered in
-- session.start, more registered at runtime with /add-echo-tool <name>;
-- and, beyond pi's example, /remove-echo-tool <name> unregisters one.
local registered = {}

local function normalize(input)
  local name = input:match("^%s*(.-)%s*$"):lower()
  if name == "" or not name:match("^[a-z0-9_]+$") then return nil end
  return name
end

local function register_echo(name, prefix)
  if registered[name] then return false end
  registered[name] = true
  lunar.tool({
    name = name,
    description = "Echo a message with prefix: " .. prefix,
    promptSnippet = "Echo back user-provided text with " .. prefix:match("^%s*(.-)%s*$") .. " prefix",
    promptGuidelines = { "Use echo_session when the user asks for exact echo output." },
    parameters = {
      type = "object",
      properties = { message = { type = "string", description = "Message to echo" } },
      required = { "message" },
    },
    execute = function(args)
      return { content = prefix .. args.message, details = { tool = name, prefix = prefix } }
    end,
  })
  return true
end

lunar.on("session_start", function(_, ctx)
  register_echo("echo_session", "[session] ")
  ctx.ui.notify("Registered dynamic tool: echo_session", "info")
end)

lunar.command("add-echo-tool", {
  description = "Register a new echo tool dynamically: /add-echo-tool <tool_name>",
  handler = function(args, ctx)
    local name = normalize(args)
    if not name then
      ctx.ui.notify("Usage: /add-echo-tool <tool_name> (lowercase, numbers, underscores)", "warning")
      return
    end
    if not register_echo(name, "[" .. name .. "] ") then
      ctx.ui.notify("Tool already registered: " .. name, "warning")
      return
    end
    ctx.ui.notify("Registered dynamic tool: " .. name, "info")
  end,
})

lunar.command("remove-echo-tool", {
  description = "Unregister an echo tool: /remove-echo-tool <tool_name>",
  handler = function(args, ctx)
    local name = normalize(args)
    local ok, err = lunar.remove_tool(name or "")
    if not ok then
      ctx.ui.notify(err, "warning")
      return
    end
    registered[name] = nil
    ctx.ui.notify("Removed dynamic tool: " .. name, "info")
  end,
})
