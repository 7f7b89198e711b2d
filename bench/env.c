// SPDX-License-Identifier: GPL-2.0
/* What the numbers depend on, recorded with them. */
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "bench.h"
#include "nl.h"

/*
 * The hypervisor's CPUID signature (leaf 0x40000000), when the hypervisor
 * bit is set: "KVMKVMKVM", "TCGTCGTCGTCG" for qemu's emulated CPU, ...
 * HOOKCMP_HYPERVISOR stands in for it in the tests.
 */
static void hypervisor(char sig[13])
{
	const char *fake = getenv("HOOKCMP_HYPERVISOR");

	sig[0] = '\0';
	if (fake) {
		snprintf(sig, 13, "%s", fake);
		return;
	}
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned int a, b, c, d;

		if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 31)))
			return;
		__cpuid(0x40000000, a, b, c, d);
		memcpy(sig, &b, 4);
		memcpy(sig + 4, &c, 4);
		memcpy(sig + 8, &d, 4);
		sig[12] = '\0';
	}
#endif
}

/* Ingress or clsact qdiscs in this namespace: the static key is on. */
static void foreign_qdiscs(char *buf, size_t size)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct hc_err err = {};
	struct hc_nl *nl = hc_nl_open(&err);
	size_t len = 0;
	char kind[32];

	buf[0] = '\0';
	for (i = ifs; nl && i && i->if_index && len < size; i++) {
		if (hc_nl_ingress_qdisc(nl, i->if_index, kind, sizeof(kind),
					NULL) ||
		    !kind[0])
			continue;
		len += snprintf(buf + len, size - len, "%s%s on %s",
				len ? ", " : "", kind, i->if_name);
	}
	if (ifs)
		if_freenameindex(ifs);
	hc_nl_close(nl);
}

void bench_env_read(struct bench_env *env)
{
	struct utsname u;

	env->jit = hc_jit_enabled() == 1;
	env->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	foreign_qdiscs(env->foreign, sizeof(env->foreign));
	if (!uname(&u))
		snprintf(env->kernel, sizeof(env->kernel), "%s", u.release);
	hypervisor(env->hypervisor);
	env->emulated = !strcmp(env->hypervisor, "TCGTCGTCGTCG");
}
