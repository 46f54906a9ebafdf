-- SPDX-License-Identifier: BSD-3-Clause
-- Copyright(c) 2026 The rocetor authors
--
-- rocetor benchmark with pktgen-DPDK 23.03.0 (tools/pktgen/README.md):
-- replay the benchgen pcap that "-s TX:FILE.pcap" loaded on port TX at RATE
-- percent of line rate, count what rocetor forwards to port RX, print one
-- line per pktgen stats period and a summary, stop sending and quit pktgen.
--
-- What the rates are: pktgen.portStats(P, "port") returns the port counters
-- as pktgen's timer thread last copied them, once per second of TSC time
-- (pktgen_process_stats), not the live ethdev counters. Reading them after
-- pktgen.delay(1000) mixes two clocks: a window could hold two copies or
-- none, and a line read 6.8 Mpps while rocetor never passed 5.8. So this
-- script polls every 10 ms, waits for the transmit counter to change (a new
-- copy), and divides counter differences by the number of copies between
-- them, i.e. by pktgen's own 1 s periods. The summary covers the whole
-- periods from the first copy after the warm-up to the last copy.
--
-- Environment (all optional):
--   ROCETOR_PG_TX       port that sends the pcap          (default 0)
--   ROCETOR_PG_RX       port that receives from rocetor    (default 1)
--   ROCETOR_PG_RATE     percent of line rate               (default 100)
--   ROCETOR_PG_WARMUP   seconds before measuring           (default 3)
--   ROCETOR_PG_SECONDS  stats periods measured (~seconds)  (default 30)
--   ROCETOR_PG_NOQUIT   set to 1 to stay at the prompt afterwards
--   ROCETOR_PG_QUIT_FILE  after the summary, wait (at most 120 s) until
--                       this file exists before quitting: a runner stops
--                       the switch first, then lets pktgen go (over memif,
--                       DPDK 22.11's driver can crash in the process whose
--                       peer disconnects while it polls; tools/pktgen/README.md)

local getenv = (os and os.getenv) or function() return nil end
local tx = tonumber(getenv("ROCETOR_PG_TX") or "0")
local rx = tonumber(getenv("ROCETOR_PG_RX") or "1")
local rate = tonumber(getenv("ROCETOR_PG_RATE") or "100")
local warmup = tonumber(getenv("ROCETOR_PG_WARMUP") or "3")
local seconds = tonumber(getenv("ROCETOR_PG_SECONDS") or "30")
local noquit = getenv("ROCETOR_PG_NOQUIT") == "1"
local quit_file = getenv("ROCETOR_PG_QUIT_FILE")

local function exists(path)
	local f = io.open(path, "r")
	if f ~= nil then
		f:close()
		return true
	end
	return false
end

local function finish(code)
	pktgen.stop(tostring(tx))
	print("rocetor-replay: DONE")
	io.stdout:flush()
	if quit_file ~= nil and quit_file ~= "" then
		for _ = 1, 1200 do
			if exists(quit_file) then
				break
			end
			pktgen.delay(100)
		end
	end
	if not noquit then
		pktgen.quit()
	end
	return code
end

if tx == nil or rx == nil or rate == nil or warmup == nil or seconds == nil
		or seconds < 1 or rate <= 0 or rate > 100 then
	print("rocetor-replay: bad ROCETOR_PG_* value (TX, RX ports; RATE 1..100; "
		.. "WARMUP >= 0; SECONDS >= 1)")
	return finish(1)
end

-- The last copy of port P's counters: opackets, ipackets.
local function counters(pid)
	local t = pktgen.portStats(tostring(pid), "port")
	local s = t[pid]
	return s.opackets, s.ipackets, s.imissed, s.rx_nombuf
end

-- Wait for the next copy of the counters (the transmit port's opackets
-- changes every period while it sends); nil after 3 s without one.
local function next_copy(prev_tx)
	for _ = 1, 300 do
		pktgen.delay(10)
		local ctx = counters(tx)
		if ctx ~= prev_tx then
			return ctx
		end
	end
	return nil
end

pktgen.set(tostring(tx), "count", 0)	-- forever: the pcap wraps around
pktgen.set(tostring(tx), "rate", rate)
pktgen.clr()
pktgen.start(tostring(tx))
pktgen.delay(warmup * 1000)

local tx0 = next_copy(counters(tx))
if tx0 == nil then
	print(string.format("rocetor-replay: port %d sent nothing in %g s: is its link up "
		.. "(memif: is the peer running)?", tx, warmup + 3))
	return finish(1)
end
local _, rx0 = counters(rx)
local ptx, prx = tx0, rx0
local periods = 0
print(string.format("rocetor-replay: port %d -> port %d at %g%%, %d periods of pktgen's 1 s stats timer",
	tx, rx, rate, seconds))
for s = 1, seconds do
	local ctx = next_copy(ptx)
	if ctx == nil then
		print(string.format("rocetor-replay: port %d stopped sending after %d periods", tx, periods))
		break
	end
	local _, crx, missed, nombuf = counters(rx)
	local dtx, drx = ctx - ptx, crx - prx
	print(string.format("t=%3d  port %d tx %8.3f Mpps  port %d rx %8.3f Mpps  (rx/tx %5.1f%%, rx imissed %d nombuf %d)",
		s, tx, dtx / 1e6, rx, drx / 1e6, dtx > 0 and 100 * drx / dtx or 0, missed, nombuf))
	ptx, prx = ctx, crx
	periods = periods + 1
end
if periods > 0 then
	local ttx = (ptx - tx0) / periods
	local trx = (prx - rx0) / periods
	print(string.format("rocetor-replay: RESULT periods=%d tx_mpps=%.3f rx_mpps=%.3f ratio=%.3f",
		periods, ttx / 1e6, trx / 1e6, ttx > 0 and trx / ttx or 0))
end
return finish(periods > 0 and 0 or 1)
