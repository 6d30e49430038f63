-- SPDX-License-Identifier: GPL-2.0-only
--
-- pktsample's words as Wireshark fields. pktsample says who owned a
-- packet, its container or pod, and why it was dropped, as "key=value"
-- words in the packet's pcapng comment (doc/guide.md, "Annotations").
-- Wireshark 4.0 can show a comment only whole, so this post-dissector
-- splits the words into fields of their own: pktsample.pod,
-- pktsample.container, pktsample.pid, pktsample.drop, ... for filters,
-- and two for the profile's columns: pktsample.owner_label (the process,
-- or why there is none) and pktsample.workload (the pod and container,
-- or the container, or the cgroup). A comment with none of these keys
-- gets no tree: other tools' comments stay as they were.
--
-- Installed in Wireshark's global Lua plugin directory; for one user,
-- ~/.local/lib/wireshark/plugins/.

local proto = Proto("pktsample", "pktsample annotation")

-- The words, as user/util/words.h spells them; numbers as numbers.
local numeric = { cpu = true, queue = true, pid = true, tid = true }
local keys = { "hook", "cpu", "queue", "clock", "verdict", "drop", "at", "owner",
	"pid", "tid", "comm", "pod", "container", "image", "cid", "cgroup", "netns",
	"trigger", "id", "prev", "after" }
local fields = {}
for _, k in ipairs(keys) do
	if numeric[k] then
		fields[k] = ProtoField.uint32("pktsample." .. k, k)
	else
		fields[k] = ProtoField.string("pktsample." .. k, k)
	end
	table.insert(proto.fields, fields[k])
end
local f_owner_label = ProtoField.string("pktsample.owner_label", "Owner")
local f_workload = ProtoField.string("pktsample.workload", "Container or pod")
table.insert(proto.fields, f_owner_label)
table.insert(proto.fields, f_workload)

local comment_field = Field.new("frame.comment")

-- "key=value key=value ..." into { key = value } for the keys above;
-- nil if there are none. A word that is not ours (a tag, a note) is left.
local function words(comment)
	local got, any = {}, false
	for word in string.gmatch(comment, "%S+") do
		local key, value = string.match(word, "^(%w+)=(.*)$")
		if key and fields[key] and got[key] == nil then
			got[key] = value
			any = true
		end
	end
	return any and got or nil
end

-- The process ("ping (1234)"), or why there is none ("unknown:socket-not-found").
local function owner_label(w)
	if w.comm and w.pid then
		return w.comm .. " (" .. w.pid .. ")"
	end
	return w.owner
end

-- As pktsample --top labels it: NAMESPACE/POD/CONTAINER, else the
-- container's name (or id), else the cgroup.
local function workload(w)
	if w.pod then
		return w.pod .. "/" .. (w.container or "(sandbox)")
	end
	return w.container or w.cgroup
end

function proto.dissector(tvb, pinfo, tree)
	for _, c in ipairs({ comment_field() }) do
		local w = words(tostring(c.value))
		if w then
			local t = tree:add(proto, "pktsample: " .. tostring(c.value))
			for _, k in ipairs(keys) do
				if w[k] then
					if numeric[k] then
						local n = tonumber(w[k])
						if n then
							t:add(fields[k], n)
						end
					else
						t:add(fields[k], w[k])
					end
				end
			end
			local o = owner_label(w)
			if o then
				t:add(f_owner_label, o):set_generated()
			end
			local l = workload(w)
			if l then
				t:add(f_workload, l):set_generated()
			end
			return
		end
	end
end

register_postdissector(proto)
