-- /goto ID [PROMPT]: moves the leaf to an entry (ctx.session.branch) and
-- sends PROMPT from there, for tests of hooks whose state lives on a
-- branch (a one-shot run resumes at the last entry of the file, so the
-- prompt must follow in the same run).
lunar.command("goto", {
  handler = function(args, ctx)
    local id, prompt = args:match("^(%S+)%s*(.*)$")
    assert(ctx.session.branch(id))
    if prompt ~= "" then
      return prompt
    end
  end,
})
