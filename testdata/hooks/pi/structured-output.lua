-- pi's examples/extensions/structured-output.ts in Lua: a final
-- structured answer as a tool whose result ends the run (terminate), so
-- no follow-up model call is paid for.
lunar.tool({
  name = "structured_output",
  description = "Return a final structured answer. Use this as your last action when the user asks for structured output or a machine-readable summary.",
  parameters = {
    type = "object",
    properties = {
      headline = { type = "string", description = "Short title for the result" },
      summary = { type = "string", description = "One-paragraph summary" },
      actionItems = { type = "array", items = { type = "string" }, description = "Concrete next steps or key bullets" },
    },
    required = { "headline", "summary", "actionItems" },
  },
  execute = function(params)
    return {
      content = "Saved structured output: " .. params.headline,
      details = { headline = params.headline, summary = params.summary, actionItems = params.actionItems },
      terminate = true,
    }
  end,
})
