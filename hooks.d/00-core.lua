-- 00-core.lua: bundled with lunar, embedded in the binary.
--
-- Bundled hooks load first (by file name), before the global and the
-- project hooks, so user hooks can build on what they set up; any of them
-- can be turned off with "disabled_hooks" in config.json.
--
-- This one only checks that the API the bundled hooks rely on is present
-- and that require() finds bundled modules in hooks.d/lib.
local core = require("core")
assert(type(lunar.on) == "function" and type(lunar.command) == "function", "lunar module incomplete")
assert(core.version == 1, "hooks.d/lib/core.lua not found")
