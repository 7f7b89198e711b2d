// SPDX-License-Identifier: GPL-2.0
/*
 * The generator's program, run by BPF_PROG_RUN in live-frames mode: each
 * XDP_TX sends the frame out of the device. With several flows it rewrites
 * the source port (the echo id for ICMP) and patches the L4 checksum. The
 * port comes from a count per CPU, not from the frame: the loop runs a
 * batch of pages (64) in turn, each holding the frame as its last run
 * left it, so a port taken from the frame would be one for the whole
 * batch. The kernel recycles the frames with our edits, and a receiver's
 * edits come back too: a router rewrites the MACs and the TTL in place, so
 * with refresh the L2 and L3 headers are written again into every frame;
 * without, one frame in 64 is compared with them, to say so. --inject
 * returns XDP_PASS instead: the kernel builds an skb of each frame and
 * hands it to the receive path of the device given as ingress_ifindex
 * (test_run.c, xdp_recv_frames), in the calling thread.
 *
 * With --hit-rate the source address comes from the srcs table, the n-th
 * frame of a sending thread from its entry n mod nr_srcs: a count per
 * thread (a CPU's, the threads pinned; one for a lone thread, which may
 * move), so that the hits sent are exact.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

const volatile __u32 verdict = XDP_TX; /* XDP_PASS: --inject */
const volatile __u32 nr_srcs; /* --hit-rate: entries of srcs, 0: off */
const volatile __u32 src_off; /* offset of the source address */
const volatile __u32 src_len; /* 4 or 16 */
const volatile __u32 ip_csum_off; /* IPv4 header checksum, 0: IPv6 */
const volatile __u32 l4_pseudo; /* the L4 checksum covers the address */
const volatile __u32 src_percpu; /* several threads: a count per CPU */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1); /* sized by the loader */
	__type(key, __u32);
	__type(value, __u8[16]);
} srcs SEC(".maps");

#define HDR_MAX 64
/*
 * In .bss, not .rodata: an open generator changes them (gen.c), a new
 * frame size the IP length, a new number of flows the ports.
 */
__u32 flows; /* values of the field to vary; 0 or 1: none varies */
__u32 vary_off; /* offset of that 16-bit field */
__u32 csum_off; /* offset of the L4 checksum, 0 if none */
__u16 base; /* the field's first value, host order */
__u32 refresh_len; /* bytes of refresh_hdr to write, 0: none */
__u32 check_len; /* else: bytes of it to compare, in sampled frames */
__u8 refresh_hdr[HDR_MAX];
__u64 modified; /* sampled frames a receiver had edited */

/* A count per CPU, a cache line each: sending threads share nothing. */
#define SEQ_CPUS 64
struct {
	__u32 n;
	__u32 pad[15];
} seq[SEQ_CPUS];

/* The next flow of each CPU's frames, from 0 to flows - 1. */
struct {
	__u32 n;
	__u32 pad[15];
} flow_seq[SEQ_CPUS];

/* --hit-rate's count per thread: a CPU's, as many as gen has threads. */
#define SRC_CPUS 256
struct {
	__u32 n;
	__u32 pad[15];
} src_seq[SRC_CPUS];

/*
 * Without refresh: is a frame still as sent? One frame in 64, so that
 * the others' cache lines are not touched. Whole words; the headers a
 * receiver edits (MACs, a VLAN tag, the TTL) are in them.
 */
static __always_inline void check(struct xdp_md *ctx)
{
	__u8 *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 i, len = check_len, cpu;

	if (!len)
		return;
	cpu = bpf_get_smp_processor_id() & (SEQ_CPUS - 1);
	if (++seq[cpu].n & 63)
		return;
	for (i = 0; i + 8 <= len && i < HDR_MAX; i += 8) {
		if ((void *)(data + i + 8) > end)
			return;
		if (*(__u64 *)(data + i) != *(__u64 *)(refresh_hdr + i)) {
			__sync_fetch_and_add(&modified, 1);
			return;
		}
	}
	/* The bytes up to a varied source address (a hop limit in them). */
	for (; i < len && i < HDR_MAX; i++) {
		if ((void *)(data + i + 1) > end)
			return;
		if (data[i] != refresh_hdr[i]) {
			__sync_fetch_and_add(&modified, 1);
			return;
		}
	}
}

static __always_inline int refresh(struct xdp_md *ctx)
{
	__u8 *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 i, len = refresh_len;

	/* Eight bytes at a time, then the rest. */
	for (i = 0; i + 8 <= len && i < HDR_MAX; i += 8) {
		if ((void *)(data + i + 8) > end)
			return -1;
		*(__u64 *)(data + i) = *(__u64 *)(refresh_hdr + i);
	}
	for (; i < len && i < HDR_MAX; i++) {
		if ((void *)(data + i + 1) > end)
			return -1;
		data[i] = refresh_hdr[i];
	}
	return 0;
}

/* RFC 1624 over 16-bit words: HC' = ~(~HC + ~m + m') for each. */
static __always_inline void csum_replace(__u16 *csum, const __u16 *from,
					 const __u16 *to)
{
	__u32 sum = (__u16) ~*csum, i;

	for (i = 0; i < 8; i++) {
		if (i * 2 >= src_len)
			break;
		sum += (__u16)~from[i] + to[i];
	}
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	*csum = (__u16)~sum;
}

/*
 * The next source of the table into the frame: old is what the L4
 * checksum was made with, the frame's address before refresh() wrote
 * the L3 header again (and its checksum, with the address of that).
 */
static __always_inline int set_src(struct xdp_md *ctx, const __u16 *old)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 cpu =
		src_percpu ? bpf_get_smp_processor_id() & (SRC_CPUS - 1) : 0;
	__u32 idx = src_seq[cpu].n, off = src_off, coff = csum_off;
	__u16 *addr, *csum, cur[8];
	__u8 *src;

	src_seq[cpu].n = idx + 1 >= nr_srcs ? 0 : idx + 1;
	src = bpf_map_lookup_elem(&srcs, &idx);
	if (!src || off > 256 || coff > 256 || ip_csum_off > 256)
		return -1;
	addr = data + off;
	if ((void *)(addr + 8) > end)
		return -1;
	__builtin_memcpy(cur, addr, 16);
	if (src_len == 16)
		__builtin_memcpy(addr, src, 16);
	else
		__builtin_memcpy(addr, src, 4);
	if (ip_csum_off) {
		csum = data + ip_csum_off;
		if ((void *)(csum + 1) > end)
			return -1;
		csum_replace(csum, cur, addr);
	}
	if (coff && l4_pseudo) {
		csum = data + coff;
		if ((void *)(csum + 1) > end)
			return -1;
		csum_replace(csum, old, addr);
		*csum = *csum ?:
				0xffff; /* as the flows' edit: UDP's 0 is none */
	}
	return 0;
}

/*
 * Several flows: the field takes this CPU's next value, base + n (wrapping
 * within 16 bits), n from 0 to flows - 1 in turn; the L4 checksum follows.
 * A frame may hold any value before: a page's last one, or the spec's.
 */
static __always_inline int vary(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 sum, off = vary_off, coff = csum_off, n = flows, cpu, idx;
	__u16 *field, *csum, old, new;

	if (n <= 1)
		return 0;
	if (off > 256 || coff > 256)
		return -1;
	field = data + off;
	csum = data + coff;
	if ((void *)(field + 1) > end || (void *)(csum + 1) > end)
		return -1;
	cpu = bpf_get_smp_processor_id() & (SEQ_CPUS - 1);
	idx = flow_seq[cpu].n;
	if (idx >= n)
		idx = 0;
	flow_seq[cpu].n = idx + 1 >= n ? 0 : idx + 1;
	old = *field;
	new = bpf_htons((__u16)(base + idx));
	*field = new;
	if (coff) {
		/* RFC 1624: HC' = ~(~HC + ~m + m') */
		sum = (__u16) ~*csum + (__u16)~old + new;
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		new = ~sum;
		*csum = new ?: 0xffff;
	}
	return 0;
}

SEC("xdp")
int hc_gen(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u16 old_src[8];

	if (nr_srcs) {
		if (src_off > 256 || data + src_off + 16 > end)
			return XDP_ABORTED;
		__builtin_memcpy(old_src, data + src_off, 16);
	}
	if (refresh(ctx))
		return XDP_ABORTED;
	check(ctx);
	if (nr_srcs && set_src(ctx, old_src))
		return XDP_ABORTED;
	if (vary(ctx))
		return XDP_ABORTED;
	return verdict;
}

/* --raw: one fixed frame, no per-frame work: the loop's ceiling. */
SEC("xdp")
int hc_gen_raw(struct xdp_md *ctx)
{
	return verdict;
}

/*
 * The stage, where the kernel refuses live frames: in native XDP on the
 * veth peer of the device AF_PACKET sends on, every frame redirected to
 * stage_tx's device as an XDP frame, which a veth hands its peer's NAPI
 * as an xdp_frame (veth_xdp_xmit), not an skb: a NIC driver's order.
 */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1); /* sized by the loader: one entry a copy */
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} stage_tx SEC(".maps");

const volatile __u32 stage_copies = 1;

/*
 * With copies, a broadcast to as many entries naming the one device:
 * each frame leaves as that many (xdpf_clone), one NAPI poll of the
 * receiver's taking them all, as a driver's poll takes a batch.
 */
SEC("xdp")
int hc_stage(struct xdp_md *ctx)
{
	return bpf_redirect_map(&stage_tx, 0,
				stage_copies > 1 ? BPF_F_BROADCAST : 0);
}

/*
 * Several flows on the stage: each entry's program, run on every copy
 * as it leaves (bq_xmit_all), so that copies of one frame are flows in
 * turn, not a run of one; with one flow the entries hold none.
 */
SEC("xdp/devmap")
int hc_stage_vary(struct xdp_md *ctx)
{
	return vary(ctx) ? XDP_ABORTED : XDP_PASS;
}

/*
 * Asks the kernel whether it runs live frames, without sending one; and
 * inject's floor: the generator's own work, the flows', dropped.
 */
SEC("xdp")
int hc_gen_probe(struct xdp_md *ctx)
{
	vary(ctx);
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
