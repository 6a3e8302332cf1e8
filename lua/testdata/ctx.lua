local json = require("json")
lunar.command("ctx", {
  handler = function(args, ctx)
    local s = ctx.session
    local first = s.entries()[1]
    local out = {
      cwd = ctx.cwd,
      has_ui = ctx.has_ui,
      session_id = ctx.session_id,
      session_file = ctx.session_file,
      model = ctx.model,
      thinking_level = ctx.thinking_level,
      data_dir = ctx.data_dir,
      select = ctx.ui.select("Pick", { "a", "b" }),
      confirm = ctx.ui.confirm("Sure?", "really"),
      input = ctx.ui.input("Name", "..."),
      entries = #s.entries(),
      all_entries = #s.all_entries(),
      first_type = first.type,
      first_role = first.message.role,
      get = s.get(first.id).id,
      missing = s.get("nope") == nil,
      leaf_id = s.leaf_id(),
      label_id = s.set_label(first.id, "start"),
      label = s.label(first.id),
      tree_roots = #s.tree(),
      tree_children = #s.tree()[1].children,
      tree_label = s.tree()[1].label,
      usage = s.token_usage(),
      limit = s.context_limit(),
      found = ctx.models.find("openai", "gpt-test").context_window,
      available = #ctx.models.available(),
      key = ctx.models.resolve_api_key("openai/gpt-test"),
      key_missing = select(2, ctx.models.resolve_api_key({ provider = "x", id = "y" })),
    }
    ctx.ui.notify("note", "warning")
    ctx.ui.set_editor_text("prefill")
    out.editor = ctx.ui.get_editor_text()
    s.toast("Title", "body", "success")
    assert(s.branch(first.id, "back to start"))
    out.compact = select(2, s.compact())
    return json.encode(out)
  end,
})
