-- model-log.lua: log every model change, to a file and to the session.
--
-- Shows: the model.change notification, a file in the hook's own data
-- folder (ctx.data_dir, writable by fs), and a `custom` session entry
-- (lunar.append_entry) that records the change in the conversation's tree
-- without sending anything to the model.
--
-- Each /model switch, model cycling or ctx.set_model call appends one
-- line to <data_dir>/models.log (by default
-- ~/.local/share/lunar/hooks/model-log/models.log):
--
--   2026-11-23T14:05:12Z  openai/gpt-4.1 -> openai/gpt-4.1-mini  (thinking off)  session 0193…  /home/me/project
--
-- and a "model-log" custom entry {from=, to=, thinking_level=} to the
-- session.
--
-- Install:
--   cp examples/model-log.lua ~/.config/lunar/hooks.d/
--   lunar hooks check ~/.config/lunar/hooks.d/model-log.lua
--
-- Configure (optional), ~/.config/lunar/config.json:
--   { "hooks": { "model-log": { "file": "/somewhere/models.log", "session_entries": true } } }

local fs = require("fs")

lunar.on("model.change", function(ev, ctx)
  local conf = lunar.config()
  if type(conf) ~= "table" then
    conf = {}
  end
  local from = ev.previous_provider .. "/" .. ev.previous_model_id
  local to = ev.new_provider .. "/" .. ev.new_model_id

  local file = conf.file
  if type(file) ~= "string" or file == "" then
    if not ctx.data_dir then
      lunar.log("warn", "model-log: no data folder; set hooks.model-log.file")
      return
    end
    file = ctx.data_dir .. "/models.log"
  end
  local line = string.format("%s  %s -> %s  (thinking %s)  session %s  %s\n",
    os.date("!%Y-%m-%dT%H:%M:%SZ"), from, to, ev.thinking_level, ctx.session_id or "-", ctx.cwd)
  local ok, err = fs.write(file, line, { append = true })
  if not ok then
    lunar.log("warn", "model-log: " .. tostring(err))
  end

  if conf.session_entries ~= false then
    lunar.append_entry("model-log", { from = from, to = to, thinking_level = ev.thinking_level })
  end
end)
