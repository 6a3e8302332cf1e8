local json = require("json")
lunar.command("act", {
  handler = function(args, ctx)
    local out = {}
    out.send = lunar.send("hello", { attachments = { "a.png", { type = "image", data = "aGk=", mimeType = "image/png" } } })
    out.send_message = lunar.send_message({ custom_type = "note", content = "n", display = true, details = { x = 1 } }, { trigger_turn = true })
    out.entry = lunar.append_entry("state", { n = 1, list = json.array() })
    out.complete = lunar.complete("summarise", { model = "openai/gpt-mini", system = "be brief", max_tokens = 100 })
    out.complete_msgs = lunar.complete({ { role = "user", content = "q", timestamp = 0 } })
    local r = lunar.exec("sh", { "-c", "echo out; echo err >&2; exit 3" })
    out.exec = { r.code, r.stdout, r.stderr, r.killed }
    out.exec_missing = select(2, lunar.exec("/nonexistent/program"))
    lunar.log("info", "logged " .. args)
    print("printed", 1)
    return json.encode(out)
  end,
})
lunar.command("spawn", {
  handler = function(args)
    local r = lunar.exec("sh", { "-c", "echo $$; sleep 30 & echo $!; wait" }, { timeout_ms = 100 })
    return json.encode(r)
  end,
})
