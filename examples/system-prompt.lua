-- system-prompt.lua: add the day, the git branch (and, if you like, the
-- time and the work tree's state) and a project conventions file to the
-- system prompt.
--
-- Shows: the chat.system.transform event (runs before every model call),
-- lunar.exec for git, fs for a project file, and keeping the per-call
-- handler cheap by computing once per prompt (agent.start) and caching.
--
-- lunar's own system prompt already has the date, the working folder and
-- AGENTS.md/CLAUDE.md. This adds, at the end:
--
--   ## Environment
--   Today: Monday, 2026-11-23 (UTC offset +0100)
--   Git: branch main
--
--   ## Project conventions (CONVENTIONS.md)
--   <the file>
--
-- Mind the prompt cache: providers cache a conversation from its start,
-- system prompt first, so whatever changes here makes the next call pay
-- for the whole context again. That is why the time of day and the
-- changed-file count are off by default ("time", "git_status").
--
-- Install:
--   cp examples/system-prompt.lua ~/.config/lunar/hooks.d/
--   lunar hooks check ~/.config/lunar/hooks.d/system-prompt.lua
--
-- Configure (optional), ~/.config/lunar/config.json:
--   { "hooks": { "system-prompt": {
--       "files": ["CONVENTIONS.md", ".lunar/conventions.md"],  -- the first that exists is added
--       "max_file_chars": 20000,
--       "git": true,          -- the branch
--       "git_status": false,  -- also "3 changed files"
--       "time": false         -- the time of day, not just the day
--   } } }

local fs = require("fs")
local text = require("text")

local cached -- the text to add, computed once per prompt

local function settings()
  local conf = lunar.config()
  if type(conf) ~= "table" then
    conf = {}
  end
  if type(conf.files) ~= "table" then
    conf.files = { "CONVENTIONS.md", ".lunar/conventions.md" }
  end
  conf.max_file_chars = tonumber(conf.max_file_chars) or 20000
  return conf
end

local function git_line(cwd, with_status)
  local r = lunar.exec("git", { "status", "--porcelain=v1", "--branch" }, { timeout_ms = 3000, cwd = cwd })
  if not r or r.code ~= 0 then
    return nil -- not a repository, or no git
  end
  local branch, changed = "?", 0
  for line in r.stdout:gmatch("[^\n]+") do
    if line:sub(1, 3) == "## " then
      local head = line:sub(4)
      branch = head:match("^No commits yet on (.+)$") or head:match("^(.-)%.%.%.") or head:match("^(%S+)") or head
    else
      changed = changed + 1
    end
  end
  if not with_status then
    return "Git: branch " .. branch
  end
  if changed == 0 then
    return "Git: branch " .. branch .. ", clean"
  end
  return string.format("Git: branch %s, %d changed file%s", branch, changed, changed == 1 and "" or "s")
end

local function compute(ctx)
  local conf = settings()
  local parts = { "## Environment" }
  if conf.time == true then
    parts[#parts + 1] = "Local time: " .. os.date("%A, %Y-%m-%d %H:%M (UTC offset %z)")
  else
    parts[#parts + 1] = "Today: " .. os.date("%A, %Y-%m-%d (UTC offset %z)")
  end
  if conf.git ~= false then
    local g = git_line(ctx.cwd, conf.git_status == true)
    if g then
      parts[#parts + 1] = g
    end
  end
  for _, name in ipairs(conf.files) do
    local body = fs.read(name) -- relative to the working folder
    if body then
      body = text.truncate(body, conf.max_file_chars, "\n[… cut by system-prompt.lua]")
      parts[#parts + 1] = "\n## Project conventions (" .. name .. ")\n" .. text.trim(body)
      break
    end
  end
  return table.concat(parts, "\n")
end

-- Once per prompt: git and the file are read when a run begins, not on
-- every model call of its tool loop.
lunar.on("agent.start", function(_, ctx)
  cached = compute(ctx)
end)

lunar.on("chat.system.transform", function(ev, ctx)
  cached = cached or compute(ctx)
  return { system_prompt = ev.system_prompt .. "\n\n" .. cached }
end)
