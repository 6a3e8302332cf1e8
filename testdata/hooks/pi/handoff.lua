-- Port of pi's examples/extensions/handoff.ts: /handoff <goal> asks the
-- model for a prompt that carries what matters of this conversation into
-- a new session, then starts that session with the current one recorded as
-- its parent. In the REPL the prompt waits in the editor to be reviewed and
-- sent; without a UI (lunar -c -p "/handoff …") it is sent at once.
local SYSTEM_PROMPT = [[You are a context transfer assistant. Given a conversation history and the user's goal for a new thread, generate a focused prompt that:

1. Summarizes relevant context from the conversation (decisions made, approaches taken, key findings)
2. Lists any relevant files that were discussed or modified
3. Clearly states the next task based on the user's goal
4. Is self-contained - the new thread should be able to proceed without the old conversation

Format your response as a prompt the user can send to start the new thread. Be concise but include all necessary context. Do not include any preamble like "Here's the prompt" - just output the prompt itself.]]

-- serialize is pi's serializeConversation, for the roles a handoff needs.
local function serialize(entries)
  local out = {}
  for _, e in ipairs(entries) do
    if e.type == "compaction" then
      out[#out + 1] = "[Summary]: " .. e.summary
    elseif e.type == "message" then
      local m = e.message
      local text = {}
      if type(m.content) == "string" then
        text[1] = m.content
      else
        for _, c in ipairs(m.content or {}) do
          if c.type == "text" then text[#text + 1] = c.text
          elseif c.type == "toolCall" then text[#text + 1] = "[Tool call]: " .. c.name end
        end
      end
      local who = ({ user = "User", assistant = "Assistant", toolResult = "Tool result" })[m.role]
      if who and #text > 0 then out[#out + 1] = "[" .. who .. "]: " .. table.concat(text, "\n") end
    end
  end
  return table.concat(out, "\n\n")
end

lunar.command("handoff", {
  description = "Transfer context to a new focused session",
  handler = function(args, ctx)
    local goal = args:match("^%s*(.-)%s*$")
    if goal == "" then
      ctx.ui.notify("Usage: /handoff <goal for new thread>", "error")
      return
    end
    local conversation = serialize(ctx.session.entries({ type = { "message", "compaction" } }))
    if conversation == "" then
      ctx.ui.notify("No conversation to hand off", "error")
      return
    end
    local prompt, err = lunar.complete(
      "## Conversation History\n\n" .. conversation .. "\n\n## User's Goal for New Thread\n\n" .. goal,
      { system = SYSTEM_PROMPT })
    if not prompt then
      ctx.ui.notify("Handoff generation failed: " .. err, "error")
      return
    end
    local ok, nerr = ctx.new_session({ parent = true, prompt = prompt })
    if not ok then
      ctx.ui.notify("New session cancelled: " .. nerr, "info")
      return
    end
    ctx.ui.notify("Handoff ready." .. (ctx.has_ui and " Submit when ready." or ""), "info")
  end,
})
