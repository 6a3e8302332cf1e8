-- prune_impl.lua: the implementation of prune.lua (/prune), required on
-- first use so that runs which never prune do not compile it. See
-- hooks.d/prune.lua for the design.

local core = require("core")
local json = require("json")

local M = {}

local CHOICE = "prune"
local CHOICES = { type = "custom", custom_type = CHOICE }

-- A shortened result keeps about HEAD characters of its beginning and
-- TAIL of its end; results up to SHORT fit and stay whole.
local HEAD, TAIL = 600, 300
local SHORT = HEAD + TAIL + 200

local USAGE = "usage: /prune [list] | /prune [drop|shorten|keep] WHICH...  (WHICH: 3, 2-5, all, last N, all-but-last N)"

local function fail(msg)
  error(msg, 0)
end

local function plural(n, word)
  return n .. " " .. word .. (n == 1 and "" or "s")
end

-- start_of moves byte index i back to the first byte of its UTF-8 character.
local function start_of(s, i)
  while i > 1 do
    local b = s:byte(i)
    if not b or b < 0x80 or b >= 0xC0 then
      break
    end
    i = i - 1
  end
  return i
end

local function lines(s)
  local _, n = s:gsub("\n", "")
  if s ~= "" and s:sub(-1) ~= "\n" then
    n = n + 1
  end
  return n
end

local function size_text(t)
  local kb = #t >= 1024 and string.format("%.1f KB", #t / 1024) or plural(#t, "byte")
  return kb .. ", " .. plural(lines(t), "line")
end

-- fold reads the choices on the path: entry id -> "drop" or "shorten".
local function fold(choices)
  local state = {}
  for _, e in ipairs(choices) do
    local d = type(e.data) == "table" and e.data or {}
    local action = d.action
    if (action == "drop" or action == "shorten" or action == "keep") and type(d.ids) == "table" then
      for _, id in ipairs(d.ids) do
        state[id] = action ~= "keep" and action or nil
      end
    end
  end
  return state
end

-- pruned is the content a result is sent with under action, or nil when
-- it goes unchanged (too short to shorten).
local function pruned(m, action)
  local t = core.message_text(m)
  local images = 0
  if type(m.content) == "table" then
    for _, b in ipairs(m.content) do
      if b.type == "image" then
        images = images + 1
      end
    end
  end
  local note = images > 0 and (", " .. plural(images, "image")) or ""
  if action == "drop" then
    return { { type = "text", text = "[tool output dropped by /prune: " .. size_text(t) .. note .. "]" } }
  end
  if #t <= SHORT and images == 0 then
    return nil
  end
  local head_end = start_of(t, HEAD + 1) - 1
  local nl = t:sub(1, head_end):match(".*()\n")
  if nl and nl > HEAD / 2 then
    head_end = nl - 1
  end
  local tail_start = start_of(t, #t - TAIL + 1)
  local nl2 = t:find("\n", tail_start, true)
  if nl2 and nl2 < #t - TAIL / 2 then
    tail_start = nl2 + 1
  end
  if tail_start <= head_end + 1 then
    return { { type = "text", text = t .. "\n[" .. plural(images, "image") .. " omitted by /prune]" } }
  end
  local gone = t:sub(head_end + 1, tail_start - 1)
  return { {
    type = "text",
    text = t:sub(1, head_end) .. "\n[… " .. size_text(gone) .. note .. " omitted by /prune …]\n" .. t:sub(tail_start),
  } }
end

-- M.context is the context handler once the path has choices: they are
-- applied to the tool results.
function M.context(ev, ctx, choices)
  local state = fold(choices)
  if next(state) == nil then
    return nil
  end
  local changed = false
  for _, m in ipairs(ev.messages) do
    local action = m.role == "toolResult" and m.entry_id and state[m.entry_id]
    if action then
      local c = pruned(m, action)
      if c then
        m.content = c
        changed = true
      end
    end
  end
  if changed then
    return { messages = ev.messages }
  end
  return nil
end

-- ---------------------------------------------------------------------
-- The command

-- call_label describes the call that produced a result.
local function call_label(call, name)
  local args = call and type(call.arguments) == "table" and call.arguments or {}
  local what = args.command or args.path or args.file_path or args.pattern or args.url
  if what == nil then
    for _, v in pairs(args) do
      if type(v) == "string" then
        what = v
        break
      end
    end
  end
  local label = tostring(name or (call and call.name) or "tool")
  if what then
    label = label .. ": " .. tostring(what):gsub("%s+", " ")
  end
  if #label > 70 then
    label = label:sub(1, start_of(label, 68) - 1) .. "…"
  end
  return label
end

-- results lists the tool results the model sees now, oldest first, each
-- {id, label, text, state}.
local function results(ctx)
  local msgs, err = ctx.session.context()
  if not msgs then
    fail("/prune: " .. tostring(err))
  end
  local state = fold(ctx.session.entries(CHOICES))
  local calls, out = {}, {}
  for _, m in ipairs(msgs) do
    if m.role == "assistant" and type(m.content) == "table" then
      for _, b in ipairs(m.content) do
        if b.type == "toolCall" then
          calls[b.id] = b
        end
      end
    elseif m.role == "toolResult" and m.entry_id then
      local e = ctx.session.get(m.entry_id)
      local stored = e and e.message or m
      out[#out + 1] = {
        id = m.entry_id,
        label = call_label(calls[m.toolCallId], m.toolName),
        text = core.message_text(stored),
        state = state[m.entry_id],
      }
    end
  end
  return out
end

local function describe(r)
  local s = r.label .. " — " .. size_text(r.text)
  if r.state == "drop" then
    s = s .. " (dropped)"
  elseif r.state == "shorten" then
    s = s .. " (shortened)"
  end
  return s
end

local function list(ctx, rs)
  if #rs == 0 then
    ctx.ui.notify("no tool results in the context", "info")
    return
  end
  local lines_out = { "tool results in the context (oldest first):" }
  for i, r in ipairs(rs) do
    lines_out[#lines_out + 1] = string.format("%3d. %s", i, describe(r))
  end
  lines_out[#lines_out + 1] = "/prune [drop|shorten|keep] WHICH... (3, 2-5, all, last N, all-but-last N)"
  ctx.ui.notify(table.concat(lines_out, "\n"), "info")
end

-- parse reads "[ACTION] WHICH..." against n results: the action and the
-- set of 1-based indexes picked.
local function parse(words, n)
  local action, i = "drop", 1
  if words[1] == "drop" or words[1] == "shorten" or words[1] == "keep" then
    action, i = words[1], 2
  end
  if i > #words then
    fail(USAGE)
  end
  local picked = {}
  local function pick(a, b)
    if a < 1 or b > n or a > b then
      fail(string.format("/prune: no tool result %s (there %s %d)", a == b and tostring(a) or (a .. "-" .. b), n == 1 and "is" or "are", n))
    end
    for k = a, b do
      picked[k] = true
    end
  end
  while i <= #words do
    local w = words[i]
    if w == "all" then
      if n > 0 then
        pick(1, n)
      end
    elseif w == "last" or w == "all-but-last" then
      local m = tonumber(words[i + 1] or "")
      if not m or m < 0 or m ~= math.floor(m) then
        fail("/prune: " .. w .. " needs a number, e.g. /prune " .. w .. " 2")
      end
      i = i + 1
      if w == "last" and m > 0 then
        pick(math.max(1, n - m + 1), n)
      elseif w == "all-but-last" and n - m >= 1 then
        pick(1, n - m)
      end
    else
      local a, b = w:match("^(%d+)%-(%d+)$")
      if not a then
        a = w:match("^(%d+)$")
        b = a
      end
      if not a then
        fail(USAGE)
      end
      pick(tonumber(a), tonumber(b))
    end
    i = i + 1
  end
  return action, picked
end

local VERBS = { drop = "dropped", shorten = "shortened", keep = "restored" }

-- choose stores one choice for the picked results whose state it changes.
local function choose(ctx, rs, action, picked)
  local ids = {}
  for k, r in ipairs(rs) do
    if picked[k] then
      local changes
      if action == "keep" then
        changes = r.state ~= nil
      elseif action == "drop" then
        changes = r.state ~= "drop"
      else
        changes = r.state ~= "shorten" and #r.text > SHORT
      end
      if changes then
        ids[#ids + 1] = r.id
      end
    end
  end
  if #ids == 0 then
    ctx.ui.notify("/prune: nothing to change" .. (action == "shorten" and " (results under " .. SHORT .. " bytes stay whole)" or ""), "info")
    return
  end
  local _, err = lunar.append_entry(CHOICE, { action = action, ids = json.array(ids) })
  if err then
    fail("/prune: " .. err)
  end
  local c = ctx.session.rebuild_context()
  local now = c and string.format(": the context is now %d messages, ~%d tokens", c.messages, c.tokens) or ""
  ctx.ui.notify(VERBS[action] .. " " .. plural(#ids, "tool result") .. now, "success")
end

-- pick_interactively lets the user mark results in a numbered list, then
-- pick what to do with the marked ones.
local function pick_interactively(ctx, rs)
  local marked, count = {}, 0
  while true do
    local options, seen = {}, {}
    for i, r in ipairs(rs) do
      local d = describe(r)
      if seen[d] then
        d = d .. " (#" .. i .. ")" -- options must differ: the answer is the option's text
      end
      seen[d] = true
      options[i] = (marked[i] and "[x] " or "[ ] ") .. d
    end
    local actions = {}
    if count > 0 then
      local what = plural(count, "marked result")
      actions = { { "drop", "→ drop the " .. what }, { "shorten", "→ shorten the " .. what }, { "keep", "→ send the " .. what .. " whole again" } }
      for _, a in ipairs(actions) do
        options[#options + 1] = a[2]
      end
    end
    local title = count == 0 and "Prune tool results: pick one to mark it" or "Mark or unmark more, or choose what to do"
    local choice = ctx.ui.select(title, options)
    if choice == nil then
      ctx.ui.notify("/prune: nothing changed", "info")
      return
    end
    for i, o in ipairs(options) do
      if o == choice then
        if i <= #rs then
          marked[i] = not marked[i] or nil
          count = count + (marked[i] and 1 or -1)
        else
          return choose(ctx, rs, actions[i - #rs][1], marked)
        end
        break
      end
    end
  end
end

-- M.command is /prune's handler.
function M.command(args, ctx)
  local words = {}
  for w in args:gsub(",", " "):gmatch("%S+") do
    words[#words + 1] = w:lower()
  end
  local rs = results(ctx)
  if #words == 0 and ctx.has_ui and #rs > 0 then
    return pick_interactively(ctx, rs)
  end
  if #words == 0 or (words[1] == "list" and #words == 1) then
    return list(ctx, rs)
  end
  local action, picked = parse(words, #rs)
  return choose(ctx, rs, action, picked)
end

return M
