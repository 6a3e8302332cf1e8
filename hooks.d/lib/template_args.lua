-- template_args.lua: the arguments of a prompt template, as pi reads and
-- substitutes them (pi's parseCommandArgs and substituteArgs, rewritten
-- from their behaviour). Pure Lua, no requires: the differential test
-- loads it alone.
--
-- Words are split at spaces and tabs; ' and " quote (the quotes are
-- dropped, the other kind is kept inside, an unclosed quote runs to the
-- end) and an empty word ("") is no word. The template is then rewritten
-- in four passes, each over the previous pass's result:
--
--   $1, $2, … $10 …   the Nth word ("" when missing; $0 is always "")
--   ${@:N} ${@:N:L}   the words from the Nth (L of them), joined by spaces;
--                     N = 0 counts as 1
--   $ARGUMENTS        all the words, joined by spaces
--   $@                the same
--
-- so a word's own $-text is rewritten by the later passes, as in pi.

local M = {}

-- parse splits the argument text into words.
function M.parse(s)
  local words, cur, quote = {}, {}, nil
  for i = 1, #s do
    local c = s:sub(i, i)
    if quote then
      if c == quote then
        quote = nil
      else
        cur[#cur + 1] = c
      end
    elseif c == '"' or c == "'" then
      quote = c
    elseif c == " " or c == "\t" then
      if #cur > 0 then
        words[#words + 1] = table.concat(cur)
        cur = {}
      end
    else
      cur[#cur + 1] = c
    end
  end
  if #cur > 0 then
    words[#words + 1] = table.concat(cur)
  end
  return words
end

-- slice joins words from (1-based, at least 1) for count words (nil: all).
local function slice(words, from, count)
  local last = #words
  if count and from + count - 1 < last then
    last = from + count - 1
  end
  local out = {}
  for i = from, last do
    out[#out + 1] = words[i]
  end
  return table.concat(out, " ")
end

-- num reads a placeholder's digits; past what a number holds it is huge
-- (gopher-lua's tonumber gives nil there), so nothing is found.
local function num(digits)
  return tonumber(digits) or math.huge
end

-- substitute fills a template's placeholders with words.
function M.substitute(content, words)
  local all = table.concat(words, " ")
  local out = content:gsub("%$(%d+)", function(n)
    return words[num(n)] or ""
  end)
  out = out:gsub("%${@:(%d+)(:?)(%d*)}", function(n, colon, count)
    if colon == ":" and count == "" then
      return nil -- "${@:2:}" is no placeholder: kept as written
    end
    local from = math.max(num(n), 1)
    if colon == "" then
      return slice(words, from, nil)
    end
    return slice(words, from, num(count))
  end)
  out = out:gsub("%$ARGUMENTS", function() return all end)
  out = out:gsub("%$@", function() return all end)
  return out
end

-- expand is a template's text for the argument text after /name.
function M.expand(content, args)
  return M.substitute(content, M.parse(args))
end

return M
