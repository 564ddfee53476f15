-- SPDX-License-Identifier: GPL-2.0
--
-- Wireshark (and tshark) dissectors for what tcp-dcc puts on the wire
-- (Documentation/csig.rst, Documentation/tcp_csig_opt.rst):
--
--   csig      the CSIG L2 tags of draft-ravi-ippm-csig-00, compact
--             (TPID 0x88b5, 16 bits: T:3 R:1 S:5 LM:7) and expanded
--             (TPID 0x88b6, 48 bits: LM:16 T:4 S:20 R:8), each followed
--             by the frame's own EtherType, as a VLAN tag is
--   csig_opt  the CSIG reflection option in TCP: kind 253 with the
--             Experiment Identifier 0xC516 (RFC 6994), no sample (the
--             handshake's offer, acceptance or confirmation) or up to six
--             samples of 6 bytes (F:1 T:4 N:1 0:2 S:24 LM:16)
--
-- include/csig.h and include/csig_opt.h own these layouts; the values
-- below are theirs.  The TPIDs are preferences (Edit > Preferences >
-- Protocols > CSIG), for a domain that configured others.
--
--   tshark -X lua_script:/usr/share/tcp-dcc/wireshark/csig.lua -r cap.pcap
--
-- (make install: /usr/local/share/tcp-dcc/wireshark/csig.lua)
--
-- or copy it to ~/.local/lib/wireshark/plugins/.  Display filters:
-- csig, csig.type == 7, csig.lm, csig_opt, csig_opt.sample.type, ...

-- include/csig.h's and include/csig_opt.h's values, by their names there
-- (selftests/host/wireshark.t compares them with the headers)
local C = {
	CSIG_TPID_COMPACT = 0x88b5,
	CSIG_TPID_EXPANDED = 0x88b6,
	CSIG_COMPACT_T_SHIFT = 13,
	CSIG_COMPACT_T_MASK = 0x7,
	CSIG_COMPACT_R_SHIFT = 12,
	CSIG_COMPACT_S_SHIFT = 7,
	CSIG_COMPACT_S_MASK = 0x1f,
	CSIG_COMPACT_LM_MASK = 0x7f,
	CSIG_EXPANDED_T_SHIFT = 28,
	CSIG_EXPANDED_T_MASK = 0xf,
	CSIG_EXPANDED_S_SHIFT = 8,
	CSIG_EXPANDED_S_MASK = 0xfffff,
	CSIG_EXPANDED_R_MASK = 0xff,
	CSIG_OPT_KIND = 253,
	CSIG_OPT_EXID = 0xC516,
	CSIG_OPT_HDR_LEN = 4,
	CSIG_OPT_SAMPLE_LEN = 6,
	CSIG_OPT_F_SHIFT = 7,
	CSIG_OPT_T_SHIFT = 3,
	CSIG_OPT_T_MASK = 0xf,
	CSIG_OPT_N_BIT = 0x04,
	CSIG_OPT_RSVD_MASK = 0x03,
}

local types = {
	[0] = "ABW (min available bandwidth, kbit/s)",
	[1] = "ABW/C (min available fraction)",
	[2] = "PD (max per-hop delay, ns)",
	[7] = "U (max normalised inflight, HPCC++)",
}
local formats = { [0] = "compact", [1] = "expanded" }

-- the L2 tags
local csig = Proto("csig", "CSIG congestion signal tag")
csig.fields.format = ProtoField.uint8("csig.format", "Format", base.DEC, formats)
csig.fields.type = ProtoField.uint8("csig.type", "Signal type", base.DEC, types)
csig.fields.rsvd = ProtoField.uint8("csig.r", "Reserved", base.HEX)
csig.fields.s = ProtoField.uint32("csig.s", "Signal (quantised)", base.DEC)
csig.fields.lm = ProtoField.uint16("csig.lm", "Locator metadata", base.DEC)
csig.fields.etype = ProtoField.uint16("csig.etype", "Type", base.HEX)
csig.prefs.tpid_compact = Pref.uint("Compact TPID", C.CSIG_TPID_COMPACT,
				    "EtherType of the compact tag")
csig.prefs.tpid_expanded = Pref.uint("Expanded TPID", C.CSIG_TPID_EXPANDED,
				     "EtherType of the expanded tag")

local ethertype = DissectorTable.get("ethertype")
local registered = {}

function csig.dissector(tvb, pinfo, root)
	-- the TPID that brought the frame here: the table's key
	local expanded = pinfo.match_uint == csig.prefs.tpid_expanded
	local n = expanded and 6 or 2
	if tvb:len() < n + 2 then
		return 0
	end
	local t = root:add(csig, tvb(0, n + 2))
	local ty, s, lm, r
	if expanded then
		local tsr = tvb(2, 4):uint()
		lm = tvb(0, 2):uint()
		ty = bit.band(bit.rshift(tsr, C.CSIG_EXPANDED_T_SHIFT),
			      C.CSIG_EXPANDED_T_MASK)
		s = bit.band(bit.rshift(tsr, C.CSIG_EXPANDED_S_SHIFT),
			     C.CSIG_EXPANDED_S_MASK)
		r = bit.band(tsr, C.CSIG_EXPANDED_R_MASK)
		t:add(csig.fields.format, tvb(0, 0), 1):set_generated()
		t:add(csig.fields.lm, tvb(0, 2), lm)
		t:add(csig.fields.type, tvb(2, 1), ty)
		t:add(csig.fields.s, tvb(2, 3), s)
		t:add(csig.fields.rsvd, tvb(5, 1), r)
	else
		local d = tvb(0, 2):uint()
		ty = bit.band(bit.rshift(d, C.CSIG_COMPACT_T_SHIFT),
			      C.CSIG_COMPACT_T_MASK)
		r = bit.band(bit.rshift(d, C.CSIG_COMPACT_R_SHIFT), 0x1)
		s = bit.band(bit.rshift(d, C.CSIG_COMPACT_S_SHIFT),
			     C.CSIG_COMPACT_S_MASK)
		lm = bit.band(d, C.CSIG_COMPACT_LM_MASK)
		t:add(csig.fields.format, tvb(0, 0), 0):set_generated()
		t:add(csig.fields.type, tvb(0, 1), ty)
		t:add(csig.fields.rsvd, tvb(0, 1), r)
		t:add(csig.fields.s, tvb(0, 2), s)
		t:add(csig.fields.lm, tvb(1, 1), lm)
	end
	t:append_text(string.format(", %s, type %d, S %d, LM %d",
				    expanded and "expanded" or "compact", ty, s, lm))
	local et = tvb(n, 2):uint()
	t:add(csig.fields.etype, tvb(n, 2), et)
	-- the frame's own EtherType, as after a VLAN tag
	if tvb:len() > n + 2 then
		local inner = tvb(n + 2):tvb()
		local done = ethertype:try(et, inner, pinfo, root)
		if not done or done == 0 then
			Dissector.get("data"):call(inner, pinfo, root)
		end
	end
	return tvb:len()
end

local function register_tpids()
	for _, v in ipairs(registered) do
		ethertype:remove(v, csig)
	end
	registered = { csig.prefs.tpid_compact, csig.prefs.tpid_expanded }
	for _, v in ipairs(registered) do
		ethertype:add(v, csig)
	end
end

function csig.prefs_changed()
	register_tpids()
end

register_tpids()

-- the TCP option, read from TCP's own option bytes after the dissection
local csig_opt = Proto("csig_opt", "CSIG reflection option (TCP)")
local of = csig_opt.fields
of.exid = ProtoField.uint16("csig_opt.exid", "Experiment Identifier", base.HEX)
of.len = ProtoField.uint8("csig_opt.len", "Length", base.DEC)
of.samples = ProtoField.uint8("csig_opt.samples", "Samples", base.DEC)
of.sample = ProtoField.bytes("csig_opt.sample", "Sample")
of.format = ProtoField.uint8("csig_opt.sample.format", "Format (F)", base.DEC, formats)
of.type = ProtoField.uint8("csig_opt.sample.type", "Signal type (T)", base.DEC, types)
of.new = ProtoField.bool("csig_opt.sample.new", "New since the last reflection (N)")
of.rsvd = ProtoField.uint8("csig_opt.sample.rsvd", "Reserved", base.HEX)
of.s = ProtoField.uint32("csig_opt.sample.s", "Signal (S)", base.DEC)
of.lm = ProtoField.uint16("csig_opt.sample.lm", "Locator metadata (LM)", base.DEC)
local e_len = ProtoExpert.new("csig_opt.bad_len", "Length is not 4 + 6n",
			      expert.group.MALFORMED, expert.severity.ERROR)
local e_rsvd = ProtoExpert.new("csig_opt.rsvd", "Reserved bits set",
			       expert.group.PROTOCOL, expert.severity.WARN)
csig_opt.experts = { e_len, e_rsvd }

local tcp_options = Field.new("tcp.options")

local function dissect_option(r, tree)
	local t = tree:add(csig_opt, r)
	local len = r:len()
	t:add(of.len, r:range(1, 1))
	t:add(of.exid, r:range(2, 2))
	if len < C.CSIG_OPT_HDR_LEN or
	   (len - C.CSIG_OPT_HDR_LEN) % C.CSIG_OPT_SAMPLE_LEN ~= 0 then
		t:add_proto_expert_info(e_len)
		t:append_text(", malformed")
		return
	end
	local n = (len - C.CSIG_OPT_HDR_LEN) / C.CSIG_OPT_SAMPLE_LEN
	t:add(of.samples, r:range(1, 1), n):set_generated()
	if n == 0 then
		t:append_text(", handshake (offer, acceptance or confirmation)")
		return
	end
	for i = 0, n - 1 do
		local sr = r:range(C.CSIG_OPT_HDR_LEN + i * C.CSIG_OPT_SAMPLE_LEN,
			     C.CSIG_OPT_SAMPLE_LEN)
		local b0 = sr:range(0, 1):uint()
		local fmt = bit.rshift(b0, C.CSIG_OPT_F_SHIFT)
		local ty = bit.band(bit.rshift(b0, C.CSIG_OPT_T_SHIFT), C.CSIG_OPT_T_MASK)
		local new = bit.band(b0, C.CSIG_OPT_N_BIT) ~= 0
		local rsvd = bit.band(b0, C.CSIG_OPT_RSVD_MASK)
		local s = sr:range(1, 3):uint()
		local lm = sr:range(4, 2):uint()
		local st = t:add(of.sample, sr)
		st:set_text(string.format("Sample: %s, type %d, S %d, LM %d%s",
					  formats[fmt], ty, s, lm, new and ", new" or ""))
		st:add(of.format, sr:range(0, 1), fmt)
		st:add(of.type, sr:range(0, 1), ty)
		st:add(of.new, sr:range(0, 1), new)
		local rv = st:add(of.rsvd, sr:range(0, 1), rsvd)
		if rsvd ~= 0 then
			rv:add_proto_expert_info(e_rsvd)
		end
		st:add(of.s, sr:range(1, 3), s)
		st:add(of.lm, sr:range(4, 2), lm)
	end
	t:append_text(string.format(", %d sample%s", n, n == 1 and "" or "s"))
end

function csig_opt.dissector(tvb, pinfo, tree)
	for _, fi in ipairs({ tcp_options() }) do
		local r = fi.range
		local off, len = 0, r:len()
		while off < len do
			local kind = r:range(off, 1):uint()
			if kind == 0 then
				break
			elseif kind == 1 then
				off = off + 1
			else
				if off + 2 > len then
					break
				end
				local olen = r:range(off + 1, 1):uint()
				if olen < 2 or off + olen > len then
					break
				end
				if kind == C.CSIG_OPT_KIND and olen >= 4 and
				   r:range(off + 2, 2):uint() == C.CSIG_OPT_EXID then
					dissect_option(r:range(off, olen), tree)
				end
				off = off + olen
			end
		end
	end
end

register_postdissector(csig_opt, true)
