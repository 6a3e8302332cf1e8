-- For `lunar hooks check`: the closing end of the handler is missing.
lunar.on("agent.start", function()
  if true then
    return nil
  end

