/* SPDX-License-Identifier: GPL-2.0 */
/* selftests/unit/glue/bshim/bshim.h */
#include "../bshim.h"
