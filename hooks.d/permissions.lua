-- permissions.lua: the permission policy, bundled with lunar (embedded in
-- the binary). It decides, before each tool call, whether the call runs,
-- is refused, or needs the user's yes.
--
-- Settings: "permissions" in config.json (read with lunar.config()):
--
--   "permissions": {
--     "mode":  "ask",                      -- ask (default) | auto | read-only
--     "allow": ["bash: git status *", "bash: go test *"],
--     "ask":   ["read: ~/.ssh/*"],
--     "deny":  ["bash: rm -rf *", "write: .env"]
--   }
--
-- Modes: "ask" asks before write, edit, bash and MCP server tools (reads
-- and hook tools run); "auto" never asks (pi's behaviour; `--yes` is auto
-- for one run); "read-only" refuses write and edit, bash where no sandbox
-- confines it (see Sandbox below), and MCP tools their server does not
-- mark read-only (readOnlyHint). A rule is "tool" (every call)
-- or "tool: pattern", where * matches any text and a trailing " *" also
-- matches nothing ("git status *" matches "git status" and "git status
-- -s", not "git statusx"). Patterns match bash's command, the path of
-- read, write and edit (relative patterns: paths inside the working
-- folder; absolute or ~ ones: any path; a path is judged as the file it
-- really reaches, links and /proc/self/root resolved: fs.realpath), and
-- other tools' arguments as JSON. MCP tools are named
-- mcp__<server>__<tool>: "mcp__github" or "mcp__github__*" names every
-- tool of that server (a deny rule shuts the server out), and any
-- name ending in * every tool it starts. A write or edit that a link leads out
-- of the working folder always asks. Each call is decided by the first
-- that applies:
--
--   1. a deny rule matches            refused (in every mode)
--   2. read-only, write/edit/bash     refused (sandboxed bash: 4, then runs)
--      read-only, MCP tool not marked read-only: refused
--   3. auto                           runs
--   4. an ask rule matches            asks
--   5. allow rules cover it           runs
--   6. write, edit, bash, MCP tools   asks
--   7. anything else                  runs
--
-- Sandbox: on Linux with Landlock, a bash command that runs (asked,
-- allowed by a rule, or in auto mode) may write only in the working
-- folder, the temp folder and the folders of "writable"; in read-only
-- mode bash runs with nothing writable instead of being refused. The
-- kernel enforces it on the command and everything it starts.
-- "sandbox": false (your own config only) turns it off; without
-- Landlock lunar says so once and runs commands unconfined.
--
-- "Asks" means a dialog in the REPL: yes / no / yes and allow such calls
-- for the rest of the session. Where no one can answer (one-shot and JSON
-- modes: ctx.has_ui is false) the call is refused with a result that says
-- so, and one line on stderr names the setting to change.
--
-- Bash commands (hooks.d/lib/permissions_shell.lua): the command is parsed
-- with a real bash parser (require("shell"), mvdan.cc/sh) into the simple
-- commands bash would run, as the exact words each program receives.
-- Allow rules must cover every one; what the parser cannot reduce to
-- plain commands with literal words ($VAR, $(…), globs, a redirection
-- that writes, a function, a loop, \r, …) always asks. A rule's pattern
-- is matched against the real command, after wrappers that run the
-- command after their options (timeout, nice, nohup, env, exec, …), and a
-- * never stands for a word that runs code or writes files (find -exec,
-- go test -exec, git -c, sed's w, awk's system(), every argument of sh,
-- eval, source…): the rule must spell it. No pattern covers a command
-- behind sudo, doas, xargs or eval, or with variables set in front (only
-- "bash" alone, every command, does). A rule names a program, not what it does: "go test *" runs the
-- package's tests, "git *" the repository's hooks. Deny and ask rules
-- match any command found anywhere (through wrappers, in substitutions,
-- here-documents and sh -c '…'); they are a tripwire, not a sandbox: a
-- determined command can always be written another way.
--
-- /permissions shows the settings; in the REPL it also changes them for
-- the session. Turn the policy off with "disabled_hooks": ["permissions"]
-- in your own config.json (a project's config cannot).
--
-- Cost: this file only decides what needs no rule — reads, hook tools,
-- auto mode, read-only and ask without a UI, for tools no rule names —
-- in a few table lookups. The rest (rules, command parsing, dialogs,
-- /permissions) is hooks.d/lib/permissions_impl.lua, compiled on first
-- use.

-- A guard fails closed: a call this hook cannot decide (an error, a
-- timeout, its memory cap) is refused, and while it is out of order every
-- tool call is. Bundled, it is one even before this line runs
-- (hooksd.Guards); the call says so here, and is how a hook of yours
-- becomes one.
lunar.guard()

-- The tools the modes ask about (or refuse), and the modes: here once,
-- shared with permissions_impl through st.
local MUTATING = { write = true, edit = true, bash = true }
local MODES = { ask = true, auto = true, ["read-only"] = true }

local impl
local function I()
  impl = impl or require("permissions_impl")
  return impl
end

-- st is the policy's state, shared with permissions_impl: the mode, the
-- rules in order ({kind=, text=, tool=, session=}, compiled there on first
-- use) and which tools they name.
local conf = lunar.config() or {}
local st = { rules = {}, by_tool = {}, warned = false, MUTATING = MUTATING, MODES = MODES }
st.config_mode = MODES[conf.mode] and conf.mode or "ask"
st.mode = st.config_mode
st.sandbox_on = conf.sandbox ~= false
st.writable = type(conf.writable) == "table" and conf.writable or {}

-- box returns the sandbox of a bash call that runs now (see "Sandbox"
-- above): nil when it is off or the kernel has none (said once).
function st.box(ctx)
  if not st.sandbox_on then
    return nil
  end
  st.kernel = st.kernel or lunar.sandbox()
  if not st.kernel.available then
    if not st.kernel_warned then
      st.kernel_warned = true
      ctx.ui.notify("sandbox: unavailable, bash commands run unconfined: " .. tostring(st.kernel.reason), "warning")
    end
    return nil
  end
  if st.mode == "read-only" then
    return { workdir = false }
  end
  return { workdir = true, write = st.writable }
end

-- confined reports whether bash runs in a kernel sandbox.
function st.confined()
  st.kernel = st.kernel or lunar.sandbox()
  return st.sandbox_on and st.kernel.available
end

function st.index()
  st.by_tool, st.mcp_rules = {}, false
  for _, r in ipairs(st.rules) do
    st.by_tool[r.tool] = true
    if string.find(r.tool, "mcp__", 1, true) == 1 or string.byte(r.tool, -1) == 42 then
      st.mcp_rules = true -- a server's rule, or a name ending in *: st.covers decides
    end
  end
end

-- is_mcp reports whether a call is to an MCP server's tool.
function st.is_mcp(ev)
  return string.find(ev.tool_name, "mcp__", 1, true) == 1 or string.find(ev.source or "", "mcp:", 1, true) == 1
end

-- covers reports whether a rule's tool name names tool: the same name;
-- a name ending in * every tool it starts; "mcp__server" every tool of
-- that server.
function st.covers(rtool, tool)
  if rtool == tool then
    return true
  elseif string.byte(rtool, -1) == 42 then -- *
    local prefix = string.sub(rtool, 1, -2)
    return string.sub(tool, 1, #prefix) == prefix
  elseif string.find(rtool, "mcp__", 1, true) == 1 and not string.find(rtool, "__", 6, true) then
    return string.sub(tool, 1, #rtool + 2) == rtool .. "__"
  end
  return false
end

-- reset goes back to the settings of config.json.
function st.reset()
  st.mode, st.rules = st.config_mode, {}
  for _, kind in ipairs({ "deny", "ask", "allow" }) do
    for _, text in ipairs(conf[kind] or {}) do
      local tool = type(text) == "string" and text:match("^%s*([%w_%-]+%*?)")
      if tool then
        st.rules[#st.rules + 1] = { kind = kind, text = text, tool = tool }
      else
        lunar.log("error", string.format("permissions.%s: %q ignored: not a rule", kind, tostring(text)))
      end
    end
  end
  st.index()
end
st.reset()

-- Reasons the model reads. They say what happened and what the user can
-- change, so that the model reports it rather than looking for a way
-- around.
function st.refusal(why, tool, rule)
  if why == "deny" then
    return string.format("Permission denied: this %s call matches the deny rule %q of lunar's permission settings. Do not try to get around it; tell the user if you need it.", tool, rule.text)
  elseif why == "read-only" then
    return "Permission denied: lunar is in read-only mode, so write, edit and bash are refused. Tell the user what you would change instead."
  elseif why == "read-only-mcp" then
    return string.format("Permission denied: lunar is in read-only mode and the MCP server does not mark %s as read-only, so it is refused. Tell the user what you would do instead.", tool)
  elseif why == "unscannable" then
    return "Permission denied: this bash command is too long (over 64 KiB) to check against the deny rules of lunar's permission settings. Split it into shorter commands, or write long content with the write tool."
  elseif why == "no-ui" then
    return string.format("Permission denied: %s needs the user's approval and this run cannot ask (one-shot or JSON mode). Do not retry it; tell the user. They can allow it with --yes, or in config.json (\"permissions\").", tool)
  end
  return string.format("The user refused this %s call. Do not retry it; ask the user how to continue.", tool)
end

-- no_ui refuses a call that needs asking where no one can answer, and
-- says once on stderr what to change.
function st.no_ui(tool, ctx)
  if not st.warned then
    st.warned = true
    ctx.ui.notify(string.format('permissions: %s refused: mode "ask" and no one to ask in this run; pass --yes, or set "permissions": {"mode": "auto"} (or an "allow" rule) in config.json', tool), "warning")
  end
  return { block = true, reason = st.refusal("no-ui", tool) }
end

lunar.on("tool.execute.before", function(ev, ctx)
  local tool, mode = ev.tool_name, st.mode
  local mcp = st.is_mcp(ev)
  if not st.by_tool[tool] and not (mcp and st.mcp_rules) then
    if mcp then
      if mode == "auto" or (mode == "read-only" and ev.read_only) then
        return nil
      elseif mode == "read-only" then
        return { block = true, reason = st.refusal("read-only-mcp", tool) }
      elseif not ctx.has_ui then
        return st.no_ui(tool, ctx)
      end
    elseif not MUTATING[tool] then
      return nil
    elseif tool == "bash" and (mode == "auto" or (mode == "read-only" and st.confined())) then
      return { sandbox = st.box(ctx) }
    elseif mode == "auto" then
      return nil
    elseif mode == "read-only" then
      return { block = true, reason = st.refusal("read-only", tool) }
    elseif not ctx.has_ui then
      return st.no_ui(tool, ctx)
    end
  end
  return I().before(st, ev, ctx)
end)

lunar.command("permissions", {
  description = "show the permission settings; change them for this session",
  handler = function(args, ctx)
    I().command(st, args, ctx)
  end,
})
