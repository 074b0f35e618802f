/* The control: the fixtures' body with no mistake. It must PASS wherever
 * the others FAIL, or the test proves nothing. */
#include "../sequential.h"
