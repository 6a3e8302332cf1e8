-- memory.lua: long-term memory across sessions, in the spirit of
-- supermemory: the model stores facts with a `memory` tool, relevant facts
-- come back with your prompts, the context is compacted before it fills
-- up, and compaction summaries are remembered too.
--
-- Shows: lunar.tool; chat.message rewriting the prompt before it is
-- stored; turn.end token figures (context_tokens, context_limit) asking
-- ctx.session.compact() during a reply; session.compact; a
-- `custom` entry per injection (so a fact is sent once per branch, also
-- after resume); a JSON file in ctx.data_dir (fs); an HTTP backend (http);
-- settings from lunar.config().
--
-- What the model sees: with a prompt, the facts that share words with it
-- (and, on a session's first prompt, the most recent ones), appended as
--
--   <memory>
--   Facts remembered from earlier sessions (memory tool); use them where relevant:
--   - [m3] The user prefers tabs over spaces.
--   </memory>
--
-- Each fact is sent at most once on a branch (a "memory" custom entry
-- after the prompt records which were sent). The memory tool adds,
-- searches, lists and forgets facts. Facts are "project" facts (this
-- working folder only, the default) or "user" facts (everywhere).
--
-- Compaction: when a turn ends with the context past `compact_ratio` of
-- the model's window, turn.end asks for a compaction: lunar runs it at
-- the turn boundary, before the next model call (the reply goes on on
-- the compacted context), or right after the reply when it makes no
-- more calls. lunar's own automatic compaction still applies near the
-- window's end; this one comes earlier.
--
-- Install:
--   cp examples/memory.lua ~/.config/lunar/hooks.d/
--   lunar hooks check ~/.config/lunar/hooks.d/memory.lua
--
-- Configure (optional), ~/.config/lunar/config.json (the section is named
-- like the file, without .lua):
--   { "hooks": { "memory": {
--       "store": "local",          -- or "http"
--       "path": "/elsewhere/memory.json",  -- local store; default <data_dir>/memory.json
--                                  -- (~/.local/share/lunar/hooks/memory/memory.json)
--       "max_inject": 5,           -- facts added to one prompt
--       "compact_ratio": 0.8,      -- 0 turns the early compaction off
--       "save_summaries": true,    -- remember compaction summaries
--       "url": "https://memory.example/api",  -- http store
--       "token_env": "MEMORY_TOKEN"            -- its bearer token's variable
--   } } }
--
-- The http store speaks JSON:
--   POST {url}/memories  {content, scope, project, source}  -> {id}
--   POST {url}/search    {query, project, limit}            -> {results: [{id, content, score?}]}
--                        (an empty query: the most recent facts)
--   DELETE {url}/memories/{id}
--
-- The local store is one JSON file, read and rewritten on each change: two
-- lunar processes adding facts at the same moment may lose one.

local fs = require("fs")
local http = require("http")
local json = require("json")
local text = require("text")
local time = require("time")

local ENTRY = "memory"
local FILTER = { type = "custom", custom_type = ENTRY }

local STOP = {}
for w in ("the and for are but not you your with this that have from was were what when where which who will would should could about into over under than then them they their there these those can its it's our out use using how why"):gmatch("%S+") do
  STOP[w] = true
end

local function settings()
  local conf = lunar.config()
  if conf == nil then
    return {}
  end
  if type(conf) ~= "table" then
    lunar.log("warn", "memory: the config section must be an object; using the defaults")
    return {}
  end
  return conf
end

-- words returns the set of the significant lower-case words of s.
local function words(s)
  local set = {}
  for w in s:lower():gmatch("[%w_']+") do
    if #w >= 3 and not STOP[w] then
      set[w] = true
    end
  end
  return set
end

---------------------------------------------------------------------------
-- The local store: { version = 1, next_id = n, facts = { {id, content,
-- scope, project, source, created_ms}, ... } }

local local_store = {}

local function store_path(ctx, conf)
  if type(conf.path) == "string" and conf.path ~= "" then
    return conf.path
  end
  if not ctx.data_dir then
    return nil, "no data folder for the memory file; set hooks.memory.path"
  end
  return ctx.data_dir .. "/memory.json"
end

local function load(ctx, conf)
  local path, err = store_path(ctx, conf)
  if not path then
    return nil, err
  end
  if not fs.exists(path) then
    return { version = 1, next_id = 1, facts = json.array() }, nil, path
  end
  local raw
  raw, err = fs.read(path)
  if not raw then
    return nil, err
  end
  local data, derr = json.decode(raw)
  if type(data) ~= "table" or type(data.facts) ~= "table" then
    -- Never overwrite a file we cannot read: the user's facts are in it.
    return nil, path .. ": not a memory file (" .. tostring(derr or "no facts list") .. "); fix or move it"
  end
  return data, nil, path
end

local function save(data, path)
  local dir = path:match("^(.*)[/\\][^/\\]*$")
  if dir and dir ~= "" and not fs.exists(dir) then
    local ok, err = fs.mkdir(dir)
    if not ok then
      return nil, err
    end
  end
  return fs.write(path, json.encode(data, { indent = "  " }) .. "\n")
end

-- visible reports whether a fact belongs in this working folder.
local function visible(f, ctx)
  return f.scope == "user" or f.project == ctx.cwd
end

function local_store.add(ctx, conf, fact)
  local data, err, path = load(ctx, conf)
  if not data then
    return nil, err
  end
  local id = "m" .. tostring(data.next_id or (#data.facts + 1))
  data.next_id = (data.next_id or (#data.facts + 1)) + 1
  fact.id = id
  fact.created_ms = time.now_ms()
  data.facts[#data.facts + 1] = fact
  local ok, werr = save(data, path)
  if not ok then
    return nil, werr
  end
  return id
end

function local_store.search(ctx, conf, query, limit)
  local data, err = load(ctx, conf)
  if not data then
    return nil, err
  end
  local q = words(query)
  local hits = {}
  for i, f in ipairs(data.facts) do
    if visible(f, ctx) then
      local score = 0
      if next(q) == nil then
        score = 1 -- an empty query: every fact, newest first
      else
        local fw = words(f.content or "")
        for w in pairs(q) do
          if fw[w] then
            score = score + 1
          end
        end
      end
      if score > 0 then
        hits[#hits + 1] = { id = f.id, content = f.content, score = score, order = i, source = f.source }
      end
    end
  end
  table.sort(hits, function(a, b)
    if a.score ~= b.score then
      return a.score > b.score
    end
    return a.order > b.order
  end)
  local out = {}
  for i = 1, math.min(limit, #hits) do
    out[i] = hits[i]
  end
  return out
end

function local_store.forget(ctx, conf, id)
  local data, err, path = load(ctx, conf)
  if not data then
    return nil, err
  end
  for i, f in ipairs(data.facts) do
    if f.id == id and visible(f, ctx) then
      table.remove(data.facts, i)
      return save(data, path)
    end
  end
  return nil, "no fact " .. id
end

---------------------------------------------------------------------------
-- The http store.

local http_store = {}

local function call(conf, method, path, body)
  if type(conf.url) ~= "string" or conf.url == "" then
    return nil, 'hooks.memory.url is not set (needed by "store": "http")'
  end
  local headers = { ["Content-Type"] = "application/json" }
  if type(conf.token_env) == "string" then
    local token = os.getenv(conf.token_env)
    if token and token ~= "" then
      headers["Authorization"] = "Bearer " .. token
    end
  end
  local resp, err = http.request({
    method = method,
    url = conf.url:gsub("/+$", "") .. path,
    headers = headers,
    body = body and json.encode(body) or nil,
    timeout_ms = 10000,
  })
  if not resp then
    return nil, err
  end
  if resp.status < 200 or resp.status > 299 then
    return nil, string.format("%s %s: HTTP %d %s", method, path, resp.status, text.truncate(resp.body, 200))
  end
  if resp.body == "" then
    return {}
  end
  local data, derr = json.decode(resp.body)
  if data == nil then
    return nil, method .. " " .. path .. ": " .. tostring(derr)
  end
  return data
end

function http_store.add(ctx, conf, fact)
  local data, err = call(conf, "POST", "/memories", fact)
  if not data then
    return nil, err
  end
  return tostring(data.id or "?")
end

function http_store.search(ctx, conf, query, limit)
  local data, err = call(conf, "POST", "/search", { query = query, project = ctx.cwd, limit = limit })
  if not data then
    return nil, err
  end
  local out = {}
  for _, r in ipairs(data.results or {}) do
    if type(r) == "table" and type(r.content) == "string" then
      out[#out + 1] = { id = tostring(r.id or "?"), content = r.content, score = r.score, source = r.source }
    end
  end
  return out
end

function http_store.forget(ctx, conf, id)
  local data, err = call(conf, "DELETE", "/memories/" .. id)
  if not data then
    return nil, err
  end
  return true
end

local function store(conf)
  if conf.store == "http" then
    return http_store
  end
  if conf.store ~= nil and conf.store ~= "local" then
    lunar.log("warn", 'memory: store must be "local" or "http"; using the local store')
  end
  return local_store
end

---------------------------------------------------------------------------
-- Injection: relevant facts ride along with the prompt, once per branch.

local function injected_here(ctx)
  local seen, any = {}, false
  for _, e in ipairs(ctx.session.entries(FILTER)) do
    any = true
    for _, id in ipairs((e.data and e.data.injected) or {}) do
      seen[id] = true
    end
  end
  return seen, any
end

-- The ids sent with the current prompt, recorded once the prompt is
-- stored (turn.end): a "memory" entry before it would stay on the path of
-- a /branch that drops the prompt, and the facts would not be sent again.
local pending_ids

local BLOCK = "\n\n<memory>\n.-\n</memory>$"

lunar.on("chat.message", function(ev, ctx)
  local conf = settings()
  local max = tonumber(conf.max_inject) or 5
  pending_ids = nil
  if max <= 0 then
    return nil
  end
  -- A prompt taken back with /branch and sent again still has its block.
  local prompt = ev.text:gsub(BLOCK, "")
  local st = store(conf)
  local seen, before = injected_here(ctx)
  local picked, ids, chosen = {}, json.array(), {}
  local function take(list)
    for _, f in ipairs(list or {}) do
      if #picked >= max then
        return
      end
      if not seen[f.id] and not chosen[f.id] and f.source ~= "compaction" then
        chosen[f.id] = true
        picked[#picked + 1] = "- [" .. f.id .. "] " .. text.truncate(f.content, 500, "…")
        ids[#ids + 1] = f.id
      end
    end
  end
  local hits, err = st.search(ctx, conf, prompt, max * 2)
  if not hits then
    lunar.log("warn", "memory: " .. tostring(err))
    return nil
  end
  take(hits)
  if not before then -- a session's first injection: the latest facts too
    take(st.search(ctx, conf, "", max * 2))
  end
  if #picked == 0 then
    return prompt ~= ev.text and { text = prompt } or nil
  end
  pending_ids = ids
  return {
    text = prompt .. "\n\n<memory>\nFacts remembered from earlier sessions (memory tool); use them where relevant:\n"
      .. table.concat(picked, "\n") .. "\n</memory>",
  }
end)

---------------------------------------------------------------------------
-- The tool.

lunar.tool({
  name = "memory",
  description = "Long-term memory across sessions. add: remember a fact worth keeping (a preference, a decision, "
    .. "how this project works), one self-contained sentence; search: find remembered facts; list: the recent ones; "
    .. "forget: delete one by id. Relevant facts are also shown to you with the user's prompts.",
  parameters = {
    type = "object",
    properties = {
      action = { type = "string", enum = { "add", "search", "list", "forget" } },
      content = { type = "string", description = "add: the fact" },
      scope = { type = "string", enum = { "project", "user" }, description = "add: project (default; this folder) or user (everywhere)" },
      query = { type = "string", description = "search: words to look for" },
      id = { type = "string", description = "forget: the fact's id, e.g. m3" },
    },
    required = { "action" },
  },
  execute = function(args, ctx)
    local conf = settings()
    local st = store(conf)
    local function fail(err)
      return { content = "memory: " .. tostring(err), is_error = true }
    end
    if args.action == "add" then
      if type(args.content) ~= "string" or text.trim(args.content) == "" then
        return fail("add needs content")
      end
      local id, err = st.add(ctx, conf, {
        content = text.trim(args.content),
        scope = args.scope == "user" and "user" or "project",
        project = ctx.cwd,
        source = "tool",
      })
      if not id then
        return fail(err)
      end
      return "Remembered as " .. id .. "."
    elseif args.action == "search" or args.action == "list" then
      local query = args.action == "list" and "" or (args.query or "")
      local hits, err = st.search(ctx, conf, query, 20)
      if not hits then
        return fail(err)
      end
      if #hits == 0 then
        return "No facts found."
      end
      local lines = {}
      for _, f in ipairs(hits) do
        lines[#lines + 1] = "[" .. f.id .. "] " .. f.content
      end
      return table.concat(lines, "\n")
    elseif args.action == "forget" then
      if type(args.id) ~= "string" then
        return fail("forget needs id")
      end
      local ok, err = st.forget(ctx, conf, args.id)
      if not ok then
        return fail(err)
      end
      return "Forgot " .. args.id .. "."
    end
    return fail("unknown action " .. tostring(args.action))
  end,
})

---------------------------------------------------------------------------
-- Compaction before the context fills up, and summaries remembered.

local function ratio_of(ev)
  if not ev.context_limit or ev.context_limit <= 0 then
    return 0
  end
  return (ev.context_tokens or 0) / ev.context_limit
end

lunar.on("turn.end", function(ev, ctx)
  if pending_ids then
    lunar.append_entry(ENTRY, { injected = pending_ids })
    pending_ids = nil
  end
  local limit = tonumber(settings().compact_ratio) or 0.8
  if limit > 0 and ratio_of(ev) >= limit then
    ctx.session.toast("memory", string.format("context at %d%% of the window: compacting before the next model call", math.floor(ratio_of(ev) * 100)), "info")
    -- During the reply this only asks; the outcome arrives as
    -- session.compact (below), a failure as lunar's warning.
    local ok, err = ctx.session.compact()
    if not ok then
      lunar.log("warn", "memory: compaction: " .. tostring(err))
    end
  end
end)

lunar.on("session.compact", function(ev, ctx)
  local conf = settings()
  if conf.save_summaries == false or text.trim(ev.summary) == "" then
    return
  end
  local id, err = store(conf).add(ctx, conf, {
    content = "Summary of a session in " .. ctx.cwd .. " (" .. os.date("%Y-%m-%d") .. "):\n" .. ev.summary,
    scope = "project",
    project = ctx.cwd,
    source = "compaction",
  })
  if not id then
    lunar.log("warn", "memory: saving the summary: " .. tostring(err))
  end
end)
