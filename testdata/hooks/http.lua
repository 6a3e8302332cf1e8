-- The http module from a command: a request to $FETCH_URL and one to a
-- port nobody listens on.
local http = require("http")
local rec = require("testlog").new("http")

lunar.command("fetch", {
  description = "fetches the model list",
  handler = function()
    local res, err = http.request({
      url = os.getenv("FETCH_URL") .. "/models",
      headers = { ["X-From-Hook"] = "yes" },
      timeout_ms = 5000,
    })
    rec("fetch", { status = res and res.status, body = res and res.body, content_type = res and res.headers["content-type"], err = err })
    local bad, berr = http.request({ url = "http://127.0.0.1:1/nothing", timeout_ms = 1000 })
    rec("refused", { res = bad, err = berr })
  end,
})
