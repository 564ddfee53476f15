// SPDX-License-Identifier: GPL-2.0
/*
 * ccstat: the per-socket state of tcp_hpcc and tcp_ldcp connections, read
 * through INET_DIAG (sock_diag netlink) like ss does.
 *
 *   ccstat [--json] [hpcc|ldcp]
 *   hpccstat [--json]            (the same program: hpcc only)
 *
 * One line (or JSON object) per TCP connection whose congestion control
 * is hpcc or ldcp (or only the one named), in the caller's network
 * namespace (run it under ip netns exec for another): addresses, then
 * for hpcc the telemetry source, U, W, Wc, incStage and T (struct
 * hpcc_diag_info, include/hpcc.h), for ldcp the phase, cw, IW, how fast
 * start ended, the ACKs taken and those with ECE (struct ldcp_diag_info,
 * include/ldcp.h); and TCP's own cwnd, pacing rate and smoothed RTT.
 * Exit status 0, 1 on a netlink error, 2 on bad arguments.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hpcc.h"
#include "ldcp.h"

/* enough of struct tcp_info for cwnd, pacing rate and RTT */
#define TI_MIN	((int)offsetof(struct tcp_info, tcpi_min_rtt))

static int json, nout;
static const char *only;	/* print only this algorithm */

static const char *src_name(unsigned int s)
{
	switch (s) {
	case HPCC_DIAG_SRC_U:
		return "u";
	case HPCC_DIAG_SRC_STD:
		return "std";
	default:
		return "fallback";
	}
}

static void print_addrs(const struct inet_diag_msg *m, const char *cc)
{
	char src[INET6_ADDRSTRLEN + 8], dst[INET6_ADDRSTRLEN + 8], a[INET6_ADDRSTRLEN];
	int fam = m->idiag_family;

	inet_ntop(fam, m->id.idiag_src, a, sizeof(a));
	snprintf(src, sizeof(src), fam == AF_INET6 ? "[%s]:%u" : "%s:%u", a,
		 ntohs(m->id.idiag_sport));
	inet_ntop(fam, m->id.idiag_dst, a, sizeof(a));
	snprintf(dst, sizeof(dst), fam == AF_INET6 ? "[%s]:%u" : "%s:%u", a,
		 ntohs(m->id.idiag_dport));
	if (json)
		printf("%s{\"src\":\"%s\",\"dst\":\"%s\",\"cc\":\"%s\",",
		       nout ? "," : "", src, dst, cc);
	else
		printf("%s %s %s ", src, dst, cc);
}

static void print_tcp(const struct tcp_info *ti)
{
	if (json) {
		if (ti)
			printf(",\"cwnd\":%u,\"pacing_rate\":%llu,\"rtt_us\":%u",
			       ti->tcpi_snd_cwnd,
			       (unsigned long long)ti->tcpi_pacing_rate, ti->tcpi_rtt);
		printf("}");
	} else {
		if (ti)
			printf(" cwnd %u pacing %.1fMbit/s rtt %.3fms", ti->tcpi_snd_cwnd,
			       ti->tcpi_pacing_rate * 8 / 1e6, ti->tcpi_rtt / 1e3);
		printf("\n");
	}
	nout++;
}

static void print_hpcc(const struct inet_diag_msg *m, const struct hpcc_diag_info *hi,
		       const struct tcp_info *ti)
{
	print_addrs(m, "hpcc");
	if (json) {
		printf("\"source\":\"%s\",", src_name(hi->source));
		printf("\"U\":%.6f,\"W\":%u,\"Wc\":%u,\"inc_stage\":%u,\"T_us\":%u,",
		       (double)hi->u / HPCC_FRAC_ONE, hi->w, hi->wc, hi->inc_stage,
		       hi->t_us);
		printf("\"negotiated\":%s,\"sampled\":%s,\"mi\":%s,\"held\":%s",
		       hi->flags & HPCC_DIAG_F_NEGOTIATED ? "true" : "false",
		       hi->flags & HPCC_DIAG_F_SAMPLED ? "true" : "false",
		       hi->flags & HPCC_DIAG_F_MI ? "true" : "false",
		       hi->flags & HPCC_DIAG_F_HELD ? "true" : "false");
	} else {
		printf("%s U %.3f W %u Wc %u stage %u T %uus%s%s",
		       src_name(hi->source), (double)hi->u / HPCC_FRAC_ONE, hi->w,
		       hi->wc, hi->inc_stage, hi->t_us,
		       hi->flags & HPCC_DIAG_F_HELD ? " held" : "",
		       hi->flags & HPCC_DIAG_F_NEGOTIATED ? "" : " (no csig)");
	}
	print_tcp(ti);
}

static const char *exit_name(unsigned int e)
{
	return e == LDCP_EXIT_IW ? "iw" : e == LDCP_EXIT_LOSS ? "loss" : "none";
}

static void print_ldcp(const struct inet_diag_msg *m, const struct ldcp_diag_info *li,
		       const struct tcp_info *ti)
{
	const char *phase = li->phase == LDCP_STABLE ? "stable" : "fast_start";

	print_addrs(m, "ldcp");
	if (json) {
		printf("\"phase\":\"%s\",\"cw\":%.4f,\"iw\":%.4f,", phase,
		       (double)li->cw / LDCP_ONE, (double)li->iw / LDCP_ONE);
		printf("\"fs_exit\":\"%s\",\"acks\":%u,\"ece_acks\":%u,\"ce\":%s",
		       exit_name(li->exit), li->acks, li->ece_acks,
		       li->flags & LDCP_DIAG_F_CE ? "true" : "false");
	} else {
		printf("%s cw %.3f iw %.3f fs_exit %s acks %u ece %u%s", phase,
		       (double)li->cw / LDCP_ONE, (double)li->iw / LDCP_ONE,
		       exit_name(li->exit), li->acks, li->ece_acks,
		       li->flags & LDCP_DIAG_F_CE ? " ce" : "");
	}
	print_tcp(ti);
}

/* One dump of @family; returns 0 or -1. */
static int dump(int fd, int family)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		},
		.r = {
			.sdiag_family = family,
			.sdiag_protocol = IPPROTO_TCP,
			.idiag_states = ~(1U << 10),	/* all but LISTEN */
			.idiag_ext = (1 << (INET_DIAG_INFO - 1)) |
				     (1 << (INET_DIAG_VEGASINFO - 1)) |
				     (1 << (INET_DIAG_CONG - 1)),
		},
	};
	static long lbuf[8192];
	char *buf = (char *)lbuf;

	if (send(fd, &req, sizeof(req), 0) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(lbuf), 0);
		struct nlmsghdr *h;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			const struct inet_diag_msg *m = NLMSG_DATA(h);
			const struct hpcc_diag_info *hi = NULL;
			const struct ldcp_diag_info *li = NULL;
			const struct tcp_info *ti = NULL;
			const char *cong = NULL;
			struct rtattr *a;
			int len;

			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -1;
			len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
			for (a = (struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
				unsigned int t = a->rta_type & NLA_TYPE_MASK;

				if (t == INET_DIAG_CONG)
					cong = RTA_DATA(a);
				else if (t == HPCC_DIAG_ATTR &&
					 RTA_PAYLOAD(a) >= (int)sizeof(*hi))
					hi = RTA_DATA(a);
				else if (t == LDCP_DIAG_ATTR &&
					 RTA_PAYLOAD(a) >= (int)sizeof(*li))
					li = RTA_DATA(a);
				else if (t == INET_DIAG_INFO && RTA_PAYLOAD(a) >= TI_MIN)
					ti = RTA_DATA(a);
			}
			if (!cong || (only && strcmp(cong, only)))
				continue;
			if (!strcmp(cong, "hpcc") && hi)
				print_hpcc(m, hi, ti);
			else if (!strcmp(cong, "ldcp") && li)
				print_ldcp(m, li, ti);
		}
	}
}

int main(int argc, char **argv)
{
	const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int fd, i, err = 0;

	if (!strcmp(prog, "hpccstat"))
		only = "hpcc";
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!only && (!strcmp(argv[i], "hpcc") || !strcmp(argv[i], "ldcp"))) {
			only = argv[i];
		} else {
			fprintf(stderr, "usage: ccstat [--json] [hpcc|ldcp]\n"
				"       hpccstat [--json]\n");
			return 2;
		}
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0) {
		perror("ccstat: netlink");
		return 1;
	}
	if (json)
		printf("[");
	if (dump(fd, AF_INET) || dump(fd, AF_INET6)) {
		perror("ccstat: inet_diag");
		err = 1;
	}
	if (json)
		printf("]\n");
	close(fd);
	return err;
}
