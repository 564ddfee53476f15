/* SPDX-License-Identifier: GPL-2.0 */
/* selftests/unit/glue/kshim/kshim.h */
#include "../kshim.h"
