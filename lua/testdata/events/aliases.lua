-- pi's event names reach the same events; each records "alias:<type>".
local names = {
  "session_start", "session_shutdown", "session_compact", "session_tree",
  "agent_start", "agent_end", "turn_start", "turn_end", "model_select",
}
for _, name in ipairs(names) do
  lunar.on(name, function(ev)
    lunar.append_entry("alias", { via = name, type = ev.type })
  end)
end
