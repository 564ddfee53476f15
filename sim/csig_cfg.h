/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _DCCSIM_CSIG_CFG_H
#define _DCCSIM_CSIG_CFG_H

#include "csig_port.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *@c = CSIG_PORT_CFG_INIT (include/csig_port.h) */
void dccsim_csig_default_cfg(struct csig_port_cfg *c);

#ifdef __cplusplus
}
#endif

#endif
