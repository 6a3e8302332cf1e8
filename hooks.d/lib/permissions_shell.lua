-- permissions_shell.lua: how the permission policy judges a bash command
-- (required by permissions_impl.lua). See hooks.d/permissions.lua for the
-- rule language and docs/hooks.md ("The permission policy").
--
-- Allow rules judge what shell.parse reports: the exact simple commands
-- bash would run, or nothing at all (a construct it cannot reduce asks).
-- Each command is judged as its real command: after the wrappers that run
-- the command after their options (timeout 5 ls is ls), with the words a *
-- may not stand for (find -exec, git -c, sed's w …: RISKY below) spelled
-- out in the rule. Deny and ask rules are a tripwire over shell.scan:
-- every command anywhere, behind every wrapper.

local shell = require("shell")

local M = {}

local byte, sub, concat = string.byte, string.sub, table.concat

local function set(words)
  local t = {}
  for w in words:gmatch("%S+") do
    t[w] = true
  end
  return t
end

local function basename(w)
  return w:match("([^/]*)$")
end

local function is_assignment(w)
  return w:find("^[%a_][%w_]*%+?=") ~= nil
end

-- Wrappers run the command after their options. takes: the options that
-- take a value as the next word; skip: positional words before the
-- command (timeout's duration); stop: options after which the wrapper runs
-- nothing (command -v ls only looks ls up); opaque: allow rules never
-- see through it (another user, arguments from stdin, a command split out
-- of one word): its calls always ask, whatever the command.
local WRAPPERS = {
  timeout = { takes = set("-s --signal -k --kill-after"), skip = 1 },
  nice = { takes = set("-n --adjustment") },
  nohup = {},
  stdbuf = { takes = set("-i -o -e --input --output --error") },
  ionice = { takes = set("-c --class -n --classdata -t") },
  caffeinate = { takes = set("-t -w") },
  command = { stop = set("-v -V") },
  builtin = {},
  exec = { takes = set("-a") },
  env = { takes = set("-u --unset -C --chdir"), assigns = true, opaque_opts = set("-S --split-string") },
  time = { takes = set("-o --output -f --format") }, -- /usr/bin/time
  sudo = { opaque = true, takes = set("-u -g -h -p -C -D -r -t -U -T") },
  doas = { opaque = true, takes = set("-u -C") },
  xargs = { opaque = true, takes = set("-a -d -E -I -L -n -P -s --arg-file --delimiter --max-args --max-procs --max-chars") },
  eval = { opaque = true },
}

-- unwrap returns the real command of words (the words after every
-- wrapper), the wrappers passed, whether one is opaque, and whether
-- variables are set for it (env A=1 …).
local function unwrap(words)
  local i, via, opaque, assigns = 1, {}, false, false
  while words[i] do
    local w = WRAPPERS[basename(words[i])]
    if not w then
      break
    end
    local j = i + 1
    while words[j] do
      local o = words[j]
      if o == "--" then
        j = j + 1
        break
      elseif w.stop and w.stop[o] then
        return words, i, via, opaque, assigns -- the wrapper itself is the command
      elseif w.assigns and is_assignment(o) then
        assigns = true
      elseif byte(o, 1) == 45 and #o > 1 then -- "-"
        local name = o:match("^(%-%-[^=]+)=") or o
        if w.opaque_opts and w.opaque_opts[name] then
          opaque = true
        end
        if w.takes and w.takes[o] then
          j = j + 1
        end
      else
        break
      end
      j = j + 1
    end
    j = j + (w.skip or 0)
    if not words[j] then
      return words, i, via, opaque, assigns -- nothing wrapped: the wrapper runs alone
    end
    via[#via + 1] = basename(words[i])
    opaque = opaque or w.opaque or false
    i = j
  end
  return words, i, via, opaque, assigns
end

-- RISKY: per program, the words a * in an allow rule never stands for,
-- because they run code or write files that the rule's author did not
-- name: opts (the option, or --opt=value), short (letters in a cluster of
-- single-letter options: sed -ni), sub (the second word), known (the
-- second word must be one of these: git aliases run anything), any (every
-- argument: shells and builtins that evaluate text or change how later
-- commands run), script (a function that judges the words itself).
local RISKY = {}

RISKY.find = { opts = set("-exec -execdir -ok -okdir -fprint -fprint0 -fprintf -fls -delete") }
RISKY.go = { opts = set("-exec -toolexec -overlay -modfile"), sub = set("run generate tool") }
RISKY.git = {
  opts = set([[-c --config-env --exec-path -C --git-dir --work-tree --upload-pack --receive-pack -u
    --exec -x --extcmd --ext-diff --output -O --open-files-in-pager --template]]),
  sub = set("config submodule bisect filter-branch difftool mergetool daemon instaweb hook"),
  known = set([[status log diff show branch tag fetch pull push add commit checkout switch restore reset
    rebase merge stash rev-parse ls-files ls-tree blame grep describe remote clone init mv rm cherry-pick
    revert shortlog reflog cat-file show-ref for-each-ref worktree clean apply am format-patch archive
    notes gc fsck cherry range-diff version help rev-list name-rev count-objects var]]),
}
RISKY.printf = { opts = set("-v") } -- printf -v 'a[$(id)]' evaluates the subscript
RISKY.test = { opts = set("-v") }
RISKY["["] = RISKY.test
for name in ([[bash sh zsh dash ksh mksh fish csh tcsh eval source . trap alias unalias enable hash
  declare typeset local export readonly let shopt set unset read mapfile readarray getopts bind
  complete compgen fc history exec su]]):gmatch("%S+") do
  RISKY[name] = { any = true }
end

-- sed_script_risky reports whether a sed script may run a command or
-- write a file (e, w, W, s///e, s///w) or is too unusual to tell: a small
-- scanner of GNU sed's syntax that refuses what it does not know.
local SED_SAFE = set("d D g G h H l n N p P q Q x z = { } F")
local function sed_script_risky(s)
  local i, n = 1, #s
  local function skip_delimited(d) -- from after an opening d to after the closing d
    while i <= n do
      local c = sub(s, i, i)
      if c == "\\" then
        i = i + 2
      elseif c == "[" then
        return false -- a bracket may hold the delimiter: do not guess
      elseif c == d then
        i = i + 1
        return true
      else
        i = i + 1
      end
    end
    return false
  end
  while i <= n do
    local c = sub(s, i, i)
    if c:find("[%s;]") then
      i = i + 1
    elseif c == "#" then
      i = (s:find("\n", i, true) or n) + 1
    elseif c:find("[%d$,~+!]") then -- addresses
      i = i + 1
    elseif c == "/" or c == "\\" then
      if c == "\\" then
        i = i + 1
      end
      local d = sub(s, i, i)
      i = i + 1
      if d == "" or not skip_delimited(d) then
        return true
      end
      while sub(s, i, i):find("^[IM]$") do
        i = i + 1
      end
    elseif c == "s" or c == "y" then
      local d = sub(s, i + 1, i + 1)
      i = i + 2
      if d == "" or d:find("[%s\\\n]") or not skip_delimited(d) or not skip_delimited(d) then
        return true
      end
      if c == "s" then
        while i <= n and not sub(s, i, i):find("[;\n}]") do
          if not sub(s, i, i):find("[gpiImM%d]") then
            return true -- e, w and anything unknown
          end
          i = i + 1
        end
      end
    elseif c == "a" or c == "i" or c == "c" or c == "r" or c == "R" or c == ":" then
      i = (s:find("\n", i, true) or n) + 1 -- text, a file read, a label: to the end of the line
    elseif c == "b" or c == "t" or c == "T" then
      local e = s:find("[;\n]", i)
      i = (e or n) + 1
    elseif SED_SAFE[c] then
      i = i + 1
      while sub(s, i, i):find("^%d$") do
        i = i + 1
      end
    else
      return true -- e, w, W, v and what this scanner does not know
    end
  end
  return false
end

RISKY.sed = {
  opts = set("--in-place -f --file"),
  script = function(words, out)
    local script_given = false
    local k = 2
    while words[k] do
      local w = words[k]
      if w == "--" then
        k = k + 1
        break
      elseif w:find("^%-%-expression=") then
        script_given = true
        if sed_script_risky(sub(w, 14)) then
          out[#out + 1] = w
        end
      elseif w:find("^%-[^-]") then
        -- a cluster of short options: -n, -E, -i[SUFFIX], -e SCRIPT, -f FILE, -l N
        for p = 2, #w do
          local o = sub(w, p, p)
          if o == "i" or o == "f" then
            out[#out + 1] = w
            break
          elseif o == "e" or o == "l" then
            local arg = sub(w, p + 1)
            if arg == "" then
              k = k + 1
              arg = words[k] or ""
            end
            if o == "e" then
              script_given = true
              if sed_script_risky(arg) then
                out[#out + 1] = arg
              end
            end
            break
          end
        end
      elseif w == "--expression" then
        script_given = true
        k = k + 1
        if sed_script_risky(words[k] or "") then
          out[#out + 1] = words[k] or ""
        end
      elseif byte(w, 1) ~= 45 and not script_given then
        script_given = true
        if sed_script_risky(w) then
          out[#out + 1] = w
        end
      end
      k = k + 1
    end
  end,
}

-- awk programs run commands with system(), | and getline, and write files
-- with > and gawk's -o, -p, -d: a program that holds any of them (or a
-- comparison with >), and every option but -F and -v, is spelled out.
local function awk_script(words, out)
  local k, program = 2, false
  while words[k] do
    local w = words[k]
    if w == "-F" or w == "-v" then
      k = k + 1
    elseif w:find("^%-[Fv].") then
      -- -F: and -vX=1
    elseif byte(w, 1) == 45 and #w > 1 then
      out[#out + 1] = w
    elseif not program then
      program = true
      if w:find("system", 1, true) or w:find("getline", 1, true) or w:find("[|>@]") then
        out[#out + 1] = w
      end
    end
    k = k + 1
  end
end
for _, name in ipairs({ "awk", "gawk", "mawk", "nawk" }) do
  RISKY[name] = { script = awk_script }
end
RISKY.busybox = { any = true }

-- risky_words lists the words of a real command that a * does not stand
-- for.
local function risky_words(words, from)
  local prog = words[from]
  local r = RISKY[basename(prog)]
  local out = {}
  if not r then
    return out
  end
  local cmd = {}
  for k = from, #words do
    cmd[#cmd + 1] = words[k]
  end
  if r.any then
    for k = 2, #cmd do
      out[#out + 1] = cmd[k]
    end
    return out
  end
  if r.sub and cmd[2] and r.sub[cmd[2]] then
    out[#out + 1] = cmd[2]
  end
  if r.known and not r.known[cmd[2] or ""] then
    -- the first word that is not an option (global options are risky anyway)
    for k = 2, #cmd do
      if byte(cmd[k], 1) ~= 45 then
        if not r.known[cmd[k]] then
          out[#out + 1] = cmd[k]
        end
        break
      end
    end
  end
  if r.opts then
    for k = 2, #cmd do
      local w = cmd[k]
      if r.opts[w] or r.opts[w:match("^(%-[^=]+)=") or ""] then
        out[#out + 1] = w
      end
    end
  end
  if r.script then
    r.script(cmd, out)
  end
  return out
end

-- spelled reports whether the pattern names every risky word as a word of
-- its own.
local function spelled(pattern, risky)
  if #risky == 0 then
    return true
  end
  local tokens = set(pattern)
  for _, w in ipairs(risky) do
    if not tokens[w] then
      return false
    end
  end
  return true
end

-- subject is what the rules see of a bash command: cmds, the simple
-- commands shell.parse reports (nil, with why, when it cannot), and the
-- forms deny and ask rules match, built on first use.
function M.subject(command)
  local cmds, why = shell.parse(command)
  return { bash = true, command = command, cmds = cmds, why = why }
end

-- real describes a simple command for allow rules: the real command's
-- words joined, its risky words, and why no allow rule can cover it.
local function real(c)
  if #c.assigns > 0 then
    return nil, "variables set for the command"
  end
  if #c == 0 then
    return { text = "", risky = {}, empty = true }
  end
  local words, from, via, opaque, assigns = unwrap(c)
  if opaque then
    return nil, "behind " .. via[#via]
  elseif assigns then
    return nil, "variables set for the command"
  end
  local prog = words[from]
  if prog:find("[%s%*]") or prog == "" then
    return nil, "an unusual program name"
  end
  return { text = concat(words, " ", from), prog = prog, words = words, from = from, risky = risky_words(words, from) }
end

-- covered reports whether allow rules (compiled bash rules, each with a
-- pattern) cover every simple command of the subject.
function M.covered(rules, s)
  if not s.cmds or #rules == 0 then
    return false
  end
  for _, c in ipairs(s.cmds) do
    local rc = real(c)
    if not rc then
      return false
    end
    if not rc.empty then
      local ok = false
      for _, r in ipairs(rules) do
        if r.match(rc.text) and spelled(r.pattern, rc.risky) then
          ok = true
          break
        end
      end
      if not ok then
        return false
      end
    end
  end
  return true
end

-- Programs whose second word picks what they do ("go test", "git diff"):
-- "always" allows that subcommand, not the whole program.
local SUBCOMMANDS = set([[git go npm npx pnpm yarn bun deno cargo rustup docker podman kubectl helm
  gh pip pip3 uv poetry dotnet mvn gradle brew apt apt-get dnf systemctl terraform nix
  just make cmake bazel swift zig]])

-- always returns the allow rules "yes, and allow such calls" offers: one
-- per real command (its program, and subcommand for SUBCOMMANDS); nil
-- when such rules could not cover the call (a construct shell.parse
-- refuses, an opaque wrapper, assignments, a risky word).
function M.always(s, compile)
  if not s.cmds or #s.cmds == 0 then
    return nil
  end
  local out, seen, rules = {}, {}, {}
  for _, c in ipairs(s.cmds) do
    local rc = real(c)
    if not rc then
      return nil
    end
    if not rc.empty then
      local prefix = rc.prog
      if not prefix:find("^[%w_.+/@:-]+$") then
        return nil
      end
      local second = rc.words[rc.from + 1]
      if SUBCOMMANDS[basename(prefix)] then
        if not (second and second:find("^%a[%w_.:-]*$")) then
          return nil -- git -C x …: no rule for all of git
        end
        prefix = prefix .. " " .. second
      end
      local text = "bash: " .. prefix .. " *"
      if not seen[text] then
        seen[text] = true
        out[#out + 1] = text
        rules[#rules + 1] = compile(text)
      end
    end
  end
  if #out == 0 or not M.covered(rules, s) then
    return nil
  end
  return out
end

-- Deny and ask rules ----------------------------------------------------

-- variants adds the forms deny and ask rules are matched against: the
-- words joined, again after each wrapper or assignment, and with the
-- program's directory dropped.
local function variants(words, out)
  local i = 1
  while words[i] do
    out[#out + 1] = concat(words, " ", i)
    local w = words[i]
    local base = basename(w)
    if base ~= w and base ~= "" then
      out[#out + 1] = words[i + 1] and base .. " " .. concat(words, " ", i + 1) or base
    end
    if is_assignment(w) then
      i = i + 1
    elseif WRAPPERS[base] then
      local _, from = unwrap({ unpack(words, i) })
      if from <= 1 then
        break
      end
      i = i + from - 1
    else
      break
    end
  end
end

-- forms are what deny and ask rules are matched against: every command
-- shell.scan finds (through its wrappers), and the whole command; nil
-- when the command is too long to scan.
local function forms(s)
  if s.forms == nil then
    local cmds = s.cmds -- what parse found is all there is, unless a word may hold a command
    if cmds then
      for _, c in ipairs(cmds) do
        for _, w in ipairs(c) do
          if w:find("[%s;&|()<>`$]") then
            cmds = nil
            break
          end
        end
        if not cmds then
          break
        end
      end
    end
    cmds = cmds or shell.scan(s.command)
    if not cmds then
      s.forms = false
      return false
    end
    local out = {}
    for _, c in ipairs(cmds) do
      local words = {}
      for _, a in ipairs(c.assigns) do
        words[#words + 1] = a
      end
      for _, w in ipairs(c) do
        words[#words + 1] = w
      end
      if #words > 0 then
        variants(words, out)
      end
    end
    out[#out + 1] = s.command
    s.forms = out
  end
  return s.forms
end

-- unscannable reports whether deny and ask rules cannot be checked (the
-- command is over shell's 64 KiB).
function M.unscannable(s)
  return forms(s) == false
end

-- matches reports whether a deny or ask rule matches any form.
function M.matches(r, s)
  local fs = forms(s)
  if not fs then
    return false
  end
  for _, f in ipairs(fs) do
    if r.match(f) then
      return true
    end
  end
  return false
end

return M
