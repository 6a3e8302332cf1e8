-- system-prompt.lua: add the time, the git branch and state, and a
-- project conventions file to the system prompt.
--
-- Shows: the chat.system.transform event (runs before every model call),
-- lunar.exec for git, fs for a project file, and keeping the per-call
-- handler cheap by computing once per prompt (agent.start) and caching.
--
-- lunar's own system prompt already has the date, the working folder and
-- AGENTS.md/CLAUDE.md. This adds, at the end:
--
--   ## Environment
--   Local time: 2026-11-23 14:05 (+0100)
--   Git: branch main, 3 changed files
--
--   ## Project conventions (CONVENTIONS.md)
--   <the file>
--
-- Install:
--   cp examples/system-prompt.lua ~/.config/lunar/hooks.d/
--   lunar hooks check ~/.config/lunar/hooks.d/system-prompt.lua
--
-- Configure (optional), ~/.config/lunar/config.json:
--   { "hooks": { "system-prompt": {
--       "files": ["CONVENTIONS.md", ".lunar/conventions.md"],  -- the first that exists is added
--       "max_file_chars": 20000,
--       "git": true
--   } } }

local fs = require("fs")
local text = require("text")

local cached -- the text to add, computed once per prompt

local function settings()
  local conf = lunar.config()
  if type(conf) ~= "table" then
    conf = {}
  end
  local files = conf.files
  if type(files) ~= "table" then
    files = { "CONVENTIONS.md", ".lunar/conventions.md" }
  end
  return files, tonumber(conf.max_file_chars) or 20000, conf.git ~= false
end

local function git_line(cwd)
  local r = lunar.exec("git", { "status", "--porcelain=v1", "--branch" }, { timeout_ms = 3000, cwd = cwd })
  if not r or r.code ~= 0 then
    return nil -- not a repository, or no git
  end
  local branch, changed = "?", 0
  for line in r.stdout:gmatch("[^\n]+") do
    if line:sub(1, 3) == "## " then
      branch = line:sub(4):match("^No commits yet on (.+)$") or line:sub(4):match("^([^%.]+)") or line:sub(4)
    else
      changed = changed + 1
    end
  end
  if changed == 0 then
    return "Git: branch " .. branch .. ", clean"
  end
  return string.format("Git: branch %s, %d changed file%s", branch, changed, changed == 1 and "" or "s")
end

local function compute(ctx)
  local files, max_chars, use_git = settings()
  local parts = { "## Environment", "Local time: " .. os.date("%Y-%m-%d %H:%M (%z)") }
  if use_git then
    local g = git_line(ctx.cwd)
    if g then
      parts[#parts + 1] = g
    end
  end
  for _, name in ipairs(files) do
    local body = fs.read(name) -- relative to the working folder
    if body then
      body = text.truncate(body, max_chars, "\n[… cut by system-prompt.lua]")
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
