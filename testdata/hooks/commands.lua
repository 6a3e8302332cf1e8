-- Hook commands, run from one-shot mode when the prompt starts with /name.
local rec = require("testlog").new("commands")

lunar.command("ask", {
  description = "asks the model with a prefix",
  handler = function(args, ctx)
    rec("ask", { args = args, words = ctx.args, has_ui = ctx.has_ui })
    return "The user asks: " .. args
  end,
})

lunar.command("quiet", {
  description = "does nothing visible",
  handler = function(args)
    rec("quiet", args)
  end,
})

lunar.command("switch", {
  description = "changes model and thinking level, then asks",
  handler = function(args, ctx)
    local ok, err = ctx.set_model("openai", "gpt-4.1-mini")
    local tok, terr = ctx.set_thinking_level("high")
    rec("switch", { ok = ok, err = err, tok = tok, terr = terr, model = ctx.model.id, thinking = ctx.thinking_level })
    return "after the switch"
  end,
})

lunar.command("summarize", {
  description = "one model call through lunar.complete",
  handler = function(args)
    local text, err = lunar.complete("Summarise: " .. args, { system = "You summarise.", max_tokens = 50 })
    rec("complete", { text = text, err = err })
    if not text then
      error(err)
    end
    return "The summary was: " .. text
  end,
})

lunar.command("fail", {
  description = "raises an error",
  handler = function()
    error("the command failed")
  end,
})

lunar.on("model.change", function(ev)
  rec("model.change", ev)
end)

-- ctx.set_model outside a command handler is refused.
lunar.on("agent.start", function(ev, ctx)
  local ok, err = pcall(ctx.set_model, "openai", "gpt-4o")
  rec("set_model_outside", { ok = ok, has_fn = ctx.set_model ~= nil, err = tostring(err) })
end)

lunar.command("other_model", {
  description = "lunar.complete with another model and a message list",
  handler = function()
    local text, err = lunar.complete({
      { role = "user", content = "first message" },
      { role = "user", content = { { type = "text", text = "second message" } } },
    }, { model = "openai/gpt-4o" })
    rec("other_model", { text = text, err = err })
    local none, nerr = lunar.complete("x", { model = "nosuch/model" })
    rec("bad_model", { text = none, err = nerr })
  end,
})
