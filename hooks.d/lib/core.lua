-- Shared helpers of the bundled hooks (require("core")).
local M = { version = 1 }

-- Returns the text of a message in session JSON form (string or parts).
function M.message_text(m)
  if type(m.content) == "string" then
    return m.content
  end
  local out = {}
  for _, part in ipairs(m.content or {}) do
    if part.type == "text" then
      out[#out + 1] = part.text
    end
  end
  return table.concat(out)
end

return M
