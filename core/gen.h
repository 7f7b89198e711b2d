/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet generator: live XDP frames, or AF_PACKET as a fallback,
 * straight out of the device or through a stage that makes them XDP
 * frames.
 */
#ifndef HC_GEN_H
#define HC_GEN_H

#include "hookcmp.h"
#include "pkt.h"
#include "srcs.h"

enum hc_gen_method { HC_GEN_AUTO, HC_GEN_LIVE, HC_GEN_PACKET, HC_GEN_STAGE };

/* Flows: values of a 16-bit field, the source port or ICMP's echo id. */
#define HC_GEN_FLOWS_MAX 65536

/*
 * The stage: AF_PACKET sends on the generator's device, whose veth peer
 * (in), in native XDP, redirects every frame to another device (to) as an
 * XDP frame. A veth there hands its peer's NAPI xdp_frames, as a NIC
 * driver hands XDP its buffers, where live frames are refused.
 */
struct hc_gen_stage {
	struct hc_nl *nl; /* in's namespace */
	int in, to;
	__u32 copies; /* XDP frames to the DUT per frame sent; 0: 1 */
};

struct hc_gen_cfg {
	struct hc_pkt_spec spec;
	__u32 flows; /* 1 to HC_GEN_FLOWS_MAX; 0: 1 */
	enum hc_gen_method method;
	bool raw; /* live only: no per-frame work at all */
	bool refresh; /* live: write L2 and L3 headers into every frame */
	bool inject; /* live: into the device's receive path, not out of it */
	__u32 queue; /* inject: the RX queue they arrive on */
	const struct hc_srcs *srcs; /* --hit-rate: the sources, else NULL */
	bool percpu; /* srcs: several threads, each pinned to its CPU */
	/* HC_GEN_STAGE's; NULL: the generator's own, in a namespace of its own */
	const struct hc_gen_stage *stage;
};

struct hc_gen {
	enum hc_gen_method method; /* what runs: LIVE, PACKET or STAGE */
	int ifindex;
	struct hc_pkt_layout lo;
	__u8 frame[HC_PKT_MAX];
	void *skel;
	int prog_fd; /* what hc_gen_send() runs */
	int drop_fd; /* live: the same loop returning XDP_DROP, its floor */
	int sock_fd;
	__u32 flows;
	__u16 base; /* the first flow's value of the field flows vary */
	__u32 vary_off; /* that field's offset in the frame */
	__u64 flow_next; /* AF_PACKET: the next frame's place in the flows */
	bool raw;
	bool refresh;
	__u32 queue; /* inject: the RX queue the frames arrive on */
	const struct hc_srcs *srcs;
	__u32 src_off, ip_csum_off; /* srcs: where the address is */
	bool l4_pseudo; /* srcs: the L4 checksum covers it */
	void *stage_skel; /* STAGE: its program, attached to stage.in */
	struct hc_gen_stage stage;
	int stage_ns; /* its own stage's namespace, or -1 */
};

/* Opens the generator on ifindex in the current network namespace. */
int hc_gen_open(struct hc_gen *g, int ifindex, const struct hc_gen_cfg *cfg,
		struct hc_err *err);
/*
 * Another frame for an open generator: one program serves every frame,
 * and stays where it is attached; the flows start again from the spec's
 * port. -EINVAL with --hit-rate's sources, or a spec that does not fit.
 */
int hc_gen_set_frame(struct hc_gen *g, const struct hc_pkt_spec *spec);
/*
 * Another number of flows for an open generator, 1 to HC_GEN_FLOWS_MAX
 * (0: 1): frame n carries the spec's port (ICMP: echo id) plus n mod
 * flows, wrapping within 16 bits, its L4 checksum mended; n counts on
 * over hc_gen_send() calls, from 0 again here. Live frames and the
 * stage's copies count per CPU, in the program; AF_PACKET's per
 * generator. -EINVAL over the most, or several with raw; -errno if the
 * stage's entries cannot take its program.
 */
int hc_gen_set_flows(struct hc_gen *g, __u32 flows);
/* The methods' names, in the enum's order, NULL-terminated: the options'. */
extern const char *const hc_gen_methods[];
const char *hc_gen_method_name(enum hc_gen_method m);
/* Whether the kernel runs live XDP frames (0), or why not (-errno, err). */
int hc_gen_live_probe(struct hc_err *err);
/* AF_PACKET: sends from ifindex (in the socket's namespace) from now on. */
int hc_gen_bind(struct hc_gen *g, int ifindex);
/*
 * Sends count frames from the calling thread, stopping early once *stop
 * is set; *sent is exact either way (signals wait between chunks).
 */
int hc_gen_send(struct hc_gen *g, __u64 count, __u64 *sent,
		const volatile int *stop);
/*
 * The same for a thread that has sent first frames before: with srcs,
 * AF_PACKET's frames take their sources from entry first on (live
 * frames count in the program, per thread from its open).
 */
int hc_gen_send_from(struct hc_gen *g, __u64 first, __u64 count, __u64 *sent,
		     const volatile int *stop);
/* Live, without refresh: sampled frames that came back edited by a receiver. */
__u64 hc_gen_modified(const struct hc_gen *g);
void hc_gen_close(struct hc_gen *g);

#endif
