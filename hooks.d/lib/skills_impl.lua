-- skills_impl.lua: discovery, validation, the system-prompt block and the
-- /skill:name commands of skills.lua (compiled only when a skills folder
-- exists). The rules are pi 0.73's (core/skills.js), written from its
-- behaviour: TestSkillsPromptMatchesPi compares the block with pi's own
-- formatSkillsForPrompt.

local fs = require("fs")
local path = require("path")
local text = require("text")
local utf8 = require("utf8")

local M = {}

local MAX_NAME = 64
local MAX_DESCRIPTION = 1024

-- validate returns pi's warnings for a skill's name and description.
local function validate(name, description, folder)
  local errs = {}
  if type(description) ~= "string" or text.trim(description) == "" then
    errs[#errs + 1] = "description is required"
  elseif (utf8.len(description) or #description) > MAX_DESCRIPTION then
    errs[#errs + 1] = string.format("description exceeds %d characters (%d)", MAX_DESCRIPTION, utf8.len(description) or #description)
  end
  if name ~= folder then
    errs[#errs + 1] = string.format('name "%s" does not match parent directory "%s"', name, folder)
  end
  local n = utf8.len(name) or #name
  if n > MAX_NAME then
    errs[#errs + 1] = string.format("name exceeds %d characters (%d)", MAX_NAME, n)
  end
  if not name:match("^[a-z0-9%-]+$") then
    errs[#errs + 1] = "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
  end
  if name:sub(1, 1) == "-" or name:sub(-1) == "-" then
    errs[#errs + 1] = "name must not start or end with a hyphen"
  end
  if name:find("--", 1, true) then
    errs[#errs + 1] = "name must not contain consecutive hyphens"
  end
  return errs
end

-- load_file reads one skill file: the skill (nil when it cannot be used)
-- and the problems found, for one warning.
local function load_file(file, source)
  local content, err = fs.read(file)
  if not content then
    return nil, { err }
  end
  local fm, body = text.front_matter(content)
  if not fm then
    return nil, { body }
  end
  local folder = path.basename(path.dirname(file))
  local name = fm.name
  if type(name) ~= "string" or name == "" then
    name = folder
  end
  local errs = validate(name, fm.description, folder)
  if type(fm.description) ~= "string" or text.trim(fm.description) == "" then
    return nil, errs
  end
  return {
    name = name,
    description = fm.description,
    file = file,
    base_dir = path.dirname(file),
    source = source,
    hidden = fm["disable-model-invocation"] == true,
  }, errs
end

-- scan walks a folder as pi does: a folder holding SKILL.md is one skill
-- (nothing below it is looked at); otherwise its sub-folders are walked
-- (names starting with "." and node_modules skipped) and, at the top
-- only, every *.md file is a skill of its own. (pi's .gitignore rules are
-- not applied.)
local function scan(dir, source, top, out, depth)
  if depth > 16 then return end
  local names = fs.list(dir)
  if not names then return end
  for _, n in ipairs(names) do
    if n == "SKILL.md" then
      local file = path.join(dir, n)
      local st = fs.stat(file)
      if st and not st.is_dir then
        out[#out + 1] = { file = file, source = source }
        return
      end
    end
  end
  for _, n in ipairs(names) do
    if n:sub(1, 1) ~= "." and n ~= "node_modules" then
      local full = path.join(dir, n)
      local st = fs.stat(full)
      if st and st.is_dir then
        scan(full, source, false, out, depth + 1)
      elseif st and top and text.ends_with(n, ".md") then
        out[#out + 1] = { file = full, source = source }
      end
    end
  end
end

-- load finds the skills of the folders (in order; the first of a name
-- wins) and warns once per file with problems.
function M.load(dirs)
  local files = {}
  for _, d in ipairs(dirs) do
    scan(d.dir, d.source, true, files, 0)
  end
  local list, by_name = {}, {}
  for _, f in ipairs(files) do
    local skill, errs = load_file(f.file, f.source)
    local first = skill and by_name[skill.name]
    if first and fs.realpath(first.file) == fs.realpath(f.file) then
      -- The same file through a link: once, silently. (Links are only
      -- resolved on a name collision: a link to a skill's folder under
      -- another name, without a name in its front matter, loads twice.)
      skill, errs = nil, {}
    elseif first then
      errs[#errs + 1] = string.format('name "%s" collision: %s is used', skill.name, first.file)
      skill = nil
    end
    if #errs > 0 then
      lunar.log("warn", "skill " .. f.file .. ": " .. table.concat(errs, "; "))
    end
    if skill then
      by_name[skill.name] = skill
      list[#list + 1] = skill
    end
  end
  return { list = list, by_name = by_name }
end

local function escape_xml(s)
  if not s:find("[&<>\"']") then return s end
  return (s:gsub("&", "&amp;"):gsub("<", "&lt;"):gsub(">", "&gt;"):gsub('"', "&quot;"):gsub("'", "&apos;"))
end

-- format is pi's formatSkillsForPrompt: "" when no skill is visible.
function M.format(list)
  local lines = {
    "\n\nThe following skills provide specialized instructions for specific tasks.",
    "Use the read tool to load a skill's file when the task matches its description.",
    "When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.",
    "",
    "<available_skills>",
  }
  local visible = 0
  for _, s in ipairs(list) do
    if not s.hidden then
      visible = visible + 1
      lines[#lines + 1] = "  <skill>"
      lines[#lines + 1] = "    <name>" .. escape_xml(s.name) .. "</name>"
      lines[#lines + 1] = "    <description>" .. escape_xml(s.description) .. "</description>"
      lines[#lines + 1] = "    <location>" .. escape_xml(s.file) .. "</location>"
      lines[#lines + 1] = "  </skill>"
    end
  end
  if visible == 0 then return "" end
  lines[#lines + 1] = "</available_skills>"
  return table.concat(lines, "\n")
end

-- prompt_block is the block for the next model call: pi lists skills only
-- when the read tool is offered (the model could not load them otherwise).
function M.prompt_block(skills)
  local read = false
  for _, t in ipairs(lunar.tools()) do
    if t.name == "read" and t.enabled then
      read = true
      break
    end
  end
  if not read then return "" end
  skills.block = skills.block or M.format(skills.list)
  return skills.block
end

-- insert puts the block where pi's system prompt has it: after the
-- project context, before the date and working folder lines.
function M.insert(prompt, block)
  local at
  local from = 1
  while true do
    local i = prompt:find("\n\nCurrent date: ", from, true)
    if not i then break end
    at, from = i, i + 1
  end
  if not at then return prompt .. block end
  return prompt:sub(1, at - 1) .. block .. prompt:sub(at)
end

-- expand is pi's /skill:name expansion: the body (front matter removed)
-- in a <skill> element, then the arguments after a blank line.
function M.expand(skill, args)
  local content, err = fs.read(skill.file)
  if not content then
    error("skill " .. skill.name .. ": " .. err, 0)
  end
  local _, body = text.front_matter(content)
  body = text.trim(body or content)
  local block = string.format('<skill name="%s" location="%s">\nReferences are relative to %s.\n\n%s\n</skill>',
    skill.name, skill.file, skill.base_dir, body)
  args = text.trim(args or "")
  if args ~= "" then
    return block .. "\n\n" .. args
  end
  return block
end

-- register adds /skill:name for every skill whose name can be a command.
function M.register(skills)
  for _, s in ipairs(skills.list) do
    local ok = pcall(lunar.command, "skill:" .. s.name, {
      description = s.description,
      handler = function(args)
        return M.expand(s, args)
      end,
    })
    if not ok then
      lunar.log("warn", "skill " .. s.file .. ": /skill:" .. s.name .. " cannot be a command name")
    end
  end
end

-- listing is what /skills prints.
function M.listing(skills)
  local out = {}
  for _, s in ipairs(skills.list) do
    local flag = s.hidden and " (not offered to the model)" or ""
    out[#out + 1] = string.format("/skill:%s  %s%s\n    %s [%s]", s.name, text.truncate((s.description:gsub("%s+", " ")), 100), flag, s.file, s.source)
  end
  return table.concat(out, "\n")
end

return M
