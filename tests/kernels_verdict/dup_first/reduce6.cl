/* Wrong on purpose: group 0 starts from element 0 and then adds it again. */
#define FIRST in[0]
#include "../sequential.h"
