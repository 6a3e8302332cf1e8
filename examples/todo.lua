-- todo.lua: a todo list the model keeps with a `todo` tool, stored in the
-- session itself, so it survives resume and follows branching.
--
-- Shows: lunar.tool, state in `custom` session entries
-- (lunar.append_entry), rebuilding that state from the current branch on
-- session.start (startup, resume, /clear, /fork) and session.branch, a
-- command (/todos), and the system prompt transform to keep the model
-- aware of open items.
--
-- Each change appends a "todo" custom entry holding the whole list.
-- Custom entries live in the session tree and are never sent to the model:
-- resuming finds the latest one on the path, and /branch to an earlier
-- point brings back the list as it was there.
--
-- Install:
--   cp examples/todo.lua ~/.config/lunar/hooks.d/
--   lunar hooks check ~/.config/lunar/hooks.d/todo.lua
--
-- Use: ask the model to plan with todos; /todos shows the list.

local json = require("json")

local ENTRY = "todo"
local FILTER = { type = "custom", custom_type = ENTRY }

-- The list of the current branch: { {text=, done=}, ... }, rebuilt from
-- the session whenever the open session or the branch changes.
local items = {}

local function rebuild(ctx)
  items = {}
  local entries = ctx.session.entries(FILTER) -- only todo entries are converted
  local last = entries[#entries]
  if last and type(last.data) == "table" and type(last.data.items) == "table" then
    for _, it in ipairs(last.data.items) do
      items[#items + 1] = { text = tostring(it.text), done = it.done == true }
    end
  end
end

local function save()
  local list = json.array()
  for i, it in ipairs(items) do
    list[i] = { text = it.text, done = it.done }
  end
  local id, err = lunar.append_entry(ENTRY, { items = list })
  if not id then
    error("todo: could not save the list: " .. tostring(err))
  end
end

local function render()
  if #items == 0 then
    return "The todo list is empty."
  end
  local lines = {}
  for i, it in ipairs(items) do
    lines[#lines + 1] = string.format("%d. [%s] %s", i, it.done and "x" or " ", it.text)
  end
  return table.concat(lines, "\n")
end

lunar.on("session.start", function(_, ctx)
  rebuild(ctx)
end)

lunar.on("session.branch", function(_, ctx)
  rebuild(ctx)
end)

lunar.tool({
  name = "todo",
  description = "Keeps the todo list of this task. Actions: add (text), done (n), undo (n), remove (n), list, clear. "
    .. "Use it to plan multi-step work and tick items off as you finish them; it returns the whole list.",
  parameters = {
    type = "object",
    properties = {
      action = { type = "string", enum = { "add", "done", "undo", "remove", "list", "clear" } },
      text = { type = "string", description = "the item, for add" },
      n = { type = "integer", description = "the item's number, for done, undo and remove" },
    },
    required = { "action" },
  },
  execute = function(args, ctx)
    local a = args.action
    if a == "list" then
      return render()
    end
    if a == "add" then
      if type(args.text) ~= "string" or args.text == "" then
        return { content = "add needs text", is_error = true }
      end
      items[#items + 1] = { text = args.text, done = false }
    elseif a == "clear" then
      items = {}
    else
      local n = args.n
      if type(n) ~= "number" or not items[n] then
        return { content = string.format("no item %s; the list has %d items", tostring(n), #items), is_error = true }
      end
      if a == "done" then
        items[n].done = true
      elseif a == "undo" then
        items[n].done = false
      else
        table.remove(items, n)
      end
    end
    save()
    return render()
  end,
})

lunar.command("todos", {
  description = "show the todo list of this branch",
  handler = function(_, ctx)
    ctx.ui.notify(render(), "info")
  end,
})

-- Open items ride along in the system prompt, so the model does not lose
-- track of them after a compaction.
lunar.on("chat.system.transform", function(ev)
  local open = {}
  for i, it in ipairs(items) do
    if not it.done then
      open[#open + 1] = string.format("%d. %s", i, it.text)
    end
  end
  if #open == 0 then
    return nil
  end
  return { system_prompt = ev.system_prompt .. "\n\nOpen items on your todo list (the `todo` tool):\n" .. table.concat(open, "\n") }
end)
