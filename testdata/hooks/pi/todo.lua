-- Port of pi's examples/extensions/todo.ts: a todo tool for the model and
-- /todos for the user. pi keeps the list in the tool results' details;
-- here each change is a "todo" custom entry (hook state, never sent to the
-- model). Either way it lives in the session tree: resume and the list is
-- back, /branch to an earlier point and it is the list as it was there.
local json = require("json")

local todos, next_id = {}, 1

-- The latest "todo" entry on the current branch is the state.
local function reconstruct(ctx)
  todos, next_id = {}, 1
  for _, e in ipairs(ctx.session.entries({ type = "custom", custom_type = "todo" })) do
    todos, next_id = e.data.todos, e.data.next_id
  end
end

lunar.on("session_start", function(_, ctx) reconstruct(ctx) end)  -- startup, resume, new, fork
lunar.on("session_tree", function(_, ctx) reconstruct(ctx) end)   -- /branch

local function save()
  lunar.append_entry("todo", { todos = json.array(todos), next_id = next_id })
end

local function list()
  if #todos == 0 then return "No todos" end
  local lines = {}
  for _, t in ipairs(todos) do
    lines[#lines + 1] = string.format("[%s] #%d: %s", t.done and "x" or " ", t.id, t.text)
  end
  return table.concat(lines, "\n")
end

lunar.tool({
  name = "todo",
  description = "Manage a todo list. Actions: list, add (text), toggle (id), clear",
  parameters = {
    type = "object",
    properties = {
      action = { type = "string", enum = { "list", "add", "toggle", "clear" } },
      text = { type = "string", description = "Todo text (for add)" },
      id = { type = "number", description = "Todo ID (for toggle)" },
    },
    required = { "action" },
  },
  execute = function(args)
    if args.action == "list" then
      return list()
    elseif args.action == "add" then
      if not args.text then return { content = "Error: text required for add", is_error = true } end
      todos[#todos + 1] = { id = next_id, text = args.text, done = false }
      next_id = next_id + 1
      save()
      return string.format("Added todo #%d: %s", next_id - 1, args.text)
    elseif args.action == "toggle" then
      for _, t in ipairs(todos) do
        if t.id == args.id then
          t.done = not t.done
          save()
          return string.format("Todo #%d %s", t.id, t.done and "completed" or "uncompleted")
        end
      end
      return { content = "Todo #" .. tostring(args.id) .. " not found", is_error = true }
    end
    local n = #todos
    todos, next_id = {}, 1
    save()
    return "Cleared " .. n .. " todos"
  end,
})

lunar.command("todos", {
  description = "Show all todos on the current branch",
  handler = function(_, ctx)
    local done = 0
    for _, t in ipairs(todos) do if t.done then done = done + 1 end end
    ctx.ui.print(string.format("Todos (%d/%d completed)\n%s", done, #todos, list()))
  end,
})
