-- custom-compaction.lua: write compaction summaries with a cheaper model
-- and your own prompt.
--
-- Shows: session.before_compact (no hook timeout: it may call a model)
-- returning {summary=, details=} so that lunar skips its own summary
-- call; ev.preparation (the messages to summarise), ev.previous_compactions
-- (to update the last summary instead of starting over), ev.instructions
-- (from /compact ...), and lunar.complete with another model.
--
-- Every compaction — /compact, automatic, on overflow, a hook's — goes
-- through this hook. The summary is stored in the session's compaction
-- entry (fromHook: true, details {model=, by="custom-compaction"}), so pi
-- and lunar both rebuild the same context from the file. When the cheaper
-- model fails, the hook steps aside and lunar summarises as usual.
--
-- Install:
--   cp examples/custom-compaction.lua ~/.config/lunar/hooks.d/
--   lunar hooks check ~/.config/lunar/hooks.d/custom-compaction.lua
--
-- Configure (optional), ~/.config/lunar/config.json:
--   { "hooks": { "custom-compaction": {
--       "model": "openai/gpt-4.1-mini",    -- default: a small model of the current provider
--       "max_tokens": 4000,
--       "max_tool_chars": 1500              -- longer tool outputs are cut in the transcript
--   } } }

local json = require("json")
local text = require("text")

-- A cheaper sibling per provider, when config names none.
local CHEAP = {
  openai = "openai/gpt-4.1-mini",
  anthropic = "anthropic/claude-haiku-4-5",
  google = "google/gemini-2.5-flash-lite",
  xai = "xai/grok-3-mini",
}

local SYSTEM = "You write handover notes for a coding assistant that will continue this work "
  .. "without seeing the conversation. Be concrete: names, paths, commands, numbers. "
  .. "Never continue the conversation itself."

local FORMAT = [[
Write the notes in exactly these sections:

## Goal
What the user wants, in their words where possible.

## Done so far
What has been done and what it showed.

## Decisions
Choices made and why (and what was ruled out).

## Files
Files read, and files changed (with what changed).

## Next steps
What remains, in order.]]

local function settings()
  local conf = lunar.config()
  if type(conf) ~= "table" then
    conf = {}
  end
  return conf
end

-- content_text flattens a message's content (a string or blocks).
local function content_text(content, max)
  if type(content) == "string" then
    return text.truncate(content, max, " […]")
  end
  local out = {}
  for _, b in ipairs(content or {}) do
    if b.type == "text" then
      out[#out + 1] = b.text
    elseif b.type == "toolCall" then
      out[#out + 1] = "(calls " .. tostring(b.name) .. " " .. json.encode(b.arguments or {}) .. ")"
    elseif b.type == "image" then
      out[#out + 1] = "(an image)"
    end -- thinking is left out: the notes are about what was said and done
  end
  return text.truncate(table.concat(out, "\n"), max, " […]")
end

-- transcript renders the messages to summarise as plain text.
local function transcript(messages, max_tool)
  local lines = {}
  for _, m in ipairs(messages) do
    local who, body
    if m.role == "user" then
      who, body = "User", content_text(m.content, 20000)
    elseif m.role == "assistant" then
      who, body = "Assistant", content_text(m.content, 20000)
    elseif m.role == "toolResult" then
      who, body = "Tool result (" .. tostring(m.toolName) .. (m.isError and ", error" or "") .. ")", content_text(m.content, max_tool)
    elseif m.role == "bashExecution" then
      who, body = "User ran", "$ " .. tostring(m.command) .. "\n" .. text.truncate(m.output or "", max_tool, " […]")
    elseif m.role == "branchSummary" or m.role == "compactionSummary" then
      who, body = "Earlier summary", m.summary or ""
    else
      who, body = "Note", content_text(m.content, 20000)
    end
    if body ~= "" then
      lines[#lines + 1] = "[" .. who .. "]: " .. body
    end
  end
  return table.concat(lines, "\n\n")
end

lunar.on("session.before_compact", function(ev, ctx)
  local conf = settings()
  local model = conf.model or CHEAP[ev.model.provider]
  if not model then
    return nil -- no cheaper model known for this provider: lunar summarises
  end
  local prompt = { "<conversation>\n" .. transcript(ev.preparation.messages, tonumber(conf.max_tool_chars) or 1500) .. "\n</conversation>" }
  local previous = ev.previous_compactions[1]
  if previous then
    prompt[#prompt + 1] = "<previous-notes>\n" .. previous.summary .. "\n</previous-notes>\n"
      .. "The conversation above continues from these notes: update them, keeping what still holds."
  end
  prompt[#prompt + 1] = FORMAT
  if ev.instructions ~= "" then
    prompt[#prompt + 1] = "Pay special attention to: " .. ev.instructions
  end
  local summary, err = lunar.complete(table.concat(prompt, "\n\n"), {
    model = model,
    system = SYSTEM,
    max_tokens = tonumber(conf.max_tokens) or 4000,
  })
  if not summary or text.trim(summary) == "" then
    lunar.log("warn", "custom-compaction: " .. model .. ": " .. tostring(err or "empty summary") .. "; lunar summarises instead")
    return nil
  end
  return { summary = summary, details = { model = model, by = "custom-compaction" } }
end)
