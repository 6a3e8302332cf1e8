-- git-checkpoint.lua: snapshot the work tree before every prompt, and
-- /restore [N] to put the files back as they were.
--
-- Shows: agent.before_start (once per prompt, before the model acts),
-- lunar.exec running git, a command with a numbered pick (ctx.ui.select)
-- and an argument form for one-shot use, and session `custom` entries
-- that tie each checkpoint to its place in the conversation (so /restore
-- offers the checkpoints of the current branch only).
--
-- Snapshots go to a shadow repository in the hook's data folder (one per
-- work tree, e.g. ~/.local/share/lunar/hooks/git-checkpoint/<name>.git),
-- never to your repository: your index, branches, stash and refs are not
-- touched. Each snapshot is a commit of the whole work tree — modified
-- and untracked files alike; what your .gitignore ignores is left out —
-- under refs/lunar/checkpoints/<time>, so git keeps it. A prompt that
-- changed nothing since the last snapshot adds none.
--
--   /restore        REPL: pick a checkpoint; one-shot: list them
--   /restore N      restore the Nth latest checkpoint of this branch
--                   (1: the files as they were before the last prompt)
--
-- /restore first snapshots the files as they are, so `/restore 1` right
-- after undoes it. It brings back the files only, not the conversation
-- (use /branch for that). It works only inside a git work tree. The first
-- snapshot copies the tree into the shadow repository (for a large
-- repository, seconds, under the hook timeout); later ones store only
-- what changed.
--
-- Install:
--   cp examples/git-checkpoint.lua ~/.config/lunar/hooks.d/
--   lunar hooks check ~/.config/lunar/hooks.d/git-checkpoint.lua
--
-- Inspect the snapshots with git itself:
--   git --git-dir ~/.local/share/lunar/hooks/git-checkpoint/<name>.git log refs/lunar/checkpoints/…
-- Remove a folder's snapshots by deleting its <name>.git folder.

local fs = require("fs")
local text = require("text")
local time = require("time")

local ENTRY = "git-checkpoint"
local FILTER = { type = "custom", custom_type = ENTRY }

local repos = {} -- cwd -> {dir=, top=} or false (not a work tree)

-- git runs git; it returns stdout, or nil and a message.
local function git(args, cwd)
  local r, err = lunar.exec("git", args, { timeout_ms = 25000, cwd = cwd })
  if not r then
    return nil, err
  end
  if r.code ~= 0 then
    return nil, text.trim(r.stderr ~= "" and r.stderr or r.stdout)
  end
  return text.trim(r.stdout)
end

-- hash is a short stable name for a path (djb2).
local function hash(s)
  local h = 5381
  for i = 1, #s do
    h = (h * 33 + s:byte(i)) % 4294967296
  end
  return string.format("%08x", h)
end

-- repo finds the work tree around the working folder and its shadow
-- repository (created on first use); nil when cwd is not in a work tree.
local function repo(ctx)
  if repos[ctx.cwd] ~= nil then
    return repos[ctx.cwd] or nil
  end
  local top = git({ "rev-parse", "--show-toplevel" }, ctx.cwd)
  if not top or top == "" or not ctx.data_dir then
    repos[ctx.cwd] = false
    return nil
  end
  local base = top:match("([^/\\]+)$") or "root"
  local dir = ctx.data_dir .. "/" .. base:gsub("[^%w%._%-]", "_") .. "-" .. hash(top) .. ".git"
  if not fs.exists(dir .. "/HEAD") then
    local _, err = git({ "init", "--bare", "-q", dir }, top)
    if err then
      lunar.log("warn", "git-checkpoint: cannot create " .. dir .. ": " .. err)
      repos[ctx.cwd] = false
      return nil
    end
  end
  repos[ctx.cwd] = { dir = dir, top = top }
  return repos[ctx.cwd]
end

-- shadow runs a git command on the shadow repository and the work tree.
local function shadow(r, args)
  local full = { "-c", "user.name=lunar", "-c", "user.email=lunar@localhost", "-c", "core.autocrlf=false",
    "--git-dir=" .. r.dir, "--work-tree=" .. r.top }
  for _, a in ipairs(args) do
    full[#full + 1] = a
  end
  return git(full, r.top)
end

-- snapshot commits the work tree; it returns the commit (nil when the
-- tree is as in the latest snapshot) or nil and an error.
local function snapshot(r, label)
  local _, err = shadow(r, { "add", "--all", "--", "." })
  if err then
    return nil, err
  end
  local tree
  tree, err = shadow(r, { "write-tree" })
  if not tree then
    return nil, err
  end
  local args = { "commit-tree", tree, "-m", label }
  local parent = shadow(r, { "rev-parse", "-q", "--verify", "refs/lunar/head^{commit}" })
  if parent and parent ~= "" then
    if shadow(r, { "rev-parse", parent .. "^{tree}" }) == tree then
      return nil
    end
    args[#args + 1] = "-p"
    args[#args + 1] = parent
  end
  local commit
  commit, err = shadow(r, args)
  if not commit then
    return nil, err
  end
  local ref = string.format("refs/lunar/checkpoints/%d", time.now_ms())
  for _, name in ipairs({ ref, "refs/lunar/head" }) do
    _, err = shadow(r, { "update-ref", name, commit })
    if err then
      return nil, err
    end
  end
  return commit, nil, ref
end

local function checkpoint(ctx, label)
  local r = repo(ctx)
  if not r then
    return
  end
  local commit, err, ref = snapshot(r, label)
  if err then
    lunar.log("warn", "git-checkpoint: " .. err)
  elseif commit then
    lunar.append_entry(ENTRY, { commit = commit, ref = ref, label = label, work_tree = r.top, time_ms = time.now_ms() })
  end
end

lunar.on("agent.before_start", function(ev, ctx)
  checkpoint(ctx, "before: " .. text.truncate((ev.prompt:gsub("%s+", " ")), 72, "…"))
  return nil
end)

local function describe(i, e)
  return string.format("%d. %s  %s", i, os.date("%H:%M:%S", math.floor((e.data.time_ms or 0) / 1000)), e.data.label or "")
end

lunar.command("restore", {
  description = "[N]: put the files back as they were at a checkpoint (1: before the last prompt); no N: list or pick",
  handler = function(args, ctx)
    local r = repo(ctx)
    if not r then
      ctx.ui.notify("git-checkpoint: not inside a git work tree", "warning")
      return
    end
    local all = ctx.session.entries(FILTER)
    local list = {} -- newest first, this work tree only
    for i = #all, 1, -1 do
      if all[i].data and all[i].data.work_tree == r.top then
        list[#list + 1] = all[i]
      end
    end
    if #list == 0 then
      ctx.ui.notify("git-checkpoint: no checkpoints on this branch yet", "info")
      return
    end
    local n = tonumber(ctx.args[1])
    if not n then
      local options = {}
      for i, e in ipairs(list) do
        options[i] = describe(i, e)
      end
      if not ctx.has_ui then
        ctx.ui.notify("checkpoints (newest first; /restore N):\n" .. table.concat(options, "\n"), "info")
        return
      end
      local pick = ctx.ui.select("Restore the files to which checkpoint?", options)
      if not pick then
        return
      end
      n = tonumber(pick:match("^(%d+)%."))
    end
    local target = list[n]
    if not target then
      ctx.ui.notify(string.format("git-checkpoint: no checkpoint %s (there are %d)", tostring(ctx.args[1]), #list), "error")
      return
    end
    local _, err = shadow(r, { "cat-file", "-e", target.data.commit .. "^{commit}" })
    if err then
      ctx.ui.notify("git-checkpoint: checkpoint " .. n .. " is gone from " .. r.dir .. ": " .. err, "error")
      return
    end
    checkpoint(ctx, "before /restore " .. n)
    _, err = shadow(r, { "read-tree", "-u", "--reset", target.data.commit })
    if err then
      ctx.ui.notify("git-checkpoint: restore failed: " .. err, "error")
      return
    end
    ctx.ui.notify(string.format("restored the files to checkpoint %d (%s); /restore 1 undoes it", n, target.data.label or ""), "info")
  end,
})
