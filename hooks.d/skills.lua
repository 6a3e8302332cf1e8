-- skills.lua: Agent Skills, bundled with lunar (embedded in the binary).
--
-- A skill is a folder with a SKILL.md whose YAML front matter has a name
-- and a description (the Agent Skills format pi and Claude Code read).
-- The descriptions are listed in the system prompt, in pi's words and XML
-- shape, and the model reads a skill's file with the read tool when a
-- task matches; /skill:name [args] sends the skill's body as the prompt
-- (as pi does), and /skills lists them. Skills are looked for, in this
-- order (the first of a name wins), in
--
--   <config folder>/skills          (~/.config/lunar/skills)
--   .lunar/skills                   a trusted project's
--   ~/.pi/agent/skills              pi's, read-only
--   .pi/skills                      pi's project skills, when trusted
--   ~/.claude/skills                Claude Code's, read-only
--
-- Project folders count only once the project is trusted (the trust
-- question lists .lunar/skills; --trust in one-shot runs). A file whose
-- front matter breaks pi's rules (name: lowercase a-z, 0-9 and single
-- hyphens, at most 64 characters, the folder's name; description: present,
-- at most 1,024 characters) gets one warning naming it; as in pi, only a
-- missing description keeps it out.
--
-- Cost: with no skills folder this file registers /skills and stops (the
-- rest, hooks.d/lib/skills_impl.lua, is compiled only when a folder
-- exists). With skills it reads every SKILL.md at start-up, and adds the
-- block to the system prompt of each model call from a string built once.
-- Turn it off with "disabled_hooks": ["skills"].

local fs = require("fs")
local path = require("path")

local p = lunar.paths()
local dirs = {}
local function add(dir, source)
  if dir ~= "" and fs.exists(dir) then
    dirs[#dirs + 1] = { dir = dir, source = source }
  end
end
if p.config ~= "" then add(path.join(p.config, "skills"), "user") end
if p.project_trusted then add(path.join(p.project, ".lunar", "skills"), "project") end
if p.home ~= "" then add(path.join(p.home, ".pi", "agent", "skills"), "pi") end
if p.project_trusted then add(path.join(p.project, ".pi", "skills"), "pi project") end
if p.home ~= "" then add(path.join(p.home, ".claude", "skills"), "claude") end

local impl, skills
if #dirs > 0 then
  impl = require("skills_impl")
  skills = impl.load(dirs)
end

lunar.command("skills", {
  description = "list the skills the model may use (/skill:name to run one)",
  handler = function(_, ctx)
    if not skills or #skills.list == 0 then
      ctx.ui.print("No skills. Put a skill (a folder with SKILL.md) in " .. path.join(p.config, "skills") .. ".")
      return
    end
    ctx.ui.print(impl.listing(skills))
  end,
})

if skills and #skills.list > 0 then
  impl.register(skills)
  lunar.on("chat.system.transform", function(ev)
    local block = impl.prompt_block(skills)
    if block == "" then return nil end
    return { system_prompt = impl.insert(ev.system_prompt, block) }
  end)
end
