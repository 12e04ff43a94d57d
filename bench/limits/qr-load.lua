-- wrk script for bench/qr.ts: every request asks GET /qr for a code never asked before (a new
-- `n` in the encoded URL), so each one is rendered, none comes from the cache.
-- Args: <size px> <short|long>: long pads the encoded URL to ~1,900 characters (a version-40 code).
local counter = 0
local size = "2000"
local pad = ""
function init(args)
  size = args[1] or "2000"
  if args[2] == "long" then pad = "%26p%3D" .. string.rep("a", 1850) end
end
function request()
  counter = counter + 1
  return wrk.format("GET", "/qr?url=https%3A%2F%2Fgo.bench%2Fk0%3Fn%3D" .. counter .. pad .. "&size=" .. size, { Host = "localhost" })
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
