-- pi's examples/extensions/bash-spawn-hook.ts in Lua: a bash that adjusts
-- each command before the built-in runs it. pi's example sources
-- ~/.profile first; this one only sets PI_SPAWN_HOOK=1, as pi's does in
-- the environment. The replaced tool is still "bash" to every
-- tool.execute.before hook, so the permission policy gates it as before.
local bash = lunar.builtin_tool("bash")

lunar.tool({
  name = "bash",
  description = bash.description,
  parameters = bash.parameters,
  execute = function(args)
    args.command = "export PI_SPAWN_HOOK=1\n" .. args.command
    return bash.execute(args)
  end,
})
