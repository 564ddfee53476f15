// SPDX-License-Identifier: GPL-2.0
/*
 * csig_feed: a TCP sender whose CSIG state, in the BPF flavour's socket
 * storage (include/csig_bpf.h, pinned as /sys/fs/bpf/tcp-dcc/csig_sk),
 * this program writes itself, in place of the host path's sock_ops
 * program: the handshake negotiated, and a U sample of a fixed value
 * that arrives anew every 200 us.  For the tests of hpcc_bpf's telemetry
 * path (selftests/host/dccbpf.t).
 *
 *   csig_feed -l PORT                 a sink: accept one connection,
 *                                     read it to the end
 *   csig_feed HOST PORT SECS U_MILLI [CC]
 *                                     send for SECS with congestion
 *                                     control CC (hpcc_bpf), U =
 *                                     U_MILLI / 1000; prints the Mbit/s
 *                                     the receiver acknowledged
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>
#include <bpf/bpf.h>

#include "csig.h"
#include "csig_bpf.h"

#define USAGE	"usage: csig_feed -l PORT | csig_feed HOST PORT SECS U_MILLI [CC]\n"

static const struct csig_quant quant = CSIG_DEFAULT_QUANT_INIT;

static int done;	/* the sender's end: __atomic */
static int map_fd, sock_fd;
static struct csig_bpf_sk state;

static __u64 now_ns(void)
{
	struct timespec ts;

	/* bpf_ktime_get_ns()'s clock */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int put_sample(void)
{
	state.s[CSIG_T_U].t_ns = now_ns();
	return bpf_map_update_elem(map_fd, &sock_fd, &state, BPF_ANY);
}

static void *feeder(void *arg)
{
	struct timespec gap = { 0, 200000 };

	(void)arg;
	while (!__atomic_load_n(&done, __ATOMIC_RELAXED)) {
		put_sample();
		nanosleep(&gap, NULL);
	}
	return NULL;
}

static int sink(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	static char buf[1 << 16];
	int l, c, one = 1;
	ssize_t n;

	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1)) {
		perror("csig_feed: listen");
		return 1;
	}
	c = accept(l, NULL, NULL);
	if (c < 0) {
		perror("csig_feed: accept");
		return 1;
	}
	while ((n = read(c, buf, sizeof(buf))) > 0)
		;
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	const char *cc = argc > 5 ? argv[5] : "hpcc_bpf";
	static char buf[1 << 16];
	struct csig_bpf_sample *u;
	unsigned long long sent = 0;
	__u64 t0, t1, secs;
	pthread_t th;
	ssize_t n;
	int outq;

	if (argc == 3 && !strcmp(argv[1], "-l"))
		return sink(atoi(argv[2]));
	if (argc < 5 || inet_pton(AF_INET, argv[1], &a.sin_addr) != 1) {
		fputs(USAGE, stderr);
		return 2;
	}
	a.sin_port = htons(atoi(argv[2]));
	secs = strtoull(argv[3], NULL, 0);
	map_fd = bpf_obj_get(CSIG_BPF_PIN_SK);
	if (map_fd < 0) {
		fprintf(stderr, "csig_feed: %s: %s\n", CSIG_BPF_PIN_SK, strerror(errno));
		return 1;
	}
	sock_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (sock_fd < 0 ||
	    setsockopt(sock_fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc))) {
		perror("csig_feed: socket");
		return 1;
	}
	/* the handshake's outcome and a first sample, before the handshake */
	state.state = CSIG_BPF_OFFERED | CSIG_BPF_NEGOTIATED;
	state.have = 1U << CSIG_T_U;
	u = &state.s[CSIG_T_U];
	u->s.format = CSIG_FMT_EXPANDED;
	u->s.type = CSIG_T_U;
	u->s.fresh = 1;
	u->s.s = csig_encode(&quant, CSIG_FMT_EXPANDED, CSIG_T_U,
			     (__u32)(strtoull(argv[4], NULL, 0) * CSIG_FRAC_ONE / 1000));
	if (put_sample()) {
		fprintf(stderr, "csig_feed: writing the socket's CSIG state: %s\n",
			strerror(errno));
		return 1;
	}
	if (connect(sock_fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("csig_feed: connect");
		return 1;
	}
	if (pthread_create(&th, NULL, feeder, NULL))
		return 1;
	t0 = now_ns();
	for (t1 = t0; t1 - t0 < secs * 1000000000ULL; t1 = now_ns()) {
		n = write(sock_fd, buf, sizeof(buf));
		if (n < 0) {
			perror("csig_feed: write");
			return 1;
		}
		sent += n;
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	/* what the receiver acknowledged: less what the send queue holds */
	if (!ioctl(sock_fd, SIOCOUTQ, &outq) && outq > 0 && (unsigned long long)outq < sent)
		sent -= outq;
	printf("%.1f\n", sent * 8.0 / ((t1 - t0) / 1e9) / 1e6);
	close(sock_fd);
	return 0;
}
