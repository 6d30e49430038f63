// SPDX-License-Identifier: GPL-2.0-only
/*
 * SNMP v1, v2c and v3, as tcpdump 4.99's print-snmp.c prints it with -n
 * and without -v (and without libsmi): the community unless "public", the
 * PDU and its varbinds with OIDs in numbers, v3's flags, user and context.
 * A small BER reader (asn1_parse) feeds it; every length it reads is
 * checked against the message and the capture.
 */
#include <inttypes.h>
#include <string.h>
#include "print.h"

enum be_type {
	BE_ANY = 255,
	BE_NULL = 1,
	BE_OCTET,
	BE_OID,
	BE_INT,
	BE_UNS,
	BE_STR,
	BE_SEQ,
	BE_INETADDR,
	BE_PDU,
	BE_UNS64,
	BE_NOSUCHOBJECT = 128,
	BE_NOSUCHINST,
	BE_ENDOFMIBVIEW,
};

/* One BER element (tcpdump's struct be). */
struct be {
	uint32_t asnlen;
	const uint8_t *raw; /* its contents */
	int32_t integer;
	uint32_t uns;
	uint64_t uns64;
	unsigned int id, form, cls;
	enum be_type type;
};

/* PDU types (context class). */
enum { GETREQ, GETNEXTREQ, GETRESP, SETREQ, TRAP, GETBULKREQ, INFORMREQ, V2TRAP, REPORT };

static const char *const universal[] = {
	"U-0", "Boolean", "Integer", "Bitstring", "String", "Null", "ObjID", "ObjectDes", "U-8",
	"U-9", "U-10",	  "U-11",    "U-12",	  "U-13",   "U-14", "U-15",  "Sequence",  "Set",
};
static const char *const application[] = {
	"IpAddress", "Counter", "Gauge", "TimeTicks", "Opaque", "C-5", "Counter64",
};
static const char *const context[] = {
	"GetRequest", "GetNextRequest", "GetResponse", "SetRequest", "Trap",
	"GetBulk",    "Inform",		"V2Trap",      "Report",
};
static const char *const exceptions[] = { "noSuchObject", "noSuchInstance", "endOfMibView" };
static const char *const private_ids[] = { "P-0" };

static const struct {
	const char *name;
	const char *const *ids;
	unsigned int n;
} classes[] = {
	{ "Universal", universal, sizeof(universal) / sizeof(universal[0]) },
	{ "Application", application, sizeof(application) / sizeof(application[0]) },
	{ "Context", context, sizeof(context) / sizeof(context[0]) },
	{ "Private", private_ids, 1 },
	{ "Exceptions", exceptions, 3 },
};
static const char *const forms[] = { "Primitive", "Constructed" };

static const char *error_status(int e, char *buf, size_t n)
{
	static const char *const names[] = {
		"noError",
		"tooBig",
		"noSuchName",
		"badValue",
		"readOnly",
		"genErr",
		"noAccess",
		"wrongType",
		"wrongLength",
		"wrongEncoding",
		"wrongValue",
		"noCreation",
		"inconsistentValue",
		"resourceUnavailable",
		"commitFailed",
		"undoFailed",
		"authorizationError",
		"notWritable",
		"inconsistentName",
	};

	if (e >= 0 && (size_t)e < sizeof(names) / sizeof(names[0]))
		return names[e];
	snprintf(buf, n, "err=%u", (unsigned int)e);
	return buf;
}

/* The tag at *p (one byte, or more where its id goes on), into e; *p,
 * *len and *hdr moved past it. 0, or -1 after tcpdump's words for why not. */
static int asn1_tag(struct ps_print_ctx *c, const uint8_t **p, uint32_t *len, uint32_t *hdr,
		    struct be *e)
{
	const uint8_t *q = *p;
	unsigned int id;

	if (!need(c, q, 1))
		return -1;
	e->id = q[0] & 0x1f;
	e->form = (q[0] & 0x20) >> 5;
	e->cls = (q[0] & 0xc0) >> 6;
	q++;
	(*len)--;
	*hdr = 1;
	if (e->id == 0x1f) { /* the tag goes on in the next bytes */
		for (id = 0;; q++, (*len)--, (*hdr)++) {
			if (!need(c, q, 1))
				return -1;
			if (!(q[0] & 0x80))
				break;
			if (*len < 1) {
				ps_put(c, "[Xtagfield?]");
				return -1;
			}
			id = (id << 7) | (q[0] & 0x7f);
		}
		if (*len < 1) {
			ps_put(c, "[Xtagfield?]");
			return -1;
		}
		e->id = (id << 7) | q[0];
		--*len;
		++*hdr;
		++q;
	}
	*p = q;
	return 0;
}

/* The length at *p (short or long form), into e->asnlen; *p, *len and
 * *hdr moved past it. 0, or -1 after tcpdump's words for why not. */
static int asn1_length(struct ps_print_ctx *c, const uint8_t **p, uint32_t *len, uint32_t *hdr,
		       struct be *e)
{
	const uint8_t *q = *p;

	if (*len < 1) {
		ps_put(c, "[no asnlen]");
		return -1;
	}
	if (!need(c, q, 1))
		return -1;
	e->asnlen = *q++;
	(*len)--;
	(*hdr)++;
	if (e->asnlen & 0x80) {
		uint32_t noct = e->asnlen % 0x80;

		e->asnlen = 0;
		if (*len < noct) {
			ps_put(c, "[asnlen? %d<%d]", (int)*len, (int)noct);
			return -1;
		}
		if (!have(c, q, noct)) {
			local_trunc(c);
			return -1;
		}
		for (; noct != 0; (*len)--, (*hdr)++, noct--)
			e->asnlen = (e->asnlen << 8) | *q++;
	}
	*p = q;
	return 0;
}

/* A primitive element's type and value (its bytes at p). 0, or -1 after
 * tcpdump's words for why not. */
static int asn1_primitive(struct ps_print_ctx *c, const uint8_t *p, struct be *e)
{
	unsigned int cls = e->cls, id = e->id;

	if (cls == 0 && id == 2) { /* universal integer */
		int32_t data = 0;

		e->type = BE_INT;
		if (e->asnlen == 0) {
			ps_put(c, "[asnlen=0]");
			return -1;
		}
		if (p[0] & 0x80)
			data = -1;
		for (uint32_t i = 0; i < e->asnlen; i++)
			data = (int32_t)((uint32_t)data << 8 | p[i]);
		e->integer = data;
	} else if (cls == 0 && (id == 4 || id == 6 || id == 5)) {
		e->type = id == 4 ? BE_STR : id == 6 ? BE_OID : BE_NULL;
		if (id == 5)
			e->raw = NULL;
	} else if (cls == 0) {
		e->type = BE_OCTET;
		ps_put(c, "[P/U/%s]", classes[cls].ids[id]);
	} else if (cls == 1 && id == 0) {
		e->type = BE_INETADDR;
	} else if (cls == 1 && id >= 1 && id <= 3) {
		e->type = BE_UNS;
		e->uns = 0;
		for (uint32_t i = 0; i < e->asnlen; i++)
			e->uns = (e->uns << 8) + p[i];
	} else if (cls == 1 && id == 6) {
		e->type = BE_UNS64;
		e->uns64 = 0;
		for (uint32_t i = 0; i < e->asnlen; i++)
			e->uns64 = (e->uns64 << 8) + p[i];
	} else if (cls == 1) {
		e->type = BE_OCTET;
		ps_put(c, "[P/A/%s]", classes[cls].ids[id]);
	} else if (cls == 2) { /* context: the exceptions */
		if (id <= 2) {
			e->type = (enum be_type)(BE_NOSUCHOBJECT + id);
			e->raw = NULL;
		}
	} else {
		ps_put(c, "[P/%s/%s]", classes[cls].name, classes[cls].ids[id]);
		e->type = BE_OCTET;
	}
	return 0;
}

/* A constructed element's type. */
static void asn1_constructed(struct ps_print_ctx *c, struct be *e)
{
	if (e->cls == 0 && e->id == 16) {
		e->type = BE_SEQ;
	} else if (e->cls == 0) {
		e->type = BE_OCTET;
		ps_put(c, "C/U/%s", classes[0].ids[e->id]);
	} else if (e->cls == 2) {
		e->type = BE_PDU;
	} else {
		e->type = BE_OCTET;
		ps_put(c, "C/%s/%s", classes[e->cls].name, classes[e->cls].ids[e->id]);
	}
}

/* tcpdump's asn1_parse(): the element at p within len; the bytes it took,
 * or -1 after tcpdump's words for why not. */
static int asn1_parse(struct ps_print_ctx *c, const uint8_t *p, uint32_t len, struct be *e)
{
	uint32_t hdr = 0;

	e->asnlen = 0;
	e->type = BE_ANY;
	if (len < 1) {
		ps_put(c, "[nothing to parse]");
		return -1;
	}
	if (asn1_tag(c, &p, &len, &hdr, e) || asn1_length(c, &p, &len, &hdr, e))
		return -1;
	if (len < e->asnlen) {
		ps_put(c, "[len%d<asnlen%u]", (int)len, e->asnlen);
		return -1;
	}
	if (e->form >= 2) {
		ps_put(c, "[form?%d]", e->form);
		return -1;
	}
	if (e->cls >= 5) {
		ps_put(c, "[class?%c/%d]", *forms[e->form], e->cls);
		return -1;
	}
	if (e->id >= classes[e->cls].n) {
		ps_put(c, "[id?%c/%s/%d]", *forms[e->form], classes[e->cls].name, e->id);
		return -1;
	}
	if (!have(c, p, e->asnlen)) {
		local_trunc(c);
		return -1;
	}
	e->raw = p;
	if (e->form == 1)
		asn1_constructed(c, e);
	else if (asn1_primitive(c, p, e))
		return -1;
	return (int)(e->asnlen + hdr);
}

static int print_octets(struct ps_print_ctx *c, const struct be *e)
{
	if (!have(c, e->raw, e->asnlen)) {
		local_trunc(c);
		return -1;
	}
	for (uint32_t i = 0; i < e->asnlen; i++)
		ps_put(c, "_%.2x", e->raw[i]);
	return 0;
}

static int print_string(struct ps_print_ctx *c, const struct be *e)
{
	bool printable = true;

	if (!have(c, e->raw, e->asnlen)) {
		local_trunc(c);
		return -1;
	}
	for (uint32_t i = 0; printable && i < e->asnlen; i++)
		printable = ps_isprint(e->raw[i]);
	if (printable) {
		ps_put(c, "\"");
		if (ps_printn(c, e->raw, e->asnlen)) {
			ps_put(c, "\"");
			local_trunc(c);
			return -1;
		}
		ps_put(c, "\"");
	} else {
		for (uint32_t i = 0; i < e->asnlen; i++)
			ps_put(c, i ? "_%.2x" : "%.2x", e->raw[i]);
	}
	return 0;
}

/* tcpdump's asn1_print() with -n: OIDs in numbers. */
static int asn1_print(struct ps_print_ctx *c, const struct be *e)
{
	switch (e->type) {
	case BE_OCTET:
		return print_octets(c, e);
	case BE_NULL:
		break;
	case BE_OID: {
		uint32_t o = 0;
		bool first = true;

		for (uint32_t i = 0; i < e->asnlen; i++) {
			if (!need(c, e->raw + i, 1))
				return -1;
			o = (o << 7) + (e->raw[i] & 0x7f);
			if (e->raw[i] & 0x80)
				continue;
			if (first) {
				uint32_t s = o / 40 > 2 ? 2 : o / 40;

				ps_put(c, ".%u", s);
				o -= s * 40;
				first = false;
			}
			ps_put(c, ".%u", o);
			o = 0;
		}
		break;
	}
	case BE_INT:
		ps_put(c, "%d", e->integer);
		break;
	case BE_UNS:
		ps_put(c, "%u", e->uns);
		break;
	case BE_UNS64:
		ps_put(c, "%" PRIu64, e->uns64);
		break;
	case BE_STR:
		return print_string(c, e);
	case BE_SEQ:
		ps_put(c, "Seq(%u)", e->asnlen);
		break;
	case BE_INETADDR:
		if (e->asnlen != 4)
			ps_put(c, "[inetaddr len!=%d]", 4);
		if (!have(c, e->raw, e->asnlen)) {
			local_trunc(c);
			return -1;
		}
		for (uint32_t i = 0; i < e->asnlen; i++)
			ps_put(c, i ? ".%u" : "%u", e->raw[i]);
		break;
	case BE_NOSUCHOBJECT:
	case BE_NOSUCHINST:
	case BE_ENDOFMIBVIEW:
		ps_put(c, "[%s]", exceptions[e->id]);
		break;
	case BE_PDU:
		ps_put(c, "%s(%u)", context[e->id], e->asnlen);
		break;
	case BE_ANY:
		ps_put(c, "[BE_ANY!?]");
		break;
	default:
		ps_put(c, "[be!?]");
		break;
	}
	return 0;
}

/* The next element must be of type want: else tcpdump's complaint and
 * the element as it is, and false. */
static bool expect(struct ps_print_ctx *c, const uint8_t **np, uint32_t *length, struct be *e,
		   enum be_type want, const char *complaint, int *count)
{
	if ((*count = asn1_parse(c, *np, *length, e)) < 0)
		return false;
	if (e->type != want) {
		ps_put(c, "%s", complaint);
		asn1_print(c, e);
		return false;
	}
	return true;
}

/* Take the element just read off the front. */
static void advance(const uint8_t **np, uint32_t *length, int count)
{
	*np += count;
	*length -= (uint32_t)count;
}

static bool is_get(unsigned int pduid)
{
	return pduid == GETREQ || pduid == GETNEXTREQ || pduid == GETBULKREQ;
}

static void varbind_print(struct ps_print_ctx *c, unsigned int pduid, const uint8_t *np,
			  uint32_t length)
{
	struct be e;
	int count;

	if (!expect(c, &np, &length, &e, BE_SEQ, "[!SEQ of varbind]", &count))
		return;
	if ((uint32_t)count < length)
		ps_put(c, "[%d extra after SEQ of varbind]", (int)(length - (uint32_t)count));
	length = e.asnlen;
	np = e.raw;
	while (length) {
		const uint8_t *vbend;
		uint32_t vblength;
		int status;

		ps_put(c, " ");
		if (!expect(c, &np, &length, &e, BE_SEQ, "[!varbind]", &count))
			return;
		vbend = np + count;
		vblength = length - (uint32_t)count;
		length = e.asnlen;
		np = e.raw;
		if (!expect(c, &np, &length, &e, BE_OID, "[objName!=OID]", &count))
			return;
		if ((status = asn1_print(c, &e)) < 0)
			return;
		advance(&np, &length, count);
		if (!is_get(pduid))
			ps_put(c, "=");
		if ((count = asn1_parse(c, np, length, &e)) < 0)
			return;
		if (is_get(pduid)) {
			if (e.type != BE_NULL) {
				ps_put(c, "[objVal!=NULL]");
				if (asn1_print(c, &e) < 0)
					return;
			}
		} else if (e.type != BE_NULL && asn1_print(c, &e) < 0) {
			return;
		}
		length = vblength;
		np = vbend;
	}
}

static void snmppdu_print(struct ps_print_ctx *c, unsigned int pduid, const uint8_t *np,
			  uint32_t length)
{
	bool strict = pduid == GETREQ || pduid == GETNEXTREQ || pduid == SETREQ ||
		      pduid == INFORMREQ || pduid == V2TRAP || pduid == REPORT;
	int count, err = 0;
	struct be e;
	char buf[20];

	if (!expect(c, &np, &length, &e, BE_INT, "[reqId!=INT]", &count))
		return;
	advance(&np, &length, count);
	if (!expect(c, &np, &length, &e, BE_INT, "[errorStatus!=INT]", &count))
		return;
	if (strict && e.integer != 0) {
		ps_put(c, "[errorStatus(%s)!=0]", error_status(e.integer, buf, sizeof(buf)));
	} else if (pduid == GETBULKREQ) {
		ps_put(c, " N=%d", e.integer);
	} else if (e.integer != 0) {
		ps_put(c, " %s", error_status(e.integer, buf, sizeof(buf)));
		err = e.integer;
	}
	advance(&np, &length, count);
	if (!expect(c, &np, &length, &e, BE_INT, "[errorIndex!=INT]", &count))
		return;
	if (strict && e.integer != 0)
		ps_put(c, "[errorIndex(%d)!=0]", e.integer);
	else if (pduid == GETBULKREQ)
		ps_put(c, " M=%d", e.integer);
	else if (e.integer != 0 && !err)
		ps_put(c, "[errorIndex(%d) w/o errorStatus]", e.integer);
	else if (e.integer != 0)
		ps_put(c, "@%d", e.integer);
	else if (err)
		ps_put(c, "[errorIndex==0]");
	advance(&np, &length, count);
	varbind_print(c, pduid, np, length);
}

static void trappdu_print(struct ps_print_ctx *c, const uint8_t *np, uint32_t length)
{
	static const char *const generic_names[] = {
		"coldStart",
		"warmStart",
		"linkDown",
		"linkUp",
		"authenticationFailure",
		"egpNeighborLoss",
		"enterpriseSpecific",
	};
	struct be e;
	int count, generic;

	ps_put(c, " ");
	if (!expect(c, &np, &length, &e, BE_OID, "[enterprise!=OID]", &count) ||
	    asn1_print(c, &e) < 0)
		return;
	advance(&np, &length, count);
	ps_put(c, " ");
	if (!expect(c, &np, &length, &e, BE_INETADDR, "[agent-addr!=INETADDR]", &count) ||
	    asn1_print(c, &e) < 0)
		return;
	advance(&np, &length, count);
	if (!expect(c, &np, &length, &e, BE_INT, "[generic-trap!=INT]", &count))
		return;
	generic = e.integer;
	if (generic >= 0 && generic < 7)
		ps_put(c, " %s", generic_names[generic]);
	else
		ps_put(c, " gt=%d", generic);
	advance(&np, &length, count);
	if (!expect(c, &np, &length, &e, BE_INT, "[specific-trap!=INT]", &count))
		return;
	if (generic != 6) {
		if (e.integer != 0)
			ps_put(c, "[specific-trap(%d)!=0]", e.integer);
	} else {
		ps_put(c, " s=%d", e.integer);
	}
	advance(&np, &length, count);
	ps_put(c, " ");
	if (!expect(c, &np, &length, &e, BE_UNS, "[time-stamp!=TIMETICKS]", &count) ||
	    asn1_print(c, &e) < 0)
		return;
	advance(&np, &length, count);
	varbind_print(c, TRAP, np, length);
}

static void pdu_print(struct ps_print_ctx *c, const uint8_t *np, uint32_t length, int version)
{
	struct be pdu;
	int count;

	if ((count = asn1_parse(c, np, length, &pdu)) < 0)
		return;
	if (pdu.type != BE_PDU) {
		ps_put(c, "[no PDU]");
		return;
	}
	if ((uint32_t)count < length)
		ps_put(c, "[%d extra after PDU]", (int)(length - (uint32_t)count));
	if (asn1_print(c, &pdu) < 0)
		return;
	ps_put(c, " ");
	length = pdu.asnlen;
	np = pdu.raw;
	if (version == 0 &&
	    (pdu.id == GETBULKREQ || pdu.id == INFORMREQ || pdu.id == V2TRAP || pdu.id == REPORT)) {
		ps_put(c, "[v2 PDU in v1 message]");
		return;
	}
	if (version == 1 && pdu.id == TRAP) {
		ps_put(c, "[v1 PDU in v2 message]");
		return;
	}
	if (pdu.id == TRAP)
		trappdu_print(c, np, length);
	else
		snmppdu_print(c, pdu.id, np, length);
}

static void community_print(struct ps_print_ctx *c, const uint8_t *np, uint32_t length, int version)
{
	struct be e;
	int count;

	if (!expect(c, &np, &length, &e, BE_STR, "[comm!=STR]", &count))
		return;
	if (!(e.asnlen == 6 && !memcmp(e.raw, "public", 6))) {
		ps_put(c, "C=");
		if (print_string(c, &e) < 0)
			return;
		ps_put(c, " ");
	}
	advance(&np, &length, count);
	pdu_print(c, np, length, version);
}

static void usm_print(struct ps_print_ctx *c, const uint8_t *np, uint32_t length)
{
	struct be e;
	int count;

	if (!expect(c, &np, &length, &e, BE_SEQ, "[!usm]", &count))
		return;
	length = e.asnlen;
	np = e.raw;
	if (!expect(c, &np, &length, &e, BE_STR, "[msgAuthoritativeEngineID!=STR]", &count))
		return;
	advance(&np, &length, count);
	if (!expect(c, &np, &length, &e, BE_INT, "[msgAuthoritativeEngineBoots!=INT]", &count))
		return;
	advance(&np, &length, count);
	if (!expect(c, &np, &length, &e, BE_INT, "[msgAuthoritativeEngineTime!=INT]", &count))
		return;
	advance(&np, &length, count);
	if (!expect(c, &np, &length, &e, BE_STR, "[msgUserName!=STR]", &count))
		return;
	advance(&np, &length, count);
	ps_put(c, "U=");
	if (print_string(c, &e) < 0)
		return;
	ps_put(c, " ");
	if (!expect(c, &np, &length, &e, BE_STR, "[msgAuthenticationParameters!=STR]", &count))
		return;
	advance(&np, &length, count);
	if (!expect(c, &np, &length, &e, BE_STR, "[msgPrivacyParameters!=STR]", &count))
		return;
	advance(&np, &length, count);
	if ((uint32_t)count < length)
		ps_put(c, "[%d extra after usm SEQ]", (int)(length - (uint32_t)count));
}

static void scopedpdu_print(struct ps_print_ctx *c, const uint8_t *np, uint32_t length)
{
	struct be e;
	int count;

	if (!expect(c, &np, &length, &e, BE_SEQ, "[!scoped PDU]", &count))
		return;
	length = e.asnlen;
	np = e.raw;
	if (!expect(c, &np, &length, &e, BE_STR, "[contextEngineID!=STR]", &count))
		return;
	advance(&np, &length, count);
	ps_put(c, "E=");
	if (print_octets(c, &e) < 0)
		return;
	ps_put(c, " ");
	if (!expect(c, &np, &length, &e, BE_STR, "[contextName!=STR]", &count))
		return;
	advance(&np, &length, count);
	ps_put(c, "C=");
	if (print_string(c, &e) < 0)
		return;
	ps_put(c, " ");
	pdu_print(c, np, length, 3);
}

static void v3msg_print(struct ps_print_ctx *c, const uint8_t *np, uint32_t length)
{
	const uint8_t *xnp = np;
	uint32_t xlength = length;
	struct be e;
	int count, model;
	uint8_t flags;

	if (!expect(c, &np, &length, &e, BE_SEQ, "[!message]", &count))
		return;
	length = e.asnlen;
	np = e.raw;
	if (!expect(c, &np, &length, &e, BE_INT, "[msgID!=INT]", &count))
		return;
	advance(&np, &length, count);
	if (!expect(c, &np, &length, &e, BE_INT, "[msgMaxSize!=INT]", &count))
		return;
	advance(&np, &length, count);
	if (!expect(c, &np, &length, &e, BE_STR, "[msgFlags!=STR]", &count))
		return;
	if (e.asnlen != 1) {
		ps_put(c, "[msgFlags size %d]", (int)e.asnlen);
		return;
	}
	flags = e.raw[0];
	if (flags != 0x00 && flags != 0x01 && flags != 0x03 && flags != 0x04 && flags != 0x05 &&
	    flags != 0x07) {
		ps_put(c, "[msgFlags=0x%02X]", flags);
		return;
	}
	advance(&np, &length, count);
	ps_put(c, "F=%s%s%s ", flags & 1 ? "a" : "", flags & 2 ? "p" : "", flags & 4 ? "r" : "");
	if (!expect(c, &np, &length, &e, BE_INT, "[msgSecurityModel!=INT]", &count))
		return;
	model = e.integer;
	advance(&np, &length, count);
	if ((uint32_t)count < length)
		ps_put(c, "[%d extra after message SEQ]", (int)(length - (uint32_t)count));
	if (model != 3) {
		ps_put(c, "[security model %d]", model);
		return;
	}
	/* As tcpdump: the rest of the message from here, against its whole
	 * length (not the header sequence's). */
	length = xlength - (uint32_t)(np - xnp);
	if (!expect(c, &np, &length, &e, BE_STR, "[msgSecurityParameters!=STR]", &count))
		return;
	advance(&np, &length, count);
	usm_print(c, e.raw, e.asnlen);
	scopedpdu_print(c, np, length);
}

void ps_snmp_print(struct ps_print_ctx *c, const uint8_t *np, uint32_t length)
{
	struct be e;
	int count;

	c->proto = "snmp";
	ps_put(c, " ");
	if (!expect(c, &np, &length, &e, BE_SEQ, "[!init SEQ]", &count))
		return;
	if ((uint32_t)count < length)
		ps_put(c, "[%d extra after iSEQ]", (int)(length - (uint32_t)count));
	length = e.asnlen;
	np = e.raw;
	if (!expect(c, &np, &length, &e, BE_INT, "[version!=INT]", &count))
		return;
	if (e.integer != 0 && e.integer != 1 && e.integer != 3) {
		ps_put(c, "SNMP [version = %d]", e.integer);
		return;
	}
	advance(&np, &length, count);
	if (e.integer == 3)
		v3msg_print(c, np, length);
	else
		community_print(c, np, length, e.integer);
}
