-- wrk script for the redirect benchmark, used unchanged against both servers so the load
-- generator does the same work on each side. Every request gets a distinct client IP
-- (X-Forwarded-For, honoured with TRUST_PROXY) and a browser user agent, and walks the 10,000
-- keys, so each (visitor, link) pair is new: every human request must become one stored click.
-- Args: <first octet of the IP range for this run> <number of keys> <wrk threads> [bot|human] [pace ms]
-- With "bot" every request carries a crawler user agent: redirected, never recorded (side c).
-- With "flood" every request carries a user agent and a referer never seen before (bench/redirect-flood.ts).
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
local referers = { false, "https://www.google.com/", "https://news.ycombinator.com/item?id=1", "https://t.co/abc" }

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
local flood = false
-- Requests are assembled from pieces built once in init(): wrk.format() (a table of headers, a
-- string.format per header) cost wrk ~5 µs of CPU per request, on the cores the servers share.
local key_lines = {}
local tails = {}
local ab = {}
local octets = {}
local function build()
  for i = 0, nkeys - 1 do key_lines[i + 1] = "GET /k" .. i .. " HTTP/1.1\r\nHost: go.bench\r\n" end
  -- #uas is a multiple of #referers, so n % #uas picks both.
  for j = 0, #uas - 1 do
    local ua = bot and "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)" or uas[j + 1]
    local ref = referers[(j % #referers) + 1]
    tails[j + 1] = "User-Agent: " .. ua .. "\r\n" .. (ref and ("Referer: " .. ref .. "\r\n") or "") .. "X-Forwarded-For: " .. octet .. "."
  end
  for i = 0, 255 do octets[i + 1] = tostring(i) end
  for i = 0, 65535 do ab[i + 1] = math.floor(i / 256) .. "." .. (i % 256) .. "." end
end

function init(args)
  octet = tonumber(args[1] or "20")
  nkeys = tonumber(args[2] or "10000")
  nthreads = tonumber(args[3] or "1")
  bot = args[4] == "bot"
  flood = args[4] == "flood"
  tid = tonumber(tid or 0)
  local pace = tonumber(args[5] or "0")
  -- wrk looks for a global delay() after init: defined only when pacing, so saturated runs
  -- pay no extra Lua call per request.
  if pace > 0 then
    local lo, hi = math.max(1, math.floor(pace / 2)), math.ceil(pace * 3 / 2)
    delay = function() return math.random(lo, hi) end
  end
  build()
end

function request()
  counter = counter + 1
  local n = counter * nthreads + tid
  -- X-Forwarded-For: <octet>.<a>.<b>.<c> with a.b.c the low 24 bits of n.
  if flood then
    return key_lines[(n % nkeys) + 1] .. "User-Agent: Mozilla/5.0 (X11; Linux x86_64; flood " .. n .. ") Gecko/20100101 Firefox/127.0\r\nReferer: https://r" .. n .. ".example/path\r\nX-Forwarded-For: " .. octet .. "." .. ab[math.floor(n / 256) % 65536 + 1] .. octets[(n % 256) + 1] .. "\r\n\r\n"
  end
  return key_lines[(n % nkeys) + 1] .. tails[(n % #uas) + 1] .. ab[math.floor(n / 256) % 65536 + 1] .. octets[(n % 256) + 1] .. "\r\n\r\n"
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
