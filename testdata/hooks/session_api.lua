-- /inspect: exercises ctx fields, ctx.session and ctx.models, then
-- branches back to the first answer with a summary and asks again.
local rec = require("testlog").new("session_api")

lunar.command("inspect", {
  description = "reports on the session",
  handler = function(args, ctx)
    local s = ctx.session
    local entries = s.entries()
    local types = {}
    for i, e in ipairs(entries) do
      types[i] = e.type
    end
    local first_answer
    for _, e in ipairs(entries) do
      if e.type == "message" and e.message.role == "assistant" then
        first_answer = e.id
        break
      end
    end
    local tree = s.tree()
    local label_id, label_err = s.set_label(first_answer, "important")
    local compact_ok, compact_err = s.compact("keep it short")
    local usage = s.token_usage()
    local rebuilt = s.rebuild_context()
    s.toast("Inspect", "all done", "warning")
    local found = ctx.models.find("openai", "gpt-4.1")
    local key = ctx.models.resolve_api_key("openai/gpt-4.1")
    rec("inspect", {
      cwd = ctx.cwd,
      session_id = ctx.session_id,
      session_file = ctx.session_file,
      model = ctx.model,
      thinking_level = ctx.thinking_level,
      data_dir = ctx.data_dir,
      has_ui = ctx.has_ui,
      types = types,
      all_count = #s.all_entries(),
      leaf_id = s.leaf_id(),
      leaf_type = s.get(s.leaf_id()).type,
      missing = s.get("ffffffff") == nil,
      roots = #tree,
      root_children = #tree[1].children,
      label_id = label_id,
      label_err = label_err,
      label = s.label(first_answer),
      compact_ok = compact_ok or false,
      compact_err = compact_err,
      usage = usage,
      rebuilt = rebuilt,
      limit = s.context_limit(),
      found = found,
      available = #ctx.models.available() > 0,
      key = key,
    })
    local ok, err = s.branch(first_answer, "summary of the abandoned branch")
    rec("branch", { ok = ok or false, err = err, leaf_type = s.get(s.leaf_id()).type })
    return "asked again after branching"
  end,
})

lunar.on("session.before_branch", function(ev)
  rec("session.before_branch", ev)
end)

lunar.on("session.branch", function(ev)
  rec("session.branch", ev)
end)
