/* Wrong on purpose: reads nothing, so every group answers the identity. The
 * exact float and double product data once made that pass (magnitudes that
 * cancel overall); the one-sided set's product is always +-2^4. */
#define LIMIT(n) 0
#include "../sequential.h"
