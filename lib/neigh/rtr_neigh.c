/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The rocetor authors
 */

/*
 * ARP, IPv6 neighbour discovery and ICMP echo for the switch's own
 * addresses, and resolution of the next hops whose MAC the config leaves
 * out. Everything here runs on the control lcore; the only thing workers
 * touch is struct rtr_nh.mac_word, which is written with release stores.
 *
 * Frames are read and written byte by byte in network order, so nothing
 * depends on the alignment of the buffers the caller passes in. A reply may
 * be written over the request itself (out == frame): every field of the
 * request that the reply needs is copied out before the first write.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "rtr_neigh.h"

#define RTR_NEIGH_NS_PER_S 1000000000ULL
/* Used when the caller passes lifetime_ns == 0. */
#define RTR_NEIGH_DEFAULT_LIFETIME (60 * RTR_NEIGH_NS_PER_S)
/* How often an unresolved next hop is asked for again (broadcast/multicast). */
#define RTR_NEIGH_RETRY_NS RTR_NEIGH_NS_PER_S
/* Open-addressing table of next-hop indices: twice RTR_NH_MAX, a power of two. */
#define RTR_NEIGH_HASH_SIZE    (2 * RTR_NH_MAX)
#define RTR_NEIGH_HASH_MASK    (RTR_NEIGH_HASH_SIZE - 1)
#define RTR_NEIGH_MAX_LOCAL    (RTR_MAX_PORTS * RTR_MAX_PORT_ADDRS)

#define RTR_ETH_ALEN           6
#define RTR_ETH_HLEN           14
#define RTR_ETH_MIN_LEN        60 /* without FCS */
#define RTR_L2_MAX_LEN         30 /* Ethernet and up to four tags */
#define RTR_ETHERTYPE_IPV4     0x0800
#define RTR_ETHERTYPE_ARP      0x0806
#define RTR_ETHERTYPE_IPV6     0x86dd

#define RTR_ARP_LEN            28
#define RTR_ARP_HTYPE_ETHER    1
#define RTR_ARP_OP_REQUEST     1
#define RTR_ARP_OP_REPLY       2

#define RTR_IPV4_HLEN          20
#define RTR_IPV6_HLEN          40
#define RTR_REPLY_TTL          64

#define RTR_ICMP_ECHO_REPLY    0
#define RTR_ICMP_ECHO_REQUEST  8
#define RTR_ICMP6_ECHO_REQUEST 128
#define RTR_ICMP6_ECHO_REPLY   129
#define RTR_ND_RS              133
#define RTR_ND_REDIRECT        137
#define RTR_ND_NS              135
#define RTR_ND_NA              136
#define RTR_ND_HOP_LIMIT       255
#define RTR_ND_MSG_LEN         24 /* type..target, before options */
#define RTR_ND_OPT_SLLA        1
#define RTR_ND_OPT_TLLA        2
#define RTR_ND_NA_ROUTER       0x80
#define RTR_ND_NA_SOLICITED    0x40
#define RTR_ND_NA_OVERRIDE     0x20

/* What the switch knows about one of its ports. */
struct rtr_neigh_port {
	bool enabled;
	uint8_t mac[RTR_ETH_ALEN];
	unsigned int n_v4;
	unsigned int n_v6;
	struct rtr_addr v4[RTR_MAX_PORT_ADDRS];
	struct rtr_addr v6[RTR_MAX_PORT_ADDRS];
	/* fe80::/64 with the EUI-64 of the port MAC: the source of solicitations
	 * for link-local next hops, or when the port has no IPv6 address. */
	struct in6_addr ll6;
};

/* The compact arrays rtr_neigh_is_local() walks. */
struct rtr_local4 {
	uint32_t addr; /* network order */
	uint16_t port;
};

struct rtr_local6 {
	struct in6_addr addr;
	uint16_t port;
};

struct rtr_neigh {
	uint64_t lifetime_ns;
	/* No next hop needs attention before this time: lets rtr_neigh_tick()
	 * return at once. May be early (then one scan finds nothing), never late. */
	uint64_t next_event_ns;
	unsigned int n_nh;
	unsigned int n_local4;
	unsigned int n_local6;
	struct rtr_neigh_stats stats;
	struct rtr_local4 local4[RTR_NEIGH_MAX_LOCAL];
	struct rtr_local6 local6[RTR_NEIGH_MAX_LOCAL];
	struct rtr_neigh_port ports[RTR_MAX_PORTS];
	uint16_t hash[RTR_NEIGH_HASH_SIZE]; /* next-hop index + 1, 0 = empty */
	struct rtr_nh nh[RTR_NH_MAX];
};

/* The parts of a received frame every handler needs. */
struct rtr_rx {
	uint16_t port;
	const struct rtr_neigh_port *p;
	const uint8_t *frame;
	uint32_t len;
	unsigned int l3_off;
	uint64_t now;
	uint8_t *out;
	uint32_t outlen;
	/* A copy of the request's L2 header (MACs, VLAN tag, EtherType). */
	uint8_t l2[RTR_L2_MAX_LEN];
};

static const uint8_t rtr_bcast_mac[RTR_ETH_ALEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static inline uint16_t
rtr_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
rtr_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ones' complement sum of len bytes as big-endian 16-bit words. */
static uint64_t
rtr_csum_add(uint64_t sum, const uint8_t *p, uint32_t len)
{
	while (len > 1) {
		sum += rtr_get16(p);
		p += 2;
		len -= 2;
	}
	if (len > 0)
		sum += (uint64_t)p[0] << 8;
	return sum;
}

static uint16_t
rtr_csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Checksum of an ICMPv6 message of len bytes behind the IPv6 header ip6
 * (pseudo-header: source, destination, upper-layer length, next header). */
static uint16_t
rtr_icmp6_csum(const uint8_t *ip6, const uint8_t *icmp, uint32_t len)
{
	uint64_t sum = rtr_csum_add(0, ip6 + 8, 32);

	sum += len >> 16;
	sum += len & 0xffff;
	sum += IPPROTO_ICMPV6;
	return rtr_csum_fold(rtr_csum_add(sum, icmp, len));
}

static inline bool
rtr_mac_is_unicast(const uint8_t *mac)
{
	static const uint8_t zero[RTR_ETH_ALEN];

	return (mac[0] & 0x01) == 0 && memcmp(mac, zero, RTR_ETH_ALEN) != 0;
}

static inline uint64_t
rtr_mac_to_word(const uint8_t *mac)
{
	uint64_t w = 0;

	for (int i = 0; i < RTR_ETH_ALEN; i++)
		w = w << 8 | mac[i];
	return w;
}

static inline void
rtr_word_to_mac(uint64_t w, uint8_t *mac)
{
	for (int i = 0; i < RTR_ETH_ALEN; i++)
		mac[i] = (uint8_t)(w >> (40 - 8 * i));
}

/* A host address a reply may go to: not 0, multicast, class E or broadcast. */
static inline bool
rtr_ipv4_is_unicast(uint32_t a_be)
{
	uint8_t first = (uint8_t)(ntohl(a_be) >> 24);

	return a_be != 0 && first < 224;
}

static inline bool
rtr_ipv6_is_unspec(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

static inline bool
rtr_ipv6_is_mcast(const uint8_t *a)
{
	return a[0] == 0xff;
}

static inline bool
rtr_ipv6_is_linklocal(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/* ff02::1:ffXX:XXXX for the last 24 bits of target. */
static void
rtr_ipv6_solicited_node(const uint8_t *target, uint8_t *out)
{
	memset(out, 0, 16);
	out[0] = 0xff;
	out[1] = 0x02;
	out[11] = 0x01;
	out[12] = 0xff;
	memcpy(out + 13, target + 13, 3);
}

/* 33:33 followed by the last 32 bits of a multicast IPv6 address. */
static void
rtr_ipv6_mcast_mac(const uint8_t *group, uint8_t *mac)
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, group + 12, 4);
}

/* True if the first depth bits of a and b (len bytes each) are equal. */
static bool
rtr_prefix_match(const uint8_t *a, const uint8_t *b, unsigned int depth, unsigned int len)
{
	unsigned int bytes = depth / 8, bits = depth % 8;

	if (depth > len * 8)
		return false;
	if (memcmp(a, b, bytes) != 0)
		return false;
	if (bits == 0)
		return true;
	return ((a[bytes] ^ b[bytes]) & (uint8_t)(0xff << (8 - bits))) == 0;
}

/*
 * Next-hop table.
 *
 * Keys: (port, AF_INET, IPv4), (port, AF_INET6, IPv6), or for a static next
 * hop without address (port, 0, MAC). Entries are never removed, so linear
 * probing needs no tombstones, and the table is twice the capacity so a
 * search always ends on an empty slot.
 */

static unsigned int
rtr_key_len(uint8_t family)
{
	return family == AF_INET ? 4 : family == AF_INET6 ? 16 : RTR_ETH_ALEN;
}

static uint32_t
rtr_nh_hash(uint16_t port, uint8_t family, const uint8_t *key)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	unsigned int klen = rtr_key_len(family);

	h = (h ^ (port & 0xff)) * 16777619u;
	h = (h ^ (port >> 8)) * 16777619u;
	h = (h ^ family) * 16777619u;
	for (unsigned int i = 0; i < klen; i++)
		h = (h ^ key[i]) * 16777619u;
	return h ^ (h >> 16);
}

static bool
rtr_nh_key_equal(const struct rtr_nh *nh, uint16_t port, uint8_t family, const uint8_t *key)
{
	uint64_t w;

	if (nh->port != port || nh->ip.family != family)
		return false;
	if (family == AF_INET)
		return memcmp(&nh->ip.v4, key, 4) == 0;
	if (family == AF_INET6)
		return memcmp(&nh->ip.v6, key, 16) == 0;
	w = atomic_load_explicit(&nh->mac_word, memory_order_relaxed);
	return (w & ~RTR_NH_VALID) == rtr_mac_to_word(key);
}

/* Returns the index of the entry, or -1 with *slot set to where it would go. */
static int
rtr_nh_lookup(const struct rtr_neigh *n, uint16_t port, uint8_t family, const uint8_t *key,
		uint32_t *slot)
{
	uint32_t h = rtr_nh_hash(port, family, key) & RTR_NEIGH_HASH_MASK;

	for (;;) {
		uint16_t v = n->hash[h];

		if (v == 0) {
			if (slot != NULL)
				*slot = h;
			return -1;
		}
		if (rtr_nh_key_equal(&n->nh[v - 1], port, family, key))
			return v - 1;
		h = (h + 1) & RTR_NEIGH_HASH_MASK;
	}
}

/* The dynamic next hop with this address on port, or NULL. */
static struct rtr_nh *
rtr_nh_find_dynamic(struct rtr_neigh *n, uint16_t port, uint8_t family, const uint8_t *addr)
{
	int idx = rtr_nh_lookup(n, port, family, addr, NULL);

	if (idx < 0 || n->nh[idx].state == RTR_NH_STATIC)
		return NULL;
	return &n->nh[idx];
}

/* An answer from the neighbour: (re)validate its MAC for one lifetime. */
static void
rtr_nh_learn(struct rtr_neigh *n, struct rtr_nh *nh, const uint8_t *mac, uint64_t now)
{
	bool was_valid = nh->state == RTR_NH_REACHABLE || nh->state == RTR_NH_PROBE;

	atomic_store_explicit(
			&nh->mac_word, rtr_mac_to_word(mac) | RTR_NH_VALID, memory_order_release);
	nh->state = RTR_NH_REACHABLE;
	nh->probes = 0;
	nh->expire_ns = now + n->lifetime_ns;
	nh->next_probe_ns = now + (n->lifetime_ns - n->lifetime_ns / 4);
	if (!was_valid)
		n->stats.resolved++;
	if (nh->next_probe_ns < n->next_event_ns)
		n->next_event_ns = nh->next_probe_ns;
}

struct rtr_neigh *
rtr_neigh_create(const struct rtr_config *cfg, const uint8_t port_macs[RTR_MAX_PORTS][6],
		uint64_t lifetime_ns)
{
	struct rtr_neigh *n;

	if (cfg == NULL)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	n->lifetime_ns = lifetime_ns != 0 ? lifetime_ns : RTR_NEIGH_DEFAULT_LIFETIME;

	for (unsigned int i = 0; i < cfg->n_ports && i < RTR_MAX_PORTS; i++) {
		const struct rtr_port_cfg *pc = &cfg->ports[i];
		struct rtr_neigh_port *p;
		const uint8_t *mac;
		uint8_t *ll;

		if (pc->port >= RTR_MAX_PORTS)
			continue;
		p = &n->ports[pc->port];
		p->enabled = true;
		mac = port_macs != NULL ? port_macs[pc->port] : pc->mac;
		memcpy(p->mac, mac, RTR_ETH_ALEN);

		ll = p->ll6.s6_addr;
		ll[0] = 0xfe;
		ll[1] = 0x80;
		ll[8] = mac[0] ^ 0x02;
		ll[9] = mac[1];
		ll[10] = mac[2];
		ll[11] = 0xff;
		ll[12] = 0xfe;
		ll[13] = mac[3];
		ll[14] = mac[4];
		ll[15] = mac[5];

		for (unsigned int j = 0; j < pc->n_addrs && j < RTR_MAX_PORT_ADDRS; j++) {
			const struct rtr_addr *a = &pc->addrs[j];

			if (a->family == AF_INET) {
				p->v4[p->n_v4++] = *a;
				n->local4[n->n_local4].addr = a->v4.s_addr;
				n->local4[n->n_local4++].port = pc->port;
			} else if (a->family == AF_INET6) {
				p->v6[p->n_v6++] = *a;
				n->local6[n->n_local6].addr = a->v6;
				n->local6[n->n_local6++].port = pc->port;
			}
		}
	}
	return n;
}

void
rtr_neigh_free(struct rtr_neigh *n)
{
	free(n);
}

int
rtr_neigh_add(struct rtr_neigh *n, uint16_t port, const struct rtr_addr *ip, const uint8_t *mac)
{
	uint8_t family = ip != NULL ? ip->family : 0;
	const uint8_t *key;
	struct rtr_nh *nh;
	uint32_t slot;
	int idx;

	if (n == NULL || port >= RTR_MAX_PORTS)
		return -1;
	if (family == AF_INET) {
		key = (const uint8_t *)&ip->v4;
		if (mac == NULL && !rtr_ipv4_is_unicast(ip->v4.s_addr))
			return -1;
	} else if (family == AF_INET6) {
		key = ip->v6.s6_addr;
		if (mac == NULL && (rtr_ipv6_is_unspec(key) || rtr_ipv6_is_mcast(key)))
			return -1;
	} else if (family == 0 && mac != NULL) {
		key = mac;
	} else {
		return -1;
	}
	/* Resolving needs the port's MAC and addresses. */
	if (mac == NULL && !n->ports[port].enabled)
		return -1;

	idx = rtr_nh_lookup(n, port, family, key, &slot);
	if (idx >= 0) {
		nh = &n->nh[idx];
		if (mac == NULL)
			return idx;
		if (nh->state == RTR_NH_STATIC) {
			uint64_t w = atomic_load_explicit(&nh->mac_word, memory_order_relaxed);

			/* Two configured MACs for one neighbour: a config conflict. */
			return (w & ~RTR_NH_VALID) == rtr_mac_to_word(mac) ? idx : -1;
		}
		/* A MAC given in the config overrides resolution for good. */
		atomic_store_explicit(&nh->mac_word, rtr_mac_to_word(mac) | RTR_NH_VALID,
				memory_order_release);
		nh->state = RTR_NH_STATIC;
		nh->probes = 0;
		return idx;
	}
	if (n->n_nh >= RTR_NH_MAX)
		return -1;

	idx = (int)n->n_nh++;
	nh = &n->nh[idx];
	memset(&nh->ip, 0, sizeof(nh->ip));
	if (family != 0)
		nh->ip = *ip;
	nh->port = port;
	nh->probes = 0;
	nh->expire_ns = 0;
	if (mac != NULL) {
		nh->state = RTR_NH_STATIC;
		nh->next_probe_ns = UINT64_MAX;
		atomic_store_explicit(&nh->mac_word, rtr_mac_to_word(mac) | RTR_NH_VALID,
				memory_order_release);
	} else {
		nh->state = RTR_NH_INCOMPLETE;
		nh->next_probe_ns = 0; /* asked on the next tick */
		atomic_store_explicit(&nh->mac_word, 0, memory_order_release);
		n->next_event_ns = 0;
	}
	n->hash[slot] = (uint16_t)(idx + 1);
	return idx;
}

struct rtr_nh *
rtr_neigh_nh(struct rtr_neigh *n, unsigned int idx)
{
	if (n == NULL || idx >= n->n_nh)
		return NULL;
	return &n->nh[idx];
}

struct rtr_nh *
rtr_neigh_nh_table(struct rtr_neigh *n)
{
	return n != NULL ? n->nh : NULL;
}

unsigned int
rtr_neigh_count(const struct rtr_neigh *n)
{
	return n != NULL ? n->n_nh : 0;
}

const struct rtr_neigh_stats *
rtr_neigh_stats(const struct rtr_neigh *n)
{
	return n != NULL ? &n->stats : NULL;
}

bool
rtr_neigh_is_local(const struct rtr_neigh *n, uint16_t port, int family, const void *addr)
{
	if (n == NULL || addr == NULL)
		return false;
	if (family == AF_INET) {
		uint32_t a;

		memcpy(&a, addr, sizeof(a));
		for (unsigned int i = 0; i < n->n_local4; i++)
			if (n->local4[i].addr == a &&
					(port == UINT16_MAX || n->local4[i].port == port))
				return true;
	} else if (family == AF_INET6) {
		for (unsigned int i = 0; i < n->n_local6; i++)
			if (memcmp(&n->local6[i].addr, addr, 16) == 0 &&
					(port == UINT16_MAX || n->local6[i].port == port))
				return true;
	}
	return false;
}

/* Source for an ARP request: the port address in the next hop's subnet,
 * else the port's first IPv4 address, else 0.0.0.0 (an RFC 5227 probe,
 * which hosts answer too). */
static uint32_t
rtr_port_src4(const struct rtr_neigh_port *p, const struct in_addr *target)
{
	for (unsigned int i = 0; i < p->n_v4; i++)
		if (rtr_prefix_match((const uint8_t *)&p->v4[i].v4, (const uint8_t *)target,
				    p->v4[i].depth, 4))
			return p->v4[i].v4.s_addr;
	return p->n_v4 > 0 ? p->v4[0].v4.s_addr : 0;
}

/* Source for a neighbour solicitation: the link-local address for a
 * link-local target, else the port address on the target's prefix, else
 * the port's first IPv6 address, else the link-local address. */
static const uint8_t *
rtr_port_src6(const struct rtr_neigh_port *p, const uint8_t *target)
{
	if (rtr_ipv6_is_linklocal(target) || p->n_v6 == 0)
		return p->ll6.s6_addr;
	for (unsigned int i = 0; i < p->n_v6; i++)
		if (rtr_prefix_match(p->v6[i].v6.s6_addr, target, p->v6[i].depth, 16))
			return p->v6[i].v6.s6_addr;
	return p->v6[0].v6.s6_addr;
}

/* Does port answer neighbour solicitations for target? */
static bool
rtr_port_owns6(const struct rtr_neigh *n, uint16_t port, const uint8_t *target)
{
	return rtr_neigh_is_local(n, port, AF_INET6, target) ||
	       memcmp(n->ports[port].ll6.s6_addr, target, 16) == 0;
}

/* Writes the L2 header: the request's (tmpl, l2len bytes, with its VLAN
 * tag) or a plain Ethernet header when tmpl is NULL. Returns its length. */
static unsigned int
rtr_l2_write(uint8_t *out, const uint8_t *tmpl, unsigned int l2len, const uint8_t *dst,
		const uint8_t *src, uint16_t ethertype)
{
	if (tmpl != NULL)
		memcpy(out, tmpl, l2len);
	else
		l2len = RTR_ETH_HLEN;
	memcpy(out, dst, RTR_ETH_ALEN);
	memcpy(out + RTR_ETH_ALEN, src, RTR_ETH_ALEN);
	rtr_put16(out + l2len - 2, ethertype);
	return l2len;
}

/* Pads a frame to the Ethernet minimum. out has room for RTR_ETH_MIN_LEN. */
static uint32_t
rtr_pad(uint8_t *out, uint32_t len)
{
	if (len >= RTR_ETH_MIN_LEN)
		return len;
	memset(out + len, 0, RTR_ETH_MIN_LEN - len);
	return RTR_ETH_MIN_LEN;
}

static inline uint32_t
rtr_frame_room(uint32_t len)
{
	return len < RTR_ETH_MIN_LEN ? RTR_ETH_MIN_LEN : len;
}

/* An ARP frame; tha NULL means all zeros. Returns its length or 0 if it does not fit. */
static uint32_t
rtr_arp_write(uint8_t *out, uint32_t outlen, const uint8_t *tmpl, unsigned int l2len,
		const uint8_t *dst, const uint8_t *src, uint16_t op, uint32_t spa,
		const uint8_t *tha, uint32_t tpa)
{
	unsigned int off = tmpl != NULL ? l2len : RTR_ETH_HLEN;
	uint8_t *a;

	if (outlen < rtr_frame_room(off + RTR_ARP_LEN))
		return 0;
	off = rtr_l2_write(out, tmpl, l2len, dst, src, RTR_ETHERTYPE_ARP);
	a = out + off;
	rtr_put16(a, RTR_ARP_HTYPE_ETHER);
	rtr_put16(a + 2, RTR_ETHERTYPE_IPV4);
	a[4] = RTR_ETH_ALEN;
	a[5] = 4;
	rtr_put16(a + 6, op);
	memcpy(a + 8, src, RTR_ETH_ALEN);
	memcpy(a + 14, &spa, 4);
	if (tha != NULL)
		memcpy(a + 18, tha, RTR_ETH_ALEN);
	else
		memset(a + 18, 0, RTR_ETH_ALEN);
	memcpy(a + 24, &tpa, 4);
	return rtr_pad(out, off + RTR_ARP_LEN);
}

/*
 * An NS or NA with one link-layer address option (SLLA for an NS, TLLA for
 * an NA) carrying the port MAC. Returns its length or 0 if it does not fit.
 */
static uint32_t
rtr_nd_write(uint8_t *out, uint32_t outlen, const uint8_t *tmpl, unsigned int l2len,
		const uint8_t *dst_mac, const uint8_t *src_mac, const uint8_t *src_ip,
		const uint8_t *dst_ip, uint8_t type, uint8_t flags, const uint8_t *target)
{
	const uint32_t icmp_len = RTR_ND_MSG_LEN + 8;
	unsigned int off = tmpl != NULL ? l2len : RTR_ETH_HLEN;
	uint8_t *ip, *icmp;

	if (outlen < rtr_frame_room(off + RTR_IPV6_HLEN + icmp_len))
		return 0;
	off = rtr_l2_write(out, tmpl, l2len, dst_mac, src_mac, RTR_ETHERTYPE_IPV6);
	ip = out + off;
	icmp = ip + RTR_IPV6_HLEN;
	memcpy(icmp + 8, target, 16);
	ip[0] = 0x60;
	ip[1] = 0;
	ip[2] = 0;
	ip[3] = 0;
	rtr_put16(ip + 4, (uint16_t)icmp_len);
	ip[6] = IPPROTO_ICMPV6;
	ip[7] = RTR_ND_HOP_LIMIT;
	memcpy(ip + 8, src_ip, 16);
	memcpy(ip + 24, dst_ip, 16);
	icmp[0] = type;
	icmp[1] = 0;
	rtr_put16(icmp + 2, 0);
	icmp[4] = flags;
	icmp[5] = 0;
	icmp[6] = 0;
	icmp[7] = 0;
	icmp[24] = type == RTR_ND_NS ? RTR_ND_OPT_SLLA : RTR_ND_OPT_TLLA;
	icmp[25] = 1; /* in units of 8 bytes */
	memcpy(icmp + 26, src_mac, RTR_ETH_ALEN);
	rtr_put16(icmp + 2, rtr_icmp6_csum(ip, icmp, icmp_len));
	return rtr_pad(out, off + RTR_IPV6_HLEN + icmp_len);
}

/*
 * Looks for a link-layer address option of type want in the ND options
 * (len bytes). Returns -1 if the options are malformed (a zero length or one
 * running past the end: RFC 4861 says drop the packet), 1 with mac filled
 * if found, 0 if not.
 */
static int
rtr_nd_find_lla(const uint8_t *opt, uint32_t len, uint8_t want, uint8_t *mac)
{
	int found = 0;

	while (len > 0) {
		uint32_t olen;

		if (len < 2)
			return -1;
		olen = (uint32_t)opt[1] * 8;
		if (olen == 0 || olen > len)
			return -1;
		if (opt[0] == want && olen >= 2 + RTR_ETH_ALEN && found == 0) {
			memcpy(mac, opt + 2, RTR_ETH_ALEN);
			found = 1;
		}
		opt += olen;
		len -= olen;
	}
	return found;
}

static uint32_t
rtr_ignore(struct rtr_neigh *n)
{
	n->stats.ignored++;
	return 0;
}

static uint32_t
rtr_arp_input(struct rtr_neigh *n, const struct rtr_rx *rx)
{
	const uint8_t *a = rx->frame + rx->l3_off;
	uint8_t sha[RTR_ETH_ALEN];
	uint32_t sip, tip, rlen;
	struct rtr_nh *nh;
	bool used = false;
	uint16_t op;

	n->stats.arp_rx++;
	if (rx->len - rx->l3_off < RTR_ARP_LEN || rtr_get16(a) != RTR_ARP_HTYPE_ETHER ||
			rtr_get16(a + 2) != RTR_ETHERTYPE_IPV4 || a[4] != RTR_ETH_ALEN || a[5] != 4)
		return rtr_ignore(n);
	op = rtr_get16(a + 6);
	if (op != RTR_ARP_OP_REQUEST && op != RTR_ARP_OP_REPLY)
		return rtr_ignore(n);
	memcpy(sha, a + 8, RTR_ETH_ALEN);
	memcpy(&sip, a + 14, 4);
	memcpy(&tip, a + 24, 4);
	if (!rtr_mac_is_unicast(sha))
		return rtr_ignore(n);

	/* Requests, replies and gratuitous ARP all tell us the sender's MAC. */
	if (sip != 0) {
		nh = rtr_nh_find_dynamic(n, rx->port, AF_INET, (const uint8_t *)&sip);
		if (nh != NULL) {
			rtr_nh_learn(n, nh, sha, rx->now);
			used = true;
		}
	}

	/* sip == tip is a gratuitous ARP (or someone else claiming the
	 * address): never answered. */
	if (op == RTR_ARP_OP_REQUEST && sip != tip &&
			rtr_neigh_is_local(n, rx->port, AF_INET, &tip)) {
		rlen = rtr_arp_write(rx->out, rx->outlen, rx->l2, rx->l3_off, sha, rx->p->mac,
				RTR_ARP_OP_REPLY, tip, sha, sip);
		if (rlen > 0) {
			n->stats.arp_reply_tx++;
			return rlen;
		}
	}
	if (!used)
		n->stats.ignored++;
	return 0;
}

static uint32_t
rtr_ns_input(struct rtr_neigh *n, const struct rtr_rx *rx, const uint8_t *ip, const uint8_t *icmp,
		uint32_t ilen)
{
	uint8_t src[16], dst[16], target[16], sn[16], lla[RTR_ETH_ALEN], dst_mac[RTR_ETH_ALEN];
	bool used = false, dad;
	struct rtr_nh *nh;
	uint32_t rlen;
	int has_lla;

	memcpy(src, ip + 8, 16);
	memcpy(dst, ip + 24, 16);
	memcpy(target, icmp + 8, 16);
	if (rtr_ipv6_is_mcast(target) || rtr_ipv6_is_mcast(src))
		return rtr_ignore(n);
	has_lla = rtr_nd_find_lla(
			icmp + RTR_ND_MSG_LEN, ilen - RTR_ND_MSG_LEN, RTR_ND_OPT_SLLA, lla);
	if (has_lla < 0 || (has_lla > 0 && !rtr_mac_is_unicast(lla)))
		return rtr_ignore(n);
	rtr_ipv6_solicited_node(target, sn);
	/* A multicast solicitation must go to the target's solicited-node group. */
	if (rtr_ipv6_is_mcast(dst) && memcmp(dst, sn, 16) != 0)
		return rtr_ignore(n);
	/* Duplicate address detection (RFC 4861 7.1.1): from ::, to the
	 * solicited-node group, without a source link-layer option. */
	dad = rtr_ipv6_is_unspec(src);
	if (dad && (has_lla > 0 || memcmp(dst, sn, 16) != 0))
		return rtr_ignore(n);

	if (!dad && has_lla > 0) {
		nh = rtr_nh_find_dynamic(n, rx->port, AF_INET6, src);
		if (nh != NULL) {
			rtr_nh_learn(n, nh, lla, rx->now);
			used = true;
		}
	}

	if (rtr_port_owns6(n, rx->port, target)) {
		static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 0x01};
		const uint8_t *to_ip;
		uint8_t flags;

		/* R: we are a router; a host that sees R cleared drops us as its
		 * default router (RFC 4861 7.2.5). */
		if (dad) {
			/* Defend the address: unsolicited, to all nodes. */
			to_ip = all_nodes;
			rtr_ipv6_mcast_mac(all_nodes, dst_mac);
			flags = RTR_ND_NA_ROUTER | RTR_ND_NA_OVERRIDE;
		} else {
			to_ip = src;
			memcpy(dst_mac, has_lla > 0 ? lla : rx->l2 + RTR_ETH_ALEN, RTR_ETH_ALEN);
			flags = RTR_ND_NA_ROUTER | RTR_ND_NA_SOLICITED | RTR_ND_NA_OVERRIDE;
		}
		if (!rtr_mac_is_unicast(dst_mac) && !dad)
			return used ? 0 : rtr_ignore(n);
		rlen = rtr_nd_write(rx->out, rx->outlen, rx->l2, rx->l3_off, dst_mac, rx->p->mac,
				target, to_ip, RTR_ND_NA, flags, target);
		if (rlen > 0) {
			n->stats.na_tx++;
			return rlen;
		}
	}
	if (!used)
		n->stats.ignored++;
	return 0;
}

static uint32_t
rtr_na_input(struct rtr_neigh *n, const struct rtr_rx *rx, const uint8_t *ip, const uint8_t *icmp,
		uint32_t ilen)
{
	uint8_t lla[RTR_ETH_ALEN], cur[RTR_ETH_ALEN];
	const uint8_t *target = icmp + 8;
	uint8_t flags = icmp[4];
	struct rtr_nh *nh;
	int has_lla;

	if (rtr_ipv6_is_mcast(target))
		return rtr_ignore(n);
	/* RFC 4861 7.1.2: a solicited advertisement is never multicast. */
	if (rtr_ipv6_is_mcast(ip + 24) && (flags & RTR_ND_NA_SOLICITED))
		return rtr_ignore(n);
	has_lla = rtr_nd_find_lla(
			icmp + RTR_ND_MSG_LEN, ilen - RTR_ND_MSG_LEN, RTR_ND_OPT_TLLA, lla);
	if (has_lla < 0)
		return rtr_ignore(n);
	nh = rtr_nh_find_dynamic(n, rx->port, AF_INET6, target);
	if (nh == NULL)
		return rtr_ignore(n);
	if (has_lla > 0) {
		if (!rtr_mac_is_unicast(lla))
			return rtr_ignore(n);
		rtr_nh_learn(n, nh, lla, rx->now);
		return 0;
	}
	/* Hosts answer a unicast solicitation without the option (Linux does):
	 * a solicited NA then confirms the MAC we already have. */
	if ((flags & RTR_ND_NA_SOLICITED) &&
			(nh->state == RTR_NH_REACHABLE || nh->state == RTR_NH_PROBE)) {
		rtr_word_to_mac(atomic_load_explicit(&nh->mac_word, memory_order_relaxed), cur);
		rtr_nh_learn(n, nh, cur, rx->now);
		return 0;
	}
	return rtr_ignore(n);
}

static uint32_t
rtr_echo6_reply(struct rtr_neigh *n, const struct rtr_rx *rx, const uint8_t *ip, uint32_t ilen)
{
	uint8_t src[16], dst[16], eth_src[RTR_ETH_ALEN], tc_hi, tc_lo;
	unsigned int off = rx->l3_off;
	uint8_t *oip, *icmp;
	uint32_t rlen = off + RTR_IPV6_HLEN + ilen;

	if (rx->outlen < rtr_frame_room(rlen))
		return rtr_ignore(n);
	memcpy(src, ip + 8, 16);
	memcpy(dst, ip + 24, 16);
	memcpy(eth_src, rx->l2 + RTR_ETH_ALEN, RTR_ETH_ALEN);
	/* Keep the traffic class (DSCP/ECN bits), drop the flow label. */
	tc_hi = ip[0] & 0x0f;
	tc_lo = ip[1] & 0xf0;
	oip = rx->out + off;
	icmp = oip + RTR_IPV6_HLEN;
	memmove(icmp, ip + RTR_IPV6_HLEN, ilen);
	rtr_l2_write(rx->out, rx->l2, off, eth_src, rx->p->mac, RTR_ETHERTYPE_IPV6);
	oip[0] = 0x60 | tc_hi;
	oip[1] = tc_lo;
	oip[2] = 0;
	oip[3] = 0;
	rtr_put16(oip + 4, (uint16_t)ilen);
	oip[6] = IPPROTO_ICMPV6;
	oip[7] = RTR_REPLY_TTL;
	memcpy(oip + 8, dst, 16);
	memcpy(oip + 24, src, 16);
	icmp[0] = RTR_ICMP6_ECHO_REPLY;
	icmp[1] = 0;
	rtr_put16(icmp + 2, 0);
	rtr_put16(icmp + 2, rtr_icmp6_csum(oip, icmp, ilen));
	n->stats.icmp_echo_tx++;
	return rtr_pad(rx->out, rlen);
}

static uint32_t
rtr_ipv6_input(struct rtr_neigh *n, const struct rtr_rx *rx, const struct rtr_meta *m)
{
	const uint8_t *ip = rx->frame + rx->l3_off;
	uint32_t avail = rx->len - rx->l3_off;
	const uint8_t *icmp;
	uint32_t ilen;
	uint8_t type;

	if (avail < RTR_IPV6_HLEN || (ip[0] >> 4) != 6 ||
			RTR_IPV6_HLEN + (uint32_t)rtr_get16(ip + 4) > avail)
		return rtr_ignore(n);
	/* ND and echo are only handled without extension headers. */
	if (ip[6] != IPPROTO_ICMPV6 || m->l4_off != rx->l3_off + RTR_IPV6_HLEN) {
		if (rtr_neigh_is_local(n, UINT16_MAX, AF_INET6, ip + 24))
			return 0; /* ours, but not something we answer */
		return rtr_ignore(n);
	}
	icmp = ip + RTR_IPV6_HLEN;
	ilen = rtr_get16(ip + 4);
	if (ilen < 4)
		return rtr_ignore(n);
	type = icmp[0];

	if (type >= RTR_ND_RS && type <= RTR_ND_REDIRECT) {
		n->stats.nd_rx++;
		/* RFC 4861: hop limit 255 proves the sender is on the link. */
		if (ip[7] != RTR_ND_HOP_LIMIT || icmp[1] != 0 || ilen < RTR_ND_MSG_LEN ||
				rtr_icmp6_csum(ip, icmp, ilen) != 0)
			return rtr_ignore(n);
		if (type == RTR_ND_NS)
			return rtr_ns_input(n, rx, ip, icmp, ilen);
		if (type == RTR_ND_NA)
			return rtr_na_input(n, rx, ip, icmp, ilen);
		return rtr_ignore(n); /* router solicitation/advertisement, redirect */
	}

	if (!rtr_neigh_is_local(n, UINT16_MAX, AF_INET6, ip + 24))
		return rtr_ignore(n);
	if (type != RTR_ICMP6_ECHO_REQUEST)
		return 0;
	n->stats.icmp_echo_rx++;
	if (ilen < 8 || rtr_icmp6_csum(ip, icmp, ilen) != 0 || rtr_ipv6_is_unspec(ip + 8) ||
			rtr_ipv6_is_mcast(ip + 8))
		return rtr_ignore(n);
	return rtr_echo6_reply(n, rx, ip, ilen);
}

static uint32_t
rtr_ipv4_input(struct rtr_neigh *n, const struct rtr_rx *rx, const struct rtr_meta *m)
{
	const uint8_t *ip = rx->frame + rx->l3_off;
	uint32_t avail = rx->len - rx->l3_off;
	uint8_t eth_src[RTR_ETH_ALEN], tos, id[2];
	uint32_t ihl, tot, ilen, rlen, src, dst;
	unsigned int off = rx->l3_off;
	const uint8_t *icmp;
	uint8_t *oip, *oicmp;

	if (avail < RTR_IPV4_HLEN || (ip[0] >> 4) != 4)
		return rtr_ignore(n);
	ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	tot = rtr_get16(ip + 2);
	if (ihl < RTR_IPV4_HLEN || tot < ihl || tot > avail)
		return rtr_ignore(n);
	memcpy(&src, ip + 12, 4);
	memcpy(&dst, ip + 16, 4);
	if (!rtr_neigh_is_local(n, UINT16_MAX, AF_INET, &dst))
		return rtr_ignore(n);
	/* Fragments are not reassembled: for us, they are unsupported. */
	if (ip[9] != IPPROTO_ICMP || (rtr_get16(ip + 6) & 0x3fff) != 0 || m->l4_off != off + ihl)
		return 0;
	icmp = ip + ihl;
	ilen = tot - ihl;
	if (ilen < 1)
		return rtr_ignore(n);
	if (icmp[0] != RTR_ICMP_ECHO_REQUEST)
		return 0;
	n->stats.icmp_echo_rx++;
	if (ilen < 8 || rtr_csum_fold(rtr_csum_add(0, ip, ihl)) != 0 ||
			rtr_csum_fold(rtr_csum_add(0, icmp, ilen)) != 0 ||
			!rtr_ipv4_is_unicast(src))
		return rtr_ignore(n);

	/* The reply carries no IP options. */
	rlen = off + RTR_IPV4_HLEN + ilen;
	if (rx->outlen < rtr_frame_room(rlen))
		return rtr_ignore(n);
	memcpy(eth_src, rx->l2 + RTR_ETH_ALEN, RTR_ETH_ALEN);
	tos = ip[1];
	memcpy(id, ip + 4, 2);
	oip = rx->out + off;
	oicmp = oip + RTR_IPV4_HLEN;
	memmove(oicmp, icmp, ilen);
	rtr_l2_write(rx->out, rx->l2, off, eth_src, rx->p->mac, RTR_ETHERTYPE_IPV4);
	oip[0] = 0x45;
	oip[1] = tos;
	rtr_put16(oip + 2, (uint16_t)(RTR_IPV4_HLEN + ilen));
	memcpy(oip + 4, id, 2);
	rtr_put16(oip + 6, 0);
	oip[8] = RTR_REPLY_TTL;
	oip[9] = IPPROTO_ICMP;
	rtr_put16(oip + 10, 0);
	memcpy(oip + 12, &dst, 4);
	memcpy(oip + 16, &src, 4);
	rtr_put16(oip + 10, rtr_csum_fold(rtr_csum_add(0, oip, RTR_IPV4_HLEN)));
	oicmp[0] = RTR_ICMP_ECHO_REPLY;
	oicmp[1] = 0;
	rtr_put16(oicmp + 2, 0);
	rtr_put16(oicmp + 2, rtr_csum_fold(rtr_csum_add(0, oicmp, ilen)));
	n->stats.icmp_echo_tx++;
	return rtr_pad(rx->out, rlen);
}

uint32_t
rtr_neigh_input(struct rtr_neigh *n, uint16_t port, const uint8_t *frame, uint32_t len,
		const struct rtr_meta *m, uint64_t now_ns, uint8_t *out, uint32_t outlen)
{
	static const uint16_t ethertype[] = {
			[RTR_L3_IPV4] = RTR_ETHERTYPE_IPV4,
			[RTR_L3_IPV6] = RTR_ETHERTYPE_IPV6,
			[RTR_L3_ARP] = RTR_ETHERTYPE_ARP,
	};
	struct rtr_rx rx;

	if (n == NULL)
		return 0;
	if (frame == NULL || m == NULL || out == NULL || port >= RTR_MAX_PORTS ||
			!n->ports[port].enabled || m->l3_off < RTR_ETH_HLEN ||
			m->l3_off > RTR_L2_MAX_LEN || m->l3_off > len || m->l3 == RTR_L3_NONE ||
			m->l3 >= RTR_ARRAY_SIZE(ethertype) ||
			rtr_get16(frame + m->l3_off - 2) != ethertype[m->l3])
		return rtr_ignore(n);

	rx.port = port;
	rx.p = &n->ports[port];
	rx.frame = frame;
	rx.len = len;
	rx.l3_off = m->l3_off;
	rx.now = now_ns;
	rx.out = out;
	rx.outlen = outlen;
	memcpy(rx.l2, frame, rx.l3_off);

	switch (m->l3) {
	case RTR_L3_ARP:
		return rtr_arp_input(n, &rx);
	case RTR_L3_IPV4:
		return rtr_ipv4_input(n, &rx, m);
	case RTR_L3_IPV6:
		return rtr_ipv6_input(n, &rx, m);
	default:
		return rtr_ignore(n);
	}
}

/* One solicitation for nh: broadcast/multicast when mac is NULL, else
 * unicast to mac. Returns 1 if a frame was emitted. */
static unsigned int
rtr_nh_probe(struct rtr_neigh *n, const struct rtr_nh *nh, const uint8_t *mac,
		rtr_neigh_emit_t emit, void *arg)
{
	const struct rtr_neigh_port *p = &n->ports[nh->port];
	uint8_t buf[128], dst_ip[16], dst_mac[RTR_ETH_ALEN];
	uint32_t len;

	if (emit == NULL)
		return 0;
	if (nh->ip.family == AF_INET) {
		len = rtr_arp_write(buf, sizeof(buf), NULL, 0, mac != NULL ? mac : rtr_bcast_mac,
				p->mac, RTR_ARP_OP_REQUEST, rtr_port_src4(p, &nh->ip.v4), NULL,
				nh->ip.v4.s_addr);
		n->stats.arp_request_tx++;
	} else {
		const uint8_t *target = nh->ip.v6.s6_addr;

		if (mac != NULL) {
			memcpy(dst_ip, target, 16);
			memcpy(dst_mac, mac, RTR_ETH_ALEN);
		} else {
			rtr_ipv6_solicited_node(target, dst_ip);
			rtr_ipv6_mcast_mac(dst_ip, dst_mac);
		}
		len = rtr_nd_write(buf, sizeof(buf), NULL, 0, dst_mac, p->mac,
				rtr_port_src6(p, target), dst_ip, RTR_ND_NS, 0, target);
		n->stats.ns_tx++;
	}
	emit(arg, nh->port, buf, len);
	return 1;
}

unsigned int
rtr_neigh_tick(struct rtr_neigh *n, uint64_t now_ns, rtr_neigh_emit_t emit, void *arg)
{
	uint64_t next = UINT64_MAX, step;
	unsigned int sent = 0;

	if (n == NULL || now_ns < n->next_event_ns)
		return 0;
	step = n->lifetime_ns / 8 > 0 ? n->lifetime_ns / 8 : 1;

	for (unsigned int i = 0; i < n->n_nh; i++) {
		struct rtr_nh *nh = &n->nh[i];
		uint8_t mac[RTR_ETH_ALEN];

		if (nh->state == RTR_NH_STATIC)
			continue;
		if (nh->state != RTR_NH_INCOMPLETE && now_ns >= nh->expire_ns) {
			/* No answer for a whole lifetime: stop using the MAC and
			 * go back to broadcast solicitations, starting now. */
			atomic_store_explicit(&nh->mac_word, 0, memory_order_release);
			nh->state = RTR_NH_INCOMPLETE;
			nh->probes = 0;
			nh->next_probe_ns = now_ns;
			n->stats.expired++;
		}
		if (now_ns >= nh->next_probe_ns) {
			if (nh->state == RTR_NH_INCOMPLETE) {
				sent += rtr_nh_probe(n, nh, NULL, emit, arg);
				nh->next_probe_ns = now_ns + RTR_NEIGH_RETRY_NS;
			} else {
				nh->state = RTR_NH_PROBE;
				rtr_word_to_mac(atomic_load_explicit(&nh->mac_word,
								memory_order_relaxed),
						mac);
				sent += rtr_nh_probe(n, nh, mac, emit, arg);
				nh->next_probe_ns = now_ns + step;
			}
			if (nh->probes < UINT8_MAX)
				nh->probes++;
		}
		if (nh->next_probe_ns < next)
			next = nh->next_probe_ns;
		if (nh->state != RTR_NH_INCOMPLETE && nh->expire_ns < next)
			next = nh->expire_ns;
	}
	n->next_event_ns = next;
	return sent;
}
