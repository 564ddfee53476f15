// SPDX-License-Identifier: GPL-2.0
/*
 * rxsample: the bytes one TCP connection has received, sampled at a fixed
 * interval through INET_DIAG (sock_diag netlink), for rates finer than
 * iperf3's 0.1 s reports.
 *
 *   rxsample LADDR LPORT RADDR RPORT INTERVAL_US COUNT
 *
 * The connection is the IPv4 one from LADDR:LPORT (the local end, the
 * receiver) to RADDR:RPORT; an IPv6 socket with these addresses
 * v4-mapped counts too.  Each sample is an exact lookup of that 4-tuple
 * (no dump: a dump walks every bucket of the established hash, which in a
 * 2 GB guest under TCG cost a quarter of a vCPU at 10 ms).  COUNT
 * samples, INTERVAL_US apart on CLOCK_MONOTONIC (absolute deadlines: a
 * late wakeup does not shift the ones after it).  Per sample, the line
 * "T_US BYTES": T_US the sample's time since the first one, BYTES the
 * connection's tcpi_bytes_received, or -1 while there is no such
 * connection (yet, or any more: not even a full socket in TIME_WAIT).
 * The lines are buffered and written at the end.  Exit status 0, 1 on an
 * error, 2 on bad arguments.
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
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TI_MIN	((int)(offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(__u64)))
#define ST_LISTEN	10	/* TCP_LISTEN: what the lookup finds before the connection */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* the connection's bytes received, -1 when there is none, -2 on an error */
static long long sample(int fd, const struct inet_diag_req_v2 *r)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = {
		.nlh = {
			.nlmsg_len = sizeof(req),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST,
		},
		.r = *r,
	};
	static long buf[8192 / sizeof(long)];	/* aligned for nlmsghdr */
	struct inet_diag_msg *m;
	struct nlmsghdr *h;
	struct rtattr *a;
	ssize_t n;
	int len;

	if (send(fd, &req, sizeof(req), 0) < 0)
		return -2;
	do
		n = recv(fd, buf, sizeof(buf), 0);
	while (n < 0 && errno == EINTR);
	h = (struct nlmsghdr *)buf;
	if (n < 0 || !NLMSG_OK(h, n))
		return -2;
	if (h->nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr *e = NLMSG_DATA(h);

		return e->error == -ENOENT ? -1 : -2;
	}
	m = NLMSG_DATA(h);
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return -2;
	if (m->idiag_state == ST_LISTEN)
		return -1;
	len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*m));
	for (a = (struct rtattr *)(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		struct tcp_info ti;

		if (a->rta_type == INET_DIAG_INFO && RTA_PAYLOAD(a) >= TI_MIN) {
			memcpy(&ti, RTA_DATA(a), TI_MIN);
			return ti.tcpi_bytes_received;
		}
	}
	return -1;	/* a TIME_WAIT or NEW_SYN_RECV mini socket: no tcp_info */
}

static int parse_port(const char *s, __be16 *port)
{
	unsigned long v;
	char *end;

	v = strtoul(s, &end, 10);
	if (*end || !v || v > 65535)
		return -1;
	*port = htons(v);
	return 0;
}

int main(int argc, char **argv)
{
	struct inet_diag_req_v2 r = {
		.sdiag_family = AF_INET,
		.sdiag_protocol = IPPROTO_TCP,
		.idiag_ext = 1 << (INET_DIAG_INFO - 1),
		.idiag_states = ~0U,
		.id.idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE },
	};
	unsigned long ival, count, i;
	unsigned long long t0, next;
	struct timespec ts;
	long long b;
	char *end;
	int fd;

	if (argc != 7 ||
	    inet_pton(AF_INET, argv[1], &r.id.idiag_src[0]) != 1 ||
	    parse_port(argv[2], &r.id.idiag_sport) ||
	    inet_pton(AF_INET, argv[3], &r.id.idiag_dst[0]) != 1 ||
	    parse_port(argv[4], &r.id.idiag_dport))
		goto usage;
	ival = strtoul(argv[5], &end, 10);
	if (*end || !ival || ival > 10000000)
		goto usage;
	count = strtoul(argv[6], &end, 10);
	if (*end || !count || count > 10000000)
		goto usage;
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0) {
		perror("rxsample: socket");
		return 1;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 22);
	t0 = now_ns();
	next = t0;
	for (i = 0; i < count; i++) {
		unsigned long long t = now_ns();

		b = sample(fd, &r);
		if (b == -2) {
			fprintf(stderr, "rxsample: sock_diag lookup failed\n");
			return 1;
		}
		printf("%llu %lld\n", (t - t0) / 1000, b);
		next += ival * 1000ULL;
		ts.tv_sec = next / 1000000000ULL;
		ts.tv_nsec = next % 1000000000ULL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	return fflush(stdout) ? 1 : 0;
usage:
	fprintf(stderr, "usage: rxsample LADDR LPORT RADDR RPORT INTERVAL_US COUNT\n");
	return 2;
}
