-- templates.lua: prompt templates, bundled with lunar (embedded in the
-- binary).
--
-- A prompt template is a Markdown file whose name becomes a slash command:
-- prompts/review.md is /review, and "/review src/a.go 'be brief'" sends the
-- file's text with $1, $2, …, $@, $ARGUMENTS, ${@:N} and ${@:N:L} filled
-- in from the words typed after the name (pi's rules, in
-- hooks.d/lib/template_args.lua). An optional YAML front matter may give a
-- `description` (else the first non-empty line, cut at 60 characters, as
-- pi) and an `argument-hint`; /help and completion show them. The front
-- matter is not sent.
--
-- Templates are read from, in this order (the first of a name wins):
--
--   <config folder>/prompts/          lunar's, ~/.config/lunar/prompts
--   <project>/.lunar/prompts/         once the project is trusted
--   $PI_CODING_AGENT_DIR/prompts/     pi's, default ~/.pi/agent/prompts
--   <project>/.pi/prompts/            pi's, once the project is trusted
--
-- Only *.md files directly in those folders count; pi's folders are only
-- read. The commands are registered when lunar has loaded every hook
-- (app.start), so a command of the same name from any hook, or a built-in
-- one, wins: the template is ignored with the usual warning. Turn the
-- whole feature off with "disabled_hooks": ["templates"].

local TEMPLATE_FILE = "%.md$"
-- What lunar.command accepts as a name.
local COMMAND_NAME = "^[%w][%w_%-:%.]*$"

-- folders lists the template folders to read, in order.
local function folders()
  local f = lunar.paths()
  local path = require("path")
  local list = {}
  if f.config ~= "" then
    list[#list + 1] = path.join(f.config, "prompts")
  end
  if f.project_trusted then
    list[#list + 1] = path.join(f.project, ".lunar", "prompts")
  end
  local pi = os.getenv("PI_CODING_AGENT_DIR")
  if pi == nil or pi == "" then
    pi = f.home ~= "" and path.join(f.home, ".pi", "agent") or nil
  elseif pi:sub(1, 2) == "~/" or pi == "~" then
    pi = path.join(f.home, pi:sub(2))
  end
  if pi then
    list[#list + 1] = path.join(pi, "prompts")
  end
  if f.project_trusted then
    list[#list + 1] = path.join(f.project, ".pi", "prompts")
  end
  return list
end

-- describe is what /help shows for a template: the front matter's
-- description, else the body's first non-empty line (at most 60
-- characters, then "..."), after its argument-hint when it has one.
local function describe(data, body)
  local utf8 = require("utf8")
  local desc = data.description
  if type(desc) ~= "string" or desc == "" then
    desc = ""
    for line in (body .. "\n"):gmatch("([^\n]*)\n") do
      if line:match("%S") then
        desc = utf8.sub(line, 1, 60)
        if desc ~= line then
          desc = desc .. "..."
        end
        break
      end
    end
  end
  local hint = data["argument-hint"]
  if type(hint) == "string" and hint ~= "" then
    desc = hint .. (desc ~= "" and ": " .. desc or "")
  end
  return desc
end

-- load reads one template file: its command name, description and body.
local function load(file)
  local fs, text, path = require("fs"), require("text"), require("path")
  local content, err = fs.read(file)
  if not content then
    return nil, err
  end
  local data, body = text.front_matter(content)
  if data == nil then
    return nil, body
  end
  if type(data) ~= "table" then
    data = {}
  end
  return { name = path.basename(file, ".md"), description = describe(data, body), body = body }
end

local function register()
  local fs, path = require("fs"), require("path")
  local seen = {}
  for _, dir in ipairs(folders()) do
    for _, name in ipairs(fs.list(dir) or {}) do
      if name:match(TEMPLATE_FILE) then
        local file = path.join(dir, name)
        local t, err = load(file) -- fs.read refuses folders and devices
        if not t then
          lunar.log("warn", "prompt template " .. file .. ": " .. tostring(err) .. ": skipped")
        elseif seen[t.name] then
          lunar.log("debug", "prompt template " .. file .. ": /" .. t.name .. " is " .. seen[t.name] .. ": skipped")
        else
          seen[t.name] = file
          local body = t.body
          if not t.name:match(COMMAND_NAME) then
            lunar.log("warn", "prompt template " .. file .. ": /" .. t.name .. " is not a command name (letters, digits, _ - : .): skipped")
          else
            -- A name taken by a built-in or a hook's command: lunar warns
            -- once ("command /x is already registered by …") and keeps it.
            lunar.command(t.name, {
              description = t.description,
              handler = function(raw)
                return require("template_args").expand(body, raw)
              end,
            })
          end
        end
      end
    end
  end
end

-- app.start fires once, after every hook has loaded.
lunar.on("app.start", register)
