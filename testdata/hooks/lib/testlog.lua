-- Test helper shared by the hooks in testdata/hooks: appends one JSON line
-- {hook=, kind=, value=} per call to the file named by $HOOK_LOG, so that
-- the Go tests can see what the hooks saw, in order.
local json = require("json")
local fs = require("fs")

local M = {}

-- new returns a recorder for one hook: rec(kind, value).
function M.new(hook)
  return function(kind, value)
    local path = os.getenv("HOOK_LOG")
    if not path then
      return
    end
    local line = json.encode({ hook = hook, kind = kind, value = value })
    local ok, err = fs.write(path, line .. "\n", { append = true })
    if not ok then
      error("testlog: " .. tostring(err))
    end
  end
end

return M
