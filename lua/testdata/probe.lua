-- /probe CODE: runs CODE inside this hook's sandbox and reports the outcome.
lunar.command("probe", {
  handler = function(code)
    local fn, err = loadstring(code, "probe")
    if not fn then
      return "compile error: " .. err
    end
    local ok, res = pcall(fn)
    if ok then
      return "ok: " .. tostring(res)
    end
    return "error: " .. tostring(res)
  end,
})
