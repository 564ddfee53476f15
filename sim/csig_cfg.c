// SPDX-License-Identifier: GPL-2.0
/*
 * The port's default configuration for the ns-3 model: CSIG_PORT_CFG_INIT
 * and its quantisation table use C's array designators, which C++ does not
 * have, so the one copy of the defaults is taken here, in C.
 */
#include "csig_port.h"
#include "csig_cfg.h"

void dccsim_csig_default_cfg(struct csig_port_cfg *c)
{
	static const struct csig_port_cfg def = CSIG_PORT_CFG_INIT;

	*c = def;
}
