-- SPDX-License-Identifier: BSD-3-Clause
-- Copyright(c) 2026 The rocetor authors
--
-- rocetor benchmark with pktgen-DPDK (tools/pktgen/README.md): replay the
-- benchgen pcap that "-s TX:FILE.pcap" loaded on port TX at RATE percent of
-- line rate, count what rocetor forwards to port RX, print one line per
-- second and a summary, then stop. Untested here: pktgen-DPDK is not
-- packaged in Debian, and its Lua API changes between releases (the port
-- counters are read defensively; the main page's Pkts/s are authoritative).
--
-- Environment (all optional):
--   ROCETOR_PG_TX       port that sends the pcap          (default 0)
--   ROCETOR_PG_RX       port that receives from rocetor    (default 1)
--   ROCETOR_PG_RATE     percent of line rate               (default 100)
--   ROCETOR_PG_WARMUP   seconds before measuring           (default 3)
--   ROCETOR_PG_SECONDS  seconds measured                   (default 30)

local getenv = (os and os.getenv) or function() return nil end
local tx = getenv("ROCETOR_PG_TX") or "0"
local rx = getenv("ROCETOR_PG_RX") or "1"
local rate = tonumber(getenv("ROCETOR_PG_RATE") or "100")
local warmup = tonumber(getenv("ROCETOR_PG_WARMUP") or "3")
local seconds = tonumber(getenv("ROCETOR_PG_SECONDS") or "30")

-- Cumulative (opackets, ipackets) of one port, or nil. Older releases take
-- portStats(list, "port") and return flat fields; newer ones take
-- portStats(list) and put them under .curr.
local function counters(pid)
	local n = tonumber(pid)
	for _, args in ipairs({{pid, "port"}, {pid}}) do
		local ok, t = pcall(pktgen.portStats, table.unpack(args))
		if ok and type(t) == "table" and type(t[n]) == "table" then
			local s = t[n].curr or t[n]
			if s.opackets ~= nil and s.ipackets ~= nil then
				return s.opackets, s.ipackets
			end
		end
	end
	return nil
end

-- "-s" already put the port in pcap mode; older releases also have pktgen.pcap.
if pktgen.pcap ~= nil then
	pcall(pktgen.pcap, tx, "on")
end
pktgen.set(tx, "count", 0)		-- forever: the pcap wraps around
pktgen.set(tx, "rate", rate)
pktgen.clr()
pktgen.start(tx)
pktgen.delay(warmup * 1000)

local tx0 = counters(tx)
local _, rx0 = counters(rx)
if tx0 == nil or rx0 == nil then
	print("rocetor-replay: cannot read port counters from this pktgen; "
		.. "read Pkts/s on the main page (page main) instead")
	pktgen.delay(seconds * 1000)
else
	local ptx, prx = tx0, rx0
	for s = 1, seconds do
		pktgen.delay(1000)
		local ctx = counters(tx)
		local _, crx = counters(rx)
		local dtx, drx = ctx - ptx, crx - prx
		print(string.format("t=%3d s  port %s tx %8.3f Mpps  port %s rx %8.3f Mpps  (%5.1f%%)",
			s, tx, dtx / 1e6, rx, drx / 1e6, dtx > 0 and 100 * drx / dtx or 0))
		ptx, prx = ctx, crx
	end
	local ttx = (ptx - tx0) / seconds
	local trx = (prx - rx0) / seconds
	print(string.format("rocetor-replay: %d s at %g%%: offered %.3f Mpps, forwarded %.3f Mpps (%.1f%%)",
		seconds, rate, ttx / 1e6, trx / 1e6, ttx > 0 and 100 * trx / ttx or 0))
end
pktgen.stop(tx)
