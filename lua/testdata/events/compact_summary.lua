-- Loaded after compact.lua: sees the chained instructions, supplies the summary.
lunar.on("session_before_compact", function(ev)
  local p = ev.preparation
  return {
    summary = string.format("%d messages, first kept %s, %d tokens; %s; previous %d; model %s",
      #p.messages, p.first_kept_entry_id, p.tokens_before, ev.instructions, #ev.previous_compactions, ev.model.id),
    details = { from = "compact_summary.lua" },
  }
end)
