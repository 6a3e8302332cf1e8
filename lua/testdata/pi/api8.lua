-- The smaller hook API functions, one command each; errors are raised so
-- that RunCommand returns them.
lunar.command("send-parts", { handler = function()
  assert(lunar.send({ { type = "text", text = "look" }, { type = "image", data = "aGk=", mimeType = "image/png" },
                      { type = "text", text = "closely" } }))
end })
lunar.command("send-bad-part", { handler = function()
  lunar.send({ { type = "toolCall", id = "x", name = "y", arguments = {} } })
end })
lunar.command("steer", { handler = function(args)
  assert(lunar.send(args, { deliver = "steer" }))
end })
lunar.command("steer-bad", { handler = function() lunar.send("x", { deliver = "later" }) end })
lunar.command("idle", { handler = function(_, ctx) return tostring(ctx.is_idle()) end })
lunar.command("sys", { handler = function(_, ctx) return ctx.get_system_prompt() end })
lunar.command("print", { handler = function(args, ctx) ctx.ui.print(args) end })
lunar.command("think", { handler = function(args)
  return assert(lunar.complete("hi", { thinking = args }))
end })

local sys_err
lunar.on("chat.system.transform", function(ev, ctx)
  local ok, err = pcall(ctx.get_system_prompt)
  sys_err = err
  return { system_prompt = ev.system_prompt .. "+t" }
end)
lunar.command("sys-err", { handler = function() return sys_err end })
