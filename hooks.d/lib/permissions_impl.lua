-- permissions_impl.lua: the implementation of permissions.lua, required on
-- first use (a rule names the tool of a call, a dialog opens, /permissions
-- runs) so that runs which need none of it do not compile it. See
-- hooks.d/permissions.lua for the policy and docs/hooks.md ("The
-- permission policy") for the user's view.
--
-- Speed: a Lua pattern is compiled on every call (about as costly as a
-- loop over 20 characters), so the scanning below is byte loops and plain
-- finds. Bash commands are judged in permissions_shell.lua, required on
-- the first bash call a rule names.

local json = require("json")
local fs = require("fs")

local M = {}

local PATH_TOOLS = { read = true, write = true, edit = true }
local KINDS = { "deny", "ask", "allow" }

local HOME = os.getenv("HOME") or os.getenv("USERPROFILE")

local byte, sub, concat = string.byte, string.sub, table.concat

-- Text ------------------------------------------------------------------

-- split_plain splits s at every sep (plain text).
local function split_plain(s, sep)
  local out, start = {}, 1
  while true do
    local a, b = string.find(s, sep, start, true)
    if not a then
      out[#out + 1] = sub(s, start)
      return out
    end
    out[#out + 1] = sub(s, start, a - 1)
    start = b + 1
  end
end

local function lines_of(s)
  local out = split_plain(s, "\n")
  if out[#out] == "" and #out > 1 then
    out[#out] = nil
  end
  return out
end

-- visible makes control characters visible, so that what a dialog shows is
-- what runs (an escape sequence could otherwise redraw the line).
local function visible(s)
  return (s:gsub("[%z\1-\8\11-\31\127]", function(c)
    return string.format("\\x%02x", c:byte())
  end))
end

local MAX_SHOWN = 60 -- lines of a dialog
local MAX_DIFF_BYTES = 256 * 1024 -- a write replacing more is described, not diffed

-- shown collects the lines of a dialog, up to MAX_SHOWN.
local function shown()
  local t = { n = 0, cut = 0 }
  function t.add(prefix, line)
    if t.n >= MAX_SHOWN then
      t.cut = t.cut + 1
      return
    end
    t.n = t.n + 1
    t[t.n] = "  " .. prefix .. visible(line)
  end
  function t.text()
    local out = {}
    for i = 1, t.n do
      out[i] = t[i]
    end
    if t.cut > 0 then
      out[#out + 1] = string.format("  … %d more lines", t.cut)
    end
    return concat(out, "\n")
  end
  return t
end

-- Paths -----------------------------------------------------------------

local function slashes(p)
  if string.find(p, "\\", 1, true) then
    return (p:gsub("\\", "/"))
  end
  return p
end

local function is_letter(c)
  return c and ((c >= 65 and c <= 90) or (c >= 97 and c <= 122))
end

local function is_abs(p)
  local c = byte(p, 1)
  return c == 47 or (is_letter(c) and byte(p, 2) == 58 and byte(p, 3) == 47) -- "/" or "C:/"
end

-- clean resolves . and .. in an absolute path.
local function clean(p)
  local drive = ""
  if byte(p, 1) ~= 47 then
    drive, p = sub(p, 1, 2), sub(p, 3)
  end
  local out = {}
  for _, seg in ipairs(split_plain(p, "/")) do
    if seg == ".." then
      out[#out] = nil
    elseif seg ~= "." and seg ~= "" then
      out[#out + 1] = seg
    end
  end
  return drive .. "/" .. concat(out, "/")
end

local function expand_home(p)
  if HOME and (p == "~" or sub(p, 1, 2) == "~/") then
    return slashes(HOME) .. sub(p, 2)
  end
  return p
end

-- inside returns abs relative to the folder root ("." for root itself),
-- or nil when it lies outside.
local function inside(abs, root)
  if abs == root then
    return "."
  end
  local prefix = root == "/" and "/" or root .. "/"
  if sub(abs, 1, #prefix) == prefix then
    return sub(abs, #prefix + 1)
  end
  return nil
end

-- tool_path resolves a tool's path as the built-in tools do (a leading @
-- dropped, ~ expanded, relative to the working folder): the absolute path,
-- and the path relative to the working folder when it lies inside it.
local function tool_path(p, cwd)
  p = slashes(p)
  if byte(p, 1) == 64 then -- "@"
    p = sub(p, 2)
  end
  p = expand_home(p)
  cwd = slashes(cwd)
  if not is_abs(p) then
    p = cwd .. "/" .. p
  end
  local abs = clean(p)
  return abs, inside(abs, clean(cwd))
end

-- realpath is p with its symlinks resolved (also /proc/self/root and
-- other magic links) as far as it exists: what the kernel opens.
local function realpath(p)
  return slashes(fs.realpath(p))
end

local real_roots = {} -- working folder → its real path

-- path_subject is what rules see of a path: the real path, absolute and
-- relative to the real working folder (abs, rel), and the path as
-- written (lex_abs, lex_rel). escapes is true when a link leads the path
-- out of the working folder.
local function path_subject(p, cwd)
  local lex_abs, lex_rel = tool_path(p, cwd)
  local root = real_roots[cwd]
  if not root then
    root = realpath(cwd)
    real_roots[cwd] = root
  end
  local abs = realpath(lex_abs)
  local rel = inside(abs, root)
  return { abs = abs, rel = rel, lex_abs = lex_abs, lex_rel = lex_rel, escapes = rel == nil and abs ~= lex_abs }
end

-- real_pattern resolves the links in the folder an absolute path pattern
-- names (all of it without a *; else up to the folder of the first *),
-- so that it matches real paths; nil when that changes nothing.
local function real_pattern(p)
  local star = string.find(p, "*", 1, true)
  local head, rest = p, ""
  if star then
    local cut = star - 1
    while cut > 0 and byte(p, cut) ~= 47 do
      cut = cut - 1
    end
    if cut <= 1 then
      return nil
    end
    head, rest = sub(p, 1, cut - 1), sub(p, cut)
  end
  local real = realpath(head) .. rest
  return real ~= p and real or nil
end

-- Patterns --------------------------------------------------------------

-- literal compiles a pattern whose only wildcard is *: the text must start
-- with the first segment, end with the last, and hold the others in order.
local function literal(pat)
  local segs = split_plain(pat, "*")
  local n = #segs
  if n == 1 then
    return function(s)
      return s == pat
    end
  end
  local first, last = segs[1], segs[n]
  return function(s)
    if sub(s, 1, #first) ~= first then
      return false
    end
    local pos = #first + 1
    for k = 2, n - 1 do
      local seg = segs[k]
      if seg ~= "" then
        local _, b = string.find(s, seg, pos, true)
        if not b then
          return false
        end
        pos = b + 1
      end
    end
    return #s - #last + 1 >= pos and sub(s, #s - #last + 1) == last
  end
end

-- glob compiles a rule's pattern: * is any text; a trailing " *" also
-- matches the text before it alone ("git status *": "git status", "git
-- status -s", not "git statusx").
local function glob(pat)
  if sub(pat, -2) == " *" then
    local alone, more = literal(sub(pat, 1, -3)), literal(pat)
    return function(s)
      return alone(s) or more(s)
    end
  end
  return literal(pat)
end

local RULE_SYNTAX = 'a rule is a tool name, or "tool: pattern"'

-- parse_rule reads "tool" or "tool: pattern" into a rule with its
-- matcher; nil and a message when it is neither.
local function parse_rule(text)
  local tool, rest = text:match("^%s*([%w_%-]+%*?)%s*(.*)$")
  if not tool then
    return nil, RULE_SYNTAX
  end
  local rule = { tool = tool }
  if rest ~= "" then
    local pat = rest:match("^:%s*(.-)%s*$")
    if not pat or pat == "" then
      return nil, RULE_SYNTAX
    end
    rule.pattern = pat
    if PATH_TOOLS[tool] then
      local p = expand_home(slashes(pat))
      local m = glob(p)
      if is_abs(p) then
        local rp = real_pattern(p)
        local rm = rp and glob(rp)
        rule.match_path = function(abs, _)
          return m(abs) or (rm ~= nil and rm(abs))
        end
      else
        rule.match_path = function(_, rel)
          return rel ~= nil and m(rel)
        end
      end
    else
      rule.match = glob(pat)
    end
  end
  rule.text = tool .. (rule.pattern and (": " .. rule.pattern) or "")
  return rule
end

-- compiled returns a rule of the state with its matcher (compiled on
-- first use; a rule that does not parse matches nothing).
local function compiled(r)
  if r.compiled == nil then
    local p, err = parse_rule(r.text)
    if p then
      r.pattern, r.match, r.match_path, r.text = p.pattern, p.match, p.match_path, p.text
      r.compiled = true
    else
      lunar.log("error", string.format("permissions.%s: %q ignored: %s", r.kind, r.text, err))
      r.compiled = false
    end
  end
  return r.compiled and r or nil
end

-- Shell commands --------------------------------------------------------

local NL = 10

-- SH is permissions_shell.lua (how bash commands are judged), required on
-- the first bash call a rule names.
local shell_impl
local function SH()
  shell_impl = shell_impl or require("permissions_shell")
  return shell_impl
end

-- Deciding --------------------------------------------------------------

-- subject describes a call for the rules of its tool.
local function subject(tool, input, cwd)
  if tool == "bash" then
    return SH().subject(type(input.command) == "string" and input.command or "")
  elseif PATH_TOOLS[tool] then
    return path_subject(type(input.path) == "string" and input.path or "", cwd)
  end
  local ok, text = pcall(json.encode, input)
  return { json = ok and text or "" }
end

-- matches reports whether rule r matches any form of the call (deny, ask;
-- allow rules see a path only as it really is, deny and ask rules also as
-- written).
local function matches(r, s)
  if not r.pattern then
    return true
  elseif r.match_path then
    return r.match_path(s.abs, s.rel) or (r.kind ~= "allow" and r.match_path(s.lex_abs, s.lex_rel))
  elseif s.bash then
    return SH().matches(r, s)
  end
  return r.match(s.json)
end

local function first_match(st, kind, tool, s)
  for _, r in ipairs(st.rules) do
    if r.kind == kind and st.covers(r.tool, tool) and compiled(r) and matches(r, s) then
      return r
    end
  end
end

-- covered reports whether the allow rules cover the call: for bash, every
-- simple command shell.parse reports (permissions_shell.lua).
local function covered(st, tool, s)
  if tool ~= "bash" then
    return first_match(st, "allow", tool, s) ~= nil
  end
  local rules = {}
  for _, r in ipairs(st.rules) do
    if r.kind == "allow" and r.tool == "bash" and compiled(r) then
      if not r.pattern then
        return true -- "bash": every call
      end
      rules[#rules + 1] = r
    end
  end
  return SH().covered(rules, s)
end

-- decide judges a call: { verdict = "run" | "refuse" | "ask", why =,
-- rule =, subject = }. A refusal's why is "deny" (rule is the deny rule),
-- "unscannable", "read-only" or "read-only-mcp"; an ask's rule is the ask
-- rule that matched, nil when the mode asks; subject is the call as the
-- rules saw it (none for a run no rule judged, so nothing is pinned). In read-only mode a bash command runs when the kernel
-- sandbox confines it (nothing writable); a write or edit through a link
-- out of the working folder always asks.
local function decide(st, ev, cwd)
  local tool, input = ev.tool_name, ev.input
  local mcp = st.is_mcp(ev)
  local s = subject(tool, input, cwd)
  local named = st.by_tool[tool]
  if not named and st.mcp_rules then
    for _, r in ipairs(st.rules) do
      if st.covers(r.tool, tool) then
        named = true
        break
      end
    end
  end
  if named then
    local r = first_match(st, "deny", tool, s)
    if r then
      return { verdict = "refuse", why = "deny", rule = r, subject = s }
    end
    if s.bash and SH().unscannable(s) then
      for _, d in ipairs(st.rules) do
        if d.kind == "deny" and d.tool == tool then
          return { verdict = "refuse", why = "unscannable", subject = s } -- deny rules cannot be checked
        end
      end
    end
  end
  local read_only = st.mode == "read-only"
  if read_only and st.MUTATING[tool] and not (tool == "bash" and st.confined()) then
    return { verdict = "refuse", why = "read-only", subject = s }
  elseif read_only and mcp and not ev.read_only then
    return { verdict = "refuse", why = "read-only-mcp", subject = s }
  elseif st.mode == "auto" then
    return { verdict = "run" }
  end
  if named then
    local r = first_match(st, "ask", tool, s)
    if r then
      return { verdict = "ask", rule = r, subject = s }
    end
    if read_only or (not s.escapes and covered(st, tool, s)) then
      return { verdict = "run", subject = s }
    end
  end
  if (st.MUTATING[tool] or mcp) and not read_only then
    return { verdict = "ask", subject = s }
  end
  return { verdict = "run" }
end

-- Dialogs ---------------------------------------------------------------

-- always_rules are the allow rules "yes, and allow such calls" adds; nil
-- when none would cover the call.
local function always_rules(tool, s)
  if tool == "bash" then
    return SH().always(s, parse_rule)
  elseif tool == "write" or tool == "edit" then
    if s.rel then
      return { "edit: *", "write: *" }
    end
    return { tool .. ": " .. s.abs }
  elseif s.json then
    return { tool } -- an MCP tool: every call of it
  end
  return nil
end

local function edit_pairs(input)
  if type(input.edits) == "table" then
    return input.edits
  end
  return { { oldText = input.oldText, newText = input.newText } }
end

-- describe returns the dialog's title and details for a call.
local function describe(tool, input, s)
  local out = shown()
  if tool == "bash" then
    for k, line in ipairs(lines_of(input.command or "")) do
      out.add(k == 1 and "$ " or "  ", line)
    end
    return "Allow this bash command?", out.text()
  elseif s.json then
    local server, name = tool:match("^mcp__(.-)__(.+)$")
    for _, line in ipairs(lines_of(s.json)) do
      out.add("", line)
    end
    if server then
      return string.format("Allow the tool %s of the MCP server %s?", visible(name), visible(server)), out.text()
    end
    return string.format("Allow the tool %s?", visible(tool)), out.text()
  end
  local name = s.rel or s.abs
  if tool == "edit" then
    local content = fs.read(s.abs)
    for _, e in ipairs(edit_pairs(input)) do
      local old, new = tostring(e.oldText or ""), tostring(e.newText or "")
      local at = content and old ~= "" and string.find(content, old, 1, true)
      if at then
        -- Whole lines: from the start of the match's first line to the end
        -- of its last one.
        local ls = at
        while ls > 1 and byte(content, ls - 1) ~= NL do
          ls = ls - 1
        end
        local le = string.find(content, "\n", at + #old - 1, true) or #content + 1
        local _, line = sub(content, 1, ls - 1):gsub("\n", "")
        out.add("", string.format("@@ line %d @@", line + 1))
        -- (gopher-lua assigns "a, b = x, y" left to right: one at a time.)
        local after = sub(content, at + #old, le - 1)
        new = sub(content, ls, at - 1) .. new .. after
        old = sub(content, ls, le - 1)
      else
        out.add("", "@@ text not found: the edit will fail @@")
      end
      for _, l in ipairs(lines_of(old)) do
        out.add("-", l)
      end
      for _, l in ipairs(lines_of(new)) do
        out.add("+", l)
      end
    end
    return "Allow this edit of " .. visible(name) .. "?", out.text()
  end
  -- write
  local content = tostring(input.content or "")
  local old_text = fs.read(s.abs)
  if not old_text then
    local _, count = content:gsub("\n", "")
    if #content > 0 and byte(content, -1) ~= NL then
      count = count + 1
    end
    for _, l in ipairs(lines_of(sub(content, 1, MAX_DIFF_BYTES))) do
      out.add("+", l)
    end
    out.cut = math.max(out.cut, count - out.n)
    return string.format("Allow writing %s (new file, %d lines)?", visible(name), count), out.text()
  end
  if #old_text > MAX_DIFF_BYTES or #content > MAX_DIFF_BYTES then
    out.add("", string.format("(%d bytes, now %d: too large to show a diff)", #old_text, #content))
    return string.format("Allow overwriting %s?", visible(name)), out.text()
  end
  local new = lines_of(content)
  local old = lines_of(old_text)
  local a, b = 1, 0 -- the changed region: lines a..#old-b of old, a..#new-b of new
  while a <= #old and a <= #new and old[a] == new[a] do
    a = a + 1
  end
  while b < #old - a + 1 and b < #new - a + 1 and old[#old - b] == new[#new - b] do
    b = b + 1
  end
  if a <= #old - b or a <= #new - b then
    out.add("", string.format("@@ line %d @@", a))
  end
  for k = a, #old - b do
    out.add("-", old[k])
  end
  for k = a, #new - b do
    out.add("+", new[k])
  end
  return string.format("Allow overwriting %s (%d lines, now %d)?", visible(name), #old, #new), out.text()
end

-- add_rule adds a rule to the state (once); nil and a message when the
-- text is not a rule.
local function add_rule(st, kind, text, session)
  local r, err = parse_rule(text)
  if not r then
    return nil, err
  end
  for _, o in ipairs(st.rules) do
    if o.kind == kind and compiled(o) and o.text == r.text then
      return o
    end
  end
  r.kind, r.session, r.compiled = kind, session, true
  st.rules[#st.rules + 1] = r
  st.index()
  return r
end

-- ask puts the call to the user: true to run it.
local function ask(st, tool, input, s, ctx, offer_always)
  local title, details = describe(tool, input, s)
  if details ~= "" then
    title = title .. "\n" .. details
  end
  local options = { "yes", "no" }
  local always = offer_always and always_rules(tool, s)
  if always then
    options[3] = "yes, and allow " .. concat(always, ", ") .. " for the rest of this session"
  end
  local choice = ctx.ui.select(title, options)
  if choice == nil or choice == "no" then
    return false
  end
  if choice ~= "yes" then
    for _, text in ipairs(always) do
      add_rule(st, "allow", text, true)
    end
  end
  return true
end

-- grant is the result for a call that runs: a bash command gets its
-- sandbox; a write or edit the real path that was judged, which the tool
-- checks again before it opens it (a link swapped in meanwhile fails the
-- call instead of redirecting it).
local function grant(st, tool, s, ctx)
  if tool == "bash" then
    return { sandbox = st.box(ctx) }
  elseif s and s.abs and (tool == "write" or tool == "edit") then
    return { sandbox = { write = { s.abs } } }
  end
  return nil
end

-- before decides a call the fast path in permissions.lua left open.
function M.before(st, ev, ctx)
  local tool = ev.tool_name
  local d = decide(st, ev, ctx.cwd)
  if d.verdict == "run" then
    return grant(st, tool, d.subject, ctx)
  elseif d.verdict == "refuse" then
    return { block = true, reason = st.refusal(d.why, tool, d.rule) }
  elseif not ctx.has_ui then
    return st.no_ui(tool, ctx)
  end
  -- "yes, and allow such calls" only where the mode asks, not an ask rule
  if ask(st, tool, ev.input, d.subject, ctx, d.rule == nil) then
    return grant(st, tool, d.subject, ctx)
  end
  return { block = true, reason = st.refusal("no", tool) }
end

-- /permissions ----------------------------------------------------------

-- sandbox_line says how bash commands are confined.
local function sandbox_line(st)
  if not st.sandbox_on then
    return "  sandbox: off (\"sandbox\": false): bash commands write anywhere"
  end
  st.kernel = st.kernel or lunar.sandbox()
  local k = st.kernel
  if not k.available then
    return "  sandbox: unavailable, bash commands write anywhere: " .. tostring(k.reason)
  end
  local where = "write only in the working folder and the temp folder"
  if #st.writable > 0 then
    where = where .. ", " .. concat(st.writable, ", ")
  end
  if st.mode == "read-only" then
    where = "write no files"
  end
  return string.format("  sandbox: %s ABI %d: bash commands %s", k.name, k.version, where)
end

local function describe_settings(st)
  local what = {
    ask = "asks before write, edit, bash and MCP tools; reads and hook tools run",
    auto = "runs every tool without asking",
    ["read-only"] = (st.confined() and "refuses write and edit; bash runs sandboxed" or "refuses write, edit and bash") .. "; MCP tools only when marked read-only",
  }
  local out = { string.format("permissions: mode %s (%s)%s", st.mode, what[st.mode],
    st.mode ~= st.config_mode and string.format("; %s in config", st.config_mode) or "") }
  local any = false
  for _, kind in ipairs(KINDS) do
    for _, r in ipairs(st.rules) do
      if r.kind == kind then
        any = true
        compiled(r)
        out[#out + 1] = string.format("  %-6s %s%s", kind .. ":", r.text, r.session and "   (this session)" or "")
      end
    end
  end
  if not any then
    out[#out + 1] = "  no allow, ask or deny rules"
  end
  out[#out + 1] = sandbox_line(st)
  return concat(out, "\n")
end

local USAGE = "usage: /permissions [mode ask|auto|read-only | allow RULE | ask RULE | deny RULE | remove RULE | reset]"

-- command runs /permissions.
function M.command(st, args, ctx)
  local verb, rest = args:match("^%s*(%S*)%s*(.-)%s*$")
  if verb == "" then
    ctx.ui.notify(describe_settings(st), "info")
    return
  end
  if not ctx.has_ui then
    -- A -p or piped prompt is data, not permission.
    ctx.ui.notify('permissions: changed only in the REPL; for a script use --yes or "permissions" in config.json', "error")
    return
  end
  if verb == "mode" then
    if not st.MODES[rest] then
      ctx.ui.notify(USAGE, "error")
      return
    end
    st.mode = rest
  elseif verb == "allow" or verb == "ask" or verb == "deny" then
    local r, err = add_rule(st, verb, rest, true)
    if not r then
      ctx.ui.notify(string.format("permissions: %q: %s", rest, err), "error")
      return
    end
  elseif verb == "remove" then
    local p = parse_rule(rest)
    local kept, removed = {}, false
    for _, r in ipairs(st.rules) do
      if p and compiled(r) and r.text == p.text then
        removed = true
      else
        kept[#kept + 1] = r
      end
    end
    if not removed then
      ctx.ui.notify(string.format("permissions: no rule %q", rest), "error")
      return
    end
    st.rules = kept
    st.index()
  elseif verb == "reset" then
    st.reset()
  else
    ctx.ui.notify(USAGE, "error")
    return
  end
  ctx.ui.notify(describe_settings(st), "info")
end

return M
