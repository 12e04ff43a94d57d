-- wrk script for bench/qr.ts and bench/rate-limit.ts; prints the run as one WRK_JSON line.
-- Args: qr <size px> <short|long>   every request asks GET /qr for a code never asked before (a
--                                    new `n` in the encoded URL), so each is drawn, none cached;
--                                    long pads the URL to ~1,900 characters (a version-40 code)
--       api <path> <API key>        every request is GET <path> with the key
local mode = "qr"
local counter = 0
local size = "2000"
local pad = ""
local api_request
function init(args)
  mode = args[1] or "qr"
  if mode == "api" then
    api_request = wrk.format("GET", args[2], { Host = "localhost", Authorization = "Bearer " .. args[3] })
  else
    size = args[2] or "2000"
    if args[3] == "long" then pad = "%26p%3D" .. string.rep("a", 1850) end
  end
end
function request()
  if api_request then return api_request end
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
