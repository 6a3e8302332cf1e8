-- clear-guard.lua: ask before /clear leaves a long conversation, and
-- refuse it where no one can answer.
--
-- Shows: a cancel event (session.before_clear returning
-- {cancel=true, reason=}), ctx.ui.confirm with ctx.has_ui, and measuring
-- the session cheaply with an entry filter.
--
-- /clear starts a new session; the old one stays on disk (/resume brings
-- it back), but a long working context is easy to throw away by a slip of
-- the keyboard. With this hook, clearing a session of at least
-- `min_turns` user turns asks first in the REPL. Without a UI (a hook
-- calling ctx.new_session in one-shot or JSON mode) it is refused, with
-- the reason on stderr.
--
-- Install:
--   cp examples/clear-guard.lua ~/.config/lunar/hooks.d/
--   lunar hooks check ~/.config/lunar/hooks.d/clear-guard.lua
--
-- Configure (optional), ~/.config/lunar/config.json:
--   { "hooks": { "clear-guard": { "min_turns": 3 } } }

local function min_turns()
  local conf = lunar.config()
  if type(conf) == "table" and conf.min_turns ~= nil then
    if type(conf.min_turns) == "number" and conf.min_turns >= 0 then
      return conf.min_turns
    end
    lunar.log("warn", "clear-guard: min_turns must be a number >= 0; using 3")
  end
  return 3
end

lunar.on("session.before_clear", function(_, ctx)
  local turns = 0
  for _, e in ipairs(ctx.session.entries({ type = "message" })) do
    if e.message.role == "user" then
      turns = turns + 1
    end
  end
  if turns < min_turns() then
    return nil
  end
  local what = string.format("This session has %d user turns.", turns)
  if not ctx.has_ui then
    return { cancel = true, reason = "clear-guard: " .. what .. " Not cleared without a confirmation (no terminal to ask)." }
  end
  if ctx.ui.confirm("Clear this session?", what .. " /resume brings it back later.") then
    return nil
  end
  return { cancel = true, reason = "clear-guard: kept the session" }
end)
