-- Test hook for the smaller hook API functions, each a command that prints
-- what it found with ctx.ui.print.
local path, utf8, text = require("path"), require("utf8"), require("text")

lunar.on("model_select", function(ev, ctx)
  ctx.ui.print("model.change " .. ev.source .. " " .. ev.previous_model_id .. " -> " .. ev.new_model_id)
end)

lunar.command("find-model", {
  description = "ctx.models.find of the model in use",
  handler = function(_, ctx)
    local m = ctx.models.find(ctx.model.provider, ctx.model.id)
    ctx.ui.print(m and ("found " .. m.provider .. "/" .. m.id) or "not found")
  end,
})

lunar.command("think", {
  description = "lunar.complete at a thinking level",
  handler = function(args, ctx)
    local out, err = lunar.complete("think about it", { thinking = args })
    ctx.ui.print("complete: " .. tostring(out or err))
  end,
})

lunar.command("switch", {
  description = "ctx.set_model",
  handler = function(args, ctx)
    local p, id = args:match("^(.-)/(.*)$")
    local ok, err = ctx.set_model(p, id)
    if not ok then ctx.ui.print("set_model: " .. err) end
  end,
})

lunar.command("strings", {
  description = "path, utf8 and text.truncate_tail",
  handler = function(_, ctx)
    local tail, t = text.truncate_tail("one\ntwo\nthree", { max_lines = 2 })
    ctx.ui.print(table.concat({
      path.join("a", "b", "..", "c.lua"),
      path.basename("x/y/z.lua", ".lua"),
      path.ext("x/y/z.lua"),
      tostring(path.is_abs(path.resolve("rel"))),
      utf8.sub("héllo wörld", 2, 5),
      tostring(utf8.len("héllo")),
      tail:gsub("\n", "|") .. " " .. t.truncated_by .. " " .. t.total_lines,
    }, " "))
  end,
})
