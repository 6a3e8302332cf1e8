-- Sends every model call to the server named by $ALT_BASE_URL.
lunar.on("auth.get", function()
  return { base_url = os.getenv("ALT_BASE_URL") }
end)
