/* Wrong on purpose: loses element n - 1 (the bound is off by one). */
#define LIMIT(n) ((n) - 1)
#include "../sequential.h"
