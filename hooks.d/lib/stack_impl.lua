-- stack_impl.lua: the implementation of stack.lua (/pop), required on
-- first use so that runs which never pop do not compile it. See
-- hooks.d/stack.lua for the design.

local core = require("core")
local json = require("json")

local M = {}

local POP = "stack_pop"
local COMPACTIONS = { type = "compaction" }
local BRANCH_SUMMARIES = { type = "branch_summary" }

local SUMMARY_MAX_TOKENS = 4096
local COMPACT_MAX_TOKENS = 8192
local TOOL_RESULT_CHARS = 2000

-- The summary calls' system prompt, and the prompt of a summary of the
-- history before a compaction, are lunar's own (the compaction's).
local PROMPTS = lunar.summary_prompts()
local SYSTEM = PROMPTS.system
local HISTORY_PROMPT = PROMPTS.compaction

local POP_PROMPT = [[The conversation above is work the user is setting aside with /pop: it leaves the context and your summary takes its place, so the conversation can go on from the point before it. Summarize it so the work can be picked up again later.

Use exactly this format:

## Goal
[What the user asked for in this work]

## Progress
### Done
- [x] [Finished tasks and changes, with file paths]

### Unfinished
- [ ] [Work begun but not finished]

## Key Decisions
- **[Decision]**: [Short reason]

## Findings
- [Facts learned that are worth keeping: data, errors, references]

Be brief in every section. Keep exact file paths, function names and error messages.]]

local POP_PREAMBLE = "The user set the following work aside with /pop and came back to the point before it.\nSummary of that work:\n\n"

-- fail ends a command with a message and no Lua position.
local function fail(msg)
  error(msg, 0)
end

-- char_start moves byte index i back to the first byte of its UTF-8
-- character, so that cutting a string there keeps it valid.
local function char_start(s, i)
  while i > 1 do
    local b = s:byte(i)
    if not b or b < 0x80 or b >= 0xC0 then
      break
    end
    i = i - 1
  end
  return i
end

-- iso_ms converts an entry's ISO 8601 UTC timestamp to Unix milliseconds.
local function iso_ms(s)
  local y, mo, d, h, mi, sec, frac = tostring(s):match("^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)%.?(%d*)")
  if not y then
    return 0
  end
  y, mo, d = tonumber(y), tonumber(mo), tonumber(d)
  if mo <= 2 then
    y = y - 1
  end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local doy = math.floor((153 * ((mo + 9) % 12) + 2) / 5) + d - 1
  local days = era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
  local ms = (((days * 24 + tonumber(h)) * 60 + tonumber(mi)) * 60 + tonumber(sec)) * 1000
  if frac ~= "" then
    ms = ms + tonumber((frac .. "00"):sub(1, 3))
  end
  return ms
end

-- ---------------------------------------------------------------------
-- Ranges: "later wins"

-- ranges_of turns the compactions and pops of a path (entries, in path
-- order) into ranges {from, to, seq, kind, entry}; pos maps entry ids to
-- positions. kind is "compaction", "pre" or "pop".
local function ranges_of(comps, pops, pos)
  local list = {}
  for _, c in ipairs(comps) do
    local at = pos[c.id]
    if at then
      list[#list + 1] = { at = at, sub = 0, from = 1, to = pos[c.firstKeptEntryId] or at, kind = "compaction", entry = c }
    end
  end
  for _, p in ipairs(pops) do
    local at = pos[p.id]
    local data = type(p.data) == "table" and p.data or {}
    local t = type(data.target) == "string" and pos[data.target]
    if at and t and t < at and type(data.summary) == "string" then
      if type(data.pre_summary) == "string" then
        list[#list + 1] = { at = at, sub = 0, from = 1, to = t, kind = "pre", entry = p }
      end
      list[#list + 1] = { at = at, sub = 1, from = t, to = at, kind = "pop", entry = p }
    end
  end
  table.sort(list, function(a, b)
    if a.at ~= b.at then
      return a.at < b.at
    end
    return a.sub < b.sub
  end)
  for i, r in ipairs(list) do
    r.seq = i
  end
  return list
end

-- segments splits the positions the ranges cover into spans with one
-- winner each (the covering range with the highest seq), in order.
local function segments(list)
  local bounds, seen = {}, {}
  for _, r in ipairs(list) do
    for _, b in ipairs({ r.from, r.to }) do
      if not seen[b] then
        seen[b] = true
        bounds[#bounds + 1] = b
      end
    end
  end
  table.sort(bounds)
  local segs = {}
  for i = 1, #bounds - 1 do
    local x, w = bounds[i], nil
    for _, r in ipairs(list) do
      if r.from <= x and x < r.to and (w == nil or r.seq > w.seq) then
        w = r
      end
    end
    if w then
      segs[#segs + 1] = { from = x, to = bounds[i + 1], winner = w }
    end
  end
  return segs
end

-- apply lays the winning ranges over items ({pos, msg}, in path order):
-- covered items give way to the winner's summary, sent once where it first
-- wins. It returns the messages and the position each stands for.
local function apply(items, segs, message_of)
  local out, at, emitted = {}, {}, {}
  local j = 1
  local function keep_until(limit)
    while items[j] and items[j].pos < limit do
      out[#out + 1], at[#at + 1] = items[j].msg, items[j].pos
      j = j + 1
    end
  end
  for _, s in ipairs(segs) do
    keep_until(s.from)
    if not emitted[s.winner] then
      emitted[s.winner] = true
      local m = message_of(s.winner)
      if m then
        out[#out + 1], at[#at + 1] = m, s.from
      end
    end
    while items[j] and items[j].pos < s.to do
      j = j + 1
    end
  end
  keep_until(math.huge)
  return out, at
end

-- summary_message is the message a range stands for (nil: nothing, an
-- empty pre_summary).
local function summary_message(r)
  local e = r.entry
  if r.kind == "compaction" then
    return { role = "compactionSummary", summary = e.summary, tokensBefore = e.tokensBefore or 0, timestamp = iso_ms(e.timestamp) }
  elseif r.kind == "pre" then
    if e.data.pre_summary == "" then
      return nil
    end
    return { role = "compactionSummary", summary = e.data.pre_summary, tokensBefore = 0, timestamp = iso_ms(e.timestamp) }
  end
  return { role = "branchSummary", summary = e.data.summary, fromId = e.data.target, timestamp = iso_ms(e.timestamp) }
end

-- pops_win reports whether a pop's range wins anywhere.
local function pops_win(segs)
  for _, s in ipairs(segs) do
    if s.winner.kind ~= "compaction" then
      return true
    end
  end
  return false
end

-- ---------------------------------------------------------------------
-- The whole path (commands, compaction)

-- path_model reads the path once: positions, ranges and the messages the
-- entries contribute (as session context building does).
local function path_model(ctx)
  local entries = ctx.session.entries()
  local pos, comps, pops, items = {}, {}, {}, {}
  for i, e in ipairs(entries) do
    pos[e.id] = i
    local m
    if e.type == "message" then
      m = e.message
    elseif e.type == "custom_message" then
      m = { role = "custom", customType = e.customType, content = e.content, display = e.display, details = e.details, timestamp = iso_ms(e.timestamp) }
    elseif e.type == "branch_summary" and (e.summary or "") ~= "" then
      m = { role = "branchSummary", summary = e.summary, fromId = e.fromId, timestamp = iso_ms(e.timestamp) }
    elseif e.type == "compaction" then
      comps[#comps + 1] = e
    elseif e.type == "custom" and e.customType == POP then
      pops[#pops + 1] = e
    end
    if m then
      items[#items + 1] = { pos = i, msg = m }
    end
  end
  return { entries = entries, pos = pos, ranges = ranges_of(comps, pops, pos), items = items }
end

-- only keeps the ranges for which keep(r) is true.
local function only(list, keep)
  local out = {}
  for _, r in ipairs(list) do
    if keep(r) then
      out[#out + 1] = r
    end
  end
  return out
end

-- between returns the messages of a laid-out context standing for
-- positions in [lo, hi).
local function between(out, at, lo, hi)
  local msgs = {}
  for i, m in ipairs(out) do
    if at[i] >= lo and at[i] < hi then
      msgs[#msgs + 1] = m
    end
  end
  return msgs
end

-- ---------------------------------------------------------------------
-- Summaries

local function args_text(args)
  if type(args) ~= "table" then
    return tostring(args or "")
  end
  local parts = {}
  for k, v in pairs(args) do
    local ok, enc = pcall(json.encode, v)
    parts[#parts + 1] = tostring(k) .. "=" .. (ok and enc or tostring(v))
  end
  return table.concat(parts, ", ")
end

-- transcript renders messages as plain text for a summarising model, so it
-- does not take them for a conversation to continue.
local function transcript(msgs)
  local out = {}
  local function add(prefix, s)
    if s and s ~= "" then
      out[#out + 1] = prefix .. s
    end
  end
  for _, m in ipairs(msgs) do
    local role = m.role
    if role == "user" or role == "custom" then
      add("[User]: ", core.message_text(m))
    elseif role == "assistant" then
      local texts, thinking, calls = {}, {}, {}
      for _, b in ipairs(type(m.content) == "table" and m.content or {}) do
        if b.type == "text" then
          texts[#texts + 1] = b.text
        elseif b.type == "thinking" then
          thinking[#thinking + 1] = b.thinking
        elseif b.type == "toolCall" then
          calls[#calls + 1] = tostring(b.name) .. "(" .. args_text(b.arguments) .. ")"
        end
      end
      add("[Assistant thinking]: ", table.concat(thinking, "\n"))
      add("[Assistant]: ", table.concat(texts, "\n"))
      add("[Assistant tool calls]: ", table.concat(calls, "; "))
    elseif role == "toolResult" then
      local t = core.message_text(m)
      if #t > TOOL_RESULT_CHARS then
        local keep = char_start(t, TOOL_RESULT_CHARS + 1) - 1
        t = t:sub(1, keep) .. "\n\n[... " .. (#t - keep) .. " more bytes truncated]"
      end
      add("[Tool result]: ", t)
    elseif role == "bashExecution" then
      add("[User ran]: ", "`" .. tostring(m.command) .. "`\n" .. tostring(m.output or ""))
    elseif role == "compactionSummary" then
      add("[Summary of the conversation before this point]: ", m.summary)
    elseif role == "branchSummary" then
      add("[Summary of work set aside]: ", m.summary)
    end
  end
  return table.concat(out, "\n\n")
end

-- fit keeps a transcript within what the model can read: its beginning
-- (the request) and its end, without the middle.
local function fit(s, ctx)
  local window = (ctx.model and ctx.model.context_window) or 128000
  local budget = math.max(8000, (window - 16384) * 3)
  if #s <= budget then
    return s
  end
  local head = char_start(s, math.floor(budget / 5) + 1) - 1
  local tail = char_start(s, #s - (budget - head) + 1)
  return s:sub(1, head) .. "\n\n[... " .. (tail - head - 1) .. " bytes of the conversation omitted ...]\n\n" .. s:sub(tail)
end

-- summarise asks the current model for a summary of msgs.
local function summarise(msgs, prompt, ctx, max_tokens, instructions)
  local input = "<conversation>\n" .. fit(transcript(msgs), ctx) .. "\n</conversation>\n\n" .. prompt
  if instructions and instructions ~= "" then
    input = input .. "\n\nAdditional focus: " .. instructions
  end
  local out, err = lunar.complete(input, { system = SYSTEM, max_tokens = max_tokens })
  if not out then
    return nil, err
  end
  return out
end

-- ---------------------------------------------------------------------
-- /pop

local function plural(n, word)
  return n .. " " .. word .. (n == 1 and "" or "s")
end

local function size(ctx)
  local c = ctx.session.rebuild_context()
  if not c then
    return "?"
  end
  return string.format("%d messages, ~%d tokens", c.messages, c.tokens)
end

-- choose_turns is /pop without N (seed 000): the user turns of the
-- path but the current (last) one, to pick the turn to go back to; it and
-- every turn after it are set aside. Where no one can pick (one-shot,
-- JSON mode) the list is the error, each turn with the N that pops it.
-- Returns N, or nil when the user picked nothing.
local function choose_turns(ctx, pm, turns)
  local lines, options = {}, {}
  for k = 1, #turns - 1 do
    local m = pm.entries[turns[k]].message
    local text = core.message_text(m):gsub("%s+", " "):gsub("^ ", "")
    if #text > 70 then
      text = text:sub(1, char_start(text, 70) - 1) .. "…"
    end
    options[k] = string.format("%s  (/pop %d)", text, #turns - k + 1)
    lines[k] = string.format("  /pop %d  %s", #turns - k + 1, text)
  end
  if #options == 0 then
    fail("nothing to go back to: the conversation has one user turn (/pop 1 sets it aside)")
  end
  if not ctx.has_ui then
    fail("usage: /pop N (no terminal to choose on); the turns to go back to, newest last:\n"
      .. table.concat(lines, "\n") .. "\n(/pop 1 sets the last turn aside)")
  end
  local choice = ctx.ui.select("Go back to which turn? It and the turns after it are set aside", options)
  if choice == nil then
    return nil
  end
  for k, o in ipairs(options) do
    if o == choice then
      return #turns - k + 1
    end
  end
end

-- M.pop is /pop's handler.
function M.pop(_, ctx)
  local n
  if #ctx.args > 0 then
    n = tonumber(ctx.args[1])
    if #ctx.args > 1 or not n or n < 1 or n ~= math.floor(n) then
      fail("usage: /pop [N]  (N: how many user turns to pop; without N, choose the turn)")
    end
  end
  local pm = path_model(ctx)
  local popped = only(pm.ranges, function(r)
    return r.kind == "pop"
  end)
  local turns = {}
  for i, e in ipairs(pm.entries) do
    if e.type == "message" and e.message and e.message.role == "user" then
      local covered = false
      for _, r in ipairs(popped) do
        if r.from <= i and i < r.to then
          covered = true
          break
        end
      end
      if not covered then
        turns[#turns + 1] = i
      end
    end
  end
  if #turns == 0 then
    fail("nothing to pop: no user turn in the conversation")
  end
  if not n then
    n = choose_turns(ctx, pm, turns)
    if not n then
      return
    end
  end
  if n > #turns then
    fail(string.format("cannot pop %s: the conversation has %s", plural(n, "turn"), plural(#turns, "turn")))
  end
  local t = turns[#turns - n + 1]
  local target = pm.entries[t]
  local leaf = #pm.entries + 1
  local before = size(ctx)

  -- The work from the target on, with the ranges that lie inside it.
  local inside = only(pm.ranges, function(r)
    return r.from >= t
  end)
  local out, at = apply(pm.items, segments(inside), summary_message)
  local work = between(out, at, t, leaf)

  -- Does a summary sent before the target reach past it? Then what
  -- precedes the target is summarised on its own.
  local straddled = false
  for _, s in ipairs(segments(pm.ranges)) do
    if s.from < t and s.winner.to > t then
      straddled = true
      break
    end
  end
  local pre
  if straddled then
    local earlier = only(pm.ranges, function(r)
      return r.to <= t
    end)
    out, at = apply(pm.items, segments(earlier), summary_message)
    local history = between(out, at, 1, t)
    if #history == 0 then
      pre = ""
    else
      ctx.ui.notify("summarising the conversation before the popped turns…", "info")
      local err
      pre, err = summarise(history, HISTORY_PROMPT, ctx, SUMMARY_MAX_TOKENS)
      if not pre then
        fail("/pop: the summary failed, nothing changed: " .. tostring(err))
      end
    end
  end

  ctx.ui.notify(string.format("summarising %s (%s)…", plural(n, "turn"), plural(#work, "message")), "info")
  local summary, err = summarise(work, POP_PROMPT, ctx, SUMMARY_MAX_TOKENS)
  if not summary then
    fail("/pop: the summary failed, nothing changed: " .. tostring(err))
  end
  local _, aerr = lunar.append_entry(POP, { target = target.id, turns = n, summary = POP_PREAMBLE .. summary .. "\n", pre_summary = pre })
  if aerr then
    fail("/pop: " .. aerr)
  end
  ctx.ui.notify(string.format("popped %s: the context went from %s to %s", plural(n, "turn"), before, size(ctx)), "success")
end

-- ---------------------------------------------------------------------
-- Applying the pops

-- M.context is the context handler once the path has pops: the context
-- from the path with the ranges laid over it.
function M.context(ev, ctx, pops)
  local pos = {}
  for i, id in ipairs(ctx.session.path_ids()) do
    pos[id] = i
  end
  local comps = ctx.session.entries(COMPACTIONS)
  local list = ranges_of(comps, pops, pos)
  local segs = segments(list)
  if not pops_win(segs) then
    return nil -- every pop lies under a later compaction
  end

  -- Positions of the messages: stored ones by entry, core's branch summaries
  -- by their entry, anything else just after the message before it.
  local branch_at = {}
  local branches = ctx.session.entries(BRANCH_SUMMARIES)
  for _, b in ipairs(branches) do
    branch_at[tostring(b.fromId) .. "\0" .. tostring(b.summary)] = pos[b.id]
  end
  local latest = comps[#comps]
  local latest_msg
  local items, last = {}, 0
  for _, m in ipairs(ev.messages) do
    if latest and not latest_msg and m.entry_id == nil and m.role == "compactionSummary" then
      latest_msg = m
    else
      local p = m.entry_id and pos[m.entry_id]
      if not p and m.entry_id == nil and m.role == "branchSummary" then
        p = branch_at[tostring(m.fromId) .. "\0" .. tostring(m.summary)]
      end
      if p then
        last = p
      else
        p = last + 0.001 -- another hook's message: it follows the one before it
        last = p
      end
      items[#items + 1] = { pos = p, msg = m }
    end
  end
  local out = apply(items, segs, function(r)
    if r.kind == "compaction" and r.entry == latest and latest_msg then
      return latest_msg
    end
    return summary_message(r)
  end)
  return { messages = out }
end

-- M.before_compact is the session.before_compact handler once the path has
-- pops: a compaction over pops summarises what the model saw.
function M.before_compact(ev, ctx)
  local pm = path_model(ctx)
  local k = pm.pos[ev.preparation.first_kept_entry_id]
  if not k then
    return nil
  end
  local segs = segments(pm.ranges)
  local out, at = apply(pm.items, segs, summary_message)
  local history = between(out, at, 1, k)
  local shown = false
  for _, s in ipairs(segs) do
    if s.winner.kind ~= "compaction" and s.from < k then
      shown = true
      break
    end
  end
  if not shown or #history == 0 then
    return nil -- no pop in the part compacted: the usual summary is right
  end
  local summary, err = summarise(history, HISTORY_PROMPT, ctx, COMPACT_MAX_TOKENS, ev.instructions)
  if not summary then
    error("compaction summary: " .. tostring(err), 0)
  end
  return { summary = summary }
end

return M
