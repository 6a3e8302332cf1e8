-- After the first run: queues a prompt with an attachment (lunar.send),
-- appends a custom message without a turn, and one that triggers a turn
-- (lunar.send_message); stores hook state (lunar.append_entry).
local rec = require("testlog").new("sends")
local done = false

lunar.on("agent.end", function(ev)
  rec("agent.end", #ev.messages)
  if done then
    return
  end
  done = true
  local function result(ok, err)
    return { ok = ok, err = err }
  end
  rec("send", result(lunar.send("follow-up from the hook", { attachments = { "attached.txt" } })))
  rec("note", result(lunar.send_message({ custom_type = "note", content = "a quiet note", display = true })))
  rec("nudge", result(lunar.send_message(
    { custom_type = "nudge", content = "please continue", details = { k = 1 } },
    { trigger_turn = true }
  )))
  rec("append_entry", result(lunar.append_entry("hook-state", { step = 1, items = require("json").array() })))
end)
