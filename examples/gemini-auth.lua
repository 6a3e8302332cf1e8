-- gemini-auth.lua: credentials for Gemini's OpenAI-compatible endpoints,
-- from an environment variable or a command (gcloud), cached until they
-- expire; Vertex AI's endpoint built from a project and a location.
--
-- Shows: the auth.get event ({api_key=, headers=, base_url=} before every
-- model call; nothing is stored in the session), model.resolve (Vertex
-- wants "google/<model>" ids), lunar.exec with a timeout, and a cache
-- kept in the hook's state between calls.
--
-- lunar's built-in "google" provider talks to
-- https://generativelanguage.googleapis.com/v1beta/openai with
-- $GEMINI_API_KEY. This hook covers the other cases:
--
--   * a key in another variable:       { "api_key_env": "MY_GEMINI_KEY" }
--   * Vertex AI with your gcloud login (tokens last an hour; the command
--     runs again when the cached one is `token_ttl_s` old):
--       { "project": "my-project", "location": "us-central1",
--         "token_command": ["gcloud", "auth", "print-access-token"] }
--   * any other OpenAI-compatible gateway in front of Gemini:
--       { "base_url": "https://gateway.example/v1", "headers": {"X-Team": "ml"} }
--
-- Install:
--   cp examples/gemini-auth.lua ~/.config/lunar/hooks.d/
--   lunar hooks check ~/.config/lunar/hooks.d/gemini-auth.lua
--   then in ~/.config/lunar/config.json:
--   { "hooks": { "gemini-auth": { "project": "my-project", "location": "us-central1",
--                                 "token_command": ["gcloud", "auth", "print-access-token"] } } }
--   lunar --model google/gemini-2.5-flash
--
-- Settings (all optional): provider (default "google": the models this
-- hook serves), api_key_env, token_command (a list: program and
-- arguments, run without a shell), token_ttl_s (default 3000), project,
-- location, base_url, headers.

local text = require("text")
local time = require("time")

local cache = { token = nil, expires_ms = 0 }

local function settings()
  local conf = lunar.config()
  if conf == nil then
    return {}
  end
  if type(conf) ~= "table" then
    lunar.log("warn", "gemini-auth: the config section must be an object")
    return {}
  end
  return conf
end

-- command_token runs token_command, or returns the cached token.
local function command_token(conf)
  local now = time.now_ms()
  if cache.token and now < cache.expires_ms then
    return cache.token
  end
  local cmd = conf.token_command
  if type(cmd) ~= "table" or type(cmd[1]) ~= "string" then
    lunar.log("warn", "gemini-auth: token_command must be a list: program, then arguments")
    return nil
  end
  local args = {}
  for i = 2, #cmd do
    args[#args + 1] = tostring(cmd[i])
  end
  local r, err = lunar.exec(cmd[1], args, { timeout_ms = 20000 })
  if not r then
    lunar.log("warn", "gemini-auth: " .. cmd[1] .. ": " .. tostring(err))
    return nil
  end
  local token = text.trim(r.stdout)
  if r.code ~= 0 or token == "" then
    lunar.log("warn", string.format("gemini-auth: %s exited with %d: %s", cmd[1], r.code, text.trim(r.stderr)))
    return nil
  end
  cache.token = token
  cache.expires_ms = now + (tonumber(conf.token_ttl_s) or 3000) * 1000
  return token
end

local function serves(conf, provider)
  return provider == (conf.provider or "google")
end

local function vertex(conf)
  return type(conf.project) == "string" and type(conf.location) == "string"
end

-- Vertex AI's OpenAI-compatible endpoint names Google's models
-- "google/<id>".
lunar.on("model.resolve", function(ev)
  local conf = settings()
  if not serves(conf, ev.model.provider) or not vertex(conf) or ev.model.id:find("/", 1, true) then
    return nil
  end
  return { model = { id = "google/" .. ev.model.id } }
end)

lunar.on("auth.get", function(ev)
  local conf = settings()
  if not serves(conf, ev.provider) then
    return nil
  end
  local out = {}
  if conf.token_command ~= nil then
    out.api_key = command_token(conf)
  elseif conf.api_key_env ~= nil then
    local key = os.getenv(tostring(conf.api_key_env))
    if key and key ~= "" then
      out.api_key = key
    else
      lunar.log("warn", "gemini-auth: $" .. tostring(conf.api_key_env) .. " is not set")
    end
  end
  if type(conf.base_url) == "string" then
    out.base_url = conf.base_url
  elseif vertex(conf) then
    local host = conf.location == "global" and "aiplatform.googleapis.com" or (conf.location .. "-aiplatform.googleapis.com")
    out.base_url = string.format("https://%s/v1/projects/%s/locations/%s/endpoints/openapi", host, conf.project, conf.location)
  end
  local headers = {}
  if type(conf.headers) == "table" then
    for k, v in pairs(conf.headers) do
      headers[tostring(k)] = tostring(v)
    end
  end
  if vertex(conf) then
    headers["x-goog-user-project"] = conf.project -- bill the project, not the login's default
  end
  if next(headers) then
    out.headers = headers
  end
  if next(out) == nil then
    return nil
  end
  return out
end)
