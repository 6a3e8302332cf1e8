-- Attempts everything the sandbox forbids, at load time and again from an
-- event handler, and records what happened. $SANDBOX_TARGET is a path
-- outside the write roots; $SANDBOX_LUA a Lua file outside the hook's lib/.
local rec = require("testlog").new("sandbox")
local target = os.getenv("SANDBOX_TARGET")
local evil = os.getenv("SANDBOX_LUA")

local attempts = {
  { "io.open", function() return io.open(target, "w") end },
  { "io.write", function() io.write("leaked to stdout") end },
  { "os.execute", function() return os.execute("touch " .. target) end },
  { "os.remove", function() return os.remove(evil) end },
  { "os.exit", function() os.exit(3) end },
  { "debug.getinfo", function() return debug.getinfo(1) end },
  { "debug via require", function() return require("debug") end },
  { "dofile", function() return dofile(evil) end },
  { "loadfile", function() return loadfile(evil) end },
  { "package.loadlib", function() return package.loadlib("libc.so.6", "system") end },
  { "require io", function() return require("io") end },
  { "require absolute path", function() return require(evil) end },
  { "require relative escape", function() return require("../evil") end },
  { "require outside lib/", function() return require("events") end },
  { "string.dump", function() return string.dump(function() end) end },
  { "bytecode", function() assert(loadstring(string.char(27) .. "LuaQ\0\1\4\8\4\8\0")) end },
  { "fs.write outside the roots", function() assert(require("fs").write(target, "x")) end },
}

local function try_all(when)
  for _, a in ipairs(attempts) do
    local ok, err = pcall(a[2])
    rec("attempt", { when = when, name = a[1], refused = not ok, err = tostring(err) })
  end
end

try_all("load")
rec("allowed", {
  stdlib = require("json").encode({ 1 }) == "[1]",
  lib = type(require("testlog").new) == "function",
  os_time = type(os.time()) == "number",
})

lunar.on("agent.start", function()
  try_all("agent.start")
end)
