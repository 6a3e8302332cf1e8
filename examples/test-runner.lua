-- test-runner.lua: run the project's tests and hand the result to the model.
--
-- Shows: lunar.send_message (a custom_message entry: the model reads its
-- content as user content, the session keeps its details) and
-- lunar.renderer (how the REPL prints that message type: one line, not
-- the whole output), with lunar.exec and a command.
--
--   /test         runs the tests; the result joins the conversation, so
--                 the next prompt ("why did it fail?") has it at hand
--   /test fix     the same, and when they fail the model starts fixing
--                 them at once (trigger_turn)
--
-- The REPL prints the result as one line (and the last lines of a failure):
--
--   ✓ go test ./... passed in 3.2 s
--   ✗ go test ./... failed (exit 1) in 2.9 s
--     --- FAIL: TestParse (0.00s)
--
-- The model gets the command, its exit code and the end of its output
-- (the last `max_lines`, 200 by default).
--
-- Install:
--   cp examples/test-runner.lua ~/.config/lunar/hooks.d/
--   lunar hooks check ~/.config/lunar/hooks.d/test-runner.lua
--
-- Configure (optional), ~/.config/lunar/config.json or .lunar/config.json:
--   { "hooks": { "test-runner": { "command": ["make", "test"], "max_lines": 200, "timeout_ms": 600000 } } }
-- Without "command" it guesses from the folder: go.mod → go test ./...,
-- package.json → npm test, Cargo.toml → cargo test, Makefile → make test.

local fs = require("fs")
local text = require("text")
local time = require("time")

local TYPE = "test-result"

local guesses = {
  { "go.mod", { "go", "test", "./..." } },
  { "package.json", { "npm", "test" } },
  { "Cargo.toml", { "cargo", "test" } },
  { "Makefile", { "make", "test" } },
}

local function command(conf, cwd)
  if type(conf.command) == "table" and #conf.command > 0 then
    return conf.command
  end
  for _, g in ipairs(guesses) do
    if fs.exists(cwd .. "/" .. g[1]) then
      return g[2]
    end
  end
  return nil
end

-- last returns the last n lines of s and how many it left out.
local function last(s, n)
  local lines = text.split(text.trim(s), "\n")
  if #lines <= n then
    return table.concat(lines, "\n"), 0
  end
  return table.concat(lines, "\n", #lines - n + 1), #lines - n
end

lunar.command("test", {
  description = "run the project's tests and give the result to the model (/test fix: and let it fix them)",
  handler = function(args, ctx)
    local conf = lunar.config()
    if type(conf) ~= "table" then
      conf = {}
    end
    local argv = command(conf, ctx.cwd)
    if not argv then
      ctx.ui.notify("test-runner: no test command (set hooks.test-runner.command)", "warning")
      return
    end
    local shown = table.concat(argv, " ")
    local t0 = time.now_ms()
    local rest = {}
    for i = 2, #argv do
      rest[#rest + 1] = argv[i]
    end
    local r, err = lunar.exec(argv[1], rest, { timeout_ms = conf.timeout_ms or 600000, cwd = ctx.cwd })
    if not r then
      ctx.ui.notify("test-runner: " .. shown .. ": " .. tostring(err), "error")
      return
    end
    local ms = time.now_ms() - t0
    local output, omitted = last(r.stdout .. "\n" .. r.stderr, conf.max_lines or 200)
    local passed = r.code == 0
    local content = string.format("I ran the tests: `%s` %s (exit code %d).", shown, passed and "passed" or "failed", r.code)
    if output ~= "" then
      local note = omitted > 0 and string.format(" (the last lines; %d earlier lines left out)", omitted) or ""
      content = content .. "\n\nOutput" .. note .. ":\n```\n" .. output .. "\n```"
    end
    local fix = text.trim(args) == "fix" and not passed
    if fix then
      content = content .. "\n\nFix the failing tests."
    end
    local ok, serr = lunar.send_message({
      custom_type = TYPE,
      content = content,
      display = true,
      details = { command = shown, code = r.code, duration_ms = ms, passed = passed, tail = last(output, 5) },
    }, { trigger_turn = fix })
    if not ok then
      ctx.ui.notify("test-runner: " .. tostring(serr), "error")
    end
  end,
})

-- One line per result; the failing lines under it. Expanded (/expand):
-- the whole text the model got.
lunar.renderer(TYPE, function(message, opts)
  local d = message.details
  if type(d) ~= "table" then
    return nil -- not ours (an older format): the default rendering
  end
  if opts.expanded then
    return nil
  end
  local secs = string.format("%.1f s", (d.duration_ms or 0) / 1000)
  if d.passed then
    return string.format("✓ %s passed in %s", d.command, secs)
  end
  local out = string.format("✗ %s failed (exit %d) in %s", d.command, d.code, secs)
  if type(d.tail) == "string" and d.tail ~= "" then
    out = out .. "\n  " .. (d.tail:gsub("\n", "\n  "))
  end
  return out
end)
