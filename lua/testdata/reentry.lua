-- A command whose ctx.session calls make the host fire events back into
-- this same hook (its state is already in use by the command).
lunar.on("context", function(ev)
  ev.messages[#ev.messages + 1] = { role = "user", content = "extra", timestamp = 0 }
  return { messages = ev.messages }
end)
lunar.on("session.before_compact", function(ev)
  return { summary = "from the same hook: " .. ev.instructions }
end)
lunar.command("measure", {
  description = "rebuild the context and compact",
  handler = function(args, ctx)
    local r = assert(ctx.session.rebuild_context())
    local ok = ctx.session.compact("from the command")
    return string.format("%d messages, %d tokens; compacted: %s", r.messages, r.tokens, tostring(ok))
  end,
})
