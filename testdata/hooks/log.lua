-- lunar.log and print: stderr only; debug lines only with --debug.
lunar.on("agent.start", function()
  lunar.log("info", "an info line")
  lunar.log("debug", "a debug line")
  print("printed", 42)
end)
