-- protected-paths.lua: refuse writes and edits to files that must not
-- change (.env, .git/, secrets), and bash commands that name them.
--
-- Shows: tool.execute.before returning {block=true, reason=} (the model
-- gets the reason as the tool's error result), settings read with
-- lunar.config(), and path handling relative to ctx.cwd.
--
-- Install:
--   cp examples/protected-paths.lua ~/.config/lunar/hooks.d/
--   lunar hooks check ~/.config/lunar/hooks.d/protected-paths.lua
--
-- Configure (optional) in ~/.config/lunar/config.json; the section is
-- named like the file without .lua:
--   { "hooks": { "protected-paths": {
--       "paths": [".env", ".env.*", ".git/", "secrets/", "*.pem"],  -- replaces the defaults
--       "extra_paths": ["deploy/prod.yml"],                         -- added to them
--       "protect_reads": false                                      -- true: the read tool too
--   } } }
--
-- Rules: a rule without "/" (".env", "*.pem") matches a file of that name
-- in any folder; a rule ending in "/" (".git/", "secrets/") matches that
-- folder, anywhere, and everything in it; a rule with another "/" is a
-- path relative to the working folder ("deploy/prod.yml"), or absolute
-- ("/etc/*", "~/.ssh/"). "*" matches within one path element, "**" across.
--
-- bash is checked word by word: a command with a word that is, or lies
-- inside, a protected path is refused (`cat .env`, `echo x > .git/HEAD`,
-- `rm -rf secrets`). This is a tripwire against mistakes, not a sandbox:
-- a command can always name a file in a way no rule foresees. The bundled
-- permission policy ("deny" rules, "ask" mode) is the place for more; it
-- loads before your hooks, so in "ask" mode it may ask about a call that
-- this hook then refuses anyway (a deny rule there refuses without asking).

local DEFAULT_PATHS = { ".env", ".env.*", ".git/", "secrets/", "*.pem", "*.key", "id_rsa*", "id_ed25519*" }

-- settings reads the config section, checking its shape once.
local function settings()
  local conf = lunar.config() or {}
  if type(conf) ~= "table" then
    lunar.log("warn", "protected-paths: the config section must be an object; using the defaults")
    conf = {}
  end
  local rules = {}
  local function add(list, key)
    if list == nil then
      return
    end
    if type(list) ~= "table" then
      lunar.log("warn", "protected-paths: " .. key .. " must be a list of strings")
      return
    end
    for _, p in ipairs(list) do
      if type(p) == "string" and p ~= "" then
        rules[#rules + 1] = p
      else
        lunar.log("warn", "protected-paths: " .. key .. ": ignoring a rule that is not a non-empty string")
      end
    end
  end
  add(conf.paths or DEFAULT_PATHS, "paths")
  add(conf.extra_paths, "extra_paths")
  return rules, conf.protect_reads == true
end

-- glob turns a rule into an anchored Lua pattern.
local function glob(rule)
  local out = {}
  local i = 1
  while i <= #rule do
    local c = rule:sub(i, i)
    if c == "*" and rule:sub(i + 1, i + 1) == "*" then
      out[#out + 1] = ".*"
      i = i + 2
    elseif c == "*" then
      out[#out + 1] = "[^/]*"
      i = i + 1
    elseif c == "?" then
      out[#out + 1] = "[^/]"
      i = i + 1
    else
      out[#out + 1] = c:gsub("[%^%$%(%)%%%.%[%]%+%-]", "%%%0")
      i = i + 1
    end
  end
  return "^" .. table.concat(out) .. "$"
end

-- compile sorts the rules into name rules (any folder), folder rules
-- (any folder of that name) and anchored ones (absolute patterns).
local function compile(rules, cwd)
  local home = os.getenv("HOME") or ""
  local compiled = {}
  for _, r in ipairs(rules) do
    local c = { rule = r }
    local body = r
    local dir = body:sub(-1) == "/"
    if dir then
      body = body:sub(1, -2)
    end
    if not body:find("/", 1, true) and body:sub(1, 1) ~= "~" then
      c.kind = dir and "dir" or "name"
      c.pat = glob(body)
    else
      if body:sub(1, 2) == "~/" then
        body = home .. body:sub(2)
      elseif body:sub(1, 1) ~= "/" then
        body = cwd .. "/" .. body
      end
      c.kind = "path"
      c.pat = glob(body)
      c.dirpat = dir and glob(body .. "/**") or nil
      c.tree = not dir and glob(body .. "/**") or nil -- a file rule also covers what is under it
    end
    compiled[#compiled + 1] = c
  end
  return compiled
end

-- normalize makes p absolute and resolves ".", ".." and "~" (without
-- following symlinks).
local function normalize(p, cwd)
  if p:sub(1, 1) == "@" then
    p = p:sub(2) -- pi's tools accept @path
  end
  if p == "~" or p:sub(1, 2) == "~/" then
    p = (os.getenv("HOME") or "") .. p:sub(2)
  elseif p:sub(1, 1) ~= "/" and not p:match("^%a:[/\\]") then
    p = cwd .. "/" .. p
  end
  p = p:gsub("\\", "/")
  local parts = {}
  for part in p:gmatch("[^/]+") do
    if part == ".." then
      parts[#parts] = nil
    elseif part ~= "." then
      parts[#parts + 1] = part
    end
  end
  local prefix = p:match("^%a:") and "" or "/"
  return prefix .. table.concat(parts, "/"), parts
end

-- protected returns the rule that covers path, if any. Name and folder
-- rules look at the path below the working folder (a project that lives
-- in ~/secrets/app is not protected as a whole), or at the whole path
-- of a file outside it.
local function protected(path, compiled, cwd)
  local abs, parts = normalize(path, cwd)
  local _, base = normalize(cwd, "/")
  local inside = #parts > #base
  for i = 1, #base do
    if parts[i] ~= base[i] then
      inside = false
      break
    end
  end
  if inside then
    local below = {}
    for i = #base + 1, #parts do
      below[#below + 1] = parts[i]
    end
    parts = below
  end
  for _, c in ipairs(compiled) do
    if c.kind == "name" then
      if #parts > 0 and parts[#parts]:match(c.pat) then
        return c.rule
      end
    elseif c.kind == "dir" then
      for _, part in ipairs(parts) do
        if part:match(c.pat) then
          return c.rule
        end
      end
    else
      if abs:match(c.pat) or (c.dirpat and abs:match(c.dirpat)) or (c.tree and abs:match(c.tree)) then
        return c.rule
      end
    end
  end
  return nil
end

-- words splits a shell command into candidate paths: split at blanks
-- and shell punctuation, quotes removed, "name=value" also tried as value.
local function words(command)
  local out = {}
  for w in command:gmatch("[^%s;|&<>()`'\"]+") do
    w = w:gsub("^%$%(", "")
    if w ~= "" and not w:match("^%-") then
      out[#out + 1] = w
      local value = w:match("^[%w_%-]+=(.+)$")
      if value then
        out[#out + 1] = value
      end
    elseif w:match("^%-%-[%w%-]+=(.+)$") then
      out[#out + 1] = w:match("=(.+)$")
    end
  end
  return out
end

local function refuse(what, path, rule)
  return {
    block = true,
    reason = string.format(
      "protected-paths: %s refused: %s is protected (rule %q). Do not try another way; "
        .. "tell the user what you wanted to change, so that they can do it themselves.",
      what, path, rule),
  }
end

lunar.on("tool.execute.before", function(ev, ctx)
  local tool = ev.tool_name
  if tool ~= "write" and tool ~= "edit" and tool ~= "bash" and tool ~= "read" then
    return nil
  end
  local rules, protect_reads = settings()
  if tool == "read" and not protect_reads then
    return nil
  end
  local compiled = compile(rules, ctx.cwd)
  if tool == "bash" then
    local command = ev.input.command or ""
    for _, w in ipairs(words(command)) do
      local rule = protected(w, compiled, ctx.cwd)
      if rule then
        return refuse("bash command", w, rule)
      end
    end
    return nil
  end
  local path = ev.input.path
  if type(path) ~= "string" then
    return nil
  end
  local rule = protected(path, compiled, ctx.cwd)
  if rule then
    return refuse(tool, path, rule)
  end
  return nil
end)
