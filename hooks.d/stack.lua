-- stack.lua: /pop [N], bundled with lunar (embedded in the binary).
--
-- /pop returns the conversation to an earlier user turn: the last N user
-- turns and all the work since are replaced, in what the model sees, by a
-- summary (one model call). Without N the user picks the turn from a list
-- of the path's user turns but the current one (in one-shot and JSON
-- mode the list is the error: N is needed). Nothing is deleted. A pop is a
-- "stack_pop" custom entry at the leaf,
--
--   data = { target = <id of the first user message popped>, turns = N,
--            summary = <the popped work>, pre_summary = <what precedes it>? }
--
-- and the context event rebuilds every later request from the path with
-- the "later wins" ranges of pi's Hooks v2 design (seed 000):
--
--   compaction at c, first kept k   covers [1, k)  with its summary
--   stack_pop at p, target t        covers [t, p)  with summary
--     and, with a pre_summary,      covers [1, t)  with pre_summary
--
-- (positions on the path). Ranges are numbered in path order; where several
-- cover a position the latest wins, and a range's summary is sent once, at
-- the first position it wins. A pre_summary is made when the target lies
-- under an older summary that also covers later work (the latest
-- compaction, or an earlier pop's pre_summary): what precedes the target is
-- then summarised on its own ("" when nothing precedes it). Summaries are
-- made from the raw entries, with earlier pops applied, and never from a
-- summary that reaches past what they stand for.
--
-- A compaction while pops are in effect summarises what the model actually
-- saw (pops applied; session.before_compact supplies the summary), so the
-- popped work does not come back through it.
--
-- Cost when unused: this file only registers the command and two
-- handlers (about 1 ms to load; the rest, hooks.d/lib/stack_impl.lua, is
-- compiled on first use), and the context and session.before_compact
-- handlers ask for the stack_pop entries on the path (a filter: nothing
-- else is converted) and return: ev.messages is never built. Together
-- with prune.lua's, that is well under a millisecond per model call on a
-- session of 1,000 entries (go test ./hooks.d -bench .). Turn it off with
-- "disabled_hooks": ["stack"] in config.json: the model then sees every
-- popped turn again.

-- Everything but the checks below lives in hooks.d/lib/stack_impl.lua,
-- compiled on first use.
local POPS = { type = "custom", custom_type = "stack_pop" }

local impl
local function stack()
  impl = impl or require("stack_impl")
  return impl
end

lunar.command("pop", {
  description = "[N]: set the last N user turns and the work since aside, leaving a summary in their place (without N: choose the turn to go back to)",
  handler = function(args, ctx)
    return stack().pop(args, ctx)
  end,
})

-- Before every model call: nothing to do (and ev.messages never built)
-- unless the path has pops.
lunar.on("context", function(ev, ctx)
  local pops = ctx.session.entries(POPS)
  if #pops == 0 then
    return nil
  end
  return stack().context(ev, ctx, pops)
end)

lunar.on("session.before_compact", function(ev, ctx)
  if #ctx.session.entries(POPS) == 0 then
    return nil
  end
  return stack().before_compact(ev, ctx)
end)
