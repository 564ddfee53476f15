// SPDX-License-Identifier: GPL-2.0
/*
 * csig_probe: a test-only congestion control ("csig_probe", Reno's window
 * rules) that reads tcp_csig_opt's samples the way a CSIG congestion
 * control does, through include/csig_opt_api.h, on every ACK, and exposes
 * what it read as read-only module parameters for the suite:
 *
 *   reads_ok, reads_none    csig_opt_read() calls that found a U sample, or not
 *   negotiated              connections that saw csig_opt_negotiated()
 *   last_s, last_lm         the last U sample read
 *   last_age_us             its age when read
 */
#include <linux/module.h>
#include <net/tcp.h>

#include "csig_opt_api.h"

static unsigned long reads_ok, reads_none, negotiated;
static unsigned int last_s, last_lm, last_age_us;
module_param(reads_ok, ulong, 0444);
module_param(reads_none, ulong, 0444);
module_param(negotiated, ulong, 0444);
module_param(last_s, uint, 0444);
module_param(last_lm, uint, 0444);
module_param(last_age_us, uint, 0444);

static void probe_init(struct sock *sk)
{
	*(u32 *)inet_csk_ca(sk) = 0;
}

static void probe_in_ack_event(struct sock *sk, u32 flags)
{
	struct csig_opt_sample s;
	u32 *seen = inet_csk_ca(sk);

	if (!*seen && csig_opt_negotiated(sk)) {
		*seen = 1;
		negotiated++;
	}
	if (csig_opt_read(sk, CSIG_T_U, &s)) {
		reads_none++;
		return;
	}
	reads_ok++;
	WRITE_ONCE(last_s, s.s.s);
	WRITE_ONCE(last_lm, s.s.lm);
	WRITE_ONCE(last_age_us, div_u64(ktime_get_ns() - s.t_ns, 1000));
}

static struct tcp_congestion_ops csig_probe __read_mostly = {
	.init		= probe_init,
	.in_ack_event	= probe_in_ack_event,
	.ssthresh	= tcp_reno_ssthresh,
	.cong_avoid	= tcp_reno_cong_avoid,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.owner		= THIS_MODULE,
	.name		= "csig_probe",
};

static int __init csig_probe_init(void)
{
	csig_opt_register_consumer("csig_probe");
	return tcp_register_congestion_control(&csig_probe);
}

static void __exit csig_probe_exit(void)
{
	tcp_unregister_congestion_control(&csig_probe);
	csig_opt_unregister_consumer("csig_probe");
}

module_init(csig_probe_init);
module_exit(csig_probe_exit);

MODULE_DESCRIPTION("Test-only CC that reads tcp_csig_opt's samples through its API");
MODULE_LICENSE("GPL");
