-- prune.lua: /prune, bundled with lunar (embedded in the binary).
--
-- /prune drops or shortens tool results in what the model sees, to free
-- the context of output that is no longer needed. The session file keeps
-- every result whole: a choice is a "prune" custom entry on the path,
--
--   data = { action = "drop"|"shorten"|"keep", ids = { <toolResult entry ids> } }
--
-- and the context event applies the choices on the current path (the
-- latest choice for a result wins) to every later model call. Choices live
-- in the session tree, so they survive resume, and a branch that does not
-- contain a choice does not see it.
--
--   /prune                       REPL: pick results from a numbered list;
--                                one-shot: the same as /prune list
--   /prune list                  the tool results in the context, numbered
--                                from 1 (oldest), with size and state
--   /prune [ACTION] WHICH...     ACTION: drop (the default), shorten, keep
--   WHICH: 3  2-5  all  last N  all-but-last N   (several allowed: 1 3 7-9)
--
-- drop replaces a result with a one-line note (the call stays, so the
-- conversation stays well-formed); shorten keeps its beginning and end;
-- keep sends it whole again.
--
-- Cost when unused: this file only registers the command and a handler
-- (about 1 ms to load; the rest, hooks.d/lib/prune_impl.lua, is compiled
-- on first use), and the context handler asks for the prune entries on
-- the path (a filter: nothing else is converted) and returns: ev.messages
-- is never built (go test ./hooks.d -bench .). Turn it off with
-- "disabled_hooks": ["prune"].

-- Everything but the check below lives in hooks.d/lib/prune_impl.lua,
-- compiled on first use.
local CHOICES = { type = "custom", custom_type = "prune" }

local impl
local function prune()
  impl = impl or require("prune_impl")
  return impl
end

-- Before every model call: nothing to do (and ev.messages never built)
-- unless the path has choices.
lunar.on("context", function(ev, ctx)
  local choices = ctx.session.entries(CHOICES)
  if #choices == 0 then
    return nil
  end
  return prune().context(ev, ctx, choices)
end)

lunar.command("prune", {
  description = "[list | drop|shorten|keep WHICH...]: drop or shorten tool results in what the model sees (WHICH: 3, 2-5, all, last N, all-but-last N); no argument: pick from a list",
  handler = function(args, ctx)
    return prune().command(args, ctx)
  end,
})
