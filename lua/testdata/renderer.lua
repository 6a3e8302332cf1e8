lunar.renderer("memory", function(message, opts)
  local prefix = opts.expanded and "[memory+] " or "[memory] "
  return prefix .. message.content
end)
lunar.renderer("silent", function() return nil end)
