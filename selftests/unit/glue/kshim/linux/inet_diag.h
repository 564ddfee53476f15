/* SPDX-License-Identifier: GPL-2.0 */
/* selftests/unit/glue/kshim/kshim.h, and the uapi's INET_DIAG_* */
#include "../kshim.h"
#include_next <linux/inet_diag.h>
