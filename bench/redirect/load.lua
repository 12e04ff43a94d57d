-- wrk script for the redirect benchmark, used unchanged against both servers so the load
-- generator does the same work on each side. Every request gets a distinct client IP
-- (X-Forwarded-For, honoured with TRUST_PROXY) and a browser user agent, and walks the 10,000
-- keys, so each (visitor, link) pair is new: every human request must become one stored click.
-- Args: <first octet of the IP range for this run> <number of keys> <wrk threads> [bot|human] [pace ms]
-- With "bot" every request carries a crawler user agent: redirected, never recorded (side c).
-- With a pace, each connection waits that many ms on average before each request (uniformly
-- between half and one and a half times it, so the connections do not fall into step and arrive
-- in bursts): an offered rate below saturation, about connections × 1000 / pace requests a
-- second, for latency without the queue a saturating loop builds.

local uas = {
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0",
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0",
}
local referers = { nil, "https://www.google.com/", "https://news.ycombinator.com/item?id=1", "https://t.co/abc" }

local threads = {}
local next_id = 0
function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

local counter = 0
local octet = 20
local nkeys = 10000
local nthreads = 1
local bot = false
function init(args)
  octet = tonumber(args[1] or "20")
  nkeys = tonumber(args[2] or "10000")
  nthreads = tonumber(args[3] or "1")
  bot = args[4] == "bot"
  tid = tonumber(tid or 0)
  local pace = tonumber(args[5] or "0")
  -- wrk looks for a global delay() after init: defined only when pacing, so saturated runs
  -- pay no extra Lua call per request.
  if pace > 0 then
    local lo, hi = math.max(1, math.floor(pace / 2)), math.ceil(pace * 3 / 2)
    delay = function() return math.random(lo, hi) end
  end
end

function request()
  counter = counter + 1
  local n = counter * nthreads + tid
  local a = math.floor(n / 65536) % 256
  local b = math.floor(n / 256) % 256
  local c = n % 256
  local headers = {
    ["Host"] = "go.bench",
    ["User-Agent"] = bot and "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" or uas[(n % #uas) + 1],
    ["X-Forwarded-For"] = octet .. "." .. a .. "." .. b .. "." .. c,
  }
  local ref = referers[(n % #referers) + 1]
  if ref then headers["Referer"] = ref end
  return wrk.format("GET", "/k" .. (n % nkeys), headers)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
