lunar.command("greet", {
  description = "Say hi",
  handler = function(args, ctx)
    return "hi " .. args .. " (" .. #ctx.args .. " words, first " .. tostring(ctx.args[1]) .. ")"
  end,
})
lunar.command("/switch", {
  description = "switch model",
  handler = function(args, ctx)
    assert(ctx.set_model("anthropic", "claude-x"))
    assert(ctx.set_thinking_level("high"))
    ctx.abort()
    saved = ctx
  end,
})
lunar.command("fail", { handler = function() error("nope") end })
lunar.on("turn.start", function(ev, ctx)
  local ok, err = pcall(saved.set_model, "x", "y")
  lunar.append_entry("outside", { ok = ok, err = tostring(err), has = ctx.set_model ~= nil })
end)
